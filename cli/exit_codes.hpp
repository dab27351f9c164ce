// SPDX-License-Identifier: MIT
#pragma once

namespace shaderbake::cli {

// Documented exit codes (README, Commands).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailures = 1,   // finished, but some of the work failed (reported)
  kExitUsage = 2,      // bad command line
  kExitBadInput = 3,   // input data rejected (under --strict, or nothing usable)
  kExitToolchain = 4,  // compiler, validator or device failure
  kExitOutput = 5,     // an output could not be written
  kExitInternal = 6,   // an exception escaped a command (out of memory, or a bug): main's last-resort catch
};

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
#pragma once

#include "lib/guest/guest_catalog.hpp"

namespace shaderbake::cli {

// The whole command line (argv[0] is the program's name): parses it, runs one command with `guests` as the
// guest models it may meet, and returns the exit code (cli/exit_codes.hpp). The shaderbake executable passes
// guests/registry.cpp's models; a test may pass models of its own.
int run_cli(int argc, char** argv, const GuestCatalog& guests);

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
#pragma once

#include <initializer_list>
#include <string>

#include "lib/core/result.hpp"
#include "lib/io/output_file.hpp"

namespace shaderbake::cli {

// Run before a command reads anything: kExitOk, or kExitUsage after printing which output is the same file as
// which input or other output (io::find_path_clash), so that no command ever overwrites what it reads.
int refuse_clashing_outputs(std::initializer_list<io::NamedPath> inputs, std::initializer_list<io::NamedPath> outputs);
int refuse_clashing_outputs(const std::vector<io::NamedPath>& inputs, const std::vector<io::NamedPath>& outputs);

// Names every path of `paths` with `role` ("trace").
std::vector<io::NamedPath> named_paths(const std::string& role, const std::vector<std::string>& paths);

// Prints a failed io::write_output and returns its exit code (kExitOutput).
int report_output_failure(const Error& error);

}  // namespace shaderbake::cli

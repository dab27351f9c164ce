// SPDX-License-Identifier: MIT
#include "cli/output_paths.hpp"

#include "cli/command_output.hpp"
#include "cli/exit_codes.hpp"

namespace shaderbake::cli {

int refuse_clashing_outputs(const std::vector<io::NamedPath>& inputs, const std::vector<io::NamedPath>& outputs) {
  const std::optional<io::PathClash> clash = io::find_path_clash(inputs, outputs);
  if (!clash) return kExitOk;
  print_error(clash->output.role + " " + clash->output.path + " is the same file as " +
              (clash->other_is_input ? "the input " : "the output ") + clash->other.role + " " + clash->other.path +
              (clash->other_is_input ? ": it would be overwritten; name another output file"
                                     : ": one would overwrite the other; name two different files"));
  return kExitUsage;
}

int refuse_clashing_outputs(std::initializer_list<io::NamedPath> inputs, std::initializer_list<io::NamedPath> outputs) {
  return refuse_clashing_outputs(std::vector<io::NamedPath>(inputs), std::vector<io::NamedPath>(outputs));
}

std::vector<io::NamedPath> named_paths(const std::string& role, const std::vector<std::string>& paths) {
  std::vector<io::NamedPath> out;
  for (const std::string& p : paths) out.push_back({role, p});
  return out;
}

int report_output_failure(const Error& error) {
  print_error(error.to_string());
  return kExitOutput;
}

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
#include <cstdio>

#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/schemas_embedded.hpp"

namespace shaderbake::cli {

int run_schema(const SchemaOptions& options) {
  for (const EmbeddedSchema& schema : embedded_schemas()) {
    if (schema.name == options.name) {
      std::fwrite(schema.text.data(), 1, schema.text.size(), stdout);
      if (!schema.text.empty() && schema.text.back() != '\n') std::fputc('\n', stdout);
      return kExitOk;
    }
  }
  std::string known;
  for (const EmbeddedSchema& schema : embedded_schemas()) known += (known.empty() ? "" : ", ") + std::string(schema.name);
  print_error("no schema named \"" + options.name + "\" (known: " + known + ")");
  return kExitUsage;
}

}  // namespace shaderbake::cli

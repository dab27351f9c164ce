// SPDX-License-Identifier: MIT
// shaderbake verify: exit 0 only when every check of a bundle holds.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_verify.hpp"

namespace shaderbake::cli {

int run_verify(const VerifyOptions& options) {
  auto file = bundle::BundleFile::open(options.bundle);
  if (!file) {
    if (options.json)
      std::printf("%s\n", nlohmann::ordered_json{{"bundle", options.bundle}, {"ok", false},
                                                 {"error", file.error().message}}.dump(2).c_str());
    std::fprintf(stderr, "error: %s\n", file.error().to_string().c_str());
    return kExitFailures;
  }
  file->prepare_module_reads();  // verify reads every module
  const auto checks = bundle::verify_bundle(*file);
  bool ok = true;
  nlohmann::ordered_json out;
  out["bundle"] = options.bundle;
  out["checks"] = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    ok = ok && c.failures.empty();
    out["checks"].push_back({{"name", c.name}, {"checked", c.checked}, {"failures", c.failures}});
    if (!options.json) {
      std::printf("%-16s %8llu checked  %s\n", c.name.c_str(), static_cast<unsigned long long>(c.checked),
                  c.failures.empty() ? "ok" : (std::to_string(c.failures.size()) + " FAILED").c_str());
      for (const auto& f : c.failures) std::fprintf(stderr, "error: %s: %s\n", options.bundle.c_str(), f.c_str());
    }
  }
  out["ok"] = ok;
  if (options.json) std::printf("%s\n", out.dump(2).c_str());
  else std::printf("%s: %s\n", options.bundle.c_str(), ok ? "verified" : "verification FAILED");
  return ok ? kExitOk : kExitFailures;
}

}  // namespace shaderbake::cli

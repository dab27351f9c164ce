// SPDX-License-Identifier: MIT
// shaderbake verify: exit 0 only when every check of a bundle holds (lib/bundle/bundle_verify.hpp); 1 when one
// fails (each problem named); 3 when the file is not a bundle the loader can open at all.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/bundle_opening.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_verify.hpp"

namespace shaderbake::cli {

int run_verify(const VerifyOptions& options, const GuestCatalog& guests) {
  auto opened = open_guest_bundle(options.bundle, guests);
  if (!opened) {
    // Not a usable bundle: under --json, main prints the JSON error object with this line's message.
    print_error(opened.error().to_string());
    return kExitBadInput;
  }
  opened->file.prepare_module_reads();  // verify reads every module
  const auto checks = bundle::verify_bundle(opened->file, *opened->guest);
  const bool ok = bundle::all_passed(checks);
  nlohmann::ordered_json out;
  out["bundle"] = options.bundle;
  out["checks"] = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    out["checks"].push_back({{"name", c.name}, {"checked", c.checked}, {"failures", c.failures}});
    if (!options.json) {
      std::printf("%-16s %8llu checked  %s\n", c.name.c_str(), static_cast<unsigned long long>(c.checked),
                  c.failures.empty() ? "ok" : (std::to_string(c.failures.size()) + " FAILED").c_str());
      for (const auto& f : c.failures) print_error(options.bundle + ": " + f);
    }
  }
  out["ok"] = ok;
  // A shard of a build (build --shard K/N) is a bundle of its own that says so; merge puts the N together.
  std::string shard;
  if (auto report = opened->file.report_json(); report && !report->empty()) {
    const auto j = nlohmann::ordered_json::parse(*report, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("shard") && j["shard"].is_object()) {
      out["shard"] = {{"index", j["shard"].value("index", nlohmann::ordered_json())},
                      {"count", j["shard"].value("count", nlohmann::ordered_json())}};
      shard = " (shard " + out["shard"]["index"].dump() + " of " + out["shard"]["count"].dump() + " of a build)";
    }
  }
  if (options.json) print_json(out);
  else std::printf("%s: %s%s\n", escape_controls(options.bundle).c_str(), ok ? "verified" : "verification FAILED", shard.c_str());
  return ok ? kExitOk : kExitFailures;
}

}  // namespace shaderbake::cli

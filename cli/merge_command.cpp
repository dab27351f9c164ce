// SPDX-License-Identifier: MIT
// shaderbake merge: the shards of one build (build --shard K/N) put together into the whole build's bundle, and
// bundles of different capture sessions into their union (lib/plan/bundle_merge.hpp). Exit 0 written; 3 a shard
// missing or repeated, a session given twice, a key with different content, bundles of another guest or
// toolchain, or a file that does not read; 5 the output cannot be written.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_paths.hpp"
#include "cli/thread_count.hpp"
#include "lib/io/output_file.hpp"
#include "lib/plan/bundle_merge.hpp"

namespace shaderbake::cli {

int run_merge(const MergeOptions& options, const GuestCatalog& guests) {
  if (const int code = refuse_clashing_outputs(named_paths("bundle", options.bundles), {{"-o", options.output}}); code != kExitOk)
    return code;
  const auto start = std::chrono::steady_clock::now();
  bundle::WriteOptions write;
  write.threads = compile_threads(options.jobs);
  auto merged = plan::merge_bundles(options.bundles, guests, write);
  if (!merged) {
    print_error(merged.error().to_string());
    return kExitBadInput;  // the inputs (an output problem is write_output's, below)
  }
  if (const Status s = io::write_output(options.output, merged->bytes, io::IfIdentical::keep); !s)
    return report_output_failure(s.error());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::ordered_json out = {{"output", options.output},
                                {"bundles", merged->bundles},
                                {"builds", merged->builds},
                                {"sessions", merged->sessions},
                                {"dynamic_fallbacks_completed", merged->dynamic_fallbacks_completed},
                                {"bundle_bytes", merged->bytes.size()},
                                {"entries", merged->write.entries},
                                {"modules", merged->write.modules},
                                {"raw_module_bytes", merged->write.raw_module_bytes},
                                {"compressed_module_bytes", merged->write.compressed_module_bytes},
                                {"dictionary_bytes", merged->write.dictionary_bytes},
                                {"seconds", seconds}};
  if (options.json) {
    print_json(out);
  } else {
    std::printf("%s: %zu bytes from %u bundles (%u builds, %u capture sessions): %llu entries, %llu modules, %.2f s\n",
                escape_controls(options.output).c_str(), merged->bytes.size(), merged->bundles, merged->builds,
                merged->sessions, static_cast<unsigned long long>(merged->write.entries),
                static_cast<unsigned long long>(merged->write.modules), seconds);
  }
  return kExitOk;
}

}  // namespace shaderbake::cli

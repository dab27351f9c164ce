// SPDX-License-Identifier: MIT
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "cli/byte_size.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/cache/artifact_cache.hpp"

namespace shaderbake::cli {

int run_cache_prune(const CachePruneOptions& options) {
  const std::optional<uint64_t> max_bytes = parse_byte_size(options.max_size);
  if (!max_bytes) {
    print_error("--max-size " + options.max_size + ": not a size; give bytes or a number with K, M, G or T (e.g. 500M)");
    return kExitUsage;
  }
  Result<std::filesystem::path> dir =
      options.cache_dir.empty() ? cache::default_directory() : Result<std::filesystem::path>(options.cache_dir);
  if (!dir) {
    print_error("no cache directory: " + dir.error().message + "; pass --cache-dir DIR");
    return kExitUsage;
  }
  const Result<cache::PruneResult> pruned = cache::prune(*dir, *max_bytes);
  if (!pruned) {
    print_error(pruned.error().to_string());
    return kExitOutput;
  }
  const cache::PruneResult& r = *pruned;
  const uint64_t entries_after = r.entries_before - r.entries_removed;
  const uint64_t bytes_after = r.bytes_before - r.bytes_removed;
  if (options.json) {
    nlohmann::ordered_json j;
    j["directory"] = dir->string();
    j["max_bytes"] = *max_bytes;
    j["entries_before"] = r.entries_before;
    j["bytes_before"] = r.bytes_before;
    j["entries_removed"] = r.entries_removed;
    j["bytes_removed"] = r.bytes_removed;
    j["entries_after"] = entries_after;
    j["bytes_after"] = bytes_after;
    j["temp_files_removed"] = r.temp_files_removed;
    print_json(j);
  } else {
    std::printf("removed %llu of %llu entries (%llu of %llu bytes) from %s; %llu entries (%llu bytes) remain",
                static_cast<unsigned long long>(r.entries_removed), static_cast<unsigned long long>(r.entries_before),
                static_cast<unsigned long long>(r.bytes_removed), static_cast<unsigned long long>(r.bytes_before),
                dir->string().c_str(), static_cast<unsigned long long>(entries_after),
                static_cast<unsigned long long>(bytes_after));
    if (r.temp_files_removed)
      std::printf("; removed %llu stale temporary files", static_cast<unsigned long long>(r.temp_files_removed));
    std::printf("\n");
  }
  return kExitOk;
}

}  // namespace shaderbake::cli

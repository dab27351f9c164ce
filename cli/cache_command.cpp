// SPDX-License-Identifier: MIT
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/cache/artifact_cache.hpp"

namespace shaderbake::cli {

namespace {

// "123" (bytes), or a number with one of K, M, G, T (powers of 1024, either case, an optional trailing B or
// iB: 500M = 500MB = 500MiB). nullopt for anything else, and for sizes past 2^64 - 1.
std::optional<uint64_t> parse_size(std::string_view text) {
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  std::string_view unit = text.substr(i);
  if (unit.empty()) return value;
  int shift = 0;
  switch (unit[0]) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: return std::nullopt;
  }
  unit.remove_prefix(1);
  if (!(unit.empty() || unit == "B" || unit == "b" || unit == "iB" || unit == "ib")) return std::nullopt;
  if (value > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace

int run_cache_prune(const CachePruneOptions& options) {
  const std::optional<uint64_t> max_bytes = parse_size(options.max_size);
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

// SPDX-License-Identifier: MIT
#include "cli/cache_options.hpp"
#include "cli/command_output.hpp"

#include <cstdio>

namespace shaderbake::cli {

std::unique_ptr<cache::ArtifactCache> open_artifact_cache(const std::string& cache_dir, bool no_cache) {
  std::unique_ptr<cache::ArtifactCache> out;
  if (no_cache) return out;
  Result<std::filesystem::path> dir =
      cache_dir.empty() ? cache::default_directory() : Result<std::filesystem::path>(std::filesystem::path(cache_dir));
  if (dir) out = std::make_unique<cache::ArtifactCache>(*dir);
  else print_warning("compiling without the artifact cache: " + dir.error().message + "; pass --cache-dir DIR");
  return out;
}

void report_cache_store_failures(const std::unique_ptr<cache::ArtifactCache>& cache) {
  if (!cache) return;
  const cache::CacheStats stats = cache->stats();
  if (!stats.store_failures) return;
  print_warning(std::to_string(stats.store_failures) + " compiled modules were not stored in the artifact cache (first: " +
                cache->first_store_error()->to_string() + "); the output is complete, the next run compiles them again");
}

nlohmann::ordered_json cache_summary(const std::unique_ptr<cache::ArtifactCache>& cache) {
  if (!cache) return nullptr;
  const cache::CacheStats stats = cache->stats();
  return {{"directory", cache->directory().string()}, {"hits", stats.hits},
          {"misses", stats.misses},                   {"stores", stats.stores},
          {"store_failures", stats.store_failures},   {"corrupt_discarded", stats.corrupt_discarded}};
}

cache::ArtifactIdentity CacheCompressionMemo::identity_of(std::span<const uint8_t> identity) const {
  return cache_.blob_identity("bundle-compression/1", identity);
}

std::optional<std::vector<uint8_t>> CacheCompressionMemo::find(std::span<const uint8_t> identity) {
  return cache_.load_blob(identity_of(identity));
}

void CacheCompressionMemo::put(std::span<const uint8_t> identity, std::span<const uint8_t> bytes) {
  (void)cache_.store_blob(identity_of(identity), bytes);  // only saves time: a failed store costs a recompression
}

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
#include "cli/cache_options.hpp"
#include "cli/command_output.hpp"

#include <cstdio>

namespace shaderbake::cli {

std::unique_ptr<cache::ArtifactCache> open_artifact_cache(const std::string& cache_dir, bool no_cache,
                                                          const std::string& cache_url) {
  std::unique_ptr<cache::ArtifactCache> out;
  if (no_cache) return out;
  Result<std::filesystem::path> dir =
      cache_dir.empty() ? cache::default_directory() : Result<std::filesystem::path>(std::filesystem::path(cache_dir));
  if (!dir) {
    print_warning("compiling without the artifact cache: " + dir.error().message + "; pass --cache-dir DIR");
    return out;
  }
  out = std::make_unique<cache::ArtifactCache>(*dir);
  if (!cache_url.empty()) {
    if (auto remote = cache::RemoteCache::open(cache_url)) out->set_remote(std::move(*remote));
    else print_warning("compiling without the remote cache: " + remote.error().message);
  }
  return out;
}

void report_cache_store_failures(const std::unique_ptr<cache::ArtifactCache>& cache) {
  if (!cache) return;
  if (const cache::RemoteCache* remote = cache->remote())
    if (std::optional<std::string> failure = remote->failure())
      print_warning("remote cache " + remote->url() + " out of use from here on: " + *failure +
                    "; what it did not serve was compiled and kept locally");
  const cache::CacheStats stats = cache->stats();
  if (!stats.store_failures) return;
  print_warning(std::to_string(stats.store_failures) + " compiled modules were not stored in the artifact cache (first: " +
                cache->first_store_error()->to_string() + "); the output is complete, the next run compiles them again");
}

nlohmann::ordered_json cache_summary(const std::unique_ptr<cache::ArtifactCache>& cache) {
  if (!cache) return nullptr;
  const cache::CacheStats stats = cache->stats();
  nlohmann::ordered_json out = {{"directory", cache->directory().string()}, {"hits", stats.hits},
                                 {"misses", stats.misses},                   {"stores", stats.stores},
                                 {"store_failures", stats.store_failures},   {"corrupt_discarded", stats.corrupt_discarded}};
  if (const cache::RemoteCache* remote = cache->remote()) {
    const std::optional<std::string> failure = remote->failure();
    out["remote"] = {{"url", remote->url()},
                     {"hits", stats.remote_hits},
                     {"misses", stats.remote_misses},
                     {"corrupt", stats.remote_corrupt},
                     {"stores", stats.remote_stores},
                     {"failure", failure ? nlohmann::ordered_json(*failure) : nlohmann::ordered_json()}};
  }
  return out;
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

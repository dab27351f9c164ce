// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>
#include <memory>
#include <string>

#include "lib/bundle/compression_memo.hpp"
#include "lib/cache/artifact_cache.hpp"

namespace shaderbake::cli {

// The artifact cache a compiling command uses: --cache-dir DIR, else the user's cache directory, with the
// remote store of --cache-url behind it (none when `cache_url` is empty); none with --no-cache. The cache only
// saves time: when it cannot be used the command warns and goes on without it.
std::unique_ptr<cache::ArtifactCache> open_artifact_cache(const std::string& cache_dir, bool no_cache,
                                                          const std::string& cache_url = {});

// Warns (stderr) when compiled modules could not be stored, and once when the remote store failed and was put
// out of use; the command's output is complete regardless.
void report_cache_store_failures(const std::unique_ptr<cache::ArtifactCache>& cache);

// {"directory", "hits", "misses", "stores", "store_failures", "corrupt_discarded"} and, with a remote store,
// "remote": {"url", "hits", "misses", "corrupt", "stores", "failure" (null while it served)}; null without a cache.
nlohmann::ordered_json cache_summary(const std::unique_ptr<cache::ArtifactCache>& cache);

// The bundle writer's compression memo, kept in the artifact cache as blob entries.
class CacheCompressionMemo final : public bundle::CompressionMemo {
 public:
  explicit CacheCompressionMemo(cache::ArtifactCache& cache) : cache_(cache) {}
  std::optional<std::vector<uint8_t>> find(std::span<const uint8_t> identity) override;
  void put(std::span<const uint8_t> identity, std::span<const uint8_t> bytes) override;

 private:
  cache::ArtifactIdentity identity_of(std::span<const uint8_t> identity) const;
  cache::ArtifactCache& cache_;
};

}  // namespace shaderbake::cli

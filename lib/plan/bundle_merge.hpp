// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/bundle/bundle_writer.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::plan {

struct MergeResult {
  std::vector<uint8_t> bytes;  // the merged bundle
  bundle::WriteStats write;
  uint32_t shards = 0;
  std::string report_json;
};

// Puts the shards of one build (build --shard K/N, every K of one N, in any order) together into the bundle the
// whole build writes, byte for byte: their entries, modules (identical ones once), recipes and dynamic-state
// recipes, the prewarm order by the positions each shard's report records, and the report with the shards'
// counts summed and recounted (distinct exact and vertex modules, by content). Only compression is redone.
// Errors (kind bad_input) name the file: reason merge_missing_shard, merge_duplicate_shard, merge_mismatch (a
// different guest, key schema, toolchain, generator, shard count or build inputs: not shards of one build),
// merge_not_a_shard (a bundle without shard data among several), merge_conflict (one key in two shards), and
// the loader's reasons for a bundle that does not read.
Result<MergeResult> merge_shards(const std::vector<std::string>& paths, const bundle::WriteOptions& write);

}  // namespace shaderbake::plan

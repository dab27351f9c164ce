// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/bundle/bundle_writer.hpp"
#include "lib/core/result.hpp"
#include "lib/guest/guest_catalog.hpp"

namespace shaderbake::plan {

struct MergeResult {
  std::vector<uint8_t> bytes;  // the merged bundle
  bundle::WriteStats write;
  uint32_t bundles = 0;   // files read
  uint32_t builds = 0;    // builds put together: the shards of one build count once
  uint32_t sessions = 0;  // capture sessions in the result's provenance (a merged bundle brings its own)
  uint64_t dynamic_fallbacks_completed = 0;
  std::string report_json;
};

// Puts bundles together. The inputs are builds: the shards of one build (build --shard K/N, every K of one N, in
// any order) are one build, a whole bundle is one. The builds must have the same guest, key schema, toolchain and
// generators (reason merge_mismatch, naming the field and both values).
// - One build: its bundle, byte for byte as the single-machine build writes it (shards' entries, modules once,
//   the prewarm order by the positions each shard's report records, the report with the counts recounted).
// - Several builds (different capture sessions): their union, as a build of all their traces in the order
//   given would hold it: every entry of any of them, a key held by several with the same content in each
//   (reason merge_conflict naming the key and what differs, never first-wins), the dynamic-state fallback
//   recipes of every family for every attachment signature held, the prewarm order the first build's then each
//   next one's new pipelines. The report sums the inputs, draws and frames, recounts what the union holds,
//   keeps every distinct failure, and records each capture session in "sessions" (its bundles, shards, traces
//   and counts; a merged input brings its sessions). A session is told by its traces' capture records and
//   counts, not their paths. Builds with and without --specialize are refused (merge_mismatch). Not derivable
//   from bundles, so left out: unique_sources; a recipe for a family none of the builds made one for; one for
//   an attachment signature drawn only by exact pipelines that failed to build.
// Only dictionary training and compression are redone. Other errors (kind bad_input) name the file:
// merge_missing_shard, merge_duplicate_shard, merge_duplicate_session (one capture session given twice),
// merge_not_a_shard (shard data that does not read), merge_bad_report (a report's failures or sessions that do not
// read), and the loader's reasons for a bundle that does not read.
Result<MergeResult> merge_bundles(const std::vector<std::string>& paths, const GuestCatalog& guests,
                                  const bundle::WriteOptions& write);

}  // namespace shaderbake::plan

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

#include "lib/bundle/bundle_writer.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/core/result.hpp"
#include "lib/guest/guest_model.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::plan {

struct BundleBuildOptions {
  unsigned threads = 1;
  compile::ModuleStore* cache = nullptr;  // the artifact cache, or nullptr
  bundle::WriteOptions write;
  // The exact route's form for a guest whose shaders carry specialization constants (its jobs have values):
  // false, each key's modules with the values frozen in; true, one generic module per shader and each exact
  // pipeline's values in the bundle's specialization data (the renderer's VkSpecializationInfo). No effect on
  // a guest whose jobs have no values.
  bool specialize = false;
  // One shard of a build spread over shard_count machines (lib/plan/shard.hpp): only the fragment-stage modules
  // whose compile unit hashes to shard_index, with the entries, pipelines, dynamic-state recipes and prewarm
  // positions that need them, and the report's "shard" object (index, count, each prewarm pipeline's position
  // in the whole build's order). `shaderbake merge` puts the shards together into the whole build's bytes.
  uint32_t shard_index = 0;
  uint32_t shard_count = 1;
  // Called as modules compile: the phase ("fragment", then "vertex"), unique modules of it done, their total.
  // One call at a time, from compile threads. May be empty.
  std::function<void(std::string_view phase, size_t done, size_t total)> progress;
};

// One thing a build could not make, with the key it belongs to.
struct BuildFailure {
  std::string route;  // "exact", "fallback", "pipeline" or "dynamic_fallback"
  std::string key;    // hex of the key's hash
  Error error;
};

struct BundleBuildResult {
  std::vector<uint8_t> bytes;  // the serialised bundle
  bundle::WriteStats write;
  uint64_t specializations = 0;  // exact keys (every drawn program)
  uint64_t exact_modules = 0;    // distinct modules of the ready exact keys (keys whose shaders compile alike share one)
  uint64_t specialized_pipelines = 0;  // exact pipelines with specialization data (BundleBuildOptions::specialize)
  uint64_t families = 0;
  uint64_t exact_pipelines = 0;     // pipeline recipes on the exact route
  uint64_t fallback_pipelines = 0;  // and on the fallback route
  uint64_t dynamic_fallback_pipelines = 0;  // dynamic-state fallback recipes: (family, attachment signature)
  uint64_t prewarm_pipelines = 0;           // exact pipelines in the prewarm order
  uint64_t unique_sources = 0;      // distinct fragment sources compiled
  uint64_t vertex_modules = 0;      // distinct vertex modules (by content) in the bundle
  std::vector<BuildFailure> failures;  // by route, then key
  std::string report_json;  // what the REPORT section holds
};

// Plans and builds the bundle of everything the census drew: the exact fragment module of each drawn program,
// the ubershader of each admitted family, the vertex module and layout of each pipeline key, every one a
// complete recipe; for each family with a ready ubershader a dynamic-state fallback recipe per attachment
// signature of any drawn host state, and the prewarm order of the exact pipelines (first use). A module that fails is recorded (status in its specialization record, and in `failures`)
// and the pipelines that needed it are left out; the rest go on. Deterministic: the bytes depend only on
// the traces' content (and file names, in the report), never on thread timing or `threads`.
Result<BundleBuildResult> build_bundle(const trace::TraceReader& reader, const KeyCensus& census,
                                       const GuestModel& model, const BundleBuildOptions& options);

}  // namespace shaderbake::plan

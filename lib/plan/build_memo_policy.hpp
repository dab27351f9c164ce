// SPDX-License-Identifier: MIT
#pragma once

// The build memo's policy: what a bundle build remembers, when a remembered build may stand for a new one, and
// when a build's outputs may be remembered. The memo's identity and its bytes are lib/cache/build_memo.hpp's.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/cache/artifact_cache.hpp"
#include "lib/cache/build_memo.hpp"
#include "lib/core/result.hpp"
#include "lib/plan/bundle_plan.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::plan {

// The summary's fields that depend on the inputs alone (the same for every build of the same traces, so a memo
// keeps them), in print order: these counts, then "bad_records" (reason -> count).
inline constexpr const char* kOutcomeCounts[] = {
    "bundle_bytes", "draws", "specializations", "exact_modules", "families", "exact_pipelines", "fallback_pipelines",
    "dynamic_fallback_pipelines", "prewarm_pipelines", "modules", "unique_sources", "raw_module_bytes",
    "compressed_module_bytes", "dictionary_bytes", "failures"};

// A build's outcome: the kOutcomeCounts fields in that order, then "bad_records". What a memo keeps as its
// summary (BuildOutputs::summary_json) and what the command prints.
nlohmann::ordered_json outcome_summary(const BundleBuildResult& result, const KeyCensus& census,
                                       const trace::TraceReader& reader);

// The exit statuses the command gives a build without and with failures.
struct BuildExitCodes {
  int ok;
  int failures;
};

struct RememberedBuild {
  cache::BuildOutputs outputs;
  nlohmann::ordered_json outcome;  // parsed from outputs.summary_json
};

// The memo stored for `id`, when there is one that holds what a build stores and agrees with itself (the
// bundle's size; the exit status, the one of `exit_codes` its failure count gives). Anything else is not used:
// the build runs every stage and stores a good memo over it.
std::optional<RememberedBuild> recall_build(cache::ArtifactCache& artifact_cache, const cache::ArtifactIdentity& id,
                                            const BuildExitCodes& exit_codes);

// A build's memo inputs (the settings that decide its outputs: --strict and --max-record-size), or the reason
// it cannot have a memo (an object of the running code has no GNU build ID, a trace is not a regular file or
// cannot be read).
Result<cache::BuildInputs> describe_build_inputs(const std::vector<std::string>& traces, bool strict,
                                                 uint64_t max_record_bytes, bool specialize = false);

// Why this build's outputs may not be remembered, or empty when they may: every trace was read whole and its
// digest as parsed is the one the lookup used, and every failure is one that the same inputs always give.
std::string why_not_remembered(const cache::BuildInputs& inputs, const trace::TraceReader& reader,
                               const BundleBuildResult& result);

}  // namespace shaderbake::plan

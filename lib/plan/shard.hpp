// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/core/result.hpp"
#include "lib/plan/compile_plan.hpp"

namespace shaderbake::plan {

// One shard of a build spread over `count` machines (build --shard K/N): the fragment-stage modules, and the
// entries and pipelines that need them, whose compile unit hashes to `index`.
struct Shard {
  uint32_t index = 0;
  uint32_t count = 1;
};

// The shard of a planned module: its compile job's identity (stage, language, source, values) hashed, so keys
// whose shaders are one job land together and every job is compiled by one shard; a key whose shader could not
// be generated goes by its key. Independent of trace order and of the machine.
uint32_t shard_of(const PlannedModule& module, uint32_t count);

// "K/N" (0 <= K < N <= 4096), or "auto/N" with K from the first of these set: the variable named by
// `index_variable` (when not empty), SLURM_ARRAY_TASK_ID (Slurm job arrays), JOB_COMPLETION_INDEX (Kubernetes
// Indexed Jobs). Errors (kind bad_input, reason bad_shard) say what is wrong and where K was looked for.
Result<Shard> parse_shard(std::string_view text, std::string_view index_variable);

}  // namespace shaderbake::plan

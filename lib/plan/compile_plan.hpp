// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/compile/compile_chain.hpp"
#include "lib/compile/spirv_module.hpp"
#include "lib/core/key_hash.hpp"
#include "lib/core/result.hpp"
#include "lib/guest/guest_model.hpp"
#include "lib/plan/key_census.hpp"

namespace shaderbake::plan {

// One shader module a build needs for a pipeline's fragment (or compute) stage: the exact shader of a drawn
// program, or the ubershader of a family of admitted drawn programs.
struct PlannedModule {
  enum class Route : uint8_t { exact, fallback };
  Route route = Route::exact;
  std::vector<uint8_t> key;  // the canonical exact or family key
  KeyHash key_hash;
  compile::CompileJob job;   // what the guest hands the compile chain (empty source when generation failed)
  // With specialize_exact: the values the guest's exact job would have frozen, taken out of `job` (the module
  // is compiled generic; a pipeline gives them in its VkSpecializationInfo). Empty otherwise.
  std::vector<compile::SpecializationValue> values;
  std::optional<compile::CompiledModule> module;
  std::optional<Error> error;  // why there is no module: generation or compile failure, with the key's hash
};

struct CompilePlanResult {
  std::vector<PlannedModule> modules;  // exact routes first, each route ordered by key hash: deterministic
  uint64_t unique_sources = 0;         // distinct jobs compiled (identical jobs compile once)
  uint64_t failures = 0;
};

// Generates and compiles, on `threads` threads, every module the drawn keys of `census` need. A failure
// of one module is recorded with its key and never stops the others. With a `cache` (the artifact cache,
// lib/cache, or any compile::ModuleStore), modules are looked up there first and filed under the model's
// emitter ids; the result is the same with or without one.
// With `specialize_exact`, exact jobs are compiled without their specialization values (PlannedModule::values
// keeps them), so that the keys of one shader share its one generic module.
// With `shard` (index, count), only the modules of that shard (shard.hpp's shard_of) are kept and compiled.
CompilePlanResult compile_drawn_modules(const trace::TraceReader& reader, const KeyCensus& census,
                                        const GuestModel& model, unsigned threads,
                                        compile::ModuleStore* cache = nullptr,
                                        const compile::CompileProgress& progress = {}, bool specialize_exact = false,
                                        uint32_t shard_index = 0, uint32_t shard_count = 1);

}  // namespace shaderbake::plan

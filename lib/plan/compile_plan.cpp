// SPDX-License-Identifier: MIT
#include "lib/plan/compile_plan.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "lib/compile/compile_chain.hpp"
#include "lib/plan/shard.hpp"

namespace shaderbake::plan {

CompilePlanResult compile_drawn_modules(const trace::TraceReader& reader, const KeyCensus& census,
                                        const GuestModel& model, unsigned threads, compile::ModuleStore* cache,
                                        const compile::CompileProgress& progress, bool specialize_exact,
                                        uint32_t shard_index, uint32_t shard_count) {
  CompilePlanResult out;
  auto add = [&](PlannedModule::Route route, std::span<const uint8_t> key, Result<compile::CompileJob> job) {
    PlannedModule m;
    m.route = route;
    m.key.assign(key.begin(), key.end());
    m.key_hash = KeyHash::of(key);
    if (job) m.job = std::move(*job);
    else m.error = std::move(job).error();
    if (specialize_exact && route == PlannedModule::Route::exact) m.values = std::exchange(m.job.specialization, {});
    out.modules.push_back(std::move(m));
  };
  for (uint32_t program : census.drawn_programs()) {
    const auto key = reader.exact_keys().bytes(program);
    add(PlannedModule::Route::exact, key, model.exact_shader(key));
  }
  for (uint32_t family : census.drawn_families()) {
    const auto key = reader.family_keys().bytes(family);
    add(PlannedModule::Route::fallback, key, model.fallback_shader(key));
  }
  // Order by route, then key hash (then bytes): independent of trace order and thread timing.
  std::sort(out.modules.begin(), out.modules.end(), [](const PlannedModule& a, const PlannedModule& b) {
    if (a.route != b.route) return a.route < b.route;
    if (a.key_hash != b.key_hash) return a.key_hash < b.key_hash;
    return a.key < b.key;
  });

  if (shard_count > 1)
    std::erase_if(out.modules, [&](const PlannedModule& m) { return shard_of(m, shard_count) != shard_index; });

  std::vector<compile::CompileJob> jobs;
  std::vector<size_t> job_module;
  std::set<compile::JobIdentity> unique;
  for (size_t i = 0; i < out.modules.size(); ++i) {
    if (out.modules[i].error) continue;
    jobs.push_back(out.modules[i].job);
    job_module.push_back(i);
    unique.insert(compile::job_identity(out.modules[i].job));
  }
  out.unique_sources = unique.size();
  auto results = compile::compile_all(jobs, threads, cache, progress);
  for (size_t j = 0; j < results.size(); ++j) {
    PlannedModule& m = out.modules[job_module[j]];
    if (results[j]) m.module = std::move(*results[j]);
    else m.error = std::move(results[j]).error();
  }
  for (PlannedModule& m : out.modules) {
    if (!m.error) continue;
    ++out.failures;
    m.error->message = std::string(m.route == PlannedModule::Route::exact ? "exact key " : "family key ") +
                       m.key_hash.to_hex() + ": " + m.error->message;
  }
  return out;
}

}  // namespace shaderbake::plan

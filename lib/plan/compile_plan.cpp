// SPDX-License-Identifier: MIT
#include "lib/plan/compile_plan.hpp"

#include <algorithm>
#include <set>

#include "lib/compile/compile_chain.hpp"

namespace shaderbake::plan {

CompilePlanResult compile_drawn_modules(const trace::TraceReader& reader, const KeyCensus& census,
                                        const GuestModel& model, unsigned threads, compile::ModuleStore* cache,
                                        const compile::CompileProgress& progress) {
  CompilePlanResult out;
  auto add = [&](PlannedModule::Route route, std::span<const uint8_t> key, Result<std::string> source) {
    PlannedModule m;
    m.route = route;
    m.key.assign(key.begin(), key.end());
    m.key_hash = KeyHash::of(key);
    if (source) m.source = std::move(*source);
    else m.error = std::move(source).error();
    out.modules.push_back(std::move(m));
  };
  for (uint32_t program : census.drawn_programs()) {
    const auto key = reader.exact_keys().bytes(program);
    add(PlannedModule::Route::exact, key, model.exact_source(key));
  }
  for (uint32_t family : census.drawn_families()) {
    const auto key = reader.family_keys().bytes(family);
    add(PlannedModule::Route::fallback, key, model.fallback_source(key));
  }
  // Order by route, then key hash (then bytes): independent of trace order and thread timing.
  std::sort(out.modules.begin(), out.modules.end(), [](const PlannedModule& a, const PlannedModule& b) {
    if (a.route != b.route) return a.route < b.route;
    if (a.key_hash != b.key_hash) return a.key_hash < b.key_hash;
    return a.key < b.key;
  });

  const std::string exact_emitter = model.exact_emitter_id();
  const std::string fallback_emitter = model.fallback_emitter_id();
  std::vector<compile::CompileJob> jobs;
  std::vector<size_t> job_module;
  std::set<std::string_view> sources;
  for (size_t i = 0; i < out.modules.size(); ++i) {
    if (out.modules[i].error) continue;
    const bool exact = out.modules[i].route == PlannedModule::Route::exact;
    jobs.push_back({compile::ShaderStage::fragment, out.modules[i].source, exact ? exact_emitter : fallback_emitter});
    job_module.push_back(i);
    sources.insert(out.modules[i].source);
  }
  out.unique_sources = sources.size();
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

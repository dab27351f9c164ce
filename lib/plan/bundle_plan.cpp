// SPDX-License-Identifier: MIT
#include "lib/plan/bundle_plan.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "lib/bundle/attachment_signature.hpp"
#include "lib/bundle/layout_contract.hpp"
#include "lib/plan/compile_plan.hpp"

namespace shaderbake::plan {

namespace {

constexpr uint32_t kVkStageVertex = 0x1;     // VK_SHADER_STAGE_VERTEX_BIT
constexpr uint32_t kVkStageFragment = 0x10;  // VK_SHADER_STAGE_FRAGMENT_BIT
constexpr uint32_t kVkStageCompute = 0x20;   // VK_SHADER_STAGE_COMPUTE_BIT

uint32_t vk_stage_of(compile::ShaderStage stage) {
  switch (stage) {
    case compile::ShaderStage::vertex: return kVkStageVertex;
    case compile::ShaderStage::compute: return kVkStageCompute;
    case compile::ShaderStage::fragment: break;
  }
  return kVkStageFragment;
}

std::string as_key(std::span<const uint8_t> bytes) { return std::string(bytes.begin(), bytes.end()); }

uint32_t status_of(const PlannedModule& m) {
  if (!m.error) return SBK_STATUS_READY;
  return m.job.source.empty() ? SBK_STATUS_GENERATION_FAILED : SBK_STATUS_COMPILE_FAILED;
}

BuildFailure pipeline_failure(std::span<const uint8_t> key, Error error) {
  const std::string hex = KeyHash::of(key).to_hex();
  error.message = "pipeline key " + hex + ": " + error.message;
  return {"pipeline", hex, std::move(error)};
}

BuildFailure dynamic_fallback_failure(std::span<const uint8_t> family_key, Error error) {
  const std::string hex = KeyHash::of(family_key).to_hex();
  error.message = "dynamic-state fallback of family " + hex + ": " + error.message;
  return {"dynamic_fallback", hex, std::move(error)};
}

compile::CompileProgress phase_progress(const BundleBuildOptions& options, std::string_view phase) {
  if (!options.progress) return {};
  return [&options, phase](size_t done, size_t total) { options.progress(phase, done, total); };
}

}  // namespace

Result<BundleBuildResult> build_bundle(const trace::TraceReader& reader, const KeyCensus& census,
                                       const GuestModel& model, const BundleBuildOptions& options) {
  BundleBuildResult out;
  CompilePlanResult fragments = compile_drawn_modules(reader, census, model, options.threads, options.cache,
                                                      phase_progress(options, "fragment"), options.specialize,
                                                      options.shard_index, options.shard_count);
  out.unique_sources = fragments.unique_sources;

  bundle::BundleIdentity identity;
  identity.guest = model.guest_id();
  identity.key_schema = model.key_schema();
  identity.guest_name = std::string(model.name());
  identity.toolchain_fingerprint = compile::toolchain_fingerprint();
  identity.generators["exact"] = model.exact_emitter_id();
  identity.generators["fallback"] = model.fallback_emitter_id();
  identity.generators["vertex"] = model.vertex_emitter_id();
  bundle::BundleBuilder builder(identity);

  // Fragment modules by (route, fragment key).
  std::unordered_map<std::string, const PlannedModule*> exact_modules, family_modules;
  std::map<const PlannedModule*, bundle::ModuleId> fragment_ids;
  for (const PlannedModule& m : fragments.modules) {
    const bool exact = m.route == PlannedModule::Route::exact;
    (exact ? exact_modules : family_modules).emplace(as_key(m.key), &m);
    if (m.module) fragment_ids.emplace(&m, builder.add_module(vk_stage_of(m.module->stage), m.module->spirv));
    if (m.error) out.failures.push_back({exact ? "exact" : "fallback", m.key_hash.to_hex(), *m.error});
  }
  auto id_of = [&](const PlannedModule* m) -> std::optional<bundle::ModuleId> {
    auto it = fragment_ids.find(m);
    return it == fragment_ids.end() ? std::nullopt : std::optional(it->second);
  };

  std::map<std::string, uint64_t> rejections;
  for (uint32_t program : census.drawn_programs()) {
    const auto key = reader.exact_keys().bytes(program);
    const auto planned = exact_modules.find(as_key(key));
    if (planned == exact_modules.end()) continue;  // another shard's
    const PlannedModule* m = planned->second;
    const std::string& rejection = reader.program_rejection()[program];
    if (!rejection.empty()) ++rejections[rejection];
    builder.add_specialization(key, status_of(*m), id_of(m), model.rejection_code(rejection));
  }
  for (uint32_t family : census.drawn_families()) {
    const auto key = reader.family_keys().bytes(family);
    const auto planned = family_modules.find(as_key(key));
    if (planned == family_modules.end()) continue;  // another shard's
    const PlannedModule* m = planned->second;
    builder.add_family(key, status_of(*m), id_of(m));
  }

  // Pipelines: each needs its fragment module, a vertex module for its vertex interface, and a layout.
  struct PendingPipeline {
    std::span<const uint8_t> key;
    bool exact;
    const PlannedModule* fragment;
    size_t vertex_job;
    std::vector<compile::SpecializationValue> vertex_values;  // with options.specialize: the vertex stage's
  };
  std::vector<PendingPipeline> pending;
  // Each distinct vertex job once; a deque keeps the identities' views of the jobs' sources valid.
  std::deque<compile::CompileJob> vertex_job_list;
  std::map<compile::JobIdentity, size_t> vertex_job_of_identity;
  auto vertex_job = [&](compile::CompileJob job) {
    auto identity = compile::job_identity(job);
    if (auto it = vertex_job_of_identity.find(identity); it != vertex_job_of_identity.end()) return it->second;
    vertex_job_list.push_back(std::move(job));
    vertex_job_of_identity.emplace(compile::job_identity(vertex_job_list.back()), vertex_job_list.size() - 1);
    return vertex_job_list.size() - 1;
  };
  // The attachment signatures of every drawn host state (each drawn pair has an exact pipeline key), in the
  // order the recipes are sorted by after the family entry.
  std::set<bundle::SignatureWords> signatures;
  for (const KeyInterner* keys : {&census.pipeline_keys(), &census.fallback_pipeline_keys()}) {
    for (uint32_t i = 0; i < keys->size(); ++i) {
      const auto key = keys->bytes(i);
      if (key.size() >= 6 && key[1] == SBK_KEY_KIND_COMPUTE_PIPELINE) {
        // A compute pipeline: its module and the layout it reads, no vertex stage.
        const bool exact = key[2] == SBK_ROUTE_EXACT;
        const auto& modules = exact ? exact_modules : family_modules;
        auto it = modules.find(as_key(key.subspan(6)));
        if (it == modules.end() || !it->second->module) continue;  // its shader failed: reported above
        auto layout = bundle::compute_layout_contract(it->second->module->reflection);
        if (!layout) {
          out.failures.push_back(pipeline_failure(key, std::move(layout).error()));
          continue;
        }
        builder.add_compute_pipeline(key, fragment_ids.at(it->second), *layout);
        if (!it->second->values.empty())
          builder.set_specialization(key, {}, compile::specialization_data(it->second->values));
        continue;
      }
      uint8_t route = 0;
      const uint8_t* fragment_key = nullptr;
      size_t fragment_size = 0;
      sbk_host_state host;
      if (sbk_decode_pipeline_key(key.data(), key.size(), &route, &fragment_key, &fragment_size, &host) != SBK_OK)
        return Error{ErrorKind::internal, "bad_pipeline_key", "the census produced a pipeline key that does not decode", {}};
      const bool exact = route == SBK_ROUTE_EXACT;
      if (exact) {
        sbk_attachment_signature signature;
        sbk_attachment_signature_of(&host, &signature);
        signatures.insert(bundle::signature_words(signature));
      }
      const auto& modules = exact ? exact_modules : family_modules;
      auto it = modules.find(std::string(fragment_key, fragment_key + fragment_size));
      if (it == modules.end() || !it->second->module) continue;  // its fragment failed: reported above
      auto job = model.vertex_shader({fragment_key, fragment_size}, host, it->second->module->reflection);
      if (!job) {
        out.failures.push_back(pipeline_failure(key, std::move(job).error()));
        continue;
      }
      std::vector<compile::SpecializationValue> vertex_values;
      if (options.specialize && exact) vertex_values = std::exchange(job->specialization, {});
      pending.push_back({key, exact, it->second, vertex_job(std::move(*job)), std::move(vertex_values)});
    }
  }
  // Dynamic-state fallback pipelines: for each family with a ready ubershader, its vertex shader that reads
  // every location the guest can supply, one recipe per drawn attachment signature.
  struct PendingDynamic {
    std::span<const uint8_t> family_key;
    const PlannedModule* fragment;
    size_t vertex_job;
  };
  std::vector<PendingDynamic> pending_dynamic;
  for (uint32_t family : model.dynamic_fallbacks() ? census.drawn_families() : std::vector<uint32_t>{}) {
    const auto key = reader.family_keys().bytes(family);
    const auto planned = family_modules.find(as_key(key));
    if (planned == family_modules.end()) continue;  // another shard's
    const PlannedModule* m = planned->second;
    if (!m->module) continue;  // its ubershader failed: reported above
    if (m->module->stage == compile::ShaderStage::compute) continue;  // no vertex input to make dynamic
    auto job = model.dynamic_vertex_shader(key, m->module->reflection);
    if (!job) {
      out.failures.push_back(dynamic_fallback_failure(key, std::move(job).error()));
      continue;
    }
    pending_dynamic.push_back({key, m, vertex_job(std::move(*job))});
  }
  const std::vector<compile::CompileJob> vertex_jobs(vertex_job_list.begin(), vertex_job_list.end());
  auto vertex_results = compile::compile_all(vertex_jobs, options.threads, options.cache,
                                             phase_progress(options, "vertex"));
  std::unordered_set<std::string> has_recipe;  // exact pipeline keys with a recipe in the bundle
  std::vector<std::optional<bundle::ModuleId>> vertex_ids(vertex_results.size());
  for (size_t j = 0; j < vertex_results.size(); ++j)
    if (vertex_results[j]) vertex_ids[j] = builder.add_module(kVkStageVertex, vertex_results[j]->spirv);
  for (const PendingPipeline& p : pending) {
    const auto& vertex = vertex_results[p.vertex_job];
    if (!vertex) {
      out.failures.push_back(pipeline_failure(p.key, vertex.error()));
      continue;
    }
    auto layout = bundle::layout_contract(vertex->reflection, p.fragment->module->reflection);
    if (!layout) {
      out.failures.push_back(pipeline_failure(p.key, std::move(layout).error()));
      continue;
    }
    builder.add_pipeline(p.key, *vertex_ids[p.vertex_job], fragment_ids.at(p.fragment), *layout);
    if (!p.vertex_values.empty() || !p.fragment->values.empty())
      builder.set_specialization(p.key, compile::specialization_data(p.vertex_values), compile::specialization_data(p.fragment->values));
    if (p.exact) has_recipe.insert(as_key(p.key));
  }
  const VertexAttributeDefaults defaults = model.vertex_attribute_defaults();
  builder.set_vertex_defaults(defaults.location_mask, defaults.values);
  for (const PendingDynamic& d : pending_dynamic) {
    const auto& vertex = vertex_results[d.vertex_job];
    if (!vertex) {
      out.failures.push_back(dynamic_fallback_failure(d.family_key, vertex.error()));
      continue;
    }
    auto layout = bundle::layout_contract(vertex->reflection, d.fragment->module->reflection);
    if (!layout) {
      out.failures.push_back(dynamic_fallback_failure(d.family_key, std::move(layout).error()));
      continue;
    }
    for (const auto& order : signatures) {
      if (!model.fallback_attachment_rejection(d.family_key, bundle::signature_of_words(order)).empty()) continue;
      builder.add_dynamic_fallback(d.family_key, *vertex_ids[d.vertex_job], fragment_ids.at(d.fragment), *layout,
                                   bundle::signature_of_words(order));
    }
  }
  // The prewarm order: exact pipelines with a recipe, by first use (a shard's: their positions in that order).
  const KeyInterner& exact_keys = census.pipeline_keys();
  nlohmann::ordered_json prewarm_positions = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < exact_keys.size(); ++i) {
    if (!has_recipe.count(as_key(exact_keys.bytes(i)))) continue;  // graphics pipelines only
    builder.add_prewarm(exact_keys.bytes(i), census.pipeline_first_frames()[i]);
    prewarm_positions.push_back(i);
  }
  // What the bundle holds, counted once from the builder (merge recounts its unions the same way).
  const bundle::BundleBuilder::ContentCounts held = builder.counts();
  out.specializations = held.specializations;
  out.exact_modules = held.exact_modules;
  out.families = held.families;
  out.specialized_pipelines = held.specialized_pipelines;
  out.exact_pipelines = held.exact_pipelines;
  out.fallback_pipelines = held.fallback_pipelines;
  out.dynamic_fallback_pipelines = held.dynamic_fallback_pipelines;
  out.prewarm_pipelines = held.prewarm_pipelines;
  out.vertex_modules = held.vertex_modules;
  // Failures in one order whatever the shard or thread that met them.
  std::stable_sort(out.failures.begin(), out.failures.end(), [](const BuildFailure& a, const BuildFailure& b) {
    return std::tie(a.route, a.key, a.error.message, a.error.reason) < std::tie(b.route, b.key, b.error.message, b.error.reason);
  });

  // The report: what went in, what came out, what failed. No timings: the bundle's bytes must not vary.
  nlohmann::ordered_json report;
  report["format"] = "shaderbake-build-report/1";
  report["guest"] = identity.guest_name;
  report["toolchain"] = identity.toolchain_fingerprint;
  report["specialize"] = options.specialize;  // exact pipelines' values as data, not frozen: merge holds builds to one
  report["inputs"] = nlohmann::ordered_json::array();
  for (const trace::FileSummary& f : reader.files()) {
    nlohmann::ordered_json j;
    j["path"] = f.path;
    j["capture"] = nlohmann::ordered_json::parse(f.capture.empty() ? "null" : f.capture, nullptr, false);
    j["records"] = f.records;
    j["draws"] = f.draws;
    j["bad_records"] = f.bad_records;
    report["inputs"].push_back(j);
  }
  const DedupeCounts counts = census.counts();
  report["draws"] = counts.draws;
  report["frames"] = counts.frames;
  report["specializations"] = out.specializations;
  report["exact_modules"] = out.exact_modules;
  report["specialized_pipelines"] = out.specialized_pipelines;
  report["families"] = out.families;
  report["exact_pipelines"] = out.exact_pipelines;
  report["fallback_pipelines"] = out.fallback_pipelines;
  report["dynamic_fallback_pipelines"] = out.dynamic_fallback_pipelines;
  report["prewarm_pipelines"] = out.prewarm_pipelines;
  report["unique_sources"] = out.unique_sources;
  report["vertex_modules"] = out.vertex_modules;
  report["rejections"] = rejections;
  report["failures"] = nlohmann::ordered_json::array();
  for (const BuildFailure& f : out.failures)
    report["failures"].push_back({{"route", f.route}, {"key", f.key}, {"reason", f.error.reason}, {"message", f.error.message}});
  if (options.shard_count > 1)
    report["shard"] = {{"index", options.shard_index},
                       {"count", options.shard_count},
                       {"scheme", "compile-job-hash/1"},  // how shard_of divides the work
                       {"prewarm_positions", prewarm_positions}};
  // A trace path need not be UTF-8: its bytes are replaced, never thrown on.
  out.report_json = report.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  builder.set_report(out.report_json);

  auto bytes = builder.serialize(options.write, &out.write);
  if (!bytes) return std::move(bytes).error();
  out.bytes = std::move(*bytes);
  return out;
}

}  // namespace shaderbake::plan

// SPDX-License-Identifier: MIT
#include "lib/compile/compile_chain.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "lib/compile/glslang_frontend.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/compile/spirv_tools.hpp"

namespace shaderbake::compile {

namespace {

// The chain from glslang's (or a renderer's) SPIR-V on: see compile_glsl.
Result<CompiledModule> compile_from_spirv(ShaderStage stage, std::vector<uint32_t> spirv,
                                          std::span<const SpecializationValue> specialization) {
  if (Status s = validate_spirv(spirv); !s) return std::move(s).error();
  // Before the performance passes, so that they optimise the frozen constants as if the source had them.
  if (!specialization.empty()) {
    auto frozen = freeze_specialization_constants(spirv, specialization);
    if (!frozen) return std::move(frozen).error();
    if (Status s = validate_spirv(*frozen); !s) return std::move(s).error();
    spirv = std::move(*frozen);
  }
  // Vertex modules are pass-throughs with nothing to optimise, and spirv-opt would delete the inputs they
  // declare but do not read: the pipeline's vertex input state still supplies those attributes (they are the
  // host's vertex interface), and the validation layer reports every attribute the shader does not consume.
  auto optimized = stage == ShaderStage::vertex ? Result<std::vector<uint32_t>>(std::move(spirv)) : optimize_spirv(spirv);
  if (!optimized) return std::move(optimized).error();
  if (stage != ShaderStage::vertex)
    if (Status s = validate_spirv(*optimized); !s) return std::move(s).error();
  if (Status s = canonicalize_ids(*optimized); !s) return std::move(s).error();
  if (Status s = renumber_function_locals(*optimized); !s) return std::move(s).error();
  // The remapper and the renumbering rewrite every ID: what ships is validated after them, not before.
  if (Status s = validate_spirv(*optimized); !s) return std::move(s).error();
  auto reflection = reflect_spirv(*optimized);
  if (!reflection) return std::move(reflection).error();
  CompiledModule module;
  module.stage = stage;
  module.spirv = std::move(*optimized);
  module.reflection = std::move(*reflection);
  return module;
}

}  // namespace

Result<CompiledModule> compile_glsl(ShaderStage stage, std::string_view source,
                                    std::span<const SpecializationValue> specialization) {
  auto spirv = glsl_to_spirv(stage, source);
  if (!spirv) return std::move(spirv).error();
  return compile_from_spirv(stage, std::move(*spirv), specialization);
}

Result<CompiledModule> compile_spirv(ShaderStage stage, std::span<const uint32_t> words,
                                     std::span<const SpecializationValue> specialization) {
  std::vector<uint32_t> spirv(words.begin(), words.end());
  if (auto entry = single_entry_point(spirv, stage); !entry) return std::move(entry).error();
  return compile_from_spirv(stage, std::move(spirv), specialization);
}

Result<CompiledModule> compile_job(const CompileJob& job) {
  if (job.language == SourceLanguage::glsl) return compile_glsl(job.stage, job.source, job.specialization);
  if (job.source.size() % 4 != 0)
    return Error{ErrorKind::bad_input, "spirv_validation_error",
                 "a SPIR-V module of " + std::to_string(job.source.size()) + " bytes is not a whole number of words", {}};
  std::vector<uint32_t> words(job.source.size() / 4);
  for (size_t i = 0; i < words.size(); ++i)
    for (size_t b = 0; b < 4; ++b) words[i] |= uint32_t{static_cast<uint8_t>(job.source[4 * i + b])} << (8 * b);
  return compile_spirv(job.stage, words, job.specialization);
}

std::vector<SpecializationValue> canonical_specialization(std::span<const SpecializationValue> values) {
  std::vector<SpecializationValue> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

JobIdentity job_identity(const CompileJob& job) {
  return {job.stage, job.language, job.source, canonical_specialization(job.specialization)};
}

std::vector<Result<CompiledModule>> compile_all(std::span<const CompileJob> jobs, unsigned threads,
                                                ModuleStore* store, const CompileProgress& progress) {
  // Unique work first, by (stage, source, canonical values), in first-seen order.
  std::map<JobIdentity, size_t> unique_index;
  std::vector<size_t> job_to_unique(jobs.size());
  std::vector<size_t> unique_jobs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    auto [it, inserted] = unique_index.emplace(job_identity(jobs[i]), unique_jobs.size());
    if (inserted) unique_jobs.push_back(i);
    job_to_unique[i] = it->second;
  }
  std::vector<std::optional<Result<CompiledModule>>> unique_results(unique_jobs.size());
  std::atomic<size_t> next{0};
  std::mutex progress_mutex;
  size_t done = 0;  // guarded by progress_mutex
  auto finished_one = [&] {
    if (!progress) return;
    std::lock_guard lock(progress_mutex);
    progress(++done, unique_jobs.size());
  };
  auto worker = [&] {
    for (size_t u = next++; u < unique_jobs.size(); u = next++) {
      const CompileJob& job = jobs[unique_jobs[u]];
      std::optional<CompiledModule> found = store ? store->find(job) : std::nullopt;
      if (found) {
        unique_results[u].emplace(std::move(*found));
      } else {
        Result<CompiledModule> compiled = compile_job(job);
        if (store && compiled) store->put(job, *compiled);
        unique_results[u].emplace(std::move(compiled));
      }
      finished_one();
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, unique_jobs.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  // Identical jobs share one result: copied for all but the last of them, which takes it.
  std::vector<size_t> last_job(unique_jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) last_job[job_to_unique[i]] = i;
  std::vector<Result<CompiledModule>> out;
  out.reserve(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::optional<Result<CompiledModule>>& result = unique_results[job_to_unique[i]];
    if (last_job[job_to_unique[i]] == i)
      out.push_back(std::move(*result));
    else
      out.push_back(*result);
  }
  return out;
}

std::string toolchain_fingerprint() {
  return glslang_version() + "; " + spirv_tools_version() + "; " + spirv_cross_version() +
         "; target vulkan1.0/spirv1.0; spirv-opt performance passes on fragment modules; SPVRemapper DO_EVERYTHING; function-local IDs in definition order";
}

std::string specialization_fingerprint() {
  return "spirv-opt set-spec-constant-default-value (bit patterns), freeze-spec-constant-value, "
         "fold-spec-constant-op-and-composite after the first spirv-val, then spirv-val";
}

}  // namespace shaderbake::compile

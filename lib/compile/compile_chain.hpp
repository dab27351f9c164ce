// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::compile {

// The in-process compile chain, for a vertex, fragment or compute shader:
//   GLSL -> glslang -> spirv-val -> spirv-opt (performance; not for vertex modules) -> spirv-val -> canonical
//   IDs -> spirv-val -> reflection.
// With `specialization` values the module is specialized right after the first spirv-val
// (freeze_specialization_constants: every specialization constant becomes a plain constant, a constant the
// values do not name at its default) and validated again; the rest of the chain is unchanged (vertex modules
// still get no performance passes). Values may come in any order; two for one constant id, or one for an id
// the module does not declare, is an error naming the id (reasons in spirv_tools.hpp). Without values no
// specialization step runs: the words are those of the chain above, which the artifact cache and bundles
// rely on.
// Deterministic: the same source and values give the same words on any thread. Thread-safe.
Result<CompiledModule> compile_glsl(ShaderStage stage, std::string_view source,
                                    std::span<const SpecializationValue> specialization = {});

// The same chain from a SPIR-V module instead of GLSL (a shader a renderer ships as SPIR-V): spirv-val first,
// then as compile_glsl from there. A module that fails validation is an error (reason spirv_validation_error);
// one whose entry point is not of `stage`, or that has more than one entry point, is an error too
// (reason spirv_wrong_stage).
Result<CompiledModule> compile_spirv(ShaderStage stage, std::span<const uint32_t> words,
                                     std::span<const SpecializationValue> specialization = {});

// What a job's `source` holds: GLSL text, or a SPIR-V module's bytes (its words, little-endian).
enum class SourceLanguage : uint8_t { glsl = 0, spirv = 1 };

struct CompileJob {
  ShaderStage stage = ShaderStage::fragment;
  std::string source;
  // The emitter and version that generated `source` ("<guest>-exact/1"). It does not change what is compiled;
  // a ModuleStore files the artifact under it (part of the artifact's identity).
  std::string emitter_id;
  // Vulkan specialization values frozen into the module (compile_glsl); empty: none, the module keeps its
  // specialization constants. A set keyed by constant id: the order does not matter (jobs whose values differ
  // only in order are the same job), a constant id given twice fails the job.
  std::vector<SpecializationValue> specialization;
  SourceLanguage language = SourceLanguage::glsl;
};

// Compiles one job (compile_glsl or compile_spirv, by its language).
Result<CompiledModule> compile_job(const CompileJob& job);

// `values` in canonical order: sorted by constant id (then words, so that even an invalid list with a
// duplicate id has one canonical form). What compile_all and the artifact cache identify a job's values by.
std::vector<SpecializationValue> canonical_specialization(std::span<const SpecializationValue> values);

// What makes two jobs the same compile (the emitter id does not): stage, language, source and canonical values.
// The source is viewed, not copied: the job must outlive it.
using JobIdentity = std::tuple<ShaderStage, SourceLanguage, std::string_view, std::vector<SpecializationValue>>;
JobIdentity job_identity(const CompileJob& job);

// Where compile_all looks for a module before compiling it and puts what it compiled: the artifact cache
// (lib/cache) implements it, so lib/compile knows nothing of files. Both functions are called from several
// compile threads at once. `find` returns a module only when it is exactly what compile_glsl gives for the
// job (same words, same reflection), else nullopt; `put` must never fail the compile (a store that cannot
// keep a module reports that its own way).
class ModuleStore {
 public:
  virtual ~ModuleStore() = default;
  virtual std::optional<CompiledModule> find(const CompileJob& job) = 0;
  virtual void put(const CompileJob& job, const CompiledModule& module) = 0;
};

// Compiles every job on `threads` threads (0 = hardware concurrency). Jobs alike in (stage, language, source,
// canonical specialization values) are compiled once (and looked up / stored once, under the first such job's emitter
// id). With a `store`, each unique job is first looked up there; a module it lacks is compiled and put.
// Results come back in job order whatever order the threads finish in, identical with and without a store; a
// failure of one job never stops the others (failures are not stored). `progress`, when set, is called after each
// unique job with the unique jobs done and their total, one call at a time (from whichever compile thread finished it).
using CompileProgress = std::function<void(size_t done, size_t total)>;
std::vector<Result<CompiledModule>> compile_all(std::span<const CompileJob> jobs, unsigned threads,
                                                ModuleStore* store = nullptr, const CompileProgress& progress = {});

// The versions of every tool whose output reaches an artifact, and the chain's options: part of every
// compiled artifact's identity.
std::string toolchain_fingerprint();

// What the chain does with specialization values (the passes and where they run): part of the identity of
// the artifacts of jobs with values only, so that the identities of jobs without values stay what they were.
std::string specialization_fingerprint();

}  // namespace shaderbake::compile

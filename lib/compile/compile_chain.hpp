// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::compile {

// The in-process compile chain:
//   GLSL -> glslang -> spirv-val -> spirv-opt (performance) -> spirv-val -> canonical IDs -> spirv-val
//   -> reflection.
// Deterministic: the same source gives the same words on any thread. Thread-safe.
Result<CompiledModule> compile_glsl(ShaderStage stage, std::string_view source);

struct CompileJob {
  ShaderStage stage = ShaderStage::fragment;
  std::string source;
  // The emitter and version that generated `source` ("<guest>-exact/1"). It does not change what is compiled;
  // a ModuleStore files the artifact under it (part of the artifact's identity).
  std::string emitter_id;
};

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

// Compiles every job on `threads` threads (0 = hardware concurrency). Identical (stage, source) pairs are
// compiled once (and looked up / stored once, under the first such job's emitter id). With a `store`, each
// unique job is first looked up there; a module it lacks is compiled and put. Results come back in job
// order whatever order the threads finish in, identical with and without a store; a failure of one job
// never stops the others (failures are not stored). `progress`, when set, is called after each unique job
// with the unique jobs done and their total, one call at a time (from whichever compile thread finished it).
using CompileProgress = std::function<void(size_t done, size_t total)>;
std::vector<Result<CompiledModule>> compile_all(std::span<const CompileJob> jobs, unsigned threads,
                                                ModuleStore* store = nullptr, const CompileProgress& progress = {});

// The versions of every tool whose output reaches an artifact, and the chain's options: part of every
// compiled artifact's identity.
std::string toolchain_fingerprint();

}  // namespace shaderbake::compile

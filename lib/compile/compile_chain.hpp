// SPDX-License-Identifier: MIT
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::compile {

// The in-process compile chain (DESIGN.md §7):
//   GLSL -> glslang -> spirv-val -> spirv-opt (performance) -> spirv-val -> canonical IDs -> spirv-val
//   -> reflection.
// Deterministic: the same source gives the same words on any thread. Thread-safe.
Result<CompiledModule> compile_glsl(ShaderStage stage, std::string_view source);

struct CompileJob {
  ShaderStage stage = ShaderStage::fragment;
  std::string source;
};

// Compiles every job on `threads` threads (0 = hardware concurrency). Identical (stage, source) pairs are
// compiled once. Results come back in job order whatever order the threads finish in; a failure of one job
// never stops the others.
std::vector<Result<CompiledModule>> compile_all(std::span<const CompileJob> jobs, unsigned threads);

// The versions of every tool whose output reaches an artifact, and the chain's options: part of every
// compiled artifact's identity.
std::string toolchain_fingerprint();

}  // namespace shaderbake::compile

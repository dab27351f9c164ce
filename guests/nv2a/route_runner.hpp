// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/oracle.hpp"
#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::nv2a {

// One program and one set of inputs, for the fallback route (where one pipeline serves many programs).
struct ProgramCase {
  sbk_nv2a_program program{};
  PixelInputs inputs;
};

// Runs nv2a programs through their routes on a Vulkan device: emit the fragment shader (exact, or the
// family's ubershader) and the pass-through vertex shader, compile them through the in-process chain
// (cached by source), and render one pixel per input set with the layout contract's bindings.
// Not thread-safe.
class RouteRunner {
 public:
  explicit RouteRunner(vulkan::Executor& executor) : executor_(executor) {}

  // Exact route: one pipeline for `program`, one output per input set, in order. Errors: a texture mode
  // the exact emitter lacks, a compile failure (with the generated source in the message), a device failure.
  Result<std::vector<PixelOutput>> run_exact(const sbk_nv2a_program& program, std::span<const PixelInputs> inputs);

  // Fallback route: ONE pipeline, the ubershader of `family_key`, for every case; only the packet changes.
  // Every program must be admitted and belong to that family (else an error naming the case).
  Result<std::vector<PixelOutput>> run_fallback(const std::vector<uint8_t>& family_key, std::span<const ProgramCase> cases);

  // The compiled exact fragment module of `program` (compiling it if needed).
  Result<const compile::CompiledModule*> fragment_module(const sbk_nv2a_program& program);

 private:
  Result<const compile::CompiledModule*> compiled(compile::ShaderStage stage, const std::string& source);
  // `writes_depth`: the shader writes gl_FragDepth (a dot_zw stage): render into D16 and read it back.
  Result<std::vector<PixelOutput>> render(const compile::CompiledModule& fragment, std::vector<vulkan::DrawCase> cases,
                                          bool writes_depth);

  vulkan::Executor& executor_;
  std::map<std::string, compile::CompiledModule> modules_;  // by GLSL source
};

// The per-pixel draw inputs of the layout contract for one input set: attributes at the vertex shader's
// semantic locations, one 1x1 texture per sampler binding the fragment module declares, and the dynamic
// block. Shared by every route, so the exact and the fallback route are fed identically.
vulkan::DrawCase draw_case_for(const PixelInputs& inputs, const compile::Reflection& fragment);

}  // namespace shaderbake::nv2a

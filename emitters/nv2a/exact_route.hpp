// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "emitters/nv2a/oracle.hpp"
#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::nv2a {

// Runs nv2a programs through their exact route on a Vulkan device: emit the exact fragment shader and
// the pass-through vertex shader, compile both through the in-process chain (cached by source), and
// render one pixel per input set with the layout contract's bindings. Not thread-safe.
class ExactRouteRunner {
 public:
  explicit ExactRouteRunner(vulkan::Executor& executor) : executor_(executor) {}

  // One output per input set, in order. Errors: the program is invalid (its reason), a compile failure
  // (with the generated source in the message), or a device failure.
  Result<std::vector<PixelOutput>> run(const sbk_nv2a_program& program, std::span<const PixelInputs> inputs);

  // The compiled exact fragment module of `program` (compiling it if needed).
  Result<const compile::CompiledModule*> fragment_module(const sbk_nv2a_program& program);

 private:
  Result<const compile::CompiledModule*> compiled(compile::ShaderStage stage, const std::string& source);

  vulkan::Executor& executor_;
  std::map<std::string, compile::CompiledModule> modules_;  // by GLSL source
};

// The per-pixel draw inputs of the layout contract for one input set: attributes at the vertex shader's
// semantic locations, one 1x1 texture per sampler binding the fragment module declares, and the dynamic
// block. Shared by every route, so the exact and the fallback route are fed identically.
vulkan::DrawCase draw_case_for(const PixelInputs& inputs, const compile::Reflection& fragment);

// The fragment input locations (bit per location 0-6) a fragment module reads, and the vertex input
// locations that feed them (varying l comes from the semantic at location l + 1).
uint32_t fragment_varyings(const compile::Reflection& fragment);
std::vector<uint32_t> attribute_locations(uint32_t varyings);

}  // namespace shaderbake::nv2a

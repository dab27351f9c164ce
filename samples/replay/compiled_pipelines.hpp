// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "lib/bundle/bundle_writer.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "samples/replay/frame_renderer.hpp"
#include "samples/replay/pipeline_factory.hpp"

namespace shaderbake::replay {

// The old way, what an emulator without a bundle does at a first use: generate the exact fragment shader's
// GLSL and the pass-through vertex shader's, compile both in process (the project's compile chain: glslang,
// spirv-val, spirv-opt, canonical IDs, reflection), derive the pipeline layout from their reflection and
// create the pipeline. The same generators and chain as `shaderbake build`, so the pipeline is the one the
// bundle would have held.
class CompiledPipelines {
 public:
  explicit CompiledPipelines(PipelineFactory& factory) : factory_(factory) {}

  // Compiles and creates the pipeline of (program, host) into `out`. false when the exact emitter cannot
  // generate the program's shader (a texture mode it does not implement): the emulator has nothing to draw
  // with, and the draw is skipped. Errors: a compile or Vulkan failure.
  Result<bool> create(const sbk_nv2a_program& program, const sbk_host_state& host, DrawBinding* out);

  uint64_t shader_compiles() const { return shader_compiles_; }
  uint64_t generation_failures() const { return generation_failures_; }

 private:
  PipelineFactory& factory_;
  std::map<bundle::LayoutContract, std::pair<PipelineLayout, sbk_layout>> layouts_;  // created on first need
  uint64_t shader_compiles_ = 0;
  uint64_t generation_failures_ = 0;
};

// Compiles and creates one throwaway pipeline on `device`, so that one-time costs of a process (glslang's
// tables, a driver's compiler start-up) land before the first timed frame of any mode, not in whichever mode
// runs first. Returns its wall time in milliseconds.
Result<double> warm_up_process(VkDevice device);

}  // namespace shaderbake::replay

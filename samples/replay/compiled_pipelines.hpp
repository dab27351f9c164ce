// SPDX-License-Identifier: MIT
#pragma once

#include <vulkan/vulkan.h>

#include <map>
#include <utility>

#include "lib/bundle/layout_contract.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"
#include "samples/replay/frame_renderer.hpp"
#include "samples/replay/pipeline_factory.hpp"

namespace shaderbake::replay {

// The pipeline layouts the old way needs, one per layout contract (derived from its modules' reflection), made
// through the mode's PipelineFactory on first need.
class ContractLayouts {
 public:
  explicit ContractLayouts(PipelineFactory& factory) : factory_(factory) {}

  // Fills out->layout, out->set_layout and out->contract with the layout of `contract`.
  Status fill(const bundle::LayoutContract& contract, DrawBinding* out);

 private:
  PipelineFactory& factory_;
  std::map<bundle::LayoutContract, std::pair<PipelineLayout, sbk_layout>> layouts_;
};

// Compiles and creates one throwaway pipeline on `device`, so that one-time costs of a process (glslang's
// tables, a driver's compiler start-up) land before the first timed frame of any mode, not in whichever mode
// runs first. Returns its wall time in milliseconds.
Result<double> warm_up_process(VkDevice device);

}  // namespace shaderbake::replay

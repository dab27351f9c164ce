// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "lib/vulkan/executor.hpp"

namespace shaderbake::specconst {

// A fragment module of this guest drawn on the executor (tests and benchmarks): its inputs fed flat from vertex
// attributes by a pass-through vertex stage that writes what the module reads and nothing else (the validation
// layer reports outputs no stage consumes): fragment input location L comes from attribute location L + 1.
// The executor's cases then give one attribute per entry of spec.attribute_locations, in order.
Result<vulkan::PipelineSpec> fragment_pipeline(std::vector<uint32_t> fragment_spirv, const compile::Reflection& fragment);

}  // namespace shaderbake::specconst

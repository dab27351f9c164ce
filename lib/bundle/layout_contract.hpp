// SPDX-License-Identifier: MIT
#pragma once

#include "lib/bundle/bundle_writer.hpp"
#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::bundle {

// The layout contract a pipeline of these two modules needs (descriptor set 0 and push constants), from
// their reflection: each binding with the stages that use it. An error when a module uses another
// descriptor set or a binding has different types in the two stages.
Result<LayoutContract> layout_contract(const compile::Reflection& vertex, const compile::Reflection& fragment);

// The layout contract of a compute pipeline of this module: its bindings and push constants, for the compute
// stage. Errors as layout_contract's.
Result<LayoutContract> compute_layout_contract(const compile::Reflection& compute);

// A layout as the runtime header stores it (sbk_bundle_layout) and as the writer's LayoutContract, both ways.
LayoutContract contract_of_stored(const sbk_layout& stored);
sbk_layout stored_layout(const LayoutContract& contract);

}  // namespace shaderbake::bundle

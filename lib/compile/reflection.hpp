// SPDX-License-Identifier: MIT
#pragma once

// SPIRV-Cross lives only behind this header.

#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::compile {

// Descriptor bindings, push-constant size and stage inputs/outputs of a module. SPIRV-Cross exceptions are
// caught here and returned as reason "spirv_reflection_error".
Result<Reflection> reflect_spirv(const std::vector<uint32_t>& spirv);

// "SPIRV-Cross 2021.01.15" (the packaged version, recorded at build time).
std::string spirv_cross_version();

}  // namespace shaderbake::compile

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/result.hpp"

namespace shaderbake::compile {

// spirv-val for Vulkan 1.0. The error (reason "spirv_validation_error") carries the validator's messages.
Status validate_spirv(const std::vector<uint32_t>& spirv);

// spirv-opt's performance passes. A fresh Optimizer per call (one is single-use: a second Run returns its
// input unchanged); the built-in re-validation is off because the chain validates before and after.
Result<std::vector<uint32_t>> optimize_spirv(const std::vector<uint32_t>& spirv);

// Human-readable disassembly (friendly names, indented).
Result<std::string> disassemble_spirv(const std::vector<uint32_t>& spirv);

// "SPIRV-Tools v2023.1 ..."
std::string spirv_tools_version();

}  // namespace shaderbake::compile

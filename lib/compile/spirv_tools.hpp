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

// Renumbers the IDs defined inside functions G, G+1, ... in order of definition, where G is one past the
// largest ID defined before the first function; IDs defined before it (types, constants, variables: the ones
// SPVRemapper makes alike across modules) keep their numbers, and the bound becomes G + the function-local
// count. Run after SPVRemapper: its function-local IDs are hash-like and differ between otherwise similar
// modules, while these make the bundle's packed SPIR-V (schemas/bundle.md) code local references as short
// distances. Deterministic; the module stays equivalent (and valid).
Status renumber_function_locals(std::vector<uint32_t>& spirv);

// Human-readable disassembly (friendly names, indented).
Result<std::string> disassemble_spirv(const std::vector<uint32_t>& spirv);

// "SPIRV-Tools v2023.1 ..."
std::string spirv_tools_version();

}  // namespace shaderbake::compile

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::compile {

// spirv-val for Vulkan 1.0. The error (reason "spirv_validation_error") carries the validator's messages.
Status validate_spirv(const std::vector<uint32_t>& spirv);

// spirv-opt's performance passes. A fresh Optimizer per call (one is single-use: a second Run returns its
// input unchanged); the built-in re-validation is off because the chain validates before and after.
Result<std::vector<uint32_t>> optimize_spirv(const std::vector<uint32_t>& spirv);

// Every function call inlined into the entry points and the functions left uncalled removed (spirv-opt's
// merge-return, exhaustive inlining, then dead-function elimination): a module whose code is all in its entry
// point's function.
Result<std::vector<uint32_t>> inline_all_calls(const std::vector<uint32_t>& spirv);

// The module as a pipeline created with exactly `values` (in any order) sees it, made plain SPIR-V by spirv-opt:
// set-spec-constant-default-value (bit patterns), then freeze-spec-constant-value (every OpSpecConstant,
// OpSpecConstantTrue and OpSpecConstantFalse becomes the matching OpConstant*, its SpecId decoration removed;
// a constant that `values` does not name is frozen at its default, as a driver would use it), then
// fold-spec-constant-op-and-composite (the OpSpecConstantOp and OpSpecConstantComposite over them become
// constants wherever spirv-opt can fold them). `spirv` must be valid (validate_spirv first), and SpecIds are
// read from OpDecorate only (glslang never puts them in decoration groups).
// spirv-opt skips a value it cannot apply without a word, so every value is checked against the module before
// any pass runs; errors (kind bad_input) name the constant id:
//   duplicate_specialization_constant  two values for one constant id
//   unknown_specialization_constant    no OpDecorate SpecId of the module declares the id
//   bad_specialization_value           the word count is not the constant's width in words, a bool's word is
//                                      not 0 or 1, or the constant's width is not a whole number of words
Result<std::vector<uint32_t>> freeze_specialization_constants(const std::vector<uint32_t>& spirv,
                                                              std::span<const SpecializationValue> values);

// Renumbers the IDs defined inside functions G, G+1, ... in order of definition, where G is one past the
// largest ID defined before the first function; IDs defined before it (types, constants, variables: the ones
// SPVRemapper makes alike across modules) keep their numbers, and the bound becomes G + the function-local
// count. Run after SPVRemapper: its function-local IDs are hash-like and differ between otherwise similar
// modules, while these make the bundle's packed SPIR-V (schemas/bundle.md) code local references as short
// distances. Deterministic; the module stays equivalent (and valid).
Status renumber_function_locals(std::vector<uint32_t>& spirv);

// The name of a module's one entry point (untrusted words), checking that it has exactly one and that its
// execution model is `stage`: reason spirv_wrong_stage otherwise, or spirv_validation_error for words that are
// not a module's instruction stream. The chain's later steps (reflection, the bundle's records) assume one
// stage per module.
Result<std::string> single_entry_point(std::span<const uint32_t> spirv, ShaderStage stage);

// Human-readable disassembly (friendly names, indented).
Result<std::string> disassemble_spirv(const std::vector<uint32_t>& spirv);

// "SPIRV-Tools v2023.1 ..."
std::string spirv_tools_version();

}  // namespace shaderbake::compile

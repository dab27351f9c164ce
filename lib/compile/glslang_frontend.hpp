// SPDX-License-Identifier: MIT
#pragma once

// glslang lives only behind this header (its spirv.hpp must not meet SPIRV-Cross's in one translation unit).

#include <string>
#include <string_view>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::compile {

// GLSL 450 -> SPIR-V 1.0 for Vulkan 1.0, in process. Thread-safe (glslang's process init happens once). Each
// call runs glslang on a thread of its own with a 1 GiB stack reservation, so that no source can overflow the
// caller's stack. Errors (kind toolchain): glsl_compile_error (glslang's log in the message), glsl_too_large
// (more than 512 KiB of source, or of text after preprocessing), out_of_memory.
Result<std::vector<uint32_t>> glsl_to_spirv(ShaderStage stage, std::string_view source);

// Renumbers IDs canonically and strips debug names (glslang's SPVRemapper), so modules that differ only in
// ID assignment become byte-identical and compress well together.
Status canonicalize_ids(std::vector<uint32_t>& spirv);

// "glslang 12.0.0"
std::string glslang_version();

}  // namespace shaderbake::compile

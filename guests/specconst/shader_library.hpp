// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace shaderbake::specconst {

// One shader a trace names, read and made the module a renderer creates (the module the keys hash).
struct LoadedShader {
  compile::ShaderStage stage = compile::ShaderStage::fragment;
  bool from_glsl = false;       // the file held GLSL (compiled in process), not SPIR-V
  std::vector<uint32_t> words;  // the module: the file's SPIR-V, or glslang's SPIR-V of the file's GLSL
  sbk_specconst_module scan{};  // its constants and hash (runtime_loader/shaderbake_specconst.h)
};

// The shaders of one process's reads, by file content and by module hash. A file is read again only when its
// identity (inode, size, modification time) changed since; its content is compiled and scanned once. Thread-safe; what it hands out is immutable.
//
// A file is SPIR-V when its first word is the SPIR-V magic number (little-endian), else GLSL of the stage asked
// for. Reasons of load's errors (kind bad_input):
//   shader_not_found        the file cannot be opened or read (the message says why)
//   shader_compile_failed   GLSL that glslang refuses; SPIR-V that spirv-val refuses, whose entry point is not
//                           one of the stage asked for, or that is not one entry point named `entry`; an `entry`
//                           other than main (the bundle's pipelines name it main); a module whose specialization
//                           constants cannot be read (sbk_specconst_scan_module)
class ShaderLibrary {
 public:
  static constexpr size_t kMaxShaderBytes = size_t{64} << 20;

  Result<std::shared_ptr<const LoadedShader>> load(const std::filesystem::path& path, compile::ShaderStage stage,
                                                   std::string_view entry);
  // The module a key names (its stage and hash), when a load of this library produced it; nullptr otherwise.
  std::shared_ptr<const LoadedShader> find(uint32_t vk_stage, std::span<const uint8_t, 16> hash) const;

 private:
  // The shader of a file's bytes; errors do not name the file (load adds it).
  static Result<std::shared_ptr<const LoadedShader>> make(std::span<const uint8_t> bytes, compile::ShaderStage stage,
                                                          std::string_view entry);

  mutable std::mutex mutex_;
  // SHA-256 of (stage, entry, file content), in hex -> the shader (or its error): identical files compile once.
  std::map<std::string, Result<std::shared_ptr<const LoadedShader>>> by_content_;
  // (device, inode, size, mtime, stage, entry, path) -> the same, so that an unchanged file is read once.
  std::map<std::string, Result<std::shared_ptr<const LoadedShader>>> by_file_;
  std::map<std::pair<uint32_t, std::array<uint8_t, 16>>, std::shared_ptr<const LoadedShader>> by_hash_;
};

// VkShaderStageFlagBits of a stage (1 vertex, 16 fragment, 32 compute).
uint32_t vk_stage_bit(compile::ShaderStage stage);

}  // namespace shaderbake::specconst

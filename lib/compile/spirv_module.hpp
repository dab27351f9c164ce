// SPDX-License-Identifier: MIT
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace shaderbake::compile {

enum class ShaderStage : uint8_t { vertex = 0, fragment = 4, compute = 5 };  // values of SPIR-V's ExecutionModel

// The value a pipeline would give one specialization constant (VkSpecializationMapEntry::constantID and the
// bytes it points at), as the bit pattern of the constant's type: one word for a bool (0 or 1, as VkBool32),
// a 32-bit int, uint or float; two words, low word first, for a 64-bit one.
struct SpecializationValue {
  uint32_t constant_id = 0;  // the SpecId (GLSL constant_id) of the constant
  std::vector<uint32_t> words;
  friend auto operator<=>(const SpecializationValue&, const SpecializationValue&) = default;
};

// What a module asks of the pipeline layout, read back from its SPIR-V (SPIRV-Cross).
struct Reflection {
  struct Binding {
    enum class Kind : uint8_t { sampled_image, uniform_buffer, storage_buffer };
    uint32_t set = 0;
    uint32_t binding = 0;
    Kind kind = Kind::sampled_image;
    uint8_t dim = 0;      // sampled images: 1 2D, 2 3D, 3 cube (sbk_sampler_dim numbering)
    uint32_t size = 0;    // buffers: declared size in bytes
    std::string name;
    friend bool operator==(const Binding&, const Binding&) = default;
  };
  struct Variable {
    uint32_t location = 0;
    uint32_t components = 0;
    std::string name;
    friend bool operator==(const Variable&, const Variable&) = default;
  };
  std::vector<Binding> bindings;   // sorted by (set, binding)
  uint32_t push_constant_size = 0;
  std::vector<Variable> inputs;    // sorted by location
  std::vector<Variable> outputs;   // sorted by location
  friend bool operator==(const Reflection&, const Reflection&) = default;
};

// A validated, optimized, ID-canonicalised SPIR-V module and its interface.
struct CompiledModule {
  ShaderStage stage = ShaderStage::fragment;
  std::vector<uint32_t> spirv;
  Reflection reflection;
};

}  // namespace shaderbake::compile

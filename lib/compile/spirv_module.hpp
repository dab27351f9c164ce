// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
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

// One stage's VkSpecializationInfo contents: map entries (constant id, offset, size) and the data they index.
struct SpecializationData {
  struct Entry {
    uint32_t constant_id = 0, offset = 0, size = 0;
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  std::vector<Entry> entries;
  std::vector<uint8_t> data;
  friend bool operator==(const SpecializationData&, const SpecializationData&) = default;
};

// The one layout shaderbake gives values (the bundle's SPECIALIZATION_DATA, the executor's pipelines): each value
// in ascending constant id (callers give each id once), its words little-endian, packed with no gap.
inline SpecializationData specialization_data(std::vector<SpecializationValue> values) {
  std::sort(values.begin(), values.end());
  SpecializationData out;
  for (const SpecializationValue& v : values) {
    out.entries.push_back({v.constant_id, static_cast<uint32_t>(out.data.size()), static_cast<uint32_t>(4 * v.words.size())});
    for (uint32_t word : v.words)
      for (int b = 0; b < 4; ++b) out.data.push_back(static_cast<uint8_t>(word >> (8 * b)));
  }
  return out;
}

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

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace shaderbake::specconst {

// One value a pipeline gives a constant: its bits (as a VkSpecializationInfo holds them) and its spelling in a
// trace's "constants" object.
struct ConstantValue {
  uint32_t id = 0;
  uint8_t width = 32;  // bits
  uint64_t bits = 0;
  std::string json;
};

// Random values for the constants a module declares, by declared type (for property tests and benchmarks): about
// a quarter left at their defaults, bools either way, small integers around and past the meaningful ones
// (-1..4 signed, 0..10 unsigned), floats from a few special values or [0.05, 96). Each float's spelling reads
// back as the same bits.
std::vector<ConstantValue> random_values(const sbk_specconst_module& module, std::mt19937_64& rng);

// The values as a trace's "constants" object: {"0":2,"3":64.5}.
std::string constants_json(const std::vector<ConstantValue>& values);

// The values as the compile chain freezes them.
std::vector<compile::SpecializationValue> specialization_values(const std::vector<ConstantValue>& values);

}  // namespace shaderbake::specconst

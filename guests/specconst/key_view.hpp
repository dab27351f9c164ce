// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::specconst {

// A specconst exact or family key read back (schemas/keys.md; runtime_loader/shaderbake_specconst.h writes them).
struct KeyModule {
  struct Constant {
    uint32_t id = 0;
    uint8_t type = 0;   // sbk_specconst_type
    uint8_t width = 32;
    uint64_t bits = 0;  // a 32-bit value in the low half
    uint8_t fixed_by = 0;     // sbk_specconst_reason: why the fallback packet cannot carry it (0: it can)
    bool at_default = false;  // the value is the module's default
  };
  uint32_t stage = 0;  // VkShaderStageFlagBits
  std::array<uint8_t, 16> hash{};
  std::vector<Constant> constants;  // exact keys only; ascending ids
};

// The modules of a key (compute: one; graphics: vertex then fragment), or an error (reason not_a_guest_key)
// naming what breaks the layout. Every byte is checked: a key read from a bundle is untrusted.
Result<std::vector<KeyModule>> read_exact_key(std::span<const uint8_t> key);
Result<std::vector<KeyModule>> read_family_key(std::span<const uint8_t> key);

// One constant's value as the compile chain freezes it: its bits in one word (two, low first, when 64-bit).
compile::SpecializationValue specialization_value(uint32_t id, uint8_t width, uint64_t bits);
// The values a key gives a module's constants.
std::vector<compile::SpecializationValue> specialization_of(const KeyModule& module);

// A key's modules as a trace's "program" names them: {"vertex": {"module": "<hash hex>", "constants": {...}}}.
nlohmann::ordered_json program_json(const std::vector<KeyModule>& modules);

}  // namespace shaderbake::specconst

// SPDX-License-Identifier: MIT
#include "guests/specconst/random_values.hpp"

#include <cstdio>
#include <cstring>

#include "guests/specconst/key_view.hpp"

namespace shaderbake::specconst {

std::vector<ConstantValue> random_values(const sbk_specconst_module& module, std::mt19937_64& rng) {
  std::vector<ConstantValue> out;
  for (uint32_t k = 0; k < module.constant_count; ++k) {
    const sbk_specconst_constant& c = module.constants[k];
    if (rng() % 4 == 0) continue;  // left at its default
    ConstantValue v;
    v.id = c.id;
    v.width = c.width;
    char text[40];
    switch (c.type) {
      case SBK_SPECCONST_BOOL:
        v.bits = rng() % 2;
        v.json = v.bits ? "true" : "false";
        break;
      case SBK_SPECCONST_INT: {
        const int64_t i = static_cast<int64_t>(rng() % 6) - 1;
        v.bits = c.width == 64 ? static_cast<uint64_t>(i) : static_cast<uint32_t>(static_cast<int32_t>(i));
        v.json = std::to_string(i);
        break;
      }
      case SBK_SPECCONST_UINT:
        v.bits = rng() % 11;
        v.json = std::to_string(v.bits);
        break;
      default: {
        static const double kSpecial[] = {0.0, 1.0, 0.5, 2.0, 128.0, 1e-3};
        const double d = rng() % 3 == 0 ? kSpecial[rng() % 6] : std::uniform_real_distribution<double>(0.05, 96.0)(rng);
        if (c.width == 64) {
          std::memcpy(&v.bits, &d, 8);
          std::snprintf(text, sizeof text, "%.17g", d);
        } else {
          const float f = static_cast<float>(d);
          uint32_t bits;
          std::memcpy(&bits, &f, 4);
          v.bits = bits;
          std::snprintf(text, sizeof text, "%.9g", f);
        }
        v.json = text;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::string constants_json(const std::vector<ConstantValue>& values) {
  std::string out = "{";
  for (const ConstantValue& v : values) out += (out.size() > 1 ? ",\"" : "\"") + std::to_string(v.id) + "\":" + v.json;
  return out + "}";
}

std::vector<compile::SpecializationValue> specialization_values(const std::vector<ConstantValue>& values) {
  std::vector<compile::SpecializationValue> out;
  for (const ConstantValue& v : values) out.push_back(specialization_value(v.id, v.width, v.bits));
  return out;
}

}  // namespace shaderbake::specconst

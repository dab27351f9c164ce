// SPDX-License-Identifier: MIT
#include "guests/nv2a/random_program.hpp"

namespace shaderbake::nv2a {

uint64_t RandomPrograms::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint32_t RandomPrograms::general_input_byte(bool rgb) {
  static constexpr uint32_t kRegisters[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13};
  const uint32_t reg = kRegisters[below(sizeof kRegisters / sizeof kRegisters[0])];
  uint32_t alpha = below(2);
  if (reg == 3) alpha = 0;  // fog alpha is final-combiner only
  (void)rgb;
  return reg | (alpha << 4) | (below(8) << 5);
}

uint32_t RandomPrograms::output_word(bool rgb) {
  static constexpr uint32_t kDestinations[] = {4, 5, 8, 9, 10, 11, 12, 13};
  auto destination = [&] { return below(3) == 0 ? 0u : kDestinations[below(8)]; };
  uint32_t cd = destination(), ab = destination(), sum = destination();
  if (ab == cd) ab = 0;
  if (sum == cd || sum == ab) sum = 0;
  static constexpr uint32_t kOps[] = {0, 1, 2, 3, 4, 6};
  uint32_t word = cd | (ab << 4) | (kOps[below(6)] << 15);
  if (below(4) == 0) word |= 1u << 14;  // mux
  if (rgb) {
    if (below(5) == 0) word |= 1u << 12;  // CD dot
    if (below(5) == 0) word |= 1u << 13;  // AB dot
    if (below(5) == 0) word |= 1u << 18;  // CD blue to alpha
    if (below(5) == 0) word |= 1u << 19;  // AB blue to alpha
  }
  return word | (sum << 8);
}

uint32_t RandomPrograms::final_input_byte(int slot) {
  // slot 0-3 = A-D, 4-5 = E-F, 6 = G
  static constexpr uint32_t kRegisters[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15};
  uint32_t reg;
  for (;;) {
    reg = kRegisters[below(14)];
    if (reg == 14 && !(slot >= 1 && slot <= 3)) continue;
    if (reg == 15 && slot > 3) continue;
    break;
  }
  const uint32_t alpha = (reg == 14 || reg == 15) ? 0 : below(2);
  return reg | (alpha << 4) | (below(2) << 5);
}

sbk_nv2a_program RandomPrograms::program() {
  sbk_nv2a_program p{};
  const uint32_t stages = 1 + below(8);
  p.combiner_control = stages | (below(2) << 8) | (below(2) << 12) | (below(2) << 16);
  for (uint32_t s = 0; s < stages; ++s) {
    for (int b = 0; b < 4; ++b) {
      p.rgb_inputs[s] |= general_input_byte(true) << (8 * b);
      p.alpha_inputs[s] |= general_input_byte(false) << (8 * b);
    }
    p.rgb_outputs[s] = output_word(true);
    p.alpha_outputs[s] = output_word(false);
  }
  for (int slot = 0; slot < 4; ++slot) p.final_inputs[0] |= final_input_byte(slot) << (24 - 8 * slot);
  for (int slot = 4; slot < 7; ++slot) p.final_inputs[1] |= final_input_byte(slot) << (24 - 8 * (slot - 4));
  p.final_inputs[1] |= below(8) << 5;  // V1R0 flags 0x20, 0x40, 0x80
  static constexpr uint8_t kModes[] = {SBK_NV2A_TEXTURE_NONE, SBK_NV2A_TEXTURE_PROJECT2D, SBK_NV2A_TEXTURE_PROJECT3D,
                                       SBK_NV2A_TEXTURE_CUBE};
  for (int t = 0; t < SBK_NV2A_TEXTURE_STAGES; ++t) {
    p.texture_enabled[t] = static_cast<uint8_t>(below(4) != 0);
    p.texture_modes[t] = kModes[below(4)];
  }
  p.alpha_test_enabled = static_cast<uint8_t>(below(3) == 0);
  p.alpha_test_func = static_cast<uint8_t>(below(8));
  return p;
}

PixelInputs RandomPrograms::inputs() {
  PixelInputs in;
  auto colour = [&] { return static_cast<uint32_t>(next()); };
  in.v0 = colour();
  in.v1 = colour();
  for (auto& t : in.textures) t = colour();
  in.fog_factor = static_cast<float>(below(256)) / 255.0f;
  for (int s = 0; s < SBK_NV2A_MAX_STAGES; ++s) {
    in.dynamic.c0[s] = colour();
    in.dynamic.c1[s] = colour();
  }
  in.dynamic.final_c0 = colour();
  in.dynamic.final_c1 = colour();
  in.dynamic.fog_color = colour();
  in.dynamic.alpha_ref = static_cast<uint8_t>(below(256));
  return in;
}

}  // namespace shaderbake::nv2a

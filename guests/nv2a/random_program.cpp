// SPDX-License-Identifier: MIT
#include "guests/nv2a/random_program.hpp"

#include <cmath>

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

float RandomPrograms::uniform(float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(next() >> 40) / 16777216.0f;
}

namespace {

// Modes that fetch at the stage's own coordinates, and the other modes that need no earlier dot product.
constexpr uint8_t kFetches[] = {SBK_NV2A_TEXTURE_PROJECT2D, SBK_NV2A_TEXTURE_PROJECT3D, SBK_NV2A_TEXTURE_CUBE};
constexpr uint8_t kStandalone[] = {SBK_NV2A_TEXTURE_NONE,     SBK_NV2A_TEXTURE_PROJECT2D, SBK_NV2A_TEXTURE_PROJECT3D,
                                   SBK_NV2A_TEXTURE_CUBE,     SBK_NV2A_TEXTURE_PASSTHRU,  SBK_NV2A_TEXTURE_CLIPPLANE,
                                   SBK_NV2A_TEXTURE_BUMPENVMAP, SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE,
                                   SBK_NV2A_TEXTURE_DEPENDENT_AR, SBK_NV2A_TEXTURE_DEPENDENT_GB};
constexpr uint32_t kDotMappings[] = {0, 1, 2, 3, 4, 7};

bool t_undefined(uint8_t mode) {
  return mode == SBK_NV2A_TEXTURE_CLIPPLANE || mode == SBK_NV2A_TEXTURE_DOT_PRODUCT || mode == SBK_NV2A_TEXTURE_DOT_ZW;
}

// Rewrites every input byte of `word` that reads a register in `undefined` (bit per code) to read v0.
uint32_t without_reads_of(uint32_t word, uint32_t undefined) {
  for (int b = 0; b < 4; ++b) {
    const uint32_t byte = (word >> (8 * b)) & 0xFFu;
    if ((undefined >> (byte & 0xFu)) & 1u) word = (word & ~(0xFu << (8 * b))) | (4u << (8 * b));
  }
  return word;
}

}  // namespace

void RandomPrograms::choose_texture_modes(sbk_nv2a_program& p) {
  uint8_t m[SBK_NV2A_TEXTURE_STAGES];
  auto standalone = [&](uint32_t stage) {
    for (;;) {
      const uint8_t mode = kStandalone[below(sizeof kStandalone)];
      if (sbk_nv2a_mode_legal_in_stage(mode, stage)) return mode;
    }
  };
  m[0] = below(4) == 0 ? standalone(0) : kFetches[below(3)];
  switch (below(4)) {
    case 0:  // a dot product in stage 1, then what may follow it
      m[1] = SBK_NV2A_TEXTURE_DOT_PRODUCT;
      switch (below(5)) {
        case 0: {
          m[2] = SBK_NV2A_TEXTURE_DOT_PRODUCT;
          static constexpr uint8_t kThird[] = {SBK_NV2A_TEXTURE_DOT_STR_3D,    SBK_NV2A_TEXTURE_DOT_STR_CUBE,
                                               SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC, SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST,
                                               SBK_NV2A_TEXTURE_DOT_ST,        SBK_NV2A_TEXTURE_DOT_ZW};
          m[3] = kThird[below(6)];
          break;
        }
        case 1:
          m[2] = SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF;
          m[3] = below(2) ? SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC : SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST;
          break;
        default:
          m[2] = below(2) ? SBK_NV2A_TEXTURE_DOT_ST : SBK_NV2A_TEXTURE_DOT_ZW;
          m[3] = standalone(3);
          break;
      }
      break;
    case 1:  // a dot product in stage 2 and dot_st or dot_zw after it
      m[1] = standalone(1);
      m[2] = SBK_NV2A_TEXTURE_DOT_PRODUCT;
      m[3] = below(2) ? SBK_NV2A_TEXTURE_DOT_ST : SBK_NV2A_TEXTURE_DOT_ZW;
      break;
    default:
      for (uint32_t i = 1; i < SBK_NV2A_TEXTURE_STAGES; ++i) m[i] = standalone(i);
      break;
  }
  for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    p.texture_modes[i] = m[i];
    p.texture_enabled[i] = static_cast<uint8_t>(m[i] != SBK_NV2A_TEXTURE_NONE || below(2) == 0);
    p.texture_alpha_kill[i] = static_cast<uint8_t>(below(6) == 0);
    p.texture_color_key[i] = static_cast<uint8_t>(below(3) == 0 ? 1 + below(3) : 0);
    p.texture_signed[i] = static_cast<uint8_t>(below(3) == 0 ? below(16) : 0);
    p.texture_format[i] = static_cast<uint8_t>(below(4) == 0 ? SBK_NV2A_FORMAT_XRGB8 : SBK_NV2A_FORMAT_ARGB8);
    if (m[i] == SBK_NV2A_TEXTURE_CLIPPLANE) p.clip_plane_mode |= below(16) << (4 * i);
    if (i > 0 && sbk_nv2a_mode_is_dot(m[i])) p.dot_rgb_mapping |= kDotMappings[below(6)] << (4 * (i - 1));
  }
  // Input stages of stages 2 and 3: an earlier stage that fetches (stage 3 not reading a dot_rflct_diff
  // stage 2, whose N needs stage 3). None available leaves 0, which the validity check then refuses.
  for (uint32_t i = 2; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    uint32_t candidates[3], count = 0;
    for (uint32_t k = 0; k < i; ++k)
      if (sbk_nv2a_sampler_dim(m[k]) != SBK_SAMPLER_NONE && !(i == 3 && k == 2 && m[2] == SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF))
        candidates[count++] = k;
    if (count > 0) p.other_stage_input |= candidates[below(count)] << (i == 2 ? 16 : 20);
  }
  // A dependent read takes its coordinates from unsigned channels.
  for (uint32_t i = 1; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    const uint32_t in = sbk_nv2a_input_stage(&p, i);
    if (m[i] == SBK_NV2A_TEXTURE_DEPENDENT_AR) p.texture_signed[in] &= ~(SBK_NV2A_SIGNED_A | SBK_NV2A_SIGNED_R);
    if (m[i] == SBK_NV2A_TEXTURE_DEPENDENT_GB) p.texture_signed[in] &= ~(SBK_NV2A_SIGNED_G | SBK_NV2A_SIGNED_B);
  }
}

sbk_nv2a_program RandomPrograms::texture_program() {
  for (;;) {
    sbk_nv2a_program p = program();
    choose_texture_modes(p);
    uint32_t undefined = 0;
    for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i)
      if (t_undefined(sbk_nv2a_effective_texture_mode(&p, i))) undefined |= 1u << (8 + i);
    for (uint32_t s = 0; s < SBK_NV2A_MAX_STAGES; ++s) {
      p.rgb_inputs[s] = without_reads_of(p.rgb_inputs[s], undefined);
      p.alpha_inputs[s] = without_reads_of(p.alpha_inputs[s], undefined);
    }
    p.final_inputs[0] = without_reads_of(p.final_inputs[0], undefined);
    p.final_inputs[1] = without_reads_of(p.final_inputs[1] & ~0xFFu, undefined) | (p.final_inputs[1] & 0xFFu);  // E, F, G; flags
    // The rest (a stage 0 clipplane leaves r0.a undefined until written; an input stage with nothing to
    // read) is refused by validity: draw again.
    if (sbk_nv2a_check_program(&p, nullptr) == SBK_NV2A_OK) return p;
  }
}

PixelInputs RandomPrograms::texture_inputs(const sbk_nv2a_program& p) {
  PixelInputs in = inputs();
  for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    auto& tc = in.texcoords[i];
    for (int k = 0; k < 3; ++k) tc[k] = uniform(-1.5f, 1.5f);
    tc[3] = (below(2) ? 1.0f : -1.0f) * uniform(0.5f, 2.0f);
    float* w = in.dynamic.bump_env_matrix[i];
    for (int k = 0; k < 4; ++k) w[k] = uniform(-1.0f, 1.0f);
    in.dynamic.bump_env_scale[i] = uniform(-1.0f, 2.0f);
    in.dynamic.bump_env_offset[i] = uniform(-0.5f, 1.0f);
    in.dynamic.color_keys[i] = static_cast<uint32_t>(next());
    const uint8_t mode = sbk_nv2a_effective_texture_mode(&p, i);
    if (mode == SBK_NV2A_TEXTURE_CLIPPLANE && below(4) != 0) {
      // Mostly on the kept side of every plane (random signs would discard 15 pixels in 16).
      const uint32_t nibble = (p.clip_plane_mode >> (4 * i)) & 0xFu;
      for (uint32_t k = 0; k < 4; ++k) tc[k] = ((nibble >> k) & 1u) ? -std::fabs(tc[k]) : std::fabs(tc[k]);
    }
    const sbk_sampler_dim dim = sbk_nv2a_sampler_dim(mode);
    if (dim == SBK_SAMPLER_NONE) continue;
    TextureImage image;
    image.width = image.height = 2;
    image.kind = dim == SBK_SAMPLER_2D ? TextureImage::Kind::image_2d
                 : dim == SBK_SAMPLER_3D ? TextureImage::Kind::image_3d
                                         : TextureImage::Kind::cube;
    image.depth = dim == SBK_SAMPLER_3D ? 2 : 1;
    image.texels.resize(dim == SBK_SAMPLER_CUBE ? 6 * 4 : 4 * image.depth);
    for (uint32_t& t : image.texels) t = static_cast<uint32_t>(next());
    if (below(2) == 0) in.dynamic.color_keys[i] = image.texels[below(static_cast<uint32_t>(image.texels.size()))];
    in.textures[i] = image.texels[0];
    in.images[i] = std::move(image);
  }
  for (float& e : in.dynamic.eye_vector) e = uniform(-1.0f, 1.0f);
  return in;
}

}  // namespace shaderbake::nv2a

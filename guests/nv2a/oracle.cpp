// SPDX-License-Identifier: MIT
#include "guests/nv2a/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace shaderbake::nv2a {

namespace {

struct Vec4 {
  float r = 0, g = 0, b = 0, a = 0;
};

Vec4 colour(uint32_t argb) {
  return {static_cast<float>((argb >> 16) & 0xFF) / 255.0f, static_cast<float>((argb >> 8) & 0xFF) / 255.0f,
          static_cast<float>(argb & 0xFF) / 255.0f, static_cast<float>(argb >> 24) / 255.0f};
}

float clampf(float x, float lo, float hi) { return std::min(std::max(x, lo), hi); }

// The 8-bit value of a register, as the LSB mux and the alpha test see it: round half up, like the
// hardware, with the half-way point widened by 1/4096 so that float rounding noise around an exact tie
// (x = k + 0.5 steps, common with the 128/255 bias) resolves the same way on every implementation. The
// shaders use the same expression (kTo8BitGlsl in the emitters).
uint32_t to_8bit(float x) {
  return static_cast<uint32_t>(std::floor(clampf(x, 0.0f, 1.0f) * 255.0f + 0.5f + 1.0f / 4096.0f));
}

// NV_register_combiners input mappings (bits 5-7 of an input byte).
float map_input(float e, uint32_t mapping) {
  switch (mapping) {
    case 0: return std::max(0.0f, e);                  // unsigned identity
    case 1: return 1.0f - clampf(e, 0.0f, 1.0f);       // unsigned invert
    case 2: return 2.0f * std::max(0.0f, e) - 1.0f;    // expand normal
    case 3: return -2.0f * std::max(0.0f, e) + 1.0f;   // expand negate
    case 4: return std::max(0.0f, e) - 0.5f;           // half-bias normal
    case 5: return -std::max(0.0f, e) + 0.5f;          // half-bias negate
    case 6: return e;                                  // signed identity
    default: return -e;                                // signed negate
  }
}

struct Rgb {
  float r = 0, g = 0, b = 0;
};

// Register file: codes 0-13 (14 and 15 exist only in the final combiner).
struct Registers {
  std::array<Vec4, 16> reg{};
};

// The RGB portion of an input byte: .rgb, or .aaa when the alpha bit is set; then the mapping.
Rgb rgb_input(const Registers& regs, uint32_t byte) {
  const Vec4& v = regs.reg[byte & 0xF];
  const uint32_t mapping = byte >> 5;
  if ((byte >> 4) & 1) {
    const float a = map_input(v.a, mapping);
    return {a, a, a};
  }
  return {map_input(v.r, mapping), map_input(v.g, mapping), map_input(v.b, mapping)};
}

// The alpha portion of an input byte: .a when the alpha bit is set, else .b; then the mapping.
float alpha_input(const Registers& regs, uint32_t byte) {
  const Vec4& v = regs.reg[byte & 0xF];
  return map_input(((byte >> 4) & 1) ? v.a : v.b, byte >> 5);
}

// Output op (bits 15-17): bias (hardware: 128/255, not 0.5) then scale.
void op_of(uint32_t op, float* bias, float* scale) {
  constexpr float kBias = -128.0f / 255.0f;
  switch (op) {
    case 1: *bias = kBias; *scale = 1.0f; return;
    case 2: *bias = 0.0f; *scale = 2.0f; return;
    case 3: *bias = kBias; *scale = 2.0f; return;
    case 4: *bias = 0.0f; *scale = 4.0f; return;
    case 6: *bias = 0.0f; *scale = 0.5f; return;
    default: *bias = 0.0f; *scale = 1.0f; return;
  }
}

float finish(float x, float bias, float scale) { return clampf((x + bias) * scale, -1.0f, 1.0f); }

// The mux select: CD when spare0.a (read at stage entry) passes, AB otherwise.
bool mux_selects_cd(const Registers& entry, bool msb_mode) {
  const float a = entry.reg[12].a;
  if (msb_mode) return a >= 0.5f;
  return (to_8bit(a) & 1u) != 0;
}

struct PendingWrite {
  uint32_t dst;
  int channel;  // 0 = rgb, 1 = alpha
  Vec4 value;
};

void run_stage(const sbk_nv2a_program& p, uint32_t stage, const PixelInputs& in, Registers& regs) {
  const bool per_stage_c0 = (p.combiner_control >> 12) & 1, per_stage_c1 = (p.combiner_control >> 16) & 1;
  const bool msb_mode = (p.combiner_control >> 8) & 1;
  Registers entry = regs;  // writes are delayed: both portions read the values at stage entry
  entry.reg[1] = colour(in.dynamic.c0[per_stage_c0 ? stage : 0]);
  entry.reg[2] = colour(in.dynamic.c1[per_stage_c1 ? stage : 0]);
  const bool cd_selected = mux_selects_cd(entry, msb_mode);

  // Writes are applied RGB portion first, then the alpha portion, so an alpha-portion write to X.a wins
  // over a blue-to-alpha write to X.a in the same stage.
  PendingWrite writes[6];
  int write_count = 0;

  {  // RGB portion
    const uint32_t in_word = p.rgb_inputs[stage], out_word = p.rgb_outputs[stage];
    const Rgb A = rgb_input(entry, in_word >> 24), B = rgb_input(entry, (in_word >> 16) & 0xFF),
              C = rgb_input(entry, (in_word >> 8) & 0xFF), D = rgb_input(entry, in_word & 0xFF);
    const bool cd_dot = (out_word >> 12) & 1, ab_dot = (out_word >> 13) & 1, mux = (out_word >> 14) & 1;
    Rgb ab, cd;
    if (ab_dot) {
      const float d = A.r * B.r + A.g * B.g + A.b * B.b;
      ab = {d, d, d};
    } else {
      ab = {A.r * B.r, A.g * B.g, A.b * B.b};
    }
    if (cd_dot) {
      const float d = C.r * D.r + C.g * D.g + C.b * D.b;
      cd = {d, d, d};
    } else {
      cd = {C.r * D.r, C.g * D.g, C.b * D.b};
    }
    // The sum takes the unclamped, unscaled products.
    const Rgb sum = mux ? (cd_selected ? cd : ab) : Rgb{ab.r + cd.r, ab.g + cd.g, ab.b + cd.b};
    float bias, scale;
    op_of((out_word >> 15) & 7, &bias, &scale);
    auto out = [&](const Rgb& x) { return Vec4{finish(x.r, bias, scale), finish(x.g, bias, scale), finish(x.b, bias, scale), 0}; };
    const Vec4 ab_out = out(ab), cd_out = out(cd), sum_out = out(sum);
    const uint32_t cd_dst = out_word & 0xF, ab_dst = (out_word >> 4) & 0xF, sum_dst = (out_word >> 8) & 0xF;
    if (cd_dst) writes[write_count++] = {cd_dst, 0, cd_out};
    if (ab_dst) writes[write_count++] = {ab_dst, 0, ab_out};
    if (sum_dst) writes[write_count++] = {sum_dst, 0, sum_out};
    // Blue to alpha: the destination's alpha takes that output's post-op blue.
    if (((out_word >> 18) & 1) && cd_dst) writes[write_count++] = {cd_dst, 1, Vec4{0, 0, 0, cd_out.b}};
    if (((out_word >> 19) & 1) && ab_dst) writes[write_count++] = {ab_dst, 1, Vec4{0, 0, 0, ab_out.b}};
  }
  for (int i = 0; i < write_count; ++i) {
    Vec4& r = regs.reg[writes[i].dst];
    if (writes[i].channel == 0) {
      r.r = writes[i].value.r;
      r.g = writes[i].value.g;
      r.b = writes[i].value.b;
    } else {
      r.a = writes[i].value.a;
    }
  }
  {  // alpha portion
    const uint32_t in_word = p.alpha_inputs[stage], out_word = p.alpha_outputs[stage];
    const float A = alpha_input(entry, in_word >> 24), B = alpha_input(entry, (in_word >> 16) & 0xFF),
                C = alpha_input(entry, (in_word >> 8) & 0xFF), D = alpha_input(entry, in_word & 0xFF);
    const float ab = A * B, cd = C * D;
    const float sum = ((out_word >> 14) & 1) ? (cd_selected ? cd : ab) : ab + cd;
    float bias, scale;
    op_of((out_word >> 15) & 7, &bias, &scale);
    const uint32_t cd_dst = out_word & 0xF, ab_dst = (out_word >> 4) & 0xF, sum_dst = (out_word >> 8) & 0xF;
    if (cd_dst) regs.reg[cd_dst].a = finish(cd, bias, scale);
    if (ab_dst) regs.reg[ab_dst].a = finish(ab, bias, scale);
    if (sum_dst) regs.reg[sum_dst].a = finish(sum, bias, scale);
  }
}

bool alpha_test_passes(uint8_t func, uint32_t value, uint32_t reference) {
  switch (func) {
    case SBK_COMPARE_NEVER: return false;
    case SBK_COMPARE_LESS: return value < reference;
    case SBK_COMPARE_EQUAL: return value == reference;
    case SBK_COMPARE_LESS_OR_EQUAL: return value <= reference;
    case SBK_COMPARE_GREATER: return value > reference;
    case SBK_COMPARE_NOT_EQUAL: return value != reference;
    case SBK_COMPARE_GREATER_OR_EQUAL: return value >= reference;
    default: return true;
  }
}

uint8_t quantise(float x) { return static_cast<uint8_t>(to_8bit(x)); }

}  // namespace

float canonical_fog_factor(float fog_factor) {
  if (std::isnan(fog_factor)) return 0.0f;
  return clampf(fog_factor, 0.0f, 1.0f);
}

Result<PixelOutput> evaluate(const sbk_nv2a_program& program, const PixelInputs& inputs) {
  const char* where = nullptr;
  const sbk_nv2a_reason reason = sbk_nv2a_check_program(&program, &where);
  if (reason != SBK_NV2A_OK) {
    Error e;
    e.kind = ErrorKind::bad_input;
    e.reason = sbk_nv2a_reason_name(reason);
    e.message = std::string("the program has no defined behaviour: ") + sbk_nv2a_reason_name(reason) + " in " + where;
    return e;
  }

  Registers regs;
  regs.reg[3] = colour(inputs.dynamic.fog_color);
  regs.reg[3].a = canonical_fog_factor(inputs.fog_factor);
  regs.reg[4] = colour(inputs.v0);
  regs.reg[5] = colour(inputs.v1);
  TextureInputs textures;
  for (uint32_t s = 0; s < SBK_NV2A_TEXTURE_STAGES; ++s)
    textures.textures[s] = inputs.images[s] ? *inputs.images[s] : TextureImage::flat(inputs.textures[s]);
  textures.texcoords = inputs.texcoords;
  auto shaded = run_texture_shader(program, inputs.dynamic, textures);
  if (!shaded) return std::move(shaded).error();
  for (uint32_t s = 0; s < SBK_NV2A_TEXTURE_STAGES; ++s) {
    const auto& t = shaded->t[s];  // a disabled or NONE stage reads (0,0,0,1)
    regs.reg[8 + s] = Vec4{t[0], t[1], t[2], t[3]};
  }
  regs.reg[12] = Vec4{0, 0, 0, regs.reg[8].a};  // r0 starts as (0,0,0,t0.a)
  regs.reg[13] = Vec4{};

  const uint32_t stages = sbk_nv2a_stage_count(&program);
  for (uint32_t s = 0; s < stages; ++s) run_stage(program, s, inputs, regs);

  // Final combiner: its own constants; 14 = spare0 + secondary, 15 = E * F.
  regs.reg[1] = colour(inputs.dynamic.final_c0);
  regs.reg[2] = colour(inputs.dynamic.final_c1);
  const uint32_t w0 = program.final_inputs[0], w1 = program.final_inputs[1];
  const uint32_t flags = w1 & 0xFF;
  {
    auto spare_term = [](float x, bool complement) {
      const float positive = std::max(0.0f, x);
      return complement ? 1.0f - positive : positive;
    };
    const Vec4& r0 = regs.reg[12];
    const Vec4& v1 = regs.reg[5];
    const bool complement_r0 = flags & 0x20, complement_v1 = flags & 0x40, clamp_sum = flags & 0x80;
    auto term = [&](float r, float v) {
      const float s = spare_term(r, complement_r0) + spare_term(v, complement_v1);
      return clamp_sum ? clampf(s, 0.0f, 1.0f) : s;
    };
    regs.reg[14] = Vec4{term(r0.r, v1.r), term(r0.g, v1.g), term(r0.b, v1.b), 0};
    const Rgb E = rgb_input(regs, w1 >> 24), F = rgb_input(regs, (w1 >> 16) & 0xFF);
    regs.reg[15] = Vec4{E.r * F.r, E.g * F.g, E.b * F.b, 0};
  }
  const Rgb A = rgb_input(regs, w0 >> 24), B = rgb_input(regs, (w0 >> 16) & 0xFF), C = rgb_input(regs, (w0 >> 8) & 0xFF),
            D = rgb_input(regs, w0 & 0xFF);
  const float G = alpha_input(regs, (w1 >> 8) & 0xFF);
  auto lerp = [](float a, float b, float c, float d) { return std::min(a * b + (1.0f - a) * c + d, 1.0f); };

  PixelOutput out;
  out.value = {lerp(A.r, B.r, C.r, D.r), lerp(A.g, B.g, C.g, D.g), lerp(A.b, B.b, C.b, D.b), G};
  for (int c = 0; c < 4; ++c) out.rgba[c] = quantise(out.value[c]);
  out.discarded = shaded->discarded;
  if (program.alpha_test_enabled && !alpha_test_passes(program.alpha_test_func, out.rgba[3], inputs.dynamic.alpha_ref))
    out.discarded = true;
  out.depth_z16 = shaded->depth_z16;
  return out;
}

}  // namespace shaderbake::nv2a

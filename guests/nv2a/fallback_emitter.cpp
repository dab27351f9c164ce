// SPDX-License-Identifier: MIT
#include "guests/nv2a/fallback_emitter.hpp"

#include "guests/nv2a/fallback_texture_stages.hpp"
#include "guests/nv2a/shared_glsl.hpp"

namespace shaderbake::nv2a {

namespace {

// The register file, before the texture stages that write t0-t3 into it.
constexpr const char* kRegisterFile = R"(// Register file, indexed by the 4-bit hardware code (0 zero, 1 c0, 2 c1, 3 fog, 4 v0, 5 v1, 8-11 t0-t3,
// 12 r0, 13 r1; 14 spare0+secondary and 15 E*F in the final combiner). Codes 6 and 7 are never admitted.
vec4 regs[16];
)";

// The general and final combiners: the same for every family. main() runs the texture stages first (they
// set t0-t3 and may discard).
constexpr const char* kCombinersAndMain = R"(
// NV_register_combiners input mappings (bits 5-7 of an input byte).
vec3 map_input(vec3 e, uint mapping) {
  switch (mapping) {
    case 0u: return max(e, 0.0);
    case 1u: return 1.0 - clamp(e, 0.0, 1.0);
    case 2u: return 2.0 * max(e, 0.0) - 1.0;
    case 3u: return -2.0 * max(e, 0.0) + 1.0;
    case 4u: return max(e, 0.0) - 0.5;
    case 5u: return -max(e, 0.0) + 0.5;
    case 6u: return e;
    default: return -e;
  }
}

// The RGB portion of an input byte: .rgb, or .aaa with the alpha bit.
vec3 rgb_input(uint byte) {
  vec4 r = regs[byte & 15u];
  return map_input(((byte >> 4u) & 1u) != 0u ? r.aaa : r.rgb, byte >> 5u);
}

// The alpha portion of an input byte: .a with the alpha bit, else .b.
float alpha_input(uint byte) {
  vec4 r = regs[byte & 15u];
  return map_input(vec3(((byte >> 4u) & 1u) != 0u ? r.a : r.b), byte >> 5u).x;
}

// Output op (bits 15-17): bias (hardware: 128/255) then scale, one clamp.
vec3 finish(vec3 x, uint op) {
  float bias = (op == 1u || op == 3u) ? -128.0 / 255.0 : 0.0;
  float scale = op == 2u || op == 3u ? 2.0 : op == 4u ? 4.0 : op == 6u ? 0.5 : 1.0;
  return clamp((x + bias) * scale, -1.0, 1.0);
}

uint byte_of(uint word, uint index) { return (word >> (24u - 8u * index)) & 255u; }

// The 8-bit value the LSB mux and the alpha test see: round half up, ties widened by 1/4096 (as the oracle).
uint to_8bit(float x) { return uint(floor(clamp(x, 0.0, 1.0) * 255.0 + 0.5 + 1.0 / 4096.0)); }

void main() {
  regs[0] = vec4(0.0);
  regs[3] = vec4(dyn.fog_color.rgb, clamp(in_fog, 0.0, 1.0));
  regs[4] = in_v0;
  regs[5] = in_v1;
  regs[6] = vec4(0.0);
  regs[7] = vec4(0.0);
  run_texture_stages();
  regs[12] = vec4(0.0, 0.0, 0.0, regs[8].a);
  regs[13] = vec4(0.0);
  regs[14] = vec4(0.0);
  regs[15] = vec4(0.0);

  uint control = packet.control.x;
  uint stage_count = min(control & 255u, 8u);
  bool msb_mux = ((control >> 8u) & 1u) != 0u;
  bool per_stage_c0 = ((control >> 12u) & 1u) != 0u;
  bool per_stage_c1 = ((control >> 16u) & 1u) != 0u;
  for (uint s = 0u; s < stage_count; ++s) {
    regs[1] = dyn.c0[per_stage_c0 ? s : 0u];
    regs[2] = dyn.c1[per_stage_c1 ? s : 0u];
    uvec4 stage = packet.stages[s];
    // Every read happens before any write: the hardware delays writes to the end of the stage.
    bool select_cd = msb_mux ? regs[12].a >= 0.5 : (to_8bit(regs[12].a) & 1u) != 0u;
    vec3 a = rgb_input(byte_of(stage.x, 0u)), b = rgb_input(byte_of(stage.x, 1u));
    vec3 c = rgb_input(byte_of(stage.x, 2u)), d = rgb_input(byte_of(stage.x, 3u));
    uint rgb_out = stage.y;
    vec3 ab = ((rgb_out >> 13u) & 1u) != 0u ? vec3(dot(a, b)) : a * b;
    vec3 cd = ((rgb_out >> 12u) & 1u) != 0u ? vec3(dot(c, d)) : c * d;
    vec3 sum = ((rgb_out >> 14u) & 1u) != 0u ? (select_cd ? cd : ab) : ab + cd;
    uint rgb_op = (rgb_out >> 15u) & 7u;
    vec3 ab_out = finish(ab, rgb_op), cd_out = finish(cd, rgb_op), sum_out = finish(sum, rgb_op);

    float aa = alpha_input(byte_of(stage.z, 0u)), ba = alpha_input(byte_of(stage.z, 1u));
    float ca = alpha_input(byte_of(stage.z, 2u)), da = alpha_input(byte_of(stage.z, 3u));
    uint alpha_out = stage.w;
    float ab_a = aa * ba, cd_a = ca * da;
    float sum_a = ((alpha_out >> 14u) & 1u) != 0u ? (select_cd ? cd_a : ab_a) : ab_a + cd_a;
    uint alpha_op = (alpha_out >> 15u) & 7u;
    vec3 alpha_results = finish(vec3(ab_a, cd_a, sum_a), alpha_op);

    // Writes: the RGB portion (blue to alpha included), then the alpha portion, whose X.a write wins.
    uint cd_dst = rgb_out & 15u, ab_dst = (rgb_out >> 4u) & 15u, sum_dst = (rgb_out >> 8u) & 15u;
    if (cd_dst != 0u) regs[cd_dst].rgb = cd_out;
    if (ab_dst != 0u) regs[ab_dst].rgb = ab_out;
    if (sum_dst != 0u) regs[sum_dst].rgb = sum_out;
    if (((rgb_out >> 18u) & 1u) != 0u && cd_dst != 0u) regs[cd_dst].a = cd_out.b;
    if (((rgb_out >> 19u) & 1u) != 0u && ab_dst != 0u) regs[ab_dst].a = ab_out.b;
    cd_dst = alpha_out & 15u;
    ab_dst = (alpha_out >> 4u) & 15u;
    sum_dst = (alpha_out >> 8u) & 15u;
    if (cd_dst != 0u) regs[cd_dst].a = alpha_results.y;
    if (ab_dst != 0u) regs[ab_dst].a = alpha_results.x;
    if (sum_dst != 0u) regs[sum_dst].a = alpha_results.z;
  }

  // Final combiner, with its own constants.
  regs[1] = dyn.final_c0;
  regs[2] = dyn.final_c1;
  uint w0 = packet.control.y, w1 = packet.control.z, flags = w1 & 255u;
  vec3 r0_term = max(regs[12].rgb, 0.0), v1_term = max(regs[5].rgb, 0.0);
  if ((flags & 0x20u) != 0u) r0_term = 1.0 - r0_term;
  if ((flags & 0x40u) != 0u) v1_term = 1.0 - v1_term;
  vec3 spare_sum = r0_term + v1_term;
  if ((flags & 0x80u) != 0u) spare_sum = clamp(spare_sum, 0.0, 1.0);
  regs[14] = vec4(spare_sum, 0.0);
  regs[15] = vec4(rgb_input(byte_of(w1, 0u)) * rgb_input(byte_of(w1, 1u)), 0.0);
  vec3 fa = rgb_input(byte_of(w0, 0u));
  vec3 color = min(fa * rgb_input(byte_of(w0, 1u)) + (1.0 - fa) * rgb_input(byte_of(w0, 2u)) + rgb_input(byte_of(w0, 3u)), 1.0);
  out_color = vec4(color, alpha_input(byte_of(w1, 2u)));

  uint func = packet.control.w & 7u;
  uint alpha8 = to_8bit(out_color.a);
  bool pass = func == 7u || (func == 1u && alpha8 < dyn.alpha_ref) || (func == 2u && alpha8 == dyn.alpha_ref) ||
              (func == 3u && alpha8 <= dyn.alpha_ref) || (func == 4u && alpha8 > dyn.alpha_ref) ||
              (func == 5u && alpha8 != dyn.alpha_ref) || (func == 6u && alpha8 >= dyn.alpha_ref);
  if (!pass) discard;
}
)";

}  // namespace

std::string fallback_packet_declaration() {
  return "layout(set = 0, binding = 5, std140) uniform Packet {\n  uvec4 stages[8];\n  uvec4 control;\n  uvec4 texture;\n} packet;\n";
}

std::string emit_fallback_fragment(const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE]) {
  std::string out = "#version 450\n// shaderbake nv2a fallback ubershader, samplers";
  for (int t = 0; t < SBK_NV2A_TEXTURE_STAGES; ++t) out += " " + std::to_string(family_key[4 + t]);
  if (family_key[8] != 0) out += ", writes depth";
  out += "\nlayout(location = 0) in vec4 in_v0;\nlayout(location = 1) in vec4 in_v1;\nlayout(location = 2) in float in_fog;\n";
  out += "layout(location = 0) out vec4 out_color;\n";
  out += dynamic_block_glsl();
  out += fallback_packet_declaration();
  out += kRegisterFile;
  out += emit_fallback_texture_stages(family_key);
  return out + kCombinersAndMain;
}

}  // namespace shaderbake::nv2a

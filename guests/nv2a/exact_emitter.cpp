// SPDX-License-Identifier: MIT
#include "guests/nv2a/exact_emitter.hpp"

#include "guests/nv2a/exact_texture_stages.hpp"
#include "guests/nv2a/shared_glsl.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>

namespace shaderbake::nv2a {

namespace {

// Register names of the generated code by hardware code (0 = zero). Constants are resolved per stage.
const char* register_name(uint32_t code) {
  switch (code) {
    case 3: return "fog";
    case 4: return "v0";
    case 5: return "v1";
    case 8: return "t0";
    case 9: return "t1";
    case 10: return "t2";
    case 11: return "t3";
    case 12: return "r0";
    case 13: return "r1";
    case 14: return "spare_sum";
    case 15: return "ef";
    default: return "zero";
  }
}

struct StageContext {
  std::string c0, c1;  // expressions of the constants this stage reads
  bool final_combiner = false;
};

std::string register_expression(uint32_t code, const StageContext& ctx) {
  if (code == 1) return ctx.c0;
  if (code == 2) return ctx.c1;
  // Codes with no register here (6, 7; 14 and 15 outside the final combiner) read zero.
  if (code == 0 || code == 6 || code == 7 || ((code == 14 || code == 15) && !ctx.final_combiner)) return "vec4(0.0)";
  return register_name(code);
}

bool writable_destination(uint32_t dst) { return dst == 4 || dst == 5 || (dst >= 8 && dst <= 13); }

// NV_register_combiners input mappings, as GLSL over `x`.
std::string mapped(const std::string& x, uint32_t mapping) {
  switch (mapping) {
    case 0: return "max(" + x + ", 0.0)";
    case 1: return "(1.0 - clamp(" + x + ", 0.0, 1.0))";
    case 2: return "(2.0 * max(" + x + ", 0.0) - 1.0)";
    case 3: return "(-2.0 * max(" + x + ", 0.0) + 1.0)";
    case 4: return "(max(" + x + ", 0.0) - 0.5)";
    case 5: return "(-max(" + x + ", 0.0) + 0.5)";
    case 6: return x;
    default: return "(-" + x + ")";
  }
}

std::string rgb_input(uint32_t byte, const StageContext& ctx) {
  const std::string reg = register_expression(byte & 0xF, ctx);
  return mapped(reg + (((byte >> 4) & 1) ? ".aaa" : ".rgb"), byte >> 5);
}

std::string alpha_input(uint32_t byte, const StageContext& ctx) {
  const std::string reg = register_expression(byte & 0xF, ctx);
  return mapped(reg + (((byte >> 4) & 1) ? ".a" : ".b"), byte >> 5);
}

// "(x + bias) * scale" clamped once, as GLSL.
std::string finished(const std::string& x, uint32_t op) {
  std::string v;
  switch (op) {
    case 1: v = "(" + x + " - 128.0 / 255.0)"; break;
    case 2: v = "(" + x + " * 2.0)"; break;
    case 3: v = "((" + x + " - 128.0 / 255.0) * 2.0)"; break;
    case 4: v = "(" + x + " * 4.0)"; break;
    case 5: v = "((" + x + " - 128.0 / 255.0) * 4.0)"; break;  // reserved: bias, then the shift it encodes
    case 6: v = "(" + x + " * 0.5)"; break;
    case 7: v = "((" + x + " - 128.0 / 255.0) * 0.5)"; break;  // reserved: bias, then the shift it encodes
    default: v = x; break;
  }
  return "clamp(" + v + ", -1.0, 1.0)";
}

uint32_t byte_at(uint32_t word, int index) { return (word >> (24 - 8 * index)) & 0xFF; }  // 0 = A ... 3 = D

// Registers (by code) that a word of input bytes reads.
uint32_t reads_of_inputs(uint32_t word) {
  uint32_t mask = 0;
  for (int i = 0; i < 4; ++i) mask |= 1u << (byte_at(word, i) & 0xF);
  return mask;
}

uint32_t writes_of_output(uint32_t word) {
  uint32_t mask = 0;
  for (int shift : {0, 4, 8}) {
    const uint32_t dst = (word >> shift) & 0xF;
    if (writable_destination(dst)) mask |= 1u << dst;
  }
  return mask;
}

void emit_stage(std::string& out, const sbk_nv2a_program& p, uint32_t stage) {
  StageContext ctx;
  ctx.c0 = "dyn.c0[" + std::to_string(((p.combiner_control >> 12) & 1) ? stage : 0) + "]";
  ctx.c1 = "dyn.c1[" + std::to_string(((p.combiner_control >> 16) & 1) ? stage : 0) + "]";
  const uint32_t rgb_in = p.rgb_inputs[stage], rgb_out = p.rgb_outputs[stage];
  const uint32_t alpha_in = p.alpha_inputs[stage], alpha_out = p.alpha_outputs[stage];
  const bool msb_mux = (p.combiner_control >> 8) & 1;
  const bool rgb_mux = (rgb_out >> 14) & 1, alpha_mux = (alpha_out >> 14) & 1;
  const std::string s = std::to_string(stage);
  out += "  // stage " + s + "\n  {\n";
  // Every read happens before any write: the hardware delays writes to the end of the stage.
  if (rgb_mux || alpha_mux) {
    out += msb_mux ? "    bool select_cd = r0.a >= 0.5;\n"
                   : "    bool select_cd = (uint(floor(clamp(r0.a, 0.0, 1.0) * 255.0 + 0.5 + 1.0 / 4096.0)) & 1u) != 0u;\n";
  }
  // A destination that names no writable register discards (the lenient reading of invalid programs).
  auto dst = [](uint32_t word, int shift) { const uint32_t d = (word >> shift) & 0xF; return writable_destination(d) ? d : 0u; };
  const uint32_t rgb_cd = dst(rgb_out, 0), rgb_ab = dst(rgb_out, 4), rgb_sum = dst(rgb_out, 8);
  const uint32_t rgb_op = (rgb_out >> 15) & 7;
  const bool need_rgb_ab = rgb_ab || rgb_sum, need_rgb_cd = rgb_cd || rgb_sum;
  if (need_rgb_ab) {
    const std::string a = rgb_input(byte_at(rgb_in, 0), ctx), b = rgb_input(byte_at(rgb_in, 1), ctx);
    out += ((rgb_out >> 13) & 1) ? "    vec3 ab = vec3(dot(" + a + ", " + b + "));\n" : "    vec3 ab = " + a + " * " + b + ";\n";
  }
  if (need_rgb_cd) {
    const std::string c = rgb_input(byte_at(rgb_in, 2), ctx), d = rgb_input(byte_at(rgb_in, 3), ctx);
    out += ((rgb_out >> 12) & 1) ? "    vec3 cd = vec3(dot(" + c + ", " + d + "));\n" : "    vec3 cd = " + c + " * " + d + ";\n";
  }
  if (rgb_ab) out += "    vec3 ab_out = " + finished("ab", rgb_op) + ";\n";
  if (rgb_cd) out += "    vec3 cd_out = " + finished("cd", rgb_op) + ";\n";
  if (rgb_sum) out += "    vec3 sum_out = " + finished(rgb_mux ? "(select_cd ? cd : ab)" : "(ab + cd)", rgb_op) + ";\n";

  const uint32_t a_cd = dst(alpha_out, 0), a_ab = dst(alpha_out, 4), a_sum = dst(alpha_out, 8);
  const uint32_t a_op = (alpha_out >> 15) & 7;
  if (a_ab || a_sum)
    out += "    float ab_a = " + alpha_input(byte_at(alpha_in, 0), ctx) + " * " + alpha_input(byte_at(alpha_in, 1), ctx) + ";\n";
  if (a_cd || a_sum)
    out += "    float cd_a = " + alpha_input(byte_at(alpha_in, 2), ctx) + " * " + alpha_input(byte_at(alpha_in, 3), ctx) + ";\n";
  if (a_ab) out += "    float ab_a_out = " + finished("ab_a", a_op) + ";\n";
  if (a_cd) out += "    float cd_a_out = " + finished("cd_a", a_op) + ";\n";
  if (a_sum) out += "    float sum_a_out = " + finished(alpha_mux ? "(select_cd ? cd_a : ab_a)" : "(ab_a + cd_a)", a_op) + ";\n";

  // Writes: RGB portion (with blue to alpha), then the alpha portion, whose X.a write wins.
  if (rgb_cd) out += std::string("    ") + register_name(rgb_cd) + ".rgb = cd_out;\n";
  if (rgb_ab) out += std::string("    ") + register_name(rgb_ab) + ".rgb = ab_out;\n";
  if (rgb_sum) out += std::string("    ") + register_name(rgb_sum) + ".rgb = sum_out;\n";
  if (((rgb_out >> 18) & 1) && rgb_cd) out += std::string("    ") + register_name(rgb_cd) + ".a = cd_out.b;\n";
  if (((rgb_out >> 19) & 1) && rgb_ab) out += std::string("    ") + register_name(rgb_ab) + ".a = ab_out.b;\n";
  if (a_cd) out += std::string("    ") + register_name(a_cd) + ".a = cd_a_out;\n";
  if (a_ab) out += std::string("    ") + register_name(a_ab) + ".a = ab_a_out;\n";
  if (a_sum) out += std::string("    ") + register_name(a_sum) + ".a = sum_a_out;\n";
  out += "  }\n";
}

const char* compare_glsl(uint8_t func) {
  switch (func) {
    case SBK_COMPARE_NEVER: return "false";
    case SBK_COMPARE_LESS: return "alpha8 < dyn.alpha_ref";
    case SBK_COMPARE_EQUAL: return "alpha8 == dyn.alpha_ref";
    case SBK_COMPARE_LESS_OR_EQUAL: return "alpha8 <= dyn.alpha_ref";
    case SBK_COMPARE_GREATER: return "alpha8 > dyn.alpha_ref";
    case SBK_COMPARE_NOT_EQUAL: return "alpha8 != dyn.alpha_ref";
    case SBK_COMPARE_GREATER_OR_EQUAL: return "alpha8 >= dyn.alpha_ref";
    default: return "true";
  }
}

}  // namespace

Result<std::string> emit_exact_fragment(const sbk_nv2a_program& p) {
  for (uint32_t t = 0; t < SBK_NV2A_TEXTURE_STAGES; ++t) {
    if (sbk_nv2a_effective_texture_mode(&p, t) == SBK_NV2A_TEXTURE_BRDF) {
      Error e;
      e.reason = "brdf_undefined";
      e.message = "no exact shader for brdf (texture stage " + std::to_string(t) +
                  "): the sign of its delta phi is unknown on hardware, so there is nothing faithful to emit";
      return e;
    }
  }
  const uint32_t stages = std::min<uint32_t>(sbk_nv2a_stage_count(&p), SBK_NV2A_MAX_STAGES);
  const uint32_t w0 = p.final_inputs[0], w1 = p.final_inputs[1];

  // Liveness, backwards from the final combiner: a stage is emitted when it writes a register that
  // something after it reads (per register, not per channel: conservative, never wrong).
  uint32_t final_reads = reads_of_inputs(w0) | (1u << (byte_at(w1, 2) & 0xF));
  const bool uses_ef = (final_reads >> 15) & 1, uses_spare_sum = (final_reads >> 14) & 1;
  if (uses_ef) final_reads |= (1u << (byte_at(w1, 0) & 0xF)) | (1u << (byte_at(w1, 1) & 0xF));
  if (uses_spare_sum) final_reads |= (1u << 12) | (1u << 5);
  std::array<bool, SBK_NV2A_MAX_STAGES> live{};
  uint32_t live_regs = final_reads;
  for (int s = static_cast<int>(stages) - 1; s >= 0; --s) {
    const uint32_t writes = writes_of_output(p.rgb_outputs[s]) | writes_of_output(p.alpha_outputs[s]);
    if (!(writes & live_regs)) continue;
    live[s] = true;
    live_regs |= reads_of_inputs(p.rgb_inputs[s]) | reads_of_inputs(p.alpha_inputs[s]);
    if (((p.rgb_outputs[s] | p.alpha_outputs[s]) >> 14) & 1) live_regs |= 1u << 12;  // the mux reads spare0.a
  }
  // Declared registers: everything read, plus whatever an emitted stage writes.
  for (uint32_t s = 0; s < stages; ++s)
    if (live[s]) live_regs |= writes_of_output(p.rgb_outputs[s]) | writes_of_output(p.alpha_outputs[s]);

  std::string out = "#version 450\n// shaderbake nv2a exact fragment shader\n";
  out += "layout(location = 0) in vec4 in_v0;\nlayout(location = 1) in vec4 in_v1;\nlayout(location = 2) in float in_fog;\n";
  // The texture stages: t0-t3 as the combiners read them (t0 also when r0 is read: r0 starts as t0.a).
  const TextureStageCode texture_stages = emit_texture_stages(p, live_regs);
  out += texture_stages.declarations;
  out += dynamic_block_glsl();
  out += "layout(location = 0) out vec4 out_color;\n\n" + texture_stages.helpers + "\nvoid main() {\n";
  out += texture_stages.body;
  if ((live_regs >> 4) & 1) out += "  vec4 v0 = in_v0;\n";
  if ((live_regs >> 5) & 1) out += "  vec4 v1 = in_v1;\n";
  if ((live_regs >> 3) & 1) out += "  vec4 fog = vec4(dyn.fog_color.rgb, clamp(in_fog, 0.0, 1.0));\n";
  if ((live_regs >> 12) & 1) out += "  vec4 r0 = vec4(0.0, 0.0, 0.0, t0.a);\n";
  if ((live_regs >> 13) & 1) out += "  vec4 r1 = vec4(0.0);\n";
  for (uint32_t s = 0; s < stages; ++s)
    if (live[s]) emit_stage(out, p, s);

  // Final combiner, with its own constants.
  StageContext final_ctx{"dyn.final_c0", "dyn.final_c1", true};
  const uint32_t flags = w1 & 0xFF;
  if (uses_spare_sum) {
    const std::string r0 = (flags & 0x20) ? "(1.0 - max(r0.rgb, 0.0))" : "max(r0.rgb, 0.0)";
    const std::string v1 = (flags & 0x40) ? "(1.0 - max(v1.rgb, 0.0))" : "max(v1.rgb, 0.0)";
    const std::string sum = r0 + " + " + v1;
    out += "  vec4 spare_sum = vec4(" + ((flags & 0x80) ? "clamp(" + sum + ", 0.0, 1.0)" : sum) + ", 0.0);\n";
  }
  // E, F and G cannot read 14 or 15 (their own inputs): leniently, those read zero.
  const StageContext efg_ctx{"dyn.final_c0", "dyn.final_c1", false};
  if (uses_ef)
    out += "  vec4 ef = vec4(" + rgb_input(byte_at(w1, 0), efg_ctx) + " * " + rgb_input(byte_at(w1, 1), efg_ctx) + ", 0.0);\n";
  out += "  vec3 fa = " + rgb_input(byte_at(w0, 0), final_ctx) + ";\n";
  out += "  vec3 color = min(fa * " + rgb_input(byte_at(w0, 1), final_ctx) + " + (1.0 - fa) * " +
         rgb_input(byte_at(w0, 2), final_ctx) + " + " + rgb_input(byte_at(w0, 3), final_ctx) + ", 1.0);\n";
  out += "  out_color = vec4(color, " + alpha_input(byte_at(w1, 2), efg_ctx) + ");\n";
  if (p.alpha_test_enabled && p.alpha_test_func != SBK_COMPARE_ALWAYS) {
    out += "  uint alpha8 = uint(floor(clamp(out_color.a, 0.0, 1.0) * 255.0 + 0.5 + 1.0 / 4096.0));\n";
    out += std::string("  if (!(") + compare_glsl(p.alpha_test_func) + ")) discard;\n";
  }
  out += "}\n";
  return out;
}

namespace {

// A GLSL float literal of `v` (shortest round-trip digits, always with a '.' or an exponent: "1.0", "0.5").
std::string glsl_float(float v) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  std::string out(text, ec == std::errc() ? end : text);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

// vec4(x) when the four components are equal, else vec4(x, y, z, w).
std::string glsl_vec4(const std::array<float, 4>& v) {
  if (v[0] == v[1] && v[1] == v[2] && v[2] == v[3]) return "vec4(" + glsl_float(v[0]) + ")";
  return "vec4(" + glsl_float(v[0]) + ", " + glsl_float(v[1]) + ", " + glsl_float(v[2]) + ", " + glsl_float(v[3]) + ")";
}

}  // namespace

uint32_t vertex_semantic_mask(const sbk_host_state& host) {
  uint32_t mask = 0;
  for (uint32_t i = 0; i < host.attribute_count && i < SBK_MAX_VERTEX_ATTRIBUTES; ++i)
    if (host.attributes[i].location < SBK_NV2A_LOCATION_COUNT) mask |= 1u << host.attributes[i].location;
  return mask;
}

std::string emit_vertex_shader(uint32_t mask, uint32_t varyings) {
  static const char* const kNames[SBK_NV2A_LOCATION_COUNT] = {"position", "diffuse", "specular", "fog",
                                                         "texcoord0", "texcoord1", "texcoord2", "texcoord3"};
  // Varying location l carries semantic l + 1 (v0 = diffuse, v1 = specular, fog, texcoord0-3).
  static const char* const kVaryings[7] = {"vec4 out_v0", "vec4 out_v1", "float out_fog", "vec4 out_tex0",
                                           "vec4 out_tex1", "vec4 out_tex2", "vec4 out_tex3"};
  std::string out = "#version 450\n// shaderbake nv2a pass-through vertex shader\n";
  auto value = [&](uint32_t s) { return ((mask >> s) & 1) ? std::string("a_") + kNames[s] : glsl_vec4(kSemanticDefaults[s]); };
  for (uint32_t s = 0; s < SBK_NV2A_LOCATION_COUNT; ++s)
    if ((mask >> s) & 1) out += "layout(location = " + std::to_string(s) + ") in vec4 a_" + kNames[s] + ";\n";
  for (uint32_t l = 0; l < 7; ++l)
    if ((varyings >> l) & 1) out += "layout(location = " + std::to_string(l) + ") out " + kVaryings[l] + ";\n";
  out += "\nvoid main() {\n";
  out += "  gl_Position = " + value(SBK_NV2A_LOCATION_POSITION) + ";\n";
  // A point-list pipeline must write the point size (the guest's point sprites are not modelled: size 1).
  out += "  gl_PointSize = 1.0;\n";
  for (uint32_t l = 0; l < 7; ++l) {
    if (!((varyings >> l) & 1)) continue;
    const std::string name = std::string(kVaryings[l]).substr(std::string(kVaryings[l]).find(' ') + 1);
    out += "  " + name + " = " + value(l + 1) + (l == 2 ? ".x" : "") + ";\n";
  }
  out += "}\n";
  return out;
}

uint32_t fragment_varyings(const compile::Reflection& fragment) {
  uint32_t varyings = 0;
  for (const compile::Reflection::Variable& v : fragment.inputs)
    if (v.location < 7) varyings |= 1u << v.location;
  return varyings;
}

std::vector<uint32_t> attribute_locations(uint32_t varyings) {
  std::vector<uint32_t> locations;
  for (uint32_t l = 0; l < 7; ++l)
    if ((varyings >> l) & 1) locations.push_back(l + 1);  // varying l carries semantic (= location) l + 1
  return locations;
}

}  // namespace shaderbake::nv2a

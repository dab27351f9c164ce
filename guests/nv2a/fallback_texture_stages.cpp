// SPDX-License-Identifier: MIT
#include "guests/nv2a/fallback_texture_stages.hpp"

#include <vector>

#include "guests/nv2a/program_json.hpp"
#include "guests/nv2a/shared_glsl.hpp"

namespace shaderbake::nv2a {

namespace {

// The dot mappings admission lets through, dispatched at run time.
constexpr uint32_t kMappings[] = {0, 1, 2, 3, 4, 7};

// The helpers every stage's code calls. A texture word (sbk_nv2a_encode_packet): bits 0-4 the mode, 5-8
// the dot mapping, 9-12 the input stage, 13-16 the clip nibble, 17 alpha kill, 18-19 the colour-key mode,
// 20-23 the signed mask, 24 XRGB.
std::string helpers() {
  std::string h = texel_bytes_glsl();
  for (uint32_t m : kMappings) h += dot_mapping_glsl(m);
  h += "vec3 sbk_map(uint mapping, uint t) {\n  switch (mapping) {\n";
  for (uint32_t m : kMappings)
    h += "    case " + std::to_string(m) + "u: return sbk_map" + std::to_string(m) + "(t);\n";
  h += "    default: return vec3(0.0);\n  }\n}\n";
  h += depth_z16_glsl();
  h += bump_luminance_glsl();
  h += R"(// Stage i's texel and dot product, kept for the stages after it.
uint texels[4] = uint[4](0u, 0u, 0u, 0u);
float dots[4] = float[4](0.0, 0.0, 0.0, 0.0);

// dot_i = (s, t, r) . the mapping of the input stage's texel (word: that stage's texture word).
float sbk_dot(uint word, vec4 coords) { return dot(coords.xyz, sbk_map((word >> 5u) & 15u, texels[(word >> 9u) & 3u])); }

// Discards when a coordinate k is < 0 with bit k of the nibble clear, or >= 0 with it set.
bool sbk_clipped(vec4 c, uint nibble) {
  bvec4 ge = notEqual((uvec4(nibble) >> uvec4(0u, 1u, 2u, 3u)) & 1u, uvec4(0u));
  return any(mix(lessThan(c, vec4(0.0)), greaterThanEqual(c, vec4(0.0)), ge));
}

// A fetched texel through its stage's controls: XRGB reads alpha 0xFF, alpha kill, then the colour key.
uint sbk_controlled(uint texel, uint word, uint key) {
  bool xrgb = ((word >> 24u) & 1u) != 0u;
  if (xrgb) texel |= 0xFF000000u;
  if (((word >> 17u) & 1u) != 0u && (texel >> 24u) == 0u) discard;
  uint mask = xrgb ? 0x00FFFFFFu : 0xFFFFFFFFu;
  uint key_mode = (word >> 18u) & 3u;
  if (key_mode != 0u && (texel & mask) == (key & mask)) {
    if (key_mode == 1u) texel &= 0x00FFFFFFu;
    else if (key_mode == 2u) texel = 0u;
    else discard;
  }
  return texel;
}

// T of a texel: each channel x/255, or 2*int8(x)/255 where the signed mask (A 1, R 2, G 4, B 8) flags it.
vec4 sbk_register(uint texel, uint sign) {
  uvec4 bytes = (uvec4(texel) >> uvec4(16u, 8u, 0u, 24u)) & 255u;
  vec4 unsigned_value = vec4(bytes) / 255.0;
  vec4 signed_value = 2.0 * vec4(ivec4(bytes << 24u) >> 24) / 255.0;
  return mix(unsigned_value, signed_value, notEqual(uvec4(sign) & uvec4(2u, 4u, 8u, 1u), uvec4(0u)));
}
)";
  return h;
}

// The coordinate statement of a fetching mode (`coord` of the stage's sampler type), or of a mode that
// fetches nothing, its whole effect. `i`: the stage, `n` its digit.
std::string mode_code(uint8_t mode, uint32_t i) {
  const std::string n = std::to_string(i), prev = std::to_string(i == 0 ? 0 : i - 1);
  switch (mode) {
    case SBK_NV2A_TEXTURE_PROJECT2D: return "coord = tc.xy / tc.w;";
    case SBK_NV2A_TEXTURE_PROJECT3D: return "coord = tc.xyz / tc.w;";
    case SBK_NV2A_TEXTURE_CUBE: return "coord = tc.xyz;";
    case SBK_NV2A_TEXTURE_PASSTHRU: return "regs[" + std::to_string(8 + i) + "] = clamp(tc, 0.0, 1.0);";
    case SBK_NV2A_TEXTURE_CLIPPLANE: return "if (sbk_clipped(tc, (word >> 13u) & 15u)) discard;";
    case SBK_NV2A_TEXTURE_BUMPENVMAP:
    case SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE:
      return "float du = sbk_s8(source) / 128.0, dv = sbk_s8(source >> 8) / 128.0;\n"
             "        vec4 w = dyn.bump_env_matrix[" + n + "];\n"
             "        coord = vec2(tc.x + w.x * du + w.w * dv, tc.y + w.y * du + w.z * dv);";
    case SBK_NV2A_TEXTURE_DOT_PRODUCT: return "dots[" + n + "] = sbk_dot(word, tc);";
    case SBK_NV2A_TEXTURE_DOT_ST: return "dots[" + n + "] = sbk_dot(word, tc);\n        coord = vec2(dots[" + prev + "], dots[" + n + "]);";
    case SBK_NV2A_TEXTURE_DOT_ZW:
      return "dots[" + n + "] = sbk_dot(word, tc);\n        gl_FragDepth = sbk_depth_z16(floor(dots[" + prev + "] / dots[" + n + "]));";
    case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF:
      // N's third component from stage 3's coordinates, source and mapping (stage 3 runs a reflect mode).
      return "dots[" + n + "] = sbk_dot(word, tc);\n        dots[3] = sbk_dot(packet.texture[3], in_tex3);\n"
             "        coord = vec3(dots[1], dots[2], dots[3]);";
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
    case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST: {
      const std::string eye = mode == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC ? "vec3(in_tex1.w, in_tex2.w, in_tex3.w)" : "dyn.eye_vector.xyz";
      return "dots[" + n + "] = sbk_dot(word, tc);\n        vec3 normal = vec3(dots[1], dots[2], dots[3]), eye = " + eye +
             ";\n        float nn = dot(normal, normal);\n"
             "        coord = (nn > 0.0 ? 2.0 * dot(normal, eye) / nn : 0.0) * normal - eye;";
    }
    case SBK_NV2A_TEXTURE_DOT_STR_3D:
    case SBK_NV2A_TEXTURE_DOT_STR_CUBE: return "dots[" + n + "] = sbk_dot(word, tc);\n        coord = vec3(dots[1], dots[2], dots[3]);";
    case SBK_NV2A_TEXTURE_DEPENDENT_AR: return "coord = vec2(float(source >> 24), float((source >> 16) & 255u)) / 255.0;";
    case SBK_NV2A_TEXTURE_DEPENDENT_GB: return "coord = vec2(float((source >> 8) & 255u), float(source & 255u)) / 255.0;";
    default: return "";
  }
}

// The code of texture stage i: the modes its sampler allows, one branch each, then (for a sampler) the
// one fetch all of them share.
std::string stage_code(uint32_t i, sbk_sampler_dim dim, bool writes_depth) {
  std::vector<uint8_t> modes;
  bool reads_source = false;
  for (uint8_t m = 0; m < SBK_NV2A_TEXTURE_MODE_COUNT; ++m) {
    if (!sbk_nv2a_mode_legal_in_stage(m, i) || sbk_nv2a_sampler_dim(m) != dim) continue;
    if (m == SBK_NV2A_TEXTURE_NONE || m == SBK_NV2A_TEXTURE_BRDF) continue;  // nothing to do; never admitted
    if (m == SBK_NV2A_TEXTURE_DOT_ZW && !writes_depth) continue;             // only a depth family runs it
    modes.push_back(m);
    reads_source = reads_source || sbk_nv2a_mode_reads_input(m);
  }
  const std::string n = std::to_string(i), reg = "regs[" + std::to_string(8 + i) + "]";
  std::string out = "  // texture stage " + n + "\n  {\n    uint word = packet.texture[" + n + "];\n    uint mode = word & 31u;\n";
  out += "    vec4 tc = in_tex" + n + ";\n    " + reg + " = vec4(0.0, 0.0, 0.0, 1.0);\n";
  if (reads_source) out += "    uint source = texels[(word >> 9u) & 3u];\n";
  if (dim == SBK_SAMPLER_2D) out += "    vec2 coord;\n";
  else if (dim != SBK_SAMPLER_NONE) out += "    vec3 coord;\n";
  out += "    switch (mode) {\n";
  for (uint8_t m : modes)
    out += "      case " + std::to_string(m) + "u: {  // " + std::string(texture_mode_name(m).value_or("reserved")) + "\n        " + mode_code(m, i) + "\n        break;\n      }\n";
  out += "      default: break;\n    }\n";
  if (dim != SBK_SAMPLER_NONE) {
    // Every mode of a sampling stage fetches: the family's sampler says the stage has one of those modes.
    out += "    uint texel = sbk_controlled(sbk_texel(texture(tex" + n + ", coord)), word, dyn.color_keys[" + n + "]);\n";
    if (i > 0 && dim == SBK_SAMPLER_2D)
      out += "    if (mode == " + std::to_string(SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE) +
             "u) texel = sbk_bump_luminance(texel, source, dyn.bump_env_scale[" + n + "], dyn.bump_env_offset[" + n + "]);\n";
    out += "    texels[" + n + "] = texel;\n    " + reg + " = sbk_register(texel, (word >> 20u) & 15u);\n";
  }
  out += "  }\n";
  return out;
}

}  // namespace

std::string emit_fallback_texture_stages(const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE]) {
  const bool writes_depth = family_key[8] != 0;
  std::string declarations, body;
  for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    const std::string n = std::to_string(i);
    declarations += "layout(location = " + std::to_string(3 + i) + ") in vec4 in_tex" + n + ";\n";
    const auto dim = static_cast<sbk_sampler_dim>(family_key[4 + i]);
    if (dim != SBK_SAMPLER_NONE)
      declarations += "layout(set = 0, binding = " + n + ") uniform " +
                      (dim == SBK_SAMPLER_2D ? "sampler2D" : dim == SBK_SAMPLER_3D ? "sampler3D" : "samplerCube") + " tex" + n + ";\n";
    body += stage_code(i, dim, writes_depth);
  }
  std::string out = declarations + helpers() + "void run_texture_stages() {\n";
  // The depth every path writes: the dot_zw stage replaces it.
  if (writes_depth) out += "  gl_FragDepth = gl_FragCoord.z;\n";
  return out + body + "}\n";
}

}  // namespace shaderbake::nv2a

// SPDX-License-Identifier: MIT
#include "guests/nv2a/exact_texture_stages.hpp"

#include "guests/nv2a/shared_glsl.hpp"

#include <array>
#include <set>

namespace shaderbake::nv2a {

namespace {

constexpr uint32_t kStages = SBK_NV2A_TEXTURE_STAGES;

bool reflects(uint8_t mode) {
  return mode == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC || mode == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST;
}

}  // namespace

TextureStageCode emit_texture_stages(const sbk_nv2a_program& p, uint32_t live_registers) {
  std::array<uint8_t, kStages> mode{};
  for (uint32_t i = 0; i < kStages; ++i) {
    mode[i] = sbk_nv2a_effective_texture_mode(&p, i);
    if (mode[i] >= SBK_NV2A_TEXTURE_MODE_COUNT) mode[i] = SBK_NV2A_TEXTURE_NONE;  // reserved codes read as none
  }
  // Which stages to emit, and which must keep their texel as bytes (a later stage reads them, or a control
  // reads them).
  std::array<bool, kStages> needed{}, t_live{}, source{};
  for (uint32_t i = 0; i < kStages; ++i) {
    t_live[i] = ((live_registers >> (8 + i)) & 1u) || (i == 0 && ((live_registers >> 12) & 1u));
    const bool effect = mode[i] == SBK_NV2A_TEXTURE_CLIPPLANE || mode[i] == SBK_NV2A_TEXTURE_DOT_ZW ||
                        (sbk_nv2a_texel_controls(&p, i) & 0x07u) != 0;  // alpha kill or a colour key
    needed[i] = mode[i] != SBK_NV2A_TEXTURE_NONE && (t_live[i] || effect);
  }
  for (int i = kStages - 1; i >= 0; --i) {
    if (!needed[i]) continue;
    auto need = [&](uint32_t s) { needed[s] = true; };
    if (sbk_nv2a_mode_reads_input(mode[i])) {
      const uint32_t in = sbk_nv2a_input_stage(&p, static_cast<uint32_t>(i));
      if (in < static_cast<uint32_t>(i)) {
        need(in);
        source[in] = true;
      }
    }
    if (mode[i] == SBK_NV2A_TEXTURE_DOT_ST || mode[i] == SBK_NV2A_TEXTURE_DOT_ZW) need(static_cast<uint32_t>(i) - 1);
    if (mode[i] == SBK_NV2A_TEXTURE_DOT_STR_3D || mode[i] == SBK_NV2A_TEXTURE_DOT_STR_CUBE || reflects(mode[i]) ||
        mode[i] == SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF) {
      need(1);
      need(2);
    }
    if (mode[i] == SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF) {  // N's third component: stage 3's coordinates and source
      const uint32_t in3 = sbk_nv2a_input_stage(&p, 3);
      if (in3 < 2) {
        need(in3);
        source[in3] = true;
      }
    }
  }

  TextureStageCode code;
  std::set<uint32_t> mappings;
  std::array<bool, kStages> coords{}, texel_defined{}, dot_defined{}, t_defined{};
  bool bytes_helpers = false, depth_helper = false, luminance_helper = false;
  std::string& b = code.body;
  // A program the model refuses still gets a shader (read leniently): a texel or dot product it names that no
  // stage made reads as zero.
  auto texel_ref = [&](uint32_t k) { return k < kStages && texel_defined[k] ? "texel" + std::to_string(k) : std::string("0u"); };
  auto dot_ref = [&](uint32_t k) { return dot_defined[k] ? "dot" + std::to_string(k) : std::string("0.0"); };
  for (uint32_t i = 0; i < kStages; ++i) {
    if (!needed[i]) continue;
    const std::string n = std::to_string(i);
    const uint32_t controls = sbk_nv2a_texel_controls(&p, i);
    const std::string tex = "tex" + n, tc = "in_tex" + n, texel = "texel" + n;
    const uint32_t in = sbk_nv2a_input_stage(&p, i);
    const std::string src = in < i ? texel_ref(in) : std::string("0u");
    auto dot_of = [&](uint32_t stage) {
      const uint32_t m = sbk_nv2a_dot_mapping(&p, stage), stage_in = sbk_nv2a_input_stage(&p, stage);
      const uint32_t mapping = (m == 5 || m == 6 || m > 7) ? 0 : m;  // refused mappings read as zero_to_one
      mappings.insert(mapping);
      coords[stage] = true;
      dot_defined[stage] = true;
      return "dot(in_tex" + std::to_string(stage) + ".xyz, sbk_map" + std::to_string(mapping) + "(" +
             (stage_in < i || (stage == 3 && stage_in < 2) ? texel_ref(stage_in) : std::string("0u")) + "))";
    };
    const bool plain_fetch = (mode[i] == SBK_NV2A_TEXTURE_PROJECT2D || mode[i] == SBK_NV2A_TEXTURE_PROJECT3D ||
                              mode[i] == SBK_NV2A_TEXTURE_CUBE) &&
                             controls == 0 && !source[i];
    std::string fetched;  // the sampled vec4 of a mode that fetches
    switch (mode[i]) {
      case SBK_NV2A_TEXTURE_PROJECT2D:
        coords[i] = true;
        fetched = "textureProj(" + tex + ", " + tc + ".xyw)";
        break;
      case SBK_NV2A_TEXTURE_PROJECT3D:
        coords[i] = true;
        fetched = "textureProj(" + tex + ", " + tc + ")";
        break;
      case SBK_NV2A_TEXTURE_CUBE:
        coords[i] = true;
        fetched = "texture(" + tex + ", " + tc + ".xyz)";
        break;
      case SBK_NV2A_TEXTURE_PASSTHRU:  // no divide; clamped to [0, 1]
        coords[i] = true;
        if (t_live[i]) b += "  vec4 t" + n + " = clamp(" + tc + ", 0.0, 1.0);\n";
        t_defined[i] = t_live[i];
        continue;
      case SBK_NV2A_TEXTURE_CLIPPLANE: {
        coords[i] = true;
        const uint32_t nibble = (p.clip_plane_mode >> (4 * i)) & 0xFu;
        std::string test;
        for (uint32_t k = 0; k < 4; ++k)
          test += std::string(k ? " || " : "") + tc + "." + "xyzw"[k] + (((nibble >> k) & 1u) ? " >= 0.0" : " < 0.0");
        b += "  if (" + test + ") discard;\n";
        continue;
      }
      case SBK_NV2A_TEXTURE_BUMPENVMAP:
      case SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE:
        coords[i] = true;
        b += "  float du" + n + " = sbk_s8(" + src + ") / 128.0, dv" + n + " = sbk_s8(" + src + " >> 8) / 128.0;\n";
        b += "  vec4 w" + n + " = dyn.bump_env_matrix[" + n + "];\n";
        fetched = "texture(" + tex + ", vec2(" + tc + ".x + w" + n + ".x * du" + n + " + w" + n + ".w * dv" + n + ", " + tc +
                  ".y + w" + n + ".y * du" + n + " + w" + n + ".z * dv" + n + "))";
        break;
      case SBK_NV2A_TEXTURE_DOT_PRODUCT:
        b += "  float dot" + n + " = " + dot_of(i) + ";\n";
        continue;
      case SBK_NV2A_TEXTURE_DOT_ST:
        b += "  float dot" + n + " = " + dot_of(i) + ";\n";
        fetched = "texture(" + tex + ", vec2(" + dot_ref(i - 1) + ", dot" + n + "))";
        break;
      case SBK_NV2A_TEXTURE_DOT_ZW:
        // Depth in Z16 units, floor(dot_{i-1} / dot_i), kept within 0..65535 (a NaN quotient writes 0).
        b += "  float dot" + n + " = " + dot_of(i) + ";\n";
        b += "  gl_FragDepth = sbk_depth_z16(floor(" + dot_ref(i - 1) + " / dot" + n + "));\n";
        depth_helper = true;
        continue;
      case SBK_NV2A_TEXTURE_DOT_RFLCT_DIFF:
        b += "  float dot" + n + " = " + dot_of(i) + ";\n";
        b += "  float dot3 = " + dot_of(3) + ";\n";
        fetched = "texture(" + tex + ", vec3(" + dot_ref(1) + ", dot2, dot3))";
        break;
      case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC:
      case SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC_CONST: {
        if (!dot_defined[3]) b += "  float dot" + n + " = " + dot_of(i) + ";\n";
        const bool from_q = mode[i] == SBK_NV2A_TEXTURE_DOT_RFLCT_SPEC;
        if (from_q) coords[1] = coords[2] = coords[3] = true;
        b += "  vec3 n" + n + " = vec3(" + dot_ref(1) + ", " + dot_ref(2) + ", dot3);\n";
        b += "  vec3 e" + n + " = " + (from_q ? std::string("vec3(in_tex1.w, in_tex2.w, in_tex3.w)") : "dyn.eye_vector.xyz") + ";\n";
        b += "  float nn" + n + " = dot(n" + n + ", n" + n + ");\n";
        b += "  float k" + n + " = nn" + n + " > 0.0 ? 2.0 * dot(n" + n + ", e" + n + ") / nn" + n + " : 0.0;\n";
        fetched = "texture(" + tex + ", k" + n + " * n" + n + " - e" + n + ")";
        break;
      }
      case SBK_NV2A_TEXTURE_DOT_STR_3D:
      case SBK_NV2A_TEXTURE_DOT_STR_CUBE:
        b += "  float dot" + n + " = " + dot_of(i) + ";\n";
        fetched = "texture(" + tex + ", vec3(" + dot_ref(1) + ", " + dot_ref(2) + ", dot3))";
        break;
      case SBK_NV2A_TEXTURE_DEPENDENT_AR:
        fetched = "texture(" + tex + ", vec2(float(" + src + " >> 24), float((" + src + " >> 16) & 0xFFu)) / 255.0)";
        break;
      case SBK_NV2A_TEXTURE_DEPENDENT_GB:
        fetched = "texture(" + tex + ", vec2(float((" + src + " >> 8) & 0xFFu), float(" + src + " & 0xFFu)) / 255.0)";
        break;
      default:  // brdf is refused before a shader is wanted; read as none
        continue;
    }
    {
      const sbk_sampler_dim dim = sbk_nv2a_sampler_dim(mode[i]);
      code.declarations += "layout(set = 0, binding = " + n + ") uniform " +
                           (dim == SBK_SAMPLER_2D ? "sampler2D" : dim == SBK_SAMPLER_3D ? "sampler3D" : "samplerCube") + " " +
                           tex + ";\n";
    }
    if (plain_fetch) {
      if (t_live[i]) b += "  vec4 t" + n + " = " + fetched + ";\n";
      t_defined[i] = t_live[i];
      continue;
    }
    // The texel as bytes, through the stage's controls, then (bumpenvmap_luminance) scaled.
    bytes_helpers = true;
    texel_defined[i] = true;
    b += "  uint " + texel + " = sbk_texel(" + fetched + ");\n";
    if (controls & 0x80u) b += "  " + texel + " |= 0xFF000000u;\n";
    if (controls & 1u) b += "  if ((" + texel + " >> 24) == 0u) discard;\n";
    if (const uint32_t key = (controls >> 1) & 3u) {
      const std::string mask = (controls & 0x80u) ? "0x00FFFFFFu" : "0xFFFFFFFFu";
      const std::string action = key == SBK_NV2A_COLOR_KEY_KILL_ALPHA   ? texel + " &= 0x00FFFFFFu;"
                                 : key == SBK_NV2A_COLOR_KEY_KILL_COLOR ? texel + " = 0u;"
                                                                        : std::string("discard;");
      b += "  if ((" + texel + " & " + mask + ") == (dyn.color_keys[" + n + "] & " + mask + ")) " + action + "\n";
    }
    if (mode[i] == SBK_NV2A_TEXTURE_BUMPENVMAP_LUMINANCE) {
      b += "  " + texel + " = sbk_bump_luminance(" + texel + ", " + src + ", dyn.bump_env_scale[" + n + "], dyn.bump_env_offset[" +
           n + "]);\n";
      luminance_helper = true;
    }
    if (t_live[i]) {
      const uint32_t sign = (controls >> 3) & 0xFu;
      auto channel = [&](uint32_t shift, uint32_t flag) {
        return (sign & flag) ? "2.0 * sbk_s8(" + texel + " >> " + std::to_string(shift) + ") / 255.0"
                             : "float((" + texel + " >> " + std::to_string(shift) + ") & 0xFFu) / 255.0";
      };
      b += "  vec4 t" + n + " = vec4(" + channel(16, SBK_NV2A_SIGNED_R) + ", " + channel(8, SBK_NV2A_SIGNED_G) + ", " +
           channel(0, SBK_NV2A_SIGNED_B) + ", " + channel(24, SBK_NV2A_SIGNED_A) + ");\n";
      t_defined[i] = true;
    }
  }
  // A register the combiners read whose stage gives no T: none, disabled (0, 0, 0, 1), or one the model
  // refuses to read (clipplane, dot_product, dot_zw), read as the same.
  for (uint32_t i = 0; i < kStages; ++i)
    if (t_live[i] && !t_defined[i]) b += "  vec4 t" + std::to_string(i) + " = vec4(0.0, 0.0, 0.0, 1.0);\n";
  for (uint32_t i = 0; i < kStages; ++i)
    if (coords[i]) code.declarations += "layout(location = " + std::to_string(3 + i) + ") in vec4 in_tex" + std::to_string(i) + ";\n";
  if (bytes_helpers || !mappings.empty()) code.helpers += texel_bytes_glsl();
  for (uint32_t m : mappings) code.helpers += dot_mapping_glsl(m);
  if (depth_helper) code.helpers += depth_z16_glsl();
  if (luminance_helper) code.helpers += bump_luminance_glsl();
  return code;
}

}  // namespace shaderbake::nv2a

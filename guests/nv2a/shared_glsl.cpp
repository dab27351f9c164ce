// SPDX-License-Identifier: MIT
#include "guests/nv2a/shared_glsl.hpp"

namespace shaderbake::nv2a {

const char* dynamic_block_glsl() {
  return "layout(set = 0, binding = 4, std140) uniform Dynamic {\n"
         "  vec4 c0[8];\n  vec4 c1[8];\n  vec4 final_c0;\n  vec4 final_c1;\n  vec4 fog_color;\n  uint alpha_ref;\n"
         "  vec4 bump_env_matrix[4];\n  vec4 bump_env_scale;\n  vec4 bump_env_offset;\n  uvec4 color_keys;\n"
         "  vec4 eye_vector;\n} dyn;\n";
}

const char* texel_bytes_glsl() {
  return "// A sampled RGBA8 texel as its bytes 0xAARRGGBB, and the low byte of x as a signed 8-bit value.\n"
         "uint sbk_texel(vec4 c) {\n  uvec4 b = uvec4(clamp(c, 0.0, 1.0) * 255.0 + 0.5);\n"
         "  return (b.a << 24) | (b.r << 16) | (b.g << 8) | b.b;\n}\n"
         "float sbk_s8(uint x) { return float(int(x << 24) >> 24); }\n";
}

std::string dot_mapping_glsl(uint32_t mapping) {
  const std::string rgb = "vec3(float((t >> 16) & 0xFFu), float((t >> 8) & 0xFFu), float(t & 0xFFu))";
  const std::string srgb = "vec3(sbk_s8(t >> 16), sbk_s8(t >> 8), sbk_s8(t))";
  std::string body;
  switch (mapping) {
    case 1: body = "return (" + rgb + " - 128.0) / 127.0;"; break;
    case 2: body = "return (" + srgb + " + 0.5) / 127.5;"; break;
    case 3: body = "return " + srgb + " / 127.0;"; break;
    case 4: body = "return vec3(float(t >> 16) / 65535.0, float(t & 0xFFFFu) / 65535.0, 1.0);"; break;
    case 7:
      body = "float h = float(int(t) >> 16) / 32767.0, l = float(int(t << 16) >> 16) / 32767.0; "
             "return vec3(h, l, sqrt(max(0.0, 1.0 - h * h - l * l)));";
      break;
    default: body = "return " + rgb + " / 255.0;"; break;
  }
  return "vec3 sbk_map" + std::to_string(mapping) + "(uint t) { " + body + " }\n";
}

const char* depth_z16_glsl() {
  return "float sbk_depth_z16(float z) { return (isnan(z) ? 0.0 : clamp(z, 0.0, 65535.0)) / 65535.0; }\n";
}

const char* bump_luminance_glsl() {
  return "uint sbk_bump_luminance(uint texel, uint source, float scale, float offset) {\n"
         "  float f = scale * float((source >> 16) & 0xFFu) / 255.0 + offset;\n"
         "  uvec3 l = uvec3(clamp(floor(vec3(float((texel >> 16) & 0xFFu), float((texel >> 8) & 0xFFu),"
         " float(texel & 0xFFu)) * f), 0.0, 255.0));\n"
         "  return (texel & 0xFF000000u) | (l.r << 16) | (l.g << 8) | l.b;\n}\n";
}

}  // namespace shaderbake::nv2a

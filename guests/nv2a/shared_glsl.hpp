// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

namespace shaderbake::nv2a {

// GLSL both emitters write the same way, so the exact route and the ubershader cannot drift apart.

// The dynamic block of the layout contract (binding SBK_NV2A_BINDING_DYNAMIC, as sbk_nv2a_pack_dynamic packs it),
// named `dyn`.
const char* dynamic_block_glsl();

// sbk_texel(vec4) -> uint: a sampled RGBA8 texel as its bytes 0xAARRGGBB; sbk_s8(uint) -> float: the low byte
// as a signed 8-bit value.
const char* texel_bytes_glsl();

// sbk_mapN(uint texel) -> vec3: the dot mapping N (0-4 or 7) of a source texel's bytes; any other N gives
// mapping 0's function under its own name.
std::string dot_mapping_glsl(uint32_t mapping);

// sbk_depth_z16(float quotient) -> float: the depth a dot_zw stage writes for floor(dot_{i-1} / dot_i) in Z16
// units, kept within 0..65535 (NaN writes 0), as a [0, 1] depth value.
const char* depth_z16_glsl();

// sbk_bump_luminance(uint texel, uint source, float scale, float offset) -> uint: bumpenvmap_luminance's
// scaling of a texel's colour bytes by scale * source.R / 255 + offset (alpha unchanged).
const char* bump_luminance_glsl();

}  // namespace shaderbake::nv2a

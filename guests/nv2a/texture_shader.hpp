// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// A texture bound to one stage, texel by texel: each texel a 0xAARRGGBB of its raw bytes (the program's signed
// flags say which channels are two's complement). 2D: width x height, row-major, row 0 first; 3D: depth slices
// of that; cube: six faces of width x width (+X, -X, +Y, -Y, +Z, -Z, Vulkan's order). A 1x1 texture serves a
// sampler of any dimensionality.
struct TextureImage {
  enum class Kind { image_2d, image_3d, cube };
  Kind kind = Kind::image_2d;
  uint32_t width = 1, height = 1, depth = 1;
  std::vector<uint32_t> texels{0u};

  static TextureImage flat(uint32_t colour) { return TextureImage{Kind::image_2d, 1, 1, 1, {colour}}; }
  bool is_flat() const { return width == 1 && height == 1 && depth == 1 && kind != Kind::cube; }
};

// What the texture stages of one pixel read: a texture per stage, flat texture coordinates (s, t, r, q) per
// stage, and the dynamic values (bump-env, colour keys, eye vector).
struct TextureInputs {
  std::array<TextureImage, SBK_NV2A_TEXTURE_STAGES> textures;
  std::array<std::array<float, 4>, SBK_NV2A_TEXTURE_STAGES> texcoords{{{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}};
};

// What the texture shader hands on: T0-T3 as the combiners read them (RGBA floats; signed channels already
// 2*int8/255), whether a stage discarded the fragment (clip plane, alpha kill, colour key), and the depth a
// dot_zw stage writes (Z16 units).
struct TextureShaderOutput {
  std::array<std::array<float, 4>, SBK_NV2A_TEXTURE_STAGES> t{};
  bool discarded = false;
  std::optional<uint16_t> depth_z16;
};

// Evaluates the texture stages of a program sbk_nv2a_check_program accepts (guests/nv2a/README.md, Texture
// shader, gives every rule and the choices where hardware is unknown). Sampling is point sampling with
// clamp-to-edge on normalised coordinates; cube lookups select faces as Vulkan does. Errors: a texture whose
// shape does not fit its stage's sampler (a 2D image for a cube stage), naming the stage.
Result<TextureShaderOutput> run_texture_shader(const sbk_nv2a_program& program, const sbk_nv2a_dynamic& dynamic,
                                               const TextureInputs& inputs);

}  // namespace shaderbake::nv2a

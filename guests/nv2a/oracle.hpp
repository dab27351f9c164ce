// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "guests/nv2a/texture_shader.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// What one pixel of an nv2a draw receives: flat inputs as the hardware gets them (8-bit colours,
// 0xAARRGGBB), each texture stage sampling a 1x1 texture of the given colour unless it has an image.
struct PixelInputs {
  uint32_t v0 = 0;  // diffuse
  uint32_t v1 = 0;  // specular
  std::array<uint32_t, SBK_NV2A_TEXTURE_STAGES> textures{};
  std::array<std::optional<TextureImage>, SBK_NV2A_TEXTURE_STAGES> images;  // replaces textures[i] when set
  std::array<std::array<float, 4>, SBK_NV2A_TEXTURE_STAGES> texcoords{{{0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}}};
  float fog_factor = 1.0f;
  sbk_nv2a_dynamic dynamic{};  // constants, fog colour, alpha reference, bump-env, colour keys, eye vector
};

struct PixelOutput {
  std::array<uint8_t, 4> rgba{};   // RGBA8 as stored in an R8G8B8A8_UNORM target
  std::array<float, 4> value{};    // before quantisation
  bool discarded = false;          // a texture stage or the alpha test discarded the fragment
  std::optional<uint16_t> depth_z16;  // the depth a dot_zw stage writes (Z16 units)
};

// The CPU reference evaluator of the nv2a register combiners (guests/nv2a/README.md; choices where the spec is
// silent are listed in guests/nv2a/README.md). It is the judge of both emitters. It computes in 32-bit
// float like the shaders it judges, and quantises only the final output (round to nearest, ties away).
// Programs that sbk_nv2a_check_program refuses have no defined behaviour: the error names the reason.
Result<PixelOutput> evaluate(const sbk_nv2a_program& program, const PixelInputs& inputs);

// The fog factor as the combiners see it: the hardware fog unit delivers [0, 1], so values outside are
// clamped and NaN reads as 0 (+inf as 1, -inf as 0). Every route feeds the shader this value; the shaders
// clamp again, so a renderer that forgets still gets [0, 1] for every finite input.
float canonical_fog_factor(float fog_factor);

}  // namespace shaderbake::nv2a

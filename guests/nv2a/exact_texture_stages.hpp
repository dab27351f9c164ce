// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// The texture-shader part of an exact fragment shader (guests/nv2a/README.md, Texture shader): GLSL that
// defines t0-t3 as the combiners read them, discards where a stage discards and writes gl_FragDepth for
// dot_zw. Only the stages that matter are emitted: those whose T a live register reads (`live_registers`:
// bit per register code, r0 counting as a read of t0.a), those with an effect of their own (a clip plane,
// alpha kill, a colour key, dot_zw) and the stages those read from. A stage that only fetches (project2d,
// project3d, cube with no texel controls, read by no other stage) is a plain `textureProj`/`texture`; the
// others keep their texel as bytes (0xAARRGGBB) through the stage's controls. Total, like the exact emitter:
// a refused program reads what it names leniently (a missing texel or dot product as zero).
struct TextureStageCode {
  std::string declarations;  // inputs (in_texN at location 3 + N) and samplers (texN at binding N)
  std::string helpers;       // functions the body calls
  std::string body;          // statements at the top of main()
};

TextureStageCode emit_texture_stages(const sbk_nv2a_program& program, uint32_t live_registers);

}  // namespace shaderbake::nv2a

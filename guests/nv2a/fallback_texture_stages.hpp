// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// The texture-shader part of a family's ubershader (guests/nv2a/README.md, Texture shader): GLSL defining
// `void run_texture_stages()`, which sets regs[8 + i] to T_i from the packet's texture words (binding
// SBK_NV2A_BINDING_PACKET, `packet.texture`), discards where a stage discards and, in a family that writes
// depth, writes gl_FragDepth. The family key fixes each stage's sampler, and so the few modes the stage can
// run: only those legal in that stage with that sampler are emitted, selected at run time by the packet.
// Expects `regs`, `dyn` and `packet` declared before it; declares the samplers and the texture coordinate
// inputs (every stage's, at location 3 + i: the reflect modes read the q of stages 1-3).
std::string emit_fallback_texture_stages(const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE]);

}  // namespace shaderbake::nv2a

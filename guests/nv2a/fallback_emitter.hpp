// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// Version of the fallback emitter's output: part of every compiled artifact's identity.
inline constexpr int kFallbackEmitterVersion = 2;

// Emits the ubershader of a fallback family: one GLSL 450 fragment shader that evaluates ANY admitted
// program from the packet (uniform buffer at SBK_NV2A_BINDING_PACKET, see sbk_nv2a_encode_packet), with
// the same layout contract as the exact route plus that one binding. The family key fixes the sampler bound
// to each texture stage and whether depth is written; the texture stages branch on the packet's modes
// (fallback_texture_stages), the general stages run in a loop over the packet (one code path, so the register
// pressure is that of one stage), the register file is an array indexed by hardware code.
std::string emit_fallback_fragment(const uint8_t family_key[SBK_NV2A_FAMILY_KEY_SIZE]);

// The GLSL that reads the packet block, shared with the packet round-trip test shader so that the
// decoding tested is the decoding shipped.
std::string fallback_packet_declaration();

}  // namespace shaderbake::nv2a

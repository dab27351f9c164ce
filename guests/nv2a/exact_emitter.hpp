// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/compile/spirv_module.hpp"
#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::nv2a {

// Version of the exact emitter's output: part of every compiled artifact's identity.
inline constexpr int kExactEmitterVersion = 3;

// Emits the exact fragment shader of `program`: straight-line GLSL 450 that evaluates exactly this program
// (the layout contract of runtime_loader/shaderbake_nv2a.h: textures at bindings 0-3, the dynamic block at binding
// 4, inputs v0/v1/fog/texcoords at locations 0-6). Stages whose results nothing reads are left out, and
// only the registers a program touches are declared, so programs that behave alike share source text.
// Every program gets an exact shader, admitted or not (a rejected program stays on its exact route, as
// an emulator would run it): the encodings sbk_nv2a_check_program refuses are read leniently, the way
// the hardware's fields decode — registers with no meaning in a slot (6, 7; 14/15 outside the final
// combiner) read zero, destinations that name no writable register discard, reserved ops 5 and 7 apply
// the bias and the shift they encode, equal destinations are written CD, AB, sum (last wins), undocumented
// bits are ignored, a stage count above 8 runs 8. Those shaders have no oracle to check them. Every texture
// mode is implemented (exact_texture_stages) but brdf, whose semantics are unknown: a program running it gets
// no shader (error brdf_undefined); reserved texture codes read as NONE.
Result<std::string> emit_exact_fragment(const sbk_nv2a_program& program);

// What a vertex semantic reads when the host supplies no attribute for it, per sbk_vertex_semantic: position
// (0,0,0,1), diffuse white, specular black, fog 1, texcoords (0,0,0,1). The one table both the pass-through
// shader's constants and a bundle's DYNAMIC_FALLBACKS defaults come from, so the two always agree.
inline constexpr std::array<std::array<float, 4>, SBK_NV2A_LOCATION_COUNT> kSemanticDefaults = {{
    {0.0f, 0.0f, 0.0f, 1.0f},  // position
    {1.0f, 1.0f, 1.0f, 1.0f},  // diffuse
    {0.0f, 0.0f, 0.0f, 0.0f},  // specular
    {1.0f, 1.0f, 1.0f, 1.0f},  // fog
    {0.0f, 0.0f, 0.0f, 1.0f},  // texcoord0
    {0.0f, 0.0f, 0.0f, 1.0f},  // texcoord1
    {0.0f, 0.0f, 0.0f, 1.0f},  // texcoord2
    {0.0f, 0.0f, 0.0f, 1.0f},  // texcoord3
}};

// Every semantic: the mask of a vertex shader that reads all of them (a dynamic-state fallback pipeline's).
inline constexpr uint32_t kAllSemantics = (1u << SBK_NV2A_LOCATION_COUNT) - 1u;

// Emits the pass-through vertex shader of a host vertex layout: each present semantic is read at the
// location equal to its sbk_vertex_semantic value and passed on to the fragment inputs of the layout
// contract; a missing semantic passes its default (kSemanticDefaults). `semantic_mask` has bit s set when semantic s is present;
// `varying_mask` has bit l set for each fragment input location l (0-6) the fragment shader reads: only
// those are written, so the stage interface matches exactly (the vertex interface of a pipeline).
std::string emit_vertex_shader(uint32_t semantic_mask, uint32_t varying_mask);

// The fragment input locations (bit per location) a compiled fragment module reads.
inline constexpr uint32_t kAllVaryings = 0x7F;

// The semantic mask of a host state's vertex attributes.
uint32_t vertex_semantic_mask(const sbk_host_state& host);

// The fragment input locations (bit l for location l, 0-6) a compiled fragment module reads.
uint32_t fragment_varyings(const compile::Reflection& fragment);
// The vertex attribute locations (= semantics) that feed those varyings, ascending.
std::vector<uint32_t> attribute_locations(uint32_t varyings);

}  // namespace shaderbake::nv2a

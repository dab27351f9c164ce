// SPDX-License-Identifier: MIT
#pragma once
// nv2a register-combiner programs as a D3D8-era game's driver would set them (guests/nv2a/README.md, Semantics), and the
// material templates the generator draws them from.
//
// Every word is encoded here with the hardware layout:
//   input byte   bits 0-3 register, bit 4 alpha/blue, bits 5-7 mapping; input word A<<24|B<<16|C<<8|D
//   output word  bits 0-3 CD dst, 4-7 AB dst, 8-11 SUM dst, 12 CD dot, 13 AB dot, 14 mux, 15-17 op,
//                18 CD blue->alpha, 19 AB blue->alpha
//   final words  [0] = A<<24|B<<16|C<<8|D, [1] = E<<24|F<<16|G<<8|flags (0x20 r0 complement,
//                0x40 v1 complement, 0x80 clamp of spare0+secondary)
//   control      bits 0-7 stage count, bit 8 mux MSB, bit 12 per-stage c0, bit 16 per-stage c1

#include <array>
#include <cstdint>
#include <string>

#include "rng.hpp"

namespace shaderbake::tracegen {

namespace reg {
inline constexpr std::uint8_t kZero = 0, kC0 = 1, kC1 = 2, kFog = 3, kV0 = 4, kV1 = 5;
inline constexpr std::uint8_t kT0 = 8, kT1 = 9, kT2 = 10, kT3 = 11, kR0 = 12, kR1 = 13;
inline constexpr std::uint8_t kSum = 14, kEF = 15;  // final combiner only
}  // namespace reg

enum class Mapping : std::uint8_t {
    kUnsignedIdentity = 0,
    kUnsignedInvert = 1,
    kExpandNormal = 2,
    kExpandNegate = 3,
    kHalfBiasNormal = 4,
    kHalfBiasNegate = 5,
    kSignedIdentity = 6,
    kSignedNegate = 7,
};

// Output ops (bits 15-17). 5 and 7 are invalid and never generated.
enum class Op : std::uint8_t { kNone = 0, kBias = 1, kX2 = 2, kBiasX2 = 3, kX4 = 4, kHalf = 6 };

enum class TexMode : std::uint8_t {
    kNone = 0, kProject2d, kProject3d, kCube, kPassthru, kClipPlane, kBumpEnvMap, kBumpEnvMapLuminance, kBrdf,
    kDotSt, kDotZw, kDotRflctDiff, kDotRflctSpec, kDotStr3d, kDotStrCube, kDependentAr, kDependentGb,
    kDotProduct, kDotRflctSpecConst,
};
const char* tex_mode_name(TexMode m);

// What a texel equal to its stage's colour key does.
enum class ColorKey : std::uint8_t { kNone, kKillAlpha, kKillColor, kDiscard };

// Dot-product mappings of the texture shader (SET_DOT_RGBMAPPING): D3D8's texm3x* normal maps are unsigned
// (minus1_to_1_d3d), signed formats read minus1_to_1.
inline constexpr std::uint32_t kDotMinus1To1D3d = 1, kDotMinus1To1 = 3;

enum class CompareOp : std::uint8_t { kNever, kLess, kEqual, kLessOrEqual, kGreater, kNotEqual, kGreaterOrEqual, kAlways };
const char* compare_op_name(CompareOp op);

// An input byte: register | alpha bit | mapping.
constexpr std::uint8_t in(std::uint8_t r, Mapping m = Mapping::kUnsignedIdentity, bool alpha = false) {
    return static_cast<std::uint8_t>((r & 0xF) | (alpha ? 0x10 : 0) | (static_cast<unsigned>(m) << 5));
}
constexpr std::uint8_t in_a(std::uint8_t r, Mapping m = Mapping::kUnsignedIdentity) { return in(r, m, true); }
// The constant 1 (zero register, unsigned invert) and its alpha form.
inline constexpr std::uint8_t kInputOne = in(reg::kZero, Mapping::kUnsignedInvert);
inline constexpr std::uint8_t kInputOneA = in(reg::kZero, Mapping::kUnsignedInvert, true);

constexpr std::uint32_t input_word(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
    return std::uint32_t{a} << 24 | std::uint32_t{b} << 16 | std::uint32_t{c} << 8 | d;
}

struct OutputWord {
    std::uint8_t ab = 0, cd = 0, sum = 0;  // destinations (0 = discard)
    bool ab_dot = false, cd_dot = false, mux = false;
    Op op = Op::kNone;
    bool ab_blue_to_alpha = false, cd_blue_to_alpha = false;

    constexpr std::uint32_t encode() const {
        return std::uint32_t(cd & 0xF) | std::uint32_t(ab & 0xF) << 4 | std::uint32_t(sum & 0xF) << 8 |
               std::uint32_t(cd_dot) << 12 | std::uint32_t(ab_dot) << 13 | std::uint32_t(mux) << 14 |
               std::uint32_t(static_cast<unsigned>(op) & 7) << 15 | std::uint32_t(cd_blue_to_alpha) << 18 |
               std::uint32_t(ab_blue_to_alpha) << 19;
    }
};

// What the material is, which drives its host-state variants and vertex layout.
enum class MaterialClass : std::uint8_t {
    kOpaque, kAlphaTested, kBlended, kAdditive, kDecal, kHud, kSky, kWater, kShadowVolume, kDepthOnly, kOffscreen,
};

struct Program {
    std::uint32_t control = 1;
    std::array<std::uint32_t, 8> rgb_in{}, rgb_out{}, alpha_in{}, alpha_out{};
    std::array<std::uint32_t, 2> final_in{};
    std::array<TexMode, 4> tex_mode{TexMode::kNone, TexMode::kNone, TexMode::kNone, TexMode::kNone};
    std::array<bool, 4> tex_enabled{};
    bool alpha_test = false;
    CompareOp alpha_func = CompareOp::kAlways;
    // Texture-shader words and per-stage texel controls (written only when not the default).
    std::uint32_t dot_rgb_mapping = 0;    // stage i's dot mapping at bits 4(i-1)..
    std::uint32_t other_stage_input = 0;  // stage 2's input at bits 16-19, stage 3's at 20-23
    std::uint32_t clip_plane_mode = 0;    // stage i's nibble at bits 4i..
    std::array<bool, 4> alpha_kill{};
    std::array<ColorKey, 4> color_key{};
    std::array<const char*, 4> signed_channels{"", "", "", ""};  // letters of argb
    std::array<bool, 4> xrgb{};

    // Generator metadata (not serialized).
    MaterialClass cls = MaterialClass::kOpaque;
    bool reads_specular = false;  // v1 is read (vertex layout carries specular)
    bool reads_fog = false;       // fog factor is read (vertex layout may carry fog)
    bool uses_later_modes = false;
    const char* template_name = "";

    unsigned stages() const { return control & 0xFF; }
};

// Which kind of program make_program draws: a common template (some of which use the texture shader: bump-env
// water, texm3x2 lighting lookups, texm3x3 cube reflections, clip planes, alpha kill, colour keys), one of the
// rarer texture-shader chains (luminance bump-env, dot_zw, dot_rflct_diff, dot_str_*, dependent reads), or a
// common template rewritten into an unusual but valid encoding.
enum class ProgramKind : std::uint8_t { kCommon, kLaterModes, kOdd };

// Draws one program of the given class from the material templates.
Program make_program(Rng& rng, MaterialClass cls, ProgramKind kind);

// Copies p and fills the per-stage words past the stage count with garbage (they must not matter).
Program with_garbage_past_stage_count(const Program& p, Rng& rng);
// Copies p and gives one disabled texture stage a non-none mode (it must not matter); returns p unchanged
// when every stage is enabled.
Program with_disabled_stage_mode(const Program& p, Rng& rng);
// Copies p and, when alpha test is off, leaves a stale comparison function in it (it must not matter).
Program with_stale_alpha_func(const Program& p, Rng& rng);

void append_program_json(std::string& out, const Program& p);

}  // namespace shaderbake::tracegen

// SPDX-License-Identifier: MIT
// Material templates: the combiner programs a D3D8 title's fixed-function and pixel-shader paths produce.
#include "nv2a_program.hpp"

#include "json_out.hpp"

namespace shaderbake::tracegen {
namespace {

using M = Mapping;
using namespace reg;

constexpr std::uint8_t inv_a(std::uint8_t r) { return in(r, M::kUnsignedInvert, true); }
constexpr std::uint8_t expand(std::uint8_t r) { return in(r, M::kExpandNormal); }
// Alpha portion input computing 1 * 1 (the zero register inverted, twice).
constexpr std::uint32_t kAlphaOne = input_word(kInputOneA, kInputOneA, 0, 0);

OutputWord ab_to(std::uint8_t dst, Op op = Op::kNone) {
    OutputWord w;
    w.ab = dst;
    w.op = op;
    return w;
}
OutputWord sum_to(std::uint8_t dst, Op op = Op::kNone) {
    OutputWord w;
    w.sum = dst;
    w.op = op;
    return w;
}

// Builds a program stage by stage. Stages past the count keep zero words.
class Builder {
public:
    explicit Builder(MaterialClass cls) { p_.cls = cls; }

    unsigned count() const { return n_; }
    bool full() const { return n_ >= 8; }

    // Appends a stage; a zero output word writes nothing for that portion.
    void stage(std::uint32_t rgb_in, OutputWord rgb_out, std::uint32_t alpha_in = 0, OutputWord alpha_out = {}) {
        if (full()) return;
        p_.rgb_in[n_] = rgb_in;
        p_.rgb_out[n_] = rgb_out.encode();
        p_.alpha_in[n_] = alpha_in;
        p_.alpha_out[n_] = alpha_out.encode();
        ++n_;
    }
    void tex(unsigned i, TexMode m) {
        p_.tex_mode[i] = m;
        p_.tex_enabled[i] = m != TexMode::kNone;
    }
    // A dot-product-family mode in stage i (1-3) with its dot mapping.
    void dot_tex(unsigned i, TexMode m, std::uint32_t mapping) {
        tex(i, m);
        p_.dot_rgb_mapping = (p_.dot_rgb_mapping & ~(0xFu << (4 * (i - 1)))) | mapping << (4 * (i - 1));
    }
    void final_words(std::uint32_t w0, std::uint32_t w1) {
        p_.final_in[0] = w0;
        p_.final_in[1] = w1;
    }
    Program& program() { return p_; }

    Program finish() {
        p_.control = (p_.control & ~0xFFu) | (n_ == 0 ? 1u : n_);
        return p_;
    }

private:
    Program p_;
    unsigned n_ = 0;
};

bool word_reads(std::uint32_t word, std::uint8_t r) {
    for (int shift = 0; shift < 32; shift += 8)
        if (((word >> shift) & 0xF) == r) return true;
    return false;
}
unsigned stages_reading(const Program& p, unsigned stages, std::uint8_t r) {
    unsigned n = 0;
    for (unsigned s = 0; s < stages; ++s)
        if ((p.rgb_out[s] != 0 && word_reads(p.rgb_in[s], r)) || (p.alpha_out[s] != 0 && word_reads(p.alpha_in[s], r)))
            ++n;
    return n;
}
bool stage_reads(const Program& p, unsigned s, std::uint8_t r) {
    return (p.rgb_out[s] != 0 && word_reads(p.rgb_in[s], r)) || (p.alpha_out[s] != 0 && word_reads(p.alpha_in[s], r));
}

Op modulate_op(Rng& rng) {
    const unsigned w[] = {78, 17, 5};
    switch (rng.weighted(w)) {
        case 1: return Op::kX2;
        case 2: return Op::kX4;
        default: return Op::kNone;
    }
}

TexMode base_2d_mode(Rng& rng) {
    // Most colour maps are plain 2D; a few titles bind volume textures or projective lookups.
    const unsigned w[] = {94, 4, 2};
    switch (rng.weighted(w)) {
        case 1: return TexMode::kProject3d;
        case 2: return TexMode::kPassthru;
        default: return TexMode::kProject2d;
    }
}

// ---- base colour templates: each leaves the result in r0 (rgb and alpha) ----

void base_vertex_color(Builder& b) {
    b.stage(input_word(in(kV0), kInputOne, 0, 0), ab_to(kR0), input_word(in_a(kV0), kInputOneA, 0, 0), ab_to(kR0));
    b.program().template_name = "vertex_color";
}

void base_modulate(Builder& b, Rng& rng) {
    b.tex(0, base_2d_mode(rng));
    const unsigned alpha_kind = static_cast<unsigned>(rng.weighted(std::array<unsigned, 3>{60, 22, 18}));
    const std::uint32_t a_in = alpha_kind == 0   ? input_word(in_a(kT0), in_a(kV0), 0, 0)
                               : alpha_kind == 1 ? input_word(in_a(kT0), kInputOneA, 0, 0)
                                                 : input_word(in_a(kV0), kInputOneA, 0, 0);
    b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR0, modulate_op(rng)), a_in, ab_to(kR0));
    b.program().template_name = "modulate";
}

void base_select_texture(Builder& b, Rng& rng) {
    b.tex(0, base_2d_mode(rng));
    b.stage(input_word(in(kT0), kInputOne, 0, 0), ab_to(kR0), input_word(in_a(kT0), kInputOneA, 0, 0), ab_to(kR0));
    b.program().template_name = "select_texture";
}

void base_lightmap(Builder& b, Rng& rng) {
    // Base texture times vertex colour, then times a lightmap (usually modulate2x so 0.5 is neutral).
    const bool lightmap_first = rng.chance(250);
    const std::uint8_t base = lightmap_first ? kT1 : kT0, light = lightmap_first ? kT0 : kT1;
    b.tex(0, TexMode::kProject2d);
    b.tex(1, TexMode::kProject2d);
    b.stage(input_word(in(base), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(base), in_a(kV0), 0, 0), ab_to(kR0));
    b.stage(input_word(in(kR0), in(light), 0, 0), ab_to(kR0, rng.chance(600) ? Op::kX2 : Op::kNone));
    b.program().template_name = "lightmap";
}

void base_detail(Builder& b, Rng& rng) {
    b.tex(0, TexMode::kProject2d);
    b.tex(1, TexMode::kProject2d);
    b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kT0), in_a(kV0), 0, 0), ab_to(kR0));
    if (rng.chance(500)) {
        // D3DTOP_ADDSIGNED: r0 + t1 - 0.5
        b.stage(input_word(in(kR0), kInputOne, in(kT1), kInputOne), sum_to(kR0, Op::kBias));
    } else {
        b.stage(input_word(in(kR0), in(kT1), 0, 0), ab_to(kR0, Op::kX2));
    }
    b.program().template_name = "detail";
}

void base_terrain_lerp(Builder& b, Rng& rng) {
    // lerp(t0, t1, v0.a) = t0 * (1 - v0.a) + t1 * v0.a, then lit by v0.rgb, optionally times a lightmap.
    b.tex(0, TexMode::kProject2d);
    b.tex(1, TexMode::kProject2d);
    b.stage(input_word(in(kT0), inv_a(kV0), in(kT1), in_a(kV0)), sum_to(kR0), kAlphaOne, ab_to(kR0));
    if (rng.chance(600)) b.stage(input_word(in(kR0), in(kV0), 0, 0), ab_to(kR0));
    if (rng.chance(350)) {
        b.tex(2, TexMode::kProject2d);
        b.stage(input_word(in(kR0), in(kT2), 0, 0), ab_to(kR0, Op::kX2));
    }
    b.program().template_name = "terrain_lerp";
}

// A normal map in t0 for the texture shader's dot stages: the mapping they read it with (unsigned for most
// D3D8 titles, a signed format otherwise).
std::uint32_t normal_map_in_t0(Builder& b, Rng& rng) {
    b.tex(0, TexMode::kProject2d);
    const std::uint32_t mapping = rng.chance(800) ? kDotMinus1To1D3d : kDotMinus1To1;
    if (mapping == kDotMinus1To1) b.program().signed_channels[0] = "rgb";
    return mapping;
}

void base_dot3(Builder& b, Rng& rng) {
    if (rng.chance(200)) {
        // Texture-shader lighting lookup (texm3x2tex): the normal map in t0, (N.L, N.H) from the coordinates
        // of t1 and t2 index a lighting texture in t2; the colour map in t3 modulated by it.
        const std::uint32_t mapping = normal_map_in_t0(b, rng);
        b.dot_tex(1, TexMode::kDotProduct, mapping);
        b.dot_tex(2, TexMode::kDotSt, mapping);
        b.tex(3, TexMode::kProject2d);
        b.stage(input_word(in(kT2), in(kT3), 0, 0), ab_to(kR0, modulate_op(rng)), input_word(in_a(kT3), kInputOneA, 0, 0),
                ab_to(kR0));
        b.program().template_name = "dot3_texm3x2";
        return;
    }
    // N.L with a normal map in t0 and the light vector in c0 (or packed in the diffuse colour), then the
    // colour map in t1 modulated by it, with an optional ambient term from c1.
    b.tex(0, TexMode::kProject2d);
    b.tex(1, TexMode::kProject2d);
    const std::uint8_t light = rng.chance(500) ? kC0 : kV0;
    OutputWord dot = ab_to(kR0);
    dot.ab_dot = true;
    dot.ab_blue_to_alpha = rng.chance(300);
    b.stage(input_word(expand(kT0), expand(light), 0, 0), dot);
    if (rng.chance(450)) {
        b.stage(input_word(in(kR0), in(kT1), in(kT1), in(kC1)), sum_to(kR0), input_word(in_a(kT1), kInputOneA, 0, 0),
                ab_to(kR0));
    } else {
        b.stage(input_word(in(kR0), in(kT1), 0, 0), ab_to(kR0, modulate_op(rng)), input_word(in_a(kT1), kInputOneA, 0, 0),
                ab_to(kR0));
    }
    b.program().template_name = "dot3_bump";
}

void base_envmap(Builder& b, Rng& rng) {
    if (rng.chance(200)) {
        // Bumped cube reflection (texm3x3vspec): the normal map in t0, the tangent frame in the coordinates of
        // t1-t3 (the eye vector in their q, or a constant one), the reflection in t3 added to the vertex colour.
        const std::uint32_t mapping = normal_map_in_t0(b, rng);
        b.dot_tex(1, TexMode::kDotProduct, mapping);
        b.dot_tex(2, TexMode::kDotProduct, mapping);
        b.dot_tex(3, rng.chance(850) ? TexMode::kDotRflctSpec : TexMode::kDotRflctSpecConst, mapping);
        b.stage(input_word(in(kT3), in(kC0), in(kV0), kInputOne), sum_to(kR0), input_word(in_a(kV0), kInputOneA, 0, 0),
                ab_to(kR0));
        b.program().template_name = "envmap_texm3x3";
        return;
    }
    // Base colour plus a cube-map reflection scaled by a constant or by the gloss in t0's alpha.
    b.tex(0, TexMode::kProject2d);
    b.tex(1, rng.chance(850) ? TexMode::kCube : TexMode::kProject2d);
    b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kT0), in_a(kV0), 0, 0), ab_to(kR0));
    const std::uint8_t scale = rng.chance(550) ? in(kC0) : in_a(kT0);
    b.stage(input_word(in(kT1), scale, in(kR0), kInputOne), sum_to(kR0));
    b.program().template_name = "envmap";
}

void base_mux(Builder& b, Rng& rng) {
    // Chooses between two colours per pixel by a mask in t1's alpha (spare0.a): mux reads r0.a as it was
    // at stage entry, so the mask is written one stage earlier.
    b.tex(0, TexMode::kProject2d);
    b.tex(1, TexMode::kProject2d);
    b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR1), input_word(in_a(kT1), kInputOneA, 0, 0), ab_to(kR0));
    OutputWord mux = sum_to(kR0);
    mux.mux = true;
    const std::uint8_t other = rng.chance(500) ? in(kC0) : in(kV0);
    b.stage(input_word(in(kR1), kInputOne, other, kInputOne), mux, input_word(in_a(kV0), kInputOneA, 0, 0), ab_to(kR0));
    if (rng.chance(880)) b.program().control |= 0x100;  // MSB mode; otherwise the LSB default
    b.program().template_name = "mux";
}

void base_tint(Builder& b, Rng& rng) {
    b.tex(0, TexMode::kProject2d);
    if (rng.chance(500)) {
        b.stage(input_word(in(kT0), in(kC0), 0, 0), ab_to(kR0), input_word(in_a(kT0), in_a(kC0), 0, 0), ab_to(kR0));
    } else {
        b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kT0), in_a(kV0), 0, 0), ab_to(kR0));
        b.stage(input_word(in(kR0), in(kC0), 0, 0), ab_to(kR0), input_word(in_a(kR0), in_a(kC0), 0, 0), ab_to(kR0));
    }
    b.program().template_name = "tint";
}

void base_font(Builder& b) {
    b.tex(0, TexMode::kProject2d);
    b.stage(input_word(in(kV0), kInputOne, 0, 0), ab_to(kR0), input_word(in_a(kT0), in_a(kV0), 0, 0), ab_to(kR0));
    b.program().template_name = "font";
}

void base_sky(Builder& b, Rng& rng) {
    b.tex(0, rng.chance(500) ? TexMode::kCube : TexMode::kProject2d);
    b.stage(input_word(in(kT0), kInputOne, 0, 0), ab_to(kR0), kAlphaOne, ab_to(kR0));
    if (rng.chance(500)) {
        // Cloud layer over the sky by its own alpha.
        b.tex(1, TexMode::kProject2d);
        b.stage(input_word(in(kT1), in_a(kT1), in(kR0), inv_a(kT1)), sum_to(kR0));
    }
    b.program().template_name = "sky";
}

void base_water(Builder& b, Rng& rng) {
    if (rng.chance(650)) {
        // Environment-mapped bump mapping: a signed du/dv ripple map in t0 perturbs the reflection lookup of
        // t1 (bump-env matrix per stage), tinted by the diffuse colour, alpha from c0; sometimes foam in t2.
        b.tex(0, TexMode::kProject2d);
        b.program().signed_channels[0] = "gb";
        b.tex(1, TexMode::kBumpEnvMap);
        b.stage(input_word(in(kT1), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kC0), kInputOneA, 0, 0), ab_to(kR0));
        if (rng.chance(400)) {
            b.tex(2, TexMode::kProject2d);
            b.stage(input_word(in(kT2), in_a(kT2), in(kR0), inv_a(kT2)), sum_to(kR0));
        }
        b.program().template_name = "water_embm";
        return;
    }
    b.tex(0, TexMode::kProject2d);
    b.tex(1, TexMode::kCube);
    b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kC0), kInputOneA, 0, 0), ab_to(kR0));
    b.stage(input_word(in(kT1), in_a(kC0), in(kR0), inv_a(kC0)), sum_to(kR0));
    if (rng.chance(600)) {
        b.tex(2, TexMode::kProject2d);
        b.stage(input_word(in(kT2), in(kC1), in(kR0), kInputOne), sum_to(kR0));
    }
    if (rng.chance(300)) {
        b.tex(3, TexMode::kProject2d);
        b.stage(input_word(in(kR0), in(kT3), 0, 0), ab_to(kR0, Op::kX2), input_word(in_a(kR0), in_a(kT3), 0, 0),
                ab_to(kR0));
    }
    b.program().template_name = "water";
}

void base_shadow_volume(Builder& b) {
    b.stage(input_word(in(kV0), kInputOne, 0, 0), ab_to(kR0), input_word(in_a(kV0), kInputOneA, 0, 0), ab_to(kR0));
    b.program().template_name = "shadow_volume";
}

void base_shadow_map(Builder& b, Rng& rng) {
    // Render-to-texture pass: a flat shadow colour, or a projected shadow modulating a base map.
    if (rng.chance(500)) {
        b.stage(input_word(in(kC0), kInputOne, 0, 0), ab_to(kR0), input_word(in_a(kC0), kInputOneA, 0, 0), ab_to(kR0));
        b.program().template_name = "shadow_color";
    } else {
        b.tex(0, TexMode::kProject2d);
        b.tex(1, TexMode::kProject2d);  // projective shadow lookup
        b.stage(input_word(in(kT0), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kT0), kInputOneA, 0, 0), ab_to(kR0));
        b.stage(input_word(in(kR0), in(kT1), 0, 0), ab_to(kR0));
        b.program().template_name = "projected_shadow";
    }
}

// ---- extra stages a material adds after its base (overlays, effects) ----

void add_post_stage(Builder& b, Rng& rng) {
    const unsigned w[] = {24, 18, 10, 10, 14, 8, 8, 8};
    switch (rng.weighted(w)) {
        case 0:  // tint by a per-stage constant
            b.stage(input_word(in(kR0), in(kC0), 0, 0), ab_to(kR0));
            break;
        case 1:  // emissive / glow add
            b.stage(input_word(in(kR0), kInputOne, in(kC1), kInputOne), sum_to(kR0));
            break;
        case 2:  // overbright
            b.stage(input_word(in(kR0), kInputOne, 0, 0), ab_to(kR0, Op::kX2));
            break;
        case 3:  // vertex lighting applied late
            b.stage(input_word(in(kR0), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kR0), in_a(kV0), 0, 0), ab_to(kR0));
            break;
        case 4:  // damage / flash lerp towards c0 by c0.a
            b.stage(input_word(in(kC0), in_a(kC0), in(kR0), inv_a(kC0)), sum_to(kR0));
            break;
        case 5:  // desaturate: luminance dot into r1, then lerp by c1.a
            if (b.count() + 2 > 8) return;
            {
                OutputWord dot = ab_to(kR1);
                dot.ab_dot = true;
                b.stage(input_word(in(kR0), in(kC0), 0, 0), dot);
                b.stage(input_word(in(kR1), in_a(kC1), in(kR0), inv_a(kC1)), sum_to(kR0));
            }
            break;
        case 6:  // fade alpha by a constant
            b.stage(0, {}, input_word(in_a(kR0), in_a(kC0), 0, 0), ab_to(kR0));
            break;
        default:  // specular highlight from the secondary colour inside the combiners
            b.program().reads_specular = true;
            b.stage(input_word(in(kR0), kInputOne, in(kV1), kInputOne), sum_to(kR0));
            break;
    }
}

// ---- final combiner ----

constexpr std::uint32_t kFinalPlain0 = input_word(0, 0, 0, in(kR0));
constexpr std::uint32_t kFinalPlain1 = input_word(0, 0, in_a(kR0), 0);

void final_for(Builder& b, Rng& rng) {
    Program& p = b.program();
    switch (p.cls) {
        case MaterialClass::kDepthOnly:
            b.final_words(0, 0);  // colour writes are off: the driver leaves the final combiner cleared
            return;
        case MaterialClass::kHud:
        case MaterialClass::kShadowVolume:
        case MaterialClass::kOffscreen:
            b.final_words(kFinalPlain0, kFinalPlain1);
            return;
        default: break;
    }
    const unsigned w[] = {40, 28, 14, 10, 4, 4};
    switch (rng.weighted(w)) {
        case 0:  // fog: lerp(fog.rgb, r0, fog.a)
            p.reads_fog = true;
            b.final_words(input_word(in_a(kFog), in(kR0), in(kFog), 0), kFinalPlain1);
            break;
        case 1: b.final_words(kFinalPlain0, kFinalPlain1); break;
        case 2:  // specular added in the final combiner: r0 + v1, clamped
            p.reads_specular = true;
            b.final_words(input_word(0, 0, 0, in(kSum)), kFinalPlain1 | 0x80);
            break;
        case 3:  // fog over spare0 + specular
            p.reads_fog = p.reads_specular = true;
            b.final_words(input_word(in_a(kFog), in(kSum), in(kFog), 0), kFinalPlain1 | 0x80);
            break;
        case 4:  // final modulate through E*F
            b.final_words(input_word(0, 0, 0, in(kEF)), input_word(in(kR0), in(kV0), in_a(kR0), 0));
            break;
        default:  // screen flash: lerp(final c0, r0, final c0.a); alpha from the diffuse colour
            b.final_words(input_word(in_a(kC0), in(kC0), in(kR0), 0), input_word(0, 0, in_a(kV0), 0));
            break;
    }
}

// Sets per-stage constant bits the way a driver would: on when different stages need different values.
void constant_control(Builder& b, Rng& rng) {
    Program& p = b.program();
    const unsigned n = b.count();
    const unsigned c0 = stages_reading(p, n, kC0), c1 = stages_reading(p, n, kC1);
    const bool c0_late = c0 > 0 && !stage_reads(p, 0, kC0);
    const bool c1_late = c1 > 0 && !stage_reads(p, 0, kC1);
    if ((c0 >= 2 && rng.chance(800)) || (c0_late && rng.chance(900)) || (n > 1 && rng.chance(40))) p.control |= 1u << 12;
    if ((c1 >= 2 && rng.chance(800)) || (c1_late && rng.chance(900)) || (n > 1 && rng.chance(40))) p.control |= 1u << 16;
}

// ---- rare programs: later texture modes (admission rejects them) and odd-but-valid encodings ----

void later_mode_program(Builder& b, Rng& rng) {
    Program& p = b.program();
    p.uses_later_modes = true;
    const std::uint32_t mapping = rng.chance(700) ? kDotMinus1To1D3d : kDotMinus1To1;
    const unsigned w[] = {12, 10, 16, 10, 10, 8, 8, 8};
    switch (rng.weighted(w)) {
        case 0:  // heat haze: a du/dv map in t0 perturbs the scene copy in t1 and in t2 (stage 2 reads t0 too)
            b.tex(0, TexMode::kProject2d);
            p.signed_channels[0] = "gb";
            b.tex(1, TexMode::kBumpEnvMap);
            b.tex(2, TexMode::kBumpEnvMap);
            b.stage(input_word(in(kT1), in(kV0), in(kT2), in(kC0)), sum_to(kR0), input_word(in_a(kV0), kInputOneA, 0, 0),
                    ab_to(kR0));
            p.template_name = "bumpenvmap_twice";
            break;
        case 1:
            b.tex(0, TexMode::kProject2d);
            p.signed_channels[0] = "gb";
            b.tex(1, TexMode::kBumpEnvMapLuminance);
            b.tex(2, TexMode::kProject2d);
            b.stage(input_word(in(kT1), in(kT2), 0, 0), ab_to(kR0), input_word(in_a(kT2), kInputOneA, 0, 0), ab_to(kR0));
            p.template_name = "bumpenvmap_luminance";
            break;
        case 2:  // per-pixel dot-product texture lookup (texm3x2tex)
            b.tex(0, TexMode::kProject2d);
            b.dot_tex(1, TexMode::kDotProduct, mapping);
            b.dot_tex(2, TexMode::kDotSt, mapping);
            b.stage(input_word(in(kT2), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kT0), kInputOneA, 0, 0), ab_to(kR0));
            p.template_name = "dot_st";
            break;
        case 3:  // diffuse and specular cube lookups from one normal (texm3x3spec with texm3x3diff)
            b.tex(0, TexMode::kProject2d);
            b.dot_tex(1, TexMode::kDotProduct, mapping);
            b.dot_tex(2, TexMode::kDotRflctDiff, mapping);
            b.dot_tex(3, TexMode::kDotRflctSpecConst, mapping);
            b.stage(input_word(in(kT2), in(kV0), in(kT3), in(kC0)), sum_to(kR0), kAlphaOne, ab_to(kR0));
            p.template_name = "dot_rflct_diff";
            break;
        case 4:  // depth replace (texm3x2depth)
            b.tex(0, TexMode::kProject2d);
            b.dot_tex(1, TexMode::kDotProduct, mapping);
            b.dot_tex(2, TexMode::kDotZw, mapping);
            b.stage(input_word(in(kV0), kInputOne, 0, 0), ab_to(kR0), input_word(in_a(kV0), kInputOneA, 0, 0), ab_to(kR0));
            p.template_name = "dot_zw";
            break;
        case 5:
            b.tex(0, TexMode::kProject2d);
            b.tex(1, rng.chance(500) ? TexMode::kDependentAr : TexMode::kDependentGb);
            b.stage(input_word(in(kT1), in(kV0), 0, 0), ab_to(kR0), input_word(in_a(kT1), in_a(kV0), 0, 0), ab_to(kR0));
            p.template_name = "dependent_read";
            break;
        case 6:  // a normal-indexed volume or cube lookup (texm3x3tex)
            b.tex(0, TexMode::kProject2d);
            b.dot_tex(1, TexMode::kDotProduct, mapping);
            b.dot_tex(2, TexMode::kDotProduct, mapping);
            b.dot_tex(3, rng.chance(500) ? TexMode::kDotStr3d : TexMode::kDotStrCube, mapping);
            b.stage(input_word(in(kT3), in(kV0), 0, 0), ab_to(kR0), kAlphaOne, ab_to(kR0));
            p.template_name = "dot_str";
            break;
        default:  // texture coordinates as colour (passthru), modulating the base map
            b.tex(0, TexMode::kProject2d);
            b.tex(1, TexMode::kPassthru);
            b.stage(input_word(in(kT0), in(kT1), 0, 0), ab_to(kR0), input_word(in_a(kT0), in_a(kV0), 0, 0), ab_to(kR0));
            p.template_name = "passthru";
            break;
    }
}

// The per-stage texel controls and clip planes games set on common materials: alpha kill on cut-out foliage,
// colour-keyed HUD sprites, X8R8G8B8 base maps, a user clip plane in a free stage (mirror and water
// reflection passes).
void texel_controls(Program& p, Rng& rng) {
    switch (p.cls) {
        case MaterialClass::kAlphaTested:
            if (p.tex_mode[0] == TexMode::kProject2d && rng.chance(200)) p.alpha_kill[0] = true;
            break;
        case MaterialClass::kHud:
            if (p.tex_mode[0] == TexMode::kProject2d && rng.chance(100))
                p.color_key[0] = rng.chance(700) ? ColorKey::kKillAlpha : ColorKey::kDiscard;
            break;
        case MaterialClass::kOpaque:
        case MaterialClass::kDecal:
            if (p.tex_mode[0] == TexMode::kProject2d && rng.chance(150)) p.xrgb[0] = true;
            if (!p.tex_enabled[3] && rng.chance(40)) {
                p.tex_mode[3] = TexMode::kClipPlane;
                p.tex_enabled[3] = true;
            }
            break;
        default:
            break;
    }
}

// Rewrites one detail of a finished common program into an unusual but valid encoding.
void make_odd(Program& p, Rng& rng) {
    const unsigned n = p.stages();
    const unsigned s = static_cast<unsigned>(rng.below(n));
    switch (rng.below(8)) {
        case 0: {  // an unusual mapping on a non-constant operand
            for (int shift = 24; shift >= 0; shift -= 8) {
                const std::uint32_t byte = (p.rgb_in[s] >> shift) & 0xFF;
                if ((byte & 0xF) == 0) continue;
                const std::uint32_t map = 4 + static_cast<std::uint32_t>(rng.below(4));  // half-bias or signed
                p.rgb_in[s] = (p.rgb_in[s] & ~(0xFFu << shift)) | (((byte & 0x1F) | map << 5) << shift);
                break;
            }
            break;
        }
        case 1:  // x0.5 or (x - 0.5) * 2 on an rgb output
            if (p.rgb_out[s] != 0) p.rgb_out[s] = (p.rgb_out[s] & ~(7u << 15)) | (rng.chance(500) ? 6u : 3u) << 15;
            break;
        case 2:  // the mux LSB default / MSB toggled on a program without mux (meaningless but valid)
            p.control ^= 0x100;
            break;
        case 3:  // fog colour (rgb) read inside a general stage: lerp towards it by c1.a
            if (n < 8) {
                p.rgb_in[n] = input_word(in(kFog), inv_a(kC1), in(kR0), in_a(kC1));
                p.rgb_out[n] = sum_to(kR0).encode();
                p.alpha_in[n] = p.alpha_out[n] = 0;
                p.control = (p.control & ~0xFFu) | (n + 1);
            }
            break;
        case 4:  // spare0 + secondary with both complement flags
            p.final_in[0] = input_word(0, 0, 0, in(kSum));
            p.final_in[1] = (p.final_in[1] & ~0xFFu) | 0x20 | 0x40 | (rng.chance(500) ? 0x80 : 0);
            p.reads_specular = true;
            break;
        case 5:  // inverted fog factor in the final combiner
            p.final_in[0] = input_word(inv_a(kFog), in(kFog), in(kR0), 0);
            p.reads_fog = true;
            break;
        case 6:  // two results from one stage: AB to r1 and CD to r0, sum discarded
            if (n < 8) {
                OutputWord w;
                w.ab = kR1;
                w.cd = kR0;
                w.cd_blue_to_alpha = true;
                p.rgb_in[n] = input_word(in(kR0), in(kV0), in(kR0), in(kR0));
                w.cd_dot = true;
                p.rgb_out[n] = w.encode();
                p.alpha_in[n] = p.alpha_out[n] = 0;
                p.control = (p.control & ~0xFFu) | (n + 1);
            }
            break;
        default:  // the alpha portion reads blue instead of alpha
            if (p.alpha_out[s] != 0) {
                for (int shift = 24; shift >= 0; shift -= 8) {
                    const std::uint32_t byte = (p.alpha_in[s] >> shift) & 0xFF;
                    if ((byte & 0xF) != 0 && (byte & 0xF) != kZero) {
                        p.alpha_in[s] &= ~(0x10u << shift);
                        break;
                    }
                }
            }
            break;
    }
    p.template_name = "odd";
}

}  // namespace

const char* tex_mode_name(TexMode m) {
    static constexpr const char* kNames[] = {
        "none", "project2d", "project3d", "cube", "passthru", "clipplane", "bumpenvmap", "bumpenvmap_luminance",
        "brdf", "dot_st", "dot_zw", "dot_rflct_diff", "dot_rflct_spec", "dot_str_3d", "dot_str_cube",
        "dependent_ar", "dependent_gb", "dot_product", "dot_rflct_spec_const",
    };
    return kNames[static_cast<unsigned>(m)];
}

const char* compare_op_name(CompareOp op) {
    static constexpr const char* kNames[] = {"never",     "less",      "equal",            "less_or_equal",
                                             "greater",   "not_equal", "greater_or_equal", "always"};
    return kNames[static_cast<unsigned>(op)];
}

Program make_program(Rng& rng, MaterialClass cls, ProgramKind kind) {
    Builder b(cls);
    if (kind == ProgramKind::kLaterModes && cls != MaterialClass::kDepthOnly && cls != MaterialClass::kShadowVolume &&
        cls != MaterialClass::kHud) {
        later_mode_program(b, rng);
    } else {
        switch (cls) {
            case MaterialClass::kOpaque:
            case MaterialClass::kDecal: {
                const unsigned w[] = {30, 5, 15, 8, 8, 8, 8, 3, 6, 4};
                switch (rng.weighted(w)) {
                    case 0: base_modulate(b, rng); break;
                    case 1: base_select_texture(b, rng); break;
                    case 2: base_lightmap(b, rng); break;
                    case 3: base_detail(b, rng); break;
                    case 4: base_terrain_lerp(b, rng); break;
                    case 5: base_dot3(b, rng); break;
                    case 6: base_envmap(b, rng); break;
                    case 7: base_mux(b, rng); break;
                    case 8: base_tint(b, rng); break;
                    default: base_vertex_color(b); break;
                }
                break;
            }
            case MaterialClass::kAlphaTested:  // foliage, fences, hair cards
                if (rng.chance(750)) base_modulate(b, rng);
                else base_lightmap(b, rng);
                b.program().template_name = "foliage";
                break;
            case MaterialClass::kBlended:
                if (rng.chance(700)) base_modulate(b, rng);
                else if (rng.chance(500)) base_tint(b, rng);
                else base_envmap(b, rng);
                break;
            case MaterialClass::kAdditive:  // particles, glows, muzzle flashes
                if (rng.chance(800)) base_modulate(b, rng);
                else base_tint(b, rng);
                break;
            case MaterialClass::kHud:
                if (rng.chance(450)) base_font(b);
                else if (rng.chance(650)) base_modulate(b, rng);
                else base_vertex_color(b);
                break;
            case MaterialClass::kSky: base_sky(b, rng); break;
            case MaterialClass::kWater: base_water(b, rng); break;
            case MaterialClass::kShadowVolume: base_shadow_volume(b); break;
            case MaterialClass::kDepthOnly:
                b.stage(0, {});  // one stage that writes nothing
                b.program().template_name = "depth_only";
                break;
            case MaterialClass::kOffscreen: base_shadow_map(b, rng); break;
        }
        // Overlays and effects: most materials have none, a few stack several (up to 8 stages).
        const bool may_extend = cls == MaterialClass::kOpaque || cls == MaterialClass::kAlphaTested ||
                                cls == MaterialClass::kBlended || cls == MaterialClass::kWater ||
                                cls == MaterialClass::kDecal;
        if (may_extend) {
            const unsigned w[] = {700, 180, 70, 25, 12, 8, 5};
            const std::size_t extra = rng.weighted(w);
            for (std::size_t i = 0; i < extra && !b.full(); ++i) add_post_stage(b, rng);
        }
    }
    final_for(b, rng);
    constant_control(b, rng);
    Program& p = b.program();
    if (cls == MaterialClass::kAlphaTested) {
        p.alpha_test = true;
        const unsigned w[] = {60, 35, 5};
        const CompareOp ops[] = {CompareOp::kGreaterOrEqual, CompareOp::kGreater, CompareOp::kNotEqual};
        p.alpha_func = ops[rng.weighted(w)];
    } else if (cls == MaterialClass::kHud && rng.chance(200)) {
        p.alpha_test = true;  // fonts that also discard empty texels
        p.alpha_func = CompareOp::kGreater;
    }
    Program out = b.finish();
    if (kind == ProgramKind::kCommon) texel_controls(out, rng);
    if (kind == ProgramKind::kOdd) make_odd(out, rng);
    return out;
}

Program with_garbage_past_stage_count(const Program& p, Rng& rng) {
    Program q = p;
    for (unsigned s = q.stages(); s < 8; ++s) {
        q.rgb_in[s] = rng.u32();
        q.rgb_out[s] = rng.u32();
        q.alpha_in[s] = rng.u32();
        q.alpha_out[s] = rng.u32();
    }
    return q;
}

Program with_disabled_stage_mode(const Program& p, Rng& rng) {
    Program q = p;
    for (unsigned i = 0; i < 4; ++i) {
        if (q.tex_enabled[i]) continue;
        static constexpr TexMode kStale[] = {TexMode::kProject2d, TexMode::kProject2d, TexMode::kCube,
                                             TexMode::kProject3d};
        q.tex_mode[i] = kStale[rng.below(4)];
        break;
    }
    return q;
}

Program with_stale_alpha_func(const Program& p, Rng& rng) {
    Program q = p;
    if (!q.alpha_test) q.alpha_func = rng.chance(700) ? CompareOp::kGreaterOrEqual : CompareOp::kLess;
    return q;
}

void append_program_json(std::string& out, const Program& p) {
    StringSink s(out);
    auto words = [&](const char* name, const std::uint32_t* w, std::size_t n) {
        s.raw(",\"");
        s.raw(name);
        s.raw("\":[");
        for (std::size_t i = 0; i < n; ++i) {
            if (i) s.ch(',');
            s.hex_word(w[i]);
        }
        s.ch(']');
    };
    s.raw("{\"combiner_control\":");
    s.hex_word(p.control);
    words("rgb_inputs", p.rgb_in.data(), 8);
    words("rgb_outputs", p.rgb_out.data(), 8);
    words("alpha_inputs", p.alpha_in.data(), 8);
    words("alpha_outputs", p.alpha_out.data(), 8);
    words("final_inputs", p.final_in.data(), 2);
    s.raw(",\"texture_modes\":[");
    for (unsigned i = 0; i < 4; ++i) {
        if (i) s.ch(',');
        s.quoted(tex_mode_name(p.tex_mode[i]));
    }
    s.raw("],\"texture_enabled\":[");
    for (unsigned i = 0; i < 4; ++i) {
        if (i) s.ch(',');
        s.boolean(p.tex_enabled[i]);
    }
    s.ch(']');
    auto word = [&](const char* name, std::uint32_t w) {
        if (w == 0) return;
        s.raw(",\"");
        s.raw(name);
        s.raw("\":");
        s.hex_word(w);
    };
    word("dot_rgb_mapping", p.dot_rgb_mapping);
    word("other_stage_input", p.other_stage_input);
    word("clip_plane_mode", p.clip_plane_mode);
    bool controls = false, signs = false, formats = false;
    for (unsigned i = 0; i < 4; ++i) {
        controls = controls || p.alpha_kill[i] || p.color_key[i] != ColorKey::kNone;
        signs = signs || p.signed_channels[i][0] != '\0';
        formats = formats || p.xrgb[i];
    }
    if (controls) {
        static constexpr const char* kKeys[] = {"none", "kill_alpha", "kill_color", "discard"};
        s.raw(",\"texture_control\":[");
        for (unsigned i = 0; i < 4; ++i) {
            s.raw(i ? ",{\"alpha_kill\":" : "{\"alpha_kill\":");
            s.boolean(p.alpha_kill[i]);
            s.raw(",\"color_key\":");
            s.quoted(kKeys[static_cast<unsigned>(p.color_key[i])]);
            s.ch('}');
        }
        s.ch(']');
    }
    if (signs) {
        s.raw(",\"texture_signed\":[");
        for (unsigned i = 0; i < 4; ++i) {
            if (i) s.ch(',');
            s.quoted(p.signed_channels[i]);
        }
        s.ch(']');
    }
    if (formats) {
        s.raw(",\"texture_formats\":[");
        for (unsigned i = 0; i < 4; ++i) {
            if (i) s.ch(',');
            s.quoted(p.xrgb[i] ? "xrgb8" : "argb8");
        }
        s.ch(']');
    }
    s.raw(",\"alpha_test\":{\"enabled\":");
    s.boolean(p.alpha_test);
    s.raw(",\"func\":");
    s.quoted(compare_op_name(p.alpha_func));
    s.raw("}}");
}

}  // namespace shaderbake::tracegen

// SPDX-License-Identifier: MIT
// Host pipeline states and dynamic values a D3D8 title running under an emulator would produce.
#include "host_state.hpp"

#include "json_out.hpp"

namespace shaderbake::tracegen {
namespace {

const char* topology_name(Topology t) {
    static constexpr const char* kNames[] = {"point_list",    "line_list",      "line_strip",
                                             "triangle_list", "triangle_strip", "triangle_fan"};
    return kNames[static_cast<unsigned>(t)];
}
const char* cull_name(CullMode c) {
    static constexpr const char* kNames[] = {"none", "front", "back", "front_and_back"};
    return kNames[static_cast<unsigned>(c)];
}
const char* blend_factor_name(BlendFactor f) {
    static constexpr const char* kNames[] = {
        "zero",           "one",           "src_color",         "one_minus_src_color",
        "dst_color",      "one_minus_dst_color", "src_alpha",   "one_minus_src_alpha",
        "dst_alpha",      "one_minus_dst_alpha", "constant_color", "one_minus_constant_color",
        "constant_alpha", "one_minus_constant_alpha",
    };
    return kNames[static_cast<unsigned>(f)];
}
const char* blend_op_name(BlendOp o) {
    static constexpr const char* kNames[] = {"add", "subtract", "reverse_subtract", "min", "max"};
    return kNames[static_cast<unsigned>(o)];
}
const char* stencil_op_name(StencilOp o) {
    static constexpr const char* kNames[] = {"keep",   "zero",   "replace",           "increment_and_clamp",
                                             "decrement_and_clamp", "invert", "increment_and_wrap",
                                             "decrement_and_wrap"};
    return kNames[static_cast<unsigned>(o)];
}
const char* format_name(Format f) {
    static constexpr const char* kNames[] = {
        "undefined",         "r32_sfloat",     "r32g32_sfloat",  "r32g32b32_sfloat",   "r32g32b32a32_sfloat",
        "b8g8r8a8_unorm",    "r8g8b8a8_unorm", "r16g16_snorm",   "r16g16b16a16_snorm", "r16g16_sfloat",
        "r5g6b5_unorm_pack16", "d24_unorm_s8_uint", "d16_unorm", "d32_sfloat",
    };
    return kNames[static_cast<unsigned>(f)];
}
const char* semantic_name(Semantic s) {
    static constexpr const char* kNames[] = {"position",  "diffuse",   "specular",  "fog",
                                             "texcoord0", "texcoord1", "texcoord2", "texcoord3"};
    return kNames[static_cast<unsigned>(s)];
}
std::uint16_t format_size(Format f) {
    switch (f) {
        case Format::kR32Sfloat:
        case Format::kB8G8R8A8Unorm:
        case Format::kR8G8B8A8Unorm:
        case Format::kR16G16Snorm:
        case Format::kR16G16Sfloat: return 4;
        case Format::kR32G32Sfloat:
        case Format::kR16G16B16A16Snorm: return 8;
        case Format::kR32G32B32Sfloat: return 12;
        case Format::kR32G32B32A32Sfloat: return 16;
        default: return 0;
    }
}

BlendAttachment alpha_blend() {
    BlendAttachment b;
    b.enable = true;
    b.src_color = BlendFactor::kSrcAlpha;
    b.dst_color = BlendFactor::kOneMinusSrcAlpha;
    b.src_alpha = BlendFactor::kOne;
    b.dst_alpha = BlendFactor::kZero;
    return b;
}

// Blend factors are left as the previous draw set them when blending is off: they must not matter.
BlendAttachment disabled_blend(Rng& rng) {
    BlendAttachment b;
    if (rng.chance(300)) {
        b.src_color = BlendFactor::kSrcAlpha;
        b.dst_color = BlendFactor::kOneMinusSrcAlpha;
    }
    return b;
}

Format texcoord_format(Rng& rng, TexMode m) {
    switch (m) {
        case TexMode::kCube:
        case TexMode::kProject3d:
        case TexMode::kDotRflctSpecConst:
        case TexMode::kDotStr3d:
        case TexMode::kDotStrCube:
        case TexMode::kDotSt:
        case TexMode::kDotZw: return Format::kR32G32B32Sfloat;
        case TexMode::kPassthru:
        case TexMode::kClipPlane:
        case TexMode::kDotProduct:     // the q of stages 1-3 is dot_rflct_spec's eye vector
        case TexMode::kDotRflctDiff:
        case TexMode::kDotRflctSpec: return Format::kR32G32B32A32Sfloat;
        default: {
            const unsigned w[] = {85, 8, 4, 3};
            const Format f[] = {Format::kR32G32Sfloat, Format::kR16G16Snorm, Format::kR16G16Sfloat,
                                Format::kR32G32B32A32Sfloat};
            return f[rng.weighted(w)];
        }
    }
}

VertexLayout make_layout(Rng& rng, const Program& p, bool pretransformed, bool spurious_extras) {
    const bool position_only = p.cls == MaterialClass::kDepthOnly || p.cls == MaterialClass::kShadowVolume;
    struct Item {
        Semantic semantic;
        Format format;
    };
    std::vector<Item> items;
    Format position = pretransformed ? Format::kR32G32B32A32Sfloat : Format::kR32G32B32Sfloat;
    if (!pretransformed && rng.chance(20)) position = Format::kR16G16B16A16Snorm;  // compressed meshes
    items.push_back({Semantic::kPosition, position});
    if (!position_only || rng.chance(200)) {
        items.push_back({Semantic::kDiffuse, rng.chance(900) ? Format::kB8G8R8A8Unorm : Format::kR8G8B8A8Unorm});
        if (p.reads_specular || (spurious_extras && rng.chance(300)))
            items.push_back({Semantic::kSpecular, Format::kB8G8R8A8Unorm});
        if ((p.reads_fog && rng.chance(350)) || (spurious_extras && rng.chance(100)))
            items.push_back({Semantic::kFog, Format::kR32Sfloat});
        for (unsigned i = 0; i < 4; ++i)
            if (p.tex_enabled[i])
                items.push_back({static_cast<Semantic>(static_cast<unsigned>(Semantic::kTexcoord0) + i),
                                 texcoord_format(rng, p.tex_mode[i])});
    }
    VertexLayout layout;
    // Usually one interleaved stream; some engines keep positions in their own stream.
    const bool split = items.size() > 1 && rng.chance(150);
    layout.strides.assign(split ? 2 : 1, 0);
    for (const Item& item : items) {
        const std::uint8_t binding = split && item.semantic != Semantic::kPosition ? 1 : 0;
        layout.attributes.push_back({item.semantic, binding, item.format, layout.strides[binding]});
        layout.strides[binding] = static_cast<std::uint16_t>(layout.strides[binding] + format_size(item.format));
    }
    // Some vertex buffers carry data the pixel pipeline never sees (normals already consumed, padding).
    for (auto& stride : layout.strides)
        if (rng.chance(120)) stride = static_cast<std::uint16_t>(stride + 4 * rng.range(1, 4));
    return layout;
}

}  // namespace

SessionTargets make_session_targets(Rng& rng) {
    SessionTargets t;
    const unsigned cw[] = {50, 30, 20};
    const Format colors[] = {Format::kB8G8R8A8Unorm, Format::kR8G8B8A8Unorm, Format::kR5G6B5UnormPack16};
    t.color = colors[rng.weighted(cw)];
    const unsigned dw[] = {70, 20, 10};
    const Format depths[] = {Format::kD24UnormS8Uint, Format::kD16Unorm, Format::kD32Sfloat};
    t.depth = depths[rng.weighted(dw)];
    t.samples = rng.chance(200) ? 4 : 1;
    return t;
}

HostState make_host(Rng& rng, const Program& p, const SessionTargets& targets, HostVariant variant) {
    HostState h;
    h.color_format = targets.color;
    h.depth_format = targets.depth;
    h.samples = targets.samples;
    h.topology = rng.chance(450) ? Topology::kTriangleStrip : Topology::kTriangleList;
    h.cull = CullMode::kBack;
    h.front_ccw = !rng.chance(150);
    h.blend = disabled_blend(rng);
    bool pretransformed = false;

    switch (p.cls) {
        case MaterialClass::kOpaque: h.cull = rng.chance(150) ? CullMode::kNone : CullMode::kBack; break;
        case MaterialClass::kAlphaTested: h.cull = rng.chance(700) ? CullMode::kNone : CullMode::kBack; break;
        case MaterialClass::kBlended:
        case MaterialClass::kWater:
            h.blend = alpha_blend();
            h.depth_write = false;
            h.cull = rng.chance(400) ? CullMode::kNone : CullMode::kBack;
            break;
        case MaterialClass::kAdditive:
            h.blend = alpha_blend();
            if (rng.chance(400)) h.blend.src_color = BlendFactor::kOne;
            h.blend.dst_color = BlendFactor::kOne;
            h.depth_write = false;
            h.cull = CullMode::kNone;
            if (rng.chance(100)) h.topology = Topology::kPointList;       // point sprites
            else if (rng.chance(60)) h.topology = Topology::kLineList;    // tracers
            break;
        case MaterialClass::kDecal:
            if (rng.chance(250)) {  // multiplicative decal (shadow blobs, scorch marks)
                h.blend.enable = true;
                h.blend.src_color = BlendFactor::kDstColor;
                h.blend.dst_color = BlendFactor::kZero;
            } else {
                h.blend = alpha_blend();
            }
            h.depth_write = false;
            break;
        case MaterialClass::kHud:
            h.blend = alpha_blend();
            h.depth_test = false;
            h.depth_write = false;
            h.depth_compare = rng.chance(500) ? CompareOp::kLessOrEqual : CompareOp::kAlways;  // stale when off
            h.cull = CullMode::kNone;
            h.topology = rng.chance(500) ? Topology::kTriangleStrip
                                         : (rng.chance(500) ? Topology::kTriangleFan : Topology::kTriangleList);
            if (rng.chance(250)) h.blend.write_mask = 0x7;
            pretransformed = true;
            break;
        case MaterialClass::kSky:
            h.depth_write = false;
            h.cull = rng.chance(500) ? CullMode::kFront : CullMode::kNone;
            break;
        case MaterialClass::kShadowVolume:
            // Two-sided z-fail stencil shadow volumes: no colour, no depth writes.
            h.stencil_test = true;
            h.depth_write = false;
            h.depth_compare = CompareOp::kLess;
            h.cull = CullMode::kNone;
            h.topology = Topology::kTriangleList;
            h.blend.write_mask = 0;
            h.front.depth_fail = StencilOp::kDecrementAndWrap;
            h.back.depth_fail = StencilOp::kIncrementAndWrap;
            if (rng.chance(300)) {  // z-pass variant
                h.front.depth_fail = h.back.depth_fail = StencilOp::kKeep;
                h.front.pass = StencilOp::kIncrementAndWrap;
                h.back.pass = StencilOp::kDecrementAndWrap;
            }
            break;
        case MaterialClass::kDepthOnly:
            h.blend.write_mask = 0;
            h.depth_compare = CompareOp::kLess;
            break;
        case MaterialClass::kOffscreen:
            h.color_format = Format::kR8G8B8A8Unorm;
            h.samples = 1;
            if (rng.chance(400)) {
                h.depth_format = Format::kUndefined;
                h.depth_test = h.depth_write = false;
            } else {
                h.depth_format = Format::kD16Unorm;
            }
            break;
    }

    switch (variant) {
        case HostVariant::kPrimary: break;
        case HostVariant::kCull:
            h.cull = h.cull == CullMode::kNone ? CullMode::kBack : CullMode::kNone;
            if (rng.chance(100)) h.cull = CullMode::kFront;  // mirrored geometry
            break;
        case HostVariant::kBlendFade:
            if (!h.blend.enable) {
                h.blend = alpha_blend();
                h.depth_write = false;
            } else {
                h.blend.src_color = BlendFactor::kOne;  // premultiplied-alpha version of the effect
                h.blend.dst_color = BlendFactor::kOneMinusSrcAlpha;
            }
            break;
        case HostVariant::kLayout: break;  // same state, another vertex format (below)
        case HostVariant::kTopology:
            h.topology = h.topology == Topology::kTriangleStrip ? Topology::kTriangleList : Topology::kTriangleStrip;
            if (rng.chance(150)) h.topology = Topology::kTriangleFan;
            break;
        case HostVariant::kDepthEqual:  // second lighting pass over already-laid depth
            h.depth_compare = CompareOp::kEqual;
            h.depth_write = false;
            h.blend.enable = true;
            h.blend.src_color = BlendFactor::kOne;
            h.blend.dst_color = BlendFactor::kOne;
            break;
        case HostVariant::kDecal:
            h.depth_write = false;
            if (!h.blend.enable) h.blend = alpha_blend();
            break;
    }
    if (!h.depth_test) h.depth_write = false;
    h.vertex = make_layout(rng, p, pretransformed, variant == HostVariant::kLayout);
    return h;
}

void append_host_json(std::string& out, const HostState& h) {
    StringSink s(out);
    s.raw("{\"topology\":");
    s.quoted(topology_name(h.topology));
    s.raw(",\"polygon_mode\":\"fill\",\"cull_mode\":");
    s.quoted(cull_name(h.cull));
    s.raw(",\"front_face\":");
    s.quoted(h.front_ccw ? "counter_clockwise" : "clockwise");
    s.raw(",\"depth\":{\"test\":");
    s.boolean(h.depth_test);
    s.raw(",\"write\":");
    s.boolean(h.depth_write);
    s.raw(",\"compare\":");
    s.quoted(compare_op_name(h.depth_compare));
    s.raw("},\"stencil\":{\"test\":");
    s.boolean(h.stencil_test);
    if (h.stencil_test) {
        auto face = [&](const char* name, const StencilFace& f) {
            s.raw(",\"");
            s.raw(name);
            s.raw("\":{\"fail_op\":");
            s.quoted(stencil_op_name(f.fail));
            s.raw(",\"pass_op\":");
            s.quoted(stencil_op_name(f.pass));
            s.raw(",\"depth_fail_op\":");
            s.quoted(stencil_op_name(f.depth_fail));
            s.raw(",\"compare_op\":");
            s.quoted(compare_op_name(f.compare));
            s.raw(",\"compare_mask\":");
            s.u64(f.compare_mask);
            s.raw(",\"write_mask\":");
            s.u64(f.write_mask);
            s.raw(",\"reference\":");
            s.u64(f.reference);
            s.ch('}');
        };
        face("front", h.front);
        face("back", h.back);
    }
    s.raw("},\"blend\":[{\"enable\":");
    s.boolean(h.blend.enable);
    s.raw(",\"src_color\":");
    s.quoted(blend_factor_name(h.blend.src_color));
    s.raw(",\"dst_color\":");
    s.quoted(blend_factor_name(h.blend.dst_color));
    s.raw(",\"color_op\":");
    s.quoted(blend_op_name(h.blend.color_op));
    s.raw(",\"src_alpha\":");
    s.quoted(blend_factor_name(h.blend.src_alpha));
    s.raw(",\"dst_alpha\":");
    s.quoted(blend_factor_name(h.blend.dst_alpha));
    s.raw(",\"alpha_op\":");
    s.quoted(blend_op_name(h.blend.alpha_op));
    s.raw(",\"write_mask\":\"");
    static constexpr char kChannels[] = "rgba";
    for (unsigned i = 0; i < 4; ++i)
        if (h.blend.write_mask & (1u << i)) s.ch(kChannels[i]);
    s.raw("\"}],\"color_formats\":[");
    s.quoted(format_name(h.color_format));
    s.raw("],\"depth_format\":");
    s.quoted(format_name(h.depth_format));
    s.raw(",\"samples\":");
    s.u64(h.samples);
    s.raw(",\"vertex\":{\"bindings\":[");
    for (std::size_t i = 0; i < h.vertex.strides.size(); ++i) {
        if (i) s.ch(',');
        s.raw("{\"binding\":");
        s.u64(i);
        s.raw(",\"stride\":");
        s.u64(h.vertex.strides[i]);
        s.raw(",\"rate\":\"vertex\"}");
    }
    s.raw("],\"attributes\":[");
    for (std::size_t i = 0; i < h.vertex.attributes.size(); ++i) {
        const VertexAttribute& a = h.vertex.attributes[i];
        if (i) s.ch(',');
        s.raw("{\"semantic\":");
        s.quoted(semantic_name(a.semantic));
        s.raw(",\"binding\":");
        s.u64(a.binding);
        s.raw(",\"format\":");
        s.quoted(format_name(a.format));
        s.raw(",\"offset\":");
        s.u64(a.offset);
        s.ch('}');
    }
    s.raw("]}}");
}

namespace {

// Constant colours a title would upload: material tints, packed light vectors, luminance weights.
std::uint32_t constant_colour(Rng& rng) {
    switch (rng.below(6)) {
        case 0: return 0xFFFFFFFFu;
        case 1: return 0xFF000000u | (rng.u32() & 0x00FFFFFFu);  // opaque tint
        case 2: return 0x80808080u + (rng.u32() & 0x3F3F3F3Fu);  // packed vector around 0.5
        case 3: return 0xFF4D961Du;                                // luminance weights (0.30, 0.59, 0.11)
        case 4: return (std::uint32_t{rng.u8()} << 24) | 0x00FFFFFFu;  // white with a fade alpha
        default: return rng.u32();
    }
}

}  // namespace

DynamicValues make_dynamic(Rng& rng, const Program& p, std::uint32_t area_fog_color) {
    DynamicValues d;
    d.stages = p.stages();
    const std::uint32_t c0 = constant_colour(rng), c1 = constant_colour(rng);
    const bool per_stage_c0 = (p.control & (1u << 12)) != 0, per_stage_c1 = (p.control & (1u << 16)) != 0;
    for (unsigned i = 0; i < d.stages; ++i) {
        // Without per-stage constants a driver still writes every stage's register, usually with one value.
        d.c0[i] = per_stage_c0 && i > 0 ? constant_colour(rng) : c0;
        d.c1[i] = per_stage_c1 && i > 0 ? constant_colour(rng) : c1;
    }
    d.final_c0 = rng.chance(600) ? 0u : constant_colour(rng);
    d.final_c1 = rng.chance(800) ? 0u : constant_colour(rng);
    d.fog_color = area_fog_color;
    if (p.alpha_test) {
        const std::uint8_t refs[] = {0x80, 0x80, 0x7F, 0x40, 0xA0, 0x01, 0x00, 0xC0};
        d.alpha_ref = refs[rng.below(8)];
    } else {
        d.alpha_ref = rng.chance(800) ? 0 : rng.u8();  // stale reference: must not matter
    }
    for (unsigned i = 1; i < 4; ++i) {
        if (p.tex_mode[i] != TexMode::kBumpEnvMap && p.tex_mode[i] != TexMode::kBumpEnvMapLuminance) continue;
        // A small rotation-and-scale of the ripple offsets (EMBM's usual 0.03-0.1), luminance 1.0 + offset.
        d.has_bump_env = true;
        const int a = 8 + static_cast<int>(rng.below(18)), c = static_cast<int>(rng.below(9)) - 4;
        d.bump_env[i] = {a, c, a, -c, 256, rng.chance(700) ? 0 : 32};
    }
    for (unsigned i = 0; i < 4; ++i) {
        if (p.color_key[i] == ColorKey::kNone) continue;
        d.has_color_keys = true;
        d.color_keys[i] = rng.chance(700) ? 0xFFFF00FFu : 0x00000000u;  // magenta or black
    }
    if (p.tex_mode[3] == TexMode::kDotRflctSpecConst) {
        d.has_eye_vector = true;
        d.eye_vector = {static_cast<int>(rng.below(65)) - 32, static_cast<int>(rng.below(65)) - 32, -256};
    }
    return d;
}

namespace {

// k/256 as an exact decimal ("-0.03125").
void fixed_256(StringSink& s, int k) {
    if (k < 0) s.ch('-');
    const unsigned v = static_cast<unsigned>(k < 0 ? -k : k);
    s.u64(v / 256);
    unsigned frac = (v % 256) * 390625u;  // 10^8 / 256: eight exact decimal digits
    if (frac == 0) return;
    char digits[9] = "00000000";
    for (int i = 7; i >= 0; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
    int end = 8;
    while (digits[end - 1] == '0') --end;
    s.ch('.');
    s.raw(std::string_view(digits, static_cast<std::size_t>(end)));
}

}  // namespace

void append_dynamic_json(std::string& out, const DynamicValues& d) {
    StringSink s(out);
    s.raw("{\"c0\":[");
    for (unsigned i = 0; i < d.stages; ++i) {
        if (i) s.ch(',');
        s.hex_word(d.c0[i]);
    }
    s.raw("],\"c1\":[");
    for (unsigned i = 0; i < d.stages; ++i) {
        if (i) s.ch(',');
        s.hex_word(d.c1[i]);
    }
    s.raw("],\"final_c0\":");
    s.hex_word(d.final_c0);
    s.raw(",\"final_c1\":");
    s.hex_word(d.final_c1);
    s.raw(",\"fog_color\":");
    s.hex_word(d.fog_color);
    s.raw(",\"alpha_ref\":");
    s.u64(d.alpha_ref);
    if (d.has_bump_env) {
        s.raw(",\"bump_env\":[");
        for (unsigned i = 0; i < 4; ++i) {
            const auto& b = d.bump_env[i];
            s.raw(i ? ",{\"matrix\":[" : "{\"matrix\":[");
            for (unsigned k = 0; k < 4; ++k) {
                if (k) s.ch(',');
                fixed_256(s, b[k]);
            }
            s.raw("],\"scale\":");
            fixed_256(s, b[4]);
            s.raw(",\"offset\":");
            fixed_256(s, b[5]);
            s.ch('}');
        }
        s.ch(']');
    }
    if (d.has_color_keys) {
        s.raw(",\"color_keys\":[");
        for (unsigned i = 0; i < 4; ++i) {
            if (i) s.ch(',');
            s.hex_word(d.color_keys[i]);
        }
        s.ch(']');
    }
    if (d.has_eye_vector) {
        s.raw(",\"eye_vector\":[");
        for (unsigned i = 0; i < 3; ++i) {
            if (i) s.ch(',');
            fixed_256(s, d.eye_vector[i]);
        }
        s.ch(']');
    }
    s.ch('}');
}

}  // namespace shaderbake::tracegen

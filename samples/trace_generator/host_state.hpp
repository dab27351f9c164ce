// SPDX-License-Identifier: MIT
#pragma once
// Host (Vulkan) pipeline state of a draw, and the dynamic values of a guest state, as the trace format
// names them (schemas/trace.md): enumerants without their prefix, in lower case.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nv2a_program.hpp"
#include "rng.hpp"

namespace shaderbake::tracegen {

enum class Topology : std::uint8_t { kPointList, kLineList, kLineStrip, kTriangleList, kTriangleStrip, kTriangleFan };
enum class CullMode : std::uint8_t { kNone, kFront, kBack, kFrontAndBack };
enum class BlendFactor : std::uint8_t {
    kZero, kOne, kSrcColor, kOneMinusSrcColor, kDstColor, kOneMinusDstColor, kSrcAlpha, kOneMinusSrcAlpha,
    kDstAlpha, kOneMinusDstAlpha, kConstantColor, kOneMinusConstantColor, kConstantAlpha, kOneMinusConstantAlpha,
};
enum class BlendOp : std::uint8_t { kAdd, kSubtract, kReverseSubtract, kMin, kMax };
enum class StencilOp : std::uint8_t {
    kKeep, kZero, kReplace, kIncrementAndClamp, kDecrementAndClamp, kInvert, kIncrementAndWrap, kDecrementAndWrap,
};
enum class Format : std::uint8_t {
    kUndefined, kR32Sfloat, kR32G32Sfloat, kR32G32B32Sfloat, kR32G32B32A32Sfloat, kB8G8R8A8Unorm, kR8G8B8A8Unorm,
    kR16G16Snorm, kR16G16B16A16Snorm, kR16G16Sfloat, kR5G6B5UnormPack16, kD24UnormS8Uint, kD16Unorm, kD32Sfloat,
};
enum class Semantic : std::uint8_t { kPosition, kDiffuse, kSpecular, kFog, kTexcoord0, kTexcoord1, kTexcoord2, kTexcoord3 };

struct BlendAttachment {
    bool enable = false;
    BlendFactor src_color = BlendFactor::kOne, dst_color = BlendFactor::kZero;
    BlendOp color_op = BlendOp::kAdd;
    BlendFactor src_alpha = BlendFactor::kOne, dst_alpha = BlendFactor::kZero;
    BlendOp alpha_op = BlendOp::kAdd;
    std::uint8_t write_mask = 0xF;  // bit 0 r, 1 g, 2 b, 3 a
};

struct StencilFace {
    StencilOp fail = StencilOp::kKeep, pass = StencilOp::kKeep, depth_fail = StencilOp::kKeep;
    CompareOp compare = CompareOp::kAlways;
    std::uint8_t compare_mask = 0xFF, write_mask = 0xFF, reference = 0;
};

struct VertexAttribute {
    Semantic semantic;
    std::uint8_t binding;
    Format format;
    std::uint16_t offset;
};

struct VertexLayout {
    std::vector<std::uint16_t> strides;  // one binding per entry, numbered from 0
    std::vector<VertexAttribute> attributes;
};

struct HostState {
    Topology topology = Topology::kTriangleList;
    CullMode cull = CullMode::kBack;
    bool front_ccw = true;
    bool depth_test = true, depth_write = true;
    CompareOp depth_compare = CompareOp::kLessOrEqual;
    bool stencil_test = false;
    StencilFace front, back;
    BlendAttachment blend;
    Format color_format = Format::kB8G8R8A8Unorm;
    Format depth_format = Format::kD24UnormS8Uint;
    std::uint8_t samples = 1;
    VertexLayout vertex;
};

// Render targets of the session: the main framebuffer is fixed for a whole capture; offscreen passes
// (shadow maps, reflections) use their own.
struct SessionTargets {
    Format color = Format::kB8G8R8A8Unorm;
    Format depth = Format::kD24UnormS8Uint;
    std::uint8_t samples = 1;
};
SessionTargets make_session_targets(Rng& rng);

// How a state's host differs from its program's primary host.
enum class HostVariant : std::uint8_t { kPrimary, kCull, kBlendFade, kLayout, kTopology, kDepthEqual, kDecal };

HostState make_host(Rng& rng, const Program& p, const SessionTargets& targets, HostVariant variant);
void append_host_json(std::string& out, const HostState& h);

struct DynamicValues {
    unsigned stages = 1;
    std::array<std::uint32_t, 8> c0{}, c1{};
    std::uint32_t final_c0 = 0, final_c1 = 0, fog_color = 0;
    std::uint8_t alpha_ref = 0;
    // Texture-shader values, in 1/256 units (written as exact decimals), each only for programs that read it.
    bool has_bump_env = false;
    std::array<std::array<int, 6>, 4> bump_env{};  // per stage: W0..W3, scale, offset
    bool has_color_keys = false;
    std::array<std::uint32_t, 4> color_keys{};
    bool has_eye_vector = false;
    std::array<int, 3> eye_vector{};
};
DynamicValues make_dynamic(Rng& rng, const Program& p, std::uint32_t area_fog_color);
void append_dynamic_json(std::string& out, const DynamicValues& d);

}  // namespace shaderbake::tracegen

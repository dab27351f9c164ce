// SPDX-License-Identifier: MIT
#include "lib/trace/vulkan_names.hpp"

#include <vulkan/vulkan_core.h>

#include "runtime_loader/shaderbake.h"

namespace shaderbake::vulkan_names {

namespace {

constexpr Name kTopologies[] = {
    {"point_list", VK_PRIMITIVE_TOPOLOGY_POINT_LIST},         {"line_list", VK_PRIMITIVE_TOPOLOGY_LINE_LIST},
    {"line_strip", VK_PRIMITIVE_TOPOLOGY_LINE_STRIP},         {"triangle_list", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST},
    {"triangle_strip", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP}, {"triangle_fan", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN},
};
constexpr Name kPolygonModes[] = {
    {"fill", VK_POLYGON_MODE_FILL}, {"line", VK_POLYGON_MODE_LINE}, {"point", VK_POLYGON_MODE_POINT}};
constexpr Name kCullModes[] = {{"none", VK_CULL_MODE_NONE},
                               {"front", VK_CULL_MODE_FRONT_BIT},
                               {"back", VK_CULL_MODE_BACK_BIT},
                               {"front_and_back", VK_CULL_MODE_FRONT_AND_BACK}};
constexpr Name kFrontFaces[] = {{"counter_clockwise", VK_FRONT_FACE_COUNTER_CLOCKWISE},
                                {"clockwise", VK_FRONT_FACE_CLOCKWISE}};
constexpr Name kCompareOps[] = {
    {"never", VK_COMPARE_OP_NEVER},     {"less", VK_COMPARE_OP_LESS},
    {"equal", VK_COMPARE_OP_EQUAL},     {"less_or_equal", VK_COMPARE_OP_LESS_OR_EQUAL},
    {"greater", VK_COMPARE_OP_GREATER}, {"not_equal", VK_COMPARE_OP_NOT_EQUAL},
    {"greater_or_equal", VK_COMPARE_OP_GREATER_OR_EQUAL}, {"always", VK_COMPARE_OP_ALWAYS},
};
constexpr Name kStencilOps[] = {
    {"keep", VK_STENCIL_OP_KEEP},
    {"zero", VK_STENCIL_OP_ZERO},
    {"replace", VK_STENCIL_OP_REPLACE},
    {"increment_and_clamp", VK_STENCIL_OP_INCREMENT_AND_CLAMP},
    {"decrement_and_clamp", VK_STENCIL_OP_DECREMENT_AND_CLAMP},
    {"invert", VK_STENCIL_OP_INVERT},
    {"increment_and_wrap", VK_STENCIL_OP_INCREMENT_AND_WRAP},
    {"decrement_and_wrap", VK_STENCIL_OP_DECREMENT_AND_WRAP},
};
constexpr Name kBlendFactors[] = {
    {"zero", VK_BLEND_FACTOR_ZERO},
    {"one", VK_BLEND_FACTOR_ONE},
    {"src_color", VK_BLEND_FACTOR_SRC_COLOR},
    {"one_minus_src_color", VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR},
    {"dst_color", VK_BLEND_FACTOR_DST_COLOR},
    {"one_minus_dst_color", VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR},
    {"src_alpha", VK_BLEND_FACTOR_SRC_ALPHA},
    {"one_minus_src_alpha", VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA},
    {"dst_alpha", VK_BLEND_FACTOR_DST_ALPHA},
    {"one_minus_dst_alpha", VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA},
    {"constant_color", VK_BLEND_FACTOR_CONSTANT_COLOR},
    {"one_minus_constant_color", VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR},
    {"constant_alpha", VK_BLEND_FACTOR_CONSTANT_ALPHA},
    {"one_minus_constant_alpha", VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA},
    {"src_alpha_saturate", VK_BLEND_FACTOR_SRC_ALPHA_SATURATE},
};
constexpr Name kBlendOps[] = {{"add", VK_BLEND_OP_ADD},
                              {"subtract", VK_BLEND_OP_SUBTRACT},
                              {"reverse_subtract", VK_BLEND_OP_REVERSE_SUBTRACT},
                              {"min", VK_BLEND_OP_MIN},
                              {"max", VK_BLEND_OP_MAX}};
constexpr Name kInputRates[] = {{"vertex", VK_VERTEX_INPUT_RATE_VERTEX}, {"instance", VK_VERTEX_INPUT_RATE_INSTANCE}};
constexpr Name kDynamicStates[] = {
    {"viewport", SBK_DYNAMIC_VIEWPORT},
    {"scissor", SBK_DYNAMIC_SCISSOR},
    {"line_width", SBK_DYNAMIC_LINE_WIDTH},
    {"depth_bias", SBK_DYNAMIC_DEPTH_BIAS},
    {"blend_constants", SBK_DYNAMIC_BLEND_CONSTANTS},
    {"depth_bounds", SBK_DYNAMIC_DEPTH_BOUNDS},
    {"stencil_compare_mask", SBK_DYNAMIC_STENCIL_COMPARE_MASK},
    {"stencil_write_mask", SBK_DYNAMIC_STENCIL_WRITE_MASK},
    {"stencil_reference", SBK_DYNAMIC_STENCIL_REFERENCE},
};
constexpr Name kColorFormats[] = {
    {"r8g8b8a8_unorm", VK_FORMAT_R8G8B8A8_UNORM},
    {"r8g8b8a8_srgb", VK_FORMAT_R8G8B8A8_SRGB},
    {"b8g8r8a8_unorm", VK_FORMAT_B8G8R8A8_UNORM},
    {"b8g8r8a8_srgb", VK_FORMAT_B8G8R8A8_SRGB},
    {"r5g6b5_unorm_pack16", VK_FORMAT_R5G6B5_UNORM_PACK16},
    {"b5g6r5_unorm_pack16", VK_FORMAT_B5G6R5_UNORM_PACK16},
    {"a1r5g5b5_unorm_pack16", VK_FORMAT_A1R5G5B5_UNORM_PACK16},
    {"r5g5b5a1_unorm_pack16", VK_FORMAT_R5G5B5A1_UNORM_PACK16},
    {"r4g4b4a4_unorm_pack16", VK_FORMAT_R4G4B4A4_UNORM_PACK16},
    {"a2b10g10r10_unorm_pack32", VK_FORMAT_A2B10G10R10_UNORM_PACK32},
    {"r8_unorm", VK_FORMAT_R8_UNORM},
    {"r8g8_unorm", VK_FORMAT_R8G8_UNORM},
    {"r16g16b16a16_sfloat", VK_FORMAT_R16G16B16A16_SFLOAT},
    {"r32g32b32a32_sfloat", VK_FORMAT_R32G32B32A32_SFLOAT},
};
constexpr Name kDepthFormats[] = {
    {"undefined", VK_FORMAT_UNDEFINED},
    {"d16_unorm", VK_FORMAT_D16_UNORM},
    {"x8_d24_unorm_pack32", VK_FORMAT_X8_D24_UNORM_PACK32},
    {"d32_sfloat", VK_FORMAT_D32_SFLOAT},
    {"s8_uint", VK_FORMAT_S8_UINT},
    {"d16_unorm_s8_uint", VK_FORMAT_D16_UNORM_S8_UINT},
    {"d24_unorm_s8_uint", VK_FORMAT_D24_UNORM_S8_UINT},
    {"d32_sfloat_s8_uint", VK_FORMAT_D32_SFLOAT_S8_UINT},
};
constexpr Name kVertexFormats[] = {
    {"r32_sfloat", VK_FORMAT_R32_SFLOAT},
    {"r32g32_sfloat", VK_FORMAT_R32G32_SFLOAT},
    {"r32g32b32_sfloat", VK_FORMAT_R32G32B32_SFLOAT},
    {"r32g32b32a32_sfloat", VK_FORMAT_R32G32B32A32_SFLOAT},
    {"r16g16_sfloat", VK_FORMAT_R16G16_SFLOAT},
    {"r16g16b16a16_sfloat", VK_FORMAT_R16G16B16A16_SFLOAT},
    {"r16_snorm", VK_FORMAT_R16_SNORM},
    {"r16g16_snorm", VK_FORMAT_R16G16_SNORM},
    {"r16g16b16_snorm", VK_FORMAT_R16G16B16_SNORM},
    {"r16g16b16a16_snorm", VK_FORMAT_R16G16B16A16_SNORM},
    {"r16g16_sscaled", VK_FORMAT_R16G16_SSCALED},
    {"r16g16b16a16_sscaled", VK_FORMAT_R16G16B16A16_SSCALED},
    {"r8g8b8a8_unorm", VK_FORMAT_R8G8B8A8_UNORM},
    {"b8g8r8a8_unorm", VK_FORMAT_B8G8R8A8_UNORM},
    {"r8g8b8a8_snorm", VK_FORMAT_R8G8B8A8_SNORM},
    {"r8g8b8a8_uscaled", VK_FORMAT_R8G8B8A8_USCALED},
    {"b10g11r11_ufloat_pack32", VK_FORMAT_B10G11R11_UFLOAT_PACK32},
};

}  // namespace

std::span<const Name> topologies() { return kTopologies; }
std::span<const Name> polygon_modes() { return kPolygonModes; }
std::span<const Name> cull_modes() { return kCullModes; }
std::span<const Name> front_faces() { return kFrontFaces; }
std::span<const Name> compare_ops() { return kCompareOps; }
std::span<const Name> stencil_ops() { return kStencilOps; }
std::span<const Name> blend_factors() { return kBlendFactors; }
std::span<const Name> blend_ops() { return kBlendOps; }
std::span<const Name> input_rates() { return kInputRates; }
std::span<const Name> dynamic_states() { return kDynamicStates; }
std::span<const Name> color_formats() { return kColorFormats; }
std::span<const Name> depth_formats() { return kDepthFormats; }
std::span<const Name> vertex_formats() { return kVertexFormats; }

std::optional<uint32_t> find(std::span<const Name> table, std::string_view name) {
  for (const Name& n : table)
    if (n.name == name) return n.value;
  return std::nullopt;
}

std::string name_of(std::span<const Name> table, uint32_t value) {
  for (const Name& n : table)
    if (n.value == value) return std::string(n.name);
  return std::to_string(value);
}

std::string list(std::span<const Name> table) {
  std::string out;
  for (const Name& n : table) {
    if (!out.empty()) out += ", ";
    out += n.name;
  }
  return out;
}

}  // namespace shaderbake::vulkan_names

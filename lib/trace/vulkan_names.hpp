// SPDX-License-Identifier: MIT
#pragma once

// Names of the host pipeline state in traces: the Vulkan enumerant without its prefix, in lower case
// ("triangle_list", "one_minus_src_alpha", "r8g8b8a8_unorm"), mapped to the enumerant's numeric value.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace shaderbake::vulkan_names {

struct Name {
  std::string_view name;
  uint32_t value;
};

std::span<const Name> topologies();
std::span<const Name> polygon_modes();
std::span<const Name> cull_modes();
std::span<const Name> front_faces();
std::span<const Name> compare_ops();
std::span<const Name> stencil_ops();
std::span<const Name> blend_factors();
std::span<const Name> blend_ops();
std::span<const Name> input_rates();
std::span<const Name> dynamic_states();   // value: SBK_DYNAMIC_* bit
std::span<const Name> color_formats();    // colour attachment formats
std::span<const Name> depth_formats();    // depth/stencil attachment formats, "undefined" = none
std::span<const Name> vertex_formats();   // vertex attribute formats

std::optional<uint32_t> find(std::span<const Name> table, std::string_view name);
// The name of `value`, or the decimal value when the table has none.
std::string name_of(std::span<const Name> table, uint32_t value);
// "a, b, c" — for error messages that list what is accepted.
std::string list(std::span<const Name> table);

}  // namespace shaderbake::vulkan_names

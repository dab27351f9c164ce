// SPDX-License-Identifier: MIT
#include "cli/bundle_views.hpp"

#include <cstdio>
#include <string>

#include "lib/core/hex.hpp"
#include "lib/trace/vulkan_names.hpp"

namespace shaderbake::cli {

namespace {

const char* descriptor_type_name(uint32_t type) {
  switch (type) {
    case 1: return "combined_image_sampler";
    case 6: return "uniform_buffer";
    case 7: return "storage_buffer";
    default: return "other";
  }
}

}  // namespace

nlohmann::ordered_json reflection_json(const compile::Reflection& r) {
  nlohmann::ordered_json out;
  out["bindings"] = nlohmann::ordered_json::array();
  for (const auto& b : r.bindings) {
    nlohmann::ordered_json j;
    j["set"] = b.set;
    j["binding"] = b.binding;
    j["kind"] = b.kind == compile::Reflection::Binding::Kind::sampled_image    ? "sampled_image"
                : b.kind == compile::Reflection::Binding::Kind::uniform_buffer ? "uniform_buffer"
                                                                               : "storage_buffer";
    if (b.dim) j["dim"] = b.dim == 1 ? "2d" : b.dim == 2 ? "3d" : "cube";
    if (b.size) j["size"] = b.size;
    out["bindings"].push_back(j);
  }
  out["push_constant_size"] = r.push_constant_size;
  out["inputs"] = nlohmann::ordered_json::array();
  for (const auto& v : r.inputs) out["inputs"].push_back({{"location", v.location}, {"components", v.components}});
  return out;
}

nlohmann::ordered_json layout_json(const sbk_layout& layout) {
  nlohmann::ordered_json out;
  out["bindings"] = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < layout.binding_count && i < SBK_MAX_LAYOUT_BINDINGS; ++i) {
    const sbk_layout_binding& b = layout.bindings[i];
    nlohmann::ordered_json stages = nlohmann::ordered_json::array();
    if (b.stage_flags & 1) stages.push_back("vertex");
    if (b.stage_flags & 16) stages.push_back("fragment");
    out["bindings"].push_back({{"binding", b.binding},
                               {"type", descriptor_type_name(b.descriptor_type)},
                               {"count", b.descriptor_count},
                               {"stages", stages}});
  }
  out["push_constant_size"] = layout.push_constant_size;
  return out;
}

nlohmann::ordered_json host_state_json(const sbk_host_state& h) {
  namespace vn = vulkan_names;
  nlohmann::ordered_json out;
  out["topology"] = vn::name_of(vn::topologies(), h.topology);
  out["polygon_mode"] = vn::name_of(vn::polygon_modes(), h.polygon_mode);
  out["cull_mode"] = vn::name_of(vn::cull_modes(), h.cull_mode);
  out["front_face"] = vn::name_of(vn::front_faces(), h.front_face);
  out["depth"] = {{"test", h.depth_test != 0}, {"write", h.depth_write != 0},
                  {"compare", vn::name_of(vn::compare_ops(), h.depth_compare)}};
  out["stencil"] = {{"test", h.stencil_test != 0}};
  out["blend"] = nlohmann::ordered_json::array();
  out["color_formats"] = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < h.color_count && i < SBK_MAX_COLOR_ATTACHMENTS; ++i) {
    const sbk_blend_attachment& b = h.blend[i];
    out["color_formats"].push_back(vn::name_of(vn::color_formats(), h.color_formats[i]));
    nlohmann::ordered_json j = {{"enable", b.enable != 0}};
    if (b.enable) {
      j["src_color"] = vn::name_of(vn::blend_factors(), b.src_color);
      j["dst_color"] = vn::name_of(vn::blend_factors(), b.dst_color);
      j["color_op"] = vn::name_of(vn::blend_ops(), b.color_op);
      j["src_alpha"] = vn::name_of(vn::blend_factors(), b.src_alpha);
      j["dst_alpha"] = vn::name_of(vn::blend_factors(), b.dst_alpha);
      j["alpha_op"] = vn::name_of(vn::blend_ops(), b.alpha_op);
    }
    j["write_mask"] = std::string(b.write_mask & 1 ? "r" : "") + (b.write_mask & 2 ? "g" : "") +
                      (b.write_mask & 4 ? "b" : "") + (b.write_mask & 8 ? "a" : "");
    out["blend"].push_back(j);
  }
  out["depth_format"] = vn::name_of(vn::depth_formats(), h.depth_format);
  out["samples"] = h.samples;
  nlohmann::ordered_json dynamic = nlohmann::ordered_json::array();
  for (const auto& name : vn::dynamic_states())
    if (h.dynamic_states & name.value) dynamic.push_back(name.name);
  out["dynamic"] = dynamic;
  nlohmann::ordered_json vertex;
  vertex["bindings"] = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < h.binding_count && i < SBK_MAX_VERTEX_BINDINGS; ++i)
    vertex["bindings"].push_back({{"binding", h.bindings[i].binding},
                                  {"stride", h.bindings[i].stride},
                                  {"rate", vn::name_of(vn::input_rates(), h.bindings[i].input_rate)}});
  vertex["attributes"] = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < h.attribute_count && i < SBK_MAX_VERTEX_ATTRIBUTES; ++i)
    vertex["attributes"].push_back({{"location", h.attributes[i].location},
                                    {"binding", h.attributes[i].binding},
                                    {"format", vn::name_of(vn::vertex_formats(), h.attributes[i].format)},
                                    {"offset", h.attributes[i].offset}});
  out["vertex"] = vertex;
  return out;
}

}  // namespace shaderbake::cli

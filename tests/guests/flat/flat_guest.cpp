// SPDX-License-Identifier: MIT
#include "tests/guests/flat/flat_guest.hpp"

#include <array>
#include <cstdio>

#include "lib/core/hex.hpp"

namespace shaderbake::flat {

namespace {

constexpr std::string_view kRejection = "reads_vertex_color";
constexpr uint32_t kPositionLocation = 0, kColorLocation = 1;

Error not_a_key(std::string_view kind) {
  Error e;
  e.reason = "not_a_guest_key";
  e.message = "the key is not a flat " + std::string(kind) + " key";
  return e;
}

bool is_exact_key(std::span<const uint8_t> k) {
  return k.size() == FlatGuest::kExactKeySize && k[0] == FlatGuest::kGuestId && k[1] == SBK_KEY_KIND_EXACT &&
         k[2] == 1 && k[3] == 0 && k[4] <= 1 && (k[4] == 0 || (k[5] | k[6] | k[7]) == 0);
}

std::vector<uint8_t> family_key() { return {FlatGuest::kGuestId, SBK_KEY_KIND_FAMILY, 1, 0}; }

bool reads_colour_input(const compile::Reflection& fragment) {
  for (const auto& v : fragment.inputs)
    if (v.location == 0) return true;
  return false;
}

bool host_supplies(const sbk_host_state& host, uint32_t location) {
  for (uint32_t i = 0; i < host.attribute_count; ++i)
    if (host.attributes[i].location == location) return true;
  return false;
}

compile::CompileJob job(compile::ShaderStage stage, std::string source, std::string emitter_id) {
  compile::CompileJob j;
  j.stage = stage;
  j.source = std::move(source);
  j.emitter_id = std::move(emitter_id);
  return j;
}

std::string vertex_glsl(bool position, bool colour_attribute, bool colour_varying) {
  std::string s = "#version 450\n";
  if (position) s += "layout(location = 0) in vec4 in_position;\n";
  if (colour_attribute) s += "layout(location = 1) in vec4 in_color;\n";
  if (colour_varying) s += "layout(location = 0) out vec4 out_color;\n";
  s += "void main() {\n";
  s += position ? "  gl_Position = in_position;\n" : "  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);\n";
  if (colour_varying) s += colour_attribute ? "  out_color = in_color;\n" : "  out_color = vec4(1.0);\n";
  s += "}\n";
  return s;
}

}  // namespace

Result<ProgramKeys> FlatGuest::decode_program(const json::FieldText& program) const {
  return program.parse([&](json::od::value& root, const json::RecordContext& ctx) -> Result<ProgramKeys> {
    auto object = json::read_object(root, ctx, program.pointer());
    if (!object) return std::move(object).error();
    static constexpr std::array<std::string_view, 2> kNames = {"mode", "color"};
    uint8_t mode = 0;
    uint32_t color = 0;
    uint64_t seen = 0;
    Status s = json::for_each_field(*object, kNames, true, ctx, program.pointer(), &seen,
                                    [&](size_t index, json::od::value& value, const json::Pointer& pointer) -> Status {
                                      if (index == 1) {
                                        auto word = json::read_word(value, ctx, pointer);
                                        if (!word) return std::move(word).error();
                                        color = *word;
                                        return ok_status();
                                      }
                                      const char* at = json::token_position(value);
                                      auto name = json::read_string(value, ctx, pointer);
                                      if (!name) return std::move(name).error();
                                      if (*name != "solid" && *name != "vertex_color")
                                        return ctx.error(at, pointer, "unknown_name",
                                                         "mode must be solid or vertex_color");
                                      mode = *name == "solid" ? 0 : 1;
                                      return ok_status();
                                    });
    if (!s) return std::move(s).error();
    static constexpr std::array<size_t, 2> kRequired = {0, 1};
    if (Status r = json::require_fields(seen, kNames, kRequired, ctx, program.text().data(), program.pointer()); !r)
      return std::move(r).error();
    if (mode == 1) color = 0;  // the vertex colour mode never reads it
    ProgramKeys keys;
    keys.exact_key = {kGuestId,
                      SBK_KEY_KIND_EXACT,
                      1,
                      0,
                      mode,
                      static_cast<uint8_t>(color >> 16),
                      static_cast<uint8_t>(color >> 8),
                      static_cast<uint8_t>(color)};
    keys.family_key = family_key();
    if (mode == 1) keys.rejection = std::string(kRejection);
    return keys;
  });
}

Status FlatGuest::check_dynamic(const json::FieldText& dynamic) const {
  return dynamic.parse([&](json::od::value& root, const json::RecordContext& ctx) -> Status {
    json::od::json_type type;
    if (auto err = root.type().get(type)) return ctx.json_error(err, json::token_position(root), dynamic.pointer());
    if (type != json::od::json_type::object)
      return ctx.error(json::token_position(root), dynamic.pointer(), "wrong_type", "\"dynamic\" must be an object");
    return json::skip_validated(root, ctx, dynamic.pointer());
  });
}

Result<compile::CompileJob> FlatGuest::exact_shader(std::span<const uint8_t> k) const {
  if (!is_exact_key(k)) return not_a_key("exact");
  if (k[4] == 1)
    return job(compile::ShaderStage::fragment,
               "#version 450\nlayout(location = 0) in vec4 in_color;\nlayout(location = 0) out vec4 frag;\n"
               "void main() { frag = in_color; }\n",
               exact_emitter_id());
  char rgb[96];
  std::snprintf(rgb, sizeof rgb, "vec3(%u.0, %u.0, %u.0) / 255.0", k[5], k[6], k[7]);
  return job(compile::ShaderStage::fragment,
             "#version 450\nlayout(set = 0, binding = 0) uniform Alpha { float alpha; } u;\n"
             "layout(location = 0) out vec4 frag;\nvoid main() { frag = vec4(" +
                 std::string(rgb) + ", u.alpha); }\n",
             exact_emitter_id());
}

Result<compile::CompileJob> FlatGuest::fallback_shader(std::span<const uint8_t> family) const {
  if (const Status s = check_family_key(family); !s) return s.error();
  return job(compile::ShaderStage::fragment,
             "#version 450\nlayout(set = 0, binding = 0) uniform Packet { vec4 color; } u;\n"
             "layout(location = 0) out vec4 frag;\nvoid main() { frag = u.color; }\n",
             fallback_emitter_id());
}

Result<compile::CompileJob> FlatGuest::vertex_shader(std::span<const uint8_t> /*shader_key*/, const sbk_host_state& host,
                                                     const compile::Reflection& fragment) const {
  return job(compile::ShaderStage::vertex,
             vertex_glsl(host_supplies(host, kPositionLocation), host_supplies(host, kColorLocation),
                         reads_colour_input(fragment)),
             vertex_emitter_id());
}

Result<compile::CompileJob> FlatGuest::dynamic_vertex_shader(std::span<const uint8_t> /*family_key*/,
                                                             const compile::Reflection& fragment) const {
  return job(compile::ShaderStage::vertex, vertex_glsl(true, true, reads_colour_input(fragment)), vertex_emitter_id());
}

VertexAttributeDefaults FlatGuest::vertex_attribute_defaults() const {
  VertexAttributeDefaults out;
  out.location_mask = 0b11;
  out.values[0] = {0.0f, 0.0f, 0.0f, 1.0f};
  out.values[1] = {1.0f, 1.0f, 1.0f, 1.0f};
  return out;
}

uint32_t FlatGuest::rejection_code(std::string_view reason) const {
  if (reason.empty()) return 0;
  return reason == kRejection ? 1 : UINT32_MAX;
}

std::string FlatGuest::rejection_name(uint32_t code) const {
  if (code == 0) return "";
  if (code == 1) return std::string(kRejection);
  return "unknown_" + std::to_string(code);
}

Result<ExactKeyView> FlatGuest::describe_exact_key(std::span<const uint8_t> k) const {
  if (!is_exact_key(k)) return not_a_key("exact");
  ExactKeyView view;
  view.program = {{"mode", k[4] == 0 ? "solid" : "vertex_color"},
                  {"color", hex_word(uint32_t{k[5]} << 16 | uint32_t{k[6]} << 8 | k[7])}};
  if (k[4] == 1) {
    view.admission = 1;
    view.admission_where = "/mode";
  } else {
    view.family_key = family_key();
  }
  return view;
}

Status FlatGuest::check_family_key(std::span<const uint8_t> family) const {
  const std::vector<uint8_t> expected = family_key();
  if (!std::equal(family.begin(), family.end(), expected.begin(), expected.end())) return not_a_key("family");
  return ok_status();
}

}  // namespace shaderbake::flat

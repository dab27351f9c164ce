// SPDX-License-Identifier: MIT
#include "guests/nv2a/program_json.hpp"

#include <array>

#include "lib/core/hex.hpp"
#include "lib/trace/vulkan_names.hpp"

namespace shaderbake::nv2a {

namespace {

using json::od::value;
using json::RecordContext;

constexpr std::array<std::string_view, SBK_NV2A_TEXTURE_MODE_COUNT> kTextureModeNames = {
    "none",      "project2d", "project3d",      "cube",           "passthru",       "clipplane",    "bumpenvmap",
    "bumpenvmap_luminance",   "brdf",           "dot_st",         "dot_zw",         "dot_rflct_diff",
    "dot_rflct_spec",         "dot_str_3d",     "dot_str_cube",   "dependent_ar",   "dependent_gb",
    "dot_product",            "dot_rflct_spec_const"};

Status read_texture_mode(value& v, uint8_t* out, const RecordContext& ctx, const json::Pointer& pointer) {
  const char* at = json::token_position(v);
  json::od::json_type type;
  if (auto err = v.type().get(type)) return ctx.json_error(err, at, pointer);
  if (type == json::od::json_type::number) {
    auto code = json::read_uint_in(v, SBK_NV2A_TEXTURE_MODE_MAX, ctx, pointer);
    if (!code) return std::move(code).error();
    *out = static_cast<uint8_t>(*code);
    return ok_status();
  }
  auto name = json::read_string(v, ctx, pointer);
  if (!name) return std::move(name).error();
  auto mode = texture_mode_from_name(*name);
  if (!mode) {
    std::string accepted;
    for (auto n : kTextureModeNames) accepted += (accepted.empty() ? "" : ", ") + std::string(n);
    return ctx.error(at, pointer, "unknown_name",
                     "field " + pointer.str() + " is \"" + std::string(name->substr(0, 40)) +
                         "\"; accepted: " + accepted + ", or a code 0..31");
  }
  *out = *mode;
  return ok_status();
}

template <size_t N, class ReadOne>
Status read_fixed_array(value& v, const RecordContext& ctx, const json::Pointer& pointer, ReadOne&& read_one) {
  const char* at = json::token_position(v);
  auto count = json::for_each_element(v, N, ctx, pointer, read_one);
  if (!count) return std::move(count).error();
  if (*count != N)
    return ctx.error(at, pointer, "out_of_range",
                     pointer.str() + " has " + std::to_string(*count) + " entries; it must have exactly " + std::to_string(N));
  return ok_status();
}

Status read_alpha_test(value& v, sbk_nv2a_program* p, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 2> kNames = {"enabled", "func"};
  const char* at = json::token_position(v);
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  p->alpha_test_func = SBK_COMPARE_ALWAYS;
  Status s = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& fp) -> Status {
    if (i == 0) {
      auto b = json::read_bool(f, ctx, fp);
      if (!b) return std::move(b).error();
      p->alpha_test_enabled = *b ? 1 : 0;
      return ok_status();
    }
    const char* fat = json::token_position(f);
    auto name = json::read_string(f, ctx, fp);
    if (!name) return std::move(name).error();
    auto func = vulkan_names::find(vulkan_names::compare_ops(), *name);
    if (!func)
      return ctx.error(fat, fp, "unknown_name",
                       "field " + fp.str() + " is \"" + std::string(name->substr(0, 40)) +
                           "\"; accepted: " + vulkan_names::list(vulkan_names::compare_ops()));
    p->alpha_test_func = static_cast<uint8_t>(*func);
    return ok_status();
  });
  if (!s) return s;
  static constexpr std::array<size_t, 1> kRequired = {0};
  s = json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  if (!s) return s;
  if (p->alpha_test_enabled && !(seen & 2))
    return ctx.error(at, json::Pointer(pointer, "func"), "missing_field", "an enabled alpha test needs \"func\"");
  return ok_status();
}

}  // namespace

std::optional<std::string_view> texture_mode_name(uint8_t mode) {
  if (mode < kTextureModeNames.size()) return kTextureModeNames[mode];
  return std::nullopt;
}

std::optional<uint8_t> texture_mode_from_name(std::string_view name) {
  for (size_t i = 0; i < kTextureModeNames.size(); ++i)
    if (kTextureModeNames[i] == name) return static_cast<uint8_t>(i);
  return std::nullopt;
}

Result<sbk_nv2a_program> decode_program(value& program, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 9> kNames = {
      "combiner_control", "rgb_inputs",    "rgb_outputs",     "alpha_inputs", "alpha_outputs",
      "final_inputs",     "texture_modes", "texture_enabled", "alpha_test"};
  const char* at = json::token_position(program);
  auto obj = json::read_object(program, ctx, pointer);
  if (!obj) return std::move(obj).error();

  sbk_nv2a_program p{};
  p.alpha_test_func = SBK_COMPARE_ALWAYS;
  std::array<uint32_t, 4> stage_array_count{};
  std::array<const char*, 4> stage_array_at{};
  uint64_t seen = 0;
  Status s = json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& fp) -> Status {
    switch (i) {
      case 0: {
        auto w = json::read_word(f, ctx, fp);
        if (!w) return std::move(w).error();
        p.combiner_control = *w;
        return ok_status();
      }
      case 1:
      case 2:
      case 3:
      case 4: {
        uint32_t* target = i == 1 ? p.rgb_inputs : i == 2 ? p.rgb_outputs : i == 3 ? p.alpha_inputs : p.alpha_outputs;
        stage_array_at[i - 1] = json::token_position(f);
        auto n = json::read_words(f, target, SBK_NV2A_MAX_STAGES, ctx, fp);
        if (!n) return std::move(n).error();
        stage_array_count[i - 1] = *n;
        return ok_status();
      }
      case 5: {
        const char* fat = json::token_position(f);
        auto n = json::read_words(f, p.final_inputs, 2, ctx, fp);
        if (!n) return std::move(n).error();
        if (*n != 2)
          return ctx.error(fat, fp, "out_of_range", fp.str() + " must have exactly 2 entries (the two final combiner words)");
        return ok_status();
      }
      case 6:
        return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
          return read_texture_mode(item, &p.texture_modes[k], ctx, ip);
        });
      case 7:
        return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
          auto b = json::read_bool(item, ctx, ip);
          if (!b) return std::move(b).error();
          p.texture_enabled[k] = *b ? 1 : 0;
          return ok_status();
        });
      default:
        return read_alpha_test(f, &p, ctx, fp);
    }
  });
  if (!s) return std::move(s).error();
  static constexpr std::array<size_t, 6> kRequired = {0, 1, 2, 3, 4, 5};
  s = json::require_fields(seen, kNames, kRequired, ctx, at, pointer);
  if (!s) return std::move(s).error();

  // Every stage the hardware runs must have its words; entries past the stage count are ignored.
  uint32_t stages = sbk_nv2a_stage_count(&p);
  if (stages > SBK_NV2A_MAX_STAGES) stages = SBK_NV2A_MAX_STAGES;
  for (size_t k = 0; k < 4; ++k) {
    if (stage_array_count[k] < stages) {
      const json::Pointer fp(pointer, kNames[k + 1]);
      return ctx.error(stage_array_at[k], fp, "missing_field",
                       fp.str() + " has " + std::to_string(stage_array_count[k]) + " entries, but combiner_control runs " +
                           std::to_string(stages) + " stages");
    }
  }
  return p;
}

Result<sbk_nv2a_dynamic> decode_dynamic(value& dynamic, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 6> kNames = {"c0", "c1", "final_c0", "final_c1", "fog_color", "alpha_ref"};
  auto obj = json::read_object(dynamic, ctx, pointer);
  if (!obj) return std::move(obj).error();
  sbk_nv2a_dynamic d{};
  uint64_t seen = 0;
  Status s = json::for_each_field(*obj, kNames, false, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& fp) -> Status {
    if (i <= 1) {
      auto n = json::read_words(f, i == 0 ? d.c0 : d.c1, SBK_NV2A_MAX_STAGES, ctx, fp);
      if (!n) return std::move(n).error();
      return ok_status();
    }
    if (i == 5) {
      auto ref = json::read_uint_in(f, 255, ctx, fp);
      if (!ref) return std::move(ref).error();
      d.alpha_ref = static_cast<uint8_t>(*ref);
      return ok_status();
    }
    auto w = json::read_word(f, ctx, fp);
    if (!w) return std::move(w).error();
    (i == 2 ? d.final_c0 : i == 3 ? d.final_c1 : d.fog_color) = *w;
    return ok_status();
  });
  if (!s) return std::move(s).error();
  return d;
}

nlohmann::ordered_json program_json(const sbk_nv2a_program& p) {
  nlohmann::ordered_json out;
  out["combiner_control"] = hex_word(p.combiner_control);
  uint32_t stages = sbk_nv2a_stage_count(&p);
  if (stages > SBK_NV2A_MAX_STAGES) stages = SBK_NV2A_MAX_STAGES;
  for (const char* field : {"rgb_inputs", "rgb_outputs", "alpha_inputs", "alpha_outputs"})
    out[field] = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < stages; ++i) {
    out["rgb_inputs"].push_back(hex_word(p.rgb_inputs[i]));
    out["rgb_outputs"].push_back(hex_word(p.rgb_outputs[i]));
    out["alpha_inputs"].push_back(hex_word(p.alpha_inputs[i]));
    out["alpha_outputs"].push_back(hex_word(p.alpha_outputs[i]));
  }
  out["final_inputs"] = {hex_word(p.final_inputs[0]), hex_word(p.final_inputs[1])};
  out["texture_modes"] = nlohmann::ordered_json::array();
  out["texture_enabled"] = nlohmann::ordered_json::array();
  for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    const std::optional<std::string_view> mode = texture_mode_name(p.texture_modes[i]);
    out["texture_modes"].push_back(mode ? std::string(*mode) : "reserved_" + std::to_string(p.texture_modes[i]));
    out["texture_enabled"].push_back(p.texture_enabled[i] != 0);
  }
  out["alpha_test"] = {{"enabled", p.alpha_test_enabled != 0},
                       {"func", vulkan_names::name_of(vulkan_names::compare_ops(), p.alpha_test_func & 7u)}};
  return out;
}

}  // namespace shaderbake::nv2a

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

constexpr std::array<std::string_view, 4> kColorKeyNames = {"none", "kill_alpha", "kill_color", "discard"};

// One entry of texture_control: {"alpha_kill": bool, "color_key": name or code 0..3}, both optional.
Status read_texture_control(value& v, sbk_nv2a_program* p, size_t stage, const RecordContext& ctx,
                            const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 2> kNames = {"alpha_kill", "color_key"};
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  return json::for_each_field(*obj, kNames, true, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& fp) -> Status {
    if (i == 0) {
      auto b = json::read_bool(f, ctx, fp);
      if (!b) return std::move(b).error();
      p->texture_alpha_kill[stage] = *b ? 1 : 0;
      return ok_status();
    }
    const char* at = json::token_position(f);
    json::od::json_type type;
    if (auto err = f.type().get(type)) return ctx.json_error(err, at, fp);
    if (type == json::od::json_type::number) {
      auto code = json::read_uint_in(f, 3, ctx, fp);
      if (!code) return std::move(code).error();
      p->texture_color_key[stage] = static_cast<uint8_t>(*code);
      return ok_status();
    }
    auto name = json::read_string(f, ctx, fp);
    if (!name) return std::move(name).error();
    for (size_t k = 0; k < kColorKeyNames.size(); ++k)
      if (kColorKeyNames[k] == *name) {
        p->texture_color_key[stage] = static_cast<uint8_t>(k);
        return ok_status();
      }
    return ctx.error(at, fp, "unknown_name",
                     "field " + fp.str() + " is \"" + std::string(name->substr(0, 40)) +
                         "\"; accepted: none, kill_alpha, kill_color, discard, or a code 0..3");
  });
}

// One entry of texture_signed: a string of distinct letters from "argb" (the channels read as two's complement).
Status read_signed_channels(value& v, uint8_t* out, const RecordContext& ctx, const json::Pointer& pointer) {
  const char* at = json::token_position(v);
  auto text = json::read_string(v, ctx, pointer);
  if (!text) return std::move(text).error();
  uint8_t mask = 0;
  for (char c : *text) {
    const uint8_t bit = c == 'a' ? SBK_NV2A_SIGNED_A : c == 'r' ? SBK_NV2A_SIGNED_R : c == 'g' ? SBK_NV2A_SIGNED_G
                      : c == 'b' ? SBK_NV2A_SIGNED_B : 0;
    if (bit == 0 || (mask & bit))
      return ctx.error(at, pointer, "bad_value",
                       "field " + pointer.str() + " is \"" + std::string(text->substr(0, 40)) +
                           "\"; it lists channels, each of a, r, g, b at most once (\"\" for none)");
    mask |= bit;
  }
  *out = mask;
  return ok_status();
}

Status read_texture_format(value& v, uint8_t* out, const RecordContext& ctx, const json::Pointer& pointer) {
  const char* at = json::token_position(v);
  auto name = json::read_string(v, ctx, pointer);
  if (!name) return std::move(name).error();
  if (*name == "argb8" || *name == "xrgb8") {
    *out = *name == "argb8" ? SBK_NV2A_FORMAT_ARGB8 : SBK_NV2A_FORMAT_XRGB8;
    return ok_status();
  }
  return ctx.error(at, pointer, "unknown_name",
                   "field " + pointer.str() + " is \"" + std::string(name->substr(0, 40)) + "\"; accepted: argb8, xrgb8");
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
  static constexpr std::array<std::string_view, 15> kNames = {
      "combiner_control", "rgb_inputs",      "rgb_outputs",       "alpha_inputs",    "alpha_outputs",
      "final_inputs",     "texture_modes",   "texture_enabled",   "alpha_test",      "dot_rgb_mapping",
      "other_stage_input", "clip_plane_mode", "texture_control",  "texture_signed",  "texture_formats"};
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
      case 8:
        return read_alpha_test(f, &p, ctx, fp);
      case 9:
      case 10:
      case 11: {
        auto w = json::read_word(f, ctx, fp);
        if (!w) return std::move(w).error();
        (i == 9 ? p.dot_rgb_mapping : i == 10 ? p.other_stage_input : p.clip_plane_mode) = *w;
        return ok_status();
      }
      case 12:
        return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
          return read_texture_control(item, &p, k, ctx, ip);
        });
      case 13:
        return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
          return read_signed_channels(item, &p.texture_signed[k], ctx, ip);
        });
      default:
        return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
          return read_texture_format(item, &p.texture_format[k], ctx, ip);
        });
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

namespace {

// One entry of bump_env: {"matrix": [W0, W1, W2, W3], "scale": f, "offset": f}, each optional (0).
Status read_bump_env(value& v, sbk_nv2a_dynamic* d, size_t stage, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 3> kNames = {"matrix", "scale", "offset"};
  auto obj = json::read_object(v, ctx, pointer);
  if (!obj) return std::move(obj).error();
  uint64_t seen = 0;
  return json::for_each_field(*obj, kNames, false, ctx, pointer, &seen, [&](size_t i, value& f, const json::Pointer& fp) -> Status {
    if (i == 0)
      return read_fixed_array<4>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
        auto x = json::read_float32(item, ctx, ip);
        if (!x) return std::move(x).error();
        d->bump_env_matrix[stage][k] = *x;
        return ok_status();
      });
    auto x = json::read_float32(f, ctx, fp);
    if (!x) return std::move(x).error();
    (i == 1 ? d->bump_env_scale : d->bump_env_offset)[stage] = *x;
    return ok_status();
  });
}

}  // namespace

Status decode_texture_dynamic_field(std::string_view name, value& f, sbk_nv2a_dynamic* d,
                                                   const RecordContext& ctx, const json::Pointer& fp) {
  if (name == "bump_env")
    return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
      return read_bump_env(item, d, k, ctx, ip);
    });
  if (name == "color_keys")
    return read_fixed_array<SBK_NV2A_TEXTURE_STAGES>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
      auto w = json::read_word(item, ctx, ip);
      if (!w) return std::move(w).error();
      d->color_keys[k] = *w;
      return ok_status();
    });
  if (name == "eye_vector")
    return read_fixed_array<3>(f, ctx, fp, [&](value& item, size_t k, const json::Pointer& ip) -> Status {
      auto x = json::read_float32(item, ctx, ip);
      if (!x) return std::move(x).error();
      d->eye_vector[k] = *x;
      return ok_status();
    });
  return Error{ErrorKind::internal, "unknown_field", "not a texture-shader dynamic field: " + std::string(name), {}};
}

Result<sbk_nv2a_dynamic> decode_dynamic(value& dynamic, const RecordContext& ctx, const json::Pointer& pointer) {
  static constexpr std::array<std::string_view, 9> kNames = {"c0",        "c1",        "final_c0",   "final_c1",  "fog_color",
                                                             "alpha_ref", "bump_env",  "color_keys", "eye_vector"};
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
    if (i >= 6) return decode_texture_dynamic_field(kNames[i], f, &d, ctx, fp);
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
  // The texture shader's fields, where any differs from its default (a program without them reads the same).
  if (p.dot_rgb_mapping != 0) out["dot_rgb_mapping"] = hex_word(p.dot_rgb_mapping);
  if (p.other_stage_input != 0) out["other_stage_input"] = hex_word(p.other_stage_input);
  if (p.clip_plane_mode != 0) out["clip_plane_mode"] = hex_word(p.clip_plane_mode);
  bool controls = false, signs = false, formats = false;
  for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
    controls = controls || p.texture_alpha_kill[i] != 0 || p.texture_color_key[i] != 0;
    signs = signs || p.texture_signed[i] != 0;
    formats = formats || p.texture_format[i] != SBK_NV2A_FORMAT_ARGB8;
  }
  if (controls) {
    out["texture_control"] = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i)
      out["texture_control"].push_back({{"alpha_kill", p.texture_alpha_kill[i] != 0},
                                        {"color_key", std::string(kColorKeyNames[p.texture_color_key[i] & 3u])}});
  }
  if (signs) {
    out["texture_signed"] = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i) {
      std::string letters;
      for (const auto& [bit, letter] : {std::pair{SBK_NV2A_SIGNED_A, 'a'}, std::pair{SBK_NV2A_SIGNED_R, 'r'},
                                        std::pair{SBK_NV2A_SIGNED_G, 'g'}, std::pair{SBK_NV2A_SIGNED_B, 'b'}})
        if (p.texture_signed[i] & bit) letters += letter;
      out["texture_signed"].push_back(letters);
    }
  }
  if (formats) {
    out["texture_formats"] = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < SBK_NV2A_TEXTURE_STAGES; ++i)
      out["texture_formats"].push_back(p.texture_format[i] == SBK_NV2A_FORMAT_XRGB8 ? "xrgb8" : "argb8");
  }
  return out;
}

}  // namespace shaderbake::nv2a

// SPDX-License-Identifier: MIT
#include "guests/specconst/program_json.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

namespace shaderbake::specconst {

namespace {

namespace od = json::od;

constexpr std::array<std::string_view, 3> kStageNames = {"vertex", "fragment", "compute"};
constexpr std::array<compile::ShaderStage, 3> kStages = {compile::ShaderStage::vertex, compile::ShaderStage::fragment,
                                                        compile::ShaderStage::compute};
constexpr std::array<std::string_view, 3> kStageFields = {"shader", "entry", "constants"};
constexpr size_t kMaxPathCharacters = 4096;

// A constant's value as the record wrote it, checked against the module once the module is read.
struct WrittenValue {
  uint32_t id = 0;
  std::string token;  // the JSON token (a number, true or false), without surrounding whitespace
  od::json_type type = od::json_type::null;
  const char* at = nullptr;
  std::string pointer;
};

struct WrittenStage {
  std::string shader;
  const char* shader_at = nullptr;
  std::string entry = "main";
  std::vector<WrittenValue> values;
};

std::string_view trimmed(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' || token.back() == '\r'))
    token.remove_suffix(1);
  return token;
}

const char* type_name(const sbk_specconst_constant& c) {
  switch (c.type) {
    case SBK_SPECCONST_BOOL: return "bool";
    case SBK_SPECCONST_INT: return c.width == 64 ? "int64" : "int";
    case SBK_SPECCONST_UINT: return c.width == 64 ? "uint64" : "uint";
    default: return c.width == 64 ? "double" : "float";
  }
}

// The bits of `v` as constant `c` holds them, or nullopt when `v` is not a value of its type and width.
std::optional<uint64_t> value_bits(const sbk_specconst_constant& c, const WrittenValue& v) {
  if (c.type == SBK_SPECCONST_BOOL) {
    if (v.type != od::json_type::boolean) return std::nullopt;
    return v.token == "true" ? 1u : 0u;
  }
  if (v.type != od::json_type::number) return std::nullopt;
  const auto number = json::parse_number(v.token);
  if (!number) return std::nullopt;
  if (c.type == SBK_SPECCONST_INT || c.type == SBK_SPECCONST_UINT) {
    if (!number->integer || !number->fits) return std::nullopt;
    const bool is_signed = c.type == SBK_SPECCONST_INT;
    const uint64_t limit = c.width == 64 ? (is_signed ? uint64_t{INT64_MAX} : UINT64_MAX)
                                         : (is_signed ? uint64_t{INT32_MAX} : UINT32_MAX);
    if (number->negative && number->magnitude != 0) {
      if (!is_signed || number->magnitude > limit + 1) return std::nullopt;
      const uint64_t bits = ~number->magnitude + 1;  // two's complement
      return c.width == 64 ? bits : bits & 0xFFFFFFFFu;
    }
    if (number->magnitude > limit) return std::nullopt;
    return number->magnitude;
  }
  // A float: the nearest value of the constant's width; a finite number only.
  const std::string text(v.token);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(d)) return std::nullopt;
  if (c.width == 64) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return bits;
  }
  // Rounded to the nearest float: what lies past FLT_MAX by less than half a unit in the last place is FLT_MAX
  // (the value `inspect` prints for it), anything farther is out of range.
  if (std::fabs(d) >= 0x1.ffffffp+127) return std::nullopt;
  const float f = static_cast<float>(d);
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

Error located(const json::RecordContext& ctx, const WrittenValue& v, std::string reason, std::string message) {
  return Error{ErrorKind::bad_input, std::move(reason), std::move(message), ctx.locate(v.at, v.pointer)};
}

Result<WrittenStage> read_stage(od::value& value, const json::RecordContext& ctx, const json::Pointer& pointer) {
  auto object = json::read_object(value, ctx, pointer);
  if (!object) return std::move(object).error();
  WrittenStage out;
  uint64_t seen = 0;
  Status s = json::for_each_field(*object, kStageFields, true, ctx, pointer, &seen,
                                  [&](size_t field, od::value& v, const json::Pointer& p) -> Status {
    if (field == 0 || field == 1) {
      const char* at = json::token_position(v);
      auto text = json::read_string(v, ctx, p);
      if (!text) return std::move(text).error();
      // Characters, as the schema's maxLength counts them: every byte but UTF-8 continuation bytes.
      const size_t characters = static_cast<size_t>(
          std::count_if(text->begin(), text->end(), [](char c) { return (static_cast<uint8_t>(c) & 0xC0) != 0x80; }));
      if (characters == 0 || characters > kMaxPathCharacters)
        return ctx.error(at, p, "out_of_range", p.str() + " must be 1 to " + std::to_string(kMaxPathCharacters) + " characters");
      if (text->find('\0') != std::string_view::npos)
        return ctx.error(at, p, field == 0 ? "shader_not_found" : "shader_compile_failed",
                         p.str() + " holds a NUL character, which no file or entry point name has");
      if (field == 0) {
        out.shader = std::string(*text);
        out.shader_at = at;
      } else {
        out.entry = std::string(*text);
      }
      return ok_status();
    }
    auto constants = json::read_object(v, ctx, p);
    if (!constants) return std::move(constants).error();
    for (auto field_result : *constants) {
      od::field f;
      if (auto err = std::move(field_result).get(f)) return ctx.json_error(err, nullptr, p);
      const char* key_at = f.key().raw() - 1;
      std::string_view key;
      if (auto err = f.unescaped_key().get(key)) return ctx.json_error(err, key_at, p);
      const std::string key_text(key);
      const json::Pointer item(p, key_text);
      uint32_t id = 0;
      const auto [end, ec] = std::from_chars(key_text.data(), key_text.data() + key_text.size(), id);
      if (key_text.empty() || ec != std::errc() || end != key_text.data() + key_text.size() ||
          (key_text.size() > 1 && key_text[0] == '0'))
        return ctx.error(key_at, item, "unknown_constant",
                         "\"" + key_text.substr(0, 40) + "\" is not a constant id (a decimal number, 0 to 4294967295)");
      for (const WrittenValue& earlier : out.values)
        if (earlier.id == id)
          return ctx.error(key_at, item, "duplicate_field", "constant " + key_text + " is given twice");
      WrittenValue w;
      w.id = id;
      w.at = json::token_position(f.value());
      w.pointer = item.str();
      if (auto err = f.value().type().get(w.type)) return ctx.json_error(err, w.at, item);
      if (w.type == od::json_type::object || w.type == od::json_type::array || w.type == od::json_type::string ||
          w.type == od::json_type::null) {
        // Walked to its end so that malformed JSON in it is reported as such, then refused.
        if (Status skipped = json::skip_validated(f.value(), ctx, item); !skipped) return skipped;
        return ctx.error(w.at, item, "wrong_type", "constant " + key_text + " must be a number, true or false");
      }
      w.token = std::string(trimmed(f.value().raw_json_token()));
      if (w.type == od::json_type::number ? !json::parse_number(w.token) : (w.token != "true" && w.token != "false"))
        return ctx.error(w.at, item, "malformed_json", "constant " + key_text + " is not a JSON value");
      out.values.push_back(std::move(w));
    }
    return ok_status();
  });
  if (!s) return std::move(s).error();
  if (!(seen & 1u))
    return ctx.error(json::token_position(value), json::Pointer(pointer, "shader"), "missing_field",
                     pointer.str() + " needs \"shader\"");
  return out;
}

}  // namespace

Result<Program> decode_program(od::value& root, const json::RecordContext& ctx, const json::Pointer& pointer,
                               ShaderLibrary& library) {
  const char* root_at = json::token_position(root);
  auto object = json::read_object(root, ctx, pointer);
  if (!object) return std::move(object).error();
  std::array<std::optional<WrittenStage>, 3> written;
  uint64_t seen = 0;
  Status s = json::for_each_field(*object, kStageNames, true, ctx, pointer, &seen,
                                  [&](size_t stage, od::value& v, const json::Pointer& p) -> Status {
    auto read = read_stage(v, ctx, p);
    if (!read) return std::move(read).error();
    written[stage] = std::move(*read);
    return ok_status();
  });
  if (!s) return std::move(s).error();
  const bool compute = seen & 4u, graphics = seen & 3u;
  if (compute && graphics)
    return ctx.error(root_at, pointer, "conflicting_fields",
                     "a program is a compute stage or a vertex and a fragment stage, not both");
  if (!compute && (seen & 3u) != 3u)
    return ctx.error(root_at, json::Pointer(pointer, (seen & 1u) ? "fragment" : "vertex"), "missing_field",
                     "a graphics program needs a \"vertex\" and a \"fragment\" stage (or it is a \"compute\" stage)");

  const std::filesystem::path base = std::filesystem::path(ctx.file()).parent_path();
  Program program;
  for (size_t i = 0; i < 3; ++i) {
    if (!written[i]) continue;
    const WrittenStage& w = *written[i];
    const json::Pointer stage_pointer(pointer, kStageNames[i]);
    const json::Pointer shader_pointer(stage_pointer, "shader");
    const std::filesystem::path relative(w.shader);
    auto shader = library.load(relative.is_absolute() ? relative : base / relative, kStages[i], w.entry);
    if (!shader) {
      Error e = std::move(shader).error();
      return ctx.error(w.shader_at, shader_pointer, e.reason, e.message);
    }
    StageValues stage;
    stage.shader = *shader;
    const sbk_specconst_module& scan = stage.shader->scan;
    for (const WrittenValue& v : w.values) {
      const sbk_specconst_constant* declared = nullptr;
      for (uint32_t k = 0; k < scan.constant_count; ++k)
        if (scan.constants[k].id == v.id) declared = &scan.constants[k];
      if (declared == nullptr) {
        std::string ids;
        for (uint32_t k = 0; k < scan.constant_count; ++k) ids += (ids.empty() ? "" : ", ") + std::to_string(scan.constants[k].id);
        return located(ctx, v, "unknown_constant",
                       "the " + std::string(kStageNames[i]) + " shader " + w.shader + " declares no constant_id " +
                           std::to_string(v.id) + " (it declares " + (ids.empty() ? std::string("none") : ids) + ")");
      }
      const auto bits = value_bits(*declared, v);
      if (!bits)
        return located(ctx, v, "constant_type",
                       "constant_id " + std::to_string(v.id) + " of " + w.shader + " is of type " + type_name(*declared) +
                           "; " + v.token.substr(0, 40) + " is not a value of it" +
                           (declared->type == SBK_SPECCONST_BOOL ? " (write true or false)" : ""));
      const uint32_t size = declared->width / 8u;
      stage.map.push_back({v.id, static_cast<uint32_t>(stage.data.size()), size});
      for (uint32_t b = 0; b < size; ++b) stage.data.push_back(static_cast<uint8_t>(*bits >> (8 * b)));
    }
    program.stages.push_back(std::move(stage));
  }
  return program;
}

}  // namespace shaderbake::specconst

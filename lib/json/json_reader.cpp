// SPDX-License-Identifier: MIT
#include "lib/json/json_reader.hpp"

#include <cstring>

namespace shaderbake::json {

void Pointer::append_to(std::string& out) const {
  if (parent_ == nullptr) {
    out.append(text_);
    return;
  }
  parent_->append_to(out);
  out += '/';
  if (is_index_) {
    out += std::to_string(index_);
    return;
  }
  for (char c : text_) {  // RFC 6901 escaping
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
}

std::string Pointer::str() const {
  std::string out;
  append_to(out);
  return out;
}

SourceLocation RecordContext::locate(const char* at, const Pointer& pointer) const {
  return locate(at, pointer.str());
}

SourceLocation RecordContext::locate(const char* at, std::string_view pointer) const {
  SourceLocation loc;
  loc.file = std::string(file_);
  loc.json_pointer = std::string(pointer);
  loc.line = first_line_;
  loc.column = first_column_;
  if (at == nullptr || at < text_start_) return loc;
  // Records are usually one line; a document-form record may span several.
  const char* line_start = nullptr;
  uint64_t line = first_line_;
  for (const char* p = text_start_; p < at; ++p) {
    if (*p == '\n') {
      ++line;
      line_start = p + 1;
    }
  }
  loc.line = line;
  loc.column = line_start == nullptr ? first_column_ + static_cast<uint64_t>(at - text_start_)
                                     : 1 + static_cast<uint64_t>(at - line_start);
  return loc;
}

Error RecordContext::error(const char* at, const Pointer& pointer, std::string_view reason,
                           std::string message) const {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = std::string(reason);
  e.message = std::move(message);
  e.where = locate(at, pointer);
  return e;
}

Error RecordContext::json_error(simdjson::error_code code, const char* at, const Pointer& pointer) const {
  const std::string spelt = pointer.str();
  const std::string field = spelt.empty() ? std::string("the record") : "field " + spelt;
  switch (code) {
    case simdjson::INCORRECT_TYPE:
      return error(at, pointer, "wrong_type", field + " has the wrong JSON type");
    case simdjson::NUMBER_OUT_OF_RANGE:
      return error(at, pointer, "out_of_range", field + " is a number out of range");
    case simdjson::NO_SUCH_FIELD:
      return error(at, pointer, "missing_field", "missing " + field);
    default:
      return error(at, pointer, "malformed_json",
                   "malformed JSON in " + field + ": " + std::string(simdjson::error_message(code)));
  }
}

const char* token_position(od::value& value) {
  // value::raw_json_token() is a plain string_view into the record text (it cannot fail).
  return value.raw_json_token().data();
}

Result<od::object> read_object(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  od::object obj;
  if (auto err = value.get_object().get(obj)) return ctx.json_error(err, at, pointer);
  return obj;
}

Result<od::array> read_array(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  od::array arr;
  if (auto err = value.get_array().get(arr)) return ctx.json_error(err, at, pointer);
  return arr;
}

Result<bool> read_bool(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  bool b = false;
  if (auto err = value.get_bool().get(b)) return ctx.json_error(err, at, pointer);
  return b;
}

Result<std::string_view> read_string(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  if (*at == '"') {
    // Fast path: a string with no escapes and no control characters is its own unescaped form, so it is
    // used in place (valid as long as the record text is). Anything else goes through simdjson's unescape.
    const char* end = at + 1;
    while (*end != '"' && *end != '\\' && static_cast<unsigned char>(*end) >= 0x20) ++end;
    if (*end == '"') {
      od::raw_json_string raw;
      if (auto err = value.get_raw_json_string().get(raw)) return ctx.json_error(err, at, pointer);
      return std::string_view(at + 1, static_cast<size_t>(end - at - 1));
    }
  }
  std::string_view s;
  if (auto err = value.get_string().get(s)) return ctx.json_error(err, at, pointer);
  return s;
}

Result<int64_t> read_int(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  int64_t i = 0;
  if (auto err = value.get_int64().get(i)) return ctx.json_error(err, at, pointer);
  return i;
}

Result<uint64_t> read_uint_in(od::value& value, uint64_t max, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  uint64_t u = 0;
  if (auto err = value.get_uint64().get(u)) {
    // A negative integer is in the wrong range, not of the wrong type.
    int64_t negative = 0;
    if (err == simdjson::INCORRECT_TYPE && at != nullptr && *at == '-' && !value.get_int64().get(negative))
      return ctx.error(at, pointer, "out_of_range",
                       "field " + pointer.str() + " must be at most " + std::to_string(max) + " and not negative");
    return ctx.json_error(err, at, pointer);
  }
  if (u > max)
    return ctx.error(at, pointer, "out_of_range",
                     "field " + pointer.str() + " is " + std::to_string(u) + ", above its maximum " +
                         std::to_string(max));
  return u;
}

bool parse_hex_word(std::string_view text, uint32_t* out) {
  if (text.size() < 3 || text.size() > 10 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  uint32_t v = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    uint32_t digit;
    if (c >= '0' && c <= '9') digit = static_cast<uint32_t>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<uint32_t>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<uint32_t>(c - 'A' + 10);
    else return false;
    v = (v << 4) | digit;
  }
  *out = v;
  return true;
}

Result<uint32_t> read_word(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  od::json_type type;
  if (auto err = value.type().get(type)) return ctx.json_error(err, at, pointer);
  if (type == od::json_type::string) {
    std::string_view text;
    if (auto err = value.get_string().get(text)) return ctx.json_error(err, at, pointer);
    uint32_t word = 0;
    if (!parse_hex_word(text, &word)) {
      // "0x" followed by more than 8 hex digits is a range problem, anything else a spelling problem.
      const bool long_hex = text.size() > 10 && (text.substr(0, 2) == "0x" || text.substr(0, 2) == "0X");
      return ctx.error(at, pointer, long_hex ? "out_of_range" : "wrong_type",
                       "field " + pointer.str() + " is \"" + std::string(text.substr(0, 40)) +
                           "\", not a 32-bit word (\"0x\" and 1-8 hex digits, or an integer)");
    }
    return word;
  }
  if (type == od::json_type::number) {
    auto u = read_uint_in(value, UINT32_MAX, ctx, pointer);
    if (!u) return std::move(u).error();
    return static_cast<uint32_t>(*u);
  }
  return ctx.error(at, pointer, "wrong_type",
                   "field " + pointer.str() + " must be a \"0x\" hex string or an integer");
}

Result<uint32_t> read_words(od::value& value, uint32_t* out, uint32_t max, const RecordContext& ctx, const Pointer& pointer) {
  auto count = for_each_element(value, max, ctx, pointer, [&](od::value& item, size_t i, const Pointer& item_pointer) -> Status {
    auto word = read_word(item, ctx, item_pointer);
    if (!word) return std::move(word).error();
    out[i] = *word;
    return ok_status();
  });
  if (!count) return std::move(count).error();
  return static_cast<uint32_t>(*count);
}

Status skip_validated(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  od::json_type type;
  if (auto err = value.type().get(type)) return ctx.json_error(err, at, pointer);
  switch (type) {
    case od::json_type::object: {
      auto obj = read_object(value, ctx, pointer);
      if (!obj) return std::move(obj).error();
      for (auto field_result : *obj) {
        od::field field;
        if (auto err = std::move(field_result).get(field)) return ctx.json_error(err, at, pointer);
        std::string_view key;
        if (auto err = field.unescaped_key().get(key)) return ctx.json_error(err, at, pointer);
        auto s = skip_validated(field.value(), ctx, Pointer(pointer, key));
        if (!s) return s;
      }
      return ok_status();
    }
    case od::json_type::array: {
      auto count = for_each_element(value, SIZE_MAX, ctx, pointer, [&](od::value& child, size_t, const Pointer& child_pointer) {
        return skip_validated(child, ctx, child_pointer);
      });
      if (!count) return std::move(count).error();
      return ok_status();
    }
    case od::json_type::string: {
      std::string_view s;
      if (auto err = value.get_string().get(s)) return ctx.json_error(err, at, pointer);
      return ok_status();
    }
    case od::json_type::number: {
      double d;
      if (auto err = value.get_double().get(d)) {
        // Integers beyond double are still JSON numbers.
        uint64_t u;
        int64_t i;
        if (value.get_uint64().get(u) && value.get_int64().get(i)) return ctx.json_error(err, at, pointer);
      }
      return ok_status();
    }
    case od::json_type::boolean: {
      bool b;
      if (auto err = value.get_bool().get(b)) return ctx.json_error(err, at, pointer);
      return ok_status();
    }
    case od::json_type::null: {
      bool is_null = false;
      if (auto err = value.is_null().get(is_null)) return ctx.json_error(err, at, pointer);
      if (!is_null) return ctx.error(at, pointer, "malformed_json", "malformed JSON value at " + pointer.str());
      return ok_status();
    }
  }
  return ctx.error(at, pointer, "malformed_json", "malformed JSON value at " + pointer.str());
}

}  // namespace shaderbake::json

namespace shaderbake::json {

Status require_fields(uint64_t seen, std::span<const std::string_view> names, std::span<const size_t> required,
                      const RecordContext& ctx, const char* at, const Pointer& pointer) {
  for (size_t index : required) {
    if (!(seen & (uint64_t{1} << index))) {
      const Pointer field(pointer, names[index]);
      return ctx.error(at, field, "missing_field", "missing field " + field.str());
    }
  }
  return ok_status();
}

}  // namespace shaderbake::json

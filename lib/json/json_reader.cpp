// SPDX-License-Identifier: MIT
#include "lib/json/json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

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
    // Neither comes from the on-demand calls the readers make today (skip_validated stops first, and readers
    // bound record sizes below simdjson's), but should one ever surface it means the same thing.
    case simdjson::DEPTH_ERROR:
      return error(at, pointer, "too_deep", field + " is nested too deeply");
    case simdjson::CAPACITY:
      return error(at, pointer, "oversized_record", "the record is larger than the JSON parser can index (4 GiB)");
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

std::optional<Number> parse_number(std::string_view token) {
  // RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, then only whitespace (raw_json_token()
  // keeps the spaces up to the next token).
  size_t i = 0;
  const size_t n = token.size();
  auto is_digit = [&](size_t k) { return k < n && token[k] >= '0' && token[k] <= '9'; };
  Number number;
  if (i < n && token[i] == '-') {
    number.negative = true;
    ++i;
  }
  const size_t int_begin = i;
  if (!is_digit(i)) return std::nullopt;
  if (token[i] == '0') {
    ++i;
  } else {
    while (is_digit(i)) ++i;
  }
  const size_t int_end = i;
  size_t frac_begin = i, frac_end = i;
  if (i < n && token[i] == '.') {
    frac_begin = ++i;
    if (!is_digit(i)) return std::nullopt;
    while (is_digit(i)) ++i;
    frac_end = i;
  }
  int64_t exponent = 0;
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < n && (token[i] == '+' || token[i] == '-')) exponent_negative = token[i++] == '-';
    if (!is_digit(i)) return std::nullopt;
    // Saturates far beyond any exponent that can matter (a record is far shorter than 2^40 digits).
    constexpr int64_t kSaturated = int64_t{1} << 40;
    for (; is_digit(i); ++i) exponent = std::min(kSaturated, exponent * 10 + (token[i] - '0'));
    if (exponent_negative) exponent = -exponent;
  }
  for (; i < n; ++i)
    if (token[i] != ' ' && token[i] != '\t' && token[i] != '\n' && token[i] != '\r') return std::nullopt;

  // The value is digits * 10^(exponent - fraction digits), `digits` being the integer and fraction digits
  // written one after the other. With leading and trailing zeros dropped it is an integer exactly when the
  // power of ten left is not negative.
  const size_t int_digits = int_end - int_begin;
  const size_t frac_digits = frac_end - frac_begin;
  const size_t all_digits = int_digits + frac_digits;
  auto digit = [&](size_t k) {
    return static_cast<uint64_t>(token[k < int_digits ? int_begin + k : frac_begin + (k - int_digits)] - '0');
  };
  size_t first = 0;
  while (first < all_digits && digit(first) == 0) ++first;
  if (first == all_digits) {  // zero, however written (-0, 0.000, 0e99)
    number.negative = false;
    number.integer = true;
    number.fits = true;
    return number;
  }
  size_t last = all_digits;
  while (digit(last - 1) == 0) --last;
  const int64_t power = exponent - static_cast<int64_t>(frac_digits) + static_cast<int64_t>(all_digits - last);
  if (power < 0) return number;  // a fractional part remains: not an integer
  number.integer = true;
  // UINT64_MAX has 20 digits: anything longer does not fit, anything shorter is computed with checks.
  if (static_cast<int64_t>(last - first) + power > 20) return number;
  uint64_t value = 0;
  for (size_t k = first; k < last; ++k)
    if (__builtin_mul_overflow(value, uint64_t{10}, &value) || __builtin_add_overflow(value, digit(k), &value)) return number;
  for (int64_t k = 0; k < power; ++k)
    if (__builtin_mul_overflow(value, uint64_t{10}, &value)) return number;
  number.fits = true;
  number.magnitude = value;
  return number;
}

Result<Number> read_number(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  od::json_type type;
  if (auto err = value.type().get(type)) return ctx.json_error(err, at, pointer);
  if (type != od::json_type::number) return ctx.error(at, pointer, "wrong_type", "field " + pointer.str() + " must be a number");
  // Fast path: a plain unsigned integer, nearly every number of a trace. simdjson consumes the value only
  // when it succeeds; otherwise the token is read exactly below and left for the iterator to step over.
  uint64_t u = 0;
  if (!value.get_uint64().get(u)) return Number{false, true, true, u};
  const std::optional<Number> number = parse_number(value.raw_json_token());
  if (!number) return ctx.error(at, pointer, "malformed_json", "field " + pointer.str() + " is not a valid JSON number");
  return *number;
}

namespace {

// A number token as written, for messages: without its trailing whitespace, at most 40 bytes of it.
std::string written(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t' || token.back() == '\n' || token.back() == '\r'))
    token.remove_suffix(1);
  return token.size() > 40 ? std::string(token.substr(0, 40)) + "..." : std::string(token);
}

}  // namespace

Result<int64_t> read_int(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  const std::string_view token = value.raw_json_token();
  auto number = read_number(value, ctx, pointer);
  if (!number) return std::move(number).error();
  if (!number->integer)
    return ctx.error(at, pointer, "wrong_type", "field " + pointer.str() + " is " + written(token) + ", not an integer");
  const uint64_t limit = number->negative ? uint64_t{1} << 63 : uint64_t{INT64_MAX};
  if (!number->fits || number->magnitude > limit)
    return ctx.error(at, pointer, "out_of_range",
                     "field " + pointer.str() + " is " + written(token) + ", outside the 64-bit integer range");
  return number->negative ? static_cast<int64_t>(~number->magnitude + 1) : static_cast<int64_t>(number->magnitude);
}

Result<uint64_t> uint_in(const Number& number, std::string_view token, uint64_t max, const RecordContext& ctx,
                         const char* at, const Pointer& pointer) {
  if (!number.integer)
    return ctx.error(at, pointer, "wrong_type", "field " + pointer.str() + " is " + written(token) + ", not an integer");
  if (number.negative)  // a negative integer is in the wrong range, not of the wrong type
    return ctx.error(at, pointer, "out_of_range",
                     "field " + pointer.str() + " must be at most " + std::to_string(max) + " and not negative");
  if (!number.fits || number.magnitude > max)
    return ctx.error(at, pointer, "out_of_range",
                     "field " + pointer.str() + " is " + (number.fits ? std::to_string(number.magnitude) : written(token)) +
                         ", above its maximum " + std::to_string(max));
  return number.magnitude;
}

Result<uint64_t> read_uint_in(od::value& value, uint64_t max, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  const std::string_view token = value.raw_json_token();
  auto number = read_number(value, ctx, pointer);
  if (!number) return std::move(number).error();
  return uint_in(*number, token, max, ctx, at, pointer);
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

Result<float> read_float32(od::value& value, const RecordContext& ctx, const Pointer& pointer) {
  const char* at = token_position(value);
  od::json_type type;
  if (auto err = value.type().get(type)) return ctx.json_error(err, at, pointer);
  if (type == od::json_type::string) {
    auto bits = read_word(value, ctx, pointer);
    if (!bits) return std::move(bits).error();
    float f;
    const uint32_t b = *bits;
    std::memcpy(&f, &b, sizeof f);
    return f;
  }
  if (type != od::json_type::number)
    return ctx.error(at, pointer, "wrong_type",
                     "field " + pointer.str() + " must be a number or a float32 bit pattern (\"0x3F800000\")");
  double d = 0;
  if (auto err = value.get_double().get(d)) return ctx.json_error(err, at, pointer);
  if (!std::isfinite(d) || std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max()))
    return ctx.error(at, pointer, "out_of_range", "field " + pointer.str() + " does not fit a 32-bit float");
  return static_cast<float>(d);
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

namespace {

// One array or object that skip_validated is inside: where its iteration stands, and the key or index of
// the member being walked (spelt into a JSON pointer only for an error).
struct SkipLevel {
  bool is_object = false;
  bool started = false;  // a member has been visited: step past it before reading the next
  od::object_iterator field{};
  od::object_iterator field_end{};
  od::array_iterator item{};
  od::array_iterator item_end{};
  size_t index = 0;
  std::string_view key;
};

void append_pointer_token(std::string& out, std::string_view key) {
  out += '/';
  for (char c : key) {  // RFC 6901 escaping
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
}

}  // namespace

Status skip_validated(od::value& root, const RecordContext& ctx, const Pointer& pointer) {
  // A heap stack instead of recursion: a record may nest as deep as its bytes allow, the limit decides how
  // far is walked, and the call stack stays flat whatever the input.
  std::vector<SkipLevel> stack;
  const uint32_t root_level = ctx.level_of(root);
  auto spelt = [&]() {
    std::string out = pointer.str();
    for (const SkipLevel& level : stack) {
      if (level.is_object) append_pointer_token(out, level.key);
      else out += '/' + std::to_string(level.index - 1);
    }
    return out;
  };
  auto fail = [&](simdjson::error_code code, const char* at) { return ctx.json_error(code, at, Pointer(spelt())); };

  // Checks a scalar, or opens an array or object onto the stack (refused past the depth limit before
  // simdjson is asked to enter it).
  auto visit = [&](od::value& value) -> Status {
    const char* at = token_position(value);
    od::json_type type;
    if (auto err = value.type().get(type)) return fail(err, at);
    switch (type) {
      case od::json_type::object:
      case od::json_type::array: {
        const uint32_t level = root_level + static_cast<uint32_t>(stack.size());
        if (level > ctx.max_depth()) {
          const std::string where = spelt();
          return ctx.error(at, Pointer(where), "too_deep",
                           "arrays and objects nested deeper than " + std::to_string(ctx.max_depth()) +
                               " levels (the reader's depth limit) at " + (where.empty() ? std::string("the record") : where));
        }
        SkipLevel opened;
        opened.is_object = type == od::json_type::object;
        if (opened.is_object) {
          od::object object;
          if (auto err = value.get_object().get(object)) return fail(err, at);
          if (auto err = object.begin().get(opened.field)) return fail(err, at);
          if (auto err = object.end().get(opened.field_end)) return fail(err, at);
        } else {
          od::array array;
          if (auto err = value.get_array().get(array)) return fail(err, at);
          if (auto err = array.begin().get(opened.item)) return fail(err, at);
          if (auto err = array.end().get(opened.item_end)) return fail(err, at);
        }
        stack.push_back(opened);
        return ok_status();
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto err = value.get_string().get(s)) return fail(err, at);
        return ok_status();
      }
      case od::json_type::number:
        // Any valid JSON number, of any size or precision: the schema leaves skipped fields unconstrained.
        if (!parse_number(value.raw_json_token()))
          return ctx.error(at, Pointer(spelt()), "malformed_json", "malformed JSON number at " + spelt());
        return ok_status();
      case od::json_type::boolean: {
        // type() looked at the first byte only: a literal that is not true or false is malformed JSON.
        bool b;
        if (value.get_bool().get(b)) return ctx.error(at, Pointer(spelt()), "malformed_json", "malformed JSON literal at " + spelt());
        return ok_status();
      }
      case od::json_type::null: {
        bool is_null = false;
        if (value.is_null().get(is_null) || !is_null)
          return ctx.error(at, Pointer(spelt()), "malformed_json", "malformed JSON literal at " + spelt());
        return ok_status();
      }
    }
    return ctx.error(at, Pointer(spelt()), "malformed_json", "malformed JSON value at " + spelt());
  };

  if (Status s = visit(root); !s) return s;
  while (!stack.empty()) {
    SkipLevel& top = stack.back();
    // The member visited last is finished (a container is popped only once walked to its end), so the
    // iterator may step past it.
    od::value member;
    if (top.is_object) {
      if (top.started) ++top.field;
      top.started = true;
      if (!(top.field != top.field_end)) {
        stack.pop_back();
        continue;
      }
      od::field field;
      if (auto err = (*top.field).get(field)) return fail(err, nullptr);
      const char* key_at = field.key().raw() - 1;
      if (auto err = field.unescaped_key().get(top.key)) return fail(err, key_at);
      member = field.value();
    } else {
      if (top.started) ++top.item;
      top.started = true;
      if (!(top.item != top.item_end)) {
        stack.pop_back();
        continue;
      }
      if (auto err = (*top.item).get(member)) return fail(err, nullptr);
      ++top.index;
    }
    if (Status s = visit(member); !s) return s;  // may push: `top` is not used after this
  }
  return ok_status();
}

const char* find_too_deep(std::string_view text, uint32_t max_depth) {
  uint64_t depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char c = *p;
    if (c == '"') {
      // Inside a string: only a backslash (which escapes the next byte) or the closing quote matter.
      for (++p; p < end && *p != '"'; ++p)
        if (*p == '\\') ++p;
      if (p >= end) return nullptr;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return p;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++p;
  }
  return nullptr;
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

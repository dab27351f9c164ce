// SPDX-License-Identifier: MIT
#pragma once

// Location-aware decoding helpers over simdjson's on-demand API. Every helper reads exactly one value and,
// on failure, returns an Error that names the file position of the offending token and the JSON pointer of
// the field, with a stable reason id:
//   malformed_json  the text is not JSON
//   wrong_type      the value has another JSON type than the field needs
//   out_of_range    a number or word outside the field's range
//   unknown_name    a string that is not one of the field's names
//   missing_field / duplicate_field
//   too_deep        arrays and objects nested deeper than the record's depth limit (RecordContext::max_depth)
//   oversized_record  a text longer than simdjson can index (4 GiB); readers set their own, lower, limit
//
// Numbers follow JSON Schema: an "integer" is any number whose fractional part is zero, so 1.0, 1e2 and -0
// are integers (read exactly from the text, never through a double) and 1.5 is not.

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <string_view>

#include "lib/core/result.hpp"

namespace shaderbake::json {

namespace od = simdjson::ondemand;

// An RFC 6901 JSON pointer that is only spelt out when an error needs it: decoding builds one per field
// on the stack (a parent link and a key or index), which costs nothing until str() is called.
// A Pointer refers to its parent: it must not outlive it (build them in the scope that uses them).
class Pointer {
 public:
  Pointer(const char* text) : text_(text) {}  // a complete pointer, "" for the root
  Pointer(std::string_view text) : text_(text) {}
  Pointer(const Pointer& parent, std::string_view key) : parent_(&parent), text_(key) {}
  Pointer(const Pointer& parent, size_t index) : parent_(&parent), index_(index), is_index_(true) {}
  Pointer(const Pointer&) = delete;
  Pointer& operator=(const Pointer&) = delete;

  std::string str() const;

 private:
  void append_to(std::string& out) const;

  const Pointer* parent_ = nullptr;
  std::string_view text_;
  size_t index_ = 0;
  bool is_index_ = false;
};

// Deepest nesting of arrays and objects a record may have unless its reader says otherwise.
inline constexpr uint32_t kDefaultMaxDepth = 256;
// The most a reader may allow: simdjson's on-demand parser keeps 1024 levels of state in builds with its
// development checks, and skip_validated never lets it descend past the limit, so the limit stays below that.
inline constexpr uint32_t kMaxDepthCeiling = 1000;

// The text of one record and how to turn a pointer into it back into a file position.
class RecordContext {
 public:
  // `text_start` is the first byte of the record, which lies on `first_line` at `first_column` (1-based).
  // `max_depth` bounds the nesting of arrays and objects that skip_validated walks, counted from the
  // record's outermost value (level 1); it is clamped to [1, kMaxDepthCeiling].
  RecordContext(std::string_view file, uint64_t first_line, uint64_t first_column, const char* text_start,
                uint32_t max_depth = kDefaultMaxDepth)
      : file_(file),
        first_line_(first_line),
        first_column_(first_column),
        text_start_(text_start),
        max_depth_(max_depth < 1 ? 1 : max_depth > kMaxDepthCeiling ? kMaxDepthCeiling : max_depth) {}

  // The same record for a value `levels` below its outermost one that is parsed as a document of its own
  // (a slice such as a trace record's "program" object): positions are located in the record as before, and
  // nesting is counted from the record, not from the slice.
  RecordContext nested(uint32_t levels) const {
    RecordContext inner = *this;
    inner.depth_offset_ += levels;
    return inner;
  }
  uint32_t max_depth() const { return max_depth_; }
  // Nesting level of a value's own array or object (the outermost value of the record is level 1).
  uint32_t level_of(od::value& value) const { return static_cast<uint32_t>(value.current_depth()) + depth_offset_; }

  SourceLocation locate(const char* at, const Pointer& pointer) const;
  SourceLocation locate(const char* at, std::string_view pointer) const;
  Error error(const char* at, const Pointer& pointer, std::string_view reason, std::string message) const;
  // An error for a simdjson failure while reading `pointer` at `at`.
  Error json_error(simdjson::error_code code, const char* at, const Pointer& pointer) const;

  const char* text_start() const { return text_start_; }
  // The file the record was read from, as the reader names it (a path, or the name given for text in memory).
  std::string_view file() const { return file_; }

 private:
  std::string_view file_;
  uint64_t first_line_;
  uint64_t first_column_;
  const char* text_start_;
  uint32_t max_depth_;
  uint32_t depth_offset_ = 0;
};

// Start of the token a value begins with (for error positions); nullptr when unknown.
const char* token_position(od::value& value);


Result<od::object> read_object(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<od::array> read_array(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<bool> read_bool(od::value& value, const RecordContext& ctx, const Pointer& pointer);
// The view points into the record text or the parser's string buffer: valid until the parser's next iterate().
Result<std::string_view> read_string(od::value& value, const RecordContext& ctx, const Pointer& pointer);
// A JSON number read exactly from its text. `integer`: its fractional part is zero (JSON Schema's integer);
// `fits`: an integer whose magnitude fits 64 bits, then held in `magnitude` (-0 is 0, not negative).
struct Number {
  bool negative = false;
  bool integer = false;
  bool fits = false;
  uint64_t magnitude = 0;
};
// Parses one number token (trailing JSON whitespace allowed); nullopt when the text is not a JSON number.
std::optional<Number> parse_number(std::string_view token);
// A number of any size or precision (wrong_type for another JSON type, malformed_json for a bad number).
Result<Number> read_number(od::value& value, const RecordContext& ctx, const Pointer& pointer);
// An integer (wrong_type for a fraction such as 1.5) in [INT64_MIN, INT64_MAX] or [0, max] (out_of_range).
Result<int64_t> read_int(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<uint64_t> read_uint_in(od::value& value, uint64_t max, const RecordContext& ctx, const Pointer& pointer);
// read_uint_in's checks on a number already read; `token` is its text as written (for messages).
Result<uint64_t> uint_in(const Number& number, std::string_view token, uint64_t max, const RecordContext& ctx,
                         const char* at, const Pointer& pointer);
// A 32-bit hardware word or colour: a "0x" hex string of 1-8 digits (either case) or an integer.
Result<uint32_t> read_word(od::value& value, const RecordContext& ctx, const Pointer& pointer);

// A 32-bit float: a JSON number (finite, within float range: out_of_range otherwise) or a float32 bit pattern
// as a "0x" hex string, which can carry NaN and infinities.
Result<float> read_float32(od::value& value, const RecordContext& ctx, const Pointer& pointer);

// An array of at most `max` 32-bit words (read_word each) into out[0..]; returns how many there were.
Result<uint32_t> read_words(od::value& value, uint32_t* out, uint32_t max, const RecordContext& ctx, const Pointer& pointer);

// Walks a value of any shape to its end, so malformed JSON inside fields a reader ignores is still caught.
// Iterative (its own stack on the heap, never the call stack): an array or object nested deeper than
// ctx.max_depth() is a too_deep error at its opening bracket, found before simdjson descends into it.
Status skip_validated(od::value& value, const RecordContext& ctx, const Pointer& pointer);

// Position of the first '[' or '{' outside strings in `text` that opens nesting level max_depth + 1, or
// nullptr when the text nests no deeper than max_depth. A byte scan (one pass, no stack): it also answers
// for text that is not valid JSON, so a bad record can be told apart as too deep.
const char* find_too_deep(std::string_view text, uint32_t max_depth);

// Parses "0x..." hex (1-8 digits); false when the text is not that.
bool parse_hex_word(std::string_view text, uint32_t* out);

}  // namespace shaderbake::json

namespace shaderbake::json {

// Iterates the fields of `object`, calling `on_field(index_in_names, value, field_pointer) -> Status` for each
// field named in `names`. A repeated field is a duplicate_field error. A field not in `names` is an
// unknown_field error when `reject_unknown` (objects that define an identity must not carry a typo that
// silently falls back to a default), otherwise it is validated and skipped. On success `*seen` holds one bit
// per name that was present (so names may number at most 64).
template <class OnField>
Status for_each_field(od::object& object, std::span<const std::string_view> names, bool reject_unknown,
                      const RecordContext& ctx, const Pointer& pointer, uint64_t* seen, OnField&& on_field) {
  *seen = 0;
  for (auto field_result : object) {
    od::field field;
    if (auto err = std::move(field_result).get(field)) return ctx.json_error(err, nullptr, pointer);
    // raw() points just past the key's opening quote.
    const char* at = field.key().raw() - 1;
    // Keys without escapes (all real ones) are used in place; only an escaped key is unescaped. The scan
    // cannot run away: stage 1 has already proved the string closed.
    std::string_view key;
    const char* key_end = at + 1;
    while (*key_end != '"' && *key_end != '\\') ++key_end;
    if (*key_end == '"') {
      key = std::string_view(at + 1, static_cast<size_t>(key_end - at - 1));
    } else if (auto err = field.unescaped_key().get(key)) {
      return ctx.json_error(err, at, pointer);
    }
    od::value& value = field.value();
    const Pointer field_pointer(pointer, key);  // lazy: spelt out only on error
    size_t index = names.size();
    for (size_t i = 0; i < names.size(); ++i) {
      // Inline compare: these names are short, and a memcmp call per candidate costs more than the bytes.
      const std::string_view name = names[i];
      if (name.size() != key.size() || name[0] != key[0]) continue;
      size_t k = 1;
      while (k < name.size() && name[k] == key[k]) ++k;
      if (k == name.size()) {
        index = i;
        break;
      }
    }
    if (index == names.size()) {
      if (reject_unknown)
        return ctx.error(at, field_pointer, "unknown_field",
                         "unknown field " + field_pointer.str() + " (accepted here: " + [&] {
                           std::string list;
                           for (auto n : names) list += (list.empty() ? "" : ", ") + std::string(n);
                           return list;
                         }() + ")");
      Status skipped = skip_validated(value, ctx, field_pointer);
      if (!skipped) return skipped;
      continue;
    }
    if (*seen & (uint64_t{1} << index))
      return ctx.error(at, field_pointer, "duplicate_field", "field " + field_pointer.str() + " appears twice");
    *seen |= uint64_t{1} << index;
    Status s = on_field(index, value, field_pointer);
    if (!s) return s;
  }
  return ok_status();
}

// Calls `on_item(item, index, item_pointer) -> Status` for each element of an array of at most `max`
// elements (one more is an out_of_range error at that element). Returns how many there were.
template <class OnItem>
Result<size_t> for_each_element(od::value& value, size_t max, const RecordContext& ctx, const Pointer& pointer,
                                OnItem&& on_item) {
  auto array = read_array(value, ctx, pointer);
  if (!array) return std::move(array).error();
  size_t count = 0;
  for (auto element : *array) {
    od::value item;
    if (auto err = element.get(item)) return ctx.json_error(err, nullptr, pointer);
    const Pointer item_pointer(pointer, count);
    if (count == max)
      return ctx.error(token_position(item), item_pointer, "out_of_range",
                       pointer.str() + " has more than " + std::to_string(max) + " entries");
    Status s = on_item(item, count, item_pointer);
    if (!s) return std::move(s).error();
    ++count;
  }
  return count;
}

// One value of a record handed to a decoder as text of its own (a trace record's "program" or "dynamic"
// object, which the record reader slices out without parsing it). parse() parses it with the record's
// parser and calls decode(od::value& root, const RecordContext& ctx); positions in errors are located in the
// record, and nesting is counted from the record's root. The text must stay valid and padded (`capacity`
// readable bytes from its start, at least text.size() + simdjson::SIMDJSON_PADDING) while parse runs, and the
// value decode sees lives until the parser's next use. Not thread-safe: the parser is shared. A FieldText
// refers to its pointer: build both in the scope that uses them.
class FieldText {
 public:
  FieldText(std::string_view text, size_t capacity, const RecordContext& record, const Pointer& pointer,
            od::parser& parser)
      : text_(text), capacity_(capacity), record_(record.nested(1)), pointer_(pointer), parser_(&parser) {}

  std::string_view text() const { return text_; }
  const Pointer& pointer() const { return pointer_; }  // the value's JSON pointer in its record ("/program")

  template <class Decode>
  auto parse(Decode&& decode) const -> decltype(decode(std::declval<od::value&>(), std::declval<const RecordContext&>())) {
    od::document doc;
    if (auto err = parser_->iterate(text_.data(), text_.size(), capacity_).get(doc))
      return record_.json_error(err, text_.data(), pointer_);
    od::value root;
    if (auto err = doc.get_value().get(root)) return record_.json_error(err, text_.data(), pointer_);
    return decode(root, record_);
  }

 private:
  std::string_view text_;
  size_t capacity_;
  RecordContext record_;
  const Pointer& pointer_;
  od::parser* parser_;
};

// A missing_field error for the first name in `required` (indices into names) that `seen` lacks, or ok.
Status require_fields(uint64_t seen, std::span<const std::string_view> names, std::span<const size_t> required,
                      const RecordContext& ctx, const char* at, const Pointer& pointer);

}  // namespace shaderbake::json

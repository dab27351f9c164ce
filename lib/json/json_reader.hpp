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

#include <simdjson.h>

#include <cstdint>
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

// The text of one record and how to turn a pointer into it back into a file position.
class RecordContext {
 public:
  // `text_start` is the first byte of the record, which lies on `first_line` at `first_column` (1-based).
  RecordContext(std::string_view file, uint64_t first_line, uint64_t first_column, const char* text_start)
      : file_(file), first_line_(first_line), first_column_(first_column), text_start_(text_start) {}

  SourceLocation locate(const char* at, const Pointer& pointer) const;
  SourceLocation locate(const char* at, std::string_view pointer) const;
  Error error(const char* at, const Pointer& pointer, std::string_view reason, std::string message) const;
  // An error for a simdjson failure while reading `pointer` at `at`.
  Error json_error(simdjson::error_code code, const char* at, const Pointer& pointer) const;

  const char* text_start() const { return text_start_; }

 private:
  std::string_view file_;
  uint64_t first_line_;
  uint64_t first_column_;
  const char* text_start_;
};

// Start of the token a value begins with (for error positions); nullptr when unknown.
const char* token_position(od::value& value);


Result<od::object> read_object(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<od::array> read_array(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<bool> read_bool(od::value& value, const RecordContext& ctx, const Pointer& pointer);
// The view points into the record text or the parser's string buffer: valid until the parser's next iterate().
Result<std::string_view> read_string(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<int64_t> read_int(od::value& value, const RecordContext& ctx, const Pointer& pointer);
Result<uint64_t> read_uint_in(od::value& value, uint64_t max, const RecordContext& ctx, const Pointer& pointer);
// A 32-bit hardware word or colour: a "0x" hex string of 1-8 digits (either case) or an integer.
Result<uint32_t> read_word(od::value& value, const RecordContext& ctx, const Pointer& pointer);

// An array of at most `max` 32-bit words (read_word each) into out[0..]; returns how many there were.
Result<uint32_t> read_words(od::value& value, uint32_t* out, uint32_t max, const RecordContext& ctx, const Pointer& pointer);

// Walks a value of any shape to its end, so malformed JSON inside fields a reader ignores is still caught.
Status skip_validated(od::value& value, const RecordContext& ctx, const Pointer& pointer);

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

// A missing_field error for the first name in `required` (indices into names) that `seen` lacks, or ok.
Status require_fields(uint64_t seen, std::span<const std::string_view> names, std::span<const size_t> required,
                      const RecordContext& ctx, const char* at, const Pointer& pointer);

}  // namespace shaderbake::json

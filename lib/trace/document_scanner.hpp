// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lib/core/result.hpp"
#include "lib/io/read_buffer.hpp"

namespace shaderbake::trace {

// What the trace readers share: a UTF-8 byte-order mark (written by some Windows tools), skipped before the
// first record; the read() chunk of a stream or document.
inline constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
inline constexpr size_t kReadChunk = size_t{4} << 20;

// The message of an oversized_record warning for a record-size limit of `limit` bytes.
std::string oversized_record_message(uint64_t limit);

// What the document scanner finds, handed on as it finds it.
class DocumentEvents {
 public:
  virtual ~DocumentEvents() = default;
  // One entry of "records", complete: `text` may be read up to `capacity` bytes (>= size + SIMDJSON_PADDING).
  virtual Status entry(std::string_view text, size_t capacity, uint64_t line, uint64_t column) = 0;
  // An entry skipped unread (oversized_record or too_deep) at line:column.
  virtual Status skipped(std::string_view reason, uint64_t line, uint64_t column, std::string message) = 0;
  // The document around the entries is broken at line:column: nothing more is read.
  virtual Status broken(uint64_t line, uint64_t column, std::string message) = 0;
  // True once reading this file has ended (a file-level problem).
  virtual bool stopped() const = 0;
};

// The document form, {"records": [...]}, read as its bytes arrive. A byte scanner follows the document's
// structure (strings, escapes, bracket depth) to where each entry of "records" begins and ends, and hands
// each entry on whole, to be read like a JSON Lines record (the record reader checks it as JSON). Only the
// entry being read is held, at most `max_record` bytes of it: a longer entry is oversized_record and one that
// nests deeper than `max_depth` too_deep, both scanned to their end without being kept. Members of the root
// object other than "records" are stepped over by their structure only. Every byte is looked at once: memory
// is bounded and time linear whatever the document, from a file or a pipe.
//
// Grammar followed (ws: JSON whitespace; a UTF-8 byte-order mark may come first):
//   document: ws '{' ws [ member ws { ',' ws member ws } ] '}' ws      member: string ws ':' ws value
//   exactly one member is "records": '[' ws [ entry ws { ',' ws entry ws } ] ']'
class DocumentScanner {
 public:
  DocumentScanner(DocumentEvents& events, uint64_t max_record, uint32_t max_depth)
      : events_(events), max_record_(max_record), max_depth_(max_depth) {}

  // The next `size` bytes of the document, readable up to `readable` bytes from `data`
  // (readable >= size + SIMDJSON_PADDING, so that an entry inside them is handed on in place).
  Status feed(const char* data, size_t size, size_t readable);
  // At the end of the input: a document cut short is broken. An input with nothing but whitespace (or a
  // byte-order mark) is no document and no error here: the file then has no capture record.
  Status finish();

 private:
  enum class State : uint8_t {
    before_root,    // ws, then '{'
    member_or_end,  // after '{': a member name or '}'
    member,         // after ',': a member name
    key,            // inside a member name
    colon,          // after a member name: ':'
    value,          // after ':': the member's value
    skip_value,     // inside the value of a member other than "records"
    records_first,  // after '[': an entry or ']'
    records_next,   // after ',': an entry
    entry,          // inside an entry
    after_entry,    // ',' or ']'
    after_member,   // ',' or '}'
    after_root,     // ws only
    failed,
  };
  // Where the scan of one JSON value stands: depth of open brackets, inside a string (just after a
  // backslash), or inside a number or literal, which ends before the next delimiter.
  struct ValueScan {
    uint64_t depth = 0;
    bool in_string = false;
    bool escaped = false;
    bool scalar = false;
  };
  enum class Step : uint8_t { more, ended_after, ended_before };

  static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  static bool starts_value(char c) {
    return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
  }
  // Advances a value scan by one byte: whether the value goes on, ended with this byte, or ended before it.
  static Step step(ValueScan& scan, char c);
  void advance(char c) {
    ++offset_;
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }
  Status fail(std::string message) {
    state_ = State::failed;
    return events_.broken(line_, column_, std::move(message));
  }
  bool key_is_records() const;
  Status skip_entry(std::string_view reason, uint64_t line, uint64_t column, std::string message);
  Status end_entry(const char* data, size_t end, size_t readable);
  // Appends bytes of the entry being read to its buffer (the caller has checked the limit).
  Status keep(const char* bytes, size_t size);

  DocumentEvents& events_;
  const uint64_t max_record_;
  const uint32_t max_depth_;
  State state_ = State::before_root;
  ValueScan scan_;
  uint64_t line_ = 1, column_ = 1;
  uint64_t offset_ = 0;      // bytes of the input consumed
  size_t bom_matched_ = 0;  // bytes of a leading byte-order mark
  // The member name being read, as written (its first bytes: one longer than any spelling of "records" is
  // another name).
  std::string key_;
  bool key_escaped_ = false, key_too_long_ = false;
  bool records_seen_ = false;
  // The entry being read: where it starts, its bytes from earlier chunks, where its bytes in this chunk
  // start, and whether it is being skipped.
  uint64_t entry_line_ = 0, entry_column_ = 0;
  std::optional<io::ReadBuffer> entry_buffer_;  // reserved at the limit on first use, resident only as written
  size_t entry_size_ = 0;
  size_t entry_from_ = 0;
  bool entry_skipped_ = false;
};

}  // namespace shaderbake::trace

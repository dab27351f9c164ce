// SPDX-License-Identifier: MIT
#include "lib/trace/document_scanner.hpp"

#include <simdjson.h>

#include <cstring>
#include <utility>

namespace shaderbake::trace {

std::string oversized_record_message(uint64_t limit) {
  return "the record is longer than the record-size limit of " + std::to_string(limit) +
         " bytes; it is skipped without being read (raise the limit to read it)";
}

DocumentScanner::Step DocumentScanner::step(ValueScan& scan, char c) {
  if (scan.in_string) {
    if (scan.escaped) {
      scan.escaped = false;
    } else if (c == '\\') {
      scan.escaped = true;
    } else if (c == '"') {
      scan.in_string = false;
      if (scan.depth == 0) return Step::ended_after;
    }
    return Step::more;
  }
  if (scan.scalar) return is_ws(c) || c == ',' || c == ']' || c == '}' ? Step::ended_before : Step::more;
  switch (c) {
    case '"':
      scan.in_string = true;
      return Step::more;
    case '[':
    case '{':
      ++scan.depth;
      return Step::more;
    case ']':
    case '}':
      // Depth is at least 1 here: a value starts with an opening byte, a quote or a scalar's first byte.
      return --scan.depth == 0 ? Step::ended_after : Step::more;
    default:
      if (scan.depth == 0) scan.scalar = true;  // the first byte of a number or literal
      return Step::more;
  }
}

bool DocumentScanner::key_is_records() const {
  if (key_too_long_) return false;
  if (!key_escaped_) return key_ == "records";
  // An escaped name: \uXXXX may spell an ASCII letter; any other escape is no letter, so another name.
  std::string decoded;
  for (size_t i = 0; i < key_.size(); ++i) {
    if (key_[i] != '\\') {
      decoded += key_[i];
      continue;
    }
    if (i + 5 >= key_.size()) return false;  // \u and four hex digits
    if (key_[i + 1] != 'u') return false;
    uint32_t code = 0;
    for (size_t k = i + 2; k < i + 6; ++k) {
      const char h = key_[k];
      uint32_t d;
      if (h >= '0' && h <= '9') d = static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') d = static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') d = static_cast<uint32_t>(h - 'A' + 10);
      else return false;
      code = code << 4 | d;
    }
    if (code >= 0x80) return false;
    decoded += static_cast<char>(code);
    i += 5;
  }
  return decoded == "records";
}

Status DocumentScanner::skip_entry(std::string_view reason, uint64_t line, uint64_t column, std::string message) {
  entry_skipped_ = true;
  entry_size_ = 0;
  if (entry_buffer_) entry_buffer_->release_from(0);  // give its memory back: the rest of it is never kept
  return events_.skipped(reason, line, column, std::move(message));
}

Status DocumentScanner::keep(const char* bytes, size_t size) {
  if (!entry_buffer_) {
    entry_buffer_.emplace(static_cast<size_t>(max_record_) + simdjson::SIMDJSON_PADDING);
    if (entry_buffer_->data() == nullptr) return fail("cannot reserve memory for a record of the document");
  }
  std::memcpy(entry_buffer_->data() + entry_size_, bytes, size);
  entry_size_ += size;
  return ok_status();
}

Status DocumentScanner::end_entry(const char* data, size_t end, size_t readable) {
  state_ = State::after_entry;
  if (entry_skipped_) return ok_status();
  if (entry_size_ + (end - entry_from_) > max_record_)
    return skip_entry("oversized_record", entry_line_, entry_column_, oversized_record_message(max_record_));
  if (entry_size_ == 0) {
    // The whole entry lies in this chunk: handed on in place (the chunk's padding covers it).
    return events_.entry(std::string_view(data + entry_from_, end - entry_from_), readable - entry_from_, entry_line_,
                         entry_column_);
  }
  if (Status s = keep(data + entry_from_, end - entry_from_); !s) return s;
  const size_t text_size = entry_size_;
  std::memset(entry_buffer_->data() + text_size, ' ', simdjson::SIMDJSON_PADDING);
  Status s = events_.entry(std::string_view(entry_buffer_->data(), text_size), entry_buffer_->size(), entry_line_, entry_column_);
  entry_size_ = 0;
  if (text_size > kReadChunk) entry_buffer_->release_from(0);  // a long entry's pages are not kept resident
  return s;
}

Status DocumentScanner::feed(const char* data, size_t size, size_t readable) {
  entry_from_ = 0;
  size_t pos = 0;
  while (pos < size && state_ != State::failed && !events_.stopped()) {
    const char c = data[pos];
    // Each state either consumes the byte (break: the position moves past it) or hands it to the next state
    // (continue without moving).
    switch (state_) {
      case State::before_root:
        if (offset_ == bom_matched_ && bom_matched_ < kByteOrderMark.size() && c == kByteOrderMark[bom_matched_]) {
          // Part of a leading byte-order mark: neither a character of the document nor a column.
          ++bom_matched_;
          ++offset_;
          ++pos;
          continue;
        }
        if (bom_matched_ != 0 && bom_matched_ < kByteOrderMark.size())
          return fail("the file starts with a damaged byte-order mark");
        if (is_ws(c)) break;
        if (c != '{') return fail("a trace in the document form is one JSON object, {\"records\": [...]}");
        state_ = State::member_or_end;
        break;
      case State::member_or_end:
      case State::member:
        if (is_ws(c)) break;
        if (c == '}' && state_ == State::member_or_end) {
          state_ = State::after_root;
          break;
        }
        if (c != '"') return fail("expected the name of a member of the root object");
        key_.clear();
        key_escaped_ = key_too_long_ = false;
        scan_ = ValueScan{};
        state_ = State::key;
        break;
      case State::key:
        if (scan_.escaped) {
          scan_.escaped = false;
        } else if (c == '\\') {
          scan_.escaped = key_escaped_ = true;
        } else if (c == '"') {
          state_ = State::colon;
          break;
        }
        if (key_.size() < 64) key_ += c;
        else key_too_long_ = true;
        break;
      case State::colon:
        if (is_ws(c)) break;
        if (c != ':') return fail("expected ':' after the name of a member of the root object");
        state_ = State::value;
        break;
      case State::value:
        if (is_ws(c)) break;
        if (key_is_records()) {
          if (records_seen_) return fail("the document has a second \"records\" member");
          if (c != '[') return fail("\"records\" must be an array of records");
          records_seen_ = true;
          state_ = State::records_first;
          break;
        }
        if (!starts_value(c)) return fail("expected a value after ':'");
        scan_ = ValueScan{};
        state_ = State::skip_value;
        continue;
      case State::skip_value: {
        const Step result = step(scan_, c);
        if (result == Step::more) break;
        state_ = State::after_member;
        if (result == Step::ended_before) continue;  // the delimiter belongs to what follows
        break;
      }
      case State::records_first:
      case State::records_next:
        if (is_ws(c)) break;
        if (c == ']' && state_ == State::records_first) {
          state_ = State::after_member;
          break;
        }
        if (!starts_value(c))
          return fail(state_ == State::records_first ? "expected a record or ']' in \"records\""
                                                     : "expected a record after ','");
        scan_ = ValueScan{};
        entry_line_ = line_;
        entry_column_ = column_;
        entry_size_ = 0;
        entry_from_ = pos;
        entry_skipped_ = false;
        state_ = State::entry;
        continue;
      case State::entry: {
        const uint64_t depth_before = scan_.depth;
        const Step result = step(scan_, c);
        if (scan_.depth > depth_before && scan_.depth > max_depth_ && !entry_skipped_) {
          Status s = skip_entry("too_deep", line_, column_,
                                "the record nests arrays and objects deeper than " + std::to_string(max_depth_) +
                                    " levels (the reader's depth limit); it is skipped unread");
          if (!s) return s;
        }
        if (result == Step::more) break;
        if (result == Step::ended_before) {
          if (Status s = end_entry(data, pos, readable); !s) return s;
          continue;
        }
        if (Status s = end_entry(data, pos + 1, readable); !s) return s;
        break;
      }
      case State::after_entry:
        if (is_ws(c)) break;
        if (c == ',') {
          state_ = State::records_next;
          break;
        }
        if (c != ']') return fail("expected ',' or ']' after a record");
        state_ = State::after_member;
        break;
      case State::after_member:
        if (is_ws(c)) break;
        if (c == ',') {
          state_ = State::member;
          break;
        }
        if (c != '}') return fail("expected ',' or '}' after a member of the root object");
        state_ = State::after_root;
        break;
      case State::after_root:
        if (is_ws(c)) break;
        return fail("content after the end of the document");
      case State::failed:
        return ok_status();
    }
    advance(c);
    ++pos;
  }
  // An entry going on past this chunk keeps its bytes so far, unless that makes it longer than the limit.
  if (state_ == State::entry && !entry_skipped_) {
    if (entry_size_ + (size - entry_from_) > max_record_)
      return skip_entry("oversized_record", entry_line_, entry_column_, oversized_record_message(max_record_));
    return keep(data + entry_from_, size - entry_from_);
  }
  return ok_status();
}

Status DocumentScanner::finish() {
  if (events_.stopped()) return ok_status();  // the file already ended with a problem of its own
  switch (state_) {
    case State::after_root:
    case State::failed:
      return ok_status();
    case State::before_root:
      if (bom_matched_ != 0 && bom_matched_ < kByteOrderMark.size())
        return fail("the file starts with a damaged byte-order mark");
      return ok_status();
    case State::entry:
      if (scan_.scalar && scan_.depth == 0) return fail("the document ends after its last record, before \"]}\" (cut short?)");
      return fail("the document ends inside a record (cut short?)");
    default:
      return fail("the document ends before its closing '}' (cut short?)");
  }
}

}  // namespace shaderbake::trace

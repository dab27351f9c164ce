// SPDX-License-Identifier: MIT
#include "lib/trace/trace_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <xxhash.h>

#include "lib/io/read_buffer.hpp"
#include "lib/trace/document_scanner.hpp"
#include "lib/trace/host_state_json.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::trace {

namespace od = simdjson::ondemand;

namespace {

constexpr size_t kWindow = size_t{64} << 20;                  // mapped window of a JSON Lines file

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return static_cast<size_t>(XXH3_64bits(s.data(), s.size())); }
};

// Finds where JSON breaks and nothing else: a SAX handler that keeps nothing, so the check costs a pass and
// the parser's own bit per level of nesting, never a document in memory.
class SyntaxProbe final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::json::exception& e) override {
    // A syntax error (ids 1xx) has a position; valid syntax that nlohmann cannot hold (a number like 1e999,
    // id 406) has no position better than the start.
    offset = e.id >= 100 && e.id < 200 && position > 0 ? position - 1 : 0;
    return false;
  }
  uint64_t offset = 0;
};

// Offset of the first syntax error in `text` (0-based), found by a strict second parser. Only used on the
// error path, where simdjson's on-demand API does not say where the JSON broke.
uint64_t syntax_error_offset(std::string_view text) {
  SyntaxProbe probe;
  try {
    (void)nlohmann::json::sax_parse(text.begin(), text.end(), &probe);
  } catch (const std::exception&) {
    return 0;
  }
  return probe.offset;
}

std::span<const uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// Characters (Unicode code points) of valid UTF-8 text, as JSON Schema's minLength and maxLength count them.
size_t code_points(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string capture_example() {
  return "{\"type\":\"capture\",\"format\":\"" + std::string(kTraceFormat) + "\",\"guest\":...}";
}

}  // namespace

// Per-file reading state: the state-id table and the file's summary.
class TraceReader::FileState {
 public:
  FileState(TraceReader& reader, DrawConsumer& consumer, FileSummary& summary, uint32_t file_index)
      : r_(reader), consumer_(consumer), summary_(summary), file_index_(file_index) {
    // A program may name files relative to its trace (a shader), so the same text means the same program only
    // within one directory: the memo of decoded program texts is kept across files of one directory only.
    std::string directory = std::filesystem::path(summary.path).parent_path().string();
    if (directory != r_.program_memo_directory_) {
      r_.program_texts_ = KeyInterner{};
      r_.program_of_text_.clear();
      r_.program_memo_directory_ = std::move(directory);
    }
  }

  // Processes one record: `text` lies in a buffer readable `capacity` bytes from text.data()
  // (capacity >= text.size() + SIMDJSON_PADDING). Returns an error only when reading must stop.
  Status record(std::string_view text, size_t capacity, uint64_t line, uint64_t column, bool last_unterminated);
  // A record skipped unread (oversized_record, or too_deep found by the document scanner), at `line`:`column`.
  Status skipped(std::string_view reason, uint64_t line, uint64_t column, std::string message);
  // A problem of the file as a whole (the document form's structure): ends the file.
  Status broken(Error error) {
    current_ = Current{};
    return bad(std::move(error), true);
  }
  // At the end of the input: a file that never reached its capture record is missing_capture.
  Status finish();

  bool abandoned() const { return abandoned_; }
  const std::string& path() const { return summary_.path; }
  // Lines of this file handed to read_lines so far (files are read window by window).
  uint64_t& lines_read() { return lines_read_; }

 private:
  struct StateEntry {
    bool good;
    uint32_t program;
    uint32_t host;
  };
  // The record being processed, for bad(): where its text is, and whether it is a capture record. Set by
  // record() (left as it is when record() returns: cheaper than clearing it on every path), cleared by the
  // other callers of bad().
  struct Current {
    std::string_view text;  // data() is nullptr when bad() is called for no record
    uint64_t line = 0, column = 0;
    bool is_capture = false;
  };

  // Reports a bad record; returns the error when reading must stop (strict mode). A file-level problem
  // marks the file abandoned: the caller stops reading it. Before the capture record every problem is one
  // of the file. A bad record nested deeper than the limit is reported as too_deep, whatever else is wrong.
  Status bad(Error error, bool file_level = false);
  Result<uint32_t> program_of(std::string_view text, size_t capacity, const json::RecordContext& outer);
  Result<uint32_t> host_of(std::string_view text, size_t capacity, const json::RecordContext& outer);
  Status check_dynamic(std::string_view text, size_t capacity, const json::RecordContext& outer);
  Status capture(std::string_view text, std::string_view format, std::string_view guest, bool has_format,
                 bool has_guest, const json::RecordContext& ctx);

  // `text` (an object slice of the record, one level below its root) as a value of its own, parsed on the
  // field parser.
  json::FieldText slice(std::string_view text, size_t capacity, const json::RecordContext& outer,
                        const json::Pointer& pointer) {
    return json::FieldText(text, capacity, outer, pointer, r_.field_parser_);
  }

  TraceReader& r_;
  DrawConsumer& consumer_;
  FileSummary& summary_;
  uint32_t file_index_;
  bool capture_seen_ = false;
  int version_ = 2;  // the capture record's trace format: 1 or 2
  bool abandoned_ = false;
  uint64_t lines_read_ = 0;
  Current current_;
  std::unordered_map<std::string, StateEntry, StringHash, std::equal_to<>> states_;
};

Status TraceReader::FileState::bad(Error error, bool file_level) {
  if (current_.text.data() != nullptr && error.reason != "too_deep" && error.reason != "oversized_record") {
    // One scan of a record already known bad: deep nesting anywhere in it, even inside a field that failed
    // for another reason first, is what the user has to fix.
    const json::RecordContext ctx(summary_.path, current_.line, current_.column, current_.text.data(), r_.max_depth());
    if (const char* deep = json::find_too_deep(current_.text, ctx.max_depth()))
      error = ctx.error(deep, "", "too_deep",
                        "the record nests arrays and objects deeper than " + std::to_string(ctx.max_depth()) +
                            " levels (the reader's depth limit)");
  }
  if (!capture_seen_) {
    // The file does not start with a valid capture record: nothing in it can be attributed to a capture,
    // so the file is unusable. A capture record keeps its own reason, and so does a record too deep or too
    // long to be read (what is known of it is what must be fixed); anything else is missing_capture.
    file_level = true;
    if (!current_.is_capture && error.reason != "too_deep" && error.reason != "oversized_record" &&
        error.reason != "missing_capture") {
      error.message = "the file does not start with a capture record " + capture_example() + ": " + error.message;
      error.reason = "missing_capture";
    }
  }
  ++summary_.bad_records[error.reason];
  // A file-level problem ends this file (reported as an error) but, outside strict mode, not the run.
  const bool stop = r_.options_.strict;
  r_.sink_.report(stop || file_level ? Severity::error : Severity::warning, error);
  if (file_level) {
    abandoned_ = true;
    summary_.readable = false;
  }
  if (stop) return error;
  return ok_status();
}

Status TraceReader::FileState::skipped(std::string_view reason, uint64_t line, uint64_t column, std::string message) {
  current_ = Current{};  // no record text to look into
  ++summary_.records;
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = std::string(reason);
  e.message = std::move(message);
  e.where.file = summary_.path;
  e.where.line = line;
  e.where.column = column;
  return bad(std::move(e));
}

Status TraceReader::FileState::finish() {
  if (capture_seen_ || abandoned_) return ok_status();
  current_ = Current{};
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = "missing_capture";
  e.message = "the file holds no record (it is empty, blank or only a byte-order mark); a trace starts with the capture record " +
              capture_example();
  e.where.file = summary_.path;
  e.where.line = 1;
  e.where.column = 1;
  return bad(std::move(e), true);
}

Result<uint32_t> TraceReader::FileState::program_of(std::string_view text, size_t capacity,
                                                    const json::RecordContext& outer) {
  const KeyHash text_hash = KeyHash::of(as_bytes(text));
  const uint32_t known = r_.program_texts_.find(as_bytes(text), text_hash);
  if (known != KeyInterner::kAbsent) return r_.program_of_text_[known];

  const json::Pointer pointer("/program");
  auto keys = r_.model_->decode_program(slice(text, capacity, outer, pointer));
  if (!keys) return std::move(keys).error();
  const auto program = r_.exact_keys_.intern(keys->exact_key);
  if (program.inserted) {
    r_.program_family_.push_back(r_.family_keys_.intern(keys->family_key).index);
    r_.program_rejection_.push_back(std::move(keys->rejection));
    r_.program_compute_.push_back(keys->compute);
  }
  if (r_.program_texts_.stored_bytes() + text.size() <= r_.options_.memo_limit_bytes) {
    r_.program_texts_.intern(as_bytes(text), text_hash);
    r_.program_of_text_.push_back(program.index);
  }
  return program.index;
}

Result<uint32_t> TraceReader::FileState::host_of(std::string_view text, size_t capacity,
                                                 const json::RecordContext& outer) {
  const KeyHash text_hash = KeyHash::of(as_bytes(text));
  KeyInterner& texts = r_.host_texts_[version_ - 1];
  std::vector<uint32_t>& host_of_text = r_.host_of_text_[version_ - 1];
  const uint32_t known = texts.find(as_bytes(text), text_hash);
  if (known != KeyInterner::kAbsent) return host_of_text[known];

  const json::Pointer pointer("/host");
  auto state = slice(text, capacity, outer, pointer).parse([&](od::value& root, const json::RecordContext& ctx) {
    return decode_host_state(root, ctx, pointer, {version_ == 1, r_.model_->vertex_semantics()});
  });
  if (!state) return std::move(state).error();
  std::array<uint8_t, SBK_HOST_STATE_MAX_SIZE> bytes{};
  size_t size = 0;
  if (sbk_encode_host_state(&*state, bytes.data(), bytes.size(), &size) != SBK_OK)
    return outer.error(text.data(), "/host", "invalid_host_state", "host state cannot be encoded");
  const auto interned = r_.host_states_.intern({bytes.data(), size});
  if (interned.inserted) r_.host_values_.push_back(*state);
  const uint32_t host = interned.index;
  if (texts.stored_bytes() + text.size() <= r_.options_.memo_limit_bytes) {
    texts.intern(as_bytes(text), text_hash);
    host_of_text.push_back(host);
  }
  return host;
}

Status TraceReader::FileState::check_dynamic(std::string_view text, size_t capacity, const json::RecordContext& outer) {
  // Dynamic values often repeat byte for byte; a text that passed once passes again.
  const KeyHash text_hash = KeyHash::of(as_bytes(text));
  if (r_.dynamic_texts_.find(as_bytes(text), text_hash) != KeyInterner::kAbsent) return ok_status();
  const json::Pointer pointer("/dynamic");
  Status checked = r_.model_->check_dynamic(slice(text, capacity, outer, pointer));
  if (checked && r_.dynamic_texts_.stored_bytes() + text.size() <= r_.options_.memo_limit_bytes)
    r_.dynamic_texts_.intern(as_bytes(text), text_hash);
  return checked;
}

Status TraceReader::FileState::capture(std::string_view text, std::string_view format, std::string_view guest,
                                       bool has_format, bool has_guest, const json::RecordContext& ctx) {
  if (capture_seen_)
    return bad(ctx.error(text.data(), "/type", "duplicate_capture", "a second capture record; a file has exactly one, first"));
  capture_seen_ = true;
  if (!has_format)
    return bad(ctx.error(text.data(), "/format", "missing_field", "the capture record has no \"format\""), true);
  if (format != kTraceFormat && format != kTraceFormatV1)
    return bad(ctx.error(text.data(), "/format", "unsupported_format",
                         "trace format \"" + std::string(format.substr(0, 60)) + "\" is not supported; this reader speaks \"" +
                             std::string(kTraceFormat) + "\" and \"" + std::string(kTraceFormatV1) + "\""),
               true);
  version_ = format == kTraceFormatV1 ? 1 : 2;
  if (!has_guest)
    return bad(ctx.error(text.data(), "/guest", "missing_field", "the capture record has no \"guest\""), true);
  // The first capture record read names the model of every file after it: keys of two guests never meet
  // in one read.
  if (r_.model_ != nullptr && guest != r_.model_->name())
    return bad(ctx.error(text.data(), "/guest", "wrong_guest",
                         "trace is for guest \"" + std::string(guest.substr(0, 60)) + "\", but the traces read before it are for \"" +
                             std::string(r_.model_->name()) + "\" (one read is of one guest)"),
               true);
  if (r_.model_ == nullptr) {
    const GuestModel* model = r_.catalog_.find(guest);
    if (model == nullptr)
      return bad(ctx.error(text.data(), "/guest", "wrong_guest",
                           "trace is for guest \"" + std::string(guest.substr(0, 60)) + "\", but this build reads " +
                               (r_.catalog_.models().size() == 1 ? "\"" + r_.catalog_.names() + "\"" : "one of: " + r_.catalog_.names())),
                 true);
    r_.model_ = model;
  }
  summary_.capture = std::string(text);
  return ok_status();
}

Status TraceReader::FileState::record(std::string_view text, size_t capacity, uint64_t line, uint64_t column,
                                      bool last_unterminated) {
  // Every field a record type defines (schemas/trace.schema.json). A record type reads its own; the others
  // are, for that type, fields a capture tool added: checked as JSON and ignored, whatever their type.
  static constexpr std::array<std::string_view, 13> kNames = {"type", "format", "guest",   "id",        "frame",
                                                              "draw", "state",  "program", "host",      "dynamic",
                                                              "generator", "title", "seed"};
  enum : size_t { kType, kFormat, kGuest, kId, kFrame, kDraw, kState, kProgram, kHost, kDynamic, kGenerator, kTitle, kSeed };
  enum class Kind : uint8_t { string, integer, object };
  static constexpr std::array<Kind, kNames.size()> kKinds = {
      Kind::string, Kind::string,  Kind::string, Kind::string, Kind::integer, Kind::integer, Kind::string,
      Kind::object, Kind::object,  Kind::object, Kind::string, Kind::string,  Kind::integer};
  static constexpr std::array<const char*, 3> kKindNames = {"a string", "an integer", "an object"};
  auto bit = [](size_t i) { return uint64_t{1} << i; };
  const uint64_t kCaptureFields = bit(kType) | bit(kFormat) | bit(kGuest) | bit(kGenerator) | bit(kTitle) | bit(kSeed);
  const uint64_t kStateFields = bit(kType) | bit(kId) | bit(kProgram) | bit(kHost) | bit(kDynamic);
  const uint64_t kDrawFields = bit(kType) | bit(kFrame) | bit(kDraw) | bit(kState) | bit(kProgram) | bit(kHost) | bit(kDynamic);

  ++summary_.records;
  const json::RecordContext ctx(summary_.path, line, column, text.data(), r_.max_depth());
  current_ = Current{text, line, column, false};

  auto malformed = [&](simdjson::error_code code, const char* at) {
    Error e = ctx.json_error(code, at, "");
    if (e.reason == "malformed_json") {
      const uint64_t offset = syntax_error_offset(text);
      e.where = ctx.locate(text.data() + offset, std::string_view{});
      if (last_unterminated) {
        e.reason = "truncated_record";
        e.message = "the last line is cut short (no newline, incomplete JSON): " + e.message;
      }
    }
    return e;
  };
  // A malformed_json error from a walk of the record's values is located by the strict second parser.
  auto relocate = [&](Error e) {
    if (e.reason == "malformed_json") e = malformed(simdjson::TAPE_ERROR, nullptr);
    return e;
  };

  od::document doc;
  if (auto err = r_.record_parser_.iterate(text.data(), text.size(), capacity).get(doc))
    return bad(malformed(err, text.data()));
  od::object obj;
  if (auto err = doc.get_object().get(obj)) return bad(malformed(err, text.data()));

  // One pass over the fields, before the record's type is known (it may come last): each field of the JSON
  // type it is defined with is read (strings stay valid in the record parser's string buffer until its next
  // iterate(); objects are kept as raw text slices, decoded later); one of another JSON type is walked as
  // JSON and remembered, an error only if the record's type reads it.
  std::array<std::string_view, kNames.size()> strings{};
  // The three integer fields, frame, draw and seed, in that order (slot = index - kFrame, seed last).
  auto slot = [](size_t i) { return i == kSeed ? size_t{2} : i - kFrame; };
  std::array<json::Number, 3> numbers;
  std::array<std::string_view, 3> tokens;  // as written, for messages
  std::array<const char*, kNames.size()> at;  // set for each field present (`seen`)
  uint64_t mistyped = 0;

  uint64_t seen = 0;
  auto on_field = [&](size_t i, od::value& v, const json::Pointer& p) -> Status {
    at[i] = json::token_position(v);
    // The first byte of a value says its JSON type (simdjson's type() looks at nothing else).
    const char first = *at[i];
    const bool defined_type = kKinds[i] == Kind::string    ? first == '"'
                              : kKinds[i] == Kind::integer ? first == '-' || (first >= '0' && first <= '9')
                                                           : first == '{';
    if (!defined_type) {
      mistyped |= bit(i);
      return json::skip_validated(v, ctx, p);
    }
    switch (kKinds[i]) {
      case Kind::string: {
        auto s = json::read_string(v, ctx, p);
        if (!s) return std::move(s).error();
        strings[i] = *s;
        return ok_status();
      }
      case Kind::integer: {
        tokens[slot(i)] = v.raw_json_token();
        // Fast path: a plain unsigned integer, nearly every number of a trace.
        uint64_t u = 0;
        if (!v.get_uint64().get(u)) {
          numbers[slot(i)] = json::Number{false, true, true, u};
          return ok_status();
        }
        auto n = json::read_number(v, ctx, p);
        if (!n) return std::move(n).error();
        numbers[slot(i)] = *n;
        return ok_status();
      }
      case Kind::object: {
        od::object o;
        if (auto err = v.get_object().get(o)) return ctx.json_error(err, at[i], p);
        if (auto err = o.raw_json().get(strings[i])) return ctx.json_error(err, at[i], p);
        return ok_status();
      }
    }
    return ok_status();
  };
  Status fields = json::for_each_field(obj, kNames, false, ctx, "", &seen, on_field);
  if (!fields) return bad(relocate(std::move(fields).error()));
  {
    // Anything after the record's closing brace is trailing garbage (current_location fails at the end).
    const char* rest = nullptr;
    if (!doc.current_location().get(rest)) return bad(malformed(simdjson::TRAILING_CONTENT, rest));
  }

  auto has = [&](size_t i) { return (seen & bit(i)) != 0; };
  const json::Pointer record_root("");  // parent of the field pointers below (they refer to it)
  // Bytes readable from a slice of this record (the record's own padding guarantee carries over).
  auto slice_capacity = [&](std::string_view slice) { return capacity - static_cast<size_t>(slice.data() - text.data()); };
  if (!has(kType)) return bad(ctx.error(text.data(), "/type", "missing_field", "record has no \"type\""));
  if (mistyped & bit(kType))
    return bad(ctx.error(at[kType], "/type", "wrong_type", "field /type must be a string: capture, state or draw"));
  const std::string_view type = strings[kType];
  enum class Type : uint8_t { capture, state, draw };
  Type record_type;
  uint64_t reads;
  if (type == "draw") {
    record_type = Type::draw;
    reads = kDrawFields;
  } else if (type == "state") {
    record_type = Type::state;
    reads = kStateFields;
  } else if (type == "capture") {
    record_type = Type::capture;
    reads = kCaptureFields;
  } else {
    return bad(ctx.error(at[kType], "/type", "unknown_record_type",
                         "unknown record type \"" + std::string(type.substr(0, 40)) + "\" (expected capture, state or draw)"));
  }
  current_.is_capture = record_type == Type::capture;

  // Objects this record type does not read were only stepped over: check them as JSON like any other field
  // a capture tool added.
  const uint64_t kObjectFields = bit(kProgram) | bit(kHost) | bit(kDynamic);
  for (size_t i : {kProgram, kHost, kDynamic}) {
    if (!(seen & kObjectFields & ~reads & ~mistyped)) break;  // the common case: none
    if (!has(i) || (reads & bit(i)) || (mistyped & bit(i))) continue;
    const json::Pointer pointer(record_root, kNames[i]);
    Status valid = slice(strings[i], slice_capacity(strings[i]), ctx, pointer)
                       .parse([&](od::value& root, const json::RecordContext& c) -> Status {
                         return json::skip_validated(root, c, pointer);
                       });
    if (!valid) return bad(relocate(std::move(valid).error()));
  }
  // The first field (in the text) that this record type reads but that has another JSON type.
  if (mistyped & reads) {
    size_t first = kNames.size();
    for (size_t i = 0; i < kNames.size(); ++i)
      if ((mistyped & reads & bit(i)) && (first == kNames.size() || at[i] < at[first])) first = i;
    if (first != kNames.size()) {
      const json::Pointer pointer(record_root, kNames[first]);
      return bad(ctx.error(at[first], pointer, "wrong_type",
                           "field " + pointer.str() + " must be " + kKindNames[static_cast<size_t>(kKinds[first])]));
    }
  }
  // The checks below run on every record: each is a plain test, and only a failure builds its Error.
  // A number field read by this type, in [0, max].
  auto integer_fits = [&](size_t i, uint64_t max) {
    const json::Number& n = numbers[slot(i)];
    return n.integer && n.fits && !n.negative && n.magnitude <= max;
  };
  auto integer_error = [&](size_t i, uint64_t max) {
    return std::move(json::uint_in(numbers[slot(i)], tokens[slot(i)], max, ctx, at[i], json::Pointer("", kNames[i]))).error();
  };

  if (record_type == Type::capture) {
    // Provenance of any size: only its being a non-negative integer is checked.
    if (has(kSeed) && !(numbers[slot(kSeed)].integer && !numbers[slot(kSeed)].negative))
      return bad(integer_error(kSeed, UINT64_MAX));  // a fraction or a negative number
    return capture(text, strings[kFormat], strings[kGuest], has(kFormat), has(kGuest), ctx);
  }
  if (!capture_seen_)
    return bad(ctx.error(text.data(), "", "missing_capture",
                         "the first record must be the capture record " + capture_example() +
                             "; without it the file cannot be read"),
               true);

  auto present = [&](uint64_t fields) { return (seen & fields) == fields; };
  // A missing_field error for the first of `fields` absent.
  auto missing = [&](uint64_t fields, const char* what) {
    size_t i = 0;
    while (!(fields & bit(i)) || has(i)) ++i;
    return ctx.error(text.data(), json::Pointer("", kNames[i]), "missing_field",
                     std::string("a ") + what + " record needs \"" + std::string(kNames[i]) + "\"");
  };
  // A state id, in a state record or a draw: 1 to 256 characters, as the schema's minLength and maxLength.
  auto id_fits = [&](size_t i) {
    if (!strings[i].empty() && strings[i].size() <= 256) return true;  // bytes >= characters
    const size_t length = code_points(strings[i]);
    return length >= 1 && length <= 256;
  };
  auto id_error = [&](size_t i) {
    return ctx.error(at[i], json::Pointer("", kNames[i]), "out_of_range",
                     "a state id is 1 to 256 characters long; this one has " + std::to_string(code_points(strings[i])));
  };

  // A compute program's records carry no host; any other program's need one.
  auto host_for = [&](uint32_t program) -> Result<uint32_t> {
    if (r_.program_compute_[program]) {
      if (has(kHost))
        return ctx.error(at[kHost], "/host", "conflicting_fields", "a compute program's record has no \"host\"");
      return kNoHost;
    }
    if (!has(kHost)) return missing(bit(kHost), record_type == Type::state ? "state" : "draw (without \"state\")");
    return host_of(strings[kHost], slice_capacity(strings[kHost]), ctx);
  };

  if (record_type == Type::state) {
    if (!present(bit(kId) | bit(kProgram))) return bad(missing(bit(kId) | bit(kProgram), "state"));
    if (!id_fits(kId)) return bad(id_error(kId));
    const std::string_view id = strings[kId];
    if (states_.count(id) != 0)
      return bad(ctx.error(at[kId], "/id", "duplicate_state_id",
                           "state id \"" + std::string(id.substr(0, 60)) + "\" is defined twice in this file; the first definition stands"));
    // A bad state is remembered as bad, so that its draws count as state_rejected, not unknown_state.
    auto decoded = [&]() -> Result<StateEntry> {
      auto program = program_of(strings[kProgram], slice_capacity(strings[kProgram]), ctx);
      if (!program) return std::move(program).error();
      auto host = host_for(*program);
      if (!host) return std::move(host).error();
      if (has(kDynamic))
        if (Status d = check_dynamic(strings[kDynamic], slice_capacity(strings[kDynamic]), ctx); !d) return std::move(d).error();
      return StateEntry{true, *program, *host};
    }();
    const StateEntry entry = decoded ? *decoded : StateEntry{false, 0, 0};
    states_.emplace(std::string(id), entry);
    if (!entry.good) return bad(std::move(decoded).error());
    ++summary_.states;
    return ok_status();
  }

  // A draw.
  if (!present(bit(kFrame) | bit(kDraw))) return bad(missing(bit(kFrame) | bit(kDraw), "draw"));
  if (!integer_fits(kFrame, INT64_MAX)) return bad(integer_error(kFrame, INT64_MAX));
  if (!integer_fits(kDraw, INT64_MAX)) return bad(integer_error(kDraw, INT64_MAX));
  DrawEvent event{file_index_, line, static_cast<int64_t>(numbers[slot(kFrame)].magnitude),
                  static_cast<int64_t>(numbers[slot(kDraw)].magnitude), 0, 0};
  if (has(kState)) {
    if (has(kProgram) || has(kHost) || has(kDynamic))
      return bad(ctx.error(at[kState], "/state", "conflicting_fields",
                           "a draw names a \"state\" or carries \"program\", \"host\" and \"dynamic\", not both"));
    if (!id_fits(kState)) return bad(id_error(kState));
    const std::string_view state = strings[kState];
    auto found = states_.find(state);
    if (found == states_.end())
      return bad(ctx.error(at[kState], "/state", "unknown_state",
                           "draw refers to state \"" + std::string(state.substr(0, 60)) + "\", which no earlier state record of this file defines"));
    if (!found->second.good)
      return bad(ctx.error(at[kState], "/state", "state_rejected",
                           "draw refers to state \"" + std::string(state.substr(0, 60)) + "\", whose record was bad (reported above)"));
    event.program = found->second.program;
    event.host = found->second.host;
  } else {
    if (!present(bit(kProgram))) return bad(missing(bit(kProgram) | bit(kHost), "draw (without \"state\")"));
    auto program = program_of(strings[kProgram], slice_capacity(strings[kProgram]), ctx);
    if (!program) return bad(std::move(program).error());
    auto host = host_for(*program);
    if (!host) return bad(std::move(host).error());
    event.program = *program;
    event.host = *host;
    if (has(kDynamic)) {
      Status d = check_dynamic(strings[kDynamic], slice_capacity(strings[kDynamic]), ctx);
      if (!d) return bad(std::move(d).error());
    }
  }
  ++summary_.draws;
  consumer_.on_draw(event);
  return ok_status();
}

TraceReader::TraceReader(const GuestCatalog& catalog, ReaderOptions options, DiagnosticSink& sink)
    : catalog_(catalog), options_(options), sink_(sink) {}

TraceReader::TraceReader(const GuestModel& model, ReaderOptions options, DiagnosticSink& sink)
    : catalog_({&model}), options_(options), sink_(sink) {}

TraceReader::~TraceReader() = default;

uint32_t TraceReader::max_depth() const {
  return std::clamp<uint32_t>(options_.max_depth, ReaderOptions::kMinDepth, json::kMaxDepthCeiling);
}

uint64_t TraceReader::max_record_bytes() const {
  return std::min(options_.max_record_bytes, ReaderOptions::kMaxRecordBytesCeiling);
}

std::map<std::string, uint64_t> TraceReader::bad_records() const {
  std::map<std::string, uint64_t> total;
  for (const FileSummary& f : files_)
    for (const auto& [reason, count] : f.bad_records) total[reason] += count;
  return total;
}

namespace {

bool is_blank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

// Hands every non-blank line of [base, base + size) to `file`, numbering lines on from file.lines_read().
// Bytes up to base + readable may be read; a line too close to that end for simdjson's padding is copied
// into a padded buffer first. A line longer than the record-size limit is oversized_record, never parsed.
Status TraceReader::read_lines(FileState& file, const char* base, size_t size, size_t readable) {
  std::vector<char> tail;
  uint64_t& line = file.lines_read();
  const uint64_t max_record = max_record_bytes();
  size_t start = 0;
  if (line == 0 && size >= kByteOrderMark.size() && std::memcmp(base, kByteOrderMark.data(), kByteOrderMark.size()) == 0)
    start = kByteOrderMark.size();
  for (size_t pos = start; pos < size && !file.abandoned();) {
    const char* nl = static_cast<const char*>(std::memchr(base + pos, '\n', size - pos));
    const size_t end = nl ? static_cast<size_t>(nl - base) : size;
    ++line;
    std::string_view record(base + pos, end - pos);
    if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
    if (record.size() > max_record) {
      if (Status s = file.skipped("oversized_record", line, 1, oversized_record_message(max_record)); !s) return s;
    } else if (!is_blank(record)) {
      size_t capacity = readable - pos;
      if (capacity < record.size() + simdjson::SIMDJSON_PADDING) {
        tail.assign(record.begin(), record.end());
        tail.resize(record.size() + simdjson::SIMDJSON_PADDING, ' ');
        record = std::string_view(tail.data(), record.size());
        capacity = tail.size();
      }
      Status s = file.record(record, capacity, line, 1, nl == nullptr);
      if (!s) return s;
    }
    pos = end + 1;
  }
  return ok_status();
}

namespace {

// The document scanner's findings, given to a file's reading state.
template <class File>
class DocumentToFile final : public DocumentEvents {
 public:
  explicit DocumentToFile(File& file) : file_(file) {}
  Status entry(std::string_view text, size_t capacity, uint64_t line, uint64_t column) override {
    return file_.record(text, capacity, line, column, false);
  }
  Status skipped(std::string_view reason, uint64_t line, uint64_t column, std::string message) override {
    return file_.skipped(reason, line, column, std::move(message));
  }
  Status broken(uint64_t line, uint64_t column, std::string message) override {
    Error e;
    e.kind = ErrorKind::bad_input;
    e.reason = "malformed_json";
    e.message = "the document is not {\"records\": [...]}: " + message;
    e.where.file = file_.path();
    e.where.line = line;
    e.where.column = column;
    return file_.broken(std::move(e));
  }
  bool stopped() const override { return file_.abandoned(); }

 private:
  File& file_;
};

}  // namespace

Status TraceReader::read_text(std::string_view name, std::string_view text, bool document_form, DrawConsumer& consumer) {
  files_.push_back(FileSummary{});
  FileSummary& summary = files_.back();
  summary.path = std::string(name);
  FileState file(*this, consumer, summary, static_cast<uint32_t>(files_.size() - 1));

  // simdjson reads up to SIMDJSON_PADDING bytes past any value; give it a padded copy.
  simdjson::padded_string padded(text);
  const size_t readable = padded.size() + simdjson::SIMDJSON_PADDING;
  Status status = ok_status();
  if (document_form) {
    DocumentToFile<FileState> events(file);
    DocumentScanner scanner(events, max_record_bytes(), max_depth());
    status = scanner.feed(padded.data(), padded.size(), readable);
    if (status) status = scanner.finish();
  } else {
    status = read_lines(file, padded.data(), padded.size(), readable);
  }
  if (!status) return status;
  return file.finish();
}

Status TraceReader::io_error(const std::string& path, const std::string& what) {
  Error e;
  e.kind = ErrorKind::io;
  e.reason = "unreadable_file";
  e.message = what + ": " + std::strerror(errno);
  e.where.file = path;
  files_.push_back(FileSummary{});
  files_.back().path = path;
  files_.back().readable = false;
  ++files_.back().bad_records[e.reason];
  sink_.report(Severity::error, e);
  return e;
}

Status TraceReader::read_file(const std::string& path, DrawConsumer& consumer) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(path, "cannot open the trace");
  struct stat info {};
  const bool regular = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  const uint64_t size = regular ? static_cast<uint64_t>(info.st_size) : 0;  // for progress only, unless mapped
  Status status = ok_status();
  // A digest must be of the very bytes parsed: a mapping shows another writer's changes between parsing and
  // hashing, so a file to digest is read into a private buffer like a stream.
  if (ends_with(path, ".json")) status = read_document(path, fd, size, consumer);
  else if (regular && !options_.digest_content) status = read_mapped_lines(path, fd, size, consumer);
  else status = read_stream_lines(path, fd, size, consumer);
  ::close(fd);
  return status;
}

// Maps the file window by window, each window populated in one call (page faults one page at a time cost
// more than the parsing here), and reads lines in place: no copy, and resident memory bounded by the window
// whatever the trace's size. A window ends after its last complete line; a line longer than the window
// doubles it, up to the record-size limit: past that the line is oversized_record, and its end is found by
// scanning windows of the usual size, never mapping it whole.
Status TraceReader::read_mapped_lines(const std::string& path, int fd, uint64_t size_bytes, DrawConsumer& consumer) {
  files_.push_back(FileSummary{});
  files_.back().path = path;
  FileState file(*this, consumer, files_.back(), static_cast<uint32_t>(files_.size() - 1));
  const size_t size = static_cast<size_t>(size_bytes);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t max_record = max_record_bytes();
  size_t window = kWindow;
  size_t offset = 0;  // first byte not yet handed on
  auto map_failed = [&]() {
    files_.pop_back();
    return io_error(path, "cannot map the trace");
  };
  Status status = ok_status();
  while (offset < size && status && !file.abandoned()) {
    const size_t map_start = offset / page * page;
    const size_t map_length = std::min(size - map_start, window);
    void* mapping = ::mmap(nullptr, map_length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(map_start));
    if (mapping == MAP_FAILED) return map_failed();
    const char* base = static_cast<const char*>(mapping) + (offset - map_start);
    const size_t available = map_length - (offset - map_start);
    size_t complete = available;
    if (map_start + map_length < size) {
      const char* last_nl = static_cast<const char*>(::memrchr(base, '\n', available));
      complete = last_nl ? static_cast<size_t>(last_nl - base) + 1 : 0;
    }
    if (complete != 0) {
      status = read_lines(file, base, complete, available);
      offset += complete;
      window = kWindow;
    } else if (available > max_record + 1) {
      // No line end in more bytes than a record may have (one may be a '\r' before the '\n'): oversized.
      // Its end is found by memchr over windows of the usual size, each mapped once.
      ::munmap(mapping, map_length);
      mapping = nullptr;
      status = file.skipped("oversized_record", ++file.lines_read(), 1, oversized_record_message(max_record));
      size_t from = offset + available;
      bool found = false;
      while (from < size && !found) {
        const size_t skip_start = from / page * page;
        const size_t skip_length = std::min(size - skip_start, kWindow);
        void* skip = ::mmap(nullptr, skip_length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(skip_start));
        if (skip == MAP_FAILED) return map_failed();
        const char* begin = static_cast<const char*>(skip) + (from - skip_start);
        const char* nl = static_cast<const char*>(std::memchr(begin, '\n', skip_length - (from - skip_start)));
        found = nl != nullptr;
        from = found ? skip_start + static_cast<size_t>(nl - static_cast<const char*>(skip)) + 1 : skip_start + skip_length;
        ::munmap(skip, skip_length);
      }
      offset = from;
      window = kWindow;
    } else {
      // One line longer than the window, but perhaps not than a record may be: grow the window, never past
      // what holds the longest record (so that the next pass ends with a line end or the oversized branch).
      const size_t needed = ((offset - map_start) + static_cast<size_t>(max_record) + 2 + page - 1) / page * page;
      window = std::max(window + page, std::min(window * 2, needed));
    }
    if (mapping != nullptr) ::munmap(mapping, map_length);
    if (complete != 0 || window == kWindow)
      if (options_.progress) options_.progress(path, offset, size);
  }
  if (!status) return status;
  return file.finish();
}

// Pipes, other streams and files to digest: read in chunks; only complete lines are handed on, and a partial
// line at a chunk's end moves to the front of the buffer. Each chunk is searched for line ends once (its own
// bytes only), and a partial line is moved once, so time is linear. A partial line longer than the
// record-size limit is oversized_record: its bytes are dropped as they arrive until its line end, so the
// buffer never holds more than the limit plus one chunk.
Status TraceReader::read_stream_lines(const std::string& path, int fd, uint64_t total, DrawConsumer& consumer) {
  const uint64_t max_record = max_record_bytes();
  io::ReadBuffer buffer(static_cast<size_t>(max_record) + 2 + kReadChunk + simdjson::SIMDJSON_PADDING);
  if (buffer.data() == nullptr) return io_error(path, "cannot reserve memory to read the trace");
  files_.push_back(FileSummary{});
  files_.back().path = path;
  FileState file(*this, consumer, files_.back(), static_cast<uint32_t>(files_.size() - 1));
  std::optional<ContentHasher> content;
  if (options_.digest_content) content.emplace();
  constexpr uint64_t kProgressStep = uint64_t{64} << 20;
  uint64_t done = 0;
  uint64_t next_progress = kProgressStep;
  char* const data = buffer.data();
  const size_t room = buffer.size() - simdjson::SIMDJSON_PADDING;  // bytes that may be filled
  size_t filled = 0;                                              // [0, filled): one partial line, no '\n'
  bool discarding = false;  // inside an oversized line: its bytes are dropped up to its line end
  bool eof = false;
  Status status = ok_status();
  while (!eof && !file.abandoned() && status) {
    const ssize_t n = ::read(fd, data + filled, std::min(kReadChunk, room - filled));
    if (n < 0) {
      if (errno == EINTR) continue;
      files_.pop_back();
      return io_error(path, "cannot read the trace");
    }
    eof = n == 0;
    if (content) content->update(data + filled, static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
    size_t fresh = filled;  // the new bytes start here
    filled += static_cast<size_t>(n);
    if (discarding) {
      const char* nl = static_cast<const char*>(std::memchr(data + fresh, '\n', filled - fresh));
      if (nl == nullptr) {
        filled = 0;
        continue;
      }
      const size_t rest = filled - static_cast<size_t>(nl + 1 - data);
      std::memmove(data, nl + 1, rest);
      filled = rest;
      fresh = 0;
      discarding = false;
    }
    size_t complete = filled;  // complete lines only, unless the stream has ended
    if (!eof) {
      const char* last_nl = static_cast<const char*>(::memrchr(data + fresh, '\n', filled - fresh));
      complete = last_nl ? static_cast<size_t>(last_nl - data) + 1 : 0;
    }
    if (complete != 0) {
      status = read_lines(file, data, complete, buffer.size());
      std::memmove(data, data + complete, filled - complete);
      filled -= complete;
    }
    if (status && !eof && filled > max_record + 1) {
      // Longer than a record may be whatever ends it (one byte may be a '\r' before the '\n').
      status = file.skipped("oversized_record", ++file.lines_read(), 1, oversized_record_message(max_record));
      filled = 0;
      discarding = true;
      buffer.release_from(2 * kReadChunk);  // the pages the long line made resident
    }
    if (options_.progress && total && done >= next_progress && done < total) {
      options_.progress(path, done, total);
      next_progress = done + kProgressStep;
    }
  }
  if (options_.progress && total && status) options_.progress(path, done, std::max(done, total));
  return finish_file(file, content, std::move(status));
}

// The end of reading one file: its digest when one was taken, then the file's own end checks.
Status TraceReader::finish_file(FileState& file, std::optional<ContentHasher>& content, Status status) {
  if (content) {
    files_.back().content_bytes = content->bytes();
    files_.back().content_digest = content->finish();
  }
  if (!status) return status;
  return file.finish();
}

// The document form, from a file or a stream alike: read in chunks and scanned as it arrives
// (DocumentScanner), so memory is bounded by the record-size limit and a chunk, not by the document.
Status TraceReader::read_document(const std::string& path, int fd, uint64_t total, DrawConsumer& consumer) {
  std::vector<char> chunk(kReadChunk + simdjson::SIMDJSON_PADDING);
  files_.push_back(FileSummary{});
  files_.back().path = path;
  FileState file(*this, consumer, files_.back(), static_cast<uint32_t>(files_.size() - 1));
  DocumentToFile<FileState> events(file);
  DocumentScanner scanner(events, max_record_bytes(), max_depth());
  std::optional<ContentHasher> content;
  if (options_.digest_content) content.emplace();
  uint64_t done = 0;
  Status status = ok_status();
  for (;;) {
    const ssize_t n = ::read(fd, chunk.data(), kReadChunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      files_.pop_back();
      return io_error(path, "cannot read the trace");
    }
    if (n == 0) break;
    if (content) content->update(chunk.data(), static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
    // A scan that stopped (strict mode, or the file abandoned) reads no further, but the digest, when asked
    // for, covers only what was read: a file not read to its end is never remembered.
    if (status && !file.abandoned()) status = scanner.feed(chunk.data(), static_cast<size_t>(n), chunk.size());
    if (!status || file.abandoned()) break;
    if (options_.progress && total && done < total) options_.progress(path, done, total);
  }
  if (status && !file.abandoned()) status = scanner.finish();
  if (options_.progress && total && status) options_.progress(path, done, std::max(done, total));
  return finish_file(file, content, std::move(status));
}

}  // namespace shaderbake::trace

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
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>
#include <xxhash.h>

#include "lib/trace/host_state_json.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::trace {

namespace od = simdjson::ondemand;

namespace {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return static_cast<size_t>(XXH3_64bits(s.data(), s.size())); }
};

// Column of the first syntax error in `text` (1-based), found by a strict second parser. Only used on the
// error path, where simdjson's on-demand API does not say where the JSON broke.
uint64_t syntax_error_offset(std::string_view text) {
  try {
    const auto parsed = nlohmann::json::parse(text.begin(), text.end());
    (void)parsed;
  } catch (const nlohmann::json::parse_error& e) {
    return e.byte == 0 ? 0 : e.byte - 1;
  } catch (const std::exception&) {
    // Valid syntax that nlohmann cannot hold (a number like 1e999): no position better than the start.
  }
  return 0;
}

std::span<const uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

// Per-file reading state: the state-id table and the file's summary.
class TraceReader::FileState {
 public:
  FileState(TraceReader& reader, DrawConsumer& consumer, FileSummary& summary, uint32_t file_index)
      : r_(reader), consumer_(consumer), summary_(summary), file_index_(file_index) {}

  // Processes one record: `text` lies in a buffer readable `capacity` bytes from text.data()
  // (capacity >= text.size() + SIMDJSON_PADDING). Returns an error only when reading must stop.
  Status record(std::string_view text, size_t capacity, uint64_t line, uint64_t column, bool last_unterminated);

  bool abandoned() const { return abandoned_; }
  // Lines of this file handed to read_lines so far (files are read window by window).
  uint64_t& lines_read() { return lines_read_; }

 private:
  struct StateEntry {
    bool good;
    uint32_t program;
    uint32_t host;
  };

  // Reports a bad record; returns the error when reading must stop (strict mode). A file-level problem
  // marks the file abandoned: the caller stops reading it.
  Status bad(Error error, bool file_level = false);
  Result<uint32_t> program_of(std::string_view text, size_t capacity, const json::RecordContext& outer);
  Result<uint32_t> host_of(std::string_view text, size_t capacity, const json::RecordContext& outer);
  Status check_dynamic(std::string_view text, size_t capacity, const json::RecordContext& outer);
  Status capture(std::string_view text, std::string_view format, std::string_view guest, bool has_format,
                 bool has_guest, const json::RecordContext& ctx);

  // Opens `text` (a sub-slice of the record) as its own document on the field parser.
  template <class Decode>
  auto decode_slice(std::string_view text, size_t capacity, const json::RecordContext& outer, const json::Pointer& pointer,
                    Decode&& decode) -> decltype(decode(std::declval<od::value&>(), outer));

  TraceReader& r_;
  DrawConsumer& consumer_;
  FileSummary& summary_;
  uint32_t file_index_;
  bool capture_seen_ = false;
  bool abandoned_ = false;
  uint64_t lines_read_ = 0;
  std::unordered_map<std::string, StateEntry, StringHash, std::equal_to<>> states_;
};

Status TraceReader::FileState::bad(Error error, bool file_level) {
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

template <class Decode>
auto TraceReader::FileState::decode_slice(std::string_view text, size_t capacity, const json::RecordContext& outer,
                                          const json::Pointer& pointer, Decode&& decode)
    -> decltype(decode(std::declval<od::value&>(), outer)) {
  // The slice lies inside the record, so the record's context locates its positions too (lazily, on error).
  const json::RecordContext& ctx = outer;
  od::document doc;
  if (auto err = r_.field_parser_.iterate(text.data(), text.size(), capacity).get(doc))
    return ctx.json_error(err, text.data(), pointer);
  od::value root;
  if (auto err = doc.get_value().get(root)) return ctx.json_error(err, text.data(), pointer);
  return decode(root, ctx);
}

Result<uint32_t> TraceReader::FileState::program_of(std::string_view text, size_t capacity,
                                                    const json::RecordContext& outer) {
  const KeyHash text_hash = KeyHash::of(as_bytes(text));
  const uint32_t known = r_.program_texts_.find(as_bytes(text), text_hash);
  if (known != KeyInterner::kAbsent) return r_.program_of_text_[known];

  auto keys = decode_slice(text, capacity, outer, "/program", [&](od::value& root, const json::RecordContext& ctx) {
    return r_.model_.decode_program(root, ctx, "/program");
  });
  if (!keys) return std::move(keys).error();
  const auto program = r_.exact_keys_.intern(keys->exact_key);
  if (program.inserted) {
    r_.program_family_.push_back(r_.family_keys_.intern(keys->family_key).index);
    r_.program_rejection_.push_back(std::move(keys->rejection));
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
  const uint32_t known = r_.host_texts_.find(as_bytes(text), text_hash);
  if (known != KeyInterner::kAbsent) return r_.host_of_text_[known];

  auto state = decode_slice(text, capacity, outer, "/host", [&](od::value& root, const json::RecordContext& ctx) {
    return decode_host_state(root, ctx, "/host");
  });
  if (!state) return std::move(state).error();
  std::array<uint8_t, SBK_HOST_STATE_MAX_SIZE> bytes{};
  size_t size = 0;
  if (sbk_encode_host_state(&*state, bytes.data(), bytes.size(), &size) != SBK_OK)
    return outer.error(text.data(), "/host", "invalid_host_state", "host state cannot be encoded");
  const auto interned = r_.host_states_.intern({bytes.data(), size});
  if (interned.inserted) r_.host_values_.push_back(*state);
  const uint32_t host = interned.index;
  if (r_.host_texts_.stored_bytes() + text.size() <= r_.options_.memo_limit_bytes) {
    r_.host_texts_.intern(as_bytes(text), text_hash);
    r_.host_of_text_.push_back(host);
  }
  return host;
}

Status TraceReader::FileState::check_dynamic(std::string_view text, size_t capacity, const json::RecordContext& outer) {
  // Dynamic values often repeat byte for byte; a text that passed once passes again.
  const KeyHash text_hash = KeyHash::of(as_bytes(text));
  if (r_.dynamic_texts_.find(as_bytes(text), text_hash) != KeyInterner::kAbsent) return ok_status();
  Status checked = decode_slice(text, capacity, outer, "/dynamic", [&](od::value& root, const json::RecordContext& ctx) {
    return r_.model_.check_dynamic(root, ctx, "/dynamic");
  });
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
  if (format != kTraceFormat)
    return bad(ctx.error(text.data(), "/format", "unsupported_format",
                         "trace format \"" + std::string(format.substr(0, 60)) + "\" is not supported; this reader speaks \"" +
                             std::string(kTraceFormat) + "\""),
               true);
  if (!has_guest)
    return bad(ctx.error(text.data(), "/guest", "missing_field", "the capture record has no \"guest\""), true);
  if (guest != r_.model_.name())
    return bad(ctx.error(text.data(), "/guest", "wrong_guest",
                         "trace is for guest \"" + std::string(guest.substr(0, 60)) + "\", but this build reads \"" +
                             std::string(r_.model_.name()) + "\""),
               true);
  summary_.capture = std::string(text);
  return ok_status();
}

Status TraceReader::FileState::record(std::string_view text, size_t capacity, uint64_t line, uint64_t column,
                                      bool last_unterminated) {
  static constexpr std::array<std::string_view, 10> kNames = {"type",  "format", "guest",   "id",   "frame",
                                                              "draw",  "state",  "program", "host", "dynamic"};
  enum : size_t { kType, kFormat, kGuest, kId, kFrame, kDraw, kState, kProgram, kHost, kDynamic };

  ++summary_.records;
  const json::RecordContext ctx(summary_.path, line, column, text.data());

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

  od::document doc;
  if (auto err = r_.record_parser_.iterate(text.data(), text.size(), capacity).get(doc))
    return bad(malformed(err, text.data()));
  od::object obj;
  if (auto err = doc.get_object().get(obj)) return bad(malformed(err, text.data()));

  // Strings stay valid in the record parser's string buffer until its next iterate(); objects are kept as
  // raw text slices and decoded after the record is known to be well formed and of a known type.
  std::string_view type, format, guest, id, state;
  int64_t frame = -1, draw = -1;
  std::string_view program_text, host_text, dynamic_text;
  std::array<const char*, kNames.size()> at{};

  uint64_t seen = 0;
  Status fields = json::for_each_field(obj, kNames, false, ctx, "", &seen, [&](size_t i, od::value& v, const json::Pointer& p) -> Status {
    at[i] = json::token_position(v);
    switch (i) {
      case kType:
      case kFormat:
      case kGuest:
      case kId:
      case kState: {
        auto s = json::read_string(v, ctx, p);
        if (!s) return std::move(s).error();
        (i == kType ? type : i == kFormat ? format : i == kGuest ? guest : i == kId ? id : state) = *s;
        return ok_status();
      }
      case kFrame:
      case kDraw: {
        auto n = json::read_uint_in(v, INT64_MAX, ctx, p);
        if (!n) return std::move(n).error();
        (i == kFrame ? frame : draw) = static_cast<int64_t>(*n);
        return ok_status();
      }
      default: {
        od::object o;
        if (auto err = v.get_object().get(o)) return ctx.json_error(err, at[i], p);
        std::string_view raw;
        if (auto err = o.raw_json().get(raw)) return ctx.json_error(err, at[i], p);
        (i == kProgram ? program_text : i == kHost ? host_text : dynamic_text) = raw;
        return ok_status();
      }
    }
  });
  if (!fields) {
    Error e = std::move(fields).error();
    if (e.reason == "malformed_json") e = malformed(simdjson::TAPE_ERROR, nullptr);
    return bad(std::move(e));
  }
  {
    // Anything after the record's closing brace is trailing garbage (current_location fails at the end).
    const char* rest = nullptr;
    if (!doc.current_location().get(rest)) return bad(malformed(simdjson::TRAILING_CONTENT, rest));
  }

  auto has = [&](size_t i) { return (seen >> i) & 1; };
  // Bytes readable from a slice of this record (the record's own padding guarantee carries over).
  auto slice_capacity = [&](std::string_view slice) { return capacity - static_cast<size_t>(slice.data() - text.data()); };
  if (!has(kType)) return bad(ctx.error(text.data(), "/type", "missing_field", "record has no \"type\""));

  if (type == "capture") return capture(text, format, guest, has(kFormat), has(kGuest), ctx);
  if (!capture_seen_)
    return bad(ctx.error(text.data(), "", "missing_capture",
                         "the first record must be {\"type\":\"capture\",\"format\":\"" + std::string(kTraceFormat) +
                             "\",\"guest\":...}; without it the file cannot be read"),
               true);

  auto require = [&](size_t i, const char* what) -> Status {
    if (has(i)) return ok_status();
    return ctx.error(text.data(), json::Pointer("", kNames[i]), "missing_field",
                     std::string("a ") + what + " record needs \"" + std::string(kNames[i]) + "\"");
  };

  if (type == "state") {
    for (size_t i : {kId, kProgram, kHost}) {
      Status s = require(i, "state");
      if (!s) return bad(std::move(s).error());
    }
    if (has(kState) || has(kFrame) || has(kDraw))
      return bad(ctx.error(text.data(), "", "conflicting_fields", "a state record carries no \"state\", \"frame\" or \"draw\""));
    if (states_.count(id) != 0)
      return bad(ctx.error(at[kId], "/id", "duplicate_state_id",
                           "state id \"" + std::string(id.substr(0, 60)) + "\" is defined twice in this file; the first definition stands"));
    // A bad state is remembered as bad, so that its draws count as state_rejected, not unknown_state.
    auto decoded = [&]() -> Result<StateEntry> {
      auto program = program_of(program_text, slice_capacity(program_text), ctx);
      if (!program) return std::move(program).error();
      auto host = host_of(host_text, slice_capacity(host_text), ctx);
      if (!host) return std::move(host).error();
      if (has(kDynamic))
        if (Status d = check_dynamic(dynamic_text, slice_capacity(dynamic_text), ctx); !d) return std::move(d).error();
      return StateEntry{true, *program, *host};
    }();
    const StateEntry entry = decoded ? *decoded : StateEntry{false, 0, 0};
    states_.emplace(std::string(id), entry);
    if (!entry.good) return bad(std::move(decoded).error());
    ++summary_.states;
    return ok_status();
  }

  if (type == "draw") {
    for (size_t i : {kFrame, kDraw}) {
      Status s = require(i, "draw");
      if (!s) return bad(std::move(s).error());
    }
    DrawEvent event{file_index_, line, frame, draw, 0, 0};
    if (has(kState)) {
      if (has(kProgram) || has(kHost))
        return bad(ctx.error(at[kState], "/state", "conflicting_fields",
                             "a draw names a \"state\" or carries \"program\" and \"host\", not both"));
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
      for (size_t i : {kProgram, kHost}) {
        Status s = require(i, "draw (without \"state\")");
        if (!s) return bad(std::move(s).error());
      }
      auto program = program_of(program_text, slice_capacity(program_text), ctx);
      if (!program) return bad(std::move(program).error());
      auto host = host_of(host_text, slice_capacity(host_text), ctx);
      if (!host) return bad(std::move(host).error());
      event.program = *program;
      event.host = *host;
    }
    if (has(kDynamic)) {
      Status d = check_dynamic(dynamic_text, slice_capacity(dynamic_text), ctx);
      if (!d) return bad(std::move(d).error());
    }
    ++summary_.draws;
    consumer_.on_draw(event);
    return ok_status();
  }

  return bad(ctx.error(at[kType], "/type", "unknown_record_type",
                       "unknown record type \"" + std::string(type.substr(0, 40)) + "\" (expected capture, state or draw)"));
}

TraceReader::TraceReader(const GuestModel& model, ReaderOptions options, DiagnosticSink& sink)
    : model_(model), options_(options), sink_(sink) {}

TraceReader::~TraceReader() = default;

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
// into a padded buffer first.
Status TraceReader::read_lines(FileState& file, const char* base, size_t size, size_t readable) {
  std::vector<char> tail;
  uint64_t& line = file.lines_read();
  size_t start = 0;
  // A UTF-8 byte-order mark some Windows tools write at the start of a file is not JSON: skip it.
  if (line == 0 && size >= 3 && std::memcmp(base, "\xEF\xBB\xBF", 3) == 0) start = 3;
  for (size_t pos = start; pos < size && !file.abandoned();) {
    const char* nl = static_cast<const char*>(std::memchr(base + pos, '\n', size - pos));
    const size_t end = nl ? static_cast<size_t>(nl - base) : size;
    ++line;
    std::string_view record(base + pos, end - pos);
    if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
    if (!is_blank(record)) {
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

Status TraceReader::read_text(std::string_view name, std::string_view text, bool document_form, DrawConsumer& consumer) {
  files_.push_back(FileSummary{});
  FileSummary& summary = files_.back();
  summary.path = std::string(name);
  FileState file(*this, consumer, summary, static_cast<uint32_t>(files_.size() - 1));

  // simdjson reads up to SIMDJSON_PADDING bytes past any value; give it a padded copy.
  simdjson::padded_string padded(text);
  const char* base = padded.data();
  const size_t size = padded.size();
  const size_t capacity_end = size + simdjson::SIMDJSON_PADDING;

  if (!document_form) return read_lines(file, base, size, capacity_end);

  // Document form: {"records": [ {...}, ... ]}. Each entry is handed to the same record reader as a slice.
  const json::RecordContext doc_ctx(summary.path, 1, 1, base);
  auto file_error = [&](Error e) -> Status {
    ++summary.bad_records[e.reason];
    summary.readable = false;
    sink_.report(Severity::error, e);
    return e;
  };
  od::document doc;
  const size_t bom = size >= 3 && std::memcmp(base, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;  // UTF-8 byte-order mark
  if (auto err = document_parser_.iterate(base + bom, size - bom, size + simdjson::SIMDJSON_PADDING - bom).get(doc))
    return file_error(doc_ctx.json_error(err, base, ""));
  od::object root;
  if (auto err = doc.get_object().get(root)) return file_error(doc_ctx.json_error(err, base, ""));
  od::value records_value;
  if (auto err = root.find_field_unordered("records").get(records_value))
    return file_error(doc_ctx.json_error(err, base, "/records"));
  od::array records;
  if (auto err = records_value.get_array().get(records)) return file_error(doc_ctx.json_error(err, base, "/records"));
  uint64_t line = 1;
  const char* line_start = base;
  const char* counted_to = base;
  size_t index = 0;
  for (auto element : records) {
    od::value entry;
    if (auto err = element.get(entry)) return file_error(doc_ctx.json_error(err, nullptr, json::Pointer("/records", index)));
    const char* at = json::token_position(entry);
    od::json_type type;
    if (auto err = entry.type().get(type)) return file_error(doc_ctx.json_error(err, at, json::Pointer("/records", index)));
    if (type != od::json_type::object) {
      // Not a record at all: count it, skip it, keep reading the others.
      const json::Pointer records_pointer("/records");
      const json::Pointer pointer(records_pointer, index++);
      Status skipped = json::skip_validated(entry, doc_ctx, pointer);
      if (!skipped) return file_error(std::move(skipped).error());
      ++summary.records;
      ++summary.bad_records["wrong_type"];
      Error e = doc_ctx.error(at, pointer, "wrong_type", "record " + pointer.str() + " is not a JSON object");
      sink_.report(options_.strict ? Severity::error : Severity::warning, e);
      if (options_.strict) return e;
      continue;
    }
    od::object entry_object;
    std::string_view raw;
    if (auto err = entry.get_object().get(entry_object))
      return file_error(doc_ctx.json_error(err, at, json::Pointer("/records", index)));
    if (auto err = entry_object.raw_json().get(raw))
      return file_error(doc_ctx.json_error(err, at, json::Pointer("/records", index)));
    for (; counted_to < raw.data(); ++counted_to)
      if (*counted_to == '\n') {
        ++line;
        line_start = counted_to + 1;
      }
    const size_t offset = static_cast<size_t>(raw.data() - base);
    Status s = file.record(raw, capacity_end - offset, line, 1 + static_cast<uint64_t>(raw.data() - line_start), false);
    if (!s) return s;
    if (file.abandoned()) return ok_status();
    ++index;
  }
  return ok_status();
}

Status TraceReader::read_file(const std::string& path, DrawConsumer& consumer) {
  const bool document_form = ends_with(path, ".json");
  auto io_error = [&](const std::string& what) -> Status {
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
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error("cannot open the trace");

  struct stat info {};
  const bool regular = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  // A digest must be of the very bytes parsed: a mapping shows another writer's changes between parsing and
  // hashing, so a file to digest is read into a private buffer like a stream.
  if (!document_form && !options_.digest_content && regular) {
    // Map the file window by window, each window populated in one call (page faults one page at a time
    // cost more than the parsing here), and read lines in place: no copy, and resident memory bounded by
    // the window whatever the trace's size. A window ends after its last complete line.
    files_.push_back(FileSummary{});
    files_.back().path = path;
    FileState file(*this, consumer, files_.back(), static_cast<uint32_t>(files_.size() - 1));
    const size_t size = static_cast<size_t>(info.st_size);
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    size_t window = size_t{64} << 20;
    size_t offset = 0;  // first byte not yet handed on
    Status status = ok_status();
    while (offset < size && status && !file.abandoned()) {
      const size_t map_start = offset / page * page;
      const size_t map_length = std::min(size - map_start, window);
      void* mapping = ::mmap(nullptr, map_length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(map_start));
      if (mapping == MAP_FAILED) {
        ::close(fd);
        files_.pop_back();
        return io_error("cannot map the trace");
      }
      const char* base = static_cast<const char*>(mapping) + (offset - map_start);
      const size_t available = map_length - (offset - map_start);
      size_t complete = available;
      if (map_start + map_length < size) {
        const char* last_nl = static_cast<const char*>(::memrchr(base, '\n', available));
        complete = last_nl ? static_cast<size_t>(last_nl - base) + 1 : 0;
      }
      if (complete == 0) {
        window *= 2;  // one line longer than the window
      } else {
        status = read_lines(file, base, complete, available);
        offset += complete;
        if (options_.progress) options_.progress(path, offset, size);
      }
      ::munmap(mapping, map_length);
    }
    ::close(fd);
    return status;
  }

  // Pipes, other streams and files to digest: read in chunks; only complete lines are handed on, a partial line at a
  // chunk's end moves to the front of the buffer. Every chunk keeps SIMDJSON_PADDING spare bytes.
  if (!document_form) {
    files_.push_back(FileSummary{});
    files_.back().path = path;
    FileState file(*this, consumer, files_.back(), static_cast<uint32_t>(files_.size() - 1));
    std::optional<ContentHasher> content;
    if (options_.digest_content) content.emplace();
    const uint64_t total = regular ? static_cast<uint64_t>(info.st_size) : 0;  // for progress only
    constexpr uint64_t kProgressStep = uint64_t{64} << 20;
    uint64_t done = 0;
    uint64_t next_progress = kProgressStep;
    constexpr size_t kChunk = size_t{4} << 20;
    std::vector<char> buffer(kChunk + simdjson::SIMDJSON_PADDING);
    size_t filled = 0;
    bool eof = false;
    Status status = ok_status();
    while (!eof && !file.abandoned() && status) {
      if (buffer.size() - simdjson::SIMDJSON_PADDING - filled < kChunk / 2)
        buffer.resize(buffer.size() * 2);  // a line longer than the chunk: grow
      const ssize_t n = ::read(fd, buffer.data() + filled, buffer.size() - simdjson::SIMDJSON_PADDING - filled);
      if (n < 0) {
        if (errno == EINTR) continue;
        ::close(fd);
        files_.pop_back();
        return io_error("cannot read the trace");
      }
      eof = n == 0;
      filled += static_cast<size_t>(n);
      size_t complete = filled;  // complete lines only, unless the stream has ended
      if (!eof) {
        const char* last_nl = static_cast<const char*>(::memrchr(buffer.data(), '\n', filled));
        complete = last_nl ? static_cast<size_t>(last_nl - buffer.data()) + 1 : 0;
      }
      if (complete == 0) continue;
      status = read_lines(file, buffer.data(), complete, buffer.size());
      if (content) content->update(buffer.data(), complete);
      std::memmove(buffer.data(), buffer.data() + complete, filled - complete);
      filled -= complete;
      done += complete;
      if (options_.progress && total && done >= next_progress && done < total) {
        options_.progress(path, done, total);
        next_progress = done + kProgressStep;
      }
    }
    ::close(fd);
    if (options_.progress && total && status) options_.progress(path, done, std::max(done, total));
    if (content) {
      files_.back().content_bytes = content->bytes();
      files_.back().content_digest = content->finish();
    }
    return status;
  }

  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return io_error("cannot read the trace");
    }
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  const Status status = read_text(path, text, true, consumer);
  if (options_.digest_content) {
    ContentHasher content;
    content.update(text.data(), text.size());
    files_.back().content_bytes = content.bytes();
    files_.back().content_digest = content.finish();
  }
  return status;
}

}  // namespace shaderbake::trace

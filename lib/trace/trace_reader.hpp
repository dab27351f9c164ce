// SPDX-License-Identifier: MIT
#pragma once

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/content_digest.hpp"
#include "lib/core/diagnostics.hpp"
#include "lib/core/key_interner.hpp"
#include "lib/guest/guest_catalog.hpp"
#include "lib/guest/guest_model.hpp"
#include "lib/json/json_reader.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::trace {

// The trace formats this reader speaks (schemas/trace.md, schemas/trace.schema.json): /2, the current one,
// names vertex attributes by shader location; /1 by the guest model's semantic names, and means exactly what
// it meant.
inline constexpr std::string_view kTraceFormat = "shaderbake-trace/2";
inline constexpr std::string_view kTraceFormatV1 = "shaderbake-trace/1";

struct ReaderOptions {
  // Stop at the first bad record instead of skipping and counting it.
  bool strict = false;
  // Upper bound on the bytes of distinct raw "program"/"host" texts remembered to skip re-decoding them.
  // Past it decoding still works, only slower; memory stays bounded whatever the trace holds.
  uint64_t memo_limit_bytes = uint64_t{256} << 20;
  // Called from read_file as a file is read (every 64 MiB window and at its end) with the bytes done and
  // the file's size; for progress bars. May be empty.
  std::function<void(const std::string& path, uint64_t done, uint64_t total)> progress;
  // Take the SHA-256 of each file's bytes as they are parsed (FileSummary::content_digest), which reads
  // files into a private buffer instead of mapping them: ~1.6 GB/s and a copy, so only for a caller that
  // needs it (build's memo).
  bool digest_content = false;
  // Deepest nesting of arrays and objects in a record, counted from the record object (level 1). A record
  // nested deeper is a too_deep bad record, skipped. The schema's own records nest 5 levels; the rest is
  // room for fields the reader ignores. Clamped to [kMinDepth, json::kMaxDepthCeiling = 1000].
  uint32_t max_depth = json::kDefaultMaxDepth;  // 256
  // Longest record in bytes: a JSON Lines line without its line end, or one entry of the document form's
  // "records". A longer one is an oversized_record bad record, skipped without ever being held whole (from a
  // pipe the reader holds at most this many bytes of it before it knows). Clamped to kMaxRecordBytesCeiling.
  // Memory while reading grows with this limit, not with the file: about 7x the longest record read (the
  // record, the parser's index of it and its strings), plus 64 MiB of mapped window or 4 MiB of read chunk.
  uint64_t max_record_bytes = kDefaultMaxRecordBytes;

  static constexpr uint32_t kMinDepth = 5;  // host.vertex.bindings[0]: the deepest level the schema defines
  static constexpr uint64_t kDefaultMaxRecordBytes = uint64_t{64} << 20;
  // simdjson indexes at most 4 GiB (including its padding) in one document.
  static constexpr uint64_t kMaxRecordBytesCeiling = 0xFFFFFFFFull - 2 * 64;
};

// One draw (or a compute program's dispatch), as the reader hands it on. `program` indexes exact_keys() (and
// program_family()), `host` indexes host_states(), or is kNoHost for a compute program: both are unique across
// every file read by one TraceReader.
inline constexpr uint32_t kNoHost = 0xFFFFFFFFu;

struct DrawEvent {
  uint32_t file;
  uint64_t line;
  int64_t frame;
  int64_t draw;
  uint32_t program;
  uint32_t host;
};

class DrawConsumer {
 public:
  virtual ~DrawConsumer() = default;
  virtual void on_draw(const DrawEvent& draw) = 0;
};

struct FileSummary {
  std::string path;
  std::string capture;  // the capture record's JSON text: provenance carried into reports
  uint64_t records = 0;  // non-empty lines (or document entries) seen
  uint64_t draws = 0;    // good draws handed on
  uint64_t states = 0;   // good state records
  std::map<std::string, uint64_t> bad_records;  // reason -> count
  // False when the file as a whole could not be used, reported as an error: it could not be read
  // (unreadable_file); its first record is not a valid capture record (missing_capture: an empty, blank,
  // byte-order-mark-only or binary file, or a first record of another type, not JSON, too deep or oversized;
  // or a capture record's own reason: unsupported_format, wrong_guest, missing_field, wrong_type,
  // out_of_range); or, in the document form, the document around the records is broken (malformed_json,
  // duplicate_field). Draws read before such a problem was found are still handed on.
  bool readable = true;
  // With ReaderOptions::digest_content: SHA-256 and length of the bytes parsed, hashed from the same private
  // buffer the parser read (a writer changing the file meanwhile cannot make them differ); the whole content
  // when the file was read to its end (readable, and no --strict stop). What the build memo confirms a trace
  // with.
  ContentDigest content_digest;
  uint64_t content_bytes = 0;
};

// Streams trace files (JSON Lines, or the {"records": [...]} document form for names ending in ".json")
// and turns every good draw into a DrawEvent. Memory grows with the unique states, never with the draws.
//
// Bad input: every bad record is reported to the sink (a warning, or an error under `strict`) with file,
// line, column and JSON pointer, counted by reason in the file's summary, and skipped; the records around it
// are unaffected. A draw that names a state whose record was bad is counted as "state_rejected". A record
// nested deeper than max_depth is too_deep, one longer than max_record_bytes oversized_record (anything
// too deep is too_deep, whatever else is wrong with it). A file without a valid capture record first is
// unusable as a whole (FileSummary::readable). What is accepted is what schemas/trace.schema.json accepts,
// plus the rules between records and fields that a JSON Schema cannot state (schemas/trace.md).
// Memory is bounded by the limits above and the unique states, time linear in the input, for any input.
// Not thread-safe: use one reader per thread.
class TraceReader {
 public:
  // The first capture record read picks the guest model from `catalog` by its "guest"; every later file must
  // be of the same guest (wrong_guest otherwise, the file unusable).
  TraceReader(const GuestCatalog& catalog, ReaderOptions options, DiagnosticSink& sink);
  // A reader of one guest model's traces only.
  TraceReader(const GuestModel& model, ReaderOptions options, DiagnosticSink& sink);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Reads a whole file. Returns an error when the file cannot be read, or under `strict` at the first bad
  // record; otherwise ok, with problems counted in files().back().
  Status read_file(const std::string& path, DrawConsumer& consumer);

  // Reads trace text held in memory (`name` is used in locations; `document_form` selects {"records": [...]}).
  Status read_text(std::string_view name, std::string_view text, bool document_form, DrawConsumer& consumer);

  // The guest model of the traces read: nullptr until a file's capture record has been read.
  const GuestModel* model() const { return model_; }
  const KeyInterner& exact_keys() const { return exact_keys_; }
  const KeyInterner& family_keys() const { return family_keys_; }
  const KeyInterner& host_states() const { return host_states_; }
  // The decoded host state of each host_states() entry.
  const sbk_host_state& host_state(uint32_t host) const { return host_values_[host]; }
  // Family index (into family_keys()) of each program.
  const std::vector<uint32_t>& program_family() const { return program_family_; }
  // Admission's reason for each program, empty when the fallback route may serve it.
  const std::vector<std::string>& program_rejection() const { return program_rejection_; }
  // Whether each program is a compute pipeline (its draws have host kNoHost).
  const std::vector<bool>& program_compute() const { return program_compute_; }
  const std::vector<FileSummary>& files() const { return files_; }
  std::map<std::string, uint64_t> bad_records() const;

 private:
  class FileState;
  friend class FileState;
  Status read_lines(FileState& file, const char* base, size_t size, size_t readable);
  Status read_mapped_lines(const std::string& path, int fd, uint64_t size, DrawConsumer& consumer);
  Status read_stream_lines(const std::string& path, int fd, uint64_t total, DrawConsumer& consumer);
  Status read_document(const std::string& path, int fd, uint64_t total, DrawConsumer& consumer);
  Status io_error(const std::string& path, const std::string& what);
  Status finish_file(FileState& file, std::optional<ContentHasher>& content, Status status);
  uint32_t max_depth() const;
  uint64_t max_record_bytes() const;

  const GuestCatalog catalog_;
  const GuestModel* model_ = nullptr;
  ReaderOptions options_;
  DiagnosticSink& sink_;

  KeyInterner exact_keys_;
  KeyInterner family_keys_;
  KeyInterner host_states_;
  std::vector<sbk_host_state> host_values_;
  std::vector<uint32_t> program_family_;
  std::vector<std::string> program_rejection_;
  std::vector<bool> program_compute_;

  // Raw record texts already decoded: text -> program / host index. Program texts are remembered for the
  // files of one directory at a time (program_memo_directory_): a program may name a file relative to its trace.
  KeyInterner program_texts_;
  std::vector<uint32_t> program_of_text_;
  std::string program_memo_directory_;
  // Host texts per trace format: the same text means different things in /1 and /2.
  std::array<KeyInterner, 2> host_texts_;
  std::array<std::vector<uint32_t>, 2> host_of_text_;
  KeyInterner dynamic_texts_;  // "dynamic" texts known to be valid

  simdjson::ondemand::parser record_parser_;
  simdjson::ondemand::parser field_parser_;
  simdjson::ondemand::parser document_parser_;

  std::vector<FileSummary> files_;
};

}  // namespace shaderbake::trace

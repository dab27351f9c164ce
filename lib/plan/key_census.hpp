// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lib/core/key_interner.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::plan {

// What `shaderbake dedupe` reports (schemas/dedupe.schema.json).
struct AdmissionCounts {
  uint64_t unique_exact_keys = 0;
  uint64_t admitted_exact_keys = 0;             // the fallback route may serve them
  std::map<std::string, uint64_t> rejections;  // admission reason -> unique exact keys
};

struct DedupeCounts {
  uint64_t draws = 0;
  uint64_t frames = 0;  // distinct frame numbers, summed over files (each file is its own session)
  uint64_t unique_exact_keys = 0;
  uint64_t unique_fallback_families = 0;       // families of admitted programs
  uint64_t unique_pipeline_keys = 0;           // exact key + host state (incl. vertex interface); compute: exact key
  uint64_t unique_fallback_pipeline_keys = 0;  // family key + host state, admitted programs only
  // Fallback pipeline keys of admitted programs the model refuses for their attachments, by reason
  // (GuestModel::fallback_attachment_rejection); not counted in unique_fallback_pipeline_keys.
  std::map<std::string, uint64_t> fallback_attachment_rejections;
  uint64_t unique_sources = 0;                 // distinct generated exact fragment sources (alike programs share)
  uint64_t source_failures = 0;                // exact keys the emitter has no source for (e.g. unimplemented modes)
  AdmissionCounts admission;                   // over all files
  std::vector<AdmissionCounts> admission_per_file;  // indexed like TraceReader::files()
  std::map<std::string, uint64_t> bad_records;
};

// Counts the unique identities behind the draws a TraceReader hands on. Pipeline keys are built as canonical
// bytes by the runtime header (sbk_encode_pipeline_key) and interned once per distinct (program, host) pair,
// so the per-draw cost is one hash lookup. Memory grows with unique pairs and frames, not with draws.
class KeyCensus final : public trace::DrawConsumer {
 public:
  // Sources::count generates each drawn program's exact source once (with the reader's guest model), for
  // unique_sources.
  enum class Sources : uint8_t { skip, count };
  explicit KeyCensus(const trace::TraceReader& reader, Sources sources = Sources::skip)
      : reader_(reader), count_sources_(sources == Sources::count) {}

  void on_draw(const trace::DrawEvent& draw) override;

  DedupeCounts counts() const;

  // Programs (indices into the reader's exact_keys()) and families (into family_keys(), admitted programs
  // only) that at least one draw used, in first-use order.
  std::vector<uint32_t> drawn_programs() const;
  std::vector<uint32_t> drawn_families() const;

  // The exact pipeline keys and fallback pipeline keys met so far, in first-use order: graphics pipeline keys
  // (kind 3) and, for compute programs, compute pipeline keys (kind 4).
  const KeyInterner& pipeline_keys() const { return pipeline_keys_; }
  const KeyInterner& fallback_pipeline_keys() const { return fallback_pipeline_keys_; }
  // The frame number of the first draw of each exact pipeline key (indexed like pipeline_keys(), whose order is
  // the first-use order across the traces: file order as read, then draw order).
  const std::vector<int64_t>& pipeline_first_frames() const { return pipeline_first_frames_; }

 private:
  void add_pair(uint32_t program, uint32_t host, int64_t frame);
  void mark_family_drawn(uint32_t family);

  const trace::TraceReader& reader_;
  bool count_sources_;
  KeyInterner sources_;
  uint64_t source_failures_ = 0;
  uint64_t draws_ = 0;
  std::vector<bool> program_drawn_;
  std::vector<bool> family_drawn_;
  std::vector<std::unordered_set<uint32_t>> programs_per_file_;
  uint64_t programs_drawn_ = 0;
  uint64_t families_drawn_ = 0;
  std::unordered_set<uint64_t> pairs_;
  uint64_t last_pair_ = UINT64_MAX;
  uint32_t last_pair_file_ = UINT32_MAX;
  KeyInterner pipeline_keys_;
  KeyInterner refused_fallback_keys_;
  std::map<std::string, uint64_t> fallback_attachment_rejections_;
  KeyInterner fallback_pipeline_keys_;
  std::vector<int64_t> pipeline_first_frames_;
  std::vector<uint8_t> key_buffer_;  // reused by add_pair
  // Distinct frames per file; the last (file, frame) short-cuts the common in-order case.
  std::vector<std::unordered_set<int64_t>> frames_;
  uint64_t last_frame_file_ = UINT64_MAX;
  int64_t last_frame_ = -1;
};

}  // namespace shaderbake::plan

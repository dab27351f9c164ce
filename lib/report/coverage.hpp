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
#include "runtime_loader/shaderbake.h"

namespace shaderbake::report {

// How a bundle serves one draw: its exact pipeline, its fallback family's pipeline for the host state (+ packet),
// its family's dynamic-state fallback pipeline for the host state's attachment signature (+ packet, the rest of
// the host state set at the draw: needs VK_EXT_extended_dynamic_state 1/2/3 and
// VK_EXT_vertex_input_dynamic_state), or nothing.
enum class Route : uint8_t { exact, fallback, dynamic_fallback, uncovered };

// Why a draw is uncovered (stable names, counted in reports):
//   compile_failure             its program was captured but its exact module failed to generate or compile
//   no_pipeline_for_host_state  a module is ready (exact or family) but no pipeline has this host state
//   rejected:<reason>           never captured, and admission keeps it off the fallback route
//   family_not_in_bundle        never captured, admitted, but no pipeline of its family was built
//   bundle_corrupt              a probe met a damaged record
struct Counts {
  uint64_t exact = 0;
  uint64_t fallback = 0;
  uint64_t dynamic_fallback = 0;
  uint64_t uncovered = 0;
  std::map<std::string, uint64_t> uncovered_by_reason;
  uint64_t served() const { return exact + fallback + dynamic_fallback; }
  uint64_t total() const { return served() + uncovered; }
  // Served share in percent (100 when there is nothing to serve); dynamic_fallback counts as served.
  double covered_percent() const {
    return total() ? 100.0 * static_cast<double>(served()) / static_cast<double>(total()) : 100.0;
  }
};

struct FrameCounts {
  uint32_t file = 0;
  int64_t frame = 0;
  uint64_t draws = 0;
  Counts first_uses;  // pipelines used for the first time in this session, in this frame
};

struct CoverageResult {
  Counts draws;
  Counts first_uses;
  std::vector<FrameCounts> frames;  // in trace order, one per (file, frame) run of draws
  // The bundle has a DYNAMIC_FALLBACKS section (router data); without it no draw is dynamic_fallback.
  bool router_data = false;
};

// Classifies every draw a TraceReader hands on against a bundle, through the runtime header exactly as a
// renderer's router would: exact pipeline key probe; else, for an admitted program, the fallback pipeline key of
// its family and host state; else, when the family's entry is ready, the family's dynamic-state fallback recipe
// for the host state's attachment signature (sbk_bundle_find_dynamic_fallback); else uncovered with a reason. A
// first use is the first draw of a session (trace file) that needs a given pipeline (the exact pipeline, the
// family's pipeline for the host state, the family's dynamic-state pipeline for the signature, or the one an
// uncovered draw would compile): what stalls. Every draw falls in exactly one class. Memory grows with unique
// (program, host) pairs and frames, not with draws.
class CoverageCensus final : public trace::DrawConsumer {
 public:
  CoverageCensus(const trace::TraceReader& reader, const sbk_bundle& bundle);
  void on_draw(const trace::DrawEvent& draw) override;
  const CoverageResult& result() const { return result_; }

 private:
  struct PairClass {
    Route route;
    std::string reason;
    uint32_t pipeline;  // index into pipelines_: the pipeline this draw needs
  };
  PairClass classify(uint32_t program, uint32_t host);
  PairClass classify_compute(uint32_t program);  // a compute program's dispatches (host kNoHost)

  const trace::TraceReader& reader_;
  const sbk_bundle& bundle_;
  std::unordered_map<uint64_t, PairClass> pairs_;
  KeyInterner pipelines_;
  std::vector<uint8_t> key_buffer_;  // reused by classify
  std::unordered_set<uint64_t> used_;  // (file, pipeline) pairs already used
  CoverageResult result_;
};

// Add `route` (with `reason` for uncovered) to `counts`.
void count(Counts& counts, Route route, const std::string& reason);

}  // namespace shaderbake::report

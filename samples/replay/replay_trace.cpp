// SPDX-License-Identifier: MIT
#include "samples/replay/replay_trace.hpp"

#include <cstdio>
#include <map>

#include "guests/nv2a/nv2a_guest.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::replay {

namespace {

// Bad records are skipped and counted by the reader; the first few of each reason are shown.
class StderrSink final : public DiagnosticSink {
 public:
  void report(Severity severity, const Error& error) override {
    if (++counts_[error.reason] > 5 && severity != Severity::error) return;
    std::fprintf(stderr, "%s: %s [%s]\n", severity == Severity::error ? "error" : "warning", error.to_string().c_str(),
                 error.reason.c_str());
  }

 private:
  std::map<std::string, uint64_t> counts_;
};

class Collector final : public trace::DrawConsumer {
 public:
  explicit Collector(uint64_t max_frames) : max_frames_(max_frames) {}
  void on_draw(const trace::DrawEvent& draw) override {
    if (frames.empty() || frames.back().number != draw.frame) {
      if (max_frames_ != 0 && frames.size() >= max_frames_) return;  // the reader streams on; draws are dropped
      frames.push_back({draw.frame, static_cast<uint32_t>(draws.size()), 0});
    }
    draws.push_back({draw.program, draw.host});
    ++frames.back().count;
  }
  std::vector<ReplayDraw> draws;
  std::vector<ReplayFrame> frames;

 private:
  uint64_t max_frames_;
};

Error input_error(const std::string& path, std::string reason, std::string message) {
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.where.file = path;
  return e;
}

}  // namespace

Result<ReplayTrace> load_trace(const std::string& path, uint64_t max_frames) {
  nv2a::Nv2aGuestModel model;
  StderrSink sink;
  trace::TraceReader reader(model, trace::ReaderOptions{}, sink);
  Collector collector(max_frames);
  if (Status s = reader.read_file(path, collector); !s) return std::move(s).error();
  const trace::FileSummary& summary = reader.files().back();
  if (!summary.readable) return input_error(path, "unreadable_trace", "the trace cannot be used (see above)");
  if (collector.draws.empty()) return input_error(path, "no_draws", "the trace holds no good draw");

  ReplayTrace out;
  for (const auto& [reason, count] : summary.bad_records) out.bad_records += count;
  // The guest programs, decoded from their canonical exact keys: the normalised program, whose exact key is
  // the key the trace reader computed (sbk_nv2a_decode_exact_key's contract).
  out.programs.resize(reader.exact_keys().size());
  for (uint32_t p = 0; p < reader.exact_keys().size(); ++p) {
    const auto key = reader.exact_keys().bytes(p);
    if (key.size() != SBK_NV2A_EXACT_KEY_SIZE || sbk_nv2a_decode_exact_key(key.data(), &out.programs[p]) != SBK_OK)
      return input_error(path, "not_nv2a", "the trace's programs are not nv2a programs");
  }
  out.hosts.reserve(reader.host_states().size());
  for (uint32_t h = 0; h < reader.host_states().size(); ++h) out.hosts.push_back(reader.host_state(h));
  out.draws = std::move(collector.draws);
  out.frames = std::move(collector.frames);
  for (const ReplayFrame& f : out.frames) out.max_draws_per_frame = std::max(out.max_draws_per_frame, f.count);
  return out;
}

}  // namespace shaderbake::replay

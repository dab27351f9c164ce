// SPDX-License-Identifier: MIT
#include "samples/replay/replay_trace.hpp"

#include <cstdio>
#include <map>

#include "guests/registry.hpp"
#include "lib/trace/trace_reader.hpp"
#include "samples/replay/nv2a_replay_guest.hpp"
#include "samples/replay/specconst_replay_guest.hpp"

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

static_assert(kNoHost == trace::kNoHost);

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

// The replay's renderer of the guest the trace's capture record names.
Result<std::unique_ptr<ReplayGuest>> make_replay_guest(const trace::TraceReader& reader) {
  const std::string_view guest = reader.model()->name();
  if (guest == "nv2a") return make_nv2a_replay_guest(reader);
  if (guest == "specconst") return make_specconst_replay_guest(reader);
  return Error{ErrorKind::bad_input, "guest_not_replayable",
               "the replay renders nv2a and specconst traces, not guest \"" + std::string(guest) + "\"", {}};
}

}  // namespace

Result<ReplayTrace> load_trace(const std::string& path, uint64_t max_frames) {
  StderrSink sink;
  trace::TraceReader reader(guests::registered_guests(), trace::ReaderOptions{}, sink);
  Collector collector(max_frames);
  if (Status s = reader.read_file(path, collector); !s) return std::move(s).error();
  const trace::FileSummary& summary = reader.files().back();
  if (!summary.readable || reader.model() == nullptr)
    return input_error(path, "unreadable_trace", "the trace cannot be used (see above)");
  if (collector.draws.empty()) return input_error(path, "no_draws", "the trace holds no good draw");

  ReplayTrace out;
  for (const auto& [reason, count] : summary.bad_records) out.bad_records += count;
  auto guest = make_replay_guest(reader);
  if (!guest) {
    Error e = std::move(guest).error();
    e.where.file = path;
    return e;
  }
  out.guest = std::move(*guest);
  out.hosts.reserve(reader.host_states().size());
  for (uint32_t h = 0; h < reader.host_states().size(); ++h) out.hosts.push_back(reader.host_state(h));
  out.draws = std::move(collector.draws);
  out.frames = std::move(collector.frames);
  for (const ReplayFrame& f : out.frames) out.max_draws_per_frame = std::max(out.max_draws_per_frame, f.count);
  return out;
}

}  // namespace shaderbake::replay

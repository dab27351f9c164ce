// SPDX-License-Identifier: MIT
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_paths.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/trace_loading.hpp"
#include "lib/io/output_file.hpp"
#include "lib/core/hex.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::cli {

namespace {

nlohmann::ordered_json admission_json(const plan::AdmissionCounts& a) {
  nlohmann::ordered_json out;
  out["admitted_exact_keys"] = a.admitted_exact_keys;
  out["rejections"] = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : a.rejections) out["rejections"][reason] = count;
  return out;
}

nlohmann::ordered_json counts_json(const plan::DedupeCounts& c, const trace::TraceReader& reader) {
  nlohmann::ordered_json out;
  out["draws"] = c.draws;
  out["frames"] = c.frames;
  out["unique_exact_keys"] = c.unique_exact_keys;
  out["unique_fallback_families"] = c.unique_fallback_families;
  out["unique_pipeline_keys"] = c.unique_pipeline_keys;
  out["unique_fallback_pipeline_keys"] = c.unique_fallback_pipeline_keys;
  out["fallback_attachment_rejections"] = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : c.fallback_attachment_rejections) out["fallback_attachment_rejections"][reason] = count;
  out["unique_sources"] = c.unique_sources;
  out["exact_keys_without_source"] = c.source_failures;
  out["admission"] = admission_json(c.admission);
  out["bad_records"] = nlohmann::ordered_json::object();
  for (const auto& [reason, count] : c.bad_records) out["bad_records"][reason] = count;
  out["files"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < reader.files().size(); ++i) {
    const trace::FileSummary& f = reader.files()[i];
    nlohmann::ordered_json file;
    file["path"] = f.path;
    file["readable"] = f.readable;
    file["records"] = f.records;
    file["states"] = f.states;
    file["draws"] = f.draws;
    file["unique_exact_keys"] = c.admission_per_file[i].unique_exact_keys;
    file["admission"] = admission_json(c.admission_per_file[i]);
    file["bad_records"] = nlohmann::ordered_json::object();
    for (const auto& [reason, count] : f.bad_records) file["bad_records"][reason] = count;
    // Provenance: the capture record as written (any fields a capture tool adds).
    file["capture"] = f.capture.empty() ? nlohmann::ordered_json(nullptr)
                                        : nlohmann::ordered_json::parse(f.capture, nullptr, false);
    out["files"].push_back(std::move(file));
  }
  return out;
}

void print_counts(const plan::DedupeCounts& c, const trace::TraceReader& reader) {
  auto row = [](const char* name, uint64_t value) {
    std::printf("%-31s %12llu\n", name, static_cast<unsigned long long>(value));
  };
  row("draws", c.draws);
  row("frames", c.frames);
  row("unique exact keys", c.unique_exact_keys);
  row("unique fallback families", c.unique_fallback_families);
  row("unique pipeline keys", c.unique_pipeline_keys);
  row("unique fallback pipeline keys", c.unique_fallback_pipeline_keys);
  for (const auto& [reason, count] : c.fallback_attachment_rejections)
    std::printf("%-31s %12llu\n", ("  refused " + reason).c_str(), static_cast<unsigned long long>(count));
  row("unique generated sources", c.unique_sources);
  if (c.source_failures) row("  exact keys without source", c.source_failures);
  row("admitted exact keys", c.admission.admitted_exact_keys);
  for (const auto& [reason, count] : c.admission.rejections)
    std::printf("%-31s %12llu\n", ("  rejected " + reason).c_str(), static_cast<unsigned long long>(count));
  uint64_t bad = 0;
  for (const auto& [reason, count] : c.bad_records) bad += count;
  row("bad records", bad);
  for (const auto& [reason, count] : c.bad_records)
    std::printf("  %-29s %12llu\n", reason.c_str(), static_cast<unsigned long long>(count));
  if (reader.files().size() > 1) {
    std::printf("\nper trace: exact keys, admitted, rejected by reason\n");
    for (size_t i = 0; i < reader.files().size(); ++i) {
      const plan::AdmissionCounts& a = c.admission_per_file[i];
      std::string reasons;
      for (const auto& [reason, count] : a.rejections) reasons += " " + reason + "=" + std::to_string(count);
      std::printf("  %s: %llu keys, %llu admitted%s\n", reader.files()[i].path.c_str(),
                  static_cast<unsigned long long>(a.unique_exact_keys), static_cast<unsigned long long>(a.admitted_exact_keys),
                  reasons.c_str());
    }
  }
}

// Forwards every draw to the census and remembers the first use of each distinct (program, host) pair:
// what `--keys` writes, so that a client without a JSON parser (samples/client/) can replay the keys a
// renderer would meet, in the order it would meet them.
class FirstUseLog final : public trace::DrawConsumer {
 public:
  explicit FirstUseLog(trace::DrawConsumer& next) : next_(next) {}

  void on_draw(const trace::DrawEvent& draw) override {
    next_.on_draw(draw);
    if (pairs_.insert(uint64_t{draw.program} << 32 | draw.host).second)
      first_uses_.push_back({draw.frame, draw.program, draw.host});
  }

  struct FirstUse {
    int64_t frame;
    uint32_t program;
    uint32_t host;
  };
  const std::vector<FirstUse>& first_uses() const { return first_uses_; }

 private:
  trace::DrawConsumer& next_;
  std::unordered_set<uint64_t> pairs_;
  std::vector<FirstUse> first_uses_;
};

// The `shaderbake-keys/1` text (samples/client/README.md): a comment line, then one line per pair.
std::string keys_text(const FirstUseLog& log, const trace::TraceReader& reader) {
  std::string out = "# shaderbake-keys/1\n";
  for (const FirstUseLog::FirstUse& use : log.first_uses()) {
    out += std::to_string(use.frame);
    out += ' ';
    append_hex_bytes(out, reader.exact_keys().bytes(use.program));
    out += ' ';
    append_hex_bytes(out, reader.host_states().bytes(use.host));
    out += '\n';
  }
  return out;
}

}  // namespace

int run_dedupe(const DedupeOptions& options, const GuestCatalog& guests) {
  if (const int code = refuse_clashing_outputs(named_paths("trace", options.traces), {{"--keys", options.keys}});
      code != kExitOk)
    return code;
  TerminalSink sink;
  trace::TraceReader reader(guests, trace_reader_options(options.strict, options.max_record_bytes), sink);
  plan::KeyCensus census(reader, plan::KeyCensus::Sources::count);
  FirstUseLog log(census);
  if (const int code = read_traces(options.traces, options.strict, reader, log, sink); code != kExitOk) return code;
  const plan::DedupeCounts counts = census.counts();
  if (!options.keys.empty()) {
    const std::string text = keys_text(log, reader);
    if (const Status s = io::write_output(
            options.keys, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
        !s)
      return report_output_failure(s.error());
  }
  if (options.json) {
    print_json(counts_json(counts, reader));
  } else {
    print_counts(counts, reader);
  }
  for (const trace::FileSummary& f : reader.files())
    if (!f.readable) return kExitFailures;
  return kExitOk;
}

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
// shaderbake report coverage | rejections: the packager's questions, answered from a bundle and traces.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/bundle_opening.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_paths.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/trace_loading.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_verify.hpp"
#include "lib/io/file_io.hpp"
#include "lib/io/output_file.hpp"
#include "lib/report/coverage.hpp"
#include "lib/report/rejections.hpp"

namespace shaderbake::cli {

namespace {

// A replay report (shaderbake-replay --json) is kilobytes of JSON: the bound only keeps a wrong path from
// being read whole.
constexpr size_t kMaxReplayBytes = size_t{256} << 20;

nlohmann::ordered_json counts_json(const report::Counts& c) {
  return {{"total", c.total()},
          {"exact", c.exact},
          {"fallback", c.fallback},
          {"dynamic_fallback", c.dynamic_fallback},
          {"uncovered", c.uncovered},
          {"covered_percent", c.covered_percent()},
          {"uncovered_by_reason", c.uncovered_by_reason}};
}

// Opens the bundle for counting: exit 3 when it cannot be opened, or when a section, record or the index
// directory is damaged (each named in a warning): a probe that meets damage misses, and the numbers would
// shift without a word.
std::optional<GuestBundle> open_for_counting(const std::string& path, const GuestCatalog& guests, int* code) {
  auto file = open_guest_bundle(path, guests);
  if (!file) {
    print_error(file.error().to_string());
    *code = kExitBadInput;
    return std::nullopt;
  }
  size_t problems = 0;
  std::string first;
  for (const auto& check : bundle::check_before_lookups(file->file.handle()))
    for (const auto& failure : check.failures) {
      print_warning(path + ": " + failure);
      if (problems++ == 0) first = failure;
    }
  if (problems == 0) return std::move(*file);
  print_error(path + ": the bundle is damaged: " + first +
              (problems > 1 ? " (" + std::to_string(problems - 1) + " more problems above)" : std::string()) +
              "; its numbers would be wrong: run 'shaderbake verify' on it, and rebuild it");
  *code = kExitBadInput;
  return std::nullopt;
}

// The traces to read: the ones given, else the bundle's own (its build report names them). On none, *error
// says why and *code is the exit code: 3 when the REPORT section cannot be read, else 2.
std::vector<std::string> traces_to_read(const bundle::BundleFile& file, const std::vector<std::string>& given,
                                        std::string* error, int* code) {
  if (!given.empty()) return given;
  auto report = file.report_json();
  std::vector<std::string> out;
  *code = kExitUsage;
  if (!report) {
    *error = "REPORT section corrupt: " + report.error().message;
    *code = kExitBadInput;
    return {};
  }
  if (!report->empty()) {
    auto j = nlohmann::json::parse(*report, nullptr, false);
    if (j.is_object() && j.contains("inputs") && j["inputs"].is_array())
      for (const auto& input : j["inputs"])
        if (input.is_object() && input.contains("path") && input["path"].is_string()) out.push_back(input["path"]);
  }
  for (const std::string& path : out) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      *error = "the bundle was built from " + path + ", which cannot be read here; pass --traces";
      return {};
    }
  }
  if (out.empty()) *error = "the bundle names no traces; pass --traces";
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// One self-contained page: first uses over frames (stacked by route), the uncovered reasons, and, when a
// replay's JSON is given, each mode's per-frame first-use stall distribution.
std::string coverage_html(const nlohmann::ordered_json& summary, const report::CoverageResult& result,
                          const nlohmann::json& replay) {
  const size_t frames = result.frames.size();
  const size_t buckets = std::min<size_t>(frames, 200);
  std::vector<std::array<double, 4>> bars(buckets, {0, 0, 0, 0});
  for (size_t i = 0; i < frames; ++i) {
    auto& b = bars[i * buckets / std::max<size_t>(frames, 1)];
    b[0] += static_cast<double>(result.frames[i].first_uses.exact);
    b[1] += static_cast<double>(result.frames[i].first_uses.fallback);
    b[2] += static_cast<double>(result.frames[i].first_uses.dynamic_fallback);
    b[3] += static_cast<double>(result.frames[i].first_uses.uncovered);
  }
  double peak = 1;
  for (const auto& b : bars) peak = std::max(peak, b[0] + b[1] + b[2] + b[3]);
  const double width = 800, height = 240, bar = buckets ? width / static_cast<double>(buckets) : width;
  std::string svg = "<svg xmlns='http://www.w3.org/2000/svg' width='820' height='270' font-family='sans-serif' font-size='11'>";
  static const char* const kColours[4] = {"#2e7d32", "#f9a825", "#1565c0", "#c62828"};
  for (size_t i = 0; i < buckets; ++i) {
    double y = height;
    for (int k = 0; k < 4; ++k) {
      const double h = bars[i][k] / peak * height;
      if (h <= 0) continue;
      y -= h;
      char rect[200];
      std::snprintf(rect, sizeof rect, "<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='%s'/>",
                    10 + static_cast<double>(i) * bar, y, std::max(bar - 0.5, 0.5), h, kColours[k]);
      svg += rect;
    }
  }
  char axis[300];
  std::snprintf(axis, sizeof axis,
                "<text x='10' y='262'>frame 0</text><text x='720' y='262'>frame %zu</text><text x='12' y='12'>peak %.0f "
                "first uses per bucket of %zu frames</text></svg>",
                frames, peak, buckets ? (frames + buckets - 1) / buckets : 0);
  svg += axis;

  std::string page = "<!doctype html><html><head><meta charset='utf-8'><title>shaderbake coverage</title></head><body "
                     "style='font-family:sans-serif;max-width:860px'>";
  page += "<h1>Coverage of " + html_escape(summary["bundle"].get<std::string>()) + "</h1>";
  char line[600];
  std::snprintf(line, sizeof line,
                "<p>First uses (what stalls): <b>%.2f%%</b> served (%s exact, %s fallback, %s dynamic fallback, %s "
                "uncovered). Draws: %.2f%% served.</p>",
                summary["first_uses"]["covered_percent"].get<double>(), summary["first_uses"]["exact"].dump().c_str(),
                summary["first_uses"]["fallback"].dump().c_str(), summary["first_uses"]["dynamic_fallback"].dump().c_str(),
                summary["first_uses"]["uncovered"].dump().c_str(), summary["draws"]["covered_percent"].get<double>());
  page += line;
  page += summary["router_data"].get<bool>()
              ? "<p>Dynamic fallback: the family's dynamic-state fallback pipeline for the draw's attachment signature, "
                "which needs VK_EXT_extended_dynamic_state 1/2/3 and VK_EXT_vertex_input_dynamic_state.</p>"
              : "<p>The bundle has no router data (no DYNAMIC_FALLBACKS section): per-host-state fallback pipelines "
                "only.</p>";
  page += "<h2>First uses over frames</h2><p><span style='color:#2e7d32'>&#9632; exact</span> "
          "<span style='color:#f9a825'>&#9632; fallback</span> <span style='color:#1565c0'>&#9632; dynamic fallback</span> "
          "<span style='color:#c62828'>&#9632; uncovered</span></p>" + svg;
  page += "<h2>Uncovered first uses by reason</h2><table border='1' cellpadding='4' style='border-collapse:collapse'>"
          "<tr><th>reason</th><th>first uses</th><th>draws</th></tr>";
  for (const auto& [reason, n] : result.first_uses.uncovered_by_reason) {
    const auto it = result.draws.uncovered_by_reason.find(reason);
    page += "<tr><td>" + html_escape(reason) + "</td><td>" + std::to_string(n) + "</td><td>" +
            std::to_string(it == result.draws.uncovered_by_reason.end() ? 0 : it->second) + "</td></tr>";
  }
  page += "</table>";
  if (replay.is_object() && replay.contains("modes") && replay["modes"].is_array()) {
    page += "<h2>Replay: per-frame first-use stall</h2><table border='1' cellpadding='4' style='border-collapse:collapse'>"
            "<tr><th>mode</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th></tr>";
    for (const auto& m : replay["modes"]) {
      if (!m.is_object()) continue;
      auto field = [&](const char* name) {
        const auto& s = m.contains("frame_first_use_ms") ? m["frame_first_use_ms"] : m.contains("stall_ms") ? m["stall_ms"] : m;
        return s.contains(name) ? s[name].dump() : std::string("-");
      };
      page += "<tr><td>" + html_escape(m.value("mode", std::string("?"))) + "</td><td>" + field("p50") + "</td><td>" +
              field("p99") + "</td><td>" + field("p99_9") + "</td><td>" + field("max") + "</td></tr>";
    }
    page += "</table>";
  }
  page += "</body></html>\n";
  return page;
}

}  // namespace

int run_report_coverage(const ReportOptions& options, const GuestCatalog& guests) {
  int code = kExitOk;
  auto opened = open_for_counting(options.bundle, guests, &code);
  if (!opened) return code;
  const bundle::BundleFile* file = &opened->file;
  std::string problem;
  const std::vector<std::string> traces = traces_to_read(*file, options.traces, &problem, &code);
  if (traces.empty()) {
    print_error(options.bundle + ": " + problem);
    return code;
  }
  std::vector<io::NamedPath> inputs = named_paths("trace", traces);
  inputs.push_back({"bundle", options.bundle});
  inputs.push_back({"--replay", options.replay});
  if (const int code = refuse_clashing_outputs(inputs, {{"--html", options.html}}); code != kExitOk) return code;
  TerminalSink sink;
  trace::TraceReader reader(*opened->guest, trace_reader_options(options.strict, options.max_record_bytes), sink);
  report::CoverageCensus census(reader, file->handle());
  if (const int code = read_traces(traces, options.strict, reader, census, sink); code != kExitOk) return code;
  const report::CoverageResult& result = census.result();
  // check_before_lookups passed, so no probe should have met damage; if one did, the numbers are not the bundle's.
  if (const auto damaged = result.draws.uncovered_by_reason.find("bundle_corrupt"); damaged != result.draws.uncovered_by_reason.end()) {
    print_error(options.bundle + ": " + std::to_string(damaged->second) +
                " draws met a damaged record: the numbers would be wrong; run 'shaderbake verify' on it");
    return kExitBadInput;
  }

  nlohmann::ordered_json out;
  out["format"] = "shaderbake-coverage/1";
  out["bundle"] = options.bundle;
  out["traces"] = traces;
  out["draws"] = counts_json(result.draws);
  out["first_uses"] = counts_json(result.first_uses);
  out["router_data"] = result.router_data;
  out["frames"] = result.frames.size();
  uint64_t frames_with_uncovered = 0;
  for (const auto& f : result.frames) frames_with_uncovered += f.first_uses.uncovered > 0;
  out["frames_with_uncovered_first_uses"] = frames_with_uncovered;
  std::vector<const report::FrameCounts*> worst;
  for (const auto& f : result.frames)
    if (f.first_uses.uncovered) worst.push_back(&f);
  std::stable_sort(worst.begin(), worst.end(), [](const auto* a, const auto* b) {
    return a->first_uses.uncovered > b->first_uses.uncovered;
  });
  if (worst.size() > 10) worst.resize(10);
  out["worst_frames"] = nlohmann::ordered_json::array();
  for (const auto* f : worst)
    out["worst_frames"].push_back({{"trace", reader.files()[f->file].path},
                                   {"frame", f->frame},
                                   {"uncovered_first_uses", f->first_uses.uncovered},
                                   {"first_uses", f->first_uses.total()},
                                   {"draws", f->draws}});
  out["bad_records"] = reader.bad_records();
  // The gate passes only on a real measurement: some first use to count, and every trace read as a whole.
  const size_t unusable_traces = report_unusable_traces(reader);
  const bool gate = options.fail_under >= 0;
  std::string gate_problem;
  if (unusable_traces > 0) gate_problem = std::to_string(unusable_traces) + " of the traces could not be used";
  else if (result.first_uses.total() == 0) gate_problem = "the traces hold no usable draw: there is no coverage to measure";
  const bool passed = !gate || (gate_problem.empty() && result.first_uses.covered_percent() >= options.fail_under);
  out["fail_under"] = gate ? nlohmann::ordered_json(options.fail_under) : nlohmann::ordered_json(nullptr);
  out["passed"] = passed;

  if (!options.html.empty()) {
    nlohmann::json replay;
    if (!options.replay.empty()) {
      const Result<std::vector<uint8_t>> text = io::read_file(options.replay, kMaxReplayBytes);
      if (!text) {
        print_error(text.error().to_string());
        return kExitBadInput;
      }
      replay = nlohmann::json::parse(text->begin(), text->end(), nullptr, false);
      if (replay.is_discarded()) {
        print_error(options.replay + ": not a replay JSON file (shaderbake-replay --json)");
        return kExitBadInput;
      }
    }
    const std::string page = coverage_html(out, result, replay);
    if (const Status s = io::write_output(options.html, {reinterpret_cast<const uint8_t*>(page.data()), page.size()}); !s)
      return report_output_failure(s.error());
  }
  if (gate && !gate_problem.empty()) print_error("--fail-under: the gate fails: " + gate_problem);
  if (options.json) {
    print_json(out);
  } else {
    auto line = [](const char* what, const report::Counts& c) {
      std::printf("%-11s %10llu: %6.2f%% served (%llu exact, %llu fallback, %llu dynamic fallback), %llu uncovered\n",
                  what, static_cast<unsigned long long>(c.total()), c.covered_percent(),
                  static_cast<unsigned long long>(c.exact), static_cast<unsigned long long>(c.fallback),
                  static_cast<unsigned long long>(c.dynamic_fallback), static_cast<unsigned long long>(c.uncovered));
    };
    line("draws", result.draws);
    line("first uses", result.first_uses);
    if (!result.router_data)
      std::printf("  no router data: the bundle has no DYNAMIC_FALLBACKS section: per-host-state "
                  "fallback pipelines only\n");
    else if (result.draws.dynamic_fallback > 0)
      std::printf("  dynamic fallback: the family's dynamic-state fallback pipeline for the attachment signature; "
                  "needs VK_EXT_extended_dynamic_state 1/2/3 + VK_EXT_vertex_input_dynamic_state\n");
    for (const auto& [reason, n] : result.first_uses.uncovered_by_reason)
      std::printf("  uncovered first uses, %-32s %llu (%llu draws)\n", reason.c_str(), static_cast<unsigned long long>(n),
                  static_cast<unsigned long long>(result.draws.uncovered_by_reason.at(reason)));
    std::printf("%zu frames, %llu with uncovered first uses\n", result.frames.size(),
                static_cast<unsigned long long>(frames_with_uncovered));
    for (const auto* f : worst)
      std::printf("  %s frame %lld: %llu uncovered of %llu first uses\n", reader.files()[f->file].path.c_str(),
                  static_cast<long long>(f->frame), static_cast<unsigned long long>(f->first_uses.uncovered),
                  static_cast<unsigned long long>(f->first_uses.total()));
    if (gate)
      std::printf("gate: first-use coverage %.2f%% %s %.2f%%: %s\n", result.first_uses.covered_percent(),
                  passed ? ">=" : "<", options.fail_under, passed ? "pass" : "FAIL");
  }
  return passed && unusable_traces == 0 ? kExitOk : kExitFailures;
}

int run_report_rejections(const ReportOptions& options, const GuestCatalog& guests) {
  int code = kExitOk;
  auto opened = open_for_counting(options.bundle, guests, &code);
  if (!opened) return code;
  report::RejectionCensus census(opened->file.handle(), *opened->guest);
  // Draws per reason, from the traces (the bundle's own unless given) when they can be read.
  std::string problem;
  const std::vector<std::string> traces = traces_to_read(opened->file, options.traces, &problem, &code);
  if (code == kExitBadInput) {
    print_error(options.bundle + ": " + problem);
    return code;
  }
  bool have_draws = false;
  if (!traces.empty()) {
    TerminalSink sink;
    trace::TraceReader reader(*opened->guest, trace_reader_options(options.strict, options.max_record_bytes), sink);
    census.count_draws_of(reader);
    have_draws = read_traces(traces, options.strict, reader, census, sink) == kExitOk;
  } else if (!options.traces.empty() || !problem.empty()) {
    print_warning(options.bundle + ": " + problem + "; draws are not counted");
  }
  const std::vector<const report::RejectionCensus::Reason*> reasons = census.by_keys();
  nlohmann::ordered_json out;
  out["format"] = "shaderbake-rejections/1";
  out["bundle"] = options.bundle;
  out["specializations"] = census.specializations();
  out["rejected_keys"] = census.rejected_keys();
  out["reasons"] = nlohmann::ordered_json::array();
  for (const auto* r : reasons)
    out["reasons"].push_back({{"reason", r->name},
                              {"keys", r->keys},
                              {"draws", have_draws ? nlohmann::ordered_json(r->draws) : nlohmann::ordered_json(nullptr)},
                              {"examples", std::vector<std::string>(r->examples.begin(), r->examples.end())}});
  if (options.json) {
    print_json(out);
    return kExitOk;
  }
  std::printf("%llu of %llu exact keys rejected by admission (kept on their exact route only)\n",
              static_cast<unsigned long long>(census.rejected_keys()),
              static_cast<unsigned long long>(census.specializations()));
  for (const auto* r : reasons) {
    std::printf("  %-40s %6llu keys", r->name.c_str(), static_cast<unsigned long long>(r->keys));
    if (have_draws) std::printf(" %10llu draws", static_cast<unsigned long long>(r->draws));
    std::printf("   e.g. %s\n", r->examples.begin()->c_str());
  }
  if (!reasons.empty())
    std::printf("see why: shaderbake inspect %s %s\n", options.bundle.c_str(), reasons.front()->examples.begin()->c_str());
  return kExitOk;
}

}  // namespace shaderbake::cli

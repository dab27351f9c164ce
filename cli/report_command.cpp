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
#include "lib/report/coverage_page.hpp"
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
    const std::string page = report::coverage_page(options.bundle, result, replay);
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

// SPDX-License-Identifier: MIT
// Ingest benchmark: shaderbake's trace reader (ingest + canonical keys + dedupe, one thread) side by side
// with a plain nlohmann DOM parse of every line of the same file, which only parses and builds a tree (it
// extracts nothing). Prints MB/s and records/s, medians over --repeat runs. Not a test: no thresholds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "guests/nv2a/nv2a_guest.hpp"
#include "lib/core/diagnostics.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  double seconds;
  uint64_t records;
  uint64_t draws;
};

Run run_shaderbake(const std::string& path, uint64_t* unique_keys) {
  shaderbake::CollectingSink sink;
  shaderbake::nv2a::Nv2aGuestModel model;
  shaderbake::trace::TraceReader reader(model, {}, sink);
  shaderbake::plan::KeyCensus census(reader);
  const auto start = Clock::now();
  const shaderbake::Status s = reader.read_file(path, census);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!s || !sink.entries.empty()) {
    std::fprintf(stderr, "error: %s did not read cleanly\n", path.c_str());
    std::exit(1);
  }
  *unique_keys = census.counts().unique_pipeline_keys;
  return {seconds, reader.files().back().records, census.counts().draws};
}

Run run_nlohmann_dom(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  uint64_t records = 0, draws = 0;
  const auto start = Clock::now();
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json record = nlohmann::json::parse(line);
    ++records;
    draws += record.size() != 0 && record.value("type", "") == "draw";
  }
  return {std::chrono::duration<double>(Clock::now() - start).count(), records, draws};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Trace ingest throughput: shaderbake reader vs nlohmann DOM, one thread, same file."};
  std::vector<std::string> files;
  int repeat = 3;
  bool skip_dom = false;
  app.add_option("traces", files, "JSON Lines trace files (make them with samples/generate)")->required()->check(CLI::ExistingFile);
  app.add_option("--repeat", repeat, "Runs per file (the median is reported)");
  app.add_flag("--skip-dom", skip_dom, "Do not run the nlohmann DOM baseline");
  CLI11_PARSE(app, argc, argv);

  std::printf("%-28s %10s %12s %10s %14s %12s\n", "file / reader", "MB", "records", "seconds", "MB/s", "records/s");
  for (const std::string& path : files) {
    std::ifstream probe(path, std::ios::binary | std::ios::ate);
    const double mb = static_cast<double>(probe.tellg()) / 1e6;
    std::vector<double> ours, dom;
    Run last{}, last_dom{};
    uint64_t keys = 0;
    for (int i = 0; i < repeat; ++i) {
      last = run_shaderbake(path, &keys);
      ours.push_back(last.seconds);
      if (!skip_dom) {
        last_dom = run_nlohmann_dom(path);
        dom.push_back(last_dom.seconds);
      }
    }
    const std::string name = path.substr(path.find_last_of('/') + 1);
    const double t = median(ours);
    std::printf("%-28s %10.1f %12llu %10.3f %14.1f %12.0f\n", (name + " shaderbake").c_str(), mb,
                static_cast<unsigned long long>(last.records), t, mb / t, last.records / t);
    std::printf("%-28s %10s %12llu %10s %14s %12.0f   (%llu unique pipeline keys)\n", "  draws only", "",
                static_cast<unsigned long long>(last.draws), "", "", last.draws / t, static_cast<unsigned long long>(keys));
    if (!skip_dom) {
      const double td = median(dom);
      std::printf("%-28s %10.1f %12llu %10.3f %14.1f %12.0f   (shaderbake %.1fx faster)\n",
                  (name + " nlohmann DOM").c_str(), mb, static_cast<unsigned long long>(last_dom.records), td, mb / td,
                  last_dom.records / td, td / t);
    }
  }
  return 0;
}

// SPDX-License-Identifier: MIT
// shaderbake build: traces -> keys -> plan -> compile -> bundle.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <thread>

#include "cli/cache_options.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/trace_loading.hpp"
#include "emitters/nv2a/guest_model.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/cache/artifact_cache.hpp"
#include "lib/plan/bundle_plan.hpp"
#include "lib/plan/key_census.hpp"

namespace shaderbake::cli {

namespace {

std::string kib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

}  // namespace

int run_build(const BuildOptions& options) {
  TerminalSink sink;
  nv2a::Nv2aGuestModel model;
  trace::TraceReader reader(model, trace_reader_options(options.strict), sink);
  plan::KeyCensus census(reader);
  const auto start = std::chrono::steady_clock::now();
  if (const int code = read_traces(options.traces, options.strict, reader, census, sink); code != kExitOk) return code;
  if (census.counts().draws == 0) {
    std::fprintf(stderr, "error: the traces hold no usable draw: nothing to build (see the warnings above)\n");
    return kExitBadInput;
  }

  std::unique_ptr<cache::ArtifactCache> artifact_cache = open_artifact_cache(options.cache_dir, options.no_cache);
  plan::BundleBuildOptions build;
  build.threads = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  build.cache = artifact_cache.get();
  build.write.threads = build.threads;
  std::optional<CacheCompressionMemo> memo;
  if (artifact_cache) {
    memo.emplace(*artifact_cache);
    build.write.memo = &*memo;
  }
  if (::isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "compiling on %u threads...\n", build.threads);
  auto result = plan::build_bundle(reader, census, model, build);
  if (!result) {
    std::fprintf(stderr, "error: %s\n", result.error().to_string().c_str());
    return result.error().kind == ErrorKind::toolchain ? kExitToolchain : kExitFailures;
  }
  for (const plan::BuildFailure& f : result->failures)
    std::fprintf(stderr, "error: %s\n", f.error.to_string().c_str());
  if (const Status s = bundle::write_file_atomic(options.output, result->bytes); !s) {
    std::fprintf(stderr, "error: %s\n", s.error().to_string().c_str());
    return kExitOutput;
  }
  if (!options.report.empty()) {
    const std::string text = nlohmann::ordered_json::parse(result->report_json).dump(2) + "\n";
    if (const Status s = bundle::write_file_atomic(
            options.report, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
        !s) {
      std::fprintf(stderr, "error: %s\n", s.error().to_string().c_str());
      return kExitOutput;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const cache::CacheStats cache_stats = artifact_cache ? artifact_cache->stats() : cache::CacheStats{};
  report_cache_store_failures(artifact_cache);

  const bundle::WriteStats& w = result->write;
  nlohmann::ordered_json summary;
  summary["output"] = options.output;
  summary["bundle_bytes"] = w.bundle_bytes;
  summary["draws"] = census.counts().draws;
  summary["specializations"] = result->specializations;
  summary["families"] = result->families;
  summary["exact_pipelines"] = result->exact_pipelines;
  summary["fallback_pipelines"] = result->fallback_pipelines;
  summary["modules"] = w.modules;
  summary["unique_sources"] = result->unique_sources;
  summary["raw_module_bytes"] = w.raw_module_bytes;
  summary["compressed_module_bytes"] = w.compressed_module_bytes;
  summary["dictionary_bytes"] = w.dictionary_bytes;
  summary["failures"] = result->failures.size();
  summary["bad_records"] = reader.bad_records();
  summary["threads"] = build.threads;
  summary["seconds"] = seconds;
  summary["cache"] = cache_summary(artifact_cache);
  if (options.json) {
    std::printf("%s\n", summary.dump(2).c_str());
  } else {
    std::printf("%s: %s, %llu draws -> %llu exact keys, %llu families, %llu exact + %llu fallback pipelines\n",
                options.output.c_str(), kib(w.bundle_bytes).c_str(), static_cast<unsigned long long>(census.counts().draws),
                static_cast<unsigned long long>(result->specializations),
                static_cast<unsigned long long>(result->families),
                static_cast<unsigned long long>(result->exact_pipelines),
                static_cast<unsigned long long>(result->fallback_pipelines));
    std::printf("modules: %llu (SPIR-V %s -> %s + %s dictionary), %zu failures, %.2f s on %u threads\n",
                static_cast<unsigned long long>(w.modules), kib(w.raw_module_bytes).c_str(),
                kib(w.compressed_module_bytes).c_str(), kib(w.dictionary_bytes).c_str(), result->failures.size(),
                seconds, build.threads);
    if (artifact_cache)
      std::printf("cache %s: %llu hits, %llu misses\n", artifact_cache->directory().string().c_str(),
                  static_cast<unsigned long long>(cache_stats.hits), static_cast<unsigned long long>(cache_stats.misses));
  }
  return result->failures.empty() ? kExitOk : kExitFailures;
}

}  // namespace shaderbake::cli

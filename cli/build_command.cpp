// SPDX-License-Identifier: MIT
// shaderbake build: traces -> keys -> plan -> compile -> bundle; or, when no input changed since a build the
// artifact cache remembers, that build's outputs (lib/cache/build_memo.hpp, lib/plan/build_memo_policy.hpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include "cli/cache_options.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_paths.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/thread_count.hpp"
#include "cli/trace_loading.hpp"
#include "lib/io/output_file.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/cache/artifact_cache.hpp"
#include "lib/cache/build_memo.hpp"
#include "lib/plan/shard.hpp"
#include "lib/plan/build_memo_policy.hpp"
#include "lib/plan/bundle_plan.hpp"
#include "lib/plan/key_census.hpp"

namespace shaderbake::cli {

namespace {

using Clock = std::chrono::steady_clock;

// What became of the build memo: "hit", "miss" (looked up, not found; `reason` says when none was stored),
// "disabled" (--no-build-memo, --no-cache) or "unavailable" (`reason`: no build IDs, a trace on a pipe).
struct MemoState {
  const char* state = "disabled";
  std::string reason;
};

std::string kib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  return text;
}

void print_summary(const BuildOptions& options, const nlohmann::ordered_json& outcome, unsigned threads,
                   double seconds, const std::unique_ptr<cache::ArtifactCache>& artifact_cache, const MemoState& memo) {
  auto n = [&](const char* field) { return static_cast<unsigned long long>(outcome.at(field).get<uint64_t>()); };
  if (options.json) {
    nlohmann::ordered_json summary;
    summary["output"] = options.output;
    for (const char* field : plan::kOutcomeCounts) summary[field] = outcome.at(field);
    summary["bad_records"] = outcome.at("bad_records");
    summary["threads"] = threads;
    summary["seconds"] = seconds;
    summary["cache"] = cache_summary(artifact_cache);  // counts every entry lookup and store, the memo's too
    summary["build_memo"] = memo.state;
    if (!memo.reason.empty()) summary["build_memo_reason"] = memo.reason;
    print_json(summary);
    return;
  }
  std::printf("%s: %s, %llu draws -> %llu exact keys (%llu distinct exact modules), %llu families, %llu exact + %llu "
              "fallback pipelines\n",
              escape_controls(options.output).c_str(), kib(n("bundle_bytes")).c_str(), n("draws"), n("specializations"),
              n("exact_modules"), n("families"), n("exact_pipelines"), n("fallback_pipelines"));
  std::printf("router data: %llu dynamic-state fallback pipelines, %llu exact pipelines in the prewarm order\n",
              n("dynamic_fallback_pipelines"), n("prewarm_pipelines"));
  std::printf("modules: %llu (SPIR-V %s -> %s + %s dictionary), %llu failures, %.2f s on %u threads\n", n("modules"),
              kib(n("raw_module_bytes")).c_str(), kib(n("compressed_module_bytes")).c_str(),
              kib(n("dictionary_bytes")).c_str(), n("failures"), seconds, threads);
  if (!artifact_cache) return;
  const std::string dir = artifact_cache->directory().string();
  if (std::string_view(memo.state) == "hit") {
    std::printf("cache %s: no input changed since a build it remembers: its outputs copied\n", escape_controls(dir).c_str());
    return;
  }
  const cache::CacheStats stats = artifact_cache->stats();
  std::printf("cache %s: %llu hits, %llu misses\n", escape_controls(dir).c_str(), static_cast<unsigned long long>(stats.hits),
              static_cast<unsigned long long>(stats.misses));
  if (const cache::RemoteCache* remote = artifact_cache->remote())
    std::printf("remote cache %s: %llu hits, %llu misses, %llu damaged, %llu stored%s\n", escape_controls(remote->url()).c_str(),
                static_cast<unsigned long long>(stats.remote_hits), static_cast<unsigned long long>(stats.remote_misses),
                static_cast<unsigned long long>(stats.remote_corrupt), static_cast<unsigned long long>(stats.remote_stores),
                remote->failure() ? " (out of use after a failure)" : "");
}

// Writes the bundle and, when asked for, the report; the same way for a build and for a memo hit.
int write_outputs(const BuildOptions& options, std::span<const uint8_t> bundle, const std::string& report) {
  const std::span<const uint8_t> report_bytes(reinterpret_cast<const uint8_t*>(report.data()), report.size());
  for (const auto& [path, bytes] : {std::pair{options.output, bundle}, std::pair{options.report, report_bytes}}) {
    if (path.empty()) continue;
    if (const Status s = io::write_output(path, bytes, io::IfIdentical::keep); !s)
      return report_output_failure(s.error());
  }
  return kExitOk;
}

// The compile phase's progress on a terminal: one line rewritten in place, modules done of each phase.
std::function<void(std::string_view, size_t, size_t)> terminal_compile_progress(unsigned threads) {
  if (::isatty(STDERR_FILENO) == 0) return {};
  return [threads](std::string_view phase, size_t done, size_t total) {
    std::fprintf(stderr, "\rcompiling %.*s modules on %u threads: %zu / %zu%s", static_cast<int>(phase.size()),
                 phase.data(), threads, done, total, done == total ? "\n" : "");
  };
}

}  // namespace

int run_build(const BuildOptions& options, const GuestCatalog& guests) {
  if (const int code = refuse_clashing_outputs(named_paths("trace", options.traces),
                                               {{"-o", options.output}, {"--report", options.report}});
      code != kExitOk)
    return code;
  const auto start = Clock::now();
  const unsigned threads = compile_threads(options.jobs);
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::unique_ptr<cache::ArtifactCache> artifact_cache =
      open_artifact_cache(options.cache_dir, options.no_cache, options.cache_url);

  MemoState memo;
  std::optional<cache::BuildInputs> inputs;
  std::optional<cache::ArtifactIdentity> memo_id;
  std::optional<plan::Shard> shard;
  if (!options.shard.empty()) {
    auto parsed = plan::parse_shard(options.shard, options.shard_index_env);
    if (!parsed) {
      print_error(parsed.error().message);
      return kExitUsage;
    }
    shard = *parsed;
  }
  if (artifact_cache && !options.no_build_memo && !shard) {
    if (Result<cache::BuildInputs> described =
            plan::describe_build_inputs(options.traces, options.strict, options.max_record_bytes, options.specialize);
        !described) {
      memo = {"unavailable", described.error().to_string()};
    } else {
      inputs = std::move(*described);
      memo_id = cache::memo_identity(*artifact_cache, *inputs);
      memo.state = "miss";
      if (std::optional<plan::RememberedBuild> hit =
              plan::recall_build(*artifact_cache, *memo_id, {.ok = kExitOk, .failures = kExitFailures})) {
        std::fwrite(hit->outputs.diagnostics.data(), 1, hit->outputs.diagnostics.size(), stderr);
        if (const int code = write_outputs(options, hit->outputs.bundle, hit->outputs.report_json); code != kExitOk)
          return code;
        print_summary(options, hit->outcome, threads, seconds(), artifact_cache, {"hit", {}});
        return hit->outputs.exit_code;
      }
    }
  }

  TerminalSink sink(10, memo_id.has_value());
  trace::ReaderOptions reader_options = trace_reader_options(options.strict, options.max_record_bytes);
  reader_options.digest_content = memo_id.has_value();
  trace::TraceReader reader(guests, reader_options, sink);
  plan::KeyCensus census(reader);
  if (const int code = read_traces(options.traces, options.strict, reader, census, sink); code != kExitOk) return code;
  const size_t unusable_traces = report_unusable_traces(reader);
  if (census.counts().draws == 0) {
    print_error("the traces hold no usable draw: nothing to build (see the warnings above)");
    return kExitBadInput;
  }

  plan::BundleBuildOptions build;
  build.threads = threads;
  build.specialize = options.specialize;
  if (shard) {
    build.shard_index = shard->index;
    build.shard_count = shard->count;
  }
  build.cache = artifact_cache.get();
  build.write.threads = build.threads;
  std::optional<CacheCompressionMemo> compression_memo;
  if (artifact_cache) {
    compression_memo.emplace(*artifact_cache);
    build.write.memo = &*compression_memo;
  }
  build.progress = terminal_compile_progress(build.threads);
  auto result = plan::build_bundle(reader, census, *reader.model(), build);
  if (!result) {
    print_error(result.error().to_string());
    return result.error().kind == ErrorKind::toolchain ? kExitToolchain : kExitFailures;
  }
  for (const plan::BuildFailure& f : result->failures) sink.print_line("error: " + f.error.to_string());

  cache::BuildOutputs outputs;
  outputs.exit_code = result->failures.empty() && unusable_traces == 0 ? kExitOk : kExitFailures;
  outputs.report_json = nlohmann::ordered_json::parse(result->report_json).dump(2) + "\n";
  const nlohmann::ordered_json outcome = plan::outcome_summary(*result, census, reader);
  if (const int code = write_outputs(options, result->bytes, outputs.report_json); code != kExitOk) return code;
  if (memo_id) {
    memo.reason = plan::why_not_remembered(*inputs, reader, *result);
    if (memo.reason.empty()) {
      outputs.diagnostics = sink.transcript();
      outputs.summary_json = outcome.dump();
      outputs.bundle = std::move(result->bytes);
      // Only saves time: a memo that cannot be stored costs the next build its shortcut.
      if (const Status s = artifact_cache->store_blob(*memo_id, cache::encode_build_outputs(outputs)); !s)
        memo.reason = "not stored: " + s.error().to_string();
    }
  }
  report_cache_store_failures(artifact_cache);
  print_summary(options, outcome, threads, seconds(), artifact_cache, memo);
  return outputs.exit_code;
}

}  // namespace shaderbake::cli

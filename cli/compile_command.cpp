// SPDX-License-Identifier: MIT
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <memory>
#include <set>
#include <thread>

#include "cli/cache_options.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/terminal_sink.hpp"
#include "cli/trace_loading.hpp"
#include "emitters/nv2a/guest_model.hpp"
#include "lib/cache/artifact_cache.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/plan/compile_plan.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"

namespace shaderbake::cli {

namespace {

// Writes through a temporary file and a rename, so a reader never sees half a file.
bool write_atomic(const std::filesystem::path& path, const void* data, size_t size) {
  const std::filesystem::path temp = path.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size))) return false;
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  return !ec;
}

nlohmann::ordered_json reflection_json(const compile::Reflection& r) {
  nlohmann::ordered_json out;
  out["bindings"] = nlohmann::ordered_json::array();
  for (const auto& b : r.bindings) {
    nlohmann::ordered_json j;
    j["set"] = b.set;
    j["binding"] = b.binding;
    j["kind"] = b.kind == compile::Reflection::Binding::Kind::sampled_image ? "sampled_image"
                : b.kind == compile::Reflection::Binding::Kind::uniform_buffer ? "uniform_buffer" : "storage_buffer";
    if (b.dim) j["dim"] = b.dim == 1 ? "2d" : b.dim == 2 ? "3d" : "cube";
    if (b.size) j["size"] = b.size;
    out["bindings"].push_back(j);
  }
  out["push_constant_size"] = r.push_constant_size;
  out["inputs"] = nlohmann::ordered_json::array();
  for (const auto& v : r.inputs) out["inputs"].push_back({{"location", v.location}, {"components", v.components}});
  return out;
}

}  // namespace

int run_compile(const CompileOptions& options) {
  TerminalSink sink;
  nv2a::Nv2aGuestModel model;
  trace::TraceReader reader(model, trace_reader_options(options.strict), sink);
  plan::KeyCensus census(reader);
  if (const int code = read_traces(options.traces, options.strict, reader, census, sink); code != kExitOk) return code;

  const std::unique_ptr<cache::ArtifactCache> artifact_cache = open_artifact_cache(options.cache_dir, options.no_cache);
  const unsigned threads = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  const auto start = std::chrono::steady_clock::now();
  plan::CompilePlanResult plan = plan::compile_drawn_modules(reader, census, model, threads, artifact_cache.get());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const cache::CacheStats cache_stats = artifact_cache ? artifact_cache->stats() : cache::CacheStats{};
  report_cache_store_failures(artifact_cache);

  // Modules are stored once by content (the same SPIR-V serves every key that produced it).
  const std::filesystem::path dir = options.output;
  std::error_code ec;
  std::filesystem::create_directories(dir / "modules", ec);
  if (ec) {
    std::fprintf(stderr, "error: %s: cannot create the output directory: %s\n", dir.string().c_str(), ec.message().c_str());
    return kExitOutput;
  }
  nlohmann::ordered_json manifest;
  manifest["format"] = "shaderbake-modules/0";
  manifest["toolchain"] = compile::toolchain_fingerprint();
  manifest["modules"] = nlohmann::ordered_json::array();
  manifest["failures"] = nlohmann::ordered_json::array();
  std::set<std::string> written;
  for (const plan::PlannedModule& m : plan.modules) {
    const char* route = m.route == plan::PlannedModule::Route::exact ? "exact" : "fallback";
    if (m.error) {
      std::fprintf(stderr, "error: %s\n", m.error->to_string().c_str());
      nlohmann::ordered_json f;
      f["route"] = route;
      f["key"] = m.key_hash.to_hex();
      f["reason"] = m.error->reason;
      f["message"] = m.error->message;
      if (!m.source.empty()) {
        const std::filesystem::path source_path = dir / "failed" / (m.key_hash.to_hex() + ".frag");
        std::filesystem::create_directories(source_path.parent_path(), ec);
        write_atomic(source_path, m.source.data(), m.source.size());
        f["source"] = source_path.lexically_relative(dir).string();
      }
      manifest["failures"].push_back(f);
      continue;
    }
    const auto& words = m.module->spirv;
    const std::string content = KeyHash::of({reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4}).to_hex();
    const std::filesystem::path module_path = dir / "modules" / (content + ".spv");
    if (written.insert(content).second && !write_atomic(module_path, words.data(), words.size() * 4)) {
      std::fprintf(stderr, "error: %s: cannot write\n", module_path.string().c_str());
      return kExitOutput;
    }
    nlohmann::ordered_json j;
    j["route"] = route;
    j["key"] = m.key_hash.to_hex();
    j["module"] = module_path.lexically_relative(dir).string();
    j["reflection"] = reflection_json(m.module->reflection);
    manifest["modules"].push_back(j);
  }
  const std::string text = manifest.dump(2) + "\n";
  if (!write_atomic(dir / "manifest.json", text.data(), text.size())) {
    std::fprintf(stderr, "error: %s: cannot write manifest.json\n", dir.string().c_str());
    return kExitOutput;
  }

  nlohmann::ordered_json summary;
  summary["modules_needed"] = plan.modules.size();
  summary["unique_sources"] = plan.unique_sources;
  summary["unique_spirv_modules"] = written.size();
  summary["failures"] = plan.failures;
  summary["threads"] = threads;
  summary["seconds"] = seconds;
  summary["output"] = dir.string();
  summary["cache"] = cache_summary(artifact_cache);
  if (options.json) {
    std::printf("%s\n", summary.dump(2).c_str());
  } else {
    std::printf("%zu modules needed (%llu unique sources) -> %zu unique SPIR-V modules in %s, %llu failures, "
                "%.2f s on %u threads\n",
                plan.modules.size(), static_cast<unsigned long long>(plan.unique_sources), written.size(),
                dir.string().c_str(), static_cast<unsigned long long>(plan.failures), seconds, threads);
    if (artifact_cache) {
      std::printf("cache %s: %llu hits, %llu misses", artifact_cache->directory().string().c_str(),
                  static_cast<unsigned long long>(cache_stats.hits), static_cast<unsigned long long>(cache_stats.misses));
      if (cache_stats.corrupt_discarded)
        std::printf(" (%llu corrupt entries discarded)", static_cast<unsigned long long>(cache_stats.corrupt_discarded));
      std::printf("\n");
    }
  }
  return plan.failures ? kExitFailures : kExitOk;
}

}  // namespace shaderbake::cli

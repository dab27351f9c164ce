// SPDX-License-Identifier: MIT
#include "samples/replay/replay_mode.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <unordered_map>

#include "samples/replay/bundle_pipelines.hpp"
#include "samples/replay/compiled_pipelines.hpp"
#include "samples/replay/frame_renderer.hpp"
#include "samples/replay/pipeline_factory.hpp"

namespace shaderbake::replay {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// An open bundle, closed with the mode.
struct OpenBundle {
  sbk_bundle bundle{};
  bool open = false;
  ~OpenBundle() {
    if (open) sbk_bundle_close(&bundle);
  }
};

enum class Route { exact, fallback, uncovered };

// The resolution of one (program, host state) pair, made at its first use and reused by every later draw.
struct Resolved {
  DrawBinding binding;
  Route route;
};

// A first use, in a renderer's order: the exact pipeline, then (admitted programs only) the fallback pipeline
// with the packet, then the old way. `routes` is null in mode none. An uncovered program the exact emitter
// cannot generate resolves to no pipeline.
Result<Resolved> select_route(BundlePipelines* routes, CompiledPipelines& old_way, const sbk_nv2a_program& program,
                              const sbk_host_state& host) {
  Resolved r{};
  if (routes) {
    auto exact = routes->try_exact(program, host, &r.binding);
    if (!exact) return std::move(exact).error();
    r.route = Route::exact;
    if (*exact) return r;
    if (sbk_nv2a_admit(&program, nullptr) == SBK_NV2A_OK) {  // fail-closed: a rejected program never takes it
      auto fallback = routes->try_fallback(program, host, &r.binding);
      if (!fallback) return std::move(fallback).error();
      r.route = Route::fallback;
      if (*fallback) return r;
    }
  }
  r = Resolved{};
  r.route = Route::uncovered;
  auto compiled = old_way.create(program, host, &r.binding);
  if (!compiled) return std::move(compiled).error();
  return r;
}

std::string hex(const uint8_t* bytes, size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

// Mode none and bundle salt their modules (PipelineFactory); bundle+cache must not: its modules have to be
// byte for byte those `shaderbake warm` created, or the driver cache cannot answer.
std::string salt_of(Mode mode) {
  return mode == Mode::bundle_cache ? std::string() : std::string("shaderbake-replay mode ") + mode_name(mode);
}

}  // namespace

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::none: return "none";
    case Mode::bundle: return "bundle";
    case Mode::bundle_cache: return "bundle+cache";
  }
  return "?";
}

namespace {

// run_mode on its own device, which is destroyed on return; *messages is the device's validation log (null
// when no device could be created), to be read after that.
Result<ModeResult> replay_on_new_device(Mode mode, const ReplayTrace& trace, const vulkan::ExecutorOptions& vulkan,
                                        const std::string& bundle_path,
                                        std::shared_ptr<const vulkan::Context::MessageLog>* messages) {
  ModeResult out;
  out.mode = mode;
  auto device = VulkanDevice::create(vulkan);
  if (!device) return std::move(device).error();
  *messages = (*device)->context().message_log();
  const VkDevice vk = (*device)->device();
  auto renderer = FrameRenderer::create(**device, trace);
  if (!renderer) return std::move(renderer).error();

  // ---- load ----
  const auto load_start = Clock::now();
  OpenBundle bundle;
  if (mode != Mode::none) {
    if (sbk_result r = sbk_bundle_open_file(&bundle.bundle, bundle_path.c_str()); r != SBK_OK) {
      Error e;
      e.kind = r == SBK_ERROR_IO ? ErrorKind::io : ErrorKind::bad_input;
      e.reason = "bundle_unusable";
      e.message = std::string("cannot open the bundle: ") + sbk_result_name(r);
      e.where.file = bundle_path;
      return e;
    }
    bundle.open = true;
    // Part of the load: the dictionary is digested once, so that every module read during play only decodes.
    if (sbk_result r = sbk_bundle_prepare_dictionary(&bundle.bundle); r != SBK_OK) {
      Error e;
      e.kind = ErrorKind::bad_input;
      e.reason = "bundle_unusable";
      e.message = std::string("cannot digest the bundle's dictionary: ") + sbk_result_name(r);
      e.where.file = bundle_path;
      return e;
    }
  }
  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  out.pipeline_cache = "empty";
  if (mode == Mode::bundle_cache) {
    const VkPhysicalDeviceProperties& p = (*device)->context().properties();
    const void* data = nullptr;
    size_t size = 0;
    const sbk_result r = sbk_bundle_driver_cache(&bundle.bundle, p.vendorID, p.deviceID, p.driverVersion,
                                                 p.pipelineCacheUUID, &data, &size);
    if (r != SBK_OK) {
      char device_text[160];
      std::snprintf(device_text, sizeof device_text, "vendor 0x%04x, device 0x%04x, driver version 0x%08x, cache UUID %s",
                    p.vendorID, p.deviceID, p.driverVersion, hex(p.pipelineCacheUUID, VK_UUID_SIZE).c_str());
      out.available = false;
      out.unavailable_reason =
          r == SBK_NOT_FOUND
              ? std::string("the bundle has no driver cache for this device (") + device_text +
                    "): run `shaderbake warm BUNDLE --device ...` on this machine first"
              : std::string("the bundle's driver cache is unusable (") + sbk_result_name(r) + ")";
      return out;
    }
    cache_info.initialDataSize = size;
    cache_info.pInitialData = data;
    out.driver_cache_bytes = size;
    out.pipeline_cache = "the bundle's driver cache for this device";
  }
  auto cache = vulkan::create_object<VkPipelineCache>(vk, "vkCreatePipelineCache", vkCreatePipelineCache, cache_info,
                                                     vkDestroyPipelineCache);
  if (!cache) return std::move(cache).error();
  PipelineFactory factory(vk, cache->get(), salt_of(mode));
  std::unique_ptr<BundlePipelines> routes;
  if (mode != Mode::none) {
    routes = std::make_unique<BundlePipelines>(bundle.bundle, factory);
    auto loaded = routes->load();
    if (!loaded) return std::move(loaded).error();
    out.load_fallback_pipelines = *loaded;
    out.load_layouts = sbk_bundle_layout_count(&bundle.bundle);
  }
  out.load_ms = mode == Mode::none ? 0.0 : ms_since(load_start);
  CompiledPipelines old_way(factory);

  // ---- frames ----
  std::unordered_map<uint64_t, Resolved> resolved;
  for (const ReplayFrame& frame : trace.frames) {
    if (Status s = (*renderer)->begin_frame(); !s) return std::move(s).error();
    double first_use_ms = 0;
    for (uint32_t i = frame.first; i < frame.first + frame.count; ++i) {
      const ReplayDraw& draw = trace.draws[i];
      const uint64_t pair = uint64_t{draw.program} << 32 | draw.host;
      auto it = resolved.find(pair);
      if (it != resolved.end()) {
        ++out.reused;
      } else {
        // A first use: everything from here to the binding is the stall an emulator would see.
        const sbk_nv2a_program& program = trace.programs[draw.program];
        const sbk_host_state& host = trace.hosts[draw.host];
        const uint64_t pipelines_before = factory.pipelines_created();
        const uint64_t compiles_before = old_way.shader_compiles();
        const auto start = Clock::now();
        auto selected = select_route(routes.get(), old_way, program, host);
        if (!selected) return std::move(selected).error();
        const Resolved r = *selected;
        if (r.route == Route::uncovered && r.binding.pipeline == VK_NULL_HANDLE) ++out.uncovered_failed;
        const double ms = ms_since(start);
        RouteWork& work = r.route == Route::exact ? out.exact : r.route == Route::fallback ? out.fallback : out.uncovered;
        ++work.first_uses;
        work.ms += ms;
        work.pipelines_created += factory.pipelines_created() - pipelines_before;
        work.shader_compiles += old_way.shader_compiles() - compiles_before;
        first_use_ms += ms;
        out.slowest_first_use_ms = std::max(out.slowest_first_use_ms, ms);
        it = resolved.emplace(pair, r).first;
      }
      const Resolved& r = it->second;
      ++(r.route == Route::exact ? out.draws_exact : r.route == Route::fallback ? out.draws_fallback : out.draws_uncovered);
      if (r.binding.pipeline == VK_NULL_HANDLE) {
        ++out.draws_skipped;
        continue;
      }
      if (Status s = (*renderer)->draw(r.binding, draw.host); !s) return std::move(s).error();
    }
    auto submit_ms = (*renderer)->end_frame();
    if (!submit_ms) return std::move(submit_ms).error();
    out.frame_first_use_ms.push_back(first_use_ms);
    out.frame_submit_ms.push_back(*submit_ms);
    out.draws += frame.count;
    ++out.frames;
  }
  // Destroyed on return, in reverse order of creation: the pipelines, layouts and modules (factory), the
  // cache, the bundle, the renderer's resources, the device. Messages reported while destroying count too.
  return out;
}

}  // namespace

Result<ModeResult> run_mode(Mode mode, const ReplayTrace& trace, const vulkan::ExecutorOptions& vulkan,
                            const std::string& bundle_path) {
  std::shared_ptr<const vulkan::Context::MessageLog> messages;
  auto out = replay_on_new_device(mode, trace, vulkan, bundle_path, &messages);
  // Also when the mode failed or was unavailable: what the layer said is part of the diagnosis.
  const uint64_t count = messages ? report_validation_messages(*messages) : 0;
  if (out) out->validation_messages = count;
  return out;
}

}  // namespace shaderbake::replay

// SPDX-License-Identifier: MIT
#include "samples/replay/replay_mode.hpp"

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <unordered_map>

#include "samples/replay/bundle_pipelines.hpp"
#include "samples/replay/compiled_pipelines.hpp"
#include "samples/replay/frame_renderer.hpp"
#include "samples/replay/pipeline_factory.hpp"
#include "samples/replay/router_pipelines.hpp"

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

// A first use, in a renderer's order: the exact pipeline, then (draws admission accepts only) the fallback
// pipeline with the packet, then the old way. `routes` is null in mode none; `host` is null for a dispatch. An
// uncovered program the guest cannot generate resolves to no pipeline.
Result<Resolved> select_route(BundlePipelines* routes, OldWay& old_way, const ReplayGuest& guest, uint32_t program,
                              const sbk_host_state* host, DrawKeys& keys) {
  Resolved r{};
  if (routes) {
    guest.encode_keys(program, host, &keys);
    auto exact = routes->try_exact(program, host, keys, &r.binding);
    if (!exact) return std::move(exact).error();
    r.route = Route::exact;
    if (*exact) return r;
    if (keys.family_size != 0) {  // fail-closed: a rejected draw never takes it
      auto fallback = routes->try_fallback(program, host, keys, &r.binding);
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

// The modes without the driver cache salt the modules they create (PipelineFactory); the +cache modes must
// not: their modules have to be byte for byte those `shaderbake warm` created, or the driver cache cannot
// answer. (The router creates its modules from the bundle as stored, in both router modes.)
std::string salt_of(Mode mode) {
  return uses_driver_cache(mode) ? std::string() : std::string("shaderbake-replay mode ") + mode_name(mode);
}

// Which draws of a frame were skipped (FNV-1a over their indices): two modes' frames are comparable only when
// they drew the same draws.
struct DrawnDigest {
  uint64_t value = 14695981039346656037ull;
  void skipped(uint32_t draw) {
    for (int i = 0; i < 4; ++i) value = (value ^ (draw >> (8 * i) & 0xFFu)) * 1099511628211ull;
  }
};

}  // namespace

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::none: return "none";
    case Mode::bundle: return "bundle";
    case Mode::bundle_cache: return "bundle+cache";
    case Mode::hybrid: return "hybrid";
    case Mode::hybrid_cache: return "hybrid+cache";
  }
  return "?";
}

bool uses_router(Mode mode) { return mode == Mode::hybrid || mode == Mode::hybrid_cache; }
bool uses_driver_cache(Mode mode) { return mode == Mode::bundle_cache || mode == Mode::hybrid_cache; }


namespace {

// Starts frame n no earlier than n intervals after frame 0 began, as a game at a fixed frame rate does; an
// interval of 0 lets every frame start when the one before is done.
class FramePacer {
 public:
  explicit FramePacer(double interval_ms) : interval_(interval_ms) {}
  void frame_begins(size_t index) {
    if (interval_.count() <= 0) return;
    if (index == 0) {
      first_ = Clock::now();
      return;
    }
    std::this_thread::sleep_until(first_ + std::chrono::duration_cast<Clock::duration>(interval_ * static_cast<double>(index)));
  }

 private:
  std::chrono::duration<double, std::milli> interval_;
  Clock::time_point first_{};
};

// What a mode's frames need, whichever way it meets its states.
struct FrameContext {
  const ReplayTrace& trace;
  FrameRenderer& renderer;
  PipelineFactory& factory;
  OldWay& old_way;
  bool read_back_pixels;
  FramePacer& pacer;
  DrawKeys& keys;  // scratch for the draw being resolved
};

const sbk_host_state* host_of(const FrameContext& c, const ReplayDraw& draw) {
  return draw.host == kNoHost ? nullptr : &c.trace.hosts[draw.host];
}

// Records a draw, or a dispatch for a compute pipeline.
Status record(const FrameContext& c, const DrawBinding& binding, const ReplayDraw& draw) {
  return binding.compute ? c.renderer.dispatch(binding) : c.renderer.draw(binding, draw.host);
}

// The first use of a pair that takes the bundle's routes directly (every pair in modes none, bundle and
// bundle+cache; a compute pair in the router modes): select_route, timed and counted as first-use work.
Result<Resolved> first_use(const FrameContext& c, BundlePipelines* routes, const ReplayDraw& draw, double* first_use_ms,
                           ModeResult& out) {
  // Everything from here to the binding is the stall a renderer would see.
  const uint64_t pipelines_before = c.factory.pipelines_created();
  const uint64_t compiles_before = c.old_way.shader_compiles();
  const auto start = Clock::now();
  auto selected = select_route(routes, c.old_way, *c.trace.guest, draw.program, host_of(c, draw), c.keys);
  if (!selected) return selected;
  const Resolved& r = *selected;
  if (r.route == Route::uncovered && r.binding.pipeline == VK_NULL_HANDLE) ++out.uncovered_failed;
  const double ms = ms_since(start);
  RouteWork& work = r.route == Route::exact ? out.exact : r.route == Route::fallback ? out.fallback : out.uncovered;
  ++work.first_uses;
  work.ms += ms;
  work.pipelines_created += c.factory.pipelines_created() - pipelines_before;
  work.shader_compiles += c.old_way.shader_compiles() - compiles_before;
  out.pipelines_render_thread += c.factory.pipelines_created() - pipelines_before;
  *first_use_ms += ms;
  out.slowest_first_use_ms = std::max(out.slowest_first_use_ms, ms);
  return selected;
}

// Draws (or skips) a pair resolved by first_use.
Status draw_resolved(const FrameContext& c, const Resolved& r, const ReplayDraw& draw, uint32_t index_in_frame,
                     DrawnDigest& drawn, ModeResult& out) {
  ++(r.route == Route::exact ? out.draws_exact : r.route == Route::fallback ? out.draws_fallback : out.draws_uncovered);
  if (r.binding.pipeline == VK_NULL_HANDLE) {
    ++out.draws_skipped;
    drawn.skipped(index_in_frame);
    return ok_status();
  }
  return record(c, r.binding, draw);
}

// Submits the frame and records what every mode records of it: its pixels (when read back), first-use and
// submit times, fallback GPU time, draws.
Status end_frame(const FrameContext& c, const ReplayFrame& frame, const DrawnDigest& drawn, double first_use_ms,
                 ModeResult& out) {
  FramePixels pixels;
  auto submit_ms = c.renderer.end_frame(c.read_back_pixels ? &pixels : nullptr);
  if (!submit_ms) return std::move(submit_ms).error();
  if (c.read_back_pixels) {
    pixels.drawn_digest = drawn.value;
    out.pixels.push_back(std::move(pixels));
  }
  out.frame_first_use_ms.push_back(first_use_ms);
  out.frame_submit_ms.push_back(*submit_ms);
  if (c.renderer.gpu_timestamps()) out.frame_fallback_gpu_ms.push_back(c.renderer.fallback_gpu_ms());
  out.draws += frame.count;
  ++out.frames;
  return ok_status();
}

// The frames of modes none, bundle and bundle+cache: each pair resolved once, at its first use, on the
// render thread (`routes` is null in mode none).
Status replay_frames(const FrameContext& c, BundlePipelines* routes, ModeResult& out) {
  std::unordered_map<uint64_t, Resolved> resolved;
  for (size_t f = 0; f < c.trace.frames.size(); ++f) {
    const ReplayFrame& frame = c.trace.frames[f];
    c.pacer.frame_begins(f);
    if (Status s = c.renderer.begin_frame(); !s) return s;
    double first_use_ms = 0;
    DrawnDigest drawn;
    for (uint32_t i = frame.first; i < frame.first + frame.count; ++i) {
      const ReplayDraw& draw = c.trace.draws[i];
      const uint64_t pair = uint64_t{draw.program} << 32 | draw.host;
      auto it = resolved.find(pair);
      if (it != resolved.end()) {
        ++out.reused;
      } else {
        auto r = first_use(c, routes, draw, &first_use_ms, out);
        if (!r) return std::move(r).error();
        it = resolved.emplace(pair, std::move(*r)).first;
      }
      if (Status s = draw_resolved(c, it->second, draw, i - frame.first, drawn, out); !s) return s;
    }
    if (Status s = end_frame(c, frame, drawn, first_use_ms, out); !s) return s;
  }
  return ok_status();
}

// A (program, host state) pair of a router mode: the router's memory of it and what the renderer draws.
struct RoutedPair {
  sbk_router_binding binding{};  // zero-initialised, kept with the pair, passed to each of its draws
  DrawBinding routed;            // the router's answer in the renderer's terms, refilled when the answer changes
  VkPipeline routed_from = VK_NULL_HANDLE;
  uint32_t routed_route = SBK_ROUTED_UNCOVERED;
  DrawBinding compiled;          // the old way's, made the first time the router leaves the pair uncovered
  bool compiled_tried = false;
  uint32_t first_route = SBK_ROUTED_UNCOVERED;
};

RouteWork& work_of(ModeResult& out, uint32_t route) {
  switch (route) {
    case SBK_ROUTED_EXACT: return out.exact;
    case SBK_ROUTED_FALLBACK: return out.fallback;
    case SBK_ROUTED_DYNAMIC_FALLBACK: return out.dynamic_fallback;
    default: return out.uncovered;
  }
}

// The frames of the router modes. Per frame sbk_router_begin_frame; per draw the pair's binding is resolved
// (two compares while it is current), drawn with the router's pipeline, or, where the router has nothing, with
// the old way's, made now on this thread. The router routes draws: a dispatch takes the bundle's routes
// directly (`compute`: the exact pipeline created at its first use, the compute fallbacks at load), as in mode
// bundle. The figures are taken after the last frame's submission: work the workers finish later is not
// counted.
Status replay_frames_routed(const FrameContext& c, RouterPipelines& routes, BundlePipelines& compute, ModeResult& out) {
  std::unordered_map<uint64_t, RoutedPair> pairs;
  std::unordered_map<uint64_t, Resolved> dispatches;
  const sbk_router_stats at_load = routes.stats();
  // The old way, on the render thread, counted in `work` (the caller times it as first-use work).
  auto compile_old_way = [&](RoutedPair& p, uint32_t program, const sbk_host_state& host, RouteWork& work) -> Status {
    const uint64_t pipelines_before = c.factory.pipelines_created();
    const uint64_t compiles_before = c.old_way.shader_compiles();
    p.compiled_tried = true;
    auto compiled = c.old_way.create(program, &host, &p.compiled);
    if (!compiled) return std::move(compiled).error();
    work.pipelines_created += c.factory.pipelines_created() - pipelines_before;
    work.shader_compiles += c.old_way.shader_compiles() - compiles_before;
    out.pipelines_render_thread += c.factory.pipelines_created() - pipelines_before;
    return ok_status();
  };
  for (size_t f = 0; f < c.trace.frames.size(); ++f) {
    const ReplayFrame& frame = c.trace.frames[f];
    c.pacer.frame_begins(f);
    const auto frame_start = Clock::now();
    routes.begin_frame(f);
    double router_ms = ms_since(frame_start);
    if (Status s = c.renderer.begin_frame(); !s) return s;
    double first_use_ms = 0;
    DrawnDigest drawn;
    for (uint32_t i = frame.first; i < frame.first + frame.count; ++i) {
      const ReplayDraw& draw = c.trace.draws[i];
      const uint64_t pair = uint64_t{draw.program} << 32 | draw.host;
      if (draw.host == kNoHost) {
        auto it = dispatches.find(pair);
        if (it != dispatches.end()) {
          ++out.reused;
        } else {
          auto r = first_use(c, &compute, draw, &first_use_ms, out);
          if (!r) return std::move(r).error();
          it = dispatches.emplace(pair, std::move(*r)).first;
        }
        if (Status s = draw_resolved(c, it->second, draw, i - frame.first, drawn, out); !s) return s;
        continue;
      }
      const sbk_host_state& host = c.trace.hosts[draw.host];
      auto [it, first] = pairs.try_emplace(pair);
      RoutedPair& p = it->second;
      if (first) {
        // A first use: the keys, the resolve (a foreground creation inside it included) and an uncovered compile
        // are the stall a renderer would see.
        const uint64_t foreground_before = routes.stats().foreground_creations;
        const auto start = Clock::now();
        c.trace.guest->encode_keys(draw.program, &host, &c.keys);
        routes.resolve(c.keys, host, &p.binding);
        p.first_route = p.binding.route;
        RouteWork& work = work_of(out, p.binding.route);
        if (p.binding.route == SBK_ROUTED_UNCOVERED) {
          if (Status s = compile_old_way(p, draw.program, host, work); !s) return s;
          if (p.compiled.pipeline == VK_NULL_HANDLE) ++out.uncovered_failed;
        }
        const double ms = ms_since(start);
        const uint64_t foreground = routes.stats().foreground_creations - foreground_before;
        work.pipelines_created += foreground;
        out.pipelines_render_thread += foreground;
        if (c.keys.family_size == 0) out.foreground_without_fallback += foreground;
        ++work.first_uses;
        work.ms += ms;
        first_use_ms += ms;
        out.slowest_first_use_ms = std::max(out.slowest_first_use_ms, ms);
      } else {
        ++out.reused;
        if (!routes.current(p.binding)) {  // current: two compares, the binding stays as it is
          // An adoption (or a permanent failure) made the binding stale: a full resolution, small but counted.
          const auto start = Clock::now();
          c.trace.guest->encode_keys(draw.program, &host, &c.keys);
          routes.resolve(c.keys, host, &p.binding);
          if (p.binding.route == SBK_ROUTED_UNCOVERED && !p.compiled_tried) {
            if (Status s = compile_old_way(p, draw.program, host, out.uncovered); !s) return s;
            first_use_ms += ms_since(start);
          } else {
            router_ms += ms_since(start);
          }
        }
      }
      const uint32_t route = p.binding.route;
      ++(route == SBK_ROUTED_EXACT              ? out.draws_exact
         : route == SBK_ROUTED_FALLBACK         ? out.draws_fallback
         : route == SBK_ROUTED_DYNAMIC_FALLBACK ? out.draws_dynamic_fallback
                                                : out.draws_uncovered);
      const DrawBinding* binding = &p.compiled;
      if (route != SBK_ROUTED_UNCOVERED) {
        if (p.routed_from != p.binding.pipeline || p.routed_route != route) {
          routes.fill_draw(p.binding, *c.trace.guest, draw.program, &p.routed);
          p.routed_from = p.binding.pipeline;
          p.routed_route = route;
        }
        binding = &p.routed;
      }
      if (binding->pipeline == VK_NULL_HANDLE) {
        ++out.draws_skipped;
        drawn.skipped(i - frame.first);
        continue;
      }
      if (Status s = c.renderer.draw(*binding, draw.host); !s) return s;
    }
    out.router.frame_router_ms.push_back(router_ms);
    if (Status s = end_frame(c, frame, drawn, first_use_ms, out); !s) return s;
  }

  // The trace's frames are over: what the router did within them.
  const sbk_router_stats end = routes.stats();
  ModeResult::RouterFigures& r = out.router;
  r.dynamic_state = end.dynamic_state != 0;
  r.ready_at_demand = end.ready_at_demand;
  r.not_ready_at_demand = end.not_ready_at_demand;
  r.adopted = end.adopted;
  r.foreground_creations = end.foreground_creations;
  r.queue_full = end.queue_full;
  r.executor_refused = end.executor_refused;
  r.failed_attempts = end.failed_attempts;
  r.failed_permanently = end.failed_permanently;
  r.duplicates = end.duplicates;
  r.corrupt = end.corrupt;
  r.worker_cpu_ms_frames = static_cast<double>(end.worker_cpu_ns - at_load.worker_cpu_ns) / 1e6;
  out.pipelines_workers = end.worker_creations - at_load.worker_creations;
  for (const sbk_router_promotion& promotion : routes.promotions()) {
    r.promotion_frames.push_back(promotion.adopted_frame - promotion.demand_frame);
    r.promotion_ms.push_back(static_cast<double>(promotion.latency_ns) / 1e6);
  }
  for (const auto& [pair, p] : pairs) {
    if (p.first_route != SBK_ROUTED_FALLBACK && p.first_route != SBK_ROUTED_DYNAMIC_FALLBACK) continue;
    const sbk_host_state& host = c.trace.hosts[pair & 0xFFFFFFFFu];
    c.trace.guest->encode_keys(static_cast<uint32_t>(pair >> 32), &host, &c.keys);
    switch (routes.promotion_state(c.keys, host)) {
      case SBK_PROMOTION_READY: ++r.on_fallback_promoted; break;
      case SBK_PROMOTION_ABSENT: ++r.on_fallback_no_exact; break;
      case SBK_PROMOTION_FAILED_PERMANENTLY: ++r.on_fallback_failed; break;
      default: ++r.on_fallback_waiting; break;
    }
  }
  return ok_status();
}

// run_mode on its own device, which is destroyed on return; *messages is the device's validation log (null
// when no device could be created), to be read after that.
Result<ModeResult> replay_on_new_device(Mode mode, const ReplayTrace& trace, const ModeOptions& options,
                                        std::shared_ptr<const vulkan::Context::MessageLog>* messages) {
  ModeResult out;
  out.mode = mode;
  auto device = VulkanDevice::create(options.vulkan, uses_router(mode));
  if (!device) return std::move(device).error();
  *messages = (*device)->context().message_log();
  const VkDevice vk = (*device)->device();
  auto renderer = FrameRenderer::create(**device, trace, options.read_back_pixels);
  if (!renderer) return std::move(renderer).error();
  out.images_not_read = (*renderer)->images_not_read();

  // ---- load ----
  const auto load_start = Clock::now();
  OpenBundle bundle;
  if (mode != Mode::none) {
    if (sbk_result r = sbk_bundle_open_file(&bundle.bundle, options.bundle_path.c_str()); r != SBK_OK) {
      Error e = bundle_error(r, "cannot open the bundle");
      e.where.file = options.bundle_path;
      return e;
    }
    bundle.open = true;
    // The loader checks the format only; the keys must be the trace's guest's, of its schema (SBK_ERROR_VERSION).
    if (sbk_result r = trace.guest->check_bundle(bundle.bundle); r != SBK_OK) {
      Error e = bundle_error(r, "cannot open the bundle");
      e.where.file = options.bundle_path;
      return e;
    }
    // Part of the load: the dictionary is digested once, so that every module read during play only decodes.
    if (sbk_result r = sbk_bundle_prepare_dictionary(&bundle.bundle); r != SBK_OK) {
      Error e = bundle_error(r, "cannot digest the bundle's dictionary");
      e.where.file = options.bundle_path;
      return e;
    }
  }
  VkPipelineCacheCreateInfo cache_info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  out.pipeline_cache = "empty";
  if (uses_driver_cache(mode)) {
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
  const std::unique_ptr<OldWay> old_way = trace.guest->old_way(factory);
  FramePacer pacer(options.frame_interval_ms);
  const auto keys = std::make_unique<DrawKeys>();
  const FrameContext frames{trace, **renderer, factory, *old_way, options.read_back_pixels, pacer, *keys};

  if (uses_router(mode)) {
    ModeResult::RouterFigures& r = out.router;
    r.workers = options.workers;
    r.prewarm = options.prewarm;
    r.dynamic_state_supported = (*device)->router_support().complete != 0;
    RouterPipelines::Options router_options;
    router_options.workers = options.workers;
    router_options.dynamic_state = options.dynamic_state;
    router_options.prewarm = options.prewarm;
    const auto router_start = Clock::now();
    auto routes = RouterPipelines::load(**device, bundle.bundle, cache->get(), router_options);
    if (!routes) return std::move(routes).error();
    r.router_load_ms = ms_since(router_start);
    // Dispatches take the bundle's routes directly: its compute fallback pipelines are created at load too.
    BundlePipelines compute(bundle.bundle, *trace.guest, factory);
    auto compute_fallbacks = compute.load(/*graphics_fallbacks=*/false);
    if (!compute_fallbacks) return std::move(compute_fallbacks).error();
    out.load_ms = ms_since(load_start);
    const sbk_router_stats loaded = (*routes)->stats();
    out.load_fallback_pipelines = loaded.fallback_pipelines + *compute_fallbacks;
    out.load_layouts = sbk_bundle_layout_count(&bundle.bundle);
    out.pipelines_at_load = loaded.load_pipelines - loaded.load_failures + *compute_fallbacks;
    r.load_failures = loaded.load_failures;
    r.worker_cpu_ms_load = static_cast<double>(loaded.worker_cpu_ns) / 1e6;
    if (Status s = replay_frames_routed(frames, **routes, compute, out); !s) return std::move(s).error();
    // Destroyed on return, before the objects below: the router (its workers first), then as the other modes.
    return out;
  }

  std::unique_ptr<BundlePipelines> routes;
  if (mode != Mode::none) {
    routes = std::make_unique<BundlePipelines>(bundle.bundle, *trace.guest, factory);
    auto loaded = routes->load();
    if (!loaded) return std::move(loaded).error();
    out.load_fallback_pipelines = *loaded;
    out.pipelines_at_load = *loaded;
    out.load_layouts = sbk_bundle_layout_count(&bundle.bundle);
  }
  out.load_ms = mode == Mode::none ? 0.0 : ms_since(load_start);
  if (Status s = replay_frames(frames, routes.get(), out); !s) return std::move(s).error();
  // Destroyed on return, in reverse order of creation: the pipelines, layouts and modules (factory), the
  // cache, the bundle, the renderer's resources, the device. Messages reported while destroying count too.
  return out;
}

}  // namespace

Result<ModeResult> run_mode(Mode mode, const ReplayTrace& trace, const ModeOptions& options) {
  std::shared_ptr<const vulkan::Context::MessageLog> messages;
  auto out = replay_on_new_device(mode, trace, options, &messages);
  // Also when the mode failed or was unavailable: what the layer said is part of the diagnosis.
  const uint64_t count = messages ? report_validation_messages(*messages) : 0;
  if (out) out->validation_messages = count;
  return out;
}

}  // namespace shaderbake::replay

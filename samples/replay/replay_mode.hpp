// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "samples/replay/pixel_compare.hpp"
#include "samples/replay/replay_trace.hpp"
#include "samples/replay/vk_device.hpp"

namespace shaderbake::replay {

// The five ways of meeting a trace's states.
enum class Mode {
  none,          // no bundle: every first use generates, compiles and creates its pipeline (the old way)
  bundle,        // the bundle through the runtime header, an empty VkPipelineCache
  bundle_cache,  // the same, the VkPipelineCache created from the bundle's driver cache for this device
  hybrid,        // the bundle through the runtime router (shaderbake_router.h): exact pipelines created on
                 // worker threads, fallbacks meanwhile; an empty VkPipelineCache
  hybrid_cache,  // the same, the VkPipelineCache created from the bundle's driver cache for this device
};
const char* mode_name(Mode mode);  // "none", "bundle", "bundle+cache", "hybrid", "hybrid+cache"
bool uses_router(Mode mode);       // hybrid, hybrid+cache
bool uses_driver_cache(Mode mode); // bundle+cache, hybrid+cache

// How a mode runs, besides the mode itself.
struct ModeOptions {
  vulkan::ExecutorOptions vulkan;  // picks the device
  std::string bundle_path;         // unused in mode none
  uint32_t workers = 1;            // router modes: threads of the router's own sbk_thread_pool
  bool dynamic_state = true;       // router modes: use the dynamic-state fallback where the device supports it
  bool prewarm = true;             // router modes: create exact pipelines speculatively in the bundle's order
  bool read_back_pixels = false;   // read every frame's colour targets back (ModeResult::pixels)
  double frame_interval_ms = 0;    // > 0: frame n starts no earlier than n intervals after frame 0 (a game's
                                   // frame rate); the wait is in no figure but the wall-clock promotion latency
};

// What one first use cost, by the route that served it.
struct RouteWork {
  uint64_t first_uses = 0;
  uint64_t shader_compiles = 0;    // compile-chain runs (GLSL -> SPIR-V) during those first uses
  uint64_t pipelines_created = 0;  // vkCreateGraphicsPipelines during those first uses
  double ms = 0;                   // wall time of those first uses
};

struct ModeResult {
  Mode mode = Mode::none;
  bool available = true;
  std::string unavailable_reason;  // when !available

  uint64_t draws = 0;
  uint64_t frames = 0;
  // Every draw is one of: reused (its (program, host state) pair was resolved by an earlier draw), or the
  // first use of its pair, served by the exact route (pipeline created from the bundle's recipe now), the
  // fallback route (pre-created ubershader pipeline + packet), or uncovered (compiled now; or, when the exact
  // emitter cannot generate the program, nothing to draw with).
  // In the router modes a first use is the first draw of its pair, whose route is the router's answer then:
  // exact (its pipeline was ready, or, for a pair no fallback serves, created now on the render thread),
  // fallback (the bundle's per-host-state fallback pipeline), dynamic_fallback (the dynamic-state fallback
  // pipeline), or uncovered (compiled now, the old way). Only work on the render thread is counted in
  // RouteWork; what the router's workers create is in RouterFigures.
  uint64_t reused = 0;
  uint64_t uncovered_failed = 0;  // of uncovered.first_uses: generation failed, the pair's draws are skipped
  RouteWork exact, fallback, dynamic_fallback, uncovered;
  uint64_t first_uses() const {
    return exact.first_uses + fallback.first_uses + dynamic_fallback.first_uses + uncovered.first_uses;
  }
  // Every draw by the route that served it (first uses and reuses together; in the router modes a pair's
  // route changes when its exact pipeline is adopted).
  uint64_t draws_exact = 0, draws_fallback = 0, draws_dynamic_fallback = 0, draws_uncovered = 0;
  uint64_t draws_skipped = 0;

  // Load (bundle modes): open the bundle, look up the driver cache, create the VkPipelineCache, the layouts
  // and every fallback pipeline. Not a stall: an emulator does it before the first frame.
  double load_ms = 0;
  uint32_t load_fallback_pipelines = 0;
  uint32_t load_layouts = 0;
  std::string pipeline_cache;  // what the mode's VkPipelineCache started from
  uint64_t driver_cache_bytes = 0;

  // Per frame, in trace order: first-use work (route selection + source generation + compile + module reads
  // + pipeline creation of every first use in it), and submit + wait of its command buffer (the draws
  // themselves; a driver that compiles at the first draw, like lavapipe, does it here).
  std::vector<double> frame_first_use_ms;
  std::vector<double> frame_submit_ms;
  // Per frame: GPU time of the frame's fallback draws (both fallback routes), from timestamps written before
  // and after each run of consecutive fallback draws into one target (TOP_OF_PIPE, BOTTOM_OF_PIPE), summed.
  // Empty when the queue writes no timestamps.
  std::vector<double> frame_fallback_gpu_ms;
  double slowest_first_use_ms = 0;  // one first use
  uint64_t validation_messages = 0;

  // Pipelines created by the mode in all: at load, on the render thread during the frames (first-use work),
  // on the router's workers during the frames.
  uint64_t pipelines_at_load = 0, pipelines_render_thread = 0, pipelines_workers = 0;
  // Of the render thread's: exact pipelines the router created there for a program admission refuses (so no
  // fallback could serve it), the router's foreground creation. Any other would be a stall the router exists
  // to avoid.
  uint64_t foreground_without_fallback = 0;

  // Router modes only.
  struct RouterFigures {
    uint32_t workers = 0;
    bool dynamic_state_supported = false;  // the device has all sbk_router_query_support asks for
    bool dynamic_state = false;            // the router serves the dynamic-state fallback (sbk_router_stats)
    bool prewarm = false;
    double router_load_ms = 0;             // sbk_router_create + sbk_router_load (part of load_ms)
    uint64_t load_failures = 0;
    uint64_t ready_at_demand = 0, not_ready_at_demand = 0;
    uint64_t adopted = 0, foreground_creations = 0, queue_full = 0, executor_refused = 0;
    uint64_t failed_attempts = 0, failed_permanently = 0, duplicates = 0, corrupt = 0;
    double worker_cpu_ms_load = 0, worker_cpu_ms_frames = 0;
    // Promotions adopted within the trace's frames: first fallback draw -> exact pipeline adopted.
    std::vector<uint64_t> promotion_frames;
    std::vector<double> promotion_ms;
    // Pairs first drawn on a fallback, by their exact pipeline's state after the last frame.
    uint64_t on_fallback_promoted = 0;  // adopted
    uint64_t on_fallback_waiting = 0;   // queued, being created, or backing off: not adopted within the trace
    uint64_t on_fallback_no_exact = 0;  // no exact pipeline in the bundle: the fallback serves the pair for good
    uint64_t on_fallback_failed = 0;    // failed permanently
    // Per frame, on the render thread besides first-use work: sbk_router_begin_frame (adoption, retries,
    // prewarm top-up) and the resolves of pairs whose binding an adoption made stale.
    std::vector<double> frame_router_ms;
  };
  RouterFigures router;

  // With ModeOptions::read_back_pixels: every frame's colour targets, in frame order.
  std::vector<FramePixels> pixels;
  uint64_t images_not_read = 0;  // colour targets of a format or sample count the comparison does not read
  // Router modes, with --compare-pixels: these frames against mode bundle's (set once both have run).
  bool pixels_compared = false;
  PixelComparison pixel_comparison;
};

// Runs one mode over the whole trace on a fresh VulkanDevice with a fresh VkPipelineCache and fresh in-process
// state; the validation messages reported on it are printed and counted. An unavailable mode (a +cache mode
// without a driver cache for this device) is a result with available = false, not an error. Errors: the
// bundle cannot be opened or is damaged (ErrorKind::bad_input), a compile or Vulkan failure
// (ErrorKind::toolchain).
Result<ModeResult> run_mode(Mode mode, const ReplayTrace& trace, const ModeOptions& options);

}  // namespace shaderbake::replay

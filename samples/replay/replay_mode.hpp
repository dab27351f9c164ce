// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "samples/replay/replay_trace.hpp"
#include "samples/replay/vk_device.hpp"

namespace shaderbake::replay {

// The three ways of meeting a trace's states.
enum class Mode {
  none,          // no bundle: every first use generates, compiles and creates its pipeline (the old way)
  bundle,        // the bundle through the runtime header, an empty VkPipelineCache
  bundle_cache,  // the same, the VkPipelineCache created from the bundle's driver cache for this device
};
const char* mode_name(Mode mode);  // "none", "bundle", "bundle+cache"

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
  uint64_t reused = 0;
  uint64_t uncovered_failed = 0;  // of uncovered.first_uses: generation failed, the pair's draws are skipped
  RouteWork exact, fallback, uncovered;
  uint64_t first_uses() const { return exact.first_uses + fallback.first_uses + uncovered.first_uses; }
  // Every draw by the route that serves its pair (first uses and reuses together).
  uint64_t draws_exact = 0, draws_fallback = 0, draws_uncovered = 0;
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
  double slowest_first_use_ms = 0;  // one first use
  uint64_t validation_messages = 0;
};

// Runs one mode over the whole trace on a fresh VulkanDevice (`vulkan` picks it) with a fresh VkPipelineCache
// and fresh in-process state; the validation messages reported on it are printed and counted. `bundle_path` is unused in mode none. An unavailable mode (bundle+cache without a driver
// cache for this device) is a result with available = false, not an error. Errors: the bundle cannot be
// opened or is damaged (ErrorKind::bad_input), a compile or Vulkan failure (ErrorKind::toolchain).
Result<ModeResult> run_mode(Mode mode, const ReplayTrace& trace, const vulkan::ExecutorOptions& vulkan,
                            const std::string& bundle_path);

}  // namespace shaderbake::replay

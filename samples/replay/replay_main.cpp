// SPDX-License-Identifier: MIT
// shaderbake-replay: replays a trace frame by frame on a Vulkan device the way an emulator meets its guest's
// states, with no bundle, with a bundle, with a bundle plus its driver cache, and through the runtime router
// over the bundle (with and without the driver cache), and reports the first-use stalls of each
// (samples/replay/README.md).
//
// Exit codes, as the shaderbake CLI's: 0 every requested mode ran with zero validation messages (and, with
// --compare-pixels, the router modes' frames matched mode bundle's); 1 a validation message was reported, a
// requested mode was unavailable (a +cache mode without a driver cache for this device), or pixels differed;
// 2 usage (or an unreadable bundle file); 3 bad input (trace or bundle); 4 Vulkan device or toolchain; 5 the
// --json-out file cannot be written.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "samples/replay/compiled_pipelines.hpp"
#include "samples/replay/replay_mode.hpp"
#include "samples/replay/replay_report.hpp"
#include "samples/replay/replay_trace.hpp"
#include "samples/replay/vk_device.hpp"

namespace {

using namespace shaderbake;
using namespace shaderbake::replay;

enum { kExitOk = 0, kExitFailures = 1, kExitUsage = 2, kExitBadInput = 3, kExitDevice = 4, kExitOutput = 5 };

int exit_code_of(const Error& e) {
  switch (e.kind) {
    case ErrorKind::bad_input: return kExitBadInput;
    case ErrorKind::io: return kExitUsage;
    default: return kExitDevice;
  }
}

int fail(const Error& e) {
  std::fprintf(stderr, "error: %s [%s]\n", e.to_string().c_str(), e.reason.c_str());
  return exit_code_of(e);
}

struct Options {
  std::string trace;
  std::string bundle;
  std::string mode = "all";
  std::string device;
  bool json = false;
  std::string json_out;
  uint64_t frames = 0;
  bool no_validation = false;
  bool per_frame = false;
  uint32_t workers = 0;  // 0: kDefaultWorkers, capped at the hardware threads left beside the render thread
  bool no_dynamic_state = false;
  bool no_prewarm = false;
  bool compare_pixels = false;
  double frame_interval_ms = 0;
};

constexpr uint32_t kDefaultWorkers = 8;
constexpr uint32_t kMaxWorkers = 64;

// The default worker count: 8, or fewer where the machine has fewer hardware threads beside the render thread.
uint32_t default_workers() {
  const uint32_t hardware = std::thread::hardware_concurrency();
  return std::clamp<uint32_t>(hardware > 1 ? hardware - 1 : 1, 1, kDefaultWorkers);
}

int run(const Options& options) {
  // "all", or a comma-separated list of modes, run in the order given.
  std::vector<Mode> modes;
  bool needs_bundle = false;
  if (options.mode == "all") {
    // The router modes create their modules as the bundle stores them (unsalted, as bundle+cache does): hybrid
    // runs before bundle+cache, so no mode without the driver cache meets a module an earlier mode created.
    modes = {Mode::none, Mode::bundle, Mode::hybrid, Mode::bundle_cache, Mode::hybrid_cache};
  } else {
    size_t at = 0;
    while (at <= options.mode.size()) {
      const size_t comma = std::min(options.mode.find(',', at), options.mode.size());
      const std::string name = options.mode.substr(at, comma - at);
      const Mode known[] = {Mode::none, Mode::bundle, Mode::bundle_cache, Mode::hybrid, Mode::hybrid_cache};
      const Mode* mode = std::find_if(std::begin(known), std::end(known), [&](Mode m) { return name == mode_name(m); });
      if (mode == std::end(known)) {
        std::fprintf(stderr,
                     "error: --mode: unknown mode \"%s\" (none, bundle, bundle+cache, hybrid, hybrid+cache, all, or a "
                     "list: bundle,hybrid)\n",
                     name.c_str());
        return kExitUsage;
      }
      modes.push_back(*mode);
      at = comma + 1;
    }
  }
  for (Mode m : modes) needs_bundle = needs_bundle || m != Mode::none;
  if (options.bundle.empty() && needs_bundle) {
    std::fprintf(stderr, "error: --mode %s needs --bundle B.sbk\n", options.mode.c_str());
    return kExitUsage;
  }
  const bool with_bundle = std::find(modes.begin(), modes.end(), Mode::bundle) != modes.end();
  const bool with_router = std::any_of(modes.begin(), modes.end(), uses_router);
  if (options.compare_pixels && !(with_bundle && with_router)) {
    std::fprintf(stderr, "error: --compare-pixels compares the router modes' frames with mode bundle's: --mode needs "
                         "bundle and hybrid or hybrid+cache\n");
    return kExitUsage;
  }
  if (options.workers > kMaxWorkers) {
    std::fprintf(stderr, "error: --workers: at most %u\n", kMaxWorkers);
    return kExitUsage;
  }

  // Before anything loads a driver: a driver reads these when the instance loads it.
  RunInfo info;
  info.driver_caches = set_driver_cache_environment();
  info.trace = options.trace;
  info.bundle = options.bundle;
  info.per_frame = options.per_frame;

  auto trace = load_trace(options.trace, options.frames);
  if (!trace) return fail(trace.error());
  info.bad_records = trace->bad_records;
  info.guest = std::string(trace->guest->name());
  ModeOptions mode_options;
  vulkan::ExecutorOptions& vulkan = mode_options.vulkan;
  vulkan.device = options.device;
  vulkan.validation = !options.no_validation;
  mode_options.bundle_path = options.bundle;
  mode_options.workers = options.workers != 0 ? options.workers : default_workers();
  mode_options.dynamic_state = !options.no_dynamic_state;
  mode_options.prewarm = !options.no_prewarm;
  mode_options.read_back_pixels = options.compare_pixels;
  mode_options.frame_interval_ms = options.frame_interval_ms;
  info.frame_interval_ms = options.frame_interval_ms;
  uint64_t messages = 0;
  {
    // The device every mode will choose (by the same name), on a context of its own: the report's device
    // fields, and the process warm-up (warm_up_process) before the first mode.
    auto device = VulkanDevice::create(vulkan);
    if (!device) return fail(device.error());
    const vulkan::Context& context = (*device)->context();
    const VkPhysicalDeviceProperties& p = context.properties();
    info.device = p.deviceName;
    info.vendor_id = p.vendorID;
    info.device_id = p.deviceID;
    info.driver_version = p.driverVersion;
    info.validation = context.validation_active();
    if (vulkan.validation && !info.validation)
      std::fprintf(stderr, "warning: VK_LAYER_KHRONOS_validation is not installed: the replay runs without validation\n");
    std::fprintf(stderr, "replay: %s, %zu frames, %zu draws on \"%s\" (%s)\n", options.trace.c_str(), trace->frames.size(),
                 trace->draws.size(), p.deviceName, info.driver_caches.c_str());
    auto warm = warm_up_process((*device)->device());
    if (!warm) return fail(warm.error());
    info.warm_up_ms = *warm;
    auto log = context.message_log();
    device->reset();
    messages += report_validation_messages(*log);
  }

  std::vector<ModeResult> results;
  bool unavailable = false;
  for (Mode mode : modes) {
    std::fprintf(stderr, "replay: mode %s...\n", mode_name(mode));
    // Read back only where the comparison uses it.
    ModeOptions this_mode = mode_options;
    this_mode.read_back_pixels = options.compare_pixels && (mode == Mode::bundle || uses_router(mode));
    auto result = run_mode(mode, *trace, this_mode);
    if (!result) return fail(result.error());
    if (!result->available) {
      std::fprintf(stderr, "warning: mode %s is UNAVAILABLE: %s\n", mode_name(mode), result->unavailable_reason.c_str());
      unavailable = true;
    }
    messages += result->validation_messages;
    results.push_back(std::move(*result));
  }
  uint64_t mismatched = 0;
  if (options.compare_pixels) {
    const auto reference = std::find_if(results.begin(), results.end(), [](const ModeResult& m) { return m.mode == Mode::bundle; });
    for (ModeResult& m : results) {
      if (!uses_router(m.mode) || !m.available) continue;
      m.pixel_comparison = compare_pixels(reference->pixels, m.pixels);
      m.pixels_compared = true;
      mismatched += m.pixel_comparison.mismatched_pixels;
      if (m.pixel_comparison.mismatched_pixels != 0)
        std::fprintf(stderr, "error: mode %s: %llu pixels differ from mode bundle's beyond the tolerance\n", mode_name(m.mode),
                     static_cast<unsigned long long>(m.pixel_comparison.mismatched_pixels));
    }
    for (ModeResult& m : results) m.pixels.clear();  // compared: the report does not carry them
  }
  const std::string report = options.json ? json_report(info, results) : text_report(info, results);
  std::fputs(report.c_str(), stdout);
  if (!options.json_out.empty()) {
    FILE* file = std::fopen(options.json_out.c_str(), "w");
    const std::string json = json_report(info, results);
    if (!file || std::fputs(json.c_str(), file) < 0 || std::fclose(file) != 0) {
      std::fprintf(stderr, "error: %s: cannot write the JSON report\n", options.json_out.c_str());
      return kExitOutput;
    }
  }
  if (messages != 0) std::fprintf(stderr, "error: %llu validation messages (above)\n", static_cast<unsigned long long>(messages));
  return messages != 0 || unavailable || mismatched != 0 ? kExitFailures : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"shaderbake-replay: replay a trace through the runtime header as an emulator would, and report "
               "per-frame first-use stalls with no bundle, a bundle, a bundle plus its driver cache, and the runtime "
               "router over the bundle"};
  Options options;
  app.add_option("trace", options.trace, "Trace to replay (shaderbake-trace/2 or /1, .jsonl or .json)")->required();
  app.add_option("--bundle", options.bundle, "Bundle to serve states from (shaderbake build; warmed for bundle+cache)");
  app.add_option("--mode", options.mode,
                 "none | bundle | bundle+cache | hybrid | hybrid+cache | all (the five, one after another), or a "
                 "comma-separated list")
      ->capture_default_str();
  app.add_option("--workers", options.workers,
                 "Router modes: worker threads of the router's thread pool (default 8, at most the hardware threads "
                 "less one; 1-64)")
      ->check(CLI::Range(1u, kMaxWorkers));
  app.add_flag("--no-dynamic-state", options.no_dynamic_state,
               "Router modes: serve fallbacks with the bundle's per-host-state fallback pipelines even where the device "
               "supports the dynamic-state fallback");
  app.add_flag("--no-prewarm", options.no_prewarm,
               "Router modes: create exact pipelines only when a draw asks for them, not ahead in the bundle's order");
  app.add_flag("--compare-pixels", options.compare_pixels,
               "Read every frame's colour targets back in modes bundle and hybrid(+cache) and fail (exit 1) where a "
               "router mode's pixel differs from bundle's by more than 1 in a channel");
  app.add_option("--frame-interval-ms", options.frame_interval_ms,
                 "Pace the frames: frame n starts no earlier than n x MS after frame 0, as a game at a fixed rate "
                 "(16.667: 60 Hz); 0, the default, replays as fast as frames go. Stall figures count work only "
                 "either way; the router's promotions and prewarm get the wall-clock time a game would give them")
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--device", options.device,
                 "Vulkan device whose name contains SUBSTRING, case-insensitive (default: lavapipe, else the first)");
  app.add_flag("--json", options.json, "Print the report as one JSON object");
  app.add_option("--json-out", options.json_out, "Also write the JSON report to FILE (the text report stays on stdout)");
  app.add_flag("--per-frame", options.per_frame, "In the JSON report: every frame's first-use and submit times too");
  app.add_option("--frames", options.frames, "Replay only the first N frames (0: all)");
  app.add_flag("--no-validation", options.no_validation,
               "Do not enable the validation layer (it slows pipeline creation; for timing runs)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  return run(options);
}

// SPDX-License-Identifier: MIT
// shaderbake-replay: replays a trace frame by frame on a Vulkan device the way an emulator meets its guest's
// states, with no bundle, with a bundle, and with a bundle plus its driver cache, and reports the first-use
// stalls of each (samples/replay/README.md).
//
// Exit codes, as the shaderbake CLI's: 0 every requested mode ran with zero validation messages; 1 a
// validation message was reported or a requested mode was unavailable (bundle+cache without a driver cache for
// this device); 2 usage (or an unreadable bundle file); 3 bad input (trace or bundle); 4 Vulkan device or
// toolchain; 5 the --json-out file cannot be written.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
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
};

int run(const Options& options) {
  // "all", or a comma-separated list of modes, run in the order given.
  std::vector<Mode> modes;
  bool needs_bundle = false;
  if (options.mode == "all") {
    modes = {Mode::none, Mode::bundle, Mode::bundle_cache};
  } else {
    size_t at = 0;
    while (at <= options.mode.size()) {
      const size_t comma = std::min(options.mode.find(',', at), options.mode.size());
      const std::string name = options.mode.substr(at, comma - at);
      const Mode known[] = {Mode::none, Mode::bundle, Mode::bundle_cache};
      const Mode* mode = std::find_if(std::begin(known), std::end(known), [&](Mode m) { return name == mode_name(m); });
      if (mode == std::end(known)) {
        std::fprintf(stderr, "error: --mode: unknown mode \"%s\" (none, bundle, bundle+cache, all, or a list: bundle,bundle+cache)\n",
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

  // Before anything loads a driver: a driver reads these when the instance loads it.
  RunInfo info;
  info.driver_caches = set_driver_cache_environment();
  info.trace = options.trace;
  info.bundle = options.bundle;
  info.per_frame = options.per_frame;

  auto trace = load_trace(options.trace, options.frames);
  if (!trace) return fail(trace.error());
  info.bad_records = trace->bad_records;
  vulkan::ExecutorOptions vulkan;
  vulkan.device = options.device;
  vulkan.validation = !options.no_validation;
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
    auto result = run_mode(mode, *trace, vulkan, options.bundle);
    if (!result) return fail(result.error());
    if (!result->available) {
      std::fprintf(stderr, "warning: mode %s is UNAVAILABLE: %s\n", mode_name(mode), result->unavailable_reason.c_str());
      unavailable = true;
    }
    messages += result->validation_messages;
    results.push_back(std::move(*result));
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
  return messages != 0 || unavailable ? kExitFailures : kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"shaderbake-replay: replay a trace through the runtime header as an emulator would, and report "
               "per-frame first-use stalls with no bundle, a bundle, and a bundle plus its driver cache"};
  Options options;
  app.add_option("trace", options.trace, "Trace to replay (shaderbake-trace/1, .jsonl or .json)")->required();
  app.add_option("--bundle", options.bundle, "Bundle to serve states from (shaderbake build; warmed for bundle+cache)");
  app.add_option("--mode", options.mode,
                 "none | bundle | bundle+cache | all (the three, one after another), or a comma-separated list")
      ->capture_default_str();
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

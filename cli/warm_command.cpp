// SPDX-License-Identifier: MIT
// shaderbake warm: on a machine with the target GPU, create every pipeline of a bundle once and store the
// driver's VkPipelineCache data in the bundle (DRIVER_CACHE, keyed by vendorID, deviceID, driverVersion and
// pipelineCacheUUID); then create them all again from a cache made of the stored blob, to show what it buys.
//
// In order: refuse clashing outputs (exit 2); map the bundle (BundleFile::open: header, file size and section
// table, nothing read into memory; exit 3); bundle::check_before_driver, every check whose failure could
// crash or mislead a driver (exit 3, each problem named, and no Vulkan call has been made); only then open a
// device and create pipelines.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/bundle_opening.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output_paths.hpp"
#include "lib/io/output_file.hpp"
#include "lib/core/hex.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_verify.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/bundle/driver_cache.hpp"
#include "lib/vulkan/bundle_pipelines.hpp"
#include "lib/vulkan/context.hpp"

namespace shaderbake::cli {

namespace {

using nlohmann::ordered_json;

// driverVersion is packed the vendor's way: NVIDIA 10.8.8.6 bits (580.159.04), everyone else as
// VK_MAKE_API_VERSION.
std::string driver_version_text(uint32_t vendor_id, uint32_t v) {
  char text[48];
  if (vendor_id == 0x10de && (v & 0x3f) == 0)
    std::snprintf(text, sizeof text, "%u.%u.%02u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff);
  else if (vendor_id == 0x10de)
    std::snprintf(text, sizeof text, "%u.%u.%02u.%u", v >> 22, (v >> 14) & 0xff, (v >> 6) & 0xff, v & 0x3f);
  else
    std::snprintf(text, sizeof text, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                  VK_API_VERSION_PATCH(v));
  return text;
}

int exit_code_of(const Error& e) {
  switch (e.kind) {
    case ErrorKind::bad_input: return kExitBadInput;
    case ErrorKind::io: return kExitOutput;
    case ErrorKind::toolchain: return kExitToolchain;
    case ErrorKind::internal: return kExitFailures;
  }
  return kExitFailures;
}

// Median, 90th percentile and maximum of the created pipelines' creation times.
ordered_json timing_json(const vulkan::BundlePipelines& run) {
  std::vector<double> times;
  for (const auto& p : run.pipelines)
    if (p.created) times.push_back(p.create_ms);
  std::sort(times.begin(), times.end());
  const double p90 = times.empty() ? 0 : times[std::min(times.size() - 1, (times.size() * 9) / 10)];
  return {{"created", run.created},
          {"failed", run.failed},
          {"total_ms", run.total_create_ms},
          {"median_ms", run.median_create_ms()},
          {"p90_ms", p90},
          {"max_ms", times.empty() ? 0.0 : times.back()},
          {"wall_ms", run.wall_ms}};
}

// One failure line per pipeline that was not created, naming its entry and key hash.
ordered_json failures_json(const sbk_bundle& bundle, const vulkan::BundlePipelines& run) {
  ordered_json out = ordered_json::array();
  for (const auto& p : run.pipelines) {
    if (p.created) continue;
    sbk_entry e;
    const std::string hash =
        sbk_bundle_entry_at(&bundle, p.entry, &e) == SBK_OK ? KeyHash::of(bundle::entry_key(bundle, e)).to_hex() : "";
    out.push_back({{"entry", p.entry}, {"key_hash", hash}, {"error", p.error}});
  }
  return out;
}

struct Pass {
  std::unique_ptr<vulkan::Context> context;
  vulkan::BundlePipelines pipelines;
};

// Opens the device and creates every pipeline through a cache made of `initial_data` (empty: a cold cache).
// When `data_out` is set, it receives the cache's data afterwards.
Result<Pass> run_pass(const sbk_bundle& bundle, const WarmOptions& options, std::span<const uint8_t> initial_data,
                      std::vector<uint8_t>* data_out) {
  vulkan::ExecutorOptions executor;
  executor.device = options.device;
  executor.validation = options.validate;
  vulkan::DeviceFeatures features;
  features.dynamic_rendering = true;
  features.fill_mode_non_solid = true;
  auto context = vulkan::Context::create(executor, features);
  if (!context) return std::move(context).error();
  Pass pass;
  pass.context = std::move(*context);
  auto cache = vulkan::create_pipeline_cache(*pass.context, initial_data);
  if (!cache) return std::move(cache).error();
  auto pipelines = vulkan::create_bundle_pipelines(bundle, *pass.context, cache->get());
  if (!pipelines) return std::move(pipelines).error();
  pass.pipelines = std::move(*pipelines);
  if (data_out) {
    auto data = vulkan::pipeline_cache_data(*pass.context, cache->get());
    if (!data) return std::move(data).error();
    *data_out = std::move(*data);
  }
  return pass;
}

}  // namespace

int run_warm(const WarmOptions& options, const GuestCatalog& guests) {
  // -o names another file; warming in place is leaving -o out.
  if (const int code = refuse_clashing_outputs({{"bundle", options.bundle}}, {{"-o", options.output}}); code != kExitOk)
    return code;
  const std::string output = options.output.empty() ? options.bundle : options.output;
  // Under --json, main prints the JSON error object with the last error line's message.
  auto fail = [](const Error& e, int code) {
    print_error(e.to_string());
    return code;
  };

  // ---- the bundle: mapped, then every check a driver relies on, before any Vulkan call ----
  // Mapping costs address space, not memory: a file of any size is refused by its header (magic, the size it
  // states against the file's) without being read.
  auto opened = open_guest_bundle(options.bundle, guests);
  if (!opened) {
    print_error(opened.error().to_string() + " (run 'shaderbake verify' on it)");
    return kExitBadInput;
  }
  const bundle::BundleFile* file = &opened->file;
  const sbk_bundle& bundle = file->handle();
  const std::vector<bundle::VerifyCheck> checks = bundle::check_before_driver(bundle);
  if (!bundle::all_passed(checks)) {
    size_t problems = 0;
    std::string first;
    for (const auto& c : checks)
      for (const auto& f : c.failures) {
        if (problems++ == 0) first = c.name + ": " + f;
        print_error(options.bundle + ": " + c.name + ": " + f);
      }
    print_error(options.bundle + ": refused before any Vulkan device was opened: " + first +
                (problems > 1 ? " (" + std::to_string(problems - 1) + " more problems above)" : std::string()) +
                "; run 'shaderbake verify' on it, and rebuild it");
    return kExitBadInput;
  }
  // Before any Vulkan call: the drivers' own disk caches would make "cold" warm and flatter the blob.
  vulkan::disable_driver_disk_caches();

  // ---- pass 1: every pipeline into an empty cache ----
  std::vector<uint8_t> cache_data;
  auto cold = run_pass(bundle, options, {}, &cache_data);
  if (!cold) return fail(cold.error(), cold.error().kind == ErrorKind::toolchain ? kExitToolchain : kExitFailures);
  const VkPhysicalDeviceProperties properties = cold->context->properties();
  bundle::DriverCacheBlob blob;
  blob.identity.vendor_id = properties.vendorID;
  blob.identity.device_id = properties.deviceID;
  blob.identity.driver_version = properties.driverVersion;
  std::copy(std::begin(properties.pipelineCacheUUID), std::end(properties.pipelineCacheUUID),
            blob.identity.pipeline_cache_uuid.begin());
  blob.data = std::move(cache_data);
  const std::string device_name = cold->context->device_name();
  const bool validation = cold->context->validation_active();
  std::vector<std::string> messages = cold->context->validation_messages();
  cold->context.reset();  // the second pass gets a device of its own: nothing of this one can help it

  const void* previous_blob = nullptr;
  size_t previous_size = 0;
  const bool replaced = sbk_bundle_driver_cache(&bundle, blob.identity.vendor_id, blob.identity.device_id,
                                                blob.identity.driver_version, blob.identity.pipeline_cache_uuid.data(),
                                                &previous_blob, &previous_size) == SBK_OK;
  // The new bundle is assembled in memory (the write path takes whole bytes): the one copy of the file warm
  // makes, after every check passed.
  std::optional<Result<std::vector<uint8_t>>> assembled;
  try {
    assembled.emplace(bundle::with_driver_cache(file->bytes(), blob));
  } catch (const std::bad_alloc&) {
    return fail(Error{ErrorKind::io, "out_of_memory",
                      "not enough memory to assemble the warmed bundle (" + std::to_string(file->size()) +
                          " bytes and the blob)",
                      {output, 0, 0, {}}},
                kExitOutput);
  }
  auto& warmed = *assembled;
  if (!warmed) return fail(warmed.error(), exit_code_of(warmed.error()));
  if (Status written = io::write_output(output, *warmed); !written)
    return fail(written.error(), kExitOutput);

  // ---- pass 2 (control): a fresh device and an empty cache again ----
  // What a second creation in this process costs without the blob: whatever the process or the driver kept
  // from pass 1 (JIT warm-up, an in-process shader cache) shows here, and is not credited to the blob.
  auto pass_failed = [&](const Error& e) { return fail(e, e.kind == ErrorKind::toolchain ? kExitToolchain : kExitFailures); };
  std::optional<vulkan::BundlePipelines> control;
  if (!options.no_control) {
    auto again = run_pass(bundle, options, {}, nullptr);
    if (!again) return pass_failed(again.error());
    const auto& more = again->context->validation_messages();
    messages.insert(messages.end(), more.begin(), more.end());
    again->context.reset();
    control = std::move(again->pipelines);
  }

  // ---- pass 3: a fresh device, a cache made of the blob as a renderer gets it from the written bundle ----
  sbk_bundle warm_bundle;
  const void* stored = nullptr;
  size_t stored_size = 0;
  sbk_result r = sbk_bundle_open_memory(&warm_bundle, warmed->data(), warmed->size());
  if (r == SBK_OK)
    r = sbk_bundle_driver_cache(&warm_bundle, blob.identity.vendor_id, blob.identity.device_id,
                                blob.identity.driver_version, blob.identity.pipeline_cache_uuid.data(), &stored,
                                &stored_size);
  if (r != SBK_OK)
    return fail(Error{ErrorKind::internal, "driver_cache_lost",
                      std::string("the written bundle does not give the blob back: ") + sbk_result_name(r),
                      {output, 0, 0, {}}},
                kExitFailures);
  auto cached = run_pass(warm_bundle, options, {static_cast<const uint8_t*>(stored), stored_size}, nullptr);
  if (!cached) return pass_failed(cached.error());
  const auto& more = cached->context->validation_messages();
  messages.insert(messages.end(), more.begin(), more.end());
  cached->context.reset();

  uint32_t caches_in_bundle = 0;
  {
    uint64_t size = 0;
    const uint8_t* section = sbk_bundle_section(&warm_bundle, SBK_SECTION_DRIVER_CACHE, &size);
    if (section) caches_in_bundle = static_cast<uint32_t>(bundle::read_driver_cache_section({section, size}).entries.size());
  }
  const auto& cold_run = cold->pipelines;
  const auto& cached_run = cached->pipelines;
  // The blob is judged against the control pass when there is one: both ran after pass 1, on fresh devices.
  const double cold_median = (control ? *control : cold_run).median_create_ms();
  const double cached_median = cached_run.median_create_ms();
  // The total too: on a driver that keeps compiled shaders per device, pipelines that differ from an earlier one
  // only in fixed-function state are cheap even cold, and the median hides the ones that compile.
  const double cold_total = (control ? *control : cold_run).total_create_ms;
  const double cached_total = cached_run.total_create_ms;
  const bool ok = cold_run.failed == 0 && cached_run.failed == 0 && (!control || control->failed == 0) &&
                  messages.empty();

  ordered_json out;
  out["bundle"] = options.bundle;
  out["output"] = output;
  out["device"] = {{"name", device_name},
                   {"vendor_id", blob.identity.vendor_id},
                   {"device_id", blob.identity.device_id},
                   {"driver_version", blob.identity.driver_version},
                   {"driver_version_text", driver_version_text(blob.identity.vendor_id, blob.identity.driver_version)},
                   {"pipeline_cache_uuid", hex_bytes(blob.identity.pipeline_cache_uuid)}};
  out["validation_layer"] = validation;
  out["validation_messages"] = messages;
  out["pipelines"] = cold_run.pipelines.size();
  out["modules"] = cold_run.modules;
  out["layouts"] = cold_run.layouts;
  out["cold"] = timing_json(cold_run);
  out["cold"]["failures"] = failures_json(bundle, cold_run);
  out["blob_bytes"] = blob.data.size();
  out["replaced"] = replaced;
  out["driver_caches_in_bundle"] = caches_in_bundle;
  out["bundle_bytes"] = warmed->size();
  if (control) {
    out["cold_again"] = timing_json(*control);
    out["cold_again"]["failures"] = failures_json(bundle, *control);
  } else {
    out["cold_again"] = nullptr;
  }
  out["cached"] = timing_json(cached_run);
  out["cached"]["failures"] = failures_json(warm_bundle, cached_run);
  out["median_speedup"] = cached_median > 0 ? cold_median / cached_median : 0.0;
  out["total_speedup"] = cached_total > 0 ? cold_total / cached_total : 0.0;
  out["ok"] = ok;

  for (const auto& m : messages) print_error("validation: " + m);
  for (const char* pass : {"cold", "cold_again", "cached"}) {
    if (out[pass].is_null()) continue;
    for (const auto& f : out[pass]["failures"])
      print_error(options.bundle + ": pipeline entry " + f["entry"].dump() + " (key " + f["key_hash"].get<std::string>() +
                  "): " + f["error"].get<std::string>());
  }
  if (options.json) {
    print_json(out);
  } else {
    std::printf("device: %s (vendor %s, device %s, driver %s = %s, pipelineCacheUUID %s)%s\n", device_name.c_str(),
                hex_word(blob.identity.vendor_id).c_str(), hex_word(blob.identity.device_id).c_str(),
                driver_version_text(blob.identity.vendor_id, blob.identity.driver_version).c_str(),
                hex_word(blob.identity.driver_version).c_str(), hex_bytes(blob.identity.pipeline_cache_uuid).c_str(),
                validation ? " with VK_LAYER_KHRONOS_validation" : "");
    auto line = [](const char* label, const ordered_json& t, size_t total) {
      std::printf("%s: %s of %zu pipelines created, %s failed; pipeline creation %.1f ms in all, "
                  "median %.3f ms, p90 %.3f ms, max %.3f ms\n",
                  label, t["created"].dump().c_str(), total, t["failed"].dump().c_str(), t["total_ms"].get<double>(),
                  t["median_ms"].get<double>(), t["p90_ms"].get<double>(), t["max_ms"].get<double>());
    };
    line("cold (empty cache)", out["cold"], cold_run.pipelines.size());
    std::printf("driver cache: %zu bytes, %s %s (%u device%s in the bundle, %zu bytes)\n", blob.data.size(),
                replaced ? "replaced the blob of this device in" : "added to", escape_controls(output).c_str(), caches_in_bundle,
                caches_in_bundle == 1 ? "" : "s", warmed->size());
    if (control) line("cold again (fresh device, empty cache)", out["cold_again"], control->pipelines.size());
    line("with the stored blob (fresh device)", out["cached"], cached_run.pipelines.size());
    if (cached_median > 0 && cached_total > 0)
      std::printf("median per pipeline: cold%s %.3f ms, with the blob %.3f ms (%.1fx); all pipelines: %.1f ms, "
                  "with the blob %.1f ms (%.1fx)\n",
                  control ? " again" : "", cold_median, cached_median, cold_median / cached_median, cold_total,
                  cached_total, cold_total / cached_total);
  }
  return ok ? kExitOk : kExitFailures;
}

}  // namespace shaderbake::cli

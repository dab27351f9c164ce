// SPDX-License-Identifier: MIT
#include "samples/replay/replay_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <numeric>

namespace shaderbake::replay {

namespace {

// Nearest rank: the smallest value with at least p% of the values at or below it.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t index = static_cast<size_t>(std::clamp(rank, 1.0, static_cast<double>(sorted.size()))) - 1;
  return sorted[index];
}

uint64_t stalls_over(const std::vector<double>& frames, double threshold_ms) {
  return static_cast<uint64_t>(std::count_if(frames.begin(), frames.end(), [&](double ms) { return ms > threshold_ms; }));
}

std::string threshold_name(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "over_%gms", ms);
  std::string name = text;
  std::replace(name.begin(), name.end(), '.', '_');
  return name;  // over_1ms, over_4ms, over_16_7ms
}

std::string format(const char* spec, double value) {
  char text[64];
  std::snprintf(text, sizeof text, spec, value);
  return text;
}

// A figure in few characters: two decimals below 10, one below 100, none above.
std::string compact(double value) { return format(value < 10 ? "%.2f" : value < 100 ? "%.1f" : "%.0f", value); }

nlohmann::ordered_json distribution_json(const Distribution& d) {
  return {{"p50", d.p50}, {"p99", d.p99}, {"p99_9", d.p99_9}, {"max", d.max}, {"mean", d.mean}};
}

nlohmann::ordered_json spread_json(const std::vector<double>& values) {
  const Distribution d = distribution(values);
  return {{"p50", d.p50}, {"p99", d.p99}, {"max", d.max}};
}

nlohmann::ordered_json router_json(const ModeResult& m) {
  const ModeResult::RouterFigures& r = m.router;
  const uint64_t demanded = r.ready_at_demand + r.not_ready_at_demand;
  std::vector<double> frames(r.promotion_frames.begin(), r.promotion_frames.end());
  nlohmann::ordered_json o;
  o["workers"] = r.workers;
  o["dynamic_state_supported"] = r.dynamic_state_supported;
  o["dynamic_state"] = r.dynamic_state;
  o["prewarm"] = r.prewarm;
  o["load_ms"] = r.router_load_ms;
  o["load_failures"] = r.load_failures;
  o["ready_at_demand"] = r.ready_at_demand;
  o["not_ready_at_demand"] = r.not_ready_at_demand;
  o["ready_before_demand_ratio"] =
      demanded ? nlohmann::ordered_json(static_cast<double>(r.ready_at_demand) / static_cast<double>(demanded))
               : nlohmann::ordered_json();
  o["promotions"] = {{"count", r.promotion_frames.size()}, {"frames", spread_json(frames)}, {"ms", spread_json(r.promotion_ms)}};
  o["first_drawn_on_fallback"] = {{"promoted", r.on_fallback_promoted},
                                  {"waiting_at_end", r.on_fallback_waiting},
                                  {"no_exact_pipeline", r.on_fallback_no_exact},
                                  {"failed", r.on_fallback_failed}};
  o["adopted"] = r.adopted;
  o["foreground_creations"] = r.foreground_creations;
  o["queue_full"] = r.queue_full;
  o["executor_refused"] = r.executor_refused;
  o["failed_attempts"] = r.failed_attempts;
  o["failed_permanently"] = r.failed_permanently;
  o["duplicates"] = r.duplicates;
  o["corrupt"] = r.corrupt;
  o["worker_cpu_ms"] = {{"load", r.worker_cpu_ms_load}, {"frames", r.worker_cpu_ms_frames}};
  o["frame_router_ms"] = distribution_json(distribution(r.frame_router_ms));
  return o;
}

nlohmann::ordered_json pixels_json(const ModeResult& m) {
  const PixelComparison& p = m.pixel_comparison;
  return {{"compared_with", "bundle"},
          {"tolerance_lsb", kPixelToleranceLsb},
          {"frames_compared", p.frames_compared},
          {"frames_not_comparable", p.frames_not_comparable},
          {"images_compared", p.images_compared},
          {"images_not_read", m.images_not_read},
          {"texels_drawn", p.texels_drawn},
          {"mismatched_pixels", p.mismatched_pixels},
          {"mismatched_frames", p.mismatched_frames},
          {"first_mismatch_frame",
           p.first_mismatch_frame < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(p.first_mismatch_frame)},
          {"max_difference", p.max_difference}};
}

nlohmann::ordered_json work_json(const RouteWork& w) {
  return {{"first_uses", w.first_uses}, {"shader_compiles", w.shader_compiles},
          {"pipelines_created", w.pipelines_created}, {"ms", w.ms}};
}

}  // namespace

Distribution distribution(std::vector<double> values) {
  Distribution d;
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  d.p50 = percentile(values, 50);
  d.p99 = percentile(values, 99);
  d.p99_9 = percentile(values, 99.9);
  d.max = values.back();
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return d;
}

std::string text_report(const RunInfo& info, const std::vector<ModeResult>& modes) {
  std::string out;
  char line[512];
  const ModeResult* any = modes.empty() ? nullptr : &modes.front();
  std::snprintf(line, sizeof line, "trace: %s (guest %s, %llu frames, %llu draws%s)\n", info.trace.c_str(),
                info.guest.c_str(),
                any ? static_cast<unsigned long long>(any->frames) : 0ull,
                any ? static_cast<unsigned long long>(any->draws) : 0ull,
                info.bad_records ? (", " + std::to_string(info.bad_records) + " bad records skipped").c_str() : "");
  out += line;
  if (!info.bundle.empty()) out += "bundle: " + info.bundle + "\n";
  std::snprintf(line, sizeof line, "device: %s (vendor 0x%04x, device 0x%04x, driver 0x%08x); validation layer %s\n",
                info.device.c_str(), info.vendor_id, info.device_id, info.driver_version, info.validation ? "on" : "off");
  out += line;
  out += info.driver_caches + "; shader modules salted per mode (except the +cache modes, and the router's own, "
         "which it creates as the bundle stores them) so no in-process driver cache carries over; process warm-up " +
         format("%.1f", info.warm_up_ms) + " ms before the first mode\n";
  out += info.frame_interval_ms > 0 ? "frames paced: one every " + format("%.3f", info.frame_interval_ms) + " ms\n\n"
                                    : std::string("frames not paced: each starts when the one before is done\n\n");

  // One row: a label and a value per mode ("-" for an unavailable mode).
  auto row = [&](const std::string& label, const std::function<std::string(const ModeResult&)>& value) {
    std::snprintf(line, sizeof line, "%-36s", label.c_str());
    out += line;
    for (const ModeResult& m : modes) {
      std::snprintf(line, sizeof line, " %14s", m.available ? value(m).c_str() : "-");
      out += line;
    }
    out += "\n";
  };
  auto count = [](uint64_t n) { return std::to_string(n); };
  auto ms = [](double v) { return format("%.2f", v); };

  std::snprintf(line, sizeof line, "%-36s", "mode");
  out += line;
  for (const ModeResult& m : modes) {
    std::snprintf(line, sizeof line, " %14s", (std::string(mode_name(m.mode)) + (m.available ? "" : " (n/a)")).c_str());
    out += line;
  }
  out += "\n";
  row("pipeline cache at start", [](const ModeResult& m) {
    if (m.driver_cache_bytes == 0) return m.pipeline_cache;
    return m.driver_cache_bytes < 10240 ? "blob " + std::to_string(m.driver_cache_bytes) + " B"
                                        : format("blob %.0f KiB", static_cast<double>(m.driver_cache_bytes) / 1024.0);
  });
  row("load ms (before frame 1, not a stall)", [&](const ModeResult& m) { return ms(m.load_ms); });
  row("  fallback pipelines created at load", [&](const ModeResult& m) { return count(m.load_fallback_pipelines); });
  row("draws", [&](const ModeResult& m) { return count(m.draws); });
  row("frames", [&](const ModeResult& m) { return count(m.frames); });
  row("first uses", [&](const ModeResult& m) { return count(m.first_uses()); });
  row("routes: reused", [&](const ModeResult& m) { return count(m.reused); });
  row("  exact: created now / router-ready", [&](const ModeResult& m) { return count(m.exact.first_uses); });
  row("  fallback: pre-created + packet", [&](const ModeResult& m) { return count(m.fallback.first_uses); });
  row("  dynamic fallback: + packet + state", [&](const ModeResult& m) { return count(m.dynamic_fallback.first_uses); });
  row("  uncovered: compiled now", [&](const ModeResult& m) { return count(m.uncovered.first_uses - m.uncovered_failed); });
  row("  uncovered: cannot generate", [&](const ModeResult& m) { return count(m.uncovered_failed); });
  row("draws by route: exact", [&](const ModeResult& m) { return count(m.draws_exact); });
  row("  fallback", [&](const ModeResult& m) { return count(m.draws_fallback); });
  row("  dynamic fallback", [&](const ModeResult& m) { return count(m.draws_dynamic_fallback); });
  row("  uncovered", [&](const ModeResult& m) { return count(m.draws_uncovered); });
  row("  skipped (nothing to draw with)", [&](const ModeResult& m) { return count(m.draws_skipped); });
  row("shader compiles at first use", [&](const ModeResult& m) {
    return count(m.exact.shader_compiles + m.fallback.shader_compiles + m.uncovered.shader_compiles);
  });
  row("  on the fallback route", [&](const ModeResult& m) { return count(m.fallback.shader_compiles); });
  row("pipelines created at first use", [&](const ModeResult& m) {
    return count(m.exact.pipelines_created + m.fallback.pipelines_created + m.uncovered.pipelines_created);
  });
  row("  on the fallback routes", [&](const ModeResult& m) {
    return count(m.fallback.pipelines_created + m.dynamic_fallback.pipelines_created);
  });
  row("pipelines: at load", [&](const ModeResult& m) { return count(m.pipelines_at_load); });
  row("  render thread, during frames", [&](const ModeResult& m) { return count(m.pipelines_render_thread); });
  row("  workers, during frames", [&](const ModeResult& m) { return count(m.pipelines_workers); });
  row("first-use work, total ms", [&](const ModeResult& m) {
    return ms(m.exact.ms + m.fallback.ms + m.dynamic_fallback.ms + m.uncovered.ms);
  });
  row("  exact / fallbacks / uncovered ms", [&](const ModeResult& m) {
    return format("%.0f/", m.exact.ms) + format("%.1f/", m.fallback.ms + m.dynamic_fallback.ms) + format("%.0f", m.uncovered.ms);
  });
  row("slowest single first use ms", [&](const ModeResult& m) { return ms(m.slowest_first_use_ms); });
  const struct {
    const char* label;
    double Distribution::*field;
  } kStats[] = {{"frame first-use stall ms  p50", &Distribution::p50},
                {"                          p99", &Distribution::p99},
                {"                          p99.9", &Distribution::p99_9},
                {"                          max", &Distribution::max},
                {"                          mean", &Distribution::mean}};
  for (const auto& stat : kStats)
    row(stat.label, [&](const ModeResult& m) { return format("%.3f", distribution(m.frame_first_use_ms).*stat.field); });
  for (double threshold : kStallThresholdsMs)
    row(format("frames stalled > %g ms", threshold),
        [&](const ModeResult& m) { return count(stalls_over(m.frame_first_use_ms, threshold)); });
  row("frame submit+wait ms  p50", [&](const ModeResult& m) { return ms(distribution(m.frame_submit_ms).p50); });
  row("                      p99", [&](const ModeResult& m) { return ms(distribution(m.frame_submit_ms).p99); });
  row("                      max", [&](const ModeResult& m) { return ms(distribution(m.frame_submit_ms).max); });
  row("fallback draws' GPU ms/frame  p50", [&](const ModeResult& m) {
    return m.frame_fallback_gpu_ms.empty() ? std::string("n/a") : format("%.3f", distribution(m.frame_fallback_gpu_ms).p50);
  });
  row("                              max", [&](const ModeResult& m) {
    return m.frame_fallback_gpu_ms.empty() ? std::string("n/a") : format("%.3f", distribution(m.frame_fallback_gpu_ms).max);
  });
  // The router modes' own figures ("-" in the other modes).
  auto routed = [&](const std::string& label, const std::function<std::string(const ModeResult&)>& value) {
    row(label, [&](const ModeResult& m) { return uses_router(m.mode) ? value(m) : std::string("-"); });
  };
  routed("router: workers", [&](const ModeResult& m) { return count(m.router.workers); });
  routed("  dynamic-state fallback", [&](const ModeResult& m) {
    return std::string(m.router.dynamic_state ? "on" : "off") + (m.router.dynamic_state_supported ? "" : " (n/s)");
  });
  routed("  prewarm", [&](const ModeResult& m) { return std::string(m.router.prewarm ? "on" : "off"); });
  routed("  router load ms (create + load)", [&](const ModeResult& m) { return ms(m.router.router_load_ms); });
  routed("  ready before demand", [&](const ModeResult& m) {
    const uint64_t demanded = m.router.ready_at_demand + m.router.not_ready_at_demand;
    return count(m.router.ready_at_demand) + "/" + count(demanded);
  });
  routed("  promotions", [&](const ModeResult& m) { return count(m.router.promotion_frames.size()); });
  routed("  promotion frames p50/p99/max", [&](const ModeResult& m) {
    const Distribution d = distribution(std::vector<double>(m.router.promotion_frames.begin(), m.router.promotion_frames.end()));
    return format("%.0f/", d.p50) + format("%.0f/", d.p99) + format("%.0f", d.max);
  });
  routed("  promotion ms p50/p99/max", [&](const ModeResult& m) {
    const Distribution d = distribution(m.router.promotion_ms);
    return compact(d.p50) + "/" + compact(d.p99) + "/" + compact(d.max);
  });
  routed("  on fallback at end: waiting", [&](const ModeResult& m) { return count(m.router.on_fallback_waiting); });
  routed("  on fallback for good (no exact)", [&](const ModeResult& m) { return count(m.router.on_fallback_no_exact); });
  routed("  foreground creations", [&](const ModeResult& m) { return count(m.router.foreground_creations); });
  routed("  worker CPU ms load / frames", [&](const ModeResult& m) {
    return format("%.0f/", m.router.worker_cpu_ms_load) + format("%.0f", m.router.worker_cpu_ms_frames);
  });
  routed("  router ms/frame p99 (not first use)", [&](const ModeResult& m) {
    return format("%.3f", distribution(m.router.frame_router_ms).p99);
  });
  routed("pixels vs bundle: frames compared", [&](const ModeResult& m) {
    return m.pixels_compared ? count(m.pixel_comparison.frames_compared) : std::string("-");
  });
  routed("  texels drawn (not clear colour)", [&](const ModeResult& m) {
    return m.pixels_compared ? count(m.pixel_comparison.texels_drawn) : std::string("-");
  });
  routed("  mismatched pixels", [&](const ModeResult& m) {
    return m.pixels_compared ? count(m.pixel_comparison.mismatched_pixels) : std::string("-");
  });
  routed("  max channel difference", [&](const ModeResult& m) {
    return m.pixels_compared ? count(m.pixel_comparison.max_difference) : std::string("-");
  });
  row("validation messages", [&](const ModeResult& m) { return count(m.validation_messages); });
  for (const ModeResult& m : modes)
    if (!m.available) out += std::string("\nmode ") + mode_name(m.mode) + " UNAVAILABLE: " + m.unavailable_reason + "\n";
  for (const ModeResult& m : modes)
    if (m.pixels_compared && m.pixel_comparison.mismatched_pixels != 0)
      out += std::string("\nmode ") + mode_name(m.mode) + " PIXELS DIFFER from mode bundle: " +
             std::to_string(m.pixel_comparison.mismatched_pixels) + " pixels in " +
             std::to_string(m.pixel_comparison.mismatched_frames) + " frames, first frame " +
             std::to_string(m.pixel_comparison.first_mismatch_frame) + ", largest channel difference " +
             std::to_string(m.pixel_comparison.max_difference) + " (tolerance " + std::to_string(kPixelToleranceLsb) + ")\n";
  return out;
}

std::string json_report(const RunInfo& info, const std::vector<ModeResult>& modes) {
  nlohmann::ordered_json j;
  j["format"] = "shaderbake-replay/1";
  j["trace"] = info.trace;
  j["guest"] = info.guest;
  j["bundle"] = info.bundle.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(info.bundle);
  j["device"] = {{"name", info.device},
                 {"vendor_id", info.vendor_id},
                 {"device_id", info.device_id},
                 {"driver_version", info.driver_version}};
  j["validation_layer"] = info.validation;
  j["driver_caches"] = info.driver_caches;
  j["modules_salted_per_mode"] = true;
  j["warm_up_ms"] = info.warm_up_ms;
  j["frame_interval_ms"] = info.frame_interval_ms > 0 ? nlohmann::ordered_json(info.frame_interval_ms) : nlohmann::ordered_json();
  j["bad_records"] = info.bad_records;
  j["stall_thresholds_ms"] = std::vector<double>(std::begin(kStallThresholdsMs), std::end(kStallThresholdsMs));
  j["modes"] = nlohmann::ordered_json::array();
  for (const ModeResult& m : modes) {
    nlohmann::ordered_json o;
    o["mode"] = mode_name(m.mode);
    o["available"] = m.available;
    if (!m.available) {
      o["unavailable_reason"] = m.unavailable_reason;
      j["modes"].push_back(o);
      continue;
    }
    o["draws"] = m.draws;
    o["frames"] = m.frames;
    o["first_uses"] = m.first_uses();
    o["routes"] = {{"reused", m.reused},
                   {"exact_created", m.exact.first_uses},
                   {"fallback", m.fallback.first_uses},
                   {"dynamic_fallback", m.dynamic_fallback.first_uses},
                   {"uncovered_compiled", m.uncovered.first_uses - m.uncovered_failed},
                   {"uncovered_failed", m.uncovered_failed}};
    o["first_use_work"] = {{"exact", work_json(m.exact)},
                           {"fallback", work_json(m.fallback)},
                           {"dynamic_fallback", work_json(m.dynamic_fallback)},
                           {"uncovered", work_json(m.uncovered)}};
    o["draws_by_route"] = {{"exact", m.draws_exact},
                           {"fallback", m.draws_fallback},
                           {"dynamic_fallback", m.draws_dynamic_fallback},
                           {"uncovered", m.draws_uncovered},
                           {"skipped", m.draws_skipped}};
    o["pipelines_created"] = {{"at_load", m.pipelines_at_load},
                              {"render_thread", m.pipelines_render_thread},
                              {"render_thread_without_fallback", m.foreground_without_fallback},
                              {"workers", m.pipelines_workers}};
    o["load_ms"] = m.load_ms;
    o["load"] = {{"layouts", m.load_layouts},
                 {"fallback_pipelines", m.load_fallback_pipelines},
                 {"pipeline_cache", m.pipeline_cache},
                 {"driver_cache_bytes", m.driver_cache_bytes}};
    o["first_use_ms_total"] = m.exact.ms + m.fallback.ms + m.dynamic_fallback.ms + m.uncovered.ms;
    o["slowest_first_use_ms"] = m.slowest_first_use_ms;
    o["frame_first_use_ms"] = distribution_json(distribution(m.frame_first_use_ms));
    nlohmann::ordered_json stalls;
    for (double threshold : kStallThresholdsMs) stalls[threshold_name(threshold)] = stalls_over(m.frame_first_use_ms, threshold);
    o["stalls"] = stalls;
    o["frame_submit_ms"] = distribution_json(distribution(m.frame_submit_ms));
    if (m.frame_fallback_gpu_ms.empty()) {
      o["fallback_gpu_ms"] = nullptr;  // the queue writes no timestamps
    } else {
      nlohmann::ordered_json gpu = distribution_json(distribution(m.frame_fallback_gpu_ms));
      gpu["total"] = std::accumulate(m.frame_fallback_gpu_ms.begin(), m.frame_fallback_gpu_ms.end(), 0.0);
      o["fallback_gpu_ms"] = gpu;
    }
    o["router"] = uses_router(m.mode) ? router_json(m) : nlohmann::ordered_json();
    o["pixels"] = m.pixels_compared ? pixels_json(m) : nlohmann::ordered_json();
    o["validation_messages"] = m.validation_messages;
    if (info.per_frame) {
      o["per_frame"] = {{"first_use_ms", m.frame_first_use_ms}, {"submit_ms", m.frame_submit_ms}};
      if (!m.frame_fallback_gpu_ms.empty()) o["per_frame"]["fallback_gpu_ms"] = m.frame_fallback_gpu_ms;
      if (uses_router(m.mode)) o["per_frame"]["router_ms"] = m.router.frame_router_ms;
    }
    j["modes"].push_back(o);
  }
  return j.dump(2) + "\n";
}

}  // namespace shaderbake::replay

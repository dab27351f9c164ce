// SPDX-License-Identifier: MIT
// shaderbake inspect: what a bundle holds, and everything about one entry (no GLSL needed: the SPIR-V, its
// reflection, the recipe and the admission result come from the bundle itself).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/bundle_views.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/core/hex.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/driver_cache.hpp"
#include "lib/compile/reflection.hpp"
#include "lib/compile/spirv_tools.hpp"

namespace shaderbake::cli {

namespace {

const char* kind_name(uint32_t kind) {
  switch (kind) {
    case SBK_KEY_KIND_EXACT: return "specialization";
    case SBK_KEY_KIND_FAMILY: return "family";
    case SBK_KEY_KIND_PIPELINE: return "pipeline";
    default: return "unknown";
  }
}

const char* status_name(uint32_t status) {
  switch (status) {
    case SBK_STATUS_READY: return "ready";
    case SBK_STATUS_GENERATION_FAILED: return "generation_failed";
    case SBK_STATUS_COMPILE_FAILED: return "compile_failed";
    default: return "unknown";
  }
}

const char* section_name(uint32_t type) {
  static const char* const kNames[] = {"?", "meta", "index", "records", "modules", "module_data",
                                       "dictionary", "layouts", "report", "driver_cache"};
  return type < SBK_SECTION_TYPE_COUNT ? kNames[type] : "unknown";
}

nlohmann::ordered_json summary_json(const bundle::BundleFile& file) {
  const sbk_bundle& b = file.handle();
  nlohmann::ordered_json out;
  out["path"] = file.path();
  out["bytes"] = file.size();
  out["format"] = std::to_string(SBK_BUNDLE_FORMAT_MAJOR) + "." + std::to_string(sbk_bundle_format_minor(&b));
  out["meta"] = nlohmann::ordered_json::parse(file.meta_json(), nullptr, false);
  uint64_t kinds[4] = {0, 0, 0, 0}, routes[3] = {0, 0, 0}, damaged = 0;
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&b); ++i) {
    sbk_entry e;
    if (sbk_bundle_entry_at(&b, i, &e) != SBK_OK) {
      ++damaged;
      continue;
    }
    ++kinds[e.kind];
    if (e.kind == SBK_KEY_KIND_PIPELINE && e.key_size > 2 && e.key[2] <= 2) ++routes[e.key[2]];
  }
  out["entries"] = {{"total", sbk_bundle_entry_count(&b)},
                    {"specializations", kinds[SBK_KEY_KIND_EXACT]},
                    {"families", kinds[SBK_KEY_KIND_FAMILY]},
                    {"exact_pipelines", routes[SBK_ROUTE_EXACT]},
                    {"fallback_pipelines", routes[SBK_ROUTE_FALLBACK]},
                    {"damaged", damaged}};
  uint64_t raw = 0, compressed = 0;
  for (uint32_t m = 0; m < sbk_bundle_module_count(&b); ++m) {
    sbk_module_info info;
    if (sbk_bundle_module_info(&b, m, &info) != SBK_OK) continue;
    raw += info.raw_size;
    compressed += info.compressed_size;
  }
  uint64_t dictionary = 0;
  (void)sbk_bundle_section(&b, SBK_SECTION_DICTIONARY, &dictionary);
  out["modules"] = {{"count", sbk_bundle_module_count(&b)}, {"raw_bytes", raw}, {"compressed_bytes", compressed},
                    {"dictionary_bytes", dictionary}};
  out["layouts"] = sbk_bundle_layout_count(&b);
  out["sections"] = nlohmann::ordered_json::array();
  for (uint32_t type = 1; type < SBK_SECTION_TYPE_COUNT; ++type) {
    uint64_t size = 0;
    if (sbk_bundle_section(&b, static_cast<sbk_section_type>(type), &size))
      out["sections"].push_back({{"name", section_name(type)}, {"bytes", size}});
  }
  // VkPipelineCache blobs `shaderbake warm` stored, one per device.
  uint64_t driver_cache_size = 0;
  if (const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_DRIVER_CACHE, &driver_cache_size)) {
    const auto read = bundle::read_driver_cache_section({section, driver_cache_size});
    out["driver_caches"] = nlohmann::ordered_json::array();
    for (const auto& e : read.entries)
      out["driver_caches"].push_back({{"vendor_id", e.identity.vendor_id},
                                      {"device_id", e.identity.device_id},
                                      {"driver_version", e.identity.driver_version},
                                      {"pipeline_cache_uuid", hex_bytes(e.identity.pipeline_cache_uuid)},
                                      {"bytes", e.data.size()}});
    if (!read.problems.empty()) out["driver_cache_problems"] = read.problems;
  }
  auto report = file.report_json();
  if (report && !report->empty()) {
    auto j = nlohmann::ordered_json::parse(*report, nullptr, false);
    if (!j.is_discarded()) {
      nlohmann::ordered_json brief;
      for (const char* field : {"draws", "frames", "unique_sources", "vertex_modules", "rejections"})
        if (j.contains(field)) brief[field] = j[field];
      brief["traces"] = j.contains("inputs") ? j["inputs"].size() : 0;
      brief["failures"] = j.contains("failures") ? j["failures"].size() : 0;
      out["report"] = brief;
    }
  }
  return out;
}

nlohmann::ordered_json module_json(const bundle::BundleFile& file, uint32_t module, bool disassemble) {
  nlohmann::ordered_json out;
  out["index"] = module;
  auto words = file.module_words(module);
  if (!words) {
    out["error"] = words.error().message;
    return out;
  }
  out["spirv_bytes"] = words->size() * 4;
  if (auto r = compile::reflect_spirv(*words)) out["reflection"] = reflection_json(*r);
  if (disassemble) {
    auto text = compile::disassemble_spirv(*words);
    out["disassembly"] = text ? *text : "(" + text.error().message + ")";
  }
  return out;
}

nlohmann::ordered_json entry_json(const bundle::BundleFile& file, const sbk_entry& e, bool disassemble) {
  nlohmann::ordered_json out;
  const std::span<const uint8_t> key(e.key, e.key_size);
  out["kind"] = kind_name(e.kind);
  out["key_hash"] = KeyHash::of(key).to_hex();
  out["key"] = hex_bytes(key);
  out["status"] = status_name(e.status);
  if (e.kind == SBK_KEY_KIND_EXACT) {
    sbk_nv2a_program program;
    if (e.key_size == SBK_NV2A_EXACT_KEY_SIZE && sbk_nv2a_decode_exact_key(e.key, &program) == SBK_OK) {
      out["program"] = nv2a_program_json(program);
      const char* where = nullptr;
      const sbk_nv2a_reason reason = sbk_nv2a_admit(&program, &where);
      out["admission"] = reason == SBK_NV2A_OK ? nlohmann::ordered_json{{"admitted", true}}
                                               : nlohmann::ordered_json{{"admitted", false},
                                                                        {"reason", sbk_nv2a_reason_name(reason)},
                                                                        {"where", where ? where : ""}};
      if (reason == SBK_NV2A_OK) {
        uint8_t family[SBK_NV2A_FAMILY_KEY_SIZE];
        sbk_nv2a_encode_family_key(&program, family);
        out["admission"]["family"] = KeyHash::of(family).to_hex();
      }
    }
  }
  if (e.kind == SBK_KEY_KIND_PIPELINE) {
    uint8_t route = 0;
    const uint8_t* fragment_key = nullptr;
    size_t fragment_size = 0;
    sbk_host_state host;
    if (sbk_decode_pipeline_key(e.key, e.key_size, &route, &fragment_key, &fragment_size, &host) == SBK_OK) {
      out["route"] = route == SBK_ROUTE_EXACT ? "exact" : "fallback";
      out["fragment_key"] = KeyHash::of({fragment_key, fragment_size}).to_hex();
      out["host"] = host_state_json(host);
    }
    if (auto layout = file.layout(e.layout)) out["layout"] = layout_json(*layout);
    out["vertex_module"] = module_json(file, e.vertex_module, disassemble);
  }
  if (e.fragment_module != SBK_NO_MODULE) out["fragment_module"] = module_json(file, e.fragment_module, disassemble);
  return out;
}

void print_module(const char* label, const nlohmann::ordered_json& m) {
  std::printf("%s module #%u: %s\n", label, m["index"].get<uint32_t>(),
              m.contains("error") ? m["error"].get<std::string>().c_str()
                                  : (std::to_string(m["spirv_bytes"].get<uint64_t>()) + " bytes of SPIR-V").c_str());
  if (m.contains("reflection")) std::printf("  reflection: %s\n", m["reflection"].dump().c_str());
  if (m.contains("disassembly")) std::printf("%s\n", m["disassembly"].get<std::string>().c_str());
}

}  // namespace

int run_inspect(const InspectOptions& options) {
  auto file = bundle::BundleFile::open(options.bundle);
  if (!file) {
    std::fprintf(stderr, "error: %s\n", file.error().to_string().c_str());
    return kExitBadInput;
  }
  if (options.key.empty() && !options.list) {
    const auto summary = summary_json(*file);
    if (options.json) {
      std::printf("%s\n", summary.dump(2).c_str());
      return kExitOk;
    }
    const auto& meta = summary["meta"];
    const auto& entries = summary["entries"];
    const auto& modules = summary["modules"];
    std::printf("%s: shaderbake bundle %s, %llu bytes\n", options.bundle.c_str(), summary["format"].get<std::string>().c_str(),
                static_cast<unsigned long long>(file->size()));
    if (meta.is_object()) {
      std::printf("guest %s, key schema %s\n", meta.value("guest", "?").c_str(), meta["key_schema"].dump().c_str());
      std::printf("toolchain: %s\n", meta.value("toolchain", "?").c_str());
      if (meta.contains("generators")) std::printf("generators: %s\n", meta["generators"].dump().c_str());
    }
    std::printf("entries: %s specializations, %s families, %s exact + %s fallback pipelines%s\n",
                entries["specializations"].dump().c_str(), entries["families"].dump().c_str(),
                entries["exact_pipelines"].dump().c_str(), entries["fallback_pipelines"].dump().c_str(),
                entries["damaged"].get<uint64_t>() ? (", " + entries["damaged"].dump() + " DAMAGED").c_str() : "");
    std::printf("modules: %s (SPIR-V %s bytes -> %s compressed + %s dictionary), %s layouts\n",
                modules["count"].dump().c_str(), modules["raw_bytes"].dump().c_str(),
                modules["compressed_bytes"].dump().c_str(), modules["dictionary_bytes"].dump().c_str(),
                summary["layouts"].dump().c_str());
    std::printf("sections:");
    for (const auto& s : summary["sections"])
      std::printf(" %s %s", s["name"].get<std::string>().c_str(), s["bytes"].dump().c_str());
    std::printf("\n");
    if (summary.contains("report")) std::printf("report: %s\n", summary["report"].dump().c_str());
    if (summary.contains("driver_caches")) {
      std::printf("driver caches: %zu\n", summary["driver_caches"].size());
      for (const auto& c : summary["driver_caches"])
        std::printf("  vendor 0x%04x device 0x%04x driver 0x%08x uuid %s: %s bytes\n", c["vendor_id"].get<uint32_t>(),
                    c["device_id"].get<uint32_t>(), c["driver_version"].get<uint32_t>(),
                    c["pipeline_cache_uuid"].get<std::string>().c_str(), c["bytes"].dump().c_str());
      if (summary.contains("driver_cache_problems"))
        for (const auto& p : summary["driver_cache_problems"])
          std::fprintf(stderr, "warning: %s: %s (run 'shaderbake verify')\n", options.bundle.c_str(),
                       p.get<std::string>().c_str());
    }
    return kExitOk;
  }
  if (options.list) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < sbk_bundle_entry_count(&file->handle()); ++i) {
      auto e = file->entry(i);
      if (!e) {
        std::fprintf(stderr, "error: %s\n", e.error().to_string().c_str());
        continue;
      }
      const std::string hash = KeyHash::of({e->key, e->key_size}).to_hex();
      const char* route = e->kind == SBK_KEY_KIND_PIPELINE ? (e->key[2] == SBK_ROUTE_EXACT ? "exact" : "fallback") : "";
      if (options.json) list.push_back({{"kind", kind_name(e->kind)}, {"key_hash", hash}, {"status", status_name(e->status)}});
      else std::printf("%s %s %s %s\n", hash.c_str(), kind_name(e->kind), route, status_name(e->status));
    }
    if (options.json) std::printf("%s\n", list.dump(2).c_str());
    return kExitOk;
  }
  const auto matches = file->find_by_hex(options.key);
  if (matches.empty()) {
    std::fprintf(stderr, "error: %s: no entry whose key hash starts with (or whose key is) '%s'; list them with "
                 "'shaderbake inspect %s --list'\n", options.bundle.c_str(), options.key.c_str(), options.bundle.c_str());
    return kExitFailures;
  }
  if (matches.size() > 1) {
    std::fprintf(stderr, "error: '%s' matches %zu entries; give more digits:\n", options.key.c_str(), matches.size());
    for (const sbk_entry& e : matches)
      std::fprintf(stderr, "  %s %s\n", KeyHash::of({e.key, e.key_size}).to_hex().c_str(), kind_name(e.kind));
    return kExitUsage;
  }
  const auto view = entry_json(*file, matches.front(), !options.no_disassembly);
  if (options.json) {
    std::printf("%s\n", view.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%s %s (%zu key bytes), status %s\n", view["kind"].get<std::string>().c_str(),
              view["key_hash"].get<std::string>().c_str(), view["key"].get<std::string>().size() / 2,
              view["status"].get<std::string>().c_str());
  for (const char* field : {"route", "fragment_key", "program", "admission", "host", "layout"})
    if (view.contains(field)) std::printf("%s: %s\n", field, view[field].dump().c_str());
  if (view.contains("vertex_module")) print_module("vertex", view["vertex_module"]);
  if (view.contains("fragment_module")) print_module("fragment", view["fragment_module"]);
  return kExitOk;
}

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
// shaderbake inspect: what a bundle holds, and everything about one entry (no GLSL needed: the SPIR-V, its
// reflection, the recipe and the admission result come from the bundle itself).
//
// Everything it shows comes from untrusted bytes: JSON goes out through print_json (invalid UTF-8 replaced, so
// the output is always JSON), text through escape_controls, and the META and REPORT JSON are embedded only when
// they parse and nest no deeper than kMaxEmbeddedDepth (dump recurses). Damage it meets (a section checksum,
// an entry, a module, a layout, the report) is a warning naming it and in the JSON's "problems": exit 3.
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "cli/bundle_views.hpp"
#include "cli/bundle_opening.hpp"
#include "cli/command_output.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "lib/core/hex.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/bundle/bundle_verify.hpp"
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
    case SBK_KEY_KIND_COMPUTE_PIPELINE: return "compute_pipeline";
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
  static const char* const kNames[] = {"?",           "meta",         "index",             "records",
                                       "modules",     "module_data",  "dictionary",        "layouts",
                                       "report",      "driver_cache", "dynamic_fallbacks", "prewarm",
                                       "shader_keys", "host_states",  "host_state_parts",  "specialization_data"};
  static_assert(std::size(kNames) == SBK_SECTION_TYPE_COUNT);
  return type < SBK_SECTION_TYPE_COUNT ? kNames[type] : "unknown";
}

// Deeper JSON from a bundle is not embedded: nlohmann's dump recurses once per level.
constexpr size_t kMaxEmbeddedDepth = 64;

// Whether JSON text nests at most `limit` arrays and objects deep (brackets inside strings do not count).
bool nests_at_most(std::string_view text, size_t limit) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

// JSON text of the bundle's as a value to embed, or null with a problem saying why not.
nlohmann::ordered_json embedded_json(std::string_view text, const std::string& what, std::vector<std::string>& problems) {
  if (!nests_at_most(text, kMaxEmbeddedDepth)) {
    problems.push_back(what + " nests deeper than " + std::to_string(kMaxEmbeddedDepth) + " levels");
    return nullptr;
  }
  auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    problems.push_back(what + " is not a JSON object");
    return nullptr;
  }
  return j;
}

// A JSON value as one line of text (invalid UTF-8 replaced, control bytes escaped) for the text views.
std::string text_of(const nlohmann::ordered_json& j) {
  return escape_controls(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}
// A string as its text (escaped), anything else as text_of: for values of the bundle's JSON, any type.
std::string text_of_string(const nlohmann::ordered_json& j) {
  return j.is_string() ? escape_controls(j.get<std::string>()) : text_of(j);
}

// The two router-data sections (DYNAMIC_FALLBACKS, PREWARM), read through the loader: counts, and null for a
// section the bundle lacks.
nlohmann::ordered_json router_data_json(const sbk_bundle& b, std::vector<std::string>& problems) {
  nlohmann::ordered_json out;
  uint64_t size = 0;
  if (sbk_bundle_section(&b, SBK_SECTION_DYNAMIC_FALLBACKS, &size) != nullptr) {
    uint32_t mask = 0;
    float defaults[SBK_VERTEX_LOCATIONS][4];
    if (const sbk_result r = sbk_bundle_vertex_defaults(&b, &mask, defaults); r != SBK_OK)
      problems.push_back(std::string("DYNAMIC_FALLBACKS: the vertex defaults: ") + sbk_result_name(r));
    std::set<uint32_t> families;
    std::set<std::vector<uint32_t>> signatures;
    uint64_t damaged = 0;
    for (uint32_t i = 0; i < sbk_bundle_dynamic_fallback_count(&b); ++i) {
      sbk_dynamic_fallback d;
      if (const sbk_result r = sbk_bundle_dynamic_fallback(&b, i, &d); r != SBK_OK) {
        if (damaged++ == 0) problems.push_back("dynamic fallback " + std::to_string(i) + ": " + sbk_result_name(r));
        continue;
      }
      families.insert(d.family_entry);
      std::vector<uint32_t> signature{d.signature.color_count, d.signature.depth_format, d.signature.samples};
      signature.insert(signature.end(), d.signature.color_formats, d.signature.color_formats + SBK_MAX_COLOR_ATTACHMENTS);
      signatures.insert(std::move(signature));
    }
    if (damaged > 1) problems.push_back(std::to_string(damaged - 1) + " more dynamic fallbacks do not read");
    out["dynamic_fallbacks"] = {{"recipes", sbk_bundle_dynamic_fallback_count(&b)},
                                {"families", families.size()},
                                {"attachment_signatures", signatures.size()},
                                {"vertex_location_mask", mask},
                                {"damaged", damaged}};
  } else {
    out["dynamic_fallbacks"] = nullptr;
  }
  if (sbk_bundle_section(&b, SBK_SECTION_PREWARM, &size) != nullptr) {
    uint64_t damaged = 0;
    for (uint32_t p = 0; p < sbk_bundle_prewarm_count(&b); ++p) {
      uint32_t entry = 0, frame = 0;
      if (const sbk_result r = sbk_bundle_prewarm_at(&b, p, &entry, &frame); r != SBK_OK && damaged++ == 0)
        problems.push_back("prewarm position " + std::to_string(p) + ": " + sbk_result_name(r));
    }
    if (damaged > 1) problems.push_back(std::to_string(damaged - 1) + " more prewarm positions do not read");
    out["prewarm"] = {{"pipelines", sbk_bundle_prewarm_count(&b)}, {"damaged", damaged}};
  } else {
    out["prewarm"] = nullptr;
  }
  return out;
}

nlohmann::ordered_json summary_json(const bundle::BundleFile& file, std::vector<std::string>& problems) {
  const sbk_bundle& b = file.handle();
  nlohmann::ordered_json out;
  out["path"] = file.path();
  out["bytes"] = file.size();
  out["format"] = std::to_string(SBK_BUNDLE_FORMAT_MAJOR) + "." + std::to_string(sbk_bundle_format_minor(&b));
  out["meta"] = embedded_json(file.meta_json(), "the META section", problems);
  uint64_t kinds[5] = {0, 0, 0, 0, 0}, routes[3] = {0, 0, 0}, damaged = 0;
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&b); ++i) {
    sbk_entry e;
    if (const sbk_result r = sbk_bundle_entry_at(&b, i, &e); r != SBK_OK) {
      ++damaged;
      problems.push_back("entry " + std::to_string(i) + ": " + sbk_result_name(r));
      continue;
    }
    ++kinds[e.kind];
    if (e.kind == SBK_KEY_KIND_PIPELINE) ++routes[e.route];
  }
  out["entries"] = {{"total", sbk_bundle_entry_count(&b)},
                    {"specializations", kinds[SBK_KEY_KIND_EXACT]},
                    {"families", kinds[SBK_KEY_KIND_FAMILY]},
                    {"exact_pipelines", routes[SBK_ROUTE_EXACT]},
                    {"fallback_pipelines", routes[SBK_ROUTE_FALLBACK]},
                    {"compute_pipelines", kinds[SBK_KEY_KIND_COMPUTE_PIPELINE]},
                    {"damaged", damaged}};
  uint64_t raw = 0, compressed = 0;
  for (uint32_t m = 0; m < sbk_bundle_module_count(&b); ++m) {
    sbk_module_info info;
    if (const sbk_result r = sbk_bundle_module_info(&b, m, &info); r != SBK_OK) {
      problems.push_back("module " + std::to_string(m) + ": " + sbk_result_name(r));
      continue;
    }
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
    for (const auto& p : read.problems) problems.push_back("DRIVER_CACHE: " + p);
  }
  out["router_data"] = router_data_json(b, problems);
  auto report = file.report_json();
  if (!report) {
    problems.push_back("REPORT section corrupt: " + report.error().message);
  } else if (!report->empty()) {
    auto j = embedded_json(*report, "the build report", problems);
    if (j.is_object()) {
      nlohmann::ordered_json brief;
      for (const char* field :
           {"draws", "frames", "unique_sources", "exact_modules", "specialized_pipelines", "vertex_modules", "rejections"})
        if (j.contains(field)) brief[field] = j[field];
      brief["traces"] = j.contains("inputs") ? j["inputs"].size() : 0;
      brief["failures"] = j.contains("failures") ? j["failures"].size() : 0;
      // A shard of a build (build --shard K/N): which one; `merge` puts the N together.
      if (j.contains("shard") && j["shard"].is_object())
        brief["shard"] = {{"index", j["shard"].value("index", nlohmann::ordered_json())},
                          {"count", j["shard"].value("count", nlohmann::ordered_json())}};
      // A union of capture sessions (merge): the traces of each.
      if (j.contains("sessions") && j["sessions"].is_array()) {
        brief["sessions"] = nlohmann::ordered_json::array();
        for (const auto& session : j["sessions"])
          if (session.is_object()) brief["sessions"].push_back(session.value("traces", nlohmann::ordered_json::array()));
      }
      out["report"] = brief;
    }
  }
  return out;
}

nlohmann::ordered_json module_json(const bundle::BundleFile& file, uint32_t module, bool disassemble,
                                   std::vector<std::string>& problems) {
  nlohmann::ordered_json out;
  out["index"] = module;
  auto words = file.module_words(module);
  if (!words) {
    out["error"] = words.error().message;
    problems.push_back(words.error().message);
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

nlohmann::ordered_json entry_json(const bundle::BundleFile& file, const GuestModel& guest, const sbk_entry& e, bool disassemble,
                                  std::vector<std::string>& problems) {
  nlohmann::ordered_json out;
  const std::vector<uint8_t> key = bundle::entry_key(file.handle(), e);
  out["kind"] = kind_name(e.kind);
  out["key_hash"] = KeyHash::of(key).to_hex();
  out["key"] = hex_bytes(key);
  out["status"] = status_name(e.status);
  if (e.kind == SBK_KEY_KIND_EXACT) {
    if (auto view = guest.describe_exact_key(key)) {
      out["program"] = std::move(view->program);
      if (view->admission == 0)
        out["admission"] = {{"admitted", true}, {"family", KeyHash::of(view->family_key).to_hex()}};
      else
        out["admission"] = {{"admitted", false},
                            {"reason", guest.rejection_name(view->admission)},
                            {"where", view->admission_where}};
    }
  }
  if (e.kind == SBK_KEY_KIND_PIPELINE) {
    uint8_t route = 0;
    const uint8_t* fragment_key = nullptr;
    size_t fragment_size = 0;
    sbk_host_state host;
    if (sbk_decode_pipeline_key(key.data(), key.size(), &route, &fragment_key, &fragment_size, &host) == SBK_OK) {
      out["route"] = route == SBK_ROUTE_EXACT ? "exact" : "fallback";
      out["fragment_key"] = KeyHash::of({fragment_key, fragment_size}).to_hex();
      out["host"] = host_state_json(host);
    } else {
      problems.push_back("the pipeline key does not decode");
    }
    if (auto layout = file.layout(e.layout)) out["layout"] = layout_json(*layout);
    else problems.push_back(layout.error().message);
    out["vertex_module"] = module_json(file, e.vertex_module, disassemble, problems);
  }
  if (e.kind == SBK_KEY_KIND_COMPUTE_PIPELINE) {
    out["route"] = e.route == SBK_ROUTE_EXACT ? "exact" : "fallback";
    if (auto layout = file.layout(e.layout)) out["layout"] = layout_json(*layout);
    else problems.push_back(layout.error().message);
    out["compute_module"] = module_json(file, e.fragment_module, disassemble, problems);
  } else if (e.fragment_module != SBK_NO_MODULE) {
    out["fragment_module"] = module_json(file, e.fragment_module, disassemble, problems);
  }
  return out;
}

void print_module(const char* label, const nlohmann::ordered_json& m) {
  std::printf("%s module #%u: %s\n", label, m["index"].get<uint32_t>(),
              m.contains("error") ? text_of_string(m["error"]).c_str()
                                  : (std::to_string(m["spirv_bytes"].get<uint64_t>()) + " bytes of SPIR-V").c_str());
  if (m.contains("reflection")) std::printf("  reflection: %s\n", text_of(m["reflection"]).c_str());
  if (m.contains("disassembly")) {
    // Line by line, so that the disassembly keeps its newlines while every other control byte is escaped.
    const std::string text = m["disassembly"].get<std::string>();
    for (size_t at = 0; at <= text.size();) {
      const size_t end = std::min(text.find('\n', at), text.size());
      if (end > at || end < text.size()) std::printf("%s\n", escape_controls(std::string_view(text).substr(at, end - at)).c_str());
      at = end + 1;
    }
  }
}

// Warnings for what inspect met, then exit 3 when it met anything (the output above is all it could read).
int finish(const std::string& bundle, const std::vector<std::string>& problems) {
  for (const auto& p : problems) print_warning(bundle + ": " + p);
  if (problems.empty()) return kExitOk;
  print_error(bundle + ": the bundle is damaged: " + problems.front() +
              (problems.size() > 1 ? " (" + std::to_string(problems.size() - 1) + " more problems above)" : std::string()) +
              "; not a usable bundle: run 'shaderbake verify' on it");
  return kExitBadInput;
}

}  // namespace

int run_inspect(const InspectOptions& options, const GuestCatalog& guests) {
  auto opened = open_guest_bundle(options.bundle, guests);
  if (!opened) {
    // Under --json, main prints the JSON error object with this line's message.
    print_error(opened.error().to_string());
    return kExitBadInput;
  }
  const bundle::BundleFile* file = &opened->file;
  // Damage anywhere is worth a warning even where inspect does not look (it reads no checksum of its own).
  std::vector<std::string> problems = bundle::check_sections(file->handle()).failures;
  if (options.key.empty() && !options.list) {
    auto summary = summary_json(*file, problems);
    summary["problems"] = problems;
    if (options.json) {
      print_json(summary);
      return finish(options.bundle, problems);
    }
    const auto& meta = summary["meta"];
    const auto& entries = summary["entries"];
    const auto& modules = summary["modules"];
    std::printf("%s: shaderbake bundle %s, %llu bytes\n", escape_controls(options.bundle).c_str(),
                summary["format"].get<std::string>().c_str(), static_cast<unsigned long long>(file->size()));
    if (meta.is_object()) {
      std::printf("guest %s, key schema %s\n", text_of_string(meta.value("guest", nlohmann::ordered_json("?"))).c_str(),
                  text_of(meta.value("key_schema", nlohmann::ordered_json(nullptr))).c_str());
      std::printf("toolchain: %s\n", text_of_string(meta.value("toolchain", nlohmann::ordered_json("?"))).c_str());
      if (meta.contains("generators")) std::printf("generators: %s\n", text_of(meta["generators"]).c_str());
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
    const auto& router = summary["router_data"];
    if (router["dynamic_fallbacks"].is_null()) {
      std::printf("dynamic-state fallbacks: none (no DYNAMIC_FALLBACKS section: per-host-state fallback pipelines only)\n");
    } else {
      const auto& d = router["dynamic_fallbacks"];
      std::printf("dynamic-state fallbacks: %s recipes (%s families x %s attachment signatures), vertex location mask 0x%x\n",
                  d["recipes"].dump().c_str(), d["families"].dump().c_str(), d["attachment_signatures"].dump().c_str(),
                  d["vertex_location_mask"].get<uint32_t>());
    }
    if (router["prewarm"].is_null()) std::printf("prewarm order: none (no PREWARM section)\n");
    else std::printf("prewarm order: %s exact pipelines\n", router["prewarm"]["pipelines"].dump().c_str());
    if (summary.contains("report")) std::printf("report: %s\n", text_of(summary["report"]).c_str());
    if (summary.contains("report") && summary["report"].contains("sessions"))
      std::printf("merged from %zu capture sessions\n", summary["report"]["sessions"].size());
    if (summary.contains("report") && summary["report"].contains("shard"))
      std::printf("shard %s of %s of a build: `shaderbake merge` puts the shards together\n",
                  summary["report"]["shard"]["index"].dump().c_str(), summary["report"]["shard"]["count"].dump().c_str());
    if (summary.contains("driver_caches")) {
      std::printf("driver caches: %zu\n", summary["driver_caches"].size());
      for (const auto& c : summary["driver_caches"])
        std::printf("  vendor 0x%04x device 0x%04x driver 0x%08x uuid %s: %s bytes\n", c["vendor_id"].get<uint32_t>(),
                    c["device_id"].get<uint32_t>(), c["driver_version"].get<uint32_t>(),
                    c["pipeline_cache_uuid"].get<std::string>().c_str(), c["bytes"].dump().c_str());
    }
    return finish(options.bundle, problems);
  }
  if (options.list) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (uint32_t i = 0; i < sbk_bundle_entry_count(&file->handle()); ++i) {
      auto e = file->entry(i);
      if (!e) {
        problems.push_back(e.error().message);
        continue;
      }
      const std::string hash = KeyHash::of(bundle::entry_key(file->handle(), *e)).to_hex();
      const char* route = e->route == SBK_ROUTE_EXACT ? "exact" : e->route == SBK_ROUTE_FALLBACK ? "fallback" : "";
      if (options.json) list.push_back({{"kind", kind_name(e->kind)}, {"key_hash", hash}, {"status", status_name(e->status)}});
      else std::printf("%s %s %s %s\n", hash.c_str(), kind_name(e->kind), route, status_name(e->status));
    }
    if (options.json) print_json(list);
    return finish(options.bundle, problems);
  }
  const auto matches = file->find_by_hex(options.key);
  if (matches.empty()) {
    print_error(options.bundle + ": no entry whose key hash starts with (or whose key is) '" + options.key +
                "'; list them with 'shaderbake inspect " + options.bundle + " --list'");
    return kExitFailures;
  }
  if (matches.size() > 1) {
    print_error("'" + options.key + "' matches " + std::to_string(matches.size()) + " entries; give more digits:");
    for (const sbk_entry& e : matches)
      print_stderr_line("  " + KeyHash::of(bundle::entry_key(file->handle(), e)).to_hex() + " " + kind_name(e.kind), false);
    return kExitUsage;
  }
  auto view = entry_json(*file, *opened->guest, matches.front(), !options.no_disassembly, problems);
  view["problems"] = problems;
  if (options.json) {
    print_json(view);
    return finish(options.bundle, problems);
  }
  std::printf("%s %s (%zu key bytes), status %s\n", view["kind"].get<std::string>().c_str(),
              view["key_hash"].get<std::string>().c_str(), view["key"].get<std::string>().size() / 2,
              view["status"].get<std::string>().c_str());
  for (const char* field : {"route", "fragment_key", "program", "admission", "host", "layout"})
    if (view.contains(field)) std::printf("%s: %s\n", field, text_of(view[field]).c_str());
  if (view.contains("vertex_module")) print_module("vertex", view["vertex_module"]);
  if (view.contains("fragment_module")) print_module("fragment", view["fragment_module"]);
  return finish(options.bundle, problems);
}

}  // namespace shaderbake::cli

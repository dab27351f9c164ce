// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_readback.hpp"
#include "lib/bundle/layout_contract.hpp"
#include "lib/core/little_endian.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shaderbake::bundle {

namespace {

// One stage's block of a pipeline's specialization data, as the builder takes it.
compile::SpecializationData stage_data(const sbk_specialization_block& block) {
  compile::SpecializationData out;
  for (uint32_t i = 0; i < block.map_count; ++i) {
    const uint8_t* m = block.map + 12u * i;
    out.entries.push_back({load_u32_le(m), load_u32_le(m + 4), load_u32_le(m + 8)});
  }
  if (block.data_size != 0) out.data.assign(block.data, block.data + block.data_size);
  return out;
}

}  // namespace

Result<BundleIdentity> read_identity(const BundleFile& file) {
  BundleIdentity identity;
  sbk_header_info info;
  sbk_bundle_info(&file.handle(), &info);
  identity.guest = static_cast<uint8_t>(info.guest);
  identity.key_schema = static_cast<uint16_t>(info.key_schema);
  const nlohmann::json meta = nlohmann::json::parse(file.meta_json(), nullptr, /*allow_exceptions=*/false);
  auto text = [&](const char* field) -> std::optional<std::string> {
    if (!meta.is_object() || !meta.contains(field) || !meta[field].is_string()) return std::nullopt;
    return meta[field].get<std::string>();
  };
  const auto guest_name = text("guest");
  const auto toolchain = text("toolchain");
  if (!guest_name || !toolchain || !meta.contains("generators") || !meta["generators"].is_object())
    return Error{ErrorKind::bad_input, "bundle_meta", file.path() + ": META does not hold the bundle's identity", {}};
  identity.guest_name = *guest_name;
  identity.toolchain_fingerprint = *toolchain;
  for (const auto& [name, version] : meta["generators"].items()) {
    if (!version.is_string())
      return Error{ErrorKind::bad_input, "bundle_meta", file.path() + ": META generator " + name + " is not a string", {}};
    identity.generators[name] = version.get<std::string>();
  }
  return identity;
}

Result<ReadSummary> read_contents(const BundleFile& file, BundleBuilder& builder, ReadParts parts) {
  const sbk_bundle& b = file.handle();
  ReadSummary summary;
  // Modules, by index, then re-identified by content as the builder does.
  std::vector<ModuleId> ids;
  for (uint32_t m = 0; m < sbk_bundle_module_count(&b); ++m) {
    sbk_module_info info;
    if (sbk_result r = sbk_bundle_module_info(&b, m, &info); r != SBK_OK) return file.error(r, "module " + std::to_string(m));
    auto words = file.module_words(m);
    if (!words) return std::move(words).error();
    ids.push_back(builder.add_module(info.stage, *words));
  }
  auto module_id = [&](uint32_t m) -> std::optional<ModuleId> {
    return m < ids.size() ? std::optional(ids[m]) : std::nullopt;
  };
  std::vector<LayoutContract> layouts;
  for (uint32_t l = 0; l < sbk_bundle_layout_count(&b); ++l) {
    auto layout = file.layout(l);
    if (!layout) return std::move(layout).error();
    layouts.push_back(contract_of_stored(*layout));
  }
  auto key_of = [&](uint32_t index) -> Result<std::vector<uint8_t>> {
    auto entry = file.entry(index);
    if (!entry) return std::move(entry).error();
    std::vector<uint8_t> key = entry_key(b, *entry);
    if (key.empty()) return file.error(SBK_ERROR_CORRUPT, "the key of entry " + std::to_string(index));
    return key;
  };
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&b); ++i) {
    auto entry = file.entry(i);
    if (!entry) return std::move(entry).error();
    auto key = key_of(i);
    if (!key) return std::move(key).error();
    const std::string what = "entry " + std::to_string(i);
    switch (entry->kind) {
      case SBK_KEY_KIND_EXACT:
        builder.add_specialization(*key, entry->status, module_id(entry->fragment_module), entry->rejection);
        continue;
      case SBK_KEY_KIND_FAMILY:
        builder.add_family(*key, entry->status, module_id(entry->fragment_module));
        continue;
      case SBK_KEY_KIND_PIPELINE:
      case SBK_KEY_KIND_COMPUTE_PIPELINE: break;
      default: return file.error(SBK_ERROR_CORRUPT, what + " kind");
    }
    const bool compute = entry->kind == SBK_KEY_KIND_COMPUTE_PIPELINE;
    const auto fragment = module_id(entry->fragment_module);
    const auto vertex = module_id(entry->vertex_module);
    if (!fragment || (!compute && !vertex) || entry->layout >= layouts.size())
      return file.error(SBK_ERROR_CORRUPT, what + " recipe");
    if (compute) builder.add_compute_pipeline(*key, *fragment, layouts[entry->layout]);
    else builder.add_pipeline(*key, *vertex, *fragment, layouts[entry->layout]);
    sbk_specialization values;
    const sbk_result s = sbk_bundle_specialization(&b, i, &values);
    if (s == SBK_OK) builder.set_specialization(*key, stage_data(values.vertex), stage_data(values.shader));
    else if (s != SBK_NOT_FOUND) return file.error(s, what + " specialization data");
  }
  // Dynamic-state fallback recipes and the vertex defaults (the section exists with or without recipes).
  std::vector<sbk_dynamic_fallback> recipes(sbk_bundle_dynamic_fallback_count(&b));
  if (sbk_result r = sbk_bundle_read_dynamic_fallbacks(&b, recipes.data(), static_cast<uint32_t>(recipes.size()));
      r != SBK_OK)
    return file.error(r, "dynamic-state fallback recipes");
  for (const sbk_dynamic_fallback& d : recipes) {
    auto family = key_of(d.family_entry);
    if (!family) return std::move(family).error();
    const auto vertex = module_id(d.vertex_module);
    const auto fragment = module_id(d.fragment_module);
    if (!vertex || !fragment || d.layout >= layouts.size())
      return file.error(SBK_ERROR_CORRUPT, "a dynamic-state fallback recipe");
    builder.add_dynamic_fallback(*family, *vertex, *fragment, layouts[d.layout], d.signature);
  }
  uint32_t mask = 0;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  const sbk_result v = sbk_bundle_vertex_defaults(&b, &mask, defaults);
  if (v == SBK_OK) {
    std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS> table{};
    for (uint32_t l = 0; l < SBK_VERTEX_LOCATIONS; ++l)
      for (uint32_t c = 0; c < 4; ++c) table[l][c] = defaults[l][c];
    builder.set_vertex_defaults(mask, table);
  } else if (v != SBK_NOT_FOUND) {
    return file.error(v, "vertex defaults");
  }
  // The prewarm order, position by position.
  for (uint32_t p = 0; p < sbk_bundle_prewarm_count(&b); ++p) {
    uint32_t entry = 0, first_frame = 0;
    if (sbk_result r = sbk_bundle_prewarm_at(&b, p, &entry, &first_frame); r != SBK_OK)
      return file.error(r, "prewarm position " + std::to_string(p));
    auto key = key_of(entry);
    if (!key) return std::move(key).error();
    if (parts.prewarm) builder.add_prewarm(*key, first_frame);
    summary.prewarm.push_back({std::move(*key), first_frame});
  }
  if (parts.report) {
    auto report = file.report_json();
    if (!report) return std::move(report).error();
    if (!report->empty()) builder.set_report(*report);
  }
  return summary;
}

}  // namespace shaderbake::bundle

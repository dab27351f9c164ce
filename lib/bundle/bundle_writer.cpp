// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_writer.hpp"

#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "lib/bundle/bundle_layout.hpp"
#include "lib/bundle/compression_memo.hpp"
#include "lib/bundle/module_compression.hpp"
#include "lib/core/byte_io.hpp"
#include "lib/core/little_endian.hpp"

namespace shaderbake::bundle {

namespace {

// The modules' compression (packed, a dictionary, then one frame each): the memo's when it remembers this very
// one, else made afresh and given to the memo.
Result<CompressedModules> compressed_modules(const std::vector<ModuleId>& module_ids,
                                             const std::vector<const std::vector<uint32_t>*>& module_words,
                                             const WriteOptions& options, bool* memo_hit) {
  for (const auto* words : module_words)
    if (words->size() * 4 > SBK_BUNDLE_MAX_MODULE_SIZE)
      return Error{ErrorKind::internal, "module_too_large",
                   "a module of " + std::to_string(words->size() * 4) + " bytes; a bundle holds modules of at most " +
                       std::to_string(SBK_BUNDLE_MAX_MODULE_SIZE) + " bytes",
                   {}};
  const std::vector<uint8_t> memo_identity =
      options.memo ? compression_identity(module_ids, module_words, options) : std::vector<uint8_t>();
  auto compressed = options.memo ? recall_compression(*options.memo, memo_identity, module_words, memo_hit)
                                 : std::optional<CompressedModules>();
  if (compressed) return std::move(*compressed);
  // Packing only here: a memo hit has the frames already.
  auto fresh = compress_modules(module_words, options);
  if (!fresh) return fresh;
  if (options.memo) options.memo->put(memo_identity, encode_compression(*fresh));
  return fresh;
}

// META: the identity as JSON text.
std::vector<uint8_t> meta_section(const BundleIdentity& identity) {
  nlohmann::ordered_json meta;
  meta["format"] = "shaderbake-bundle/2";
  meta["guest"] = identity.guest_name;
  meta["key_schema"] = identity.key_schema;
  meta["toolchain"] = identity.toolchain_fingerprint;
  meta["generators"] = nlohmann::ordered_json::object();
  for (const auto& [name, version] : identity.generators) meta["generators"][name] = version;
  const std::string text = meta.dump();
  return {text.begin(), text.end()};
}

// LAYOUTS: the layout contracts in value order.
Result<std::vector<uint8_t>> layouts_section(const std::map<LayoutContract, uint32_t>& layout_index) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(layout_index.size()));
  w.u32(0);
  for (const auto& [layout, index] : layout_index) {
    if (layout.bindings.size() > SBK_MAX_LAYOUT_BINDINGS)
      return Error{ErrorKind::internal, "layout_too_large", "a layout contract has more than 16 bindings", {}};
    w.u32(static_cast<uint32_t>(layout.bindings.size()));
    w.u32(layout.push_constant_size);
    w.u32(layout.push_constant_stages);
    w.u32(0);
    for (size_t b = 0; b < SBK_MAX_LAYOUT_BINDINGS; ++b) {
      const LayoutContract::Binding none{0, 0, 0, 0};
      const auto& binding = b < layout.bindings.size() ? layout.bindings[b] : none;
      w.u32(binding.binding);
      w.u32(binding.descriptor_type);
      w.u32(binding.descriptor_count);
      w.u32(binding.stage_flags);
    }
  }
  return std::move(w.data());
}

// REPORT: the build report's text, one zstd frame.
Result<std::vector<uint8_t>> report_section(const std::string& report) {
  std::vector<uint8_t> out(ZSTD_compressBound(report.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), report.data(), report.size(), 19);
  if (ZSTD_isError(n)) return zstd_error("compressing the report", n);
  out.resize(n);
  return out;
}

// The header of a bundle of `identity`.
BundleHeader header_of(const BundleIdentity& identity) {
  BundleHeader header;
  const KeyHash toolchain = KeyHash::of(std::span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(identity.toolchain_fingerprint.data()), identity.toolchain_fingerprint.size()));
  store_u64_le(header.toolchain_digest.data(), toolchain.low);
  store_u64_le(header.toolchain_digest.data() + 8, toolchain.high);
  header.guest = identity.guest;
  header.key_schema = identity.key_schema;
  return header;
}

}  // namespace

ModuleId BundleBuilder::add_module(uint32_t vk_stage, std::span<const uint32_t> spirv) {
  const ModuleId id{KeyHash::of(spirv_bytes(spirv))};
  modules_.try_emplace(id, Module{vk_stage, std::vector<uint32_t>(spirv.begin(), spirv.end())});
  return id;
}

BundleBuilder::Entry& BundleBuilder::new_entry(std::span<const uint8_t> key) {
  Entry& e = entries_.emplace_back();
  e.key.assign(key.begin(), key.end());
  e.hash = KeyHash::of(key);
  return e;
}

void BundleBuilder::add_specialization(std::span<const uint8_t> exact_key, uint32_t status,
                                       std::optional<ModuleId> fragment, uint32_t rejection) {
  Entry& e = new_entry(exact_key);
  e.status = status;
  e.fragment = fragment;
  e.rejection = rejection;
}

void BundleBuilder::add_family(std::span<const uint8_t> family_key, uint32_t status, std::optional<ModuleId> fragment) {
  add_specialization(family_key, status, fragment, 0);
}

void BundleBuilder::add_pipeline(std::span<const uint8_t> pipeline_key, ModuleId vertex, ModuleId fragment,
                                 const LayoutContract& layout) {
  Entry& e = new_entry(pipeline_key);
  e.fragment = fragment;
  e.vertex = vertex;
  e.layout = layout;
}

void BundleBuilder::add_dynamic_fallback(std::span<const uint8_t> family_key, ModuleId vertex, ModuleId fragment,
                                         const LayoutContract& layout, const sbk_attachment_signature& signature) {
  dynamic_fallbacks_.push_back({{family_key.begin(), family_key.end()}, vertex, fragment, layout, signature});
}

void BundleBuilder::set_vertex_defaults(uint32_t location_mask,
                                        const std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS>& defaults) {
  vertex_defaults_.emplace(location_mask, defaults);
}

void BundleBuilder::add_prewarm(std::span<const uint8_t> pipeline_key, int64_t first_frame) {
  const uint32_t frame = first_frame < 0 ? 0u
                         : first_frame > int64_t{UINT32_MAX} ? UINT32_MAX
                                                             : static_cast<uint32_t>(first_frame);
  prewarm_.push_back({{pipeline_key.begin(), pipeline_key.end()}, frame});
}

Result<std::vector<uint8_t>> BundleBuilder::serialize(const WriteOptions& options, WriteStats* stats) const {
  if (identity_.guest == SBK_GUEST_NONE) {
    Error e;
    e.kind = ErrorKind::internal;
    e.reason = "no_guest";
    e.message = "the bundle's guest model is not set (BundleIdentity::guest)";
    return e;
  }
  auto canonical_content = canonical();
  if (!canonical_content) return std::move(canonical_content).error();
  const Canonical& c = *canonical_content;
  bool memo_hit = false;
  auto compressed = compressed_modules(c.module_ids, c.module_words, options, &memo_hit);
  if (!compressed) return std::move(compressed).error();

  std::map<uint32_t, std::vector<uint8_t>> sections;
  sections[SBK_SECTION_META] = meta_section(identity_);
  for (auto& [type, bytes] : module_sections(*compressed)) sections[type] = std::move(bytes);
  auto layouts = layouts_section(c.layout_index);
  if (!layouts) return std::move(layouts).error();
  sections[SBK_SECTION_LAYOUTS] = std::move(*layouts);
  std::vector<RecordPlace> places;
  auto records = records_section(c, places);
  if (!records) return std::move(records).error();
  sections[SBK_SECTION_INDEX] = index_section(c.entries, places);
  sections[SBK_SECTION_RECORDS] = std::move(*records);
  auto router = router_sections(c.entries, c.module_index, c.layout_index);
  if (!router) return std::move(router).error();
  for (auto& [type, bytes] : *router) sections[type] = std::move(bytes);
  if (!report_.empty()) {
    auto report = report_section(report_);
    if (!report) return std::move(report).error();
    sections[SBK_SECTION_REPORT] = std::move(*report);
  }

  std::map<uint32_t, std::span<const uint8_t>> section_views;
  for (const auto& [type, bytes] : sections) section_views.emplace(type, bytes);
  auto assembled = assemble_bundle(header_of(identity_), section_views);
  if (!assembled) return assembled;
  if (stats) {
    stats->modules = c.module_words.size();
    stats->raw_module_bytes = 0;
    for (const auto* words : c.module_words) stats->raw_module_bytes += words->size() * 4;
    stats->compressed_module_bytes = sections[SBK_SECTION_MODULE_DATA].size();
    stats->dictionary_bytes = compressed->dictionary.size();
    stats->compression_memo_hit = memo_hit;
    stats->entries = c.entries.size();
    stats->bundle_bytes = assembled->size();
  }
  return assembled;
}

Result<BundleBuilder::Canonical> BundleBuilder::canonical() const {
  Canonical c;
  for (const Entry& e : entries_) c.entries.push_back(&e);
  std::sort(c.entries.begin(), c.entries.end(), [](const Entry* a, const Entry* b) {
    if (a->hash.high != b->hash.high) return a->hash.high < b->hash.high;
    if (a->hash.low != b->hash.low) return a->hash.low < b->hash.low;
    return a->key < b->key;
  });
  for (size_t i = 1; i < c.entries.size(); ++i)
    if (c.entries[i]->key == c.entries[i - 1]->key)
      return Error{ErrorKind::internal, "duplicate_key", "key " + c.entries[i]->hash.to_hex() + " added twice", {}};
  for (const auto& [id, m] : modules_) {
    c.module_index.emplace(id, static_cast<uint32_t>(c.module_index.size()));
    c.module_words.push_back(&m.words);
    c.module_ids.push_back(id);
  }
  for (const Entry* e : c.entries)
    if (e->layout) c.layout_index.emplace(*e->layout, 0);
  for (const DynamicFallback& d : dynamic_fallbacks_) c.layout_index.emplace(d.layout, 0);
  uint32_t i = 0;
  for (auto& [layout, index] : c.layout_index) index = i++;
  return c;
}

std::map<uint32_t, std::vector<uint8_t>> BundleBuilder::module_sections(const CompressedModules& compressed) const {
  std::map<uint32_t, std::vector<uint8_t>> sections;
  const std::vector<uint8_t>& dictionary = compressed.dictionary;
  const std::vector<std::vector<uint8_t>>& frames = compressed.frames;
  ByteWriter w;
  uint64_t data_offset = 0;
  w.u32(static_cast<uint32_t>(frames.size()));
  w.u32(0);
  uint32_t i = 0;
  for (const auto& [id, m] : modules_) {
    w.u64(data_offset);
    w.u32(static_cast<uint32_t>(frames[i].size()));
    w.u32(static_cast<uint32_t>(m.words.size() * 4));
    w.u64(XXH3_64bits(m.words.data(), m.words.size() * 4));
    w.u32(m.stage);
    w.u32(compressed.parents[i]);
    w.u16((dictionary.empty() ? 0u : 1u) | (compressed.packed[i] ? 2u : 0u));
    w.u16(0);
    // The row's check: XXH3-64 of its first 36 bytes, seeded with its index, low 32 bits.
    const size_t row = w.size() - (SBK_BUNDLE_MODULE_ENTRY_SIZE - 4);
    w.u32(static_cast<uint32_t>(XXH3_64bits_withSeed(w.data().data() + row, SBK_BUNDLE_MODULE_ENTRY_SIZE - 4, i)));
    data_offset += frames[i].size();
    ++i;
  }
  sections[SBK_SECTION_MODULES] = std::move(w.data());
  std::vector<uint8_t> data;
  data.reserve(data_offset);
  for (const auto& f : frames) data.insert(data.end(), f.begin(), f.end());
  sections[SBK_SECTION_MODULE_DATA] = std::move(data);
  if (!dictionary.empty()) sections[SBK_SECTION_DICTIONARY] = dictionary;
  return sections;
}

Result<std::vector<uint8_t>> BundleBuilder::records_section(const Canonical& canonical,
                                                            std::vector<RecordPlace>& places) {
  const std::vector<const Entry*>& entries = canonical.entries;
  auto module_of = [&](const std::optional<ModuleId>& id) -> Result<uint32_t> {
    if (!id) return uint32_t{SBK_NO_MODULE};
    auto it = canonical.module_index.find(*id);
    if (it == canonical.module_index.end())
      return Error{ErrorKind::internal, "unknown_module", "a record names a module never added", {}};
    return it->second;
  };
  ByteWriter records;
  size_t record_bytes = 0;
  for (const Entry* entry : entries)
    record_bytes += (SBK_BUNDLE_RECORD_HEADER_SIZE + entry->key.size() + 7) & ~size_t{7};
  records.reserve(record_bytes);
  places.clear();
  places.reserve(entries.size());
  for (const Entry* entry : entries) {
    auto fragment = module_of(entry->fragment);
    auto vertex = module_of(entry->vertex);
    if (!fragment) return std::move(fragment).error();
    if (!vertex) return std::move(vertex).error();
    const size_t at = records.size();
    records.u64(0);  // the record's check, patched below
    records.u32(static_cast<uint32_t>(entry->key.size()));
    records.u32(entry->status);
    records.u32(*fragment);
    records.u32(*vertex);
    records.u32(entry->layout ? canonical.layout_index.at(*entry->layout) : 0u);
    records.u32(entry->rejection);
    // The check covers the fixed fields, seeded with the key's hash: a probe confirms the key bytes by
    // comparing them with the probed key (schemas/bundle.md, RECORDS).
    records.patch_u64(
        at, XXH3_64bits_withSeed(records.data().data() + at + 8, SBK_BUNDLE_RECORD_HEADER_SIZE - 8, entry->hash.low));
    records.bytes(entry->key);
    places.push_back({at, static_cast<uint32_t>(records.size() - at)});
    records.align8();
  }
  return std::move(records.data());
}

std::vector<uint8_t> BundleBuilder::index_section(const std::vector<const Entry*>& entries,
                                                  const std::vector<RecordPlace>& places) {
  ByteWriter index;
  const uint32_t count = static_cast<uint32_t>(entries.size());
  uint32_t bits = 0;
  while (bits < SBK_BUNDLE_MAX_DIRECTORY_BITS && (uint64_t{1} << bits) < count) ++bits;
  index.u32(count);
  index.u32(bits);
  index.u64(0);
  // directory[b] = first entry whose top `bits` hash bits are >= b; directory[2^bits] = count.
  const uint64_t buckets = uint64_t{1} << bits;
  size_t e = 0;
  for (uint64_t b = 0; b <= buckets; ++b) {
    while (e < entries.size() && (bits ? entries[e]->hash.high >> (64 - bits) : 0) < b) ++e;
    index.u32(static_cast<uint32_t>(b == buckets ? entries.size() : e));
  }
  index.align8();
  for (size_t i = 0; i < entries.size(); ++i) {
    index.u64(entries[i]->hash.low);
    index.u64(entries[i]->hash.high);
    index.u64(places[i].offset);
    index.u32(places[i].size);
    index.u32(0);
  }
  return std::move(index.data());
}

Result<std::map<uint32_t, std::vector<uint8_t>>> BundleBuilder::router_sections(
    const std::vector<const Entry*>& entries, const std::map<ModuleId, uint32_t>& module_index,
    const std::map<LayoutContract, uint32_t>& layout_index) const {
  auto error = [](const char* reason, std::string message) {
    return Error{ErrorKind::internal, reason, std::move(message), {}};
  };
  std::map<uint32_t, std::vector<uint8_t>> out;
  // Keys resolve to entry indices in the final (sorted) index order.
  std::unordered_map<std::string_view, uint32_t> position;
  for (uint32_t i = 0; i < entries.size(); ++i)
    position.emplace(std::string_view(reinterpret_cast<const char*>(entries[i]->key.data()), entries[i]->key.size()), i);
  auto find = [&](const std::vector<uint8_t>& key) -> const Entry* {
    const auto it = position.find(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
    return it == position.end() ? nullptr : entries[it->second];
  };
  auto index_of = [&](const std::vector<uint8_t>& key) {
    return position.at(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
  };

  if (!dynamic_fallbacks_.empty() && !vertex_defaults_)
    return error("vertex_defaults_missing", "dynamic-state fallback recipes were added without vertex defaults");
  if (vertex_defaults_) {
    const auto& [mask, defaults] = *vertex_defaults_;
    if ((mask >> SBK_VERTEX_LOCATIONS) != 0)
      return error("bad_vertex_defaults", "the vertex location mask " + std::to_string(mask) + " names a location past 15");
    for (uint32_t l = 0; l < SBK_VERTEX_LOCATIONS; ++l)
      for (float v : defaults[l])
        if (!std::isfinite(v) || (!((mask >> l) & 1) && (v != 0.0f || std::signbit(v))))
          return error("bad_vertex_defaults", "the default of vertex location " + std::to_string(l) +
                                                  " is not finite, or not +0 outside the mask");
    // (family entry, the recipe's u32 fields 16..63): the order the section is sorted and searched in.
    using RecipeOrder = std::array<uint32_t, 13>;
    std::vector<std::pair<RecipeOrder, const DynamicFallback*>> recipes;
    for (const DynamicFallback& d : dynamic_fallbacks_) {
      const Entry* family = find(d.family_key);
      if (family == nullptr || family->key.size() < 2 || family->key[1] != SBK_KEY_KIND_FAMILY ||
          family->status != SBK_STATUS_READY || family->fragment != d.fragment)
        return error("dynamic_fallback_family", "a dynamic-state fallback recipe of family " + KeyHash::of(d.family_key).to_hex() +
                                                    " names no ready family entry with its fragment module");
      const auto vertex = modules_.find(d.vertex);
      if (vertex == modules_.end() || vertex->second.stage != 0x1)  // VK_SHADER_STAGE_VERTEX_BIT
        return error("dynamic_fallback_vertex", "a dynamic-state fallback recipe names no vertex module of the bundle");
      const sbk_attachment_signature& s = d.signature;
      bool valid = s.color_count <= SBK_MAX_COLOR_ATTACHMENTS && s.samples != 0 && s.samples <= 64 &&
                   (s.samples & (s.samples - 1)) == 0;
      for (uint32_t i = s.color_count; valid && i < SBK_MAX_COLOR_ATTACHMENTS; ++i) valid = s.color_formats[i] == 0;
      if (!valid)
        return error("bad_signature", "a dynamic-state fallback recipe's attachment signature is not one a host state has");
      RecipeOrder order{index_of(d.family_key), s.color_count, s.samples, s.depth_format, 0};
      for (uint32_t i = 0; i < SBK_MAX_COLOR_ATTACHMENTS; ++i) order[5 + i] = s.color_formats[i];
      recipes.emplace_back(order, &d);
    }
    std::sort(recipes.begin(), recipes.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 1; i < recipes.size(); ++i)
      if (recipes[i].first == recipes[i - 1].first)
        return error("duplicate_dynamic_fallback", "two dynamic-state fallback recipes for one family and attachment signature");
    ByteWriter w;
    w.u32(static_cast<uint32_t>(recipes.size()));
    w.u32(mask);
    for (const auto& location : defaults)
      for (float v : location) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        w.u32(bits);
      }
    for (const auto& [order, d] : recipes) {
      w.u32(order[0]);
      w.u32(module_index.at(d->vertex));
      w.u32(module_index.at(d->fragment));
      w.u32(layout_index.at(d->layout));
      for (size_t f = 1; f < order.size(); ++f) w.u32(order[f]);
    }
    out[SBK_SECTION_DYNAMIC_FALLBACKS] = std::move(w.data());
  }

  if (!prewarm_.empty()) {
    ByteWriter w;
    w.u32(static_cast<uint32_t>(prewarm_.size()));
    w.u32(0);
    std::vector<bool> taken(entries.size(), false);
    for (const Prewarm& p : prewarm_) {
      const Entry* e = find(p.pipeline_key);
      if (e == nullptr || e->key.size() < 3 || e->key[1] != SBK_KEY_KIND_PIPELINE || e->key[2] != SBK_ROUTE_EXACT)
        return error("prewarm_key", "prewarm key " + KeyHash::of(p.pipeline_key).to_hex() + " is no exact pipeline of the bundle");
      const uint32_t index = index_of(p.pipeline_key);
      if (taken[index])
        return error("duplicate_prewarm", "pipeline " + e->hash.to_hex() + " is in the prewarm order twice");
      taken[index] = true;
      w.u32(index);
      w.u32(p.first_frame);
    }
    out[SBK_SECTION_PREWARM] = std::move(w.data());
  }
  return out;
}

}  // namespace shaderbake::bundle

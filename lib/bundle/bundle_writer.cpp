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
  meta["format"] = "shaderbake-bundle/3";
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

// A byte table section (schemas/bundle.md): u32 count, u32 reserved, each item's end offset, then the items.
Result<std::vector<uint8_t>> byte_table(const std::vector<std::span<const uint8_t>>& items) {
  ByteWriter w;
  uint64_t end = 0;
  w.u32(static_cast<uint32_t>(items.size()));
  w.u32(0);
  for (const auto& item : items) {
    end += item.size();
    if (end > UINT32_MAX)
      return Error{ErrorKind::internal, "section_too_large", "a byte table of more than 4 GiB", {}};
    w.u32(static_cast<uint32_t>(end));
  }
  for (const auto& item : items) w.bytes(item);
  return std::move(w.data());
}

// The four parts a canonical host-state encoding is stored as (schemas/bundle.md, HOST_STATES): rasterization,
// depth and stencil; the attachments with the depth/stencil format and samples; the dynamic states and vertex
// bindings; the vertex attributes. Parts vary independently across a game's states, so each is stored once.
// nullopt when the bytes are not exactly a canonical encoding.
std::optional<std::array<std::span<const uint8_t>, SBK_HOST_STATE_PARTS>> host_state_parts(std::span<const uint8_t> host) {
  sbk_host_state decoded;
  size_t consumed = 0;
  if (sbk_decode_host_state(host.data(), host.size(), &decoded, &consumed) != SBK_OK || consumed != host.size())
    return std::nullopt;
  const size_t outputs = 40, bindings = outputs + 1 + 12 * size_t{decoded.color_count} + 4 + 1,
               attributes = bindings + 4 + 1 + 9 * size_t{decoded.binding_count};
  return std::array<std::span<const uint8_t>, SBK_HOST_STATE_PARTS>{
      host.subspan(0, outputs), host.subspan(outputs, bindings - outputs), host.subspan(bindings, attributes - bindings),
      host.subspan(attributes)};
}

std::string_view key_view(std::span<const uint8_t> key) {
  return {reinterpret_cast<const char*>(key.data()), key.size()};
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
  e.kind = key.size() >= 2 ? key[1] : 0;
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

void BundleBuilder::add_compute_pipeline(std::span<const uint8_t> compute_pipeline_key, ModuleId compute,
                                         const LayoutContract& layout) {
  Entry& e = new_entry(compute_pipeline_key);
  e.fragment = compute;
  e.layout = layout;
}

void BundleBuilder::set_specialization(std::span<const uint8_t> pipeline_key, SpecializationStage vertex,
                                       SpecializationStage shader) {
  specializations_.push_back({{pipeline_key.begin(), pipeline_key.end()}, std::move(vertex), std::move(shader)});
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
  uint64_t frame_bytes = 0;
  for (const auto& frame : compressed->frames) frame_bytes += frame.size();
  if (frame_bytes > UINT32_MAX)
    return Error{ErrorKind::internal, "bundle_too_large", "the modules' frames exceed the 4 GiB a bundle's MODULE_DATA holds", {}};

  std::map<uint32_t, std::vector<uint8_t>> sections;
  sections[SBK_SECTION_META] = meta_section(identity_);
  for (auto& [type, bytes] : module_sections(*compressed)) sections[type] = std::move(bytes);
  auto layouts = layouts_section(c.layout_index);
  if (!layouts) return std::move(layouts).error();
  sections[SBK_SECTION_LAYOUTS] = std::move(*layouts);
  auto records = record_sections(c);
  if (!records) return std::move(records).error();
  for (auto& [type, bytes] : *records) sections[type] = std::move(bytes);
  sections[SBK_SECTION_INDEX] = index_section(c.entries);
  auto router = router_sections(c);
  if (!router) return std::move(router).error();
  for (auto& [type, bytes] : *router) sections[type] = std::move(bytes);
  auto specialization = specialization_sections(c);
  if (!specialization) return std::move(specialization).error();
  for (auto& [type, bytes] : *specialization) sections[type] = std::move(bytes);
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
  for (uint32_t i = 0; i < c.entries.size(); ++i) c.entry_index.emplace(key_view(c.entries[i]->key), i);
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
    w.u32(static_cast<uint32_t>(data_offset));
    w.u32(static_cast<uint32_t>(frames[i].size()));
    w.u32(static_cast<uint32_t>(m.words.size() * 4));
    w.u32(compressed.parents[i]);
    w.u64(XXH3_64bits(m.words.data(), m.words.size() * 4));
    w.u16(static_cast<uint16_t>(m.stage));
    w.u16((dictionary.empty() ? 0u : 1u) | (compressed.packed[i] ? 2u : 0u));
    // The row's check: XXH3-64 of its first 28 bytes, seeded with its index, low 32 bits.
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

Result<std::map<uint32_t, std::vector<uint8_t>>> BundleBuilder::record_sections(const Canonical& canonical) {
  const std::vector<const Entry*>& entries = canonical.entries;
  auto error = [](const char* reason, std::string message) {
    return Error{ErrorKind::internal, reason, std::move(message), {}};
  };
  auto module_of = [&](const std::optional<ModuleId>& id) -> Result<uint32_t> {
    if (!id) return uint32_t{SBK_NO_MODULE};
    auto it = canonical.module_index.find(*id);
    if (it == canonical.module_index.end()) return error("unknown_module", "a record names a module never added");
    return it->second;
  };
  const auto& position = canonical.entry_index;

  // Shader keys in index order of their entries; host states and their parts each once, in byte order (a part
  // keyed by its number and bytes, so equal bytes in two roles stay two items).
  std::vector<std::span<const uint8_t>> shader_keys;
  std::vector<uint32_t> key_item(entries.size(), 0), shader_entry(entries.size(), SBK_NO_ENTRY);
  std::vector<std::span<const uint8_t>> host_of(entries.size());
  std::map<std::vector<uint8_t>, uint32_t> host_index, part_index;
  for (uint32_t i = 0; i < entries.size(); ++i) {
    const Entry& e = *entries[i];
    const std::string name = e.hash.to_hex();
    if (e.kind == SBK_KEY_KIND_EXACT || e.kind == SBK_KEY_KIND_FAMILY) {
      if (e.key.size() < 4) return error("bad_key", "key " + name + " is shorter than its 4-byte head");
      if (e.kind == SBK_KEY_KIND_FAMILY && e.rejection != 0)
        return error("bad_key", "family " + name + " carries an admission reason");
      key_item[i] = static_cast<uint32_t>(shader_keys.size());
      shader_keys.push_back(e.key);
      continue;
    }
    if (e.kind != SBK_KEY_KIND_PIPELINE && e.kind != SBK_KEY_KIND_COMPUTE_PIPELINE)
      return error("bad_key", "key " + name + " is of no kind a bundle stores");
    // [0, kind, route, 1], u16 fragment key length L, the fragment key, then (graphics) the host state.
    const std::span<const uint8_t> key(e.key);
    const size_t length = key.size() >= 6 ? load_u16_le(key.data() + 4) : 0;
    const uint8_t route = key.size() >= 3 ? key[2] : 0;
    if (key.size() < 6 + length || key[0] != SBK_GUEST_NONE || key[3] != 1 ||
        (route != SBK_ROUTE_EXACT && route != SBK_ROUTE_FALLBACK) ||
        (e.kind == SBK_KEY_KIND_COMPUTE_PIPELINE && key.size() != 6 + length))
      return error("bad_pipeline_key", "pipeline key " + name + " is not a pipeline key of version 1");
    const auto shader = position.find(key_view(key.subspan(6, length)));
    const uint32_t wanted_kind = route == SBK_ROUTE_EXACT ? SBK_KEY_KIND_EXACT : SBK_KEY_KIND_FAMILY;
    if (shader == position.end() || entries[shader->second]->kind != wanted_kind ||
        entries[shader->second]->status != SBK_STATUS_READY || entries[shader->second]->fragment != e.fragment)
      return error("pipeline_fragment", "pipeline " + name + ": its fragment identity has no ready entry with its module");
    shader_entry[i] = shader->second;
    if (!e.layout || (e.kind == SBK_KEY_KIND_PIPELINE && !e.vertex) || !e.fragment)
      return error("incomplete_pipeline", "pipeline " + name + " lacks a module or its layout");
    if (e.kind == SBK_KEY_KIND_COMPUTE_PIPELINE) continue;
    host_of[i] = key.subspan(6 + length);
    const auto parts = host_state_parts(host_of[i]);
    if (!parts) return error("bad_host_state", "pipeline " + name + ": its host state is not a canonical encoding");
    host_index.emplace(std::vector<uint8_t>(host_of[i].begin(), host_of[i].end()), 0);
    for (uint8_t p = 0; p < SBK_HOST_STATE_PARTS; ++p) {
      std::vector<uint8_t> tagged{p};
      tagged.insert(tagged.end(), (*parts)[p].begin(), (*parts)[p].end());
      part_index.emplace(std::move(tagged), 0);
    }
  }
  std::vector<std::span<const uint8_t>> part_items;
  for (auto& [tagged, index] : part_index) {
    index = static_cast<uint32_t>(part_items.size());
    part_items.push_back(std::span<const uint8_t>(tagged).subspan(1));
  }
  ByteWriter hosts;
  hosts.u32(static_cast<uint32_t>(host_index.size()));
  hosts.u32(0);
  for (auto& [bytes, index] : host_index) {
    index = static_cast<uint32_t>((hosts.size() - 8) / SBK_BUNDLE_HOST_STATE_SIZE);
    const auto parts = *host_state_parts(bytes);
    for (uint8_t p = 0; p < SBK_HOST_STATE_PARTS; ++p) {
      std::vector<uint8_t> tagged{p};
      tagged.insert(tagged.end(), parts[p].begin(), parts[p].end());
      hosts.u32(part_index.at(tagged));
    }
  }

  ByteWriter rows;
  rows.reserve(entries.size() * SBK_BUNDLE_RECORD_SIZE);
  for (uint32_t i = 0; i < entries.size(); ++i) {
    const Entry& e = *entries[i];
    auto fragment = module_of(e.fragment);
    auto vertex = module_of(e.vertex);
    if (!fragment) return std::move(fragment).error();
    if (!vertex) return std::move(vertex).error();
    const size_t at = rows.size();
    rows.u32(0);  // the row's check, patched below
    rows.u8(static_cast<uint8_t>(e.kind));
    if (e.kind == SBK_KEY_KIND_EXACT || e.kind == SBK_KEY_KIND_FAMILY) {
      if (e.status > SBK_STATUS_COMPILE_FAILED || e.rejection > 0xFFFF)
        return error("bad_record", "entry " + e.hash.to_hex() + ": a status or admission reason out of range");
      rows.u8(static_cast<uint8_t>(e.status));
      rows.u16(static_cast<uint16_t>(e.rejection));
      rows.u32(key_item[i]);
      rows.u32(*fragment);
      rows.u32(0);
    } else {
      const uint32_t layout = canonical.layout_index.at(*e.layout);
      if (layout > 0xFFFF) return error("too_many_layouts", "a bundle holds at most 65,536 layout contracts");
      rows.u8(e.key[2]);
      rows.u16(static_cast<uint16_t>(layout));
      rows.u32(shader_entry[i]);
      if (e.kind == SBK_KEY_KIND_PIPELINE) {
        rows.u32(host_index.at(std::vector<uint8_t>(host_of[i].begin(), host_of[i].end())));
        rows.u32(*vertex);
      } else {
        rows.u32(SBK_NO_ENTRY);
        rows.u32(SBK_NO_MODULE);
      }
    }
    // The check covers the row's other 16 bytes, seeded with its position and its key's hash tag.
    const uint64_t seed = (uint64_t{i} << 32) | static_cast<uint32_t>(e.hash.high);
    const uint32_t check = static_cast<uint32_t>(XXH3_64bits_withSeed(rows.data().data() + at + 4, SBK_BUNDLE_RECORD_SIZE - 4, seed));
    store_u32_le(rows.data().data() + at, check);
  }
  std::map<uint32_t, std::vector<uint8_t>> out;
  out[SBK_SECTION_RECORDS] = std::move(rows.data());
  auto keys = byte_table(shader_keys);
  if (!keys) return std::move(keys).error();
  out[SBK_SECTION_SHADER_KEYS] = std::move(*keys);
  out[SBK_SECTION_HOST_STATES] = std::move(hosts.data());
  auto parts = byte_table(part_items);
  if (!parts) return std::move(parts).error();
  out[SBK_SECTION_HOST_STATE_PARTS] = std::move(*parts);
  return out;
}

std::vector<uint8_t> BundleBuilder::index_section(const std::vector<const Entry*>& entries) {
  ByteWriter index;
  const uint32_t count = static_cast<uint32_t>(entries.size());
  // About eight entries a bucket: a probe scans one cache line of tags.
  uint32_t bits = 0;
  while (bits < SBK_BUNDLE_MAX_DIRECTORY_BITS && (uint64_t{8} << bits) < count) ++bits;
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
  for (const Entry* entry : entries) index.u32(static_cast<uint32_t>(entry->hash.high));
  return std::move(index.data());
}

Result<std::map<uint32_t, std::vector<uint8_t>>> BundleBuilder::specialization_sections(
    const Canonical& canonical) const {
  const std::vector<const Entry*>& entries = canonical.entries;
  std::map<uint32_t, std::vector<uint8_t>> out;
  if (specializations_.empty()) return out;
  auto error = [](std::string message) { return Error{ErrorKind::internal, "bad_specialization", std::move(message), {}}; };
  const auto& position = canonical.entry_index;
  std::map<std::vector<uint8_t>, uint32_t> items;  // item bytes -> item index, assigned in byte order
  std::map<uint32_t, std::vector<uint8_t>> item_of;  // pipeline entry -> its item's bytes
  for (const Specialization& s : specializations_) {
    const auto it = position.find(key_view(s.pipeline_key));
    const std::string name = KeyHash::of(s.pipeline_key).to_hex();
    if (it == position.end() ||
        (entries[it->second]->kind != SBK_KEY_KIND_PIPELINE && entries[it->second]->kind != SBK_KEY_KIND_COMPUTE_PIPELINE))
      return error("specialization data for " + name + ", which is no pipeline of the bundle");
    if (entries[it->second]->kind == SBK_KEY_KIND_COMPUTE_PIPELINE && (!s.vertex.entries.empty() || !s.vertex.data.empty()))
      return error("specialization data of compute pipeline " + name + " for a vertex stage");
    ByteWriter w;
    for (const SpecializationStage* stage : {&s.vertex, &s.shader}) {
      w.u32(static_cast<uint32_t>(stage->entries.size()));
      w.u32(static_cast<uint32_t>(stage->data.size()));
      for (size_t m = 0; m < stage->entries.size(); ++m) {
        const auto& e = stage->entries[m];
        if ((m > 0 && e.constant_id <= stage->entries[m - 1].constant_id) ||
            (e.size != 1 && e.size != 2 && e.size != 4 && e.size != 8) || e.offset > stage->data.size() ||
            e.size > stage->data.size() - e.offset)
          return error("pipeline " + name + ": a specialization map entry out of order or outside its data");
        w.u32(e.constant_id);
        w.u32(e.offset);
        w.u32(e.size);
      }
      w.bytes(stage->data);
      while (w.size() % 4) w.u8(0);
    }
    if (!item_of.emplace(it->second, w.data()).second) return error("pipeline " + name + " has specialization data twice");
    items.emplace(std::move(w.data()), 0);
  }
  std::vector<std::span<const uint8_t>> item_bytes;
  for (auto& [bytes, index] : items) {
    index = static_cast<uint32_t>(item_bytes.size());
    item_bytes.push_back(bytes);
  }
  ByteWriter w;
  w.u32(static_cast<uint32_t>(item_of.size()));
  w.u32(0);
  for (const auto& [entry, bytes] : item_of) {
    w.u32(entry);
    w.u32(items.at(bytes));
  }
  auto table = byte_table(item_bytes);
  if (!table) return std::move(table).error();
  w.bytes(*table);
  out[SBK_SECTION_SPECIALIZATION_DATA] = std::move(w.data());
  return out;
}

Result<std::map<uint32_t, std::vector<uint8_t>>> BundleBuilder::router_sections(const Canonical& canonical) const {
  const std::vector<const Entry*>& entries = canonical.entries;
  const std::map<ModuleId, uint32_t>& module_index = canonical.module_index;
  const std::map<LayoutContract, uint32_t>& layout_index = canonical.layout_index;
  auto error = [](const char* reason, std::string message) {
    return Error{ErrorKind::internal, reason, std::move(message), {}};
  };
  std::map<uint32_t, std::vector<uint8_t>> out;
  // Keys resolve to entry indices in the final (sorted) index order.
  const auto& position = canonical.entry_index;
  auto find = [&](const std::vector<uint8_t>& key) -> const Entry* {
    const auto it = position.find(key_view(key));
    return it == position.end() ? nullptr : entries[it->second];
  };
  auto index_of = [&](const std::vector<uint8_t>& key) { return position.at(key_view(key)); };

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
      if (e == nullptr || e->kind != SBK_KEY_KIND_PIPELINE || e->key.size() < 3 || e->key[2] != SBK_ROUTE_EXACT)
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

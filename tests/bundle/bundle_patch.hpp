// SPDX-License-Identifier: MIT
#pragma once

// Crafted bundles for tests: a valid bundle's bytes changed field by field, then sealed again (record checks,
// section checksums, the header check) the way a hostile writer would, so that the damage gets past every
// checksum and reaches the rules behind them. Test code: aborts (with a message) on a bundle it cannot parse.

#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "lib/core/byte_io.hpp"
#include "lib/core/little_endian.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::testing {

class PatchableBundle {
 public:
  static PatchableBundle read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) die("cannot read " + path);
    PatchableBundle b;
    b.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (b.bytes.size() < SBK_BUNDLE_HEADER_SIZE) die(path + " is not a bundle");
    return b;
  }

  void write(const std::string& path) const {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) die("cannot write " + path);
  }

  uint32_t u32(uint64_t at) const { return load_u32_le(bytes.data() + at); }
  uint64_t u64(uint64_t at) const { return load_u64_le(bytes.data() + at); }
  void set_u32(uint64_t at, uint32_t v) { store_u32_le(bytes.data() + at, v); }
  void set_u64(uint64_t at, uint64_t v) { store_u64_le(bytes.data() + at, v); }

  uint32_t section_count() const { return u32(24); }
  uint64_t table_entry(uint32_t i) const { return u32(12) + uint64_t{i} * SBK_BUNDLE_SECTION_ENTRY_SIZE; }
  // Absolute offset and size of a section (aborts when absent).
  uint64_t section(uint32_t type) const { return u64(table_entry(find(type)) + 8); }
  uint64_t section_size(uint32_t type) const { return u64(table_entry(find(type)) + 16); }

  // INDEX.
  uint32_t entry_count() const { return u32(section(SBK_SECTION_INDEX)); }
  uint32_t directory_bits() const { return u32(section(SBK_SECTION_INDEX) + 4); }
  uint64_t directory_word(uint64_t bucket) const { return section(SBK_SECTION_INDEX) + 16 + 4 * bucket; }
  uint64_t index_row(uint32_t entry) const {
    const uint64_t buckets = uint64_t{1} << directory_bits();
    return section(SBK_SECTION_INDEX) + 16 + ((4 * (buckets + 1) + 7) & ~uint64_t{7}) +
           uint64_t{entry} * SBK_BUNDLE_INDEX_ENTRY_SIZE;
  }
  // RECORDS: the row of an entry, and its fields (offsets as in schemas/bundle.md).
  uint64_t record(uint32_t entry) const { return section(SBK_SECTION_RECORDS) + uint64_t{entry} * SBK_BUNDLE_RECORD_SIZE; }
  uint8_t kind(uint32_t entry) const { return bytes[record(entry) + 4]; }
  uint8_t route(uint32_t entry) const { return bytes[record(entry) + 5]; }
  // Sets a field of `size` bytes (1, 2 or 4) of a row and seals its check again (seeded with the entry's
  // position and hash tag).
  void set_record_field(uint32_t entry, uint64_t field, uint32_t size, uint32_t value) {
    const uint64_t r = record(entry);
    for (uint32_t k = 0; k < size; ++k) bytes[r + field + k] = static_cast<uint8_t>(value >> (8 * k));
    const uint64_t seed = (uint64_t{entry} << 32) | u32(index_row(entry));
    set_u32(r, static_cast<uint32_t>(XXH3_64bits_withSeed(bytes.data() + r + 4, SBK_BUNDLE_RECORD_SIZE - 4, seed)));
  }
  // The high half of entry `entry`'s key hash, from its key as the loader assembles it (the index stores only
  // its low 32 bits). Aborts when the entry does not read.
  uint64_t hash_high(uint32_t entry) const {
    sbk_bundle b;
    if (sbk_bundle_open_memory(&b, bytes.data(), bytes.size()) != SBK_OK) die("the bundle does not open");
    std::vector<uint8_t> key(64 * 1024);
    size_t size = 0;
    if (sbk_bundle_entry_key(&b, entry, key.data(), key.size(), &size) != SBK_OK) die("an entry does not read");
    sbk_bundle_close(&b);
    return sbk_hash_key(key.data(), size).high;
  }
  // The first entry of a kind (aborts when none).
  uint32_t first_of_kind(uint8_t wanted) const {
    for (uint32_t i = 0; i < entry_count(); ++i)
      if (kind(i) == wanted) return i;
    die("no entry of kind " + std::to_string(wanted));
  }

  // LAYOUTS.
  uint32_t layout_count() const { return u32(section(SBK_SECTION_LAYOUTS)); }
  uint64_t layout(uint32_t index) const { return section(SBK_SECTION_LAYOUTS) + 8 + uint64_t{index} * SBK_BUNDLE_LAYOUT_SIZE; }

  // Replaces a section's bytes (any size), laying the sections after it out again (8-aligned, in file order).
  void replace_section(uint32_t type, const std::vector<uint8_t>& content) {
    struct Section {
      uint64_t table_at, offset;
      std::vector<uint8_t> bytes;
    };
    std::vector<Section> sections;
    for (uint32_t i = 0; i < section_count(); ++i) {
      const uint64_t e = table_entry(i), offset = u64(e + 8), size = u64(e + 16);
      sections.push_back({e, offset,
                          u32(e) == type ? content
                                         : std::vector<uint8_t>(bytes.begin() + static_cast<long>(offset),
                                                                bytes.begin() + static_cast<long>(offset + size))});
    }
    std::sort(sections.begin(), sections.end(), [](const Section& a, const Section& b) { return a.offset < b.offset; });
    std::vector<uint8_t> out(bytes.begin(), bytes.begin() + static_cast<long>(table_entry(section_count())));
    for (const Section& s : sections) {
      out.resize((out.size() + 7) & ~size_t{7}, 0);
      const uint64_t at = out.size();
      out.insert(out.end(), s.bytes.begin(), s.bytes.end());
      for (int i = 0; i < 8; ++i) {
        out[s.table_at + 8 + i] = static_cast<uint8_t>(at >> (8 * i));
        out[s.table_at + 16 + i] = static_cast<uint8_t>(uint64_t{s.bytes.size()} >> (8 * i));
      }
    }
    bytes = std::move(out);
  }
  // Drops a section and its table entry, laying the sections out again (the header's count follows).
  void remove_section(uint32_t type) {
    const uint32_t dropped = find(type), count = section_count();
    std::vector<std::pair<uint32_t, std::vector<uint8_t>>> kept;  // (type, bytes), in table order
    for (uint32_t i = 0; i < count; ++i)
      if (i != dropped) kept.emplace_back(u32(table_entry(i)), section_bytes(u32(table_entry(i))));
    std::vector<uint8_t> out(bytes.begin(), bytes.begin() + static_cast<long>(table_entry(0)));
    out.resize(out.size() + kept.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE, 0);
    for (uint32_t i = 0; i < kept.size(); ++i) {
      const uint64_t e = table_entry(0) + uint64_t{i} * SBK_BUNDLE_SECTION_ENTRY_SIZE;
      for (int k = 0; k < 4; ++k) out[e + k] = static_cast<uint8_t>(kept[i].first >> (8 * k));
      out.resize((out.size() + 7) & ~size_t{7}, 0);
      const uint64_t at = out.size();
      out.insert(out.end(), kept[i].second.begin(), kept[i].second.end());
      for (int k = 0; k < 8; ++k) {
        out[e + 8 + k] = static_cast<uint8_t>(at >> (8 * k));
        out[e + 16 + k] = static_cast<uint8_t>(uint64_t{kept[i].second.size()} >> (8 * k));
      }
    }
    bytes = std::move(out);
    set_u32(24, count - 1);
  }
  bool has_section(uint32_t type) const {
    for (uint32_t i = 0; i < section_count(); ++i)
      if (u32(table_entry(i)) == type) return true;
    return false;
  }

  // DYNAMIC_FALLBACKS: recipe `index`'s bytes, and the default of a location's component.
  uint64_t recipe(uint32_t index) const {
    return section(SBK_SECTION_DYNAMIC_FALLBACKS) + SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE +
           uint64_t{index} * SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE;
  }
  uint64_t vertex_default(uint32_t location, uint32_t component) const {
    return section(SBK_SECTION_DYNAMIC_FALLBACKS) + 8 + 16 * uint64_t{location} + 4 * uint64_t{component};
  }
  // PREWARM: position `p`'s 8 bytes.
  uint64_t prewarm(uint32_t p) const { return section(SBK_SECTION_PREWARM) + 8 + 8 * uint64_t{p}; }
  // The first pipeline entry of a route (aborts when none).
  uint32_t first_pipeline_of_route(uint8_t route) const {
    for (uint32_t i = 0; i < entry_count(); ++i)
      if (kind(i) == SBK_KEY_KIND_PIPELINE && bytes[record(i) + 5] == route) return i;
    die("no pipeline entry of route " + std::to_string(route));
  }

  std::vector<uint8_t> section_bytes(uint32_t type) const {
    const uint64_t at = section(type);
    return {bytes.begin() + static_cast<long>(at), bytes.begin() + static_cast<long>(at + section_size(type))};
  }

  // Every section checksum, the file size and the header check made to match the bytes.
  void seal() {
    for (uint32_t i = 0; i < section_count(); ++i) {
      const uint64_t e = table_entry(i);
      set_u64(e + 24, XXH3_64bits(bytes.data() + u64(e + 8), u64(e + 16)));
    }
    set_u64(16, bytes.size());
    set_u64(56, XXH3_64bits_withSeed(bytes.data() + u32(12), uint64_t{section_count()} * SBK_BUNDLE_SECTION_ENTRY_SIZE,
                                     XXH3_64bits(bytes.data(), 56)));
  }

  std::vector<uint8_t> bytes;

 private:
  [[noreturn]] static void die(const std::string& why) {
    std::fprintf(stderr, "bundle_patch: %s\n", why.c_str());
    std::abort();
  }
  uint32_t find(uint32_t type) const {
    for (uint32_t i = 0; i < section_count(); ++i)
      if (u32(table_entry(i)) == type) return i;
    die("no section of type " + std::to_string(type));
  }
};

// The crafted bundles the tests use, by name; false for a name it does not know. Each changes one thing and
// seals everything a checksum covers, unless its name says the damage is left for a checksum to find.
//   layout-index-of-another-layout  the first pipeline's row names the next layout (a valid index)
//   descriptor-count-9133           the first layout with a binding gives binding 0 9,133 descriptors
//   directory-reversed              directory[b] = directory[b + 1] + 1 for the first b where that stays <= E
//   directory-end                   directory[2^D] = E - 1
//   directory-past                  directory[0] = E + 7
//   directory-shifted               directory[b] + 1 for the first non-empty bucket b (still monotonic, <= E)
//   directory-padding               the 4 bytes after an odd number of directory words not zero
//   directory-bits                  D one more than the smallest with 8 x 2^D >= E (directory rebuilt correctly)
//   index-reserved                  INDEX bytes 8-15 not zero
//   record-unsealed                 the first pipeline's vertex module index changed, its row check not
//   report-frame                    the REPORT section's zstd magic broken, its checksum sealed
//   report-unsealed                 a byte of the REPORT section flipped, its checksum left as it was
//   meta-not-json                   META is "not json"
//   trailing-bytes                  8 zero bytes after the last section, the header's file size counting them
//   guest-unknown                   the header's guest model is 240, which no model has: a valid bundle of a
//                                   guest this build does not know
//   key-schema-next                 the header's key schema plus one: a valid bundle of a key schema its
//                                   guest model does not speak yet
//   specialization-value-changed    the low bit of SPECIALIZATION_DATA's last word (the last item's last value)
//                                   flipped, its checksum sealed: well-formed data its pipeline's key does not give
// Router data (bundles with DYNAMIC_FALLBACKS and PREWARM):
//   recipe-family-is-a-pipeline     the first recipe's family entry is the first pipeline entry
//   recipe-fragment-module          the first recipe's fragment module is its vertex module
//   recipe-samples-3                the first recipe's samples are 3
//   recipe-duplicate                the first recipe twice (the count one more)
//   recipe-layout-past-count        the first recipe's layout index is the layout count
//   vertex-default-nan              the default of location 0, component 0 is a NaN
//   prewarm-fallback-pipeline       prewarm position 0 names the first fallback-route pipeline entry
//   prewarm-duplicate               prewarm position 1 names position 0's entry
//   strip-router-data               both sections removed: a bundle without router data
inline bool apply_craft(PatchableBundle& b, const std::string& name) {
  const uint32_t entries = b.entry_count();
  const uint64_t buckets = uint64_t{1} << b.directory_bits();
  auto directory = [&](uint64_t k) { return b.u32(b.directory_word(k)); };
  if (name == "layout-index-of-another-layout") {
    const uint32_t p = b.first_of_kind(SBK_KEY_KIND_PIPELINE);
    b.set_record_field(p, 6, 2, (load_u16_le(b.bytes.data() + b.record(p) + 6) + 1) % b.layout_count());
  } else if (name == "descriptor-count-9133") {
    uint32_t l = 0;
    while (l < b.layout_count() && b.u32(b.layout(l)) == 0) ++l;
    if (l == b.layout_count()) return false;
    b.set_u32(b.layout(l) + 16 + 8, 9133);
  } else if (name == "directory-reversed") {
    uint64_t k = 0;
    while (k < buckets && directory(k + 1) >= entries) ++k;
    if (k == buckets) return false;
    b.set_u32(b.directory_word(k), directory(k + 1) + 1);
  } else if (name == "directory-end") {
    b.set_u32(b.directory_word(buckets), entries - 1);
  } else if (name == "directory-past") {
    b.set_u32(b.directory_word(0), entries + 7);
  } else if (name == "directory-shifted") {
    uint64_t k = 0;
    while (k < buckets && directory(k) == directory(k + 1)) ++k;
    if (k == buckets) return false;
    b.set_u32(b.directory_word(k), directory(k) + 1);
  } else if (name == "directory-padding") {
    if ((buckets + 1) % 2 == 0) return false;
    b.set_u32(b.directory_word(buckets + 1), 0xA5A5A5A5u);
  } else if (name == "directory-bits") {
    const uint32_t bits = b.directory_bits() + 1;
    const uint64_t more = uint64_t{1} << bits;
    ByteWriter index;
    index.u32(entries);
    index.u32(bits);
    index.u64(0);
    uint32_t e = 0;
    std::vector<uint64_t> highs(entries);
    for (uint32_t i = 0; i < entries; ++i) highs[i] = b.hash_high(i);
    for (uint64_t k = 0; k <= more; ++k) {
      while (e < entries && (highs[e] >> (64 - bits)) < k) ++e;
      index.u32(k == more ? entries : e);
    }
    index.align8();
    for (uint32_t i = 0; i < entries; ++i)
      index.bytes(std::span<const uint8_t>(b.bytes).subspan(b.index_row(i), SBK_BUNDLE_INDEX_ENTRY_SIZE));
    b.replace_section(SBK_SECTION_INDEX, index.data());
  } else if (name == "index-reserved") {
    b.set_u64(b.section(SBK_SECTION_INDEX) + 8, 1);
  } else if (name == "record-unsealed") {
    const uint32_t p = b.first_of_kind(SBK_KEY_KIND_PIPELINE);
    b.set_u32(b.record(p) + 16, b.u32(b.record(p) + 16) ^ 1u);
  } else if (name == "report-frame") {
    b.bytes[b.section(SBK_SECTION_REPORT)] ^= 0xFF;
  } else if (name == "report-unsealed") {
    b.bytes[b.section(SBK_SECTION_REPORT) + b.section_size(SBK_SECTION_REPORT) / 2] ^= 0x10;
    return true;
  } else if (name == "trailing-bytes") {
    b.bytes.resize(b.bytes.size() + 8, 0);
  } else if (name.rfind("recipe-", 0) == 0 || name == "vertex-default-nan") {
    if (!b.has_section(SBK_SECTION_DYNAMIC_FALLBACKS) || b.u32(b.section(SBK_SECTION_DYNAMIC_FALLBACKS)) == 0)
      return false;
    const uint64_t r = b.recipe(0);
    if (name == "recipe-family-is-a-pipeline") {
      b.set_u32(r, b.first_of_kind(SBK_KEY_KIND_PIPELINE));
    } else if (name == "recipe-fragment-module") {
      b.set_u32(r + 8, b.u32(r + 4));
    } else if (name == "recipe-samples-3") {
      b.set_u32(r + 20, 3);
    } else if (name == "recipe-layout-past-count") {
      b.set_u32(r + 12, b.layout_count());
    } else if (name == "vertex-default-nan") {
      b.set_u32(b.vertex_default(0, 0), 0x7FC00000u);
    } else if (name == "recipe-duplicate") {
      std::vector<uint8_t> section = b.section_bytes(SBK_SECTION_DYNAMIC_FALLBACKS);
      const auto first = section.begin() + SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE;
      const std::vector<uint8_t> copy(first, first + SBK_BUNDLE_DYNAMIC_FALLBACK_SIZE);
      section.insert(section.begin() + SBK_BUNDLE_DYNAMIC_FALLBACKS_HEADER_SIZE, copy.begin(), copy.end());
      const uint32_t count = load_u32_le(section.data()) + 1;
      for (int i = 0; i < 4; ++i) section[i] = static_cast<uint8_t>(count >> (8 * i));
      b.replace_section(SBK_SECTION_DYNAMIC_FALLBACKS, section);
    } else {
      return false;
    }
  } else if (name == "prewarm-fallback-pipeline" || name == "prewarm-duplicate") {
    if (!b.has_section(SBK_SECTION_PREWARM) || b.u32(b.section(SBK_SECTION_PREWARM)) < 2) return false;
    if (name == "prewarm-fallback-pipeline") b.set_u32(b.prewarm(0), b.first_pipeline_of_route(SBK_ROUTE_FALLBACK));
    else b.set_u32(b.prewarm(1), b.u32(b.prewarm(0)));
  } else if (name == "strip-router-data") {
    if (!b.has_section(SBK_SECTION_DYNAMIC_FALLBACKS) || !b.has_section(SBK_SECTION_PREWARM)) return false;
    b.remove_section(SBK_SECTION_DYNAMIC_FALLBACKS);
    b.remove_section(SBK_SECTION_PREWARM);
  } else if (name == "meta-not-json") {
    const std::string text = "not json";
    b.replace_section(SBK_SECTION_META, {text.begin(), text.end()});
  } else if (name == "guest-unknown") {
    b.bytes[48] = 240;
  } else if (name == "key-schema-next") {
    b.bytes[50] = static_cast<uint8_t>(b.bytes[50] + 1);
  } else if (name == "specialization-value-changed") {
    b.bytes[b.section(SBK_SECTION_SPECIALIZATION_DATA) + b.section_size(SBK_SECTION_SPECIALIZATION_DATA) - 4] ^= 1;
  } else {
    return false;
  }
  b.seal();
  return true;
}

}  // namespace shaderbake::testing

// SPDX-License-Identifier: MIT
#include "tests/fuzz/fuzz_targets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <xxhash.h>
#include <zstd.h>

#include "guests/nv2a/nv2a_guest.hpp"
#include "guests/nv2a/oracle.hpp"
#include "guests/nv2a/vectors.hpp"
#include "lib/bundle/bundle_verify.hpp"
#include "lib/core/diagnostics.hpp"
#include "lib/plan/key_census.hpp"
#include "lib/trace/trace_reader.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_spirv.h"

namespace shaderbake::fuzz {

namespace {

// A broken contract is a finding: abort, so libFuzzer (and the replay under CTest) reports it.
void require(bool condition) {
  if (!condition) std::abort();
}

// A buffer of exactly `size` bytes from malloc (aligned for any type, so 8-aligned as the loader asks): one
// byte past the end is outside the allocation, and ASan reports any read of it.
struct ExactBuffer {
  explicit ExactBuffer(size_t size) : bytes(static_cast<uint8_t*>(std::malloc(size ? size : 1))) {}
  ~ExactBuffer() { std::free(bytes); }
  ExactBuffer(const ExactBuffer&) = delete;
  ExactBuffer& operator=(const ExactBuffer&) = delete;
  uint8_t* bytes;
};

// The full key of an entry that read (sbk_bundle_entry_key assembles a pipeline's): its size is the entry's.
std::vector<uint8_t> full_key(const sbk_bundle& bundle, const sbk_entry& entry) {
  std::vector<uint8_t> key(entry.key_size);
  size_t size = 0;
  require(sbk_bundle_entry_key(&bundle, entry.index, key.data(), key.size(), &size) == SBK_OK && size == entry.key_size);
  if (entry.key != nullptr) require(std::memcmp(key.data(), entry.key, size) == 0);
  return key;
}

// Probes `key` and holds a hit to the contract: the entry's key is the probed key, byte for byte.
void probe(const sbk_bundle& bundle, const uint8_t* key, size_t size) {
  sbk_entry found;
  if (sbk_bundle_find(&bundle, key, size, &found) != SBK_OK) return;
  require(found.index < sbk_bundle_entry_count(&bundle) && found.key_size == size);
  const std::vector<uint8_t> stored = full_key(bundle, found);
  require(std::memcmp(stored.data(), key, size) == 0);
}

// A pipeline key that decodes is canonical: encoding what it decodes to gives the same bytes; the entry's host
// state is the key's.
void decode_pipeline(const sbk_bundle& bundle, const sbk_entry& entry, const std::vector<uint8_t>& key) {
  uint8_t route = 0;
  const uint8_t* fragment = nullptr;
  size_t fragment_size = 0, size = 0;
  sbk_host_state host, stored;
  if (sbk_decode_pipeline_key(key.data(), key.size(), &route, &fragment, &fragment_size, &host) != SBK_OK) {
    require(sbk_bundle_entry_host_state(&bundle, entry.index, &stored) != SBK_OK);
    return;
  }
  require(route == entry.route);
  std::vector<uint8_t> again(SBK_PIPELINE_KEY_MAX_SIZE(fragment_size));
  require(sbk_encode_pipeline_key(route, fragment, fragment_size, &host, again.data(), again.size(), &size) == SBK_OK);
  require(size == key.size() && std::memcmp(again.data(), key.data(), size) == 0);
  require(sbk_bundle_entry_host_state(&bundle, entry.index, &stored) == SBK_OK);
  require(sbk_encode_pipeline_key(route, fragment, fragment_size, &stored, again.data(), again.size(), &size) == SBK_OK);
  require(size == key.size() && std::memcmp(again.data(), key.data(), size) == 0);
}

// Keeps nothing: the fuzzers only care that reporting works.
class NullSink final : public DiagnosticSink {
 public:
  void report(Severity, const Error& error) override { (void)error.to_string(); }
};

}  // namespace

void trace_reader(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const bool document_form = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  NullSink sink;
  nv2a::Nv2aGuestModel model;
  trace::ReaderOptions options;
  options.memo_limit_bytes = 1 << 16;  // small, so the fuzzer also walks the past-the-limit path
  // Bits 1 and 2 of the form byte shrink the record-size and depth limits, so that mutations of ordinary
  // seeds reach the oversized_record and too_deep paths too (seeds with form byte 0 or 1 read as before).
  if ((data[0] & 2) != 0) options.max_record_bytes = 512;
  if ((data[0] & 4) != 0) options.max_depth = 6;
  trace::TraceReader reader(model, options, sink);
  plan::KeyCensus census(reader);
  (void)reader.read_text("fuzz.jsonl", text, document_form, census);
  (void)census.counts();
}

void vector_reader(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = nv2a::parse_vector_text("fuzz.json", text);
  if (!file) return;
  for (const nv2a::VectorCase& c : file->cases) (void)nv2a::evaluate(c.program, c.inputs);
}

namespace {

uint32_t get_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A recipe the loader hands out keeps the rules it promises: indices in range, a valid attachment signature.
void require_recipe_rules(const sbk_bundle& bundle, const sbk_dynamic_fallback& d) {
  const sbk_attachment_signature& s = d.signature;
  require(d.family_entry < sbk_bundle_entry_count(&bundle) && d.vertex_module < sbk_bundle_module_count(&bundle) &&
          d.fragment_module < sbk_bundle_module_count(&bundle) && d.layout < sbk_bundle_layout_count(&bundle));
  require(s.color_count <= SBK_MAX_COLOR_ATTACHMENTS && s.samples >= 1 && s.samples <= 64 &&
          (s.samples & (s.samples - 1)) == 0);
  for (uint32_t i = s.color_count; i < SBK_MAX_COLOR_ATTACHMENTS; ++i) require(s.color_formats[i] == 0);
  sbk_entry family;
  require(sbk_bundle_entry_at(&bundle, d.family_entry, &family) == SBK_OK && family.kind == SBK_KEY_KIND_FAMILY &&
          family.status == SBK_STATUS_READY && family.fragment_module == d.fragment_module);
  sbk_module_info vertex;
  require(sbk_bundle_module_info(&bundle, d.vertex_module, &vertex) == SBK_OK && vertex.stage == 1);
}

// The router data (up to 64 recipes and prewarm positions): every result checked.
void exercise_router_data(const sbk_bundle& bundle) {
  constexpr uint32_t kMaxRows = 64;
  const uint32_t recipes = sbk_bundle_dynamic_fallback_count(&bundle);
  uint64_t size = 0;
  require((recipes == 0) || sbk_bundle_section(&bundle, SBK_SECTION_DYNAMIC_FALLBACKS, &size) != nullptr);
  for (uint32_t i = 0; i < std::min(recipes, kMaxRows) + 1; ++i) {
    sbk_dynamic_fallback d;
    const sbk_result r = sbk_bundle_dynamic_fallback(&bundle, i, &d);
    require(r == SBK_OK || r == SBK_ERROR_CORRUPT || (r == SBK_NOT_FOUND && i >= recipes));
    if (r != SBK_OK) {
      const sbk_dynamic_fallback zero{};
      require(std::memcmp(&d, &zero, sizeof d) == 0);
      continue;
    }
    require_recipe_rules(bundle, d);
    // Searching for what was read finds a recipe with exactly that family and signature (the first hit of
    // a damaged bundle's duplicates need not be this one).
    sbk_dynamic_fallback found;
    uint32_t index = 0;
    const sbk_result f = sbk_bundle_find_dynamic_fallback(&bundle, d.family_entry, &d.signature, &found, &index);
    require(f == SBK_OK || f == SBK_NOT_FOUND || f == SBK_ERROR_CORRUPT);
    if (f == SBK_OK) {
      require(index < recipes && found.family_entry == d.family_entry &&
              std::memcmp(&found.signature, &d.signature, sizeof d.signature) == 0);
      require_recipe_rules(bundle, found);
    } else {
      require(index == 0xFFFFFFFFu);
    }
  }
  uint32_t mask = 0;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  const sbk_result r = sbk_bundle_vertex_defaults(&bundle, &mask, defaults);
  require(r == SBK_OK || r == SBK_NOT_FOUND || r == SBK_ERROR_CORRUPT);
  require(r != SBK_NOT_FOUND || sbk_bundle_section(&bundle, SBK_SECTION_DYNAMIC_FALLBACKS, &size) == nullptr);
  for (uint32_t l = 0; l < SBK_VERTEX_LOCATIONS; ++l)
    for (uint32_t c = 0; c < 4; ++c) {
      require(std::isfinite(defaults[l][c]));
      if (r != SBK_OK || !((mask >> l) & 1)) require(defaults[l][c] == 0.0f);
    }
  require(r == SBK_OK || mask == 0);
  require((mask >> SBK_VERTEX_LOCATIONS) == 0);

  const uint32_t prewarm = sbk_bundle_prewarm_count(&bundle);
  for (uint32_t p = 0; p < std::min(prewarm, kMaxRows) + 1; ++p) {
    uint32_t entry = 0, frame = 0;
    const sbk_result w = sbk_bundle_prewarm_at(&bundle, p, &entry, &frame);
    require(w == SBK_OK || w == SBK_ERROR_CORRUPT || (w == SBK_NOT_FOUND && p >= prewarm));
    if (w != SBK_OK) {
      require(entry == 0xFFFFFFFFu && frame == 0);
      continue;
    }
    sbk_entry e;
    require(sbk_bundle_entry_at(&bundle, entry, &e) == SBK_OK && e.kind == SBK_KEY_KIND_PIPELINE &&
            e.route == SBK_ROUTE_EXACT);
  }
}

// Every call of an open bundle, each result held to the contract where the contract says something checkable.
void exercise_bundle(sbk_bundle& bundle) {
  constexpr uint32_t kMaxEntries = 256, kMaxModules = 16, kMaxLayouts = 64;
  constexpr uint32_t kMaxRead = 1u << 20;  // module and report bytes worth decoding for a fuzz input
  (void)sbk_bundle_check_sections(&bundle);

  const uint32_t entries = std::min(sbk_bundle_entry_count(&bundle), kMaxEntries);
  std::vector<uint8_t> mutated;
  for (uint32_t i = 0; i < entries; ++i) {
    sbk_entry entry;
    if (sbk_bundle_entry_at(&bundle, i, &entry) != SBK_OK) continue;
    require(entry.index == i && entry.key_size >= 2);
    const std::vector<uint8_t> key = full_key(bundle, entry);
    probe(bundle, key.data(), key.size());
    mutated = key;  // a key one byte away from one the bundle holds
    mutated[i % mutated.size()] ^= static_cast<uint8_t>(1u << (i % 8));
    probe(bundle, mutated.data(), mutated.size());
    if (entry.kind == SBK_KEY_KIND_PIPELINE) decode_pipeline(bundle, entry, key);
    sbk_specialization specialization;
    const sbk_result sr = sbk_bundle_specialization(&bundle, i, &specialization);
    require(sr == SBK_OK || sr == SBK_NOT_FOUND || sr == SBK_ERROR_CORRUPT);
  }

  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  const uint32_t modules = std::min(sbk_bundle_module_count(&bundle), kMaxModules);
  for (uint32_t m = 0; m < modules; ++m) {
    sbk_module_info info;
    if (sbk_bundle_module_info(&bundle, m, &info) != SBK_OK || info.raw_size > kMaxRead) continue;
    ExactBuffer out(info.raw_size);
    size_t got = 0;
    // Every other read without a context of the caller's: the loader then allocates its own.
    const sbk_result r = sbk_bundle_read_module(&bundle, m, out.bytes, info.raw_size, &got, (m & 1u) ? nullptr : dctx);
    require(got == info.raw_size || r != SBK_OK);
  }
  // Then through the digested dictionary, as a renderer reads: a damaged dictionary section is refused, or
  // every read still ends in an error or bytes whose checksum holds. A module reader reads each module too
  // (in the read order when the module table gives one), and must write exactly what read_module does.
  if (sbk_bundle_prepare_dictionary(&bundle) == SBK_OK) {
    sbk_module_reader reader;
    const bool have_reader = sbk_module_reader_init(&reader, &bundle) == SBK_OK;
    std::vector<uint32_t> order(sbk_bundle_module_count(&bundle) + 1u);
    if (sbk_bundle_module_read_order(&bundle, order.data()) != SBK_OK)
      for (uint32_t m = 0; m < order.size(); ++m) order[m] = m;
    for (uint32_t k = 0; k < modules; ++k) {
      const uint32_t m = order[k];
      sbk_module_info info;
      if (sbk_bundle_module_info(&bundle, m, &info) != SBK_OK || info.raw_size > kMaxRead) continue;
      ExactBuffer out(info.raw_size), again(info.raw_size);
      size_t got = 0, got_again = 0;
      const sbk_result r = sbk_bundle_read_module(&bundle, m, out.bytes, info.raw_size, &got, dctx);
      require(got == info.raw_size || r != SBK_OK);
      if (!have_reader) continue;
      const sbk_result ra = sbk_module_reader_read(&reader, m, again.bytes, info.raw_size, &got_again);
      require(ra == r || (ra != SBK_OK && r != SBK_OK));
      require(ra != SBK_OK || std::memcmp(out.bytes, again.bytes, info.raw_size) == 0);
    }
    if (have_reader) sbk_module_reader_free(&reader);
  }
  ZSTD_freeDCtx(dctx);

  const uint32_t layouts = std::min(sbk_bundle_layout_count(&bundle), kMaxLayouts);
  for (uint32_t l = 0; l < layouts; ++l) {
    sbk_layout layout;
    if (sbk_bundle_layout(&bundle, l, &layout) == SBK_OK) require(layout.binding_count <= SBK_MAX_LAYOUT_BINDINGS);
  }

  size_t report_size = 0;
  if (sbk_bundle_read_report(&bundle, nullptr, 0, &report_size) == SBK_ERROR_BUFFER_TOO_SMALL &&
      report_size <= kMaxRead) {
    ExactBuffer report(report_size);
    size_t got = 0;
    if (sbk_bundle_read_report(&bundle, reinterpret_cast<char*>(report.bytes), report_size, &got) == SBK_OK)
      require(got == report_size);
  }

  // Driver caches: the identity of each stored blob (up to 8), and one no bundle stores. A blob handed out
  // lies inside the section and is at least a VkPipelineCacheHeaderVersionOne long.
  uint64_t cache_size = 0;
  const uint8_t* cache = sbk_bundle_section(&bundle, SBK_SECTION_DRIVER_CACHE, &cache_size);
  const uint8_t nobody[16] = {};
  for (uint64_t i = 0; i <= 8; ++i) {
    const uint64_t row = 8 + i * SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE;
    const bool stored = i < 8 && cache != nullptr && row + SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE <= cache_size;
    if (i < 8 && !stored) continue;
    const void* blob = nullptr;
    size_t blob_size = 0;
    const sbk_result r =
        stored ? sbk_bundle_driver_cache(&bundle, get_u32(cache + row), get_u32(cache + row + 4),
                                         get_u32(cache + row + 8), cache + row + 16, &blob, &blob_size)
               : sbk_bundle_driver_cache(&bundle, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, nobody, &blob, &blob_size);
    if (r != SBK_OK) {
      require(blob == nullptr && blob_size == 0);
      continue;
    }
    const auto* b = static_cast<const uint8_t*>(blob);
    require(cache != nullptr && b >= cache && blob_size >= 32 && blob_size <= cache_size &&
            static_cast<uint64_t>(b - cache) <= cache_size - blob_size);
  }
  exercise_router_data(bundle);
}


// Opens `copy` (`size` bytes), re-sealing the header when open refuses it (see bundle_loader).
sbk_result open_resealed(sbk_bundle& bundle, ExactBuffer& copy, size_t size) {
  sbk_result opened = sbk_bundle_open_memory(&bundle, copy.bytes, size);
  if (opened == SBK_ERROR_CORRUPT && size >= SBK_BUNDLE_HEADER_SIZE) {
    // A fuzzer cannot forge the XXH3 header check, so a changed header or section table would never get past
    // it. Re-seal what open refused (file size and header check made to match the bytes) and try again, so
    // the section-table rules behind the check are fuzzed too.
    const uint32_t header_size = get_u32(copy.bytes + 12), sections = get_u32(copy.bytes + 24);
    if (header_size >= SBK_BUNDLE_HEADER_SIZE && header_size % 8 == 0 && sections <= SBK_BUNDLE_MAX_SECTIONS &&
        header_size + uint64_t{sections} * SBK_BUNDLE_SECTION_ENTRY_SIZE <= size) {
      put_u64(copy.bytes + 16, size);
      const size_t table = size_t{sections} * SBK_BUNDLE_SECTION_ENTRY_SIZE;
      put_u64(copy.bytes + 56, XXH3_64bits_withSeed(copy.bytes + header_size, table, XXH3_64bits(copy.bytes, 56)));
      opened = sbk_bundle_open_memory(&bundle, copy.bytes, size);
    }
  }
  return opened;
}

// Once check_before_driver passed, what warm creates must read: every pipeline entry, its modules, its layout.
void require_recipes_readable(const sbk_bundle& bundle) {
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  // One recipe's modules and layout, as a pipeline creation reads them.
  auto require_readable = [&](uint32_t vertex, uint32_t fragment, uint32_t layout_index) {
    for (const uint32_t m : {vertex, fragment}) {
      sbk_module_info info;
      require(sbk_bundle_module_info(&bundle, m, &info) == SBK_OK);
      ExactBuffer out(info.raw_size);
      size_t got = 0;
      require(sbk_bundle_read_module(&bundle, m, out.bytes, info.raw_size, &got, dctx) == SBK_OK && got == info.raw_size);
    }
    sbk_layout layout;
    require(sbk_bundle_layout(&bundle, layout_index, &layout) == SBK_OK);
  };
  for (uint32_t i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
    sbk_entry entry;
    require(sbk_bundle_entry_at(&bundle, i, &entry) == SBK_OK);
    if (entry.kind == SBK_KEY_KIND_PIPELINE) require_readable(entry.vertex_module, entry.fragment_module, entry.layout);
  }
  // And what a router creates: every dynamic-state fallback recipe (one by one and all at once), its modules,
  // its layout, the defaults, and the exact pipeline of every prewarm position.
  std::vector<sbk_dynamic_fallback> all(sbk_bundle_dynamic_fallback_count(&bundle));
  require(sbk_bundle_read_dynamic_fallbacks(&bundle, all.data(), static_cast<uint32_t>(all.size())) == SBK_OK);
  for (uint32_t i = 0; i < all.size(); ++i) {
    sbk_dynamic_fallback d;
    require(sbk_bundle_dynamic_fallback(&bundle, i, &d) == SBK_OK && std::memcmp(&d, &all[i], sizeof d) == 0);
    require_readable(d.vertex_module, d.fragment_module, d.layout);
  }
  uint64_t size = 0;
  if (sbk_bundle_section(&bundle, SBK_SECTION_DYNAMIC_FALLBACKS, &size) != nullptr) {
    uint32_t mask = 0;
    float defaults[SBK_VERTEX_LOCATIONS][4];
    require(sbk_bundle_vertex_defaults(&bundle, &mask, defaults) == SBK_OK);
  }
  for (uint32_t p = 0; p < sbk_bundle_prewarm_count(&bundle); ++p) {
    uint32_t entry = 0, frame = 0;
    require(sbk_bundle_prewarm_at(&bundle, p, &entry, &frame) == SBK_OK);
  }
  ZSTD_freeDCtx(dctx);
}

void run_driver_checks(const sbk_bundle& bundle) {
  const auto checks = bundle::check_before_driver(bundle);
  require(!checks.empty() && checks.front().name == "sections");
  if (bundle::all_passed(checks)) require_recipes_readable(bundle);
}

}  // namespace

void bundle_loader(const uint8_t* data, size_t size) {
  ExactBuffer copy(size);
  if (size) std::memcpy(copy.bytes, data, size);
  sbk_bundle bundle;
  if (open_resealed(bundle, copy, size) != SBK_OK) return;
  exercise_bundle(bundle);
  sbk_bundle_close(&bundle);
}

void driver_checks(const uint8_t* data, size_t size) {
  ExactBuffer copy(size);
  if (size) std::memcpy(copy.bytes, data, size);
  sbk_bundle bundle;
  if (open_resealed(bundle, copy, size) != SBK_OK) return;
  run_driver_checks(bundle);
  // Sealed: every section checksum made to match (open accepted the table, so every section lies inside the
  // copy), then the header check over the new table, so the bytes reach the rules behind the checksums.
  const uint32_t header_size = get_u32(copy.bytes + 12), sections = get_u32(copy.bytes + 24);
  for (uint32_t i = 0; i < sections; ++i) {
    uint8_t* e = copy.bytes + header_size + size_t{i} * SBK_BUNDLE_SECTION_ENTRY_SIZE;
    uint64_t offset = 0, length = 0;
    for (int k = 7; k >= 0; --k) {
      offset = offset << 8 | e[8 + k];
      length = length << 8 | e[16 + k];
    }
    put_u64(e + 24, XXH3_64bits(copy.bytes + offset, static_cast<size_t>(length)));
  }
  sbk_bundle_close(&bundle);
  put_u64(copy.bytes + 56, XXH3_64bits_withSeed(copy.bytes + header_size, size_t{sections} * SBK_BUNDLE_SECTION_ENTRY_SIZE,
                                                XXH3_64bits(copy.bytes, 56)));
  require(sbk_bundle_open_memory(&bundle, copy.bytes, size) == SBK_OK);
  run_driver_checks(bundle);
  const nv2a::Nv2aGuestModel guest;
  (void)bundle::verify_bundle(bundle, guest);
  sbk_bundle_close(&bundle);
}

void spirv_unpack(const uint8_t* data, size_t size) {
  if (size < 4) return;
  const size_t words = std::min<size_t>(get_u32(data), 1u << 16);  // bounded: the loader's modules are smaller
  const size_t raw_size = words * 4;
  const uint8_t* packed = data + 4;
  const size_t packed_size = size - 4;
  ExactBuffer separate(raw_size);
  const sbk_result r = sbk_spirv_unpack(packed, packed_size, separate.bytes, raw_size);
  require(r == SBK_OK || r == SBK_ERROR_CORRUPT);
  if (packed_size <= raw_size) {
    ExactBuffer in_place(raw_size);
    if (packed_size) std::memcpy(in_place.bytes + raw_size - packed_size, packed, packed_size);
    const sbk_result rp = sbk_spirv_unpack_in_place(in_place.bytes, raw_size, packed_size);
    require(rp == SBK_OK || rp == SBK_ERROR_CORRUPT);
    // In place decodes the same stream; it may only refuse more (a word that would overtake the reading).
    if (rp == SBK_OK) require(r == SBK_OK && std::memcmp(in_place.bytes, separate.bytes, raw_size) == 0);
  }
  if (r != SBK_OK) return;
  std::vector<uint32_t> decoded(words);
  std::memcpy(decoded.data(), separate.bytes, raw_size);
  std::vector<uint8_t> repacked(SBK_SPIRV_PACK_BOUND(words));
  size_t repacked_size = 0;
  require(sbk_spirv_pack(decoded.data(), words, repacked.data(), repacked.size(), &repacked_size) == SBK_OK);
  ExactBuffer again(raw_size);
  require(sbk_spirv_unpack(repacked.data(), repacked_size, again.bytes, raw_size) == SBK_OK &&
          std::memcmp(again.bytes, decoded.data(), raw_size) == 0);
}

}  // namespace shaderbake::fuzz

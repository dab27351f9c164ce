// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_writer.hpp"

#define ZDICT_STATIC_LINKING_ONLY
#include <xxhash.h>
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "lib/core/byte_io.hpp"
#include "lib/core/little_endian.hpp"
#include "runtime_loader/shaderbake_spirv.h"  // modules are stored packed

namespace shaderbake::bundle {

namespace {

// Dictionary training (fastCover) parameters: fixed, so training is deterministic; part of the memo identity.
constexpr uint32_t kTrainK = 2000, kTrainD = 8, kTrainF = 20;

std::span<const uint8_t> as_bytes(std::span<const uint32_t> words) {
  return {reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4};
}

Error zstd_error(const char* what, size_t code) {
  return Error{ErrorKind::internal, "zstd_error", std::string(what) + ": " + ZSTD_getErrorName(code), {}};
}

// Trains the dictionary on the modules themselves (in content order). fastCover with fixed parameters and
// one thread is deterministic. Returns empty when there is too little to learn from: the modules are then
// compressed without a dictionary.
std::vector<uint8_t> train_dictionary(const std::vector<std::span<const uint8_t>>& modules, size_t capacity) {
  if (capacity == 0 || modules.size() < 8) return {};
  std::vector<uint8_t> samples;
  std::vector<size_t> sizes;
  for (const auto bytes : modules) {
    samples.insert(samples.end(), bytes.begin(), bytes.end());
    sizes.push_back(bytes.size());
  }
  // A dictionary much larger than a tenth of the samples cannot pay for itself.
  capacity = std::min(capacity, std::max<size_t>(1024, samples.size() / 10));
  std::vector<uint8_t> dict(capacity);
  ZDICT_fastCover_params_t params;
  std::memset(&params, 0, sizeof params);
  params.k = kTrainK;
  params.d = kTrainD;
  params.f = kTrainF;
  params.accel = 1;
  params.nbThreads = 1;
  params.zParams.compressionLevel = 19;
  const size_t n = ZDICT_trainFromBuffer_fastCover(dict.data(), dict.size(), samples.data(), sizes.data(),
                                                    static_cast<unsigned>(sizes.size()), params);
  if (ZDICT_isError(n)) return {};
  dict.resize(n);
  return dict;
}


struct CompressedModules {
  std::vector<uint8_t> dictionary;          // empty: frames carry no dictionary
  std::vector<std::vector<uint8_t>> frames;  // one per module, in module order
  std::vector<uint32_t> parents;             // per module: SBK_NO_MODULE, or the module its frame needs as well
  std::vector<uint8_t> packed;               // per module: 1 when the frame holds packed SPIR-V, else the words
};

// Runs work(i, cctx) for i in [0, n) on `threads` threads, each with a compression context set to write the
// frames the bundle wants: content size in the header (a packed module's size is read from it), no dictionary
// ID (the module table says which dictionary a frame needs). Returns false when a context cannot be made.
bool compress_in_parallel(size_t n, unsigned threads, int level, const std::function<void(size_t, ZSTD_CCtx*)>& work) {
  std::atomic<size_t> next{0};
  std::atomic<bool> ok{true};
  auto run = [&] {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    if (cctx == nullptr || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level))) {
      ok = false;
      ZSTD_freeCCtx(cctx);
      return;
    }
    for (size_t i; (i = next.fetch_add(1)) < n;) work(i, cctx);
    ZSTD_freeCCtx(cctx);
  };
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, n))));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run);
  run();
  for (auto& t : pool) t.join();
  return ok;
}

// One frame of `payload` against `cdict` (none: no dictionary); zstd's error code, or 0.
size_t compress_frame(ZSTD_CCtx* cctx, const ZSTD_CDict* cdict, std::span<const uint8_t> payload, std::vector<uint8_t>& frame) {
  frame.resize(ZSTD_compressBound(payload.size()));
  size_t n = ZSTD_CCtx_refCDict(cctx, cdict);
  if (!ZSTD_isError(n)) n = ZSTD_compress2(cctx, frame.data(), frame.size(), payload.data(), payload.size());
  if (ZSTD_isError(n)) {
    frame.clear();
    return n;
  }
  frame.resize(n);
  return 0;
}

// A bottom-k sketch of the 12-byte substrings of a payload: the 64 smallest distinct hashes. Two sketches
// estimate how much of their content two modules share (their resemblance).
constexpr size_t kSketchSize = 64, kShingleBytes = 12;
std::vector<uint64_t> sketch_of(std::span<const uint8_t> payload) {
  std::vector<uint64_t> hashes;
  if (payload.size() >= kShingleBytes) {
    hashes.reserve(payload.size() - kShingleBytes + 1);
    for (size_t i = 0; i + kShingleBytes <= payload.size(); ++i) hashes.push_back(XXH3_64bits(payload.data() + i, kShingleBytes));
  }
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  if (hashes.size() > kSketchSize) hashes.resize(kSketchSize);
  return hashes;
}

// Picks for each module the module whose content its frame may be compressed against (its parent; parents
// have none). Resemblance is counted as shared sketch hashes, found through an index from hash to modules
// (hashes nearly every module holds are skipped: the trained dictionary has those). Each module keeps its
// kCandidates most resembling modules; modules that are candidates of the most others become parents first,
// and each other module takes the parent among its candidates it shares the most with. Deterministic: counts,
// then module order.
constexpr size_t kCandidates = 4, kMinShared = 8, kCommonHolders = 256;
std::vector<uint32_t> choose_parents(const std::vector<std::span<const uint8_t>>& modules) {
  const size_t n = modules.size();
  std::vector<std::vector<uint64_t>> sketches(n);
  for (size_t i = 0; i < n; ++i) sketches[i] = sketch_of(modules[i]);
  std::unordered_map<uint64_t, std::vector<uint32_t>> holders;
  for (uint32_t m = 0; m < n; ++m)
    for (uint64_t h : sketches[m]) holders[h].push_back(m);

  struct Candidate {
    uint32_t module;
    uint32_t shared;
  };
  std::vector<std::vector<Candidate>> candidates(n);
  std::vector<uint32_t> shared(n, 0), touched, wanted_by(n, 0);
  for (uint32_t m = 0; m < n; ++m) {
    touched.clear();
    for (uint64_t h : sketches[m]) {
      const std::vector<uint32_t>& list = holders[h];
      if (list.size() > kCommonHolders) continue;
      for (uint32_t x : list)
        if (x != m && shared[x]++ == 0) touched.push_back(x);
    }
    std::vector<Candidate>& best = candidates[m];
    for (uint32_t x : touched) {
      if (shared[x] >= kMinShared) best.push_back({x, shared[x]});
      shared[x] = 0;
    }
    std::sort(best.begin(), best.end(), [](const Candidate& a, const Candidate& b) {
      return a.shared != b.shared ? a.shared > b.shared : a.module < b.module;
    });
    if (best.size() > kCandidates) best.resize(kCandidates);
    for (const Candidate& c : best) ++wanted_by[c.module];
  }

  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return wanted_by[a] > wanted_by[b]; });
  enum : uint8_t { kFree, kParent, kChild };
  std::vector<uint8_t> role(n, kFree);
  for (uint32_t x : order) {
    if (wanted_by[x] == 0) break;
    if (role[x] != kFree) continue;
    // x becomes a parent unless one of its own candidates already is one (then it is better off as a child).
    bool child = false;
    for (const Candidate& c : candidates[x])
      if (role[c.module] == kParent) {
        child = true;
        break;
      }
    role[x] = child ? kChild : kParent;
  }
  std::vector<uint32_t> parents(n, SBK_NO_MODULE);
  for (uint32_t m = 0; m < n; ++m) {
    if (role[m] == kParent) continue;
    for (const Candidate& c : candidates[m])  // most shared first
      if (role[c.module] == kParent) {
        parents[m] = c.module;
        break;
      }
  }
  return parents;
}

// The dictionary a child's frame is compressed with: the trained dictionary (if any) with the parent's payload
// appended to its content. (A payload never starts with zstd's dictionary magic: packed or raw SPIR-V does not.)
std::vector<uint8_t> child_dictionary(const std::vector<uint8_t>& trained, std::span<const uint8_t> parent) {
  std::vector<uint8_t> dict(trained);
  dict.insert(dict.end(), parent.begin(), parent.end());
  return dict;
}

Result<CompressedModules> compress_modules(const std::vector<std::span<const uint8_t>>& modules,
                                           const WriteOptions& options) {
  CompressedModules out;
  out.dictionary = train_dictionary(modules, options.dictionary_capacity);
  ZSTD_CDict* cdict = nullptr;
  if (!out.dictionary.empty()) {
    cdict = ZSTD_createCDict(out.dictionary.data(), out.dictionary.size(), options.compression_level);
    if (!cdict) return Error{ErrorKind::internal, "zstd_error", "cannot create the compression dictionary", {}};
  }
  out.frames.resize(modules.size());
  out.parents.assign(modules.size(), SBK_NO_MODULE);
  std::vector<size_t> frame_errors(modules.size(), 0);
  bool ok = compress_in_parallel(modules.size(), options.threads, options.compression_level, [&](size_t i, ZSTD_CCtx* cctx) {
    frame_errors[i] = compress_frame(cctx, cdict, modules[i], out.frames[i]);
  });
  ZSTD_freeCDict(cdict);
  if (!ok) return Error{ErrorKind::internal, "zstd_error", "cannot create a compression context", {}};
  for (size_t e : frame_errors)
    if (e) return zstd_error("compressing a module", e);
  if (!options.parents) return out;

  // Children: each frame compressed again against the dictionary plus its parent; kept where smaller. One
  // compression dictionary per parent, shared by its children (building one costs more than a frame).
  const std::vector<uint32_t> parents = choose_parents(modules);
  std::vector<uint32_t> parent_list;
  std::vector<std::vector<uint32_t>> children_of(modules.size());
  for (uint32_t i = 0; i < modules.size(); ++i)
    if (parents[i] != SBK_NO_MODULE) {
      if (children_of[parents[i]].empty()) parent_list.push_back(parents[i]);
      children_of[parents[i]].push_back(i);
    }
  std::vector<std::vector<uint8_t>> child_frames(modules.size());
  ok = compress_in_parallel(parent_list.size(), options.threads, options.compression_level, [&](size_t k, ZSTD_CCtx* cctx) {
    const uint32_t parent = parent_list[k];
    const std::vector<uint8_t> dict = child_dictionary(out.dictionary, modules[parent]);
    ZSTD_CDict* parent_cdict = ZSTD_createCDict(dict.data(), dict.size(), options.compression_level);
    for (uint32_t i : children_of[parent])
      if (parent_cdict == nullptr || compress_frame(cctx, parent_cdict, modules[i], child_frames[i]) != 0) child_frames[i].clear();
    ZSTD_freeCDict(parent_cdict);
  });
  if (!ok) return Error{ErrorKind::internal, "zstd_error", "cannot create a compression context", {}};
  for (uint32_t i = 0; i < modules.size(); ++i) {
    if (parents[i] != SBK_NO_MODULE && !child_frames[i].empty() && child_frames[i].size() < out.frames[i].size()) {
      out.frames[i] = std::move(child_frames[i]);
      out.parents[i] = parents[i];
    }
  }
  return out;
}

// What the compression of `modules` depends on: zstd's version, the options, and each module's content hash
// and size, in module order.
std::vector<uint8_t> compression_identity(const std::vector<ModuleId>& ids,
                                          const std::vector<const std::vector<uint32_t>*>& modules,
                                          const WriteOptions& options) {
  ByteWriter w;
  // The tag names the method; its parameters follow as numbers, so changing a constant changes the identity.
  const std::string_view tag =
      "shaderbake-bundle-compression/5 fastcover, packed SPIR-V of format 2, no dictionary IDs, parents by "
      "bottom-k sketches of substrings (candidates, least shared, most common skipped; most wanted first)";
  w.bytes(byte_span(tag));
  for (size_t v : {kSketchSize, kShingleBytes, kCandidates, kMinShared, kCommonHolders}) w.u32(static_cast<uint32_t>(v));
  for (uint32_t v : {kTrainK, kTrainD, kTrainF, ZSTD_versionNumber(), static_cast<uint32_t>(options.compression_level)})
    w.u32(v);
  w.u64(options.dictionary_capacity);
  w.u8(options.parents ? 1 : 0);
  w.u64(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    w.u64(ids[i].content.low);
    w.u64(ids[i].content.high);
    w.u64(modules[i]->size());
  }
  return std::move(w.data());
}

// Memo bytes: u32 dictionary size, the dictionary, u32 frame count, then per frame its u32 parent (or
// SBK_NO_MODULE), u32 packed (0 or 1), a u32 size and its bytes.
std::vector<uint8_t> encode_compression(const CompressedModules& c) {
  ByteWriter w;
  w.field_u32(c.dictionary);
  w.u32(static_cast<uint32_t>(c.frames.size()));
  for (size_t i = 0; i < c.frames.size(); ++i) {
    w.u32(c.parents[i]);
    w.u32(c.packed[i]);
    w.field_u32(c.frames[i]);
  }
  return std::move(w.data());
}

// The memo's compression of `modules`, only if every frame decodes, the way the loader decodes it (packed
// frames unpacked in place), to exactly its module's words. A hit packs nothing: the memo says which frames
// are packed, and a child's dictionary takes its parent's decoded frame.
std::optional<CompressedModules> recall_compression(CompressionMemo& memo, std::span<const uint8_t> identity,
                                                    const std::vector<const std::vector<uint32_t>*>& modules,
                                                    bool* hit) {
  const auto bytes = memo.find(identity);
  if (!bytes) return std::nullopt;
  ByteReader in(*bytes);
  CompressedModules c;
  std::span<const uint8_t> field;
  uint32_t n = 0;
  if (!in.field_u32(field) || !in.u32(n) || n != modules.size()) return std::nullopt;
  c.dictionary.assign(field.begin(), field.end());
  c.frames.resize(n);
  c.parents.resize(n);
  c.packed.resize(n);
  for (size_t i = 0; i < c.frames.size(); ++i) {
    uint32_t packed = 0;
    if (!in.u32(c.parents[i]) || !in.u32(packed) || packed > 1 || !in.field_u32(field)) return std::nullopt;
    c.frames[i].assign(field.begin(), field.end());
    c.packed[i] = static_cast<uint8_t>(packed);
  }
  if (!in.at_end()) return std::nullopt;
  for (uint32_t parent : c.parents)
    if (parent != SBK_NO_MODULE && (parent >= modules.size() || c.parents[parent] != SBK_NO_MODULE)) return std::nullopt;

  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZSTD_DDict* ddict = c.dictionary.empty() ? nullptr : ZSTD_createDDict(c.dictionary.data(), c.dictionary.size());
  bool good = dctx != nullptr && (c.dictionary.empty() || ddict != nullptr);
  // Decoded frames (what compression saw), parents first, since children's dictionaries need them.
  std::vector<std::vector<uint8_t>> decoded(modules.size());
  auto check = [&](size_t i) {
    const size_t raw_size = modules[i]->size() * 4;
    const unsigned long long size = ZSTD_getFrameContentSize(c.frames[i].data(), c.frames[i].size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size == 0 || size > raw_size) return false;
    std::vector<uint8_t>& out = decoded[i];
    out.resize(static_cast<size_t>(size));
    size_t got;
    if (c.parents[i] != SBK_NO_MODULE) {
      const std::vector<uint8_t> dict = child_dictionary(c.dictionary, decoded[c.parents[i]]);
      got = ZSTD_decompress_usingDict(dctx, out.data(), out.size(), c.frames[i].data(), c.frames[i].size(), dict.data(), dict.size());
    } else {
      got = ddict ? ZSTD_decompress_usingDDict(dctx, out.data(), out.size(), c.frames[i].data(), c.frames[i].size(), ddict)
                  : ZSTD_decompressDCtx(dctx, out.data(), out.size(), c.frames[i].data(), c.frames[i].size());
    }
    if (ZSTD_isError(got) || got != out.size()) return false;
    if (!c.packed[i]) return out.size() == raw_size && std::memcmp(out.data(), modules[i]->data(), raw_size) == 0;
    std::vector<uint8_t> words(raw_size);
    std::memcpy(words.data() + raw_size - out.size(), out.data(), out.size());
    return sbk_spirv_unpack_in_place(words.data(), raw_size, out.size()) == SBK_OK &&
           std::memcmp(words.data(), modules[i]->data(), raw_size) == 0;
  };
  for (size_t i = 0; good && i < modules.size(); ++i)
    if (c.parents[i] == SBK_NO_MODULE) good = check(i);
  for (size_t i = 0; good && i < modules.size(); ++i)
    if (c.parents[i] != SBK_NO_MODULE) good = check(i);
  ZSTD_freeDDict(ddict);
  ZSTD_freeDCtx(dctx);
  if (!good) return std::nullopt;
  *hit = true;
  return c;
}

// A module's packed form (schemas/bundle.md, "Packed SPIR-V") when that is smaller and the loader's in-place
// decoding gives the words back from it; empty when its frame should hold the SPIR-V words themselves.
std::vector<uint8_t> packed_form(const std::vector<uint32_t>& words) {
  const size_t raw_size = words.size() * 4;
  std::vector<uint8_t> packed(SBK_SPIRV_PACK_BOUND(words.size()));
  size_t packed_size = 0;
  if (sbk_spirv_pack(words.data(), words.size(), packed.data(), packed.size(), &packed_size) != SBK_OK ||
      packed_size >= raw_size)
    return {};
  std::vector<uint8_t> buffer(raw_size);
  std::memcpy(buffer.data() + raw_size - packed_size, packed.data(), packed_size);
  if (sbk_spirv_unpack_in_place(buffer.data(), raw_size, packed_size) != SBK_OK ||
      std::memcmp(buffer.data(), words.data(), raw_size) != 0)
    return {};
  packed.resize(packed_size);
  return packed;
}

}  // namespace

ModuleId BundleBuilder::add_module(uint32_t vk_stage, std::span<const uint32_t> spirv) {
  const ModuleId id{KeyHash::of(as_bytes(spirv))};
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
  // ---- canonical orders: everything below depends only on the content ----
  std::vector<const Entry*> entries;
  for (const Entry& e : entries_) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(), [](const Entry* a, const Entry* b) {
    if (a->hash.high != b->hash.high) return a->hash.high < b->hash.high;
    if (a->hash.low != b->hash.low) return a->hash.low < b->hash.low;
    return a->key < b->key;
  });
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i]->key == entries[i - 1]->key)
      return Error{ErrorKind::internal, "duplicate_key", "key " + entries[i]->hash.to_hex() + " added twice", {}};
  std::map<ModuleId, uint32_t> module_index;
  std::vector<const std::vector<uint32_t>*> module_words;
  std::vector<ModuleId> module_ids;
  for (const auto& [id, m] : modules_) {
    module_index.emplace(id, static_cast<uint32_t>(module_index.size()));
    module_words.push_back(&m.words);
    module_ids.push_back(id);
  }
  std::map<LayoutContract, uint32_t> layout_index;
  for (const Entry* e : entries)
    if (e->layout) layout_index.emplace(*e->layout, 0);
  for (const DynamicFallback& d : dynamic_fallbacks_) layout_index.emplace(d.layout, 0);
  {
    uint32_t i = 0;
    for (auto& [layout, index] : layout_index) index = i++;
  }
  auto module_of = [&](const std::optional<ModuleId>& id) -> Result<uint32_t> {
    if (!id) return uint32_t{SBK_NO_MODULE};
    auto it = module_index.find(*id);
    if (it == module_index.end())
      return Error{ErrorKind::internal, "unknown_module", "a record names a module never added", {}};
    return it->second;
  };

  // ---- modules: packed, a dictionary, then one frame each (remembered by the memo between builds) ----
  for (const auto* words : module_words)
    if (words->size() * 4 > SBK_BUNDLE_MAX_MODULE_SIZE)
      return Error{ErrorKind::internal, "module_too_large",
                   "a module of " + std::to_string(words->size() * 4) + " bytes; a bundle holds modules of at most " +
                       std::to_string(SBK_BUNDLE_MAX_MODULE_SIZE) + " bytes",
                   {}};
  bool memo_hit = false;
  const std::vector<uint8_t> memo_identity =
      options.memo ? compression_identity(module_ids, module_words, options) : std::vector<uint8_t>();
  auto compressed = options.memo ? recall_compression(*options.memo, memo_identity, module_words, &memo_hit)
                                 : std::optional<CompressedModules>();
  if (!compressed) {
    // Packing only here: a memo hit has the frames already.
    std::vector<std::vector<uint8_t>> packed(module_words.size());
    std::vector<std::span<const uint8_t>> payloads(module_words.size());
    for (size_t i = 0; i < module_words.size(); ++i) {
      packed[i] = packed_form(*module_words[i]);
      payloads[i] = packed[i].empty() ? as_bytes(*module_words[i]) : std::span<const uint8_t>(packed[i]);
    }
    auto fresh = compress_modules(payloads, options);
    if (!fresh) return std::move(fresh).error();
    compressed = std::move(*fresh);
    compressed->packed.resize(module_words.size());
    for (size_t i = 0; i < module_words.size(); ++i) compressed->packed[i] = packed[i].empty() ? 0 : 1;
    if (options.memo) options.memo->put(memo_identity, encode_compression(*compressed));
  }
  const std::vector<uint8_t>& dictionary = compressed->dictionary;
  const std::vector<std::vector<uint8_t>>& frames = compressed->frames;

  // ---- sections ----
  std::map<uint32_t, std::vector<uint8_t>> sections;
  {
    nlohmann::ordered_json meta;
    meta["format"] = "shaderbake-bundle/2";
    meta["guest"] = identity_.guest_name;
    meta["key_schema"] = identity_.key_schema;
    meta["toolchain"] = identity_.toolchain_fingerprint;
    meta["generators"] = nlohmann::ordered_json::object();
    for (const auto& [name, version] : identity_.generators) meta["generators"][name] = version;
    const std::string text = meta.dump();
    sections[SBK_SECTION_META].assign(text.begin(), text.end());
  }
  {
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
      w.u32(compressed->parents[i]);
      w.u16((dictionary.empty() ? 0u : 1u) | (compressed->packed[i] ? 2u : 0u));
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
  }
  {
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
    sections[SBK_SECTION_LAYOUTS] = std::move(w.data());
  }
  {
    ByteWriter records;
    ByteWriter index;
    const uint32_t count = static_cast<uint32_t>(entries.size());
    size_t record_bytes = 0;
    for (const Entry* entry : entries) record_bytes += (SBK_BUNDLE_RECORD_HEADER_SIZE + entry->key.size() + 7) & ~size_t{7};
    records.reserve(record_bytes);
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
      records.u32(entry->layout ? layout_index.at(*entry->layout) : 0u);
      records.u32(entry->rejection);
      // The check covers the fixed fields, seeded with the key's hash: a probe confirms the key bytes by
      // comparing them with the probed key (schemas/bundle.md, RECORDS).
      records.patch_u64(at, XXH3_64bits_withSeed(records.data().data() + at + 8, SBK_BUNDLE_RECORD_HEADER_SIZE - 8,
                                                 entry->hash.low));
      records.bytes(entry->key);
      const uint32_t record_size = static_cast<uint32_t>(records.size() - at);
      records.align8();
      index.u64(entry->hash.low);
      index.u64(entry->hash.high);
      index.u64(at);
      index.u32(record_size);
      index.u32(0);
    }
    sections[SBK_SECTION_INDEX] = std::move(index.data());
    sections[SBK_SECTION_RECORDS] = std::move(records.data());
  }
  {
    auto router = router_sections(entries, module_index, layout_index);
    if (!router) return std::move(router).error();
    for (auto& [type, bytes] : *router) sections[type] = std::move(bytes);
  }
  if (!report_.empty()) {
    std::vector<uint8_t> out(ZSTD_compressBound(report_.size()));
    const size_t n = ZSTD_compress(out.data(), out.size(), report_.data(), report_.size(), 19);
    if (ZSTD_isError(n)) return zstd_error("compressing the report", n);
    out.resize(n);
    sections[SBK_SECTION_REPORT] = std::move(out);
  }

  // ---- header, section table, sections ----
  BundleHeader header;
  const KeyHash toolchain = KeyHash::of(std::span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(identity_.toolchain_fingerprint.data()), identity_.toolchain_fingerprint.size()));
  store_u64_le(header.toolchain_digest.data(), toolchain.low);
  store_u64_le(header.toolchain_digest.data() + 8, toolchain.high);
  header.guest = identity_.guest;
  header.key_schema = identity_.key_schema;
  std::map<uint32_t, std::span<const uint8_t>> section_views;
  for (const auto& [type, bytes] : sections) section_views.emplace(type, bytes);
  auto assembled = assemble_bundle(header, section_views);
  if (!assembled) return assembled;
  if (stats) {
    stats->modules = module_words.size();
    stats->raw_module_bytes = 0;
    for (const auto* words : module_words) stats->raw_module_bytes += words->size() * 4;
    stats->compressed_module_bytes = sections[SBK_SECTION_MODULE_DATA].size();
    stats->dictionary_bytes = dictionary.size();
    stats->compression_memo_hit = memo_hit;
    stats->entries = entries.size();
    stats->bundle_bytes = assembled->size();
  }
  return assembled;
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

Result<std::vector<uint8_t>> assemble_bundle(const BundleHeader& header,
                                             const std::map<uint32_t, std::span<const uint8_t>>& sections) {
  if (sections.size() > SBK_BUNDLE_MAX_SECTIONS)
    return Error{ErrorKind::internal, "too_many_sections",
                 std::to_string(sections.size()) + " sections; a bundle holds at most " +
                     std::to_string(SBK_BUNDLE_MAX_SECTIONS),
                 {}};
  ByteWriter w;
  size_t total = SBK_BUNDLE_HEADER_SIZE + sections.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE + 7;
  for (const auto& [type, bytes] : sections) total += bytes.size() + 7;
  w.reserve(total);
  static const uint8_t kMagic[8] = {0x89, 'S', 'B', 'K', 0x0D, 0x0A, 0x1A, 0x0A};
  w.bytes(kMagic);
  w.u16(SBK_BUNDLE_FORMAT_MAJOR);
  w.u16(header.format_minor);
  w.u32(SBK_BUNDLE_HEADER_SIZE);
  const size_t file_size_at = w.size();
  w.u64(0);  // file size, patched below
  w.u32(static_cast<uint32_t>(sections.size()));
  w.u32(0);
  w.bytes(header.toolchain_digest);
  w.u8(header.guest);
  w.u8(0);
  w.u16(header.key_schema);
  w.u32(0);
  const size_t check_at = w.size();
  w.u64(0);  // header check, patched below
  uint64_t offset = (SBK_BUNDLE_HEADER_SIZE + sections.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE + 7) & ~uint64_t{7};
  for (const auto& [type, bytes] : sections) {
    w.u32(type);
    w.u32(0);
    w.u64(offset);
    w.u64(bytes.size());
    w.u64(XXH3_64bits(bytes.data(), bytes.size()));
    offset = (offset + bytes.size() + 7) & ~uint64_t{7};
  }
  for (const auto& [type, bytes] : sections) {
    w.align8();
    w.bytes(bytes);
  }
  w.patch_u64(file_size_at, w.size());
  w.patch_u64(check_at, XXH3_64bits_withSeed(w.data().data() + SBK_BUNDLE_HEADER_SIZE,
                                             sections.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE,
                                             XXH3_64bits(w.data().data(), 56)));
  return std::move(w.data());
}

}  // namespace shaderbake::bundle

// SPDX-License-Identifier: MIT
#include "lib/bundle/module_compression.hpp"

#define ZDICT_STATIC_LINKING_ONLY
#define ZSTD_STATIC_LINKING_ONLY
#include <xxhash.h>
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>

#include "runtime_loader/shaderbake_spirv.h"  // modules are stored packed

namespace shaderbake::bundle {

namespace {

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

// `frame` after a compression into it that returned `n`: cut to the frame's size, or emptied on an error.
// zstd's error code, or 0.
size_t settle_frame(size_t n, std::vector<uint8_t>& frame) {
  if (ZSTD_isError(n)) {
    frame.clear();
    return n;
  }
  frame.resize(n);
  return 0;
}

// One frame of `payload` against `cdict` (none: no dictionary); zstd's error code, or 0.
size_t compress_frame(ZSTD_CCtx* cctx, const ZSTD_CDict* cdict, std::span<const uint8_t> payload, std::vector<uint8_t>& frame) {
  frame.resize(ZSTD_compressBound(payload.size()));
  size_t n = ZSTD_CCtx_refCDict(cctx, cdict);
  if (!ZSTD_isError(n)) n = ZSTD_compress2(cctx, frame.data(), frame.size(), payload.data(), payload.size());
  return settle_frame(n, frame);
}

// One frame of `payload` against `prefix` as raw content (ZSTD_CCtx_refPrefix, which lasts one frame); the
// window covers the prefix and the payload, so every match into the prefix is reachable. zstd's error code, or 0.
size_t compress_child_frame(ZSTD_CCtx* cctx, std::span<const uint8_t> prefix, std::span<const uint8_t> payload,
                            std::vector<uint8_t>& frame) {
  frame.resize(ZSTD_compressBound(payload.size()));
  size_t n = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, kChildWindowLog);
  // Literals stored raw: a child's few literals do not pay for a Huffman table of their own (a raw prefix
  // brings none), and a reader builds no table (bench/README.md: smaller frames, 5% faster reads).
  if (!ZSTD_isError(n)) n = ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
  if (!ZSTD_isError(n)) n = ZSTD_CCtx_refPrefix(cctx, prefix.data(), prefix.size());
  if (!ZSTD_isError(n)) n = ZSTD_compress2(cctx, frame.data(), frame.size(), payload.data(), payload.size());
  return settle_frame(n, frame);
}

// A bottom-k sketch of the 12-byte substrings of a payload: the 64 smallest distinct hashes. Two sketches
// estimate how much of their content two modules share (their resemblance).
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

// Compresses the payloads (each module's packed form or its words): a frame each against the trained
// dictionary, then, with options.parents, a child's frame against the dictionary and its parent where smaller.
Result<CompressedModules> compress_payloads(const std::vector<std::span<const uint8_t>>& modules,
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

  // Children: each frame compressed again against the raw prefix of the dictionary's bytes and its parent's
  // payload; kept where smaller. A raw prefix costs a reader no table building (a formatted dictionary would).
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
    const std::vector<uint8_t> prefix = child_prefix(out.dictionary, modules[parent]);
    for (uint32_t i : children_of[parent])
      if (compress_child_frame(cctx, prefix, modules[i], child_frames[i]) != 0) child_frames[i].clear();
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

}  // namespace

Result<CompressedModules> compress_modules(const std::vector<const std::vector<uint32_t>*>& modules,
                                           const WriteOptions& options) {
  std::vector<std::vector<uint8_t>> packed(modules.size());
  std::vector<std::span<const uint8_t>> payloads(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    packed[i] = packed_form(*modules[i]);
    payloads[i] = packed[i].empty() ? spirv_bytes(*modules[i]) : std::span<const uint8_t>(packed[i]);
  }
  auto compressed = compress_payloads(payloads, options);
  if (!compressed) return compressed;
  compressed->packed.resize(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) compressed->packed[i] = packed[i].empty() ? 0 : 1;
  return compressed;
}

std::vector<uint8_t> child_prefix(const std::vector<uint8_t>& trained, std::span<const uint8_t> parent) {
  std::vector<uint8_t> dict(trained);
  dict.insert(dict.end(), parent.begin(), parent.end());
  return dict;
}

Error zstd_error(const char* what, size_t code) {
  return Error{ErrorKind::internal, "zstd_error", std::string(what) + ": " + ZSTD_getErrorName(code), {}};
}

}  // namespace shaderbake::bundle

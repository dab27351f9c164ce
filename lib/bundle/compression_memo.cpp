// SPDX-License-Identifier: MIT
#include "lib/bundle/compression_memo.hpp"

#include <zstd.h>

#include <cstring>
#include <string_view>

#include "lib/core/byte_io.hpp"
#include "runtime_loader/shaderbake_spirv.h"

namespace shaderbake::bundle {

std::vector<uint8_t> compression_identity(const std::vector<ModuleId>& ids,
                                          const std::vector<const std::vector<uint32_t>*>& modules,
                                          const WriteOptions& options) {
  ByteWriter w;
  // The tag names the method; its parameters follow as numbers, so changing a constant changes the identity.
  const std::string_view tag =
      "shaderbake-bundle-compression/7 fastcover, packed SPIR-V of bundle format 4, no dictionary IDs, children "
      "against a raw prefix of the dictionary and the parent's content (window log 20, literals raw), parents by "
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

// A hit packs nothing: the memo says which frames are packed, and a child's dictionary takes its parent's
// decoded frame.
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
  // Decoded frames (what compression saw), parents first, since children's prefixes need them.
  std::vector<std::vector<uint8_t>> decoded(modules.size());
  auto check = [&](size_t i) {
    const size_t raw_size = modules[i]->size() * 4;
    const unsigned long long size = ZSTD_getFrameContentSize(c.frames[i].data(), c.frames[i].size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size == 0 || size > raw_size) return false;
    std::vector<uint8_t>& out = decoded[i];
    out.resize(static_cast<size_t>(size));
    size_t got;
    if (c.parents[i] != SBK_NO_MODULE) {
      const std::vector<uint8_t> prefix = child_prefix(c.dictionary, decoded[c.parents[i]]);
      got = ZSTD_DCtx_refPrefix(dctx, prefix.data(), prefix.size());
      if (!ZSTD_isError(got)) got = ZSTD_decompressDCtx(dctx, out.data(), out.size(), c.frames[i].data(), c.frames[i].size());
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

}  // namespace shaderbake::bundle

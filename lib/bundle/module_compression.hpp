// SPDX-License-Identifier: MIT
#pragma once

// How a bundle's modules are stored (schemas/bundle.md, MODULES): each packed where that is smaller, a zstd
// dictionary trained on the modules themselves, and one frame per module, compressed against the dictionary
// or, for a child, against the dictionary and its parent module's content. Deterministic: the same modules and
// options give the same bytes at any thread count.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lib/bundle/bundle_writer.hpp"
#include "lib/core/result.hpp"

namespace shaderbake::bundle {

// The method's fixed parameters. They decide the bytes, so the compression memo's identity holds each of them.
// Dictionary training (fastCover): k, d and f.
inline constexpr uint32_t kTrainK = 2000, kTrainD = 8, kTrainF = 20;
// A module's sketch: the kSketchSize smallest distinct hashes of its kShingleBytes-byte substrings.
inline constexpr size_t kSketchSize = 64, kShingleBytes = 12;
// Parent choice: each module's kCandidates most resembling modules, of at least kMinShared shared sketch hashes;
// a hash held by more than kCommonHolders modules is not counted.
inline constexpr size_t kCandidates = 4, kMinShared = 8, kCommonHolders = 256;
// A child frame's window (log2 bytes): at least the prefix (a dictionary of at most 64 KiB and a parent) and
// the module, for every module a bundle stores children of (the writer keeps a parent only where it helps).
inline constexpr int kChildWindowLog = 20;

struct CompressedModules {
  std::vector<uint8_t> dictionary;          // empty: frames carry no dictionary
  std::vector<std::vector<uint8_t>> frames;  // one per module, in module order
  std::vector<uint32_t> parents;             // per module: SBK_NO_MODULE, or the module its frame needs as well
  std::vector<uint8_t> packed;               // per module: 1 when the frame holds packed SPIR-V, else the words
};

// The bytes of SPIR-V words: what a module's ModuleId hashes and an unpacked frame holds.
inline std::span<const uint8_t> spirv_bytes(std::span<const uint32_t> words) {
  return {reinterpret_cast<const uint8_t*>(words.data()), words.size() * 4};
}

// Packs and compresses `modules` (in module order) with options.compression_level, options.dictionary_capacity,
// options.parents and options.threads; options.memo is not consulted. Errors are ErrorKind::internal (zstd).
Result<CompressedModules> compress_modules(const std::vector<const std::vector<uint32_t>*>& modules,
                                           const WriteOptions& options);

// The raw prefix a child's frame is compressed against: the trained dictionary's bytes (if any), all of them as
// plain content, followed by the parent's payload (its frame's decompressed content).
std::vector<uint8_t> child_prefix(const std::vector<uint8_t>& trained, std::span<const uint8_t> parent);

// An ErrorKind::internal error (reason zstd_error) naming what failed and zstd's error code.
Error zstd_error(const char* what, size_t code);

}  // namespace shaderbake::bundle

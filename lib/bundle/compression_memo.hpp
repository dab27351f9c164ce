// SPDX-License-Identifier: MIT
#pragma once

// The compression memo: the modules' compression (lib/bundle/module_compression.hpp) remembered between builds
// under the identity of everything it depends on, and taken back only when it decodes to exactly the modules.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "lib/bundle/bundle_writer.hpp"
#include "lib/bundle/module_compression.hpp"

namespace shaderbake::bundle {

// Remembers the writer's compression work between builds (the artifact cache implements it): compressing
// with a trained dictionary is most of a warm build's time. What `find` returns is untrusted: the writer
// uses it only when every frame decompresses to exactly its module's bytes, else it compresses afresh.
class CompressionMemo {
 public:
  virtual ~CompressionMemo() = default;
  // `identity` describes the inputs (zstd version, options, every module's content hash and size).
  virtual std::optional<std::vector<uint8_t>> find(std::span<const uint8_t> identity) = 0;
  virtual void put(std::span<const uint8_t> identity, std::span<const uint8_t> bytes) = 0;
};

// What the compression of `modules` depends on: zstd's version, the method and its parameters, the options,
// and each module's content hash and size, in module order. `ids[i]` is the id of `modules[i]`.
std::vector<uint8_t> compression_identity(const std::vector<ModuleId>& ids,
                                          const std::vector<const std::vector<uint32_t>*>& modules,
                                          const WriteOptions& options);

// The memo's bytes for a compression.
std::vector<uint8_t> encode_compression(const CompressedModules& c);

// The memo's compression of `modules` under `identity`, only if every frame decodes, the way the loader
// decodes it (packed frames unpacked in place), to exactly its module's words; then *hit is set. nullopt for
// no entry and for an entry that is malformed or does not decode to the modules.
std::optional<CompressedModules> recall_compression(CompressionMemo& memo, std::span<const uint8_t> identity,
                                                    const std::vector<const std::vector<uint32_t>*>& modules,
                                                    bool* hit);

}  // namespace shaderbake::bundle

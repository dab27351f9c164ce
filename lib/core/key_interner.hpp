// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "lib/core/key_hash.hpp"

namespace shaderbake {

// A set of canonical byte strings, each given a dense index in insertion order. Lookups hash the bytes
// and confirm every candidate by a full byte compare, so two different strings never share an index even
// if their 128-bit hashes collide. Memory grows with the unique strings only. The bytes live in blocks that
// never move, so a span from bytes() stays valid as long as the interner, across later interns (and no
// growth copies what is already stored). Not thread-safe; movable, not copyable.
class KeyInterner {
 public:
  struct Interned {
    uint32_t index;
    bool inserted;  // true when the bytes were not in the set before
  };

  KeyInterner();
  KeyInterner(const KeyInterner&) = delete;
  KeyInterner& operator=(const KeyInterner&) = delete;
  KeyInterner(KeyInterner&&) noexcept = default;
  KeyInterner& operator=(KeyInterner&&) noexcept = default;

  Interned intern(std::span<const uint8_t> bytes) { return intern(bytes, KeyHash::of(bytes)); }
  // `hash` must be KeyHash::of(bytes); callers that already have it skip the rehash.
  Interned intern(std::span<const uint8_t> bytes, const KeyHash& hash);

  // Index of `bytes`, or kAbsent.
  static constexpr uint32_t kAbsent = UINT32_MAX;
  uint32_t find(std::span<const uint8_t> bytes) const { return find(bytes, KeyHash::of(bytes)); }
  uint32_t find(std::span<const uint8_t> bytes, const KeyHash& hash) const;

  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
  std::span<const uint8_t> bytes(uint32_t index) const;
  const KeyHash& hash(uint32_t index) const { return entries_[index].hash; }
  // Bytes held for the strings themselves (the memory a cap would bound).
  uint64_t stored_bytes() const { return stored_bytes_; }

 private:
  struct Entry {
    KeyHash hash;
    const uint8_t* data;  // inside one of blocks_
    uint32_t size;
  };
  uint32_t probe(std::span<const uint8_t> bytes, const KeyHash& hash, size_t* slot_out) const;
  void grow();
  const uint8_t* store(std::span<const uint8_t> bytes);

  // Each block is allocated once at its final capacity and only appended to within it: its buffer never moves
  // (moving the outer vector moves the inner vectors' ownership, not their bytes).
  std::vector<std::vector<uint8_t>> blocks_;
  uint64_t stored_bytes_ = 0;
  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;  // open addressing, linear probing; kAbsent = empty
};

}  // namespace shaderbake

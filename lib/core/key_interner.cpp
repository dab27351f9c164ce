// SPDX-License-Identifier: MIT
#include "lib/core/key_interner.hpp"

#include <algorithm>
#include <cstring>

namespace shaderbake {

KeyInterner::KeyInterner() : slots_(64, kAbsent) {}

namespace {
// Blocks double from 4 KiB to 1 MiB: small sets stay small, large ones allocate rarely.
constexpr size_t kFirstBlock = size_t{4} << 10;
constexpr size_t kLargestBlock = size_t{1} << 20;
}  // namespace

std::span<const uint8_t> KeyInterner::bytes(uint32_t index) const {
  const Entry& e = entries_[index];
  return {e.data, e.size};
}

const uint8_t* KeyInterner::store(std::span<const uint8_t> bytes) {
  if (blocks_.empty() || blocks_.back().capacity() - blocks_.back().size() < bytes.size()) {
    const size_t next = blocks_.empty() ? kFirstBlock : std::min(blocks_.back().capacity() * 2, kLargestBlock);
    blocks_.emplace_back();
    blocks_.back().reserve(std::max(next, bytes.size()));
  }
  std::vector<uint8_t>& block = blocks_.back();
  const size_t at = block.size();
  block.insert(block.end(), bytes.begin(), bytes.end());  // within capacity: the buffer stays put
  stored_bytes_ += bytes.size();
  return block.data() + at;
}

uint32_t KeyInterner::probe(std::span<const uint8_t> bytes, const KeyHash& hash, size_t* slot_out) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = hash.low & mask;; slot = (slot + 1) & mask) {
    const uint32_t index = slots_[slot];
    if (index == kAbsent) {
      *slot_out = slot;
      return kAbsent;
    }
    const Entry& e = entries_[index];
    // The hash only narrows the search; equal bytes decide.
    if (e.hash == hash && e.size == bytes.size() &&
        (bytes.empty() || std::memcmp(e.data, bytes.data(), bytes.size()) == 0)) {
      *slot_out = slot;
      return index;
    }
  }
}

uint32_t KeyInterner::find(std::span<const uint8_t> bytes, const KeyHash& hash) const {
  size_t slot = 0;
  return probe(bytes, hash, &slot);
}

KeyInterner::Interned KeyInterner::intern(std::span<const uint8_t> bytes, const KeyHash& hash) {
  size_t slot = 0;
  const uint32_t found = probe(bytes, hash, &slot);
  if (found != kAbsent) return {found, false};
  const uint32_t index = static_cast<uint32_t>(entries_.size());
  entries_.push_back(Entry{hash, store(bytes), static_cast<uint32_t>(bytes.size())});
  slots_[slot] = index;
  if (entries_.size() * 2 > slots_.size()) grow();
  return {index, true};
}

void KeyInterner::grow() {
  std::vector<uint32_t> bigger(slots_.size() * 2, kAbsent);
  const size_t mask = bigger.size() - 1;
  for (uint32_t index = 0; index < entries_.size(); ++index) {
    size_t slot = entries_[index].hash.low & mask;
    while (bigger[slot] != kAbsent) slot = (slot + 1) & mask;
    bigger[slot] = index;
  }
  slots_.swap(bigger);
}

}  // namespace shaderbake

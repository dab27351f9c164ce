// SPDX-License-Identifier: MIT
#include "lib/core/key_interner.hpp"

#include <cstring>

namespace shaderbake {

KeyInterner::KeyInterner() : slots_(64, kAbsent) {}

std::span<const uint8_t> KeyInterner::bytes(uint32_t index) const {
  const Entry& e = entries_[index];
  return {arena_.data() + e.offset, e.size};
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
        (bytes.empty() || std::memcmp(arena_.data() + e.offset, bytes.data(), bytes.size()) == 0)) {
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
  entries_.push_back(Entry{hash, arena_.size(), static_cast<uint32_t>(bytes.size())});
  arena_.insert(arena_.end(), bytes.begin(), bytes.end());
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

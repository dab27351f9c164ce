// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace shaderbake {

// 128-bit hash of a canonical byte string (the runtime header's sbk_hash_key: XXH3-128). Finds candidates
// only: identity is always confirmed by comparing the full canonical bytes.
struct KeyHash {
  uint64_t low = 0;
  uint64_t high = 0;

  static KeyHash of(std::span<const uint8_t> bytes);

  // 32 lowercase hex digits, high half first (the form reports and `inspect` accept).
  std::string to_hex() const;

  friend bool operator==(const KeyHash&, const KeyHash&) = default;
  friend auto operator<=>(const KeyHash&, const KeyHash&) = default;
};

}  // namespace shaderbake

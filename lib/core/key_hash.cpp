// SPDX-License-Identifier: MIT
#include "lib/core/key_hash.hpp"

#include "runtime_loader/shaderbake.h"

namespace shaderbake {

KeyHash KeyHash::of(std::span<const uint8_t> bytes) {
  const sbk_key_hash h = sbk_hash_key(bytes.data(), bytes.size());
  return KeyHash{h.low, h.high};
}

std::string KeyHash::to_hex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[15 - i] = kDigits[(high >> (4 * i)) & 0xF];
    out[31 - i] = kDigits[(low >> (4 * i)) & 0xF];
  }
  return out;
}

}  // namespace shaderbake

// SPDX-License-Identifier: MIT
#include "lib/core/hex.hpp"

#include <cstdio>

namespace shaderbake {

void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes) {
  static const char kDigits[] = "0123456789abcdef";
  out.reserve(out.size() + 2 * bytes.size());
  for (const uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
}

std::string hex_bytes(std::span<const uint8_t> bytes) {
  std::string out;
  append_hex_bytes(out, bytes);
  return out;
}

std::string hex_word(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", value);
  return text;
}

}  // namespace shaderbake

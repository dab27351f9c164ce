// SPDX-License-Identifier: MIT
#include "cli/byte_size.hpp"

#include <limits>

namespace shaderbake::cli {

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  uint64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  std::string_view unit = text.substr(i);
  if (unit.empty()) return value;
  int shift = 0;
  switch (unit[0]) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: return std::nullopt;
  }
  unit.remove_prefix(1);
  if (!(unit.empty() || unit == "B" || unit == "b" || unit == "iB" || unit == "ib")) return std::nullopt;
  if (value > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace shaderbake {

// Lower-case hex of bytes, in order ("00ff10"): how keys and UUIDs are printed and accepted.
std::string hex_bytes(std::span<const uint8_t> bytes);
// Appends the same to `out` (no allocation per call for long listings).
void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes);

// "0x0804A000": a 32-bit word as traces and vectors write hardware words.
std::string hex_word(uint32_t value);

}  // namespace shaderbake

// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

namespace shaderbake {

// Little-endian integers of the tool's file formats (bundle sections, cache entries) at a place in memory, read
// and written field by field, never through a struct's memory, whatever the host's byte order. No bounds check:
// the caller has checked that `p` holds the bytes (untrusted sizes against what is there, without overflow).
// Bytes read front to back, and bytes appended, go through ByteReader and ByteWriter (lib/core/byte_io.hpp).

inline uint32_t load_u16_le(const uint8_t* p) { return uint32_t{p[0]} | (uint32_t{p[1]} << 8); }

inline uint32_t load_u32_le(const uint8_t* p) { return load_u16_le(p) | (load_u16_le(p + 2) << 16); }

inline uint64_t load_u64_le(const uint8_t* p) { return load_u32_le(p) | (uint64_t{load_u32_le(p + 4)} << 32); }

inline void store_u16_le(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}

inline void store_u32_le(uint8_t* p, uint32_t v) {
  store_u16_le(p, v & 0xFFFF);
  store_u16_le(p + 2, v >> 16);
}

inline void store_u64_le(uint8_t* p, uint64_t v) {
  store_u32_le(p, static_cast<uint32_t>(v));
  store_u32_le(p + 4, static_cast<uint32_t>(v >> 32));
}

}  // namespace shaderbake

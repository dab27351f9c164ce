// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shaderbake {

// Little-endian integers of the tool's file formats (bundle sections, cache entries), read and written field
// by field, never through a struct's memory, whatever the host's byte order. The loads do no bounds check:
// the caller has checked that `p` holds the bytes (untrusted sizes against what is there, without overflow).

inline uint32_t load_u16_le(const uint8_t* p) { return uint32_t{p[0]} | (uint32_t{p[1]} << 8); }

inline uint32_t load_u32_le(const uint8_t* p) { return load_u16_le(p) | (load_u16_le(p + 2) << 16); }

inline uint64_t load_u64_le(const uint8_t* p) { return load_u32_le(p) | (uint64_t{load_u32_le(p + 4)} << 32); }

inline void append_u32_le(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

inline void append_u64_le(std::vector<uint8_t>& out, uint64_t v) {
  append_u32_le(out, static_cast<uint32_t>(v));
  append_u32_le(out, static_cast<uint32_t>(v >> 32));
}

// A length-prefixed field of the tool's identity encodings and cache files: a u64 byte count, then the bytes.
// The prefixes make a sequence of fields unambiguous (no two different tuples give the same bytes).
inline void append_length_prefixed(std::vector<uint8_t>& out, const void* data, size_t size) {
  append_u64_le(out, size);
  const auto* bytes = static_cast<const uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
}

}  // namespace shaderbake

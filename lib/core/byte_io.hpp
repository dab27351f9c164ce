// SPDX-License-Identifier: MIT
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/little_endian.hpp"

namespace shaderbake {

// The bytes of a text, for a ByteWriter field.
inline std::span<const uint8_t> byte_span(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// A cursor over untrusted bytes (cache entries, memo payloads, bundle sections) that reads the tool's
// little-endian fields front to back. Every take checks what remains first: it either takes its whole field,
// stores it and advances, or returns false and changes nothing (neither the cursor nor the output). Nothing is
// ever read past the end whatever a length or count claims: a claim is compared against remaining(), never
// added to an offset, so values up to UINT64_MAX cannot overflow. No exceptions; no allocation but the copy
// string_u32 makes.
// The reader does not own the bytes: they outlive it and every span it hands out points into them.
class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool u8(uint8_t& v) {
    return take(1, [&](const uint8_t* p) { v = p[0]; });
  }
  bool u16(uint16_t& v) {
    return take(2, [&](const uint8_t* p) { v = static_cast<uint16_t>(load_u16_le(p)); });
  }
  bool u32(uint32_t& v) {
    return take(4, [&](const uint8_t* p) { v = load_u32_le(p); });
  }
  bool u64(uint64_t& v) {
    return take(8, [&](const uint8_t* p) { v = load_u64_le(p); });
  }

  // The next `n` bytes, as a view into the input.
  bool bytes(uint64_t n, std::span<const uint8_t>& out) {
    return take(n, [&](const uint8_t* p) { out = {p, static_cast<size_t>(n)}; });
  }
  // Exactly out.size() bytes, copied into `out` (a fixed-size field: a UUID, a digest).
  bool copy(std::span<uint8_t> out) {
    return take(out.size(), [&](const uint8_t* p) {
      if (!out.empty()) std::memcpy(out.data(), p, out.size());
    });
  }
  bool skip(uint64_t n) {
    return take(n, [](const uint8_t*) {});
  }

  // A u64 byte count, then that many bytes (what ByteWriter::field_u64 writes). The count is taken only
  // together with its bytes.
  bool field_u64(std::span<const uint8_t>& out) {
    return undo_on_failure([&] {
      uint64_t n = 0;
      return u64(n) && bytes(n, out);
    });
  }
  // The same with a u32 byte count (ByteWriter::field_u32).
  bool field_u32(std::span<const uint8_t>& out) {
    return undo_on_failure([&] {
      uint32_t n = 0;
      return u32(n) && bytes(n, out);
    });
  }
  // A u32 byte count, then the text (ByteWriter::string_u32).
  bool string_u32(std::string& out) {
    std::span<const uint8_t> text;
    if (!field_u32(text)) return false;
    out.assign(reinterpret_cast<const char*>(text.data()), text.size());
    return true;
  }

  // A count of the records that follow, each at least `min_record` bytes (> 0): refused, like a short read,
  // when the bytes that remain after the count cannot hold that many, so that a caller may size a container
  // by it.
  bool count_u32(uint32_t& n, uint64_t min_record) {
    uint32_t v = 0;
    if (!undo_on_failure([&] { return u32(v) && fits(v, min_record); })) return false;
    n = v;
    return true;
  }
  bool count_u64(uint64_t& n, uint64_t min_record) {
    uint64_t v = 0;
    if (!undo_on_failure([&] { return u64(v) && fits(v, min_record); })) return false;
    n = v;
    return true;
  }
  // Whether `count` records of `record_size` bytes (> 0) each fit in what remains (no product is formed).
  bool fits(uint64_t count, uint64_t record_size) const {
    assert(record_size > 0);
    return count <= remaining() / record_size;
  }

  size_t remaining() const { return bytes_.size() - at_; }
  bool at_end() const { return at_ == bytes_.size(); }
  size_t offset() const { return at_; }  // bytes taken so far

 private:
  template <class Store>
  bool take(uint64_t n, Store&& store) {
    if (n > remaining()) return false;
    store(bytes_.data() + at_);
    at_ += static_cast<size_t>(n);
    return true;
  }
  template <class Takes>
  bool undo_on_failure(Takes&& takes) {
    const size_t start = at_;
    if (takes()) return true;
    at_ = start;
    return false;
  }

  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

// Appends the tool's little-endian fields to a byte string it owns, field by field (never a struct's
// memory), in the layouts ByteReader reads.
class ByteWriter {
 public:
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u16(uint16_t v) { store_u16_le(grow(2), v); }
  void u32(uint32_t v) { store_u32_le(grow(4), v); }
  void u64(uint64_t v) { store_u64_le(grow(8), v); }
  void bytes(std::span<const uint8_t> b) { bytes_.insert(bytes_.end(), b.begin(), b.end()); }

  // A u64 byte count, then the bytes: the field of the tool's identity encodings and cache files. The
  // prefixes make a sequence of fields unambiguous (no two different tuples give the same bytes).
  void field_u64(std::span<const uint8_t> b) {
    u64(b.size());
    bytes(b);
  }
  // A u32 byte count, then the bytes; the caller keeps them under 4 GiB.
  void field_u32(std::span<const uint8_t> b) {
    assert(b.size() <= UINT32_MAX);
    u32(static_cast<uint32_t>(b.size()));
    bytes(b);
  }
  void string_u32(std::string_view text) { field_u32(byte_span(text)); }

  // Zero bytes up to the next multiple of 8 of size().
  void align8() { bytes_.resize((bytes_.size() + 7) & ~size_t{7}, 0); }
  // Overwrites the u64 at `at` (written earlier: a size or checksum known only later).
  void patch_u64(size_t at, uint64_t v) {
    assert(at + 8 <= bytes_.size());
    store_u64_le(bytes_.data() + at, v);
  }

  void reserve(size_t n) { bytes_.reserve(n); }
  size_t size() const { return bytes_.size(); }
  // What has been written; move it out when done.
  std::vector<uint8_t>& data() { return bytes_; }

 private:
  uint8_t* grow(size_t n) {
    bytes_.resize(bytes_.size() + n);
    return bytes_.data() + bytes_.size() - n;
  }

  std::vector<uint8_t> bytes_;
};

}  // namespace shaderbake

// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "lib/core/key_interner.hpp"

namespace {

using shaderbake::KeyHash;
using shaderbake::KeyInterner;

std::vector<uint8_t> bytes_of(uint32_t n, size_t size) {
  std::vector<uint8_t> b(size);
  for (size_t i = 0; i < size; ++i) b[i] = static_cast<uint8_t>((n >> (8 * (i % 4))) + i);
  return b;
}

TEST(KeyInterner, gives_dense_indices_in_first_seen_order_and_finds_them_again) {
  KeyInterner keys;
  for (uint32_t n = 0; n < 5000; ++n) {
    auto r = keys.intern(bytes_of(n, 20));
    EXPECT_TRUE(r.inserted);
    EXPECT_EQ(r.index, n);
  }
  for (uint32_t n = 0; n < 5000; ++n) {
    auto r = keys.intern(bytes_of(n, 20));
    EXPECT_FALSE(r.inserted);
    EXPECT_EQ(r.index, n);
    EXPECT_EQ(keys.find(bytes_of(n, 20)), n);
    auto stored = keys.bytes(n);
    EXPECT_EQ(std::vector<uint8_t>(stored.begin(), stored.end()), bytes_of(n, 20));
  }
  EXPECT_EQ(keys.find(bytes_of(99999, 20)), KeyInterner::kAbsent);
}

TEST(KeyInterner, a_hash_collision_never_merges_different_bytes) {
  // Force a collision by handing the same hash for different bytes: identity must come from the bytes.
  KeyInterner keys;
  const KeyHash forced{42, 42};
  const std::vector<uint8_t> a = {1, 2, 3}, b = {1, 2, 4}, c = {1, 2};
  const auto ia = keys.intern(a, forced);
  const auto ib = keys.intern(b, forced);
  const auto ic = keys.intern(c, forced);
  EXPECT_TRUE(ia.inserted && ib.inserted && ic.inserted);
  EXPECT_NE(ia.index, ib.index);
  EXPECT_NE(ib.index, ic.index);
  EXPECT_EQ(keys.find(b, forced), ib.index);
  EXPECT_EQ(keys.find(std::vector<uint8_t>{9, 9, 9}, forced), KeyInterner::kAbsent);
}

TEST(KeyHash, hex_form_is_32_digits_high_half_first) {
  const KeyHash h{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  EXPECT_EQ(h.to_hex(), "fedcba98765432100123456789abcdef");
}

}  // namespace

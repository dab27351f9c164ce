// SPDX-License-Identifier: MIT
// ByteReader and ByteWriter (lib/core/byte_io.hpp): the cursor every reader of the tool's binary formats goes
// through. Expected bytes are written out by hand from the little-endian layout, never produced by the writer.
#include "lib/core/byte_io.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace shaderbake {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();

// `v` as `width` little-endian bytes, written out here rather than by the code under test.
std::vector<uint8_t> le(uint64_t v, int width) {
  std::vector<uint8_t> out;
  for (int i = 0; i < width; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return out;
}

std::vector<uint8_t> u64_le(uint64_t v) { return le(v, 8); }

TEST(ByteReader, reads_little_endian_fields_up_to_the_exact_end) {
  const std::vector<uint8_t> bytes = {0xAB,                                            // u8
                                      0x34, 0x12,                                      // u16
                                      0xEF, 0xBE, 0xAD, 0xDE,                          // u32
                                      0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // u64
                                      'x',  'y'};                                      // 2 bytes
  ByteReader in(bytes);
  uint8_t a = 0;
  uint16_t b = 0;
  uint32_t c = 0;
  uint64_t d = 0;
  std::array<uint8_t, 2> e{};
  ASSERT_TRUE(in.u8(a) && in.u16(b) && in.u32(c) && in.u64(d));
  EXPECT_EQ(in.offset(), 15u);
  EXPECT_EQ(in.remaining(), 2u);
  EXPECT_FALSE(in.at_end());
  ASSERT_TRUE(in.copy(e));
  EXPECT_EQ(a, 0xAB);
  EXPECT_EQ(b, 0x1234);
  EXPECT_EQ(c, 0xDEADBEEFu);
  EXPECT_EQ(d, 0x0102030405060708u);
  EXPECT_EQ(e, (std::array<uint8_t, 2>{'x', 'y'}));
  EXPECT_TRUE(in.at_end());
  EXPECT_EQ(in.offset(), bytes.size());
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_FALSE(in.u8(a));
  std::span<const uint8_t> none;
  EXPECT_TRUE(in.bytes(0, none));  // nothing is always there
  EXPECT_TRUE(none.empty());
}

TEST(ByteReader, a_read_one_byte_short_fails_and_changes_nothing) {
  for (size_t width : {1, 2, 4, 8}) {
    // One byte taken first, so that "does not advance" is seen at an offset other than 0.
    const std::vector<uint8_t> bytes(1 + width - 1, 0x5A);
    ByteReader in(bytes);
    uint8_t first = 0;
    ASSERT_TRUE(in.u8(first));
    uint8_t v8 = 7;
    uint16_t v16 = 7;
    uint32_t v32 = 7;
    uint64_t v64 = 7;
    const bool taken = width == 1 ? in.u8(v8) : width == 2 ? in.u16(v16) : width == 4 ? in.u32(v32) : in.u64(v64);
    EXPECT_FALSE(taken) << width;
    EXPECT_EQ(in.offset(), 1u) << width;
    EXPECT_EQ(v8 + v16 + v32 + v64, 28u) << width;  // every output kept its value
  }
  const std::vector<uint8_t> three = {1, 2, 3};
  ByteReader in(three);
  std::array<uint8_t, 4> four{9, 9, 9, 9};
  std::span<const uint8_t> view;
  EXPECT_FALSE(in.copy(four));
  EXPECT_EQ(four, (std::array<uint8_t, 4>{9, 9, 9, 9}));
  EXPECT_FALSE(in.bytes(4, view));
  EXPECT_TRUE(view.empty());
  EXPECT_FALSE(in.skip(4));
  EXPECT_EQ(in.offset(), 0u);
  EXPECT_TRUE(in.skip(3));
  EXPECT_TRUE(in.at_end());
}

TEST(ByteReader, every_truncation_of_a_field_sequence_stops_at_the_field_it_cuts) {
  // u8 | u16 | u32 | u64 | u64 count + 3 bytes | u32 count + "text" | u32 count + 0 bytes: the end of each field.
  std::vector<uint8_t> whole = {0x01, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00};
  const std::vector<uint8_t> four = u64_le(4);
  whole.insert(whole.end(), four.begin(), four.end());
  const std::vector<uint8_t> three = u64_le(3);
  whole.insert(whole.end(), three.begin(), three.end());
  whole.insert(whole.end(), {'a', 'b', 'c', 4, 0, 0, 0, 't', 'e', 'x', 't', 0, 0, 0, 0});
  const std::vector<size_t> field_ends = {1, 3, 7, 15, 26, 34, 38};
  ASSERT_EQ(field_ends.back(), whole.size());

  for (size_t length = 0; length <= whole.size(); ++length) {
    ByteReader in(std::span<const uint8_t>(whole).first(length));
    uint8_t a = 0;
    uint16_t b = 0;
    uint32_t c = 0;
    uint64_t d = 0;
    std::span<const uint8_t> field, empty_field;
    std::string text;
    // Read as a decoder does: field after field, stopping at the first that fails.
    const std::function<bool()> takes[] = {[&] { return in.u8(a); },
                                           [&] { return in.u16(b); },
                                           [&] { return in.u32(c); },
                                           [&] { return in.u64(d); },
                                           [&] { return in.field_u64(field); },
                                           [&] { return in.string_u32(text); },
                                           [&] { return in.field_u32(empty_field); }};
    size_t taken = 0;
    while (taken < std::size(takes) && takes[taken]()) ++taken;
    // Every field the truncated input holds whole is taken, the one it cuts is not, and the cursor stays at
    // the end of the last whole one.
    size_t whole_fields = 0;
    while (whole_fields < field_ends.size() && field_ends[whole_fields] <= length) ++whole_fields;
    EXPECT_EQ(taken, whole_fields) << length;
    EXPECT_EQ(in.offset(), whole_fields == 0 ? 0 : field_ends[whole_fields - 1]) << length;
    const bool ends_on_a_field =
        length == 0 || std::find(field_ends.begin(), field_ends.end(), length) != field_ends.end();
    EXPECT_EQ(in.at_end(), ends_on_a_field) << length;
    if (whole_fields == field_ends.size()) {
      EXPECT_EQ(d, 4u);
      EXPECT_EQ(std::string(field.begin(), field.end()), "abc");
      EXPECT_EQ(text, "text");
      EXPECT_TRUE(empty_field.empty());
    }
  }
}

TEST(ByteReader, a_length_prefix_past_what_is_left_fails_without_overflow_or_advance) {
  // What remains after each prefix is 8 bytes; prefixes just past that, and near 2^64, where an offset plus the
  // prefix would wrap around.
  for (uint64_t claimed : {uint64_t{9}, uint64_t{1} << 32, uint64_t{1} << 63, kU64Max - 7, kU64Max - 16, kU64Max}) {
    std::vector<uint8_t> bytes = u64_le(claimed);
    bytes.resize(16, 0xEE);
    ByteReader in(bytes);
    std::span<const uint8_t> field;
    EXPECT_FALSE(in.field_u64(field)) << claimed;
    EXPECT_EQ(in.offset(), 0u) << claimed;  // the prefix is taken only with its bytes
    EXPECT_TRUE(field.empty());
    uint64_t prefix = 0;
    ASSERT_TRUE(in.u64(prefix));
    EXPECT_FALSE(in.bytes(prefix, field)) << claimed;
    EXPECT_FALSE(in.skip(prefix)) << claimed;
    EXPECT_EQ(in.offset(), 8u) << claimed;
  }
  // u32 prefixes: 0xFFFFFFFF, and one byte more than what is left.
  for (uint64_t claimed : {uint64_t{0xFFFFFFFF}, uint64_t{5}}) {
    std::vector<uint8_t> bytes = le(claimed, 4);
    bytes.insert(bytes.end(), {'a', 'b', 'c', 'd'});
    ByteReader in(bytes);
    std::string text = "kept";
    std::span<const uint8_t> field;
    EXPECT_FALSE(in.string_u32(text)) << claimed;
    EXPECT_EQ(text, "kept");
    EXPECT_FALSE(in.field_u32(field)) << claimed;
    EXPECT_EQ(in.offset(), 0u) << claimed;
  }
  // Exactly what is left is a whole field.
  std::vector<uint8_t> exact = u64_le(8);
  exact.resize(16, 0xEE);
  ByteReader in(exact);
  std::span<const uint8_t> field;
  EXPECT_TRUE(in.field_u64(field));
  EXPECT_EQ(field.size(), 8u);
  EXPECT_TRUE(in.at_end());
}

TEST(ByteReader, a_count_is_bounded_by_the_records_the_remaining_bytes_can_hold) {
  // A u32 count, then 24 bytes: room for two 12-byte records, three 8-byte ones, 24 one-byte ones.
  struct Case {
    uint64_t count, record;
    bool fits;
  };
  const Case u32_cases[] = {{0, 12, true},       {2, 12, true},     {3, 12, false}, {3, 8, true},
                            {4, 8, false},       {24, 1, true},     {25, 1, false}, {0xFFFFFFFF, 1, false},
                            {1, kU64Max, false}, {0, kU64Max, true}};
  for (const auto& [count, record, fits] : u32_cases) {
    std::vector<uint8_t> bytes = le(count, 4);
    bytes.resize(4 + 24, 0);
    ByteReader in(bytes);
    uint32_t n = 77;
    EXPECT_EQ(in.count_u32(n, record), fits) << count << " of " << record;
    EXPECT_EQ(n, fits ? count : 77u) << count << " of " << record;        // a refused count is not stored
    EXPECT_EQ(in.offset(), fits ? 4u : 0u) << count << " of " << record;  // a refused count is not taken
  }
  // u64 counts up to 2^64 - 1: no product is formed.
  const Case u64_cases[] = {
      {2, 4, true}, {3, 4, false}, {kU64Max, 1, false}, {kU64Max / 4 + 1, 4, false}, {uint64_t{1} << 62, 4, false}};
  for (const auto& [count, record, fits] : u64_cases) {
    std::vector<uint8_t> bytes = u64_le(count);
    bytes.resize(8 + 8, 0);
    ByteReader in(bytes);
    uint64_t n = 77;
    EXPECT_EQ(in.count_u64(n, record), fits) << count << " of " << record;
    EXPECT_EQ(n, fits ? count : 77u);
    EXPECT_EQ(in.offset(), fits ? 8u : 0u);
  }
  EXPECT_TRUE(ByteReader(std::vector<uint8_t>(16)).fits(16, 1));
  EXPECT_FALSE(ByteReader(std::vector<uint8_t>(16)).fits(kU64Max, kU64Max));
  // A count with nothing after it: only zero records fit.
  const std::vector<uint8_t> bare = {1, 0, 0, 0};
  ByteReader in(bare);
  uint32_t n = 0;
  EXPECT_FALSE(in.count_u32(n, 1));
  EXPECT_TRUE(ByteReader(std::vector<uint8_t>{0, 0, 0, 0}).count_u32(n, 1));
}

TEST(ByteReader, an_empty_input_has_nothing_to_take) {
  ByteReader in(std::span<const uint8_t>{});
  uint8_t v = 0;
  uint32_t n = 0;
  std::span<const uint8_t> field;
  std::string text;
  EXPECT_TRUE(in.at_end());
  EXPECT_FALSE(in.u8(v));
  EXPECT_FALSE(in.count_u32(n, 1));
  EXPECT_FALSE(in.field_u64(field));
  EXPECT_FALSE(in.string_u32(text));
  EXPECT_TRUE(in.bytes(0, field));
  EXPECT_TRUE(in.skip(0));
  EXPECT_EQ(in.offset(), 0u);
}

TEST(ByteWriter, writes_each_field_little_endian_byte_for_byte) {
  ByteWriter w;
  w.u8(0xAB);
  w.u16(0x1234);
  w.u32(0xDEADBEEF);
  w.u64(0x0102030405060708);
  w.field_u64(byte_span("hi"));
  w.string_u32("abc");
  w.field_u32(std::vector<uint8_t>{});
  const std::vector<uint8_t> expected = {0xAB, 0x34, 0x12, 0xEF, 0xBE, 0xAD, 0xDE,               // u8 u16 u32
                                         8,    7,    6,    5,    4,    3,    2,    1,            // u64
                                         2,    0,    0,    0,    0,    0,    0,    0, 'h', 'i',  // field_u64
                                         3,    0,    0,    0,    'a',  'b',  'c',                // string_u32
                                         0,    0,    0,    0};                                   // field_u32
  EXPECT_EQ(w.data(), expected);
  w.align8();
  EXPECT_EQ(w.size(), 40u);
  EXPECT_TRUE(std::all_of(w.data().begin() + 36, w.data().end(), [](uint8_t b) { return b == 0; }));
  w.align8();  // already aligned: nothing added
  EXPECT_EQ(w.size(), 40u);
  w.patch_u64(32, 0x1122334455667788);
  EXPECT_EQ(std::vector<uint8_t>(w.data().begin() + 32, w.data().end()),
            (std::vector<uint8_t>{0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}));
  EXPECT_EQ(w.data()[31], 'c');  // the byte before the patch is untouched
}

TEST(ByteWriter, what_it_writes_the_reader_reads_back) {
  ByteWriter w;
  w.u32(3);
  w.field_u64(byte_span("payload"));
  w.string_u32("name");
  w.u64(kU64Max);
  ByteReader in(w.data());
  uint32_t n = 0;
  uint64_t last = 0;
  std::span<const uint8_t> payload;
  std::string name;
  ASSERT_TRUE(in.u32(n) && in.field_u64(payload) && in.string_u32(name) && in.u64(last));
  EXPECT_TRUE(in.at_end());
  EXPECT_EQ(n, 3u);
  EXPECT_EQ(std::string(payload.begin(), payload.end()), "payload");
  EXPECT_EQ(name, "name");
  EXPECT_EQ(last, kU64Max);
}

}  // namespace
}  // namespace shaderbake

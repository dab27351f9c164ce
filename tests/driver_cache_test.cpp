// SPDX-License-Identifier: MIT
// DRIVER_CACHE (schemas/bundle.md): sbk_bundle_driver_cache hands out only the blob stored for exactly the
// probed device, and refuses (SBK_ERROR_CORRUPT) every malformed section and every mislabelled blob;
// with_driver_cache adds or replaces one device's blob and leaves every other section byte-identical.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <span>
#include <vector>

#include "lib/bundle/bundle_layout.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/bundle/driver_cache.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "tests/bundle/bundle_sections.hpp"

using namespace shaderbake;
using bundle::DriverCacheBlob;
using bundle::DriverIdentity;

namespace {

DriverIdentity identity(uint32_t vendor, uint32_t device, uint32_t driver, uint8_t uuid_seed) {
  DriverIdentity id;
  id.vendor_id = vendor;
  id.device_id = device;
  id.driver_version = driver;
  for (int i = 0; i < 16; ++i) id.pipeline_cache_uuid[i] = static_cast<uint8_t>(uuid_seed + i);
  return id;
}

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// What vkGetPipelineCacheData returns: a VkPipelineCacheHeaderVersionOne for `id`, then `payload` bytes.
std::vector<uint8_t> cache_data(const DriverIdentity& id, size_t payload, uint8_t fill) {
  std::vector<uint8_t> data(32 + payload, fill);
  put_u32(&data[0], 32);
  put_u32(&data[4], 1);
  put_u32(&data[8], id.vendor_id);
  put_u32(&data[12], id.device_id);
  std::copy(id.pipeline_cache_uuid.begin(), id.pipeline_cache_uuid.end(), data.begin() + 16);
  return data;
}

DriverCacheBlob blob(const DriverIdentity& id, size_t payload, uint8_t fill) { return {id, cache_data(id, payload, fill)}; }

// The smallest valid bundle: what the writer gives for no content at all.
std::vector<uint8_t> empty_bundle() {
  bundle::BundleIdentity bundle_identity;
  bundle_identity.toolchain_fingerprint = "driver cache test toolchain";
  bundle_identity.guest = SBK_GUEST_NV2A;
  bundle_identity.key_schema = SBK_NV2A_KEY_SCHEMA_VERSION;
  bundle_identity.guest_name = "nv2a";
  bundle::BundleBuilder builder(bundle_identity);
  auto bytes = builder.serialize(bundle::WriteOptions{});
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

using shaderbake::testing::sections_of;

// `base`'s sections with DRIVER_CACHE set to `section` (any bytes: the frame's checksums are right, so only the
// section's own rules can catch what is wrong with it).
std::vector<uint8_t> with_section(const std::vector<uint8_t>& base, const std::vector<uint8_t>& section) {
  return shaderbake::testing::with_section(base, SBK_SECTION_DRIVER_CACHE, section);
}

// The loader's answer for `id` on `bytes`; `found` receives the blob on SBK_OK.
sbk_result lookup(const std::vector<uint8_t>& bytes, const DriverIdentity& id, std::vector<uint8_t>* found = nullptr) {
  sbk_bundle b;
  const sbk_result opened = sbk_bundle_open_memory(&b, bytes.data(), bytes.size());
  if (opened != SBK_OK) return opened;
  const void* data = reinterpret_cast<const void*>(1);
  size_t size = 1;
  const sbk_result r = sbk_bundle_driver_cache(&b, id.vendor_id, id.device_id, id.driver_version,
                                               id.pipeline_cache_uuid.data(), &data, &size);
  if (r != SBK_OK) {
    EXPECT_EQ(data, nullptr);
    EXPECT_EQ(size, 0u);
    return r;
  }
  const auto* p = static_cast<const uint8_t*>(data);
  EXPECT_TRUE(p >= bytes.data() && p + size <= bytes.data() + bytes.size()) << "the blob must point into the bundle";
  if (found) found->assign(p, p + size);
  return r;
}

std::vector<uint8_t> warmed(const std::vector<uint8_t>& bytes, const DriverCacheBlob& b) {
  auto out = bundle::with_driver_cache(bytes, b);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  return out.ok() ? *out : std::vector<uint8_t>{};
}

// A DRIVER_CACHE section with the entries in the order given (encode_driver_cache_section sorts them and
// refuses duplicates: this does neither), blobs laid out as the writer does.
std::vector<uint8_t> raw_section(const std::vector<DriverCacheBlob>& blobs) {
  std::vector<uint8_t> out(8 + 48 * blobs.size(), 0);
  put_u32(&out[0], static_cast<uint32_t>(blobs.size()));
  for (size_t i = 0; i < blobs.size(); ++i) {
    out.resize((out.size() + 7) & ~size_t{7}, 0);
    uint8_t* e = &out[8 + 48 * i];
    put_u32(e, blobs[i].identity.vendor_id);
    put_u32(e + 4, blobs[i].identity.device_id);
    put_u32(e + 8, blobs[i].identity.driver_version);
    std::copy(blobs[i].identity.pipeline_cache_uuid.begin(), blobs[i].identity.pipeline_cache_uuid.end(), e + 16);
    put_u32(e + 32, static_cast<uint32_t>(out.size()));
    put_u32(e + 40, static_cast<uint32_t>(blobs[i].data.size()));
    out.insert(out.end(), blobs[i].data.begin(), blobs[i].data.end());
  }
  return out;
}

const DriverIdentity kLavapipe = identity(0x10005, 0, 0x5803006, 0x40);
const DriverIdentity kNvidia = identity(0x10de, 0x2335, 0x91278100, 0x90);

}  // namespace

TEST(DriverCache, reassembling_a_bundles_own_sections_gives_its_bytes_back) {
  const auto bytes = empty_bundle();
  ASSERT_FALSE(bytes.empty());
  auto sections = sections_of(bytes);
  std::map<uint32_t, std::span<const uint8_t>> views(sections.begin(), sections.end());
  bundle::BundleHeader header;
  std::memcpy(header.toolchain_digest.data(), bytes.data() + 32, 16);
  header.guest = bytes[48];
  header.key_schema = static_cast<uint16_t>(bytes[50] | bytes[51] << 8);
  auto again = bundle::assemble_bundle(header, views);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, bytes);
}

TEST(DriverCache, not_found_in_a_bundle_without_a_driver_cache_section) {
  EXPECT_EQ(lookup(empty_bundle(), kLavapipe), SBK_NOT_FOUND);
}

TEST(DriverCache, returns_the_blob_stored_for_exactly_that_device) {
  const auto b = blob(kLavapipe, 0, 0);
  const auto bytes = warmed(empty_bundle(), b);
  std::vector<uint8_t> found;
  ASSERT_EQ(lookup(bytes, kLavapipe, &found), SBK_OK);
  EXPECT_EQ(found, b.data);
  sbk_bundle opened;
  ASSERT_EQ(sbk_bundle_open_memory(&opened, bytes.data(), bytes.size()), SBK_OK);
  EXPECT_EQ(sbk_bundle_check_sections(&opened), SBK_OK);
}

TEST(DriverCache, not_found_for_a_device_differing_in_any_one_identity_field) {
  const auto bytes = warmed(empty_bundle(), blob(kNvidia, 100, 7));
  DriverIdentity other = kNvidia;
  other.driver_version += 1;
  EXPECT_EQ(lookup(bytes, other), SBK_NOT_FOUND) << "another driver version";
  other = kNvidia;
  other.pipeline_cache_uuid[15] ^= 1;
  EXPECT_EQ(lookup(bytes, other), SBK_NOT_FOUND) << "another pipelineCacheUUID";
  other = kNvidia;
  other.device_id += 1;
  EXPECT_EQ(lookup(bytes, other), SBK_NOT_FOUND) << "another device";
  other = kNvidia;
  other.vendor_id = 0x1002;
  EXPECT_EQ(lookup(bytes, other), SBK_NOT_FOUND) << "another vendor";
  EXPECT_EQ(lookup(bytes, kNvidia), SBK_OK);
}

TEST(DriverCache, a_bundle_with_blobs_of_several_devices_gives_each_its_own) {
  const auto a = blob(kNvidia, 1000, 0xAA), b = blob(kLavapipe, 3, 0xBB);
  DriverIdentity newer_driver = kNvidia;
  newer_driver.driver_version += 0x100;
  const auto c = blob(newer_driver, 17, 0xCC);
  // Added in an order the section does not keep: it is sorted by identity.
  const auto bytes = warmed(warmed(warmed(empty_bundle(), a), b), c);
  for (const auto* expected : {&a, &b, &c}) {
    std::vector<uint8_t> found;
    ASSERT_EQ(lookup(bytes, expected->identity, &found), SBK_OK);
    EXPECT_EQ(found, expected->data);
  }
  const auto section = sections_of(bytes)[SBK_SECTION_DRIVER_CACHE];
  const auto read = bundle::read_driver_cache_section(section);
  EXPECT_TRUE(read.problems.empty());
  ASSERT_EQ(read.entries.size(), 3u);
  EXPECT_TRUE(read.entries[0].identity < read.entries[1].identity && read.entries[1].identity < read.entries[2].identity);
  for (const auto& e : read.entries) EXPECT_EQ(e.offset % 8, 0u);
}

TEST(DriverCache, warming_the_same_device_twice_replaces_its_blob) {
  const auto first = warmed(empty_bundle(), blob(kLavapipe, 8, 1));
  const auto second_blob = blob(kLavapipe, 40, 2);
  const auto second = warmed(first, second_blob);
  std::vector<uint8_t> found;
  ASSERT_EQ(lookup(second, kLavapipe, &found), SBK_OK);
  EXPECT_EQ(found, second_blob.data);
  EXPECT_EQ(bundle::read_driver_cache_section(sections_of(second)[SBK_SECTION_DRIVER_CACHE]).entries.size(), 1u);
  // The same blob again changes nothing.
  EXPECT_EQ(warmed(second, second_blob), second);
}

TEST(DriverCache, every_other_section_stays_byte_identical) {
  const auto before = empty_bundle();
  const auto after = warmed(warmed(before, blob(kNvidia, 64, 3)), blob(kLavapipe, 0, 0));
  auto old_sections = sections_of(before), new_sections = sections_of(after);
  ASSERT_EQ(new_sections.count(SBK_SECTION_DRIVER_CACHE), 1u);
  new_sections.erase(SBK_SECTION_DRIVER_CACHE);
  EXPECT_EQ(old_sections, new_sections);
  EXPECT_EQ(std::memcmp(before.data() + 32, after.data() + 32, 24), 0) << "toolchain digest, guest, key schema";
}

TEST(DriverCache, with_driver_cache_accepts_unaligned_input) {
  const auto bytes = empty_bundle();
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  auto out = bundle::with_driver_cache(std::span<const uint8_t>(shifted).subspan(1), blob(kLavapipe, 0, 0));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, warmed(bytes, blob(kLavapipe, 0, 0)));
}

TEST(DriverCache, with_driver_cache_refuses_a_damaged_bundle_instead_of_giving_it_fresh_checksums) {
  auto bytes = empty_bundle();
  bytes.back() ^= 0x20;  // inside the last section
  auto out = bundle::with_driver_cache(bytes, blob(kLavapipe, 0, 0));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().reason, "bundle_damaged");
}

TEST(DriverCache, with_driver_cache_refuses_a_blob_labelled_for_another_device) {
  DriverCacheBlob mislabelled = blob(kLavapipe, 0, 0);
  mislabelled.identity.device_id = 7;
  auto out = bundle::with_driver_cache(empty_bundle(), mislabelled);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().reason, "driver_cache_header");
}

TEST(DriverCache, with_driver_cache_refuses_text) {
  const std::vector<uint8_t> text = {'n', 'o', 't', ' ', 'a', ' ', 'b', 'u', 'n', 'd', 'l', 'e'};
  auto out = bundle::with_driver_cache(text, blob(kLavapipe, 0, 0));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().reason, "not_a_bundle");
}

// ---- malformed sections: each rule of schemas/bundle.md, broken alone ----

class MalformedDriverCache : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = empty_bundle();
    auto section = bundle::encode_driver_cache_section({blob(kNvidia, 24, 5), blob(kLavapipe, 9, 6)});
    ASSERT_TRUE(section.ok());
    good_ = *section;
    // Sorted: kNvidia (vendor 0x10de) first, kLavapipe (0x10005) second.
    ASSERT_EQ(lookup(with_section(base_, good_), kNvidia), SBK_OK);
    ASSERT_EQ(lookup(with_section(base_, good_), kLavapipe), SBK_OK);
  }
  // Both devices' lookups on the section after `damage`.
  void expect_corrupt(const std::vector<uint8_t>& section, const char* what) {
    const auto bytes = with_section(base_, section);
    EXPECT_EQ(lookup(bytes, kNvidia), SBK_ERROR_CORRUPT) << what;
    EXPECT_EQ(lookup(bytes, kLavapipe), SBK_ERROR_CORRUPT) << what;
    EXPECT_FALSE(bundle::read_driver_cache_section(section).problems.empty()) << what;
  }
  static uint64_t entry_at(uint32_t i) { return 8 + 48 * uint64_t{i}; }
  std::vector<uint8_t> base_, good_;
};

TEST_F(MalformedDriverCache, the_writers_layout_is_what_the_reader_expects) {
  EXPECT_EQ(raw_section({blob(kNvidia, 24, 5), blob(kLavapipe, 9, 6)}), good_);
}

TEST_F(MalformedDriverCache, entries_out_of_order) {
  expect_corrupt(raw_section({blob(kLavapipe, 9, 6), blob(kNvidia, 24, 5)}), "unsorted entries");
}

TEST_F(MalformedDriverCache, the_same_device_twice) {
  expect_corrupt(raw_section({blob(kNvidia, 24, 5), blob(kNvidia, 9, 6)}), "duplicate identity");
}

TEST_F(MalformedDriverCache, overlapping_blobs) {
  auto s = good_;
  put_u32(&s[entry_at(1) + 32], static_cast<uint32_t>(s[entry_at(0) + 32] | (s[entry_at(0) + 33] << 8)));
  expect_corrupt(s, "second blob at the first one's offset");
}

TEST_F(MalformedDriverCache, a_blob_inside_the_entry_table) {
  auto s = good_;
  put_u32(&s[entry_at(0) + 32], 8);
  expect_corrupt(s, "blob offset inside the table");
}

TEST_F(MalformedDriverCache, a_misaligned_blob_offset) {
  auto s = good_;
  s[entry_at(1) + 32] += 1;
  expect_corrupt(s, "offset not a multiple of 8");
}

TEST_F(MalformedDriverCache, a_blob_past_the_end_of_the_section) {
  auto s = good_;
  s[entry_at(1) + 40] += 8;
  expect_corrupt(s, "size runs past the section");
  s = good_;
  s[entry_at(1) + 47] = 0x80;  // a size near 2^64: offset + size must not overflow into range
  expect_corrupt(s, "huge size");
}

TEST_F(MalformedDriverCache, an_entry_count_the_section_cannot_hold) {
  auto s = good_;
  put_u32(&s[0], 0xFFFFFFFFu);
  expect_corrupt(s, "count of 2^32-1");
  s = good_;
  put_u32(&s[0], 3);
  // Three entries would end inside the first blob, which then starts inside the table.
  expect_corrupt(s, "count of 3");
}

TEST_F(MalformedDriverCache, every_truncated_length) {
  for (size_t length = 0; length < good_.size(); ++length) {
    const std::vector<uint8_t> s(good_.begin(), good_.begin() + length);
    const auto bytes = with_section(base_, s);
    EXPECT_EQ(lookup(bytes, kNvidia), SBK_ERROR_CORRUPT) << "length " << length;
    EXPECT_EQ(lookup(bytes, kLavapipe), SBK_ERROR_CORRUPT) << "length " << length;
  }
}

TEST_F(MalformedDriverCache, a_blob_whose_header_names_another_device) {
  const uint64_t blob_at = good_[entry_at(1) + 32] | (uint64_t{good_[entry_at(1) + 33]} << 8);
  const struct {
    uint64_t at;
    const char* what;
  } fields[] = {{0, "header size"}, {4, "header version"}, {8, "vendorID"}, {12, "deviceID"}, {31, "pipelineCacheUUID"}};
  for (const auto& field : fields) {
    auto s = good_;
    s[blob_at + field.at] ^= 0x40;
    const auto bytes = with_section(base_, s);
    EXPECT_EQ(lookup(bytes, kLavapipe), SBK_ERROR_CORRUPT) << field.what;
    EXPECT_FALSE(bundle::read_driver_cache_section(s).problems.empty()) << field.what;
  }
}

TEST_F(MalformedDriverCache, a_header_size_below_32_or_beyond_the_blob) {
  const uint64_t blob_at = good_[entry_at(1) + 32] | (uint64_t{good_[entry_at(1) + 33]} << 8);
  for (uint32_t header_size : {0u, 31u, 32u + 9u + 1u}) {
    auto s = good_;
    put_u32(&s[blob_at], header_size);
    EXPECT_EQ(lookup(with_section(base_, s), kLavapipe), SBK_ERROR_CORRUPT) << header_size;
  }
}

TEST_F(MalformedDriverCache, damage_the_section_checksum_catches) {
  auto bytes = with_section(base_, good_);
  sbk_bundle b;
  ASSERT_EQ(sbk_bundle_open_memory(&b, bytes.data(), bytes.size()), SBK_OK);
  uint64_t size = 0;
  const uint8_t* section = sbk_bundle_section(&b, SBK_SECTION_DRIVER_CACHE, &size);
  ASSERT_NE(section, nullptr);
  const size_t last_payload_byte = static_cast<size_t>(section - bytes.data() + size - 1);
  bytes[last_payload_byte] ^= 1;  // in the payload: no structural rule can see it
  EXPECT_EQ(lookup(bytes, kLavapipe), SBK_ERROR_CORRUPT);
  EXPECT_EQ(lookup(bytes, kNvidia), SBK_ERROR_CORRUPT);
}

TEST_F(MalformedDriverCache, any_single_byte_flip_never_hands_out_a_mislabelled_blob) {
  // A blob handed out starts with a VkPipelineCacheHeaderVersionOne for the probed device, read here from the
  // Vulkan spec's layout (cache_data), not through the library's own header check: header size 32..blob size,
  // then version, vendor, device and UUID as cache_data writes them. Flips in the payload may go through: the
  // frame checksums are recomputed by with_section, and nothing else covers the payload.
  for (size_t at = 0; at < good_.size(); ++at) {
    auto s = good_;
    s[at] ^= 0xFF;
    const auto bytes = with_section(base_, s);
    for (const DriverIdentity* id : {&kNvidia, &kLavapipe}) {
      std::vector<uint8_t> found;
      if (lookup(bytes, *id, &found) != SBK_OK) continue;
      const std::vector<uint8_t> header = cache_data(*id, 0, 0);
      ASSERT_GE(found.size(), header.size()) << "byte " << at;
      const uint32_t header_size = found[0] | found[1] << 8 | found[2] << 16 | uint32_t{found[3]} << 24;
      EXPECT_TRUE(header_size >= 32 && header_size <= found.size()) << "byte " << at;
      EXPECT_TRUE(std::equal(header.begin() + 4, header.end(), found.begin() + 4)) << "byte " << at;
    }
  }
}

// SPDX-License-Identifier: MIT
#include "lib/bundle/driver_cache.hpp"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <map>

#include "lib/bundle/bundle_layout.hpp"
#include "lib/bundle/bundle_reader.hpp"
#include "lib/core/byte_io.hpp"
#include "lib/core/hex.hpp"
#include "lib/core/little_endian.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::bundle {

namespace {

uint64_t align8(uint64_t v) { return (v + 7) & ~uint64_t{7}; }

Error bundle_error(std::string reason, std::string message) {
  return Error{ErrorKind::bad_input, std::move(reason), std::move(message), {}};
}

const char* loader_reason(sbk_result r) {
  switch (r) {
    case SBK_ERROR_NOT_A_BUNDLE: return "not_a_bundle";
    case SBK_ERROR_VERSION: return "bundle_version";
    case SBK_ERROR_OUT_OF_MEMORY: return "out_of_memory";
    default: return "bundle_corrupt";
  }
}

// Layout of the DRIVER_CACHE section (schemas/bundle.md):
//   0 u32 entry count N     4 u32 reserved     8 entry[N], 48 bytes each, then the blobs
// entry: 0 u32 vendorID  4 u32 deviceID  8 u32 driverVersion  12 u32 reserved  16 u8[16] pipelineCacheUUID
//        32 u64 blob offset (from the section start, 8-aligned, after the table and the previous blob)
//        40 u64 blob size
constexpr uint64_t kSectionHeader = 8;
constexpr uint64_t kEntrySize = SBK_BUNDLE_DRIVER_CACHE_ENTRY_SIZE;
static_assert(kEntrySize == 4 + 4 + 4 + 4 + 16 + 8 + 8, "the entry's fields, as read and written below");

}  // namespace

std::string to_string(const DriverIdentity& identity) {
  return "vendor " + hex_word(identity.vendor_id) + " device " + hex_word(identity.device_id) + " driver " +
         hex_word(identity.driver_version) + " uuid " + hex_bytes(identity.pipeline_cache_uuid);
}

Status check_pipeline_cache_header(std::span<const uint8_t> data, const DriverIdentity& identity) {
  // VkPipelineCacheHeaderVersionOne, little-endian whatever the host: u32 headerSize, u32 headerVersion,
  // u32 vendorID, u32 deviceID, u8[16] pipelineCacheUUID.
  auto fail = [](std::string what) { return bundle_error("driver_cache_header", "pipeline cache data " + what); };
  ByteReader in(data);
  uint32_t header_size = 0, version = 0, vendor = 0, device = 0;
  std::array<uint8_t, 16> uuid{};
  if (!(in.u32(header_size) && in.u32(version) && in.u32(vendor) && in.u32(device) && in.copy(uuid)))
    return fail("of " + std::to_string(data.size()) + " bytes is shorter than its 32-byte header");
  if (header_size < 32 || header_size > data.size())
    return fail("states a header size of " + std::to_string(header_size) + " bytes (32 to " +
                std::to_string(data.size()) + " expected)");
  if (version != 1) return fail("has header version " + std::to_string(version) + " (1 expected)");
  if (vendor != identity.vendor_id)
    return fail("is for vendor " + hex_word(vendor) + ", not " + hex_word(identity.vendor_id));
  if (device != identity.device_id)
    return fail("is for device " + hex_word(device) + ", not " + hex_word(identity.device_id));
  if (uuid != identity.pipeline_cache_uuid)
    return fail("has pipelineCacheUUID " + hex_bytes(uuid) + ", not " + hex_bytes(identity.pipeline_cache_uuid));
  return ok_status();
}

DriverCacheSection read_driver_cache_section(std::span<const uint8_t> section) {
  DriverCacheSection out;
  ByteReader in(section);
  uint32_t count = 0;
  if (!(in.u32(count) && in.skip(4))) {
    out.problems.push_back("the section is " + std::to_string(section.size()) +
                           " bytes, shorter than its 8-byte header");
    return out;
  }
  if (!in.fits(count, kEntrySize)) {
    out.problems.push_back(std::to_string(count) + " entries do not fit in a section of " +
                           std::to_string(section.size()) + " bytes");
    return out;
  }
  uint64_t previous_end = kSectionHeader + uint64_t{count} * kEntrySize;
  DriverIdentity previous;
  for (uint32_t i = 0; i < count; ++i) {
    DriverCacheEntry entry;
    uint64_t size = 0;
    // In bounds: the count fits (checked above), and an entry's fields are its kEntrySize bytes.
    [[maybe_unused]] const bool whole =
        in.u32(entry.identity.vendor_id) && in.u32(entry.identity.device_id) && in.u32(entry.identity.driver_version) &&
        in.skip(4) && in.copy(entry.identity.pipeline_cache_uuid) && in.u64(entry.offset) && in.u64(size);
    assert(whole);
    const std::string name = "driver cache " + std::to_string(i) + " (" + to_string(entry.identity) + ")";
    if (i > 0 && !(previous < entry.identity))
      out.problems.push_back(name + ": not after the entry before it (out of order, or the same device twice)");
    previous = entry.identity;
    if (entry.offset > section.size() || size > section.size() - entry.offset) {
      out.problems.push_back(name + ": its " + std::to_string(size) + " bytes at offset " +
                             std::to_string(entry.offset) + " are not inside the section of " +
                             std::to_string(section.size()) + " bytes");
      continue;
    }
    if (entry.offset % 8 != 0) out.problems.push_back(name + ": its offset " + std::to_string(entry.offset) + " is not a multiple of 8");
    if (entry.offset < previous_end)
      out.problems.push_back(name + ": its blob starts at " + std::to_string(entry.offset) +
                             ", inside the entry table or the blob before it (which end at " +
                             std::to_string(previous_end) + ")");
    previous_end = std::max(previous_end, entry.offset + size);
    entry.data = section.subspan(entry.offset, size);
    if (const Status header = check_pipeline_cache_header(entry.data, entry.identity); !header)
      out.problems.push_back(name + ": " + header.error().message);
    out.entries.push_back(entry);
  }
  return out;
}

Result<std::vector<uint8_t>> encode_driver_cache_section(std::vector<DriverCacheBlob> blobs) {
  std::sort(blobs.begin(), blobs.end(),
            [](const DriverCacheBlob& a, const DriverCacheBlob& b) { return a.identity < b.identity; });
  for (size_t i = 0; i < blobs.size(); ++i) {
    if (i > 0 && blobs[i].identity == blobs[i - 1].identity)
      return Error{ErrorKind::internal, "duplicate_driver_cache", "two blobs for " + to_string(blobs[i].identity), {}};
    if (Status header = check_pipeline_cache_header(blobs[i].data, blobs[i].identity); !header) {
      Error e = std::move(header).error();
      e.kind = ErrorKind::internal;
      return e;
    }
  }
  ByteWriter out;
  out.u32(static_cast<uint32_t>(blobs.size()));
  out.u32(0);
  uint64_t offset = kSectionHeader + blobs.size() * kEntrySize;
  for (const DriverCacheBlob& blob : blobs) {
    out.u32(blob.identity.vendor_id);
    out.u32(blob.identity.device_id);
    out.u32(blob.identity.driver_version);
    out.u32(0);
    out.bytes(blob.identity.pipeline_cache_uuid);
    out.u64(offset);
    out.u64(blob.data.size());
    offset = align8(offset + blob.data.size());
  }
  for (const DriverCacheBlob& blob : blobs) {
    out.align8();
    out.bytes(blob.data);
  }
  return std::move(out.data());
}

Result<std::vector<uint8_t>> with_driver_cache(std::span<const uint8_t> bundle_bytes, const DriverCacheBlob& blob) {
  // The loader wants 8-byte aligned memory: copy the input when the caller's bytes are not.
  std::vector<uint64_t> aligned_copy;
  std::span<const uint8_t> bytes = bundle_bytes;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 8 != 0) {
    aligned_copy.resize((bytes.size() + 7) / 8);
    if (!bytes.empty()) std::memcpy(aligned_copy.data(), bytes.data(), bytes.size());
    bytes = {reinterpret_cast<const uint8_t*>(aligned_copy.data()), bytes.size()};
  }
  sbk_bundle b;
  sbk_result r = sbk_bundle_open_memory(&b, bytes.data(), bytes.size());
  if (r != SBK_OK) return bundle_error(loader_reason(r), std::string("cannot open the bundle: ") + sbk_result_name(r));
  // Every section is copied as it is and gets its checksum recomputed: a damaged one must be found now, or
  // rewriting would certify the damage.
  if (sbk_bundle_check_sections(&b) != SBK_OK)
    return bundle_error("bundle_damaged",
                        "a section checksum does not match: the bundle is damaged (run 'shaderbake verify' on it, "
                        "and rebuild it)");
  const uint8_t* h = bytes.data();
  const uint32_t header_size = load_u32_le(h + 12), section_count = load_u32_le(h + 24), flags = load_u32_le(h + 28);
  if (header_size != SBK_BUNDLE_HEADER_SIZE || flags != 0)
    return bundle_error("bundle_unsupported", "the bundle's header (" + std::to_string(header_size) +
                                                  " bytes, flags " + hex_word(flags) +
                                                  ") has fields this version of shaderbake cannot carry over; "
                                                  "warm it with the shaderbake that wrote it");
  BundleHeader header;
  header.format_minor = static_cast<uint16_t>(load_u16_le(h + 10));
  std::memcpy(header.toolchain_digest.data(), h + 32, 16);
  header.guest = h[48];
  header.key_schema = static_cast<uint16_t>(load_u16_le(h + 50));

  std::map<uint32_t, std::span<const uint8_t>> sections;
  std::vector<DriverCacheBlob> blobs;
  for (const SectionTableEntry& e : section_table(b)) {
    // open checked that the section lies inside the file.
    const std::span<const uint8_t> section = bytes.subspan(e.offset, e.size);
    if (e.flags != 0)
      return bundle_error("bundle_unsupported", "section type " + std::to_string(e.type) + " has flags " +
                                                    hex_word(e.flags) +
                                                    " this version of shaderbake cannot carry over");
    if (e.type != SBK_SECTION_DRIVER_CACHE) {
      sections.emplace(e.type, section);
      continue;
    }
    DriverCacheSection existing = read_driver_cache_section(section);
    if (!existing.problems.empty())
      return bundle_error("driver_cache_malformed", "the bundle's DRIVER_CACHE section is malformed: " +
                                                        existing.problems.front());
    for (const DriverCacheEntry& entry : existing.entries)
      if (entry.identity != blob.identity)
        blobs.push_back(DriverCacheBlob{entry.identity, {entry.data.begin(), entry.data.end()}});
  }
  if (Status header_check = check_pipeline_cache_header(blob.data, blob.identity); !header_check)
    return std::move(header_check).error();
  blobs.push_back(blob);
  auto section = encode_driver_cache_section(std::move(blobs));
  if (!section) return std::move(section).error();
  sections[SBK_SECTION_DRIVER_CACHE] = *section;
  if (sections.size() > SBK_BUNDLE_MAX_SECTIONS)
    return bundle_error("too_many_sections", "the bundle already has " + std::to_string(section_count) +
                                                 " sections, the most a bundle may have");
  return assemble_bundle(header, sections);
}

}  // namespace shaderbake::bundle

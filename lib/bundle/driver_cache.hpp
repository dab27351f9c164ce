// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "lib/core/result.hpp"

namespace shaderbake::bundle {

// What a driver's VkPipelineCache data is good for: one device and driver, named by the four fields of
// VkPhysicalDeviceProperties a renderer passes to sbk_bundle_driver_cache. Ordered as the DRIVER_CACHE section
// sorts its entries: vendor, device, driver version, then the UUID byte by byte.
struct DriverIdentity {
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t driver_version = 0;
  std::array<uint8_t, 16> pipeline_cache_uuid{};
  friend bool operator==(const DriverIdentity&, const DriverIdentity&) = default;
  friend auto operator<=>(const DriverIdentity&, const DriverIdentity&) = default;
};

// "vendor 0x10de device 0x2335 driver 0x91278000 uuid 0123…ef" (hex, the UUID in full).
std::string to_string(const DriverIdentity& identity);

// One device's VkPipelineCache data, as vkGetPipelineCacheData returned it.
struct DriverCacheBlob {
  DriverIdentity identity;
  std::vector<uint8_t> data;
};

// One entry of a DRIVER_CACHE section. `data` points into the section's bytes.
struct DriverCacheEntry {
  DriverIdentity identity;
  uint64_t offset = 0;  // from the start of the section
  std::span<const uint8_t> data;
};

// A DRIVER_CACHE section read against every rule of schemas/bundle.md. `entries` holds each entry whose blob
// lies inside the section, in table order; `problems` one line per broken rule, naming the entry. Never
// reads outside `section`.
struct DriverCacheSection {
  std::vector<DriverCacheEntry> entries;
  std::vector<std::string> problems;
};
DriverCacheSection read_driver_cache_section(std::span<const uint8_t> section);

// Whether `data` starts with a VkPipelineCacheHeaderVersionOne (header size >= 32 and within the data,
// version 1) whose vendorID, deviceID and pipelineCacheUUID are `identity`'s. Error reason
// "driver_cache_header", the message says which field is wrong.
Status check_pipeline_cache_header(std::span<const uint8_t> data, const DriverIdentity& identity);

// The DRIVER_CACHE section holding `blobs` (sorted by identity, each 8-aligned). Two blobs of one identity, or
// a blob failing check_pipeline_cache_header: ErrorKind::internal.
Result<std::vector<uint8_t>> encode_driver_cache_section(std::vector<DriverCacheBlob> blobs);

// A new bundle: `bundle_bytes` with `blob` added to its DRIVER_CACHE section (replacing the blob of the same
// identity, keeping the others), every other section byte-identical, the header, section table and checksums
// recomputed (assemble_bundle). The input is untrusted: it is opened with the runtime loader and every section
// checksum is verified first, so that damage is never given fresh checksums. Errors (ErrorKind::bad_input
// unless said): not a bundle / another version / corrupt (reasons as BundleFile), "bundle_damaged" (a section
// checksum does not match), "bundle_unsupported" (a header larger than this version's, or flags set: fields
// this writer cannot carry over), "driver_cache_malformed" (the existing section breaks a rule),
// "driver_cache_header" (`blob` is not labelled with its identity), "too_many_sections".
Result<std::vector<uint8_t>> with_driver_cache(std::span<const uint8_t> bundle_bytes, const DriverCacheBlob& blob);

}  // namespace shaderbake::bundle

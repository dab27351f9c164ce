// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::bundle {

// The header fields of a bundle that are not sizes or checks (schemas/bundle.md, "Header").
struct BundleHeader {
  uint16_t format_minor = SBK_BUNDLE_FORMAT_MINOR;
  std::array<uint8_t, 16> toolchain_digest{};  // XXH3-128 of the fingerprint text: low 64 bits, then high, LE
  uint8_t guest = SBK_GUEST_NONE;
  uint16_t key_schema = 0;
};

// Lays out a whole bundle around finished sections: the 64-byte header, the section table ordered by type,
// the sections 8-aligned in that order with zero padding between them, the file size, every section's
// checksum and the header check. The one place a bundle's frame is written (BundleBuilder::serialize in
// lib/bundle/bundle_writer.hpp and with_driver_cache in lib/bundle/driver_cache.hpp). Section types must be
// non-zero; more than SBK_BUNDLE_MAX_SECTIONS sections is ErrorKind::internal.
Result<std::vector<uint8_t>> assemble_bundle(const BundleHeader& header,
                                             const std::map<uint32_t, std::span<const uint8_t>>& sections);

}  // namespace shaderbake::bundle

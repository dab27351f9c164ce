// SPDX-License-Identifier: MIT
#include "lib/bundle/bundle_layout.hpp"

#include <xxhash.h>

#include <string>

#include "lib/core/byte_io.hpp"

namespace shaderbake::bundle {

Result<std::vector<uint8_t>> assemble_bundle(const BundleHeader& header,
                                             const std::map<uint32_t, std::span<const uint8_t>>& sections) {
  if (sections.size() > SBK_BUNDLE_MAX_SECTIONS)
    return Error{ErrorKind::internal, "too_many_sections",
                 std::to_string(sections.size()) + " sections; a bundle holds at most " +
                     std::to_string(SBK_BUNDLE_MAX_SECTIONS),
                 {}};
  ByteWriter w;
  size_t total = SBK_BUNDLE_HEADER_SIZE + sections.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE + 7;
  for (const auto& [type, bytes] : sections) total += bytes.size() + 7;
  w.reserve(total);
  static const uint8_t kMagic[8] = {0x89, 'S', 'B', 'K', 0x0D, 0x0A, 0x1A, 0x0A};
  w.bytes(kMagic);
  w.u16(SBK_BUNDLE_FORMAT_MAJOR);
  w.u16(header.format_minor);
  w.u32(SBK_BUNDLE_HEADER_SIZE);
  const size_t file_size_at = w.size();
  w.u64(0);  // file size, patched below
  w.u32(static_cast<uint32_t>(sections.size()));
  w.u32(0);
  w.bytes(header.toolchain_digest);
  w.u8(header.guest);
  w.u8(0);
  w.u16(header.key_schema);
  w.u32(0);
  const size_t check_at = w.size();
  w.u64(0);  // header check, patched below
  uint64_t offset = (SBK_BUNDLE_HEADER_SIZE + sections.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE + 7) & ~uint64_t{7};
  for (const auto& [type, bytes] : sections) {
    w.u32(type);
    w.u32(0);
    w.u64(offset);
    w.u64(bytes.size());
    w.u64(XXH3_64bits(bytes.data(), bytes.size()));
    offset = (offset + bytes.size() + 7) & ~uint64_t{7};
  }
  for (const auto& [type, bytes] : sections) {
    w.align8();
    w.bytes(bytes);
  }
  w.patch_u64(file_size_at, w.size());
  w.patch_u64(check_at, XXH3_64bits_withSeed(w.data().data() + SBK_BUNDLE_HEADER_SIZE,
                                             sections.size() * SBK_BUNDLE_SECTION_ENTRY_SIZE,
                                             XXH3_64bits(w.data().data(), 56)));
  return std::move(w.data());
}

}  // namespace shaderbake::bundle

// SPDX-License-Identifier: MIT
#pragma once

// A bundle taken apart into its sections and put together again with one section replaced (the frame's
// checksums and header check recomputed by the writer's own assemble_bundle), so a test reaches the rules of
// that section alone. GoogleTest code: a bundle that does not open or assemble is a test failure.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <vector>

#include "lib/bundle/bundle_layout.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake::testing {

// A bundle's sections by type, copied out (read with the loader's section table).
inline std::map<uint32_t, std::vector<uint8_t>> sections_of(const std::vector<uint8_t>& bytes) {
  std::map<uint32_t, std::vector<uint8_t>> out;
  sbk_bundle b{};
  EXPECT_EQ(sbk_bundle_open_memory(&b, bytes.data(), bytes.size()), SBK_OK);
  for (uint32_t type = 1; type < SBK_SECTION_TYPE_COUNT; ++type) {
    uint64_t size = 0;
    if (const uint8_t* s = sbk_bundle_section(&b, static_cast<sbk_section_type>(type), &size)) out[type].assign(s, s + size);
  }
  sbk_bundle_close(&b);
  return out;
}

// `base` with section `type` set to `section` (any bytes).
inline std::vector<uint8_t> with_section(const std::vector<uint8_t>& base, uint32_t type,
                                         const std::vector<uint8_t>& section) {
  auto sections = sections_of(base);
  sections[type] = section;
  std::map<uint32_t, std::span<const uint8_t>> views(sections.begin(), sections.end());
  bundle::BundleHeader header;
  std::memcpy(header.toolchain_digest.data(), base.data() + 32, 16);
  auto bytes = bundle::assemble_bundle(header, views);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

}  // namespace shaderbake::testing

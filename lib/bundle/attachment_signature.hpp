// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstdint>

#include "runtime_loader/shaderbake.h"

namespace shaderbake::bundle {

// An attachment signature as the u32 fields DYNAMIC_FALLBACKS sorts recipes by (after the family entry): color
// count, samples, depth format, color formats. Ordered and comparable, so sets of signatures need no memcmp.
using SignatureWords = std::array<uint32_t, 3 + SBK_MAX_COLOR_ATTACHMENTS>;

inline SignatureWords signature_words(const sbk_attachment_signature& s) {
  SignatureWords w{s.color_count, s.samples, s.depth_format};
  for (uint32_t i = 0; i < SBK_MAX_COLOR_ATTACHMENTS; ++i) w[3 + i] = s.color_formats[i];
  return w;
}

inline sbk_attachment_signature signature_of_words(const SignatureWords& w) {
  sbk_attachment_signature s{};
  s.color_count = w[0];
  s.samples = w[1];
  s.depth_format = w[2];
  for (uint32_t i = 0; i < SBK_MAX_COLOR_ATTACHMENTS; ++i) s.color_formats[i] = w[3 + i];
  return s;
}

}  // namespace shaderbake::bundle

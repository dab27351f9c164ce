// SPDX-License-Identifier: MIT
#include "samples/replay/pixel_compare.hpp"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdlib>

namespace shaderbake::replay {

uint32_t comparable_texel_bytes(uint32_t format) {
  switch (format) {
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB: return 4;
    case VK_FORMAT_R5G6B5_UNORM_PACK16:
    case VK_FORMAT_B5G6R5_UNORM_PACK16: return 2;
    default: return 0;
  }
}

namespace {

// The largest channel difference between two texels of `format`, in the channel's unit.
uint32_t texel_difference(uint32_t format, const uint8_t* a, const uint8_t* b) {
  if (comparable_texel_bytes(format) == 4) {
    uint32_t most = 0;
    for (int c = 0; c < 4; ++c) most = std::max<uint32_t>(most, static_cast<uint32_t>(std::abs(int{a[c]} - int{b[c]})));
    return most;
  }
  const int x = a[0] | a[1] << 8, y = b[0] | b[1] << 8;  // little-endian 16-bit texels: 5, 6, 5 bits
  const int shifts[3] = {0, 5, 11}, masks[3] = {31, 63, 31};
  uint32_t most = 0;
  for (int c = 0; c < 3; ++c)
    most = std::max<uint32_t>(most, static_cast<uint32_t>(std::abs((x >> shifts[c] & masks[c]) - (y >> shifts[c] & masks[c]))));
  return most;
}

}  // namespace

PixelComparison compare_pixels(const std::vector<FramePixels>& reference, const std::vector<FramePixels>& candidate) {
  PixelComparison out;
  const size_t frames = std::min(reference.size(), candidate.size());
  for (size_t f = 0; f < frames; ++f) {
    const FramePixels& r = reference[f];
    const FramePixels& c = candidate[f];
    // The same draws drawn into the same targets (one trace, so the same attachments whenever the draws agree).
    bool same = r.drawn_digest == c.drawn_digest && r.targets.size() == c.targets.size();
    for (size_t t = 0; same && t < r.targets.size(); ++t) {
      const TargetPixels& a = r.targets[t];
      const TargetPixels& b = c.targets[t];
      same = a.target == b.target && a.attachment == b.attachment && a.format == b.format &&
             a.bytes.size() == b.bytes.size() && comparable_texel_bytes(a.format) != 0;
    }
    if (!same) {
      ++out.frames_not_comparable;
      continue;
    }
    ++out.frames_compared;
    uint64_t mismatched = 0;
    for (size_t t = 0; t < r.targets.size(); ++t) {
      const TargetPixels& a = r.targets[t];
      const TargetPixels& b = c.targets[t];
      const uint32_t size = comparable_texel_bytes(a.format);
      ++out.images_compared;
      for (size_t i = 0; i + size <= a.bytes.size(); i += size) {
        const uint32_t d = texel_difference(a.format, &a.bytes[i], &b.bytes[i]);
        if (std::any_of(&a.bytes[i], &a.bytes[i] + size, [](uint8_t v) { return v != 0; })) ++out.texels_drawn;
        out.max_difference = std::max(out.max_difference, d);
        if (d > kPixelToleranceLsb) ++mismatched;
      }
    }
    if (mismatched != 0) {
      out.mismatched_pixels += mismatched;
      ++out.mismatched_frames;
      if (out.first_mismatch_frame < 0) out.first_mismatch_frame = static_cast<int64_t>(f);
    }
  }
  return out;
}

}  // namespace shaderbake::replay

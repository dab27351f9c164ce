// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

namespace shaderbake::replay {

// One colour attachment as a frame left it: 64x64 texels, tightly packed, in the attachment's format.
struct TargetPixels {
  uint32_t target = 0;      // the renderer's target index (the same in every mode of a run)
  uint32_t attachment = 0;  // colour attachment index within the target
  uint32_t format = 0;      // VkFormat
  std::vector<uint8_t> bytes;
};

// Every colour attachment a frame rendered into, and which of its draws were drawn: frames whose draws differ
// between two modes (one mode skipped a draw the other could draw) are not comparable.
struct FramePixels {
  uint64_t drawn_digest = 0;
  std::vector<TargetPixels> targets;
};

// Bytes per texel of the colour formats compared (8-bit UNORM/SRGB RGBA and BGRA, 5-6-5 UNORM); 0 for any
// other format, which is not read back.
uint32_t comparable_texel_bytes(uint32_t format);

// The tolerance: every channel of every texel within 1 of the reference, in the channel's own unit (1/255
// for the 8-bit formats; 1/31 or 1/63 for the 5-6-5 channels).
inline constexpr uint32_t kPixelToleranceLsb = 1;

struct PixelComparison {
  uint64_t frames_compared = 0;
  uint64_t frames_not_comparable = 0;  // the modes drew different draws in the frame
  uint64_t images_compared = 0;
  uint64_t texels_drawn = 0;           // reference texels compared that are not the clear colour (all bytes 0)
  uint64_t mismatched_pixels = 0;      // texels with a channel beyond the tolerance
  uint64_t mismatched_frames = 0;
  int64_t first_mismatch_frame = -1;   // replayed frame index; -1 none
  uint32_t max_difference = 0;         // largest channel difference seen, in the channel's unit
};

// Compares `candidate`'s frames with `reference`'s, frame by frame (the shorter length).
PixelComparison compare_pixels(const std::vector<FramePixels>& reference, const std::vector<FramePixels>& candidate);

}  // namespace shaderbake::replay

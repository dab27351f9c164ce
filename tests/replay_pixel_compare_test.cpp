// SPDX-License-Identifier: MIT
// The replay's pixel comparison (samples/replay/pixel_compare.cpp): the tolerance of 1 in each channel's own
// unit, the 5-6-5 channels taken apart, frames whose draws differ set aside, and blank images told apart from
// drawn ones.
#include "samples/replay/pixel_compare.hpp"

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

namespace {

using shaderbake::replay::compare_pixels;
using shaderbake::replay::FramePixels;
using shaderbake::replay::TargetPixels;

FramePixels frame(uint32_t format, std::vector<uint8_t> bytes, uint64_t digest = 7) {
  FramePixels f;
  f.drawn_digest = digest;
  f.targets.push_back(TargetPixels{0, 0, format, std::move(bytes)});
  return f;
}

TEST(ReplayPixelCompare, OneUnitInAChannelIsWithinTheToleranceTwoIsNot) {
  const std::vector<FramePixels> reference = {frame(VK_FORMAT_R8G8B8A8_UNORM, {10, 20, 30, 255, 0, 0, 0, 0})};
  const auto within = compare_pixels(reference, {frame(VK_FORMAT_R8G8B8A8_UNORM, {11, 19, 30, 255, 0, 0, 0, 1})});
  EXPECT_EQ(within.frames_compared, 1u);
  EXPECT_EQ(within.mismatched_pixels, 0u);
  EXPECT_EQ(within.max_difference, 1u);
  EXPECT_EQ(within.first_mismatch_frame, -1);

  const auto beyond = compare_pixels(reference, {frame(VK_FORMAT_R8G8B8A8_UNORM, {10, 20, 32, 255, 0, 0, 0, 0})});
  EXPECT_EQ(beyond.mismatched_pixels, 1u);
  EXPECT_EQ(beyond.mismatched_frames, 1u);
  EXPECT_EQ(beyond.first_mismatch_frame, 0);
  EXPECT_EQ(beyond.max_difference, 2u);
}

TEST(ReplayPixelCompare, FiveSixFiveChannelsAreComparedInTheirOwnUnits) {
  // Little-endian B5G6R5 texel 0x0841: 1 in the 5-bit field at bit 0, 2 in the 6-bit field, 1 at bit 11.
  const std::vector<FramePixels> reference = {frame(VK_FORMAT_R5G6B5_UNORM_PACK16, {0x41, 0x08})};
  // The 6-bit field 2 -> 3 (one unit of 1/63) and the low 5-bit field 1 -> 2: within.
  const auto within = compare_pixels(reference, {frame(VK_FORMAT_R5G6B5_UNORM_PACK16, {0x62, 0x08})});
  EXPECT_EQ(within.mismatched_pixels, 0u);
  EXPECT_EQ(within.max_difference, 1u);
  // The top 5-bit field 1 -> 3: two units, beyond.
  const auto beyond = compare_pixels(reference, {frame(VK_FORMAT_R5G6B5_UNORM_PACK16, {0x41, 0x18})});
  EXPECT_EQ(beyond.mismatched_pixels, 1u);
  EXPECT_EQ(beyond.max_difference, 2u);
}

TEST(ReplayPixelCompare, FramesThatDrewDifferentDrawsOrUnreadFormatsAreNotCompared) {
  const std::vector<FramePixels> reference = {frame(VK_FORMAT_R8G8B8A8_UNORM, {1, 2, 3, 4}, 1),
                                              frame(VK_FORMAT_R16G16B16A16_SFLOAT, std::vector<uint8_t>(8, 9), 2)};
  const auto result = compare_pixels(reference, {frame(VK_FORMAT_R8G8B8A8_UNORM, {200, 2, 3, 4}, 99),
                                                 frame(VK_FORMAT_R16G16B16A16_SFLOAT, std::vector<uint8_t>(8, 0), 2)});
  EXPECT_EQ(result.frames_compared, 0u);
  EXPECT_EQ(result.frames_not_comparable, 2u);
  EXPECT_EQ(result.mismatched_pixels, 0u);
}

TEST(ReplayPixelCompare, TexelsDrawnCountsReferenceTexelsThatAreNotTheClearColour) {
  const std::vector<FramePixels> blank = {frame(VK_FORMAT_B8G8R8A8_SRGB, std::vector<uint8_t>(16, 0))};
  EXPECT_EQ(compare_pixels(blank, blank).texels_drawn, 0u);
  const std::vector<FramePixels> drawn = {frame(VK_FORMAT_B8G8R8A8_SRGB, {0, 0, 0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0})};
  EXPECT_EQ(compare_pixels(drawn, drawn).texels_drawn, 2u);
}

}  // namespace

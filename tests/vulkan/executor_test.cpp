// SPDX-License-Identifier: MIT
#include "lib/vulkan/executor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

// Generated at build time from tests/vulkan/shaders/ (see tests/CMakeLists.txt).
#include "attribute.vert.h"
#include "attribute_colour.frag.h"
#include "discard_below_half.frag.h"
#include "location_3.vert.h"
#include "mixed.frag.h"
#include "position_only.vert.h"
#include "texture_2d.frag.h"
#include "texture_2d_at.frag.h"
#include "texture_3d.frag.h"
#include "texture_3d_at.frag.h"
#include "texture_cube.frag.h"
#include "texture_cube_at.frag.h"
#include "uniform_colour.frag.h"

namespace shaderbake::vulkan {
namespace {

using Rgba = std::array<uint8_t, 4>;

template <size_t N>
std::vector<uint32_t> words(const uint32_t (&spirv)[N]) {
  return std::vector<uint32_t>(spirv, spirv + N);
}

template <size_t V, size_t F>
PipelineSpec pipeline(const uint32_t (&vertex)[V], const uint32_t (&fragment)[F]) {
  return PipelineSpec{words(vertex), words(fragment)};
}

// Byte values as the floats that store back to exactly those bytes in R8G8B8A8_UNORM.
std::array<float, 4> unorm(Rgba rgba) {
  return {rgba[0] / 255.0f, rgba[1] / 255.0f, rgba[2] / 255.0f, rgba[3] / 255.0f};
}

// A std140 block of vec4s.
std::vector<uint8_t> std140(std::initializer_list<std::array<float, 4>> vectors) {
  std::vector<uint8_t> bytes(vectors.size() * 16);
  size_t offset = 0;
  for (const auto& v : vectors) {
    std::memcpy(bytes.data() + offset, v.data(), 16);
    offset += 16;
  }
  return bytes;
}

std::string to_upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// Every test runs on the default device (lavapipe in CI). No device at all is a failure, never a skip:
// these tests are how generated SPIR-V gets proven.
class VulkanExecutor : public ::testing::Test {
 protected:
  void SetUp() override {
    auto created = Executor::create(ExecutorOptions{});
    ASSERT_TRUE(created.ok()) << created.error().to_string();
    executor_ = std::move(created).value();
  }

  // The validation layer must stay silent through every test.
  void TearDown() override {
    if (executor_ != nullptr && executor_->validation_active()) {
      EXPECT_TRUE(executor_->validation_messages().empty()) << joined(executor_->validation_messages());
    }
  }

  std::vector<PixelResult> run(const PipelineSpec& spec, const std::vector<DrawCase>& cases) {
    auto results = executor_->run(spec, cases);
    EXPECT_TRUE(results.ok()) << results.error().to_string();
    if (!results.ok()) return {};
    EXPECT_EQ(results->size(), cases.size());
    return std::move(results).value();
  }

  std::unique_ptr<Executor> executor_;
};

TEST_F(VulkanExecutor, validation_layer_is_loaded_and_reports_nothing) {
  if (!executor_->validation_active()) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
  DrawCase draw;
  draw.attributes = {{0.2f, 0.4f, 0.6f, 0.8f}};
  run(pipeline(kAttributeVert, kAttributeColourFrag), {draw});
  EXPECT_TRUE(executor_->validation_messages().empty()) << joined(executor_->validation_messages());
}

// The check above is not vacuous: an attribute the vertex shader ignores is reported (a warning), and
// collected rather than printed.
TEST_F(VulkanExecutor, validation_layer_messages_are_collected) {
  if (!executor_->validation_active()) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
  auto separate = Executor::create(ExecutorOptions{});
  ASSERT_TRUE(separate.ok()) << separate.error().to_string();
  std::vector<DrawCase> cases(1);
  cases[0].attributes = {{0.0f, 0.0f, 0.0f, 0.0f}};
  cases[0].textures = {TextureBinding{0, SamplerDim::dim2d, {1, 2, 3, 4}}};
  auto results = (*separate)->run(pipeline(kPositionOnlyVert, kTexture2dFrag), cases);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  EXPECT_EQ((*results)[0].rgba, (Rgba{1, 2, 3, 4}));
  EXPECT_FALSE((*separate)->validation_messages().empty());
}

TEST_F(VulkanExecutor, attribute_colour_passes_through_exactly) {
  std::vector<DrawCase> cases(4);
  cases[0].attributes = {{0.2f, 0.4f, 0.6f, 0.8f}};
  cases[1].attributes = {{0.0f, 0.0f, 0.0f, 0.0f}};
  cases[2].attributes = {{1.0f, 1.0f, 1.0f, 1.0f}};
  cases[3].attributes = {unorm({1, 128, 254, 127})};
  const auto results = run(pipeline(kAttributeVert, kAttributeColourFrag), cases);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].rgba, (Rgba{51, 102, 153, 204}));
  EXPECT_EQ(results[1].rgba, (Rgba{0, 0, 0, 0}));
  EXPECT_EQ(results[2].rgba, (Rgba{255, 255, 255, 255}));
  EXPECT_EQ(results[3].rgba, (Rgba{1, 128, 254, 127}));
  for (const PixelResult& result : results) EXPECT_FALSE(result.discarded);
  EXPECT_GT(executor_->last_pipeline_create_ms(), 0.0);
}

// One run per dimensionality, several colours per run (and a repeated one, which shares its image).
void expect_texture_colours(VulkanExecutor* test, Executor& executor, const PipelineSpec& spec, uint32_t binding,
                            SamplerDim dim) {
  const std::vector<Rgba> colours = {{255, 0, 0, 255}, {12, 34, 56, 78}, {255, 0, 0, 255}, {0, 200, 100, 0}};
  std::vector<DrawCase> cases;
  for (const Rgba& colour : colours) cases.push_back(DrawCase{{}, {TextureBinding{binding, dim, colour}}, {}});
  auto results = executor.run(spec, cases);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  ASSERT_EQ(results->size(), colours.size());
  for (size_t i = 0; i < colours.size(); ++i) {
    EXPECT_EQ((*results)[i].rgba, colours[i]) << "case " << i;
    EXPECT_FALSE((*results)[i].discarded);
  }
  (void)test;
}

TEST_F(VulkanExecutor, samples_the_colour_of_a_2d_texture) {
  expect_texture_colours(this, *executor_, pipeline(kPositionOnlyVert, kTexture2dFrag), 0, SamplerDim::dim2d);
}

TEST_F(VulkanExecutor, samples_the_colour_of_a_3d_texture) {
  expect_texture_colours(this, *executor_, pipeline(kPositionOnlyVert, kTexture3dFrag), 1, SamplerDim::dim3d);
}

TEST_F(VulkanExecutor, samples_the_colour_of_a_cube_texture) {
  expect_texture_colours(this, *executor_, pipeline(kPositionOnlyVert, kTextureCubeFrag), 2, SamplerDim::cube);
}

// Images larger than 1x1: each texel found at its centre, and clamp-to-edge outside [0, 1].
std::vector<uint8_t> numbered_texels(size_t count) {
  std::vector<uint8_t> texels;
  for (size_t i = 0; i < count; ++i) {
    const auto n = static_cast<uint8_t>(10 * (i + 1));
    texels.insert(texels.end(), {n, static_cast<uint8_t>(n + 1), static_cast<uint8_t>(n + 2), 255});
  }
  return texels;
}

Rgba numbered(size_t i) {
  const auto n = static_cast<uint8_t>(10 * (i + 1));
  return {n, static_cast<uint8_t>(n + 1), static_cast<uint8_t>(n + 2), 255};
}

TEST_F(VulkanExecutor, samples_each_texel_of_a_2d_image_and_clamps_to_its_edge) {
  TextureBinding image{0, SamplerDim::dim2d, {0, 0, 0, 0}, 4, 2, 1, numbered_texels(8)};
  std::vector<DrawCase> cases;
  std::vector<Rgba> want;
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 4; ++x) {
      cases.push_back(DrawCase{{{(x + 0.5f) / 4.0f, (y + 0.5f) / 2.0f, 0.0f, 0.0f}}, {image}, {}});
      want.push_back(numbered(y * 4 + x));
    }
  cases.push_back(DrawCase{{{-3.0f, 0.25f, 0.0f, 0.0f}}, {image}, {}});  // left of the image: column 0
  want.push_back(numbered(0));
  cases.push_back(DrawCase{{{7.0f, 9.0f, 0.0f, 0.0f}}, {image}, {}});   // past the bottom right corner
  want.push_back(numbered(7));
  auto results = executor_->run(pipeline(kAttributeVert, kTexture2dAtFrag), cases);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ((*results)[i].rgba, want[i]) << "case " << i;
}

TEST_F(VulkanExecutor, samples_each_texel_of_a_3d_image) {
  TextureBinding image{1, SamplerDim::dim3d, {0, 0, 0, 0}, 2, 2, 2, numbered_texels(8)};
  std::vector<DrawCase> cases;
  for (uint32_t i = 0; i < 8; ++i)
    cases.push_back(DrawCase{{{(i % 2 + 0.5f) / 2.0f, (i / 2 % 2 + 0.5f) / 2.0f, (i / 4 + 0.5f) / 2.0f, 0.0f}}, {image}, {}});
  auto results = executor_->run(pipeline(kAttributeVert, kTexture3dAtFrag), cases);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*results)[i].rgba, numbered(i)) << "texel " << i;
}

TEST_F(VulkanExecutor, samples_each_face_of_a_cube_image) {
  // 1x1 faces in Vulkan's order +X, -X, +Y, -Y, +Z, -Z; a direction along each axis reads its face.
  TextureBinding image{2, SamplerDim::cube, {0, 0, 0, 0}, 1, 1, 1, numbered_texels(6)};
  const std::array<std::array<float, 4>, 6> directions = {{{1, 0.2f, 0.1f, 0}, {-1, 0.1f, 0.2f, 0}, {0.2f, 1, 0.1f, 0},
                                                           {0.1f, -1, 0.2f, 0}, {0.2f, 0.1f, 1, 0}, {0.1f, 0.2f, -1, 0}}};
  std::vector<DrawCase> cases;
  for (const auto& d : directions) cases.push_back(DrawCase{{d}, {image}, {}});
  auto results = executor_->run(pipeline(kAttributeVert, kTextureCubeAtFrag), cases);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ((*results)[i].rgba, numbered(i)) << "face " << i;
}

TEST_F(VulkanExecutor, rejects_an_image_whose_texels_do_not_fill_its_extent) {
  TextureBinding image{0, SamplerDim::dim2d, {0, 0, 0, 0}, 4, 2, 1, numbered_texels(7)};
  const std::vector<DrawCase> cases = {DrawCase{{{0.5f, 0.5f, 0, 0}}, {image}, {}}};
  auto results = executor_->run(pipeline(kAttributeVert, kTexture2dAtFrag), cases);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.error().reason, "executor_bad_case");
}

TEST_F(VulkanExecutor, reads_each_case_uniform_block_at_its_own_offset) {
  std::vector<DrawCase> cases;
  for (uint8_t i = 0; i < 6; ++i) {
    const Rgba colour = {static_cast<uint8_t>(10 * i), static_cast<uint8_t>(255 - i), static_cast<uint8_t>(40 + i), 200};
    cases.push_back(DrawCase{{}, {}, {UniformBinding{0, std140({{9.0f, 9.0f, 9.0f, 9.0f}, unorm(colour)})}}});
  }
  const auto results = run(pipeline(kPositionOnlyVert, kUniformColourFrag), cases);
  ASSERT_EQ(results.size(), cases.size());
  for (uint8_t i = 0; i < 6; ++i) {
    EXPECT_EQ(results[i].rgba, (Rgba{static_cast<uint8_t>(10 * i), static_cast<uint8_t>(255 - i),
                                     static_cast<uint8_t>(40 + i), 200}))
        << "case " << int{i};
  }
}

TEST_F(VulkanExecutor, reports_discarded_cases_and_only_those) {
  const std::vector<float> x = {0.1f, 0.6f, 0.49f, 0.5f, 1.0f, 0.0f};
  std::vector<DrawCase> cases;
  for (float value : x) cases.push_back(DrawCase{{{value, 0.2f, 0.4f, 1.0f}}, {}, {}});
  const auto results = run(pipeline(kAttributeVert, kDiscardBelowHalfFrag), cases);
  ASSERT_EQ(results.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(results[i].discarded, x[i] < 0.5f) << "case " << i;
    if (results[i].discarded) {
      EXPECT_EQ(results[i].rgba, (Rgba{0, 0, 0, 0})) << "case " << i << ": the clear colour";
    } else {
      EXPECT_EQ(results[i].rgba[1], 51) << "case " << i;
    }
  }
}

// Case i of the mixed shader: discarded when i % 3 == 0, else (2d.r, 3d.g, cube.b, uniform.a + attribute.y).
DrawCase mixed_case(uint32_t i) {
  const Rgba colour_2d = {static_cast<uint8_t>(i % 7 * 37), 1, 2, 3};
  const Rgba colour_3d = {4, static_cast<uint8_t>(i % 11 * 23), 5, 6};
  const Rgba colour_cube = {7, 8, static_cast<uint8_t>(i % 13 * 19), 9};
  const Rgba uniform = {0, 0, 0, static_cast<uint8_t>(i % 100)};
  DrawCase draw;
  draw.attributes = {{i % 3 == 0 ? 0.25f : 0.75f, static_cast<float>(i % 50) / 255.0f, 0.0f, 0.0f}};
  // Bindings in a different order than the shader's, and textures after the uniform: order is free.
  draw.textures = {TextureBinding{2, SamplerDim::cube, colour_cube}, TextureBinding{0, SamplerDim::dim2d, colour_2d},
                   TextureBinding{1, SamplerDim::dim3d, colour_3d}};
  draw.uniforms = {UniformBinding{3, std140({unorm(uniform)})}};
  return draw;
}

PixelResult mixed_expected(uint32_t i) {
  if (i % 3 == 0) return PixelResult{{0, 0, 0, 0}, true};
  return PixelResult{{static_cast<uint8_t>(i % 7 * 37), static_cast<uint8_t>(i % 11 * 23),
                      static_cast<uint8_t>(i % 13 * 19), static_cast<uint8_t>(i % 100 + i % 50)},
                     false};
}

void expect_mixed_results(const std::vector<PixelResult>& results, uint32_t count) {
  ASSERT_EQ(results.size(), count);
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const PixelResult expected = mixed_expected(i);
    if (results[i].rgba == expected.rgba && results[i].discarded == expected.discarded) continue;
    if (++wrong <= 10) {
      ADD_FAILURE() << "case " << i << ": got (" << int{results[i].rgba[0]} << "," << int{results[i].rgba[1]} << ","
                    << int{results[i].rgba[2]} << "," << int{results[i].rgba[3]} << ") discarded "
                    << results[i].discarded;
    }
  }
  EXPECT_EQ(wrong, 0u);
}

TEST_F(VulkanExecutor, renders_10000_cases_with_every_input_kind_in_one_run) {
  constexpr uint32_t kCases = 10000;
  std::vector<DrawCase> cases;
  cases.reserve(kCases);
  for (uint32_t i = 0; i < kCases; ++i) cases.push_back(mixed_case(i));
  const auto start = std::chrono::steady_clock::now();
  auto results = run(pipeline(kAttributeVert, kMixedFrag), cases);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  expect_mixed_results(results, kCases);
  // Reported, not asserted: a test is no benchmark.
  RecordProperty("run_ms", std::to_string(ms));
  std::printf("[   INFO   ] %u cases on %s: %.0f ms (pipeline creation %.1f ms, validation %s)\n", kCases,
              executor_->device_name().c_str(), ms, executor_->last_pipeline_create_ms(),
              executor_->validation_active() ? "on" : "off");
}

TEST_F(VulkanExecutor, splits_more_cases_than_one_batch_into_several_submissions) {
  const uint32_t count = Executor::kCasesPerBatch + 300;
  std::vector<DrawCase> cases;
  cases.reserve(count);
  for (uint32_t i = 0; i < count; ++i) cases.push_back(mixed_case(i));
  expect_mixed_results(run(pipeline(kAttributeVert, kMixedFrag), cases), count);
}

TEST_F(VulkanExecutor, runs_several_pipelines_one_after_another) {
  std::vector<DrawCase> colour(1);
  colour[0].attributes = {unorm({9, 8, 7, 6})};
  std::vector<DrawCase> texture = {DrawCase{{}, {TextureBinding{0, SamplerDim::dim2d, {1, 2, 3, 4}}}, {}}};
  for (int round = 0; round < 2; ++round) {
    auto first = run(pipeline(kAttributeVert, kAttributeColourFrag), colour);
    auto second = run(pipeline(kPositionOnlyVert, kTexture2dFrag), texture);
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(first[0].rgba, (Rgba{9, 8, 7, 6}));
    EXPECT_EQ(second[0].rgba, (Rgba{1, 2, 3, 4}));
  }
}

TEST_F(VulkanExecutor, feeds_attributes_to_the_locations_the_spec_names) {
  std::vector<DrawCase> cases(2);
  cases[0].attributes = {unorm({10, 20, 30, 40})};
  cases[1].attributes = {unorm({50, 60, 70, 80})};
  PipelineSpec spec = pipeline(kLocation3Vert, kAttributeColourFrag);
  spec.attribute_locations = {3};
  const auto results = run(spec, cases);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].rgba, (Rgba{10, 20, 30, 40}));
  EXPECT_EQ(results[1].rgba, (Rgba{50, 60, 70, 80}));
}

TEST_F(VulkanExecutor, rejects_attribute_locations_that_are_zero_repeated_or_miscounted) {
  std::vector<DrawCase> cases(1);
  cases[0].attributes = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  for (const std::vector<uint32_t>& locations : {std::vector<uint32_t>{0, 1}, std::vector<uint32_t>{2, 2},
                                                 std::vector<uint32_t>{1}, std::vector<uint32_t>{1, 4096}}) {
    PipelineSpec spec = pipeline(kAttributeVert, kAttributeColourFrag);
    spec.attribute_locations = locations;
    auto results = executor_->run(spec, cases);
    ASSERT_FALSE(results.ok());
    EXPECT_EQ(results.error().kind, ErrorKind::internal);
    EXPECT_EQ(results.error().reason, "executor_bad_attribute_locations");
  }
}

TEST_F(VulkanExecutor, no_cases_give_no_results) {
  auto results = executor_->run(pipeline(kAttributeVert, kAttributeColourFrag), {});
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  EXPECT_TRUE(results->empty());
}

TEST_F(VulkanExecutor, rejects_a_case_whose_bindings_differ_from_the_first) {
  std::vector<DrawCase> cases = {DrawCase{{}, {TextureBinding{0, SamplerDim::dim2d, {1, 2, 3, 4}}}, {}},
                                 DrawCase{{}, {TextureBinding{0, SamplerDim::dim2d, {5, 6, 7, 8}}}, {}},
                                 DrawCase{{}, {TextureBinding{0, SamplerDim::cube, {1, 2, 3, 4}}}, {}}};
  auto results = executor_->run(pipeline(kPositionOnlyVert, kTexture2dFrag), cases);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.error().kind, ErrorKind::internal);
  EXPECT_NE(results.error().message.find("draw case 2"), std::string::npos) << results.error().message;
  EXPECT_NE(results.error().message.find("texture cube"), std::string::npos) << results.error().message;
}

TEST_F(VulkanExecutor, rejects_a_case_with_a_different_attribute_count) {
  std::vector<DrawCase> cases(2);
  cases[0].attributes = {{0, 0, 0, 0}};
  auto results = executor_->run(pipeline(kAttributeVert, kAttributeColourFrag), cases);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.error().kind, ErrorKind::internal);
  EXPECT_NE(results.error().message.find("draw case 1"), std::string::npos) << results.error().message;
}

TEST_F(VulkanExecutor, rejects_a_binding_declared_twice_and_an_empty_uniform_block) {
  std::vector<DrawCase> twice = {DrawCase{{},
                                          {TextureBinding{0, SamplerDim::dim2d, {1, 2, 3, 4}}},
                                          {UniformBinding{0, std140({{0, 0, 0, 0}})}}}};
  auto results = executor_->run(pipeline(kPositionOnlyVert, kTexture2dFrag), twice);
  ASSERT_FALSE(results.ok());
  EXPECT_NE(results.error().message.find("binding 0 is declared twice"), std::string::npos) << results.error().message;

  std::vector<DrawCase> empty = {DrawCase{{}, {}, {UniformBinding{0, {}}}}};
  results = executor_->run(pipeline(kPositionOnlyVert, kUniformColourFrag), empty);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.error().kind, ErrorKind::internal);
}

TEST_F(VulkanExecutor, rejects_words_that_are_not_spirv) {
  std::vector<DrawCase> cases(1);
  cases[0].attributes = {{0, 0, 0, 0}};
  auto results = executor_->run(PipelineSpec{words(kAttributeVert), {1, 2, 3, 4, 5, 6}}, cases);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.error().kind, ErrorKind::toolchain);
  EXPECT_NE(results.error().message.find("fragment"), std::string::npos) << results.error().message;
}

TEST_F(VulkanExecutor, selects_a_device_by_case_insensitive_substring) {
  ExecutorOptions options;
  options.device = to_upper(executor_->device_name().substr(0, 6));
  auto selected = Executor::create(options);
  ASSERT_TRUE(selected.ok()) << selected.error().to_string();
  EXPECT_EQ((*selected)->device_name(), executor_->device_name());
}

TEST_F(VulkanExecutor, unknown_device_name_is_an_error_listing_the_devices) {
  ExecutorOptions options;
  options.device = "no such device 7f3a";
  auto missing = Executor::create(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::toolchain);
  EXPECT_EQ(missing.error().reason, "vulkan_device_not_found");
  EXPECT_NE(missing.error().message.find("no such device 7f3a"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find(executor_->device_name()), std::string::npos) << missing.error().message;
}

TEST_F(VulkanExecutor, runs_without_the_validation_layer_too) {
  ExecutorOptions options;
  options.validation = false;
  auto created = Executor::create(options);
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  EXPECT_FALSE((*created)->validation_active());
  std::vector<DrawCase> cases(1);
  cases[0].attributes = {unorm({3, 2, 1, 0})};
  auto results = (*created)->run(pipeline(kAttributeVert, kAttributeColourFrag), cases);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  EXPECT_EQ((*results)[0].rgba, (Rgba{3, 2, 1, 0}));
}

}  // namespace
}  // namespace shaderbake::vulkan

namespace shaderbake::vulkan {
namespace {

// time_fill (the fragment-cost benchmark's clock): every pixel of the target runs the program, the first
// pixel holds its colour, and the figures it returns are ordered and positive. Times are not asserted.
TEST_F(VulkanExecutor, time_fill_renders_the_whole_target_and_reports_ordered_figures) {
  DrawCase draw;
  draw.attributes = {unorm({51, 102, 153, 204})};
  auto timing = executor_->time_fill(pipeline(kAttributeVert, kAttributeColourFrag), draw, 64, 32, 3);
  ASSERT_TRUE(timing.ok()) << timing.error().to_string();
  EXPECT_EQ(timing->first_pixel, (Rgba{51, 102, 153, 204}));
  EXPECT_FALSE(timing->discarded);
  EXPECT_GT(timing->median_ms, 0.0);
  EXPECT_LE(timing->min_ms, timing->median_ms);
  EXPECT_LE(timing->median_ms, timing->max_ms);
  // A target of no pixels and zero repeats are caller mistakes, not device failures.
  auto empty = executor_->time_fill(pipeline(kAttributeVert, kAttributeColourFrag), draw, 0, 32, 3);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().kind, ErrorKind::internal);
  auto no_repeats = executor_->time_fill(pipeline(kAttributeVert, kAttributeColourFrag), draw, 64, 32, 0);
  ASSERT_FALSE(no_repeats.ok());
  EXPECT_EQ(no_repeats.error().kind, ErrorKind::internal);
}

}  // namespace
}  // namespace shaderbake::vulkan

// SPDX-License-Identifier: MIT
// Bundle format 2.1 router data (schemas/bundle.md, DYNAMIC_FALLBACKS and PREWARM): what BundleBuilder is given
// reads back through the runtime loader's accessors, value for value; a bundle without the sections (what a 2.0
// writer gives, and a 2.0 file of the fuzz corpus) reads count 0 / SBK_NOT_FOUND; the writer refuses content that
// breaks a rule; the loader refuses sections that break one (at open for sizes, on use for the rest); and the
// nv2a guest model's vertex defaults are the ones the format names.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "guests/nv2a/exact_emitter.hpp"
#include "guests/nv2a/nv2a_guest.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "lib/bundle/driver_cache.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "tests/bundle/bundle_sections.hpp"

using namespace shaderbake;

namespace {

constexpr uint32_t kVertex = 1, kFragment = 16;                        // VkShaderStageFlagBits
constexpr uint32_t kB8G8R8A8Unorm = 44, kR8G8B8A8Unorm = 37;          // VkFormat
constexpr uint32_t kD24UnormS8Uint = 129, kD32Sfloat = 126;
using Defaults = std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS>;

// Words that stand for a module: the loader stores and checks bytes; it never parses them as SPIR-V.
std::vector<uint32_t> module_words(uint32_t seed) {
  std::vector<uint32_t> words = {0x07230203u, 0x00010000u, 0u, 16u, 0u};
  for (uint32_t i = 0; i < 24; ++i) words.push_back(seed * 1000u + i);
  return words;
}

std::vector<uint8_t> family_key(uint8_t stage0_sampler) {
  return {SBK_GUEST_NV2A, SBK_KEY_KIND_FAMILY, SBK_NV2A_KEY_SCHEMA_VERSION, 0, stage0_sampler, 0, 0, 0};
}

sbk_host_state host_with(uint32_t colors, std::array<uint32_t, 2> formats, uint32_t depth, uint32_t samples) {
  sbk_host_state h{};
  h.topology = 3;  // triangle list
  h.color_count = colors;
  for (uint32_t i = 0; i < colors; ++i) {
    h.color_formats[i] = formats[i];
    h.blend[i].write_mask = 15;
  }
  h.depth_format = depth;
  h.samples = samples;
  return h;
}

std::vector<uint8_t> pipeline_key(uint8_t route, std::span<const uint8_t> fragment_key, const sbk_host_state& host) {
  std::vector<uint8_t> key(SBK_PIPELINE_KEY_MAX_SIZE(fragment_key.size()));
  size_t size = 0;
  EXPECT_EQ(sbk_encode_pipeline_key(route, fragment_key.data(), fragment_key.size(), &host, key.data(), key.size(), &size),
            SBK_OK);
  key.resize(size);
  return key;
}

bundle::LayoutContract layout_of(uint32_t push_constants) {
  bundle::LayoutContract l;
  l.bindings.push_back({0, 1, 1, kFragment});
  l.push_constant_size = push_constants;
  l.push_constant_stages = push_constants ? kFragment : 0;
  return l;
}

sbk_attachment_signature signature(uint32_t colors, std::array<uint32_t, 2> formats, uint32_t depth, uint32_t samples) {
  const sbk_host_state h = host_with(colors, formats, depth, samples);
  sbk_attachment_signature s;
  sbk_attachment_signature_of(&h, &s);
  return s;
}

// An open bundle over an 8-aligned copy of the bytes.
class Open {
 public:
  explicit Open(const std::vector<uint8_t>& bytes) : words_((bytes.size() + 7) / 8) {
    std::memcpy(words_.data(), bytes.data(), bytes.size());
    result_ = sbk_bundle_open_memory(&b_, words_.data(), bytes.size());
  }
  ~Open() {
    if (result_ == SBK_OK) sbk_bundle_close(&b_);
  }
  Open(const Open&) = delete;
  Open& operator=(const Open&) = delete;
  sbk_result result() const { return result_; }
  const sbk_bundle* operator->() const { return &b_; }
  const sbk_bundle* get() const { return &b_; }

 private:
  std::vector<uint64_t> words_;
  sbk_bundle b_{};
  sbk_result result_ = SBK_ERROR_INVALID_STATE;
};

// What the round-trip bundle holds, as the test added it.
struct Content {
  std::vector<uint32_t> vertex = module_words(1), fragment_a = module_words(2), fragment_b = module_words(3);
  std::vector<uint8_t> family_a = family_key(SBK_SAMPLER_2D), family_b = family_key(SBK_SAMPLER_CUBE);
  std::vector<uint8_t> family_failed = family_key(SBK_SAMPLER_3D);
  std::array<uint8_t, SBK_NV2A_EXACT_KEY_SIZE> exact_key{};
  std::vector<uint8_t> exact1, exact2, exact3, fallback1;
  // (family key, signature, layout) of each recipe, in the order the test adds them (not the sorted order).
  struct Recipe {
    std::vector<uint8_t> family;
    sbk_attachment_signature signature;
    bundle::LayoutContract layout;
  };
  std::vector<Recipe> recipes;
  Defaults defaults{};

  Content() {
    sbk_nv2a_program program{};
    program.combiner_control = 1;
    sbk_nv2a_encode_exact_key(&program, exact_key.data());
    exact1 = pipeline_key(SBK_ROUTE_EXACT, exact_key, host_with(1, {kB8G8R8A8Unorm, 0}, kD24UnormS8Uint, 1));
    exact2 = pipeline_key(SBK_ROUTE_EXACT, exact_key, host_with(2, {kR8G8B8A8Unorm, kB8G8R8A8Unorm}, 0, 4));
    exact3 = pipeline_key(SBK_ROUTE_EXACT, exact_key, host_with(0, {0, 0}, kD32Sfloat, 1));
    fallback1 = pipeline_key(SBK_ROUTE_FALLBACK, family_a, host_with(1, {kB8G8R8A8Unorm, 0}, kD24UnormS8Uint, 1));
    const sbk_attachment_signature a = signature(1, {kB8G8R8A8Unorm, 0}, kD24UnormS8Uint, 1);
    const sbk_attachment_signature b = signature(2, {kR8G8B8A8Unorm, kB8G8R8A8Unorm}, 0, 4);
    const sbk_attachment_signature c = signature(0, {0, 0}, kD32Sfloat, 1);
    recipes = {{family_b, a, layout_of(16)}, {family_a, b, layout_of(0)}, {family_a, a, layout_of(0)},
               {family_b, c, layout_of(16)}, {family_a, c, layout_of(0)}};
    for (uint32_t l = 0; l < 8; ++l)
      for (uint32_t k = 0; k < 4; ++k) defaults[l][k] = static_cast<float>(l) + 0.25f * static_cast<float>(k);
  }

  // The bundle, with the recipes added in `order` (indices into `recipes`).
  std::vector<uint8_t> bundle(const std::vector<size_t>& order) const {
    bundle::BundleIdentity identity;
    identity.toolchain_fingerprint = "router data test";
  identity.guest = SBK_GUEST_NV2A;
  identity.key_schema = SBK_NV2A_KEY_SCHEMA_VERSION;
  identity.guest_name = "nv2a";
    bundle::BundleBuilder builder(identity);
    const bundle::ModuleId v = builder.add_module(kVertex, vertex);
    const bundle::ModuleId fa = builder.add_module(kFragment, fragment_a);
    const bundle::ModuleId fb = builder.add_module(kFragment, fragment_b);
    builder.add_specialization(exact_key, SBK_STATUS_READY, fa, 0);
    builder.add_family(family_a, SBK_STATUS_READY, fa);
    builder.add_family(family_b, SBK_STATUS_READY, fb);
    builder.add_family(family_failed, SBK_STATUS_COMPILE_FAILED, std::nullopt);
    for (const auto* key : {&exact1, &exact2, &exact3}) builder.add_pipeline(*key, v, fa, layout_of(0));
    builder.add_pipeline(fallback1, v, fa, layout_of(0));
    for (size_t i : order) {
      const Recipe& r = recipes[i];
      builder.add_dynamic_fallback(r.family, v, r.family == family_a ? fa : fb, r.layout, r.signature);
    }
    builder.set_vertex_defaults(0xFF, defaults);
    builder.add_prewarm(exact2, 5);
    builder.add_prewarm(exact1, -3);
    builder.add_prewarm(exact3, int64_t{1} << 40);
    auto bytes = builder.serialize(bundle::WriteOptions{});
    EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().to_string());
    return bytes.ok() ? *bytes : std::vector<uint8_t>{};
  }
};

uint32_t entry_of(const sbk_bundle* b, const std::vector<uint8_t>& key) {
  sbk_entry e;
  EXPECT_EQ(sbk_bundle_find(b, key.data(), key.size(), &e), SBK_OK);
  return e.index;
}

std::vector<uint8_t> key_of_entry(const sbk_bundle* b, uint32_t index) {
  std::vector<uint8_t> key(4096);
  size_t size = 0;
  EXPECT_EQ(sbk_bundle_entry_key(b, index, key.data(), key.size(), &size), SBK_OK);
  key.resize(size);
  return key;
}

std::vector<uint32_t> module_of(const sbk_bundle* b, uint32_t module) {
  sbk_module_info info;
  EXPECT_EQ(sbk_bundle_module_info(b, module, &info), SBK_OK);
  std::vector<uint32_t> words(info.raw_size / 4);
  size_t size = 0;
  EXPECT_EQ(sbk_bundle_read_module(b, module, words.data(), words.size() * 4, &size, nullptr), SBK_OK);
  return words;
}

bool same_signature(const sbk_attachment_signature& x, const sbk_attachment_signature& y) {
  return std::memcmp(&x, &y, sizeof x) == 0;
}

// The order the format sorts recipes in, written out from schemas/bundle.md: family entry, then color count,
// samples, depth format, reserved (0) and the eight colour formats.
std::vector<uint32_t> sort_key(const sbk_dynamic_fallback& d) {
  std::vector<uint32_t> k{d.family_entry, d.signature.color_count, d.signature.samples, d.signature.depth_format, 0};
  k.insert(k.end(), d.signature.color_formats, d.signature.color_formats + SBK_MAX_COLOR_ATTACHMENTS);
  return k;
}

}  // namespace

TEST(RouterData, every_recipe_default_and_prewarm_position_reads_back_as_added) {
  const Content c;
  const auto bytes = c.bundle({0, 1, 2, 3, 4});
  Open b(bytes);
  ASSERT_EQ(b.result(), SBK_OK);
  EXPECT_EQ(sbk_bundle_format_minor(b.get()), uint32_t{SBK_BUNDLE_FORMAT_MINOR});
  ASSERT_EQ(sbk_bundle_dynamic_fallback_count(b.get()), 5u);

  // Each recipe read back is one that was added (family by key, signature, modules by bytes, layout by value),
  // each added one is read once, and they come in the format's order.
  std::set<size_t> seen;
  std::vector<uint32_t> previous;
  for (uint32_t i = 0; i < 5; ++i) {
    sbk_dynamic_fallback d;
    ASSERT_EQ(sbk_bundle_dynamic_fallback(b.get(), i, &d), SBK_OK) << i;
    const std::vector<uint8_t> family = key_of_entry(b.get(), d.family_entry);
    size_t match = c.recipes.size();
    for (size_t k = 0; k < c.recipes.size(); ++k)
      if (c.recipes[k].family == family && same_signature(c.recipes[k].signature, d.signature)) match = k;
    ASSERT_LT(match, c.recipes.size()) << "recipe " << i << " is not one that was added";
    EXPECT_TRUE(seen.insert(match).second);
    EXPECT_EQ(module_of(b.get(), d.vertex_module), c.vertex);
    EXPECT_EQ(module_of(b.get(), d.fragment_module), family == c.family_a ? c.fragment_a : c.fragment_b);
    sbk_layout layout;
    ASSERT_EQ(sbk_bundle_layout(b.get(), d.layout, &layout), SBK_OK);
    EXPECT_EQ(layout.push_constant_size, c.recipes[match].layout.push_constant_size);
    EXPECT_EQ(layout.binding_count, 1u);
    const std::vector<uint32_t> key = sort_key(d);
    EXPECT_TRUE(previous.empty() || previous < key) << "recipe " << i << " is out of order";
    previous = key;

    // The search finds it by the family entry and the signature of a host state with those attachments.
    sbk_dynamic_fallback found;
    uint32_t index = 0;
    ASSERT_EQ(sbk_bundle_find_dynamic_fallback(b.get(), entry_of(b.get(), family), &d.signature, &found, &index), SBK_OK);
    EXPECT_EQ(index, i);
    EXPECT_EQ(std::memcmp(&found, &d, sizeof d), 0);
  }
  EXPECT_EQ(seen.size(), 5u);
  sbk_dynamic_fallback d;
  EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 5, &d), SBK_NOT_FOUND);

  // All at once reads the same recipes in the same order, and wants room for all of them.
  std::vector<sbk_dynamic_fallback> all(5);
  ASSERT_EQ(sbk_bundle_read_dynamic_fallbacks(b.get(), all.data(), 5), SBK_OK);
  for (uint32_t i = 0; i < 5; ++i) {
    sbk_dynamic_fallback one;
    ASSERT_EQ(sbk_bundle_dynamic_fallback(b.get(), i, &one), SBK_OK);
    EXPECT_EQ(std::memcmp(&one, &all[i], sizeof one), 0) << i;
  }
  EXPECT_EQ(sbk_bundle_read_dynamic_fallbacks(b.get(), all.data(), 4), SBK_ERROR_BUFFER_TOO_SMALL);

  // Misses: a signature no recipe of that family has, and the family whose ubershader failed.
  const sbk_attachment_signature b_sig = signature(2, {kR8G8B8A8Unorm, kB8G8R8A8Unorm}, 0, 4);
  uint32_t index = 7;
  EXPECT_EQ(sbk_bundle_find_dynamic_fallback(b.get(), entry_of(b.get(), c.family_b), &b_sig, &d, &index), SBK_NOT_FOUND);
  EXPECT_EQ(index, 0xFFFFFFFFu);
  EXPECT_EQ(sbk_bundle_find_dynamic_fallback(b.get(), entry_of(b.get(), c.family_failed), &b_sig, &d, nullptr),
            SBK_NOT_FOUND);
  const sbk_attachment_signature two_samples = signature(1, {kB8G8R8A8Unorm, 0}, kD24UnormS8Uint, 2);
  EXPECT_EQ(sbk_bundle_find_dynamic_fallback(b.get(), entry_of(b.get(), c.family_a), &two_samples, &d, nullptr),
            SBK_NOT_FOUND);

  uint32_t mask = 0;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  ASSERT_EQ(sbk_bundle_vertex_defaults(b.get(), &mask, defaults), SBK_OK);
  EXPECT_EQ(mask, 0xFFu);
  for (uint32_t l = 0; l < SBK_VERTEX_LOCATIONS; ++l)
    for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(defaults[l][k], c.defaults[l][k]) << l << "." << k;

  // The prewarm order is the order of the calls; frames clamped to 0..2^32-1.
  ASSERT_EQ(sbk_bundle_prewarm_count(b.get()), 3u);
  const std::vector<std::pair<const std::vector<uint8_t>*, uint32_t>> want = {
      {&c.exact2, 5u}, {&c.exact1, 0u}, {&c.exact3, 0xFFFFFFFFu}};
  for (uint32_t p = 0; p < 3; ++p) {
    uint32_t entry = 0, frame = 0;
    ASSERT_EQ(sbk_bundle_prewarm_at(b.get(), p, &entry, &frame), SBK_OK);
    EXPECT_EQ(key_of_entry(b.get(), entry), *want[p].first) << p;
    EXPECT_EQ(frame, want[p].second) << p;
  }
  uint32_t entry = 1, frame = 1;
  EXPECT_EQ(sbk_bundle_prewarm_at(b.get(), 3, &entry, &frame), SBK_NOT_FOUND);
  EXPECT_EQ(entry, 0xFFFFFFFFu);
  EXPECT_EQ(frame, 0u);
  EXPECT_EQ(sbk_bundle_check_sections(b.get()), SBK_OK);
}

TEST(RouterData, the_bytes_do_not_depend_on_the_order_recipes_are_added_in) {
  const Content c;
  EXPECT_EQ(c.bundle({0, 1, 2, 3, 4}), c.bundle({4, 2, 0, 3, 1}));
}

TEST(RouterData, a_bundle_without_router_data_reads_count_0_and_not_found) {
  bundle::BundleIdentity identity;
  identity.toolchain_fingerprint = "router data test";
  identity.guest = SBK_GUEST_NV2A;
  identity.key_schema = SBK_NV2A_KEY_SCHEMA_VERSION;
  identity.guest_name = "nv2a";
  bundle::BundleBuilder builder(identity);
  builder.add_family(family_key(SBK_SAMPLER_2D), SBK_STATUS_READY, builder.add_module(kFragment, module_words(2)));
  auto written = builder.serialize(bundle::WriteOptions{});
  ASSERT_TRUE(written.ok());
  // The writer's own, and a seed bundle of the fuzz corpus without the two sections.
  std::vector<std::vector<uint8_t>> bundles = {*written};
  std::ifstream in(std::string(SHADERBAKE_SOURCE_DIR) + "/tests/fuzz/corpus/bundle/ref_no_dictionary_failed_entry.sbk",
                   std::ios::binary);
  bundles.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  for (const auto& bytes : bundles) {
    Open b(bytes);
    ASSERT_EQ(b.result(), SBK_OK);
    uint64_t size = 1;
    EXPECT_EQ(sbk_bundle_section(b.get(), SBK_SECTION_DYNAMIC_FALLBACKS, &size), nullptr);
    EXPECT_EQ(sbk_bundle_section(b.get(), SBK_SECTION_PREWARM, &size), nullptr);
    EXPECT_EQ(sbk_bundle_dynamic_fallback_count(b.get()), 0u);
    EXPECT_EQ(sbk_bundle_prewarm_count(b.get()), 0u);
    sbk_dynamic_fallback d;
    EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 0, &d), SBK_NOT_FOUND);
    const sbk_attachment_signature s = signature(1, {kB8G8R8A8Unorm, 0}, 0, 1);
    uint32_t index = 3;
    EXPECT_EQ(sbk_bundle_find_dynamic_fallback(b.get(), 0, &s, &d, &index), SBK_NOT_FOUND);
    EXPECT_EQ(index, 0xFFFFFFFFu);
    uint32_t mask = 9;
    float defaults[SBK_VERTEX_LOCATIONS][4];
    defaults[3][2] = 7.0f;
    EXPECT_EQ(sbk_bundle_vertex_defaults(b.get(), &mask, defaults), SBK_NOT_FOUND);
    EXPECT_EQ(mask, 0u);
    EXPECT_EQ(defaults[3][2], 0.0f);
    uint32_t entry = 0, frame = 0;
    EXPECT_EQ(sbk_bundle_prewarm_at(b.get(), 0, &entry, &frame), SBK_NOT_FOUND);
  }
}

TEST(RouterData, the_signature_of_a_host_state_keeps_only_its_attachments) {
  sbk_host_state h = host_with(2, {kR8G8B8A8Unorm, kB8G8R8A8Unorm}, kD24UnormS8Uint, 4);
  h.color_formats[5] = 99;  // past the count: not part of the state
  h.cull_mode = 2;
  h.depth_test = 1;
  sbk_attachment_signature s;
  std::memset(&s, 0xAB, sizeof s);
  sbk_attachment_signature_of(&h, &s);
  const uint32_t want[11] = {2, kR8G8B8A8Unorm, kB8G8R8A8Unorm, 0, 0, 0, 0, 0, 0, kD24UnormS8Uint, 4};
  static_assert(sizeof want == sizeof s);
  EXPECT_EQ(std::memcmp(&s, want, sizeof s), 0);
}

// ---- the writer refuses what breaks a rule ----

namespace {

std::string serialize_error(const std::function<void(bundle::BundleBuilder&, const bundle::ModuleId&,
                                                     const bundle::ModuleId&)>& add) {
  bundle::BundleIdentity identity;
  identity.toolchain_fingerprint = "router data test";
  identity.guest = SBK_GUEST_NV2A;
  identity.key_schema = SBK_NV2A_KEY_SCHEMA_VERSION;
  identity.guest_name = "nv2a";
  bundle::BundleBuilder builder(identity);
  const bundle::ModuleId v = builder.add_module(kVertex, module_words(1));
  const bundle::ModuleId f = builder.add_module(kFragment, module_words(2));
  builder.add_family(family_key(SBK_SAMPLER_2D), SBK_STATUS_READY, f);
  builder.add_family(family_key(SBK_SAMPLER_3D), SBK_STATUS_COMPILE_FAILED, std::nullopt);
  add(builder, v, f);
  auto bytes = builder.serialize(bundle::WriteOptions{});
  return bytes.ok() ? "" : bytes.error().reason;
}

const sbk_attachment_signature kOneColour = signature(1, {kB8G8R8A8Unorm, 0}, 0, 1);
Defaults nv2a_like_defaults() {
  Defaults d{};
  for (uint32_t l = 0; l < 8; ++l) d[l] = {0.0f, 0.0f, 0.0f, 1.0f};
  return d;
}

}  // namespace

TEST(RouterData, the_writer_refuses_recipes_and_prewarm_entries_that_break_a_rule) {
  using B = bundle::BundleBuilder;
  using M = bundle::ModuleId;
  EXPECT_EQ(serialize_error([](B& b, const M& v, const M& f) {
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), v, f, layout_of(0), kOneColour);
            }),
            "vertex_defaults_missing");
  EXPECT_EQ(serialize_error([](B& b, const M& v, const M& f) {
              b.set_vertex_defaults(0xFF, nv2a_like_defaults());
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_3D), v, f, layout_of(0), kOneColour);
            }),
            "dynamic_fallback_family")
      << "a family whose ubershader failed has no recipe";
  EXPECT_EQ(serialize_error([](B& b, const M& v, const M&) {
              b.set_vertex_defaults(0xFF, nv2a_like_defaults());
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), v, v, layout_of(0), kOneColour);
            }),
            "dynamic_fallback_family")
      << "the fragment module must be the family's";
  EXPECT_EQ(serialize_error([](B& b, const M&, const M& f) {
              b.set_vertex_defaults(0xFF, nv2a_like_defaults());
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), f, f, layout_of(0), kOneColour);
            }),
            "dynamic_fallback_vertex");
  EXPECT_EQ(serialize_error([](B& b, const M& v, const M& f) {
              b.set_vertex_defaults(0xFF, nv2a_like_defaults());
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), v, f, layout_of(0), kOneColour);
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), v, f, layout_of(16), kOneColour);
            }),
            "duplicate_dynamic_fallback");
  EXPECT_EQ(serialize_error([](B& b, const M& v, const M& f) {
              b.set_vertex_defaults(0xFF, nv2a_like_defaults());
              sbk_attachment_signature s = kOneColour;
              s.samples = 3;
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), v, f, layout_of(0), s);
            }),
            "bad_signature");
  EXPECT_EQ(serialize_error([](B& b, const M&, const M&) {
              Defaults d = nv2a_like_defaults();
              d[2][1] = std::nanf("");
              b.set_vertex_defaults(0xFF, d);
            }),
            "bad_vertex_defaults");
  EXPECT_EQ(serialize_error([](B& b, const M&, const M&) {
              Defaults d = nv2a_like_defaults();
              d[9][0] = 1.0f;  // outside the mask
              b.set_vertex_defaults(0xFF, d);
            }),
            "bad_vertex_defaults");
  const std::vector<uint8_t> fallback =
      pipeline_key(SBK_ROUTE_FALLBACK, family_key(SBK_SAMPLER_2D), host_with(1, {kB8G8R8A8Unorm, 0}, 0, 1));
  EXPECT_EQ(serialize_error([&](B& b, const M& v, const M& f) {
              b.add_pipeline(fallback, v, f, layout_of(0));
              b.add_prewarm(fallback, 0);
            }),
            "prewarm_key")
      << "only exact pipelines are prewarmed";
  EXPECT_EQ(serialize_error([&](B& b, const M&, const M&) { b.add_prewarm(fallback, 0); }), "prewarm_key")
      << "a key without a recipe";
  std::array<uint8_t, SBK_NV2A_EXACT_KEY_SIZE> exact{};
  sbk_nv2a_program program{};
  sbk_nv2a_encode_exact_key(&program, exact.data());
  const std::vector<uint8_t> exact_pipeline = pipeline_key(SBK_ROUTE_EXACT, exact, host_with(1, {kB8G8R8A8Unorm, 0}, 0, 1));
  EXPECT_EQ(serialize_error([&](B& b, const M& v, const M& f) {
              b.add_specialization(exact, SBK_STATUS_READY, f, 0);
              b.add_pipeline(exact_pipeline, v, f, layout_of(0));
              b.add_prewarm(exact_pipeline, 1);
              b.add_prewarm(exact_pipeline, 2);
            }),
            "duplicate_prewarm");
  EXPECT_EQ(serialize_error([&](B& b, const M& v, const M& f) {
              b.add_specialization(exact, SBK_STATUS_READY, f, 0);
              b.add_pipeline(exact_pipeline, v, f, layout_of(0));
              b.add_prewarm(exact_pipeline, 1);
              b.set_vertex_defaults(0xFF, nv2a_like_defaults());
              b.add_dynamic_fallback(family_key(SBK_SAMPLER_2D), v, f, layout_of(0), kOneColour);
            }),
            "")
      << "and all of it together is a good bundle";
}

// ---- the loader refuses sections that break a rule ----

namespace {

using shaderbake::testing::sections_of;
using shaderbake::testing::with_section;

void put_u32(std::vector<uint8_t>& v, size_t at, uint32_t x) {
  for (int i = 0; i < 4; ++i) v[at + i] = static_cast<uint8_t>(x >> (8 * i));
}

}  // namespace

TEST(RouterData, open_refuses_a_section_whose_size_is_not_what_its_count_gives) {
  const Content c;
  const auto base = c.bundle({0, 1, 2, 3, 4});
  const auto sections = sections_of(base);
  auto dynamic = sections.at(SBK_SECTION_DYNAMIC_FALLBACKS);
  ASSERT_EQ(dynamic.size(), 264u + 64u * 5u) << "the size schemas/bundle.md gives for 5 recipes";
  auto prewarm = sections.at(SBK_SECTION_PREWARM);
  ASSERT_EQ(prewarm.size(), 8u + 8u * 3u);
  for (uint32_t count : {4u, 6u, 0xFFFFFFFFu}) {
    auto d = dynamic;
    put_u32(d, 0, count);
    Open b(with_section(base, SBK_SECTION_DYNAMIC_FALLBACKS, d));
    EXPECT_EQ(b.result(), SBK_ERROR_CORRUPT) << count;
    auto p = prewarm;
    put_u32(p, 0, count);
    Open q(with_section(base, SBK_SECTION_PREWARM, p));
    EXPECT_EQ(q.result(), SBK_ERROR_CORRUPT) << count;
  }
  for (size_t size : {size_t{0}, size_t{263}, dynamic.size() - 1, dynamic.size() + 8}) {
    auto d = dynamic;
    d.resize(size, 0);
    Open b(with_section(base, SBK_SECTION_DYNAMIC_FALLBACKS, d));
    EXPECT_EQ(b.result(), SBK_ERROR_CORRUPT) << size;
  }
  for (size_t size : {size_t{0}, size_t{7}, prewarm.size() + 8}) {
    auto p = prewarm;
    p.resize(size, 0);
    Open b(with_section(base, SBK_SECTION_PREWARM, p));
    EXPECT_EQ(b.result(), SBK_ERROR_CORRUPT) << size;
  }
}

TEST(RouterData, the_accessors_refuse_each_broken_rule_on_use) {
  const Content c;
  const auto base = c.bundle({0, 1, 2, 3, 4});
  const auto sections = sections_of(base);
  Open intact(base);
  ASSERT_EQ(intact.result(), SBK_OK);
  const uint32_t family_a = entry_of(intact.get(), c.family_a), pipeline = entry_of(intact.get(), c.exact1);
  const uint32_t failed_family = entry_of(intact.get(), c.family_failed), fallback = entry_of(intact.get(), c.fallback1);

  // Recipe 0's fields (offsets from schemas/bundle.md), each set to a value the rules refuse.
  struct Case {
    const char* what;
    size_t field;
    uint32_t value;
  };
  const std::vector<Case> recipe_cases = {
      {"family entry past the entries", 0, sbk_bundle_entry_count(intact.get())},
      {"family entry is a pipeline", 0, pipeline},
      {"family entry is a failed family", 0, failed_family},
      {"vertex module past the modules", 4, sbk_bundle_module_count(intact.get())},
      {"fragment module not the family's", 8, 0xFFFFFFFFu},
      {"layout past the layouts", 12, sbk_bundle_layout_count(intact.get())},
      {"9 colour attachments", 16, 9},
      {"0 samples", 20, 0},
      {"3 samples", 20, 3},
      {"128 samples", 20, 128},
      {"reserved not 0", 28, 1},
      {"colour format 7 past the count", 32 + 7 * 4, kB8G8R8A8Unorm},
  };
  for (const Case& k : recipe_cases) {
    auto d = sections.at(SBK_SECTION_DYNAMIC_FALLBACKS);
    put_u32(d, 264 + k.field, k.value);
    Open b(with_section(base, SBK_SECTION_DYNAMIC_FALLBACKS, d));
    ASSERT_EQ(b.result(), SBK_OK) << k.what;
    sbk_dynamic_fallback out;
    std::memset(&out, 0x5A, sizeof out);
    EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 0, &out), SBK_ERROR_CORRUPT) << k.what;
    const sbk_dynamic_fallback zero{};
    EXPECT_EQ(std::memcmp(&out, &zero, sizeof out), 0) << k.what << ": the output is zeroed";
    EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 1, &out), SBK_OK) << k.what << ": the others still read";
    std::vector<sbk_dynamic_fallback> all(sbk_bundle_dynamic_fallback_count(b.get()));
    EXPECT_EQ(sbk_bundle_read_dynamic_fallbacks(b.get(), all.data(), static_cast<uint32_t>(all.size())), SBK_ERROR_CORRUPT)
        << k.what << ": all at once refuses the broken one";
  }
  // The vertex module must be of stage vertex: point recipe 0 at the family's fragment module.
  {
    sbk_dynamic_fallback r0;
    ASSERT_EQ(sbk_bundle_dynamic_fallback(intact.get(), 0, &r0), SBK_OK);
    auto d = sections.at(SBK_SECTION_DYNAMIC_FALLBACKS);
    put_u32(d, 264 + 4, r0.fragment_module);
    Open b(with_section(base, SBK_SECTION_DYNAMIC_FALLBACKS, d));
    EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 0, &r0), SBK_ERROR_CORRUPT);
  }
  // A search that meets a broken recipe says so: every recipe broken (reserved), so the first probe meets one.
  {
    auto d = sections.at(SBK_SECTION_DYNAMIC_FALLBACKS);
    for (uint32_t i = 0; i < 5; ++i) put_u32(d, 264 + 64 * i + 28, 1);
    Open b(with_section(base, SBK_SECTION_DYNAMIC_FALLBACKS, d));
    const sbk_attachment_signature a = signature(1, {kB8G8R8A8Unorm, 0}, kD24UnormS8Uint, 1);
    sbk_dynamic_fallback out;
    uint32_t index = 0;
    EXPECT_EQ(sbk_bundle_find_dynamic_fallback(b.get(), family_a, &a, &out, &index), SBK_ERROR_CORRUPT);
    EXPECT_EQ(index, 0xFFFFFFFFu);
  }
  // Vertex defaults: not finite, or not zero outside the mask, or a mask bit past 15.
  for (const auto& [at, value] : std::vector<std::pair<size_t, uint32_t>>{
           {8 + 16 * 2 + 4, 0x7F800000u},   // +infinity at location 2
           {8 + 16 * 3, 0xFFC00000u},       // a NaN at location 3
           {8 + 16 * 8, 0x3F800000u},       // 1.0 at location 8, outside the mask 0xFF
           {8 + 16 * 15 + 12, 0x80000000u}, // -0.0 outside the mask: not zero bytes
           {4, 0x1FFu | (1u << 16)}}) {
    auto d = sections.at(SBK_SECTION_DYNAMIC_FALLBACKS);
    put_u32(d, at, value);
    Open b(with_section(base, SBK_SECTION_DYNAMIC_FALLBACKS, d));
    uint32_t mask = 1;
    float defaults[SBK_VERTEX_LOCATIONS][4];
    EXPECT_EQ(sbk_bundle_vertex_defaults(b.get(), &mask, defaults), SBK_ERROR_CORRUPT) << at;
    EXPECT_EQ(mask, 0u);
  }
  // Damage behind the section's checksum: every DYNAMIC_FALLBACKS call refuses (the recipes have no check of
  // their own); the count, which open checked, still reads.
  {
    auto bytes = base;
    Open located(bytes);
    uint64_t size = 0;
    const uint8_t* s = sbk_bundle_section(located.get(), SBK_SECTION_DYNAMIC_FALLBACKS, &size);
    const size_t at = static_cast<size_t>(s - located->data) + 264 + 32;  // recipe 0's first colour format
    bytes[at] ^= 1;
    Open b(bytes);
    ASSERT_EQ(b.result(), SBK_OK);
    EXPECT_EQ(sbk_bundle_dynamic_fallback_count(b.get()), 5u);
    sbk_dynamic_fallback out;
    EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 3, &out), SBK_ERROR_CORRUPT);
    uint32_t mask = 0;
    float defaults[SBK_VERTEX_LOCATIONS][4];
    EXPECT_EQ(sbk_bundle_vertex_defaults(b.get(), &mask, defaults), SBK_ERROR_CORRUPT);
    EXPECT_EQ(sbk_bundle_check_sections(b.get()), SBK_ERROR_CORRUPT);
  }
  // PREWARM: reserved not zero, an entry past the entries, a fallback pipeline, a family.
  for (const auto& [at, value] : std::vector<std::pair<size_t, uint32_t>>{
           {4, 1}, {8, sbk_bundle_entry_count(intact.get())}, {8, fallback}, {8, family_a}}) {
    auto p = sections.at(SBK_SECTION_PREWARM);
    put_u32(p, at, value);
    Open b(with_section(base, SBK_SECTION_PREWARM, p));
    ASSERT_EQ(b.result(), SBK_OK);
    uint32_t entry = 0, frame = 9;
    EXPECT_EQ(sbk_bundle_prewarm_at(b.get(), 0, &entry, &frame), SBK_ERROR_CORRUPT) << at << " " << value;
    EXPECT_EQ(entry, 0xFFFFFFFFu);
    EXPECT_EQ(frame, 0u);
  }
}

TEST(RouterData, warm_carries_the_router_data_through_byte_for_byte) {
  const Content c;
  const auto base = c.bundle({0, 1, 2, 3, 4});
  bundle::DriverCacheBlob blob;
  blob.identity.vendor_id = 0x10005;
  blob.identity.driver_version = 1;
  blob.data.assign(48, 0);
  const uint32_t header[4] = {32, 1, 0x10005, 0};  // VkPipelineCacheHeaderVersionOne, uuid all zero
  std::memcpy(blob.data.data(), header, sizeof header);
  auto warmed = bundle::with_driver_cache(base, blob);
  ASSERT_TRUE(warmed.ok()) << warmed.error().to_string();
  const auto before = sections_of(base), after = sections_of(*warmed);
  ASSERT_TRUE(after.count(SBK_SECTION_DRIVER_CACHE));
  for (uint32_t type : {SBK_SECTION_DYNAMIC_FALLBACKS, SBK_SECTION_PREWARM})
    EXPECT_EQ(after.at(type), before.at(type)) << type;
  Open b(*warmed);
  ASSERT_EQ(b.result(), SBK_OK);
  EXPECT_EQ(sbk_bundle_format_minor(b.get()), uint32_t{SBK_BUNDLE_FORMAT_MINOR});
  EXPECT_EQ(sbk_bundle_dynamic_fallback_count(b.get()), 5u);
  sbk_dynamic_fallback d;
  EXPECT_EQ(sbk_bundle_dynamic_fallback(b.get(), 4, &d), SBK_OK);
  uint32_t entry = 0, frame = 0;
  EXPECT_EQ(sbk_bundle_prewarm_at(b.get(), 0, &entry, &frame), SBK_OK);
  EXPECT_EQ(frame, 5u);
}

// ---- the nv2a guest model ----

TEST(RouterData, nv2a_vertex_defaults_are_the_ones_the_format_names) {
  const nv2a::Nv2aGuestModel model;
  const VertexAttributeDefaults d = model.vertex_attribute_defaults();
  EXPECT_EQ(d.location_mask, 0xFFu) << "locations = semantics 0..7";
  // schemas/bundle.md: position (0,0,0,1), diffuse (1,1,1,1), specular 0, fog (1,1,1,1), texcoords (0,0,0,1).
  const float want[8][4] = {{0, 0, 0, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}, {1, 1, 1, 1},
                            {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
  for (uint32_t l = 0; l < SBK_VERTEX_LOCATIONS; ++l)
    for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(d.values[l][k], l < 8 ? want[l][k] : 0.0f) << l << "." << k;
}

TEST(RouterData, nv2a_dynamic_vertex_shader_reads_every_location_and_missing_semantics_keep_their_literals) {
  const nv2a::Nv2aGuestModel model;
  compile::Reflection fragment;
  for (uint32_t l = 0; l < 7; ++l) fragment.inputs.push_back({l, l == 2 ? 1u : 4u, ""});
  auto job = model.dynamic_vertex_shader({}, fragment);
  ASSERT_TRUE(job.ok());
  const std::string* source = &job->source;
  for (uint32_t l = 0; l < 8; ++l)
    EXPECT_NE(source->find("layout(location = " + std::to_string(l) + ") in vec4"), std::string::npos) << l;
  // A host state with a position only: every other semantic passes its default, written as GLSL literals.
  sbk_host_state host = host_with(1, {kB8G8R8A8Unorm, 0}, 0, 1);
  host.binding_count = 1;
  host.bindings[0] = {0, 12, 0};
  host.attribute_count = 1;
  host.attributes[0] = {SBK_NV2A_LOCATION_POSITION, 0, 106, 0};  // r32g32b32_sfloat
  auto pass_through_job = model.vertex_shader({}, host, fragment);
  ASSERT_TRUE(pass_through_job.ok());
  const std::string* pass_through = &pass_through_job->source;
  for (const char* line : {"  out_v0 = vec4(1.0);\n", "  out_v1 = vec4(0.0);\n", "  out_fog = vec4(1.0).x;\n",
                           "  out_tex0 = vec4(0.0, 0.0, 0.0, 1.0);\n", "  out_tex3 = vec4(0.0, 0.0, 0.0, 1.0);\n"})
    EXPECT_NE(pass_through->find(line), std::string::npos) << line << "in:\n" << *pass_through;
}

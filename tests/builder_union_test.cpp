// SPDX-License-Identifier: MIT
// BundleBuilder::absorb (merging bundles of different capture sessions): a key both builders hold must carry the
// same content — shader module, pipeline modules and layout, status, rejection code, specialization data, a
// family's recipe modules — or the union is refused naming the key; what only one holds is taken; identical
// content unions into the bytes of adding it once. complete_dynamic_fallbacks gives every family with a recipe
// one per attachment signature held, unless refused; counts() counts as a build report does.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "lib/bundle/bundle_writer.hpp"
#include "runtime_loader/shaderbake.h"

using namespace shaderbake;

namespace {

constexpr uint32_t kVertex = 1, kFragment = 16;  // VkShaderStageFlagBits
constexpr uint32_t kB8G8R8A8Unorm = 44, kR8G8B8A8Unorm = 37, kD32Sfloat = 126;

// Words that stand for a module: the writer stores bytes, it never parses them as SPIR-V.
std::vector<uint32_t> module_words(uint32_t seed) {
  std::vector<uint32_t> words = {0x07230203u, 0x00010000u, 0u, 16u, 0u};
  for (uint32_t i = 0; i < 16; ++i) words.push_back(seed * 1000u + i);
  return words;
}

// Guest-agnostic shader keys: the writer only needs their kind byte.
std::vector<uint8_t> exact_key(uint8_t n) { return {SBK_GUEST_NV2A, SBK_KEY_KIND_EXACT, 1, 0, n, 0, 0, 0}; }
std::vector<uint8_t> family_key(uint8_t n) { return {SBK_GUEST_NV2A, SBK_KEY_KIND_FAMILY, 1, 0, n, 0, 0, 0}; }

sbk_host_state host_with(uint32_t color_format, uint32_t depth) {
  sbk_host_state h{};
  h.topology = 3;
  h.color_count = 1;
  h.color_formats[0] = color_format;
  h.blend[0].write_mask = 15;
  h.depth_format = depth;
  h.samples = 1;
  return h;
}

std::vector<uint8_t> pipeline_key(uint8_t route, std::span<const uint8_t> shader_key, const sbk_host_state& host) {
  std::vector<uint8_t> key(SBK_PIPELINE_KEY_MAX_SIZE(shader_key.size()));
  size_t size = 0;
  EXPECT_EQ(sbk_encode_pipeline_key(route, shader_key.data(), shader_key.size(), &host, key.data(), key.size(), &size), SBK_OK);
  key.resize(size);
  return key;
}

sbk_attachment_signature signature_of(const sbk_host_state& host) {
  sbk_attachment_signature s;
  sbk_attachment_signature_of(&host, &s);
  return s;
}

bundle::LayoutContract layout_of(uint32_t push_constants) {
  bundle::LayoutContract l;
  l.bindings.push_back({0, 1, 1, kFragment});
  l.push_constant_size = push_constants;
  l.push_constant_stages = push_constants ? kFragment : 0;
  return l;
}

bundle::BundleIdentity identity(const std::string& toolchain = "builder union test") {
  bundle::BundleIdentity id;
  id.guest = SBK_GUEST_NV2A;
  id.key_schema = 1;
  id.guest_name = "test";
  id.toolchain_fingerprint = toolchain;
  id.generators["exact"] = "test-exact/1";
  return id;
}

// One session's content: an exact shader and its pipeline on host state `host`, a family and its recipe for
// that host's signature, and the vertex defaults. `variant` changes the module of the exact shader.
struct Session {
  sbk_host_state host;
  uint32_t variant = 0;
  uint32_t recipe_vertex = 50;
  uint32_t push_constants = 0;
  bool with_data = false;

  void add_to(bundle::BundleBuilder& b) const {
    const auto vertex = b.add_module(kVertex, module_words(1));
    const auto fragment = b.add_module(kFragment, module_words(2 + variant));
    const auto family_fragment = b.add_module(kFragment, module_words(40));
    b.add_specialization(exact_key(1), SBK_STATUS_READY, fragment, 0);
    b.add_family(family_key(1), SBK_STATUS_READY, family_fragment);
    const auto key = pipeline_key(SBK_ROUTE_EXACT, exact_key(1), host);
    b.add_pipeline(key, vertex, fragment, layout_of(push_constants));
    if (with_data) {
      compile::SpecializationData data;
      data.entries.push_back({0, 0, 4});
      data.data = {1, 0, 0, 0};
      b.set_specialization(key, {}, data);
    }
    b.add_dynamic_fallback(family_key(1), b.add_module(kVertex, module_words(recipe_vertex)), family_fragment, layout_of(0),
                           signature_of(host));
    std::array<std::array<float, 4>, SBK_VERTEX_LOCATIONS> defaults{};
    b.set_vertex_defaults(0x1, defaults);
    b.add_prewarm(key, 0);
  }
};

Status absorb(const Session& a, const Session& b, bundle::BundleBuilder* out = nullptr) {
  bundle::BundleBuilder first(identity()), second(identity());
  a.add_to(first);
  b.add_to(second);
  auto s = first.absorb(std::move(second));
  if (out) *out = std::move(first);
  return s;
}

}  // namespace

TEST(BuilderUnion, identical_content_unions_into_the_bytes_of_adding_it_once) {
  const Session s{host_with(kB8G8R8A8Unorm, kD32Sfloat)};
  bundle::BundleBuilder merged(identity()), once(identity());
  ASSERT_TRUE(absorb(s, s, &merged).ok());
  s.add_to(once);
  auto a = merged.serialize({});
  auto b = once.serialize({});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(BuilderUnion, a_shared_key_with_another_module_is_refused_naming_the_key) {
  const Session a{host_with(kB8G8R8A8Unorm, kD32Sfloat)};
  Session b = a;
  b.variant = 1;
  auto s = absorb(a, b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().reason, "conflicting_key");
  EXPECT_NE(s.error().message.find(KeyHash::of(exact_key(1)).to_hex()), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("(specialization)"), std::string::npos) << s.error().message;
}

TEST(BuilderUnion, a_shared_pipeline_with_another_layout_is_refused) {
  const Session a{host_with(kB8G8R8A8Unorm, kD32Sfloat)};
  Session b = a;
  b.push_constants = 16;
  auto s = absorb(a, b);
  ASSERT_FALSE(s.ok());
  const auto key = pipeline_key(SBK_ROUTE_EXACT, exact_key(1), a.host);
  EXPECT_NE(s.error().message.find(KeyHash::of(key).to_hex()), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("layouts differ"), std::string::npos) << s.error().message;
}

TEST(BuilderUnion, specialization_data_on_one_side_only_is_refused) {
  const Session a{host_with(kB8G8R8A8Unorm, kD32Sfloat)};
  Session b = a;
  b.with_data = true;
  for (const auto& [x, y] : {std::pair(a, b), std::pair(b, a)}) {
    auto s = absorb(x, y);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("specialization data in one bundle only"), std::string::npos) << s.error().message;
  }
}

TEST(BuilderUnion, a_family_whose_recipes_have_other_modules_is_refused_even_for_another_signature) {
  const Session a{host_with(kB8G8R8A8Unorm, kD32Sfloat)};
  Session b{host_with(kR8G8B8A8Unorm, 0)};  // no shared pipeline, another signature
  b.recipe_vertex = 51;
  auto s = absorb(a, b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(KeyHash::of(family_key(1)).to_hex()), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("(family)"), std::string::npos) << s.error().message;
}

TEST(BuilderUnion, another_toolchain_is_refused_by_name) {
  bundle::BundleBuilder a(identity("toolchain A")), b(identity("toolchain B"));
  auto s = a.absorb(std::move(b));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().reason, "identity_mismatch");
  EXPECT_NE(s.error().message.find("toolchain: toolchain A vs toolchain B"), std::string::npos) << s.error().message;
}

TEST(BuilderUnion, recipes_are_completed_for_every_signature_held_unless_refused) {
  const Session a{host_with(kB8G8R8A8Unorm, kD32Sfloat)};
  Session b{host_with(kR8G8B8A8Unorm, 0)};
  bundle::BundleBuilder merged(identity());
  ASSERT_TRUE(absorb(a, b, &merged).ok());
  EXPECT_EQ(merged.counts().dynamic_fallback_pipelines, 2u);  // one per session: family 1 x its signature
  // A third signature, drawn by an exact pipeline of a third session with no recipe of its own.
  bundle::BundleBuilder third(identity());
  const sbk_host_state host3 = host_with(kB8G8R8A8Unorm, 0);
  third.add_specialization(exact_key(2), SBK_STATUS_READY, third.add_module(kFragment, module_words(7)), 0);
  third.add_pipeline(pipeline_key(SBK_ROUTE_EXACT, exact_key(2), host3), third.add_module(kVertex, module_words(1)),
                     third.add_module(kFragment, module_words(7)), layout_of(0));
  ASSERT_TRUE(merged.absorb(std::move(third)).ok());
  const auto refused = signature_of(host3);
  const size_t added = merged.complete_dynamic_fallbacks([&](std::span<const uint8_t>, const sbk_attachment_signature& s) {
    return std::memcmp(&s, &refused, sizeof s) == 0;
  });
  EXPECT_EQ(added, 0u);  // family 1 already has both sessions' signatures; the third is refused
  EXPECT_EQ(merged.complete_dynamic_fallbacks([](std::span<const uint8_t>, const sbk_attachment_signature&) { return false; }), 1u);
  const auto c = merged.counts();
  EXPECT_EQ(c.dynamic_fallback_pipelines, 3u);
  EXPECT_EQ(c.specializations, 2u);
  EXPECT_EQ(c.families, 1u);
  EXPECT_EQ(c.exact_pipelines, 3u);
  EXPECT_EQ(c.prewarm_pipelines, 2u);
  EXPECT_TRUE(merged.serialize({}).ok());
}

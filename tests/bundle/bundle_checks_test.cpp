// SPDX-License-Identifier: MIT
// The check families of lib/bundle/bundle_verify.hpp on crafted bundles (tests/bundle/bundle_patch.hpp): each
// broken rule is found and named, what warm runs before a driver refuses the crafted bundles of the hostile
// pass, and intact bundles pass everything.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "guests/nv2a/nv2a_guest.hpp"
#include "lib/bundle/bundle_verify.hpp"
#include "lib/core/hex.hpp"
#include "tests/bundle/bundle_patch.hpp"

namespace shaderbake::bundle {
namespace {

// The samples are nv2a bundles.
const nv2a::Nv2aGuestModel kGuest;

const std::string kCorpus = std::string(SHADERBAKE_SOURCE_DIR) + "/tests/fuzz/corpus/bundle/";

// An open bundle over its own copy of the bytes (8-aligned, as the loader wants).
class OpenBundle {
 public:
  explicit OpenBundle(std::vector<uint8_t> bytes) : words_((bytes.size() + 7) / 8) {
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<uint8_t*>(words_.data()));
    result_ = sbk_bundle_open_memory(&bundle_, words_.data(), bytes.size());
  }
  ~OpenBundle() {
    if (result_ == SBK_OK) sbk_bundle_close(&bundle_);
  }
  OpenBundle(const OpenBundle&) = delete;
  OpenBundle& operator=(const OpenBundle&) = delete;
  sbk_result result() const { return result_; }
  const sbk_bundle& handle() const { return bundle_; }

 private:
  std::vector<uint64_t> words_;
  sbk_bundle bundle_{};
  sbk_result result_ = SBK_ERROR_INVALID_STATE;
};

testing::PatchableBundle crafted(const std::string& seed, const std::string& craft) {
  auto b = testing::PatchableBundle::read(kCorpus + seed);
  EXPECT_TRUE(testing::apply_craft(b, craft)) << craft << " does not apply to " << seed;
  return b;
}

const VerifyCheck* family(const std::vector<VerifyCheck>& checks, const std::string& name) {
  for (const VerifyCheck& c : checks)
    if (c.name == name) return &c;
  return nullptr;
}

// Whether family `name` has a failure line containing `text`.
bool names(const std::vector<VerifyCheck>& checks, const std::string& name, const std::string& text) {
  const VerifyCheck* c = family(checks, name);
  return c && std::any_of(c->failures.begin(), c->failures.end(),
                          [&](const std::string& f) { return f.find(text) != std::string::npos; });
}

std::string all_failures(const std::vector<VerifyCheck>& checks) {
  std::string out;
  for (const VerifyCheck& c : checks)
    for (const std::string& f : c.failures) out += c.name + ": " + f + "\n";
  return out;
}

TEST(BundleChecks, every_intact_corpus_bundle_passes_verify_and_the_checks_before_a_driver) {
  for (const char* seed : {"tiny.sbk", "ref_head400.sbk", "ref_no_dictionary_failed_entry.sbk"}) {
    OpenBundle b(testing::PatchableBundle::read(kCorpus + seed).bytes);
    ASSERT_EQ(b.result(), SBK_OK) << seed;
    const auto verified = verify_bundle(b.handle(), kGuest);
    EXPECT_TRUE(all_passed(verified)) << seed << ":\n" << all_failures(verified);
    const auto before_driver = check_before_driver(b.handle());
    EXPECT_TRUE(all_passed(before_driver)) << seed << ":\n" << all_failures(before_driver);
    for (const char* name : {"sections", "index", "layouts", "modules", "recipes"})
      EXPECT_NE(family(before_driver, name), nullptr) << name;
    EXPECT_EQ(family(before_driver, "specializations"), nullptr) << "admission results never reach a driver";
  }
}

TEST(BundleChecks, before_a_driver_a_pipeline_whose_layout_index_names_another_valid_layout_is_refused) {
  OpenBundle b(crafted("tiny.sbk", "layout-index-of-another-layout").bytes);
  ASSERT_EQ(b.result(), SBK_OK);
  const auto checks = check_before_driver(b.handle());
  EXPECT_FALSE(all_passed(checks));
  EXPECT_TRUE(names(checks, "recipes", "is not the one its modules require")) << all_failures(checks);
  EXPECT_TRUE(all_passed({family(checks, "sections"), 1})) << "the craft is sealed: only the recipe rule breaks";
}

TEST(BundleChecks, before_a_driver_a_layout_with_a_descriptor_count_of_9133_is_refused) {
  OpenBundle b(crafted("tiny.sbk", "descriptor-count-9133").bytes);
  ASSERT_EQ(b.result(), SBK_OK);
  const auto checks = check_before_driver(b.handle());
  EXPECT_TRUE(names(checks, "layouts", "9133")) << all_failures(checks);
  EXPECT_TRUE(names(checks, "layouts", "every Vulkan device accepts in one stage")) << all_failures(checks);
  EXPECT_TRUE(names(checks, "recipes", "is not the one its modules require")) << all_failures(checks);
}

TEST(BundleChecks, before_a_driver_damaged_bytes_stop_at_the_sections_check_naming_the_section) {
  OpenBundle b(crafted("tiny.sbk", "report-unsealed").bytes);
  ASSERT_EQ(b.result(), SBK_OK);
  const auto checks = check_before_driver(b.handle());
  ASSERT_EQ(checks.size(), 1u) << "nothing deeper runs on bytes that are not the writer's";
  EXPECT_TRUE(names(checks, "sections", "REPORT section corrupt")) << all_failures(checks);
}

// Item 2 of the hostile pass: every rule of the INDEX directory (schemas/bundle.md) is checked and named.
struct DirectoryCase {
  const char* craft;
  const char* named;
};
class DirectoryRules : public ::testing::TestWithParam<DirectoryCase> {};

TEST_P(DirectoryRules, verify_names_the_broken_rule_and_warm_refuses_the_bundle) {
  for (const char* seed : {"tiny.sbk", "ref_head400.sbk"}) {
    OpenBundle b(crafted(seed, GetParam().craft).bytes);
    ASSERT_EQ(b.result(), SBK_OK) << seed;
    const auto verified = verify_bundle(b.handle(), kGuest);
    EXPECT_TRUE(names(verified, "index", GetParam().named)) << seed << ":\n" << all_failures(verified);
    EXPECT_TRUE(all_passed({family(verified, "sections"), 1})) << seed << ": the craft is sealed";
    EXPECT_FALSE(all_passed(check_before_driver(b.handle()))) << seed;
    EXPECT_FALSE(all_passed(check_before_lookups(b.handle()))) << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BundleChecks, DirectoryRules,
    ::testing::Values(DirectoryCase{"directory-reversed", "range is reversed"},
                      DirectoryCase{"directory-end", "not the entry count"},
                      DirectoryCase{"directory-past", "is past the entry count"},
                      DirectoryCase{"directory-shifted", "but the first entry whose bucket is >="},
                      DirectoryCase{"directory-padding", "the padding after the directory is not zero"},
                      DirectoryCase{"directory-bits", "(the smallest D with 8 x 2^D >= E)"},
                      DirectoryCase{"index-reserved", "the reserved field (bytes 8-15) is not zero"}),
    [](const ::testing::TestParamInfo<DirectoryCase>& info) {
      std::string name = info.param.craft;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// Router data: each broken rule of DYNAMIC_FALLBACKS and PREWARM, sealed behind fresh checksums, is
// named by its own family, and what a router would hand a driver is refused.
struct RouterCase {
  const char* craft;
  const char* family;
  const char* named;
};
class RouterDataRules : public ::testing::TestWithParam<RouterCase> {};

TEST_P(RouterDataRules, verify_names_the_broken_rule_and_the_checks_before_a_driver_refuse_it) {
  for (const char* seed : {"tiny.sbk", "ref_head400.sbk"}) {
    OpenBundle b(crafted(seed, GetParam().craft).bytes);
    ASSERT_EQ(b.result(), SBK_OK) << seed;
    const auto verified = verify_bundle(b.handle(), kGuest);
    EXPECT_TRUE(names(verified, GetParam().family, GetParam().named)) << seed << ":\n" << all_failures(verified);
    EXPECT_TRUE(all_passed({family(verified, "sections"), 1})) << seed << ": the craft is sealed";
    EXPECT_TRUE(all_passed({family(verified, "index"), 1})) << seed << ": the index is untouched";
    const auto before_driver = check_before_driver(b.handle());
    EXPECT_FALSE(all_passed(before_driver)) << seed;
    EXPECT_TRUE(names(before_driver, GetParam().family, GetParam().named)) << seed << ":\n" << all_failures(before_driver);
  }
}

INSTANTIATE_TEST_SUITE_P(
    BundleChecks, RouterDataRules,
    ::testing::Values(RouterCase{"recipe-family-is-a-pipeline", "dynamic_fallbacks", "is not a ready family"},
                      RouterCase{"recipe-fragment-module", "dynamic_fallbacks", "is not the family's"},
                      RouterCase{"recipe-samples-3", "dynamic_fallbacks", "samples 3 (1, 2, 4, ... 64)"},
                      RouterCase{"recipe-layout-past-count", "dynamic_fallbacks", "is past the layout count"},
                      RouterCase{"recipe-duplicate", "dynamic_fallbacks", "the same family and attachment signature as recipe 0"},
                      RouterCase{"vertex-default-nan", "dynamic_fallbacks", "vertex defaults: a default is not finite"},
                      RouterCase{"prewarm-fallback-pipeline", "prewarm", "prewarm position 0: not an exact pipeline entry"},
                      RouterCase{"prewarm-duplicate", "prewarm", "is already at position 0"}),
    [](const ::testing::TestParamInfo<RouterCase>& info) {
      std::string name = info.param.craft;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(BundleChecks, intact_router_data_is_checked_and_a_bundle_without_it_has_neither_family) {
  OpenBundle with(testing::PatchableBundle::read(kCorpus + "ref_head400.sbk").bytes);
  ASSERT_EQ(with.result(), SBK_OK);
  const auto checks = verify_bundle(with.handle(), kGuest);
  ASSERT_NE(family(checks, "dynamic_fallbacks"), nullptr);
  ASSERT_NE(family(checks, "prewarm"), nullptr);
  EXPECT_EQ(family(checks, "dynamic_fallbacks")->checked, sbk_bundle_dynamic_fallback_count(&with.handle()));
  EXPECT_GT(family(checks, "prewarm")->checked, 0u);
  EXPECT_TRUE(all_passed(checks)) << all_failures(checks);
  // The same bundle as a 2.0 writer leaves it: it still verifies, and has no router-data family to run.
  OpenBundle without(crafted("ref_head400.sbk", "strip-router-data").bytes);
  ASSERT_EQ(without.result(), SBK_OK);
  EXPECT_EQ(sbk_bundle_format_minor(&without.handle()), 0u);
  const auto stripped = verify_bundle(without.handle(), kGuest);
  EXPECT_TRUE(all_passed(stripped)) << all_failures(stripped);
  EXPECT_EQ(family(stripped, "dynamic_fallbacks"), nullptr);
  EXPECT_EQ(family(stripped, "prewarm"), nullptr);
}

TEST(BundleChecks, a_directory_one_bit_wider_than_needed_breaks_only_the_smallest_bits_rule) {
  OpenBundle b(crafted("ref_head400.sbk", "directory-bits").bytes);
  ASSERT_EQ(b.result(), SBK_OK);
  const auto index = check_index(b.handle());
  ASSERT_EQ(index.failures.size(), 1u) << all_failures({index});
  // The format's rule: D is the smallest with 8 x 2^D >= E; the crafted bundle stores one more.
  const uint32_t entries = sbk_bundle_entry_count(&b.handle());
  uint32_t smallest = 0;
  while ((8u << smallest) < entries) ++smallest;
  const std::string want = "directory bits D = " + std::to_string(smallest + 1) + ", but " + std::to_string(entries) +
                           " entries want D = " + std::to_string(smallest);
  EXPECT_NE(index.failures[0].find(want), std::string::npos) << index.failures[0];
}

TEST(BundleChecks, a_damaged_record_is_named_by_the_checks_reports_run_before_counting) {
  const auto bytes = crafted("tiny.sbk", "record-unsealed");
  OpenBundle b(bytes.bytes);
  ASSERT_EQ(b.result(), SBK_OK);
  const auto checks = check_before_lookups(b.handle());
  const uint32_t entry = testing::PatchableBundle(bytes).first_of_kind(SBK_KEY_KIND_PIPELINE);
  EXPECT_TRUE(names(checks, "index", "entry " + std::to_string(entry) + " (hash tag " + hex_word(bytes.u32(bytes.index_row(entry))) + ")"))
      << all_failures(checks);
}

TEST(BundleChecks, a_rule_broken_by_every_row_reports_eight_lines_and_a_count) {
  // Every directory word past E: the first eight are named, the rest counted.
  auto b = testing::PatchableBundle::read(kCorpus + "ref_head400.sbk");
  const uint64_t buckets = uint64_t{1} << b.directory_bits();
  for (uint64_t k = 0; k < buckets; ++k) b.set_u32(b.directory_word(k), b.entry_count() + 1);
  b.seal();
  OpenBundle open(b.bytes);
  ASSERT_EQ(open.result(), SBK_OK);
  const auto index = check_index(open.handle());
  const auto past = std::count_if(index.failures.begin(), index.failures.end(), [](const std::string& f) {
    return f.find("is past the entry count") != std::string::npos;
  });
  EXPECT_EQ(past, 8);
  EXPECT_TRUE(names({index}, "index", "and " + std::to_string(buckets - 8) + " more like that (directory past E)"))
      << all_failures({index});
}

}  // namespace
}  // namespace shaderbake::bundle

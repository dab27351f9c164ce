// SPDX-License-Identifier: MIT
// The build memo (lib/cache/build_memo.hpp): every input the identity claims to hold does change it, the
// payload survives a round trip and every damaged payload is refused, trace digests cover whole files and
// refuse what cannot be read twice.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "lib/cache/build_memo.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace shaderbake;
using cache::BuildInputs;
using cache::BuildOutputs;

namespace {

// A fresh directory per test, never the user's cache; removed afterwards.
class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("sbk_memo_test") {}
};

ContentDigest digest_of(uint8_t fill) {
  ContentDigest d;
  d.bytes.fill(fill);
  return d;
}

BuildInputs sample_inputs() {
  BuildInputs in;
  in.code_identity = " 0123456789abcdef\n/usr/lib/libzstd.so.1 fedcba9876543210\n";
  in.settings = "";
  in.traces.push_back({"a.jsonl", 1000, digest_of(1)});
  in.traces.push_back({"b.jsonl", 2000, digest_of(2)});
  return in;
}

BuildOutputs sample_outputs() {
  BuildOutputs out;
  out.exit_code = 1;
  out.bundle = {0x8F, 'S', 'B', 'K', 0, 1, 2, 3, 4, 5};
  out.report_json = "{\"failures\": []}\n";
  out.diagnostics = "warning: a.jsonl:3:1: bad record [bad_json]\n";
  out.summary_json = "{\"draws\":12}";
  return out;
}

}  // namespace

TEST(BuildMemo, EveryInputChangesTheIdentity) {
  const std::vector<uint8_t> base = cache::encode_build_inputs(sample_inputs());
  const std::vector<std::function<void(BuildInputs&)>> changes = {
      [](BuildInputs& in) { in.code_identity[3] = 'f'; },
      [](BuildInputs& in) { in.settings = "strict"; },
      [](BuildInputs& in) { in.traces[0].path = "A.jsonl"; },
      [](BuildInputs& in) { in.traces[0].bytes = 1001; },
      [](BuildInputs& in) { in.traces[1].digest.bytes[0] ^= 1; },
      [](BuildInputs& in) { in.traces[1].digest.bytes[31] ^= 0x80; },
      [](BuildInputs& in) { std::swap(in.traces[0], in.traces[1]); },  // order decides file indices in the bundle
      [](BuildInputs& in) { in.traces.pop_back(); },
      [](BuildInputs& in) { in.traces.push_back(in.traces.back()); },
      // Moving bytes between adjacent fields must not give the same encoding (length prefixes).
      [](BuildInputs& in) {
        in.code_identity += "s";
        in.settings = "trict";
      },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    BuildInputs in = sample_inputs();
    changes[i](in);
    EXPECT_NE(cache::encode_build_inputs(in), base) << "change " << i;
  }
  EXPECT_EQ(cache::encode_build_inputs(sample_inputs()), base);
}

TEST(BuildMemo, IdentityIncludesTheToolchain) {
  TempDir dir;
  cache::ArtifactCache one(dir.path(), "toolchain 1");
  cache::ArtifactCache two(dir.path(), "toolchain 2");
  EXPECT_NE(cache::memo_identity(one, sample_inputs()).hash(), cache::memo_identity(two, sample_inputs()).hash());
  EXPECT_EQ(cache::memo_identity(one, sample_inputs()).bytes(), cache::memo_identity(one, sample_inputs()).bytes());
}

TEST(BuildMemo, OutputsRoundTrip) {
  const BuildOutputs in = sample_outputs();
  Result<BuildOutputs> out = cache::decode_build_outputs(cache::encode_build_outputs(in));
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(out->exit_code, in.exit_code);
  EXPECT_EQ(out->bundle, in.bundle);
  EXPECT_EQ(out->report_json, in.report_json);
  EXPECT_EQ(out->diagnostics, in.diagnostics);
  EXPECT_EQ(out->summary_json, in.summary_json);
}

TEST(BuildMemo, DamagedPayloadsAreRefused) {
  const std::vector<uint8_t> good = cache::encode_build_outputs(sample_outputs());
  for (size_t n = 0; n < good.size(); ++n) {
    Result<BuildOutputs> out = cache::decode_build_outputs(std::span(good).first(n));
    ASSERT_FALSE(out) << "truncated to " << n;
    EXPECT_EQ(out.error().reason, "memo_malformed");
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_FALSE(cache::decode_build_outputs(longer));
  // A length field claiming more than there is (the bundle's: bytes 8..15), including one that would wrap.
  for (uint64_t claim : {uint64_t{11}, uint64_t{1} << 40, ~uint64_t{0}, ~uint64_t{0} - 7}) {
    std::vector<uint8_t> bad = good;
    for (int i = 0; i < 8; ++i) bad[8 + i] = static_cast<uint8_t>(claim >> (8 * i));
    EXPECT_FALSE(cache::decode_build_outputs(bad)) << claim;
  }
  std::vector<uint8_t> other_version = good;
  other_version[0] ^= 2;
  EXPECT_FALSE(cache::decode_build_outputs(other_version));
}

TEST(BuildMemo, TraceDigestIsTheSha256OfTheWholeFile) {
  TempDir dir;
  // FIPS 180-2's two-block example message, whose SHA-256 the standard gives.
  const fs::path known = dir.path() / "known.txt";
  std::ofstream(known, std::ios::binary) << "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  Result<cache::TraceFileDigest> k = cache::digest_trace_file(known.string());
  ASSERT_TRUE(k) << k.error().to_string();
  EXPECT_EQ(k->digest.to_hex(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(k->bytes, 56u);

  // A file of several read chunks: a change in its last byte changes the digest.
  const fs::path path = dir.path() / "t.jsonl";
  std::string content;
  for (size_t i = 0; content.size() < (size_t{3} << 20) + 17; ++i) content += "{\"line\": " + std::to_string(i) + "}\n";
  std::ofstream(path, std::ios::binary) << content;
  Result<cache::TraceFileDigest> d = cache::digest_trace_file(path.string());
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->bytes, content.size());
  EXPECT_EQ(d->path, path.string());
  ContentHasher whole;
  whole.update(content.data(), content.size());
  EXPECT_EQ(d->digest, whole.finish());
  content.back() = ' ';
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  Result<cache::TraceFileDigest> changed = cache::digest_trace_file(path.string());
  ASSERT_TRUE(changed);
  EXPECT_NE(changed->digest, d->digest);
}

TEST(BuildMemo, WhatCannotBeReadTwiceHasNoDigest) {
  TempDir dir;
  const fs::path fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const fs::path& p : {fifo, dir.path(), dir.path() / "missing.jsonl"}) {
    Result<cache::TraceFileDigest> d = cache::digest_trace_file(p.string());
    ASSERT_FALSE(d) << p;
    EXPECT_EQ(d.error().reason, "trace_not_digestible");
    EXPECT_EQ(d.error().where.file, p.string());
  }
}

TEST(BuildMemo, NamesEveryLoadedObjectByBuildId) {
  // This test binary is linked with --build-id=sha1 (tests/CMakeLists.txt), as shaderbake is: its line comes
  // first, with an empty path and 20 bytes of ID. Debian's shared libraries carry build IDs too.
  const std::optional<std::string> identity = cache::loaded_code_identity();
  ASSERT_TRUE(identity.has_value());
  std::istringstream lines(*identity);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  ASSERT_EQ(line.size(), 41u) << line;
  EXPECT_EQ(line[0], ' ');
  EXPECT_EQ(line.find_first_not_of("0123456789abcdef", 1), std::string::npos) << line;
  bool saw_libstdcxx = false;
  while (std::getline(lines, line)) {
    const size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_GT(space, 0u) << line;  // every object but the executable names its file
    EXPECT_GE(line.size() - space - 1, 16u) << line;
    saw_libstdcxx = saw_libstdcxx || line.find("libstdc++") != std::string::npos;
  }
  EXPECT_TRUE(saw_libstdcxx) << *identity;
}

// SPDX-License-Identifier: MIT
// The artifact cache: a hit is always the right module, anything damaged is discarded and
// rebuilt, concurrent writers leave only whole entries, prune removes the least recently used first.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "lib/cache/artifact_cache.hpp"
#include "lib/compile/compile_chain.hpp"
#include "lib/compile/reflection.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace shaderbake;
using cache::ArtifactCache;
using cache::ArtifactIdentity;
using compile::ShaderStage;

namespace {

constexpr char kEmitter[] = "test-emitter/1";
constexpr char kToolchain[] = "test toolchain 1.0";

// A fresh directory per test, never the user's cache; removed afterwards.
class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("sbk_cache_test") {}
};

std::string fragment_source(int variant) {
  return "#version 450\n"
         "layout(set = 0, binding = 0) uniform sampler2D tex;\n"
         "layout(location = 0) in vec4 colour;\n"
         "layout(location = 1) in vec2 uv;\n"
         "layout(location = 0) out vec4 result;\n"
         "void main() { result = colour * texture(tex, uv) * " + std::to_string(variant) + ".0; }\n";
}

const std::string kVertexSource =
    "#version 450\nlayout(location = 0) in vec4 position;\nvoid main() { gl_Position = position; }\n";

// A loop count and a branch from specialization constants N (id 3, int) and USE (id 5, bool).
const std::string kSpecializedSource =
    "#version 450\n"
    "layout(constant_id = 3) const int N = 1;\n"
    "layout(constant_id = 5) const bool USE = false;\n"
    "layout(location = 0) in vec4 colour;\n"
    "layout(location = 0) out vec4 result;\n"
    "void main() {\n"
    "  vec4 sum = vec4(0.0);\n"
    "  for (int i = 0; i < N; ++i) sum += colour;\n"
    "  result = USE ? sum.wzyx : sum;\n"
    "}\n";

compile::CompiledModule compiled(ShaderStage stage, const std::string& source) {
  auto module = compile::compile_glsl(stage, source);
  EXPECT_TRUE(module) << module.error().to_string();
  return std::move(module).value();
}

std::vector<uint8_t> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Every regular file under `dir`.
std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(ArtifactCache, store_then_load_gives_the_identical_module) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const std::string source = fragment_source(2);
  const compile::CompiledModule module = compiled(ShaderStage::fragment, source);
  ASSERT_FALSE(module.reflection.bindings.empty());
  const ArtifactIdentity id = cache.identity(kEmitter, ShaderStage::fragment, source);

  EXPECT_FALSE(cache.load(id));  // a miss is a normal result
  ASSERT_TRUE(cache.store(id, module));
  const auto loaded = cache.load(id);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->stage, ShaderStage::fragment);
  EXPECT_EQ(loaded->spirv, module.spirv);
  EXPECT_EQ(loaded->reflection, module.reflection);
  EXPECT_EQ(cache.entry_path(id).parent_path().filename().string(), id.hash().to_hex().substr(0, 2));

  const cache::CacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.stores, 1u);
  EXPECT_EQ(s.corrupt_discarded, 0u);
}

TEST(ArtifactCache, identities_differing_in_one_field_never_hit_each_others_entry) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const std::string source = fragment_source(3);
  std::string one_char_changed = source;
  one_char_changed[one_char_changed.size() - 8] = '4';
  const ArtifactIdentity base = ArtifactIdentity::make(kEmitter, ShaderStage::fragment, source, kToolchain);
  const std::vector<ArtifactIdentity> others = {
      ArtifactIdentity::make(kEmitter, ShaderStage::fragment, one_char_changed, kToolchain),
      ArtifactIdentity::make(kEmitter, ShaderStage::vertex, source, kToolchain),
      ArtifactIdentity::make("test-emitter/2", ShaderStage::fragment, source, kToolchain),
      ArtifactIdentity::make(kEmitter, ShaderStage::fragment, source, "test toolchain 1.1"),
      // A byte moved across a field boundary: the length prefixes keep these apart.
      ArtifactIdentity::make(kEmitter, ShaderStage::fragment, source + "t", "est toolchain 1.0"),
  };
  ASSERT_TRUE(cache.store(base, compiled(ShaderStage::fragment, source)));
  for (size_t i = 0; i < others.size(); ++i) {
    EXPECT_NE(others[i].bytes(), base.bytes()) << i;
    EXPECT_NE(cache.entry_path(others[i]), cache.entry_path(base)) << i;
    EXPECT_FALSE(cache.load(others[i])) << i;
    // Even filed under the base's name, another identity is refused (full byte compare, not the hash).
    EXPECT_FALSE(cache::decode_entry(read_file(cache.entry_path(base)), others[i])) << i;
  }
  EXPECT_TRUE(cache.load(base));
  EXPECT_EQ(cache.stats().corrupt_discarded, 0u);
}

TEST(ArtifactCache, an_identity_without_specialization_values_is_the_five_documented_fields) {
  // Entries written before values could be given must keep their identity: pinned byte for byte.
  const std::string source = fragment_source(1);
  std::vector<uint8_t> expected;
  auto field = [&](std::string_view bytes) {
    for (int i = 0; i < 8; ++i) expected.push_back(static_cast<uint8_t>(uint64_t{bytes.size()} >> (8 * i)));
    expected.insert(expected.end(), bytes.begin(), bytes.end());
  };
  std::string version;
  for (int i = 0; i < 4; ++i) version.push_back(static_cast<char>(cache::kCacheFormatVersion >> (8 * i)));
  field(version);
  field(kEmitter);
  field(std::string(1, '\x04'));  // ExecutionModel Fragment
  field(source);
  field(kToolchain);
  EXPECT_EQ(ArtifactIdentity::make(kEmitter, ShaderStage::fragment, source, kToolchain).bytes(), expected);
  EXPECT_EQ(ArtifactIdentity::make(kEmitter, ShaderStage::fragment, source, kToolchain, {}).bytes(), expected);
}

TEST(ArtifactCache, specialization_values_are_part_of_the_identity_and_round_trip) {
  TempDir dir;
  const std::vector<compile::SpecializationValue> four_and_true = {{3, {4}}, {5, {1}}};
  const std::vector<compile::SpecializationValue> true_and_four = {{5, {1}}, {3, {4}}};
  const std::vector<compile::SpecializationValue> two_and_true = {{3, {2}}, {5, {1}}};
  const ArtifactIdentity none = ArtifactIdentity::make(kEmitter, ShaderStage::fragment, kSpecializedSource, kToolchain);
  const ArtifactIdentity a =
      ArtifactIdentity::make(kEmitter, ShaderStage::fragment, kSpecializedSource, kToolchain, four_and_true);
  const ArtifactIdentity b =
      ArtifactIdentity::make(kEmitter, ShaderStage::fragment, kSpecializedSource, kToolchain, two_and_true);
  EXPECT_EQ(
      ArtifactIdentity::make(kEmitter, ShaderStage::fragment, kSpecializedSource, kToolchain, true_and_four).bytes(),
      a.bytes());  // a set: the order of the values does not matter
  EXPECT_NE(a.bytes(), none.bytes());
  EXPECT_NE(a.bytes(), b.bytes());
  ASSERT_GT(a.bytes().size(), none.bytes().size());
  EXPECT_TRUE(std::equal(none.bytes().begin(), none.bytes().end(), a.bytes().begin()));  // fields appended

  std::vector<compile::CompileJob> jobs = {{ShaderStage::fragment, kSpecializedSource, kEmitter, four_and_true},
                                           {ShaderStage::fragment, kSpecializedSource, kEmitter, two_and_true},
                                           {ShaderStage::fragment, kSpecializedSource, kEmitter, {}},
                                           {ShaderStage::fragment, kSpecializedSource, kEmitter, true_and_four}};
  const auto uncached = compile::compile_all(jobs, 2);
  ArtifactCache cold(dir.path(), kToolchain);
  const auto first = compile::compile_all(jobs, 2, &cold);
  EXPECT_EQ(cold.stats().misses, 3u);
  EXPECT_EQ(cold.stats().stores, 3u);
  ArtifactCache warm(dir.path(), kToolchain);
  const auto second = compile::compile_all(jobs, 2, &warm);
  EXPECT_EQ(warm.stats().hits, 3u);
  EXPECT_EQ(warm.stats().misses, 0u);
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(uncached[i] && first[i] && second[i]) << i;
    EXPECT_EQ(first[i]->spirv, uncached[i]->spirv) << i;
    EXPECT_EQ(second[i]->spirv, uncached[i]->spirv) << i;
    EXPECT_EQ(second[i]->reflection, uncached[i]->reflection) << i;
  }
  EXPECT_NE(second[0]->spirv, second[1]->spirv);
  EXPECT_NE(second[0]->spirv, second[2]->spirv);
  EXPECT_EQ(second[3]->spirv, second[0]->spirv);

  const auto loaded = warm.load(warm.identity(kEmitter, ShaderStage::fragment, kSpecializedSource, four_and_true));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->spirv, uncached[0]->spirv);
  // An entry of one set of values is never taken for another's.
  const std::vector<uint8_t> entry_a = read_file(warm.entry_path(a));
  ASSERT_TRUE(cache::decode_entry(entry_a, a));
  EXPECT_EQ(cache::decode_entry(entry_a, b).error().reason, "entry_identity_mismatch");
  EXPECT_EQ(cache::decode_entry(entry_a, none).error().reason, "entry_identity_mismatch");
}

TEST(ArtifactCache, decode_entry_names_what_is_wrong) {
  const ArtifactIdentity id = ArtifactIdentity::make(kEmitter, ShaderStage::vertex, kVertexSource, kToolchain);
  const compile::CompiledModule module = compiled(ShaderStage::vertex, kVertexSource);
  const std::vector<uint8_t> good = cache::encode_entry(id, module);
  ASSERT_TRUE(cache::decode_entry(good, id));
  EXPECT_EQ(cache::decode_entry(good, id)->spirv, module.spirv);
  // The stored reflection is what SPIRV-Cross says of these words, not just what was written.
  const auto fresh = compile::reflect_spirv(module.spirv);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(cache::decode_entry(good, id)->reflection, *fresh);
  EXPECT_FALSE(fresh->inputs.empty());

  auto reason = [&](std::vector<uint8_t> bytes) {
    auto r = cache::decode_entry(bytes, id);
    return r ? std::string("ok") : r.error().reason;
  };
  EXPECT_EQ(reason({good.begin(), good.end() - 1}), "entry_truncated");
  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_EQ(reason(trailing), "entry_trailing_data");
  std::vector<uint8_t> magic = good;
  magic[0] ^= 0xFF;
  EXPECT_EQ(reason(magic), "entry_bad_magic");
  std::vector<uint8_t> version = good;
  version[4] ^= 0x40;
  EXPECT_EQ(reason(version), "entry_bad_version");
  std::vector<uint8_t> body = good;
  body[good.size() / 2] ^= 0x01;
  EXPECT_EQ(reason(body), "entry_checksum_mismatch");
  std::vector<uint8_t> huge_size = good;
  for (int i = 8; i < 16; ++i) huge_size[i] = 0xFF;  // identity size 2^64 - 1: refused without overflow
  EXPECT_EQ(reason(huge_size), "entry_truncated");
  const ArtifactIdentity other = ArtifactIdentity::make(kEmitter, ShaderStage::fragment, kVertexSource, kToolchain);
  EXPECT_EQ(reason(cache::encode_entry(other, module)), "entry_identity_mismatch");
  compile::CompiledModule not_spirv = module;
  not_spirv.spirv[0] = 0;
  EXPECT_EQ(reason(cache::encode_entry(id, not_spirv)), "entry_not_spirv");
  // A well-sealed entry whose reflection breaks the format's rules (a binding kind past the last one).
  compile::CompiledModule bad_kind = module;
  bad_kind.reflection.bindings.push_back({});
  bad_kind.reflection.bindings.back().kind = static_cast<compile::Reflection::Binding::Kind>(7);
  EXPECT_EQ(reason(cache::encode_entry(id, bad_kind)), "entry_bad_reflection");
}

TEST(ArtifactCache, every_flipped_byte_is_detected_discarded_and_counted_then_rebuilt) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const compile::CompileJob job{ShaderStage::vertex, kVertexSource, kEmitter};
  const compile::CompiledModule module = compiled(job.stage, job.source);
  const ArtifactIdentity id = cache.identity(job.emitter_id, job.stage, job.source);
  const fs::path path = cache.entry_path(id);
  ASSERT_TRUE(cache.store(id, module));
  const std::vector<uint8_t> good = read_file(path);
  for (size_t at = 0; at < good.size(); ++at) {
    std::vector<uint8_t> bad = good;
    bad[at] ^= 0xFF;
    write_file(path, bad);
    ASSERT_FALSE(cache.load(id)) << "byte " << at;
    ASSERT_FALSE(fs::exists(path)) << "byte " << at;
  }
  EXPECT_EQ(cache.stats().corrupt_discarded, good.size());
  EXPECT_EQ(cache.stats().hits, 0u);

  // The next compile through the cache finds nothing, compiles and stores a good entry again.
  const auto results = compile::compile_all(std::span(&job, 1), 1, &cache);
  ASSERT_TRUE(results[0]);
  EXPECT_EQ(results[0]->spirv, module.spirv);
  EXPECT_EQ(read_file(path), good);
  EXPECT_TRUE(cache.load(id));
}

TEST(ArtifactCache, every_truncation_of_an_entry_is_detected_and_discarded) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const compile::CompiledModule module = compiled(ShaderStage::vertex, kVertexSource);
  const ArtifactIdentity id = cache.identity(kEmitter, ShaderStage::vertex, kVertexSource);
  const fs::path path = cache.entry_path(id);
  ASSERT_TRUE(cache.store(id, module));
  const std::vector<uint8_t> good = read_file(path);
  for (size_t length = 0; length < good.size(); ++length) {
    write_file(path, {good.begin(), good.begin() + static_cast<ptrdiff_t>(length)});
    ASSERT_FALSE(cache.load(id)) << "length " << length;
    ASSERT_FALSE(fs::exists(path)) << "length " << length;
  }
  EXPECT_EQ(cache.stats().corrupt_discarded, good.size());
  ASSERT_TRUE(cache.store(id, module));
  EXPECT_TRUE(cache.load(id));
}

TEST(ArtifactCache, an_entry_of_another_identity_under_this_name_is_discarded) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const std::string a = fragment_source(5), b = fragment_source(6);
  const ArtifactIdentity id_a = cache.identity(kEmitter, ShaderStage::fragment, a);
  const ArtifactIdentity id_b = cache.identity(kEmitter, ShaderStage::fragment, b);
  ASSERT_TRUE(cache.store(id_b, compiled(ShaderStage::fragment, b)));
  fs::create_directories(cache.entry_path(id_a).parent_path());
  fs::rename(cache.entry_path(id_b), cache.entry_path(id_a));  // a whole, valid entry with the wrong identity

  EXPECT_FALSE(cache.load(id_a));
  EXPECT_FALSE(fs::exists(cache.entry_path(id_a)));
  EXPECT_EQ(cache.stats().corrupt_discarded, 1u);
  const compile::CompileJob job{ShaderStage::fragment, a, kEmitter};
  const auto results = compile::compile_all(std::span(&job, 1), 1, &cache);
  ASSERT_TRUE(results[0]);
  const auto loaded = cache.load(id_a);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->spirv, results[0]->spirv);
}

TEST(ArtifactCache, a_hit_marks_the_entry_recently_used) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const ArtifactIdentity id = cache.identity(kEmitter, ShaderStage::vertex, kVertexSource);
  ASSERT_TRUE(cache.store(id, compiled(ShaderStage::vertex, kVertexSource)));
  const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(cache.entry_path(id), long_ago);
  ASSERT_TRUE(cache.load(id));
  EXPECT_GT(fs::last_write_time(cache.entry_path(id)), long_ago + std::chrono::hours(47));
}

TEST(ArtifactCache, a_store_that_fails_is_reported_and_the_compile_still_succeeds) {
  TempDir dir;
  const fs::path not_a_directory = dir.path() / "file";
  write_file(not_a_directory, {1, 2, 3});
  ArtifactCache cache(not_a_directory, kToolchain);
  const compile::CompileJob job{ShaderStage::vertex, kVertexSource, kEmitter};
  const auto id = cache.identity(job.emitter_id, job.stage, job.source);
  const Status s = cache.store(id, compiled(job.stage, job.source));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, ErrorKind::io);

  const auto results = compile::compile_all(std::span(&job, 1), 1, &cache);
  ASSERT_TRUE(results[0]);
  EXPECT_EQ(cache.stats().store_failures, 1u);
  EXPECT_EQ(cache.stats().stores, 0u);
  ASSERT_TRUE(cache.first_store_error());
  EXPECT_EQ(cache.first_store_error()->kind, ErrorKind::io);
}

TEST(ArtifactCache, concurrent_stores_from_eight_threads_leave_only_valid_entries) {
  TempDir dir;
  const compile::CompiledModule module = compiled(ShaderStage::vertex, kVertexSource);
  constexpr int kThreads = 8, kOwn = 4, kRounds = 25;
  auto shared_id = [&](const ArtifactCache& c) { return c.identity(kEmitter, ShaderStage::vertex, "shared"); };
  auto own_id = [&](const ArtifactCache& c, int t, int k) {
    return c.identity(kEmitter, ShaderStage::vertex, "thread " + std::to_string(t) + " entry " + std::to_string(k));
  };
  ArtifactCache one_object(dir.path(), kToolchain);  // threads 0-3 share one object, 4-7 have their own
  std::atomic<int> bad_loads{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ArtifactCache own_object(dir.path(), kToolchain);
      ArtifactCache& cache = t < 4 ? one_object : own_object;
      for (int round = 0; round < kRounds; ++round) {
        const ArtifactIdentity ids[2] = {shared_id(cache), own_id(cache, t, round % kOwn)};
        for (const ArtifactIdentity& id : ids) {
          if (!cache.store(id, module)) ++bad_loads;
          const auto loaded = cache.load(id);
          if (!loaded || loaded->spirv != module.spirv) ++bad_loads;
        }
      }
      if (t >= 4 && own_object.stats().corrupt_discarded) ++bad_loads;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad_loads.load(), 0);
  EXPECT_EQ(one_object.stats().corrupt_discarded, 0u);

  const std::vector<fs::path> files = files_under(dir.path());
  EXPECT_EQ(files.size(), static_cast<size_t>(1 + kThreads * kOwn));
  ArtifactCache check(dir.path(), kToolchain);
  for (const fs::path& f : files) EXPECT_EQ(f.extension(), ".sbkc") << f;  // no temporary file left
  EXPECT_TRUE(check.load(shared_id(check)));
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kOwn; ++k) EXPECT_TRUE(check.load(own_id(check, t, k))) << t << " " << k;
  EXPECT_EQ(check.stats().corrupt_discarded, 0u);
}

TEST(ArtifactCache, prune_removes_least_recently_used_first_and_leaves_other_files_alone) {
  TempDir dir;
  ArtifactCache cache(dir.path(), kToolchain);
  const compile::CompiledModule module = compiled(ShaderStage::vertex, kVertexSource);
  const auto base = fs::file_time_type::clock::now() - std::chrono::hours(10);
  // Five entries; the second and third share a modification time (their order is by name).
  const int minutes[5] = {0, 10, 10, 20, 30};
  struct Made {
    fs::path path;
    uint64_t size;
  };
  std::vector<Made> made;
  for (int i = 0; i < 5; ++i) {
    const auto id = cache.identity(kEmitter, ShaderStage::vertex, "entry " + std::to_string(i));
    ASSERT_TRUE(cache.store(id, module));
    fs::last_write_time(cache.entry_path(id), base + std::chrono::minutes(minutes[i]));
    made.push_back({cache.entry_path(id), fs::file_size(cache.entry_path(id))});
  }
  if (made[2].path.filename() < made[1].path.filename()) std::swap(made[1], made[2]);

  const fs::path current = dir.path() / ("v" + std::to_string(cache::kCacheFormatVersion));  // the current version's folder
  const fs::path prefix_dir = made[0].path.parent_path();
  const std::string hex = made[0].path.stem().string();
  const std::string other_prefix = hex.substr(0, 2) == "00" ? "01" : "00";
  const std::vector<fs::path> unrelated = {
      dir.path() / "README.txt",
      current / "notes.sbkc",
      prefix_dir / "not-an-entry.txt",
      current / "zz" / (hex + ".sbkc"),                      // not a hex prefix folder
      current / other_prefix / (hex + ".sbkc"),              // an entry name in the wrong folder
      dir.path() / ("v" + std::to_string(cache::kCacheFormatVersion + 1)) / hex.substr(0, 2) / (hex + ".sbkc"),  // another version
      prefix_dir / (hex + ".sbkc.tmp.1.2.3"),           // a writer at work: too recent to remove
  };
  for (const fs::path& p : unrelated) {
    fs::create_directories(p.parent_path());
    write_file(p, std::vector<uint8_t>(100, 7));
    fs::last_write_time(p, base);  // older than every entry: age alone must not condemn them
  }
  fs::last_write_time(unrelated.back(), fs::file_time_type::clock::now());
  const fs::path stale_temp = prefix_dir / (hex + ".sbkc.tmp.9.9.9");
  write_file(stale_temp, {1});
  fs::last_write_time(stale_temp, fs::file_time_type::clock::now() - std::chrono::hours(2));

  uint64_t total = 0;
  for (const Made& m : made) total += m.size;
  const auto pruned = cache::prune(dir.path(), total - made[0].size - made[1].size);
  ASSERT_TRUE(pruned) << pruned.error().to_string();
  EXPECT_EQ(pruned->entries_before, 5u);
  EXPECT_EQ(pruned->bytes_before, total);
  EXPECT_EQ(pruned->entries_removed, 2u);
  EXPECT_EQ(pruned->bytes_removed, made[0].size + made[1].size);
  EXPECT_EQ(pruned->temp_files_removed, 1u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(fs::exists(made[i].path), i >= 2) << i;
  EXPECT_FALSE(fs::exists(stale_temp));
  for (const fs::path& p : unrelated) EXPECT_TRUE(fs::exists(p)) << p;

  const auto emptied = cache::prune(dir.path(), 0);
  ASSERT_TRUE(emptied);
  EXPECT_EQ(emptied->entries_before, 3u);
  EXPECT_EQ(emptied->entries_removed, 3u);
  for (const fs::path& p : unrelated) EXPECT_TRUE(fs::exists(p)) << p;

  const auto missing = cache::prune(dir.path() / "no-such-cache", 0);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->entries_before, 0u);
}

TEST(ArtifactCache, compile_all_cold_then_warm_gives_identical_results) {
  TempDir dir;
  std::vector<compile::CompileJob> jobs;
  for (int i = 1; i <= 3; ++i) jobs.push_back({ShaderStage::fragment, fragment_source(i), kEmitter});
  jobs.push_back({ShaderStage::vertex, kVertexSource, kEmitter});
  jobs.push_back(jobs[1]);  // a duplicate: looked up and stored once
  const auto uncached = compile::compile_all(jobs, 2);

  ArtifactCache cold(dir.path());
  const auto first = compile::compile_all(jobs, 2, &cold);
  EXPECT_EQ(cold.stats().misses, 4u);
  EXPECT_EQ(cold.stats().stores, 4u);
  EXPECT_EQ(cold.stats().hits, 0u);

  ArtifactCache warm(dir.path());
  const auto second = compile::compile_all(jobs, 2, &warm);
  EXPECT_EQ(warm.stats().hits, 4u);
  EXPECT_EQ(warm.stats().misses, 0u);
  EXPECT_EQ(warm.stats().stores, 0u);
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(uncached[i] && first[i] && second[i]) << i;
    EXPECT_EQ(first[i]->spirv, uncached[i]->spirv) << i;
    EXPECT_EQ(second[i]->spirv, uncached[i]->spirv) << i;
    EXPECT_EQ(second[i]->stage, uncached[i]->stage) << i;
    EXPECT_EQ(second[i]->reflection, uncached[i]->reflection) << i;
  }
}

TEST(ArtifactCache, default_directory_follows_the_environment) {
  auto saved = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto sbk = saved("SHADERBAKE_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  ::setenv("SHADERBAKE_CACHE_DIR", "/a/b", 1);
  ::setenv("XDG_CACHE_HOME", "/x", 1);
  ::setenv("HOME", "/h", 1);
  EXPECT_EQ(*cache::default_directory(), fs::path("/a/b"));
  ::setenv("SHADERBAKE_CACHE_DIR", "", 1);  // empty counts as unset
  EXPECT_EQ(*cache::default_directory(), fs::path("/x/shaderbake"));
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(*cache::default_directory(), fs::path("/h/.cache/shaderbake"));
  ::unsetenv("HOME");
  ::unsetenv("SHADERBAKE_CACHE_DIR");
  ASSERT_FALSE(cache::default_directory());
  EXPECT_EQ(cache::default_directory().error().reason, "no_cache_directory");
  auto restore = [](const char* name, const std::optional<std::string>& v) {
    if (v) ::setenv(name, v->c_str(), 1);
    else ::unsetenv(name);
  };
  restore("SHADERBAKE_CACHE_DIR", sbk);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

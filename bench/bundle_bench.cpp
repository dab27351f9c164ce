// SPDX-License-Identifier: MIT
// Loader benchmarks (Google Benchmark): what a renderer pays to use a bundle through runtime_loader/shaderbake.h.
//   open      sbk_bundle_open_file (open + fstat + mmap + the O(1) checks), next to the same system calls alone
//             (os_floor), and sbk_bundle_open_memory; the first probe of a fresh mapping (its page faults)
//   probe     sbk_bundle_find: a hot working set of 64 keys (a renderer re-probing its current draws), present
//             keys at random over the whole bundle, and misses; sbk_hash_key alone on the same keys and the
//             rest of a hit's own work (the checks of its row and its shader entry's row, 16 bytes each, and
//             the compare of the full key), so what remains of a probe (directory, tags, reading the pieces of
//             the key, cache misses) reads as the difference
//   modules   sbk_bundle_read_module (decompress + checksum) of real modules: without a caller ZSTD_DCtx, with
//             one, and with one on a bundle after sbk_bundle_prepare_dictionary (the dictionary digested once)
// Synthetic bundles of 1k / 100k / 1M pipeline entries (real pipeline keys: an nv2a exact key of random program
// words + one of a few host states, ~270 bytes; each exact key has its specialization entry too, as in a
// built bundle, so a bundle holds twice as many entries as pipelines) are built in memory with BundleBuilder and written to a temp
// file once per size (setup, never timed); one size lives in memory at a time. Real modules come from a bundle
// the CLI built from a generated trace: --sbk-bundle=PATH (bench/bundle_size.sh --bundle-bench does it all).
//
// Own flags (the rest are Google Benchmark's):
//   --sbk-sizes=1000,100000,1000000   entry counts of the synthetic bundles
//   --sbk-bundle=PATH                 a real bundle for the module benchmarks (skipped without it)
// Defaults added unless given: --benchmark_repetitions=5 --benchmark_report_aggregates_only=true (medians).
// Prints figures; asserts nothing about time.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "lib/io/output_file.hpp"
#include "lib/bundle/bundle_writer.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

namespace {

using namespace shaderbake;

constexpr size_t kHotKeys = 64;
constexpr size_t kMissKeys = 1 << 16;
constexpr size_t kKeyCapacity = SBK_PIPELINE_KEY_MAX_SIZE(SBK_NV2A_EXACT_KEY_SIZE);

// Keys stored back to back, each at an offset, so that a sequential walk over them streams from memory.
struct KeyList {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> offset, size;
  void add(const uint8_t* key, size_t n) {
    offset.push_back(static_cast<uint32_t>(bytes.size()));
    size.push_back(static_cast<uint32_t>(n));
    bytes.insert(bytes.end(), key, key + n);
  }
  size_t count() const { return offset.size(); }
  const uint8_t* key(size_t i) const { return bytes.data() + offset[i]; }
};

sbk_host_state base_host() {
  sbk_host_state h{};
  h.topology = 3;  // triangle list
  h.cull_mode = 2;
  h.depth_test = 1;
  h.depth_write = 1;
  h.depth_compare = 3;
  h.stencil_test = 1;
  h.stencil_front = {0, 2, 0, 7, 0xFF, 0xFF, 1};
  h.stencil_back = {0, 2, 0, 7, 0xFF, 0xFF, 1};
  h.color_count = 1;
  h.color_formats[0] = 37;  // R8G8B8A8_UNORM
  h.blend[0] = {1, 6, 7, 0, 1, 0, 0, 15};
  h.depth_format = 129;  // D24_UNORM_S8_UINT
  h.samples = 1;
  h.dynamic_states = SBK_DYNAMIC_VIEWPORT | SBK_DYNAMIC_SCISSOR;
  h.binding_count = 2;
  h.bindings[0] = {0, 28, 0};
  h.bindings[1] = {1, 8, 0};
  h.attribute_count = 3;
  h.attributes[0] = {SBK_NV2A_LOCATION_POSITION, 0, 109, 0};
  h.attributes[1] = {SBK_NV2A_LOCATION_DIFFUSE, 0, 44, 16};
  h.attributes[2] = {SBK_NV2A_LOCATION_TEXCOORD0, 1, 103, 0};
  return h;
}

// A few host states per program, as a game has: opaque, back-face-culling off, depth-write-off decal, additive.
std::vector<sbk_host_state> host_states() {
  std::vector<sbk_host_state> hosts(4, base_host());
  hosts[1].cull_mode = 0;
  hosts[2].depth_write = 0;
  hosts[2].depth_compare = 2;
  hosts[3].blend[0] = {1, 1, 1, 0, 1, 1, 0, 7};
  hosts[3].attribute_count = 4;
  hosts[3].attributes[3] = {SBK_NV2A_LOCATION_TEXCOORD1, 1, 103, 0};
  return hosts;
}

// One pipeline key from random program words (stage count 1-8, as the guest writes it) and a host state; its
// exact key into `exact`.
void random_pipeline_key(std::mt19937_64& rng, const std::vector<sbk_host_state>& hosts, uint8_t* out, size_t* size,
                         uint8_t exact[SBK_NV2A_EXACT_KEY_SIZE]) {
  sbk_nv2a_program p{};
  auto word = [&] { return static_cast<uint32_t>(rng()); };
  p.combiner_control = (word() & ~0xFFu) | (1u + word() % 8u);
  for (int s = 0; s < SBK_NV2A_MAX_STAGES; ++s) {
    p.rgb_inputs[s] = word();
    p.rgb_outputs[s] = word();
    p.alpha_inputs[s] = word();
    p.alpha_outputs[s] = word();
  }
  p.final_inputs[0] = word();
  p.final_inputs[1] = word();
  for (int t = 0; t < SBK_NV2A_TEXTURE_STAGES; ++t) {
    p.texture_modes[t] = static_cast<uint8_t>(word() % SBK_NV2A_TEXTURE_MODE_COUNT);
    p.texture_enabled[t] = static_cast<uint8_t>(word() & 1u);
  }
  p.alpha_test_enabled = static_cast<uint8_t>(word() & 1u);
  p.alpha_test_func = static_cast<uint8_t>(word() % 8u);
  sbk_nv2a_encode_exact_key(&p, exact);
  const sbk_host_state& host = hosts[rng() % hosts.size()];
  if (sbk_encode_pipeline_key(SBK_ROUTE_EXACT, exact, SBK_NV2A_EXACT_KEY_SIZE, &host, out, kKeyCapacity, size) != SBK_OK) {
    std::fprintf(stderr, "bundle_bench: cannot encode a pipeline key\n");
    std::exit(1);
  }
}

// SPIR-V-shaped words (magic, version, bound, a plausible instruction stream): the writer does not validate.
std::vector<uint32_t> fake_module(std::mt19937_64& rng, size_t words) {
  std::vector<uint32_t> w = {0x07230203u, 0x00010000u, 0x00080001u, 200u, 0u};
  while (w.size() < words) {
    const uint32_t length = 2 + static_cast<uint32_t>(rng() % 4);
    w.push_back((length << 16) | static_cast<uint32_t>(rng() % 64));
    for (uint32_t i = 1; i < length; ++i) w.push_back(static_cast<uint32_t>(rng() % 200));
  }
  w.resize(words);
  return w;
}

// One synthetic bundle, in memory and in a temp file, with the keys it holds and keys it does not.
struct Corpus {
  size_t entries = 0;
  std::vector<uint8_t> bytes;  // the serialized bundle (std::vector's allocation is 16-byte aligned)
  std::string path;
  KeyList present;  // every key, in generation order (random with respect to the index's hash order)
  KeyList hot;      // kHotKeys keys picked at random from `present`
  KeyList absent;   // kMissKeys keys the bundle does not hold
  double mean_key_size = 0;
  sbk_bundle bundle{};  // open_memory over `bytes`, for the probes

  ~Corpus() {
    sbk_bundle_close(&bundle);
    if (!path.empty()) std::filesystem::remove(path);
  }
};

std::unique_ptr<Corpus> g_corpus;  // one size at a time: the benchmarks are registered size by size

Corpus& corpus(size_t entries) {
  if (g_corpus && g_corpus->entries == entries) return *g_corpus;
  g_corpus.reset();
  const auto start = std::chrono::steady_clock::now();
  auto c = std::make_unique<Corpus>();
  c->entries = entries;
  std::mt19937_64 rng(0x5eed0000u + entries);
  const std::vector<sbk_host_state> hosts = host_states();
  {
    bundle::BundleIdentity identity;
    identity.guest = SBK_GUEST_NV2A;
    identity.key_schema = SBK_NV2A_KEY_SCHEMA_VERSION;
    identity.guest_name = "nv2a";
    bundle::BundleBuilder builder(identity);
    std::vector<bundle::ModuleId> fragments;
    const bundle::ModuleId vertex = builder.add_module(1, fake_module(rng, 300));
    for (int i = 0; i < 7; ++i) fragments.push_back(builder.add_module(16, fake_module(rng, 400 + 100 * i)));
    bundle::LayoutContract layout;
    for (uint32_t b = 0; b < 4; ++b) layout.bindings.push_back({b, 1, 1, 16});
    layout.bindings.push_back({4, 6, 1, 16});
    uint8_t key[kKeyCapacity], exact[SBK_NV2A_EXACT_KEY_SIZE];
    size_t size = 0;
    c->present.bytes.reserve(entries * 280);
    for (size_t i = 0; i < entries; ++i) {
      random_pipeline_key(rng, hosts, key, &size, exact);
      c->present.add(key, size);
      builder.add_specialization(exact, SBK_STATUS_READY, fragments[i % fragments.size()], 0);
      builder.add_pipeline({key, size}, vertex, fragments[i % fragments.size()], layout);
    }
    auto serialized = builder.serialize(bundle::WriteOptions{});
    if (!serialized) {
      std::fprintf(stderr, "bundle_bench: serialize: %s\n", serialized.error().to_string().c_str());
      std::exit(1);
    }
    c->bytes = std::move(*serialized);
  }
  c->mean_key_size = static_cast<double>(c->present.bytes.size()) / static_cast<double>(entries);
  std::mt19937_64 pick(42);
  for (size_t i = 0; i < kHotKeys; ++i) {
    const size_t k = pick() % entries;
    c->hot.add(c->present.key(k), c->present.size[k]);
  }
  std::mt19937_64 other(0xab5e47u + entries);  // another stream: none of these keys is in the bundle
  uint8_t key[kKeyCapacity], exact[SBK_NV2A_EXACT_KEY_SIZE];
  size_t size = 0;
  for (size_t i = 0; i < kMissKeys; ++i) {
    random_pipeline_key(other, hosts, key, &size, exact);
    c->absent.add(key, size);
  }
  c->path = (std::filesystem::temp_directory_path() /
             ("sbk_bundle_bench_" + std::to_string(::getpid()) + "_" + std::to_string(entries) + ".sbk"))
                .string();
  if (const Status s = io::write_output(c->path, c->bytes); !s) {
    std::fprintf(stderr, "bundle_bench: %s\n", s.error().to_string().c_str());
    std::exit(1);
  }
  if (sbk_bundle_open_memory(&c->bundle, c->bytes.data(), c->bytes.size()) != SBK_OK) {
    std::fprintf(stderr, "bundle_bench: the synthetic bundle does not open\n");
    std::exit(1);
  }
  // Every key must be found (and no miss key), or the figures mean nothing.
  sbk_entry e;
  for (size_t i = 0; i < entries; i += std::max<size_t>(1, entries / 4096))
    if (sbk_bundle_find(&c->bundle, c->present.key(i), c->present.size[i], &e) != SBK_OK) {
      std::fprintf(stderr, "bundle_bench: a present key is not found\n");
      std::exit(1);
    }
  for (size_t i = 0; i < 256; ++i)
    if (sbk_bundle_find(&c->bundle, c->absent.key(i), c->absent.size[i], &e) != SBK_NOT_FOUND) {
      std::fprintf(stderr, "bundle_bench: an absent key is found\n");
      std::exit(1);
    }
  std::fprintf(stderr, "bundle_bench: %zu entries, %.1f MB bundle, mean key %.0f bytes, built in %.1f s\n", entries,
               c->bytes.size() / 1e6, c->mean_key_size, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  g_corpus = std::move(c);
  return *g_corpus;
}

void set_corpus_counters(benchmark::State& state, const Corpus& c) {
  state.counters["entries"] = static_cast<double>(c.entries);
  state.counters["bundle_MB"] = static_cast<double>(c.bytes.size()) / 1e6;
}

// ---- open ----

void open_file(benchmark::State& state, size_t entries) {
  Corpus& c = corpus(entries);
  sbk_bundle b;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const sbk_result r = sbk_bundle_open_file(&b, c.path.c_str());
    const auto t1 = std::chrono::steady_clock::now();
    if (r != SBK_OK) state.SkipWithError("open_file failed");
    benchmark::DoNotOptimize(b);
    sbk_bundle_close(&b);  // munmap: not timed
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  set_corpus_counters(state, c);
}

void open_file_and_close(benchmark::State& state, size_t entries) {
  Corpus& c = corpus(entries);
  sbk_bundle b;
  for (auto _ : state) {
    if (sbk_bundle_open_file(&b, c.path.c_str()) != SBK_OK) state.SkipWithError("open_file failed");
    benchmark::DoNotOptimize(b);
    sbk_bundle_close(&b);
  }
  set_corpus_counters(state, c);
}

// The floor under open_file: the same system calls (open, fstat, mmap, the header page's first read, close) with
// none of the loader's checks. open_file minus this is the loader's own cost.
void os_floor_mmap(benchmark::State& state, size_t entries) {
  Corpus& c = corpus(entries);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const int fd = ::open(c.path.c_str(), O_RDONLY);
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      state.SkipWithError("open failed");
      break;
    }
    void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      break;
    }
    benchmark::DoNotOptimize(*static_cast<const volatile uint8_t*>(map));
    const auto t1 = std::chrono::steady_clock::now();
    ::munmap(map, static_cast<size_t>(st.st_size));
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  set_corpus_counters(state, c);
}

void open_memory(benchmark::State& state, size_t entries) {
  Corpus& c = corpus(entries);
  sbk_bundle b;
  for (auto _ : state) {
    if (sbk_bundle_open_memory(&b, c.bytes.data(), c.bytes.size()) != SBK_OK) state.SkipWithError("open_memory failed");
    benchmark::DoNotOptimize(b);
  }
  set_corpus_counters(state, c);
}

// A fresh mapping's first probe: the pages it touches (directory, index entry, record) fault in from the page
// cache. Timed: the probe only.
void first_probe_after_open_file(benchmark::State& state, size_t entries) {
  Corpus& c = corpus(entries);
  sbk_bundle b;
  sbk_entry e;
  size_t k = 0;
  for (auto _ : state) {
    if (sbk_bundle_open_file(&b, c.path.c_str()) != SBK_OK) state.SkipWithError("open_file failed");
    const size_t i = (k += 7919) % c.present.count();
    const auto t0 = std::chrono::steady_clock::now();
    const sbk_result r = sbk_bundle_find(&b, c.present.key(i), c.present.size[i], &e);
    const auto t1 = std::chrono::steady_clock::now();
    if (r != SBK_OK) state.SkipWithError("probe missed");
    benchmark::DoNotOptimize(e);
    sbk_bundle_close(&b);
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  set_corpus_counters(state, c);
}

// The floor under first_probe_after_open_file: a fresh mapping, then one read at each address that probe reads
// (directory slot, index entry, first and last byte of the record), with no hashing or compare. Timed: the reads.
void os_floor_first_touch(benchmark::State& state, size_t entries) {
  Corpus& c = corpus(entries);
  uint64_t size = 0;
  const uint8_t* index = sbk_bundle_section(&c.bundle, SBK_SECTION_INDEX, &size);
  uint32_t bits;
  std::memcpy(&bits, index + 4, 4);
  const size_t prefix = 16 + ((4 * ((size_t{1} << bits) + 1) + 7) & ~size_t{7});
  size_t k = 0;
  for (auto _ : state) {
    const size_t i = (k += 7919) % c.present.count();
    sbk_entry e;
    if (sbk_bundle_find(&c.bundle, c.present.key(i), c.present.size[i], &e) != SBK_OK) {
      state.SkipWithError("probe missed");
      break;
    }
    const sbk_key_hash h = sbk_hash_key(c.present.key(i), c.present.size[i]);
    const size_t bucket = bits ? static_cast<size_t>(h.high >> (64 - bits)) : 0;
    const size_t base = static_cast<size_t>(index - c.bytes.data());
    sbk_entry shader;
    if (sbk_bundle_entry_at(&c.bundle, e.shader_entry, &shader) != SBK_OK) {
      state.SkipWithError("shader entry unreadable");
      break;
    }
    uint64_t records_size = 0;
    const size_t records = static_cast<size_t>(sbk_bundle_section(&c.bundle, SBK_SECTION_RECORDS, &records_size) - c.bytes.data());
    const size_t key = static_cast<size_t>(shader.key - c.bytes.data());
    // The host state's parts are left out: a few of them serve every pipeline, so they stay in cache.
    const size_t at[6] = {base + 16 + 4 * bucket, base + prefix + SBK_BUNDLE_INDEX_ENTRY_SIZE * size_t{e.index},
                          records + SBK_BUNDLE_RECORD_SIZE * size_t{e.index},
                          records + SBK_BUNDLE_RECORD_SIZE * size_t{e.shader_entry}, key, key + shader.key_size - 1};
    const int fd = ::open(c.path.c_str(), O_RDONLY);
    void* map = fd < 0 ? MAP_FAILED : ::mmap(nullptr, c.bytes.size(), PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd >= 0) ::close(fd);
    if (map == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      break;
    }
    const volatile uint8_t* p = static_cast<const volatile uint8_t*>(map);
    (void)p[0];  // the header page, which open touches
    const auto t0 = std::chrono::steady_clock::now();
    uint8_t sum = 0;
    for (size_t a : at) sum = static_cast<uint8_t>(sum + p[a]);
    const auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(sum);
    ::munmap(map, c.bytes.size());
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  set_corpus_counters(state, c);
}

// ---- probes ----

void probe(benchmark::State& state, const Corpus& c, const KeyList& keys, sbk_result expected) {
  sbk_entry e;
  size_t i = 0;
  const size_t n = keys.count();
  for (auto _ : state) {
    const sbk_result r = sbk_bundle_find(&c.bundle, keys.key(i), keys.size[i], &e);
    if (r != expected) {
      state.SkipWithError("unexpected probe result");
      break;
    }
    benchmark::DoNotOptimize(e);
    if (++i == n) i = 0;
  }
  set_corpus_counters(state, c);
  state.counters["key_bytes"] = c.mean_key_size;
}

void probe_hot(benchmark::State& state, size_t entries) {
  const Corpus& c = corpus(entries);
  probe(state, c, c.hot, SBK_OK);
}
void probe_random(benchmark::State& state, size_t entries) {
  const Corpus& c = corpus(entries);
  probe(state, c, c.present, SBK_OK);
}
void probe_miss(benchmark::State& state, size_t entries) {
  const Corpus& c = corpus(entries);
  probe(state, c, c.absent, SBK_NOT_FOUND);
}

void hash_keys(benchmark::State& state, const KeyList& keys) {
  size_t i = 0;
  const size_t n = keys.count();
  for (auto _ : state) {
    benchmark::DoNotOptimize(sbk_hash_key(keys.key(i), keys.size[i]));
    if (++i == n) i = 0;
  }
}
void hash_hot(benchmark::State& state, size_t entries) {
  const Corpus& c = corpus(entries);
  hash_keys(state, c.hot);
  state.counters["key_bytes"] = c.mean_key_size;
}
// What a hit does besides hashing the probed key: verify its row's check and its shader entry's (XXH3-64 of 16
// bytes each, seeded with the row's position and tag) and compare the full key with the probed key.
void record_check_hot(benchmark::State& state, size_t entries) {
  const Corpus& c = corpus(entries);
  struct Hit {
    const uint8_t* row;
    const uint8_t* shader_row;
    uint64_t seed, shader_seed;
    std::vector<uint8_t> stored;  // the key as the bundle's pieces hold it
    const uint8_t* probed;
    size_t key_size;
  };
  uint64_t records_size = 0;
  const uint8_t* records = sbk_bundle_section(&c.bundle, SBK_SECTION_RECORDS, &records_size);
  std::vector<Hit> hits;
  for (size_t i = 0; i < c.hot.count(); ++i) {
    sbk_entry e;
    size_t size = 0;
    Hit h;
    h.stored.resize(c.hot.size[i]);
    if (sbk_bundle_find(&c.bundle, c.hot.key(i), c.hot.size[i], &e) != SBK_OK ||
        sbk_bundle_entry_key(&c.bundle, e.index, h.stored.data(), h.stored.size(), &size) != SBK_OK) {
      state.SkipWithError("hot key not found");
      return;
    }
    const uint32_t tag = static_cast<uint32_t>(sbk_hash_key(c.hot.key(i), c.hot.size[i]).high);
    h.row = records + SBK_BUNDLE_RECORD_SIZE * size_t{e.index};
    h.shader_row = records + SBK_BUNDLE_RECORD_SIZE * size_t{e.shader_entry};
    h.seed = (uint64_t{e.index} << 32) | tag;
    h.shader_seed = uint64_t{e.shader_entry} << 32;
    h.probed = c.hot.key(i);
    h.key_size = c.hot.size[i];
    hits.push_back(std::move(h));
  }
  size_t i = 0;
  for (auto _ : state) {
    const Hit& h = hits[i];
    benchmark::DoNotOptimize(XXH3_64bits_withSeed(h.row + 4, SBK_BUNDLE_RECORD_SIZE - 4, h.seed));
    benchmark::DoNotOptimize(XXH3_64bits_withSeed(h.shader_row + 4, SBK_BUNDLE_RECORD_SIZE - 4, h.shader_seed));
    benchmark::DoNotOptimize(std::memcmp(h.stored.data(), h.probed, h.key_size));
    if (++i == hits.size()) i = 0;
  }
}

// The same walk over every key as probe_random, hashing only: the key bytes' own memory traffic included.
void hash_random(benchmark::State& state, size_t entries) {
  const Corpus& c = corpus(entries);
  hash_keys(state, c.present);
  state.counters["key_bytes"] = c.mean_key_size;
}

// ---- modules of a real bundle ----

struct RealBundle {
  sbk_bundle bundle{};    // as opened: every dictionary read loads the raw dictionary
  sbk_bundle prepared{};  // the same file after sbk_bundle_prepare_dictionary
  std::vector<uint32_t> modules;  // every module index, in bundle order
  std::vector<uint32_t> read_order;  // the same, in sbk_bundle_module_read_order
  uint32_t largest = 0;
  uint64_t raw_bytes = 0, compressed_bytes = 0;
  std::vector<uint8_t> out;
};
std::unique_ptr<RealBundle> g_real;

// Every module in turn (or the largest one again and again): sbk_bundle_read_module without a caller DCtx,
// with one, and with one on a prepared bundle (the way a renderer reading now and then is told to read); a
// module reader on the prepared bundle, in index order and in sbk_bundle_module_read_order (the way code
// reading many modules is told to read).
enum class ReadWay { no_dctx, dctx, dctx_prepared, reader, reader_in_read_order };
void read_modules(benchmark::State& state, ReadWay way, bool largest_only) {
  RealBundle& r = *g_real;
  const bool prepared = way != ReadWay::no_dctx && way != ReadWay::dctx;
  const bool use_reader = way == ReadWay::reader || way == ReadWay::reader_in_read_order;
  const sbk_bundle& bundle = prepared ? r.prepared : r.bundle;
  const std::vector<uint32_t>& order = way == ReadWay::reader_in_read_order ? r.read_order : r.modules;
  ZSTD_DCtx* dctx = way != ReadWay::no_dctx && !use_reader ? ZSTD_createDCtx() : nullptr;
  sbk_module_reader reader{};
  if (use_reader && sbk_module_reader_init(&reader, &bundle) != SBK_OK) {
    state.SkipWithError("no module reader");
    return;
  }
  size_t i = 0, size = 0;
  uint64_t bytes = 0;
  for (auto _ : state) {
    const uint32_t m = largest_only ? r.largest : order[i];
    const sbk_result result = use_reader ? sbk_module_reader_read(&reader, m, r.out.data(), r.out.size(), &size)
                                         : sbk_bundle_read_module(&bundle, m, r.out.data(), r.out.size(), &size, dctx);
    if (result != SBK_OK) {
      state.SkipWithError("read_module failed");
      break;
    }
    bytes += size;
    benchmark::DoNotOptimize(r.out.data());
    if (++i == r.modules.size()) i = 0;
  }
  if (dctx) ZSTD_freeDCtx(dctx);
  sbk_module_reader_free(&reader);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["modules"] = static_cast<double>(r.modules.size());
  state.counters["mean_raw_B"] = static_cast<double>(r.raw_bytes) / static_cast<double>(r.modules.size());
}

bool open_real(const std::string& path) {
  auto r = std::make_unique<RealBundle>();
  if (sbk_bundle_open_file(&r->bundle, path.c_str()) != SBK_OK) return false;
  uint32_t largest_size = 0;
  for (uint32_t m = 0; m < sbk_bundle_module_count(&r->bundle); ++m) {
    sbk_module_info info;
    if (sbk_bundle_module_info(&r->bundle, m, &info) != SBK_OK) return false;
    r->modules.push_back(m);
    r->raw_bytes += info.raw_size;
    r->compressed_bytes += info.compressed_size;
    if (info.raw_size > largest_size) {
      largest_size = info.raw_size;
      r->largest = m;
    }
  }
  if (r->modules.empty()) return false;
  r->out.resize(largest_size);
  uint64_t dict_size = 0;
  sbk_bundle_section(&r->bundle, SBK_SECTION_DICTIONARY, &dict_size);
  if (sbk_bundle_open_file(&r->prepared, path.c_str()) != SBK_OK || sbk_bundle_prepare_dictionary(&r->prepared) != SBK_OK)
    return false;
  r->read_order.resize(r->modules.size());
  if (sbk_bundle_module_read_order(&r->bundle, r->read_order.data()) != SBK_OK) return false;
  std::fprintf(stderr, "bundle_bench: %s: %zu modules, %.1f KiB SPIR-V -> %.1f KiB frames + %.1f KiB dictionary, largest %u B\n",
               path.c_str(), r->modules.size(), r->raw_bytes / 1024.0, r->compressed_bytes / 1024.0, dict_size / 1024.0,
               largest_size);
  g_real = std::move(r);
  return true;
}

std::vector<size_t> parse_sizes(const std::string& text) {
  std::vector<size_t> sizes;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = text.find(',', at);
    sizes.push_back(std::stoull(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {1000, 100000, 1000000};
  std::string real_path;
  std::vector<char*> args;
  bool repetitions = false, aggregates = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--sbk-sizes=", 0) == 0) {
      sizes = parse_sizes(a.substr(12));
    } else if (a.rfind("--sbk-bundle=", 0) == 0) {
      real_path = a.substr(13);
    } else {
      repetitions |= a.rfind("--benchmark_repetitions", 0) == 0;
      aggregates |= a.rfind("--benchmark_report_aggregates_only", 0) == 0;
      args.push_back(argv[i]);
    }
  }
  std::string rep_flag = "--benchmark_repetitions=5", agg_flag = "--benchmark_report_aggregates_only=true";
  if (!repetitions) args.push_back(rep_flag.data());
  if (!aggregates) args.push_back(agg_flag.data());
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;

  using benchmark::RegisterBenchmark;
  for (const size_t n : sizes) {
    const std::string s = "/" + std::to_string(n);
    RegisterBenchmark(("open_file" + s).c_str(), open_file, n)->UseManualTime()->Unit(benchmark::kMicrosecond);
    RegisterBenchmark(("open_file+close" + s).c_str(), open_file_and_close, n)->Unit(benchmark::kMicrosecond);
    RegisterBenchmark(("os_floor/open+fstat+mmap+close" + s).c_str(), os_floor_mmap, n)
        ->UseManualTime()->Unit(benchmark::kMicrosecond);
    RegisterBenchmark(("open_memory" + s).c_str(), open_memory, n)->Unit(benchmark::kMicrosecond);
    RegisterBenchmark(("first_probe_after_open_file" + s).c_str(), first_probe_after_open_file, n)
        ->UseManualTime()->Unit(benchmark::kNanosecond);
    RegisterBenchmark(("os_floor/first_touch_of_those_pages" + s).c_str(), os_floor_first_touch, n)
        ->UseManualTime()->Unit(benchmark::kNanosecond);
    RegisterBenchmark(("hash_key/hot64" + s).c_str(), hash_hot, n);
    RegisterBenchmark(("record_check/hot64" + s).c_str(), record_check_hot, n);
    RegisterBenchmark(("find/hot64" + s).c_str(), probe_hot, n);
    RegisterBenchmark(("hash_key/all_keys" + s).c_str(), hash_random, n);
    RegisterBenchmark(("find/random" + s).c_str(), probe_random, n);
    RegisterBenchmark(("find/miss" + s).c_str(), probe_miss, n);
  }
  if (!real_path.empty()) {
    if (!open_real(real_path)) {
      std::fprintf(stderr, "bundle_bench: cannot open %s or read its module table\n", real_path.c_str());
      return 1;
    }
    for (const bool largest : {false, true}) {
      const std::string what = largest ? "/largest" : "/all";
      RegisterBenchmark(("read_module/no_dctx" + what).c_str(), read_modules, ReadWay::no_dctx, largest)
          ->Unit(benchmark::kMicrosecond);
      RegisterBenchmark(("read_module/dctx" + what).c_str(), read_modules, ReadWay::dctx, largest)
          ->Unit(benchmark::kMicrosecond);
      RegisterBenchmark(("read_module/dctx+prepared" + what).c_str(), read_modules, ReadWay::dctx_prepared, largest)
          ->Unit(benchmark::kMicrosecond);
      RegisterBenchmark(("read_module/reader+prepared" + what).c_str(), read_modules, ReadWay::reader, largest)
          ->Unit(benchmark::kMicrosecond);
      if (!largest)
        RegisterBenchmark("read_module/reader+prepared/all_in_read_order", read_modules, ReadWay::reader_in_read_order,
                          false)
            ->Unit(benchmark::kMicrosecond);
    }
  } else {
    std::fprintf(stderr, "bundle_bench: no --sbk-bundle=PATH: module read benchmarks skipped\n");
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_corpus.reset();
  if (g_real) {
    sbk_bundle_close(&g_real->bundle);
    sbk_bundle_close(&g_real->prepared);
  }
  return 0;
}

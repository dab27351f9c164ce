// SPDX-License-Identifier: MIT
// Runs the fuzz targets without a fuzzing engine, so every CI build (and the sanitizer build) exercises
// them: each seed file as is, every truncation of it, and a fixed number of seeded mutations (bit flips,
// byte insertions and deletions, spliced-in JSON tokens; for the binary bundle, in-place edits only, since
// an insertion or deletion only ever meets the size check). Reaching the end is the test: the targets
// return normally on any input, and ASan/UBSan turn any bad access into a failure.
//   fuzz_replay trace|vectors|bundle|driver_checks|spirv SEED_FILE... [--mutations N] [--seed S]
// (driver_checks takes bundles as seeds and mutates them like bundle.)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_targets.hpp"

namespace {

uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::string mutate(std::string s, uint64_t& rng) {
  static const char* const kTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", "0x", "-1", "1e999", "null",
                                        "\"type\":\"draw\"", "\"state\":\"s0\"", "\n", "\xEF\xBB\xBF", "\x00", "\xff"};
  const int edits = 1 + static_cast<int>(next(rng) % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = next(rng) % s.size();
    switch (next(rng) % 4) {
      case 0: s[at] = static_cast<char>(s[at] ^ (1 << (next(rng) % 8))); break;
      case 1: s.erase(at, 1 + next(rng) % 8); break;
      case 2: s.insert(at, kTokens[next(rng) % (sizeof kTokens / sizeof kTokens[0])]); break;
      default: s.insert(at, s.substr(next(rng) % s.size(), next(rng) % 32)); break;
    }
  }
  return s;
}

// In-place edits of a binary input: bit flips, random bytes, and short runs copied from elsewhere in it.
std::string mutate_in_place(std::string s, uint64_t& rng) {
  const int edits = 1 + static_cast<int>(next(rng) % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = next(rng) % s.size();
    switch (next(rng) % 3) {
      case 0: s[at] = static_cast<char>(s[at] ^ (1 << (next(rng) % 8))); break;
      case 1: s[at] = static_cast<char>(next(rng)); break;
      default: {
        const size_t from = next(rng) % s.size();
        const size_t n = std::min<size_t>({1 + next(rng) % 16, s.size() - at, s.size() - from});
        s.replace(at, n, s.substr(from, n));
        break;
      }
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: fuzz_replay trace|vectors|bundle|driver_checks|spirv SEED_FILE... [--mutations N] [--seed S]\n");
    return 2;
  }
  const std::string target = argv[1];
  const bool binary_bundle = target == "bundle" || target == "driver_checks";
  if (target != "trace" && target != "vectors" && !binary_bundle && target != "spirv") {
    std::fprintf(stderr, "error: fuzz_replay: unknown target '%s' (trace, vectors, bundle, driver_checks or spirv)\n",
                 target.c_str());
    return 2;
  }
  auto run = [&](const std::string& input) {
    const auto* data = reinterpret_cast<const uint8_t*>(input.data());
    if (target == "trace") shaderbake::fuzz::trace_reader(data, input.size());
    else if (target == "bundle") shaderbake::fuzz::bundle_loader(data, input.size());
    else if (target == "driver_checks") shaderbake::fuzz::driver_checks(data, input.size());
    else if (target == "spirv") shaderbake::fuzz::spirv_unpack(data, input.size());
    else shaderbake::fuzz::vector_reader(data, input.size());
  };
  uint64_t mutations = 2000, rng = 1;
  std::vector<std::string> seeds;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mutations") == 0 && i + 1 < argc) mutations = std::strtoull(argv[++i], nullptr, 0);
    else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) rng = std::strtoull(argv[++i], nullptr, 0);
    else {
      // A seed that cannot be read is an error, not an empty seed: a moved corpus must not pass unnoticed.
      std::ifstream in(argv[i], std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "error: fuzz_replay: cannot read seed file %s\n", argv[i]);
        return 2;
      }
      std::stringstream buffer;
      buffer << in.rdbuf();
      // Trace seeds get the form byte in front (0 = JSON Lines, 1 = document form by extension).
      std::string seed = buffer.str();
      if (target == "trace") seed.insert(seed.begin(), std::string(argv[i]).ends_with(".json") ? '\1' : '\0');
      // And once more under small record-size and depth limits (form-byte bits 1 and 2).
      if (target == "trace") seeds.push_back(std::string(1, static_cast<char>(seed[0] | 6)) + seed.substr(1));
      seeds.push_back(std::move(seed));
    }
  }
  if (seeds.empty()) {
    std::fprintf(stderr, "error: fuzz_replay: no seed files (an empty corpus folder?)\n");
    return 2;
  }
  uint64_t runs = 0;
  for (const std::string& seed : seeds) {
    run(seed);
    // Every truncation (a sampled subset for long seeds): the readers must tell cut-off input from good.
    const size_t step = seed.size() > 4096 ? seed.size() / 2048 : 1;
    for (size_t n = 0; n < seed.size(); n += step, ++runs) run(seed.substr(0, n));
    for (uint64_t m = 0; m < mutations; ++m, ++runs)
      run(binary_bundle ? mutate_in_place(seed, rng) : mutate(seed, rng));
  }
  std::printf("fuzz_replay %s: %zu seeds, %llu inputs, 1 passed, 0 failed\n", target.c_str(), seeds.size(),
              static_cast<unsigned long long>(runs + seeds.size()));
  return 0;
}

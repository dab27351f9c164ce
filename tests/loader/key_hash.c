/* SPDX-License-Identifier: MIT */
/*
 * The probe's key hash against libxxhash: sbk__key_hash_high (the high half of XXH3-128, computed alone for keys
 * of over 240 bytes) must equal XXH3_128bits(key, size).high64 from the shared library for every size, content and
 * alignment, or probes would miss the index's tags. Sizes 0 to 4,200 (XXH3's short and mid paths, the long path's
 * stripe and 1,024-byte block boundaries, several blocks), eight contents, each at the eight alignments of a word,
 * plus inputs of all-zero and all-0xFF bytes. Built once with the project's target flags (AVX2 where they allow
 * it) and once without AVX (the SSE2 path); prints which it ran.
 */
#define SHADERBAKE_XXHASH_LINKED /* the reference is libxxhash itself, not the inlined copy */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

#include <string.h>

#include "tests/loader/check.h"

enum { max_size = 4200, contents = 8, alignments = 8 };

static uint64_t next_random(uint64_t* state) {
  /* splitmix64: a fixed sequence, so a failure reproduces */
  uint64_t z = (*state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static int mismatches_printed = 0;

static int check_all_sizes(const uint8_t* bytes, const char* what) {
  size_t size;
  int mismatches = 0;
  for (size = 0; size <= max_size; ++size) {
    const uint64_t expected = (uint64_t)XXH3_128bits(bytes, size).high64;
    const uint64_t got = sbk__key_hash_high(bytes, size);
    if (got != expected) {
      if (mismatches_printed++ < 5)
        fprintf(stderr, "%s, %zu bytes: 0x%016llx, libxxhash 0x%016llx\n", what, size, (unsigned long long)got,
                (unsigned long long)expected);
      ++mismatches;
    }
  }
  return mismatches;
}

int main(void) {
  static uint8_t buffer[max_size + alignments];
  uint64_t state = 1;
  int c, a, mismatches = 0;
  size_t i;
  char what[64];
#if SBK__X86_64_SIMD && defined(__AVX2__)
  printf("key hash: the AVX2 long path\n");
#elif SBK__X86_64_SIMD
  printf("key hash: the SSE2 long path\n");
#else
  printf("key hash: XXH3_128bits throughout (no long path on this target)\n");
#endif
  for (c = 0; c < contents; ++c) {
    for (i = 0; i < sizeof buffer; ++i) buffer[i] = (uint8_t)(next_random(&state) >> 56);
    for (a = 0; a < alignments; ++a) {
      snprintf(what, sizeof what, "content %d at offset %d", c, a);
      mismatches += check_all_sizes(buffer + a, what);
    }
  }
  memset(buffer, 0, sizeof buffer);
  mismatches += check_all_sizes(buffer, "all zero");
  memset(buffer, 0xFF, sizeof buffer);
  mismatches += check_all_sizes(buffer, "all 0xFF");
  SBK_TEST_CHECK(mismatches == 0);
  printf("%d mismatches over %d inputs\n", mismatches, (contents * alignments + 2) * (max_size + 1));
  return sbk_test_failures != 0;
}

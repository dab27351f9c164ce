/* SPDX-License-Identifier: MIT */
/*
 * Packed SPIR-V (schemas/bundle.md, "Packed SPIR-V"), the coding bundle modules are stored in, over the real
 * modules of a bundle the CLI built (the CTest fixture) and over word sequences that are not SPIR-V:
 *   - every module read through the loader packs to well under half its size and unpacks in place to the
 *     same words; the writer stored modules packed and with parents (counted from the rows' flags and parents:
 *     a bundle of none would not exercise the read paths this covers);
 *   - the bundle's modules are SPIR-V whose function-local IDs follow definition order (the canonical form the
 *     coding counts on), found by walking the instructions with the header's grammar-generated operand table
 *     (the renumbering itself locates IDs with SPIRV-Tools' parser, so the two do not share a mistake);
 *   - every truncation and every single-bit flip of a packed module gives the original words, SBK_ERROR_CORRUPT,
 *     or other words of the right size (a flipped literal: the read's checksum refuses those), never a read or
 *     write outside the buffer (the program runs under ASan and UBSan in scripts/test); undamaged word
 *     sequences that are not SPIR-V unpack to themselves (in place, or SBK_ERROR_CORRUPT where the order
 *     forbids it); a head coding a count of 0 is refused even when more than 2^32 words of output are left.
 * Usage: spirv_pack BUNDLE [SEED_DIR]   (SEED_DIR: also writes fuzz seeds for the spirv_unpack target there:
 *        module_N.bin = u32 word count + the packed bytes, for three modules of different stages and sizes)
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS and MAP_NORESERVE under -std=c99 */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_spirv.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tests/loader/check.h"

/* A deterministic generator (xorshift64*), so a failure reproduces. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint32_t next_random(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545F4914F6CDD1Du) >> 32);
}

/* Unpacks `packed` placed at the end of a fresh raw_size buffer (the loader's layout). Returns the result
 * and leaves the words in *out (a malloc'd buffer the caller frees). */
static sbk_result unpack(const uint8_t* packed, size_t packed_size, size_t raw_size, uint8_t** out) {
  uint8_t* buffer = (uint8_t*)malloc(raw_size ? raw_size : 1);
  sbk_result r;
  if (packed_size <= raw_size) memcpy(buffer + raw_size - packed_size, packed, packed_size);
  r = sbk_spirv_unpack_in_place(buffer, raw_size, packed_size);
  *out = buffer;
  return r;
}

/* Unpacking gives OK with the original words (returns 1), SBK_ERROR_CORRUPT (returns 0), or OK with other
 * words (returns 0 and counts it in *other_words): a damaged stream may decode to other words of the right
 * size, which the loader's checksum then refuses. Any other result is a failure. */
static int unpack_gives_original_or_corrupt(const uint8_t* packed, size_t packed_size, const uint32_t* words,
                                            size_t raw_size, unsigned long* other_words) {
  uint8_t* got;
  const sbk_result r = unpack(packed, packed_size, raw_size, &got);
  int ok = 0;
  SBK_TEST_CHECK(r == SBK_OK || r == SBK_ERROR_CORRUPT);
  if (r == SBK_OK) {
    ok = memcmp(got, words, raw_size) == 0;
    if (!ok) ++*other_words;
  }
  free(got);
  return ok;
}

/* Checks, with the header's operand table to find each result, that every ID defined inside functions is the next in definition order after
 * the largest ID defined before the first OpFunction (the renumbering shaderbake's compile chain applies). */
static int locals_in_definition_order(const uint32_t* words, size_t count) {
  size_t i = 5;
  uint32_t max_global = 0, next_local = 0;
  int in_functions = 0;
  while (i < count) {
    const uint32_t opcode = words[i] & 0xFFFFu, n = words[i] >> 16;
    const sbk__spirv_kinds kinds = sbk__spirv_kinds_of(opcode); /* which operand is the result */
    size_t k;
    uint32_t result = 0;
    if (n == 0 || n > count - i) return 0;
    for (k = 0; k < kinds.fixed_count && sbk__spirv_kind(&kinds, k) != SBK__SPIRV_KIND_S; ++k)
      if (sbk__spirv_kind(&kinds, k) == SBK__SPIRV_KIND_R && k + 1 < n) result = words[i + 1 + k];
    if (opcode == 54u && !in_functions) {
      in_functions = 1;
      next_local = max_global + 1u;
    }
    if (result != 0) {
      if (in_functions) {
        if (result != next_local++) return 0;
      } else if (result > max_global) {
        max_global = result;
      }
    }
    i += n;
  }
  return in_functions && words[3] == next_local; /* the bound: one past the last local */
}

static void check_module(const uint32_t* words, size_t raw_size, unsigned long* other_words, unsigned long* corrupt) {
  const size_t count = raw_size / 4u;
  uint8_t* packed = (uint8_t*)malloc(SBK_SPIRV_PACK_BOUND(count));
  size_t packed_size = 0, n;
  int bit;
  SBK_TEST_CHECK(sbk_spirv_pack(words, count, packed, SBK_SPIRV_PACK_BOUND(count), &packed_size) == SBK_OK);
  /* Real modules pack to well under half their size. */
  SBK_TEST_CHECK(packed_size * 2u < raw_size);
  SBK_TEST_CHECK(unpack_gives_original_or_corrupt(packed, packed_size, words, raw_size, other_words));
  SBK_TEST_CHECK(sbk_spirv_pack(words, count, packed, SBK_SPIRV_PACK_BOUND(count) - 1u, &n) ==
                 SBK_ERROR_BUFFER_TOO_SMALL);
  for (n = 0; n < packed_size; ++n) { /* every truncation */
    const unsigned long before = *other_words;
    if (!unpack_gives_original_or_corrupt(packed, n, words, raw_size, other_words) && *other_words == before) ++*corrupt;
  }
  for (n = 0; n < packed_size; ++n) /* every single-bit flip */
    for (bit = 0; bit < 8; ++bit) {
      const unsigned long before = *other_words;
      packed[n] ^= (uint8_t)(1u << bit);
      if (!unpack_gives_original_or_corrupt(packed, packed_size, words, raw_size, other_words) && *other_words == before)
        ++*corrupt;
      packed[n] ^= (uint8_t)(1u << bit);
    }
  free(packed);
}

/* Word sequences that are not SPIR-V (random instruction words, counts running past the end, zero counts):
 * they pack, and unpack to themselves or to CORRUPT. */
static void check_random_sequences(void) {
  unsigned long other_words = 0, in_place = 0;
  int round;
  for (round = 0; round < 2000; ++round) {
    const size_t count = 5u + next_random() % 200u;
    uint32_t* words = (uint32_t*)malloc(count * 4u);
    uint8_t* packed = (uint8_t*)malloc(SBK_SPIRV_PACK_BOUND(count));
    size_t i, packed_size = 0;
    static const uint32_t opcodes[] = {17, 71, 21, 43, 54, 59, 61, 62, 79, 81, 129, 248, 253, 56, 1000};
    if (round % 2 == 0) {
      /* Anything: instruction words with random counts, small IDs, arbitrary words. */
      for (i = 0; i < count; ++i) {
        const uint32_t r = next_random();
        words[i] = (r & 3u) == 0 ? r : (r & 1u) ? (((r >> 8) % 6u + 1u) << 16 | (r >> 16) % 400u) : (r >> 4) % 300u;
      }
    } else {
      /* Instruction streams with the shapes of real ones (results in definition order inside functions most
       * of the time), which pack small enough to unpack in place. */
      uint32_t next_id = 1;
      for (i = 0; i < 5; ++i) words[i] = next_random();
      for (i = 5; i < count;) {
        const uint32_t opcode = opcodes[next_random() % (sizeof opcodes / sizeof opcodes[0])];
        size_t n = 1u + next_random() % 5u, k;
        if (n > count - i) n = count - i;
        words[i] = (uint32_t)n << 16 | opcode;
        for (k = 1; k < n; ++k) words[i + k] = next_random() % 8u == 0 ? next_random() : next_random() % next_id + 1u;
        if (n > 2 && next_random() % 4u != 0) words[i + 2] = next_id++;
        i += n;
      }
    }
    SBK_TEST_CHECK(sbk_spirv_pack(words, count, packed, SBK_SPIRV_PACK_BOUND(count), &packed_size) == SBK_OK);
    {
      /* Into a separate buffer every sequence comes back; in place, only where the order allows. */
      uint32_t* back = (uint32_t*)malloc(count * 4u);
      SBK_TEST_CHECK(sbk_spirv_unpack(packed, packed_size, back, count * 4u) == SBK_OK);
      SBK_TEST_CHECK(memcmp(back, words, count * 4u) == 0);
      SBK_TEST_CHECK(sbk_spirv_unpack(packed, packed_size, back, count * 4u - 4u) == SBK_ERROR_CORRUPT);
      free(back);
    }
    if (packed_size <= count * 4u && unpack_gives_original_or_corrupt(packed, packed_size, words, count * 4u, &other_words))
      ++in_place;
    free(words);
    free(packed);
  }
  /* The coding itself must never give other words for an undamaged stream. */
  SBK_TEST_CHECK(other_words == 0);
  printf("random sequences: 2000 round-tripped, %lu of them also in place (the rest refused there: in-place order)\n",
         in_place);
}

/* A head that codes a word count of 0 is corrupt at any output size: with more than 2^32 words left a 32-bit
 * count check once let it through to a decode of 2^32 - 1 operands. The output is 16 GiB of address space,
 * reserved and never touched (Linux, 64-bit). */
static void check_zero_count_with_a_huge_output(void) {
#if defined(__linux__) && UINTPTR_MAX > 0xFFFFFFFFu
  const size_t raw_size = ((size_t)1 << 34) + 64u;
  static const uint8_t packed[] = {1, 1, 1, 1, 1, /* the header words */ 0x01, /* count 0, opcode 1 */ 2, 2};
  void* out = mmap(NULL, raw_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (out == MAP_FAILED) {
    printf("zero count with a 16 GiB output: skipped (no address space)\n");
    return;
  }
  SBK_TEST_CHECK(sbk_spirv_unpack(packed, sizeof packed, out, raw_size) == SBK_ERROR_CORRUPT);
  munmap(out, raw_size);
#endif
}

/* The fuzz seed of one module: its word count, then its packed bytes. */
static void write_seed(const char* dir, uint32_t m, const uint32_t* words, size_t count) {
  char path[4096];
  uint8_t* packed = (uint8_t*)malloc(SBK_SPIRV_PACK_BOUND(count));
  size_t packed_size = 0;
  const uint8_t header[4] = {(uint8_t)count, (uint8_t)(count >> 8), (uint8_t)(count >> 16), (uint8_t)(count >> 24)};
  FILE* f;
  snprintf(path, sizeof path, "%s/module_%u.bin", dir, m);
  SBK_TEST_CHECK(sbk_spirv_pack(words, count, packed, SBK_SPIRV_PACK_BOUND(count), &packed_size) == SBK_OK);
  f = fopen(path, "wb");
  SBK_TEST_CHECK(f != NULL);
  if (f) {
    SBK_TEST_CHECK(fwrite(header, 1, 4, f) == 4 && fwrite(packed, 1, packed_size, f) == packed_size);
    fclose(f);
  }
  free(packed);
}

int main(int argc, char** argv) {
  sbk_bundle bundle;
  uint32_t m, modules;
  unsigned long other_words = 0, corrupt = 0, checked = 0, stored_packed = 0, with_parent = 0;
  int seeds_written = 0;
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: spirv_pack BUNDLE [SEED_DIR]\n");
    return 2;
  }
  check_zero_count_with_a_huge_output();
  SBK_TEST_CHECK(sbk_bundle_open_file(&bundle, argv[1]) == SBK_OK);
  modules = sbk_bundle_module_count(&bundle);
  SBK_TEST_CHECK(modules > 0);
  for (m = 0; m < modules; ++m) {
    sbk_module_info info;
    uint32_t* words;
    size_t size = 0;
    SBK_TEST_CHECK(sbk_bundle_module_info(&bundle, m, &info) == SBK_OK);
    stored_packed += (sbk__module_flags(sbk__module_entry(&bundle, m)) & 2u) != 0;
    with_parent += info.parent != SBK_NO_MODULE;
    words = (uint32_t*)malloc(info.raw_size);
    SBK_TEST_CHECK(sbk_bundle_read_module(&bundle, m, words, info.raw_size, &size, NULL) == SBK_OK);
    SBK_TEST_CHECK(locals_in_definition_order(words, size / 4u));
    /* Seeds: the first vertex module, the first fragment module, and the largest-indexed module over 8 KB. */
    if (argc == 3 && ((info.stage == 1u && !(seeds_written & 1)) || (info.stage == 16u && !(seeds_written & 2)) ||
                      (size > 8192u && !(seeds_written & 4)))) {
      write_seed(argv[2], m, words, size / 4u);
      seeds_written |= info.stage == 1u && !(seeds_written & 1) ? 1 : info.stage == 16u && !(seeds_written & 2) ? 2 : 4;
    }
    /* Damage cases are quadratic in a module's size: every module round-trips, every 10th is damaged. */
    if (m % 10u == 0) {
      check_module(words, size, &other_words, &corrupt);
      ++checked;
    } else {
      uint8_t* packed = (uint8_t*)malloc(SBK_SPIRV_PACK_BOUND(size / 4u));
      size_t packed_size = 0;
      SBK_TEST_CHECK(sbk_spirv_pack(words, size / 4u, packed, SBK_SPIRV_PACK_BOUND(size / 4u), &packed_size) == SBK_OK);
      SBK_TEST_CHECK(unpack_gives_original_or_corrupt(packed, packed_size, words, size, &other_words));
      free(packed);
    }
    free(words);
  }
  sbk_bundle_close(&bundle);
  printf("modules: %u round-tripped (%lu stored packed, %lu with a parent); %lu damaged every way: %lu refused, "
         "%lu decoded to other words (left to the read's checksum)\n",
         modules, stored_packed, with_parent, checked, corrupt, other_words);
  SBK_TEST_CHECK(corrupt > 0);
  SBK_TEST_CHECK(stored_packed * 2u > modules);
  SBK_TEST_CHECK(with_parent > 0);
  check_random_sequences();
  if (sbk_test_failures) fprintf(stderr, "spirv_pack: %d failures\n", sbk_test_failures);
  return sbk_test_failures ? 1 : 0;
}

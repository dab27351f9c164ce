/* SPDX-License-Identifier: MIT */
/*
 * The bundle loader against damaged bytes: a plain C99 program over runtime_loader/shaderbake.h (and the nv2a
 * guest's bundle check of shaderbake_nv2a.h), libxxhash and libzstd. It reads an intact bundle and records
 * what every call returns (the truth), then damages copies:
 *
 *   truncation   every length 0..size-1, each in a buffer that ends where the copy ends (so ASan sees any
 *                overread; see copy_of): open fails, SBK_ERROR_NOT_A_BUNDLE below 8 bytes, SBK_ERROR_CORRUPT
 *                from 8 on.
 *                The same lengths "re-sealed" (the header claims the shorter size and its check is recomputed,
 *                as a buggy writer would leave them) must fail open too: the sections no longer fit.
 *   guest        another guest model or key schema, re-sealed: open accepts it (the format is intact) and
 *                sbk_nv2a_check_bundle refuses it (SBK_ERROR_VERSION).
 *   header       every bit of the header and the section table: open fails. The same flips re-sealed get past
 *                the header check into the section-table rules: every call then gives an error or the truth.
 *   flips        seeded random single-bit flips anywhere in the file.
 *   overwrites   seeded random damage of 8 bytes at random places with random values.
 *
 * On a damaged bundle that opens, every call must return an error (or a miss: SBK_NOT_FOUND for a key the
 * bundle holds) or exactly the truth: a hit has the original entry's fields and key bytes, a module read that
 * succeeds gives the original bytes, and so on. The router data is held to the same rule (every
 * dynamic-state fallback recipe by index and by search, the vertex defaults, every prewarm position), with one
 * documented allowance: a PREWARM position whose own bytes the damage touched may name another exact pipeline
 * entry or frame (the loader checks the entry, not the section's checksum; check_sections must then notice). Besides, open or sbk_bundle_check_sections must notice every
 * change of any byte: sections by their checksums, the zero padding between them by check_sections' rule that
 * padding is zero (schemas/bundle.md).
 *
 * Built with SBK_TEST_DRIVER_CHECKS (bundle_robustness_driver_checks, linked with lib/bundle), every damaged
 * bundle that opens also goes through bundle::check_before_driver, what `shaderbake warm` runs before it opens a
 * Vulkan device (tests/loader/driver_checks_hook.cpp): it must return normally, and refuse every damage that open
 * lets through, or else give warm exactly the intact recipes (every pipeline entry, its two modules and its
 * layout read and equal the truth; every dynamic-state fallback recipe reads and so do its modules and layout,
 * equal to the truth unless the damage was sealed: recipes and defaults have no check of their own, so a sealed
 * flip there makes another valid bundle, which the checks may accept). A further mode reaches the checks behind the checksums:
 *   sealed flips seeded random single-bit flips after the section table, then every section checksum and the
 *                header check recomputed (as a hostile writer would): the checks refuse, or the recipes are intact.
 *
 * Usage: bundle_robustness BUNDLE [--seed N] [--flips N] [--overwrites N] [--modules N] [--all-modules]
 *                                 [--sealed-flips N] (SBK_TEST_DRIVER_CHECKS builds)
 *   --seed        PRNG seed (xorshift64*; printed at start so a failure can be replayed)
 *   --flips       random single-bit flips (default 10000)
 *   --overwrites  random 8-byte overwrites (default 2000)
 *   --modules     modules read per damaged bundle besides those the damage touches (default 2)
 *   --all-modules read every module of every damaged bundle (slow; for a thorough run by hand)
 *   --sealed-flips sealed flips (default 300; only with SBK_TEST_DRIVER_CHECKS)
 *
 * libxxhash is compiled into this file (XXH_INLINE_ALL, still libxxhash's own code) so that ASan also sees the
 * ranges the loader hashes. zstd stays the uninstrumented system library: the loader's bounds checks of the
 * frames it hands to zstd are what this test exercises there.
 */
#define XXH_INLINE_ALL
#include <xxhash.h>
#ifndef SBK_TEST_DRIVER_CHECKS
#define SHADERBAKE_IMPLEMENTATION /* else lib/bundle's shaderbake_runtime, which the hook links, holds it */
#endif
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

/* ---- failures ---- */

static unsigned long failures = 0;
static char current_case[160] = "intact bundle";

static void fail(const char* format, ...) {
  va_list args;
  if (++failures > 40) return; /* enough to diagnose; the count is printed at the end */
  fprintf(stderr, "FAIL [%s]: ", current_case);
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
}

static void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "bundle_robustness: out of memory\n");
    exit(2);
  }
  return p;
}

/* ---- PRNG: xorshift64* ---- */

static uint64_t rng_next(uint64_t* state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 2685821657736338717ull;
}

static uint64_t rng_below(uint64_t* state, uint64_t n) { return n ? (rng_next(state) >> 11) % n : 0; }

/* ---- little-endian helpers (the test parses a few tables itself to know what damage touches) ---- */

static uint32_t le32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void put64(uint8_t* p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- the truth ---- */

/* Regions of the file, for counting where damage landed and what noticed it. */
enum { REGION_HEADER, REGION_TABLE, REGION_PADDING, REGION_SECTION0 }; /* + section type */
#define REGION_COUNT (REGION_SECTION0 + SBK_SECTION_TYPE_COUNT)
static const char* const region_names[REGION_COUNT] = {
    "header",  "section table", "padding",    "?",       "META",   "INDEX",       "RECORDS",
    "MODULES", "MODULE_DATA",   "DICTIONARY", "LAYOUTS", "REPORT", "DRIVER_CACHE", "DYNAMIC_FALLBACKS",
    "PREWARM", "SHADER_KEYS",   "HOST_STATES", "HOST_STATE_PARTS", "SPECIALIZATION_DATA"};

typedef struct decoded_pipeline {
  uint8_t route;
  size_t fragment_offset, fragment_size; /* the fragment key's place inside the pipeline key */
  uint8_t host[SBK_HOST_STATE_MAX_SIZE]; /* the decoded host state, encoded again */
  size_t host_size;
} decoded_pipeline;

typedef struct truth {
  const uint8_t* data; /* the intact bundle (8-aligned, owned) */
  size_t size;
  uint32_t entry_count, module_count, layout_count;
  sbk_entry* entries;          /* as the loader gives them (a pipeline's key pointer is NULL) */
  uint8_t** keys;              /* owned copies of every entry's full key (sbk_bundle_entry_key) */
  int* mutated_key_index;      /* entry whose key equals the mutated probe key of entry i, or -1 */
  decoded_pipeline* pipelines; /* per entry (pipeline entries only) */
  sbk_module_info* module_infos;
  uint8_t** modules;       /* raw SPIR-V bytes */
  uint64_t* frame_offsets; /* absolute file offsets of each module's zstd frame */
  int* module_uses_dictionary;
  size_t max_module_size;
  sbk_layout* layouts;
  int has_report;
  char* report;
  size_t report_size;
  uint64_t table_end;
  uint64_t section_offset[SBK_SECTION_TYPE_COUNT], section_size[SBK_SECTION_TYPE_COUNT];
  uint32_t recipe_count; /* DYNAMIC_FALLBACKS (0 without the section) */
  sbk_dynamic_fallback* recipes;
  int has_defaults;
  uint32_t location_mask;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  uint32_t prewarm_count; /* PREWARM (0 without the section) */
  uint32_t* prewarm_entries;
  uint32_t* prewarm_frames;
} truth;

static int region_of(const truth* t, uint64_t at) {
  uint32_t type;
  if (at < SBK_BUNDLE_HEADER_SIZE) return REGION_HEADER;
  if (at < t->table_end) return REGION_TABLE;
  for (type = 1; type < SBK_SECTION_TYPE_COUNT; ++type)
    if (t->section_size[type] != 0 && at >= t->section_offset[type] &&
        at - t->section_offset[type] < t->section_size[type])
      return REGION_SECTION0 + (int)type;
  return REGION_PADDING;
}

/* The mutated probe key of an entry: its key with the last byte changed (never in a well-formed bundle,
 * unless another entry happens to hold exactly those bytes, which the truth records). */
static void mutate_key(const uint8_t* key, uint32_t size, uint8_t* out) {
  memcpy(out, key, size);
  out[size - 1] ^= 0x5Au;
}

static int decode_pipeline(const uint8_t* key, uint32_t key_size, decoded_pipeline* out) {
  const uint8_t* fragment = NULL;
  sbk_host_state host;
  memset(out, 0, sizeof *out);
  if (sbk_decode_pipeline_key(key, key_size, &out->route, &fragment, &out->fragment_size, &host) != SBK_OK) return 0;
  out->fragment_offset = (size_t)(fragment - key);
  return sbk_encode_host_state(&host, out->host, sizeof out->host, &out->host_size) == SBK_OK;
}

static int record_truth(truth* t, const uint8_t* data, size_t size) {
  sbk_bundle b;
  sbk_result r;
  uint32_t i, j;
  uint64_t section_bytes;
  const uint8_t* section;
  ZSTD_DCtx* dctx;
  memset(t, 0, sizeof *t);
  t->data = data;
  t->size = size;
  r = sbk_bundle_open_memory(&b, data, size);
  if (r != SBK_OK) {
    fprintf(stderr, "bundle_robustness: the intact bundle does not open: %s\n", sbk_result_name(r));
    return 0;
  }
  if (sbk_bundle_check_sections(&b) != SBK_OK) {
    fprintf(stderr, "bundle_robustness: the intact bundle fails its section checksums\n");
    return 0;
  }
  t->table_end = SBK_BUNDLE_HEADER_SIZE + (uint64_t)le32(data + 24) * SBK_BUNDLE_SECTION_ENTRY_SIZE;
  for (i = 1; i < SBK_SECTION_TYPE_COUNT; ++i) {
    section = sbk_bundle_section(&b, (sbk_section_type)i, &section_bytes);
    if (section == NULL) continue;
    t->section_offset[i] = (uint64_t)(section - data);
    t->section_size[i] = section_bytes;
  }
  for (i = 0; i < le32(data + 24); ++i) /* the test knows every section type the writer uses */
    if (le32(data + SBK_BUNDLE_HEADER_SIZE + 32u * i) >= SBK_SECTION_TYPE_COUNT) {
      fprintf(stderr, "bundle_robustness: section type %u is unknown to this test\n",
              le32(data + SBK_BUNDLE_HEADER_SIZE + 32u * i));
      return 0;
    }
  {
    uint64_t at, nonzero = 0;
    for (at = t->table_end; at < size; ++at)
      if (region_of(t, at) == REGION_PADDING && data[at] != 0) ++nonzero;
    if (nonzero) fail("%llu padding bytes are not zero", (unsigned long long)nonzero);
  }

  t->entry_count = sbk_bundle_entry_count(&b);
  t->entries = (sbk_entry*)xmalloc(sizeof(sbk_entry) * t->entry_count);
  t->keys = (uint8_t**)xmalloc(sizeof(uint8_t*) * t->entry_count);
  t->mutated_key_index = (int*)xmalloc(sizeof(int) * t->entry_count);
  t->pipelines = (decoded_pipeline*)xmalloc(sizeof(decoded_pipeline) * t->entry_count);
  for (i = 0; i < t->entry_count; ++i) {
    sbk_entry found;
    r = sbk_bundle_entry_at(&b, i, &t->entries[i]);
    if (r != SBK_OK) {
      fprintf(stderr, "bundle_robustness: entry %u of the intact bundle: %s\n", i, sbk_result_name(r));
      return 0;
    }
    t->keys[i] = (uint8_t*)xmalloc(t->entries[i].key_size);
    {
      size_t got = 0;
      if (sbk_bundle_entry_key(&b, i, t->keys[i], t->entries[i].key_size, &got) != SBK_OK ||
          got != t->entries[i].key_size ||
          (t->entries[i].key != NULL && memcmp(t->keys[i], t->entries[i].key, got) != 0)) {
        fprintf(stderr, "bundle_robustness: entry %u of the intact bundle: its key does not assemble\n", i);
        return 0;
      }
    }
    if (sbk_bundle_find(&b, t->keys[i], t->entries[i].key_size, &found) != SBK_OK || found.index != i) {
      fprintf(stderr, "bundle_robustness: entry %u of the intact bundle is not found by its key\n", i);
      return 0;
    }
    if (t->entries[i].kind == SBK_KEY_KIND_PIPELINE &&
        !decode_pipeline(t->keys[i], t->entries[i].key_size, &t->pipelines[i])) {
      fprintf(stderr, "bundle_robustness: pipeline key of entry %u does not decode\n", i);
      return 0;
    }
  }
  for (i = 0; i < t->entry_count; ++i) {
    uint8_t* mutated = (uint8_t*)xmalloc(t->entries[i].key_size);
    mutate_key(t->keys[i], t->entries[i].key_size, mutated);
    t->mutated_key_index[i] = -1;
    for (j = 0; j < t->entry_count; ++j)
      if (t->entries[j].key_size == t->entries[i].key_size && memcmp(t->keys[j], mutated, t->entries[i].key_size) == 0)
        t->mutated_key_index[i] = (int)j;
    free(mutated);
  }

  t->module_count = sbk_bundle_module_count(&b);
  t->module_infos = (sbk_module_info*)xmalloc(sizeof(sbk_module_info) * t->module_count);
  t->modules = (uint8_t**)xmalloc(sizeof(uint8_t*) * t->module_count);
  t->frame_offsets = (uint64_t*)xmalloc(sizeof(uint64_t) * t->module_count);
  t->module_uses_dictionary = (int*)xmalloc(sizeof(int) * t->module_count);
  dctx = ZSTD_createDCtx();
  for (i = 0; i < t->module_count; ++i) {
    const uint8_t* row = data + t->section_offset[SBK_SECTION_MODULES] + 8u + (uint64_t)SBK_BUNDLE_MODULE_ENTRY_SIZE * i;
    size_t got = 0;
    if (sbk_bundle_module_info(&b, i, &t->module_infos[i]) != SBK_OK) {
      fprintf(stderr, "bundle_robustness: module %u of the intact bundle has no info\n", i);
      return 0;
    }
    t->modules[i] = (uint8_t*)xmalloc(t->module_infos[i].raw_size);
    r = sbk_bundle_read_module(&b, i, t->modules[i], t->module_infos[i].raw_size, &got, dctx);
    if (r != SBK_OK || got != t->module_infos[i].raw_size) {
      fprintf(stderr, "bundle_robustness: module %u of the intact bundle: %s\n", i, sbk_result_name(r));
      return 0;
    }
    if (got > t->max_module_size) t->max_module_size = got;
    t->frame_offsets[i] = t->section_offset[SBK_SECTION_MODULE_DATA] + le32(row);
    t->module_uses_dictionary[i] = (int)(row[26] & 1u);
  }
  ZSTD_freeDCtx(dctx);
  /* Prepared (the dictionary digested once), each module reads to the same bytes. */
  {
    sbk_bundle prepared;
    uint32_t children = 0, parents = 0, k;
    size_t got_small = 0;
    uint8_t* buffer = (uint8_t*)xmalloc(t->max_module_size ? t->max_module_size : 1u);
    if (sbk_bundle_open_memory(&prepared, data, size) != SBK_OK || sbk_bundle_prepare_dictionary(&prepared) != SBK_OK) {
      fprintf(stderr, "bundle_robustness: the intact bundle cannot be prepared\n");
      return 0;
    }
    for (i = 0; i < t->module_count; ++i) {
      size_t got = 0;
      children += t->module_infos[i].parent != SBK_NO_MODULE;
      if (sbk_bundle_read_module(&prepared, i, buffer, t->module_infos[i].raw_size, &got, NULL) != SBK_OK ||
          got != t->module_infos[i].raw_size || memcmp(buffer, t->modules[i], got) != 0) {
        fprintf(stderr, "bundle_robustness: module %u of the intact bundle reads otherwise once prepared\n", i);
        return 0;
      }
    }
    for (i = 0; i < t->module_count; ++i)
      for (k = 0; k < t->module_count; ++k)
        if (t->module_infos[k].parent == i) {
          ++parents;
          break;
        }
    /* A module reader reads every module to the same bytes: in the read order (each parent, then its children),
     * and in reverse index order (a child's parent seldom the one the reader holds), prepared and not. The read
     * order holds every module once, each child in its parent's group. */
    {
      uint32_t* order = (uint32_t*)xmalloc(sizeof(uint32_t) * (t->module_count + 1u));
      uint8_t* seen = (uint8_t*)calloc(t->module_count + 1u, 1);
      uint32_t group = SBK_NO_MODULE, pass;
      if (sbk_bundle_module_read_order(&b, order) != SBK_OK) {
        fprintf(stderr, "bundle_robustness: no read order for the intact bundle\n");
        return 0;
      }
      for (i = 0; i < t->module_count; ++i) {
        const uint32_t m = order[i];
        if (m >= t->module_count || seen[m]++) {
          fprintf(stderr, "bundle_robustness: the read order is not a permutation of the modules (position %u)\n", i);
          return 0;
        }
        if (t->module_infos[m].parent == SBK_NO_MODULE)
          group = m;
        else if (t->module_infos[m].parent != group) {
          fprintf(stderr, "bundle_robustness: the read order puts module %u outside its parent's group\n", m);
          return 0;
        }
      }
      for (pass = 0; pass < 4; ++pass) {
        sbk_module_reader reader;
        if (sbk_module_reader_init(&reader, pass < 2 ? &b : &prepared) != SBK_OK) {
          fprintf(stderr, "bundle_robustness: a module reader cannot be made\n");
          return 0;
        }
        for (i = 0; i < t->module_count; ++i) {
          const uint32_t m = pass % 2 == 0 ? order[i] : t->module_count - 1u - i;
          size_t got = 0;
          if (sbk_module_reader_read(&reader, m, buffer, t->module_infos[m].raw_size, &got) != SBK_OK ||
              got != t->module_infos[m].raw_size || memcmp(buffer, t->modules[m], got) != 0) {
            fprintf(stderr, "bundle_robustness: a module reader reads module %u of the intact bundle otherwise\n", m);
            return 0;
          }
        }
        if (t->module_count > 0 &&
            sbk_module_reader_read(&reader, 0, buffer, t->module_infos[0].raw_size - 4u, &got_small) !=
                SBK_ERROR_BUFFER_TOO_SMALL) {
          fprintf(stderr, "bundle_robustness: a module reader writes past a small buffer\n");
          return 0;
        }
        sbk_module_reader_free(&reader);
        sbk_module_reader_free(&reader); /* safe twice */
      }
      free(order);
      free(seen);
    }
    printf("bundle_robustness: %u modules, %u compressed against one of %u parents, read alike prepared and not, "
           "by a module reader in read order and in reverse\n",
           t->module_count, children, parents);
    free(buffer);
    sbk_bundle_close(&prepared);
  }

  t->layout_count = sbk_bundle_layout_count(&b);
  t->layouts = (sbk_layout*)xmalloc(sizeof(sbk_layout) * t->layout_count);
  for (i = 0; i < t->layout_count; ++i)
    if (sbk_bundle_layout(&b, i, &t->layouts[i]) != SBK_OK) {
      fprintf(stderr, "bundle_robustness: layout %u of the intact bundle does not read\n", i);
      return 0;
    }

  t->recipe_count = sbk_bundle_dynamic_fallback_count(&b);
  t->recipes = (sbk_dynamic_fallback*)xmalloc(sizeof(sbk_dynamic_fallback) * t->recipe_count);
  for (i = 0; i < t->recipe_count; ++i)
    if (sbk_bundle_dynamic_fallback(&b, i, &t->recipes[i]) != SBK_OK) {
      fprintf(stderr, "bundle_robustness: dynamic fallback %u of the intact bundle does not read\n", i);
      return 0;
    }
  r = sbk_bundle_vertex_defaults(&b, &t->location_mask, t->defaults);
  t->has_defaults = r == SBK_OK;
  if (r != SBK_OK && (r != SBK_NOT_FOUND || t->recipe_count != 0)) {
    fprintf(stderr, "bundle_robustness: the vertex defaults of the intact bundle: %s\n", sbk_result_name(r));
    return 0;
  }
  t->prewarm_count = sbk_bundle_prewarm_count(&b);
  t->prewarm_entries = (uint32_t*)xmalloc(sizeof(uint32_t) * t->prewarm_count);
  t->prewarm_frames = (uint32_t*)xmalloc(sizeof(uint32_t) * t->prewarm_count);
  for (i = 0; i < t->prewarm_count; ++i)
    if (sbk_bundle_prewarm_at(&b, i, &t->prewarm_entries[i], &t->prewarm_frames[i]) != SBK_OK) {
      fprintf(stderr, "bundle_robustness: prewarm position %u of the intact bundle does not read\n", i);
      return 0;
    }

  r = sbk_bundle_read_report(&b, NULL, 0, &t->report_size);
  t->has_report = r != SBK_NOT_FOUND;
  if (t->has_report) {
    size_t got = 0;
    if (r != SBK_ERROR_BUFFER_TOO_SMALL) {
      fprintf(stderr, "bundle_robustness: sizing the report of the intact bundle: %s\n", sbk_result_name(r));
      return 0;
    }
    t->report = (char*)xmalloc(t->report_size);
    if (sbk_bundle_read_report(&b, t->report, t->report_size, &got) != SBK_OK || got != t->report_size) {
      fprintf(stderr, "bundle_robustness: the report of the intact bundle does not read\n");
      return 0;
    }
  }
  sbk_bundle_close(&b);
  return 1;
}

/* ---- one damaged bundle ---- */

#ifdef SBK_TEST_DRIVER_CHECKS
/* tests/loader/driver_checks_hook.cpp: 1 when bundle::check_before_driver passes on an open bundle, else 0. */
int sbk_test_driver_checks_pass(const sbk_bundle* bundle);
#endif

typedef struct outcome {
  int driver_refused; /* SBK_TEST_DRIVER_CHECKS: check_before_driver refused the bundle */
  int open_failed;
  int probe_error; /* find or entry_at returned an error */
  int probe_miss;  /* find missed a key the intact bundle holds */
  int read_error;  /* module_info, read_module, layout or read_report returned an error */
  int sections_failed;
} outcome;

typedef struct options {
  uint64_t seed;
  unsigned long flips, overwrites, modules, sealed_flips;
  int all_modules;
} options;

typedef struct context {
  const truth* t;
  const options* o;
  uint64_t rng;
  ZSTD_DCtx* dctx;
  uint8_t* module_buffer;
  char* report_buffer;
  uint8_t* mutated_key;
  size_t max_key_size;
  uint8_t* module_marks; /* per module: already read for this case */
  sbk_module_reader* reader; /* this case's: its cached parent is decoded from the damaged bytes */
  int resealed;          /* the header check was recomputed over the damage: the bundle is self-consistent */
  int sealed;            /* every checksum was recomputed over the damage: reads may succeed with other bytes */
  unsigned long cases_run;
} context;

static int is_error(sbk_result r) {
  return r == SBK_ERROR_CORRUPT || r == SBK_ERROR_BUFFER_TOO_SMALL || r == SBK_ERROR_OUT_OF_MEMORY;
}

/* The fields of an entry, and a shader entry's key bytes (a pipeline's key is stored in parts: its pointer is
 * NULL; check_pipeline_decode assembles it). */
static int same_entry(const truth* t, const sbk_entry* got, const sbk_entry* want) {
  const int key_same = want->key == NULL ? got->key == NULL
                                         : got->key != NULL && memcmp(got->key, t->keys[want->index], want->key_size) == 0;
  return got->index == want->index && got->kind == want->kind && got->key_size == want->key_size && key_same &&
         got->status == want->status && got->fragment_module == want->fragment_module &&
         got->vertex_module == want->vertex_module && got->layout == want->layout && got->rejection == want->rejection &&
         got->route == want->route && got->shader_entry == want->shader_entry && got->host_state == want->host_state;
}

static void check_pipeline_decode(context* c, const sbk_bundle* b, const sbk_entry* e) {
  decoded_pipeline d;
  const decoded_pipeline* want = &c->t->pipelines[e->index];
  uint8_t key[1024];
  size_t size = 0;
  if (e->key_size > sizeof key) {
    fail("pipeline key of entry %u is larger than this test expects", e->index);
    return;
  }
  if (sbk_bundle_entry_key(b, e->index, key, sizeof key, &size) != SBK_OK || size != e->key_size ||
      memcmp(key, c->t->keys[e->index], size) != 0) {
    fail("the key of pipeline entry %u assembles differently although the entry reads", e->index);
    return;
  }
  if (!decode_pipeline(key, (uint32_t)size, &d)) {
    fail("pipeline key of entry %u no longer decodes although its bytes are intact", e->index);
    return;
  }
  if (d.route != want->route || d.fragment_offset != want->fragment_offset || d.fragment_size != want->fragment_size ||
      d.host_size != want->host_size || memcmp(d.host, want->host, d.host_size) != 0)
    fail("pipeline key of entry %u decodes differently", e->index);
}

static void probe_all(context* c, const sbk_bundle* b, outcome* out) {
  const truth* t = c->t;
  uint32_t i, count = sbk_bundle_entry_count(b);
  sbk_entry e;
  sbk_result r;
  for (i = 0; i < t->entry_count; ++i) {
    const sbk_entry* want = &t->entries[i];
    r = sbk_bundle_find(b, t->keys[i], want->key_size, &e);
    if (r == SBK_OK) {
      if (!same_entry(t, &e, want)) fail("find(entry %u's key) hits with different data", i);
    } else if (r == SBK_NOT_FOUND) {
      out->probe_miss = 1;
    } else if (r == SBK_ERROR_CORRUPT) {
      out->probe_error = 1;
    } else {
      fail("find(entry %u's key) returned %s", i, sbk_result_name(r));
    }
    /* A key the bundle does not hold is never a hit (a sample of them: every key costs as much as the rest). */
    if (rng_below(&c->rng, t->entry_count) >= 32) continue;
    mutate_key(t->keys[i], want->key_size, c->mutated_key);
    r = sbk_bundle_find(b, c->mutated_key, want->key_size, &e);
    if (r == SBK_OK) {
      const int k = t->mutated_key_index[i];
      if (k < 0 || !same_entry(t, &e, &t->entries[k])) fail("find(a key the bundle lacks, after entry %u) hits", i);
    } else if (r == SBK_ERROR_CORRUPT) {
      out->probe_error = 1;
    } else if (r != SBK_NOT_FOUND) {
      fail("find(a key the bundle lacks, after entry %u) returned %s", i, sbk_result_name(r));
    }
  }
  for (i = 0; i < count; ++i) {
    r = sbk_bundle_entry_at(b, i, &e);
    if (r == SBK_OK) {
      if (i >= t->entry_count || !same_entry(t, &e, &t->entries[i]))
        fail("entry_at(%u) returns data that differs from the intact entry", i);
      else if (e.kind == SBK_KEY_KIND_PIPELINE)
        check_pipeline_decode(c, b, &e);
    } else if (r == SBK_ERROR_CORRUPT) {
      out->probe_error = 1;
    } else {
      fail("entry_at(%u) of %u returned %s", i, count, sbk_result_name(r));
    }
  }
  r = sbk_bundle_entry_at(b, count, &e);
  if (r != SBK_NOT_FOUND) fail("entry_at(count) returned %s", sbk_result_name(r));
}

static void read_module(context* c, const sbk_bundle* b, uint32_t m, outcome* out) {
  const truth* t = c->t;
  sbk_module_info info;
  size_t got = 0;
  sbk_result r;
  if (c->module_marks[m]) return;
  c->module_marks[m] = 1;
  r = sbk_bundle_module_info(b, m, &info);
  if (r == SBK_OK) {
    if (m >= t->module_count || info.stage != t->module_infos[m].stage ||
        info.raw_size != t->module_infos[m].raw_size || info.compressed_size != t->module_infos[m].compressed_size)
      fail("module_info(%u) returns data that differs from the intact module", m);
  } else if (r == SBK_ERROR_CORRUPT) {
    out->read_error = 1;
  } else {
    fail("module_info(%u) returned %s", m, sbk_result_name(r));
  }
  /* Read into the size the intact module had: a damaged size gives BUFFER_TOO_SMALL or CORRUPT, never more
   * bytes than the buffer holds. Every other read reuses the caller's context; every eighth allocates its own. */
  r = sbk_bundle_read_module(b, m, c->module_buffer, m < t->module_count ? t->module_infos[m].raw_size : 0, &got,
                             (rng_next(&c->rng) & 7u) ? c->dctx : NULL);
  if (r == SBK_OK) {
    if (m >= t->module_count || got != t->module_infos[m].raw_size || memcmp(c->module_buffer, t->modules[m], got) != 0)
      fail("read_module(%u) succeeds with bytes that differ from the intact module", m);
  } else if (is_error(r)) {
    out->read_error = 1;
  } else {
    fail("read_module(%u) returned %s", m, sbk_result_name(r));
  }
  /* The case's reader, which keeps the last parent it decoded from this damaged bundle: the same rule. */
  r = sbk_module_reader_read(c->reader, m, c->module_buffer, m < t->module_count ? t->module_infos[m].raw_size : 0,
                             &got);
  if (r == SBK_OK) {
    if (m >= t->module_count || got != t->module_infos[m].raw_size || memcmp(c->module_buffer, t->modules[m], got) != 0)
      fail("a module reader's read of %u succeeds with bytes that differ from the intact module", m);
  } else if (is_error(r)) {
    out->read_error = 1;
  } else {
    fail("a module reader's read of %u returned %s", m, sbk_result_name(r));
  }
}

/* Reads the modules the damage may have touched (found from the intact bundle's tables) and a random sample. */
static void read_modules(context* c, const sbk_bundle* b, const uint64_t* damaged, size_t damaged_count, outcome* out) {
  const truth* t = c->t;
  uint32_t count = sbk_bundle_module_count(b), m;
  size_t k;
  sbk_module_info info;
  sbk_module_reader reader;
  memset(c->module_marks, 0, count);
  if (sbk_module_reader_init(&reader, b) != SBK_OK) {
    fail("a module reader cannot be made");
    return;
  }
  c->reader = &reader;
  if (c->o->all_modules) {
    for (m = 0; m < count; ++m) read_module(c, b, m, out);
  } else {
    for (k = 0; k < damaged_count; ++k) {
      const uint64_t at = damaged[k];
      const int region = region_of(t, at);
      if (region == REGION_SECTION0 + SBK_SECTION_MODULES && at - t->section_offset[SBK_SECTION_MODULES] >= 8) {
        m = (uint32_t)((at - t->section_offset[SBK_SECTION_MODULES] - 8) / SBK_BUNDLE_MODULE_ENTRY_SIZE);
        if (m < count) read_module(c, b, m, out);
      } else if (region == REGION_SECTION0 + SBK_SECTION_MODULE_DATA) {
        /* The damaged frame's module, and the modules compressed against it (a child decodes with its parent's
         * content, prepared or not). */
        for (m = 0; m < t->module_count && m < count; ++m)
          if (at >= t->frame_offsets[m] && at - t->frame_offsets[m] < t->module_infos[m].compressed_size) {
            uint32_t child;
            read_module(c, b, m, out);
            for (child = 0; child < t->module_count && child < count; ++child)
              if (t->module_infos[child].parent == m) read_module(c, b, child, out);
          }
      } else if (region == REGION_SECTION0 + SBK_SECTION_DICTIONARY) {
        int taken = 0;
        uint32_t start = (uint32_t)rng_below(&c->rng, t->module_count);
        for (m = 0; m < t->module_count && m < count && taken < 3; ++m) {
          const uint32_t i = (start + m) % t->module_count;
          if (i < count && t->module_uses_dictionary[i]) {
            read_module(c, b, i, out);
            ++taken;
          }
        }
      }
    }
    for (k = 0; k < c->o->modules && count > 0; ++k) read_module(c, b, (uint32_t)rng_below(&c->rng, count), out);
  }
  if (sbk_bundle_module_info(b, count, &info) != SBK_NOT_FOUND) fail("module_info(count) is not NOT_FOUND");
  sbk_module_reader_free(&reader);
  c->reader = NULL;
}

static void read_rest(context* c, const sbk_bundle* b, outcome* out) {
  const truth* t = c->t;
  uint32_t l, count = sbk_bundle_layout_count(b);
  sbk_layout layout;
  size_t got = 0;
  sbk_result r;
  for (l = 0; l < count; ++l) {
    r = sbk_bundle_layout(b, l, &layout);
    if (r == SBK_OK) {
      if (l >= t->layout_count || memcmp(&layout, &t->layouts[l], sizeof layout) != 0)
        fail("layout(%u) returns data that differs from the intact layout", l);
    } else if (r == SBK_ERROR_CORRUPT) {
      out->read_error = 1;
    } else {
      fail("layout(%u) returned %s", l, sbk_result_name(r));
    }
  }
  if (sbk_bundle_layout(b, count, &layout) != SBK_NOT_FOUND) fail("layout(count) is not NOT_FOUND");

  r = sbk_bundle_read_report(b, c->report_buffer, t->report_size, &got);
  if (r == SBK_OK) {
    if (!t->has_report || got != t->report_size || memcmp(c->report_buffer, t->report, got) != 0)
      fail("read_report succeeds with bytes that differ from the intact report");
  } else if (r == SBK_NOT_FOUND) {
    /* A re-sealed section table may legitimately have lost the optional REPORT (its type changed). */
    if (t->has_report && !c->resealed) fail("read_report says there is no report");
  } else if (is_error(r)) {
    out->read_error = 1;
  } else {
    fail("read_report returned %s", sbk_result_name(r));
  }

  /* The intact bundle holds no driver cache (a re-sealed table can turn another section into one). */
  {
    static const uint8_t uuid[16] = {0};
    const void* blob = NULL;
    size_t blob_size = 0;
    r = sbk_bundle_driver_cache(b, 0x10005u, 0u, 1u, uuid, &blob, &blob_size);
    if (r == SBK_ERROR_CORRUPT) out->read_error = 1;
    else if (r != SBK_NOT_FOUND) fail("driver_cache returned %s for a bundle without one", sbk_result_name(r));
    if (blob != NULL || blob_size != 0) fail("driver_cache fills its outputs on a miss");
  }
}

/* Whether the truth holds recipe (family_entry, signature), and at which index (-1: none). */
static int truth_recipe_index(const truth* t, uint32_t family_entry, const sbk_attachment_signature* s) {
  uint32_t i;
  for (i = 0; i < t->recipe_count; ++i)
    if (t->recipes[i].family_entry == family_entry && memcmp(&t->recipes[i].signature, s, sizeof *s) == 0) return (int)i;
  return -1;
}

/* Whether entry `e` of the intact bundle is an exact-route pipeline. */
static int truth_is_exact_pipeline(const truth* t, uint32_t e) {
  return e < t->entry_count && t->entries[e].kind == SBK_KEY_KIND_PIPELINE && t->pipelines[e].route == SBK_ROUTE_EXACT;
}

static int damage_touches(const truth* t, int region, const uint64_t* damaged, size_t damaged_count) {
  size_t k;
  for (k = 0; k < damaged_count; ++k)
    if (region_of(t, damaged[k]) == region) return 1;
  return 0;
}

/* The router data: each call gives an error, a miss only where the re-sealed section table may
 * have lost the section, or exactly the truth (PREWARM: see the allowance at the top). */
static void read_router_data(context* c, const sbk_bundle* b, const uint64_t* damaged, size_t damaged_count,
                             outcome* out) {
  const truth* t = c->t;
  const uint32_t count = sbk_bundle_dynamic_fallback_count(b), prewarm = sbk_bundle_prewarm_count(b);
  const int prewarm_touched =
      c->resealed || damage_touches(t, REGION_SECTION0 + SBK_SECTION_PREWARM, damaged, damaged_count);
  uint32_t i, mask = 0, entry = 0, frame = 0;
  float defaults[SBK_VERTEX_LOCATIONS][4];
  sbk_dynamic_fallback d;
  sbk_result r;
  if (!c->resealed && (count != t->recipe_count || prewarm != t->prewarm_count))
    fail("the router data's counts changed (%u recipes, %u prewarm positions)", count, prewarm);
  for (i = 0; i <= count; ++i) {
    r = sbk_bundle_dynamic_fallback(b, i, &d);
    if (r == SBK_OK) {
      if (i >= t->recipe_count || memcmp(&d, &t->recipes[i], sizeof d) != 0)
        fail("dynamic_fallback(%u) returns data that differs from the intact recipe", i);
    } else if (r == SBK_ERROR_CORRUPT) {
      out->read_error = 1;
    } else if (r != SBK_NOT_FOUND || i < count) {
      fail("dynamic_fallback(%u) of %u returned %s", i, count, sbk_result_name(r));
    }
  }
  for (i = 0; i < t->recipe_count; ++i) {
    const sbk_dynamic_fallback* want = &t->recipes[i];
    sbk_attachment_signature other = want->signature;
    uint32_t index = 0;
    int k;
    r = sbk_bundle_find_dynamic_fallback(b, want->family_entry, &want->signature, &d, &index);
    if (r == SBK_OK) {
      if (index != i || memcmp(&d, want, sizeof d) != 0) fail("find_dynamic_fallback(recipe %u) hits with different data", i);
    } else if (r == SBK_ERROR_CORRUPT) {
      out->read_error = 1;
    } else if (r != SBK_NOT_FOUND || !c->resealed) {
      fail("find_dynamic_fallback(recipe %u) returned %s", i, sbk_result_name(r));
    }
    if (r != SBK_OK && index != 0xFFFFFFFFu) fail("find_dynamic_fallback fills its index on a miss");
    /* A signature the bundle may lack: twice the samples. A hit must be a recipe of the truth. */
    other.samples *= 2u;
    k = truth_recipe_index(t, want->family_entry, &other);
    r = sbk_bundle_find_dynamic_fallback(b, want->family_entry, &other, &d, NULL);
    if (r == SBK_OK) {
      if (k < 0 || memcmp(&d, &t->recipes[k], sizeof d) != 0) fail("find_dynamic_fallback(a signature the bundle lacks) hits");
    } else if (r == SBK_ERROR_CORRUPT) {
      out->read_error = 1;
    } else if (r != SBK_NOT_FOUND) {
      fail("find_dynamic_fallback(another signature) returned %s", sbk_result_name(r));
    }
  }
  r = sbk_bundle_vertex_defaults(b, &mask, defaults);
  if (r == SBK_OK) {
    if (!t->has_defaults || mask != t->location_mask || memcmp(defaults, t->defaults, sizeof defaults) != 0)
      fail("vertex_defaults returns data that differs from the intact defaults");
  } else if (r == SBK_ERROR_CORRUPT) {
    out->read_error = 1;
  } else if (r != SBK_NOT_FOUND || (t->has_defaults && !c->resealed)) {
    fail("vertex_defaults returned %s", sbk_result_name(r));
  }
  if (r != SBK_OK && mask != 0) fail("vertex_defaults fills its mask when it fails");
  for (i = 0; i <= prewarm; ++i) {
    r = sbk_bundle_prewarm_at(b, i, &entry, &frame);
    if (r == SBK_OK) {
      const int same = i < t->prewarm_count && entry == t->prewarm_entries[i] && frame == t->prewarm_frames[i];
      if (!same && !(prewarm_touched && truth_is_exact_pipeline(t, entry)))
        fail("prewarm_at(%u) returns entry %u frame %u, not the intact position's", i, entry, frame);
    } else if (r == SBK_ERROR_CORRUPT) {
      out->read_error = 1;
    } else if (r != SBK_NOT_FOUND || i < prewarm) {
      fail("prewarm_at(%u) of %u returned %s", i, prewarm, sbk_result_name(r));
    }
    if (r != SBK_OK && (entry != 0xFFFFFFFFu || frame != 0)) fail("prewarm_at fills its outputs when it fails");
  }
}

#ifdef SBK_TEST_DRIVER_CHECKS
/* What warm hands a driver once check_before_driver passed: every pipeline entry of the intact bundle, its
 * two modules and its layout, each read through the loader, must be there and be the truth. */
static void check_recipes_intact(context* c, const sbk_bundle* b) {
  const truth* t = c->t;
  uint32_t i, k;
  for (i = 0; i < t->entry_count; ++i) {
    const sbk_entry* want = &t->entries[i];
    sbk_entry e;
    sbk_layout layout;
    if (want->kind != SBK_KEY_KIND_PIPELINE) continue;
    if (sbk_bundle_entry_at(b, i, &e) != SBK_OK || !same_entry(t, &e, want)) {
      fail("the checks before a driver pass, but pipeline entry %u is not the intact one", i);
      continue;
    }
    for (k = 0; k < 2; ++k) {
      const uint32_t m = k == 0 ? want->vertex_module : want->fragment_module;
      size_t got = 0;
      if (sbk_bundle_read_module(b, m, c->module_buffer, t->module_infos[m].raw_size, &got, c->dctx) != SBK_OK ||
          got != t->module_infos[m].raw_size || memcmp(c->module_buffer, t->modules[m], got) != 0)
        fail("the checks before a driver pass, but module %u of pipeline entry %u is not the intact one", m, i);
    }
    if (sbk_bundle_layout(b, want->layout, &layout) != SBK_OK ||
        memcmp(&layout, &t->layouts[want->layout], sizeof layout) != 0)
      fail("the checks before a driver pass, but layout %u of pipeline entry %u is not the intact one", want->layout, i);
  }
  /* What a router creates: every dynamic-state fallback recipe (the intact ones, unless sealed damage made
   * another valid bundle), its modules and its layout read; so do the defaults and every prewarm position. */
  for (i = 0; i < sbk_bundle_dynamic_fallback_count(b); ++i) {
    sbk_dynamic_fallback d;
    sbk_layout layout;
    if (sbk_bundle_dynamic_fallback(b, i, &d) != SBK_OK) {
      fail("the checks before a driver pass, but dynamic fallback %u does not read", i);
      continue;
    }
    if (!c->sealed && (i >= t->recipe_count || memcmp(&d, &t->recipes[i], sizeof d) != 0))
      fail("the checks before a driver pass, but dynamic fallback %u is not the intact one", i);
    for (k = 0; k < 2; ++k) {
      const uint32_t m = k == 0 ? d.vertex_module : d.fragment_module;
      size_t got = 0;
      if (m >= t->module_count ||
          sbk_bundle_read_module(b, m, c->module_buffer, t->module_infos[m].raw_size, &got, c->dctx) != SBK_OK ||
          got != t->module_infos[m].raw_size || memcmp(c->module_buffer, t->modules[m], got) != 0)
        fail("the checks before a driver pass, but module %u of dynamic fallback %u is not an intact module", m, i);
    }
    if (sbk_bundle_layout(b, d.layout, &layout) != SBK_OK)
      fail("the checks before a driver pass, but the layout of dynamic fallback %u does not read", i);
  }
  if (sbk_bundle_dynamic_fallback_count(b) > 0) {
    uint32_t mask = 0;
    float defaults[SBK_VERTEX_LOCATIONS][4];
    if (sbk_bundle_vertex_defaults(b, &mask, defaults) != SBK_OK)
      fail("the checks before a driver pass, but the vertex defaults do not read");
  }
  for (i = 0; i < sbk_bundle_prewarm_count(b); ++i) {
    uint32_t entry = 0, frame = 0;
    if (sbk_bundle_prewarm_at(b, i, &entry, &frame) != SBK_OK || !truth_is_exact_pipeline(t, entry))
      fail("the checks before a driver pass, but prewarm position %u does not name an intact exact pipeline", i);
  }
}
#endif

/* Opens `data` (a damaged copy) and puts every call to the test. */
static void exercise(context* c, const uint8_t* data, size_t size, const uint64_t* damaged, size_t damaged_count,
                     outcome* out) {
  sbk_bundle b;
  sbk_result r;
  memset(out, 0, sizeof *out);
  r = sbk_bundle_open_memory(&b, data, size);
  if (r != SBK_OK) {
    if (r != SBK_ERROR_CORRUPT && r != SBK_ERROR_NOT_A_BUNDLE && r != SBK_ERROR_VERSION)
      fail("open returned %s", sbk_result_name(r));
    out->open_failed = 1;
    return;
  }
#ifdef SBK_TEST_DRIVER_CHECKS
  out->driver_refused = !sbk_test_driver_checks_pass(&b);
  if (!out->driver_refused) check_recipes_intact(c, &b);
  if (c->sealed) { /* the sealed bytes are the loader's truth now: only what warm would hand a driver is held */
    sbk_bundle_close(&b);
    return;
  }
#endif
  probe_all(c, &b, out);
  /* Every other case reads its modules through the digested dictionary (sbk_bundle_prepare_dictionary), the
   * way a renderer is told to: the same rule holds, an error or the true bytes. */
  if ((c->cases_run++ & 1u) != 0) {
    r = sbk_bundle_prepare_dictionary(&b);
    if (r == SBK_ERROR_CORRUPT) out->read_error = 1;
    else if (r != SBK_OK) fail("prepare_dictionary returned %s", sbk_result_name(r));
  }
  read_modules(c, &b, damaged, damaged_count, out);
  read_rest(c, &b, out);
  read_router_data(c, &b, damaged, damaged_count, out);
  out->sections_failed = sbk_bundle_check_sections(&b) != SBK_OK;
  sbk_bundle_close(&b);
}

/* ---- statistics ---- */

typedef struct tally {
  unsigned long cases, open, probe, miss, read, sections, undetected, driver_refused;
} tally;

static void count(tally* t, const outcome* o) {
  ++t->cases;
  if (o->open_failed) {
    ++t->open;
    return;
  }
  t->probe += (unsigned long)o->probe_error;
  t->miss += (unsigned long)o->probe_miss;
  t->read += (unsigned long)o->read_error;
  t->sections += (unsigned long)o->sections_failed;
  t->undetected += (unsigned long)!o->sections_failed;
  t->driver_refused += (unsigned long)o->driver_refused;
}

/* Damage that open lets through must be refused by check_before_driver too (SBK_TEST_DRIVER_CHECKS builds). */
static void require_driver_refusal(const outcome* o, const char* what) {
#ifdef SBK_TEST_DRIVER_CHECKS
  if (!o->open_failed && !o->driver_refused) fail("neither open nor the checks before a driver refuse %s", what);
#else
  (void)o;
  (void)what;
#endif
}

static void print_tally(const char* name, const tally* t) {
  printf(
      "  %-14s %7lu cases: open %7lu | opened: probe error %6lu, probe miss %6lu, read error %6lu, "
      "check_sections %6lu, undetected %5lu",
      name, t->cases, t->open, t->probe, t->miss, t->read, t->sections, t->undetected);
#ifdef SBK_TEST_DRIVER_CHECKS
  printf(", refused before a driver %6lu", t->driver_refused);
#endif
  printf("\n");
}

/* ---- the damage ---- */

/* Where a truncated copy of n bytes lives: a fresh malloc'ed buffer of exactly n bytes, so that ASan reports a
 * read of byte n (or of anything before the start). Fresh buffers of every length of a 200 KB bundle took ASan
 * three minutes (an mmap each past 128 KiB), so copies longer than 16 KiB (the header, the section table and
 * the first sections are all inside that) go flush against the end of one of 8 buffers kept for the whole
 * test, the one whose length is n modulo 8: the copy starts 8-aligned and byte n is still the first byte past
 * the allocation. */
#define FRESH_COPY_LIMIT (16u * 1024u)

typedef struct copies {
  uint8_t* buffer[8];
  size_t length[8];
} copies;

static void copies_init(copies* c, size_t size) {
  int r;
  for (r = 0; r < 8; ++r) {
    c->length[r] = size + (size_t)((r - (int)(size % 8) + 8) % 8); /* >= size, and = r modulo 8 */
    c->buffer[r] = (uint8_t*)xmalloc(c->length[r]);
  }
}

static void copies_free(copies* c) {
  int r;
  for (r = 0; r < 8; ++r) free(c->buffer[r]);
}

static uint8_t* copy_of(copies* c, const uint8_t* data, size_t n) {
  uint8_t* out;
  if (n <= FRESH_COPY_LIMIT) {
    out = (uint8_t*)malloc(n);
    if (out == NULL && n != 0) {
      fprintf(stderr, "bundle_robustness: out of memory\n");
      exit(2);
    }
  } else {
    out = c->buffer[n % 8] + (c->length[n % 8] - n);
  }
  if (n) memcpy(out, data, n);
  return out;
}

static void free_copy(uint8_t* copy, size_t n) {
  if (n <= FRESH_COPY_LIMIT) free(copy);
}

static void test_truncation(const truth* t) {
  size_t n;
  unsigned long not_a_bundle = 0, corrupt = 0;
  copies buffers;
  copies_init(&buffers, t->size);
  for (n = 0; n < t->size; ++n) {
    uint8_t* copy = copy_of(&buffers, t->data, n);
    sbk_bundle b;
    sbk_result r, want = n < 8 ? SBK_ERROR_NOT_A_BUNDLE : SBK_ERROR_CORRUPT;
    snprintf(current_case, sizeof current_case, "truncated to %zu of %zu bytes", n, t->size);
    r = sbk_bundle_open_memory(&b, copy, n);
    if (r != want) fail("open returned %s, want %s", sbk_result_name(r), sbk_result_name(want));
    not_a_bundle += r == SBK_ERROR_NOT_A_BUNDLE;
    corrupt += r == SBK_ERROR_CORRUPT;
    if (r == SBK_OK) sbk_bundle_close(&b);
    free_copy(copy, n);
  }
  printf("  %-14s %7zu cases: NOT_A_BUNDLE %lu (lengths 0-7), CORRUPT %lu\n", "truncated", t->size, not_a_bundle,
         corrupt);

  /* Re-sealed: the header states the shorter length and carries a valid check, so open must find the
   * sections that no longer fit. */
  corrupt = 0;
  for (n = SBK_BUNDLE_HEADER_SIZE; n < t->size; ++n) {
    sbk_bundle b;
    sbk_result r;
    uint8_t* copy = copy_of(&buffers, t->data, n);
    put64(copy + 16, n);
    if (n >= t->table_end)
      put64(copy + 56, XXH3_64bits_withSeed(copy + SBK_BUNDLE_HEADER_SIZE,
                                            (size_t)(t->table_end - SBK_BUNDLE_HEADER_SIZE), XXH3_64bits(copy, 56)));
    snprintf(current_case, sizeof current_case, "truncated to %zu of %zu bytes, header re-sealed", n, t->size);
    r = sbk_bundle_open_memory(&b, copy, n);
    if (r != SBK_ERROR_CORRUPT)
      fail("open returned %s, want %s", sbk_result_name(r), sbk_result_name(SBK_ERROR_CORRUPT));
    corrupt += r == SBK_ERROR_CORRUPT;
    if (r == SBK_OK) sbk_bundle_close(&b);
    free_copy(copy, n);
  }
  printf("  %-14s %7zu cases: CORRUPT %lu\n", "re-sealed", t->size - SBK_BUNDLE_HEADER_SIZE, corrupt);
  copies_free(&buffers);
}

static void test_trailing_bytes(const truth* t) {
  static const size_t extra[] = {1, 7, 8, 64};
  size_t i;
  for (i = 0; i < sizeof extra / sizeof extra[0]; ++i) {
    uint8_t* copy = (uint8_t*)xmalloc(t->size + extra[i]);
    sbk_bundle b;
    sbk_result r;
    memcpy(copy, t->data, t->size);
    memset(copy + t->size, 0, extra[i]);
    snprintf(current_case, sizeof current_case, "%zu trailing zero bytes", extra[i]);
    r = sbk_bundle_open_memory(&b, copy, t->size + extra[i]);
    if (r != SBK_ERROR_CORRUPT)
      fail("open returned %s, want %s", sbk_result_name(r), sbk_result_name(SBK_ERROR_CORRUPT));
    if (r == SBK_OK) sbk_bundle_close(&b);
    free(copy);
  }
}

/* Another guest model or key schema in the header, re-sealed: the format's checks pass, so open accepts the
 * bundle (the loader reads any guest's) and reports the fields through sbk_bundle_info; the nv2a header's check,
 * which the tool, the samples and a renderer of nv2a call after open, refuses it with SBK_ERROR_VERSION. The
 * intact bundle passes both. */
static void test_guest_and_key_schema(const truth* t, uint8_t* work) {
  static const struct {
    uint32_t at;
    uint8_t value;
    const char* what;
  } cases[] = {{48, 2, "guest model 2"},
               {48, SBK_GUEST_NONE, "guest model 0"},
               {50, SBK_NV2A_KEY_SCHEMA_VERSION + 1, "the next key schema"},
               {51, 1, "key schema 257"}};
  sbk_bundle b;
  sbk_header_info info;
  sbk_result r;
  size_t i;
  snprintf(current_case, sizeof current_case, "intact bundle: the nv2a check");
  if ((r = sbk_bundle_open_memory(&b, work, t->size)) != SBK_OK) {
    fail("open returned %s", sbk_result_name(r));
  } else {
    if ((r = sbk_nv2a_check_bundle(&b)) != SBK_OK) fail("sbk_nv2a_check_bundle returned %s", sbk_result_name(r));
    sbk_bundle_info(&b, &info);
    if (info.format_major != SBK_BUNDLE_FORMAT_MAJOR || info.format_minor != sbk_bundle_format_minor(&b) ||
        info.guest != SBK_GUEST_NV2A || info.key_schema != SBK_NV2A_KEY_SCHEMA_VERSION ||
        memcmp(info.toolchain_digest, t->data + 32, 16) != 0)
      fail("sbk_bundle_info does not give the header's fields");
    sbk_bundle_close(&b);
  }
  for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const uint8_t saved = work[cases[i].at];
    snprintf(current_case, sizeof current_case, "%s, header re-sealed", cases[i].what);
    work[cases[i].at] = cases[i].value;
    put64(work + 56, XXH3_64bits_withSeed(work + SBK_BUNDLE_HEADER_SIZE,
                                          (size_t)(t->table_end - SBK_BUNDLE_HEADER_SIZE), XXH3_64bits(work, 56)));
    if ((r = sbk_bundle_open_memory(&b, work, t->size)) != SBK_OK) {
      fail("open returned %s: it checks the format only", sbk_result_name(r));
    } else {
      sbk_bundle_info(&b, &info);
      if (info.guest != work[48] || info.key_schema != ((uint32_t)work[50] | ((uint32_t)work[51] << 8)))
        fail("sbk_bundle_info gives guest %u key schema %u", info.guest, info.key_schema);
      if ((r = sbk_nv2a_check_bundle(&b)) != SBK_ERROR_VERSION)
        fail("sbk_nv2a_check_bundle returned %s, want %s", sbk_result_name(r), sbk_result_name(SBK_ERROR_VERSION));
      sbk_bundle_close(&b);
    }
    work[cases[i].at] = saved;
    memcpy(work + 56, t->data + 56, 8);
  }
}

/* Every bit of the header and the section table, as is (the header check must refuse each) and re-sealed. */
static void test_header_bits(context* c, uint8_t* work) {
  const truth* t = c->t;
  uint64_t at;
  int bit;
  tally plain, sealed;
  outcome o;
  memset(&plain, 0, sizeof plain);
  memset(&sealed, 0, sizeof sealed);
  for (at = 0; at < t->table_end; ++at) {
    for (bit = 0; bit < 8; ++bit) {
      const uint8_t mask = (uint8_t)(1u << bit);
      work[at] ^= mask;
      snprintf(current_case, sizeof current_case, "bit %d of byte %llu (%s)", bit, (unsigned long long)at,
               region_names[region_of(t, at)]);
      exercise(c, work, t->size, &at, 1, &o);
      count(&plain, &o);
      if (!o.open_failed) fail("open accepts a damaged header or section table");
      /* Re-sealed: a valid check over the damaged bytes (not for the check itself, bytes 56..63, which
       * re-sealing would simply undo). */
      if (at < 56 || at >= SBK_BUNDLE_HEADER_SIZE) {
        snprintf(current_case, sizeof current_case, "bit %d of byte %llu (%s), header re-sealed", bit,
                 (unsigned long long)at, region_names[region_of(t, at)]);
        put64(work + 56, XXH3_64bits_withSeed(work + SBK_BUNDLE_HEADER_SIZE,
                                              (size_t)(t->table_end - SBK_BUNDLE_HEADER_SIZE), XXH3_64bits(work, 56)));
        c->resealed = 1;
        exercise(c, work, t->size, &at, 1, &o);
        c->resealed = 0;
        count(&sealed, &o);
        memcpy(work + 56, t->data + 56, 8);
      }
      work[at] ^= mask;
    }
  }
  print_tally("header bits", &plain);
  print_tally("  re-sealed", &sealed);
}

/* Every bit of every padding byte between sections: nothing but check_sections reads padding, so these open;
 * every answer must still be the intact one, and check_sections must refuse each (padding is zero). */
static void test_padding_bits(context* c, uint8_t* work) {
  const truth* t = c->t;
  uint64_t at;
  int bit;
  tally total;
  outcome o;
  memset(&total, 0, sizeof total);
  for (at = t->table_end; at < t->size; ++at) {
    if (region_of(t, at) != REGION_PADDING) continue;
    for (bit = 0; bit < 8; ++bit) {
      const uint8_t mask = (uint8_t)(1u << bit);
      snprintf(current_case, sizeof current_case, "bit %d of padding byte %llu", bit, (unsigned long long)at);
      work[at] ^= mask;
      exercise(c, work, t->size, &at, 1, &o);
      work[at] ^= mask;
      count(&total, &o);
      require_driver_refusal(&o, "a padding flip");
    }
  }
  print_tally("padding bits", &total);
  if (total.undetected) fail("%lu of %lu padding flips go unnoticed by open and check_sections", total.undetected, total.cases);
}

/* Row i of RECORDS replaced by the intact row of entry i+1 (20 bytes): rows are positional and each one's check
 * is seeded with its position and tag, so entry_at(i) and a probe must not pass entry i+1's row off as entry i. */
static void test_moved_rows(context* c, uint8_t* work) {
  const truth* t = c->t;
  const uint64_t records = t->section_offset[SBK_SECTION_RECORDS];
  uint32_t i;
  tally total;
  outcome o;
  memset(&total, 0, sizeof total);
  for (i = 0; t->entry_count > 1 && i < t->entry_count; ++i) {
    const uint64_t row = records + (uint64_t)SBK_BUNDLE_RECORD_SIZE * i;
    const uint64_t other = records + (uint64_t)SBK_BUNDLE_RECORD_SIZE * ((i + 1) % t->entry_count);
    uint64_t at[2];
    at[0] = row;
    at[1] = row + SBK_BUNDLE_RECORD_SIZE - 1;
    snprintf(current_case, sizeof current_case, "row %u replaced by the row of entry %u", i, (i + 1) % t->entry_count);
    memcpy(work + row, t->data + other, SBK_BUNDLE_RECORD_SIZE);
    exercise(c, work, t->size, at, 2, &o);
    memcpy(work + row, t->data + row, SBK_BUNDLE_RECORD_SIZE);
    count(&total, &o);
    if (!o.open_failed && !o.sections_failed) fail("neither open nor check_sections notices the damage");
    require_driver_refusal(&o, "a moved row");
  }
  print_tally("moved rows", &total);
}

static void test_random_flips(context* c, uint8_t* work) {
  const truth* t = c->t;
  tally total, by_region[REGION_COUNT];
  unsigned long i;
  int region;
  outcome o;
  memset(&total, 0, sizeof total);
  memset(by_region, 0, sizeof by_region);
  for (i = 0; i < c->o->flips; ++i) {
    const uint64_t at = rng_below(&c->rng, t->size);
    const int bit = (int)rng_below(&c->rng, 8);
    const uint8_t mask = (uint8_t)(1u << bit);
    region = region_of(t, at);
    snprintf(current_case, sizeof current_case, "flip %lu: bit %d of byte %llu (%s)", i, bit, (unsigned long long)at,
             region_names[region]);
    work[at] ^= mask;
    exercise(c, work, t->size, &at, 1, &o);
    work[at] ^= mask;
    count(&total, &o);
    count(&by_region[region], &o);
    if (!o.open_failed && !o.sections_failed)
      fail("neither open nor check_sections notices the flip");
    require_driver_refusal(&o, "the flip");
  }
  print_tally("random flips", &total);
  for (region = 0; region < REGION_COUNT; ++region)
    if (by_region[region].cases) print_tally(region_names[region], &by_region[region]);
}

static void test_overwrites(context* c, uint8_t* work) {
  const truth* t = c->t;
  tally total;
  unsigned long i;
  outcome o;
  memset(&total, 0, sizeof total);
  for (i = 0; i < c->o->overwrites; ++i) {
    uint64_t at[8];
    int k, changed = 0;
    for (k = 0; k < 8; ++k) {
      at[k] = rng_below(&c->rng, t->size);
      work[at[k]] = (uint8_t)rng_next(&c->rng);
    }
    for (k = 0; k < 8; ++k) changed |= work[at[k]] != t->data[at[k]];
    snprintf(current_case, sizeof current_case, "overwrite %lu: bytes %llu %llu %llu %llu %llu %llu %llu %llu", i,
             (unsigned long long)at[0], (unsigned long long)at[1], (unsigned long long)at[2], (unsigned long long)at[3],
             (unsigned long long)at[4], (unsigned long long)at[5], (unsigned long long)at[6],
             (unsigned long long)at[7]);
    exercise(c, work, t->size, at, 8, &o);
    for (k = 0; k < 8; ++k) work[at[k]] = t->data[at[k]];
    if (!changed) continue; /* every random value equalled the original: nothing was damaged */
    count(&total, &o);
    /* Every byte is covered: sections by their checksums, padding by check_sections' zero rule. */
    if (!o.open_failed && !o.sections_failed) fail("neither open nor check_sections notices the damage");
    require_driver_refusal(&o, "the damage");
  }
  print_tally("8-byte damage", &total);
}

#ifdef SBK_TEST_DRIVER_CHECKS
static uint64_t le64(const uint8_t* p) { return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32); }
/* Every section checksum and the header check recomputed over `data` (the section table is the intact one:
 * sealed damage lies after it). */
static void seal(const truth* t, uint8_t* data) {
  uint32_t i, count = le32(data + 24);
  for (i = 0; i < count; ++i) {
    uint8_t* e = data + SBK_BUNDLE_HEADER_SIZE + 32u * (uint64_t)i;
    put64(e + 24, XXH3_64bits(data + le64(e + 8), (size_t)le64(e + 16)));
  }
  put64(data + 56, XXH3_64bits_withSeed(data + SBK_BUNDLE_HEADER_SIZE, (size_t)(t->table_end - SBK_BUNDLE_HEADER_SIZE),
                                        XXH3_64bits(data, 56)));
}

static void test_sealed_flips(context* c, uint8_t* work) {
  const truth* t = c->t;
  tally total, by_region[REGION_COUNT];
  unsigned long i;
  int region;
  outcome o;
  memset(&total, 0, sizeof total);
  memset(by_region, 0, sizeof by_region);
  for (i = 0; i < c->o->sealed_flips; ++i) {
    const uint64_t at = t->table_end + rng_below(&c->rng, t->size - t->table_end);
    const uint8_t mask = (uint8_t)(1u << rng_below(&c->rng, 8));
    region = region_of(t, at);
    snprintf(current_case, sizeof current_case, "sealed flip %lu: bit mask 0x%02x of byte %llu (%s)", i, mask,
             (unsigned long long)at, region_names[region]);
    work[at] ^= mask;
    seal(t, work);
    c->sealed = 1;
    exercise(c, work, t->size, &at, 1, &o);
    c->sealed = 0;
    work[at] ^= mask;
    count(&total, &o);
    count(&by_region[region], &o);
  }
  memcpy(work, t->data, t->table_end); /* the checksums and the header check as they were */
  print_tally("sealed flips", &total);
  for (region = 0; region < REGION_COUNT; ++region)
    if (by_region[region].cases) print_tally(region_names[region], &by_region[region]);
}
#endif

/* ---- main ---- */

static int parse_options(int argc, char** argv, options* o, const char** path) {
  int i;
  o->seed = 0x5EEDB0D1E5ull;
  o->flips = 10000;
  o->overwrites = 2000;
  o->modules = 2;
  o->sealed_flips = 300;
  o->all_modules = 0;
  *path = NULL;
  for (i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      o->seed = strtoull(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--flips") == 0 && i + 1 < argc)
      o->flips = strtoul(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--overwrites") == 0 && i + 1 < argc)
      o->overwrites = strtoul(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--modules") == 0 && i + 1 < argc)
      o->modules = strtoul(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--sealed-flips") == 0 && i + 1 < argc)
      o->sealed_flips = strtoul(argv[++i], NULL, 0);
    else if (strcmp(argv[i], "--all-modules") == 0)
      o->all_modules = 1;
    else if (argv[i][0] != '-' && *path == NULL)
      *path = argv[i];
    else
      return 0;
  }
  if (o->seed == 0) o->seed = 1; /* xorshift's one fixed point */
  return *path != NULL;
}

static uint8_t* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  long end;
  uint8_t* data;
  if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    if (f) fclose(f);
    return NULL;
  }
  data = (uint8_t*)xmalloc((size_t)end);
  if (fread(data, 1, (size_t)end, f) != (size_t)end) {
    fclose(f);
    free(data);
    return NULL;
  }
  fclose(f);
  *size = (size_t)end;
  return data;
}

int main(int argc, char** argv) {
  options o;
  const char* path;
  truth t;
  context c;
  uint8_t* data;
  uint8_t* work;
  size_t size = 0, i;
  clock_t start = clock();
  if (!parse_options(argc, argv, &o, &path)) {
    fprintf(stderr,
            "usage: bundle_robustness BUNDLE [--seed N] [--flips N] [--overwrites N] [--modules N] "
            "[--all-modules] [--sealed-flips N]\n");
    return 2;
  }
  data = read_file(path, &size);
  if (data == NULL) {
    fprintf(stderr, "bundle_robustness: cannot read %s\n", path);
    return 2;
  }
  printf("bundle_robustness %s: %zu bytes, seed 0x%llx (--seed to replay), %lu flips, %lu overwrites\n", path, size,
         (unsigned long long)o.seed, o.flips, o.overwrites);
  if (!record_truth(&t, data, size)) return 1;
  printf("  intact: %u entries, %u modules, %u layouts, report %zu bytes, %u dynamic fallbacks, %u prewarm "
         "positions; sections end their table at %llu\n",
         t.entry_count, t.module_count, t.layout_count, t.report_size, t.recipe_count, t.prewarm_count,
         (unsigned long long)t.table_end);

  memset(&c, 0, sizeof c);
  c.t = &t;
  c.o = &o;
  c.rng = o.seed;
  c.dctx = ZSTD_createDCtx();
  c.module_buffer = (uint8_t*)xmalloc(t.max_module_size);
  c.report_buffer = (char*)xmalloc(t.report_size);
  for (i = 0; i < t.entry_count; ++i)
    if (t.entries[i].key_size > c.max_key_size) c.max_key_size = t.entries[i].key_size;
  c.mutated_key = (uint8_t*)xmalloc(c.max_key_size);
  c.module_marks = (uint8_t*)xmalloc(t.module_count + 1u);
  work = (uint8_t*)xmalloc(size);
  memcpy(work, data, size);

  {
    clock_t at[6];
    at[0] = clock();
    test_truncation(&t);
    test_trailing_bytes(&t);
    test_guest_and_key_schema(&t, work);
    at[1] = clock();
    test_header_bits(&c, work);
    test_padding_bits(&c, work);
    at[2] = clock();
    test_moved_rows(&c, work);
    at[3] = clock();
    test_random_flips(&c, work);
    at[4] = clock();
    test_overwrites(&c, work);
#ifdef SBK_TEST_DRIVER_CHECKS
    test_sealed_flips(&c, work);
#endif
    at[5] = clock();
    printf("  CPU seconds: truncation %.1f, header and padding bits %.1f, moved rows %.1f, flips %.1f, "
           "8-byte damage (and sealed flips) %.1f, total %.1f\n",
           (double)(at[1] - at[0]) / CLOCKS_PER_SEC, (double)(at[2] - at[1]) / CLOCKS_PER_SEC,
           (double)(at[3] - at[2]) / CLOCKS_PER_SEC, (double)(at[4] - at[3]) / CLOCKS_PER_SEC,
           (double)(at[5] - at[4]) / CLOCKS_PER_SEC, (double)(at[5] - start) / CLOCKS_PER_SEC);
  }
  if (memcmp(work, data, size) != 0) fail("the working copy was not restored");

  ZSTD_freeDCtx(c.dctx);
  free(work);
  free(c.module_marks);
  free(c.mutated_key);
  free(c.report_buffer);
  free(c.module_buffer);
  for (i = 0; i < t.entry_count; ++i) free(t.keys[i]);
  for (i = 0; i < t.module_count; ++i) free(t.modules[i]);
  free(t.keys);
  free(t.entries);
  free(t.mutated_key_index);
  free(t.pipelines);
  free(t.modules);
  free(t.module_infos);
  free(t.frame_offsets);
  free(t.module_uses_dictionary);
  free(t.layouts);
  free(t.recipes);
  free(t.prewarm_entries);
  free(t.prewarm_frames);
  free(t.report);
  free(data);
  if (failures) {
    printf("bundle_robustness: %lu failures\n", failures);
    return 1;
  }
  printf("bundle_robustness: all checks passed\n");
  return 0;
}

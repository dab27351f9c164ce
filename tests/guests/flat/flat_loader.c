/* SPDX-License-Identifier: MIT */
/* A renderer of the flat test guest: maps a bundle built by shaderbake-flat with shaderbake.h alone (no guest
 * header), finds the exact specialization of the red solid program by its key bytes (written here from the
 * layout flat_guest.hpp documents), reads its fragment module and every pipeline's modules, and finds every
 * pipeline again by its key. Usage: flat_loader BUNDLE. Exit 0 when all hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

static int failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "flat_loader: check failed: %s (line %d)\n", #cond, __LINE__); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

static int read_spirv(const sbk_bundle* bundle, uint32_t module, uint32_t stage) {
  sbk_module_info info;
  uint32_t* words;
  size_t size = 0;
  int ok;
  if (sbk_bundle_module_info(bundle, module, &info) != SBK_OK || info.stage != stage || info.raw_size < 20) return 0;
  words = (uint32_t*)malloc(info.raw_size);
  if (words == NULL) return 0;
  ok = sbk_bundle_read_module(bundle, module, words, info.raw_size, &size, NULL) == SBK_OK && size == info.raw_size &&
       words[0] == 0x07230203u;
  free(words);
  return ok;
}

int main(int argc, char** argv) {
  sbk_bundle bundle;
  sbk_header_info info;
  sbk_entry entry;
  uint32_t i, pipelines = 0;
  /* guest 250, kind exact, key schema 1, mode solid, r g b */
  static const uint8_t red[8] = {250, SBK_KEY_KIND_EXACT, 1, 0, 0, 0xFF, 0, 0};
  static const uint8_t never_drawn[8] = {250, SBK_KEY_KIND_EXACT, 1, 0, 0, 0x12, 0x34, 0x56};
  if (argc != 2) {
    fprintf(stderr, "usage: flat_loader BUNDLE\n");
    return 2;
  }
  if (sbk_bundle_open_file(&bundle, argv[1]) != SBK_OK) {
    fprintf(stderr, "flat_loader: cannot open %s\n", argv[1]);
    return 1;
  }
  sbk_bundle_info(&bundle, &info);
  CHECK(info.guest == 250u);
  CHECK(info.key_schema == 1u);
  CHECK(sbk_bundle_check_sections(&bundle) == SBK_OK);

  CHECK(sbk_bundle_find(&bundle, red, sizeof red, &entry) == SBK_OK);
  CHECK(entry.kind == SBK_KEY_KIND_EXACT && entry.status == SBK_STATUS_READY && entry.rejection == 0u);
  CHECK(read_spirv(&bundle, entry.fragment_module, 16u));
  CHECK(sbk_bundle_find(&bundle, never_drawn, sizeof never_drawn, &entry) == SBK_NOT_FOUND);

  for (i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
    sbk_entry found;
    CHECK(sbk_bundle_entry_at(&bundle, i, &entry) == SBK_OK);
    if (entry.kind != SBK_KEY_KIND_PIPELINE) continue;
    ++pipelines;
    CHECK(read_spirv(&bundle, entry.vertex_module, 1u));
    CHECK(read_spirv(&bundle, entry.fragment_module, 16u));
    {
      uint8_t key[4096];
      size_t size = 0;
      CHECK(sbk_bundle_entry_key(&bundle, i, key, sizeof key, &size) == SBK_OK);
      CHECK(sbk_bundle_find(&bundle, key, size, &found) == SBK_OK && found.index == entry.index);
    }
  }
  CHECK(pipelines > 0u);
  sbk_bundle_close(&bundle);
  if (failures == 0) printf("flat_loader: %u pipelines read and found again\n", (unsigned)pipelines);
  return failures == 0 ? 0 : 1;
}

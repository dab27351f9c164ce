/* SPDX-License-Identifier: MIT */
/*
 * driver_cache_probe: what a plain-C renderer gets from a bundle, for tests/cli/warm_test.sh.
 *   driver_cache_probe BUNDLE VENDOR DEVICE DRIVER UUID   sbk_bundle_driver_cache for that identity (numbers
 *                                                         in C syntax, UUID 32 hex digits): prints "ok SIZE
 *                                                         HEADER-VENDOR" | "not_found" | "corrupt"
 *   driver_cache_probe BUNDLE --sections                  one line per section, read through the loader:
 *                                                         "TYPE SIZE XXH3-64-of-its-bytes"
 * Exit 0 when it could answer, 2 on usage, 3 when the bundle does not open.
 */
#define SHADERBAKE_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_loader/shaderbake.h"

static int parse_uuid(const char* text, uint8_t out[16]) {
  int i;
  if (strlen(text) != 32) return 0;
  for (i = 0; i < 16; ++i) {
    char pair[3];
    char* end;
    pair[0] = text[2 * i];
    pair[1] = text[2 * i + 1];
    pair[2] = '\0';
    out[i] = (uint8_t)strtoul(pair, &end, 16);
    if (end != pair + 2) return 0;
  }
  return 1;
}

int main(int argc, char** argv) {
  sbk_bundle bundle;
  sbk_result r;
  if (argc != 3 && argc != 6) {
    fprintf(stderr, "usage: %s BUNDLE (VENDOR DEVICE DRIVER UUID | --sections)\n", argv[0]);
    return 2;
  }
  if ((r = sbk_bundle_open_file(&bundle, argv[1])) != SBK_OK) {
    fprintf(stderr, "error: %s: %s\n", argv[1], sbk_result_name(r));
    return 3;
  }
  if (argc == 3) {
    uint32_t type;
    if (strcmp(argv[2], "--sections") != 0) return 2;
    for (type = 1; type < SBK_SECTION_TYPE_COUNT; ++type) {
      uint64_t size = 0;
      const uint8_t* bytes = sbk_bundle_section(&bundle, (sbk_section_type)type, &size);
      if (bytes != NULL)
        printf("%u %llu %016llx\n", type, (unsigned long long)size,
               (unsigned long long)XXH3_64bits(bytes, (size_t)size));
    }
  } else {
    uint8_t uuid[16];
    const void* data = NULL;
    size_t size = 0;
    if (!parse_uuid(argv[5], uuid)) {
      fprintf(stderr, "error: UUID must be 32 hex digits\n");
      sbk_bundle_close(&bundle);
      return 2;
    }
    r = sbk_bundle_driver_cache(&bundle, (uint32_t)strtoul(argv[2], NULL, 0), (uint32_t)strtoul(argv[3], NULL, 0),
                                (uint32_t)strtoul(argv[4], NULL, 0), uuid, &data, &size);
    if (r == SBK_OK) {
      const uint8_t* p = (const uint8_t*)data;
      printf("ok %lu 0x%x\n", (unsigned long)size,
             (unsigned)(p[8] | (p[9] << 8) | (p[10] << 16) | ((uint32_t)p[11] << 24)));
    } else {
      printf("%s\n", r == SBK_NOT_FOUND ? "not_found" : r == SBK_ERROR_CORRUPT ? "corrupt" : sbk_result_name(r));
    }
  }
  sbk_bundle_close(&bundle);
  return 0;
}

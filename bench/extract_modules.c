/* SPDX-License-Identifier: MIT */
/* extract_modules BUNDLE DIR: writes every module of a bundle as DIR/NNNNNN.spv (decompressed and checked
 * through runtime_loader/shaderbake.h), then prints one line per section ("section NAME BYTES") and one
 * summary line ("modules COUNT RAW_BYTES COMPRESSED_BYTES"). For bench/bundle_size.sh. */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  static const char* names[SBK_SECTION_TYPE_COUNT] = {"",       "meta",       "index",   "records",     "modules",
                                                      "module_data", "dictionary", "layouts", "report", "driver_cache"};
  sbk_bundle bundle;
  sbk_result r;
  uint32_t m, t;
  unsigned long long raw = 0, compressed = 0;
  unsigned char* out = NULL;
  size_t capacity = 0;
  void* dctx;
  if (argc != 3) {
    fprintf(stderr, "usage: extract_modules BUNDLE DIR\n");
    return 2;
  }
  r = sbk_bundle_open_file(&bundle, argv[1]);
  if (r != SBK_OK) {
    fprintf(stderr, "extract_modules: %s: %s\n", argv[1], sbk_result_name(r));
    return 1;
  }
  dctx = ZSTD_createDCtx();
  for (m = 0; m < sbk_bundle_module_count(&bundle); ++m) {
    sbk_module_info info;
    size_t size = 0;
    char path[4096];
    FILE* f;
    r = sbk_bundle_module_info(&bundle, m, &info);
    if (r == SBK_OK && info.raw_size > capacity) {
      capacity = info.raw_size;
      out = (unsigned char*)realloc(out, capacity);
      if (out == NULL) return 1;
    }
    if (r == SBK_OK) r = sbk_bundle_read_module(&bundle, m, out, capacity, &size, dctx);
    if (r != SBK_OK) {
      fprintf(stderr, "extract_modules: module %u: %s\n", m, sbk_result_name(r));
      return 1;
    }
    snprintf(path, sizeof path, "%s/%06u.spv", argv[2], m);
    f = fopen(path, "wb");
    if (f == NULL || fwrite(out, 1, size, f) != size || fclose(f) != 0) {
      fprintf(stderr, "extract_modules: cannot write %s\n", path);
      return 1;
    }
    raw += size;
    compressed += info.compressed_size;
  }
  for (t = 1; t < SBK_SECTION_TYPE_COUNT; ++t) {
    uint64_t size = 0;
    if (sbk_bundle_section(&bundle, (sbk_section_type)t, &size) != NULL)
      printf("section %s %llu\n", names[t], (unsigned long long)size);
  }
  printf("modules %u %llu %llu\n", sbk_bundle_module_count(&bundle), raw, compressed);
  ZSTD_freeDCtx((ZSTD_DCtx*)dctx);
  free(out);
  sbk_bundle_close(&bundle);
  return 0;
}

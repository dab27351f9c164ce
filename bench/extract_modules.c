/* SPDX-License-Identifier: MIT */
/* extract_modules BUNDLE DIR: writes every module of a bundle as DIR/NNNNNN.spv (decompressed and checked
 * through runtime_loader/shaderbake.h), then prints what the entries hold ("entries KIND COUNT key_bytes N
 * spirv_per_entry N": the SPIR-V the entries of that kind reference, counted once per entry), one line per
 * section ("section NAME BYTES") and a summary ("modules COUNT RAW_BYTES COMPRESSED_BYTES").
 * For bench/bundle_size.sh. */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  static const char* names[SBK_SECTION_TYPE_COUNT] = {"",       "meta",       "index",   "records",     "modules",
                                                      "module_data", "dictionary", "layouts", "report", "driver_cache",
                                                      "dynamic_fallbacks", "prewarm", "shader_keys",
                                                      "host_states", "host_state_parts", "specialization_data"};
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
  {
    /* What the entries hold: keys by kind, and the SPIR-V a store without module dedupe would keep (each
     * pipeline's vertex + fragment module, each specialization's or family's fragment module). */
    unsigned long long keys[5] = {0, 0, 0, 0, 0}, key_bytes[5] = {0, 0, 0, 0, 0}, spirv[5] = {0, 0, 0, 0, 0};
    uint32_t i;
    for (i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
      sbk_entry e;
      sbk_module_info info;
      r = sbk_bundle_entry_at(&bundle, i, &e);
      if (r != SBK_OK || e.kind > 4) {
        fprintf(stderr, "extract_modules: entry %u: %s\n", i, sbk_result_name(r));
        return 1;
      }
      keys[e.kind] += 1;
      key_bytes[e.kind] += e.key_size;
      if (e.fragment_module != SBK_NO_MODULE && sbk_bundle_module_info(&bundle, e.fragment_module, &info) == SBK_OK)
        spirv[e.kind] += info.raw_size;
      if (e.vertex_module != SBK_NO_MODULE && sbk_bundle_module_info(&bundle, e.vertex_module, &info) == SBK_OK)
        spirv[e.kind] += info.raw_size;
    }
    for (i = 1; i <= 3; ++i)
      printf("entries %s %llu key_bytes %llu spirv_per_entry %llu\n",
             i == 1 ? "specialization" : i == 2 ? "family" : "pipeline", keys[i], key_bytes[i], spirv[i]);
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

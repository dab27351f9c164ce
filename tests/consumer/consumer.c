/* SPDX-License-Identifier: MIT */
/* A renderer's use of an installed shaderbake, in C99 against <shaderbake/...> only: opens a bundle, checks its
 * guest, finds every entry again by its key, reads every module. Built by tests/consumer/CMakeLists.txt through
 * find_package(shaderbake) and by tests/cli/install_consumer_test.sh through pkg-config.
 * Usage: consumer_c BUNDLE   (exit 0 and one line when every probe and read succeeds) */
#define SHADERBAKE_IMPLEMENTATION
#include <shaderbake/shaderbake.h>
#include <shaderbake/shaderbake_nv2a.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  sbk_bundle bundle;
  sbk_module_reader reader;
  sbk_result r;
  uint32_t i, found = 0, modules = 0;
  unsigned long long spirv_bytes = 0;
  static uint8_t key[65536];
  void* words = NULL;
  if (argc != 2) {
    fprintf(stderr, "usage: %s BUNDLE\n", argv[0]);
    return 2;
  }
  if ((r = sbk_bundle_open_file(&bundle, argv[1])) != SBK_OK) {
    fprintf(stderr, "open: %s\n", sbk_result_name(r));
    return 1;
  }
  if ((r = sbk_nv2a_check_bundle(&bundle)) != SBK_OK || (r = sbk_bundle_prepare_dictionary(&bundle)) != SBK_OK) {
    fprintf(stderr, "not an nv2a bundle this header reads: %s\n", sbk_result_name(r));
    sbk_bundle_close(&bundle);
    return 1;
  }
  for (i = 0; i < sbk_bundle_entry_count(&bundle); ++i) {
    size_t size = 0;
    sbk_entry entry;
    if (sbk_bundle_entry_key(&bundle, i, key, sizeof key, &size) != SBK_OK) continue;
    if (sbk_bundle_find(&bundle, key, size, &entry) == SBK_OK && entry.index == i) ++found;
  }
  if ((r = sbk_module_reader_init(&reader, &bundle)) != SBK_OK) {
    fprintf(stderr, "module reader: %s\n", sbk_result_name(r));
    sbk_bundle_close(&bundle);
    return 1;
  }
  for (i = 0; i < sbk_bundle_module_count(&bundle); ++i) {
    sbk_module_info info;
    size_t size = 0;
    if (sbk_bundle_module_info(&bundle, i, &info) != SBK_OK) break;
    words = realloc(words, info.raw_size ? info.raw_size : 1);
    if (words == NULL || sbk_module_reader_read(&reader, i, words, info.raw_size, &size) != SBK_OK) break;
    spirv_bytes += size;
    ++modules;
  }
  printf("consumer_c: %u of %u entries found by key, %u of %u modules read (%llu bytes of SPIR-V)\n", found,
         sbk_bundle_entry_count(&bundle), modules, sbk_bundle_module_count(&bundle), spirv_bytes);
  r = (found == sbk_bundle_entry_count(&bundle) && modules == sbk_bundle_module_count(&bundle)) ? SBK_OK : SBK_ERROR_CORRUPT;
  free(words);
  sbk_module_reader_free(&reader);
  sbk_bundle_close(&bundle);
  return r == SBK_OK ? 0 : 1;
}

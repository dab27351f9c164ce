/* SPDX-License-Identifier: MIT */
/* Runs the header-alone checks of this build (one translation unit per runtime header, each including only
 * its header) and prints which failed. Exit 1 when one did. */
#include <stdio.h>

int header_alone_core(void);
int header_alone_nv2a(void);
int header_alone_spirv(void);
int header_alone_vulkan(void);
int header_alone_router(void);

int main(void) {
  static const char* const names[5] = {"shaderbake.h", "shaderbake_nv2a.h", "shaderbake_spirv.h",
                                       "shaderbake_vulkan.h", "shaderbake_router.h"};
  int results[5], i, failed = 0;
  results[0] = header_alone_core();
  results[1] = header_alone_nv2a();
  results[2] = header_alone_spirv();
  results[3] = header_alone_vulkan();
  results[4] = header_alone_router();
  for (i = 0; i < 5; ++i) {
    printf("%-20s %s\n", names[i], results[i] == 0 ? "ok" : "FAILED");
    if (results[i] != 0) {
      fprintf(stderr, "error: %s alone: %d checks failed\n", names[i], results[i]);
      failed = 1;
    }
  }
  return failed;
}

/* SPDX-License-Identifier: MIT */
/* runtime_loader/shaderbake_router.h alone (it includes shaderbake_vulkan.h, vulkan/vulkan.h and shaderbake.h
 * itself): the default thread pool runs a job. The router proper is tested on a device by tests/router/. */
#include "runtime_loader/shaderbake_router.h"

int header_alone_router(void);

static void header_alone_job(void* job) { *(int*)job += 1; }

int header_alone_router(void) {
  int failures = 0, ran = 0;
  sbk_thread_pool* pool = NULL;
  failures += sbk_thread_pool_create(1, 16, &pool) != SBK_OK || pool == NULL;
  if (pool == NULL) return failures;
  failures += sbk_thread_pool_submit(pool, header_alone_job, &ran) != 0;
  sbk_thread_pool_destroy(pool); /* runs every queued job, then joins: `ran` is final here */
  failures += ran != 1;
  return failures;
}

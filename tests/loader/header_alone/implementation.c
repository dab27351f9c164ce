/* SPDX-License-Identifier: MIT */
/* Every runtime header's implementation from the one macro: SHADERBAKE_IMPLEMENTATION once, every header
 * included after it (implementation_reverse.c includes them in the reverse order). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* the router's clock_gettime and threads under a strict C standard */
#endif
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake_spirv.h"
#include "runtime_loader/shaderbake_vulkan.h"
#include "runtime_loader/shaderbake_router.h"

/* SPDX-License-Identifier: MIT */
/* implementation.c with the headers in the reverse order: each implementation must compile once, after what it
 * uses, whichever header comes first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* the router's clock_gettime and threads under a strict C standard */
#endif
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake_router.h"
#include "runtime_loader/shaderbake_vulkan.h"
#include "runtime_loader/shaderbake_spirv.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake.h"

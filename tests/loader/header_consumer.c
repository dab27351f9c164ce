/* SPDX-License-Identifier: MIT */
/* The runtime headers in a C renderer of the nv2a guest: the loader, the guest's header and, when
 * SBK_TEST_VULKAN, the Vulkan helpers, with their implementation in this translation unit. Built as C99 and
 * C11 (tests/CMakeLists.txt). */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#ifdef SBK_TEST_VULKAN
#include "runtime_loader/shaderbake_vulkan.h"
#endif

#include "tests/loader/header_consumer.h"

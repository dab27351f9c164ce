/* SPDX-License-Identifier: MIT */
/* The runtime header in a C renderer: vulkan.h first when SBK_TEST_VULKAN, then the header with its
 * implementation in this translation unit. Built as C99 and C11 (tests/CMakeLists.txt). */
#ifdef SBK_TEST_VULKAN
#include <vulkan/vulkan.h>
#define SHADERBAKE_VULKAN
#endif
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

#include "tests/loader/header_consumer.h"

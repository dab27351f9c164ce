/* SPDX-License-Identifier: MIT */
/* The implementation of the runtime header, compiled as C for a C++ translation unit that includes the header
 * without it (header_consumer.cpp with SBK_TEST_SPLIT): the functions must link across the languages. */
#ifdef SBK_TEST_VULKAN
#include <vulkan/vulkan.h>
#define SHADERBAKE_VULKAN
#endif
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

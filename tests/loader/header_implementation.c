/* SPDX-License-Identifier: MIT */
/* The implementation of the runtime headers, compiled as C for a C++ translation unit that includes the headers
 * without it (header_consumer.cpp with SBK_TEST_SPLIT): the functions must link across the languages. */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#ifdef SBK_TEST_VULKAN
#include "runtime_loader/shaderbake_vulkan.h"
#endif

// SPDX-License-Identifier: MIT
// The runtime header in a C++ renderer: vulkan.h first when SBK_TEST_VULKAN, then the header, with its
// implementation in this translation unit or (SBK_TEST_SPLIT) in header_implementation.c, a C translation
// unit linked next to this one. Built as C++17 and C++20 (tests/CMakeLists.txt).
#ifdef SBK_TEST_VULKAN
#include <vulkan/vulkan.h>
#define SHADERBAKE_VULKAN
#endif
#ifndef SBK_TEST_SPLIT
#define SHADERBAKE_IMPLEMENTATION
#endif
#include "runtime_loader/shaderbake.h"

#include "tests/loader/header_consumer.h"

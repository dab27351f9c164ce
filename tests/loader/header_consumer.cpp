// SPDX-License-Identifier: MIT
// The runtime headers in a C++ renderer of the nv2a guest: the loader, the guest's header and, when
// SBK_TEST_VULKAN, the Vulkan helpers, with their implementation in this translation unit or (SBK_TEST_SPLIT)
// in header_implementation.c, a C translation unit linked next to this one. Built as C++17 and C++20
// (tests/CMakeLists.txt).
#ifndef SBK_TEST_SPLIT
#define SHADERBAKE_IMPLEMENTATION
#endif
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#ifdef SBK_TEST_VULKAN
#include "runtime_loader/shaderbake_vulkan.h"
#endif

#include "tests/loader/header_consumer.h"

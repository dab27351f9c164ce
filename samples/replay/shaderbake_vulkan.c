/* SPDX-License-Identifier: MIT */
/*
 * The runtime header's implementation, with its Vulkan helpers, compiled once for the replay client: what a
 * renderer does in exactly one of its translation units. The client's other files include the header
 * without SHADERBAKE_IMPLEMENTATION.
 *
 * The libraries the replay links for its trace reader and compile chain carry their own copy of the
 * (non-Vulkan) implementation in the shaderbake_runtime archive; since this object defines every one of
 * those functions, the linker never pulls that archive member in: one definition of each.
 */
#include <vulkan/vulkan.h>

#define SHADERBAKE_VULKAN
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

/* SPDX-License-Identifier: MIT */
/*
 * The runtime header's implementation, with its Vulkan helpers, and the runtime router's, compiled once for
 * the replay client: what a renderer does in exactly one of its translation units. The router header includes
 * runtime_loader/shaderbake.h with SHADERBAKE_VULKAN, so SHADERBAKE_IMPLEMENTATION here compiles both. The
 * client's other files include the headers without SHADERBAKE_IMPLEMENTATION.
 *
 * The libraries the replay links for its trace reader and compile chain carry their own copy of the
 * (non-Vulkan) implementation in the shaderbake_runtime archive; since this object defines every one of
 * those functions, the linker never pulls that archive member in: one definition of each.
 */
#include <vulkan/vulkan.h>

#define SHADERBAKE_VULKAN
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake_router.h"

/* SPDX-License-Identifier: MIT */
/*
 * The runtime headers' implementations, compiled once for the replay client: what a renderer does in exactly
 * one of its translation units. SHADERBAKE_IMPLEMENTATION compiles every shaderbake header included here: the
 * router's, the Vulkan helpers' and the loader's (which the router includes), and the guest models' (nv2a,
 * specconst). The client's other files include the headers without SHADERBAKE_IMPLEMENTATION.
 *
 * The libraries the replay links for its trace reader and compile chain carry their own copy of the same
 * implementations in the shaderbake_runtime archive; since this object defines every one of those functions,
 * the linker never pulls that archive member in: one definition of each.
 */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake_router.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake_specconst.h"

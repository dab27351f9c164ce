/* SPDX-License-Identifier: MIT */
/* The one translation unit that compiles the runtime headers' implementations into the shaderbake tool: the
 * loader (with the packed-SPIR-V coder it uses), the nv2a guest model and the Vulkan create-info helpers
 * (lib/vulkan creates the bundle's pipelines through them). */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"
#include "runtime_loader/shaderbake_specconst.h"
#include "runtime_loader/shaderbake_spirv.h"
#include "runtime_loader/shaderbake_vulkan.h"

/* SPDX-License-Identifier: MIT */
/* The one translation unit that compiles the runtime header's implementation into the shaderbake tool. */
#define SHADERBAKE_IMPLEMENTATION
#include "runtime_loader/shaderbake.h"

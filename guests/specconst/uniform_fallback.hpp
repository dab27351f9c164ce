// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake_specconst.h"

namespace shaderbake::specconst {

// Where a module's constants sit in the fallback packet (runtime_loader/shaderbake_specconst.h): the binding
// of the block in descriptor set 0 and the packet word of the module's first carried constant.
struct PacketPlacement {
  uint32_t binding = 0;
  uint32_t first_word = 0;
};

// The fallback route's generic module of `words` (a valid module whose scan is `scan`): every constant the packet
// carries (used, fixed_by 0) is loaded from a uniform block (std140, one 32-bit member per constant at word
// placement.first_word + k, a bool as a uint compared with 0) at the start of the entry point's function, and
// every OpSpecConstantOp / OpSpecConstantComposite built from one becomes the same operation there. The ids stay
// the ones the module had, so its code is untouched; their SpecId decorations go. Constants the packet cannot
// carry stay specialization constants at their defaults (admission keeps other values off this route).
// A module whose carried constants are used by other functions is inlined first (spirv-opt). A module that
// carries none is returned as it is. Errors (kind bad_input):
//   fallback_rewrite_failed   the carried constants are used outside the entry point even after inlining, or
//                             the words break SPIR-V's layout where the rewrite reads them
// The result is not validated here: the compile chain validates what it compiles.
Result<std::vector<uint32_t>> uniform_fallback_module(std::span<const uint32_t> words, const sbk_specconst_module& scan,
                                                      PacketPlacement placement);

}  // namespace shaderbake::specconst

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "lib/core/result.hpp"

namespace shaderbake::specconst {

// A vertex module whose outputs at locations the pipeline's fragment module does not read are no longer
// outputs: each such variable (Output storage, a Location, used only by whole-variable loads and stores) becomes
// a Private variable, leaves the entry point's interface and loses its decorations, so the code that writes it
// is unchanged and the stage interface is exactly what the fragment stage consumes (a frozen fragment module may
// read fewer inputs than the module it came from; the validation layer reports every output nobody reads).
// An output used any other way (an access chain into it) is kept as it is. `read_locations`: the fragment
// module's input locations. Errors (kind bad_input, reason vertex_rewrite_failed): the words break SPIR-V's
// layout where the rewrite reads them. The result is not validated here: the compile chain validates it.
// Only single-location outputs (a 32-bit scalar or vector) are candidates, and a module that declares transform
// feedback or is SPIR-V 1.4 or later (whose interfaces list private variables too) is returned as it is.
Result<std::vector<uint32_t>> drop_unread_outputs(std::span<const uint32_t> words, const std::set<uint32_t>& read_locations);

// Whether every non-built-in input of a module takes one location (a 32-bit scalar or vector): then the base
// locations a reflection lists are every location the module reads, and drop_unread_outputs may be given them.
Result<bool> inputs_take_one_location_each(std::span<const uint32_t> words);

}  // namespace shaderbake::specconst

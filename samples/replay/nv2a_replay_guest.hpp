// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "lib/core/result.hpp"
#include "lib/trace/trace_reader.hpp"
#include "samples/replay/replay_guest.hpp"

namespace shaderbake::replay {

// The replay's nv2a renderer (an emulator of the original Xbox): its programs decoded from the trace's exact
// keys (sbk_nv2a_decode_exact_key: the normalised program), keys, admission and packet through
// shaderbake_nv2a.h, textures of each stage's dimensionality, the dynamic block with fixed combiner constants
// that are not zero, and as the old way the exact emitter's GLSL and the pass-through vertex shader compiled in
// process. Error (reason not_nv2a) when an exact key is not an nv2a key.
Result<std::unique_ptr<ReplayGuest>> make_nv2a_replay_guest(const trace::TraceReader& reader);

}  // namespace shaderbake::replay

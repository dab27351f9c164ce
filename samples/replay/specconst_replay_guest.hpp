// SPDX-License-Identifier: MIT
#pragma once

#include <memory>

#include "lib/core/result.hpp"
#include "lib/trace/trace_reader.hpp"
#include "samples/replay/replay_guest.hpp"

namespace shaderbake::replay {

// The replay's renderer of shaders with specialization constants: a program is a pipeline's modules (the SPIR-V
// the trace's shader files give, as the trace reader loaded them) with a value set, read back from the trace's
// exact keys. At a draw its keys, admission and packet come from shaderbake_specconst.h over the modules' scans
// and the values as a VkSpecializationInfo holds them. The old way is what such a renderer does without a
// bundle: its generic modules, a pipeline layout from their reflection, and the pipeline created with the values
// (the driver specializes it). Resources: textures 2D, cube or 3D as the modules declare each sampler, a uniform
// block of 0.5f in every word, push constants that hold identity matrices for graphics pipelines and zeros for
// compute ones (a kernel's push constants usually size its dispatch: zero keeps every invocation inside any
// buffer), the position at vertex location 0. Errors (bad_input): an exact key that is not a specconst key, or
// that names a module the reader did not load.
Result<std::unique_ptr<ReplayGuest>> make_specconst_replay_guest(const trace::TraceReader& reader);

}  // namespace shaderbake::replay

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"
#include "runtime_loader/shaderbake_nv2a.h"

namespace shaderbake::replay {

// One draw of the trace, as the emulator meets it: which guest program and which host state.
struct ReplayDraw {
  uint32_t program;  // index into ReplayTrace::programs
  uint32_t host;     // index into ReplayTrace::hosts
};

// A frame: the draws [first, first + count) of ReplayTrace::draws.
struct ReplayFrame {
  int64_t number;
  uint32_t first;
  uint32_t count;
};

// A trace in memory, in the shape a renderer sees its guest: the decoded guest programs and host states
// (what the emulator has in hand at a draw; keys are computed from them at the draw, through the runtime
// header), and the draws frame by frame in trace order. Dynamic values are not kept: the replay draws with
// a zero dynamic block (they never reach a key, so they cannot change a route).
struct ReplayTrace {
  std::vector<sbk_nv2a_program> programs;
  std::vector<sbk_host_state> hosts;
  std::vector<ReplayDraw> draws;
  std::vector<ReplayFrame> frames;
  uint32_t max_draws_per_frame = 0;
  uint64_t bad_records = 0;  // skipped by the reader (each reported on stderr)
};

// Reads `path` (JSON Lines or the document form) with the project's trace reader and keeps its first
// `max_frames` frames (0: all). A frame is a run of consecutive draws with the same frame number. Errors:
// the file cannot be read, it is not an nv2a trace, or it holds no draw.
Result<ReplayTrace> load_trace(const std::string& path, uint64_t max_frames);

}  // namespace shaderbake::replay

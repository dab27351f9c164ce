// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/result.hpp"
#include "runtime_loader/shaderbake.h"
#include "samples/replay/replay_guest.hpp"

namespace shaderbake::replay {

// One draw (or dispatch) of the trace, as the renderer meets it: which guest program and which host state.
struct ReplayDraw {
  uint32_t program;  // index into the guest's programs
  uint32_t host;     // index into ReplayTrace::hosts; kNoHost for a compute program's dispatch
};
inline constexpr uint32_t kNoHost = 0xFFFFFFFFu;

// A frame: the draws [first, first + count) of ReplayTrace::draws.
struct ReplayFrame {
  int64_t number;
  uint32_t first;
  uint32_t count;
};

// A trace in memory, in the shape a renderer sees its guest: the guest's programs as its renderer holds them
// and the host states (what the renderer has in hand at a draw; keys are computed from them at the draw,
// through the runtime headers), and the draws frame by frame in trace order. Dynamic values are not kept: the
// replay draws with the guest's fixed uniform block (they never reach a key, so they cannot change a route).
struct ReplayTrace {
  std::unique_ptr<ReplayGuest> guest;
  std::vector<sbk_host_state> hosts;
  std::vector<ReplayDraw> draws;
  std::vector<ReplayFrame> frames;
  uint32_t max_draws_per_frame = 0;
  uint64_t bad_records = 0;  // skipped by the reader (each reported on stderr)
};

// Reads `path` (JSON Lines or the document form) with the project's trace reader and keeps its first
// `max_frames` frames (0: all). A frame is a run of consecutive draws with the same frame number. The guest
// model is the one the trace's capture record names. Errors: the file cannot be read, its guest is one the
// replay does not render, or it holds no draw.
Result<ReplayTrace> load_trace(const std::string& path, uint64_t max_frames);

}  // namespace shaderbake::replay

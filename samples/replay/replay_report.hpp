// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "samples/replay/replay_mode.hpp"

namespace shaderbake::replay {

// What the run was, for the report's header.
struct RunInfo {
  std::string trace;
  std::string guest;   // the trace's guest model (its capture record)
  std::string bundle;  // empty without one
  std::string device;
  uint32_t vendor_id = 0, device_id = 0, driver_version = 0;
  bool validation = false;
  std::string driver_caches;  // the line set_driver_cache_environment returned
  double warm_up_ms = 0;
  double frame_interval_ms = 0;  // frames paced to start this far apart; 0: as fast as they go
  uint64_t bad_records = 0;
  bool per_frame = false;  // the JSON report carries every frame's figures too
};

// A distribution, by the nearest-rank method over every frame (frames without first uses count, as 0).
struct Distribution {
  double p50 = 0, p99 = 0, p99_9 = 0, max = 0, mean = 0;
};
Distribution distribution(std::vector<double> values);

// A frame "stalls" when its first-use work exceeds a threshold; the thresholds reported, in milliseconds.
inline constexpr double kStallThresholdsMs[] = {1.0, 4.0, 16.7};

// The modes side by side, one column each, as a table for people.
std::string text_report(const RunInfo& info, const std::vector<ModeResult>& modes);

// The same as one JSON object ("format": "shaderbake-replay/1"), for machines.
std::string json_report(const RunInfo& info, const std::vector<ModeResult>& modes);

}  // namespace shaderbake::replay

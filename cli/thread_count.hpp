// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <string>
#include <thread>

#include "cli/command_output.hpp"

namespace shaderbake::cli {

// The compile threads for -j N: one per core when N is 0; at most four per core, since more only adds memory
// and contention (a warning says so when N is clamped).
inline unsigned compile_threads(unsigned requested) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (requested == 0) return cores;
  const unsigned limit = 4 * cores;
  if (requested <= limit) return requested;
  print_warning("-j " + std::to_string(requested) + " is more than 4 threads per core; using " +
                std::to_string(limit) + " (" + std::to_string(cores) + " cores)");
  return limit;
}

}  // namespace shaderbake::cli

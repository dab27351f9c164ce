// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "lib/core/result.hpp"

namespace shaderbake {

// Test-vector files (shaderbake-vectors/N) are one JSON document per file whose top-level "guest" names the
// guest model that reads the rest. The most a vector file may hold.
inline constexpr size_t kMaxVectorFileBytes = size_t{256} << 20;

// The "guest" of a vector file: errors name the file (unreadable, not JSON, not an object, no "guest" string).
Result<std::string> vector_file_guest(const std::string& path);

}  // namespace shaderbake

// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>

#include "lib/core/result.hpp"

namespace shaderbake {

// Test-vector files (shaderbake-vectors/N) are one JSON document per file whose top-level "guest" names the
// guest model that reads the rest. The most a vector file may hold.
inline constexpr size_t kMaxVectorFileBytes = size_t{256} << 20;

// A vector file read once: its text, and the "guest" that names the model to read the rest. Errors name the
// file (unreadable, not JSON, not an object, no "guest" string).
struct VectorFileText {
  std::string text;
  std::string guest;
};
Result<VectorFileText> read_vector_file_text(const std::string& path);

}  // namespace shaderbake

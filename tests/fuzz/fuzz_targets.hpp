// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>

// Fuzz entry points of every reader of untrusted text. Each must return normally on any input: errors are
// results, never crashes, hangs or out-of-bounds reads (checked under ASan/UBSan).
namespace shaderbake::fuzz {

void trace_reader(const uint8_t* data, size_t size);   // first byte picks JSON Lines or the document form
void vector_reader(const uint8_t* data, size_t size);

}  // namespace shaderbake::fuzz

// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace shaderbake::cli {

// "123" (bytes), or a number with one of K, M, G, T (powers of 1024, either case, an optional trailing B or
// iB: 500M = 500MB = 500MiB). nullopt for anything else, and for sizes past 2^64 - 1.
std::optional<uint64_t> parse_byte_size(std::string_view text);

}  // namespace shaderbake::cli

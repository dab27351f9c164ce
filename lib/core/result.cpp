// SPDX-License-Identifier: MIT
#include "lib/core/result.hpp"

namespace shaderbake {

std::string SourceLocation::to_string() const {
  std::string out = file;
  if (line != 0) {
    out += (out.empty() ? "line " : ":") + std::to_string(line);
    if (column != 0) out += ":" + std::to_string(column);
  }
  if (!json_pointer.empty()) out += (out.empty() ? "at " : " (at ") + json_pointer + (out.empty() ? "" : ")");
  return out;
}

std::string Error::to_string() const {
  std::string place = where.to_string();
  return place.empty() ? message : place + ": " + message;
}

}  // namespace shaderbake

// SPDX-License-Identifier: MIT
#include "lib/core/pipeline_key.hpp"

namespace shaderbake {

bool encode_pipeline_key(uint8_t route, std::span<const uint8_t> fragment_key, const sbk_host_state& host,
                         std::vector<uint8_t>& out) {
  out.resize(SBK_PIPELINE_KEY_MAX_SIZE(fragment_key.size()));
  size_t size = 0;
  if (sbk_encode_pipeline_key(route, fragment_key.data(), fragment_key.size(), &host, out.data(), out.size(), &size) !=
      SBK_OK) {
    out.clear();
    return false;
  }
  out.resize(size);
  return true;
}

bool encode_compute_pipeline_key(uint8_t route, std::span<const uint8_t> shader_key, std::vector<uint8_t>& out) {
  out.resize(SBK_COMPUTE_PIPELINE_KEY_SIZE(shader_key.size()));
  size_t size = 0;
  if (sbk_encode_compute_pipeline_key(route, shader_key.data(), shader_key.size(), out.data(), out.size(), &size) != SBK_OK) {
    out.clear();
    return false;
  }
  out.resize(size);
  return true;
}

}  // namespace shaderbake

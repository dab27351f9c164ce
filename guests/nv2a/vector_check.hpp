// SPDX-License-Identifier: MIT
#pragma once

#include "guests/nv2a/nv2a_guest.hpp"

namespace shaderbake::nv2a {

// The nv2a guest as the tool registers it: the model, and its test vectors (shaderbake-vectors/1 and /2) run through
// the CPU oracle, the exact route and the fallback ubershader on a Vulkan device. Every case of a program runs
// in one batch on one exact pipeline; every admitted case of a family on ONE fallback pipeline.
class Nv2aGuest final : public Nv2aGuestModel {
 public:
  Result<std::vector<VectorCaseOutcome>> check_vector_file(const std::string& path, std::string_view text,
                                                           const VectorEngines& engines,
                                                           vulkan::Executor* executor) const override;
};

}  // namespace shaderbake::nv2a

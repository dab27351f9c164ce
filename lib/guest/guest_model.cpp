// SPDX-License-Identifier: MIT
#include "lib/guest/guest_model.hpp"

namespace shaderbake {

Result<std::vector<VectorCaseOutcome>> GuestModel::check_vector_file(const std::string& path, std::string_view,
                                                                     const VectorEngines&, vulkan::Executor*) const {
  Error e;
  e.reason = "no_vector_format";
  e.message = "the " + std::string(name()) + " guest model has no test-vector format";
  e.where.file = path;
  return e;
}

}  // namespace shaderbake

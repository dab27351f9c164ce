// SPDX-License-Identifier: MIT
#include "lib/guest/guest_catalog.hpp"

namespace shaderbake {

const GuestModel* GuestCatalog::find(std::string_view name) const {
  for (const GuestModel* model : models_)
    if (model->name() == name) return model;
  return nullptr;
}

std::string GuestCatalog::names() const {
  std::string out;
  for (const GuestModel* model : models_) out += (out.empty() ? "" : ", ") + std::string(model->name());
  return out;
}

Result<const GuestModel*> GuestCatalog::for_bundle(const sbk_bundle& bundle, const std::string& path) const {
  sbk_header_info info;
  sbk_bundle_info(&bundle, &info);
  for (const GuestModel* model : models_)
    if (model->guest_id() == info.guest && model->key_schema() == info.key_schema) return model;
  std::string reads;
  for (const GuestModel* model : models_)
    reads += (reads.empty() ? "" : ", ") + std::string(model->name()) + " (guest " + std::to_string(model->guest_id()) +
             ", key schema " + std::to_string(model->key_schema()) + ")";
  Error e;
  e.kind = ErrorKind::bad_input;
  e.reason = "bundle_version";
  e.message = std::string("cannot open the bundle: ") + sbk_result_name(SBK_ERROR_VERSION) + ": its keys are of guest " +
              std::to_string(info.guest) + ", key schema " + std::to_string(info.key_schema) + "; this build reads " +
              (reads.empty() ? "none" : reads);
  e.where.file = path;
  return e;
}

}  // namespace shaderbake

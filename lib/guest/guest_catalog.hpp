// SPDX-License-Identifier: MIT
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/result.hpp"
#include "lib/guest/guest_model.hpp"
#include "runtime_loader/shaderbake.h"

namespace shaderbake {

// The guest models a command may meet, looked up by a trace's capture record ("guest") or a bundle's header
// (guest id and key schema). It refers to models it does not own: they outlive it (the registry's are
// static). The tool's catalog is guests/registry.cpp's; a test may build one of its own models.
class GuestCatalog {
 public:
  GuestCatalog() = default;
  GuestCatalog(std::initializer_list<const GuestModel*> models) : models_(models) {}

  const std::vector<const GuestModel*>& models() const { return models_; }
  // nullptr when no model has that name.
  const GuestModel* find(std::string_view name) const;
  // The names of the models, comma-separated (for messages).
  std::string names() const;

  // The model of an open bundle's keys: the one whose guest id and key schema the header names. An error
  // (reason bundle_version, as the loader names a format it does not speak) naming what the header says and
  // what this build reads when no model matches.
  Result<const GuestModel*> for_bundle(const sbk_bundle& bundle, const std::string& path) const;

 private:
  std::vector<const GuestModel*> models_;
};

}  // namespace shaderbake

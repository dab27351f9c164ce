// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "lib/bundle/bundle_reader.hpp"
#include "lib/guest/guest_catalog.hpp"

namespace shaderbake::cli {

// A bundle and the guest model of its keys.
struct GuestBundle {
  bundle::BundleFile file;
  const GuestModel* guest;
};

// Opens a bundle (the format's checks) and finds the model its header names among `guests`; an error names
// the file and, for a guest or key schema this build does not read, both sides. Every command that reads a
// bundle opens it this way: a bundle is either one of a known guest or refused with exit 3.
Result<GuestBundle> open_guest_bundle(const std::string& path, const GuestCatalog& guests);

}  // namespace shaderbake::cli

// SPDX-License-Identifier: MIT
#include "cli/bundle_opening.hpp"

namespace shaderbake::cli {

Result<GuestBundle> open_guest_bundle(const std::string& path, const GuestCatalog& guests) {
  auto file = bundle::BundleFile::open(path);
  if (!file) return std::move(file).error();
  auto guest = guests.for_bundle(file->handle(), path);
  if (!guest) return std::move(guest).error();
  return GuestBundle{std::move(*file), *guest};
}

}  // namespace shaderbake::cli

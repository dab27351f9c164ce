// SPDX-License-Identifier: MIT
#include "guests/registry.hpp"

#include "guests/nv2a/vector_check.hpp"

namespace shaderbake::guests {

const GuestCatalog& registered_guests() {
  static const nv2a::Nv2aGuest nv2a_guest;
  static const GuestCatalog catalog{&nv2a_guest};
  return catalog;
}

}  // namespace shaderbake::guests

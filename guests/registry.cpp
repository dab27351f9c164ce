// SPDX-License-Identifier: MIT
#include "guests/registry.hpp"

#include "guests/nv2a/vector_check.hpp"
#include "guests/specconst/specconst_guest.hpp"

namespace shaderbake::guests {

const GuestCatalog& registered_guests() {
  static const nv2a::Nv2aGuest nv2a_guest;
  static const specconst::SpecconstGuest specconst_guest;
  static const GuestCatalog catalog{&nv2a_guest, &specconst_guest};
  return catalog;
}

}  // namespace shaderbake::guests

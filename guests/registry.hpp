// SPDX-License-Identifier: MIT
#pragma once

#include "lib/guest/guest_catalog.hpp"

namespace shaderbake::guests {

// Every guest model this build of the tool reads: commands pick one from a trace's capture record or a
// bundle's header. Adding a guest is one line in registry.cpp (and its folder, runtime header and enum value).
const GuestCatalog& registered_guests();

}  // namespace shaderbake::guests

// SPDX-License-Identifier: MIT
// shaderbake-flat: the shaderbake command line over the flat test guest alone (no nv2a code linked).
#include "cli/cli_app.hpp"
#include "tests/guests/flat/flat_guest.hpp"

int main(int argc, char** argv) {
  static const shaderbake::flat::FlatGuest guest;
  static const shaderbake::GuestCatalog guests{&guest};
  return shaderbake::cli::run_cli(argc, argv, guests);
}

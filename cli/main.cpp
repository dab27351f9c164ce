// SPDX-License-Identifier: MIT
// shaderbake: the command line over every registered guest model.
#include "cli/cli_app.hpp"
#include "guests/registry.hpp"

int main(int argc, char** argv) {
  return shaderbake::cli::run_cli(argc, argv, shaderbake::guests::registered_guests());
}

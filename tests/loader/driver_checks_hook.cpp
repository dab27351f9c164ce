// SPDX-License-Identifier: MIT
// The C side of bundle_robustness_driver_checks (bundle_robustness.c built with SBK_TEST_DRIVER_CHECKS): what
// `shaderbake warm` runs on a bundle before any Vulkan call, behind a C function the plain C test can call.
#include "lib/bundle/bundle_verify.hpp"

extern "C" int sbk_test_driver_checks_pass(const sbk_bundle* bundle) {
  return shaderbake::bundle::all_passed(shaderbake::bundle::check_before_driver(*bundle)) ? 1 : 0;
}

// SPDX-License-Identifier: MIT
// The router test compiled as C++: the header must be usable from C++ exactly as from C.
#include "tests/router/router_test.c"

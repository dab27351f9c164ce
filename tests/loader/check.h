/* SPDX-License-Identifier: MIT */
/*
 * SBK_TEST_CHECK(cond): the assertion of the plain-C test programs (C99 and up, and C++). A failed check prints
 * file, line and condition to stderr and adds one to sbk_test_failures; the program carries on, so one run
 * reports every failure, and main returns non-zero when sbk_test_failures is. Include it in one translation
 * unit per program (the counter is static).
 */
#ifndef SBK_TEST_CHECK_H
#define SBK_TEST_CHECK_H

#include <stdio.h>

static int sbk_test_failures = 0;

#define SBK_TEST_CHECK(cond)                                                   \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++sbk_test_failures;                                                     \
    }                                                                          \
  } while (0)

#endif

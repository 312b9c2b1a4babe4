// Invariant checks for fuzz targets: a violated property traps, so libFuzzer (and the
// corpus replay under ASan/UBSan in ctest) reports it as a crash with the input saved.
#pragma once
#include <cstdio>

#define FUZZ_CHECK(cond)                                                          \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::fprintf(stderr, "fuzz property violated: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      __builtin_trap();                                                           \
    }                                                                             \
  } while (0)

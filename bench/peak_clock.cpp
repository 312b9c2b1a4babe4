// Core clock estimate: a chain of dependent integer adds retires one per cycle on every
// x86-64 core, so adds / seconds is the clock the benchmark ran at.
#include <chrono>

#include "peak.hpp"

namespace llmsize::bench {

double measure_clock_ghz() {
#if defined(__x86_64__)
  const long iters = 20'000'000;  // × 10 adds
  double best = 0.0;
  for (int rep = 0; rep < 5; ++rep) {
    long x = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
      asm volatile(
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
          "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
          : "+r"(x));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ghz = double(x) / s * 1e-9;
    if (ghz > best) best = ghz;
  }
  return best;
#else
  return 0.0;
#endif
}

}  // namespace llmsize::bench

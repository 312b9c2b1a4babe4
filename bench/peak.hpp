// Peak measurement for the benchmark's "fraction of peak" column (x86-64 only): the core
// clock from a dependent integer-add chain, and the FMA throughput a register-only loop
// reaches. Not used by the kernels library.
#pragma once

#include <chrono>

namespace llmsize::bench {

double measure_clock_ghz();          // 1 cycle per dependent add; 0 where unsupported
double measure_fma_gflops_avx512();  // call only when the CPU has avx512f
double measure_fma_gflops_avx2();    // call only when the CPU has avx2 and fma

// Times 24 independent FMA chains per iteration (enough to cover latency × pipes).
template <class V, class Fma, class Sum>
double run(V one, V eps, Fma fma, Sum sum, int lanes) {
  const long iters = 20'000'000;
  double best = 0.0;
  for (int rep = 0; rep < 3; ++rep) {
    V acc[24];
    for (V& a : acc) a = one;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i) {
#pragma GCC unroll 24
      for (int j = 0; j < 24; ++j) acc[j] = fma(acc[j], one, eps);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    float total = 0.0f;
    for (V a : acc) total += sum(a);
    const double gflops = double(iters) * 24 * 2 * lanes / s * 1e-9;
    if (total > 0.0f && gflops > best) best = gflops;  // total > 0 keeps the loop alive
  }
  return best;
}

}  // namespace llmsize::bench

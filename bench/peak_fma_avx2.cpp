// Register-only AVX2 FMA loop: the FMA throughput this core sustains.
// Built with -mavx2 -mfma (this file only); called only when CPUID has avx2 and fma.
#include <immintrin.h>

#include "peak.hpp"

namespace llmsize::bench {

double measure_fma_gflops_avx2() {
  volatile float one = 1.0f;  // opaque, so the multiply is not folded away
  return run(_mm256_set1_ps(one), _mm256_set1_ps(1e-7f),
             [](__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); },
             [](__m256 a) {
               alignas(32) float t[8];
               _mm256_store_ps(t, a);
               return t[0] + t[7];
             },
             8);
}

}  // namespace llmsize::bench

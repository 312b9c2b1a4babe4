// Register-only AVX-512 FMA loop: the FMA throughput this core sustains.
// Built with -mavx512f -mfma (this file only); called only when CPUID has avx512f.
#include <immintrin.h>

#include "peak.hpp"

namespace llmsize::bench {

double measure_fma_gflops_avx512() {
  volatile float one = 1.0f;  // opaque, so the multiply is not folded away
  return run(_mm512_set1_ps(one), _mm512_set1_ps(1e-7f),
             [](__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); },
             [](__m512 a) {
               alignas(64) float t[16];
               _mm512_store_ps(t, a);
               return t[0] + t[15];
             }, 16);
}

}  // namespace llmsize::bench

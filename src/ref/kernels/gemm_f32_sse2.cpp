// SSE2 kernels (the x86-64 baseline, no FMA): the 4x8 GEMM micro-kernel with mul+add and
// every m ≤ 4 / n ≤ 8 edge tile as a template instance, and the streaming GEMV.
// Needs no extra flags on x86-64; the fallback for x86 CPUs without AVX2.
#include <emmintrin.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <utility>

#include "kernel.hpp"
#include "tile_walk.hpp"

namespace llmsize::ref::kernels {
namespace {

constexpr int MR = 4;  // 4 rows × 2 xmm = 8 accumulators
constexpr int NR = 8;  // + 2 B + 1 broadcast + 1 product temp (2-operand mulps) = 12 of 16 xmm
constexpr int NV_MAX = NR / 4;

// Stores r (+ C when accumulating) into the first `count` floats of c.
inline void store_part(float* c, __m128 r, int count, bool accumulate) {
  if (count == 4) {
    if (accumulate) r = _mm_add_ps(r, _mm_loadu_ps(c));
    _mm_storeu_ps(c, r);
    return;
  }
  alignas(16) float t[4];
  _mm_store_ps(t, r);
  for (int j = 0; j < count; ++j) c[j] = accumulate ? c[j] + t[j] : t[j];
}

template <int M, int NV>
void tile(int kc, const float* __restrict a, int lda, const float* __restrict b, int ldb,
          float* c, int ldc, int last_count, bool accumulate) {
  __m128 acc[M][NV];
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm_setzero_ps();
  }
#pragma GCC unroll 2
  for (int k = 0; k < kc; ++k, b += ldb) {
    __m128 bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) bv[v] = _mm_loadu_ps(b + 4 * v);
#pragma GCC unroll 4
    for (int i = 0; i < M; ++i) {
      const __m128 ai = _mm_set1_ps(a[std::ptrdiff_t(i) * lda + k]);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm_add_ps(acc[i][v], _mm_mul_ps(ai, bv[v]));
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < M; ++i) {
    float* ci = c + std::ptrdiff_t(i) * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < NV - 1; ++v) store_part(ci + 4 * v, acc[i][v], 4, accumulate);
    store_part(ci + 4 * (NV - 1), acc[i][NV - 1], last_count, accumulate);
  }
}

// Gives tile_walk.hpp the tiles of this TU.
struct Tiles {
  template <int M, int NV>
  static void run(int kc, const float* a, int lda, const float* b, int ldb, float* c, int ldc, int last,
                  bool accumulate) {
    tile<M, NV>(kc, a, lda, b, ldb, c, ldc, last, accumulate);
  }
};

}  // namespace

void gemm_f32_4x8_sse2(int kc, const float* A, int lda, const float* B, int ldb, std::ptrdiff_t b_next,
    float* C, int ldc, int m, int n, bool accumulate) {
  walk::walk_n<Tiles, MR, NV_MAX, 4>(kc, A, lda, B, ldb, b_next, C, ldc, m, n, accumulate);
}

// y = x·B streaming B once, four rows at a time; y stays in L1/L2 between passes.
void gemv_f32_sse2(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  const int nfull = N - N % 4;
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    const float* b0 = B + std::ptrdiff_t(k) * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    const __m128 x0 = _mm_set1_ps(x[k]), x1 = _mm_set1_ps(x[k + 1]);
    const __m128 x2 = _mm_set1_ps(x[k + 2]), x3 = _mm_set1_ps(x[k + 3]);
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 4) {
      const __m128 s = _mm_add_ps(_mm_mul_ps(x0, _mm_loadu_ps(b0 + j)), _mm_mul_ps(x1, _mm_loadu_ps(b1 + j)));
      const __m128 t = _mm_add_ps(_mm_mul_ps(x2, _mm_loadu_ps(b2 + j)), _mm_mul_ps(x3, _mm_loadu_ps(b3 + j)));
      __m128 r = _mm_add_ps(s, t);
      if (!first) r = _mm_add_ps(r, _mm_loadu_ps(y + j));
      _mm_storeu_ps(y + j, r);
    }
    for (int j = nfull; j < N; ++j) {
      const float s = x[k] * b0[j] + x[k + 1] * b1[j] + x[k + 2] * b2[j] + x[k + 3] * b3[j];
      y[j] = first ? s : y[j] + s;
    }
  }
  for (; k < K; ++k) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    const __m128 xk = _mm_set1_ps(x[k]);
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 4) {
      __m128 r = _mm_mul_ps(xk, _mm_loadu_ps(b + j));
      if (!first) r = _mm_add_ps(r, _mm_loadu_ps(y + j));
      _mm_storeu_ps(y + j, r);
    }
    for (int j = nfull; j < N; ++j) y[j] = first ? x[k] * b[j] : y[j] + x[k] * b[j];
  }
}

}  // namespace llmsize::ref::kernels

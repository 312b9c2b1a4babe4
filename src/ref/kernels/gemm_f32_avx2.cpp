// AVX2+FMA kernels: the 6x16 GEMM micro-kernel (every m ≤ 6 / n ≤ 16 edge tile as a
// template instance, column tails through maskload/maskstore) and the streaming GEMV.
// Built with -mavx2 -mfma on this file only; called only after CPUID says avx2 and fma.
#include <immintrin.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <utility>

#include "kernel.hpp"
#include "tile_walk.hpp"

namespace llmsize::ref::kernels {
namespace {

constexpr int MR = 6;   // 6 rows × 2 ymm = 12 accumulators
constexpr int NR = 16;  // + 2 B vectors + 1 broadcast = 15 of 16 ymm
constexpr int NV_MAX = NR / 8;

__m256i lane_mask(int count) {  // lanes [0, count) set
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <int M, int NV>
void tile(int kc, const float* __restrict a, int lda, const float* __restrict b, int ldb,
          float* c, int ldc, int last_count, bool accumulate) {
  __m256 acc[M][NV];
#pragma GCC unroll 6
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_setzero_ps();
  }
#pragma GCC unroll 2
  for (int k = 0; k < kc; ++k, b += ldb) {
    __m256 bv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) bv[v] = _mm256_loadu_ps(b + 8 * v);
#pragma GCC unroll 6
    for (int i = 0; i < M; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + std::ptrdiff_t(i) * lda + k);
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
  const __m256i last = lane_mask(last_count);
#pragma GCC unroll 6
  for (int i = 0; i < M; ++i) {
    float* ci = c + std::ptrdiff_t(i) * ldc;
#pragma GCC unroll 2
    for (int v = 0; v < NV - 1; ++v) {
      __m256 r = acc[i][v];
      if (accumulate) r = _mm256_add_ps(r, _mm256_loadu_ps(ci + 8 * v));
      _mm256_storeu_ps(ci + 8 * v, r);
    }
    __m256 r = acc[i][NV - 1];
    float* cl = ci + 8 * (NV - 1);
    if (last_count == 8) {
      if (accumulate) r = _mm256_add_ps(r, _mm256_loadu_ps(cl));
      _mm256_storeu_ps(cl, r);
    } else {
      if (accumulate) r = _mm256_add_ps(r, _mm256_maskload_ps(cl, last));
      _mm256_maskstore_ps(cl, last, r);
    }
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

void gemm_f32_6x16_avx2(int kc, const float* A, int lda, const float* B, int ldb, std::ptrdiff_t b_next,
    float* C, int ldc, int m, int n, bool accumulate) {
  walk::walk_n<Tiles, MR, NV_MAX, 8>(kc, A, lda, B, ldb, b_next, C, ldc, m, n, accumulate);
}

// y = x·B streaming B once, four rows at a time; y stays in L1/L2 between passes.
void gemv_f32_avx2(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  const int nfull = N - N % 8;
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    const float* b0 = B + std::ptrdiff_t(k) * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    const __m256 x0 = _mm256_set1_ps(x[k]), x1 = _mm256_set1_ps(x[k + 1]);
    const __m256 x2 = _mm256_set1_ps(x[k + 2]), x3 = _mm256_set1_ps(x[k + 3]);
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 8) {
      __m256 s = _mm256_mul_ps(x0, _mm256_loadu_ps(b0 + j));
      __m256 t = _mm256_mul_ps(x1, _mm256_loadu_ps(b1 + j));
      s = _mm256_fmadd_ps(x2, _mm256_loadu_ps(b2 + j), s);
      t = _mm256_fmadd_ps(x3, _mm256_loadu_ps(b3 + j), t);
      s = _mm256_add_ps(s, t);
      if (!first) s = _mm256_add_ps(s, _mm256_loadu_ps(y + j));
      _mm256_storeu_ps(y + j, s);
    }
    for (int j = nfull; j < N; ++j) {
      const float s = x[k] * b0[j] + x[k + 1] * b1[j] + x[k + 2] * b2[j] + x[k + 3] * b3[j];
      y[j] = first ? s : y[j] + s;
    }
  }
  for (; k < K; ++k) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    const __m256 xk = _mm256_set1_ps(x[k]);
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 8) {
      __m256 s = _mm256_mul_ps(xk, _mm256_loadu_ps(b + j));
      if (!first) s = _mm256_add_ps(s, _mm256_loadu_ps(y + j));
      _mm256_storeu_ps(y + j, s);
    }
    for (int j = nfull; j < N; ++j) y[j] = first ? x[k] * b[j] : y[j] + x[k] * b[j];
  }
}

}  // namespace llmsize::ref::kernels

// AVX-512F kernels: the 8x48 GEMM micro-kernel (with every m ≤ 8 / n ≤ 48 edge tile as a
// template instance, column tails masked) and the streaming GEMV for M = 1.
// Built with -mavx512f -mfma on this file only; called only after CPUID says avx512f.
#include <immintrin.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <utility>

#include "kernel.hpp"

namespace llmsize::ref::kernels {
namespace {

constexpr int MR = 8;   // 8 rows × 3 zmm = 24 accumulators
constexpr int NR = 48;  // + 3 B vectors + 1 broadcast = 28 of 32 zmm
constexpr int NV_MAX = NR / 16;
// Packed B streams from L2 or DRAM (decode-sized M reuses each panel only M/MR times): fetch
// it 48 k-steps (9 KiB) ahead. In-place B (row stride ldb) is left to the hardware: software
// prefetch of strided rows measured slower.
constexpr int kPrefetchK = 48;

template <int M, int NV, bool MASKED_B>
void tile(int kc, const float* __restrict a, int lda, const float* __restrict b, int ldb,
          float* c, int ldc, __mmask16 last, bool accumulate) {
  __m512 acc[M][NV];
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
#pragma GCC unroll 3
    for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_setzero_ps();
  }
#pragma GCC unroll 2
  for (int k = 0; k < kc; ++k, b += ldb) {
    __m512 bv[NV];
#pragma GCC unroll 3
    for (int v = 0; v < NV - 1; ++v) bv[v] = _mm512_loadu_ps(b + 16 * v);
    // In-place B may end at column n; masked loads measured slower, so only edge tiles use them.
    bv[NV - 1] = MASKED_B ? _mm512_maskz_loadu_ps(last, b + 16 * (NV - 1))
                          : _mm512_loadu_ps(b + 16 * (NV - 1));
    if (ldb == NR) {
      const char* pf = reinterpret_cast<const char*>(b + kPrefetchK * NR);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) _mm_prefetch(pf + 64 * v, _MM_HINT_T0);
    }
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const __m512 ai = _mm512_set1_ps(a[std::ptrdiff_t(i) * lda + k]);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < M; ++i) {
    float* ci = c + std::ptrdiff_t(i) * ldc;
#pragma GCC unroll 3
    for (int v = 0; v < NV - 1; ++v) {
      __m512 r = acc[i][v];
      if (accumulate) r = _mm512_add_ps(r, _mm512_loadu_ps(ci + 16 * v));
      _mm512_storeu_ps(ci + 16 * v, r);
    }
    __m512 r = acc[i][NV - 1];
    float* cl = ci + 16 * (NV - 1);
    if (accumulate) r = _mm512_add_ps(r, _mm512_maskz_loadu_ps(last, cl));
    _mm512_mask_storeu_ps(cl, last, r);
  }
}

using TileFn = void (*)(int, const float*, int, const float*, int, float*, int, __mmask16, bool);

template <bool MASKED_B, int... I>
constexpr std::array<TileFn, sizeof...(I)> make_tiles(std::integer_sequence<int, I...>) {
  return {&tile<I / NV_MAX + 1, I % NV_MAX + 1, MASKED_B>...};
}
constexpr auto kTiles = make_tiles<false>(std::make_integer_sequence<int, MR * NV_MAX>{});
constexpr auto kEdgeTiles = make_tiles<true>(std::make_integer_sequence<int, MR * NV_MAX>{});

}  // namespace

void gemm_f32_8x48_avx512(int kc, const float* A, int lda, const float* B, int ldb, float* C,
                          int ldc, int m, int n, bool accumulate) {
  assert(kc >= 1 && m >= 1 && m <= MR && n >= 1 && n <= NR);
  const int nv = (n + 15) / 16;
  const __mmask16 last = __mmask16((1u << (n - 16 * (nv - 1))) - 1u);
  const bool edge = n % 16 != 0;  // last vector partial: B may end there (masked_b_tail)
  (edge ? kEdgeTiles : kTiles)[std::size_t((m - 1) * NV_MAX + nv - 1)](kc, A, lda, B, ldb, C, ldc,
                                                                       last, accumulate);
}

// y = x·B streaming B once, four rows at a time (four sequential streams); y stays in
// L1/L2 between passes.
void gemv_f32_avx512(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  const int tail = N % 16, nfull = N - tail;
  const __mmask16 tmask = __mmask16((1u << tail) - 1u);
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    const float* b0 = B + std::ptrdiff_t(k) * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    const __m512 x0 = _mm512_set1_ps(x[k]), x1 = _mm512_set1_ps(x[k + 1]);
    const __m512 x2 = _mm512_set1_ps(x[k + 2]), x3 = _mm512_set1_ps(x[k + 3]);
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 16) {
      __m512 s = _mm512_mul_ps(x0, _mm512_loadu_ps(b0 + j));
      __m512 t = _mm512_mul_ps(x1, _mm512_loadu_ps(b1 + j));
      s = _mm512_fmadd_ps(x2, _mm512_loadu_ps(b2 + j), s);
      t = _mm512_fmadd_ps(x3, _mm512_loadu_ps(b3 + j), t);
      s = _mm512_add_ps(s, t);
      if (!first) s = _mm512_add_ps(s, _mm512_loadu_ps(y + j));
      _mm512_storeu_ps(y + j, s);
    }
    if (tail) {
      __m512 s = _mm512_mul_ps(x0, _mm512_maskz_loadu_ps(tmask, b0 + nfull));
      s = _mm512_fmadd_ps(x1, _mm512_maskz_loadu_ps(tmask, b1 + nfull), s);
      s = _mm512_fmadd_ps(x2, _mm512_maskz_loadu_ps(tmask, b2 + nfull), s);
      s = _mm512_fmadd_ps(x3, _mm512_maskz_loadu_ps(tmask, b3 + nfull), s);
      if (!first) s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(tmask, y + nfull));
      _mm512_mask_storeu_ps(y + nfull, tmask, s);
    }
  }
  for (; k < K; ++k) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    const __m512 xk = _mm512_set1_ps(x[k]);
    const bool first = k == 0;
    for (int j = 0; j < N; j += 16) {
      const __mmask16 mk = j + 16 <= N ? __mmask16(0xffff) : tmask;
      __m512 s = _mm512_mul_ps(xk, _mm512_maskz_loadu_ps(mk, b + j));
      if (!first) s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(mk, y + j));
      _mm512_mask_storeu_ps(y + j, mk, s);
    }
  }
}

}  // namespace llmsize::ref::kernels

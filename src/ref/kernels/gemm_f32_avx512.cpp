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
  if (accumulate) {  // C comes back from L3 once per K block: start fetching it now
#pragma GCC unroll 8
    for (int i = 0; i < M; ++i) {
      const char* ci = reinterpret_cast<const char*>(c + std::ptrdiff_t(i) * ldc);
#pragma GCC unroll 3
      for (int v = 0; v < NV; ++v) _mm_prefetch(ci + 64 * v, _MM_HINT_T0);
    }
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

void gemm_f32_8x48_avx512(int kc, const float* A, int lda, const float* B, int ldb,
                          std::ptrdiff_t b_next, float* C, int ldc, int m, int n, bool accumulate) {
  assert(kc >= 1 && m >= 1 && m <= MR && n >= 1);
  for (; n > 0; n -= NR, B += b_next, C += NR) {
    if (m == MR && n >= NR) {  // the hot case, inlined
      tile<MR, NV_MAX, false>(kc, A, lda, B, ldb, C, ldc, 0xffff, accumulate);
      continue;
    }
    const int nj = n < NR ? n : NR;
    const int nv = (nj + 15) / 16;
    const __mmask16 last = __mmask16((1u << (nj - 16 * (nv - 1))) - 1u);
    const bool edge = nj % 16 != 0;  // last vector partial: B may end there (masked_b_tail)
    (edge ? kEdgeTiles : kTiles)[std::size_t((m - 1) * NV_MAX + nv - 1)](kc, A, lda, B, ldb, C,
                                                                         ldc, last, accumulate);
  }
}

namespace {

// y (+)= x[k..k+R)·B[k..k+R, :]: R sequential row streams, one pass over y. Full vectors use
// plain loads; only the column tail is masked.
template <int R, bool MASKED>
inline void gemv_chunk(const __m512* xs, const float* b, int ldb, float* y, __mmask16 mk,
                       bool first) {
  auto load = [&](const float* p) { return MASKED ? _mm512_maskz_loadu_ps(mk, p) : _mm512_loadu_ps(p); };
  __m512 s = _mm512_mul_ps(xs[0], load(b));
#pragma GCC unroll 8
  for (int r = 1; r < R; ++r) s = _mm512_fmadd_ps(xs[r], load(b + std::ptrdiff_t(r) * ldb), s);
  if (!first) s = _mm512_add_ps(s, load(y));
  if (MASKED) {
    _mm512_mask_storeu_ps(y, mk, s);
  } else {
    _mm512_storeu_ps(y, s);
  }
}

template <int R>
void gemv_rows(int k, int N, const float* x, const float* B, int ldb, float* y) {
  const float* b = B + std::ptrdiff_t(k) * ldb;
  __m512 xs[R];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) xs[r] = _mm512_set1_ps(x[k + r]);
  const bool first = k == 0;
  const int nfull = N - N % 16;
  for (int j = 0; j < nfull; j += 16) gemv_chunk<R, false>(xs, b + j, ldb, y + j, 0, first);
  if (nfull < N) {
    gemv_chunk<R, true>(xs, b + nfull, ldb, y + nfull, __mmask16((1u << (N - nfull)) - 1u), first);
  }
}

}  // namespace

// y = x·B streaming B once, eight rows at a time (eight sequential streams); y stays in
// L1/L2 between passes.
void gemv_f32_avx512(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  int k = 0;
  for (; k + 8 <= K; k += 8) gemv_rows<8>(k, N, x, B, ldb, y);
  if (k + 4 <= K) gemv_rows<4>(k, N, x, B, ldb, y), k += 4;
  for (; k < K; ++k) gemv_rows<1>(k, N, x, B, ldb, y);
}

}  // namespace llmsize::ref::kernels

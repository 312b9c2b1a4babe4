// AArch64 NEON kernels: the 8x12 GEMM micro-kernel (every m ≤ 8 / n ≤ 12
// edge tile as a template instance) and the streaming GEMV. NEON is the AArch64
// baseline: no extra flags. Tested under qemu-aarch64 (tests/kernels/run_neon.sh).
#include <arm_neon.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <utility>

#include "kernel.hpp"
#include "tile_walk.hpp"

namespace llmsize::ref::kernels {
namespace {

constexpr int MR = 8;   // 8 rows × 3 q-registers = 24 accumulators
constexpr int NR = 12;  // + 3 B + 1 broadcast A = 28 of 32 v-registers
constexpr int NV_MAX = NR / 4;

inline void store_part(float* c, float32x4_t r, int count, bool accumulate) {
  if (count == 4) {
    if (accumulate) r = vaddq_f32(r, vld1q_f32(c));
    vst1q_f32(c, r);
    return;
  }
  float t[4];
  vst1q_f32(t, r);
  for (int j = 0; j < count; ++j) c[j] = accumulate ? c[j] + t[j] : t[j];
}

template <int M, int NV>
void tile(int kc, const float* __restrict a, int lda, const float* __restrict b, int ldb,
          float* c, int ldc, int last_count, bool accumulate) {
  float32x4_t acc[M][NV];
  for (int i = 0; i < M; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = vdupq_n_f32(0.0f);
  }
  for (int k = 0; k < kc; ++k, b += ldb) {
    float32x4_t bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = vld1q_f32(b + 4 * v);
    for (int i = 0; i < M; ++i) {
      const float32x4_t ai = vld1q_dup_f32(a + std::ptrdiff_t(i) * lda + k);
      for (int v = 0; v < NV; ++v) acc[i][v] = vfmaq_f32(acc[i][v], ai, bv[v]);
    }
  }
  for (int i = 0; i < M; ++i) {
    float* ci = c + std::ptrdiff_t(i) * ldc;
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

void gemm_f32_8x12_neon(int kc, const float* A, int lda, const float* B, int ldb, std::ptrdiff_t b_next,
    float* C, int ldc, int m, int n, bool accumulate) {
  walk::walk_n<Tiles, MR, NV_MAX, 4>(kc, A, lda, B, ldb, b_next, C, ldc, m, n, accumulate);
}

// y = x·B streaming B once, four rows at a time; y stays in L1/L2 between passes.
void gemv_f32_neon(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  const int nfull = N - N % 4;
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    const float* b0 = B + std::ptrdiff_t(k) * ldb;
    const float* b1 = b0 + ldb;
    const float* b2 = b1 + ldb;
    const float* b3 = b2 + ldb;
    const float32x4_t xv = vld1q_f32(x + k);
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 4) {
      float32x4_t s = vmulq_laneq_f32(vld1q_f32(b0 + j), xv, 0);
      float32x4_t t = vmulq_laneq_f32(vld1q_f32(b1 + j), xv, 1);
      s = vfmaq_laneq_f32(s, vld1q_f32(b2 + j), xv, 2);
      t = vfmaq_laneq_f32(t, vld1q_f32(b3 + j), xv, 3);
      s = vaddq_f32(s, t);
      if (!first) s = vaddq_f32(s, vld1q_f32(y + j));
      vst1q_f32(y + j, s);
    }
    for (int j = nfull; j < N; ++j) {
      const float s = x[k] * b0[j] + x[k + 1] * b1[j] + x[k + 2] * b2[j] + x[k + 3] * b3[j];
      y[j] = first ? s : y[j] + s;
    }
  }
  for (; k < K; ++k) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    const bool first = k == 0;
    for (int j = 0; j < nfull; j += 4) {
      float32x4_t s = vmulq_n_f32(vld1q_f32(b + j), x[k]);
      if (!first) s = vaddq_f32(s, vld1q_f32(y + j));
      vst1q_f32(y + j, s);
    }
    for (int j = nfull; j < N; ++j) y[j] = first ? x[k] * b[j] : y[j] + x[k] * b[j];
  }
}

}  // namespace llmsize::ref::kernels

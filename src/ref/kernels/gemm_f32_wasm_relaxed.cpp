// WebAssembly relaxed-SIMD kernels (f32x4.relaxed_madd, FMA where the engine has it): the
// 6x8 GEMM micro-kernel and the streaming GEMV. Built with -mrelaxed-simd on this file only,
// into llmsize_kernels_relaxed. Clang 14 emits the pre-standard opcode: programs that link
// it run llmsize_patch_relaxed_simd (CMake) on their .wasm, see wasm_relaxed_patch.mjs.
#include <wasm_simd128.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <utility>

#include "kernel.hpp"
#include "tile_walk.hpp"

namespace llmsize::ref::kernels {
namespace {

// acc + x·y. Clang 14's builtin is the pre-standard f32x4.fma; its operands are pushed in
// this order (x, y, acc) so that the standard opcode the patch writes computes x·y + acc.
typedef float f32x4 __attribute__((vector_size(16)));
inline v128_t madd(v128_t x, v128_t y, v128_t acc) {
  return (v128_t)__builtin_wasm_fma_f32x4((f32x4)x, (f32x4)y, (f32x4)acc);
}

// V8 on x86-64 hands out 15 xmm registers (xmm15 is its scratch); FMA needs no product
// temporary. Measured under Node 20 against 4x8, 5x8, 3x12, 2x16.
constexpr int MR = 6;  // 6 rows × 2 vectors = 12 accumulators
constexpr int NR = 8;  // + 2 B + 1 splat = 15 of 15 xmm
constexpr int NV_MAX = NR / 4;

inline void store_part(float* c, v128_t r, int count, bool accumulate) {
  if (count == 4) {
    if (accumulate) r = wasm_f32x4_add(r, wasm_v128_load(c));
    wasm_v128_store(c, r);
    return;
  }
  alignas(16) float t[4];
  wasm_v128_store(t, r);
  for (int j = 0; j < count; ++j) c[j] = accumulate ? c[j] + t[j] : t[j];
}

// noinline: V8 allocates registers per function; inlined into the caller's loop over n
// the tile lost a fifth of its speed to spills (measured).
template <int M, int NV>
__attribute__((noinline)) void tile(int kc, const float* __restrict a, int lda, const float* __restrict b, int ldb,
          float* c, int ldc, int last_count, bool accumulate) {
  v128_t acc[M][NV];
#pragma unroll
  for (int i = 0; i < M; ++i) {
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[i][v] = wasm_f32x4_const_splat(0.0f);
  }
  for (int k = 0; k < kc; ++k, b += ldb) {
    v128_t bv[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v) bv[v] = wasm_v128_load(b + 4 * v);
#pragma unroll
    for (int i = 0; i < M; ++i) {
      const v128_t ai = wasm_v128_load32_splat(a + std::ptrdiff_t(i) * lda + k);
#pragma unroll
      for (int v = 0; v < NV; ++v) acc[i][v] = madd(ai, bv[v], acc[i][v]);
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i) {
    float* ci = c + std::ptrdiff_t(i) * ldc;
#pragma unroll
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

void gemm_f32_6x8_wasm_relaxed(int kc, const float* A, int lda, const float* B, int ldb, std::ptrdiff_t b_next,
    float* C, int ldc, int m, int n, bool accumulate) {
  walk::walk_n<Tiles, MR, NV_MAX, 4>(kc, A, lda, B, ldb, b_next, C, ldc, m, n, accumulate);
}

namespace {

// y (+)= x[k..k+R)·B[k..k+R, :]: R sequential row streams, one pass over y.
template <int R>
void gemv_rows(int k, int N, const float* x, const float* B, int ldb, float* y) {
  const float* b = B + std::ptrdiff_t(k) * ldb;
  v128_t xs[R];
#pragma unroll
  for (int r = 0; r < R; ++r) xs[r] = wasm_f32x4_splat(x[k + r]);
  const bool first = k == 0;
  const int nfull = N - N % 4;
  for (int j = 0; j < nfull; j += 4) {
    // Two partial sums (even and odd rows) halve the dependent chain.
    v128_t p[2] = {wasm_f32x4_mul(xs[0], wasm_v128_load(b + j)), wasm_f32x4_const_splat(0.0f)};
#pragma unroll
    for (int r = 1; r < R; ++r) p[r % 2] = madd(xs[r], wasm_v128_load(b + std::ptrdiff_t(r) * ldb + j), p[r % 2]);
    v128_t s = R > 1 ? wasm_f32x4_add(p[0], p[1]) : p[0];
    if (!first) s = wasm_f32x4_add(s, wasm_v128_load(y + j));
    wasm_v128_store(y + j, s);
  }
  for (int j = nfull; j < N; ++j) {
    float s = 0.0f;
    for (int r = 0; r < R; ++r) s += x[k + r] * b[std::ptrdiff_t(r) * ldb + j];
    y[j] = first ? s : y[j] + s;
  }
}

}  // namespace

// y = x·B streaming B once, eight rows at a time (measured: 8 row streams beat 1, 2 and 4,
// and 32-column register blocks); y stays in cache between passes.
void gemv_f32_wasm_relaxed(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  int k = 0;
  for (; k + 8 <= K; k += 8) gemv_rows<8>(k, N, x, B, ldb, y);
  if (k + 4 <= K) gemv_rows<4>(k, N, x, B, ldb, y), k += 4;
  for (; k < K; ++k) gemv_rows<1>(k, N, x, B, ldb, y);
}

}  // namespace llmsize::ref::kernels

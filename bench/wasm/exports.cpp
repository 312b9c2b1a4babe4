// C entry points of the WASM benchmark module (gemm_bench_wasm[_relaxed].js), called by
// bench/wasm/bench.mjs. Each call runs `iters` multiplications so JS call overhead stays
// out of the timing; the timing itself happens in JS, like the baselines'.
#include <wasm_simd128.h>

#include <chrono>
#include <cstdint>

#include "ref/kernels/gemm.hpp"

using llmsize::ref::PackedB;

extern "C" {

void bench_fill(float* p, int n, unsigned seed) {
  std::uint32_t s = seed * 2654435761u + 1u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = float(s >> 8) / float(1u << 24) - 0.5f;
  }
}

void bench_sgemm(int M, int N, int K, const float* A, const float* B, float* C, int iters) {
  for (int i = 0; i < iters; ++i) llmsize::ref::sgemm(M, N, K, A, B, C);
}

PackedB* bench_pack_b(int K, int N, const float* B) {
  return new PackedB(llmsize::ref::pack_b(K, N, B, N));
}

void bench_sgemm_packed(int M, const float* A, const PackedB* B, float* C, int iters) {
  for (int i = 0; i < iters; ++i) llmsize::ref::sgemm_packed(M, A, B->k(), *B, C, B->n());
}

void bench_free_packed(PackedB* p) { delete p; }

const char* bench_kernel_name() { return llmsize::ref::active_kernel().name; }

// Register-only loop: 6 multiply chains and 6 add chains (mul+add build), or 12 FMA chains
// (relaxed build), enough independent work to fill 2 multiply + 2 add (or 2 FMA) pipes.
// V8 has no on-stack replacement for wasm: call it a few times so the optimizing tier runs it.
double bench_peak_gflops(int iters) {
  volatile float one = 1.0f, tiny = 1e-7f;  // opaque, so nothing folds
  const v128_t c = wasm_f32x4_splat(one), d = wasm_f32x4_splat(tiny);
  v128_t r[12];
  for (v128_t& x : r) x = c;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 12; ++j) {
#if defined(LLMSIZE_BENCH_RELAXED)
      typedef float f32x4 __attribute__((vector_size(16)));  // see gemm_f32_wasm_relaxed.cpp
      r[j] = (v128_t)__builtin_wasm_fma_f32x4((f32x4)r[j], (f32x4)c, (f32x4)d);
#else
      r[j] = j % 2 ? wasm_f32x4_mul(r[j], c) : wasm_f32x4_add(r[j], d);
#endif
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  float sum = 0.0f;
  for (v128_t x : r) sum += wasm_f32x4_extract_lane(x, 0);
#if defined(LLMSIZE_BENCH_RELAXED)
  const double flop_per_iter = 12 * 4 * 2;
#else
  const double flop_per_iter = 12 * 4;  // each mul or add counts once; a mul+add pair = 2
#endif
  return sum != 0.0f ? iters * flop_per_iter / s * 1e-9 : 0.0;
}

}  // extern "C"

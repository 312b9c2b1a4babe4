// Scalar kernels, kept forever: the naive triple loop (the tests' reference, accumulated
// in double) and a plain-C++ 4x4 micro-kernel and GEMV, the fallback on any CPU.
// Compiled with the target's baseline flags only; no intrinsics.
#include <cassert>
#include <cstddef>

#include "kernel.hpp"

namespace llmsize::ref::kernels {

void sgemm_naive(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += double(A[i * lda + k]) * double(B[k * ldb + j]);
      C[i * ldc + j] = float(acc);
    }
  }
}

namespace {
constexpr int MR = 4, NR = 4;  // 16 accumulators: the compiler keeps what it can in registers
}  // namespace

namespace {
void tile(int kc, const float* A, int lda, const float* B, int ldb, float* C, int ldc, int m,
          int n, bool accumulate) {
  float acc[MR][NR] = {};
  for (int k = 0; k < kc; ++k, B += ldb) {
    for (int i = 0; i < m; ++i) {
      const float a = A[std::ptrdiff_t(i) * lda + k];
      for (int j = 0; j < NR; ++j) acc[i][j] += a * B[j];
    }
  }
  for (int i = 0; i < m; ++i) {
    float* c = C + i * ldc;
    for (int j = 0; j < n; ++j) c[j] = accumulate ? c[j] + acc[i][j] : acc[i][j];
  }
}
}  // namespace

void gemm_f32_4x4_scalar(int kc, const float* A, int lda, const float* B, int ldb,
                         std::ptrdiff_t b_next, float* C, int ldc, int m, int n, bool accumulate) {
  assert(kc >= 1 && m >= 1 && m <= MR && n >= 1);
  for (; n > 0; n -= NR, B += b_next, C += NR) tile(kc, A, lda, B, ldb, C, ldc, m, n < NR ? n : NR, accumulate);
}

void gemv_f32_scalar(int K, int N, const float* x, const float* B, int ldb, float* y) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  for (int j = 0; j < N; ++j) y[j] = 0.0f;
  for (int k = 0; k < K; ++k) {
    const float xk = x[k];
    const float* b = B + k * ldb;
    for (int j = 0; j < N; ++j) y[j] += xk * b[j];
  }
}

}  // namespace llmsize::ref::kernels

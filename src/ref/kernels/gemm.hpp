// Public fp32 GEMM / GEMV entry points of the kernels library (llmsize_kernels).
// Row-major, single thread, C overwritten (never accumulated into). The best kernel for
// the CPU is chosen once (CPUID natively, LLMSIZE_ISA=scalar|sse2|avx2|avx512|neon forces
// one; fixed at compile time in WASM). Depends on the C++ standard library only.
#pragma once

#include <cstddef>
#include <memory>

namespace llmsize::ref {

namespace kernels {
struct GemmKernel;     // one row of the kernel table (kernel.hpp, internal)
struct PackedBAccess;  // the driver's view of PackedB (gemm.cpp)
}

// C(M×N) = A(M×K) · B(K×N), all contiguous row-major. M = 1 takes the GEMV path.
void sgemm(int M, int N, int K, const float* A, const float* B, float* C);

// Same with leading dimensions (row strides, in floats): lda ≥ K, ldb ≥ N, ldc ≥ N.
void sgemm_strided(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc);

// C(M×N, ldc) = op(A)·op(B), or C += op(A)·op(B) with `accumulate`: op(A) is M×K, stored as A
// (M×K, lda ≥ K) or, with Trans::T, as its transpose (K×M, lda ≥ M); op(B) is K×N, stored as B
// (K×N, ldb ≥ N) or as its transpose (N×K, ldb ≥ K). Backward passes use it: dX = dY·Wᵀ is
// (N, T), dW = Xᵀ·dY is (T, N) (Trans::). The same micro-kernels; a transposed A block is copied once per
// A block, a transposed B is packed from its rows.
enum class Trans : bool { N, T };
void sgemm_op(Trans a, Trans b, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
              bool accumulate = false);

// B packed once into the active kernel's panel layout, as a model does with its weights.
class PackedB {
 public:
  PackedB() = default;
  int k() const { return k_; }
  int n() const { return n_; }
  bool empty() const { return data_ == nullptr; }
  std::size_t bytes() const { return floats_ * sizeof(float); }

 private:
  struct Free { void operator()(float* p) const; };
  friend struct kernels::PackedBAccess;
  std::unique_ptr<float[], Free> data_;
  std::size_t floats_ = 0;
  const kernels::GemmKernel* kernel_ = nullptr;  // the kernel whose layout data_ holds
  int k_ = 0, n_ = 0, kc_ = 0, n_padded_ = 0;
};

// Packs B(K×N) with row stride ldb for the active kernel.
PackedB pack_b(int K, int N, const float* B, int ldb);

// C(M×N, ldc) = A(M×K, lda) · B, with B from pack_b (K and N are B's). M = 1 is a GEMV.
void sgemm_packed(int M, const float* A, int lda, const PackedB& B, float* C, int ldc);

// Which kernel sgemm uses in this process.
struct KernelInfo {
  const char* name;  // e.g. "gemm_f32_8x48_avx512"
  const char* isa;   // "scalar", "sse2", "avx2", "avx512", "neon", "wasm_simd128", "wasm_relaxed"
  int mr, nr;        // micro-tile rows × columns
};
KernelInfo active_kernel();

}  // namespace llmsize::ref

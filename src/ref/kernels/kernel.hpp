// Internal interface of the kernels library: the kernel table row, the micro-kernel,
// packing and GEMV contracts, dispatch, and the blocked driver with an explicit kernel
// (the tests run every row through it). No intrinsics here: each ISA is one .cpp file.
// Not a public header; gemm.hpp is.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "gemm.hpp"

namespace llmsize::ref::kernels {

enum class Isa { scalar, sse2, avx2, avx512, neon, wasm_simd128, wasm_relaxed };

// C(m×n, ldc) = (accumulate ? C : 0) + A(m×kc, row stride lda)·B(kc×n), 1 ≤ m ≤ MR, n ≥ 1,
// kc ≥ 1, one MR×NR register tile after another along n. A is read in place (broadcasts need
// no packing). B is ceil(n/NR) panels of kc×NR, panel p at B + p·b_next with row stride ldb:
// packed panels (ldb = NR, b_next = kc·NR) or B itself (ldb, b_next = NR). All NR columns of
// the last panel must be readable (columns ≥ n are computed, never stored) unless the row
// says masked_b_tail (then only n columns are read).
using MicroKernelFn = void (*)(int kc, const float* A, int lda, const float* B, int ldb,
                               std::ptrdiff_t b_next, float* C, int ldc, int m, int n,
                               bool accumulate);
// B(kc×nc, ldb) → ceil(nc/NR) panels of kc×NR, zero-padded columns.
using PackBFn = void (*)(int kc, int nc, const float* B, int ldb, float* Bp);
// y(N) = x(K)·B(K×N, ldb), y overwritten: the M = 1 path, one pass over B.
using GemvFn = void (*)(int K, int N, const float* x, const float* B, int ldb, float* y);

// One row of the kernel table. Blocking: the A micro-panel (MR rows × kc) stays in L1 while
// the packed B block (kc×nc) streams from L2; the A block (mc×kc) is reused across all of N.
struct GemmKernel {
  const char* name;  // gemm_f32_<MR>x<NR>_<isa>
  Isa isa;
  int mr, nr;
  MicroKernelFn ukernel;
  PackBFn pack_b;
  GemvFn gemv;
  int mc, kc, nc;        // multiple of mr, any, multiple of nr
  int in_place_b_max_m;  // per-call GEMMs with M ≤ this read B in place instead of packing it
  bool masked_b_tail;    // reads only n ≤ NR columns of B (else the driver packs a B tail)
};

// The B packer (pack.cpp), instantiated for the NR values the table uses.
template <int NR> void pack_b(int kc, int nc, const float* B, int ldb, float* Bp);

// Every kernel compiled into this build; the scalar reference kernel is first.
std::span<const GemmKernel> kernel_table();
bool cpu_supports(Isa isa);
const char* isa_name(Isa isa);
std::optional<Isa> parse_isa(std::string_view name);
// The best supported kernel, or the one for `forced` (an LLMSIZE_ISA value) when the CPU
// supports it. Unknown or unsupported values fall back to the best kernel.
const GemmKernel& select_kernel(const char* forced);
const GemmKernel& active();  // select_kernel(getenv("LLMSIZE_ISA")), chosen once

// The naive triple loop (gemm_f32_scalar.cpp), accumulated in double: the tests' reference.
void sgemm_naive(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                 float* C, int ldc);

// The blocked driver with an explicit kernel (gemm.cpp). `b_path` overrides the choice
// between packing B per call and reading it in place (tests cover both on every kernel).
enum class BPath { automatic, packed, in_place };
void sgemm_with(const GemmKernel& kernel, int M, int N, int K, const float* A, int lda,
                const float* B, int ldb, float* C, int ldc, BPath b_path = BPath::automatic);
PackedB pack_b_with(const GemmKernel& kernel, int K, int N, const float* B, int ldb);
// gemm.hpp's sgemm_op with an explicit kernel: ta, tb transpose A and B as Trans::T does.
void sgemm_op_with(const GemmKernel& kernel, bool ta, bool tb, int M, int N, int K, const float* A, int lda,
                   const float* B, int ldb, float* C, int ldc, bool accumulate);
// Kernel declarations, one per ISA file.
void gemm_f32_4x4_scalar(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_scalar(int, int, const float*, const float*, int, float*);
void gemm_f32_4x8_sse2(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_sse2(int, int, const float*, const float*, int, float*);
void gemm_f32_6x16_avx2(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_avx2(int, int, const float*, const float*, int, float*);
void gemm_f32_8x48_avx512(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_avx512(int, int, const float*, const float*, int, float*);
void gemm_f32_8x12_neon(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_neon(int, int, const float*, const float*, int, float*);
void gemm_f32_3x12_wasm_simd128(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_wasm_simd128(int, int, const float*, const float*, int, float*);
void gemm_f32_6x8_wasm_relaxed(int, const float*, int, const float*, int, std::ptrdiff_t, float*, int, int, int, bool);
void gemv_f32_wasm_relaxed(int, int, const float*, const float*, int, float*);

}  // namespace llmsize::ref::kernels

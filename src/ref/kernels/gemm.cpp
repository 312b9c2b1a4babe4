// The blocked GEMM driver (GotoBLAS/BLIS loop nest) around a kernel-table row, and the
// public entry points of gemm.hpp. Portable C++: every ISA-specific instruction lives in
// the micro-kernels and GEMVs the row points to. Single thread; per-thread scratch.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "kernel.hpp"

namespace llmsize::ref {

namespace kernels {

struct PackedBAccess {
  static const float* data(const PackedB& p) { return p.data_.get(); }
  static const GemmKernel* kernel(const PackedB& p) { return p.kernel_; }
  static int kc(const PackedB& p) { return p.kc_; }
  static int n_padded(const PackedB& p) { return p.n_padded_; }
  static PackedB make(const GemmKernel& kr, int K, int N, int kc, int n_padded) {
    PackedB p;
    p.floats_ = std::size_t(K) * std::size_t(n_padded);
    p.data_.reset(static_cast<float*>(
        ::operator new[](p.floats_ * sizeof(float), std::align_val_t{64})));
    p.kernel_ = &kr;
    p.k_ = K, p.n_ = N, p.kc_ = kc, p.n_padded_ = n_padded;
    return p;
  }
  static float* mutable_data(PackedB& p) { return p.data_.get(); }
};

namespace {

constexpr std::int64_t kL2SizedB = 1 << 18;  // floats: 1 MiB
// In-place B rows each sit on their own page: keep a K block's rows within the L1 TLB.
constexpr int kInPlaceKc = 256;
constexpr int round_up(int x, int to) { return (x + to - 1) / to * to; }

// Grow-only, 64-byte aligned scratch for packed B blocks.
class Scratch {
 public:
  float* get(std::size_t floats) {
    if (floats > size_) {
      buf_.reset(static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t{64})));
      size_ = floats;
    }
    return buf_.get();
  }

 private:
  struct Free {
    void operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<float[], Free> buf_;
  std::size_t size_ = 0;
};
thread_local Scratch g_b_scratch, g_tail_scratch, g_a_scratch;

// Where the macro-kernel reads B: packed panels (kc×NR each, ldb = NR) or B in place.
struct BView {
  const float* p;
  int ldb;          // row stride seen by the micro-kernel
  bool packed;
  const float* tail;  // in-place B only: the packed last panel when nc % NR ≠ 0
};

// C(mc×nc) (+)= A(mc×kc, lda)·B(kc×nc). The A micro-panel (MR rows) stays in L1 while the
// B panels of the block stream through from L2.
void macro_kernel(const GemmKernel& kr, int mc, int nc, int kc, const float* A, int lda,
                  const BView& b, float* C, int ldc, bool accumulate) {
  const int full = b.packed || kr.masked_b_tail ? nc : nc - nc % kr.nr;
  for (int ir = 0; ir < mc; ir += kr.mr) {
    const int m = std::min(kr.mr, mc - ir);
    const float* a = A + std::ptrdiff_t(ir) * lda;
    float* c = C + std::ptrdiff_t(ir) * ldc;
    if (b.packed) {
      kr.ukernel(kc, a, lda, b.p, kr.nr, std::ptrdiff_t(kc) * kr.nr, c, ldc, m, nc, accumulate);
      continue;
    }
    if (full > 0) kr.ukernel(kc, a, lda, b.p, b.ldb, kr.nr, c, ldc, m, full, accumulate);
    if (full < nc) kr.ukernel(kc, a, lda, b.tail, kr.nr, 0, c + full, ldc, m, nc - full, accumulate);
  }
}

// Loop nest: ic (MC rows of A) → pc (KC) → jc (NC) → pack the B block (or point into the
// pre-packed B, or read B in place) → macro-kernel. Pre-packed B uses the KC it was packed with.
void gemm_blocked(const GemmKernel& kr, int M, int N, int K, const float* A, int lda,
                  const float* B, int ldb, const PackedB* pb, float* C, int ldc, BPath b_path) {
  // B in place costs strided rows on every pass, packing costs a copy per call: in place
  // wins while few rows of A share each B panel, or when B is L2-sized anyway (measured).
  const bool in_place =
      !pb && (b_path == BPath::automatic
                  ? M <= kr.in_place_b_max_m || std::int64_t(K) * N <= kL2SizedB
                  : b_path == BPath::in_place);
  const int KC = pb ? PackedBAccess::kc(*pb) : std::min(in_place ? kInPlaceKc : kr.kc, K);
  const int MC = kr.mc, NC = kr.nc;
  float* Bbuf = pb || in_place ? nullptr
                 : g_b_scratch.get(std::size_t(KC) * std::size_t(round_up(std::min(N, NC), kr.nr)));
  for (int ic = 0; ic < M; ic += MC) {
    const int mc = std::min(MC, M - ic);
    for (int pc = 0; pc < K; pc += KC) {
      const int kc = std::min(KC, K - pc);
      const float* a = A + std::ptrdiff_t(ic) * lda + pc;
      for (int jc = 0; jc < N; jc += NC) {
        const int nc = std::min(NC, N - jc);
        BView b{};
        const float* bsrc = pb ? nullptr : B + std::ptrdiff_t(pc) * ldb + jc;
        if (pb) {
          b = {PackedBAccess::data(*pb) + std::ptrdiff_t(pc) * PackedBAccess::n_padded(*pb) +
                   std::ptrdiff_t(jc) * kc,
               kr.nr, true, nullptr};
        } else if (in_place) {
          b = {bsrc, ldb, false, nullptr};
          if (const int tail = nc % kr.nr; tail && !kr.masked_b_tail) {
            float* t = g_tail_scratch.get(std::size_t(kc) * std::size_t(kr.nr));
            kr.pack_b(kc, tail, bsrc + (nc - tail), ldb, t);
            b.tail = t;
          }
        } else {
          kr.pack_b(kc, nc, bsrc, ldb, Bbuf);
          b = {Bbuf, kr.nr, true, nullptr};
        }
        macro_kernel(kr, mc, nc, kc, a, lda, b, C + std::ptrdiff_t(ic) * ldc + jc, ldc, pc > 0);
      }
    }
  }
}

// Bᵀ stored N×K (row stride ldb) → ceil(nc/NR) panels of kc×NR, as pack_b lays out B(kc×nc):
// panel p, row k, column j holds Bt[(p·NR + j)·ldb + k], zero past nc. Plain loops: it runs once
// per B block, like pack_b, and reads each row of Bt contiguously.
void pack_b_transposed(int nr, int kc, int nc, const float* Bt, int ldb, float* Bp) {
  for (int j0 = 0; j0 < nc; j0 += nr) {
    float* panel = Bp + std::ptrdiff_t(j0) * kc;
    for (int j = 0; j < nr; ++j) {
      if (j0 + j >= nc) {
        for (int k = 0; k < kc; ++k) panel[std::ptrdiff_t(k) * nr + j] = 0.0f;
        continue;
      }
      const float* row = Bt + std::ptrdiff_t(j0 + j) * ldb;
      for (int k = 0; k < kc; ++k) panel[std::ptrdiff_t(k) * nr + j] = row[k];
    }
  }
}

// The loop nest of gemm_blocked with either operand transposed and C optionally accumulated:
// the mc×kc block of Aᵀ is copied row-major into scratch once per (ic, pc) and then read in
// place like A; B's block is always packed (from Bᵀ by pack_b_transposed).
void gemm_blocked_op(const GemmKernel& kr, bool ta, bool tb, int M, int N, int K, const float* A, int lda,
                     const float* B, int ldb, float* C, int ldc, bool accumulate) {
  const int KC = std::min(kr.kc, K), MC = kr.mc, NC = kr.nc;
  float* Bbuf = g_b_scratch.get(std::size_t(KC) * std::size_t(round_up(std::min(N, NC), kr.nr)));
  float* Abuf = ta ? g_a_scratch.get(std::size_t(std::min(M, MC)) * std::size_t(KC)) : nullptr;
  for (int ic = 0; ic < M; ic += MC) {
    const int mc = std::min(MC, M - ic);
    for (int pc = 0; pc < K; pc += KC) {
      const int kc = std::min(KC, K - pc);
      const float* a = A + std::ptrdiff_t(ic) * lda + pc;
      int a_ld = lda;
      if (ta) {  // op(A)(i, k) = A[(pc + k)·lda + ic + i]
        for (int k = 0; k < kc; ++k) {
          const float* src = A + std::ptrdiff_t(pc + k) * lda + ic;
          for (int i = 0; i < mc; ++i) Abuf[std::ptrdiff_t(i) * kc + k] = src[i];
        }
        a = Abuf;
        a_ld = kc;
      }
      for (int jc = 0; jc < N; jc += NC) {
        const int nc = std::min(NC, N - jc);
        if (tb) pack_b_transposed(kr.nr, kc, nc, B + std::ptrdiff_t(jc) * ldb + pc, ldb, Bbuf);
        else kr.pack_b(kc, nc, B + std::ptrdiff_t(pc) * ldb + jc, ldb, Bbuf);
        macro_kernel(kr, mc, nc, kc, a, a_ld, {Bbuf, kr.nr, true, nullptr}, C + std::ptrdiff_t(ic) * ldc + jc, ldc,
                     accumulate || pc > 0);
      }
    }
  }
}

void zero_c(int M, int N, float* C, int ldc) {
  for (int i = 0; i < M; ++i) std::fill_n(C + std::ptrdiff_t(i) * ldc, N, 0.0f);
}

}  // namespace

void sgemm_with(const GemmKernel& kr, int M, int N, int K, const float* A, int lda,
                const float* B, int ldb, float* C, int ldc, BPath b_path) {
  assert(M >= 0 && N >= 0 && K >= 0 && lda >= K && ldb >= N && ldc >= N);
  if (M == 0 || N == 0) return;
  if (K == 0) return zero_c(M, N, C, ldc);
  if (M == 1) return kr.gemv(K, N, A, B, ldb, C);
  gemm_blocked(kr, M, N, K, A, lda, B, ldb, nullptr, C, ldc, b_path);
}

void sgemm_op_with(const GemmKernel& kr, bool ta, bool tb, int M, int N, int K, const float* A, int lda,
                   const float* B, int ldb, float* C, int ldc, bool accumulate) {
  assert(M >= 0 && N >= 0 && K >= 0 && lda >= (ta ? M : K) && ldb >= (tb ? K : N) && ldc >= N);
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate) zero_c(M, N, C, ldc);
    return;
  }
  if (!ta && !tb && !accumulate) return sgemm_with(kr, M, N, K, A, lda, B, ldb, C, ldc, BPath::automatic);
  gemm_blocked_op(kr, ta, tb, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

PackedB pack_b_with(const GemmKernel& kr, int K, int N, const float* B, int ldb) {
  assert(K >= 1 && N >= 1 && ldb >= N);
  const int kc = std::min(kr.kc, K), n_padded = round_up(N, kr.nr);
  PackedB p = PackedBAccess::make(kr, K, N, kc, n_padded);
  float* dst = PackedBAccess::mutable_data(p);
  for (int pc = 0; pc < K; pc += kc) {
    kr.pack_b(std::min(kc, K - pc), N, B + std::ptrdiff_t(pc) * ldb, ldb,
              dst + std::ptrdiff_t(pc) * n_padded);
  }
  return p;
}

}  // namespace kernels

void PackedB::Free::operator()(float* p) const { ::operator delete[](p, std::align_val_t{64}); }

void sgemm(int M, int N, int K, const float* A, const float* B, float* C) {
  kernels::sgemm_with(kernels::active(), M, N, K, A, K, B, N, C, N);
}

void sgemm_strided(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                   float* C, int ldc) {
  kernels::sgemm_with(kernels::active(), M, N, K, A, lda, B, ldb, C, ldc);
}

void sgemm_op(Trans a, Trans b, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
              bool accumulate) {
  kernels::sgemm_op_with(kernels::active(), a == Trans::T, b == Trans::T, M, N, K, A, lda, B, ldb, C, ldc, accumulate);
}

PackedB pack_b(int K, int N, const float* B, int ldb) {
  return kernels::pack_b_with(kernels::active(), K, N, B, ldb);
}

void sgemm_packed(int M, const float* A, int lda, const PackedB& B, float* C, int ldc) {
  assert(!B.empty() && M >= 0 && lda >= B.k() && ldc >= B.n());
  if (M == 0) return;
  const kernels::GemmKernel& kr = *kernels::PackedBAccess::kernel(B);
  kernels::gemm_blocked(kr, M, B.n(), B.k(), A, lda, nullptr, 0, &B, C, ldc, kernels::BPath::automatic);
}

KernelInfo active_kernel() {
  const kernels::GemmKernel& kr = kernels::active();
  return {kr.name, kernels::isa_name(kr.isa), kr.mr, kr.nr};
}

}  // namespace llmsize::ref

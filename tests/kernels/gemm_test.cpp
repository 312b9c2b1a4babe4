// Correctness of every GEMM kernel this CPU supports, read from the kernel table: tails in
// m, n and k, block edges, strided operands, the M = 1 GEMV path and pre-packed B, each
// against the naive scalar reference (double accumulation). No timing here: see bench/.
// Tolerance: |C − ref| ≤ 1e-5 · Σ_k |A_ik·B_kj| per element (≈ 170 ulp of that sum; fp32
// reordering errors grow like √K·2^-24 of it, about 1e-6 at the largest K used here).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ref/kernels/gemm.hpp"
#include "ref/kernels/kernel.hpp"

namespace k = llmsize::ref::kernels;
using llmsize::ref::PackedB;

namespace {

constexpr double kRelTol = 1e-5;

std::vector<float> random_matrix(int rows, int cols, std::uint32_t seed) {
  std::vector<float> m(std::size_t(rows) * std::size_t(cols));
  std::uint32_t s = seed * 2654435761u + 1u;
  for (float& x : m) {
    s = s * 1664525u + 1013904223u;
    x = float(s >> 8) / float(1u << 24) * 2.0f - 1.0f;  // uniform in [-1, 1)
  }
  return m;
}

// Checks C (M×N, ldc) against the reference and returns the number of bad elements.
int count_mismatches(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                     const float* C, int ldc) {
  std::vector<float> ref(std::size_t(M) * std::size_t(N));
  k::sgemm_naive(M, N, K, A, lda, B, ldb, ref.data(), N);
  int bad = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      double scale = 0.0;
      for (int p = 0; p < K; ++p) scale += std::fabs(double(A[i * lda + p]) * double(B[p * ldb + j]));
      const double err = std::fabs(double(C[i * ldc + j]) - double(ref[std::size_t(i) * N + j]));
      if (!(err <= kRelTol * scale + 1e-30)) ++bad;
    }
  }
  return bad;
}

std::vector<const k::GemmKernel*> supported_kernels() {
  std::vector<const k::GemmKernel*> out;
  for (const k::GemmKernel& kr : k::kernel_table()) {
    if (k::cpu_supports(kr.isa)) out.push_back(&kr);
  }
  return out;
}

// Runs one kernel on an M×N×K problem with the given strides and checks the result.
void check_gemm(const k::GemmKernel& kr, int M, int N, int K, int pad,
                k::BPath path = k::BPath::automatic) {
  const int lda = K + pad, ldb = N + pad, ldc = N + pad;
  const auto A = random_matrix(M, lda, 1u + std::uint32_t(M));
  const auto B = random_matrix(K, ldb, 2u + std::uint32_t(N));
  std::vector<float> C(std::size_t(M) * std::size_t(ldc), 12345.0f);  // sentinel in padding
  k::sgemm_with(kr, M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc, path);
  INFO(kr.name << " M=" << M << " N=" << N << " K=" << K << " pad=" << pad
               << " B path=" << static_cast<int>(path));
  CHECK(count_mismatches(M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc) == 0);
  int touched = 0;
  for (int i = 0; i < M; ++i) {
    for (int j = N; j < ldc; ++j) touched += C[std::size_t(i) * ldc + j] != 12345.0f;
  }
  CHECK(touched == 0);
}

}  // namespace

TEST_CASE("The kernel table holds the scalar reference and names each row by shape and ISA",
          "[kernels]") {
  const auto table = k::kernel_table();
  REQUIRE(!table.empty());
  CHECK(table.front().isa == k::Isa::scalar);
  for (const k::GemmKernel& kr : table) {
    const std::string name = kr.name;
    const std::string shape = std::to_string(kr.mr) + "x" + std::to_string(kr.nr) + "_";
    INFO(name);
    CHECK(name.rfind("gemm_f32_" + shape, 0) == 0);
    CHECK(name.substr(name.size() - std::string(k::isa_name(kr.isa)).size()) == k::isa_name(kr.isa));
    CHECK(kr.mc % kr.mr == 0);
    CHECK(kr.nc % kr.nr == 0);
  }
}

TEST_CASE("Dispatch picks the best supported kernel unless LLMSIZE_ISA names a supported one",
          "[kernels]") {
  const k::GemmKernel& best = k::select_kernel(nullptr);
  CHECK(k::cpu_supports(best.isa));
  for (const k::GemmKernel& kr : k::kernel_table()) {
    if (k::cpu_supports(kr.isa)) CHECK(static_cast<int>(kr.isa) <= static_cast<int>(best.isa));
  }
  CHECK(k::select_kernel("scalar").isa == k::Isa::scalar);
  CHECK(&k::select_kernel("no-such-isa") == &best);
  CHECK(k::parse_isa("avx512") == k::Isa::avx512);
  CHECK(!k::parse_isa("AVX512").has_value());
  const auto info = llmsize::ref::active_kernel();
  CHECK(std::string(info.name) == k::active().name);
}

TEST_CASE("Every supported kernel matches the reference on tails in m, n and k, B packed or in place",
          "[kernels]") {
  for (const k::GemmKernel* kr : supported_kernels()) {
    const int mr = kr->mr, nr = kr->nr;
    for (k::BPath path : {k::BPath::packed, k::BPath::in_place}) {
      for (int M : {2, mr - 1, mr, mr + 1, 2 * mr + 3}) {
        for (int N : {1, 3, nr - 1, nr, nr + 1, 2 * nr + 5}) {
          for (int K : {1, 2, 5, 17, 64}) {
            if (M >= 2) check_gemm(*kr, M, N, K, 0, path);
          }
        }
      }
    }
  }
}

TEST_CASE("Every supported kernel matches the reference across MC, KC and NC block edges",
          "[kernels]") {
  for (const k::GemmKernel* kr : supported_kernels()) {
    for (k::BPath path : {k::BPath::packed, k::BPath::in_place}) {
      check_gemm(*kr, kr->mc + kr->mr + 1, kr->nc + kr->nr + 3, 2 * kr->kc + 7, 0, path);
      check_gemm(*kr, 37, 301, kr->kc - 1, 0, path);  // odd sizes, one K block
    }
  }
}

TEST_CASE("Strided A, B and C give the same result and leave C's padding untouched",
          "[kernels]") {
  for (const k::GemmKernel* kr : supported_kernels()) {
    for (int pad : {1, 7, 16}) {
      check_gemm(*kr, 2 * kr->mr + 1, 2 * kr->nr + 3, 33, pad, k::BPath::packed);
      check_gemm(*kr, 2 * kr->mr + 1, 2 * kr->nr + 3, 33, pad, k::BPath::in_place);
      check_gemm(*kr, 1, 45, 33, pad);  // GEMV with strides
    }
  }
}

TEST_CASE("M = 1 takes the GEMV path and matches the reference", "[kernels]") {
  for (const k::GemmKernel* kr : supported_kernels()) {
    for (int N : {1, 3, 4, 15, 16, 17, 100, 257}) {
      for (int K : {1, 2, 3, 4, 5, 9, 130}) check_gemm(*kr, 1, N, K, 0);
    }
  }
}

TEST_CASE("Pre-packed B gives the reference result for every M, including GEMV", "[kernels]") {
  for (const k::GemmKernel* kr : supported_kernels()) {
    for (int N : {5, kr->nr + 1, kr->nc + 2 * kr->nr + 1}) {
      const int K = kr->kc + 19;  // two K blocks, the second short
      const auto B = random_matrix(K, N, 99u);
      const PackedB packed = k::pack_b_with(*kr, K, N, B.data(), N);
      REQUIRE(packed.k() == K);
      REQUIRE(packed.n() == N);
      for (int M : {1, 2, kr->mr + 1, 16}) {
        const auto A = random_matrix(M, K, 7u);
        std::vector<float> C(std::size_t(M) * std::size_t(N), -1.0f);
        llmsize::ref::sgemm_packed(M, A.data(), K, packed, C.data(), N);
        INFO(kr->name << " M=" << M << " N=" << N << " K=" << K);
        CHECK(count_mismatches(M, N, K, A.data(), K, B.data(), N, C.data(), N) == 0);
      }
    }
  }
}

TEST_CASE("The public sgemm overwrites C, and degenerate sizes behave", "[kernels]") {
  const int M = 19, N = 70, K = 45;
  const auto A = random_matrix(M, K, 3u);
  const auto B = random_matrix(K, N, 4u);
  std::vector<float> C(std::size_t(M) * N, 1e30f);
  llmsize::ref::sgemm(M, N, K, A.data(), B.data(), C.data());
  CHECK(count_mismatches(M, N, K, A.data(), K, B.data(), N, C.data(), N) == 0);

  llmsize::ref::sgemm_strided(M, N, 0, A.data(), 1, B.data(), N, C.data(), N);  // K = 0: C = 0
  int nonzero = 0;
  for (float c : C) nonzero += c != 0.0f;
  CHECK(nonzero == 0);

  std::vector<float> untouched(4, 5.0f);
  llmsize::ref::sgemm(0, 2, 3, A.data(), B.data(), untouched.data());
  llmsize::ref::sgemm(2, 0, 3, A.data(), B.data(), untouched.data());
  CHECK(untouched == std::vector<float>(4, 5.0f));
}

// The reference transformer slices a GEMM into row and column tiles across UI frames and
// relies on each output element being computed the same way whatever the split: a row's
// result must not depend on which micro-tile (or remainder tile) it lands in.
TEST_CASE("Splitting a GEMM into row and column blocks (M >= 2 each) changes no bits", "[kernels]") {
  const int M = 23, N = 77, K = 301;
  const auto A = random_matrix(M, K, 7u);
  const auto B = random_matrix(K, N, 8u);
  for (const k::GemmKernel* kr : supported_kernels()) {
    INFO(kr->name);
    std::vector<float> whole(std::size_t(M) * N), split(std::size_t(M) * N);
    k::sgemm_with(*kr, M, N, K, A.data(), K, B.data(), N, whole.data(), N, k::BPath::automatic);
    for (int rows : {2, 3, 5, 7}) {
      for (int cols : {16, 33, N}) {
        for (int i0 = 0; i0 < M; i0 += rows) {
          const int mr = std::min(rows, M - i0) >= 2 ? std::min(rows, M - i0) : 2;
          const int i = std::min(i0, M - mr);
          for (int j = 0; j < N; j += cols) {
            const int nc = std::min(cols, N - j);
            k::sgemm_with(*kr, mr, nc, K, A.data() + std::size_t(i) * K, K, B.data() + j, N,
                          split.data() + std::size_t(i) * N + j, N, k::BPath::automatic);
          }
        }
        INFO("rows " << rows << " cols " << cols);
        CHECK(split == whole);
      }
    }
  }
}

namespace {

// Stores an M×K (or K×N) operand as its transpose, row stride ld.
std::vector<float> transposed(const std::vector<float>& m, int rows, int cols, int ld) {
  std::vector<float> t(std::size_t(cols) * std::size_t(ld), 777.0f);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) t[std::size_t(j) * ld + i] = m[std::size_t(i) * cols + j];
  return t;
}

// op(A)·op(B) through sgemm_op_with, each operand plain or stored transposed, C overwritten or
// accumulated onto a known C0, against the naive product of the plain operands.
void check_op(const k::GemmKernel& kr, bool ta, bool tb, bool acc, int M, int N, int K, int pad) {
  const auto A = random_matrix(M, K, 11u + std::uint32_t(M));
  const auto B = random_matrix(K, N, 13u + std::uint32_t(N));
  const auto C0 = random_matrix(M, N, 17u);
  const int lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad;
  std::vector<float> As = ta ? transposed(A, M, K, lda) : std::vector<float>(std::size_t(M) * lda, 777.0f);
  std::vector<float> Bs = tb ? transposed(B, K, N, ldb) : std::vector<float>(std::size_t(K) * ldb, 777.0f);
  if (!ta)
    for (int i = 0; i < M; ++i) std::copy_n(A.data() + std::size_t(i) * K, K, As.data() + std::size_t(i) * lda);
  if (!tb)
    for (int i = 0; i < K; ++i) std::copy_n(B.data() + std::size_t(i) * N, N, Bs.data() + std::size_t(i) * ldb);
  std::vector<float> C = acc ? C0 : std::vector<float>(std::size_t(M) * N, 12345.0f);
  k::sgemm_op_with(kr, ta, tb, M, N, K, As.data(), lda, Bs.data(), ldb, C.data(), N, acc);
  if (acc)
    for (std::size_t i = 0; i < C.size(); ++i) C[i] -= C0[i];  // the product alone, up to one rounding of C0
  INFO(kr.name << " ta=" << ta << " tb=" << tb << " acc=" << acc << " M=" << M << " N=" << N << " K=" << K
               << " pad=" << pad);
  if (!acc) {
    CHECK(count_mismatches(M, N, K, A.data(), K, B.data(), N, C.data(), N) == 0);
    return;
  }
  std::vector<float> ref(std::size_t(M) * N);
  k::sgemm_naive(M, N, K, A.data(), K, B.data(), N, ref.data(), N);
  int bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)  // |C0| < 1: the subtraction costs at most 2^-23 absolute
    bad += !(std::fabs(double(C[i]) - double(ref[i])) <= 1e-5 * (1.0 + std::fabs(double(ref[i]))) * K);
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("sgemm_op: transposed A and B, and accumulation, match the reference on every kernel", "[kernels]") {
  for (const k::GemmKernel* kr : supported_kernels()) {
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int acc = 0; acc < 2; ++acc) {
          for (int M : {1, 2, kr->mr + 1})
            for (int N : {1, kr->nr - 1, 2 * kr->nr + 5})
              for (int K : {1, 5, 33}) check_op(*kr, ta, tb, acc, M, N, K, 0);
          check_op(*kr, ta, tb, acc, 2 * kr->mr + 1, 2 * kr->nr + 3, 33, 7);  // strided operands
          check_op(*kr, ta, tb, acc, kr->mc + kr->mr + 1, kr->nr + 3, kr->kc + 7, 0);  // MC and KC edges
        }
    check_op(*kr, true, true, false, 5, kr->nc + kr->nr + 3, 9, 0);  // an NC edge
  }
}

TEST_CASE("sgemm_op: K = 0 zeroes C unless it accumulates; empty M or N touch nothing", "[kernels]") {
  std::vector<float> C(6, 3.0f);
  llmsize::ref::sgemm_op(llmsize::ref::Trans::T, llmsize::ref::Trans::N, 2, 3, 0, nullptr, 2, nullptr, 3, C.data(), 3, true);
  CHECK(C == std::vector<float>(6, 3.0f));
  llmsize::ref::sgemm_op(llmsize::ref::Trans::T, llmsize::ref::Trans::N, 2, 3, 0, nullptr, 2, nullptr, 3, C.data(), 3);
  CHECK(C == std::vector<float>(6, 0.0f));
  std::vector<float> D(4, 5.0f);
  llmsize::ref::sgemm_op(llmsize::ref::Trans::N, llmsize::ref::Trans::T, 0, 4, 3, nullptr, 3, nullptr, 3, D.data(), 4);
  CHECK(D == std::vector<float>(4, 5.0f));
}

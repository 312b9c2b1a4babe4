// Native GEMM benchmark: llmsize::ref::sgemm (B packed per call, and B pre-packed once)
// beside single-threaded OpenBLAS in the same process. Medians of interleaved runs, GFLOP/s
// and fraction of peak; M = 1 (decode) as GEMV in GB/s of B streamed. Not a test: no asserts.
// Re-executes itself without OPENBLAS_CORETYPE so OpenBLAS loads its best kernel.
// Usage: gemm_bench [--quick | --all] [--reps N] [--keep-openblas-coretype]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "peak.hpp"
#include "ref/kernels/gemm.hpp"

#if defined(LLMSIZE_BENCH_OPENBLAS)
#include <cblas.h>
#endif

namespace {

using llmsize::ref::PackedB;

struct Shape {
  int M, K, N;
};

// Square 64…1024, then LLM projections M×K×N for M = 1, 16, 128, 512 tokens. The default
// (K, N) pairs are GPT-2 small (768↔3072) and LLaMA-7B (4096↔11008) layers: every K and N
// value of {768, 3072, 4096, 11008}; --all takes the full 4×4 cross product.
std::vector<Shape> make_shapes(bool all, bool quick) {
  std::vector<Shape> s;
  for (int n : {64, 128, 256, 512, 1024}) s.push_back({n, n, n});
  std::vector<std::pair<int, int>> kn = {{768, 768},   {768, 3072},   {3072, 768},
                                         {4096, 4096}, {4096, 11008}, {11008, 4096}};
  if (all) {
    kn.clear();
    for (int k : {768, 3072, 4096, 11008}) {
      for (int n : {768, 3072, 4096, 11008}) kn.push_back({k, n});
    }
  }
  if (quick) kn = {{768, 3072}, {4096, 4096}};
  for (int m : {1, 16, 128, 512}) {
    for (auto [k, n] : kn) s.push_back({m, k, n});
  }
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Impl {
  std::string name;
  std::function<void()> run;
  std::vector<float>* out;
  std::vector<double> per_call;  // seconds, one per interleaved round
  int iters = 1;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Each implementation runs `iters` calls per round (≥ min_round seconds); rounds alternate
// between implementations, starting from a different one each round.
void measure(std::vector<Impl>& impls, int reps, double min_round) {
  for (Impl& im : impls) {
    im.run();  // warm-up (first touch, scratch growth)
    const auto t0 = std::chrono::steady_clock::now();
    im.run();
    const double t = seconds_since(t0);
    im.iters = std::max(1, int(std::ceil(min_round / std::max(t, 1e-9))));
  }
  for (int r = 0; r < reps; ++r) {
    for (std::size_t j = 0; j < impls.size(); ++j) {
      Impl& im = impls[(j + std::size_t(r)) % impls.size()];
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < im.iters; ++i) im.run();
      im.per_call.push_back(seconds_since(t0) / im.iters);
    }
  }
}

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed * 2654435761u + 1u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = float(s >> 8) / float(1u << 24) - 0.5f;
  }
  return v;
}

double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, double(std::fabs(a[i] - b[i])));
    den = std::max(den, double(std::fabs(b[i])));
  }
  return den > 0.0 ? num / den : num;
}

// Re-runs this program without OPENBLAS_CORETYPE (OpenBLAS reads it when it loads, before
// main), so the baseline is OpenBLAS's own pick for this CPU.
void reexec_without_coretype(char** argv) {
  const char* pinned = std::getenv("OPENBLAS_CORETYPE");
  if (!pinned) return;
  setenv("LLMSIZE_BENCH_UNPINNED", pinned, 1);
  unsetenv("OPENBLAS_CORETYPE");
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  execv("/proc/self/exe", argv);
  std::perror("gemm_bench: re-exec without OPENBLAS_CORETYPE failed; continuing pinned");
}

}  // namespace

int main(int argc, char** argv) {
  bool all = false, quick = false, keep_coretype = false;
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--all")) all = true;
    else if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--keep-openblas-coretype")) keep_coretype = true;
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: gemm_bench [--quick | --all] [--reps N] [--keep-openblas-coretype]\n");
      return 2;
    }
  }
#if defined(LLMSIZE_BENCH_OPENBLAS)
  if (!keep_coretype) reexec_without_coretype(argv);
  openblas_set_num_threads(1);
#endif

  const auto kinfo = llmsize::ref::active_kernel();
  const std::string isa = kinfo.isa;
  // Peak: 2 FMA pipes × lanes × 2 flop per cycle (Zen 4/5, Skylake-X class), times the clock.
  const double ghz = llmsize::bench::measure_clock_ghz();
  const int lanes = isa == "avx512" ? 16 : isa == "avx2" ? 8 : isa == "scalar" ? 1 : 4;
  const double peak = ghz * 2 * 2 * lanes;
  double fma_loop = 0.0;
  if (isa == "avx512") fma_loop = llmsize::bench::measure_fma_gflops_avx512();
  if (isa == "avx2") fma_loop = llmsize::bench::measure_fma_gflops_avx2();

  std::printf("# GEMM benchmark, single thread, fp32 row-major\n\n");
  std::printf("- ours: %s (isa %s, MR×NR %d×%d); LLMSIZE_ISA=%s\n", kinfo.name, kinfo.isa,
              kinfo.mr, kinfo.nr, std::getenv("LLMSIZE_ISA") ? std::getenv("LLMSIZE_ISA") : "(unset)");
#if defined(LLMSIZE_BENCH_OPENBLAS)
  const char* unpinned = std::getenv("LLMSIZE_BENCH_UNPINNED");  // set by the re-exec or bench.sh
  const char* pinned = std::getenv("OPENBLAS_CORETYPE");
  std::printf("- OpenBLAS: core %s, config \"%s\", 1 thread\n", openblas_get_corename(),
              openblas_get_config());
  if (pinned) {
    std::printf("- OPENBLAS_CORETYPE=%s is pinning OpenBLAS's kernel choice\n", pinned);
  } else if (unpinned && *unpinned) {
    std::printf("- OPENBLAS_CORETYPE=%s was unset for this run, so OpenBLAS picked its kernel\n",
                unpinned);
  }
#else
  std::printf("- OpenBLAS: not found at configure time, no baseline\n");
#endif
  std::printf("- peak: %.1f GFLOP/s assumed = %.2f GHz (dependent-add chain) × %d flop/cycle "
              "(2 FMA pipes × %d lanes × 2); a register-only FMA loop reaches %.1f GFLOP/s\n",
              peak, ghz, 4 * lanes, lanes, fma_loop);
  double load[3] = {0, 0, 0};
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::printf("- each cell: median of %d interleaved rounds; M = 1 rows are GEMV, in GB/s of B read\n",
              reps);
  std::printf("- load average at start: %.2f (1 min), on %ld online CPUs: other work slows every "
              "column alike, ratios hold better than absolute numbers\n\n",
              load[0], sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("| M×K×N | ours per-call | ours pre-packed | OpenBLAS | per-call / OB | pre-packed / OB | best %% of peak |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");

  double worst_call = 1e9, worst_packed = 1e9;
  for (const Shape& sh : make_shapes(all, quick)) {
    const int M = sh.M, K = sh.K, N = sh.N;
    const auto A = random_floats(std::size_t(M) * K, 1);
    const auto B = random_floats(std::size_t(K) * N, 2);
    std::vector<float> c_call(std::size_t(M) * N), c_packed(c_call.size()), c_blas(c_call.size());
    const PackedB packed = llmsize::ref::pack_b(K, N, B.data(), N);
    std::vector<Impl> impls;
    impls.push_back({"per-call", [&] { llmsize::ref::sgemm(M, N, K, A.data(), B.data(), c_call.data()); },
                     &c_call, {}, 1});
    impls.push_back({"pre-packed",
                     [&] { llmsize::ref::sgemm_packed(M, A.data(), K, packed, c_packed.data(), N); },
                     &c_packed, {}, 1});
#if defined(LLMSIZE_BENCH_OPENBLAS)
    impls.push_back({"openblas",
                     [&] {
                       if (M == 1) {
                         cblas_sgemv(CblasRowMajor, CblasTrans, K, N, 1.0f, B.data(), N, A.data(), 1,
                                     0.0f, c_blas.data(), 1);
                       } else {
                         cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A.data(),
                                     K, B.data(), N, 0.0f, c_blas.data(), N);
                       }
                     },
                     &c_blas, {}, 1});
#endif
    measure(impls, reps, 0.02);

    const double flops = 2.0 * M * double(N) * K, bytes = 4.0 * double(K) * N;
    auto rate = [&](const Impl& im) { return (M == 1 ? bytes : flops) / median(im.per_call) * 1e-9; };
    const double r_call = rate(impls[0]), r_packed = rate(impls[1]);
    const double best_gflops = flops / std::min(median(impls[0].per_call), median(impls[1].per_call)) * 1e-9;
    const char* unit = M == 1 ? " GB/s" : "";
    std::printf("| %d×%d×%d | %.1f%s | %.1f%s |", M, K, N, r_call, unit, r_packed, unit);
    if (impls.size() > 2) {
      const double r_blas = rate(impls[2]);
      std::printf(" %.1f%s | %.2f× | %.2f× |", r_blas, unit, r_call / r_blas, r_packed / r_blas);
      worst_call = std::min(worst_call, r_call / r_blas);
      worst_packed = std::min(worst_packed, r_packed / r_blas);
      const double diff = std::max(max_rel_diff(c_call, c_blas), max_rel_diff(c_packed, c_blas));
      if (diff > 1e-4) std::printf(" MISMATCH %.1e vs OpenBLAS |", diff);
    } else {
      std::printf(" – | – | – |");
    }
    std::printf(" %.0f%% |\n", 100.0 * best_gflops / peak);
    std::fflush(stdout);
  }
  if (worst_call < 1e9) {
    std::printf("\nworst ratio vs OpenBLAS: per-call %.2f×, pre-packed %.2f×\n", worst_call, worst_packed);
  }
  return 0;
}

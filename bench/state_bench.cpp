// Decode of a linear-attention layer against a GEMV, on the same machine in the same run.
//
// A Gated DeltaNet layer decoding one token per sequence reads and writes every value head's
// k_dim × v_dim state (linear_attn.cpp: two passes, each reading and writing S), which makes it
// bandwidth-bound like a GEMV reading a weight matrix. This times the reference decoder's "gated
// delta rule" op at Qwen3.5-0.8B's linear-layer dimensions (16 value heads of 128 × 128, fp32)
// for a batch of sequences, beside sgemm(1, N, K) over a matrix of the same bytes, interleaved
// rep by rep, and prints the GB/s of each and their ratio (medians).
// Usage: state_bench [--batch B] [--reps N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/presets.hpp"
#include "ref/forward.hpp"
#include "ref/kernels/gemm.hpp"

using namespace llmsize;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int arg(int argc, char** argv, const char* name, int def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const int batch = arg(argc, argv, "--batch", 4), reps = arg(argc, argv, "--reps", 41);
  if (batch < 1 || batch > 64 || reps < 3 || reps > 100000) {
    std::fprintf(stderr, "state_bench: --batch must be in [1, 64] and --reps in [3, 100000]\n");
    return 2;
  }
  auto presets = core::load_presets();
  if (!presets) return 1;
  core::ModelConfig c;
  for (const auto& p : *presets)
    if (p.id == "qwen3.5-0.8b") c = p.config;
  c.n_layers = 1;  // layer 0 is a Gated DeltaNet layer
  auto built = ref::build_decoder(c, {.batch = batch, .context = reps + 2, .max_tokens = 1, .globals = false});
  if (!built) {
    std::fprintf(stderr, "state_bench: %s\n", core::join(built.issues()).c_str());
    return 1;
  }
  ref::Decoder& dec = **built;
  const auto& a = c.linear;
  const double state_bytes = 4.0 * static_cast<double>(batch * a.v_heads * a.k_dim * a.v_dim);
  // The GEMV: a K × N fp32 matrix of the state's bytes.
  const int K = 1024, N = static_cast<int>(state_bytes / 4.0 / K);
  std::vector<float> W(static_cast<size_t>(K) * N, 0.5f), x(K, 1.0f), y(N);
  std::vector<double> t_state, t_gemv;
  for (int r = 0; r < reps + 1; ++r) {
    auto prog = ref::hidden_program(dec, 1);
    if (!prog) return 1;
    for (auto& op : prog->ops) {
      const bool rule = op.name.find("gated delta rule") != std::string::npos;
      const auto t0 = Clock::now();
      op.run(0, op.units);
      if (rule && r > 0) t_state.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    const auto t0 = Clock::now();
    ref::sgemm(1, N, K, x.data(), W.data(), y.data());
    if (r > 0) t_gemv.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  // Two passes over S per token, each reading and writing it (linear_attn.cpp, decode).
  const double state_gbps = 4.0 * state_bytes / median(t_state) / 1e9;
  const double gemv_gbps = 4.0 * K * static_cast<double>(N) / median(t_gemv) / 1e9;
  std::printf("| build | batch | state (MiB) | state decode GB/s (read+write) | GEMV GB/s (%d × %d, same bytes) | ratio |\n",
              K, N);
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  std::printf("| %s | %d | %.1f | %.1f | %.1f | %.2f |\n", ref::active_kernel().name, batch, state_bytes / 1048576.0, state_gbps,
              gemv_gbps, state_gbps / gemv_gbps);
  return 0;
}

// Estimator speed: core::estimate() for the largest presets, and the UI's Scaling tab
// recomputation (one estimate per point of the context and batch curves, as
// src/app/panel_memory.cpp draws them). Prints medians of interleaved rounds in µs.
// To compare two trees in one run, build this target in both and run them alternately
// (scripts/bench.sh does so for the GEMMs; see bench/README.md for estimate results).
// Usage: estimate_bench [rounds]   (default 15)
//        estimate_bench --once PRESET inference|training|scaling N   (N calls or N Scaling tabs,
//        untimed: for instruction counts under callgrind, see scripts/bench_estimate.sh)
//        estimate_bench --all [rounds]   (every preset's estimate() and training estimate, slowest first)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/estimate.hpp"
#include "core/presets.hpp"

using namespace llmsize::core;

namespace {

volatile i64 g_sink = 0;

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What a UI frame computes per estimate: with a core that prepares a model once per
// configuration (LLMSIZE_HAS_PREPARE), estimate() of the prepared model; before it, estimate()
// of the config. Preparing is outside the timing, as the UI does it once per model change.
#ifdef LLMSIZE_HAS_PREPARE
using Model = PreparedModel;
Model model_of(const ModelConfig& c) { return prepare(c).value(); }
#else
using Model = ModelConfig;
Model model_of(const ModelConfig& c) { return c; }
#endif

// µs per estimate() over `reps` calls.
double time_estimate(const ModelConfig& cfg, const Workload& w, int reps) {
  const Model c = model_of(cfg);
  const double t0 = now_us();
  for (int i = 0; i < reps; ++i) {
    auto r = estimate(c, w);
    if (r) g_sink = g_sink + r.value().inference.total_bytes;
  }
  return (now_us() - t0) / reps;
}

// µs for the Scaling tab's two curves (context powers of two, batch powers of two).
double time_scaling(const ModelConfig& cfg, const Workload& base, int reps) {
  const Model c = model_of(cfg);
  const double t0 = now_us();
  for (int i = 0; i < reps; ++i) {
    const i64 top = std::min<i64>(1 << 22, std::max<i64>(cfg.max_positions * 2, base.seq * 2));
    for (i64 n = 128; n <= top; n *= 2) {
      Workload w = base;
      w.seq = n;
      if (auto r = estimate(c, w)) g_sink = g_sink + r.value().inference.total_bytes;
    }
    const i64 btop = std::max<i64>(64, base.batch * 4);
    for (i64 b = 1; b <= std::min<i64>(btop, 4096); b *= 2) {
      Workload w = base;
      w.batch = b;
      if (auto r = estimate(c, w)) g_sink = g_sink + r.value().inference.total_bytes;
    }
  }
  return (now_us() - t0) / reps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--once") {  // N untimed calls (first-call statics included)
    auto p = find_preset(argv[2]);
    if (!p) return 2;
    Workload w;
    const std::string what = argv[3];
    const int n = std::atoi(argv[4]);
    if (what == "training") w.mode = Mode::Training;
    if (what == "scaling") time_scaling(p.value().config, w, n);
    else time_estimate(p.value().config, w, n);
    return 0;
  }
  if (argc >= 2 && std::string(argv[1]) == "--all") {  // every preset, slowest inference estimate first
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
    auto all = load_presets();
    if (!all) return 2;
    struct Row {
      std::string id;
      double inf, train;
    };
    std::vector<Row> rows;
    for (const auto& p : all.value()) {
      Workload inf, train;
      train.mode = Mode::Training;
      std::vector<double> a, b;
      for (int r = 0; r < rounds; ++r) {
        a.push_back(time_estimate(p.config, inf, 100));
        b.push_back(time_estimate(p.config, train, 100));
      }
      rows.push_back({p.id, median(a), median(b)});
    }
    std::sort(rows.begin(), rows.end(), [](const Row& x, const Row& y) { return x.inf > y.inf; });
    std::printf("%-30s %14s %14s\n", "preset", "estimate µs", "training µs");
    for (const Row& r : rows) std::printf("%-30s %14.2f %14.2f\n", r.id.c_str(), r.inf, r.train);
    return g_sink == 42 ? 1 : 0;
  }
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  const char* ids[] = {"deepseek-v3", "qwen3-next-80b-a3b", "gpt-oss-120b", "llama-3.1-405b", "mixtral-8x7b", "gemma-2-27b", "llama-3-8b"};
  std::printf("%-16s %14s %14s %14s\n", "preset", "estimate µs", "training µs", "scaling tab µs");
  for (const char* id : ids) {
    auto p = find_preset(id);
    if (!p) continue;
    const ModelConfig& c = p.value().config;
    Workload inf;
    Workload train;
    train.mode = Mode::Training;
    std::vector<double> a, b, s;
    for (int r = 0; r < rounds; ++r) {  // interleaved, so drift hits all three alike
      a.push_back(time_estimate(c, inf, 200));
      b.push_back(time_estimate(c, train, 200));
      s.push_back(time_scaling(c, inf, 5));
    }
    std::printf("%-16s %14.2f %14.2f %14.1f\n", id, median(a), median(b), median(s));
  }
  return g_sink == 42 ? 1 : 0;
}

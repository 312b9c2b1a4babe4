// A model file's header read and estimated (issue 12): `llmsize estimate --gguf FILE --json`
// in-process, for a many-GB file whose header is real (tests/fixtures/gguf_fixtures --big:
// Qwen3-235B-A22B's 5.9 MB header, a 142 GB sparse file), split into its steps — reading the
// header bytes, parsing them, the model and estimate from the metadata — beside the same
// estimate of the model's config.json (no file), the baseline in the same run. Prints medians
// of interleaved rounds in ms. Run by scripts/bench_gguf.sh, beside @huggingface/gguf under node
// and the page (bench/gguf_page.mjs).
// Usage: gguf_bench FILE CONFIG_JSON [rounds]   (default 21)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cli.hpp"
#include "core/estimate.hpp"
#include "core/gguf.hpp"

using namespace llmsize;

namespace {

double now_ms() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gguf_bench FILE CONFIG_JSON [rounds]\n");
    return 2;
  }
  const std::string file = argv[1], config = argv[2];
  const int rounds = argc > 3 ? std::max(1, std::atoi(argv[3])) : 21;
  std::vector<double> whole, baseline, read, parse, model;
  std::size_t sink = 0;
  for (int r = 0; r < rounds; ++r) {
    double t = now_ms();
    auto o = cli::run({"estimate", "--gguf", file, "--json"}, cli::read_file_limited);
    whole.push_back(now_ms() - t);
    if (o.status != 0) {
      std::fprintf(stderr, "%s", o.err.c_str());
      return 1;
    }
    sink += o.out.size();
    t = now_ms();
    o = cli::run({"estimate", "--config", config, "--json"}, cli::read_file_limited);
    baseline.push_back(now_ms() - t);
    if (o.status != 0) {
      std::fprintf(stderr, "%s", o.err.c_str());
      return 1;
    }
    sink += o.out.size();
    // The steps: the header's bytes (one read of exactly its length), the parse, the estimate.
    std::int64_t size = 0;
    std::string error;
    t = now_ms();
    auto probe = cli::read_file_prefix(file, 8 << 20, size, error);
    read.push_back(now_ms() - t);
    if (!probe) return 1;
    t = now_ms();
    auto h = core::read_gguf_header(*probe, size);
    parse.push_back(now_ms() - t);
    if (!h) return 1;
    t = now_ms();
    auto c = core::gguf_config(*h);
    if (!c) return 1;
    auto e = core::estimate(c->config, core::Workload{});
    model.push_back(now_ms() - t);
    if (!e) return 1;
    sink += static_cast<std::size_t>(e->inference.total_bytes & 1);
  }
  std::printf("step\tms (median of %d)\n", rounds);
  std::printf("estimate --gguf (whole, in-process)\t%.2f\n", median(whole));
  std::printf("  read the header's bytes\t%.2f\n", median(read));
  std::printf("  parse the header\t%.2f\n", median(parse));
  std::printf("  model from the metadata + estimate\t%.2f\n", median(model));
  std::printf("estimate --config (baseline: no file)\t%.2f\n", median(baseline));
  return sink == 0 ? 1 : 0;
}

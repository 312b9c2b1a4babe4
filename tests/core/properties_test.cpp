// Properties of estimate() over every preset and a grid of workloads (issue 6): bigger
// models and workloads never need less; totals are the sums of their parts; splitting the
// same work over more GPUs never raises a per-GPU figure; every figure is finite.
#include <cmath>

#include "core/estimate.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::run;
using llmsize::test::with;

namespace {
const std::vector<Workload>& workloads() {
  static const std::vector<Workload> w = {
      with({}),
      with({{"seq", "32768"}, {"batch", "8"}, {"kvt", "fp8"}}),
      with({{"w", "q4_k_m"}, {"seq", "2048"}}),
      with({{"w", "nf4-dq"}, {"flash", "0"}, {"logits", "all"}}),
      with({{"mode", "training"}, {"seq", "2048"}}),
      with({{"mode", "training"}, {"rc", "selective"}, {"opt", "adamw8bit"}, {"prec", "pure"}}),
      with({{"mode", "training"}, {"lora", "16"}, {"qlora", "1"}, {"w", "nf4-dq"}, {"rc", "full"}}),
  };
  return w;
}
i64 grow(i64 v) { return v + std::max<i64>(1, v / 8); }
}  // namespace

TEST_CASE("totals are the sums of their parts for every preset and workload", "[core][properties]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    for (const auto& w : workloads()) {
      INFO(p.id << " mode " << to_string(w.mode) << " w " << to_string(w.weights));
      const auto e = run(p.config, w);
      const auto& inf = e.inference;
      CHECK(inf.total_bytes ==
            inf.weights_bytes + inf.vision_weights_bytes + inf.kv_cache_bytes + inf.indexer_cache_bytes + inf.state_bytes +
                inf.activation_bytes + inf.overhead_bytes);
      CHECK(inf.overhead_bytes == inf.reserve_bytes + inf.comm_bytes);
      CHECK(inf.after_load_bytes <= inf.decode_bytes);
      CHECK(inf.decode_bytes <= inf.prefill_peak_bytes);
      const auto& t = e.training;
      CHECK(t.total_bytes == t.weights_bytes + t.vision_weights_bytes + t.gradients_bytes + t.optimizer_bytes + t.master_weights_bytes +
                                 t.activation_bytes + t.overhead_bytes);
      i64 weights = 0, params = 0;
      for (const auto& row : inf.weights.rows) {
        weights += row.bytes;
        params += row.params;
      }
      CHECK(weights == inf.weights.total_bytes);
      CHECK(params == e.params.total);
      for (const auto& x : explain(p.config, w, e)) {
        INFO(x.key);
        CHECK(std::isfinite(x.value));
        CHECK(x.value >= 0);
      }
    }
  }
}

TEST_CASE("more layers, width, context or batch never reduce the matching figures", "[core][properties]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    for (const auto& w : workloads()) {
      INFO(p.id << " mode " << to_string(w.mode) << " w " << to_string(w.weights));
      const auto base = run(p.config, w);
      auto check_not_less = [&](const Estimate& big, const char* what) {
        INFO("grown: " << what);
        CHECK(big.params.total >= base.params.total);
        CHECK(big.inference.weights_bytes >= base.inference.weights_bytes);
        CHECK(big.inference.kv_cache_bytes >= base.inference.kv_cache_bytes);
        CHECK(big.inference.total_bytes >= base.inference.total_bytes);
        CHECK(big.training.total_bytes >= base.training.total_bytes);
        CHECK(big.training.activation_bytes >= base.training.activation_bytes);
      };
      ModelConfig deeper = p.config;
      deeper.n_layers = grow(deeper.n_layers);
      // A block pattern names every layer: the new layers repeat its start.
      if (!deeper.block_pattern.empty())
        deeper.block_pattern += deeper.block_pattern.substr(0, static_cast<size_t>(deeper.n_layers - p.config.n_layers));
      for (auto* v : {&deeper.layer_kv_heads, &deeper.layer_ffn})  // per-layer shapes likewise
        if (!v->empty()) {
          const std::vector<i64> start(v->begin(), v->begin() + (deeper.n_layers - p.config.n_layers));
          v->insert(v->end(), start.begin(), start.end());
        }
      check_not_less(run(deeper, w), "layers");

      ModelConfig wider = p.config;  // width and FFN grow, heads keep their size
      wider.d_model = grow(wider.d_model);
      wider.d_ff = grow(wider.d_ff);
      if (!wider.mla.enabled && wider.n_heads * wider.head_dim == p.config.d_model) wider.head_dim = wider.d_model / wider.n_heads;
      if (validate(wider).empty()) check_not_less(run(wider, w), "width");

      Workload longer = w;
      longer.seq = grow(w.seq);
      const auto l = run(p.config, longer);
      CHECK(l.inference.kv_cache_bytes >= base.inference.kv_cache_bytes);
      CHECK(l.inference.activation_bytes >= base.inference.activation_bytes);
      CHECK(l.inference.total_bytes >= base.inference.total_bytes);
      CHECK(l.training.activation_bytes >= base.training.activation_bytes);
      CHECK(l.training.total_bytes >= base.training.total_bytes);

      Workload bigger = w;
      bigger.batch = w.batch * 2;
      const auto b = run(p.config, bigger);
      CHECK(b.inference.kv_cache_bytes >= base.inference.kv_cache_bytes);
      CHECK(b.inference.total_bytes >= base.inference.total_bytes);
      CHECK(b.training.total_bytes >= base.training.total_bytes);
    }
  }
}

// Splitting: the same model and per-GPU work over tp, pp (dividing the layers) and ZeRO
// data parallelism never needs more per GPU for weights, KV, gradients, optimizer states,
// master weights or activations. Only the overhead line may grow: communication
// workspaces and ZeRO-3's gathered layers exist only when there are several GPUs.
TEST_CASE("per-GPU figures never exceed the single-GPU figure for the same work", "[core][properties]") {
  const char* ids[] = {"llama-3.1-70b", "mixtral-8x7b", "gpt3-175b", "qwen2.5-7b", "deepseek-v2-lite"};
  for (const char* id : ids) {
    const auto c = llmsize::test::preset(id).config;
    for (const char* mode : {"inference", "training"}) {
      const Workload one = with({{"mode", mode}, {"seq", "4096"}});
      const auto single = run(c, one);
      struct Split { const char *gpus, *tp, *pp, *zero; };
      const Split splits[] = {{"2", "2", "1", "0"}, {"8", "8", "1", "0"}, {"4", "1", "4", "0"}, {"8", "2", "4", "0"},
                              {"8", "1", "1", "1"}, {"8", "1", "1", "2"}, {"8", "1", "1", "3"}, {"16", "2", "1", "fsdp"}};
      for (const auto& s : splits) {
        if (c.n_layers % std::atoi(s.pp) != 0 || c.n_kv_heads % std::atoi(s.tp) != 0) continue;
        INFO(id << " " << mode << " gpus " << s.gpus << " tp " << s.tp << " pp " << s.pp << " zero " << s.zero);
        const auto e = run(c, with({{"mode", mode}, {"seq", "4096"}, {"gpus", s.gpus}, {"tp", s.tp}, {"pp", s.pp},
                                    {"zero", s.zero}}));
        CHECK(e.inference.weights_bytes <= single.inference.weights_bytes);
        CHECK(e.inference.kv_cache_bytes <= single.inference.kv_cache_bytes);
        CHECK(e.inference.activation_bytes <= single.inference.activation_bytes);
        CHECK(e.training.weights_bytes <= single.training.weights_bytes);
        CHECK(e.training.gradients_bytes <= single.training.gradients_bytes);
        CHECK(e.training.optimizer_bytes <= single.training.optimizer_bytes);
        CHECK(e.training.master_weights_bytes <= single.training.master_weights_bytes);
        CHECK(e.training.activation_bytes <= single.training.activation_bytes);
        CHECK(e.training.total_bytes - e.training.overhead_bytes <=
              single.training.total_bytes - single.training.overhead_bytes);
      }
    }
  }
}

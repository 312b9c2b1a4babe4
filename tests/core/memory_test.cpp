// Inference memory: KV cache anchors (published per-token sizes), KV dtypes and tensor-parallel
// splits, layer temporaries of a small hand-checked config, phases, fit boundaries, parallel
// placement and overflow handling.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/estimate.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::plan_of;
using llmsize::test::preset;
using llmsize::test::run;
using llmsize::test::with;

TEST_CASE("KV cache bytes per token reproduce the published anchors", "[core][kv]") {
  struct Row {
    const char* preset;
    KvDtype dtype;
    i64 bytes;
    const char* source;
  };
  // ref: 2·L·K·hd·2 for Llama 3.1 (L=32, K=8, hd=128; L=80, K=8); vLLM paper (Kwon et al.
  // 2023) §3: OPT-13B "800 KB" per token in fp16 (2·40·5120·2 = 819,200); DeepSeek-V3 MLA
  // 61 × (512 + 64) × 2.
  const Row rows[] = {
      {"llama-3.1-8b", KvDtype::BF16, 131072, "2·32·8·128·2"},
      {"llama-3.1-70b", KvDtype::BF16, 327680, "2·80·8·128·2"},
      {"opt-13b", KvDtype::F16, 819200, "vLLM paper: 800 KB"},
      {"deepseek-v3", KvDtype::BF16, 70272, "61·576·2"},
  };
  for (const auto& r : rows) {
    INFO(r.preset << " (" << r.source << ")");
    CHECK(plan_of(preset(r.preset).config, r.dtype).kv_bytes_per_token() == r.bytes);
    CHECK(run(preset(r.preset).config, Workload{}).inference.kv_bytes_per_token == r.bytes);
  }
}

TEST_CASE("KV dtypes: fp32, fp8 and llama.cpp's q8_0/q4_0 blocks", "[core][kv]") {
  const ModelConfig c = preset("llama-3.1-8b").config;  // K·hd = 1024 values per layer for K and for V
  struct Row {
    KvDtype t;
    i64 bytes;
  };
  const Row rows[] = {
      {KvDtype::F32, 2 * 32 * 1024 * 4},
      {KvDtype::F16, 2 * 32 * 1024 * 2},
      {KvDtype::Fp8, 2 * 32 * 1024},
      {KvDtype::Q8_0, 2 * 32 * (1024 / 32) * 34},  // ggml block_q8_0: 34 B per 32
      {KvDtype::Q4_0, 2 * 32 * (1024 / 32) * 18},  // ggml block_q4_0: 18 B per 32
  };
  for (const auto& r : rows) {
    INFO(to_string(r.t));
    CHECK(plan_of(c, r.t).kv_bytes_per_token() == r.bytes);
  }
  // The cache is per token × context × batch.
  CHECK(plan_of(c).kv_cache_bytes(8192, 4).value() == 131072LL * 8192 * 4);
}

TEST_CASE("Tensor parallel splits KV heads and replicates them past K; MLA is replicated", "[core][kv]") {
  const ModelConfig c = preset("llama-3.1-70b").config;  // K = 8
  auto per_gpu = [](const ModelConfig& m, i64 tp) {
    const LayerPlan p = plan_of(m, KvDtype::BF16, tp);
    return p.kv_bytes_per_token_gpu(p.all());
  };
  CHECK(per_gpu(c, 4) == 327680 / 4);
  CHECK(per_gpu(c, 8) == 327680 / 8);
  CHECK(per_gpu(c, 16) == 327680 / 8);  // one head per GPU, replicated
  const ModelConfig ds = preset("deepseek-v3").config;
  CHECK(per_gpu(ds, 8) == 70272);
}

TEST_CASE("Sliding-window layers keep at most the window", "[core][kv]") {
  const ModelConfig g = preset("gemma-2-9b").config;  // every other layer slides over 4096 tokens
  REQUIRE(g.sliding_window == 4096);
  const LayerPlan p = plan_of(g);
  const i64 per = p.kv_bytes_per_token();
  const i64 per_layer = p.caches.front().bytes_per_token;
  CHECK(p.kv_cache_bytes(4096, 1).value() == per * 4096);  // within the window: uncapped
  i64 global = 0;
  for (i64 l = 0; l < g.n_layers; ++l) global += p.window(l) > 0 ? 0 : 1;
  CHECK(global == g.n_layers / 2);
  // Past the window only the global layers grow.
  CHECK(p.kv_cache_bytes(8192, 1).value() - p.kv_cache_bytes(4096, 1).value() == per_layer * global * 4096);
}

TEST_CASE("fp32 weight bytes are 4 × the parameter count", "[core][weights]") {
  for (const char* id : {"gpt2", "llama-3-8b", "mixtral-8x7b", "deepseek-v2-lite"}) {
    INFO(id);
    const ModelConfig c = preset(id).config;
    auto inv = build_inventory(c);
    REQUIRE(inv.ok());
    CHECK(*weights_bytes_fp32(*inv) == 4 * count_params(c)->total);
    Workload w;
    w.weights = WeightFormat::F32;
    CHECK(weights_report(c, *inv, w)->total_bytes == 4 * count_params(c)->total);
  }
}

TEST_CASE("Layer temporaries of a small config match the live-set definition", "[core][temps]") {
  // L=2, d=64, H=4, K=2, hd=16, gated f=128, v=100; fp32; prefill chunk c=8 attending T=16 keys.
  ModelConfig c;
  c.n_layers = 2; c.d_model = 64; c.n_heads = 4; c.n_kv_heads = 2; c.head_dim = 16; c.d_ff = 128; c.vocab = 100;
  c.max_positions = 64;
  REQUIRE(validate(c).empty());
  TempParams p{1, 8, 16, 4, true, 1, 1, 1};
  auto flash = layer_temporaries(c, plan_of(c).caches.front(), p, false);
  REQUIRE(flash.ok());
  // x + normed 2·8·64·4 = 4096; q 8·4·16·4 = 2048; k+v 8·2·2·16·4 = 2048; flash output 2048.
  CHECK(flash->attention == 4096 + 2048 + 2048 + 2048);
  CHECK(flash->ffn == 4096 + 8 * 128 * 3 * 4);   // gate, up, act(gate)·up
  CHECK(flash->logits == 64 * 4 + 100 * 4);      // last position: hidden + fp32 logits
  CHECK(flash->peak == 16384);
  p.flash = false;
  auto eager = layer_temporaries(c, plan_of(c).caches.front(), p, false);
  CHECK(eager->attention == 4096 + 2048 + 2048 + 2 * (4 * 8 * 16 * 4));  // S and P: b·H·c·T each
  p.logits_positions = 8;
  CHECK(layer_temporaries(c, plan_of(c).caches.front(), p, false)->logits == 8 * 64 * 4 + 8 * 100 * 4);
  p.tp = 2;  // heads and FFN width split across two GPUs
  auto split = layer_temporaries(c, plan_of(c).caches.front(), p, false);
  CHECK(split->ffn == 4096 + 8 * 64 * 3 * 4);
}

TEST_CASE("Inference total is weights + KV + temporaries + reserve, in three phases", "[core][inference]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  const Estimate e = run(c, with({{"seq", "8192"}, {"batch", "2"}}));
  const auto& m = e.inference;
  CHECK(m.weights_bytes == 2 * e.params.total);
  CHECK(m.kv_cache_bytes == 131072LL * 8192 * 2);
  CHECK(m.reserve_bytes == runtime_reserve_default(Runtime::PyTorch));
  CHECK(m.after_load_bytes == m.weights_bytes + m.overhead_bytes);
  CHECK(m.prefill_peak_bytes == m.after_load_bytes + m.kv_cache_bytes + m.prefill.peak);
  CHECK(m.decode_bytes == m.after_load_bytes + m.kv_cache_bytes + m.decode.peak);
  CHECK(m.total_bytes == std::max(m.prefill_peak_bytes, m.decode_bytes));
  CHECK(m.decode.peak < m.prefill.peak);
  // The editable reserve replaces the profile's.
  CHECK(run(c, with({{"reserve", "0"}})).inference.overhead_bytes == 0);
  // Under vLLM the capacity is its budget: a share of the total CUDA reports where the catalog
  // records it (engine_vllm.hpp), else of the memory as sold.
  CHECK(run(c, with({{"rt", "vllm"}})).inference.capacity_bytes ==
        static_cast<i64>(std::ceil(static_cast<double>(find_gpu("h100-sxm")->cuda_total_bytes) * 0.9)));
  CHECK(run(c, with({{"rt", "vllm"}, {"gpu", "h800"}})).inference.capacity_bytes ==
        static_cast<i64>(static_cast<double>(find_gpu("h800")->memory_bytes) * 0.9));
  // The B200's: PyTorch's total_memory=182631MB (whole MiB).
  CHECK(run(c, with({{"rt", "vllm"}, {"gpu", "b200"}})).inference.capacity_bytes ==
        static_cast<i64>(std::ceil(182631.0 * 1048576.0 * 0.9)));
}

TEST_CASE("Unified memory counts only the share the GPU may wire", "[core][fit]") {
  const Estimate e = run(preset("llama-3.1-70b").config, with({{"gpu", "m2-ultra-192gb"}}));
  CHECK(e.inference.capacity_bytes == static_cast<i64>(192.0 * 1073741824.0 * 0.75));
  CHECK(e.inference.fits);  // 141 GB of bf16 weights in 144 GiB usable
}

TEST_CASE("Max context is the exact boundary where the workload stops fitting", "[core][fit]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  Workload w = with({{"gpu", "rtx-4090"}, {"batch", "4"}, {"chunk", "2048"}});
  const Estimate e = run(c, w);
  const i64 best = e.inference.max_context;
  REQUIRE(best > 0);
  REQUIRE(best < c.max_positions);
  w.seq = best;
  CHECK(run(c, w).inference.fits);
  w.seq = best + 1;
  CHECK_FALSE(run(c, w).inference.fits);
  // On a large GPU the model's own limit binds.
  const Estimate big = run(c, with({{"gpu", "h200"}}));
  CHECK(big.inference.max_context == c.max_positions);
  CHECK(big.inference.max_context_is_model_limit);
}

TEST_CASE("Max concurrent sequences fill the memory left after weights and reserve", "[core][fit]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  const Estimate one = run(c, with({{"seq", "4096"}}));
  const auto& m = one.inference;
  const i64 fixed = m.weights_bytes + m.overhead_bytes + m.prefill.peak;
  CHECK(fixed + m.max_sequences * m.kv_cache_bytes <= m.capacity_bytes);
  CHECK(fixed + (m.max_sequences + 1) * m.kv_cache_bytes > m.capacity_bytes);
}

TEST_CASE("Minimum GPUs is a lower bound on the split of weights and KV", "[core][fit]") {
  const Estimate small = run(preset("llama-3.1-8b").config, Workload{});
  CHECK(small.inference.min_gpus == 1);
  const Estimate big = run(preset("llama-3.1-405b").config, Workload{});
  CHECK_FALSE(big.inference.fits);
  CHECK(big.inference.min_gpus * big.inference.capacity_bytes >= big.inference.weights.total_bytes);
  CHECK((big.inference.min_gpus - 1) * (big.inference.capacity_bytes - big.inference.reserve_bytes) <
        big.inference.weights.total_bytes + big.inference.kv_cache_bytes + big.inference.prefill.peak);
}

TEST_CASE("Tensor parallel splits matrices and replicates norms", "[core][parallel]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  const Estimate one = run(c, Workload{});
  const Estimate two = run(c, with({{"gpus", "2"}, {"tp", "2"}}));
  const i64 norms = one.inference.weights.bytes_by_group[static_cast<int>(Group::Norm)];
  CHECK(two.inference.weights_bytes == (one.inference.weights_bytes - norms) / 2 + norms);
  CHECK(two.inference.kv_cache_bytes == one.inference.kv_cache_bytes / 2);
  CHECK(two.inference.comm_bytes > 0);
}

TEST_CASE("Pipeline stages hold consecutive layers; the most loaded one is reported", "[core][parallel]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  const Estimate one = run(c, Workload{});
  const Estimate two = run(c, with({{"gpus", "2"}, {"pp", "2"}}));
  const i64 head = one.inference.weights.bytes_by_group[static_cast<int>(Group::LmHead)];
  CHECK(two.inference.stage_layers == 16);
  CHECK(two.inference.weights_bytes >= one.inference.weights_bytes / 2);
  CHECK(two.inference.weights_bytes <= one.inference.weights_bytes / 2 + head);
  CHECK(stage_range(61, 4, 0).count == 16);
  CHECK(stage_range(61, 4, 3).first == 46);
}

TEST_CASE("Expert parallel holds E/ep whole experts per GPU", "[core][parallel]") {
  const ModelConfig c = preset("mixtral-8x7b").config;
  const Estimate one = run(c, Workload{});
  const Estimate ep = run(c, with({{"gpus", "8"}, {"exp", "8"}}));
  i64 experts = 0;
  for (const auto& r : one.inference.weights.rows)
    if (r.kind >= 0 && one.inventory->kinds[static_cast<size_t>(r.kind)].tensors[static_cast<size_t>(r.index)].routed)
      experts += r.bytes;
  CHECK(ep.inference.weights_bytes == one.inference.weights_bytes - experts + experts / 8);
}

TEST_CASE("Absurd sizes give an Issue naming the field, never a wrapped number", "[core][overflow]") {
  auto e = estimate(preset("deepseek-v3").config, with({{"seq", "134217728"}, {"batch", "1048576"}}));
  REQUIRE_FALSE(e.ok());
  CHECK(e.issues().front().field == "seq");
  CHECK_FALSE(plan_of(preset("deepseek-v3").config, KvDtype::F32).kv_cache_bytes(i64{1} << 27, i64{1} << 20).ok());
}

TEST_CASE("Model-dependent parallel degrees are checked", "[core][parallel]") {
  const ModelConfig c = preset("llama-3.1-8b").config;  // H = 32, K = 8, L = 32
  auto bad_tp = estimate(c, with({{"gpus", "3"}, {"tp", "3"}}));
  REQUIRE_FALSE(bad_tp.ok());
  CHECK(bad_tp.issues().front().field == "tp");
  auto bad_pp = estimate(c, with({{"gpus", "64"}, {"pp", "64"}}));
  REQUIRE_FALSE(bad_pp.ok());
  CHECK(bad_pp.issues().front().field == "pp");
  auto bad_ep = estimate(preset("mixtral-8x7b").config, with({{"gpus", "16"}, {"exp", "16"}}));
  REQUIRE_FALSE(bad_ep.ok());
  CHECK(bad_ep.issues().front().field == "exp");
}

TEST_CASE("Every figure explains itself with a formula, a reference and its bound", "[core][explain]") {
  for (const char* id : {"llama-3.1-8b", "deepseek-v3", "gemma-2-9b"}) {
    const ModelConfig c = preset(id).config;
    Workload w = with({{"mode", "training"}, {"lora", "16"}, {"zero", "3"}, {"gpus", "8"}});
    if (std::string(id) == "deepseek-v3") w.tp = 8;
    const Estimate e = run(c, w);
    const auto ex = explain(c, w, e);
    REQUIRE(ex.size() > 25);
    std::vector<std::string> keys;
    for (const auto& x : ex) {
      INFO(x.key);
      CHECK_FALSE(x.formula.empty());
      CHECK_FALSE(x.reference.empty());
      CHECK(std::find(keys.begin(), keys.end(), x.key) == keys.end());
      keys.push_back(x.key);
    }
  }
}

TEST_CASE("a context beyond the trained positions is computed and noted", "[core][kv][notes]") {
  const auto gpt2 = run(preset("gpt2").config, with({{"seq", "4096"}}));
  REQUIRE(gpt2.notes.size() == 1);
  CHECK(gpt2.notes[0].field == "seq");
  CHECK_THAT(gpt2.notes[0].message, Catch::Contains("1024 rows"));
  const auto llama = run(preset("llama-2-7b").config, with({{"seq", "8192"}}));
  REQUIRE(llama.notes.size() == 1);
  CHECK_THAT(llama.notes[0].message, Catch::Contains("RoPE scaling"));
  CHECK(run(preset("llama-2-7b").config, with({{"seq", "4096"}})).notes.empty());
}

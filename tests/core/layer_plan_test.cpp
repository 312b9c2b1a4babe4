// The per-layer plan: one row per layer with its cache shape and FFN kind, the one home of the
// KV bytes and the window cap. Checked against the inventory and the estimate for every preset,
// and against hand-derived shapes for the kinds of today (full, sliding, MLA latent).
#include <catch2/catch.hpp>

#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::plan_of;
using llmsize::test::preset;

TEST_CASE("Every preset's plan has one row per layer and agrees with the inventory and the estimate", "[core][plan]") {
  auto presets = load_presets();
  REQUIRE(presets.ok());
  for (const Preset& p : *presets) {
    INFO(p.id);
    const ModelConfig& c = p.config;
    const LayerPlan plan = plan_of(c);
    REQUIRE(static_cast<i64>(plan.layers.size()) == c.n_layers);
    i64 layers = 0;
    for (const CacheShape& s : plan.caches) layers += s.layers;
    CHECK(layers == c.n_layers);
    // The inventory's layer kinds follow the plan's FFN kinds.
    auto inv = build_inventory(c);
    REQUIRE(inv.ok());
    for (const LayerKind& k : inv->kinds)
      for (i64 l : k.layers) CHECK(plan.is_moe(l) == k.is_moe);
    // The estimate reads the same plan.
    auto e = estimate(c, Workload{});
    REQUIRE(e.ok());
    CHECK(e->inference.kv_bytes_per_token == plan.kv_bytes_per_token());
    CHECK(e->plan.caches == plan.caches);
  }
}

TEST_CASE("Gemma 2 alternates sliding and full layers; only full layers grow past the window", "[core][plan]") {
  const ModelConfig g = preset("gemma-2-9b").config;  // 42 layers, window 4096, even layers slide
  const LayerPlan p = plan_of(g);
  REQUIRE(p.caches.size() == 2);
  CHECK(p.cache_of(0).kind == AttnKind::Sliding);
  CHECK(p.cache_of(0).window == 4096);
  CHECK(p.cache_of(1).kind == AttnKind::Full);
  CHECK(p.cache_of(0).layers == 21);
  CHECK(p.cache_of(1).layers == 21);
  // ref: 2 · K · hd · 2 bytes = 2 · 8 · 256 · 2 per layer per token.
  CHECK(p.cache_of(0).bytes_per_token == 8192);
  CHECK(p.cache_of(0).tokens_kept(100) == 100);
  CHECK(p.cache_of(0).tokens_kept(10000) == 4096);
  CHECK(p.cache_of(1).tokens_kept(10000) == 10000);
  CHECK(p.kv_cache_bytes(10000, 3).value() == i64{3} * 8192 * (21 * 4096 + 21 * 10000));
  // A pipeline stage of layers [10, 15) holds 2 full and 3 sliding layers.
  const StageRange r{10, 5};
  CHECK(p.layers_in(0, r) == 3);
  CHECK(p.layers_in(1, r) == 2);
  CHECK(p.kv_cache_bytes_gpu(r, 10000, 1).value() == 8192 * (3 * 4096 + 2 * 10000));
}

TEST_CASE("MLA layers cache one latent that every tensor-parallel GPU holds whole", "[core][plan]") {
  const ModelConfig ds = preset("deepseek-v3").config;  // kv_lora 512 + rope 64
  const LayerPlan p = plan_of(ds, KvDtype::BF16, 8);
  REQUIRE(p.caches.size() == 1);
  CHECK(p.caches[0].kind == AttnKind::MlaLatent);
  CHECK(p.caches[0].k_dim == 576);
  CHECK(p.caches[0].v_dim == 0);
  CHECK(p.caches[0].bytes_per_token_gpu == 576 * 2);
  // DeepSeek-V3: the first 3 layers are dense, the other 58 MoE.
  CHECK(p.moe_in(p.all()) == 58);
  CHECK_FALSE(p.is_moe(2));
  CHECK(p.is_moe(3));
}

TEST_CASE("Tensor parallel splits KV heads in the plan and replicates past K", "[core][plan]") {
  const ModelConfig c = preset("llama-3.1-8b").config;  // K = 8, hd = 128
  CHECK(plan_of(c, KvDtype::BF16, 2).caches[0].heads_gpu == 4);
  CHECK(plan_of(c, KvDtype::BF16, 16).caches[0].heads_gpu == 1);
  CHECK(plan_of(c, KvDtype::BF16, 16).caches[0].bytes_per_token == 2 * 8 * 128 * 2);  // whole model unchanged
  // q8_0 rows round up to 32-value blocks of 34 bytes (ggml block_q8_0).
  CHECK(plan_of(c, KvDtype::Q8_0).caches[0].bytes_per_token == 2 * (1024 / 32) * 34);
  CHECK_FALSE(layer_plan(c, KvDtype::BF16, 0).ok());
}

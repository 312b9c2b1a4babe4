// The timed demo: block choice and scaling under a memory budget, the step function sliced
// into many calls reaching the same numbers as the plain forward pass, results and the heat
// map filled in, settings refused with the field and range named. No timing assertions.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>

#include "ref/demo.hpp"
#include "ref/forward.hpp"
#include "test_util.hpp"
#include "tiny.hpp"

using namespace llmsize;

namespace {
constexpr core::i64 kMiB = core::i64{1} << 20;

ref::DemoPlan plan(const std::string& id, core::i64 budget_mib, core::i64 prompt = 128, core::i64 tokens = 32) {
  ref::DemoSettings s;
  s.prompt = prompt;
  s.tokens = tokens;
  s.budget_bytes = budget_mib * kMiB;
  auto p = ref::plan_demo(test::preset(id).config, s);
  INFO(id << ": " << core::join(p.issues()));
  REQUIRE(p.ok());
  CHECK(p->bytes <= s.budget_bytes);
  CHECK(p->block.n_layers == static_cast<core::i64>(p->layers.size()));
  return p.value();
}
}  // namespace

TEST_CASE("a block that fits the budget runs at the preset's real dimensions", "[ref][demo]") {
  const auto p = plan("llama-3-8b", 1024);
  CHECK_FALSE(p.scaled);
  CHECK(p.scaling == "real dimensions");
  CHECK(p.block.d_model == 4096);
  CHECK(p.block.n_kv_heads == 8);
  CHECK(p.bytes > 218'000'000 * 4);  // one layer: 218,112,000 parameters in fp32
}

TEST_CASE("a block over the budget is scaled, and the scaling is said plainly", "[ref][demo]") {
  SECTION("dense: narrower, head_dim kept") {
    const auto p = plan("llama-3-8b", 256);
    CHECK(p.scaled);
    CHECK(p.width_divisor >= 2);
    CHECK(p.block.head_dim == 128);
    CHECK(p.block.n_heads % p.block.n_kv_heads == 0);
    CHECK(p.scaling.find("d 4096->" + std::to_string(p.block.d_model)) == 0);
    CHECK(p.scaling.find(std::to_string(p.width_divisor) + "× narrower") != std::string::npos);
  }
  SECTION("MoE + MLA: fewer experts first, top-k kept, then narrower") {
    const auto p = plan("deepseek-v3", 1024);
    CHECK(p.moe);
    CHECK(p.layer == 3);  // first_k_dense_replace = 3: the first routed layer
    CHECK(p.experts_model == 256);
    CHECK(p.experts_block == 16);  // 2 × top-8
    CHECK(p.block.moe.top_k == 8);
    CHECK(p.width_divisor > 1);
    CHECK(p.scaling.find("experts 256->16 (top-8 per token kept)") != std::string::npos);
    CHECK(p.block.mla.qk_rope_dim == 64);
  }
  SECTION("fewer experts alone can be enough") {
    const auto p = plan("qwen1.5-moe-a2.7b", 1024);
    CHECK(p.width_divisor == 1);
    CHECK(p.experts_block < p.experts_model);
    CHECK(p.scaling.rfind("experts 60->", 0) == 0);
  }
}

TEST_CASE("the block holds one layer of each attention kind of the model", "[ref][demo]") {
  struct Case {
    const char* id;
    std::vector<core::i64> layers;  // the model layer each block layer stands for
  };
  for (const Case& c : {Case{"llama-3-8b", {0}}, Case{"deepseek-v3", {3}}, Case{"gpt-oss-20b", {0, 1}},
                        Case{"gemma-3-1b", {0, 5}}, Case{"gemma-2-2b", {0, 1}}, Case{"qwen3-next-80b-a3b", {0, 3}},
                        Case{"qwen3.5-0.8b", {0, 3}}, Case{"nemotron-nano-9b-v2", {0, 1, 14}},
                        Case{"lfm2-1.2b", {0, 2}}, Case{"falcon-h1-0.5b", {0}}, Case{"gemma-4-31b", {0, 5}},
                        Case{"gemma-4-e4b", {0, 5, 24, 29}}, Case{"gemma-4-26b-a4b", {0, 5}}}) {
    INFO(c.id);
    const auto model = test::preset(c.id).config;
    const auto p = plan(c.id, 4096);
    CHECK(p.layers == c.layers);
    auto mp = core::layer_plan(model, core::KvDtype::F32);
    auto bp = core::layer_plan(p.block, core::KvDtype::F32);
    REQUIRE(mp.ok());
    REQUIRE(bp.ok());
    for (size_t i = 0; i < p.layers.size(); ++i) {  // the same attention kind and window, layer for layer
      CHECK(bp->cache_of(static_cast<core::i64>(i)).kind == mp->cache_of(p.layers[i]).kind);
      CHECK(bp->window(static_cast<core::i64>(i)) == mp->window(p.layers[i]));
      CHECK(bp->is_moe(static_cast<core::i64>(i)) == p.moe);
    }
  }
}

TEST_CASE("a hybrid block reports its KV cache and recurrent state per attention kind, to the byte", "[ref][demo]") {
  // Falcon-H1: one kind holding both K/V and a Mamba-2 state; Gemma 4 E4B: sliding, full, and the
  // two KV-shared kinds, which hold nothing of their own.
  const std::map<std::string, size_t> kinds = {
      {"qwen3-next-80b-a3b", 2}, {"gpt-oss-20b", 2}, {"falcon-h1-0.5b", 1}, {"gemma-4-e4b", 4}};
  for (const auto& [id, count] : kinds) {
    INFO(id);
    ref::DemoSettings s;
    s.prompt = 40;
    s.tokens = 3;
    s.seed = 2;
    auto demo = ref::create_demo(test::tiny(test::preset(id).config), s);
    INFO(core::join(demo.issues()));
    REQUIRE(demo.ok());
    int steps = 0;
    while (ref::demo_step(**demo, 5.0).phase != ref::DemoPhase::Done && steps < 1000000) ++steps;
    const auto& m = ref::demo_results(**demo).memory;
    REQUIRE(m.by_kind.size() == count);
    for (const auto& k : m.by_kind) {
      INFO(k.kind);
      CHECK(k.layers.size() == 1);
      CHECK(k.kv_measured == k.kv_estimated);
      CHECK(k.state_measured == k.state_estimated);
      CHECK((k.kv_measured + k.state_measured > 0) == (k.kind.rfind("shared", 0) != 0));
    }
    core::i64 kv = 0, state = 0;
    for (const auto& k : m.by_kind) kv += k.kv_measured, state += k.state_measured;
    CHECK(kv == m.kv_measured);
    CHECK(state == m.state_measured);
  }
  // Qwen3-Next: a Gated DeltaNet layer (state, no rows) and a full-attention layer (rows, no state).
  ref::DemoSettings s;
  s.prompt = 40;
  s.tokens = 3;
  auto demo = ref::create_demo(test::tiny(test::preset("qwen3-next-80b-a3b").config), s);
  INFO(core::join(demo.issues()));
  REQUIRE(demo.ok());
  const auto& m = ref::demo_results(**demo).memory;
  CHECK(m.by_kind[0].kind == "linear");
  CHECK(m.by_kind[0].kv_measured == 0);
  CHECK(m.by_kind[0].state_measured > 0);
  CHECK(m.by_kind[1].kind == "full");
  CHECK(m.by_kind[1].state_measured == 0);
}

TEST_CASE("demo settings are set from text through their field table", "[ref][demo]") {
  ref::DemoSettings s;
  CHECK(ref::validate(s).empty());  // the defaults lie in their rows' ranges
  for (const auto& f : ref::demo_fields()) {
    INFO(f.key);
    ref::DemoSettings copy;
    CHECK_FALSE(f.set(copy, f.get(s)).has_value());
    CHECK(f.get(copy) == f.get(s));
    CHECK(f.set(copy, std::to_string(f.max_int + 1)).has_value());
    CHECK(f.set(copy, "12x").has_value());
  }
  REQUIRE_FALSE(ref::find_demo_flag("--budget-mib")->set(s, "64"));
  CHECK(s.budget_bytes == 64 * kMiB);
  CHECK(ref::find_demo_flag("--prompt")->set(s, "0")->message == "must be an integer in [1, 8192], got \"0\"");
  CHECK(ref::find_demo_flag("prefill_chunk") == nullptr);  // set by code, not a flag
}

TEST_CASE("demo settings outside their ranges are refused with the field and range", "[ref][demo]") {
  const auto cfg = test::preset("gpt2").config;
  ref::DemoSettings s;
  s.prompt = 0;
  auto r = ref::plan_demo(cfg, s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.issues()[0].field == "prompt");
  CHECK(r.issues()[0].message == "must be an integer in [1, 8192], got 0");
  s = {};
  s.tokens = 5000;
  CHECK(ref::plan_demo(cfg, s).issues().at(0).field == "tokens");
  s = {};
  s.budget_bytes = 1;
  CHECK(ref::plan_demo(cfg, s).issues().at(0).field == "budget");
  s = {};
  s.prompt = 1000;  // GPT-2 has 1024 learned positions
  s.tokens = 25;
  r = ref::plan_demo(cfg, s);
  REQUIRE_FALSE(r.ok());
  CHECK(r.issues()[0].message == "prompt + tokens must be at most the model's context (max_position_embeddings = 1024), got 1025");
  s = {};
  s.budget_bytes = 16 * kMiB;  // gpt2's block is 28 MB: scaled to fit
  CHECK(ref::plan_demo(test::preset("gpt2").config, s)->scaled);
}

TEST_CASE("the demo steps through fill, prefill and decode, and matches the plain forward", "[ref][demo]") {
  for (const char* id : {"llama-3-8b", "deepseek-v3", "gpt2"}) {
    INFO(id);
    const auto cfg = test::tiny(test::preset(id).config);
    ref::DemoSettings s;
    s.prompt = 9;
    s.tokens = 4;
    s.prefill_chunk = 5;  // the prompt in two calls: 5 + 4 tokens
    s.seed = 5;
    auto demo = ref::create_demo(cfg, s);
    INFO(core::join(demo.issues()));
    REQUIRE(demo.ok());
    ref::Demo& d = **demo;
    CHECK(ref::demo_progress(d).phase == ref::DemoPhase::Init);
    int steps = 0;
    double last = -1;
    ref::DemoProgress pr;
    do {  // a zero budget: one unit of work per call, the finest slicing there is
      pr = ref::demo_step(d, 0.0);
      CHECK(pr.fraction >= last);
      last = pr.fraction;
      ++steps;
    } while (pr.phase != ref::DemoPhase::Done && steps < 1000000);
    CHECK(pr.fraction == 1.0);
    CHECK(pr.decoded == 4);
    CHECK(pr.prefilled == 9);
    CHECK(steps > 50);
    const auto& r = ref::demo_results(d);
    CHECK(r.prefill_done);
    CHECK(r.decode_done);
    CHECK(r.prefill_flops > 0);
    CHECK(r.decode_flops > 0);
    CHECK(r.model_flops_ratio_prefill > 1.0);  // the whole model does more than one block
    CHECK(r.memory.weights_measured == r.memory.weights_estimated);
    CHECK(r.memory.kv_measured == r.memory.kv_estimated);
    CHECK_FALSE(r.kernel.empty());
    const ref::HeatMap h = ref::demo_heat_map(d);
    REQUIRE(h.probs != nullptr);
    CHECK(h.heads == cfg.n_heads);
    CHECK(h.positions == 13);  // the last decoded token sees all 9 + 4 positions
    CHECK(h.query_pos == 12);
    for (core::i64 head = 0; head < h.heads; ++head) {
      double sum = 0;
      for (core::i64 p = 0; p < h.positions; ++p) sum += h.probs[head * h.positions + p];
      CHECK(sum == Approx(1.0).epsilon(1e-5));
    }
    // The same block run in one go: a plain decoder with the same seed and inputs.
    auto plain = ref::build_decoder(ref::demo_plan(d).block,
                                    {.batch = 1, .context = 13, .max_tokens = 9, .globals = false, .seed = 5});
    REQUIRE(plain.ok());
    const core::i64 dm = ref::demo_plan(d).block.d_model;
    std::vector<float> x(9 * dm), y;
    ref::demo_inputs(5, 0, 9, dm, x.data());
    REQUIRE(ref::forward_hidden(**plain, x, 9).ok());  // in one call: chunking changes no bits
    for (core::i64 t = 9; t < 13; ++t) {
      std::vector<float> one(dm);
      ref::demo_inputs(5, t, 1, dm, one.data());
      auto out = ref::forward_hidden(**plain, one, 1);
      REQUIRE(out.ok());
      y = out.value();
    }
    const float* demo_x = ref::demo_decoder(d).ws.x.data();
    CHECK(std::equal(y.begin(), y.end(), demo_x));  // sliced into ~1-unit steps: same bits
    const ref::HeatMap hp = (*plain)->heat;
    CHECK(std::equal(hp.probs, hp.probs + hp.heads * hp.positions, h.probs));
    CHECK(ref::demo_step(d, 10.0).phase == ref::DemoPhase::Done);  // finished: returns at once
  }
}

TEST_CASE("a real-size block under a time budget runs to the end", "[ref][demo]") {
  ref::DemoSettings s;
  s.prompt = 64;
  s.tokens = 8;
  s.budget_bytes = 64 * kMiB;
  auto demo = ref::create_demo(test::preset("qwen2.5-0.5b").config, s);  // real block: ~60 MB
  REQUIRE(demo.ok());
  CHECK_FALSE(ref::demo_plan(**demo).scaled);
  int steps = 0;
  while (ref::demo_step(**demo, 2.0).phase != ref::DemoPhase::Done && steps < 1000000) ++steps;
  CHECK(ref::demo_progress(**demo).fraction == 1.0);
  const auto& r = ref::demo_results(**demo);
  CHECK(r.prefill_ms > 0);
  CHECK(r.decode_ms_per_token > 0);
  CHECK(r.model_decode_ms_per_token > r.decode_ms_per_token);  // 24 layers and a head
  CHECK(std::isfinite(r.decode_gbps));
}

TEST_CASE("the demo's training step runs after the decode, one stage per step, beside the core", "[ref][demo][train]") {
  ref::DemoSettings s;
  s.prompt = 6;
  s.tokens = 2;
  s.train_seq = 10;
  s.train_batch = 2;
  s.train_lora_rank = 4;
  auto demo = ref::create_demo(test::tiny(test::preset("llama-3-8b").config), s);
  INFO(core::join(demo.issues()));
  REQUIRE(demo.ok());
  CHECK(ref::demo_plan(**demo).train_layer == 0);
  int train_steps = 0, steps = 0;
  ref::DemoProgress pr;
  do {
    pr = ref::demo_step(**demo, 0.0);
    train_steps += pr.phase == ref::DemoPhase::Train;
  } while (pr.phase != ref::DemoPhase::Done && ++steps < 1000000);
  // The call that ends the decode enters the phase; then one call each makes the step, runs the first
  // forward, backward and AdamW; the call running the second forward ends it.
  CHECK(train_steps == 5);
  const auto& r = ref::demo_results(**demo);
  REQUIRE(r.train.has_value());
  CHECK(r.train_issues.empty());
  CHECK(r.train_layer == 0);
  const ref::TrainMemory& m = r.train->memory;
  CHECK(m.saved_measured == m.saved_estimated);
  CHECK(m.adapters_measured == m.adapters_estimated);
  CHECK(m.gradients_measured == m.gradients_estimated);
  CHECK(m.optimizer_measured == m.optimizer_estimated);
  CHECK(r.train->loss_after < r.train->loss_before);
  // A model whose block has no layer the step models is refused when planned, naming why.
  ref::DemoSettings moe = s;
  auto refused = ref::plan_demo(test::tiny(test::preset("gpt-oss-20b").config), moe);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.issues().front().field == "model_type");
}

// The measured training step (ref/train.hpp): its gradients against central finite differences
// of its own loss, AdamW lowering that loss, and its counters against the core's figures for
// tiny versions of every preset it runs (saved activations, adapters, gradients and optimizer
// states equal to the byte), plus the refusals.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/presets.hpp"
#include "ref/decoder.hpp"
#include "ref/demo.hpp"
#include "ref/train.hpp"
#include "test_util.hpp"
#include "tiny.hpp"

using namespace llmsize;

namespace {

core::ModelConfig preset_config(const std::string& id) {
  auto all = core::load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value())
    if (p.id == id) return p.config;
  FAIL("no preset " << id);
  return {};
}

// Central differences of L in float64 around each sampled element, against the analytic
// gradient; the tolerance covers fp32 forward noise over a step of h = 1e-2.
void check_gradients(const core::ModelConfig& cfg, const ref::TrainSettings& s) {
  auto made = ref::TrainStep::create(cfg, 0, s);
  INFO(core::join(made.issues()));
  REQUIRE(made.ok());
  ref::TrainStep& step = **made;
  // LoRA's B starts at zero, which makes A's gradient zero: give B values so both are checked.
  for (auto& t : step.trainable())
    if (t.name.find("lora_B") != std::string::npos)
      for (core::i64 i = 0; i < t.numel; ++i) t.value[i] = 0.05f * static_cast<float>((i * 7919) % 13 - 6) / 6.0f;
  step.forward();
  step.backward();
  const auto tensors = step.trainable();
  REQUIRE(!tensors.empty());
  // Copy the analytic gradients: the next forwards do not touch them, but keep them apart anyway.
  std::vector<std::vector<float>> grads;
  for (const auto& t : tensors) {
    REQUIRE(t.grad != nullptr);
    grads.emplace_back(t.grad, t.grad + t.numel);
  }
  std::vector<float> dx(step.input_grad(), step.input_grad() + s.seq * s.micro_batch * cfg.d_model);
  auto loss_at = [&](float* p, float v) {
    const float keep = *p;
    *p = v;
    const double l = step.forward();
    *p = keep;
    return l;
  };
  constexpr float h = 1e-2f;
  int checked = 0, bad = 0, kinks = 0;
  auto check = [&](const std::string& what, float* p, float analytic) {
    const float v = *p;
    const double num = (loss_at(p, v + h) - loss_at(p, v - h)) / (2.0 * h);
    const double err = std::fabs(num - analytic);
    ++checked;
    if (err <= 2e-2 * std::fabs(num) + 2e-3) return;
    // A token whose top-k choice flips within ±h makes L jump: no derivative exists there. The
    // half step then disagrees with the whole one; such elements are counted, not compared.
    const double half = (loss_at(p, v + h / 2) - loss_at(p, v - h / 2)) / static_cast<double>(h);
    if (std::fabs(half - num) > 0.25 * std::fabs(num) + 1e-2) {
      ++kinks;
      return;
    }
    ++bad;
    UNSCOPED_INFO(what << ": numeric " << num << ", analytic " << analytic);
  };
  for (size_t ti = 0; ti < tensors.size(); ++ti) {
    const auto& t = tensors[ti];
    for (core::i64 i = 0; i < t.numel; i += std::max<core::i64>(1, t.numel / 5))
      check(t.name + "[" + std::to_string(i) + "]", t.value + i, grads[ti][static_cast<size_t>(i)]);
  }
  float* x = step.input();
  for (size_t i = 0; i < dx.size(); i += dx.size() / 7) check("input[" + std::to_string(i) + "]", x + i, dx[i]);
  INFO(checked << " elements checked, " << kinks << " at a routing flip");
  CHECK(bad == 0);
  CHECK(checked > 20);
  CHECK(kinks * 10 <= checked);
}

}  // namespace

TEST_CASE("train step: gradients match finite differences", "[ref][train]") {
  struct Case {
    const char* preset;
    core::i64 rank;
    std::uint32_t targets;
    core::Recompute recompute;
    std::uint64_t seed = 1;
  };
  // Llama (GQA, RoPE, RMSNorm, SwiGLU), GPT-2 (LayerNorm with biases, biased projections, fused
  // qkv, GELU MLP), Phi-3 (fused qkv and gate_up), Mistral (sliding window), BLOOM (ALiBi).
  const Case cases[] = {
      {"llama-3-8b", 0, 0, core::Recompute::None},
      {"llama-3-8b", 4, core::kLoraAll, core::Recompute::None},
      {"llama-3-8b", 4, core::kLoraQ | core::kLoraV, core::Recompute::Full},
      {"gpt2", 0, 0, core::Recompute::Full},
      {"gpt2", 3, core::kLoraAll, core::Recompute::None},
      {"phi-3-mini", 4, core::kLoraAll, core::Recompute::None},
      {"mistral-7b", 0, 0, core::Recompute::None},
      {"bloom-560m", 2, core::kLoraQ | core::kLoraO | core::kLoraDown, core::Recompute::None},
      // MoE: softmax top-2 renormalized (Mixtral), softmax without renormalization plus a gated shared
      // expert (Qwen1.5-MoE)
      {"mixtral-8x7b", 0, 0, core::Recompute::None},
      {"mixtral-8x7b", 3, core::kLoraAll, core::Recompute::Full, 3},  // seed 1 puts a token within h of a routing flip
      {"qwen1.5-moe-a2.7b", 0, 0, core::Recompute::None},
      {"qwen1.5-moe-a2.7b", 2, core::kLoraGate | core::kLoraDown, core::Recompute::None},
  };
  for (const Case& c : cases) {
    ref::TrainSettings s;
    s.seq = 9;  // longer than the tiny sliding window (5)
    s.micro_batch = 2;
    s.lora_rank = c.rank;
    s.lora_targets = c.targets;
    s.recompute = c.recompute;
    s.seed = c.seed;
    INFO(c.preset << " rank " << c.rank << " recompute " << core::to_string(c.recompute));
    check_gradients(test::tiny(preset_config(c.preset)), s);
  }
}

TEST_CASE("train step: one AdamW step lowers the loss", "[ref][train]") {
  for (core::i64 rank : {0, 8}) {
    ref::TrainSettings s;
    s.seq = 12;
    s.lora_rank = rank;
    s.lr = 1e-3;
    auto r = ref::run_train_step(test::tiny(preset_config("llama-3-8b")), 0, s);
    INFO(core::join(r.issues()));
    REQUIRE(r.ok());
    INFO("rank " << rank << ": " << r->loss_before << " → " << r->loss_after);
    CHECK(r->loss_after < r->loss_before);
  }
}

TEST_CASE("train step: counters equal the core's figures for every preset it runs", "[ref][train]") {
  auto all = core::load_presets();
  REQUIRE(all.ok());
  int ran = 0, refused = 0;
  for (const auto& p : all.value()) {
    const core::ModelConfig c = test::tiny(p.config);
    if (ref::unsupported(c) || ref::train_unsupported(c, 0) || c.varies_by_layer()) {
      ++refused;
      continue;
    }
    for (core::Recompute rc : {core::Recompute::None, core::Recompute::Full})
      for (core::i64 rank : {0, 4}) {
        ref::TrainSettings s;
        s.seq = 7;
        s.micro_batch = 2;
        s.lora_rank = rank;
        s.lora_targets = core::kLoraQ | core::kLoraV | core::kLoraDown;
        s.recompute = rc;
        INFO(p.id << " rank " << rank << " recompute " << core::to_string(rc));
        auto r = ref::run_train_step(c, 0, s);
        INFO(core::join(r.issues()));
        REQUIRE(r.ok());
        const ref::TrainMemory& m = r->memory;
        CHECK(m.weights_measured == m.weights_estimated);
        CHECK(m.adapters_measured == m.adapters_estimated);
        CHECK(m.saved_measured == m.saved_estimated);
        CHECK(m.recompute_measured == m.recompute_estimated);
        CHECK(m.gradients_measured == m.gradients_estimated);
        CHECK(m.optimizer_measured == m.optimizer_estimated);
        CHECK((rc == core::Recompute::Full) == (m.recompute_measured > 0));
        CHECK((rank > 0) == (m.adapters_measured > 0));
        // The peak: at least the states and the saved set of the second forward, at most the
        // formula's total plus the working buffers measured.
        CHECK(m.peak_measured >= m.weights_measured + m.adapters_measured + m.optimizer_measured + m.saved_measured);
        CHECK(m.peak_measured <= m.formula_total + m.working_measured + m.saved_estimated);
        ++ran;
      }
  }
  INFO(ran << " runs, " << refused << " presets refused");
  CHECK(ran >= 4 * 20);
}

TEST_CASE("train step: refusals name the field", "[ref][train]") {
  const core::ModelConfig llama = test::tiny(preset_config("llama-3-8b"));
  auto field_of = [&](const core::ModelConfig& c, ref::TrainSettings s, core::i64 layer = 0) {
    auto r = ref::run_train_step(c, layer, s);
    REQUIRE(!r.ok());
    return r.issues().front().field;
  };
  ref::TrainSettings s;
  s.seq = 0;
  CHECK(field_of(llama, s) == "train_seq");
  s = {};
  s.micro_batch = 65;
  CHECK(field_of(llama, s) == "train_batch");
  s = {};
  s.lora_rank = -1;
  CHECK(field_of(llama, s) == "lora_rank");
  s = {};
  s.lora_targets = 0;
  CHECK(field_of(llama, s) == "lora_targets");
  s = {};
  s.lr = 0;
  CHECK(field_of(llama, s) == "lr");
  CHECK(field_of(llama, {}, 2) == "layer");
  CHECK(field_of(test::tiny(preset_config("llama-4-scout")), {}, 0) == "model_type");
  CHECK(field_of(test::tiny(preset_config("deepseek-v3")), {}, 0) == "model_type");
}

TEST_CASE("train step and demo plan: refusals read in each language, the English one is the message", "[ref][train][lang]") {
  auto cjk = [](const std::string& s) {
    for (size_t i = 0; i + 2 < s.size(); ++i)
      if (static_cast<unsigned char>(s[i]) >= 0xE3 && static_cast<unsigned char>(s[i]) <= 0xE9) return true;
    return false;
  };
  std::vector<core::Issue> issues;
  auto add = [&](auto r) {
    REQUIRE_FALSE(r.ok());
    issues.insert(issues.end(), r.issues().begin(), r.issues().end());
  };
  const core::ModelConfig scout = test::tiny(preset_config("llama-4-scout"));  // input-scaling routing, NoPE layers
  add(ref::run_train_step(scout, 0, {}));
  ref::TrainSettings s;
  s.lora_targets = 0;
  s.lr = 2;
  add(ref::run_train_step(test::tiny(preset_config("llama-3-8b")), 0, s));
  ref::DemoSettings d;
  d.train_seq = 8;
  add(ref::plan_demo(scout, d));
  d = {};
  d.prompt = 8000;
  d.tokens = 4000;
  add(ref::plan_demo(preset_config("gpt2"), d));
  d = {};
  d.train_lora_targets = 0;
  d.budget_bytes = 3;
  add(ref::plan_demo(preset_config("gpt2"), d));
  REQUIRE(issues.size() >= 6);
  for (const auto& is : issues) {
    INFO(is.field << ": " << is.message);
    CHECK(core::message_in(is, core::Lang::En) == is.message);
    CHECK(cjk(core::message_in(is, core::Lang::Zh)));
  }
  CHECK(core::message_in(issues.front(), core::Lang::Zh).find("混合专家") != std::string::npos);
}

// Training memory: the ZeRO paper's Fig. 1, Korthikanti et al.'s Table 2 for a GPT-3 175B
// layer, activations of modern layers (SwiGLU, GQA, no dropout, flash), optimizers, LoRA
// adapter counts printed by PEFT, QLoRA, pipeline in-flight micro-batches.
#include <catch2/catch.hpp>

#include "core/estimate.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;
using llmsize::test::run;
using llmsize::test::with;

namespace {
Workload training() {
  Workload w;
  w.mode = Mode::Training;
  return w;
}
}  // namespace

TEST_CASE("ZeRO Fig. 1: 7.5B parameters on 64 GPUs with mixed-precision Adam", "[core][training][zero]") {
  // ref: Rajbhandari et al. 2020, Fig. 1: (2 + 2 + K)·Ψ with K = 12, Ψ = 7.5B, N_d = 64:
  // baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB per GPU.
  struct Row {
    Sharding z;
    double gb;
  };
  const Row rows[] = {{Sharding::None, 120}, {Sharding::Zero1, 31.4}, {Sharding::Zero2, 16.6}, {Sharding::Zero3, 1.9}};
  Workload w = training();  // bf16 weights and grads, fp32 master + AdamW m, v
  for (const auto& r : rows) {
    w.sharding = r.z;
    auto s = model_states(7'500'000'000, w, 64);
    REQUIRE(s.ok());
    INFO(to_string(r.z));
    CHECK(static_cast<double>(s->total()) / 1e9 == Approx(r.gb).margin(0.05));
  }
  CHECK(state_bytes(w).master + state_bytes(w).optimizer == 12);  // K
}

TEST_CASE("Per-GPU model states of a real model follow the same ZeRO sharding", "[core][training][zero]") {
  const ModelConfig c = preset("llama-2-7b").config;
  for (Sharding z : {Sharding::None, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3, Sharding::Fsdp}) {
    Workload w = training();
    w.gpus = 64;
    w.sharding = z;
    const Estimate e = run(c, w);
    auto s = model_states(e.params.total, w, 64);
    const auto& t = e.training;
    INFO(to_string(z));
    CHECK(t.weights_bytes == s->weights);
    CHECK(t.gradients_bytes == s->grads);
    CHECK(t.master_weights_bytes == s->master);
    CHECK(t.optimizer_bytes == (z == Sharding::None ? 8 * e.params.total : (8 * e.params.total + 63) / 64));
    CHECK(t.gathered_bytes == (z == Sharding::Zero3 || z == Sharding::Fsdp ? t.gathered_bytes : 0));
  }
}

TEST_CASE("Korthikanti Table 2: activations of a GPT-3 175B layer at s = 2048, b = 1", "[core][training][activations]") {
  // ref: Korthikanti et al. 2022, Table 2, h = 12288, a = 96, t = 8, 16-bit with dropout:
  //   no parallelism sbh(34 + 5as/h) = 114 sbh; tensor parallel sbh(10 + 24/t + 5as/(ht)) = 23 sbh;
  //   + sequence parallel sbh/t(34 + 5as/h) = 14.25 sbh; TP + selective sbh(10 + 24/t) = 13 sbh;
  //   TP + SP + selective 34sbh/t = 4.25 sbh; full recomputation 2 sbh.
  const ModelConfig c = preset("gpt3-175b").config;
  REQUIRE(c.d_model == 12288);
  REQUIRE(c.n_heads == 96);
  const double sbh = 2048.0 * 12288.0;
  struct Row {
    const char* name;
    i64 t;
    bool sp;
    Recompute rc;
    double per_sbh;
  };
  const Row rows[] = {
      {"no parallelism", 1, false, Recompute::None, 34 + 5.0 * 96 * 2048 / 12288},
      {"tensor parallel", 8, false, Recompute::None, 10 + 24.0 / 8 + 5.0 * 96 * 2048 / (12288 * 8)},
      {"tensor + sequence parallel", 8, true, Recompute::None, (34 + 5.0 * 96 * 2048 / 12288) / 8},
      {"tensor parallel + selective", 8, false, Recompute::Selective, 10 + 24.0 / 8},
      {"tensor + sequence + selective", 8, true, Recompute::Selective, 34.0 / 8},
      {"full recompute", 1, false, Recompute::Full, 2},
  };
  for (const auto& r : rows) {
    INFO(r.name);
    ActParams p;
    p.seq = 2048;
    p.micro_batch = 1;
    p.tp = r.t;
    p.seq_parallel = r.sp;
    p.recompute = r.rc;
    p.dropout = true;
    p.flash = false;
    auto a = layer_activations(c, p, false);
    REQUIRE(a.ok());
    CHECK(static_cast<double>(a->total) == Approx(r.per_sbh * sbh).epsilon(1e-12));
  }
}

TEST_CASE("Activations change correctly for SwiGLU, GQA, no dropout and flash attention", "[core][training][activations]") {
  // Llama-3-8B: h = 4096, a = 32, K = 8, f = 14336, RMSNorm, no dropout. Per component (16-bit):
  // norms 4sbh, qkv input 2sbh, q,k 2sb(32+8)·128 = 2.5sbh, v 0.5sbh, out-proj input 2sbh,
  // FFN input 2sbh, gate‖up + product 6sbf = 21sbh → 34 sbh, plus softmax 2as²b (eager) or an
  // fp32 logsumexp 4asb (flash).
  const ModelConfig c = preset("llama-3-8b").config;
  ActParams p;
  p.seq = 4096;
  p.dropout = false;
  p.flash = false;
  const double s = 4096, h = 4096, a = 32;
  const double sbh = s * h;
  CHECK(static_cast<double>(layer_activations(c, p, false)->total) == Approx(34 * sbh + 2 * a * s * s).epsilon(1e-12));
  p.flash = true;
  CHECK(static_cast<double>(layer_activations(c, p, false)->total) == Approx(34 * sbh + 4 * a * s).epsilon(1e-12));
  p.recompute = Recompute::Full;
  CHECK(static_cast<double>(layer_activations(c, p, false)->total) == Approx(2 * sbh));
}

TEST_CASE("Optimizer states per parameter", "[core][training][optimizer]") {
  struct Row {
    Optimizer o;
    StateDtype s;
    i64 numel, rows, cols, bytes;
    const char* what;
  };
  const Row rows[] = {
      {Optimizer::AdamW, StateDtype::F32, 1 << 20, 1024, 1024, 8 << 20, "AdamW m, v in fp32"},
      {Optimizer::AdamW, StateDtype::BF16, 1 << 20, 1024, 1024, 4 << 20, "AdamW in bf16"},
      {Optimizer::Sgd, StateDtype::F32, 1 << 20, 1024, 1024, 0, "SGD"},
      {Optimizer::SgdMomentum, StateDtype::F32, 1 << 20, 1024, 1024, 4 << 20, "SGD momentum"},
      {Optimizer::Lion, StateDtype::F32, 1 << 20, 1024, 1024, 4 << 20, "Lion momentum"},
      {Optimizer::Adafactor, StateDtype::F32, 1 << 20, 1024, 1024, 2048 * 4, "Adafactor row + column factors"},
      {Optimizer::Adafactor, StateDtype::F32, 1024, 1, 1024, 1024 * 4, "Adafactor on a vector"},
      {Optimizer::AdamW8bit, StateDtype::F32, 1 << 20, 1024, 1024, 2 * ((1 << 20) + (1 << 12) * 4), "8-bit, 256-blocks"},
      {Optimizer::AdamW8bit, StateDtype::F32, 4095, 1, 4095, 4095 * 8, "8-bit below min_8bit_size stays 32-bit"},
  };
  for (const auto& r : rows) {
    INFO(r.what);
    Workload w = training();
    w.optimizer = r.o;
    w.opt_state = r.s;
    CHECK(*optimizer_bytes_for(w, r.numel, r.rows, r.cols) == r.bytes);
  }
}

TEST_CASE("LoRA adapter counts equal PEFT's printed trainable parameters", "[core][training][lora]") {
  const ModelConfig c = preset("llama-2-7b").config;
  auto inv = build_inventory(c);
  // PEFT print_trainable_parameters for Llama-2-7B, r = 8 on q_proj, v_proj: 4,194,304.
  CHECK(*lora_params(*inv, 8, kLoraQ | kLoraV) == 4'194'304);
  // QLoRA's setting, r = 64 on every linear layer: 159,907,840.
  CHECK(*lora_params(*inv, 64, kLoraAll) == 159'907'840);
  Workload w = training();
  w.lora_rank = 8;
  w.lora_targets = kLoraQ | kLoraV;
  const Estimate e = run(c, w);
  CHECK(e.training.trainable_params == 4'194'304);
  CHECK(e.training.gradients_bytes == 4'194'304 * 2);
  CHECK(e.training.optimizer_bytes == 4'194'304 * 8);
  CHECK(e.training.weights_bytes == e.params.total * 2 + 4'194'304 * 2);
}

TEST_CASE("QLoRA keeps the frozen base in NF4 with double quantization", "[core][training][lora]") {
  const ModelConfig c = preset("llama-2-7b").config;
  Workload w = training();
  w.lora_rank = 64;
  w.qlora = true;
  w.seq = 512;
  w.gpu = "rtx-4090";
  const Estimate e = run(c, w);
  Workload nf4;
  nf4.weights = WeightFormat::Nf4Dq;
  auto base = weights_report(c, *e.inventory, nf4);
  CHECK(e.training.weights_bytes == base->total_bytes + 159'907'840 * 2);
  CHECK(e.training.dequant_bytes > 0);
  CHECK(e.training.fits);  // QLoRA's point: a 7B fine-tune on one 24 GB consumer GPU
  auto bad = estimate(c, [] { Workload q = training(); q.qlora = true; return q; }());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues().front().field == "lora");
}

TEST_CASE("1F1B: the first stage holds pp micro-batches in flight", "[core][training][pipeline]") {
  const ModelConfig c = preset("llama-2-7b").config;
  Workload w = training();
  w.gpus = 4;
  w.pp = 4;
  w.grad_accum = 8;
  const Estimate e = run(c, w);
  CHECK(e.training.stage == 0);
  CHECK(e.training.inflight == 4);
  CHECK(e.training.activation_bytes == e.training.layer.total * 8 * 4);
  w.grad_accum = 2;  // fewer micro-batches than stages
  CHECK(run(c, w).training.inflight == 2);
}

TEST_CASE("Full fine-tuning of a 7B model needs more than one 80 GB GPU", "[core][training][fit]") {
  const Estimate e = run(preset("llama-2-7b").config, training());
  CHECK_FALSE(e.training.fits);
  CHECK(e.training.min_gpus >= 2);
  CHECK(e.training.weights_bytes + e.training.gradients_bytes + e.training.master_weights_bytes +
            e.training.optimizer_bytes ==
        16 * e.params.total);
}

TEST_CASE("Under a recipe of one layout, the GPUs needed are that layout's, or none", "[core][training][fit]") {
  auto min_gpus_of = [](const char* id, std::initializer_list<std::pair<const char*, const char*>> kv) {
    const ModelConfig c = preset(id).config;
    const Workload w = with(kv);
    const Estimate e = run(c, w);
    REQUIRE(e.training.recipe.has_value());
    std::string formula;
    for (const Explanation& x : explain(c, w, e))
      if (x.key == "training.min_gpus") formula = x.formula;
    return std::make_pair(e.training.min_gpus, formula);
  };
  // hf-peft's full fine-tuning over FSDP on two GPUs fits: the layout's two.
  const auto [fsdp, fsdp_text] = min_gpus_of("llama-3.2-1b", {{"mode", "training"}, {"recipe", "hf-peft"}, {"gpu", "a100-80gb"},
                                                              {"gpus", "2"}, {"zero", "fsdp"}, {"lora", "0"}, {"ostate", "bf16"},
                                                              {"rc", "full"}, {"seq", "2048"}});
  CHECK(fsdp == 2);
  CHECK(fsdp_text.find("the recipe's own layout, 2 GPU(s)") != std::string::npos);
  // torchtune's Llama 3.1 8B does not fit a 24 GB card: none, said so, not a count of an ideal split.
  const auto [none, none_text] = min_gpus_of("llama-3.1-8b", {{"mode", "training"}, {"recipe", "torchtune"}, {"gpu", "rtx-4090"},
                                                              {"prec", "pure"}, {"ostate", "bf16"}, {"seq", "4096"}});
  CHECK(none == 0);
  CHECK(none_text.find("(never fits)") != std::string::npos);
}

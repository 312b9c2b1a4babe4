// Calibration of the `formula` training recipe (issue 15) against Megatron-LM's own report of the
// peak: training.py training_log -> report_memory, which prints torch.cuda.max_memory_allocated()
// per (tensor, pipeline) rank of data-parallel rank 0,
//   "[Rank r] (after N iterations) memory (MB) | allocated: … | max allocated: … | …"
// in MiB (the code divides by 1024 · 1024). The formula recipe is the papers' model, and the
// papers' activation model (Korthikanti et al. 2022, Table 2) is the tensors of Megatron-LM's own
// GPT layer; this file checks it, rank by rank, on four layouts of one model.
//
// Source: liguodongiot/llm-action, train/megatron/gpt2/model_train.md at commit bd731466 (2023-07-24):
// four runs of Megatron-LM's examples/pretrain_gpt*.sh on one machine of 4 × A800 80 GB, 2023-07-16
// (Megatron-LM main of that month, the legacy megatron/model code), in the container the same
// folder's README starts: NVIDIA's PyTorch container 23.04-py3 (PyTorch 2.1.0a0). Each run prints its arguments;
// the ones that set memory, common to all four:
//   num_layers 24, hidden_size 1024, ffn_hidden_size 4096, num_attention_heads 16, kv_channels 64,
//   seq_length 1024, max_position_embeddings 1024, add_position_embedding True, add_bias_linear
//   True, swiglu False, untie_embeddings_and_output_weights False, tokenizer_type GPT2BPETokenizer,
//   make_vocab_size_divisible_by 128, fp16 True, accumulate_allreduce_grads_in_fp32 False,
//   optimizer adam, use_distributed_optimizer False, DDP_impl local,
//   use_contiguous_buffers_in_local_ddp True, recompute_granularity None, use_flash_attn False,
//   transformer_impl local, masked_softmax_fusion True, attention_dropout 0.1, hidden_dropout 0.1,
//   fp16_lm_cross_entropy False.
// That is GPT-2 Medium's shape (the gpt2-medium preset) with the vocabulary padded as the log says
// ("padded vocab (size: 50257) with 47 dummy tokens (new size: 50304)", 175 at TP 2, 431 at TP 4);
// fp16 weights, fp16 gradients (the contiguous buffer in the parameters' dtype), fp32 master weights
// and Adam's two fp32 states: llmsize's defaults for --precision mixed, --dropout 1 for the masks.
// An A800 is an A100 80 GB with less NVLink bandwidth; the catalog's a100-80gb stands in for it
// (the card changes no figure below). The first 100 iterations include 15-16 skipped by the loss
// scaler; the rest stepped, so Adam's states were live in the iterations the peak covers.
//
// The issue's tolerance for a distributed recipe is 10% of the reported peak. Every stage that
// holds no loss is within 1.2%; the last pipeline stages miss by 8-10%, stated below.
#include <cmath>
#include <functional>
#include <set>

#include "core/activations.hpp"
#include "core/estimate.hpp"
#include "core/report.hpp"
#include "recipe_lang.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;

namespace {

struct Rank {
  const char* quoted;  // the log's line
  i64 stage;           // the pipeline stage of that global rank
  double max_allocated_mib;
};

struct Run {
  const char* section;  // the document's heading
  i64 vocab, tp, pp, batch, accum;
  bool seq_parallel;
  std::vector<i64> params;  // "number of parameters on (tensor, pipeline) model parallel rank", by stage
  std::vector<Rank> ranks;
};

const Run kRuns[] = {
    {"### 单机多卡(4DP): data-parallel-size 4, micro_batch_size 1, global_batch_size 8 (2 micro-batches)",
     50304, 1, 1, 1, 2, false, {354871296},
     {{"[Rank 0] (after 100 iterations) memory (MB) | allocated: 6816.88818359375 | max allocated: 8696.8515625 | reserved: 8786.0 | max reserved: 8786.0",
       0, 8696.8515625}}},
    {"### 模型并行（2TP+2DP）: tensor-model-parallel size 2, pipeline-model-parallel size 2, sequence_parallel True, "
     "micro_batch_size 4, global_batch_size 16 (4 micro-batches)",
     50432, 2, 2, 4, 4, true, {102483968, 101437440},
     {{"[Rank 3] (after 100 iterations) memory (MB) | allocated: 2029.29443359375 | max allocated: 5373.49560546875 | reserved: 5968.0 | max reserved: 5968.0",
       1, 5373.49560546875},
      {"[Rank 2] (after 100 iterations) memory (MB) | allocated: 2029.29443359375 | max allocated: 5373.49560546875 | reserved: 5718.0 | max reserved: 5718.0",
       1, 5373.49560546875},
      {"[Rank 1] (after 100 iterations) memory (MB) | allocated: 2040.25830078125 | max allocated: 7253.22705078125 | reserved: 7622.0 | max reserved: 7622.0",
       0, 7253.22705078125},
      {"[Rank 0] (after 100 iterations) memory (MB) | allocated: 2040.25830078125 | max allocated: 7253.22705078125 | reserved: 7622.0 | max reserved: 7622.0",
       0, 7253.22705078125}}},
    {"### 模型并行（4TP）: tensor-model-parallel size 4, sequence_parallel True, micro_batch_size 2, global_batch_size 8 "
     "(4 micro-batches)",
     50688, 4, 1, 2, 4, true, {89714688},
     {{"[Rank 0] (after 100 iterations) memory (MB) | allocated: 1772.68505859375 | max allocated: 3059.67138671875 | reserved: 3394.0 | max reserved: 3394.0",
       0, 3059.67138671875},
      {"[Rank 2] (after 100 iterations) memory (MB) | allocated: 1794.56005859375 | max allocated: 3081.17138671875 | reserved: 3390.0 | max reserved: 3390.0",
       0, 3081.17138671875},
      {"[Rank 3] (after 100 iterations) memory (MB) | allocated: 1795.06005859375 | max allocated: 3081.67138671875 | reserved: 3398.0 | max reserved: 3398.0",
       0, 3081.67138671875},
      {"[Rank 1] (after 100 iterations) memory (MB) | allocated: 1774.18505859375 | max allocated: 3065.67138671875 | reserved: 3398.0 | max reserved: 3398.0",
       0, 3065.67138671875}}},
    {"### 模型并行（4PP）: pipeline-model-parallel size 4, micro_batch_size 2, global_batch_size 8 (4 micro-batches)",
     50304, 1, 4, 2, 4, false, {128137216, 75577344, 75577344, 127090688},
     {{"[Rank 2] (after 100 iterations) memory (MB) | allocated: 1529.77783203125 | max allocated: 4104.89501953125 | reserved: 4170.0 | max reserved: 4170.0",
       2, 4104.89501953125},
      {"[Rank 0] (after 100 iterations) memory (MB) | allocated: 2524.27783203125 | max allocated: 7643.34033203125 | reserved: 7766.0 | max reserved: 7766.0",
       0, 7643.34033203125},
      {"[Rank 1] (after 100 iterations) memory (MB) | allocated: 1529.77783203125 | max allocated: 5477.08251953125 | reserved: 5498.0 | max reserved: 5498.0",
       1, 5477.08251953125},
      {"[Rank 3] (after 100 iterations) memory (MB) | allocated: 2513.31787109375 | max allocated: 4390.34521484375 | reserved: 4522.0 | max reserved: 4522.0",
       3, 4390.34521484375}}},
};

// A rank's stage peak in MiB, and its relative error against the max allocated the log printed.
std::pair<double, double> fit(const std::vector<TrainingStage>& stages, const Rank& rank) {
  const double predicted = static_cast<double>(stages[static_cast<size_t>(rank.stage)].peak_allocated_bytes) / (1 << 20);
  return {predicted, (predicted - rank.max_allocated_mib) / rank.max_allocated_mib};
}

Workload megatron_workload(const Run& r) {
  Workload w = llmsize::test::with({{"mode", "training"}, {"gpu", "a100-80gb"}, {"gpus", "4"}, {"dtype", "fp16"}, {"flash", "0"},
                                    {"dropout", "1"}, {"seq", "1024"}, {"opt", "adamw"}, {"prec", "mixed"}, {"rc", "none"}});
  w.tp = r.tp;
  w.pp = r.pp;
  w.batch = r.batch;
  w.grad_accum = r.accum;
  w.seq_parallel = r.seq_parallel;
  return w;
}

}  // namespace

TEST_CASE("formula recipe against Megatron-LM: GPT-345M on 4 GPUs, rank by rank, in four layouts", "[calibration][training]") {
  double worst_inner = 0;
  for (const Run& r : kRuns) {
    INFO(r.section);
    ModelConfig c = preset("gpt2-medium").config;
    c.vocab = r.vocab;
    const auto e = estimate(c, megatron_workload(r));
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    const TrainingMemory& t = e.value().training;
    REQUIRE(t.stages.size() == static_cast<size_t>(r.pp));
    // Parameters on each GPU, exact: the tensor-parallel shards, the replicated biases of the
    // row-parallel Linears and the norms, the position embeddings on the first stage, the tied
    // word embeddings on the first and the last.
    for (i64 s = 0; s < r.pp; ++s) CHECK(t.stages[static_cast<size_t>(s)].params_gpu == r.params[static_cast<size_t>(s)]);
    // The most loaded GPU is the breakdown's.
    i64 most = 0;
    for (const TrainingStage& st : t.stages) most = std::max(most, st.peak_allocated_bytes);
    CHECK(t.peak_allocated_bytes == most);
    for (const Rank& rank : r.ranks) {
      INFO(rank.quoted);
      const auto [predicted, err] = fit(t.stages, rank);
      INFO("stage " << rank.stage << ": predicted " << predicted << " MiB, measured " << rank.max_allocated_mib << " MiB, error "
                    << 100 * err << "%");
      CHECK(std::fabs(err) <= 0.10);  // the issue's tolerance for a distributed recipe
      const bool last_of_several = r.pp > 1 && rank.stage == r.pp - 1;
      if (!last_of_several) {
        // Every stage without the loss, and the one-stage runs: within 1.2%.
        CHECK(std::fabs(err) <= 0.012);
        worst_inner = std::max(worst_inner, std::fabs(err));
      } else if (r.pp == 2) {
        // MISS, -8.0%: the last stage of a pipeline holds one micro-batch and the loss. The formula
        // counts the loss as Korthikanti §4.3's fp32 logits, 4·s·b·v/t; Megatron-LM's
        // gpt_model.py post_language_model_processing and core/tensor_parallel/cross_entropy.py
        // _VocabParallelCrossEntropy.forward hold the fp16 logits, their .float() copy and the
        // out-of-place `vocab_parallel_logits - logits_max` at once, 10·s·b·v/t. Counting them
        // overshoots by 3.0% here (3.7% at PP 4), so the last stage's moment is not traced further;
        // the one-stage runs above hold the same loss and are within 1.2%.
        CHECK(err == Approx(-0.080).margin(0.003));
      } else {
        CHECK(err == Approx(-0.097).margin(0.003));  // MISS, -9.7%: the same loss, PP 4, micro-batch 2
      }
    }
  }
  CHECK(worst_inner < 0.012);
}

TEST_CASE("formula recipe: every pipeline stage's peak, 1F1B's in-flight micro-batches from pp - s", "[training]") {
  const Run& r = kRuns[3];
  ModelConfig c = preset("gpt2-medium").config;
  c.vocab = r.vocab;
  Workload w = megatron_workload(r);
  const auto e = estimate(c, w);
  REQUIRE(e.ok());
  const TrainingMemory& t = e.value().training;
  REQUIRE(t.stages.size() == 4);
  i64 first = 0;
  for (const TrainingStage& st : t.stages) {
    CHECK(st.first_layer == first);
    CHECK(st.layers == 6);
    CHECK(st.inflight == 4 - st.stage);
    CHECK(st.total_bytes - st.peak_allocated_bytes == t.reserve_bytes);
    first += st.layers;
  }
  // Stages 1 and 2 hold the same layers and parameters: one micro-batch's activations apart.
  const i64 per_mb = t.stages[1].activation_bytes - t.stages[2].activation_bytes;
  CHECK(per_mb > 0);
  CHECK(t.stages[2].activation_bytes == 2 * per_mb);
  CHECK(t.stages[1].peak_allocated_bytes - t.stages[2].peak_allocated_bytes == per_mb);
  // The CLI's text lists each stage's total, in each language, with the same numbers.
  const std::string en = estimate_text(c, w, e.value(), ByteUnit::GB, Lang::En);
  const std::string zh = estimate_text(c, w, e.value(), ByteUnit::GB, Lang::Zh);
  CHECK(en.find("each pipeline stage's GPU (micro-batches in flight):") != std::string::npos);
  CHECK(en.find("stage 3, layers 18-23 (1)") != std::string::npos);
  CHECK(zh.find("第 3 级，第 18-23 层（1）") != std::string::npos);
  CHECK(en.find(format_bytes(t.stages[3].total_bytes, ByteUnit::GB)) != std::string::npos);
  // Fewer micro-batches than stages: no stage holds more than there are.
  w.grad_accum = 2;
  const auto few = estimate(c, w);
  REQUIRE(few.ok());
  for (const TrainingStage& st : few.value().training.stages) CHECK(st.inflight == std::min<i64>(2, 4 - st.stage));
  // A recipe's peak is one GPU's: no stages.
  Workload full = llmsize::test::with({{"mode", "training"}, {"recipe", "hf-peft"}, {"gpu", "a100-80gb"}, {"dtype", "bf16"},
                                       {"rc", "full"}, {"opt", "adamw"}, {"seq", "2048"}});
  full.precision = Precision::Pure;
  full.opt_state = StateDtype::BF16;
  const auto one = estimate(preset("mistral-7b").config, full);
  INFO(join(one.issues()));
  REQUIRE(one.ok());
  REQUIRE(one.value().training.recipe.has_value());
  CHECK(one.value().training.stages.empty());
}

// ---- The megatron recipe (training_recipe_megatron.cpp): the same four runs, Megatron-LM's code ----

namespace {

// The runs as the recipe takes them: GPT-2 Medium's own vocabulary (the recipe pads it as
// arguments.py does), the logged layout, fp16 mixed precision with an fp16 gradient buffer.
Workload megatron_recipe_workload(const Run& r) {
  Workload w = megatron_workload(r);
  w.recipe = Recipe::Megatron;
  return w;
}

// report_memory's "allocated:" of a rank, after the 100th step.
double allocated_mib(const Rank& rank) {
  const std::string q = rank.quoted;
  const size_t at = q.find("allocated: ");
  return std::stod(q.substr(at + 11));
}

}  // namespace

TEST_CASE("megatron recipe against Megatron-LM: GPT-345M on 4 GPUs, rank by rank, in four layouts", "[calibration][training]") {
  const ModelConfig c = preset("gpt2-medium").config;  // vocabulary 50257, padded by the recipe
  for (const Run& r : kRuns) {
    INFO(r.section);
    const auto e = estimate(c, megatron_recipe_workload(r));
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    const TrainingMemory& t = e.value().training;
    REQUIRE(t.recipe.has_value());
    const RecipePeak& p = *t.recipe;
    REQUIRE(p.stages.size() == static_cast<size_t>(r.pp));
    // Parameters on each rank, exact, from the padded vocabulary ("padded vocab (size: 50257) with
    // 47 dummy tokens (new size: 50304)"; 50432 at TP 2, 50688 at TP 4).
    for (i64 s = 0; s < r.pp; ++s) CHECK(p.stages[static_cast<size_t>(s)].params_gpu == r.params[static_cast<size_t>(s)]);
    CHECK(t.stages.size() == static_cast<size_t>(r.pp > 1 ? r.pp : 0));
    for (const Rank& rank : r.ranks) {
      INFO(rank.quoted);
      const auto [predicted, err] = fit(p.stages, rank);
      INFO("stage " << rank.stage << ": predicted " << predicted << " MiB, measured " << rank.max_allocated_mib << " MiB, short by "
                    << rank.max_allocated_mib - predicted << " MiB, error " << 100 * err << "%");
      CHECK(std::fabs(err) <= 0.10);  // the issue's tolerance for a distributed recipe
      const bool loss = rank.stage == r.pp - 1;
      if (loss && r.tp < 4) {
        // The loss's moment (one micro-batch's layers, the final norm, the fp16 logits, their fp32
        // copy and logits − max): within 0.35% on DP 4, TP 2 × PP 2 and PP 4.
        CHECK(std::fabs(err) <= 0.0035);
      } else if (loss) {
        // MISS, -1.3% to -2.0% (TP 4 with sequence parallelism, 40-62 MiB): 29-52 MiB of it is
        // already allocated between steps, rank-dependent (ranks 2 and 3 hold 22 MiB more than 0
        // and 1, the same parameters); see the next test. About 11 MiB more at the peak, not traced.
        CHECK(err == Approx(rank.max_allocated_mib < 3062 ? -0.0132 : rank.max_allocated_mib < 3070 ? -0.0152 : -0.0201).margin(0.0006));
      } else {
        // MISS, -1.4% to -2.8% (108-120 MiB in both pipelines): the stages without the loss peak in
        // the newest micro-batch's forward at its last layer's attention, where the recipe counts
        // the raw scores (b·a/t·s² · 2 bytes, 64 MiB here) beside the layer's saved tensors so far.
        // The measured peaks sit a near-constant 108-120 MiB above the recipe's, whatever the
        // micro-batches in flight (4, 3, 2 at PP 4): one moment's transient, not a per-layer
        // tensor; tracing CoreAttention's forward and backward (legacy, fused softmax in place)
        // finds none that large. One lead examined and set aside: fused_bias_gelu.py bias_gelu_back
        // run by TorchScript without a fuser keeps six [s, b, f/tp] temporaries at once (96 MiB
        // here), but the runs' container (NGC PyTorch 23.04, the source's README) still fused
        // TorchScript with nvFuser, and its unfused profiling calls fall in the first iterations,
        // which the loss scaler skipped before Adam's states existed. Not traced; the gap is
        // stated here, not widened into the tolerance.
        const double gap = rank.max_allocated_mib - predicted;
        CHECK(gap > 105);
        CHECK(gap < 122);
        CHECK(err < -0.013);
        CHECK(err > -0.029);
      }
    }
  }
}

TEST_CASE("megatron recipe: what report_memory says is allocated between steps, 20 bytes a parameter with fp16", "[calibration][training]") {
  // Float16OptimizerWithFloat16Params: the fp16 parameter, its fp16 main_grad, the fp32 master, Adam's
  // two states, and the fp32 .grad _copy_model_grads_to_main_grads makes, alive until the next
  // zero_grad; and the "mpu" buffer and two cuBLAS workspaces. On the most loaded rank of each run.
  const ModelConfig c = preset("gpt2-medium").config;
  struct Expect {
    size_t run, rank;  // kRuns[run].ranks[rank]
    double miss_mib;   // measured − predicted, stated
  } const cases[] = {
      {0, 0, 0.01},   // DP 4: 354,871,296 × 20 + 32 MiB + 2 × 8.125 MiB
      {3, 1, 0.0},    // PP 4 stage 0: 128,137,216 × 20 + 64 MiB + 16.25 MiB
      {1, 3, 5.28},   // TP 2 × PP 2 stage 0: MISS, 5.28 MiB not traced
      {2, 0, 29.26},  // TP 4 rank 0: MISS, 29.26 MiB not traced (ranks 2 and 3: 22 MiB more)
  };
  for (const Expect& x : cases) {
    const Run& r = kRuns[x.run];
    const Rank& rank = r.ranks[x.rank];
    INFO(rank.quoted);
    const auto e = estimate(c, megatron_recipe_workload(r));
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    REQUIRE(p.peak_stage() != nullptr);
    const double predicted = static_cast<double>(p.peak_stage()->after_step_bytes) / (1 << 20);
    INFO("predicted " << predicted << " MiB");
    CHECK(allocated_mib(rank) - predicted == Approx(x.miss_mib).margin(0.02));
    CHECK(p.peak_stage()->after_step_bytes == p.stages[static_cast<size_t>(rank.stage)].params_gpu * 20 + p.fixed_bytes);
  }
  // bf16: the gradient buffer is fp32 (accumulate_allreduce_grads_in_fp32, forced), and
  // main_grad.float() is that buffer: 18 bytes a parameter at the peak and between steps alike.
  Workload w = megatron_recipe_workload(kRuns[0]);
  w.dtype = ComputeDtype::BF16;
  const auto bf = estimate(c, w);
  REQUIRE(bf.ok());
  const RecipePeak& p = *bf.value().training.recipe;
  CHECK(p.gradient_bytes == p.trainable_params * 4);
  CHECK(p.peak_stage()->after_step_bytes == p.trainable_params * 18 + p.fixed_bytes);
}

TEST_CASE("megatron recipe, --zero 1: the distributed optimizer's bytes a parameter, as its documentation gives them", "[calibration][training]") {
  // NVIDIA/Megatron-LM docs/distrib_optimizer.md at 040eac94, the commit the recipe follows ("the
  // theoretical number of bytes per parameter is (where 'd' is the data parallel size)"):
  //   | float16 param, float16 grads | 20 | 4 + 16/d |
  //   | float16 param, fp32 grads    | 18 | 6 + 12/d |
  // What report_memory prints as "allocated:" between steps holds exactly these (the grad buffer
  // at rest, the fp32 main grads of the shard alive until the next zero_grad) beside the fixed
  // buffers; the table leaves out the buffer's padding to a multiple of d.
  const ModelConfig c = preset("gpt2-medium").config;
  const Run& dp4 = kRuns[0];  // 354,871,296 parameters, d = 4
  Workload w = megatron_recipe_workload(dp4);
  w.sharding = Sharding::Zero1;
  const i64 P = dp4.params[0];
  REQUIRE(P % 4 == 0);
  for (const ComputeDtype dtype : {ComputeDtype::F16, ComputeDtype::BF16}) {
    w.dtype = dtype;
    const auto e = estimate(c, w);
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    CHECK(p.version.find("--use-distributed-optimizer") != std::string::npos);
    const i64 per_param_x4 = dtype == ComputeDtype::F16 ? 4 * 4 + 16 : 6 * 4 + 12;  // (4 + 16/4) · 4, (6 + 12/4) · 4
    CHECK(p.stages[0].after_step_bytes * 4 == P * per_param_x4 + p.fixed_bytes * 4);
    CHECK(p.master_bytes == P / 4 * 4);
    CHECK(p.optimizer_bytes == P / 4 * 8);
    // The forward's and backward's tensors are those of the replicated optimizer: the peak falls
    // by the 12 bytes a parameter the other three ranks now hold.
    Workload rep = w;
    rep.sharding = Sharding::None;
    const auto r = estimate(c, rep);
    REQUIRE(r.ok());
    const RecipePeak& q = *r.value().training.recipe;
    CHECK(q.phase == p.phase);
    CHECK(q.peak_allocated_bytes - p.peak_allocated_bytes == 12 * (P - P / 4));
  }
  // Seven ranks: 354,871,296 = 7 · 50,695,899 + 3, so the buffer is padded by 4 elements and
  // data-parallel rank 0 owns the first 50,695,900 of it.
  w.dtype = ComputeDtype::F16;
  w.gpus = 7;
  const auto e7 = estimate(c, w);
  INFO(join(e7.issues()));
  REQUIRE(e7.ok());
  const RecipePeak& p7 = *e7.value().training.recipe;
  REQUIRE(P % 7 == 3);
  const i64 S = P / 7 + 1;
  CHECK(p7.stages[0].after_step_bytes == P * 2 + (P + 4) * 2 + S * 16 + p7.fixed_bytes);
  // A short sequence: the step's fp32 main grads outweigh a micro-batch's tensors, so the peak
  // is the step; with bf16 (an fp32 buffer, main_grad.float() is a view) it never is.
  w.seq = 64;
  const auto step = estimate(c, w);
  REQUIRE(step.ok());
  const RecipePeak& ps = *step.value().training.recipe;
  CHECK(ps.phase == RecipePhase::MegatronStep);
  CHECK(ps.peak_allocated_bytes == ps.stages[0].after_step_bytes);
  CHECK(ps.saved_bytes == 0);
  CHECK(ps.gradient_bytes == (P + 4) * 2 + S * 4);
  w.dtype = ComputeDtype::BF16;
  const auto bf = estimate(c, w);
  REQUIRE(bf.ok());
  CHECK(bf.value().training.recipe->phase != RecipePhase::MegatronStep);
}

TEST_CASE("megatron recipe, --recompute selective: the checkpointed core attention as the code runs it (no published run)", "[training]") {
  // --recompute-granularity selective (--recompute-activations) at 040eac94: CoreAttention runs
  // under CheckpointFunction, which keeps q, k, v (views of the QKV output every layer keeps) and
  // the micro-batch's [1, 1, s, s] bool attention mask, and reruns it in backward. No published
  // report_memory of such a run was found: what is checked here is the arithmetic of the model
  // against the tensors the four calibrated layouts above already pin (the none runs).
  const ModelConfig c = preset("gpt2-medium").config;
  int rerun_peaks = 0;
  for (const Run& r : kRuns) {
    INFO(r.section);
    Workload none = megatron_recipe_workload(r), sel = none;
    sel.recompute = Recompute::Selective;
    const auto en = estimate(c, none), es = estimate(c, sel);
    REQUIRE(en.ok());
    REQUIRE(es.ok());
    const RecipePeak &pn = *en.value().training.recipe, &ps = *es.value().training.recipe;
    const i64 s = 1024, b = r.batch, t = r.tp, a = 16, h = 1024, layers = 24 / r.pp;
    const i64 U = b * (a / t) * s * s;  // elements of one layer's scores on this rank
    // Korthikanti et al. 2022 §5: selective recomputation drops the softmax output, the dropout
    // mask and the dropout output, 5·as²b/t bytes a layer at 16 bits, and nothing else.
    ActParams ap{s, b, 2, t, 1, r.seq_parallel, false, true, Recompute::None, 0, 0};
    const auto ln = layer_activations(c, ap, false);
    ap.recompute = Recompute::Selective;
    const auto ls = layer_activations(c, ap, false);
    REQUIRE(ln.ok());
    REQUIRE(ls.ok());
    CHECK(ln.value().total - ls.value().total == 5 * U);
    REQUIRE(ps.stages.size() == pn.stages.size());
    for (size_t i = 0; i < ps.stages.size(); ++i) {
      INFO("stage " << i);
      // The states and report_memory's "allocated:" between steps do not move; every peak falls.
      CHECK(ps.stages[i].after_step_bytes == pn.stages[i].after_step_bytes);
      CHECK(ps.stages[i].peak_allocated_bytes < pn.stages[i].peak_allocated_bytes);
    }
    // The moment: the rerun core attention's backward, where the probabilities' gradient is
    // written (softmax output 2, dropout mask 1, the dropout output's gradient 2 and the
    // probabilities' 2 bytes an element), with the context's gradient, the rerun's context and
    // the residual stream's gradient; and one attention mask a micro-batch in flight.
    const i64 sp_div = r.seq_parallel ? t : 1;
    i64 rerun = 0, masks = 0;
    for (const RecipePart& part : ps.parts) {
      if (part.label == Str::recipe_part_mg_recompute) rerun = part.bytes;
      if (part.label == Str::recipe_part_mg_mask) masks = part.bytes;
    }
    if (ps.phase == RecipePhase::MegatronRecompute) {
      ++rerun_peaks;
      CHECK(rerun == 7 * U + 2 * (s * b * (h / t) * 2) + (s / sp_div) * b * h * 2);
      CHECK(masks == ps.peak_stage()->inflight * s * s);
    }
    // Two stages with the same layers and parameters (PP 4's middle ones) peak one micro-batch
    // apart, as without recomputation: that micro-batch is 5·U bytes a layer lighter, plus its mask.
    if (r.pp == 4) {
      const i64 dn = pn.stages[1].peak_allocated_bytes - pn.stages[2].peak_allocated_bytes;
      const i64 ds = ps.stages[1].peak_allocated_bytes - ps.stages[2].peak_allocated_bytes;
      CHECK(dn - ds == layers * 5 * U - s * s);
    }
  }
  CHECK(rerun_peaks == 2);  // TP 2 × PP 2 and PP 4; TP 4's one stage peaks in the loss
  // Where the rerun outweighs the forward of one micro-batch: the DP 4 run (one micro-batch of 1)
  // peaks in the optimizer's step instead, the fp32 main grads beside the states.
  Workload dp4 = megatron_recipe_workload(kRuns[0]);
  dp4.recompute = Recompute::Selective;
  const auto e = estimate(c, dp4);
  REQUIRE(e.ok());
  CHECK(e.value().training.recipe->phase == RecipePhase::MegatronStep);
  CHECK(e.value().training.recipe->version.find("--recompute-granularity selective") != std::string::npos);
}

TEST_CASE("megatron recipe, --recompute full: one layer a checkpoint, the last one rerun whole (no published run)", "[training]") {
  // --recompute-granularity full --recompute-method uniform (one layer a checkpoint) at 040eac94:
  // each micro-batch keeps every layer's input and its attention mask; the first backward reruns
  // the stage's last layer with grad. PP 4's layout with a 4,096-token vocabulary (so that the
  // loss does not set the peak), and its wide-MLP twin at 256 tokens, 16 a micro-batch, in bf16.
  ModelConfig c = preset("gpt2-medium").config;
  c.vocab = 4096;
  const Run& r = kRuns[3];
  Workload w = megatron_recipe_workload(r);
  w.recompute = Recompute::Full;
  const i64 s = 1024, b = r.batch, h = 1024, layers = 6;
  auto acts = [&](const ModelConfig& m, i64 seq, i64 batch, Recompute rc) {
    const auto la = layer_activations(m, ActParams{seq, batch, 2, 1, 1, false, false, true, rc, 0, 0}, false);
    REQUIRE(la.ok());
    return la.value();
  };
  auto rerun_part = [](const RecipePeak& p) {
    for (const RecipePart& part : p.parts)
      if (part.label == Str::recipe_part_mg_rerun) return part.bytes;
    return i64{0};
  };
  {
    const auto e = estimate(c, w);
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    CHECK(p.phase == RecipePhase::MegatronRerun);
    CHECK(p.peak_stage()->stage == 0);
    const LayerActivations none = acts(c, s, b, Recompute::None), full = acts(c, s, b, Recompute::Full);
    CHECK(full.total == s * b * h * 2);  // the layer's input alone
    // Stages 1 and 2 (the same layers and parameters) peak one micro-batch apart: six inputs and a mask.
    CHECK(p.stages[1].peak_allocated_bytes - p.stages[2].peak_allocated_bytes == layers * full.total + s * s);
    // At the rerun core attention's dropout backward: the QKV input and output, softmax output,
    // dropout mask and the two gradients (7 bytes an element of b·heads·s²), the context's
    // gradient, and the layer output's gradient, the residual's and `outputs`.
    const i64 U = b * 16 * s * s;
    CHECK(rerun_part(p) == none.attn_input + none.qk + none.v + 7 * U + s * b * h * 2 + 3 * (s * b * h * 2));
    // Everything the stage keeps besides: four micro-batches' inputs and masks (and the embedding's
    // extras on stage 0) beside the states; full recomputation never exceeds selective.
    Workload sel = w;
    sel.recompute = Recompute::Selective;
    const auto es = estimate(c, sel);
    REQUIRE(es.ok());
    CHECK(p.peak_allocated_bytes < es.value().training.recipe->peak_allocated_bytes);
    CHECK(p.version.find("--recompute-granularity full (uniform, 1 layer)") != std::string::npos);
  }
  {
    ModelConfig wide = c;
    wide.d_ff = 16384;
    Workload ws = w;
    ws.seq = 256;
    ws.batch = 16;
    ws.dtype = ComputeDtype::BF16;  // fp32 gradients: the step adds no main grads, any moment of a micro-batch is above it
    const auto e = estimate(wide, ws);
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    CHECK(p.phase == RecipePhase::MegatronRerun);
    // At the rerun layer's GeLU: its tensors without recomputation less its input, `outputs`, and
    // the first backward's MLP gradients (the layer output's gradient, the GeLU's two, less fc2's
    // input and the dropout mask, freed).
    const LayerActivations none = acts(wide, 256, 16, Recompute::None);
    const i64 sbh = 256 * 16 * h, sbf = 256 * 16 * 16384;
    CHECK(rerun_part(p) == (none.total - sbh * 2) + sbh * 2 + sbh + sbf * 2);
  }
}

TEST_CASE("megatron recipe: the moment moves with the shapes, and every part's text in each language", "[training][lang]") {
  const std::set<std::string> no_words = {
      "model/module.py Float16Module",
      "model/distributed.py DistributedDataParallel (use_contiguous_buffers)",
      "optimizer/optimizer.py Float16OptimizerWithFloat16Params",
      "apex FusedAdam (exp_avg, exp_avg_sq)",
      "model/transformer.py ParallelTransformer final_layernorm; language_model.py parallel_lm_logits",
      "model/gpt_model.py post_language_model_processing; core/tensor_parallel/cross_entropy.py _VocabParallelCrossEntropy.forward",
      "model/transformer.py CoreAttention.forward",
      "model/fused_bias_gelu.py GeLUFunction.backward",
      "optimizer/optimizer.py Float16OptimizerWithFloat16Params._copy_model_grads_to_main_grads",
      "model/distributed.py DistributedDataParallel (use_contiguous_buffers, padded for the distributed optimizer)",
      "optimizer/distrib_optimizer.py DistributedOptimizer build_model_and_main_param_groups",
      "optimizer/distrib_optimizer.py DistributedOptimizer _copy_model_grads_to_main_grads",
      "core/tensor_parallel/random.py CheckpointFunction.backward; model/transformer.py CoreAttention.forward; "
      "torch autograd (BmmBackward0, NativeDropoutBackward0); model/fused_softmax.py ScaledUpperTriangMaskedSoftmax",
      "pretrain_gpt.py get_batch; megatron/utils.py get_ltor_masks_and_position_ids; core/tensor_parallel/random.py CheckpointFunction",
      "model/transformer.py ParallelTransformer._checkpointed_forward; core/tensor_parallel/random.py CheckpointFunction",
      "core/tensor_parallel/random.py CheckpointFunction.backward; model/transformer.py ParallelTransformerLayer, CoreAttention; "
      "torch autograd",
  };
  std::set<std::string> seen;
  std::set<RecipePhase> phases;
  const ModelConfig gpt2 = preset("gpt2-medium").config;
  ModelConfig wide = gpt2;  // a short sequence under a wide MLP: the first backward's GeLU is the moment
  wide.d_ff = 16384;         // (the step's fp32 main grads where a stage holds the whole model)
  // With a small vocabulary the loss gives way to full recomputation's rerun layer: at its core
  // attention for GPT-2's shape, at its GeLU for the wide one.
  ModelConfig small = gpt2, wide_small = wide;
  small.vocab = wide_small.vocab = 4096;
  for (const ModelConfig* c : std::initializer_list<const ModelConfig*>{&gpt2, &wide, &small, &wide_small})
    for (const Run& r : kRuns)
      for (const Sharding zero : {Sharding::None, Sharding::Zero1})
        for (const Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
          Workload w = megatron_recipe_workload(r);
          w.sharding = zero;
          w.recompute = rc;
          if (c == &wide || c == &wide_small) w.seq = 256;
          const auto e = estimate(*c, w);
          INFO(join(e.issues()));
          REQUIRE(e.ok());
          const RecipePeak& p = *e.value().training.recipe;
          phases.insert(p.phase);
          i64 sum = 0;
          for (const RecipePart& part : p.parts) {
            llmsize::test::check_part_languages(part, no_words, seen);
            sum += part.bytes;
          }
          CHECK(sum == p.peak_allocated_bytes);
          CHECK(p.peak_allocated_bytes == p.weights_bytes + p.gradient_bytes + p.master_bytes + p.optimizer_bytes + p.saved_bytes +
                                              p.head_bytes + p.fixed_bytes);
          llmsize::test::check_recipe_text(*c, w, e.value(), "megatron");
        }
  CHECK(phases == std::set<RecipePhase>{RecipePhase::MegatronLoss, RecipePhase::AttentionForward, RecipePhase::MlpBackward,
                                        RecipePhase::MegatronStep, RecipePhase::MegatronRecompute, RecipePhase::MegatronRerun});
  llmsize::test::check_no_words_seen(no_words, seen);
}

TEST_CASE("megatron recipe: what Megatron-LM's legacy GPT path does not do is refused, named", "[training]") {
  const ModelConfig gpt2 = preset("gpt2-medium").config;
  const Workload base = megatron_recipe_workload(kRuns[3]);
  llmsize::test::check_refusals(gpt2, base, {
      {"a Llama layer", [](ModelConfig& c, Workload&) { c = preset("llama-2-7b").config; }, "legacy GPT layer"},
      {"flash attention", [](ModelConfig&, Workload& w) { w.flash_attention = true; }, "--use-flash-attn"},
      {"ZeRO 2", [](ModelConfig&, Workload& w) { w.sharding = Sharding::Zero2; }, "--zero 2, 3, fsdp"},
      {"FSDP", [](ModelConfig&, Workload& w) { w.sharding = Sharding::Fsdp; }, "--use-distributed-optimizer"},
      {"no dropout", [](ModelConfig&, Workload& w) { w.dropout = false; }, "dropout 0.1"},
      {"bf16 gradients", [](ModelConfig&, Workload& w) { w.dtype = ComputeDtype::BF16; w.grad_dtype = GradDtype::BF16; },
       "accumulate_allreduce_grads_in_fp32"},
      {"a sequence past the fused softmax", [](ModelConfig& c, Workload& w) { c.max_positions = 8192; w.seq = 8192; }, "4096"},
      {"a sequence past the learned positions", [](ModelConfig&, Workload& w) { w.seq = 2048; }, "1024 rows"},
      {"no bias on the attention's output alone", [](ModelConfig& c, Workload&) { c.bias_o = false; }, "or on none"},
      {"5 stages for 24 layers", [](ModelConfig&, Workload& w) { w.pp = 5; w.gpus = 5; }, "24 layers"},
      {"LoRA", [](ModelConfig&, Workload& w) { w.lora_rank = 8; }, "every weight"},
      {"pure bf16", [](ModelConfig&, Workload& w) { w.precision = Precision::Pure; }, "--precision mixed"},
      {"SGD", [](ModelConfig&, Workload& w) { w.optimizer = Optimizer::Sgd; }, "FusedAdam"},
      {"an FFN width tp does not divide", [](ModelConfig& c, Workload& w) { c.d_ff = 4098; w.tp = 4; w.pp = 1; }, "4098"},
      {"a sequence tp does not divide", [](ModelConfig&, Workload& w) { w.tp = 4; w.pp = 1; w.seq_parallel = true; w.seq = 1022; }, "1022"},
  });
}

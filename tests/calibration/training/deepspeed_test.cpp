// Calibration of the deepspeed training recipe (issue 15) against the log DeepSpeed-Chat published
// for its step-1 supervised fine-tuning of OPT-1.3b: microsoft/DeepSpeedExamples 3a77097a
// ("Zheweiyao/fixing training acc (#346)", 2023-04-21), applications/DeepSpeed-Chat/training/
// step1_supervised_finetuning/training_log_output/opt-1.3b-globalBatchSize128.log. Its first line:
//   "cmd = deepspeed main.py --data_path Dahoas/rm-static Dahoas/full-hh-rlhf
//   Dahoas/synthetic-instruct-gptj-pairwise yitingxie/rlhf-reward-datasets --data_split 2,4,4
//   --model_name_or_path facebook/opt-1.3b --per_device_train_batch_size 8
//   --per_device_eval_batch_size 8 --max_seq_len 512 --learning_rate 9.65e-6 --weight_decay 0.
//   --num_train_epochs 16 --gradient_accumulation_steps 1 --lr_scheduler_type cosine
//   --num_warmup_steps 0 --seed 1234 --zero_stage 2 --deepspeed --output_dir
//   ./output_fourDatasets_reproduce_withDropout"
// and every ten steps (rank 0, DeepSpeed 0.9.0 engine.step → ThroughputTimer.stop, after the
// optimizer's step; GB there is memory_allocated() / 1024**3, rounded to two places):
//   "[2023-04-18 01:46:59,171] [INFO] [timer.py:199:stop] epoch=0/micro_step=10/global_step=10,
//   RunningAvgSamplesPerSec=173.4455644119137, CurrSamplesPerSec=171.97903593624417,
//   MemAllocated=3.96GB, MaxMemAllocated=22.95GB"
// (the same two figures on every such line of the file). The global batch of 128 is 8 a GPU × 16
// data-parallel GPUs × 1 step of accumulation; the training_scripts README of that commit runs
// the 1.3b model on 16 V100-32GB. The batches are padded to --max_seq_len (data_utils.py
// padding="max_length"), so every micro-batch is 8 × 512 tokens. Dropout is on (the output
// directory's "withDropout"; no --disable_dropout). DeepSpeed ">=0.9.0" (the requirements of that
// commit; 0.9.0 was the release of the week), transformers from main (4.29.0.dev0).
//
// Model: facebook/opt-1.3b's config.json (calibration/configs/opt-1.3b.json).
#include <cmath>
#include <set>

#include "core/estimate.hpp"
#include "core/report.hpp"
#include "core/training_recipe.hpp"
#include "recipe_lang.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::import_file;
using llmsize::test::preset;
using llmsize::test::check_recipe_sums;
using llmsize::test::recipe_peak_of;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Workload ds_chat_workload(i64 gpus = 16, i64 batch = 8, i64 seq = 512) {
  Workload w = llmsize::test::with({{"mode", "training"}, {"recipe", "deepspeed"}, {"gpu", "v100-32gb"}, {"dtype", "fp16"},
                                    {"prec", "mixed"}, {"ostate", "fp32"}, {"opt", "adamw"}, {"zero", "2"}, {"flash", "0"},
                                    {"dropout", "1"}});
  w.gpus = gpus;
  w.batch = batch;
  w.seq = seq;
  return w;
}

ModelConfig opt13() { return import_file("calibration/configs/opt-1.3b.json"); }

}  // namespace

TEST_CASE("deepspeed recipe: DeepSpeed-Chat's OPT-1.3b log, MaxMemAllocated and MemAllocated", "[training][calibration]") {
  const ModelConfig c = opt13();
  const RecipePeak p = recipe_peak_of(estimate(c, ds_chat_workload()));
  check_recipe_sums(p);
  CHECK(p.phase == RecipePhase::DeepSpeedLoss);
  CHECK(p.trainable_params == 1315758080);
  REQUIRE(p.stages.size() == 1);

  // The arithmetic the peak rests on. Group 0 (every weight, the LayerNorms' too: their names are
  // "…layer_norm.weight") holds all but the 542,720 biases; both flat buffers are multiples of
  // 2 × 16, so the partitions are exact sixteenths. Rank 0's gradient partition is all of
  // embed_tokens (102,957,056 > the 82,200,960 of its partition) and the first 34,816 biases'
  // parameters: not needed at this moment, which falls before any bucket is reduced.
  const i64 U = 8 * 512 * 2048, A = 8LL * 32 * 512 * 512, N1 = 8 * 511;
  CHECK(p.weights_bytes == 1315758080LL * 2);
  CHECK(p.master_bytes == (82200960LL + 33920) * 4);
  CHECK(p.optimizer_bytes == (82200960LL + 33920) * 8 + 512);
  const i64 layer = 26 * U + 8 * A + 4 * (8 * 512 * 4) + 512;
  const i64 loss = 3 * (N1 * 50272LL * 2) + allocator_round(N1 * 8) + 512;  // the shifted labels' 32,704 B take 33,280
  const i64 logits = 8 * 512 * 50272LL * 2 + 512;
  CHECK(p.peak_allocated_bytes == p.weights_bytes + p.master_bytes + p.optimizer_bytes + p.fixed_bytes + 3 * (8 * 512 * 8) + logits +
                                      1000000000 + 24 * layer + (2 * U + 2 * 8 * 512 * 4 + 2 * U) + 8 * 512 * 8 + loss);
  CHECK(p.stages[0].after_step_bytes == p.weights_bytes + p.master_bytes + p.optimizer_bytes + p.fixed_bytes + 3 * (8 * 512 * 8) + logits);

  // The log's figures, GiB to two places: 22.95 is [22.945, 22.955), 3.96 is [3.955, 3.965).
  const double peak = static_cast<double>(p.peak_allocated_bytes) / kGiB;
  const double after = static_cast<double>(p.stages[0].after_step_bytes) / kGiB;
  INFO("peak " << peak << " GiB, after the step " << after << " GiB");
  CHECK(std::abs(peak - 22.95) / 22.95 < 0.10);  // a distributed recipe: within 10% (it is within 0.9%)
  // MISS, stated: both figures are short by the same 0.186–0.198 GiB, the measured ranges less the
  // predictions — an allocation alive between steps and through the whole step, about 206 MB,
  // which is not traced. Its size is that of the tied embedding's fp16 gradient (205,914,112 B)
  // or of rank 0's grads_in_partition (205,983,744 B), both of which DeepSpeed 0.9.0's step
  // (and its overflow path) releases as read; it is kept out of the model rather than added as
  // an unexplained term. So MemAllocated is 4.8% under (3.77 GiB against 3.96), and the peak 0.8%.
  const double gap_lo_peak = 22.945 - peak, gap_hi_peak = 22.955 - peak;
  const double gap_lo_after = 3.955 - after, gap_hi_after = 3.965 - after;
  CHECK(gap_lo_peak > 0.18);
  CHECK(gap_hi_peak < 0.20);
  CHECK(gap_lo_after > 0.18);
  CHECK(gap_hi_after < 0.20);
  CHECK(std::max(gap_lo_peak, gap_lo_after) < std::min(gap_hi_peak, gap_hi_after));  // one size fits both gaps
}

TEST_CASE("deepspeed recipe: dropout, data parallelism and the shapes move the right tensors", "[training]") {
  const ModelConfig c = opt13();
  const RecipePeak on = recipe_peak_of(estimate(c, ds_chat_workload()));
  Workload w = ds_chat_workload();
  w.dropout = false;  // DeepSpeed-Chat's --disable_dropout: F.dropout(p=0) returns its input, no mask
  const RecipePeak off = recipe_peak_of(estimate(c, w));
  CHECK(on.peak_allocated_bytes - off.peak_allocated_bytes == 24 * 2 * (8 * 512 * 2048LL));
  CHECK(on.stages[0].after_step_bytes == off.stages[0].after_step_bytes);

  // Eight GPUs: twice the master partition and Adam's states; the same fp16 buffers.
  const RecipePeak eight = recipe_peak_of(estimate(c, ds_chat_workload(8)));
  CHECK(eight.weights_bytes == on.weights_bytes);
  CHECK(eight.master_bytes == (1315215360LL / 8 + 542720 / 8) * 4);
  CHECK(eight.peak_allocated_bytes - on.peak_allocated_bytes == (eight.master_bytes - on.master_bytes) * 3);

  // One GPU, one short sequence: the step holds the most — the whole gradient in fp16 and the
  // fp32 copy of group 0 (several pieces: with its fp16 flat copy).
  const RecipePeak one = recipe_peak_of(estimate(c, ds_chat_workload(1, 1, 128)));
  check_recipe_sums(one);
  CHECK(one.phase == RecipePhase::DeepSpeedStep);
  CHECK(one.gradient_bytes == 1315758080LL * 2 + 1315215360LL * 6);

  // A long sequence with few tokens: the last layer's softmax backward (fp32 scores) passes the loss.
  const RecipePeak longer = recipe_peak_of(estimate(c, ds_chat_workload(16, 1, 2048)));
  check_recipe_sums(longer);
  CHECK(longer.phase == RecipePhase::DeepSpeedLayer);

  // ZeRO-1 (--zero_stage 1): no gradient hooks, so the same loss moment for the log's run; with few
  // tokens, the end of backward holds every gradient as AccumulateGrad made it (all multiples of
  // 512 bytes here), the tied one twice, and the bucket.
  Workload z1 = ds_chat_workload();
  z1.sharding = Sharding::Zero1;
  CHECK(recipe_peak_of(estimate(c, z1)).peak_allocated_bytes == on.peak_allocated_bytes);
  z1 = ds_chat_workload(16, 1, 128);
  z1.sharding = Sharding::Zero1;
  const RecipePeak end = recipe_peak_of(estimate(c, z1));
  check_recipe_sums(end);
  CHECK(end.phase == RecipePhase::DeepSpeedEmbedding);
  const i64 Vh = 50272LL * 2048;
  CHECK(end.gradient_bytes == 1000000000 + 2 * (1315758080LL - Vh) + 2 * (2 * Vh));

  // A small vocabulary over 64 GPUs with few tokens: the step's all_gather of the updated fp16
  // partitions, its flat output dp × shard. Group 0 holds 1,229,035,520 parameters, 19,203,680 a
  // rank; 19,203,680 × 64 // 5e8 = 2 shards of 9,601,840.
  ModelConfig sv = c;
  sv.vocab = 8192;
  const RecipePeak gather = recipe_peak_of(estimate(sv, ds_chat_workload(64, 1, 64)));
  check_recipe_sums(gather);
  CHECK(gather.phase == RecipePhase::DeepSpeedGather);
  CHECK(gather.gradient_bytes == 2LL * 64 * 9601840);
  CHECK(gather.peak_allocated_bytes == gather.stages[0].after_step_bytes + 2LL * 64 * 9601840);

  // --gradient_checkpointing (--recompute full): the loss's moment keeps each layer's input and the
  // one 4-D mask instead of the layers' tensors.
  w = ds_chat_workload();
  w.recompute = Recompute::Full;
  const RecipePeak ck = recipe_peak_of(estimate(c, w));
  check_recipe_sums(ck);
  CHECK(ck.phase == RecipePhase::DeepSpeedLoss);
  const i64 U = 8 * 512 * 2048, A = 8LL * 32 * 512 * 512;
  const i64 layer = 26 * U + 8 * A + 4 * (8 * 512 * 4) + 512;
  CHECK(on.peak_allocated_bytes - ck.peak_allocated_bytes == 24 * (layer - 2 * U) - 8 * 512 * 512 * 2);
  CHECK(ck.stages[0].after_step_bytes == on.stages[0].after_step_bytes);
  // One long sequence: the last layer rerun by its checkpoint, at its softmax's backward — its
  // tensors down to the attention but its input (shared with the checkpoint's), and its output.
  Workload wl = ds_chat_workload(16, 1, 2048);
  wl.recompute = Recompute::Full;
  const RecipePeak rerun = recipe_peak_of(estimate(c, wl));
  check_recipe_sums(rerun);
  CHECK(rerun.phase == RecipePhase::DeepSpeedLayer);
  const i64 Ul = 2048 * 2048, Al = 32LL * 2048 * 2048;
  const auto part = std::find_if(rerun.parts.begin(), rerun.parts.end(), [](const RecipePart& x) { return x.label == Str::recipe_part_layer; });
  REQUIRE(part != rerun.parts.end());
  CHECK(part->bytes == 2 * (2048 * 4) + 4 * (2 * Ul) + 2 * Al + 512 + 4 * Al + 2 * Ul);
}

TEST_CASE("deepspeed recipe: every moment's parts in each language", "[training][lang]") {
  const std::set<std::string> no_words = {
      "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py __init__ (bit16_groups_flat)",
      "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py __init__ (single_partition_of_fp32_groups)",
      "DeepSpeed 0.9.0 ops/adam/fused_adam.py FusedAdam.step",
      "DeepSpeed-Chat main.py (batch), utils/data/data_utils.py; transformers 4.29.0.dev0 models/opt/modeling_opt.py "
      "OPTLearnedPositionalEmbedding",
      "DeepSpeed-Chat main.py (outputs); transformers 4.29.0.dev0 models/opt/modeling_opt.py",
      "ATen CublasHandlePool.cpp getNewWorkspace",
      "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py backward (ipg_buffer)",
      "transformers 4.29.0.dev0 models/opt/modeling_opt.py OPTAttention, OPTDecoderLayer",
      "transformers 4.29.0.dev0 models/opt/modeling_opt.py OPTDecoder",
      "torch cross_entropy: log_softmax, nll_loss; NllLossBackward0, LogSoftmaxBackward0",
      "torch autograd: ThresholdBackward0, ToCopyBackward0, SoftmaxBackward0",
      "torch autograd InputBuffer (AccumulateGrad)",
      "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py copy_grads_in_partition",
      "torch aten/src/ATen/native/cuda/Embedding.cu embedding_dense_backward_cuda",
      "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py step, get_grad_norm_direct",
      "transformers 4.29.0.dev0 models/opt/modeling_opt.py OPTDecoder (gradient_checkpointing); torch utils/checkpoint.py CheckpointFunction",
      "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py __init__ (no gradient hooks for ZeRO-1), reduce_gradients",
      "DeepSpeed 0.9.0 runtime/utils.py all_gather_dp_groups; torch ProcessGroupNCCL::allgather (flatten_for_scatter_gather)",
  };
  std::set<std::string> seen;
  std::set<RecipePhase> phases;
  ModelConfig c = opt13();
  ModelConfig small_vocab = c;  // few tokens of a small vocabulary over 64 GPUs: the step's all_gather
  small_vocab.vocab = 8192;
  ModelConfig opt67 = c;  // OPT-6.7b's shape: ZeRO-1 over 8 GPUs reduces its first bucket at the peak
  opt67.d_model = 4096;
  opt67.head_dim = 128;
  opt67.n_layers = 32;
  opt67.d_ff = 16384;
  struct Case {
    const ModelConfig* cfg;
    i64 gpus, batch, seq;
    bool dropout;
    bool ckpt = false;
    Sharding zero = Sharding::Zero2;
  };
  for (const Case& k : {Case{&c, 16, 8, 512, true}, Case{&c, 16, 8, 512, false}, Case{&c, 1, 1, 128, true}, Case{&c, 16, 1, 2048, true},
                        Case{&c, 16, 1, 2048, false}, Case{&small_vocab, 64, 1, 64, true}, Case{&c, 16, 1, 64, true}, Case{&c, 16, 8, 512, true, true},
                        Case{&c, 16, 1, 2048, true, true}, Case{&c, 16, 8, 2048, true, true},
                        Case{&c, 16, 1, 128, true, false, Sharding::Zero1}, Case{&c, 16, 1, 2048, true, false, Sharding::Zero1},
                        Case{&opt67, 8, 1, 128, true, false, Sharding::Zero1}}) {
    Workload w = ds_chat_workload(k.gpus, k.batch, k.seq);
    w.dropout = k.dropout;
    if (k.ckpt) w.recompute = Recompute::Full;
    w.sharding = k.zero;
    const auto e = estimate(*k.cfg, w);
    const RecipePeak p = recipe_peak_of(e);
    phases.insert(p.phase);
    for (const RecipePart& part : p.parts) llmsize::test::check_part_languages(part, no_words, seen);
    check_recipe_sums(p);
    llmsize::test::check_recipe_text(*k.cfg, w, e.value(), "deepspeed");
  }
  CHECK(phases == std::set<RecipePhase>{RecipePhase::DeepSpeedLoss, RecipePhase::DeepSpeedLayer, RecipePhase::DeepSpeedEmbedding,
                                        RecipePhase::DeepSpeedStep, RecipePhase::DeepSpeedReduce, RecipePhase::DeepSpeedGather});
  llmsize::test::check_no_words_seen(no_words, seen);
}

TEST_CASE("deepspeed recipe: what DeepSpeed-Chat's step 1 does not do here is refused, named", "[training]") {
  llmsize::test::check_refusals(opt13(), ds_chat_workload(), {
      {"a Llama model", [](ModelConfig& c, Workload&) { c = preset("llama-2-7b").config; }, "OPT"},
      {"OPT-350m's projection", [](ModelConfig& c, Workload&) { c.embed_proj_dim = 512; }, "projection"},
      {"ZeRO 3", [](ModelConfig&, Workload& w) { w.sharding = Sharding::Zero3; }, "--zero 1 or 2"},
      {"no ZeRO", [](ModelConfig&, Workload& w) { w.sharding = Sharding::None; }, "stages 0 and 3"},
      {"tensor parallelism", [](ModelConfig&, Workload& w) { w.tp = 2; }, "--zero 1 or 2"},
      {"LoRA", [](ModelConfig&, Workload& w) { w.lora_rank = 8; }, "--lora_dim"},
      {"bf16", [](ModelConfig&, Workload& w) { w.dtype = ComputeDtype::BF16; }, "--dtype fp16"},
      {"SGD", [](ModelConfig&, Workload& w) { w.optimizer = Optimizer::Sgd; }, "FusedAdam"},
      {"flash attention", [](ModelConfig&, Workload& w) { w.flash_attention = true; }, "--flash 0"},
      {"selective recomputation", [](ModelConfig&, Workload& w) { w.recompute = Recompute::Selective; }, "--gradient_checkpointing"},
      {"accumulation", [](ModelConfig&, Workload& w) { w.grad_accum = 2; }, "--grad-accum 1"},
      {"past the learned positions", [](ModelConfig&, Workload& w) { w.seq = 4096; }, "2048"},
      {"a parameter above the bucket", [](ModelConfig& c, Workload&) { c.d_ff = 262144; }, "5e8"},
  });
}

// The megatron recipe (training_recipe.hpp): Megatron-LM's pretrain_gpt.py as its code allocates,
// per (tensor, pipeline) rank, the peak that training.py report_memory prints as "max allocated".
//
// Followed: NVIDIA/Megatron-LM 040eac94 (main of 2023-07-14, the legacy megatron/model code):
//   arguments.py (vocab padding to make_vocab_size_divisible_by · tp; bf16 forces
//     accumulate_allreduce_grads_in_fp32); model/distributed.py DistributedDataParallel with
//     use_contiguous_buffers (one main_grad buffer in the parameters' dtype, fp32 when
//     accumulating in fp32); optimizer/optimizer.py Float16OptimizerWithFloat16Params (an fp32
//     clone of every parameter; _copy_model_grads_to_main_grads sets main_param.grad =
//     main_grad.float(), a new fp32 copy of an fp16 buffer that lives until the next step's
//     zero_grad(set_to_none=True), the buffer itself when it is fp32) and apex FusedAdam's
//     exp_avg and exp_avg_sq (fp32);
//   model/transformer.py ParallelTransformerLayer and CoreAttention (the tensors Korthikanti et al.
//     2022 count, activations.hpp; the raw scores baddbmm writes stay referenced until
//     CoreAttention.forward returns), model/fused_softmax.py ScaledUpperTriangMaskedSoftmax (keeps
//     its output; backward in place), core/tensor_parallel/utils.py GlobalMemoryBuffer "mpu" (baddbmm's
//     input buffer and sequence parallelism's all-gather share it, allocated once at the largest);
//   optimizer/distrib_optimizer.py DistributedOptimizer (--use-distributed-optimizer, here --zero 1):
//     the gradient buffer padded to a multiple of the data-parallel size (model/distributed.py), the
//     fp32 clones and Adam's states of this data-parallel rank's 1/d of it only
//     (build_model_and_main_param_groups), and the fp32 main grads _copy_model_grads_to_main_grads
//     makes of that shard alone (shard_model_grad.float(): the buffer's own view when it is fp32);
//     reduce-scatter and all-gather run in place in the buffer. docs/distrib_optimizer.md at the same
//     commit gives the bytes a parameter between steps: 4 + 16/d (fp16), 6 + 12/d (bf16);
//   --recompute selective (--recompute-granularity selective, what --recompute-activations sets):
//     model/transformer.py ParallelAttention._checkpointed_attention_forward runs CoreAttention
//     under core/tensor_parallel/random.py CheckpointFunction, which keeps its arguments (q, k, v,
//     views of the QKV output the layer keeps anyway, and the attention mask pretrain_gpt.py
//     get_batch makes, [1, 1, s, s] bool, one a micro-batch) and reruns CoreAttention with grad
//     in backward before its backward; nothing of b·heads·s² is kept from the forward;
//   --recompute full (--recompute-granularity full --recompute-method uniform, one layer a
//     checkpoint): ParallelTransformer._checkpointed_forward, CheckpointFunction keeping each
//     layer's input and the attention mask, the layer rerun whole in backward before its backward;
//   optimizer/optimizer.py MixedPrecisionOptimizer.step (the main grads exist from the step until
//     train_step's next zero_grad; unscaling, clipping and FusedAdam work in place) and training.py
//     train_step (zero_grad_buffer and zero_grad before the forward);
//   model/gpt_model.py post_language_model_processing (the logits in the parameters' dtype, and
//     vocab_parallel_cross_entropy(output.float(), labels)), core/tensor_parallel/cross_entropy.py
//     _VocabParallelCrossEntropy.forward (logits − logits_max is a new tensor beside the fp32 copy);
//   core/pipeline_parallel/schedules.py forward_backward_pipelining_without_interleaving (1F1B:
//     stage s of pp runs min(pp − s − 1, m) warm-up forwards, so min(pp − s, m) micro-batches are in
//     flight; the last stage one) and forward_backward_no_pipelining (one), with
//     deallocate_pipeline_outputs on (a stage's output is freed once sent).
// Two cuBLAS workspaces, as in the hf-peft recipe: the forward's thread and autograd's.
// Checked against report_memory on four layouts of GPT-345M (tests/calibration/training/megatron_test.cpp).
#include <algorithm>

#include "activations.hpp"
#include "inventory.hpp"
#include "placement.hpp"
#include "training_recipe.hpp"

namespace llmsize::core::recipe_detail {

namespace {

// The layer Megatron-LM's legacy GPTModel builds: pre-LayerNorm, multi-head attention with learned
// absolute positions, a GeLU MLP; no MoE, windows, per-layer shapes or vision tower.
bool megatron_gpt_layer(const ModelConfig& c) {
  return c.norm == NormKind::LayerNorm && c.ffn_kind == FfnKind::Classic &&
         (c.act == Activation::Gelu || c.act == Activation::GeluTanh) && c.pos == PosKind::Learned && c.pos_offset == 0 &&
         c.n_kv_heads == c.n_heads && c.head_dim * c.n_heads == c.d_model && !c.parallel_block && c.norm_ffn_input &&
         !c.norm_sandwich && !c.norm_qk && !c.is_moe() && c.sliding_window == 0 && !c.varies_by_layer() && !c.mla.enabled &&
         !c.linear.enabled() && !c.mamba.enabled() && !c.mamba1.enabled() && !c.vision.enabled() && c.block_pattern.empty() &&
         // --disable-bias-linear drops the biases of q/k/v, the attention's output and both MLP
         // matrices together; the output layer has none (parallel_lm_logits, no bias).
         c.bias_qkv == c.bias_o && c.bias_o == c.bias_ffn && !c.bias_lm_head;
}

// fused_softmax.py FusedScaleMaskSoftmax.is_kernel_available for the causal kernel: fp16/bf16,
// 16 < sk ≤ 4096, sq and sk multiples of 4, b·np a multiple of 4 and of get_batch_per_block
// (scaled_masked_softmax.h: 128 threads of 32-lane warps, 2 rows a warp up to 128 keys, else 1).
bool fused_softmax(i64 seq, i64 attn_batches) {
  const i64 per_block = seq <= 128 ? 8 : 4;
  return seq > 16 && seq <= 4096 && seq % 4 == 0 && attn_batches % 4 == 0 && attn_batches % per_block == 0;
}

std::optional<Issue> megatron_scope(const ModelConfig& c, const Workload& w) {
  if (w.mode != Mode::Training) return refuse(Str::recipe_training_only);
  if (!megatron_gpt_layer(c)) return refuse(Str::recipe_mg_shape);
  if (w.ep != 1) return refuse(Str::recipe_mg_ep);
  if (c.n_layers % w.pp != 0) return refuse(Str::recipe_mg_layers, std::to_string(c.n_layers));
  // arguments.py validate_args: assert args.max_position_embeddings >= args.seq_length.
  if (c.max_positions > 0 && w.seq > c.max_positions) return refuse(Str::recipe_mg_positions, std::to_string(c.max_positions));
  // ColumnParallelLinear and RowParallelLinear divide() their widths by tp, and sequence
  // parallelism's scatter splits the sequence into tp equal parts; both assert.
  if (c.d_ff % w.tp != 0) return refuse(Str::recipe_mg_tp_ffn, std::to_string(c.d_ff));
  if (w.seq_parallel && w.tp > 1 && w.seq % w.tp != 0) return refuse(Str::recipe_mg_sp_seq, std::to_string(w.seq));
  if (w.lora_rank > 0 || w.qlora || w.adapter != Adapter::None) return refuse(Str::recipe_mg_full);
  if (w.dtype == ComputeDtype::F32 || w.precision != Precision::Mixed) return refuse(Str::recipe_mg_precision);
  if (w.dtype == ComputeDtype::BF16 && !(w.grad_dtype == GradDtype::Auto || w.grad_dtype == GradDtype::F32))
    return refuse(Str::recipe_mg_bf16_grads);
  if (w.dtype == ComputeDtype::F16 && w.grad_dtype == GradDtype::BF16) return refuse(Str::recipe_mg_fp16_grads);
  if (w.optimizer != Optimizer::AdamW || w.opt_state != StateDtype::F32) return refuse(Str::recipe_mg_optimizer);
  if (w.sharding != Sharding::None && w.sharding != Sharding::Zero1) return refuse(Str::recipe_mg_zero);
  if (w.flash_attention) return refuse(Str::recipe_mg_flash);
  if (!w.dropout) return refuse(Str::recipe_mg_dropout);
  if (!fused_softmax(w.seq, w.batch * c.n_heads / w.tp)) return refuse(Str::recipe_mg_softmax);
  return std::nullopt;
}

}  // namespace

Result<RecipePeak> megatron_peak(const ModelConfig& cfg, const Workload& w, const Gpu&) {
  if (auto bad = megatron_scope(cfg, w)) return *bad;
  if (auto issues = placement::check_parallel(cfg, w); !issues.empty()) return issues;
  const i64 t = w.tp, pp = w.pp, m = w.grad_accum, s = w.seq, b = w.batch, h = cfg.d_model, a = cfg.n_heads, f = cfg.d_ff;
  const bool sp = w.seq_parallel && t > 1;
  // arguments.py _vocab_size_with_padding: the vocabulary padded to a multiple of 128 · tp.
  const i64 multiple = 128 * t;
  ModelConfig mc = cfg;
  mc.vocab = ceil_div(cfg.vocab, multiple) * multiple;
  const i64 v = mc.vocab;
  auto inv = build_inventory(mc);
  if (!inv) return inv.issues();
  auto params = placement::build(mc, *inv, {t, 1}, pp, [](const Tensor& x, i64) -> std::optional<i64> { return x.numel(); });
  if (!params) return memory_overflow("seq");
  // Bytes per parameter: the 16-bit parameter, its main_grad in the buffer (fp32 when accumulating
  // in fp32: bf16 always, fp16 with --grad-dtype fp32), the fp32 master copy and Adam's two states.
  const bool fp32_grads = w.dtype == ComputeDtype::BF16 || w.grad_dtype == GradDtype::F32;
  const i64 e = 2, g = fp32_grads ? 4 : 2;
  // The distributed optimizer (--zero 1): d data-parallel ranks; data-parallel rank 0, whose lines
  // report_memory prints, owns the buffer's first ceil(P/d) elements, all of them parameters.
  const bool dist_opt = w.sharding == Sharding::Zero1;
  const i64 d = dist_opt ? w.gpus / (t * pp) : 1;
  auto padded = [&](i64 P) { return ceil_div(P, d) * d; };
  auto shard = [&](i64 P) { return padded(P) / d; };

  // One micro-batch's saved tensors per layer (activations.hpp: Korthikanti et al. 2022 Table 2 at
  // 16 bits, dropout on, no flash attention, sequence parallelism as set).
  const bool selective = w.recompute == Recompute::Selective, full_rc = w.recompute == Recompute::Full;
  const ActParams ap{s, b, e, t, 1, w.seq_parallel, false, true, w.recompute, 0, 0};
  auto act = layer_activations(cfg, ap, false);
  if (!act) return act.issues();
  const LayerActivations& la = *act;
  // What a layer keeps without recomputation: under full recomputation, the rerun layer's.
  ActParams ap_none = ap;
  ap_none.recompute = Recompute::None;
  auto act_none = layer_activations(cfg, ap_none, false);
  if (!act_none) return act_none.issues();
  const LayerActivations& ln = *act_none;
  // Up to the context bmm of CoreAttention: the first norm's input, the QKV projection's input and
  // output, the softmax output, the dropout mask and output; the layer's rest comes after.
  const i64 attn_part = la.norm_inputs / 2 + la.attn_input + la.qk + la.v + la.scores + la.attn_dropout;
  const Checked sbh = Checked(s) * b * h, sbh_local = sp ? Checked(s / t) * b * h : sbh;
  const Checked raw_scores = Checked(b) * (a / t) * s * s * e;  // baddbmm's output, referenced until return
  const Checked context = Checked(b) * (a / t) * s * (h / a) * e;  // bmm's output beside it
  // The embedding (stage 0): the dropout mask (scattered over tp with sequence parallelism) and
  // the token and position ids the lookups keep (int64).
  const Checked embed_extra = rounded(sbh_local) + rounded(Checked(s) * b * 8) * 2;
  // The loss (last stage): the final LayerNorm's input and output (the output layer's saved input,
  // gathered again in backward under sequence parallelism), the logits in 16 bits, their fp32 copy
  // and logits − max, each s·b·v/tp.
  const Checked sbv = Checked(s) * b * (v / t);
  const Checked final_norm = rounded(sbh_local * e) * 2;
  const Checked logits = rounded(sbv * e) + rounded(sbv * 4) * 2;
  // The first backward's MLP (every stage): the layer-output gradient, the GeLU's output and input
  // gradients; fc2's saved input and the dropout mask are freed by then.
  // 2·sbh' + 2·(s·b·f/tp·2) − s·b·f/tp·2 − sbh' bytes.
  const Checked ffn_local = Checked(s) * b * (f / t) * e;
  const Checked mlp_backward = sbh_local * (e - 1) + ffn_local;
  // GlobalMemoryBuffer "mpu": baddbmm's [b·np, s, s] input, or sequence parallelism's [s, b, h]
  // all-gather, whichever is larger; and the two cuBLAS workspaces.
  const Checked scores_numel = Checked(b) * (a / t) * s * s;
  if (!scores_numel.ok() || !sbh.ok() || !embed_extra.ok() || !logits.ok() || !mlp_backward.ok() || !context.ok())
    return memory_overflow("seq");
  const Checked mpu = rounded(Checked(std::max(scores_numel.value(), sp ? sbh.value() : 0)) * e);
  const Checked fixed = mpu + Checked(kCublasWorkspace) * 2;
  // Selective recomputation. Each micro-batch in flight keeps its attention mask (the checkpoints'
  // saved argument; nothing keeps it otherwise: the causal fused softmax never reads it). The
  // moment it adds: the first backward through the stage's last layer, in its core attention.
  // CheckpointFunction.backward reruns CoreAttention with grad (the raw scores baddbmm writes are
  // freed when it returns: ScaledUpperTriangMaskedSoftmax keeps only its output) and runs its
  // backward; when NativeDropoutBackward writes the probabilities' gradient, the softmax output
  // and the dropout mask (both saved), the dropout output's gradient (BmmBackward's; the bmm's own
  // saved tensors released after it ran) and that gradient are live: 2 + 1 + 2 + 2 bytes an
  // element of b·heads/tp·s². Beside them, the context's gradient (the backward's argument), the
  // rerun's context (`outputs`, referenced until the backward returns), both [s, b, h/tp], and the
  // residual stream's gradient [s', b, h]. What the stage keeps then is what its forward kept at
  // the same point (the newest micro-batch done; the oldest one's last layer freed down to its
  // attention's inputs), and the forward's own moment there (raw scores, softmax output, dropout
  // output and mask: 7 bytes an element) holds less than this one.
  const Checked mask_bytes = selective || full_rc ? rounded(Checked(s) * s) : Checked(0);
  const Checked sbh_tp = Checked(s) * b * (h / t) * e;
  const Checked recompute_head = rounded(scores_numel * e) * 3 + rounded(scores_numel) + rounded(sbh_tp) * 2 + rounded(sbh_local * e);
  // Full recomputation. Each micro-batch keeps every layer's input (its checkpoint's argument,
  // which the rerun reads as it is) and its attention mask. The first backward through the
  // stage's last layer reruns it whole with grad, then runs its backward with the layer output's
  // gradient (the backward's argument) and the rerun's output (`outputs`) referenced until it
  // returns; two moments, whichever holds more:
  // - at the GeLU: the rerun layer's tensors (what it keeps without recomputation, less its input)
  //   and the MLP's gradients as in the first backward without recomputation;
  // - in its core attention, as the probabilities' gradient is written (above): the rerun layer's
  //   QKV input and output, softmax output and dropout mask (the dropout output freed after
  //   BmmBackward), the dropout output's gradient and the probabilities', the context's gradient,
  //   and three [s', b, h]: the layer output's gradient, the residual stream's and `outputs`.
  //   The rerun's forward at its context bmm (the raw scores beside the same tensors) and the
  //   forward's own moment (under no_grad) hold less.
  const Checked rerun_layer = Checked(ln.total - la.layer_input);
  const Checked rerun_mlp = rerun_layer + rounded(sbh_local * e) + mlp_backward;
  const Checked rerun_attn = Checked(ln.attn_input + ln.qk + ln.v) + rounded(scores_numel * e) * 3 + rounded(scores_numel) +
                             rounded(sbh_tp) + rounded(sbh_local * e) * 3;
  if (!recompute_head.ok() || !mask_bytes.ok() || !rerun_mlp.ok() || !rerun_attn.ok()) return memory_overflow("seq");

  RecipePeak p;
  p.recipe = Recipe::Megatron;
  p.version = std::string("Megatron-LM 040eac94 (July 2023) pretrain_gpt.py, megatron/model") +
              (dist_opt ? " · --use-distributed-optimizer" : "") +
              (selective ? " · --recompute-granularity selective" : full_rc ? " · --recompute-granularity full (uniform, 1 layer)" : "") +
              " · apex FusedAdam · NGC PyTorch 23.04 (2.1.0a0)";
  struct Best {
    i64 stage = -1;
    RecipePhase phase = RecipePhase::MegatronLoss;
    Checked peak, saved, head;
    bool at_gelu = false;  // MegatronRerun: the rerun layer's GeLU, else its core attention
  } best;
  const i64 layers = cfg.n_layers / pp;
  for (i64 st = 0; st < pp; ++st) {
    const i64 P = params->stage(mc, pp, st);
    const i64 inflight = std::min(pp - st, m);
    const Checked per_mb = Checked(la.total) * layers + (st == 0 ? embed_extra : Checked(0)) + mask_bytes;
    // The 16-bit parameters, the gradient buffer (padded under the distributed optimizer), the fp32
    // master copies and Adam's states (this data-parallel rank's shard under it).
    const Checked states = Checked(P) * e + Checked(padded(P)) * g + Checked(shard(P)) * 12;
    if (!(per_mb * inflight + states).ok()) return memory_overflow("seq");
    // In the newest micro-batch's forward, at the last layer's context bmm; with selective
    // recomputation, in the first backward's rerun core attention of that layer (above).
    Checked saved = per_mb * (inflight - 1) + (st == 0 ? embed_extra : Checked(0)) + mask_bytes + Checked(la.total) * (layers - 1) + attn_part;
    Checked head = selective ? recompute_head : raw_scores + context;
    RecipePhase phase = selective ? RecipePhase::MegatronRecompute : RecipePhase::AttentionForward;
    const i64 S = shard(P);
    bool at_gelu = false;
    if (full_rc) {
      // In the first backward, the last layer rerun whole (above).
      saved = per_mb * inflight;
      at_gelu = rerun_mlp.value() > rerun_attn.value();
      head = at_gelu ? rerun_mlp : rerun_attn;
      phase = RecipePhase::MegatronRerun;
    } else if ((per_mb * inflight + mlp_backward).value() > (saved + head).value()) {
      // In the first backward, at the last layer's GeLU.
      saved = per_mb * inflight;
      head = mlp_backward;
      phase = RecipePhase::MlpBackward;
    }
    if (st == pp - 1) {  // one micro-batch in flight, in vocab_parallel_cross_entropy's forward
      const Checked loss_saved = per_mb;
      if ((loss_saved + final_norm + logits).value() > (saved + head).value()) {
        saved = loss_saved;
        head = final_norm + logits;
        phase = RecipePhase::MegatronLoss;
      }
    }
    // report_memory's "allocated:" between steps, and the optimizer's step: the states, the fp32
    // main grads (a copy of the fp16 buffer, or of this rank's shard of it; the buffer itself when
    // fp32) and the fixed buffers. Nothing of a micro-batch is live then.
    const Checked after_step = states + Checked(S) * (fp32_grads ? 0 : 4) + fixed;
    if (!after_step.ok()) return memory_overflow("seq");
    if (after_step.value() > (states + fixed + saved + head).value()) {
      saved = Checked(0);
      head = Checked(0);
      phase = RecipePhase::MegatronStep;
    }
    const Checked peak = phase == RecipePhase::MegatronStep ? after_step : states + fixed + saved + head;
    if (!peak.ok()) return memory_overflow("seq");
    const StageRange range = stage_range(cfg.n_layers, pp, st);
    p.stages.push_back({st, range.first, range.count, P, inflight, (saved + head).value(), peak.value(), peak.value(), after_step.value()});
    if (best.stage < 0 || peak.value() > best.peak.value()) best = {st, phase, peak, saved, head, at_gelu};
  }
  const i64 P = p.stages[static_cast<size_t>(best.stage)].params_gpu, S = shard(P), Ppad = padded(P);
  const bool step = best.phase == RecipePhase::MegatronStep;
  const i64 main_grads = step && !fp32_grads ? S * 4 : 0;
  p.phase = best.phase;
  p.peak_allocated_bytes = best.peak.value();
  p.weights_bytes = P * e;
  p.gradient_bytes = Ppad * g + main_grads;
  p.master_bytes = S * 4;
  p.optimizer_bytes = S * 8;
  p.trainable_params = params->replica;  // every parameter of the (padded) model trains
  p.saved_bytes = best.saved.value();
  p.head_bytes = best.head.value();
  p.fixed_bytes = fixed.value();

  const std::string dtype = w.dtype == ComputeDtype::BF16 ? "bf16" : "fp16";
  const std::string Ps = with_commas(P);
  auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  part(Str::recipe_part_mg_params, Checked(P) * e, row_arg(Str::rfx_mg_params, Ps, dtype), "model/module.py Float16Module");
  const std::string src_dist = "optimizer/distrib_optimizer.py DistributedOptimizer";
  if (dist_opt) {
    const std::string Ss = with_commas(S), ds = with_commas(d);
    part(Str::recipe_part_mg_grad_buffer, Checked(Ppad) * g, row_arg(Str::rfx_mg_grad_buffer_padded, with_commas(Ppad), Ps, ds, with_commas(g)),
         "model/distributed.py DistributedDataParallel (use_contiguous_buffers, padded for the distributed optimizer)");
    part(Str::recipe_part_mg_master, Checked(S) * 4, row_arg(Str::rfx_mg_master_shard, Ss, ds), src_dist + " build_model_and_main_param_groups");
    part(Str::recipe_part_optimizer, Checked(S) * 8, row_arg(Str::rfx_mg_adam_shard, Ss), "apex FusedAdam (exp_avg, exp_avg_sq)");
  } else {
    part(Str::recipe_part_mg_grad_buffer, Checked(P) * g, row_arg(Str::rfx_mg_grad_buffer, Ps, with_commas(g)),
         "model/distributed.py DistributedDataParallel (use_contiguous_buffers)");
    part(Str::recipe_part_mg_master, Checked(P) * 4, row_arg(Str::rfx_mg_master, Ps),
         "optimizer/optimizer.py Float16OptimizerWithFloat16Params");
    part(Str::recipe_part_optimizer, Checked(P) * 8, row_arg(Str::rfx_mg_adam, Ps), "apex FusedAdam (exp_avg, exp_avg_sq)");
  }
  part(Str::recipe_part_mg_main_grads, Checked(main_grads), row_arg(Str::rfx_mg_main_grads, with_commas(S)),
       dist_opt ? src_dist + " _copy_model_grads_to_main_grads" : "optimizer/optimizer.py Float16OptimizerWithFloat16Params._copy_model_grads_to_main_grads");
  const i64 inflight = p.stages[static_cast<size_t>(best.stage)].inflight;
  const std::string sbh_s = with_commas(la.total);
  // With recomputation, one attention mask a micro-batch in the saved tensors.
  const i64 masks = best.phase == RecipePhase::MegatronLoss ? 1 : inflight;
  const Checked mask_part = step ? Checked(0) : mask_bytes * masks;
  const Checked layers_part(best.saved.value() - mask_part.value());
  if (full_rc && !step) {
    part(Str::recipe_part_layers_saved, layers_part,
         row_arg(Str::rfx_mg_layers_inputs, with_commas(layers), sbh_s, with_commas(best.phase == RecipePhase::MegatronLoss ? 1 : inflight)),
         "model/transformer.py ParallelTransformer._checkpointed_forward; core/tensor_parallel/random.py CheckpointFunction");
    if (best.phase == RecipePhase::MegatronRerun)
      part(Str::recipe_part_mg_rerun, best.head,
           best.at_gelu ? row_arg(Str::rfx_mg_rerun_gelu, with_commas(ln.total - la.layer_input))
                        : row_arg(Str::rfx_mg_rerun_attn, with_commas(ln.attn_input + ln.qk + ln.v), sp ? "s/tp" : "s"),
           "core/tensor_parallel/random.py CheckpointFunction.backward; model/transformer.py ParallelTransformerLayer, CoreAttention; "
           "torch autograd");
  }
  if (best.phase == RecipePhase::MegatronLoss) {
    if (!full_rc)
      part(Str::recipe_part_layers_saved, layers_part, row_arg(Str::rfx_mg_layers, with_commas(layers), sbh_s, "1"),
           Str::rfx_src_mg_layers);
    part(Str::recipe_part_mg_final_norm, final_norm, row_arg(Str::rfx_mg_final_norm, sp ? "s/tp" : "s"),
         "model/transformer.py ParallelTransformer final_layernorm; language_model.py parallel_lm_logits");
    part(Str::recipe_part_mg_logits, logits, row_arg(Str::rfx_mg_logits, with_commas(v), dtype),
         "model/gpt_model.py post_language_model_processing; core/tensor_parallel/cross_entropy.py _VocabParallelCrossEntropy.forward");
  } else if (!step && !full_rc) {
    part(Str::recipe_part_layers_saved, layers_part,
         row_arg(best.phase == RecipePhase::MlpBackward ? Str::rfx_mg_layers
                 : best.phase == RecipePhase::AttentionForward ? Str::rfx_mg_layers_newest
                                                               : Str::rfx_mg_layers_recompute,
                 with_commas(layers), sbh_s, with_commas(inflight)),
         Str::rfx_src_mg_layers);
    if (best.phase == RecipePhase::AttentionForward)
      part(Str::recipe_part_mg_scores, best.head, Str::rfx_mg_scores, "model/transformer.py CoreAttention.forward");
    else if (best.phase == RecipePhase::MegatronRecompute)
      part(Str::recipe_part_mg_recompute, best.head, row_arg(Str::rfx_mg_recompute, sp ? "s/tp" : "s"),
           "core/tensor_parallel/random.py CheckpointFunction.backward; model/transformer.py CoreAttention.forward; "
           "torch autograd (BmmBackward0, NativeDropoutBackward0); model/fused_softmax.py ScaledUpperTriangMaskedSoftmax");
    else
      part(Str::recipe_part_layer_grads, best.head, Str::rfx_mg_mlp_backward, "model/fused_bias_gelu.py GeLUFunction.backward");
  }
  part(Str::recipe_part_mg_mask, mask_part, row_arg(Str::rfx_mg_mask, with_commas(masks)),
       "pretrain_gpt.py get_batch; megatron/utils.py get_ltor_masks_and_position_ids; core/tensor_parallel/random.py CheckpointFunction");
  part(Str::recipe_part_mg_fixed, fixed, row_arg(Str::rfx_mg_fixed, with_commas(mpu.value()), with_commas(kCublasWorkspace)),
       Str::rfx_src_mg_fixed);
  sort_parts(p);
  return p;
}

}  // namespace llmsize::core::recipe_detail

// The deepspeed recipe (training_recipe.hpp): DeepSpeed-Chat's supervised fine-tuning as its code
// allocates on data-parallel rank 0, the rank whose ThroughputTimer prints "MemAllocated=…GB,
// MaxMemAllocated=…GB" (torch.cuda.memory_allocated() after the step, and the peak).
//
// Followed:
//   microsoft/DeepSpeedExamples 3a77097a (April 2023), applications/DeepSpeed-Chat/training/
//     step1_supervised_finetuning/main.py: the model from create_hf_model (utils/model/model_utils.py:
//     AutoModelForCausalLM.from_pretrained, the vocabulary resized to a multiple of 8, which keeps
//     OPT's 50,272), get_optimizer_grouped_parameters (utils/utils.py: two groups, the names without
//     and with "bias" or "LayerNorm.weight"), FusedAdam, get_train_ds_config (utils/ds_utils.py:
//     ZeRO stage --zero_stage, fp16 enabled, nothing else of ZeRO's buffers set), the batches
//     padded to --max_seq_len (utils/data/data_utils.py, labels = input_ids) and the loop
//     `outputs = model(**batch, use_cache=False); model.backward(outputs.loss); model.step()`,
//     which keeps `batch` and `outputs` (its fp16 logits) until the next ones replace them;
//   DeepSpeed 0.9.0 (the release of 2023-04-13 the requirements name, ">=0.9.0"):
//     runtime/zero/stage_1_and_2.py DeepSpeedZeroOptimizer: __init__ (each group flattened into one
//     fp16 buffer padded to a multiple of 2 · dp elements, the parameters views of it; the fp32
//     master copy of this rank's partition; FusedAdam's exp_avg and exp_avg_sq of it), backward
//     (the ipg_buffer of reduce_bucket_size fp16 elements, contiguous_gradients), the gradient
//     hooks (reduce_independent_p_g_buckets_and_remove_grads copies each gradient into the bucket
//     and frees it; reduce_ipg_grads reduces a full bucket and copies the gradients of the
//     parameters that meet this rank's partition, whole, into grads_in_partition, allocated at
//     the first such copy), independent_gradient_partition_epilogue (the bucket released;
//     averaged_gradients views grads_in_partition), step (has_overflow_partitioned_grads_serial's
//     x.float(), get_grad_norm_direct's g.double() per piece, then per group the flattened fp32
//     copy of its partition, averaged_gradients and grads released, FusedAdam in place); with
//     ZeRO-1 (partition_gradients false) no hooks are registered: the gradients stay as
//     AccumulateGrad made them until the engine's allreduce_gradients calls reduce_gradients,
//     which copies them group by group into the bucket;
//     runtime/utils.py all_gather_dp_groups (the step's end: shards of allgather_bucket_size);
//     runtime/zero/config.py defaults: reduce_bucket_size and allgather_bucket_size 5e8, contiguous_gradients true,
//     overlap_comm false below stage 3; ops/adam/fused_adam.py (the overflow buffer);
//   transformers 4.29.0.dev0 (installed from main, as the requirements say) models/opt/
//     modeling_opt.py: OPTLearnedPositionalEmbedding (positions from the mask's cumsum, int64),
//     OPTAttention.forward (q_proj's output scaled, q, k and v made contiguous in _shape; bmm; the
//     fp16 mask added and torch.max against the dtype's minimum, which keeps both operands;
//     softmax(dtype=float32), on CUDA _softmax(half_to_float), keeping its fp32 output; .to(fp16);
//     dropout at config.attention_dropout (0.0 in every OPT checkpoint: F.dropout(p=0) returns its
//     input); bmm with v; the transposed output reshaped (a copy) for out_proj),
//     OPTDecoderLayer.forward (LayerNorm before attention and MLP, dropout at config.dropout after
//     each, ReLU keeping its output), OPTForCausalLM.forward (lm_head on the final LayerNorm's
//     output, shift_logits = logits[..., :-1, :].contiguous(), CrossEntropyLoss in fp16);
//   PyTorch 2.0 (assumed: the log names no release): native_layer_norm keeps fp32 mean and rstd;
//     the autograd engine sums a tied weight's gradients in the AccumulateGrad node's input buffer
//     before it runs, so lm_head's gradient waits there for the embedding's; the caching
//     allocator's 512-byte blocks; a cuBLAS workspace per thread.
// Checked against the log DeepSpeed-Chat published for OPT-1.3b
// (tests/calibration/training/deepspeed_test.cpp).
#include <algorithm>

#include "params.hpp"
#include "training_recipe.hpp"

namespace llmsize::core::recipe_detail {

namespace {

constexpr i64 kReduceBucket = 500000000;     // runtime/zero/config.py reduce_bucket_size: pp_int(5e8)
constexpr i64 kAllgatherBucket = 500000000;  // runtime/zero/config.py allgather_bucket_size: pp_int(5e8)

// One parameter of OPTForCausalLM, in named_parameters() order, and its optimizer group.
struct OptParam {
  i64 numel;
  bool decay;  // group 0 (weight decay) or 1 (names with "bias" or "LayerNorm.weight")
};

// OPTDecoder registers embed_tokens, embed_positions, (project_out, project_in: none here),
// final_layer_norm, then the layers: self_attn (k_proj, v_proj, q_proj, out_proj),
// self_attn_layer_norm, fc1, fc2, final_layer_norm. The tied lm_head is embed_tokens. OPT's
// LayerNorm weights are named "…layer_norm.weight": group 0 with the matrices; biases group 1.
std::vector<OptParam> opt_params(const ModelConfig& c) {
  const i64 C = c.d_model, F = c.d_ff;
  std::vector<OptParam> ps = {{c.vocab * C, true}, {(c.max_positions + c.pos_offset) * C, true}, {C, true}, {C, false}};
  ps.reserve(static_cast<size_t>(4 + 16 * c.n_layers));
  for (i64 l = 0; l < c.n_layers; ++l) {
    for (int proj = 0; proj < 4; ++proj) ps.insert(ps.end(), {{C * C, true}, {C, false}});
    ps.insert(ps.end(), {{C, true}, {C, false}, {F * C, true}, {F, false}, {C * F, true}, {C, false}, {C, true}, {C, false}});
  }
  return ps;
}

// This rank's share of ZeRO-2's bookkeeping for rank 0 of `dp`.
struct Partition {
  i64 padded[2] = {0, 0};     // each group's flat buffer, padded to a multiple of 2 · dp
  i64 part[2] = {0, 0};       // partition_size: padded / dp
  int pieces[2] = {0, 0};     // averaged_gradients[g]: the pieces of the partition (one per parameter met)
  i64 gip = 0;                // grads_in_partition: every parameter that meets the partition, whole
  i64 max_piece = 0;          // the largest piece (get_grad_norm_direct's g.double())
};

Partition rank0_partition(const std::vector<OptParam>& ps, i64 dp) {
  Partition r;
  i64 n[2] = {0, 0};
  for (const OptParam& p : ps) n[p.decay ? 0 : 1] += p.numel;
  const i64 align = 2 * dp;  // nccl_start_alignment_factor · dp
  for (int g = 0; g < 2; ++g) {
    r.padded[g] = ceil_div(n[g], align) * align;
    r.part[g] = r.padded[g] / dp;
  }
  i64 start[2] = {0, 0};
  for (const OptParam& p : ps) {
    const int g = p.decay ? 0 : 1;
    if (start[g] < r.part[g]) {
      r.gip += p.numel;
      ++r.pieces[g];
      r.max_piece = std::max(r.max_piece, std::min(p.numel, r.part[g] - start[g]));
    }
    start[g] += p.numel;
  }
  return r;
}

std::optional<Issue> deepspeed_scope(const ModelConfig& c, const Workload& w) {
  if (w.mode != Mode::Training) return refuse(Str::recipe_training_only);
  // OPT as modeling_opt.py builds 125m and 1.3b to 66b: LayerNorm before attention and MLP with a
  // final one, biases everywhere, ReLU, no word-embedding projection, a tied head.
  if (c.family != Family::Opt || !c.norm_final || c.embed_proj_dim != 0 || !c.tie_embeddings || !c.bias_qkv || !c.bias_o ||
      !c.bias_ffn || c.act != Activation::Relu || c.n_kv_heads != c.n_heads || c.head_dim * c.n_heads != c.d_model ||
      c.is_moe() || c.varies_by_layer() || c.pos != PosKind::Learned || c.vision.kind != VisionKind::None)
    return refuse(Str::recipe_ds_shape, std::string(family_id(c.family)));
  if (w.tp != 1 || w.pp != 1 || w.ep != 1 || (w.sharding != Sharding::Zero1 && w.sharding != Sharding::Zero2))
    return refuse(Str::recipe_ds_layout);
  if (w.lora_rank > 0 || w.qlora || w.adapter != Adapter::None || (w.weights != WeightFormat::BF16 && w.weights != WeightFormat::F16))
    return refuse(Str::recipe_ds_full);
  if (w.precision != Precision::Mixed || w.dtype != ComputeDtype::F16 || (w.grad_dtype != GradDtype::Auto && w.grad_dtype != GradDtype::F16))
    return refuse(Str::recipe_ds_precision);
  if (w.optimizer != Optimizer::AdamW || w.opt_state != StateDtype::F32) return refuse(Str::recipe_ds_optimizer);
  if (w.flash_attention) return refuse(Str::recipe_ds_flash);
  if (w.recompute == Recompute::Selective) return refuse(Str::recipe_ds_recompute);
  if (w.grad_accum != 1) return refuse(Str::recipe_ds_accum);
  if (w.seq < 2) return refuse(Str::recipe_hf_seq);
  if (w.seq > c.max_positions) return refuse(Str::recipe_ds_positions, std::to_string(c.max_positions));
  // A parameter larger than the bucket takes reduce_ipg_grads' extra_large_param_to_reduce path,
  // reduced in its own gradient: not modelled.
  if (std::max(c.vocab, c.d_ff) * c.d_model > kReduceBucket) return refuse(Str::recipe_ds_bucket);
  return std::nullopt;
}

}  // namespace

Result<RecipePeak> deepspeed_peak(const ModelConfig& c, const Workload& w, const Gpu& /*gpu*/) {
  if (auto bad = deepspeed_scope(c, w)) return *bad;
  const auto counted = count_params(c);
  if (!counted) return counted.issues();
  const std::vector<OptParam> ps = opt_params(c);
  i64 listed = 0;
  for (const OptParam& p : ps) listed += p.numel;
  if (listed != counted->total) return *refuse(Str::recipe_ds_shape, std::string(family_id(c.family)));
  const i64 C = c.d_model, F = c.d_ff, L = c.n_layers, V = c.vocab, s = w.seq, dp = w.gpus, P = counted->total;
  const Checked T = Checked(w.batch) * s;               // tokens of a micro-batch (padded to max_seq_len)
  const Checked Ts = Checked(w.batch) * (s - 1);        // the shifted logits' rows
  const Checked A = Checked(w.batch) * c.n_heads * s * s;  // attention scores
  auto R = [](Checked b) { return rounded(b); };
  const Partition part = rank0_partition(ps, dp);

  // --- Between steps: the fp16 flat buffers, the fp32 master partition, Adam's states and the
  // overflow buffer, two cuBLAS workspaces (the forward's thread and autograd's), `batch`
  // (input_ids, attention_mask, labels: int64) and `outputs` (the fp16 logits and the loss).
  const Checked flat16 = R(Checked(part.padded[0]) * 2) + R(Checked(part.padded[1]) * 2);
  const Checked master = R(Checked(part.part[0]) * 4) + R(Checked(part.part[1]) * 4);
  const Checked adam = master * 2 + R(Checked(4));
  const Checked fixed = Checked(kCublasWorkspace) * 2;
  const Checked batch = R(T * 8) * 3;
  const Checked logits = R(T * V * 2);
  const Checked outputs = logits + R(Checked(2));
  const Checked states = flat16 + master + adam;
  const Checked base = states + fixed + batch + outputs;
  const Checked bucket = R(Checked(kReduceBucket) * 2);
  const Checked gip = R(Checked(part.gip) * 2);

  // --- What one layer keeps for backward (fp16 unless named).
  const Checked U2 = R(T * C * 2), stats = R(T * 4) * 2, A2 = R(A * 2), A4 = R(A * 4);
  const Checked mask = w.dropout ? R(T * C) : Checked();  // native_dropout's bool mask, after attention and after fc2
  // layer input (self_attn_layer_norm's), its mean and rstd, its output (q, k and v's input), q, k
  // and v made contiguous, the scores plus the mask (torch.max's first operand) and its 0-dim
  // second, softmax's fp32 output;
  const Checked attn_rest = stats + U2 + U2 * 3 + A2 + R(Checked(2)) + A4;  // all but the input
  const Checked attn_side = U2 + attn_rest;
  // the fp16 probabilities (bmm's), the reshaped output (out_proj's input), the residual sum
  // (final_layer_norm's input), its mean and rstd, its output (fc1's), ReLU's output (fc2's).
  const Checked mlp_side_relu = A2 + U2 + mask + U2 + stats + U2 + R(T * F * 2);  // all but fc2's mask
  const Checked layer = attn_side + mlp_side_relu + mask;
  const Checked final_norm = U2 + stats + U2;  // the last layer's output, mean and rstd, lm_head's input
  const Checked positions = R(T * 8);          // embed_positions' indices (positions + offset, int64)
  const Checked all_layers = layer * L;
  // With --gradient_checkpointing (model.gradient_checkpointing_enable(): OPTDecoder wraps each
  // layer in torch.utils.checkpoint.checkpoint, reentrant in PyTorch 2.0): each layer's forward
  // runs under no_grad and its CheckpointFunction saves its tensor inputs, the layer input and the
  // 4-D causal mask (one tensor for every layer); backward reruns the layer with grad and keeps
  // its output (`outputs`) until the inner backward returns.
  const bool ckpt = w.recompute == Recompute::Full;
  const Checked mask4d = R(Checked(w.batch) * s * s * 2);
  const Checked stored = ckpt ? U2 * L + mask4d : all_layers;  // what the layers keep at the end of forward

  // --- Moment 1: the loss's backward, as log_softmax's gradient is written. Live: every layer's
  // tensors, the new logits (`outputs` replaced once forward returned), log_softmax's fp16 output,
  // nll_loss's gradient and log_softmax's, the shifted labels and nll_loss's total_weight, and the
  // bucket ZeRO's backward allocated before loss.backward().
  const Checked loss = R(Ts * V * 2) * 3 + R(Ts * 8) + R(Checked(2));
  const Checked loss_phase = base + bucket + stored + final_norm + positions + loss;

  // --- Moment 2: the last layer's backward. lm_head's gradient waits in the tied weight's input
  // buffer until the embedding's arrives. A bucket was reduced (and grads_in_partition made: the
  // final norm's bias, the first of group 1, is rank 0's) once the gradients that arrived exceed it.
  const Checked head_grad = R(Checked(V) * C * 2);
  // ZeRO-1 (partition_gradients false, no overlap_comm) registers no gradient hooks: every fp16
  // gradient AccumulateGrad makes stays until reduce_gradients, after backward, copies it into the
  // bucket; ZeRO-2's hooks copy each at once, and reduce a full bucket (grads_in_partition made at
  // the first: the final norm's bias, the first of group 1, is rank 0's) once the gradients that
  // arrived exceed it.
  const bool zero1 = w.sharding == Sharding::Zero1;
  auto grad_of = [&](i64 numel) { return R(Checked(numel) * 2); };
  auto partition_if = [&](i64 arrived) { return !zero1 && arrived > kReduceBucket ? gip : Checked(); };
  // What the gradients that arrived hold: ZeRO-1 keeps them; ZeRO-2 has copied them into the bucket.
  auto arrived_grads = [&](Checked kept) { return zero1 ? kept : Checked(); };
  const Checked grads_relu = grad_of(C) * 2 + grad_of(C * F) + grad_of(C);                      // final norm, fc2
  const Checked grads_attn = grads_relu + grad_of(F * C) + grad_of(F) + grad_of(C) * 2 + grad_of(C * C) + grad_of(C);  // fc1, norm, out_proj
  // At ReLU's backward: the layer's tensors but fc2's dropout mask; ReLU output's gradient and
  // threshold_backward's, and the residual's gradient. Arrived: the final norm, fc2.
  // Held besides the last layer's own tensors: the other layers' (with checkpointing: every
  // layer's input, the mask and the rerun's output), and the last layer's input.
  const Checked held = ckpt ? U2 * L + mask4d + U2 : layer * (L - 1) + U2;
  const Checked kept_relu = held + attn_rest + mlp_side_relu;
  const Checked mlp_moment = base + bucket + partition_if(2 * C + C * F + C) + arrived_grads(grads_relu) + head_grad + positions + kept_relu +
                             R(T * F * 2) * 2 + U2;
  // At the softmax's backward: the layer keeps its attention's tensors only; ToCopyBackward's fp32
  // gradient and _softmax_backward_data's fp16 one, the value's gradient (its branch runs after)
  // and the residual's. Arrived: the final norm, fc2, fc1, final_layer_norm, out_proj.
  const Checked attn_moment = base + bucket + partition_if(2 * C + (C * F + C) + (F * C + F) + 2 * C + (C * C + C)) +
                              arrived_grads(grads_attn) + head_grad + positions + held + attn_rest + A4 + A2 + U2 * 2;
  const bool at_relu = mlp_moment.ok() && attn_moment.ok() && mlp_moment.value() > attn_moment.value();
  const Checked layer_phase = at_relu ? mlp_moment : attn_moment;

  // --- Moment 3: the embedding's backward, the last: the head's gradient and the embedding's new
  // one (summed in place), the layer-0 input's gradient, embedding_dense_backward's sorted ids.
  const Checked embed_work = U2 + R(T * 8) * 3;
  Checked other_grads;  // every gradient but the tied embedding's, as AccumulateGrad made them
  for (size_t k = 1; k < ps.size(); ++k) other_grads += grad_of(ps[k].numel);
  const Checked embed_phase = base + bucket + partition_if(P - V * C) + arrived_grads(other_grads) + head_grad * 2 + embed_work;

  // --- ZeRO-1's reduce_gradients, after backward: group by group in order, each gradient copied
  // into the bucket (its own storage freed); the first full bucket is reduced and rank 0's
  // parameters in it (embed_tokens, the first of group 0) copied into grads_in_partition, made
  // then, while the gradients not yet in a bucket still hold theirs.
  Checked not_yet;
  {
    i64 cum = 0;
    bool reduced = false;
    for (int g = 0; g < 2; ++g)
      for (const OptParam& q : ps) {
        if ((q.decay ? 0 : 1) != g) continue;
        if (!reduced && cum + q.numel > kReduceBucket) reduced = true;
        if (reduced) not_yet += grad_of(q.numel);
        else cum += q.numel;
      }
  }
  const Checked reduce_phase = zero1 ? base + bucket + gip + not_yet : Checked();

  // --- Moment 4: the step. grads_in_partition, and the larger of get_grad_norm_direct's fp64
  // copy of one piece and a group's fp32 flattened partition (beside its fp16 flat copy when the
  // partition has several pieces: torch.cat).
  Checked step_copy = R(Checked(part.max_piece) * 8);
  for (int g = 0; g < 2; ++g) {
    const Checked copy = (part.pieces[g] > 1 ? R(Checked(part.part[g]) * 2) : Checked()) + R(Checked(part.part[g]) * 4);
    if (copy.ok() && step_copy.ok() && copy.value() > step_copy.value()) step_copy = copy;
  }
  const Checked step_phase = base + gip + step_copy;

  // --- Moment 5: the step's end, all_gather_dp_groups (runtime/utils.py): per group, max(1,
  // partition · dp // allgather_bucket_size) shards of the partition (less its remainder mod the
  // alignment factor 2; the last one the rest), each through torch.distributed.all_gather's list
  // form, whose ProcessGroupNCCL::allgather gathers into one flat dp × shard tensor
  // (flatten_for_scatter_gather) before copying it out. grads_in_partition is gone by then.
  i64 gather_shard = 0;
  for (int g = 0; g < 2; ++g) {
    const i64 shards = std::max<i64>(1, (Checked(part.part[g]) * dp).value() / kAllgatherBucket);
    i64 shard = part.part[g] / shards;
    shard -= shard % 2;
    gather_shard = std::max({gather_shard, shard, part.part[g] - shard * (shards - 1)});
  }
  const Checked gather_flat = R(Checked(gather_shard) * dp * 2);
  const Checked gather_phase = base + gather_flat;

  for (const Checked& x : {loss_phase, layer_phase, embed_phase, step_phase, mlp_moment, attn_moment, reduce_phase, gather_phase})
    if (!x.ok()) return memory_overflow("seq");
  RecipePhase phase = RecipePhase::DeepSpeedLoss;
  Checked top = loss_phase;
  auto take = [&](RecipePhase ph, const Checked& x) {
    if (x.value() > top.value()) {
      phase = ph;
      top = x;
    }
  };
  take(RecipePhase::DeepSpeedLayer, layer_phase);
  take(RecipePhase::DeepSpeedEmbedding, embed_phase);
  take(RecipePhase::DeepSpeedStep, step_phase);
  take(RecipePhase::DeepSpeedReduce, reduce_phase);
  take(RecipePhase::DeepSpeedGather, gather_phase);

  RecipePeak p;
  p.recipe = Recipe::DeepSpeed;
  p.version = std::string("DeepSpeed-Chat 3a77097a (Apr 2023) step1_supervised_finetuning/main.py · DeepSpeed 0.9.0 ") +
              (zero1 ? "ZeRO-1" : "ZeRO-2") +
              std::string(" (reduce_bucket_size 5e8, contiguous_gradients, no overlap_comm), FusedAdam, fp16 · "
                          "transformers 4.29.0.dev0 OPTForCausalLM (eager attention") +
              (ckpt ? ", --gradient_checkpointing: a reentrant checkpoint a layer" : "") + ") · PyTorch 2.0 · data-parallel rank 0 of " +
              with_commas(dp);
  p.phase = phase;
  p.peak_allocated_bytes = top.value();
  p.weights_bytes = flat16.value();
  p.master_bytes = master.value();
  p.optimizer_bytes = adam.value();
  p.trainable_params = P;
  p.fixed_bytes = fixed.value();
  const Checked after_step = base;
  p.stages.push_back({.stage = 0, .first_layer = 0, .layers = L, .params_gpu = P, .inflight = 1,
                      .activation_bytes = (stored + final_norm + positions).value(), .peak_allocated_bytes = top.value(),
                      .total_bytes = top.value(), .after_step_bytes = after_step.value()});

  const std::string src_zero = "DeepSpeed 0.9.0 runtime/zero/stage_1_and_2.py";
  const std::string src_opt = "transformers 4.29.0.dev0 models/opt/modeling_opt.py";
  auto part_ = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  part_(Str::recipe_part_mg_params, flat16, row_arg(Str::rfx_ds_params, with_commas(part.padded[0] + part.padded[1]), with_commas(P), with_commas(dp)),
        src_zero + " __init__ (bit16_groups_flat)");
  part_(Str::recipe_part_mg_master, master, row_arg(Str::rfx_ds_master, with_commas(part.part[0] + part.part[1]), with_commas(dp)),
        src_zero + " __init__ (single_partition_of_fp32_groups)");
  part_(Str::recipe_part_optimizer, adam, row_arg(Str::rfx_ds_adam, with_commas(part.part[0] + part.part[1])),
        "DeepSpeed 0.9.0 ops/adam/fused_adam.py FusedAdam.step");
  part_(Str::recipe_part_ds_logits, outputs, row_arg(Str::rfx_ds_logits, with_commas(V)), "DeepSpeed-Chat main.py (outputs); " + src_opt);
  part_(Str::recipe_part_ds_fixed, fixed, row_arg(Str::rfx_ds_fixed, with_commas(kCublasWorkspace)), "ATen CublasHandlePool.cpp getNewWorkspace");
  const std::string dropout_masks = w.dropout ? " + 2 · N·h" : "";
  auto layer_row = [&]() { return row_arg(Str::rfx_ds_layer, with_commas(A.value()), with_commas(F), dropout_masks); };
  const std::string src_layers = src_opt + " OPTAttention, OPTDecoderLayer";
  const std::string src_ckpt = src_opt + " OPTDecoder (gradient_checkpointing); torch utils/checkpoint.py CheckpointFunction";
  const std::string src_zero_z1 = src_zero + " __init__ (no gradient hooks for ZeRO-1), reduce_gradients";
  Checked grads, saved, head;
  if (phase != RecipePhase::DeepSpeedStep && phase != RecipePhase::DeepSpeedGather)
    part_(Str::recipe_part_ds_bucket, bucket, row_arg(Str::rfx_ds_bucket, with_commas(kReduceBucket)), src_zero + " backward (ipg_buffer)");
  if (phase == RecipePhase::DeepSpeedLoss) {
    saved = batch + stored + final_norm + positions;
    head = outputs + loss;
    grads = bucket;
    if (ckpt) part_(Str::recipe_part_checkpoints, stored, row_arg(Str::rfx_ds_checkpoints, with_commas(L)), src_ckpt);
    else part_(Str::recipe_part_layers_saved, all_layers, row_arg(Str::rfx_tt_layers, with_commas(L), layer_row()), src_layers);
    part_(Str::recipe_part_mg_final_norm, final_norm, Str::rfx_ds_final, src_opt + " OPTDecoder");
    part_(Str::recipe_part_ds_loss, loss, row_arg(Str::rfx_ds_loss, with_commas(Ts.value())),
          "torch cross_entropy: log_softmax, nll_loss; NllLossBackward0, LogSoftmaxBackward0");
  } else if (phase == RecipePhase::DeepSpeedLayer) {
    const Checked kept = at_relu ? kept_relu : held + attn_rest;
    const Checked inflight = at_relu ? R(T * F * 2) * 2 + U2 : A4 + A2 + U2 * 2;
    const Checked partition = at_relu ? partition_if(2 * C + C * F + C) : partition_if(2 * C + (C * F + C) + (F * C + F) + 2 * C + (C * C + C));
    const Checked arrived = arrived_grads(at_relu ? grads_relu : grads_attn);
    saved = batch + kept + positions + inflight;
    head = outputs;
    grads = bucket + partition + arrived + head_grad;
    part_(Str::recipe_part_gradients, arrived, row_arg(Str::rfx_ds_grads_z1, at_relu ? "4" : "12"), src_zero_z1);
    if (ckpt) {
      const Checked inputs = U2 * L + mask4d;
      part_(Str::recipe_part_checkpoints, inputs, row_arg(Str::rfx_ds_checkpoints, with_commas(L)), src_ckpt);
      part_(Str::recipe_part_layer, at_relu ? attn_rest + mlp_side_relu + U2 : attn_rest + U2,
            at_relu ? row_arg(Str::rfx_ds_rerun_relu, with_commas(A.value()), with_commas(F)) : row_arg(Str::rfx_ds_rerun_attn, with_commas(A.value())),
            src_ckpt);
    } else {
      part_(Str::recipe_part_layers_saved, kept, row_arg(Str::rfx_tt_layers, with_commas(L), layer_row()), src_layers);
    }
    part_(Str::recipe_part_layer_grads, inflight, at_relu ? row_arg(Str::rfx_ds_inflight_mlp, with_commas(F)) : RowArg(Str::rfx_ds_inflight_attn),
          "torch autograd: ThresholdBackward0, ToCopyBackward0, SoftmaxBackward0");
    part_(Str::recipe_part_ds_head_grad, head_grad, row_arg(Str::rfx_ds_head_grad, with_commas(V * C)), "torch autograd InputBuffer (AccumulateGrad)");
    part_(Str::recipe_part_ds_partition, partition, row_arg(Str::rfx_ds_partition, with_commas(part.gip)), src_zero + " copy_grads_in_partition");
  } else if (phase == RecipePhase::DeepSpeedEmbedding) {
    const Checked partition = partition_if(P - V * C);
    saved = batch + embed_work;
    head = outputs;
    grads = bucket + partition + arrived_grads(other_grads) + head_grad * 2;
    part_(Str::recipe_part_gradients, arrived_grads(other_grads), row_arg(Str::rfx_ds_grads_z1, with_commas(static_cast<i64>(ps.size()) - 1)),
          src_zero_z1);
    part_(Str::recipe_part_tt_embedding, embed_work, Str::rfx_tt_embedding, "torch aten/src/ATen/native/cuda/Embedding.cu embedding_dense_backward_cuda");
    part_(Str::recipe_part_ds_head_grad, head_grad * 2, row_arg(Str::rfx_ds_embed_grads, with_commas(V * C)), "torch autograd InputBuffer (AccumulateGrad)");
    part_(Str::recipe_part_ds_partition, partition, row_arg(Str::rfx_ds_partition, with_commas(part.gip)), src_zero + " copy_grads_in_partition");
  } else if (phase == RecipePhase::DeepSpeedReduce) {
    saved = batch;
    head = outputs;
    grads = bucket + gip + not_yet;
    part_(Str::recipe_part_ds_partition, gip, row_arg(Str::rfx_ds_partition, with_commas(part.gip)), src_zero + " copy_grads_in_partition");
    part_(Str::recipe_part_gradients, not_yet, Str::rfx_ds_grads_not_yet, src_zero_z1);
  } else if (phase == RecipePhase::DeepSpeedGather) {
    saved = batch;
    head = outputs;
    grads = gather_flat;
    part_(Str::recipe_part_ds_gather, gather_flat, row_arg(Str::rfx_ds_gather, with_commas(dp), with_commas(gather_shard)),
          "DeepSpeed 0.9.0 runtime/utils.py all_gather_dp_groups; torch ProcessGroupNCCL::allgather (flatten_for_scatter_gather)");
  } else {
    saved = batch;
    head = outputs;
    grads = gip + step_copy;
    part_(Str::recipe_part_ds_partition, gip, row_arg(Str::rfx_ds_partition, with_commas(part.gip)), src_zero + " copy_grads_in_partition");
    part_(Str::recipe_part_ds_step_copy, step_copy, row_arg(Str::rfx_ds_step_copy, with_commas(part.max_piece), with_commas(part.part[0])),
          src_zero + " step, get_grad_norm_direct");
  }
  const bool positions_kept = phase == RecipePhase::DeepSpeedLoss || phase == RecipePhase::DeepSpeedLayer;
  part_(Str::recipe_part_ids, positions_kept ? batch + positions : batch, positions_kept ? Str::rfx_ds_ids_positions : Str::rfx_ds_ids,
        "DeepSpeed-Chat main.py (batch), utils/data/data_utils.py; " + src_opt + " OPTLearnedPositionalEmbedding");
  p.gradient_bytes = grads.value();
  p.saved_bytes = saved.value();
  p.head_bytes = head.value();
  sort_parts(p);
  return p;
}

}  // namespace llmsize::core::recipe_detail

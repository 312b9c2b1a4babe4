// recipe_peak(): the LitGPT LoRA and LLaMA-Adapter recipes' peak allocation, tensor by tensor
// (training_recipe.hpp).
//
// Followed: Lightning-AI/litgpt 8641822b3249bb94f068c254aa5d13decbc9f0a0 finetune/{lora,adapter,
// adapter_v2}.py, lit_gpt/{lora,adapter,adapter_v2,model,utils,rmsnorm}.py; Lightning 71aed751 fabric/wrappers.py, plugins/precision/
// {half,bitsandbytes}.py; bitsandbytes 0.41.1 functional.py, autograd/_functions.py; PyTorch 2.1.0
// tools/autograd/derivatives.yaml with gen_variable_type.py's rule that an input is saved only when
// the operand whose gradient needs it requires grad (so a frozen Linear never keeps its input),
// flash attention's saved tensors (flash_api.cpp) and the caching allocator's 512-byte rounding.
// PyTorch 2.1.0's sdp_utils.cpp (which kernel scaled_dot_product_attention takes) and
// attention.cpp _scaled_dot_product_attention_math. Checked against the single-GPU LoRA, QLoRA and
// Adapter rows of litgpt tutorials/resource-tables.md, and its multi-GPU LoRA rows (FSDP, below;
// tests/calibration/training/litgpt_test.cpp).
#include "training_recipe.hpp"

#include <algorithm>
#include <array>

#include "issue.hpp"
#include "params.hpp"

namespace llmsize::core {

Str recipe_phase_row(RecipePhase phase) {
  switch (phase) {
    case RecipePhase::CrossEntropyBackward: return Str::recipe_phase_ce_backward;
    case RecipePhase::LmHeadBackward: return Str::recipe_phase_lm_head_backward;
    case RecipePhase::EndOfForward: return Str::recipe_phase_end_of_forward;
    case RecipePhase::ConvertOutput: return Str::recipe_phase_convert_output;
    case RecipePhase::LossForward: return Str::recipe_phase_loss_forward;
    case RecipePhase::LayerBackward: return Str::recipe_phase_layer_backward;
    case RecipePhase::OptimizerStep: return Str::recipe_phase_optimizer_step;
    case RecipePhase::EmbeddingBackward: return Str::recipe_phase_embedding_backward;
    case RecipePhase::MegatronLoss: return Str::recipe_phase_mg_loss;
    case RecipePhase::AttentionForward: return Str::recipe_phase_attention_forward;
    case RecipePhase::MlpBackward: return Str::recipe_phase_mlp_backward;
    case RecipePhase::LossBackward: return Str::recipe_phase_loss_backward;
    case RecipePhase::EmbeddingGradient: return Str::recipe_phase_embedding_gradient;
    case RecipePhase::ChunkedLossForward: return Str::recipe_phase_tt_chunked_loss;
    case RecipePhase::FusedAdamStep: return Str::recipe_phase_tt_step;
    case RecipePhase::EmbeddingGradientInBwd: return Str::recipe_phase_embedding_gradient_in_bwd;
    case RecipePhase::FsdpLossBackward: return Str::recipe_phase_lg_fsdp_loss;
    case RecipePhase::FsdpRecompute: return Str::recipe_phase_lg_fsdp_recompute;
    case RecipePhase::FsdpGradCopy: return Str::recipe_phase_lg_fsdp_copy;
    case RecipePhase::MegatronStep: return Str::recipe_phase_mg_step;
    case RecipePhase::MegatronRecompute: return Str::recipe_phase_mg_recompute;
    case RecipePhase::MegatronRerun: return Str::recipe_phase_mg_rerun;
    case RecipePhase::DeepSpeedLoss: return Str::recipe_phase_ds_loss;
    case RecipePhase::DeepSpeedLayer: return Str::recipe_phase_ds_layer;
    case RecipePhase::DeepSpeedEmbedding: return Str::recipe_phase_ds_embedding;
    case RecipePhase::DeepSpeedStep: return Str::recipe_phase_ds_step;
    case RecipePhase::DeepSpeedReduce: return Str::recipe_phase_ds_reduce;
    case RecipePhase::DeepSpeedGather: return Str::recipe_phase_ds_gather;
  }
  return Str::recipe_phase_ce_backward;
}

std::string recipe_part_formula(const RecipePart& part, Lang lang) {
  return lang == Lang::En || !part.formula_in ? part.formula : part.formula_in(lang);
}
std::string recipe_part_source(const RecipePart& part, Lang lang) {
  return lang == Lang::En || !part.source_in ? part.source : part.source_in(lang);
}


namespace recipe_detail {


// bitsandbytes functional.py quantize_4bit (0.41.1 and 0.43.3 alike): the packed weight, the NF4
// code (get_4bit_type, a new 16-entry tensor each call), and the absmax: fp32 per 64 values, or
// (compress_statistics) quantize_blockwise of it, uint8 per 64 with an fp32 absmax per 256 blocks
// and the mean it subtracted (offset).
Checked bnb4_linear_bytes(i64 in, i64 out, bool double_quant) {
  const Checked n = Checked(in) * out;
  if (!n.ok()) return n;
  const i64 blocks = ceil_div(n.value(), 64);
  Checked b = rounded(Checked(ceil_div(n.value(), 2))) + rounded(Checked(16 * 4));
  if (!double_quant) return b + rounded(Checked(blocks) * 4);
  return b + rounded(Checked(blocks)) + rounded(Checked(ceil_div(blocks, 256)) * 4) + rounded(Checked(4));
}

FlatParam fsdp_flat_param(const std::vector<Checked>& numels, i64 world) {
  FlatParam f;
  Checked t(0);
  for (const Checked& n : numels) {
    if (t.ok() && n.ok() && n.value() > 0 && t.value() % 8 != 0) t = Checked(ceil_div(t.value(), 8) * 8);
    f.offsets.push_back(t.ok() ? t.value() : 0);
    t += n;
  }
  f.unpadded = t;
  f.padded = t.ok() ? Checked(ceil_div(t.value(), world) * world) : t;
  return f;
}

std::optional<Issue> refuse(Str why, const std::string& arg) { return issue_row("recipe", why, arg); }

void add_part(RecipePeak& p, Str label, Checked bytes, const RowArg& formula, const RowArg& source) {
  if (bytes.value() <= 0) return;
  RecipePart x{label, bytes.value(), formula.in(Lang::En), source.in(Lang::En)};
  if (formula.row || formula.fn) x.formula_in = [formula](Lang l) { return formula.in(l); };
  if (source.row || source.fn) x.source_in = [source](Lang l) { return source.in(l); };
  p.parts.push_back(std::move(x));
}

void sort_parts(RecipePeak& p) {
  std::stable_sort(p.parts.begin(), p.parts.end(), [](const RecipePart& x, const RecipePart& y) { return x.bytes > y.bytes; });
}

LayerMoment layer_backward_moment(Checked held, Checked mlp_saved, Checked io, Checked mlp_moment, Checked attn_moment) {
  const Checked at_mlp = held + mlp_moment;
  if (!at_mlp.ok() || !mlp_saved.ok() || !(held + attn_moment).ok()) return {held + mlp_saved + mlp_moment + attn_moment, io};
  const Checked after_mlp(held.value() - mlp_saved.value());
  if (at_mlp.value() >= (after_mlp + attn_moment).value()) return {held, io + mlp_moment};
  return {after_mlp, io + attn_moment};
}

}  // namespace recipe_detail

using namespace recipe_detail;

namespace {

// lit_gpt/adapter.py Config: adapter_prompt_length = 10, adapter_start_layer = 2.
constexpr i64 kPrompt = 10, kAdapterStart = 2;
constexpr i64 kChunk = 128;  // finetune/lora.py: model(input_ids, lm_head_chunk_size=128); chunked_cross_entropy follows

enum class Arch : std::uint8_t { Llama, NeoX, Phi };
enum class Quant : std::uint8_t { None, Nf4, Nf4Dq };

Checked R(Checked bytes) { return rounded(bytes); }

std::optional<Issue> litgpt_scope(const ModelConfig& c, const Workload& w, const Gpu& gpu, Arch& arch, Quant& quant) {
  if (w.mode != Mode::Training) return refuse(Str::recipe_training_only);
  if (c.family == Family::Llama && c.norm == NormKind::RmsNorm && c.ffn_kind == FfnKind::Gated && !c.parallel_block)
    arch = Arch::Llama;
  else if (c.family == Family::GptNeoX && c.parallel_block && c.norm_ffn_input && c.ffn_kind == FfnKind::Classic)
    arch = Arch::NeoX;
  else if (c.family == Family::Phi && c.parallel_block && !c.norm_ffn_input && c.ffn_kind == FfnKind::Classic)
    arch = Arch::Phi;
  else return refuse(Str::recipe_litgpt_family, std::string(family_id(c.family)));
  if (c.n_kv_heads != c.n_heads || c.is_moe() || c.sliding_window > 0 || c.pos != PosKind::Rotary || c.varies_by_layer() ||
      c.head_dim * c.n_heads != c.d_model || c.tie_embeddings || c.norm_qk || c.vision.kind != VisionKind::None)
    return refuse(Str::recipe_litgpt_shape);
  // One GPU, or finetune/lora.py's FSDPStrategy over data-parallel GPUs (devices > 1).
  const bool fsdp = w.sharding == Sharding::Fsdp;
  if (w.tp != 1 || w.pp != 1 || w.ep != 1 || (w.sharding != Sharding::None && !fsdp) || (w.gpus != 1) != fsdp)
    return refuse(Str::recipe_litgpt_one_gpu);
  if (fsdp && w.adapter != Adapter::None) return refuse(Str::recipe_litgpt_fsdp_adapter);
  if (w.lora_rank <= 0 && w.adapter == Adapter::None) return refuse(Str::recipe_litgpt_lora);
  if (w.adapter == Adapter::None && w.lora_targets != (kLoraQ | kLoraV)) return refuse(Str::recipe_litgpt_targets);
  if (w.adapter != Adapter::None && c.n_layers <= kAdapterStart)
    return refuse(Str::recipe_litgpt_adapter_layers, std::to_string(c.n_layers));
  if (w.precision != Precision::Pure || w.dtype != ComputeDtype::BF16) return refuse(Str::recipe_litgpt_precision);
  if (w.recompute != (fsdp ? Recompute::Full : Recompute::None)) return refuse(Str::recipe_litgpt_recompute);
  if (w.qlora || w.weights == WeightFormat::Nf4Dq) quant = Quant::Nf4Dq;
  else if (w.weights == WeightFormat::Nf4) quant = Quant::Nf4;
  else if (w.weights == WeightFormat::BF16) quant = Quant::None;
  else return refuse(Str::recipe_litgpt_weights, std::string(to_string(w.weights)));
  if (fsdp && quant != Quant::None) return refuse(Str::recipe_litgpt_fsdp_quant);
  // scaled_dot_product_attention(is_causal=True) without a mask takes flash attention for bf16 on
  // sm80 to sm90 (sdp_utils.cpp use_flash_attention). PyTorch 2.1 (the LoRA rows): FlashAttention 1,
  // head sizes ≤ 128 and a multiple of 8 (check_head_dim_size), on sm86 to sm89 in training only ≤ 64
  // (check_requires_grad_and_head_dim_gt64_and_sm_ge86_lt90). PyTorch 2.2 (the adapter rows):
  // FlashAttention 2, ≤ 256, on sm86 to sm89 in training ≤ 192. Other kernels save other tensors.
  const double cc = gpu.cuda_cc;
  const bool torch22 = w.adapter != Adapter::None;
  const i64 hd_max = torch22 ? 256 : 128, hd_max_sm86 = torch22 ? 192 : 64;
  if (cc < 8.0 || cc > 9.0 || c.head_dim > hd_max || c.head_dim % 8 != 0 || (cc >= 8.6 && cc < 9.0 && c.head_dim > hd_max_sm86))
    return refuse(Str::recipe_litgpt_flash, gpu.name);
  return std::nullopt;
}


// --- finetune/lora.py with devices > 1, the rows of resource-tables.md's "Finetuning with LoRA on
// Multiple GPUs": FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block},
// limit_all_gathers=True, cpu_offload=False) at Lightning 71aed751, on PyTorch 2.1.0's
// FullyShardedDataParallel. Followed:
// - lightning fabric/strategies/fsdp.py: use_orig_params defaults to True (torch ≥ 2.0), FULL_SHARD,
//   BACKWARD_PRE; setup_module wraps first, then _setup_activation_checkpointing puts each Block in a
//   checkpoint_wrapper (NO_REENTRANT) inside its FSDP unit. plugins/precision/fsdp.py bf16-true:
//   param, reduce and buffer dtypes bf16, the parameters' own, so FSDP makes no low-precision copies.
// - torch distributed/fsdp/_flat_param.py FlatParamHandle._init_flat_param_and_metadata: a unit's
//   parameters in registration order, each starting at a multiple of 8 bf16 values
//   (align_addresses with use_orig_params), the whole padded to a multiple of the world size;
//   _get_shard: one equal shard a rank. Units: each Block (norm_1; attn's LoRAQKVLinear: linear,
//   lora_A, lora_B; proj; norm_2; mlp) and the root (lm_head, wte, ln_f), frozen.
// - With use_orig_params, a unit that mixes frozen and trainable parameters has one flat parameter
//   that requires grad (FSDP's documentation: gradient memory "equivalent to not freezing"):
//   _use_unsharded_views makes each parameter a view of it, so backward computes every frozen
//   weight's gradient, each its own tensor, and SplitWithSizesBackward copies them into one flat
//   gradient (the unpadded unsharded size) once the Block's last one arrives.
// - Gradient accumulation (batch_size 128 / micro_batch_size micro-batches a step) runs under
//   fabric.no_backward_sync, FullyShardedDataParallel.no_sync: _post_backward_hook leaves the
//   unsharded gradient in .grad, AccumulateGrad adds each micro-batch's into it, and
//   _finalize_params "Preserve[s] the gradient accumulation state if not synchronizing"; the step's
//   last backward reduce-scatters. From a step's second micro-batch on, every Block's whole
//   gradient is on every rank.
// - _runtime_utils.py _post_forward_reshard frees each unit's gathered parameter after its forward
//   but the root's, which stays unsharded to the end of backward; _pre_backward_hook gathers the
//   Block and, BACKWARD_PRE, prefetches the next (_prefetch_handle).
// The root's parameters are all frozen: no gradient, no hook. fabric.print shows rank 0's
// max_memory_allocated. Every micro-batch is taken as long as --seq: the script puts the longest
// sample in the first micro-batch only, and with the gradients of a whole step live a later,
// shorter one can hold the peak, so the figure bounds it (tests/calibration/training/litgpt_test.cpp).
template <class HeadParts>
Result<RecipePeak> litgpt_fsdp_peak(const ModelConfig& c, const Workload& w, const ParamReport& counted, Arch arch, Checked fixed,
                                    i64 rope, Checked head, const HeadParts& head_parts) {
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, V = c.vocab, nh = c.n_heads, r = w.lora_rank, ws = w.gpus, a = w.grad_accum;
  const bool llama = arch == Arch::Llama, phi = arch == Arch::Phi;
  const Checked N = Checked(w.batch) * w.seq;
  if (counted.kinds.size() != 1) return refuse(Str::recipe_litgpt_shape).value();
  const i64 per_layer = counted.kinds.front().params_per_layer;
  // A Block's parameters in registration order (lit_gpt/lora.py Block, CausalSelfAttention,
  // LoRAQKVLinear; model.py LLaMAMLP / GptNeoxMLP); `true` marks lora_A and lora_B.
  std::vector<std::pair<Checked, bool>> block;
  auto add = [&](Checked n, bool lora = false) { block.push_back({n, lora}); };
  const Checked CC = Checked(C) * C, CI = Checked(C) * I;
  add(Checked(C));
  if (!llama) add(Checked(C));  // LayerNorm's bias
  add(CC * 3);
  if (!llama) add(Checked(3 * C));
  add(Checked(2 * r) * C, true);
  add(Checked(2 * C) * r, true);
  add(CC);
  if (!llama) add(Checked(C));
  if (!phi) {  // norm_2 (Phi's shared_attention_norm has none)
    add(Checked(C));
    if (!llama) add(Checked(C));
  }
  if (llama) add(CI), add(CI), add(CI);
  else add(CI), add(Checked(I)), add(CI), add(Checked(C));
  Checked sum, lora_sum;
  for (const auto& [n, lora] : block) (lora ? lora_sum : sum) += n;
  const Checked head_wte = Checked(V) * C * 2;
  if (!sum.ok() || sum.value() != per_layer || !head_wte.ok() || counted.total - per_layer * L < head_wte.value())
    return refuse(Str::recipe_litgpt_shape).value();
  const i64 root_rest = counted.total - per_layer * L - head_wte.value();  // ln_f, lm_head's bias
  const Checked root_p = fsdp_flat_param({Checked(V) * C, Checked(V) * C, Checked(root_rest)}, ws).padded;  // lm_head, wte, the rest
  std::vector<Checked> block_numels;
  for (const auto& [n, lora] : block) block_numels.push_back(n);
  const FlatParam block_flat = fsdp_flat_param(block_numels, ws);
  const std::vector<i64>& offsets = block_flat.offsets;
  const Checked block_u = block_flat.unpadded, block_p = block_flat.padded;
  if (!block_p.ok() || !root_p.ok()) return memory_overflow("seq");
  const i64 shard = block_p.value() / ws;
  const Checked root_shard(root_p.value() / ws), block_shard(shard);
  // torch.optim.AdamW (foreach) on the original parameters, which with use_orig_params are views
  // of the rank's shard: exp_avg and exp_avg_sq (zeros_like, bf16) of rank 0's part of each LoRA
  // tensor, none where it holds no part of one; the step counts stay on the CPU.
  Checked states, pieces;
  for (size_t i = 0; i < block.size(); ++i) {
    pieces += R(block[i].first * 2);  // each parameter's gradient (SplitWithSizesBackward's inputs)
    if (!block[i].second || !block[i].first.ok()) continue;
    const i64 local = std::max<i64>(0, std::min(offsets[i] + block[i].first.value(), shard) - offsets[i]);
    if (local > 0) states += R(Checked(local) * 2) * 2 * L;
  }
  const Checked shards = R(root_shard * 2) + R(block_shard * 2) * L;
  const Checked root_full = R(root_p * 2), block_full = R(block_p * 2), block_grad = R(block_u * 2);
  const Checked NC2 = R(N * C * 2), NI2 = R(N * I * 2), ids = R(N * 8) * 2;
  auto ckpt = [&](i64 blocks) { return NC2 * blocks; };
  // The Block's forward as its checkpoint recomputes it: every weight needs a gradient here, so
  // every Linear keeps its input. Llama: each RMSNorm keeps x·x (torch 2.1's mean), the rsqrt and
  // x_normed for its weight, norm_2 also its input x + attention (norm_1's is the Block's input,
  // held by the checkpoint); qkv keeps the norm's output; the LoRA branch as on one GPU, its dropout
  // mask included; flash attention v's qkv, q, k, the output and its logsumexp; proj the output's
  // copy; fc_1 and fc_2 one input, silu x_fc_1, the product its two factors, mlp.proj the product.
  // GPT-NeoX and Phi: each LayerNorm its mean and rstd (fp32) and its output for the Linear after it
  // (Phi's one norm feeds attention and MLP), gelu the fc output, mlp.proj gelu's.
  const Checked lora_branch = R(N * C) + R(N * C * 2) + R(N * 2 * r * 2) + R(N * 2 * C * 2) + R(Checked(8) * 2 * C);
  const Checked attention = R(N * 3 * C * 2) + NC2 * 2 + NC2 + R(N * nh * 4);
  Checked recompute = NC2 + lora_branch + attention + NC2;  // the norm's output qkv keeps … proj's input
  if (llama) recompute += (NC2 * 2 + R(N * 2)) * 2 + NC2 + NC2 + NI2 * 4;
  else recompute += R(N * 4) * 2 * (phi ? 1 : 2) + (phi ? Checked() : NC2) + NI2 * 2;
  const Checked io = NC2 * 2;  // the Block's output gradient and its input's
  const Checked final_norm = llama ? NC2 * 2 + R(N * 2) : NC2 + R(N * 4) * 2;  // ln_f (lm_head is frozen: its input is not kept)
  const bool nosync = a > 1;
  const Checked grads_all = nosync ? block_grad * L : Checked();
  const Checked base = shards + states + root_full + ids + fixed;
  const i64 last_gathered = L > 1 ? 2 : 1;
  struct Moment {
    RecipePhase phase;
    Checked bytes;
    i64 k;
  };
  std::vector<Moment> moments = {
      {RecipePhase::FsdpLossBackward, base + grads_all + ckpt(L) + final_norm + head, L},
      {RecipePhase::FsdpRecompute, base + grads_all + ckpt(L) + block_full * last_gathered + recompute + NC2, L - 1},
      {RecipePhase::FsdpGradCopy, base + grads_all + ckpt(L) + block_full * last_gathered + pieces + block_grad + io, L - 1},
  };
  // Without accumulation every backward reduce-scatters: at Block 0 the shards of the L − 1 after it.
  if (!nosync) moments.push_back({RecipePhase::FsdpGradCopy, base + R(block_shard * 2) * (L - 1) + ckpt(1) + block_full + pieces + block_grad + io, 0});
  const Moment* top = &moments.front();
  for (const Moment& m : moments) {
    if (!m.bytes.ok()) return memory_overflow("seq");
    if (m.bytes.value() > top->bytes.value()) top = &m;
  }

  RecipePeak p;
  p.recipe = Recipe::LitGpt;
  p.version = "LitGPT 8641822 finetune/lora.py · Lightning 71aed751 FSDPStrategy (FULL_SHARD, use_orig_params, Block checkpointing) · PyTorch 2.1.0";
  p.phase = top->phase;
  p.peak_allocated_bytes = top->bytes.value();
  p.weights_bytes = shards.value();
  p.optimizer_bytes = states.value();
  p.fixed_bytes = fixed.value();
  p.trainable_params = (lora_sum * L).value();
  const bool loss = top->phase == RecipePhase::FsdpLossBackward;
  const Checked gathered = root_full + (loss ? Checked() : block_full * (top->k > 0 ? 2 : 1));
  const Checked grads = top->k == 0 ? R(block_shard * 2) * (L - 1) : grads_all;
  const Checked inflight = top->phase == RecipePhase::FsdpGradCopy ? pieces + block_grad + io : Checked();
  const Checked saved = ckpt(top->k == 0 ? 1 : L) + ids + (loss ? final_norm : top->phase == RecipePhase::FsdpRecompute ? recompute + NC2 : Checked());
  p.gathered_bytes = gathered.value();
  p.gradient_bytes = (grads + inflight).value();
  p.saved_bytes = saved.value();
  p.head_bytes = loss ? head.value() : 0;

  const std::string n_s = "N = batch × seq = " + with_commas(N.value());
  const std::string src_fsdp = "torch distributed/fsdp/_runtime_utils.py (_post_forward_reshard, _pre_backward_hook, _prefetch_handle, _post_backward_hook, _finalize_params)";
  auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  part(Str::recipe_part_weights, shards,
       row_arg(Str::rfx_weights_fsdp, with_commas(root_p.value()), with_commas(L), with_commas(block_p.value()), with_commas(ws)),
       "torch distributed/fsdp/_flat_param.py FlatParamHandle (use_orig_params); lightning fabric/strategies/fsdp.py");
  part(Str::recipe_part_optimizer, states, row_arg(Str::rfx_lg_fsdp_adam, with_commas(L)), "torch optim/adamw.py _multi_tensor_adamw (zeros_like(p))");
  part(Str::recipe_part_gathered, gathered,
       loss ? row_arg(Str::rfx_gathered_root, with_commas(root_p.value()))
            : row_arg(Str::rfx_gathered_layers, with_commas(root_p.value()), top->k > 0 ? "2" : "1", with_commas(block_p.value())),
       src_fsdp);
  part(Str::recipe_part_gradients, grads,
       top->k == 0 ? row_arg(Str::rfx_lg_fsdp_grads_sync, with_commas(L - 1))
                   : row_arg(Str::rfx_lg_fsdp_grads_nosync, with_commas(block_u.value()), with_commas(L), with_commas(a)),
       "torch distributed/fsdp/fully_sharded_data_parallel.py no_sync; _runtime_utils.py _post_backward_hook, _finalize_params");
  part(Str::recipe_part_layer_grads, inflight, row_arg(Str::rfx_lg_fsdp_copy, with_commas(sum.value() + lora_sum.value()), with_commas(block_u.value())),
       "torch autograd SplitWithSizesBackward (split_with_sizes_backward: cat), AccumulateGrad");
  part(Str::recipe_part_checkpoints, ckpt(top->k == 0 ? 1 : L), row_arg(Str::rfx_lg_fsdp_ckpt, with_commas(top->k == 0 ? 1 : L), n_s),
       "torch distributed/algorithms/_checkpoint/checkpoint_wrapper.py (NO_REENTRANT)");
  if (top->phase == RecipePhase::FsdpRecompute)
    part(Str::recipe_part_layer, recompute + NC2, llama ? Str::rfx_lg_fsdp_recompute_llama : Str::rfx_lg_fsdp_recompute_neox,
         "torch utils/checkpoint.py _checkpoint_without_reentrant; lit_gpt/lora.py, model.py Block");
  part(Str::recipe_part_ids, ids, Str::rfx_ids, "finetune/lora.py get_batch");
  if (loss) {
    part(Str::recipe_part_norms, final_norm, llama ? Str::rfx_lg_fsdp_ln_f_rms : Str::rfx_lg_fsdp_ln_f_ln, llama ? RowArg("rmsnorm.py RMSNorm.forward") : RowArg(Str::rfx_src_layer_norm));
    head_parts(p);
  }
  part(Str::recipe_part_fixed, fixed, row_arg(Str::rfx_fixed, with_commas(rope), with_commas(kCublasWorkspace)), Str::rfx_src_fixed);
  sort_parts(p);
  return p;
}

}  // namespace

Result<RecipePeak> recipe_peak(const ModelConfig& c, const Workload& w, const Gpu& gpu) {
  Arch arch = Arch::Llama;
  Quant quant = Quant::None;
  // torchtune's OffloadActivations is the one offloading a recipe here follows.
  if (w.offload_activations && w.recipe != Recipe::Torchtune) return issue_row("aoff", Str::recipe_offload_torchtune);
  if (w.optimizer_in_bwd && w.recipe != Recipe::Torchtune) return issue_row("oib", Str::recipe_oib_torchtune);
  if (w.recipe == Recipe::HfPeft) return hf_peft_peak(c, w, gpu);
  if (w.recipe == Recipe::Megatron) return megatron_peak(c, w, gpu);
  if (w.recipe == Recipe::Torchtune) return torchtune_peak(c, w, gpu);
  if (w.recipe == Recipe::DeepSpeed) return deepspeed_peak(c, w, gpu);
  if (w.recipe != Recipe::LitGpt) return issue_row("recipe", Str::recipe_training_only);
  if (auto bad = litgpt_scope(c, w, gpu, arch, quant)) return *bad;
  const auto counted = count_params(c);
  if (!counted) return counted.issues();

  const bool lora = w.adapter == Adapter::None, v2 = w.adapter == Adapter::V2;
  RecipePeak p;
  p.recipe = Recipe::LitGpt;
  // The LoRA rows of resource-tables.md ran commit 8641822 on PyTorch 2.1.0, as the file states.
  // Its adapter rows came with #694 (0f021f3a, the first commit whose adapter scripts take
  // --quantize), whose RMSNorm computes in fp32, on PyTorch 2.2: since #668 (94eba0b5, "Drop
  // flash-attn 2 in favor of PyTorch 2.2") the README installed the 2.2 nightly for flash
  // attention 2, and the rows match only without 2.1's mean-backward copy that 2.2 dropped.
  const bool torch22 = !lora;
  p.version = lora ? "LitGPT 8641822 finetune/lora.py · Lightning 71aed751 · PyTorch 2.1.0 · bitsandbytes 0.41.1"
                   : std::string("LitGPT 0f021f3a finetune/") + (v2 ? "adapter_v2.py" : "adapter.py") +
                         " · Lightning 6dfa5cca · PyTorch 2.2 · bitsandbytes 0.41.1";
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, nh = c.n_heads, hs = c.head_dim, V = c.vocab, r = w.lora_rank,
            T = w.seq, B = w.batch, aT = kPrompt;
  const bool quantized = quant != Quant::None, llama = arch == Arch::Llama, shared_norm = arch == Arch::Phi;
  const Checked N = Checked(B) * T;
  const std::string src_lora = "lit_gpt/lora.py LoRAQKVLinear.forward, zero_pad";
  const std::string src_adapter = "lit_gpt/adapter.py CausalSelfAttention" + std::string(v2 ? ", adapter_v2.py AdapterV2Linear" : "");

  // --- The frozen base and the adapters (finetune/*.py: fabric.init_module under bf16-true;
  // BitsandbytesPrecision swaps every nn.Linear, lm_head included, for a 4-bit one).
  std::vector<std::pair<i64, i64>> linears;  // (in, out) of each nn.Linear of the GPT, as LitGPT builds it
  for (i64 l = 0; l < L; ++l) {
    linears.push_back({C, 3 * C});  // attn.attn: the fused qkv (multi-head)
    linears.push_back({C, C});      // attn.proj
    if (llama) linears.insert(linears.end(), {{C, I}, {C, I}, {I, C}});  // LLaMAMLP fc_1, fc_2, proj
    else linears.insert(linears.end(), {{C, I}, {I, C}});                // GptNeoxMLP fc, proj
  }
  linears.push_back({C, V});  // lm_head
  Checked linear_params;
  for (const auto& [in, out] : linears) linear_params += Checked(in) * out;
  const i64 total = counted->total;
  if (!linear_params.ok() || linear_params.value() > total) return refuse(Str::recipe_litgpt_shape).value();
  Checked weights;
  RowArg weights_formula("");  // the parts' texts in any language (rows of lang/en_recipe_formulas.inc)
  if (!quantized) {
    weights = Checked(total) * 2;  // half.py HalfPrecision.convert_module: module.to(bfloat16)
    weights_formula = row_arg(Str::rfx_weights_bf16, with_commas(total));
  } else {
    // BitsandbytesPrecision: every Linear in 4-bit (bnb4_linear_bytes), nf4 or nf4-dq.
    for (const auto& [in, out] : linears) weights += bnb4_linear_bytes(in, out, quant == Quant::Nf4Dq);
    if (quant == Quant::Nf4Dq) weights += R(Checked(kBnbDynamicMap));  // the shared dynamic 8-bit code map
    weights += Checked(total - linear_params.value()) * 2;      // embedding, norms, biases stay bf16
    weights_formula = row_arg(Str::rfx_weights_4bit, with_commas(static_cast<i64>(linears.size())),
                              quant == Quant::Nf4 ? Str::rfx_absmax_nf4 : Str::rfx_absmax_nf4_dq, with_commas(total - linear_params.value()));
  }
  Checked adapters;
  Checked trainable;
  RowArg adapters_formula("");
  if (lora) {
    // LoRAQKVLinear: lora_A (2r, C) and lora_B (2C, r) for query and value, in the bf16 default dtype.
    adapters = Checked(L) * 4 * r * C * 2;
    trainable = Checked(L) * 4 * r * C;
    adapters_formula = "L · 4 · r · C · 2 B (lora_A 2r × C, lora_B 2C × r)";
  } else {
    // adapter.py CausalSelfAttention, blocks ≥ adapter_start_layer: adapter_wte (10, C) and
    // gating_factor (1, 1, nh, 1) in bf16; and the prompt's qkv (1, 10, 3C), which
    // scaled_dot_product_attention computes once and keeps in adapter_kv_cache. finetune/adapter.py
    // first runs validate() under no_grad, which fills that cache, and nothing clears it: training
    // reuses the cached, gradient-free prompt keys and values.
    const i64 adapted = L - kAdapterStart;
    adapters = (R(Checked(aT) * C * 2) + R(Checked(nh) * 2) + R(Checked(aT) * 3 * C * 2)) * adapted;
    trainable = Checked(adapted) * (aT * C + nh);
    adapters_formula = Str::rfx_adapter_params;
    if (v2) {
      // adapter_v2.py AdapterV2Linear: adapter_bias and adapter_scale (out,) beside every Linear,
      // lm_head included; adapter_filter also trains norm_1, norm_2 and ln_f (weights, LayerNorm's biases).
      for (const auto& [in, out] : linears) {
        adapters += R(Checked(out) * 2) * 2;
        trainable += Checked(out) * 2;
      }
      trainable += Checked(L * (shared_norm ? 1 : 2) + 1) * (llama ? C : 2 * C);
      adapters_formula = row_arg(Str::rfx_adapter_params_v2, adapters_formula);
    }
  }

  // --- Tensors autograd saves for backward. What a block saves depends on which of its tensors
  // need a gradient: its input does once anything before it trains (LoRA: from block 1;
  // LLaMA-Adapter: from block 3, after the first gate; v2: from block 0, through the trained norms
  // and Linear scales), and PyTorch saves an operand only for a gradient it computes
  // (gen_variable_type.py), so a frozen Linear never keeps its input.
  enum { kLoraBranch, kAttention, kPrefix, kNorms, kMeanBug, kMlp, kV2Out, kBnbInputs, kIds, kCount };
  std::array<Checked, kCount> saved{};  // by the parts below
  const Checked NC2 = R(N * C * 2), NI2 = R(N * I * 2);
  // rmsnorm.py: x * rsqrt(mean(x·x) + eps) keeps x and the rsqrt where x needs a gradient, and
  // PyTorch 2.1's mean.dim backward also keeps its input x·x (pytorch#109876, fixed in 2.2 by
  // #109935); a trained weight (v2) keeps x_normed for its own gradient. At 8641822 these are bf16;
  // at 0f021f3a the norm first takes x.float() and casts its output back, so they are fp32.
  const i64 rms_b = lora ? 2 : 4;
  const Checked rms_x = R(N * C * rms_b);
  auto rms = [&](bool in_grad) {
    if (in_grad) {
      saved[kNorms] += rms_x + R(N * rms_b);
      if (!torch22) saved[kMeanBug] += rms_x;
    }
    if (v2) saved[kNorms] += rms_x;
  };
  const Checked ln_stats = R(N * 4) * 2;  // native_layer_norm keeps its input, mean and rstd (fp32)
  bool x_grad = false;                    // the embedding is frozen
  for (i64 l = 0; l < L; ++l) {
    const bool prefix = !lora && l >= kAdapterStart;
    const bool n1_grad = x_grad || v2;
    // The norms. A parallel block (GPT-NeoX, Phi) feeds x to norm_1 and norm_2: one input, kept once.
    if (llama) rms(x_grad);
    else if (n1_grad) saved[kNorms] += NC2 + ln_stats * (shared_norm ? 1 : 2);
    const bool qkv_grad = n1_grad || lora || v2;
    if (lora) {
      // lora.py: lora_dropout(x) keeps its bool mask (native_dropout) where x needs a gradient; mm with
      // lora_A (requires grad) keeps the dropout output; conv1d keeps after_A; zero_pad's index_copy keeps
      // its source (a reshaped copy, 2C wide) and the int64 index rebuilt each forward.
      if (n1_grad) saved[kLoraBranch] += R(N * C);
      saved[kLoraBranch] += R(N * C * 2) + R(N * 2 * r * 2) + R(N * 2 * C * 2) + R(Checked(8) * 2 * C);
    }
    // bitsandbytes MatMul4Bit.forward keeps its input whenever that needs a gradient
    // (ctx.tensors = (A, B) if any(ctx.needs_input_grad[:2])).
    if (quantized && n1_grad) saved[kBnbInputs] += NC2;
    // adapter_v2.py AdapterV2Linear: adapter_scale * (linear(x) + adapter_bias) keeps the sum.
    if (v2) saved[kV2Out] += R(N * 3 * C * 2);
    // model.py CausalSelfAttention: v is a view of qkv, so flash attention's saved v keeps all of it;
    // q and k are new tensors (RoPE and cat); the output and the fp32 logsumexp (B, nh, T).
    if (qkv_grad) saved[kAttention] += R(N * 3 * C * 2) + NC2 * 2 + NC2 + R(N * nh * 4);
    if (prefix) {
      // adapter.py: y + gating_factor * sdpa(q, ak, av, amask); the gate's product keeps the output
      // ay. The boolean mask rules out flash attention. With one sequence, PyTorch 2.2 takes the
      // memory-efficient kernel, which (where q needs a gradient) also keeps its fp32 logsumexp,
      // padded to 32 queries, and the mask as a bf16 bias padded to 16 columns (sdp_utils_cpp.h
      // preprocess_mask, pad_bias). A batch of several sequences against the prompt's one fails
      // its equal-batch check and runs _scaled_dot_product_attention_math: the softmax keeps its
      // result (B, nh, T, 10), bmm the scaled key and a per-sequence copy of av.
      saved[kPrefix] += NC2;
      if (qkv_grad) {
        if (B == 1)
          saved[kPrefix] += R(Checked(nh) * ceil_div(T, 32) * 32 * 4) + R(Checked(T) * 16 * 2);
        else
          saved[kPrefix] += R(N * nh * aT * 2) + R(Checked(B) * nh * aT * hs * 2) * 2;
      }
    }
    const bool attn_grad = qkv_grad || prefix;
    if (v2) saved[kV2Out] += NC2;                          // proj's sum
    if (quantized && attn_grad) saved[kBnbInputs] += NC2;  // proj's input, the attention output's reshape copy
    const bool proj_grad = attn_grad || v2;
    bool fc_grad = false;
    if (llama) {
      const bool h_grad = x_grad || proj_grad;  // norm_2 sees x + attention
      rms(h_grad);
      const bool n2_grad = h_grad || v2;
      fc_grad = n2_grad;
      if (quantized && n2_grad) saved[kBnbInputs] += NC2;
      // LLaMAMLP: silu keeps x_fc_1; the product keeps silu(x_fc_1) and x_fc_2.
      if (fc_grad) saved[kMlp] += NI2 * 3;
      if (v2) saved[kV2Out] += NI2 * 2 + NC2;
      if (quantized && fc_grad) saved[kBnbInputs] += NI2;
    } else {
      const bool n2_grad = n1_grad;  // parallel residual: norm_2 sees the block input
      fc_grad = n2_grad || v2;
      if (quantized && n2_grad && !shared_norm) saved[kBnbInputs] += NC2;
      if (fc_grad) saved[kMlp] += NI2;  // GptNeoxMLP's gelu keeps its input
      if (v2) saved[kV2Out] += NI2 + NC2;
      if (quantized && fc_grad) saved[kBnbInputs] += NI2;
    }
    x_grad = x_grad || proj_grad || fc_grad;
  }
  // ln_f keeps the last block's output (and its statistics); the 4-bit lm_head keeps ln_f's output.
  if (llama) rms(true);
  else saved[kNorms] += NC2 + ln_stats;
  if (quantized) saved[kBnbInputs] += NC2;
  saved[kIds] += R(N * 8) * 2;  // input_ids and targets (int64)

  // --- The logits and the loss (utils.py chunked_cross_entropy over 128-token chunks). Fabric's
  // _FabricModule.forward converts each bf16 chunk to the default dtype, fp32, which the list holds;
  // each loss chunk keeps its fp32 log_softmax; the loss drops the last position.
  std::vector<i64> chunks(static_cast<size_t>(T / kChunk), kChunk);
  if (T % kChunk) chunks.push_back(T % kChunk);
  Checked logits_bf16, logits_fp32, log_softmax, small;
  i64 loss_tokens = 0, widest = 0;
  for (size_t k = 0; k < chunks.size(); ++k) {
    const i64 n = chunks[k], n_loss = k + 1 == chunks.size() ? n - 1 : n;
    logits_bf16 += R(Checked(B) * n * V * 2);
    logits_fp32 += R(Checked(B) * n * V * 4);
    log_softmax += R(Checked(B) * n_loss * V * 4);
    small += R(Checked(B) * n_loss * 4);
    loss_tokens += n_loss;
    widest = std::max(widest, n_loss);
  }
  small += R(Checked(B) * loss_tokens * 4);
  // v2's lm_head is an AdapterV2Linear too: each chunk's sum before the scale is kept.
  if (v2) saved[kV2Out] += logits_bf16;
  // Backward of one loss chunk: nll_loss_backward's zeros_like and _log_softmax_backward_data's output.
  const Checked chunk_grads = R(Checked(B) * widest * V * 4) * 2;
  struct Phase {
    RecipePhase phase;
    Checked bytes;
  };
  std::vector<Phase> phases = {
      {RecipePhase::CrossEntropyBackward, logits_fp32 + log_softmax + small + chunk_grads},
      {RecipePhase::EndOfForward, logits_fp32 + log_softmax + small},
      {RecipePhase::ConvertOutput, logits_bf16 + logits_fp32},
  };
  Checked dequant;
  if (quantized) {
    // MatMul4Bit.backward of lm_head (after every chunk's ToCopyBackward): dequantize_4bit's fp16
    // weight and its bf16 copy (nf4-dq: and the dequantized fp32 absmax), and one chunk's grad.
    const Checked n = Checked(V) * C;
    dequant = R(n * 2) * 2 + (quant == Quant::Nf4Dq ? R(Checked(n.ok() ? ceil_div(n.value(), 64) : 0) * 4) : Checked());
    // v2: the scale's backward first makes the chunk's gradient before the scale, a bf16 chunk.
    const Checked v2_grad = v2 ? R(Checked(B) * std::min(kChunk, T) * V * 2) : Checked();
    phases.push_back({RecipePhase::LmHeadBackward, logits_fp32 + logits_bf16 + dequant + R(Checked(B) * kChunk * C * 2) + v2_grad});
    dequant += v2_grad;
  }
  const Phase* top = &phases.front();
  for (const Phase& ph : phases)
    if (ph.bytes.ok() && top->bytes.ok() && ph.bytes.value() > top->bytes.value()) top = &ph;
  // model.py GPT.max_seq_length setter: cos and sin rebuilt in fp32 (the default dtype then), T × rope_n_elem.
  const i64 rope = static_cast<i64>(c.rotary_fraction * static_cast<double>(c.head_dim));
  const Checked fixed = R(Checked(T) * rope * 4) * 2 + kCublasWorkspace;

  // The logits and loss region's parts at the phase `top` (both layouts).
  auto head_parts = [&](RecipePeak& rp) {
    auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(rp, label, bytes, formula, source); };
    part(Str::recipe_part_logits, logits_fp32, row_arg(Str::rfx_logits, with_commas(V)),
         "lightning fabric/wrappers.py _FabricModule.forward; precision half.py convert_output");
    if (top->phase == RecipePhase::LmHeadBackward) {
      part(Str::recipe_part_chunk_grads, logits_bf16, Str::rfx_chunk_grads_bf16, "autograd ToCopyBackward");
      part(Str::recipe_part_dequant, dequant + R(Checked(B) * kChunk * C * 2), v2 ? row_arg(Str::rfx_dequant_v2, Str::rfx_dequant) : RowArg(Str::rfx_dequant),
           "bitsandbytes functional.py dequantize_4bit; _functions.py MatMul4Bit.backward");
    } else if (top->phase != RecipePhase::ConvertOutput) {
      part(Str::recipe_part_log_softmax, log_softmax + small, Str::rfx_log_softmax, Str::rfx_src_log_softmax);
      if (top->phase == RecipePhase::CrossEntropyBackward)
        part(Str::recipe_part_chunk_grads, chunk_grads, row_arg(Str::rfx_chunk_grads_ce, with_commas(widest)),
             "torch nll_loss_backward, _log_softmax_backward_data");
    } else {
      part(Str::recipe_part_chunk_grads, logits_bf16, Str::rfx_chunk_grads_convert, "fabric wrappers.py");
    }
  };
  for (const Phase& ph : phases)
    if (!ph.bytes.ok()) return memory_overflow("seq");
  if (w.sharding == Sharding::Fsdp) return litgpt_fsdp_peak(c, w, *counted, arch, fixed, rope, top->bytes, head_parts);

  Checked saved_total;
  for (const Checked& s : saved) saved_total += s;
  const Checked peak = weights + adapters + saved_total + top->bytes + fixed;
  if (!peak.ok()) return memory_overflow("seq");

  p.phase = top->phase;
  p.weights_bytes = weights.value();
  p.adapter_bytes = adapters.value();
  if (!trainable.ok()) return memory_overflow("seq");
  p.trainable_params = trainable.value();
  p.saved_bytes = saved_total.value();
  p.head_bytes = top->bytes.value();
  p.fixed_bytes = fixed.value();
  p.peak_allocated_bytes = peak.value();

  const std::string n_s = "N = batch × seq = " + with_commas(N.value());
  // A part whose formula and source are rows (or, where they have no words, texts the same in
  // every language); its English strings are the rows' English.
  auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  part(Str::recipe_part_weights, weights, weights_formula, "fabric init_module (bf16-true); bitsandbytes.py _NF4Linear / _NF4DQLinear");
  part(lora ? Str::recipe_part_adapters : Str::recipe_part_adapter_params, adapters, adapters_formula, lora ? src_lora : src_adapter);
  part(Str::recipe_part_attention, saved[kAttention], row_arg(Str::rfx_attention, n_s), Str::rfx_src_attention);
  part(Str::recipe_part_lora_branch, saved[kLoraBranch], Str::rfx_lora_branch, src_lora);
  part(Str::recipe_part_mlp, saved[kMlp], llama ? Str::rfx_mlp_llama : Str::rfx_mlp_neox,
       llama ? "model.py LLaMAMLP.forward" : "model.py GptNeoxMLP.forward");
  RowArg norms = llama ? (lora ? Str::rfx_norms_rms_bf16 : Str::rfx_norms_rms_fp32) : Str::rfx_norms_ln;
  if (v2 && llama) norms = row_arg(Str::rfx_norms_v2, norms);
  part(Str::recipe_part_norms, saved[kNorms], norms, llama ? RowArg("rmsnorm.py RMSNorm.forward") : RowArg(Str::rfx_src_layer_norm));
  part(Str::recipe_part_mean_bug, saved[kMeanBug], lora ? Str::rfx_mean_bug_bf16 : Str::rfx_mean_bug_fp32, Str::rfx_src_mean_bug);
  part(Str::recipe_part_bnb_inputs, saved[kBnbInputs], Str::rfx_bnb_inputs,
       "bitsandbytes autograd/_functions.py MatMul4Bit.forward (ctx.tensors = (A, B))");
  const std::string src_prefix = "lit_gpt/adapter.py CausalSelfAttention.scaled_dot_product_attention; PyTorch 2.2 ";
  part(Str::recipe_part_prefix, saved[kPrefix], B == 1 ? Str::rfx_prefix_one : Str::rfx_prefix_many,
       B == 1 ? RowArg(src_prefix + "_scaled_dot_product_efficient_attention") : row_arg(Str::rfx_src_prefix_math, src_prefix));
  part(Str::recipe_part_v2_outputs, saved[kV2Out], row_arg(Str::rfx_v2_outputs, llama ? Str::rfx_v2_mlp_llama : Str::rfx_v2_mlp_neox),
       Str::rfx_src_v2_outputs);
  part(Str::recipe_part_ids, saved[kIds], Str::rfx_ids, "finetune/*.py get_batch");
  head_parts(p);
  part(Str::recipe_part_fixed, fixed, row_arg(Str::rfx_fixed, with_commas(rope), with_commas(kCublasWorkspace)), Str::rfx_src_fixed);
  sort_parts(p);
  return p;
}

}  // namespace llmsize::core

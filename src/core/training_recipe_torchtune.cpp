// The torchtune recipe (training_recipe.hpp): recipes/full_finetune_single_device.py as its code
// allocates, the peak that torchtune's training.get_memory_stats logs as "peak_memory_active"
// (torch.cuda.memory_stats()["active_bytes.all.peak"], the allocated blocks at their 512-byte sizes).
//
// Followed: pytorch/torchtune 1814feb17 (main of 2024-11-18, 0.5.0 in development, the commit that
// published the README's "Optimization flags" table), on PyTorch 2.5:
//   recipes/full_finetune_single_device.py: the model built under training.set_default_dtype(bf16)
//     (every parameter bf16), _loss_step (labels shifted with torch.hstack; the model's fp32
//     logits flattened and `del logits` before backward), train() (loss.backward(), then
//     optimizer.step() and zero_grad(set_to_none=True) every gradient_accumulation_steps), the
//     optimizer torch.optim.AdamW with fused=True as 105 of the 107 configs that name it set it
//     (the README's unpacked baseline, 25.5 GiB, is below the 5 copies of the model a foreach
//     step would hold): exp_avg and exp_avg_sq zeros_like the bf16 parameters, a 4-byte step
//     tensor on the GPU for each (optim/adamw.py _init_group), _fused_adamw_ in place; loss
//     torch.nn.CrossEntropyLoss;
//   torchtune/modules/transformer.py TransformerSelfAttentionLayer.forward (sa_norm → attn, residual,
//     mlp_norm → mlp, residual) and TransformerDecoder.forward (self.norm, then
//     self.output(h).float(); a tied head is TiedLinear's F.linear on the embedding);
//   torchtune/modules/rms_norm.py RMSNorm.forward: x.float() (kept by pow and mul), the rsqrt, the
//     normalised x cast back to bf16 (kept by `* self.scale` for the scale's gradient);
//   torchtune/modules/position_embeddings.py RotaryPositionalEmbeddings, models/llama3_1
//     Llama3ScaledRoPE and models/qwen2 Qwen2RotaryPositionalEmbeddings: on packed batches
//     self.cache[input_pos] gathers N · head_dim fp32 values (Qwen2: its cos and sin cast to bf16,
//     the same bytes), which the products with x keep; x's fp32 copy is not kept (the cache needs
//     no gradient); the caches have the builder's max_seq_len rows of head_dim fp32 values (Qwen2
//     2 · head_dim), one shared or one per layer (kBuilders);
//   torchtune/modules/attention.py MultiHeadAttention.forward: k and v expanded to every query head
//     and flattened (a copy each) before the attention; its output transposed and made contiguous
//     for output_proj, which keeps it;
//   torchtune/modules/attention_utils.py: packed batches carry a BlockMask (packed_block_causal_mask,
//     document_ids int64 on the GPU, held by its mask_mod) and run compile_friendly_flex_attention
//     (torch.compile'd flex_attention, which keeps q, k, v, the output and the fp32 logsumexp).
//     PyTorch 2.5's lowering (torch/_inductor/kernel/flex_attention.py, "Construct output layout
//     with strides matching the query") lays the output out like q, a transposed (b, s, h, d)
//     tensor, so output.transpose(1, 2).contiguous() is the output itself: no copy;
//   torchtune/modules/feed_forward.py FeedForward.forward (w1, silu, w3, the product, w2);
//   torchtune/training/memory.py set_activation_checkpointing: torch's checkpoint_wrapper
//     (NO_REENTRANT) per TransformerSelfAttentionLayer: each layer keeps its input; backward
//     recomputes one layer and keeps its saved tensors until their nodes run.
// Checked against the README's "+ Packed Dataset" row (tests/calibration/training/torchtune_test.cpp).
#include <algorithm>

#include "format.hpp"
#include "params.hpp"
#include "training_recipe.hpp"

namespace llmsize::core::recipe_detail {

namespace {

// torch 2.5 nn/attention/flex_attention.py: _DEFAULT_SPARSE_BLOCK_SIZE.
constexpr i64 kFlexBlock = 128;

// The builders of torchtune/models/*/_model_builders.py at 1814feb1 that make this decoder: the
// model's shape, its max_seq_len (the RoPE cache's rows) and whether every layer shares one RoPE
// module (llama3_1 and llama3_2 build a list of layers around one module; the others build one
// layer and TransformerDecoder deep-copies it, so every layer holds its own cache).
// `config`: its single-device full fine-tuning config in recipes/configs (nullptr where none).
struct Builder {
  const char* name;
  Family family;
  i64 d_model, layers, vocab, max_seq_len;
  bool tied, shared_rope;
  const char* module;
  const char* config;
  const char* lora_config;  // its lora_finetune_single_device config (nullptr where none)
  const char* qlora_config = nullptr;  // its QLoRA config, where a qlora_ builder exists (Llama 2, Code Llama, Llama 3.x, Mistral)
};
constexpr Builder kBuilders[] = {
    {"llama2_7b", Family::Llama, 4096, 32, 32000, 4096, false, false, "llama2", "llama2/7B_full_low_memory", "llama2/7B_lora_single_device", "llama2/7B_qlora_single_device"},
    {"llama2_13b", Family::Llama, 5120, 40, 32000, 4096, false, false, "llama2", nullptr, nullptr, "llama2/13B_qlora_single_device"},
    {"llama2_70b", Family::Llama, 8192, 80, 32000, 4096, false, false, "llama2", nullptr, nullptr},
    {"code_llama2_7b", Family::Llama, 4096, 32, 32016, 16384, false, false, "code_llama2", nullptr, "code_llama2/7B_lora_single_device", "code_llama2/7B_qlora_single_device"},
    {"code_llama2_13b", Family::Llama, 5120, 40, 32016, 16384, false, false, "code_llama2", nullptr, nullptr},
    {"code_llama2_70b", Family::Llama, 8192, 80, 32016, 16384, false, false, "code_llama2", nullptr, nullptr},
    {"llama3_8b", Family::Llama, 4096, 32, 128256, 8192, false, false, "llama3", "llama3/8B_full_single_device", "llama3/8B_lora_single_device", "llama3/8B_qlora_single_device"},
    {"llama3_70b", Family::Llama, 8192, 80, 128256, 8192, false, false, "llama3", nullptr, nullptr},
    {"llama3_1_8b", Family::Llama, 4096, 32, 128256, 131072, false, true, "llama3_1", "llama3_1/8B_full_single_device", "llama3_1/8B_lora_single_device", "llama3_1/8B_qlora_single_device"},
    {"llama3_1_70b", Family::Llama, 8192, 80, 128256, 131072, false, true, "llama3_1", nullptr, nullptr},
    {"llama3_1_405b", Family::Llama, 16384, 126, 128256, 8192, false, true, "llama3_1", nullptr, nullptr},
    {"llama3_2_1b", Family::Llama, 2048, 16, 128256, 131072, true, true, "llama3_2", "llama3_2/1B_full_single_device", "llama3_2/1B_lora_single_device", "llama3_2/1B_qlora_single_device"},
    {"llama3_2_3b", Family::Llama, 3072, 28, 128256, 131072, true, true, "llama3_2", "llama3_2/3B_full_single_device", "llama3_2/3B_lora_single_device", "llama3_2/3B_qlora_single_device"},
    {"mistral_7b", Family::Mistral, 4096, 32, 32000, 32768, false, false, "mistral", "mistral/7B_full_low_memory", "mistral/7B_lora_single_device", "mistral/7B_qlora_single_device"},
    {"qwen2_5_0_5b", Family::Qwen2, 896, 24, 151936, 32768, true, false, "qwen2_5", "qwen2_5/0.5B_full_single_device", "qwen2_5/0.5B_lora_single_device"},
    {"qwen2_5_1_5b_base", Family::Qwen2, 1536, 28, 151936, 131072, true, false, "qwen2_5", "qwen2_5/1.5B_full_single_device", "qwen2_5/1.5B_lora_single_device"},
    {"qwen2_5_1_5b_instruct", Family::Qwen2, 1536, 28, 151936, 32768, true, false, "qwen2_5", "qwen2_5/1.5B_full_single_device", "qwen2_5/1.5B_lora_single_device"},
    {"qwen2_5_3b", Family::Qwen2, 2048, 36, 151936, 32768, true, false, "qwen2_5", "qwen2_5/3B_full_single_device", "qwen2_5/3B_lora_single_device"},
    {"qwen2_5_7b_base", Family::Qwen2, 3584, 28, 152064, 131072, false, false, "qwen2_5", "qwen2_5/7B_full_single_device", "qwen2_5/7B_lora_single_device"},
    {"qwen2_5_7b_instruct", Family::Qwen2, 3584, 28, 152064, 32768, false, false, "qwen2_5", "qwen2_5/7B_full_single_device", "qwen2_5/7B_lora_single_device"},
    {"qwen2_5_14b_base", Family::Qwen2, 5120, 48, 152064, 131072, false, false, "qwen2_5", nullptr, "qwen2_5/14B_lora_single_device"},
    {"qwen2_5_14b_instruct", Family::Qwen2, 5120, 48, 152064, 32768, false, false, "qwen2_5", nullptr, "qwen2_5/14B_lora_single_device"},
    {"qwen2_5_32b_base", Family::Qwen2, 5120, 64, 152064, 131072, false, false, "qwen2_5", nullptr, nullptr},
    {"qwen2_5_32b_instruct", Family::Qwen2, 5120, 64, 152064, 32768, false, false, "qwen2_5", nullptr, nullptr},
    {"qwen2_5_72b_base", Family::Qwen2, 8192, 80, 152064, 131072, false, false, "qwen2_5", nullptr, nullptr},
    {"qwen2_5_72b_instruct", Family::Qwen2, 8192, 80, 152064, 32768, false, false, "qwen2_5", nullptr, nullptr},
    {"qwen2_0_5b", Family::Qwen2, 896, 24, 151936, 32768, true, false, "qwen2", "qwen2/0.5B_full_single_device", "qwen2/0.5B_lora_single_device"},
    {"qwen2_1_5b", Family::Qwen2, 1536, 28, 151936, 32768, true, false, "qwen2", "qwen2/1.5B_full_single_device", "qwen2/1.5B_lora_single_device"},
    {"qwen2_7b", Family::Qwen2, 3584, 28, 152064, 32768, false, false, "qwen2", "qwen2/7B_full_single_device", "qwen2/7B_lora_single_device"},
};

// The builder of this model: of those with its shape, the one whose max_seq_len is the config's
// max_position_embeddings, else the first when all of them hold the same caches (llama3_1_405b's
// 8,192 rows for the checkpoint's 131,072); nullptr when none has its shape or their caches
// differ. Builders of one shape and cache allocate alike; the first is named (the version line).
const Builder* find_builder(const ModelConfig& c) {
  const Builder* first = nullptr;
  bool alike = true;
  for (const Builder& b : kBuilders) {
    if (b.family != c.family || b.d_model != c.d_model || b.layers != c.n_layers || b.vocab != c.vocab || b.tied != c.tie_embeddings)
      continue;
    if (b.max_seq_len == c.max_positions) return &b;
    if (!first) first = &b;
    else alike = alike && b.max_seq_len == first->max_seq_len && b.shared_rope == first->shared_rope;
  }
  return alike ? first : nullptr;
}

std::optional<Issue> torchtune_scope(const ModelConfig& c, const Workload& w, const Gpu& gpu) {
  if (w.mode != Mode::Training) return refuse(Str::recipe_training_only);
  // models/llama2, llama3, llama3_1, llama3_2, mistral and qwen2 (qwen2_5) build this decoder.
  if (!hf_llama_decoder(c)) return refuse(Str::recipe_tt_shape, std::string(family_id(c.family)));
  if (!find_builder(c)) return refuse(Str::recipe_tt_builder);
  if (w.gpus != 1 || w.tp != 1 || w.pp != 1 || w.ep != 1 || w.sharding != Sharding::None) return refuse(Str::recipe_tt_one_gpu);
  if (w.adapter != Adapter::None) return refuse(Str::recipe_tt_full);
  // QLoRA: the qlora_ builders (the lora_ ones with quantize_base=True) store every layer Linear in
  // torchao's NF4, whose int8 block scales are themselves quantised (nf4-dq).
  const bool qlora = w.qlora || w.weights == WeightFormat::Nf4Dq;
  if (!qlora && w.weights != WeightFormat::BF16) return refuse(Str::recipe_tt_nf4);
  if (qlora && w.weights != WeightFormat::Nf4Dq && w.weights != WeightFormat::BF16) return refuse(Str::recipe_tt_nf4);
  if (qlora && w.lora_rank <= 0) return refuse(Str::recipe_hf_qlora_rank);
  if (qlora && c.family == Family::Qwen2) return refuse(Str::recipe_tt_qlora_builder);
  // The LoRA builders adapt w1, w2 and w3 together (apply_lora_to_mlp) and any of q_proj, k_proj,
  // v_proj and output_proj (lora_attn_modules).
  constexpr std::uint32_t kMlp = kLoraGate | kLoraUp | kLoraDown;
  if (w.lora_rank > 0 && (w.lora_targets & kMlp) != 0 && (w.lora_targets & kMlp) != kMlp) return refuse(Str::recipe_tt_mlp);
  if (w.precision != Precision::Pure || w.dtype != ComputeDtype::BF16 || w.grad_dtype != GradDtype::Auto)
    return refuse(Str::recipe_tt_precision);
  if (w.optimizer != Optimizer::AdamW || w.opt_state != StateDtype::BF16) return refuse(Str::recipe_tt_optimizer);
  if (w.recompute == Recompute::Selective) return refuse(Str::recipe_tt_recompute);
  // recipes/*_single_device.py __init__: "enable_activation_offloading should only be True when
  // enable_activation_checkpointing is True" (a RuntimeError).
  if (w.offload_activations && w.recompute != Recompute::Full) return issue_row("aoff", Str::recipe_tt_offload_ac);
  // full_finetune_single_device __init__: optimizer_in_bwd with gradient accumulation is a
  // RuntimeError; the LoRA recipe has no optimizer_in_bwd.
  if (w.optimizer_in_bwd && w.lora_rank > 0) return issue_row("oib", Str::recipe_tt_oib_lora);
  if (w.optimizer_in_bwd && w.grad_accum > 1) return issue_row("oib", Str::recipe_tt_oib_accum);
  if (w.dropout && w.lora_rank <= 0) return refuse(Str::recipe_tt_dropout);
  if (w.seq < 2) return refuse(Str::recipe_hf_seq);
  // Packed batches take flex attention (sm75 or newer, utils/_import_guard.py
  // _SUPPORTS_FLEX_ATTENTION); bf16 needs compute capability 8 (training/precision.py
  // verify_bf16_support). PyTorch 2.5's flex_attention kernels take head sizes that are powers of two.
  const i64 hd = c.head_dim;
  if (!w.flash_attention || gpu.cuda_cc < 8.0 || hd < 16 || hd > 256 || (hd & (hd - 1)) != 0)
    return refuse(Str::recipe_tt_flex, gpu.name);
  return std::nullopt;
}

// What both recipes hold whatever they train: the packed batch's tensors and the BlockMask, the
// RoPE caches and the cuBLAS workspaces.
struct Packed {
  Checked N;          // batch × seq tokens
  i64 nb = 0;         // the BlockMask's blocks a sequence: ceil(seq / 128)
  Checked ids, fixed;
  i64 caches = 0, rope_width = 0;  // RoPE modules, and fp32 values a position in each
  const Builder* builder = nullptr;
};

Packed packed(const ModelConfig& c, const Workload& w) {
  auto R = [](Checked b) { return rounded(b); };
  Packed k;
  const i64 B = w.batch, T = w.seq, hd = c.head_dim;
  k.N = Checked(B) * T;
  // padded_collate_packed: tokens, input_pos (int64, b × s); _loss_step's shifted labels; the
  // BlockMask's document_ids (int64) and its eight block tables (int32: kv and q, partial and full,
  // counts b × n and indices b × n × n for n = ceil(s / 128)).
  k.nb = ceil_div(T, kFlexBlock);
  const Checked block_tables = R(Checked(B) * k.nb * 4) * 4 + R(Checked(B) * k.nb * k.nb * 4) * 4;
  k.ids = R(k.N * 8) * 4 + block_tables;
  k.builder = find_builder(c);
  k.rope_width = c.family == Family::Qwen2 ? 2 * hd : hd;  // fp32 values a position
  k.caches = k.builder->shared_rope ? 1 : c.n_layers;
  // Each module's cache and its theta buffer (head_dim / 2 fp32).
  const Checked rope_cache = (R(Checked(k.builder->max_seq_len) * k.rope_width * 4) + R(Checked(hd / 2) * 4)) * k.caches;
  const Checked cublas = Checked(kCublasWorkspace) * 2;  // the forward's thread and autograd's
  k.fixed = rope_cache + cublas;
  return k;
}

// The parts both recipes add for the packed batch and the fixed buffers.
void packed_parts(RecipePeak& p, const Packed& k) {
  add_part(p, Str::recipe_part_ids, k.ids, row_arg(Str::rfx_tt_ids, with_commas(k.nb), with_commas(k.nb)),
           "torchtune data/_collate.py padded_collate_packed; attention_utils.py packed_block_causal_mask; torch create_block_mask");
  add_part(p, Str::recipe_part_fixed, k.fixed,
           row_arg(Str::rfx_tt_fixed, with_commas(k.caches), with_commas(k.builder->max_seq_len), with_commas(k.rope_width),
                   with_commas(kCublasWorkspace)),
           Str::rfx_src_tt_fixed);
}

// What the layers keep, as parts, in both recipes' words: `layer` is the row that says what one
// layer keeps (full fine-tuning's or LoRA's), with `hd` its argument.
struct LayerRows {
  Str layer;
  i64 hd, layers;
  std::string n_s, source;
  RowArg one(const std::string& which) const { return row_arg(layer, which, with_commas(hd)); }
  RowArg all() const { return row_arg(Str::rfx_tt_layers, with_commas(layers), one("0 … " + with_commas(layers - 1))); }
};
constexpr const char* kSrcCheckpoint = "torchtune training/memory.py set_activation_checkpointing (checkpoint_wrapper, NO_REENTRANT)";
constexpr const char* kSrcOffload =
    "torchtune training/_activation_offloading.py OffloadActivations (pack_tensor, unpack_tensor_with_streams); "
    "torch utils/checkpoint.py _NoopSaveInputs";

// At the loss: every checkpointed layer input (with offloading, the one its forward stash holds),
// or every layer's saved tensors.
void kept_part(RecipePeak& p, bool ac, bool offload, Checked kept, const LayerRows& r) {
  if (offload) add_part(p, Str::recipe_part_checkpoints, kept, Str::rfx_tt_offload_kept, kSrcOffload);
  else if (ac) add_part(p, Str::recipe_part_checkpoints, kept, row_arg(Str::rfx_checkpoints, r.n_s), kSrcCheckpoint);
  else add_part(p, Str::recipe_part_layers_saved, kept, r.all(), r.source);
}

// In layer `at`'s backward: the checkpointed inputs (with offloading, its own, brought back) and
// the recomputed layer, or the layers' saved tensors; and what is in flight.
void backward_parts(RecipePeak& p, bool ac, bool offload, i64 at, Checked input, const LayerMoment& m, const LayerRows& r,
                    const RowArg& inflight = Str::rfx_tt_inflight, const RowArg& inflight_source = "torch autograd; flex_attention backward") {
  if (ac) {
    const Checked inputs = at == 0 || offload ? input : input * r.layers;
    add_part(p, Str::recipe_part_checkpoints, inputs,
             offload ? row_arg(Str::rfx_tt_offload_input, with_commas(at)) : at == 0 ? RowArg(Str::rfx_checkpoint_first) : row_arg(Str::rfx_checkpoints, r.n_s),
             offload ? kSrcOffload : kSrcCheckpoint);
    add_part(p, Str::recipe_part_layer, Checked(m.kept.value() - inputs.value()), r.one(with_commas(at)), kSrcCheckpoint);
  } else {
    add_part(p, Str::recipe_part_layers_saved, m.kept, at == 0 ? r.one("0") : r.all(), r.source);
  }
  add_part(p, Str::recipe_part_layer_grads, m.inflight, inflight, inflight_source);
}

// The batch's and the fixed buffers' parts, the groups' totals, the parts largest first.
RecipePeak finish(RecipePeak p, const Packed& k, Checked grads, Checked saved, Checked head) {
  packed_parts(p, k);
  p.gradient_bytes = grads.value();
  p.saved_bytes = saved.value();
  p.head_bytes = head.value();
  sort_parts(p);
  return p;
}

}  // namespace

}  // namespace llmsize::core::recipe_detail

namespace llmsize::core {

std::optional<TorchtuneBuilder> torchtune_builder_of(const ModelConfig& c) {
  const recipe_detail::Builder* b = recipe_detail::find_builder(c);
  if (!b) return std::nullopt;
  const std::string module = std::string("torchtune.models.") + b->module + ".";
  const bool qlora = b->family != Family::Qwen2;  // models/qwen2 and qwen2_5 have no qlora_ builders
  return TorchtuneBuilder{b->name, module + b->name, b->config ? b->config : "", module + "lora_" + b->name,
                          b->lora_config ? b->lora_config : "", qlora ? module + "qlora_" + b->name : "",
                          b->qlora_config ? b->qlora_config : ""};
}

}  // namespace llmsize::core

namespace llmsize::core::recipe_detail {

namespace {

// lora_finetune_single_device at 1814feb1 (recipes/lora_finetune_single_device.py): the model built
// under set_default_dtype(bf16), set_trainable_params(model, get_adapter_params(model)) (every base
// parameter requires_grad False), the loss its LoRA configs name, CEWithChunkedOutputLoss
// (modules/loss/ce_chunked_output_loss.py, num_output_chunks 8, set on the model by
// set_num_output_chunks), _loss_step (`del logits` after the loss), train() as in full fine-tuning
// (torch.optim.AdamW, fused, over model.parameters(): _init_group skips parameters without a
// gradient, so the states are the adapters'). Followed:
//   torchtune/modules/peft/lora.py LoRALinear: the frozen F.linear (its mm keeps only the weight,
//     autograd saving self for a weight gradient that is not needed), lora_a (bf16, keeps its input
//     x for its weight's gradient: the tensor the base Linear got), lora_b (keeps lora_a's output,
//     N × r), `(alpha / rank) *` a Python scalar and the sum (nothing kept); lora_dropout 0.0, as
//     every config sets it, is nn.Identity (above 0, nn.Dropout: its output in lora_a's stead, and the mask);
//   torchtune/modules/rms_norm.py RMSNorm.forward with a frozen scale: x.float() and the rsqrt are
//     kept where x needs a gradient; x_normed is not (only the scale's gradient would read it);
//   the builders (models/*/_component_builders.py lora_*): lora_attn_modules among q_proj, k_proj,
//     v_proj and output_proj, apply_lora_to_mlp adapting w1, w2 and w3 together, the embedding, the
//     norms and the head frozen bf16 (the same RoPE modules as the full builders);
//   layer 0's input is the frozen embedding's output, which needs no gradient: its input norm keeps
//     nothing, and a projection's output needs one only when it is adapted;
//   TransformerDecoder.forward with num_output_chunks > 0: chunked_output applies the head to
//     h.chunk(8, dim=1) and returns every chunk's bf16 logits as a list; the frozen head's mm keeps
//     nothing of h.
struct TtLin {
  std::uint32_t bit;
  i64 in, out;
  const char* name;
};

// One layer's saved tensors, and those of its MLP and post-attention norm (backward frees them
// first); `input_grad`: the layer's input needs a gradient (every layer but 0).
struct TtLoraLayer {
  Checked all, mlp;
};

// torchao 0.7.0's NF4 (dtypes/nf4tensor.py, the release of torchtune 1814feb1's month; its storage
// and get_original_weight are the same from 0.6.1 to 0.10): NF4Tensor.from_tensor with to_nf4's
// block_size 64 and scaler_block_size 256 keeps quantized_data (two 4-bit codes a byte), the int8
// quantized_scalers (one a block of 64), quantization_factor (one a 256 blocks, in the weight's
// bf16), scaler_mean (0-dim bf16) and the 16-entry nf4 table (bf16), each its own allocation.
Checked nf4_bytes(i64 n) {
  auto R = [](Checked b) { return rounded(b); };
  return R(Checked(n / 2)) + R(Checked(n / 64)) + R(Checked(n / 16384) * 2) + R(Checked(2)) + R(Checked(32));
}
// What get_original_weight holds as it returns the bf16 weight (torch.stack): the high and low
// codes as int64 (4 B a weight each), their nf4[] lookups and the scaled halves (bf16, half the
// weights each), the dequantised scales (bf16, one a block) and the stacked result (2 B a weight),
// its largest moment; a transient of every use of the weight: forward, recompute and backward.
Checked nf4_dequant_bytes(i64 n) {
  auto R = [](Checked b) { return rounded(b); };
  return R(Checked(n) * 4) * 2 + R(Checked(n)) * 4 + R(Checked(n / 32)) + R(Checked(n) * 2);
}

Result<RecipePeak> lora_peak(const ModelConfig& c, const Workload& w, i64 total) {
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, nh = c.n_heads, hd = c.head_dim, qd = nh * hd, kvd = c.n_kv_heads * hd,
            V = c.vocab, T = w.seq, B = w.batch, r = w.lora_rank;
  const std::uint32_t t = w.lora_targets;
  const Packed k = packed(c, w);
  const Checked N = k.N;
  auto R = [](Checked b) { return rounded(b); };
  const bool ac = w.recompute == Recompute::Full, accum = w.grad_accum > 1, offload = w.offload_activations;
  // lora_dropout > 0: LoRALinear's nn.Dropout before lora_a (every config at 1814feb1 sets 0.0).
  const bool dropout = w.dropout;

  // --- The frozen base in bf16, or under QLoRA every layer Linear (LoRALinear's base and
  // FrozenNF4Linear alike) in NF4 and the rest (embedding, norms, head, Qwen2's biases) in bf16;
  // LoRALinear's lora_a (r × in) and lora_b (out × r) in bf16 for each adapted Linear; their
  // gradients, AdamW's exp_avg and exp_avg_sq of the same shapes, and a fused step tensor (4 B on
  // the GPU) for each.
  const bool qlora = w.qlora || w.weights == WeightFormat::Nf4Dq;
  const TtLin lins[] = {{kLoraQ, C, qd, "q_proj"},     {kLoraK, C, kvd, "k_proj"}, {kLoraV, C, kvd, "v_proj"},
                        {kLoraO, qd, C, "output_proj"}, {kLoraGate, C, I, "w1"},    {kLoraDown, I, C, "w2"},
                        {kLoraUp, C, I, "w3"}};
  Checked weights = Checked(total) * 2;
  if (qlora) {
    Checked nf4;
    i64 linear = 0;
    for (const TtLin& l : lins) {
      const i64 n = l.in * l.out;
      // NF4Tensor.from_tensor / double_quantize_scalers assert whole blocks of 64 and of 256 scales.
      if (n % 16384 != 0) return *refuse(Str::recipe_tt_nf4_size, std::string(l.name) + " (" + with_commas(n) + ")");
      nf4 += nf4_bytes(n) * L;
      linear += n * L;
    }
    weights = Checked(total - linear) * 2 + nf4;
  }
  Checked per_layer, mlp_adapters, o_adapters;
  i64 adapted = 0, trainable = 0;
  std::string names;
  for (const TtLin& l : lins) {
    if (!(t & l.bit)) continue;
    const Checked a = R(Checked(r) * l.in * 2) + R(Checked(l.out) * r * 2);
    per_layer += a;
    if (l.bit == kLoraGate || l.bit == kLoraUp || l.bit == kLoraDown) mlp_adapters += a;
    if (l.bit == kLoraO) o_adapters += a;
    ++adapted;
    trainable += r * (l.in + l.out) * L;
    names += (names.empty() ? "" : ", ") + std::string(l.name);
  }
  const Checked adapters = per_layer * L;
  const i64 tensors = 2 * adapted * L;
  const Checked states = adapters * 2 + R(Checked(4)) * tensors;
  const Checked all_grads = adapters;

  // --- What a layer keeps for backward (each an allocation of N rows).
  const bool qkv_lora = (t & (kLoraQ | kLoraK | kLoraV)) != 0, mlp_lora = (t & kLoraGate) != 0;
  auto lora_b_inputs = [&](bool mlp) {
    Checked x;
    for (const TtLin& l : lins)
      if ((t & l.bit) && mlp == (l.bit == kLoraGate || l.bit == kLoraUp || l.bit == kLoraDown)) x += R(N * r * 2);
    return x;
  };
  const Checked norm = R(N * C * 4) + R(N * 4);  // x.float(), rsqrt
  // With lora_dropout, lora_a keeps nn.Dropout's output (bf16, a new tensor for each adapted
  // Linear) in place of the shared input, and native_dropout its bool mask where the input needs a
  // gradient; the frozen F.linear keeps none of its input, so the shared input is kept by nothing.
  auto dropped = [&](i64 in, bool in_grad) { return R(N * in * 2) + (in_grad ? R(N * in) : Checked()); };
  auto layer_saved = [&](bool input_grad) {
    const bool q_grad = input_grad || (t & kLoraQ), k_grad = input_grad || (t & kLoraK), v_grad = input_grad || (t & kLoraV);
    const bool attn_grad = q_grad || k_grad || v_grad;
    Checked attn = (input_grad ? norm : Checked()) + lora_b_inputs(false);
    if (!dropout) attn += qkv_lora ? R(N * C * 2) : Checked();
    else
      for (std::uint32_t bit : {kLoraQ, kLoraK, kLoraV})
        if (t & bit) attn += dropped(C, input_grad);  // the attention norm's output needs a gradient where the layer input does
    attn += (q_grad ? R(N * hd * 4) : Checked()) + (k_grad ? R(N * hd * 4) : Checked());  // the gathered RoPE rows
    // flex attention: q, k and v at every query head, the output (output_proj's input), the logsumexp.
    if (attn_grad) attn += R(N * qd * 2) * 4 + R(N * nh * 4);
    else if ((t & kLoraO) && !dropout) attn += R(N * qd * 2);  // output_proj's lora_a keeps the output flex attention did not
    if ((t & kLoraO) && dropout) attn += dropped(qd, attn_grad);
    const bool h_grad = input_grad || attn_grad || (t & kLoraO);
    // mlp_norm; the norm output w1's and w3's lora_a keep; w1's output (silu's), silu's and w3's
    // (the product's operands); the product (w2's lora_a).
    Checked mlp = (h_grad ? norm : Checked()) + lora_b_inputs(true);
    if (mlp_lora) mlp += dropout ? dropped(C, h_grad) * 2 + dropped(I, true) : R(N * C * 2) + R(N * I * 2);
    if (h_grad || mlp_lora) mlp += R(N * I * 2) * 3;
    return TtLoraLayer{attn + mlp, mlp};
  };
  const TtLoraLayer first = layer_saved(false), later = layer_saved(true);
  const Checked input = R(N * C * 2);  // a checkpointed layer's input (bf16)
  // With activation offloading (training/_activation_offloading.py OffloadActivations at 1814feb1:
  // use_streams, max_fwd_stash_size 5, min_offload_size 1024; the head under NoOpManager, the loss
  // outside the context): each checkpointed layer's _NoopSaveInputs saves the dummy and the layer's
  // input, two pack ids, and the input goes to pinned CPU memory, kept on the GPU in fwd_stash
  // until an offloaded save five ids later. The frozen final norm's saves (x.float() and the rsqrt,
  // twice each; its scale a Parameter) release all but the last layer's: at the loss, one input.
  // In backward each layer's recompute brings its input back, a new GPU tensor, and the input
  // before it is freed once that node has run: a layer's moments hold its own input only.
  const Checked kept = ac ? (offload ? input : input * L) : first.all + later.all * (L - 1);
  const Checked final_norm = norm;  // the last layer's output needs a gradient

  // --- Moment 1: the loss's forward (CEWithChunkedOutputLoss.forward), as a chunk's log_softmax
  // writes its fp32 output: every bf16 logit chunk (the recipe's list), the label chunks'
  // reshape(-1) copies (labels.chunk(dim=1) of a batch > 1 is not contiguous), the fp32
  // log_softmax outputs of the chunks before (F.cross_entropy keeps them for backward) and this
  // chunk's float() copy beside its own. torch.chunk: chunks of ceil(s / 8) positions, the last
  // the rest. Backward comes after `del logits` and holds less (at most the saved outputs and two
  // fp32 gradients of a chunk).
  const i64 cs = ceil_div(T, i64{8}), chunks = ceil_div(T, cs), last = T - (chunks - 1) * cs;
  const Checked full_chunk = R(Checked(B) * cs * V * 4), last_chunk = R(Checked(B) * last * V * 4);
  const Checked logits = R(Checked(B) * cs * V * 2) * (chunks - 1) + R(Checked(B) * last * V * 2);
  const Checked labels = B > 1 ? R(Checked(B) * cs * 8) * (chunks - 1) + R(Checked(B) * last * 8) : Checked();
  // At chunk j < the last: j − 1 outputs before and two of its own; at the last: chunks − 1 and two.
  const Checked before_last = chunks > 1 ? full_chunk * chunks : Checked(), at_last = full_chunk * (chunks - 1) + last_chunk * 2;
  const bool peak_before_last = before_last.ok() && at_last.ok() && before_last.value() > at_last.value();
  const i64 peak_chunk = peak_before_last ? chunks - 1 : chunks;
  const Checked loss = logits + labels + (peak_before_last ? before_last : at_last);
  const Checked loss_phase = weights + adapters + states + (accum ? all_grads : Checked()) + kept + final_norm + loss + k.ids + k.fixed;

  // --- Moment 2: a layer's backward, in flight as in full fine-tuning (the layer's output gradient
  // and its input's; the MLP's multiply or flex attention's backward). The adapters' gradients:
  // those of the layers after it, and at the multiply w2's, at flex attention's also w1's, w3's and
  // output_proj's; all of them with accumulation.
  const Checked io = R(N * C * 2) * 2;
  const Checked mlp_moment = R(N * I * 2) * 3;
  const Checked attn_moment = R(N * qd * 2) * 4 + R(N * nh * 4);
  const Checked down = t & kLoraDown ? R(Checked(r) * I * 2) + R(Checked(C) * r * 2) : Checked();
  // QLoRA: LinearNF4.backward (torchao 0.7.0 dtypes/nf4tensor.py) is grad_output @
  // weight.to(grad_output.dtype): get_original_weight dequantises the weight again (its peak,
  // nf4_dequant_bytes, at torch.stack), and the bf16 weight lives through the matmul beside the
  // input's gradient it makes. The first NF4 Linear autograd reaches in a layer, with every tensor
  // the layer saved still held, is w2, as large as w1 and w3: in flight beside it the layer's
  // output gradient (the residual's too) and, where w2 is a LoRALinear, the gradient of the
  // product lora_a's path left (its nodes are the later, so they run first), waiting to be summed.
  // Every other use holds less: the forward's and the checkpoint's recompute (no gradient of the
  // layer yet, fewer of its tensors), w3's backward (silu's and w3's outputs freed, as large as
  // the two gradients that replace them; its input's gradient N × C), w1's and the attention's
  // (the MLP's tensors freed, smaller weights).
  const Checked w2_n = Checked(I) * C;
  const Checked w2_matmul = R(w2_n * 2) + R(N * I * 2), w2_dequant = nf4_dequant_bytes(I * C);
  const Checked w2_inflight = qlora ? R(N * C * 2) + (t & kLoraDown ? R(N * I * 2) : Checked()) +
                                          (w2_dequant.ok() && w2_matmul.ok() && w2_dequant.value() > w2_matmul.value() ? w2_dequant : w2_matmul)
                                    : Checked();
  struct Moment {
    LayerMoment m;
    Checked grads, total;
    bool at_w2;  // QLoRA's dequantisation of w2 in its backward
  };
  auto moment = [&](const TtLoraLayer& own, Checked held, i64 at) {
    Moment x{layer_backward_moment(held, own.mlp, io, mlp_moment, attn_moment), {}, {}, false};
    const bool at_mlp = x.m.kept.ok() && held.ok() && x.m.kept.value() == held.value();
    x.grads = accum ? all_grads : per_layer * (L - 1 - at) + (at_mlp ? down : mlp_adapters + o_adapters);
    x.total = weights + adapters + states + x.grads + x.m.kept + x.m.inflight + k.ids + k.fixed;
    if (qlora) {
      Moment d{{held, w2_inflight}, accum ? all_grads : per_layer * (L - 1 - at) + down, {}, true};
      d.total = weights + adapters + states + d.grads + held + w2_inflight + k.ids + k.fixed;
      if (d.total.ok() && x.total.ok() && d.total.value() > x.total.value()) return d;
    }
    return x;
  };
  // The last layer (with checkpointing: every input, or with offloading its own, and the
  // recomputed layer) and layer 0; with offloading every layer holds the same, so layer 1, with
  // all but two layers' adapter gradients, is the largest of layers 1 … L − 1.
  const Moment last_layer = moment(later, ac ? (offload ? input : input * L) + later.all : kept, L - 1),
               first_layer = moment(first, ac ? input + first.all : first.all, 0);
  const bool second_counts = offload && L > 2;
  const Moment second_layer = second_counts ? moment(later, input + later.all, 1) : last_layer;

  // --- Moment 3: AdamW's fused step (_fused_adamw_, in place): every adapter's gradient and the
  // last micro-batch's tensors.
  const Checked step_phase = weights + adapters + all_grads + states + k.ids + k.fixed;

  for (const Checked& x : {loss_phase, last_layer.total, first_layer.total, second_layer.total, step_phase})
    if (!x.ok()) return memory_overflow("seq");
  i64 at = L - 1;
  const Moment* top_layer = &last_layer;
  if (second_counts && second_layer.total.value() > top_layer->total.value()) at = 1, top_layer = &second_layer;
  if (first_layer.total.value() > top_layer->total.value()) at = 0, top_layer = &first_layer;
  const Moment& lm = *top_layer;
  RecipePhase phase = RecipePhase::ChunkedLossForward;
  Checked top = loss_phase;
  if (lm.total.value() > top.value()) {
    phase = RecipePhase::LayerBackward;
    top = lm.total;
  }
  if (step_phase.value() > top.value()) {
    phase = RecipePhase::FusedAdamStep;
    top = step_phase;
  }

  RecipePeak p;
  p.recipe = Recipe::Torchtune;
  p.version = std::string("torchtune 1814feb1 (Nov 2024) lora_finetune_single_device, models.") + (qlora ? "qlora_" : "lora_") +
              k.builder->name + " · PyTorch 2.5" + (qlora ? " · torchao 0.7.0 NF4" : "") +
              (dropout ? " · lora_dropout" : "") + " · packed batches, flex attention · torch.optim.AdamW(fused=True) · CEWithChunkedOutputLoss (8 chunks)" +
              (offload ? " · activation offloading (OffloadActivations, streams)" : "") + " · no compile";
  p.phase = phase;
  p.peak_allocated_bytes = top.value();
  p.weights_bytes = weights.value();
  p.adapter_bytes = adapters.value();
  p.trainable_params = trainable;
  p.optimizer_bytes = states.value();
  p.fixed_bytes = k.fixed.value();

  const LayerRows rows{dropout ? Str::rfx_tt_lora_layer_dropout : Str::rfx_tt_lora_layer, hd, L, "N = batch × seq = " + with_commas(N.value()),
                       "torchtune modules/peft/lora.py LoRALinear, rms_norm.py, position_embeddings.py, attention.py, "
                       "feed_forward.py; torch flex_attention"};
  auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  if (qlora)
    part(Str::recipe_part_weights, weights, row_arg(Str::rfx_tt_nf4, with_commas(L)),
         "torchtune modules/peft/lora.py LoRALinear(quantize_base=True), modules/low_precision/nf4_linear.py FrozenNF4Linear; "
         "torchao dtypes/nf4tensor.py to_nf4, NF4Tensor.from_tensor");
  else
    part(Str::recipe_part_weights, weights, row_arg(Str::rfx_weights_bf16, with_commas(total)),
         "torchtune training.set_default_dtype(torch.bfloat16); FullModelHFCheckpointer; peft set_trainable_params");
  part(Str::recipe_part_adapters, adapters, row_arg(Str::rfx_tt_lora, with_commas(adapted), names, with_commas(L), with_commas(r)),
       "torchtune modules/peft/lora.py LoRALinear (lora_a, lora_b); training.validate_expected_param_dtype");
  part(Str::recipe_part_optimizer, states, row_arg(Str::rfx_tt_adamw_lora, with_commas(tensors)),
       "torch optim/adamw.py _init_group (parameters with a gradient: zeros_like(p), fused: a step tensor on the device), _fused_adamw");
  Checked grads, saved, head;
  if (phase == RecipePhase::ChunkedLossForward) {
    grads = accum ? all_grads : Checked();
    saved = kept + final_norm + k.ids;
    head = loss;
    kept_part(p, ac, offload, kept, rows);
    part(Str::recipe_part_norms, final_norm, Str::rfx_final_norm_tt_lora, "torchtune modules/rms_norm.py RMSNorm.forward; TransformerDecoder.forward");
    part(Str::recipe_part_tt_chunks, loss,
         row_arg(Str::rfx_tt_chunked, with_commas(chunks), with_commas(cs), with_commas(peak_chunk), with_commas(V)),
         "torchtune modules/loss/ce_chunked_output_loss.py CEWithChunkedOutputLoss.forward; modules/transformer.py chunked_output; "
         "torch cross_entropy (log_softmax, nll_loss)");
  } else if (phase == RecipePhase::LayerBackward) {
    grads = lm.grads;
    saved = lm.m.kept + lm.m.inflight + k.ids;
    if (lm.at_w2)
      backward_parts(p, ac, offload, at, input, lm.m, rows, row_arg(Str::rfx_tt_inflight_nf4, with_commas(N.value()), with_commas(w2_n.value())),
                     "torchao 0.7.0 dtypes/nf4tensor.py LinearNF4.backward, NF4Tensor.get_original_weight; torchtune modules/peft/lora.py LoRALinear");
    else
      backward_parts(p, ac, offload, at, input, lm.m, rows);
  } else {
    grads = all_grads;
    saved = k.ids;
  }
  part(Str::recipe_part_gradients, grads, Str::rfx_tt_grads_lora,
       "torch AccumulateGrad; torchtune lora_finetune_single_device.py train (zero_grad(set_to_none=True))");
  return finish(std::move(p), k, grads, saved, head);
}

}  // namespace

Result<RecipePeak> torchtune_peak(const ModelConfig& c, const Workload& w, const Gpu& gpu) {
  if (auto bad = torchtune_scope(c, w, gpu)) return *bad;
  const auto counted = count_params(c);
  if (!counted) return counted.issues();
  if (w.lora_rank > 0) return lora_peak(c, w, counted->total);
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, nh = c.n_heads, hd = c.head_dim, qd = nh * hd, V = c.vocab, T = w.seq,
            B = w.batch, total = counted->total;
  const Checked N = Checked(B) * T;
  auto R = [](Checked b) { return rounded(b); };
  const bool ac = w.recompute == Recompute::Full, offload = w.offload_activations;
  // optimizer_in_bwd (_setup_optimizer: one AdamW(fused) per parameter; training/memory.py
  // register_optim_in_bwd_hooks: each parameter's post-accumulate-grad hook steps it and
  // zero_grad()s it, which sets the gradient to None): no gradient outlives its accumulation.
  const bool in_bwd = w.optimizer_in_bwd;

  // --- The model, its gradients and AdamW's states, all bf16, and the fused step's fp32 step
  // tensors: one a parameter (the embedding, per layer q, k, v, o (with Qwen2's three biases),
  // w1, w2, w3 and two norms, the final norm, an untied head).
  const Checked weights = Checked(total) * 2;
  const i64 tensors = 1 + L * (9 + (c.bias_qkv ? 3 : 0)) + 1 + (c.tie_embeddings ? 0 : 1);
  const Checked step_tensors = R(Checked(4)) * tensors;
  const Checked states = weights * 2 + step_tensors;  // exp_avg, exp_avg_sq, step
  const Checked all_grads = weights;
  // Gradients exist from a micro-batch's backward until zero_grad(set_to_none=True) after the step:
  // in the forward and backward of every micro-batch after the first of a step.
  const bool accum = w.grad_accum > 1;

  // --- Buffers: the batch, the mask, the RoPE cache, cuBLAS.
  const Packed k = packed(c, w);
  const Checked &ids = k.ids, &fixed = k.fixed;
  const Builder& builder = *k.builder;

  // --- What one layer keeps for backward (each an allocation of N rows).
  const Checked norm = R(N * C * 4) + R(N * 4) + R(N * C * 2);  // x.float(), rsqrt, x_normed (bf16)
  const Checked rope = R(N * hd * 4) * 2;                        // the gathered cache, for q and for k
  // flex attention: q, k and v at every query head, the output (also output_proj's input), the
  // logsumexp.
  const Checked attn = R(N * qd * 2) * 4 + R(N * nh * 4);
  const Checked mlp = norm + R(N * C * 2) + R(N * I * 2) * 4;  // mlp_norm, its output, w1 out, silu, w3 out, product
  const Checked layer = norm + R(N * C * 2) + rope + attn + mlp;
  const Checked input = R(N * C * 2);  // a checkpointed layer's input (bf16)
  // With activation offloading (OffloadActivations, as in lora_peak): the final norm's saves after
  // the last layer's input (x.float() and the rsqrt twice, then x_normed for the trained scale)
  // release every layer input from the forward stash, so none is on the GPU at the loss; in
  // backward each layer holds its own input, brought back.
  const Checked kept = ac ? (offload ? Checked() : input * L) : layer * L;
  // The final RMSNorm: x.float(), rsqrt, x_normed, and its output, which the head's F.linear keeps.
  const Checked final_norm = norm + R(N * C * 2);

  // --- Moment 1: the loss's backward, in log_softmax's backward: its saved fp32 output, the fp32
  // gradient nll_loss wrote and the one log_softmax writes (the fp32 logits were deleted).
  const Checked loss = R(N * V * 4) * 3;
  const Checked loss_phase = weights + states + (accum ? all_grads : Checked()) + kept + final_norm + loss + ids + fixed;

  // --- Moment 2: a layer's backward. In flight: the layer's output gradient and its input's; at
  // the MLP's multiply the product's gradient and the two it makes; or, once the MLP's tensors
  // are freed, flex attention's backward: dq, dk, dv at every query head beside the output's
  // gradient and the fp32 delta. The gradients: the head's (tied: the embedding's, once), the
  // final norm's and those of layers k … L − 1; all of them with accumulation.
  const Checked io = R(N * C * 2) * 2;
  // With optimizer_in_bwd a layer keeps no gradient, but a weight's lives from its mm's backward,
  // which makes the input's gradient beside it, to its hook: at w2's backward (every tensor of the
  // layer still held) the product's gradient and w2's, I × C; at output_proj's (the MLP's freed)
  // the attention output's and output_proj's, H·hd × C. Without it the layers' gradients are all
  // counted in grads_at.
  const Checked w2_grads = R(N * I * 2) + R(Checked(I) * C * 2), o_grads = R(N * qd * 2) + R(Checked(qd) * C * 2);
  auto larger = [](Checked a, Checked b) { return a.ok() && b.ok() && b.value() > a.value() ? b : a; };
  const Checked mlp_moment = in_bwd ? larger(R(N * I * 2) * 3, w2_grads) : R(N * I * 2) * 3;
  const Checked attn_moment = in_bwd ? larger(R(N * qd * 2) * 4 + R(N * nh * 4), o_grads) : R(N * qd * 2) * 4 + R(N * nh * 4);
  const Checked per_layer_params((total - (c.tie_embeddings ? 1 : 2) * V * C - C) / L);
  auto grads_at = [&](i64 at) {
    return in_bwd ? Checked() : accum ? all_grads : (Checked(V) * C + C + per_layer_params * (L - at)) * 2;
  };
  auto backward_moment = [&](Checked held) { return layer_backward_moment(held, mlp, io, mlp_moment, attn_moment); };
  // The last layer (with checkpointing: every input and the recomputed layer) and layer 0 (its own
  // tensors; every gradient but the embedding's).
  // With offloading every layer holds its input and its tensors: layer 0, with the most gradients,
  // is the largest.
  const LayerMoment last = backward_moment(ac ? (offload ? input : input * L) + layer : layer * L), first = backward_moment(ac ? input + layer : layer);
  auto layer_phase = [&](const LayerMoment& m, i64 at) { return weights + states + grads_at(at) + m.kept + m.inflight + ids + fixed; };
  const Checked last_phase = layer_phase(last, L - 1), first_phase = layer_phase(first, 0);

  // --- Moment 3: the embedding's backward, the last: every other gradient exists, the layer-0
  // input's gradient arrives, embedding_dense_backward_cuda sorts the token ids (a range, the
  // sorted ids and their order, int64) and writes a new V × C gradient; with a tied head,
  // AccumulateGrad adds it to the one the head left, both live at once. The kernel's cub scratch
  // and segment tables (N-sized at most) are not counted. AdamW's fused step after it holds the
  // same gradients and states and nothing more.
  // With optimizer_in_bwd only the embedding's gradient is there (a tied head's was stepped and
  // freed at the head's backward; the embedding's hook steps the weight again).
  const Checked embed_new = c.tie_embeddings ? R(Checked(V) * C * 2) : Checked();
  const Checked embed_work = input + R(N * 8) * 3;
  const Checked embed_grads = in_bwd ? R(Checked(V) * C * 2) : all_grads + embed_new;
  const Checked embed_phase = weights + embed_grads + states + embed_work + ids + fixed;

  for (const Checked& x : {loss_phase, last_phase, first_phase, embed_phase})
    if (!x.ok()) return memory_overflow("seq");
  const bool first_wins = first_phase.value() > last_phase.value();
  RecipePhase phase = RecipePhase::LossBackward;
  Checked top = loss_phase;
  if ((first_wins ? first_phase : last_phase).value() > top.value()) {
    phase = RecipePhase::LayerBackward;
    top = first_wins ? first_phase : last_phase;
  }
  if (embed_phase.value() > top.value()) {
    phase = in_bwd ? RecipePhase::EmbeddingGradientInBwd : RecipePhase::EmbeddingGradient;
    top = embed_phase;
  }

  RecipePeak p;
  p.recipe = Recipe::Torchtune;
  p.version = std::string("torchtune 1814feb1 (Nov 2024) full_finetune_single_device, models.") + builder.name +
              " · PyTorch 2.5 · packed batches, flex attention · torch.optim.AdamW(fused=True)" + (in_bwd ? " · optimizer_in_bwd" : "") +
              " · torch.nn.CrossEntropyLoss" +
              (offload ? " · activation offloading (OffloadActivations, streams)" : "") + " · no compile";
  p.phase = phase;
  p.peak_allocated_bytes = top.value();
  p.weights_bytes = weights.value();
  p.trainable_params = total;
  p.optimizer_bytes = states.value();
  p.fixed_bytes = fixed.value();

  const LayerRows rows{Str::rfx_tt_layer, hd, L, "N = batch × seq = " + with_commas(N.value()),
                       "torchtune modules/transformer.py, rms_norm.py, position_embeddings.py, attention.py, feed_forward.py; "
                       "torch flex_attention"};
  const std::string src_adamw = "torch optim/adamw.py _init_group (zeros_like(p), fused: a step tensor on the device), _fused_adamw";
  auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  part(Str::recipe_part_weights, weights, row_arg(Str::rfx_weights_bf16, with_commas(total)),
       "torchtune training.set_default_dtype(torch.bfloat16); FullModelHFCheckpointer");
  part(Str::recipe_part_optimizer, states, row_arg(Str::rfx_tt_adamw_states, with_commas(tensors)), src_adamw);
  Checked grads, saved, head;
  if (phase == RecipePhase::LossBackward) {
    grads = accum ? all_grads : Checked();
    saved = kept + final_norm + ids;
    head = loss;
    kept_part(p, ac, offload, kept, rows);
    part(Str::recipe_part_norms, final_norm, Str::rfx_final_norm_full, "torchtune modules/rms_norm.py RMSNorm.forward; TransformerDecoder.forward");
    part(Str::recipe_part_tt_loss, loss, row_arg(Str::rfx_tt_loss, with_commas(V)),
         "torch cross_entropy: log_softmax, nll_loss; NllLossBackward0, LogSoftmaxBackward0");
  } else if (phase == RecipePhase::LayerBackward) {
    const LayerMoment& m = first_wins ? first : last;
    grads = grads_at(first_wins ? 0 : L - 1);
    saved = m.kept + m.inflight + ids;
    if (in_bwd)
      backward_parts(p, ac, offload, first_wins ? 0 : L - 1, input, m, rows, Str::rfx_tt_inflight_in_bwd,
                     "torch autograd, AccumulateGrad; torchtune training/memory.py register_optim_in_bwd_hooks; flex_attention backward");
    else
      backward_parts(p, ac, offload, first_wins ? 0 : L - 1, input, m, rows);
  } else {
    grads = embed_grads;
    saved = embed_work + ids;
    part(Str::recipe_part_tt_embedding, embed_work, Str::rfx_tt_embedding, "torch aten/src/ATen/native/cuda/Embedding.cu embedding_dense_backward_cuda");
  }
  part(Str::recipe_part_gradients, grads,
       in_bwd ? RowArg(Str::rfx_tt_grads_in_bwd) : phase == RecipePhase::EmbeddingGradient ? RowArg(Str::rfx_tt_grads_all) : RowArg(Str::rfx_grads_full),
       "torch AccumulateGrad; torchtune full_finetune_single_device.py train (zero_grad(set_to_none=True))");
  return finish(std::move(p), k, grads, saved, head);
}

}  // namespace llmsize::core::recipe_detail

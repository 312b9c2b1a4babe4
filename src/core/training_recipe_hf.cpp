// recipe_peak() for --recipe hf-peft: the Hugging Face Trainer with PEFT's LoRA as TRL's SFTTrainer
// sets it up, tensor by tensor (training_recipe.hpp).
//
// Followed, at the versions of the calibration's runs (tests/calibration/training/hf_peft_test.cpp):
// - transformers 4.48.1: models/mistral/modeling_mistral.py and models/llama/modeling_llama.py
//   and models/mixtral/modeling_mixtral.py MixtralSparseMoeBlock / MixtralBlockSparseTop2MLP
//   (the decoder layer, *RMSNorm.forward, *RotaryEmbedding.forward, *ForCausalLM.forward, which
//   keeps the bf16 logits while the loss runs); loss/loss_utils.py ForCausalLMLoss (logits.float(),
//   then the shifted copy logits[..., :-1, :].contiguous()); integrations/flash_attention.py (fp32
//   q, k, v cast to the autocast dtype); modeling_utils.py gradient_checkpointing_enable
//   (use_reentrant=True unless told); trainer.py (model.zero_grad() after each optimizer step,
//   max_grad_norm 1.0, the default optimizer adamw_torch);
// - TRL 0.13.0 trainer/sft_trainer.py SFTTrainer.__init__: a 4-bit model goes through PEFT's
//   prepare_model_for_kbit_training (every non-4-bit parameter to fp32), get_peft_model, and with
//   bf16=True trainer/utils.py peft_module_casting_to_bf16 (norms stay fp32; embed_tokens and
//   lm_head back to bf16); an unquantized model gets enable_input_require_grads;
// - PEFT 0.13.2: mapping.py get_peft_model(autocast_adapter_dtype=True) makes the adapters fp32;
//   tuners/lora/layer.py Linear.forward (x.to(lora_A.weight.dtype), result cast back);
//   tuners/lora/bnb.py Linear4bit.forward (result.clone(); no cast under autocast);
// - bitsandbytes 0.43.3: nn/modules.py Linear4bit.forward (x.to(compute_dtype), out.to(inp_dtype)),
//   autograd/_functions.py MatMul4Bit (ctx.tensors = (None, B): it keeps no input);
// - flash-attn 2.7.3 flash_attn_interface.py FlashAttnFunc.forward (saves q, k, v, out and the
//   fp32 softmax_lse), csrc flash_api.cpp mha_bwd (dq_accum fp32);
// - PyTorch 2.4.1: utils/checkpoint.py CheckpointFunction (the forward keeps only the layer's
//   inputs; backward recomputes the layer and runs its backward), optim/adamw.py
//   _multi_tensor_adamw (foreach: in-place updates, then torch._foreach_sqrt(exp_avg_sq), a full
//   copy), tools/autograd/gen_variable_type.py (an operand is saved only for a gradient that is
//   computed: a frozen Linear keeps no input), the caching allocator's 512-byte rounding;
// - FSDP (--zero fsdp, full fine-tuning), PyTorch 2.4.1's FullyShardedDataParallel as accelerate
//   1.0.1 wraps it from fms-acceleration's scripts/benchmarks/accelerate.yaml (FULL_SHARD,
//   TRANSFORMER_BASED_WRAP: one unit per decoder layer and the root, BACKWARD_PRE, no forward
//   prefetch, use_orig_params true as accelerate launch sets it, no mixed precision):
//   distributed/fsdp/_flat_param.py FlatParamHandle._init_flat_param_and_metadata (with
//   use_orig_params each parameter starts 16-byte aligned) and flatten_tensors / _get_shard (the
//   flat parameter padded to a multiple of the world size, one equal shard per rank);
//   _runtime_utils.py _post_forward_reshard (every unit but the root frees its all-gathered
//   parameter after its forward), _pre_backward_hook with _prefetch_handle (BACKWARD_PRE gathers
//   the next unit before the current one's backward runs), _post_backward_hook / _reduce_grad
//   (the unit's unsharded gradient, built when its last parameter's gradient arrives, is
//   reduce-scattered into a shard that stays as the flat parameter's .grad),
//   _root_pre_forward -> FlatParamHandle._reset_flat_param_grad_info_if_needed (the next step's
//   forward drops those shards once zero_grad has set the original parameters' .grad to None).
#include <algorithm>

#include "params.hpp"
#include "training_recipe.hpp"

namespace llmsize::core::recipe_detail {

namespace {

enum class Method : std::uint8_t { Lora, Qlora, Full };

// The families whose transformers 4.48.1 code is LlamaDecoderLayer as written (model.hpp), and
// Mixtral's, the same layer with MixtralSparseMoeBlock for its MLP.
bool hf_family(Family f) { return f == Family::Llama || f == Family::Mistral || f == Family::Qwen2 || f == Family::Mixtral; }

// Mixtral: every layer a MoE block of E gated experts, the top k of a softmax over a router
// Linear without bias, renormalized; no shared expert. The rest is Mistral's decoder.
bool hf_mixtral(const ModelConfig& c) {
  const MoeConfig& m = c.moe;
  if (c.family != Family::Mixtral || !c.is_moe() || m.top_k < 1 || m.top_k > m.num_experts || m.shared_ffn != 0 || m.shared_gate ||
      m.first_dense != 0 || m.freq != 1 || m.router_bias || m.router_correction_bias || m.expert_bias || m.scale_input ||
      !m.norm_topk || m.routed_scale != 1.0 || !m.dense_layers.empty() || m.expert_ffn != c.d_ff)
    return false;
  ModelConfig dense = c;
  dense.family = Family::Mistral;
  dense.moe = MoeConfig{};
  return hf_llama_decoder(dense);
}

std::optional<Issue> hf_scope(const ModelConfig& c, const Workload& w, const Gpu& gpu, Method& method, bool& dq) {
  if (w.mode != Mode::Training) return refuse(Str::recipe_training_only);
  if (!hf_family(c.family)) return refuse(Str::recipe_hf_family, std::string(family_id(c.family)));
  const bool moe = c.family == Family::Mixtral;
  if (moe ? !hf_mixtral(c) : !hf_llama_decoder(c)) return refuse(Str::recipe_hf_shape);
  const bool fsdp = w.sharding == Sharding::Fsdp;
  if (w.tp != 1 || w.pp != 1 || w.ep != 1 || (w.sharding != Sharding::None && !fsdp) || (w.gpus != 1) != fsdp)
    return refuse(Str::recipe_hf_one_gpu);
  if (w.adapter != Adapter::None) return refuse(Str::recipe_hf_adapter);
  // gradient_checkpointing=True keeps each layer's input (--recompute full); False keeps every
  // layer's saved tensors (--recompute none).
  if (w.recompute == Recompute::Selective) return refuse(Str::recipe_hf_recompute);
  if (w.optimizer != Optimizer::AdamW) return refuse(Str::recipe_hf_optimizer);
  if (w.dtype != ComputeDtype::BF16 || w.grad_dtype != GradDtype::Auto) return refuse(Str::recipe_hf_dtype);
  const bool four_bit = w.qlora || w.weights == WeightFormat::Nf4 || w.weights == WeightFormat::Nf4Dq;
  if (!four_bit && w.weights != WeightFormat::BF16) return refuse(Str::recipe_hf_weights, std::string(to_string(w.weights)));
  dq = w.qlora || w.weights == WeightFormat::Nf4Dq;
  method = four_bit ? Method::Qlora : w.lora_rank > 0 ? Method::Lora : Method::Full;
  if (method == Method::Qlora && w.lora_rank <= 0) return refuse(Str::recipe_hf_qlora_rank);
  if (fsdp && method != Method::Full) return refuse(Str::recipe_hf_fsdp_lora);
  // Mixtral: adapters on the attention (its experts' w1, w2, w3 are no gate/up/down_proj for
  // PEFT's target names), gradient checkpointing on, not full fine-tuning.
  if (moe && (method == Method::Full || (w.lora_targets & (kLoraGate | kLoraUp | kLoraDown)) || w.recompute != Recompute::Full))
    return refuse(Str::recipe_hf_moe);
  if (fsdp && w.grad_accum > 1) return refuse(Str::recipe_hf_fsdp_accum);
  // Without checkpointing nothing makes the embeddings need a gradient: layer 0's attention keeps
  // its tensors only for an adapter there; with adapters on the MLP alone the first layers' would
  // need a reach this model does not follow.
  if (method != Method::Full && w.recompute == Recompute::None && !(w.lora_targets & (kLoraQ | kLoraK | kLoraV | kLoraO)))
    return refuse(Str::recipe_hf_mlp_only);
  // TrainingArguments(bf16=True) is autocast, --precision mixed here; a bf16 model trained without it
  // is pure. TRL casts a 4-bit model's norms to fp32 only with bf16=True.
  if (w.precision == Precision::Fp32 || (method == Method::Qlora && w.precision != Precision::Mixed))
    return refuse(method == Method::Qlora ? Str::recipe_hf_precision_qlora : Str::recipe_hf_precision_bf16);
  // torch.optim.AdamW keeps exp_avg and exp_avg_sq in each parameter's dtype (zeros_like).
  if (method == Method::Full ? w.opt_state != StateDtype::BF16 : w.opt_state != StateDtype::F32)
    return refuse(method == Method::Full ? Str::recipe_hf_states_full : Str::recipe_hf_states_lora);
  if (w.seq < 2) return refuse(Str::recipe_hf_seq);
  // attn_implementation="flash_attention_2": flash-attn 2 runs on sm80 and newer NVIDIA GPUs, head
  // dimensions up to 256; at a multiple of 8 its saved output is the output itself (no padding copy).
  if (!w.flash_attention || gpu.cuda_cc < 8.0 || c.head_dim > 256 || c.head_dim % 8 != 0)
    return refuse(Str::recipe_hf_flash, gpu.name);
  return std::nullopt;
}

struct Phase {
  RecipePhase phase;
  Checked bytes;
};

}  // namespace

Result<RecipePeak> hf_peft_peak(const ModelConfig& c, const Workload& w, const Gpu& gpu) {
  Method method = Method::Lora;
  bool dq = false;
  if (auto bad = hf_scope(c, w, gpu, method, dq)) return *bad;
  const auto counted = count_params(c);
  if (!counted) return counted.issues();
  const bool lora = method != Method::Full, qlora = method == Method::Qlora, full = method == Method::Full;
  const bool dropout = lora && w.dropout;  // LoraConfig(lora_dropout > 0): a native_dropout per adapted Linear
  // bf16=True: autocast around the forward. Over a bf16 model it casts nothing but the fp32 adapters
  // (full fine-tuning is the same with or without it); QLoRA always has it.
  const bool autocast = w.precision == Precision::Mixed;
  const bool checkpointing = w.recompute == Recompute::Full;
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, nh = c.n_heads, hd = c.head_dim, qd = nh * hd,
            kvd = c.n_kv_heads * hd, V = c.vocab, r = w.lora_rank, T = w.seq, B = w.batch;
  const Checked N = Checked(B) * T, Ns = Checked(B) * (T - 1);  // tokens; the loss's shifted tokens
  auto R = [](Checked b) { return rounded(b); };

  // --- The base as stored, the adapters, the optimizer's states.
  struct Lin {
    std::uint32_t bit;
    i64 in, out;
  };
  const Lin lins[] = {{kLoraQ, C, qd}, {kLoraK, C, kvd}, {kLoraV, C, kvd}, {kLoraO, qd, C},
                      {kLoraGate, C, I}, {kLoraUp, C, I}, {kLoraDown, I, C}};
  // Mixtral: the MLP's three Linears are each expert's w1, w3 and w2, E times, beside the router
  // gate (C → E); the other Linears once.
  const bool moe = c.family == Family::Mixtral;
  const i64 E = moe ? c.moe.num_experts : 1, topk = moe ? c.moe.top_k : 1;
  auto copies = [&](const Lin& l) { return l.bit == kLoraGate || l.bit == kLoraUp || l.bit == kLoraDown ? E : i64{1}; };
  Checked layer_linear = moe ? Checked(C) * E : Checked();
  for (const Lin& l : lins) layer_linear += Checked(l.in) * l.out * copies(l);
  const Checked norm_params = Checked(2 * L + 1) * C;
  const i64 bias_params = c.bias_qkv ? L * (qd + 2 * kvd) : 0;  // Qwen2's q, k and v biases
  const i64 total = counted->total;
  const Checked linear_params = layer_linear * L;
  if (!linear_params.ok() || !norm_params.ok() || linear_params.value() + norm_params.value() + bias_params > total)
    return refuse(Str::recipe_hf_shape).value();
  const i64 other = total - linear_params.value() - norm_params.value() - bias_params;  // embed_tokens and lm_head
  Checked weights;
  RowArg weights_formula("");
  if (!qlora) {
    weights = Checked(total) * 2;  // from_pretrained(torch_dtype=bfloat16)
    weights_formula = row_arg(Str::rfx_weights_bf16, with_commas(total));
  } else {
    // BitsAndBytesConfig(load_in_4bit, bnb_4bit_quant_type nf4, bnb_4bit_use_double_quant) swaps every
    // Linear of the layers; lm_head stays (get_keys_to_not_convert). prepare_model_for_kbit_training
    // makes every other parameter fp32, and peft_module_casting_to_bf16 returns embed_tokens and
    // lm_head to bf16: the norms and the 4-bit Linears' biases stay fp32.
    // Mixtral's router gate is a Linear too, and 4-bit as the rest.
    for (const Lin& l : lins) weights += bnb4_linear_bytes(l.in, l.out, dq) * L * copies(l);
    if (moe) weights += bnb4_linear_bytes(C, E, dq) * L;
    if (dq) weights += R(Checked(kBnbDynamicMap));
    weights += Checked(other) * 2 + (norm_params + bias_params) * 4;
    weights_formula = row_arg(Str::rfx_weights_4bit_hf, with_commas((moe ? 4 + 3 * E + 1 : 7) * L), dq ? Str::rfx_absmax_nf4_dq : Str::rfx_absmax_nf4,
                              with_commas(other), with_commas(norm_params.value() + bias_params));
  }
  // FSDP: every rank keeps one shard of each unit's flat parameter (FlatParamHandle: the unit's
  // parameters in registration order, each starting 16-byte aligned, i.e. at a multiple of 8 bf16
  // elements, the whole padded to a multiple of the world size). The units: each decoder layer
  // (q, k, v with Qwen2's biases, o, gate, up, down, the two norms) and the root (embed_tokens,
  // the final norm, lm_head unless tied).
  const bool fsdp = w.sharding == Sharding::Fsdp;
  const i64 W = fsdp ? w.gpus : 1;
  auto flat_numel = [W](std::initializer_list<Checked> numels) { return fsdp_flat_param(numels, W).padded; };
  const i64 qb = c.bias_qkv ? qd : 0, kb = c.bias_qkv ? kvd : 0;
  const Checked layer_flat = flat_numel({Checked(C) * qd, Checked(qb), Checked(C) * kvd, Checked(kb), Checked(C) * kvd, Checked(kb),
                                         Checked(qd) * C, Checked(C) * I, Checked(C) * I, Checked(I) * C, Checked(C), Checked(C)});
  const Checked root_flat = flat_numel({Checked(V) * C, Checked(C), c.tie_embeddings ? Checked(0) : Checked(V) * C});
  auto per_rank = [W](Checked flat) { return flat.ok() ? Checked(flat.value() / W) : flat; };  // a multiple of W
  const Checked shard_layer = fsdp ? R(per_rank(layer_flat) * 2) : Checked(), shard_root = fsdp ? R(per_rank(root_flat) * 2) : Checked();
  if (fsdp) {
    weights = shard_root + shard_layer * L;
    weights_formula = row_arg(Str::rfx_weights_fsdp, with_commas(root_flat.ok() ? root_flat.value() : 0), with_commas(L),
                              with_commas(layer_flat.ok() ? layer_flat.value() : 0), with_commas(W));
  }
  Checked adapters, trainable, autocast_cache;
  if (lora) {
    // PEFT LoraLayer.update_layer: lora_A (r, in) and lora_B (out, r) per adapted Linear, fp32.
    // Under autocast, F.linear casts them to bf16, and autocast caches the cast of a leaf
    // that requires grad until the outermost autocast region exits (autocast_mode.cpp cached_cast):
    // the whole forward, so every layer's bf16 copies are live at the loss.
    for (const Lin& l : lins)
      if (w.lora_targets & l.bit) {
        adapters += (R(Checked(r) * l.in * 4) + R(Checked(l.out) * r * 4)) * L;
        if (autocast) autocast_cache += (R(Checked(r) * l.in * 2) + R(Checked(l.out) * r * 2)) * L;
        trainable += Checked(r) * (l.in + l.out) * L;
      }
  } else {
    trainable = Checked(total);
  }
  // The states (and the step's sqrt copy, and the gradients) have the trainable tensors' shapes and dtype.
  const Checked trained_bytes = lora ? adapters : weights;
  const Checked states = trained_bytes * 2;  // exp_avg, exp_avg_sq
  // Gradients exist from a micro-batch's backward until zero_grad() after the optimizer step: in the
  // forward of every micro-batch after the first of a step (--grad-accum > 1).
  const Checked grads_in_forward = w.grad_accum > 1 ? trained_bytes : Checked();

  // --- Buffers that do not scale with the model: the batch, the positions, the RoPE tables, cuBLAS.
  // DataCollatorForLanguageModeling: input_ids, labels and attention_mask, int64 (b, s).
  const Checked batch_ids = R(N * 8) * 3;
  // MistralModel.forward: cache_position (s) and position_ids (1, s), int64; each checkpointed layer
  // keeps them as arguments until its backward; so do cos and sin (1, s, head_dim) in the
  // activations' dtype, bf16 (the embeddings').
  const Checked positions = R(Checked(T) * 8) * 2;
  const Checked rope = R(Checked(T) * hd * 2) * 2 + R(Checked(hd / 2) * 4);  // + inv_freq (fp32 buffer)
  // Two cuBLAS workspaces: one per handle and stream, and handles are per thread: the forward's and
  // autograd's device thread, where backward runs.
  const Checked cublas = Checked(kCublasWorkspace) * 2;

  // --- The checkpointed layers' inputs, kept from the forward to each layer's backward. The
  // embeddings are bf16; a layer's output is bf16 too, except in QLoRA, where the fp32 norms feed
  // fp32 into the MLP's 4-bit Linears, which return their input's dtype (out.to(inp_dtype)), so
  // the residual stream is fp32 from layer 0's output on.
  const i64 res = qlora ? 4 : 2;
  const Checked ckpt = R(N * C * 2) + R(N * C * res) * (L - 1);

  // --- Phase 1, the loss's forward (from the second step on, with AdamW's states), as
  // log_softmax writes its output.
  // The final RMSNorm keeps x in fp32 (a copy of a bf16 input, or the fp32 last layer output
  // itself) and the rsqrt; its output (bf16, fp32 in QLoRA: the fp32 weight times x) is held by
  // the model's outputs until the loss returns; full fine-tuning also keeps x_normed in bf16 for
  // the norm weight's gradient.
  Checked final_norm = R(N * C * 4) + R(N * 4) + R(N * C * (qlora ? 4 : 2));
  if (full) final_norm += R(N * C * 2);
  // The bf16 logits (kept by *ForCausalLM.forward), logits.float(), the shifted contiguous copy and
  // log_softmax's fp32 result, which cross_entropy keeps for backward. Later moments hold less:
  // backward frees the bf16 and float logits first (12·V at most), and accelerate's fp32 copy of
  // the outputs (bf16=True) comes after the loss's copies are freed.
  const Checked logits = R(N * V * 2) + R(N * V * 4) + R(Ns * V * 4);
  const Checked log_softmax = R(Ns * V * 4);
  const Checked shift_labels = R(Ns * 8);
  const Checked fixed_fwd = rope + cublas;

  // --- Phase 2, a layer's backward. With checkpointing, CheckpointFunction.backward reruns the
  // layer with autograd on, then its backward; without, every layer kept its tensors from the
  // forward. What a layer keeps, per token (each an allocation of N rows; "in" is an adapted
  // Linear's input width):
  //   LoRA on a bf16 base: each RMSNorm its fp32 x and rsqrt; each adapted Linear x.to(fp32)'s
  //     dropout mask (bool) and output (kept by lora_A) and lora_A's fp32 output (kept by lora_B);
  //     flash attention q and k after RoPE, v, the output (bf16) and the fp32 logsumexp; the MLP
  //     gate, silu(gate) and up (bf16).
  //   LoRA on a bf16 base under autocast: the same, except that lora_A keeps autocast's bf16 cast
  //     of the fp32 dropout output and lora_A's output is bf16.
  //   QLoRA under autocast: the input norm only its rsqrt (its fp32 input is the layer's own; layer
  //     0's bf16 input makes an fp32 copy); each adapted Linear the mask and lora_A's bf16 input
  //     (autocast's cast; o_proj's input is already bf16: with no dropout it is the attention
  //     output flash attention keeps), lora_A's bf16 output; the same attention tensors (q, k, v
  //     cast to bf16); the post-attention norm its fp32 input (residual + o_proj) and rsqrt; the
  //     MLP gate, silu(gate), up in fp32 (the 4-bit Linears return fp32).
  //   Full fine-tuning: each norm also x_normed (for its weight's gradient) and its output (the
  //     next Linears' input, kept for their weights' gradients); the MLP also its product.
  // By the recomputed layer's backward its autocast region has exited, so the cache is cleared;
  // the bf16 LoRA copies the layer's Linears keep (one layer's, r·(in + out) · 2 B per adapter)
  // are left out.
  const i64 a = qlora ? 4 : 2;  // the MLP's and the layer output's element bytes
  // One layer's saved tensors, and those of its MLP and post-attention norm (backward frees them
  // first). `input_grad`: the layer's input needs a gradient, always but for layer 0 of a LoRA
  // model trained without checkpointing (TRL calls enable_input_require_grads only with it): then
  // its input norm and the adapted q, k, v keep no copy or mask, and flash attention keeps its
  // tensors only when q, k or v carries an adapter (a Function whose inputs need no gradient
  // records nothing).
  struct LayerTensors {
    Checked all, mlp;
  };
  // Mixtral's MoE block in place of the MLP (MixtralSparseMoeBlock.forward): the router keeps
  // softmax's fp32 probabilities (N·E), topk's int64 indices (N·k), and the in-place division's
  // divisor (N) and copy of the top-k weights it changed (N·k, fp32); each expert e, over its
  // n_e rows (Σ n_e = k·N), keeps w1's output (SiLU's input), silu(w1) and w3's output (the
  // product's operands), w2's output and the row's routing weight (their product's), in the
  // hidden states' dtype (fp32 under QLoRA: the 4-bit Linears return their input's), and the
  // int64 row and slot indices torch.where gave (the gather, the weights' index and index_add_
  // keep them). Which rows go to which expert is the data's; routing is taken as balanced,
  // k·N/E rows an expert (the first k·N mod E one more).
  const i64 kN = N.ok() ? N.value() * topk : 0, rows_hi = ceil_div(kN, E), rows_lo = kN / E, n_hi = kN - rows_lo * E;
  auto expert_saved = [&](i64 n) {
    return R(Checked(n) * I * a) * 3 + R(Checked(n) * C * a) + R(Checked(n) * a) + R(Checked(n) * 8) * 2;
  };
  const Checked moe_saved = moe ? R(N * E * 4) + R(N * topk * 8) + R(N * 4) + R(N * topk * 4) + expert_saved(rows_hi) * n_hi +
                                      expert_saved(rows_lo) * (E - n_hi)
                                : Checked();
  auto layer_tensors = [&](bool first_layer, bool input_grad) {
    Checked norm1 = input_grad ? R(N * 4) : Checked(), norm2 = R(N * C * 4) + R(N * 4);
    // LoRA: x.to(fp32), a copy; QLoRA: the fp32 input itself (layer 0's bf16 one copied), which
    // only the checkpoint keeps otherwise.
    if (input_grad && (!qlora || first_layer || !checkpointing)) norm1 += R(N * C * 4);
    if (full) {
      norm1 += R(N * C * 2) * 2;
      norm2 += R(N * C * 2) * 2;
    }
    const bool qkv_grad = input_grad || (lora && (w.lora_targets & (kLoraQ | kLoraK | kLoraV)));
    Checked attn_lora, mlp_lora;
    for (const Lin& l : lins) {
      if (!lora || !(w.lora_targets & l.bit)) continue;
      const bool mlp_bit = l.bit == kLoraGate || l.bit == kLoraUp || l.bit == kLoraDown;
      const bool in_grad = mlp_bit || (l.bit == kLoraO ? qkv_grad : input_grad);  // the Linear's input needs a gradient
      const i64 in_b = autocast ? 2 : 4;
      Checked x = (dropout && in_grad ? R(N * l.in) : Checked()) + R(N * r * in_b);
      if (!(qlora && l.bit == kLoraO && !dropout)) x += R(N * l.in * in_b);
      (mlp_bit ? mlp_lora : attn_lora) += x;
    }
    const Checked attn = qkv_grad ? R(N * qd * 2) * 2 + R(N * kvd * 2) * 2 + R(Checked(B) * nh * T * 4) : Checked();
    const Checked mlp = norm2 + mlp_lora + (moe ? moe_saved : R(N * I * a) * (full ? 4 : 3));
    return LayerTensors{norm1 + attn_lora + attn + mlp, mlp};
  };
  // During a layer's backward: its output and the output's gradient; at the MLP's multiply the
  // product's gradient and the two it makes; or, once the MLP's tensors are freed, flash
  // attention's backward (flash_api.cpp mha_bwd): dq, dk, dv, with fewer KV heads dk_expanded and
  // dv_expanded at every query head, softmax_d and dq_accum (fp32, seqlen_q rounded to 128, head
  // size rounded to 32, or 256 past 192), beside the output's gradient dout. `kept` is what the
  // layers hold then; the larger moment is returned with its kept tensors and its in-flight ones.
  const Checked io = R(N * C * a) * 2;
  // Mixtral: the first expert autograd reaches (the last one run) at its product's multiply.
  const Checked mlp_moment = moe ? R(Checked(rows_hi) * I * a) * 3 : R(N * I * a) * 3;
  const i64 s128 = ceil_div(T, 128) * 128, hd_r = hd <= 192 ? ceil_div(hd, 32) * 32 : 256;
  const Checked attn_moment = R(N * qd * 2) * 2 + R(N * kvd * 2) * 2 + (kvd != qd ? R(N * qd * 2) * 2 : Checked()) +
                              R(Checked(B) * s128 * nh * hd_r * 4) + R(Checked(B) * nh * s128 * 4);
  // QLoRA: every 4-bit Linear's MatMul4Bit.backward (bitsandbytes 0.43.3 autograd/_functions.py)
  // dequantises its weight for the input's gradient, grad_output @ dequantize_4bit(B).t():
  // functional.py dequantize_4bit makes, with double quantization, the absmax in fp32 (one a block
  // of 64, dequantize_blockwise) and then the weight in quant_state.dtype (bf16: the model was
  // loaded in it), which lives through the matmul and its bf16 product, the input's gradient; the
  // absmax is gone by then. The first autograd reaches in a layer, with every tensor of the layer
  // still saved, is down_proj (Mixtral: the last expert run's w2, over its rows), the largest but
  // for gate and up, which come after the MLP's tensors are freed. In flight beside: the layer's
  // output and its gradient; Linear4bit's out.to(inp_dtype) backward, the output's gradient cast to
  // bf16; and where down_proj carries an adapter, the fp32 gradient lora_A's path (run first, its
  // nodes being the later) left for the product, waiting to be summed. q, k, v and o, smaller, come
  // after the MLP's tensors are freed, and the recomputed forward holds no gradient.
  const i64 down_rows = moe ? rows_hi : (N.ok() ? N.value() : 0);
  const Checked down_n = Checked(I) * C;
  const Checked absmax = dq && down_n.ok() ? R(Checked(ceil_div(down_n.value(), 64)) * 4) : Checked(),
                down_grad = R(Checked(down_rows) * I * 2);
  const Checked down_dequant = qlora ? R(Checked(down_rows) * C * 2) + R(down_n * 2) +
                                           (absmax.ok() && down_grad.ok() && absmax.value() > down_grad.value() ? absmax : down_grad) +
                                           (w.lora_targets & kLoraDown ? R(Checked(down_rows) * I * 4) : Checked())
                                     : Checked();
  struct HfLayerMoment : LayerMoment {
    bool at_down = false;  // QLoRA: down_proj's dequantisation is the moment
  };
  auto backward_moment = [&](Checked kept, const LayerTensors& layer) {
    const LayerMoment m = layer_backward_moment(kept, layer.mlp, io, mlp_moment, attn_moment);
    const Checked at_down = kept + io + down_dequant;
    if (qlora && at_down.ok() && (m.kept + m.inflight).ok() && at_down.value() > (m.kept + m.inflight).value())
      return HfLayerMoment{{kept, io + down_dequant}, true};
    return HfLayerMoment{m, false};
  };
  // Gradients during layer k's backward: LoRA's adapters (bounded by all of them); full
  // fine-tuning's lm_head, final norm and layers k..L-1 in bf16 (all of them with accumulation).
  const Checked per_layer_params = layer_linear + 2 * C + (bias_params / L);
  auto full_grads = [&](i64 k) {
    return w.grad_accum > 1 ? trained_bytes : (Checked(V) * C + C + per_layer_params * (L - k)) * 2;
  };
  const LayerTensors last = layer_tensors(L == 1, full || L > 1 || checkpointing), first = layer_tensors(true, full || checkpointing);
  // What the layers hold from the forward to their backward: with checkpointing each layer's input
  // (phase 1's kept); without it, every layer's saved tensors.
  const Checked kept = checkpointing ? ckpt : first.all + last.all * (L - 1);
  // The last layer's backward (its tensors rebuilt by the recompute) and, for full fine-tuning,
  // whose gradients grow as the layers' tensors are freed, the first layer's.
  const HfLayerMoment last_moment = backward_moment(kept + (checkpointing ? last.all : Checked()), last);
  const HfLayerMoment first_moment = backward_moment(checkpointing ? R(N * C * 2) + first.all : first.all, first);
  // Without checkpointing the adapters' Linears keep autocast's bf16 casts of their weights for
  // backward after the cache is cleared (with it, one layer's: left out).
  const Checked kept_casts = checkpointing ? Checked() : autocast_cache;
  auto layer_phase = [&](const LayerMoment& m, Checked grads) {
    return weights + adapters + states + grads + m.kept + m.inflight + kept_casts + batch_ids + positions + fixed_fwd;
  };
  // FSDP's all-gathered parameters and its gradients during layer k's backward: the root's
  // parameter (unsharded since its forward) and layer k's, with BACKWARD_PRE layer k-1's already
  // prefetched; lm_head's and the final norm's gradients wait for the root's last one (the
  // embeddings', at the very end) before the root's reduce-scatter, layer k's for its own (its
  // weights' gradients all counted, as on one GPU), and the layers after k have their shards.
  const Checked root_full = fsdp ? R(root_flat * 2) : Checked(), layer_full = fsdp ? R(layer_flat * 2) : Checked();
  const Checked head_grads = R(Checked(V) * C * 2) + R(Checked(C) * 2);
  auto fsdp_grads = [&](i64 k) { return head_grads + per_layer_params * 2 + shard_layer * (L - 1 - k); };
  auto fsdp_gathered = [&](i64 k) { return root_full + layer_full * (k > 0 ? 2 : 1); };
  const Checked last_layer = fsdp ? layer_phase(last_moment, fsdp_grads(L - 1)) + fsdp_gathered(L - 1)
                                  : layer_phase(last_moment, full ? full_grads(L - 1) : trained_bytes);
  const Checked first_layer = fsdp ? layer_phase(first_moment, fsdp_grads(0)) + fsdp_gathered(0)
                                   : layer_phase(first_moment, full ? full_grads(0) : trained_bytes);
  // FSDP, the end of layer 0's backward: its weights' gradients beside the flat gradient
  // SplitBackward makes of them for the reduce-scatter, the layer's input and its gradient.
  const Checked layer0_end_grads = head_grads + per_layer_params * 2 * 2 + shard_layer * (L - 1);
  const Checked layer0_end_kept = R(N * C * 2) * 2;
  const Checked layer0_end = weights + states + layer0_end_grads + fsdp_gathered(0) + layer0_end_kept + batch_ids + positions + fixed_fwd;
  // FSDP, the root's backward at the end: each root parameter's gradient (the tied weight's once)
  // beside their flat copy, every layer's shard, the root unsharded.
  const Checked root_param_grads = R(Checked(V) * C * 2) * (c.tie_embeddings ? 1 : 2) + R(Checked(C) * 2);
  const Checked root_end_grads = root_param_grads + root_full + shard_layer * L;
  const Checked root_end = weights + states + root_end_grads + root_full + batch_ids + positions + fixed_fwd;
  const bool first_wins = first_layer.value() > last_layer.value();
  const Checked loss_phase = weights + adapters + states + grads_in_forward + autocast_cache + kept + final_norm + logits +
                             log_softmax + batch_ids + shift_labels + positions + fixed_fwd + root_full;

  // --- Phase 3, AdamW's step: the gradients, exp_avg, exp_avg_sq and torch._foreach_sqrt's copy.
  const Checked step_temp = trained_bytes;
  const Checked step_phase = weights + adapters + trained_bytes + states + step_temp + batch_ids + cublas;

  for (const Checked& x : {loss_phase, last_layer, first_layer, step_phase, layer0_end, root_end})
    if (!x.ok()) return memory_overflow("seq");
  Phase top{RecipePhase::LossForward, loss_phase};
  if ((first_wins ? first_layer : last_layer).value() > top.bytes.value()) top = {RecipePhase::LayerBackward, first_wins ? first_layer : last_layer};
  bool layer0_end_wins = false;
  if (fsdp && layer0_end.value() > top.bytes.value()) {
    top = {RecipePhase::LayerBackward, layer0_end};
    layer0_end_wins = true;
  }
  if (fsdp && root_end.value() > top.bytes.value()) top = {RecipePhase::EmbeddingBackward, root_end};
  if (step_phase.value() > top.bytes.value()) top = {RecipePhase::OptimizerStep, step_phase};

  RecipePeak p;
  p.recipe = Recipe::HfPeft;
  p.version = std::string("transformers 4.48.1 Trainer · TRL 0.13.0 SFTTrainer · PEFT 0.13.2 · PyTorch 2.4.1 · bitsandbytes 0.43.3 · flash-attn 2.7.3") +
              (fsdp ? " · accelerate 1.0.1 FSDP (FULL_SHARD, BACKWARD_PRE, use_orig_params)" : "");
  p.phase = top.phase;
  p.peak_allocated_bytes = top.bytes.value();
  p.weights_bytes = weights.value();
  p.adapter_bytes = adapters.value();
  if (!trainable.ok()) return memory_overflow("seq");
  p.trainable_params = trainable.value();

  const std::string n_s = "N = batch × seq = " + with_commas(N.value());
  const std::string src_ckpt = "torch utils/checkpoint.py CheckpointFunction (use_reentrant=True); transformers gradient_checkpointing_enable";
  const std::string src_adamw = "torch optim/adamw.py _multi_tensor_adamw (zeros_like(p), foreach)";
  const std::string src_autograd = "torch autograd (tools/autograd/derivatives.yaml); flash-attn FlashAttnFunc";
  // The formula of what one layer keeps, for the layers named.
  auto layer_row = [&](const std::string& which) {
    if (moe)  // the MoE block's tensors in place of gate, silu, up
      return row_arg(qlora ? Str::rfx_layer_qlora_moe : autocast ? Str::rfx_layer_lora_autocast_moe : Str::rfx_layer_lora_moe, which,
                     with_commas(E), with_commas(topk), qlora ? "4" : "2");
    return row_arg(qlora ? Str::rfx_layer_qlora : full ? Str::rfx_layer_full : autocast ? Str::rfx_layer_lora_autocast : Str::rfx_layer_lora, which);
  };
  auto part = [&](Str label, Checked bytes, const RowArg& formula, const RowArg& source) { add_part(p, label, bytes, formula, source); };
  part(Str::recipe_part_weights, weights, weights_formula,
       qlora ? "transformers BitsAndBytesConfig (bitsandbytes 0.43.3 Params4bit); TRL peft_module_casting_to_bf16"
             : "transformers from_pretrained(torch_dtype=bfloat16)");
  part(Str::recipe_part_adapters, adapters, row_arg(Str::rfx_lora_fp32, with_commas(r)), "PEFT get_peft_model (autocast_adapter_dtype=True)");
  const Checked fixed = top.phase == RecipePhase::OptimizerStep ? cublas : fixed_fwd;
  Checked saved, head, grads = Checked(), opt = states, gathered;
  RowArg grads_formula = lora ? Str::rfx_grads_lora : Str::rfx_grads_full;
  const std::string src_fsdp = "torch distributed/fsdp/_runtime_utils.py (_post_forward_reshard, _pre_backward_hook, _prefetch_handle, _post_backward_hook)";
  auto gathered_part = [&](Checked bytes, i64 layers) {
    gathered = bytes;
    const std::string root_n = with_commas(root_flat.ok() ? root_flat.value() : 0);
    part(Str::recipe_part_gathered, bytes,
         layers == 0 ? row_arg(Str::rfx_gathered_root, root_n)
                     : row_arg(Str::rfx_gathered_layers, root_n, with_commas(layers), with_commas(layer_flat.ok() ? layer_flat.value() : 0)),
         src_fsdp);
  };
  if (top.phase == RecipePhase::LossForward) {
    grads = grads_in_forward;
    if (fsdp) gathered_part(root_full, 0);
    saved = kept + final_norm + batch_ids + shift_labels + positions + autocast_cache;
    head = logits + log_softmax;
    if (checkpointing)
      part(Str::recipe_part_checkpoints, ckpt, qlora ? row_arg(Str::rfx_checkpoints_qlora, n_s) : row_arg(Str::rfx_checkpoints, n_s), src_ckpt);
    else
      part(Str::recipe_part_layers_saved, kept, row_arg(Str::rfx_layers_saved, with_commas(L), layer_row("1 … " + with_commas(L - 1))), src_autograd);
    part(Str::recipe_part_norms, final_norm, qlora ? Str::rfx_final_norm_qlora : full ? Str::rfx_final_norm_full : Str::rfx_final_norm,
         "transformers MistralRMSNorm.forward / LlamaRMSNorm.forward");
    part(Str::recipe_part_logits_hf, logits, row_arg(Str::rfx_logits_hf, with_commas(V)),
         "transformers *ForCausalLM.forward; loss/loss_utils.py ForCausalLMLoss");
    part(Str::recipe_part_log_softmax, log_softmax, Str::rfx_log_softmax_hf, "torch cross_entropy: log_softmax, nll_loss; LogSoftmaxBackward0.result");
    part(Str::recipe_part_ids, batch_ids + shift_labels + positions, Str::rfx_ids_hf, "DataCollatorForLanguageModeling; ForCausalLMLoss; MistralModel.forward");
    part(Str::recipe_part_autocast_cache, autocast_cache, Str::rfx_autocast_cache, "torch autocast_mode.cpp cached_cast, clear_autocast_cache");
  } else if (top.phase == RecipePhase::LayerBackward && layer0_end_wins) {
    grads = layer0_end_grads;
    grads_formula = row_arg(Str::rfx_grads_fsdp_end, with_commas(L - 1));
    gathered_part(fsdp_gathered(0), 1);
    saved = layer0_end_kept + batch_ids + positions;
    part(Str::recipe_part_layer_grads, layer0_end_kept, Str::rfx_layer_inflight, "torch autograd (SplitBackward); " + src_fsdp);
    part(Str::recipe_part_ids, batch_ids + positions, Str::rfx_ids_hf, "DataCollatorForLanguageModeling; MistralModel.forward");
  } else if (top.phase == RecipePhase::LayerBackward) {
    const i64 k = first_wins ? 0 : L - 1;
    grads = fsdp ? fsdp_grads(k) : full ? full_grads(k) : trained_bytes;
    if (fsdp) {
      grads_formula = row_arg(Str::rfx_grads_fsdp_layer, with_commas(k), with_commas(L - 1 - k));
      gathered_part(fsdp_gathered(k), k > 0 ? 2 : 1);
    }
    const HfLayerMoment& m = first_wins ? first_moment : last_moment;
    saved = m.kept + m.inflight + kept_casts + batch_ids + positions;
    part(Str::recipe_part_autocast_cache, kept_casts, Str::rfx_autocast_cache, "torch autocast_mode.cpp cached_cast; autograd MmBackward0 (mat2)");
    if (checkpointing) {
      const Checked inputs = first_wins ? R(N * C * 2) : ckpt;
      part(Str::recipe_part_checkpoints, inputs,
           first_wins ? RowArg(Str::rfx_checkpoint_first) : qlora ? row_arg(Str::rfx_checkpoints_qlora, n_s) : row_arg(Str::rfx_checkpoints, n_s), src_ckpt);
      part(Str::recipe_part_layer, Checked(m.kept.value() - inputs.value()), layer_row(first_wins ? "0" : with_commas(L - 1)), src_ckpt);
    } else {
      part(Str::recipe_part_layers_saved, m.kept,
           first_wins ? layer_row("0") : row_arg(Str::rfx_layers_saved, with_commas(L), layer_row("1 … " + with_commas(L - 1))), src_autograd);
    }
    if (m.at_down)
      part(Str::recipe_part_layer_grads, m.inflight,
           row_arg(Str::rfx_layer_inflight_dequant, moe ? "w2" : "down_proj", with_commas(down_rows), with_commas(down_n.value())),
           "bitsandbytes 0.43.3 autograd/_functions.py MatMul4Bit.backward, functional.py dequantize_4bit; nn/modules.py Linear4bit.forward");
    else
      part(Str::recipe_part_layer_grads, m.inflight,
           moe ? row_arg(Str::rfx_layer_inflight_moe, with_commas(rows_hi)) : RowArg(Str::rfx_layer_inflight),
           "torch autograd; flash-attn flash_api.cpp mha_bwd");
    part(Str::recipe_part_ids, batch_ids + positions, Str::rfx_ids_hf, "DataCollatorForLanguageModeling; MistralModel.forward");
  } else if (top.phase == RecipePhase::EmbeddingBackward) {
    grads = root_end_grads;
    grads_formula = row_arg(Str::rfx_grads_fsdp_root, with_commas(L));
    gathered_part(root_full, 0);
    saved = batch_ids + positions;
    part(Str::recipe_part_ids, batch_ids + positions, Str::rfx_ids_hf, "DataCollatorForLanguageModeling; MistralModel.forward");
  } else {
    grads = trained_bytes;
    if (fsdp) grads_formula = Str::rfx_grads_fsdp_step;
    opt = states + step_temp;
    saved = batch_ids;
    part(Str::recipe_part_step_temp, step_temp, Str::rfx_foreach_sqrt, src_adamw);
    part(Str::recipe_part_ids, batch_ids, Str::rfx_ids_hf, "DataCollatorForLanguageModeling");
  }
  part(Str::recipe_part_gradients, grads, grads_formula,
       fsdp ? "torch AccumulateGrad; " + src_fsdp + ", _reset_flat_param_grad_info_if_needed"
            : std::string("torch AccumulateGrad; transformers Trainer._inner_training_loop (model.zero_grad())"));
  part(Str::recipe_part_optimizer, states, Str::rfx_adamw_states, src_adamw);
  part(Str::recipe_part_fixed, fixed,
       top.phase == RecipePhase::OptimizerStep ? row_arg(Str::rfx_fixed_cublas, with_commas(kCublasWorkspace))
                                               : row_arg(Str::rfx_fixed_hf, with_commas(hd), with_commas(kCublasWorkspace)),
       Str::rfx_src_fixed_hf);
  p.gradient_bytes = grads.value();
  p.optimizer_bytes = opt.value();
  p.saved_bytes = saved.value();
  p.head_bytes = head.value();
  p.fixed_bytes = fixed.value();
  p.gathered_bytes = gathered.value();
  sort_parts(p);
  return p;
}

}  // namespace llmsize::core::recipe_detail

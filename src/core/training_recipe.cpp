// recipe_peak(): the LitGPT LoRA recipe's peak allocation, tensor by tensor (training_recipe.hpp).
//
// Followed: Lightning-AI/litgpt 8641822b3249bb94f068c254aa5d13decbc9f0a0 finetune/lora.py,
// lit_gpt/{lora,model,utils,rmsnorm}.py; Lightning 71aed751 fabric/wrappers.py, plugins/precision/
// {half,bitsandbytes}.py; bitsandbytes 0.41.1 functional.py, autograd/_functions.py; PyTorch 2.1.0
// tools/autograd/derivatives.yaml with gen_variable_type.py's rule that an input is saved only when
// the operand whose gradient needs it requires grad (so a frozen Linear never keeps its input),
// flash attention's saved tensors (flash_api.cpp) and the caching allocator's 512-byte rounding.
// Checked against the 17 single-GPU LoRA and QLoRA rows of litgpt tutorials/resource-tables.md
// (tests/calibration/training/litgpt_test.cpp).
#include "training_recipe.hpp"

#include <algorithm>
#include <array>

#include "params.hpp"

namespace llmsize::core {

Str recipe_phase_row(RecipePhase phase) {
  switch (phase) {
    case RecipePhase::CrossEntropyBackward: return Str::recipe_phase_ce_backward;
    case RecipePhase::LmHeadBackward: return Str::recipe_phase_lm_head_backward;
    case RecipePhase::EndOfForward: return Str::recipe_phase_end_of_forward;
    case RecipePhase::ConvertOutput: return Str::recipe_phase_convert_output;
  }
  return Str::recipe_phase_ce_backward;
}

i64 allocator_round(i64 bytes) { return bytes <= 0 ? 0 : std::max<i64>(512, ceil_div(bytes, 512) * 512); }

namespace {

constexpr const char* kLitGptVersion =
    "LitGPT 8641822 finetune/lora.py · Lightning 71aed751 · PyTorch 2.1.0 · bitsandbytes 0.41.1";
constexpr i64 kChunk = 128;  // finetune/lora.py: model(input_ids, lm_head_chunk_size=128); chunked_cross_entropy follows
// CublasHandlePool.cpp getNewWorkspace: allocated through the caching allocator (counted);
// the default CUBLAS_WORKSPACE_CONFIG ":4096:2:16:8" = 4096 KiB · 2 + 16 KiB · 8.
constexpr i64 kCublasWorkspace = 4096 * 1024 * 2 + 16 * 1024 * 8;

enum class Arch : std::uint8_t { Llama, NeoX, Phi };
enum class Quant : std::uint8_t { None, Nf4, Nf4Dq };

Checked R(Checked bytes) { return bytes.ok() ? Checked(allocator_round(bytes.value())) : bytes; }

std::optional<Issue> refuse(Str why, const std::string& arg = "") { return issue_row("recipe", why, arg); }

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
  if (w.gpus != 1 || w.tp != 1 || w.pp != 1 || w.ep != 1) return refuse(Str::recipe_litgpt_one_gpu);
  if (w.lora_rank <= 0) return refuse(Str::recipe_litgpt_lora);
  if (w.lora_targets != (kLoraQ | kLoraV)) return refuse(Str::recipe_litgpt_targets);
  if (w.precision != Precision::Pure || w.dtype != ComputeDtype::BF16) return refuse(Str::recipe_litgpt_precision);
  if (w.recompute != Recompute::None) return refuse(Str::recipe_litgpt_recompute);
  if (w.qlora || w.weights == WeightFormat::Nf4Dq) quant = Quant::Nf4Dq;
  else if (w.weights == WeightFormat::Nf4) quant = Quant::Nf4;
  else if (w.weights == WeightFormat::BF16) quant = Quant::None;
  else return refuse(Str::recipe_litgpt_weights, std::string(to_string(w.weights)));
  // scaled_dot_product_attention(is_causal=True) without a mask takes flash attention 2 on sm80+
  // for bf16 and head sizes up to 256; other kernels save other tensors.
  if (gpu.cuda_cc < 8.0 || c.head_dim > 256) return refuse(Str::recipe_litgpt_flash, gpu.name);
  return std::nullopt;
}

}  // namespace

Result<RecipePeak> recipe_peak(const ModelConfig& c, const Workload& w, const Gpu& gpu) {
  Arch arch = Arch::Llama;
  Quant quant = Quant::None;
  if (w.recipe != Recipe::LitGpt) return issue_row("recipe", Str::recipe_training_only);
  if (auto bad = litgpt_scope(c, w, gpu, arch, quant)) return *bad;
  const auto counted = count_params(c);
  if (!counted) return counted.issues();

  RecipePeak p;
  p.recipe = Recipe::LitGpt;
  p.version = kLitGptVersion;
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, nh = c.n_heads, V = c.vocab, r = w.lora_rank, T = w.seq, B = w.batch;
  const bool quantized = quant != Quant::None, llama = arch == Arch::Llama, shared_norm = arch == Arch::Phi;
  const Checked N = Checked(B) * T;
  const std::string src_lora = "lit_gpt/lora.py LoRAQKVLinear.forward, zero_pad";

  // --- The frozen base and the adapters (finetune/lora.py: fabric.init_module under bf16-true;
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
  std::string weights_formula;
  if (!quantized) {
    weights = Checked(total) * 2;  // half.py HalfPrecision.convert_module: module.to(bfloat16)
    weights_formula = "2 B × " + with_commas(total) + " parameters";
  } else {
    // bitsandbytes functional.py quantize_4bit (blocksize 64): the packed 4-bit weight, the NF4
    // code; absmax fp32 per 64 values, or (compress_statistics, nf4-dq) absmax as uint8 with an
    // fp32 absmax per 256 blocks and an offset; each its own allocation.
    for (const auto& [in, out] : linears) {
      const Checked n = Checked(in) * out;
      const i64 blocks = n.ok() ? ceil_div(n.value(), 64) : 0;
      weights += R(Checked(ceil_div(n.value(), 2))) + R(Checked(16 * 4));
      if (quant == Quant::Nf4) weights += R(Checked(blocks) * 4);
      else weights += R(Checked(blocks)) + R(Checked(ceil_div(blocks, 256)) * 4) + R(Checked(4));
      if (!n.ok()) weights = n;
    }
    if (quant == Quant::Nf4Dq) weights += R(Checked(256 * 4));  // the shared dynamic 8-bit code map
    weights += Checked(total - linear_params.value()) * 2;      // embedding, norms, biases stay bf16
    weights_formula = with_commas(static_cast<i64>(linears.size())) + " Linear layers in 4-bit (" +
                      std::string(quant == Quant::Nf4 ? "nf4, absmax fp32 per 64" : "nf4-dq, absmax uint8 per 64 + fp32 per 256 blocks") +
                      ") + " + with_commas(total - linear_params.value()) + " other parameters × 2 B";
  }
  // LoRAQKVLinear: lora_A (2r, C) and lora_B (2C, r) for query and value, in the bf16 default dtype.
  const Checked adapters = Checked(L) * 4 * r * C * 2;

  // --- Tensors autograd saves for backward, per block (ℓ ≥ 1: the block input requires grad,
  // through the adapters of the blocks before it; block 0's does not).
  enum { kLoraBranch, kAttention, kNorms, kMeanBug, kMlp, kBnbInputs, kIds, kCount };
  std::array<Checked, kCount> saved{};  // by the parts below
  for (i64 l = 0; l < L; ++l) {
    const bool g = l >= 1;
    // lora.py: lora_dropout(x) keeps its bool mask (native_dropout) where x needs a gradient; mm with
    // lora_A (requires grad) keeps the dropout output; conv1d keeps after_A; zero_pad's index_copy keeps
    // its source (a reshaped copy, 2C wide) and the int64 index rebuilt each forward.
    if (g) saved[kLoraBranch] += R(N * C);
    saved[kLoraBranch] += R(N * C * 2) + R(N * 2 * r * 2) + R(N * 2 * C * 2) + R(Checked(8) * 2 * C);
    // model.py CausalSelfAttention: v is a view of qkv, so flash attention's saved v keeps all of it;
    // q and k are new tensors (RoPE and cat); the output and the fp32 logsumexp (B, nh, T).
    saved[kAttention] += R(N * 3 * C * 2) + R(N * C * 2) * 2 + R(N * C * 2) + R(N * nh * 4);
    if (!llama) {
      // LayerNorm (native_layer_norm keeps its input, mean and rstd in fp32); parallel residual;
      // GptNeoxMLP's gelu keeps its input. Block 0's norm and MLP see no gradient.
      if (g) {
        saved[kNorms] += R(N * C * 2) + R(N * 4) * 2 * (shared_norm ? 1 : 2);
        saved[kMlp] += R(N * I * 2);
      }
    } else {
      // rmsnorm.py: x * rsqrt(mean(x·x) + eps) keeps x and the rsqrt; PyTorch 2.1's mean.dim
      // backward also keeps its input x·x (pytorch#109876, fixed after 2.1 by #109935).
      if (g) {
        saved[kNorms] += R(N * C * 2) + R(N * 2);
        saved[kMeanBug] += R(N * C * 2);
      }
      saved[kNorms] += R(N * C * 2) + R(N * 2);
      saved[kMeanBug] += R(N * C * 2);
      // LLaMAMLP: silu keeps x_fc_1; the product keeps silu(x_fc_1) and x_fc_2.
      saved[kMlp] += R(N * I * 2) * 3;
    }
    // bitsandbytes MatMul4Bit.forward keeps its input whenever it needs a gradient: the qkv Linear's
    // (n_1, ℓ ≥ 1), the projection's (the SDPA output's reshape copy), the MLP's (n_2 where not
    // shared, and the proj input).
    if (quantized) {
      if (g) saved[kBnbInputs] += R(N * C * 2);
      saved[kBnbInputs] += R(N * C * 2);
      const bool mlp_grad = llama || g;
      if (mlp_grad) {
        if (!shared_norm) saved[kBnbInputs] += R(N * C * 2);
        saved[kBnbInputs] += R(N * I * 2);
      }
    }
  }
  // ln_f keeps the last block's output (and its statistics); the 4-bit lm_head keeps ln_f's output.
  saved[kNorms] += R(N * C * 2) + (llama ? R(N * 2) : R(N * 4) * 2);
  if (llama) saved[kMeanBug] += R(N * C * 2);
  if (quantized) saved[kBnbInputs] += R(N * C * 2);
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
    phases.push_back({RecipePhase::LmHeadBackward, logits_fp32 + logits_bf16 + dequant + R(Checked(B) * kChunk * C * 2)});
  }
  const Phase* top = &phases.front();
  for (const Phase& ph : phases)
    if (ph.bytes.ok() && top->bytes.ok() && ph.bytes.value() > top->bytes.value()) top = &ph;
  // model.py GPT.max_seq_length setter: cos and sin rebuilt in fp32 (the default dtype then), T × rope_n_elem.
  const i64 rope = static_cast<i64>(c.rotary_fraction * static_cast<double>(c.head_dim));
  const Checked fixed = R(Checked(T) * rope * 4) * 2 + kCublasWorkspace;

  Checked saved_total;
  for (const Checked& s : saved) saved_total += s;
  const Checked peak = weights + adapters + saved_total + top->bytes + fixed;
  for (const Phase& ph : phases)
    if (!ph.bytes.ok()) return memory_overflow("seq");
  if (!peak.ok()) return memory_overflow("seq");

  p.phase = top->phase;
  p.weights_bytes = weights.value();
  p.adapter_bytes = adapters.value();
  p.saved_bytes = saved_total.value();
  p.head_bytes = top->bytes.value();
  p.fixed_bytes = fixed.value();
  p.peak_allocated_bytes = peak.value();

  const std::string n_s = "N = batch × seq = " + with_commas(N.value());
  auto part = [&](Str label, Checked bytes, std::string formula, std::string source) {
    if (bytes.value() > 0) p.parts.push_back({label, bytes.value(), std::move(formula), std::move(source)});
  };
  part(Str::recipe_part_weights, weights, weights_formula, "fabric init_module (bf16-true); bitsandbytes.py _NF4Linear / _NF4DQLinear");
  part(Str::recipe_part_adapters, adapters, "L · 4 · r · C · 2 B (lora_A 2r × C, lora_B 2C × r)", src_lora);
  part(Str::recipe_part_attention, saved[kAttention], "per block: qkv 6·N·C + q, k 4·N·C + output 2·N·C + logsumexp 4·nh·N bytes; " + n_s,
       "model.py CausalSelfAttention.scaled_dot_product_attention (flash: saves q, k, v, out, logsumexp)");
  part(Str::recipe_part_lora_branch, saved[kLoraBranch],
       "per block: mask N·C (blocks ≥ 1), dropout output 2·N·C, after_A 4·r·N, zero_pad source 4·N·C, index 16·C bytes", src_lora);
  part(Str::recipe_part_mlp, saved[kMlp], llama ? "per block: x_fc_1, x_fc_2, silu(x_fc_1): 3 · 2·N·I bytes" : "per block ≥ 1: gelu input 2·N·I bytes",
       llama ? "model.py LLaMAMLP.forward" : "model.py GptNeoxMLP.forward");
  part(Str::recipe_part_norms, saved[kNorms],
       llama ? "per norm: input 2·N·C + rsqrt 2·N bytes; ln_f" : "per block ≥ 1: input 2·N·C + mean, rstd 8·N bytes per LayerNorm; ln_f",
       llama ? "rmsnorm.py RMSNorm.forward" : "torch native_layer_norm (saves input, mean, rstd)");
  part(Str::recipe_part_mean_bug, saved[kMeanBug], "per RMSNorm: x·x 2·N·C bytes",
       "PyTorch 2.1 MeanBackward1 saves self (pytorch/pytorch#109876; fixed by #109935 after 2.1)");
  part(Str::recipe_part_bnb_inputs, saved[kBnbInputs], "per block: the 4-bit Linears' inputs 2·N·C each and the MLP projection's 2·N·I; lm_head's",
       "bitsandbytes autograd/_functions.py MatMul4Bit.forward (ctx.tensors = (A, B))");
  part(Str::recipe_part_ids, saved[kIds], "input_ids, targets: 2 · 8·N bytes", "finetune/lora.py get_batch");
  part(Str::recipe_part_logits, logits_fp32, "Σ chunks 4·batch·n·V (fp32: Fabric's convert_output), V = " + with_commas(V),
       "lightning fabric/wrappers.py _FabricModule.forward; precision half.py convert_output");
  if (top->phase == RecipePhase::LmHeadBackward) {
    part(Str::recipe_part_chunk_grads, logits_bf16, "Σ chunks 2·batch·n·V (bf16 gradients of every chunk)", "autograd ToCopyBackward");
    part(Str::recipe_part_dequant, dequant + R(Checked(B) * kChunk * C * 2), "fp16 and bf16 copies of lm_head, 2 · 2·V·C bytes, and one chunk's grad",
         "bitsandbytes functional.py dequantize_4bit; _functions.py MatMul4Bit.backward");
  } else if (top->phase != RecipePhase::ConvertOutput) {
    part(Str::recipe_part_log_softmax, log_softmax + small, "Σ loss chunks 4·batch·n·V (fp32 log_softmax) + the per-chunk losses",
         "lit_gpt/utils.py chunked_cross_entropy; torch _log_softmax saves its result");
    if (top->phase == RecipePhase::CrossEntropyBackward)
      part(Str::recipe_part_chunk_grads, chunk_grads, "2 · 4·batch·" + with_commas(widest) + "·V: one chunk's nll_loss and log_softmax gradients",
           "torch nll_loss_backward, _log_softmax_backward_data");
  } else {
    part(Str::recipe_part_chunk_grads, logits_bf16, "Σ chunks 2·batch·n·V (the bf16 logits being converted)", "fabric wrappers.py");
  }
  part(Str::recipe_part_fixed, fixed, "cos, sin 2 · 4·seq·" + with_commas(rope) + " + cuBLAS workspace " + with_commas(kCublasWorkspace) + " bytes",
       "model.py GPT.max_seq_length setter (fp32); ATen CublasHandlePool.cpp getNewWorkspace");
  std::stable_sort(p.parts.begin(), p.parts.end(), [](const RecipePart& a, const RecipePart& b) { return a.bytes > b.bytes; });
  return p;
}

}  // namespace llmsize::core

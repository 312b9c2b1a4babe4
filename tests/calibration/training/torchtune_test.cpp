// Calibration of the torchtune training recipe (issue 15) against the peak torchtune published for
// its full fine-tuning recipe, README.md "Optimization flags" at pytorch/torchtune 1814feb17
// ("add flags to readme (#2003)", 2024-11-18):
//   "The table below demonstrates the effects of applying some of these techniques sequentially to
//   the Llama 3.2 3B model. Each technique is added on top of the previous one, except for LoRA and
//   QLoRA, which do not use `optimizer_in_bwd` or `AdamW8bit` optimizer."
//   "> Baseline uses Recipe=**full_finetune_single_device**, Model=**Llama 3.2 3B**, Batch size=**2**,
//   Max sequence length=**4096**, Precision=**bf16**, Hardware=**A100**"
//   "| Technique | Peak Memory Active (GiB) | % Change Memory vs Previous | Tokens Per Second | % Change Tokens/sec vs Previous|"
//   "| [+ Packed Dataset](https://pytorch.org/torchtune/main/basics/packing.html) | 60.0 | +135.16% | 7075 | +238.40% |"
// The "+ Packed Dataset" row is the only one with a fixed shape and no torch.compile: every batch
// is 2 × 4,096 packed tokens (the baseline's unpacked batches are as long as their longest sample;
// the rows after it compile the model, chunk the loss, checkpoint, offload). It ran with plain
// AdamW (the 8-bit optimizer and optimizer_in_bwd come later in the table), no activation
// checkpointing, torch.nn.CrossEntropyLoss (chunked cross-entropy comes later), on an A100 80GB
// (60 GiB is more than the 40GB card). "Peak Memory Active" is torchtune's get_memory_stats:
// torch.cuda.memory_stats()["active_bytes.all.peak"], the allocated blocks at their rounded sizes.
// The command is not published: AdamW's flags (fused or foreach) and the PyTorch release (2.5 or
// newer: flex attention) are not known; neither moves this peak, which falls in the loss's
// backward, far above AdamW's step (5 × 6.43 GB at most).
//
// Model: meta-llama/Llama-3.2-3B's config.json (calibration/configs/llama-3.2-3b.json), torchtune's
// llama3_2_3b builder.
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

Workload torchtune_workload(i64 batch, const char* rc = "none", i64 seq = 4096) {
  Workload w = llmsize::test::with({{"mode", "training"}, {"recipe", "torchtune"}, {"gpu", "a100-80gb"}, {"dtype", "bf16"},
                                    {"prec", "pure"}, {"ostate", "bf16"}, {"opt", "adamw"}, {"rc", rc}});
  w.batch = batch;
  w.seq = seq;
  return w;
}

// lora_finetune_single_device with llama3_2/3B_lora_single_device's adapters: q_proj, v_proj and
// output_proj (lora_attn_modules), the MLP (apply_lora_to_mlp), rank 64.
Workload lora_workload(i64 batch, const char* rc = "full", i64 seq = 4096, i64 rank = 64,
                       std::uint32_t targets = kLoraQ | kLoraV | kLoraO | kLoraGate | kLoraUp | kLoraDown) {
  Workload w = torchtune_workload(batch, rc, seq);
  w.lora_rank = rank;
  w.lora_targets = targets;
  return w;
}

// A model, a workload and the moment its peak falls in.
struct PhaseCase {
  ModelConfig model;
  Workload w;
  RecipePhase phase;
};

// Each case's phase, its parts summing to the peak and their texts in every language (sources
// without words to translate listed in `no_words`, each of them seen); the phases seen.
std::set<RecipePhase> check_phase_cases(std::initializer_list<PhaseCase> cases, const std::set<std::string>& no_words) {
  std::set<std::string> seen;
  std::set<RecipePhase> phases;
  for (const PhaseCase& x : cases) {
    INFO(x.model.name << " batch " << x.w.batch << " seq " << x.w.seq << " rank " << x.w.lora_rank);
    const auto e = estimate(x.model, x.w);
    const RecipePeak p = recipe_peak_of(e);
    CHECK(p.phase == x.phase);
    phases.insert(p.phase);
    check_recipe_sums(p);
    for (const RecipePart& part : p.parts) llmsize::test::check_part_languages(part, no_words, seen);
    llmsize::test::check_recipe_text(x.model, x.w, e.value(), "torchtune");
  }
  llmsize::test::check_no_words_seen(no_words, seen);
  return phases;
}

}  // namespace

TEST_CASE("torchtune recipe: Llama 3.2 3B full fine-tuning on packed 2 x 4096 batches, the README's 60.0 GiB", "[calibration][training]") {
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const auto e = estimate(llama, torchtune_workload(2));
  const RecipePeak p = recipe_peak_of(e);
  check_recipe_sums(p);
  CHECK(p.version.find("models.llama3_2_3b") != std::string::npos);
  CHECK(p.phase == RecipePhase::LossBackward);
  CHECK(p.trainable_params == 3212749824);  // the model card's 3.21B
  const double published = 60.0 * 1024 * 1024 * 1024;
  const double err = (static_cast<double>(p.peak_allocated_bytes) - published) / published;
  std::string parts;
  for (const RecipePart& part : p.parts) parts += std::string(tr(part.label, Lang::En)) + " " + std::to_string(part.bytes) + "; ";
  INFO("predicted " << p.peak_allocated_bytes << " B, published 60.0 GiB, error " << 100 * err << "%; " << parts);
  // The issue's tolerance for a single-GPU recipe is 5%. The model is 0.08% under (51.4 MB) and
  // rounds to the published 60.0 at one decimal. The first version of the model was 2.1% over, by
  // almost exactly one 2·N·C tensor a layer: it copied the attention output for output_proj, where
  // PyTorch 2.5's flex attention writes its output with q's strides, so transpose(1, 2) is already
  // contiguous (training_recipe_torchtune.cpp). The 28 layers' saved tensors (32.2 GB, 140,392 B a
  // token each) and the loss's three fp32 N × V tensors (12.6 GB) are read from the code.
  CHECK(std::fabs(err) <= 0.001);
  CHECK(std::round(static_cast<double>(p.peak_allocated_bytes) / (1024.0 * 1024 * 1024) * 10) == 600);
}

TEST_CASE("torchtune recipe: what one layer keeps, checkpointing, accumulation and the RoPE caches, byte for byte", "[training]") {
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const RecipePeak plain = recipe_peak_of(estimate(llama, torchtune_workload(2)));
  const RecipePeak ac = recipe_peak_of(estimate(llama, torchtune_workload(2, "full")));
  // Per token, one layer keeps: two RMSNorms (x.float() 4·C, rsqrt 4, x_normed 2·C), the attention
  // input 2·C, two gathered RoPE rows 2 · 4·hd, flex attention's q, k, v (24 heads) and output
  // (output_proj's input too) 4 · 2·3,072 and logsumexp 4·24, the MLP's input 2·C and four
  // N × 8,192 bf16 tensors. With checkpointing a layer keeps its bf16 input 2·C instead.
  const i64 C = 3072, N = 2 * 4096, kRows = 131072;
  const i64 layer = 2 * (4 * C + 4 + 2 * C) + 2 * C + 2 * 4 * 128 + 4 * 2 * 3072 + 4 * 24 + 2 * C + 4 * 2 * 8192;
  CHECK(layer == 140392);
  CHECK(ac.phase == RecipePhase::LossBackward);
  CHECK(plain.peak_allocated_bytes - ac.peak_allocated_bytes == 28 * (layer - 2 * C) * N);
  // The loss's backward: log_softmax's output, nll_loss's gradient and log_softmax's, fp32.
  CHECK(plain.head_bytes == 3 * N * 128256 * 4);
  // AdamW's states: exp_avg and exp_avg_sq in bf16, and a fused step tensor (4 B, one 512-byte
  // block) for each of the 254 parameters (the embedding, 9 per layer, the final norm).
  CHECK(plain.optimizer_bytes == 2 * plain.weights_bytes + 254 * 512);
  // One RoPE module for every layer (llama3_2 builds its layers around it): 131,072 rows of 128
  // fp32 values and its theta, beside two cuBLAS workspaces.
  CHECK(plain.fixed_bytes == kRows * 128 * 4 + 512 + 2 * kCublasWorkspace);
  // Accumulating micro-batches: every bf16 gradient is there in the next micro-batch's loss.
  Workload accum = torchtune_workload(2);
  accum.grad_accum = 4;
  const RecipePeak acc = recipe_peak_of(estimate(llama, accum));
  CHECK(acc.peak_allocated_bytes - plain.peak_allocated_bytes == plain.weights_bytes);
  CHECK(acc.gradient_bytes == plain.weights_bytes);
  // qwen2 builds one layer and deep-copies it: every layer holds its own cache, 2 · head_dim fp32
  // values a position (cos and sin), 131,072 rows for the Qwen2.5-7B base checkpoint.
  const RecipePeak qwen = recipe_peak_of(estimate(preset("qwen2.5-7b").config, torchtune_workload(2)));
  CHECK(qwen.version.find("models.qwen2_5_7b_base") != std::string::npos);
  CHECK(qwen.fixed_bytes == 28 * (kRows * 256 * 4 + 512) + 2 * kCublasWorkspace);
  // llama3_1_405b's builder keeps 8,192 rows where the checkpoint says 131,072.
  const RecipePeak big = recipe_peak_of(estimate(preset("llama-3.1-405b").config, torchtune_workload(1, "full")));
  CHECK(big.version.find("models.llama3_1_405b") != std::string::npos);
  CHECK(big.fixed_bytes == i64{8192} * 128 * 4 + 512 + 2 * kCublasWorkspace);
}

TEST_CASE("torchtune recipe: the moment moves with the shapes, and every part's text in each language", "[training][lang]") {
  const std::set<std::string> no_words = {
      "torchtune training.set_default_dtype(torch.bfloat16); FullModelHFCheckpointer",
      "torch optim/adamw.py _init_group (zeros_like(p), fused: a step tensor on the device), _fused_adamw",
      "torch aten/src/ATen/native/cuda/Embedding.cu embedding_dense_backward_cuda",
      "torchtune modules/transformer.py, rms_norm.py, position_embeddings.py, attention.py, feed_forward.py; torch flex_attention",
      "torchtune training/memory.py set_activation_checkpointing (checkpoint_wrapper, NO_REENTRANT)",
      "torchtune modules/rms_norm.py RMSNorm.forward; TransformerDecoder.forward",
      "torch cross_entropy: log_softmax, nll_loss; NllLossBackward0, LogSoftmaxBackward0",
      "torchtune data/_collate.py padded_collate_packed; attention_utils.py packed_block_causal_mask; torch create_block_mask",
      "torch AccumulateGrad; torchtune full_finetune_single_device.py train (zero_grad(set_to_none=True))",
      "torch autograd; flex_attention backward",
  };
  const std::set<RecipePhase> phases = check_phase_cases({
      {import_file("calibration/configs/llama-3.2-3b.json"), torchtune_workload(2, "none"), RecipePhase::LossBackward},
      // One 4,096-token sequence with checkpointing: layer 0's backward, every gradient but the
      // embedding's beside the recomputed layer, outgrows a 32,000-token loss.
      {preset("llama-2-7b").config, torchtune_workload(1, "full"), RecipePhase::LayerBackward},
      // 512 tokens through a tied head: at the end of backward the embedding's new V × C gradient
      // stands beside the head's, more than layer 0's tensors.
      {import_file("calibration/configs/llama-3.2-3b.json"), torchtune_workload(1, "full", 512), RecipePhase::EmbeddingGradient},
      {preset("mistral-7b").config, torchtune_workload(1, "none"), RecipePhase::LossBackward},
      // 2M tokens a batch through a 70B model with checkpointing: the recomputed last layer and
      // its backward hold more than the 32,000-token loss.
      {preset("llama-2-70b").config, torchtune_workload(512, "full"), RecipePhase::LayerBackward},
      {preset("qwen2.5-0.5b").config, torchtune_workload(8, "none"), RecipePhase::LossBackward},
  }, no_words);
  CHECK(phases == std::set<RecipePhase>{RecipePhase::LossBackward, RecipePhase::LayerBackward, RecipePhase::EmbeddingGradient});
}

// The LoRA recipe's one published figure with every input known is its "Memory stats after model
// init" line, docs/source/tutorials/e2e_flow.rst (pytorch/torchtune 0cd8bc4ca, "Update E2E Tutorial
// w/ vLLM and HF Hub (#2192)", 2024-12-20), for `tune run lora_finetune_single_device --config
// llama3_2/3B_lora_single_device`:
//   "Model is initialized with precision torch.bfloat16."
//   "Memory stats after model init:"
//   "        GPU peak memory allocation: 6.21 GiB"
//   "        GPU peak memory reserved: 6.27 GiB"
//   "        GPU peak memory active: 6.21 GiB"
// _setup_model builds the model on the GPU in bf16, loads the checkpoint into it in place and logs
// training.get_memory_stats before any batch: the frozen base, the adapters and the RoPE cache
// (cuBLAS's workspaces come with the first matmul). Between 1814feb1 and 0cd8bc4ca the builders,
// LoRALinear's parameters and the recipe's setup are unchanged (lora.py gained QATLoRALinear and
// to_empty, the recipe a renamed checkpointer argument).
// The training peaks torchtune published for this recipe are its README's "Optimization flags"
// rows (LoRA 8.5 GiB, QLoRA 4.6 GiB), which compile the model and the loss and offload
// activations: neither is modelled, so they are not claimed here.
TEST_CASE("torchtune LoRA: Llama 3.2 3B's base, adapters and RoPE cache are the 6.21 GiB e2e_flow logs after model init", "[calibration][training]") {
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const RecipePeak p = recipe_peak_of(estimate(llama, lora_workload(4)));
  check_recipe_sums(p);
  CHECK(p.version.find("lora_finetune_single_device, models.lora_llama3_2_3b") != std::string::npos);
  CHECK(p.weights_bytes == i64{3212749824} * 2);
  // Per layer: q (3,072 → 64 → 3,072), v (3,072 → 64 → 1,024), output_proj, w1, w3 (3,072 → 8,192)
  // and w2 (8,192 → 3,072): 3,211,264 parameters, 89,915,392 in 28 layers, bf16.
  CHECK(p.trainable_params == 89915392);
  CHECK(p.adapter_bytes == 89915392 * 2);
  const i64 rope = p.fixed_bytes - 2 * kCublasWorkspace;
  CHECK(rope == i64{131072} * 128 * 4 + 512);  // Llama3ScaledRoPE's cache and theta, shared by the layers
  const double init_gib = static_cast<double>(p.weights_bytes + p.adapter_bytes + rope) / (1024.0 * 1024 * 1024);
  INFO("after model init: " << init_gib << " GiB");
  CHECK(std::round(init_gib * 100) == 621);
  // AdamW's states: exp_avg and exp_avg_sq of the adapters only (bf16), a fused step tensor for
  // each of the 336 adapter tensors.
  CHECK(p.optimizer_bytes == 2 * p.adapter_bytes + 336 * 512);
}

TEST_CASE("torchtune LoRA: what a layer keeps through a frozen base, the chunked loss, layer 0, byte for byte", "[training]") {
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const RecipePeak plain = recipe_peak_of(estimate(llama, lora_workload(2, "none")));
  const RecipePeak ac = recipe_peak_of(estimate(llama, lora_workload(2, "full")));
  CHECK(plain.phase == RecipePhase::ChunkedLossForward);
  CHECK(ac.phase == RecipePhase::ChunkedLossForward);
  // Per token, a layer whose input needs a gradient keeps: two RMSNorms' x.float() and rsqrt (no
  // x_normed: the scales are frozen), the attention norm's output for q's and v's lora_a, lora_b's
  // inputs (2·64 B for each of the six adapted Linears), the RoPE rows for q and k, flex
  // attention's q, k, v, output and logsumexp, the MLP norm's output for w1's and w3's lora_a, w1's
  // output, silu's, w3's, and the product w2's lora_a keeps. Layer 0's input is the frozen
  // embedding's: its first norm keeps nothing and k (not adapted) needs no RoPE rows.
  const i64 C = 3072, I = 8192, V = 128256, N = 2 * 4096;
  const i64 later = 2 * (4 * C + 4) + 2 * C + 6 * 2 * 64 + 2 * 4 * 128 + 4 * 2 * 3072 + 4 * 24 + 2 * C + 2 * I + 3 * 2 * I;
  const i64 first = later - (4 * C + 4) - 4 * 128;
  CHECK(later == 128872);
  CHECK(plain.peak_allocated_bytes - ac.peak_allocated_bytes == (first + 27 * later - 28 * 2 * C) * N);
  // The loss: eight chunks of 512 positions; every bf16 chunk, the label chunks' int64 copies, and
  // at the last chunk the seven log_softmax outputs before it with its own float() copy and output.
  CHECK(plain.head_bytes == 2 * N * V + 8 * (2 * 512 * 8) + 9 * (4 * 2 * 512 * V));
  // The final norm keeps x.float() and the rsqrt, the head (frozen) none of its input.
  const i64 saved_ac = 28 * 2 * C * N + (4 * C + 4) * N;
  // + the batch's ids and the BlockMask's tables (the four b × 32 count tables a 512-byte block each).
  CHECK(ac.saved_bytes - saved_ac == 4 * 8 * N + 4 * 512 + 4 * (4 * 2 * 32 * 32));
  CHECK(ac.gradient_bytes == 0);
  // Accumulating micro-batches: the adapters' gradients are there in the next micro-batch's loss.
  Workload accum = lora_workload(2, "full");
  accum.grad_accum = 8;
  const RecipePeak acc = recipe_peak_of(estimate(llama, accum));
  CHECK(acc.peak_allocated_bytes - ac.peak_allocated_bytes == ac.adapter_bytes);
  // A seq that is not a multiple of 8: torch.chunk makes ceil(4,097 / 8) = 513-position chunks,
  // eight of them, the last 506; the peak is at the seventh (six outputs before, two of its own)
  // when 8 · 513 > 7 · 513 + 2 · 506 does not hold, else at the last.
  const RecipePeak odd = recipe_peak_of(estimate(llama, lora_workload(1, "full", 4097)));
  const i64 full_chunk = 4 * 513 * V, last_chunk = 4 * 506 * V;  // both multiples of 512
  CHECK(odd.head_bytes == 2 * 513 * V * 7 + 2 * 506 * V + std::max(8 * full_chunk, 7 * full_chunk + 2 * last_chunk));
  // k_proj adapted too: layer 0's k needs a gradient and keeps its RoPE rows, and lora_b's input.
  const RecipePeak qkv = recipe_peak_of(estimate(llama, lora_workload(2, "none", 4096, 64, kLoraQ | kLoraK | kLoraV | kLoraO | kLoraGate | kLoraUp | kLoraDown)));
  CHECK(qkv.peak_allocated_bytes - plain.peak_allocated_bytes ==
        (4 * 128 + 28 * 2 * 64) * N + 28 * (64 * 3072 * 2 + 1024 * 64 * 2) * 3 + 28 * 2 * 512);
}

TEST_CASE("torchtune QLoRA: torchao's NF4 base byte for byte, the rest as LoRA, and the reach of its dequantisation", "[training]") {
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const RecipePeak lora = recipe_peak_of(estimate(llama, lora_workload(2)));
  Workload qw = lora_workload(2);
  qw.qlora = true;
  const RecipePeak q = recipe_peak_of(estimate(llama, qw));
  check_recipe_sums(q);
  CHECK(q.version.find("models.qlora_llama3_2_3b") != std::string::npos);
  CHECK(q.version.find("torchao 0.7.0 NF4") != std::string::npos);
  CHECK(q.phase == RecipePhase::ChunkedLossForward);
  // NF4Tensor.from_tensor: quantized_data N/2 (uint8), quantized_scalers N/64 (int8),
  // quantization_factor N/16,384 (bf16), scaler_mean and the nf4 table (a 512-byte block each),
  // every Linear of the 28 layers (q, k, v, output_proj, w1, w2, w3); the embedding (tied head)
  // and the norms stay bf16.
  auto R = [](i64 b) { return (b + 511) / 512 * 512; };
  auto nf4 = [&](i64 n) { return R(n / 2) + R(n / 64) + R(n / 16384 * 2) + 512 + 512; };
  const i64 C = 3072, kv = 1024, I = 8192;
  const i64 linears = 2 * C * C + 2 * C * kv + 3 * C * I;
  CHECK(q.weights_bytes == (i64{3212749824} - 28 * linears) * 2 + 28 * (2 * nf4(C * C) + 2 * nf4(C * kv) + 3 * nf4(C * I)));
  // About 0.516 B a weight (0.5 + 1/64 + 1/8,192 and each tensor's 512-byte blocks): the 2.82
  // billion Linear weights in 1.45 GB, beside 0.79 GB of bf16.
  CHECK(std::round(static_cast<double>(q.weights_bytes - (i64{3212749824} - 28 * linears) * 2) / (28.0 * linears) * 1000) == 516);
  // Everything else is LoRA's: the adapters, their states, the layers' saves, the loss.
  CHECK(lora.peak_allocated_bytes - q.peak_allocated_bytes == lora.weights_bytes - q.weights_bytes);
  CHECK(q.adapter_bytes == lora.adapter_bytes);
  CHECK(q.head_bytes == lora.head_bytes);
  // Shorter sequences bring the layers' moments, with w1's 14 B a weight of dequantisation
  // (25,165,824 weights: 352 MB), within reach of the loss: refused, naming the moment.
  const auto short_q = estimate(llama, [&] { Workload w = qw; w.seq = 256; w.batch = 1; return w; }());
  REQUIRE_FALSE(short_q.ok());
  CHECK(join(short_q.issues()).find("get_original_weight") != std::string::npos);
  // LoRA at the same shape is given: its layers dequantise nothing.
  Workload short_lora = lora_workload(1, "full", 256);
  CHECK(estimate(llama, short_lora).ok());
}

TEST_CASE("torchtune LoRA: the moment moves with the shapes, and every part's text in each language", "[training][lang]") {
  const std::set<std::string> no_words = {
      "torchtune training.set_default_dtype(torch.bfloat16); FullModelHFCheckpointer; peft set_trainable_params",
      "torchtune modules/peft/lora.py LoRALinear (lora_a, lora_b); training.validate_expected_param_dtype",
      "torchtune modules/peft/lora.py LoRALinear(quantize_base=True), modules/low_precision/nf4_linear.py FrozenNF4Linear; "
      "torchao dtypes/nf4tensor.py to_nf4, NF4Tensor.from_tensor",
      "torch optim/adamw.py _init_group (parameters with a gradient: zeros_like(p), fused: a step tensor on the device), _fused_adamw",
      "torchtune modules/peft/lora.py LoRALinear, rms_norm.py, position_embeddings.py, attention.py, feed_forward.py; torch flex_attention",
      "torchtune training/memory.py set_activation_checkpointing (checkpoint_wrapper, NO_REENTRANT)",
      "torchtune modules/rms_norm.py RMSNorm.forward; TransformerDecoder.forward",
      "torchtune modules/loss/ce_chunked_output_loss.py CEWithChunkedOutputLoss.forward; modules/transformer.py chunked_output; torch cross_entropy (log_softmax, nll_loss)",
      "torchtune data/_collate.py padded_collate_packed; attention_utils.py packed_block_causal_mask; torch create_block_mask",
      "torch AccumulateGrad; torchtune lora_finetune_single_device.py train (zero_grad(set_to_none=True))",
      "torch autograd; flex_attention backward",
  };
  const std::set<RecipePhase> phases = check_phase_cases({
      {import_file("calibration/configs/llama-3.2-3b.json"), lora_workload(2, "none"), RecipePhase::ChunkedLossForward},
      {import_file("calibration/configs/llama-3.2-3b.json"), lora_workload(4), RecipePhase::ChunkedLossForward},
      // Llama 2's 32,000-token vocabulary: with checkpointing, the last layer's recomputed tensors
      // and its backward hold more than 4,096 tokens' loss.
      {preset("llama-2-7b").config, lora_workload(1, "full", 4096, 8), RecipePhase::LayerBackward},
      {preset("llama-2-7b").config, lora_workload(1, "none", 4096, 8, kLoraQ | kLoraV), RecipePhase::ChunkedLossForward},
      // Two tokens and rank 64: the adapters' gradients beside their states outweigh the loss.
      {import_file("calibration/configs/llama-3.2-3b.json"), lora_workload(1, "full", 2), RecipePhase::FusedAdamStep},
      {preset("qwen2.5-0.5b").config, lora_workload(8, "none", 1024, 16, kLoraQ | kLoraK | kLoraV | kLoraO), RecipePhase::ChunkedLossForward},
      {preset("llama-3.1-8b").config, [] { Workload w = lora_workload(2, "full", 2048, 8); w.qlora = true; return w; }(), RecipePhase::ChunkedLossForward},
  }, no_words);
  CHECK(phases == std::set<RecipePhase>{RecipePhase::ChunkedLossForward, RecipePhase::LayerBackward, RecipePhase::FusedAdamStep});
}

TEST_CASE("torchtune recipe: what full_finetune_single_device does not do is refused, named", "[training]") {
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const Workload base = torchtune_workload(2);
  llmsize::test::check_refusals(llama, base, {
      {"a Gemma model", [](ModelConfig& c, Workload&) { c = preset("gemma-2-9b").config; }, "gemma2"},
      {"a Llama shape no builder makes", [](ModelConfig& c, Workload&) { c.vocab = 128000; }, "builders"},
      {"untied embeddings on llama3_2's shape", [](ModelConfig& c, Workload&) { c.tie_embeddings = false; }, "builders"},
      {"two GPUs", [](ModelConfig&, Workload& w) { w.gpus = 2; w.sharding = Sharding::Fsdp; }, "distributed recipes with FSDP2"},
      {"an nf4 base without double quantisation", [](ModelConfig&, Workload& w) { w.weights = WeightFormat::Nf4; }, "--weights nf4-dq"},
      {"an int8 base", [](ModelConfig&, Workload& w) { w.weights = WeightFormat::Int8; }, "--weights bf16"},
      {"QLoRA of Qwen2.5", [](ModelConfig& c, Workload& w) { c = preset("qwen2.5-7b").config; w.lora_rank = 8; w.qlora = true; }, "Qwen2.5 have none"},
      {"QLoRA whose layer moments come near the loss (Llama 2's 32,000 tokens)",
       [](ModelConfig& c, Workload& w) { c = preset("llama-2-7b").config; w.lora_rank = 8; w.lora_targets = kLoraQ | kLoraV; w.qlora = true; w.recompute = Recompute::Full; },
       "get_original_weight"},
      {"LLaMA-Adapter", [](ModelConfig&, Workload& w) { w.adapter = Adapter::V1; }, "LLaMA-Adapter"},
      {"LoRA on a part of the MLP", [](ModelConfig&, Workload& w) { w.lora_rank = 8; w.lora_targets = kLoraQ | kLoraV | kLoraGate; }, "apply_lora_to_mlp"},
      {"autocast", [](ModelConfig&, Workload& w) { w.precision = Precision::Mixed; }, "--precision pure"},
      {"fp32 states", [](ModelConfig&, Workload& w) { w.opt_state = StateDtype::F32; }, "--opt-dtype bf16"},
      {"8-bit AdamW", [](ModelConfig&, Workload& w) { w.optimizer = Optimizer::AdamW8bit; }, "torch.optim.AdamW"},
      {"selective recomputation", [](ModelConfig&, Workload& w) { w.recompute = Recompute::Selective; }, "--recompute full"},
      {"dropout", [](ModelConfig&, Workload& w) { w.dropout = true; }, "attn_dropout"},
      {"no flash attention", [](ModelConfig&, Workload& w) { w.flash_attention = false; }, "flex attention"},
  });
  // A Turing card (sm75) has flex attention but no bf16 training: named.
  const auto t4 = estimate(llama, llmsize::test::with({{"mode", "training"}, {"recipe", "torchtune"}, {"gpu", "t4"}, {"dtype", "bf16"},
                                                         {"prec", "pure"}, {"ostate", "bf16"}, {"seq", "4096"}}));
  REQUIRE_FALSE(t4.ok());
  CHECK(join(t4.issues()).find("T4") != std::string::npos);
}

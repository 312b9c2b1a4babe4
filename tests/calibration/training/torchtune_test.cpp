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
      "torch autograd, AccumulateGrad; torchtune training/memory.py register_optim_in_bwd_hooks; flex_attention backward",
      "torchtune training/_activation_offloading.py OffloadActivations (pack_tensor, unpack_tensor_with_streams); torch utils/checkpoint.py _NoopSaveInputs",
  };
  auto in_bwd = [](Workload w) {
    w.optimizer_in_bwd = true;
    return w;
  };
  auto offloaded = [](Workload w) {
    w.offload_activations = true;
    return w;
  };
  const std::set<RecipePhase> phases = check_phase_cases({
      {import_file("calibration/configs/llama-3.2-3b.json"), torchtune_workload(2, "none"), RecipePhase::LossBackward},
      // optimizer_in_bwd: the embedding's gradient alone at the end; a layer's w2 gradient in flight.
      {import_file("calibration/configs/llama-3.2-3b.json"), in_bwd(torchtune_workload(1, "full", 256)), RecipePhase::EmbeddingGradientInBwd},
      {preset("llama-2-70b").config, in_bwd(torchtune_workload(1, "none", 16)), RecipePhase::LayerBackward},
      // Offloading: layer 0's own input, brought back.
      {preset("llama-2-7b").config, offloaded(torchtune_workload(1, "full")), RecipePhase::LayerBackward},
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
  CHECK(phases == std::set<RecipePhase>{RecipePhase::LossBackward, RecipePhase::LayerBackward, RecipePhase::EmbeddingGradient,
                                        RecipePhase::EmbeddingGradientInBwd});
}

TEST_CASE("torchtune recipe: optimizer_in_bwd steps each parameter in its hook and keeps no gradient", "[training]") {
  // full_finetune_single_device with optimizer_in_bwd=True: one fused AdamW a parameter, stepped
  // and zero_grad()ed (gradient set to None) in its post-accumulate-grad hook.
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  auto in_bwd = [](Workload w) {
    w.optimizer_in_bwd = true;
    return w;
  };
  // 256 tokens: at the end of backward only the embedding's new gradient (128,256 × 3,072 bf16)
  // is there, where every gradient and the tied head's were: the model's size less.
  const RecipePeak plain = recipe_peak_of(estimate(llama, torchtune_workload(1, "full", 256)));
  const RecipePeak fused = recipe_peak_of(estimate(llama, in_bwd(torchtune_workload(1, "full", 256))));
  check_recipe_sums(fused);
  CHECK(plain.phase == RecipePhase::EmbeddingGradient);
  CHECK(fused.phase == RecipePhase::EmbeddingGradientInBwd);
  CHECK(fused.gradient_bytes == i64{128256} * 3072 * 2);
  CHECK(plain.peak_allocated_bytes - fused.peak_allocated_bytes == i64{3212749824} * 2);
  CHECK(fused.optimizer_bytes == plain.optimizer_bytes);  // the same states, a step tensor each
  CHECK(fused.version.find("optimizer_in_bwd") != std::string::npos);
  // 2 × 4,096: the loss's backward, where no gradient exists yet either way.
  const RecipePeak loss = recipe_peak_of(estimate(llama, in_bwd(torchtune_workload(2, "full"))));
  CHECK(loss.phase == RecipePhase::LossBackward);
  CHECK(loss.peak_allocated_bytes == recipe_peak_of(estimate(llama, torchtune_workload(2, "full"))).peak_allocated_bytes);
  // Llama 2 70B, 16 tokens, no checkpointing: the last layer's backward, every layer's tensors
  // held, with w2's weight gradient (28,672 × 8,192 bf16) beside the product's until its hook
  // frees it: more than the embedding's 32,000 × 8,192 gradient at the end.
  const RecipePeak l70 = recipe_peak_of(estimate(preset("llama-2-70b").config, in_bwd(torchtune_workload(1, "none", 16))));
  check_recipe_sums(l70);
  CHECK(l70.phase == RecipePhase::LayerBackward);
  CHECK(l70.gradient_bytes == 0);
  bool w2 = false;
  for (const RecipePart& part : l70.parts)
    if (part.label == Str::recipe_part_layer_grads)
      w2 = part.bytes == 2 * (16 * 8192 * 2) + 16 * 28672 * 2 + i64{28672} * 8192 * 2 && part.formula.find("w2's backward") != std::string::npos;
  CHECK(w2);
  // What the recipe raises on, and the recipes without it, are refused on the field.
  const Workload lora = in_bwd(lora_workload(2));
  Workload accum = in_bwd(torchtune_workload(2, "full"));
  accum.grad_accum = 2;
  Workload hf = in_bwd(torchtune_workload(2, "full"));
  hf.recipe = Recipe::HfPeft;
  Workload formula = hf;
  formula.recipe = Recipe::Formula;
  for (const Workload& w : {lora, accum, hf, formula}) {
    const auto e = estimate(llama, w);
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().field == "oib");
  }
  CHECK(join(estimate(llama, accum).issues()).find("RuntimeError") != std::string::npos);
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
// rows (LoRA 8.5 GiB, QLoRA 4.6 GiB), which compile the model and the loss (not modelled) and
// offload activations: they are not claimed here.
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
  // lora_dropout (--dropout): each adapted Linear's lora_a keeps nn.Dropout's output, with
  // native_dropout's bool mask where its input needs a gradient, and the shared input is kept by
  // nothing: a later layer keeps 8·C + 3·C + I bytes a token more (q and v, 2 × 3·C, for the
  // norm output's 2·C; output_proj 3·qd, qd = C; w1 and w3, 2 × 3·C, and w2 3·I, for the norm
  // output's 2·C and the product's 2·I), layer 0 6·C + 3·C + I (its q and v inputs need no gradient).
  Workload drop = lora_workload(2, "none");
  drop.dropout = true;
  const RecipePeak dropped = recipe_peak_of(estimate(llama, drop));
  check_recipe_sums(dropped);
  CHECK(dropped.phase == RecipePhase::ChunkedLossForward);
  CHECK(dropped.peak_allocated_bytes - plain.peak_allocated_bytes == ((6 * C + 3 * C + I) + 27 * (8 * C + 3 * C + I)) * N);
  // With checkpointing the loss holds the layer inputs only: the same with dropout or without.
  drop.recompute = Recompute::Full;
  CHECK(recipe_peak_of(estimate(llama, drop)).peak_allocated_bytes == ac.peak_allocated_bytes);
  // k_proj adapted too: layer 0's k needs a gradient and keeps its RoPE rows, and lora_b's input.
  const RecipePeak qkv = recipe_peak_of(estimate(llama, lora_workload(2, "none", 4096, 64, kLoraQ | kLoraK | kLoraV | kLoraO | kLoraGate | kLoraUp | kLoraDown)));
  CHECK(qkv.peak_allocated_bytes - plain.peak_allocated_bytes ==
        (4 * 128 + 28 * 2 * 64) * N + 28 * (64 * 3072 * 2 + 1024 * 64 * 2) * 3 + 28 * 2 * 512);
}

TEST_CASE("torchtune QLoRA: torchao's NF4 base byte for byte, the rest as LoRA, and w2's dequantisation in a layer's backward", "[training]") {
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
  // A shorter sequence moves the peak into a layer's backward, at w2 (LinearNF4.backward), where
  // get_original_weight dequantises its 8,192 × 3,072 = 25,165,824 weights again: the high and
  // low codes as int64 (4 B a weight each), their nf4 lookups and the scaled halves (1 B a weight
  // each), the bf16 scales (1 B per 32) and the stacked bf16 weight, 353,107,968 B at torch.stack,
  // more than the bf16 weight and the product's gradient the matmul makes after (50,331,648 +
  // 4,194,304). Beside it, the layer's output gradient (256 × 3,072 × 2) and lora_a's gradient of
  // the product (256 × 8,192 × 2), waiting for the base's.
  auto inflight_of = [](const RecipePeak& p) -> const RecipePart& {
    for (const RecipePart& part : p.parts)
      if (part.label == Str::recipe_part_layer_grads) return part;
    FAIL("no part in flight");
    return p.parts.front();
  };
  Workload short_w = qw;
  short_w.seq = 256;
  short_w.batch = 1;
  const RecipePeak sq = recipe_peak_of(estimate(llama, short_w));
  check_recipe_sums(sq);
  CHECK(sq.phase == RecipePhase::LayerBackward);
  CHECK(inflight_of(sq).bytes == 14 * 25165824 + 25165824 / 32 + 256 * 3072 * 2 + 256 * 8192 * 2);
  CHECK(inflight_of(sq).formula.find("at w2's backward") != std::string::npos);
  CHECK(inflight_of(sq).formula.find("25,165,824") != std::string::npos);
  CHECK(inflight_of(sq).source.find("LinearNF4.backward") != std::string::npos);
  // It is layer 0's: by then every adapter's gradient but those of layer 0's attention and w1
  // and w3 exists (6,422,528 B a layer, 1,441,792 of them w2's), more than the last layer keeps
  // beyond its input.
  CHECK(sq.gradient_bytes == 27 * 6422528 + 1441792);
  // LoRA at the same shape dequantises nothing: its peak stays the loss's forward.
  const RecipePeak short_lora = recipe_peak_of(estimate(llama, lora_workload(1, "full", 256)));
  CHECK(short_lora.phase == RecipePhase::ChunkedLossForward);
  for (const RecipePart& part : short_lora.parts) CHECK(part.formula.find("w2's backward") == std::string::npos);
  // Llama 2 7B, whose 32,000-token loss is small beside a layer, with q and v adapted at 2 × 4,096:
  // the last layer's w2 (11,008 × 4,096 = 45,088,768 weights, 632,651,776 B at torch.stack, over
  // the bf16 weight and the product's gradient, 90,177,536 + 180,355,072) beside the layer's
  // output gradient, above the MLP's multiply (2 × 67,108,864 + 3 × 180,355,072).
  Workload l2 = lora_workload(2, "full", 4096, 8, kLoraQ | kLoraV);
  l2.qlora = true;
  const RecipePeak q2 = recipe_peak_of(estimate(preset("llama-2-7b").config, l2));
  check_recipe_sums(q2);
  CHECK(q2.phase == RecipePhase::LayerBackward);
  CHECK(inflight_of(q2).bytes == 14 * 45088768 + 45088768 / 32 + 8192 * 4096 * 2);
  CHECK(q2.gradient_bytes == 0);  // no adapter's backward has run: the last layer's w2 comes before its q and v
}

TEST_CASE("torchtune: activation offloading leaves the loss one layer input (LoRA) or none (full), and each layer's backward its own", "[training]") {
  // OffloadActivations (training/_activation_offloading.py at 1814feb1) keeps an offloaded save on
  // the GPU until a save five pack ids later is offloaded; each checkpointed layer saves two (the
  // dummy and its input). After the last layer the final norm's saves follow: with a frozen scale
  // (LoRA) x.float() and the rsqrt twice each, which release all but the last layer's input; a
  // trained scale (full) adds x_normed, which releases that one too.
  const ModelConfig llama = import_file("calibration/configs/llama-3.2-3b.json");
  const i64 input = 2 * 4096 * 2 * 3072;  // N × C × 2, a layer's bf16 input at 2 × 4,096
  auto offloaded = [](Workload w) {
    w.offload_activations = true;
    return w;
  };
  const RecipePeak lora = recipe_peak_of(estimate(llama, lora_workload(2))), lora_off = recipe_peak_of(estimate(llama, offloaded(lora_workload(2))));
  check_recipe_sums(lora_off);
  CHECK(lora_off.phase == RecipePhase::ChunkedLossForward);
  CHECK(lora.peak_allocated_bytes - lora_off.peak_allocated_bytes == 27 * input);
  CHECK(lora_off.version.find("activation offloading (OffloadActivations, streams)") != std::string::npos);
  bool stash = false;
  for (const RecipePart& part : lora_off.parts)
    if (part.label == Str::recipe_part_checkpoints) stash = part.bytes == input && part.formula.find("forward stash") != std::string::npos;
  CHECK(stash);
  const RecipePeak full = recipe_peak_of(estimate(llama, torchtune_workload(2, "full"))),
                   full_off = recipe_peak_of(estimate(llama, offloaded(torchtune_workload(2, "full"))));
  check_recipe_sums(full_off);
  CHECK(full_off.phase == RecipePhase::LossBackward);
  CHECK(full.peak_allocated_bytes - full_off.peak_allocated_bytes == 28 * input);
  for (const RecipePart& part : full_off.parts) CHECK(part.label != Str::recipe_part_checkpoints);
  // In backward a layer's recompute brings its input back and the one before is freed: every
  // layer holds the same, so of layers 1 … 31 of Llama 2 7B (LoRA r 8 on every Linear, 1 × 4,096)
  // layer 1, with 30 layers' adapter gradients (1,249,280 B each) and its w2's, is the largest;
  // the last layer held all 32 inputs without offloading.
  const ModelConfig llama2 = preset("llama-2-7b").config;
  const Workload l2 = lora_workload(1, "full", 4096, 8, kLoraAll);
  const RecipePeak l2_plain = recipe_peak_of(estimate(llama2, l2)), l2_off = recipe_peak_of(estimate(llama2, offloaded(l2)));
  check_recipe_sums(l2_off);
  CHECK(l2_plain.phase == RecipePhase::LayerBackward);
  CHECK(l2_off.phase == RecipePhase::LayerBackward);
  const i64 input2 = 4096 * 4096 * 2;
  CHECK(l2_off.gradient_bytes == 30 * 1249280 + 241664);
  CHECK(l2_plain.gradient_bytes == 241664);  // the last layer's w2
  CHECK(l2_plain.peak_allocated_bytes - l2_off.peak_allocated_bytes == 31 * input2 - (l2_off.gradient_bytes - l2_plain.gradient_bytes));
  for (const RecipePart& part : l2_off.parts) {
    if (part.label == Str::recipe_part_checkpoints) CHECK((part.bytes == input2 && part.formula.find("layer 1's input") != std::string::npos));
    if (part.label == Str::recipe_part_layer) CHECK(part.formula.find("layer 1,") != std::string::npos);
  }
  // Offloading without checkpointing raises in the recipe; the other recipes keep activations on the GPU.
  const auto no_ac = estimate(llama, offloaded(lora_workload(2, "none")));
  REQUIRE_FALSE(no_ac.ok());
  CHECK(no_ac.issues().front().field == "aoff");
  CHECK(join(no_ac.issues()).find("RuntimeError") != std::string::npos);
  for (Recipe recipe : {Recipe::Formula, Recipe::HfPeft, Recipe::LitGpt, Recipe::Megatron, Recipe::DeepSpeed}) {
    INFO(kRecipeNames[static_cast<size_t>(recipe)]);
    Workload w = offloaded(lora_workload(2));
    w.recipe = recipe;
    const auto e = estimate(llama, w);
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().field == "aoff");
  }
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
      "torchao 0.7.0 dtypes/nf4tensor.py LinearNF4.backward, NF4Tensor.get_original_weight; torchtune modules/peft/lora.py LoRALinear",
      "torchtune training/_activation_offloading.py OffloadActivations (pack_tensor, unpack_tensor_with_streams); torch utils/checkpoint.py _NoopSaveInputs",
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
      // Offloading: the last layer's input in the stash at the loss; layer 1's own input in its backward.
      {import_file("calibration/configs/llama-3.2-3b.json"), [] { Workload w = lora_workload(2); w.offload_activations = true; return w; }(), RecipePhase::ChunkedLossForward},
      {preset("llama-2-7b").config, [] { Workload w = lora_workload(1, "full", 4096, 8, kLoraAll); w.offload_activations = true; return w; }(), RecipePhase::LayerBackward},
      // lora_dropout: nn.Dropout's outputs and masks in the layers.
      {import_file("calibration/configs/llama-3.2-3b.json"), [] { Workload w = lora_workload(2, "none"); w.dropout = true; return w; }(), RecipePhase::ChunkedLossForward},
      {preset("llama-2-7b").config, [] { Workload w = lora_workload(1, "full", 4096, 8); w.dropout = true; return w; }(), RecipePhase::LayerBackward},
      // QLoRA of Llama 2: the last layer's w2 dequantised in its backward.
      {preset("llama-2-7b").config, [] { Workload w = lora_workload(2, "full", 4096, 8, kLoraQ | kLoraV); w.qlora = true; return w; }(), RecipePhase::LayerBackward},
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

// Training memory as a recipe's code allocates it: the peak that torch.cuda.max_memory_allocated()
// reports, tensor by tensor, at the moment it happens. The `formula` recipe is the papers' model
// (training_memory.hpp); each other recipe follows one version of its code, and refuses, with the
// reason named, what that code path does not cover.
//
// hf-peft: the Hugging Face Trainer (transformers 4.48.1) with PEFT 0.13.2's LoRA as TRL 0.13.0's
// SFTTrainer sets it up, PyTorch 2.4.1, bitsandbytes 0.43.3, flash-attn 2.7.3: gradient
// checkpointing, packed sequences of seq tokens, AdamW (torch, foreach), one GPU; LoRA on a bf16
// base, QLoRA (4-bit nf4 / nf4-dq base, bf16=True autocast) or full fine-tuning of a bf16 model,
// for Llama, Mistral and Qwen2 models (training_recipe_hf.cpp).
//
// litgpt: LitGPT finetune/lora.py, adapter.py and adapter_v2.py at commit 8641822b (Oct 2023),
// Lightning Fabric 71aed751 (its pin), PyTorch 2.1.0, bitsandbytes 0.41.1: precision bf16-true,
// LoRA on the query and value or LLaMA-Adapter (v1, v2) of a multi-head model, optionally
// `--quantize bnb.nf4 / bnb.nf4-dq`, one GPU with flash attention (sm80 or newer). The scripts force
// the longest sample (seq) into the first micro-batch (batch), and the peak falls in that
// iteration, before any adapter gradient or optimizer state exists. finetune/lora.py on several GPUs
// (--gpus N --zero fsdp --recompute full): its FSDPStrategy (FULL_SHARD, use_orig_params, every
// Block checkpointed), whose gradient accumulation keeps every Block's unsharded gradient.
//
// megatron: Megatron-LM's pretrain_gpt.py at 040eac94 (July 2023, the legacy megatron/model GPT),
// per (tensor, pipeline) rank: fp16 or bf16 mixed precision with the contiguous gradient buffer
// and Float16OptimizerWithFloat16Params or, with --zero 1, the DistributedOptimizer
// (--use-distributed-optimizer), apex FusedAdam, tensor, sequence
// and pipeline (1F1B) parallelism, no recomputation, no flash attention, dropout on, the fused
// causal softmax (training_recipe_megatron.cpp).
//
// deepspeed: DeepSpeed-Chat's step1_supervised_finetuning/main.py at 3a77097a (Apr 2023) on
// DeepSpeed 0.9.0's ZeRO stage 1 or 2 with transformers 4.29's OPT, data-parallel rank 0: fp16
// with FusedAdam, eager attention, optionally a checkpoint a layer (training_recipe_deepspeed.cpp).
//
// torchtune: recipes/full_finetune_single_device.py and lora_finetune_single_device.py at 1814feb1
// (Nov 2024), PyTorch 2.5: full fine-tuning (torch.nn.CrossEntropyLoss) or LoRA
// (CEWithChunkedOutputLoss, as its configs set) of a bf16 Llama, Mistral or Qwen2 model on one GPU,
// or QLoRA on torchao 0.7's NF4 (Llama, Mistral; where the loss or the step outweighs the layers'
// dequantisation), packed batches through flex attention, torch.optim.AdamW, activation
// checkpointing on or off, no compile (training_recipe_torchtune.cpp).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checked.hpp"
#include "gpus.hpp"
#include "issue.hpp"
#include "lang.hpp"
#include "model.hpp"
#include "torch_allocator.hpp"
#include "workload.hpp"

namespace llmsize::core {

// When the peak happens.
enum class RecipePhase : std::uint8_t {
  CrossEntropyBackward, LmHeadBackward, EndOfForward, ConvertOutput,  // litgpt
  LossForward, LayerBackward, OptimizerStep, EmbeddingBackward,       // hf-peft
  MegatronLoss, AttentionForward, MlpBackward,                        // megatron
  LossBackward, EmbeddingGradient,                                    // torchtune
  MegatronStep,                                                       // megatron, the optimizer's step
  MegatronRecompute,                                                  // megatron, selective recomputation's backward
  MegatronRerun,                                                      // megatron, full recomputation's backward
  DeepSpeedLoss, DeepSpeedLayer, DeepSpeedEmbedding, DeepSpeedStep,   // deepspeed
  DeepSpeedReduce,                                                    // deepspeed, ZeRO-1's reduce_gradients
  DeepSpeedGather,                                                    // deepspeed, the step's all_gather of the fp16 partitions
  ChunkedLossForward, FusedAdamStep,                                  // torchtune LoRA
  EmbeddingGradientInBwd,                                             // torchtune, optimizer_in_bwd
  FsdpLossBackward, FsdpRecompute, FsdpGradCopy,                      // litgpt, FSDP over several GPUs
};

// One pipeline stage's GPU (every tensor-parallel rank of a stage holds the same): what the
// `formula` recipe, or the megatron recipe, gives each rank, beside the most loaded one.
struct TrainingStage {
  i64 stage = 0, first_layer = 0, layers = 0;
  i64 params_gpu = 0;             // parameters stored on the GPU before ZeRO sharding
  i64 inflight = 1;               // micro-batches whose activations the stage holds (1F1B)
  i64 activation_bytes = 0;       // in-flight layers' activations, the embedding's or the loss's extras
  i64 peak_allocated_bytes = 0;   // the stage's total without the reserve
  i64 total_bytes = 0;
  i64 after_step_bytes = 0;       // megatron: allocated between steps (report_memory's "allocated:"); 0 elsewhere
  i64 last_layer() const { return first_layer + layers - 1; }
};

// One group of live tensors at the peak: `bytes` as the caching allocator counts them (each
// tensor rounded up to 512 B), `formula` its sizes in symbols, `source` the code that holds it.
// `formula` and `source` are English (the JSON report's); `formula_in` and `source_in` are the
// same texts in any language, from the string tables (lang/en_recipe_formulas.inc), which make
// the English ones too. Empty for a text that has no words to translate.
struct RecipePart {
  Str label;
  i64 bytes = 0;
  std::string formula;
  std::string source;
  std::function<std::string(Lang)> formula_in{};
  std::function<std::string(Lang)> source_in{};
};

// A part's formula and source in `lang`: the English strings for Lang::En or where the part has
// no text in other languages.
std::string recipe_part_formula(const RecipePart& part, Lang lang);
std::string recipe_part_source(const RecipePart& part, Lang lang);

struct RecipePeak {
  Recipe recipe = Recipe::LitGpt;
  std::string version;         // the code followed, e.g. "LitGPT 8641822 finetune/lora.py · PyTorch 2.1.0 · …"
  RecipePhase phase = RecipePhase::CrossEntropyBackward;
  i64 peak_allocated_bytes = 0;  // comparable with torch.cuda.max_memory_allocated()
  i64 weights_bytes = 0;         // the frozen base as the recipe stores it
  i64 adapter_bytes = 0;         // LoRA A and B, or LLaMA-Adapter's parameters and cached prompt K/V
  i64 gradient_bytes = 0;        // the trainable parameters' gradients live at the peak
  i64 optimizer_bytes = 0;       // the optimizer's states (and its step's temporaries) at the peak
  i64 trainable_params = 0;      // what the script's "Number of trainable parameters" prints
  i64 saved_bytes = 0;           // tensors autograd keeps for backward at the end of forward
  i64 head_bytes = 0;            // the logits and loss region in the peak's phase
  i64 fixed_bytes = 0;           // the RoPE cache and the cuBLAS workspace
  i64 gathered_bytes = 0;        // FSDP: the all-gathered (unsharded) parameters live at the peak
  i64 master_bytes = 0;          // megatron: the fp32 master parameters
  std::vector<TrainingStage> stages;  // megatron: every pipeline stage's rank (total_bytes without the reserve)
  std::vector<RecipePart> parts; // the peak's live tensors by group, largest first; they sum to the peak
  // The peak is weights + adapters + gradients + master + optimizer + saved + head + fixed.
  // megatron: the stage whose rank holds the peak (the first of equals); nullptr for a one-GPU recipe.
  const TrainingStage* peak_stage() const {
    for (const TrainingStage& st : stages)
      if (st.peak_allocated_bytes == peak_allocated_bytes) return &st;
    return nullptr;
  }
};

// torchtune's builder of this model (training_recipe_torchtune.cpp): its name, the component a
// config names it by ("torchtune.models.llama3_2.llama3_2_3b") and its single-device full
// fine-tuning config at 1814feb1 ("llama3_2/3B_full_single_device"; empty where there is none);
// the same for its LoRA builder ("torchtune.models.llama3_2.lora_llama3_2_3b",
// "llama3_2/3B_lora_single_device") and its QLoRA one ("…qlora_llama3_2_3b",
// "llama3_2/3B_qlora_single_device"; empty where the family has no qlora_ builders or config).
struct TorchtuneBuilder {
  std::string name, component, config, lora_component, lora_config, qlora_component, qlora_config;
};
std::optional<TorchtuneBuilder> torchtune_builder_of(const ModelConfig& c);

// The string-table row that says when the peak happens.
Str recipe_phase_row(RecipePhase phase);

// The peak of `w.recipe` (not Formula) for this model on this GPU, or the reason it is not modelled.
Result<RecipePeak> recipe_peak(const ModelConfig& cfg, const Workload& w, const Gpu& gpu);

// What the recipes share (training_recipe.cpp); each recipe's own code is in its file.
namespace recipe_detail {
// A size as the caching allocator counts it (torch_allocator.hpp); an overflow stays one.
inline Checked rounded(Checked bytes) { return allocator_round(bytes); }
// One nn.Linear (in → out) stored by bitsandbytes' quantize_4bit (blocksize 64), each piece its own
// allocation: the packed 4-bit weight, its 16-entry code, and absmax fp32 per 64 values or, with
// double quantization, absmax uint8 per 64 with an fp32 absmax per 256 blocks and an offset. The
// dynamic 8-bit map double quantization shares (256 fp32) is not in it.
Checked bnb4_linear_bytes(i64 in, i64 out, bool double_quant);
inline constexpr i64 kBnbDynamicMap = 256 * 4;
// An FSDP unit's flat parameter as PyTorch's FlatParamHandle._init_flat_param_and_metadata builds it
// with use_orig_params (distributed/fsdp/_flat_param.py, 2.1 to 2.4): the parameters in registration
// order, each starting at a multiple of 8 bf16 values (16-byte aligned; an empty entry, an absent
// bias, takes no place), the whole padded to a multiple of the world size; _get_shard gives each rank
// padded / world. `offsets` is each parameter's start; `unpadded` the size before the world-size
// padding (the unsharded gradient's).
struct FlatParam {
  Checked unpadded, padded;
  std::vector<i64> offsets;
};
FlatParam fsdp_flat_param(const std::vector<Checked>& numels, i64 world);
// A recipe's refusal: the issue on field "recipe" with the row `why` (and its one argument).
std::optional<Issue> refuse(Str why, const std::string& arg = "");
// Adds a part whose formula and source are rows or plain texts (nothing for 0 bytes).
void add_part(RecipePeak& p, Str label, Checked bytes, const RowArg& formula, const RowArg& source);
// The parts largest first (a stable sort: equal parts keep the order they were added in).
void sort_parts(RecipePeak& p);
// A layer's backward (hf-peft, torchtune): at the MLP's multiply with everything `held` (the
// layers' saved tensors, this layer's among them), or at the attention's backward once the MLP's
// saved tensors (`mlp_saved`) are freed; the larger moment, with what is kept then and what is in
// flight (`io`, the layer's output and input gradients, and that moment's own). An overflow in
// any sum comes back as an overflowing `kept`.
struct LayerMoment {
  Checked kept, inflight;
};
LayerMoment layer_backward_moment(Checked held, Checked mlp_saved, Checked io, Checked mlp_moment, Checked attn_moment);
// The hf-peft recipe (training_recipe_hf.cpp).
Result<RecipePeak> hf_peft_peak(const ModelConfig& cfg, const Workload& w, const Gpu& gpu);
// The megatron recipe (training_recipe_megatron.cpp).
Result<RecipePeak> megatron_peak(const ModelConfig& cfg, const Workload& w, const Gpu& gpu);
// The torchtune recipe (training_recipe_torchtune.cpp).
Result<RecipePeak> torchtune_peak(const ModelConfig& cfg, const Workload& w, const Gpu& gpu);
// The deepspeed recipe (training_recipe_deepspeed.cpp).
Result<RecipePeak> deepspeed_peak(const ModelConfig& cfg, const Workload& w, const Gpu& gpu);
}  // namespace recipe_detail

}  // namespace llmsize::core

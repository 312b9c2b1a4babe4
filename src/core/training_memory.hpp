// Training memory on the most loaded GPU: weights, gradients, optimizer states, fp32 master
// weights (sharded by ZeRO/FSDP over data parallel, split by tensor/pipeline/expert
// parallel), activations of the in-flight micro-batches (1F1B), the logits/loss buffer, LoRA
// and QLoRA, reserve. Not here: inference memory (inference_memory.hpp), step times
// (throughput.hpp).
#pragma once
#include "activations.hpp"
#include "inference_memory.hpp"
#include "model_states.hpp"
#include "training_recipe.hpp"

namespace llmsize::core {

// ---- The training breakdown ---------------------------------------------------------------

struct TrainingMemory {
  // Most loaded GPU (pipeline stage `stage`).
  i64 weights_bytes = 0;         // working weights (frozen base for LoRA; NF4-DQ for QLoRA) + adapters
  i64 vision_weights_bytes = 0;  // a multimodal wrapper's vision tower, frozen in the compute dtype (first stage)
  i64 gradients_bytes = 0;
  i64 optimizer_bytes = 0;
  i64 master_weights_bytes = 0;
  i64 activation_bytes = 0;      // layers × in-flight micro-batches + embedding/logits extras
  i64 overhead_bytes = 0;        // reserve + comm + ZeRO-3 gathered layers + QLoRA dequant copy
  i64 total_bytes = 0;
  // What torch.cuda.max_memory_allocated() would report: the total without the reserve (the CUDA
  // context and what the caching allocator holds unused). A recipe's (w.recipe) is its code's peak.
  i64 peak_allocated_bytes = 0;
  std::optional<RecipePeak> recipe;  // the recipe's peak, tensor group by group (not for `formula`)
  i64 reserve_bytes = 0, comm_bytes = 0, gathered_bytes = 0, dequant_bytes = 0;
  i64 logits_bytes = 0;          // fp32 logits for the loss, b·s·v/t (last stage)
  i64 recompute_bytes = 0;       // full recompute: one layer's activations rebuilt in backward
  LayerActivations layer;        // one dense layer (or the first kind present)
  LayerActivations layer_moe;    // one MoE layer (zero when dense)
  i64 inflight = 1;              // micro-batches whose activations the stage holds (1F1B)
  i64 stage = 0, stage_layers = 0;
  std::vector<TrainingStage> stages;  // every pipeline stage, first to last (formula; empty under a recipe)
  i64 trainable_params = 0;      // whole model (LoRA: adapters only)
  i64 lora_params = 0;
  i64 params_gpu = 0;            // parameters stored on this GPU before ZeRO sharding
  i64 trainable_params_gpu = 0;
  i64 capacity_bytes = 0;
  bool fits = false;
  i64 min_gpus = 0;              // ideal split of model states over GPUs; 0 = never fits
};

// `plan` is layer_plan(cfg, w.kv_dtype, w.tp) (FFN kind per layer).
Result<TrainingMemory> training_memory(const ModelConfig& cfg, const Inventory& inv, const LayerPlan& plan,
                                       const Workload& w, const Gpu& gpu);

}  // namespace llmsize::core

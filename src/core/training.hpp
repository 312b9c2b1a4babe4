// Training memory on the most loaded GPU: weights, gradients, optimizer states, fp32 master
// weights (sharded by ZeRO/FSDP over data parallel, split by tensor/pipeline/expert
// parallel), activations saved for backward per layer component (Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", §4 and Table 2),
// pipeline in-flight micro-batches (1F1B), the logits/loss buffer, LoRA and QLoRA.
// Not here: inference memory (inference_memory.hpp), step times (throughput.hpp).
#pragma once
#include "inference_memory.hpp"

namespace llmsize::core {

// ---- Model states ----------------------------------------------------------------------
// Bytes per parameter of each state, before sharding.
struct StateBytes {
  i64 weights = 0;   // the working copy (16-bit in Mixed/Pure, 4 in Fp32)
  i64 grads = 0;
  i64 master = 0;    // fp32 master copy (Mixed only)
  i64 optimizer = 0; // AdamW m+v, momentum, … (8-bit Adam: 2 + block absmax, see below)
};
StateBytes state_bytes(const Workload& w);

// Model states for `params` parameters held on one GPU before ZeRO, sharded over `dp`:
// ZeRO-1 shards optimizer (+ master), ZeRO-2 also gradients, ZeRO-3/FSDP also weights
// (ref: Rajbhandari et al. 2020, "ZeRO", §5 and Fig. 1). Optimizer bytes are computed per
// tensor elsewhere (8-bit Adam and Adafactor depend on shapes); this helper uses
// state_bytes().optimizer per parameter — the ZeRO paper's K.
struct ModelStates {
  i64 weights = 0, grads = 0, master = 0, optimizer = 0;
  i64 total() const { return weights + grads + master + optimizer; }
};
Result<ModelStates> model_states(i64 params, const Workload& w, i64 dp);

// Optimizer-state bytes of one tensor of `numel` values shaped rows × cols:
//   AdamW: 2 states (m, v) × state dtype; Lion, SGD+momentum: 1 state; SGD: 0;
//   Adafactor (no momentum): factored second moment, (rows + cols) fp32 for matrices, numel
//     for vectors (ref: Shazeer & Stern 2018);
//   8-bit AdamW (bitsandbytes): 2 × (1 byte + fp32 absmax per 256-value block) for tensors of
//     at least 4096 values, 32-bit states below (bitsandbytes min_8bit_size).
std::optional<i64> optimizer_bytes_for(const Workload& w, i64 numel, i64 rows, i64 cols);

// ---- Activations -----------------------------------------------------------------------
struct ActParams {
  i64 seq = 2048;
  i64 micro_batch = 1;
  i64 dtype_bytes = 2;
  i64 tp = 1;
  i64 ep = 1;                        // >1: experts held whole, their width not split by tp
  bool seq_parallel = false;
  bool flash = false;
  bool dropout = true;
  Recompute recompute = Recompute::None;
  i64 lora_rank = 0;                 // adapters add their rank-r intermediate per adapted matrix
  std::uint32_t lora_targets = kLoraAll;
};

// Bytes one layer keeps for backward, by component (ref: Korthikanti et al. 2022 §4.1; GPT
// layer: 11sbh + 5as²b attention, 19sbh MLP, 4sbh norms → sbh(34 + 5as/h) in 16-bit).
// Each component is divided by t where Megatron splits it (heads, FFN width) and, with
// sequence parallel, everything is divided by t.
struct LayerActivations {
  i64 layer_input = 0;    // full recomputation: only the layer input is kept (sbh·2 in 16-bit)
  i64 norm_inputs = 0;    // inputs of the norms (RMSNorm and LayerNorm both save x)
  i64 attn_input = 0;     // normed input of the q/k/v projections
  i64 qk = 0;             // q and k as used by QKᵀ (k with K heads: GQA-aware kernels)
  i64 v = 0;
  i64 qk_norm = 0;        // pre-norm q and k (Qwen3/Phi q_norm, k_norm)
  i64 mla_latent = 0;     // MLA: q_a and kv_a outputs and their normed copies
  i64 scores = 0;         // softmax output b·H·s² (absent with flash or selective recompute)
  i64 attn_dropout = 0;   // dropout mask (1 byte) and dropout output on the probabilities
  i64 softmax_stats = 0;  // flash attention: fp32 logsumexp b·H·s
  i64 attn_out_input = 0; // input of the output projection
  i64 ffn_input = 0;      // normed input of the FFN
  i64 ffn_hidden = 0;     // classic: act input + act output (2·f); gated: gate‖up + product (3·f)
  i64 moe_routing = 0;    // fp32 router probabilities b·s·E and the dispatched copies b·s·k·d
  i64 dropout_masks = 0;  // residual dropout masks after attention and FFN (1 byte each)
  i64 sandwich_norms = 0; // Gemma-2 post-attention/post-FFN norm inputs
  i64 lora = 0;           // x·A intermediates, r per adapted matrix
  i64 total = 0;
};
Result<LayerActivations> layer_activations(const ModelConfig& cfg, const ActParams& p, bool moe_layer);

// ---- LoRA --------------------------------------------------------------------------------
// Exact adapter parameters: r·(d_in + d_out) per adapted matrix (each routed-expert copy of a
// targeted role gets its own adapter), from the inventory shapes. MTP layers excluded.
Result<i64> lora_params(const Inventory& inv, i64 rank, std::uint32_t targets);
bool lora_targets_role(std::uint32_t targets, Role r);

// ---- The training breakdown ---------------------------------------------------------------
struct TrainingMemory {
  // Most loaded GPU (pipeline stage `stage`).
  i64 weights_bytes = 0;         // working weights (frozen base for LoRA; NF4-DQ for QLoRA) + adapters
  i64 gradients_bytes = 0;
  i64 optimizer_bytes = 0;
  i64 master_weights_bytes = 0;
  i64 activation_bytes = 0;      // layers × in-flight micro-batches + embedding/logits extras
  i64 overhead_bytes = 0;        // reserve + comm + ZeRO-3 gathered layers + QLoRA dequant copy
  i64 total_bytes = 0;
  i64 reserve_bytes = 0, comm_bytes = 0, gathered_bytes = 0, dequant_bytes = 0;
  i64 logits_bytes = 0;          // fp32 logits for the loss, b·s·v/t (last stage)
  i64 recompute_bytes = 0;       // full recompute: one layer's activations rebuilt in backward
  LayerActivations layer;        // one dense layer (or the first kind present)
  LayerActivations layer_moe;    // one MoE layer (zero when dense)
  i64 inflight = 1;              // micro-batches whose activations the stage holds (1F1B)
  i64 stage = 0, stage_layers = 0;
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

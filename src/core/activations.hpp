// Training activations: the bytes one layer keeps for backward, by component (Korthikanti et al.
// 2022, "Reducing Activation Recomputation in Large Transformer Models", §4 and Table 2), under
// tensor/sequence parallel, flash attention, recomputation and LoRA. Not here: inference
// temporaries (temporaries.hpp).
#pragma once
#include "inventory.hpp"
#include "workload.hpp"

namespace llmsize::core {

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
  i64 linear_attn = 0;    // Gated DeltaNet: projections, convolution in/out, normed q/k, gates, chunk matrices
  i64 scores = 0;         // softmax output b·H·s² (absent with flash or selective recompute)
  i64 attn_dropout = 0;   // dropout mask (1 byte) and dropout output on the probabilities
  i64 softmax_stats = 0;  // flash attention: fp32 logsumexp b·H·s
  i64 attn_out_input = 0; // input of the output projection
  i64 ffn_input = 0;      // normed input of the FFN
  i64 ffn_hidden = 0;     // classic: act input + act output (2·f); gated: gate‖up + product (3·f)
  i64 moe_routing = 0;    // fp32 router probabilities b·s·E, the dispatched inputs and the expert outputs 2·b·s·k·d (+ a shared gate's b·s·(d + 1))
  i64 dropout_masks = 0;  // residual dropout masks after attention and FFN (1 byte each)
  i64 sandwich_norms = 0; // Gemma-2 post-attention/post-FFN norm inputs
  i64 lora = 0;           // x·A intermediates, r per adapted matrix
  i64 total = 0;
};
// `linear_layer`: a Gated DeltaNet layer (ModelConfig::layer_is_linear) instead of softmax attention.
Result<LayerActivations> layer_activations(const ModelConfig& cfg, const ActParams& p, bool moe_layer,
                                           bool linear_layer = false);
// The same for any layer of the per-layer plan: its mixer (attention, linear, Mamba-2, none) and
// FFN (dense, MoE, none; a block-pattern model's blocks have one of the two).
Result<LayerActivations> layer_activations(const ModelConfig& cfg, const ActParams& p, Mixer mixer, bool has_ffn,
                                           bool moe_layer);

// Full recomputation rebuilds a layer's forward in backward around the input it kept: the
// bytes the rebuilt forward adds are its activations without recomputation (`none`) less that
// input (`full`.layer_input), which the first norm reads as it is (torch.utils.checkpoint and
// Megatron's checkpointed layers hand the saved input to the rebuilt forward; no copy).
i64 recompute_rebuilt_bytes(const LayerActivations& none, const LayerActivations& full);

}  // namespace llmsize::core

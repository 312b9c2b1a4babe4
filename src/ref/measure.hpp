// Measured next to estimated: the bytes a Decoder allocated through its counting allocator,
// beside the core's prediction for the same model, fp32, batch, context and prefill chunk
// (core: the layer plan's KV and recurrent-state bytes, weights_report, layer_temporaries). The estimates are the
// core's own functions, never re-derived here; `notes` explain each difference.
#pragma once
#include <string>
#include <vector>

#include "core/issue.hpp"
#include "decoder.hpp"

namespace llmsize::ref {

// The cache of one attention kind (one cache shape of the plan) over the layers that have it.
struct KindMemory {
  std::string kind;         // core::to_string(AttnKind), with the window of a sliding cache ("sliding 128")
  std::vector<i64> layers;  // the decoder's layers of this kind
  i64 kv_measured = 0, kv_estimated = 0;        // K/V rows (latent rows for MLA)
  i64 state_measured = 0, state_estimated = 0;  // recurrent state (linear attention)
  i64 index_measured = 0, index_estimated = 0;  // the lightning indexer's keys (DeepSeek-V3.2)
};

struct MemoryComparison {
  i64 batch = 0, context = 0, chunk = 0;  // the workload both sides describe
  // Equal to the byte by construction (same inventory, same KV rows).
  i64 weights_measured = 0, weights_estimated = 0;
  i64 kv_measured = 0, kv_estimated = 0;
  // Recurrent state of linear-attention layers (conv window and per-head matrices), all sequences.
  i64 state_measured = 0, state_estimated = 0;
  // The lightning indexer's key cache (DeepSeek-V3.2): fp8 codes and fp32 scales per token, all layers.
  i64 indexer_measured = 0, indexer_estimated = 0;
  // Live activations of one layer while its attention / its FFN runs (persistent buffers
  // plus that phase's share of the arena) against core::layer_temporaries, flash attention.
  i64 attention_measured = 0, attention_estimated = 0;
  i64 ffn_measured = 0, ffn_estimated = 0;
  // The same while a linear-attention (Gated DeltaNet) layer runs; 0 without such layers.
  i64 linear_measured = 0, linear_estimated = 0;
  i64 mamba_measured = 0, mamba_estimated = 0;  // the same for a Mamba-2 or Mamba-1 layer
  i64 conv_measured = 0, conv_estimated = 0;    // and for a short-convolution layer (LFM2)
  i64 logits_measured = 0, logits_estimated = 0;  // head phase (decoders with globals only)
  i64 activations_measured = 0;   // every activation byte allocated (persistent + arena)
  i64 activations_estimated = 0;  // the core's peak over the phases
  i64 scratch_measured = 0;       // heat-map copy, MLA transposed key block: not in the model
  i64 peak_measured = 0;          // highest total the counter saw
  i64 peak_estimated = 0;         // weights + KV + recurrent state + indexer keys + activations
  std::vector<KindMemory> by_kind;  // one row per cache shape of the plan, in order of first layer
  std::vector<core::Issue> notes;  // field "demo", in each language

  double activation_ratio() const;  // measured / estimated
  double peak_ratio() const;
};

// The decoder must hold every layer of its config (the demo builds a one-layer config).
// Without globals the estimate leaves out the embeddings, head and logits.
core::Result<MemoryComparison> compare_memory(const Decoder& dec);

}  // namespace llmsize::ref

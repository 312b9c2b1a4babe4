// Inference memory on the most loaded GPU: weights (per tensor, as stored), KV cache,
// temporaries of one layer (largest live set in prefill and decode), logits, runtime
// reserve; the phases after load / prefill peak / decode; fit, max context, max concurrent
// sequences and minimum GPU count. Also the helpers the reference transformer compares its
// measurements with (KV bytes, fp32 weight bytes, layer temporaries). All sizes are bytes
// (int64, overflow-checked); every figure is a lower bound unless its doc says otherwise.
// Not here: training memory (training.hpp), rates and times (throughput.hpp).
#pragma once
#include <array>
#include <vector>

#include "gpus.hpp"
#include "quant.hpp"

namespace llmsize::core {

// ---- KV cache ------------------------------------------------------------------------
// Bytes of `values` contiguous elements in a KV dtype (q8_0/q4_0 round up to 32-value blocks
// of 34/18 bytes, as ggml rows).
std::optional<i64> kv_row_bytes(KvDtype t, i64 values);
// KV heads held by one GPU under tensor parallel: K/tp, or 1 (replicated) when tp > K.
// MLA caches one latent per token that every GPU holds (vLLM replicates it across TP).
i64 kv_heads_per_gpu(const ModelConfig& cfg, i64 tp);
// One layer, one token: 2·K_gpu·hd·bytes (K and V), or MLA (kv_lora + rope)·bytes.
Result<i64> kv_bytes_per_token_layer(const ModelConfig& cfg, KvDtype t, i64 tp = 1);
// All layers, one token, no window cap: the "KV per token" figure.
Result<i64> kv_bytes_per_token(const ModelConfig& cfg, KvDtype t, i64 tp = 1);
// batch × Σ_layers min(context, window_l) × per-layer bytes (sliding layers keep `window`).
Result<i64> kv_cache_bytes(const ModelConfig& cfg, KvDtype t, i64 context, i64 batch, i64 tp = 1);

// ---- Weights -------------------------------------------------------------------------
// Tensors that share a storage type: inventory tensor `index` of layer kind `kind` (-1 =
// global tensors) in `layers` layers (1 for globals), stored as `storage`.
struct WeightRow {
  int kind = -1;
  int index = 0;
  i64 layers = 1;
  Storage storage;
  i64 params = 0;  // all copies in all `layers`
  i64 bytes = 0;
};
struct WeightsReport {  // one replica, no parallel split, MTP excluded
  i64 total_bytes = 0;
  i64 params = 0;
  std::array<i64, kGroupCount> bytes_by_group{};
  i64 quantized_params = 0;  // params stored in a quantized (non-float) type
  i64 kept_params = 0;       // params kept in a float dtype
  std::vector<WeightRow> rows;
};
Result<WeightsReport> weights_report(const ModelConfig& cfg, const Inventory& inv, const Workload& w);
Result<i64> weights_bytes_fp32(const Inventory& inv);  // 4 × parameters (MTP excluded)

// ---- Temporaries of one layer (inference) ----------------------------------------------
struct TempParams {
  i64 batch = 1;
  i64 chunk = 1;       // query tokens processed in this step (prefill chunk; 1 in decode)
  i64 context = 1;     // keys attended by the last query (chunk included)
  i64 dtype_bytes = 2; // activation dtype
  bool flash = true;   // flash kernel: no b·H·c·T score matrix
  i64 tp = 1;          // heads and FFN width split across tp GPUs
  i64 ep = 1;          // >1: experts held whole (not split by tp)
  i64 logits_positions = 1;  // positions whose logits are computed (1 = last only)
};
// Largest set of tensors alive at once, per part (bytes, on one GPU):
//   attention: x (residual) + normed x + q + k + v + [scores S and probabilities P, each
//              b·H·c·T] or the flash output O (b·c·H·hd_v);
//   ffn:       x + normed x + gated: gate, up, act(gate)·up (3·b·c·f) | classic: up, act (2·b·c·f);
//              MoE: + fp32 router logits b·c·E and the fused-MoE buffers b·c·k·(3·f_e + d)
//              (vLLM fused_moe intermediate caches), shared experts as a dense FFN;
//   logits:    final hidden b·n·d + fp32 logits b·n·v (n = logits_positions, full vocab:
//              gathered on the first TP rank).
// peak = max of the three (they are not alive at the same time).
struct Temporaries {
  i64 attention = 0;
  i64 ffn = 0;
  i64 logits = 0;
  i64 peak = 0;
};
Result<Temporaries> layer_temporaries(const ModelConfig& cfg, const TempParams& p, bool moe_layer);

// ---- Runtime reserve -------------------------------------------------------------------
// Default reserve of a runtime profile in bytes (CUDA context, allocator, CUDA graphs) — an
// estimate, editable through Workload::reserve_mib.
i64 runtime_reserve_default(Runtime r);
// Communication workspace per GPU when the replica spans several GPUs (NCCL channels):
// an estimate, 0 for one GPU.
i64 comm_workspace_bytes(i64 gpus_in_group);

// ---- The inference breakdown ------------------------------------------------------------
struct InferenceMemory {
  // Most loaded GPU (pipeline stage `stage` of pp).
  i64 weights_bytes = 0;
  i64 kv_bytes_per_token = 0;      // whole model, all layers (the published figure)
  i64 kv_bytes_per_token_gpu = 0;  // this GPU's layers and KV heads
  i64 kv_cache_bytes = 0;          // this GPU: batch × context (windows capped)
  i64 activation_bytes = 0;        // prefill temporaries peak (= prefill.peak)
  i64 overhead_bytes = 0;          // reserve + comm workspace
  i64 reserve_bytes = 0;
  i64 comm_bytes = 0;
  i64 total_bytes = 0;             // = prefill_peak_bytes
  Temporaries prefill, decode;
  i64 chunk = 0;                   // effective prefill chunk (tokens)
  // Phases (this GPU).
  i64 after_load_bytes = 0;        // weights + overhead
  i64 prefill_peak_bytes = 0;      // + KV of the full context + prefill temporaries
  i64 decode_bytes = 0;            // + KV of the full context + decode temporaries
  i64 stage = 0, stage_layers = 0;
  // Fit on the workload's GPU.
  i64 capacity_bytes = 0;          // usable per GPU (× gpu_mem_util under vLLM)
  bool fits = false;
  i64 max_context = 0;             // largest context that fits at this batch (0: none)
  bool max_context_is_model_limit = false;  // reached max_position_embeddings
  i64 max_sequences = 0;           // concurrent sequences at this context (chunked prefill of one)
  i64 min_gpus = 0;                // ideal split of weights and KV; 0 = never fits
  WeightsReport weights;           // whole model, per tensor
};

// Where the layers sit: pipeline stage `stage` of `pp` holds layers [first, first + count).
// The first (L mod pp) stages take one extra layer.
struct StageRange {
  i64 first = 0;
  i64 count = 0;
};
StageRange stage_range(i64 n_layers, i64 pp, i64 stage);

Result<InferenceMemory> inference_memory(const ModelConfig& cfg, const Inventory& inv, const Workload& w,
                                         const Gpu& gpu);

}  // namespace llmsize::core

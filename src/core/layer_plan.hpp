// The per-layer plan of a model: for every layer, what its attention keeps in memory (its
// cache kind, how many tokens, the K and V heads and head dims one GPU holds, the bytes one
// token adds at the KV dtype) and its FFN kind. Built once per estimate from the config; every
// figure that depends on layers reads it (KV per token and per context, the window cap,
// temporaries, throughput, explanations, the UI's per-layer table, the reference block's KV
// cache). Nothing else multiplies a per-layer figure by the layer count.
// Adding a layer kind: one AttnKind value, one case in layer_plan() that fills its cache shape,
// one case in tokens_kept() if it caps differently, one name in kAttnKindNames.
#pragma once
#include <vector>

#include "placement.hpp"
#include "workload.hpp"

namespace llmsize::core {

enum class AttnKind : std::uint8_t {
  Full,       // K and V of every past token
  Sliding,    // K and V of the last W tokens (a ring of W slots)
  MlaLatent,  // one compressed latent + rope key per token (DeepSeek MLA)
  Linear,     // no per-token cache: a fixed recurrent state per sequence (Gated DeltaNet)
  MlaIndexer, // the MLA latent plus the lightning indexer's key per token (DeepSeek-V3.2)
  Chunked,    // K and V of the current chunk of W tokens (Llama 4 attention_chunk_size): at most W
  Mamba,      // no per-token cache: a Mamba-2 conv + SSM state per sequence (Nemotron-H)
  None,       // no mixer at all: an MLP block of a block-pattern model
  Conv,       // no per-token cache: the last inputs of a short convolution per sequence (LFM2)
  Mamba1,     // no per-token cache: a Mamba-1 conv + SSM state per sequence (Jamba)
  FullMamba,  // K and V of every past token, and beside them a Mamba-2 state per sequence (Falcon-H1)
  Shared,     // no cache of its own: attends over an earlier layer's K and V (Gemma 4 num_kv_shared_layers)
};
inline constexpr std::string_view kAttnKindNames[] = {"full", "sliding", "mla latent", "linear", "mla + indexer",
                                                      "chunked", "mamba", "none", "conv", "mamba1",
                                                      "full + mamba", "shared"};
static_assert(std::size(kAttnKindNames) == static_cast<size_t>(AttnKind::Shared) + 1);
// Kinds that keep no per-token cache.
inline bool is_stateful(AttnKind k) {
  return k == AttnKind::Linear || k == AttnKind::Mamba || k == AttnKind::Conv || k == AttnKind::Mamba1;
}
// Kinds whose layers keep a recurrent state per sequence (with or without a per-token cache).
inline bool has_state(AttnKind k) { return is_stateful(k) || k == AttnKind::FullMamba; }
inline bool keeps_tokens(AttnKind k) { return !is_stateful(k) && k != AttnKind::None && k != AttnKind::Shared; }
// Kinds whose layers run softmax attention over a per-token cache (their own or, Shared, another's).
inline bool attends(AttnKind k) { return keeps_tokens(k) || k == AttnKind::Shared; }
inline bool is_mla(AttnKind k) { return k == AttnKind::MlaLatent || k == AttnKind::MlaIndexer; }
enum class FfnPlan : std::uint8_t { Dense, Moe, None };

// One distinct cache shape; layers that share it point at one row.
struct CacheShape {
  AttnKind kind = AttnKind::Full;
  i64 window = 0;      // tokens kept per sequence (Sliding); 0 = every token
  i64 heads = 0;       // K/V heads of the model (MLA: 1 latent "head")
  i64 heads_gpu = 0;   // held by one GPU under the plan's tensor parallel degree
  i64 k_dim = 0;       // values per head cached as keys (MLA: kv_lora + rope)
  i64 v_dim = 0;       // values per head cached as values (MLA: 0, the latent serves both)
  i64 bytes_per_token = 0;      // one layer, one token, whole model (tp = 1), KV dtype
  i64 bytes_per_token_gpu = 0;  // one layer, one token, one GPU
  // Linear: heads are value heads, k_dim × v_dim the state of one head; the state of one layer
  // and one sequence (convolution + recurrent), constant in context; whole model and one GPU.
  i64 state_bytes = 0;
  i64 state_bytes_gpu = 0;
  // MlaIndexer: the indexer's key cache, one layer, one token (every GPU holds it whole).
  i64 index_bytes_per_token = 0;
  i64 layers = 0;               // layers of the model with this shape
  // A TurboQuant cache's boundary layers (vLLM's kv_cache_dtype_skip_layers): kept in the model dtype.
  bool unquantized = false;
  bool operator==(const CacheShape&) const = default;

  // Tokens this cache holds per sequence at a given context: the one home of the window cap.
  i64 tokens_kept(i64 context) const;
};

struct PlannedLayer {
  int cache = 0;  // index into LayerPlan::caches
  FfnPlan ffn = FfnPlan::Dense;
};

struct LayerPlan {
  KvDtype kv_dtype = KvDtype::BF16;
  i64 tp = 1;
  std::vector<PlannedLayer> layers;  // one per model layer (MTP layers excluded)
  std::vector<CacheShape> caches;    // distinct shapes, in order of first appearance

  const CacheShape& cache_of(i64 layer) const { return caches[static_cast<size_t>(layers[static_cast<size_t>(layer)].cache)]; }
  bool is_moe(i64 layer) const { return layers[static_cast<size_t>(layer)].ffn == FfnPlan::Moe; }
  i64 window(i64 layer) const { return cache_of(layer).window; }

  // Layers of `r` with cache shape `c` / with an MoE FFN (prefix counts, O(1)).
  i64 layers_in(size_t c, StageRange r) const;
  i64 moe_in(StageRange r) const;
  i64 dense_in(StageRange r) const;  // layers with a dense FFN
  StageRange all() const { return {0, static_cast<i64>(layers.size())}; }

  // KV bytes one token adds over the layers of `r` (no window cap): per GPU, or whole model.
  i64 kv_bytes_per_token_gpu(StageRange r) const;
  i64 kv_bytes_per_token() const;
  // KV bytes of `batch` sequences of `context` tokens over the layers of `r`, each capped by its
  // window; per GPU, or for the whole model (tp = 1). Checked: invalid on overflow.
  Checked kv_cache_bytes_gpu(StageRange r, i64 context, i64 batch) const;
  Checked kv_cache_bytes(i64 context, i64 batch) const;

  // The indexer's key cache (DeepSeek-V3.2): bytes one token adds over all layers, and the cache
  // of `batch` sequences of `context` tokens over the layers of `r` on one GPU.
  i64 indexer_bytes_per_token() const;
  Checked indexer_cache_bytes_gpu(StageRange r, i64 context, i64 batch) const;
  // Recurrent state of one sequence: whole model, or per GPU over the layers of `r`.
  i64 state_bytes_per_sequence() const;
  i64 state_bytes_gpu(StageRange r) const;

  // Prefix counts behind layers_in()/moe_in(): cache_prefix[c·(L + 1) + l] = layers before l
  // with cache shape c; moe_prefix[l] = MoE layers before l.
  std::vector<i64> cache_prefix;
  std::vector<i64> moe_prefix;
  std::vector<i64> dense_prefix;
};

// Bytes of `values` contiguous elements in a KV dtype (q8_0/q4_0 round up to 32-value blocks
// of 34/18 bytes, as ggml rows). nullopt on overflow.
std::optional<i64> kv_row_bytes(KvDtype t, i64 values);
// One head's packed K‖V slot of a TurboQuant cache (vLLM TurboQuantConfig.slot_size_aligned), in
// bytes a token; nullopt for other dtypes.
std::optional<i64> turboquant_slot_bytes(KvDtype t, i64 head_dim);
// KV heads held by one GPU under tensor parallel: K/tp, or 1 (replicated) when tp > K.
i64 kv_heads_per_gpu(i64 kv_heads, i64 tp);

// The plan of `cfg` with caches at dtype `t`, heads split over `tp` GPUs and activations of
// `act_bytes` bytes (the dtype a linear layer's convolution state is kept in). Fails (Issue
// naming the field) only on overflow or tp < 1.
Result<LayerPlan> layer_plan(const ModelConfig& cfg, KvDtype t, i64 tp = 1, i64 act_bytes = 2);

std::string_view to_string(AttnKind k);  // "full", "sliding", "mla latent", "linear"

}  // namespace llmsize::core

// Tiny versions of real configs for the reference decoder's tests: every structural flag of
// the family kept (fused projections, biases, norm kinds and placement, parallel blocks,
// partial rotary, ALiBi, windows, MoE routing and shared experts, MLA ranks), every width
// made small enough to run the naive reference in milliseconds.
#pragma once
#include <algorithm>
#include <string>

#include "core/model.hpp"

namespace llmsize::test {

inline core::ModelConfig tiny(core::ModelConfig c) {
  using core::i64;
  const i64 H = c.n_heads, K = c.n_kv_heads, d = c.d_model;
  c.n_heads = 4;
  c.n_kv_heads = K == H ? 4 : K == 1 ? 1 : 2;
  c.head_dim = c.family == core::Family::Gemma || c.family == core::Family::Gemma2 ? 24 : 16;  // Gemma: H·hd ≠ d
  c.d_model = 64;
  c.d_ff = 96;
  c.vocab = 101;
  c.max_positions = 64;
  c.embed_proj_dim = c.embed_proj_dim > 0 && c.embed_proj_dim != d ? 48 : 0;  // OPT-350m: project_in/out
  if (c.sliding_window > 0) c.sliding_window = 5;
  // Llama 4: of the two layers, a chunked one with RoPE and a full NoPE one whose temperature rises
  // within a test's positions (floor_scale 4 instead of 8192).
  if (c.window_chunked) c.sliding_pattern = std::min<i64>(c.sliding_pattern, 2);
  if (c.attn_floor_scale > 0) c.attn_floor_scale = 4;
  // Gemma 4: of the two layers, a sliding one and a full one with its own head size (24) and, under
  // attention_k_eq_v, its own KV heads (1) and no v_proj.
  if (c.global_head_dim > 0 || c.global_kv_heads > 0 || c.k_eq_v) {
    c.sliding_pattern = 2;
    if (c.global_head_dim > 0) c.global_head_dim = 24;
    if (c.global_kv_heads > 0) c.global_kv_heads = 1;
  }
  c.mtp_layers = std::min<i64>(c.mtp_layers, 1);
  if (c.is_moe()) {
    auto& m = c.moe;
    m.num_experts = std::min<i64>(m.num_experts, 6);
    m.top_k = std::min<i64>(m.top_k, 2);
    m.expert_ffn = 32;
    if (m.shared_ffn > 0) m.shared_ffn = 48;
    m.first_dense = std::min<i64>(m.first_dense, 1);
    m.dense_layers.clear();
    c.n_layers = m.first_dense + 2;
    m.freq = std::min<i64>(m.freq, 2);
    m.phase = std::min(m.phase, m.freq - 1);
  } else {
    c.n_layers = 2;
  }
  if (c.ple_dim > 0) {  // Gemma 4's per-layer inputs: 8 per layer, a table row per token
    c.ple_dim = 8;
    c.ple_vocab = c.vocab;
  }
  if (c.kv_shared > 0) {  // Gemma 4: sliding, full, then a shared sliding layer and a shared full one
    c.n_layers = 4;
    c.kv_shared = 2;
  }
  if (c.per_layer()) {  // NAS: attention (K heads) and a wide FFN; an FFN alone (no_op attention); attention of one KV head alone
    c.n_layers = 3;
    c.layer_kv_heads = {c.n_kv_heads, 0, 1};
    c.layer_ffn = {96, 48, 0};
  }
  if (!c.block_pattern.empty()) {  // Nemotron-H, LFM2: one layer of each block kind, in the model's order
    std::string kinds;
    for (char ch : c.block_pattern)
      if (kinds.find(ch) == std::string::npos) kinds += ch;
    c.block_pattern = kinds;
    c.n_layers = static_cast<i64>(kinds.size());
  }
  if (c.mamba.enabled()) {  // Mamba-2: two groups of two heads; 4-token chunks, so a prefill crosses chunks
    auto& m = c.mamba;
    m.heads = 4;
    m.head_dim = 8;
    m.state = 6;
    m.groups = 2;
    m.chunk = 4;
  }
  if (c.mamba1.enabled()) {  // Mamba-1 (Jamba): d_inner 2·64, a 6-value state per channel, dt rank 8
    c.mamba1.expand = 2;
    c.mamba1.state = 6;
    c.mamba1.dt_rank = 8;
  }
  if (c.linear.enabled()) {  // Gated DeltaNet: layer 0 linear, layer 1 full attention; v_dim ≠ k_dim
    auto& a = c.linear;
    const i64 ratio = std::min<i64>(a.v_heads / a.k_heads, 3);
    a.full_interval = 2;
    a.k_heads = 2;
    a.v_heads = 2 * ratio;
    a.k_dim = 16;
    a.v_dim = 12;
  }
  if (c.mla.enabled) {
    auto& m = c.mla;
    m.q_lora_rank = m.q_lora_rank > 0 ? 48 : 0;
    m.kv_lora_rank = 32;
    m.qk_nope_dim = 16;
    m.qk_rope_dim = 8;
    m.v_head_dim = 16;
    if (m.has_indexer()) {  // DeepSeek-V3.2: four indexer heads of 16; 5 keys per query, fewer than a test's positions
      m.index_heads = 4;
      m.index_dim = 16;
      m.index_topk = 5;
    }
    c.n_kv_heads = c.n_heads;
  }
  return c;
}

}  // namespace llmsize::test

// Temporaries of one layer in inference (see temporaries.hpp).
#include "temporaries.hpp"

#include <algorithm>

namespace llmsize::core {

Result<Temporaries> layer_temporaries(const ModelConfig& c, const CacheShape& cache, const TempParams& p,
                                      bool moe_layer) {
  const i64 e = p.dtype_bytes, d = c.d_model, tp = std::max<i64>(1, p.tp);
  const i64 H = ceil_div(c.n_heads, tp);
  const Checked tokens = Checked(p.batch) * p.chunk;  // b·c
  const Checked hidden = tokens * d * e;              // x or normed x: b·c·d
  Checked q, kv, out;
  Checked attention;
  // ref: vLLM mamba_mixer2.py MambaMixer2 and mamba_chunk_scan_combined: in_proj's z‖xBC‖dt, the
  // convolution's x‖B‖C, the chunk states (b·⌈c/chunk⌉·heads·head_dim·state, fp32) and y; decode
  // (c = 1) updates the state in place.
  Checked mamba2;
  if (cache.kind == AttnKind::Mamba || cache.kind == AttnKind::FullMamba) {
    const auto& m = c.mamba;
    const i64 di = ceil_div(m.d_inner(), tp), conv = ceil_div(m.conv_dim(), tp), nh = ceil_div(m.heads, tp);
    const Checked chunks = p.chunk > 1 ? Checked(p.batch) * ceil_div(p.chunk, m.chunk) * nh * m.head_dim * m.state * 4
                                       : Checked();
    mamba2 = tokens * (di + conv + nh) * e + tokens * conv * e + chunks + tokens * di * e;
  }
  if (cache.kind == AttnKind::None) {
    attention = Checked();  // an MLP block: no mixer
  } else if (cache.kind == AttnKind::Conv) {
    // ref: modeling_lfm2.py Lfm2ShortConv: in_proj's B‖C‖x (3·d), B·x, the convolution's output
    // and C·conv (d each).
    const i64 dt = ceil_div(d, tp);
    attention = hidden * 2 + tokens * dt * 3 * e + tokens * dt * 3 * e;
  } else if (cache.kind == AttnKind::Mamba) {
    attention = hidden * 2 + mamba2;
  } else if (cache.kind == AttnKind::Mamba1) {
    // ref: modeling_jamba.py JambaMambaMixer.cuda_kernels_forward: in_proj's x‖z (2·d_inner), the
    // convolution's output, x_proj's dt‖B‖C, dt_proj's d_inner time steps and the scan's output;
    // selective_scan_fn keeps the state in registers, and decode updates it in place.
    const auto& m = c.mamba1;
    const i64 di = ceil_div(c.mamba1_inner(), tp);
    attention = hidden * 2 + tokens * (2 * di + di + (m.dt_rank + 2 * m.state) + di + di) * e;
  } else if (cache.kind == AttnKind::Linear) {
    // ref: vLLM qwen3_next.py Qwen3NextGatedDeltaNet and fla chunk_gated_delta_rule_fwd: the
    // projections q‖k‖v‖z and b‖a, the convolution's output q‖k‖v, then per 64-token chunk the
    // fp32 intra-chunk matrices A (b·c·Hv·64) and the chunk states h (b·⌈c/64⌉·Hv·dk·dv), the
    // new values v' and the output o (b·c·value_dim each). Decode (c = 1) runs the recurrent
    // kernel: no chunk states.
    const auto& a = c.linear;
    const i64 Hv = ceil_div(a.v_heads, tp), kd = ceil_div(a.key_dim(), tp), vd = ceil_div(a.value_dim(), tp);
    const Checked proj = tokens * (2 * kd + 2 * vd + 2 * Hv) * e;
    const Checked conv = tokens * (2 * kd + vd) * e;
    const Checked chunks = p.chunk > 1 ? Checked(p.batch) * ceil_div(p.chunk, 64) * Hv * a.k_dim * a.v_dim * e +
                                             tokens * Hv * 64 * 4
                                       : Checked();
    attention = hidden * 2 + proj + conv + chunks + tokens * vd * e * 2;
  } else if (c.mla.enabled) {
    const auto& m = c.mla;
    q = tokens * H * (m.qk_nope_dim + m.qk_rope_dim) * e;
    // latent c_KV + rope key, then k (nope+rope) and v expanded per head for the chunk
    kv = tokens * (m.kv_lora_rank + m.qk_rope_dim) * e + tokens * H * (m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim) * e;
    out = tokens * H * m.v_head_dim * e;
    if (m.has_indexer())  // ref: vLLM sparse-attention indexer: q (H_I · d_I), fp32 logits per key, top-k indices
      kv += tokens * m.index_heads * m.index_dim * e + tokens * p.context * 4 + tokens * std::min(p.context, m.index_topk) * 4;
  } else {
    // This layer's head size (Gemma 4's full layers differ); a shared layer computes no k or v.
    q = tokens * H * cache.k_dim * e * (c.attn_out_gate ? 2 : 1);  // Qwen3-Next: q and its gate
    if (cache.kind != AttnKind::Shared)
      kv = tokens * kv_heads_per_gpu(cache.heads, tp) * (cache.k_dim + cache.v_dim) * e;  // this chunk's k and v
    out = tokens * H * cache.v_dim * e;
  }
  // Eager attention materializes scores S and probabilities P, b·H·c·T each.
  const Checked scores = tokens * H * p.context * e * 2;
  Temporaries t;
  if (attends(cache.kind)) attention = hidden * 2 + q + kv + (p.flash ? out : scores);
  if (cache.kind == AttnKind::FullMamba) {
    // Falcon-H1 (ref: vLLM falcon_h1.py FalconH1ParallelHybrid.forward): attention, then the Mamba-2
    // mixer, each on its own copy of the normed input times its multiplier (b·c·d); the attention's
    // output stays alive while the mixer runs. The larger branch is the peak.
    const Checked attn_branch = attention + hidden, mamba_branch = hidden * 4 + mamba2;
    attention = !attn_branch.ok() || !mamba_branch.ok() ? attn_branch + mamba_branch
                : attn_branch.value() >= mamba_branch.value() ? attn_branch : mamba_branch;
  }
  const i64 width_mult = c.ffn_kind == FfnKind::Gated ? 3 : 2;  // gate, up, act·up | up, act
  Checked ffn;
  if (!moe_layer) {
    ffn = hidden * 2 + tokens * ceil_div(c.widest_ffn(), tp) * width_mult * e;  // NAS models: the widest layer's
  } else {
    const auto& m = c.moe;
    const i64 fe = p.ep > 1 ? m.expert_ffn : ceil_div(m.expert_ffn, tp);
    // ref: vLLM fused_moe: intermediate caches [T, k, 2·f_e], [T·k, f_e], [T, k, d]
    const Checked routed = tokens * m.top_k * (Checked(fe) * width_mult + d) * e;
    const Checked shared = tokens * ceil_div(m.shared_ffn, tp) * width_mult * e;
    const Checked router = tokens * m.num_experts * 4;  // fp32 router logits
    // Routed and shared experts run one after the other: the larger set is the peak.
    const Checked larger = !routed.ok() || !shared.ok() ? routed + shared : routed.value() >= shared.value() ? routed : shared;
    ffn = hidden * 2 + router + larger;
    // Gemma 4 (MoeConfig::dense_beside): the dense branch's output waits beside the experts' sum.
    if (m.dense_beside) ffn += hidden;
  }
  const Checked logits = Checked(p.batch) * p.logits_positions * d * e + Checked(p.batch) * p.logits_positions * c.vocab * 4;
  if (!attention.ok() || !ffn.ok() || !logits.ok()) return memory_overflow();
  t.attention = attention.value();
  t.ffn = ffn.value();
  t.logits = logits.value();
  t.peak = std::max({t.attention, t.ffn, t.logits});
  return t;
}

}  // namespace llmsize::core

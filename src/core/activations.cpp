// Activations one layer keeps for backward (see activations.hpp).
#include "activations.hpp"

#include <algorithm>

#include "layer_plan.hpp"
#include "model_states.hpp"

namespace llmsize::core {

Result<LayerActivations> layer_activations(const ModelConfig& c, const ActParams& p, bool moe_layer,
                                           bool linear_layer) {
  const i64 t = std::max<i64>(1, p.tp), e = p.dtype_bytes;
  const Checked sb = Checked(p.seq) * p.micro_batch;
  const Checked sbh = sb * c.d_model;
  // Replicated across tensor parallel unless sequence parallel splits them along s.
  auto rep = [&](Checked v) { return !p.seq_parallel || !v.ok() ? v : Checked(ceil_div(v.value(), t)); };
  const i64 Ht = ceil_div(c.n_heads, t);
  LayerActivations a;
  Checked total;
  auto set = [&](i64& field, Checked v) {
    field = v.value();
    total += v;
  };
  if (p.recompute == Recompute::Full) {
    // ref: Korthikanti et al. 2022 §4.3: full recomputation keeps the layer input, 2sbh.
    set(a.layer_input, rep(sbh * e));
  } else {
    const bool selective = p.recompute == Recompute::Selective;
    // parallel blocks: one input x; OLMo-2 (no pre norms): its post norms are the sandwich norms below
    const i64 n_norm_inputs = !c.norm_pre ? 0 : c.parallel_block || !c.norm_ffn_input ? 1 : 2;
    set(a.norm_inputs, rep(sbh * e * n_norm_inputs));
    set(a.attn_input, rep(sbh * e));
    if (linear_layer) {
      // ref: fla ChunkGatedDeltaRuleFunction.forward saves q, k, v, g, beta and the fp32
      // intra-chunk matrix A (64 per token and head); around it autograd keeps the conv1d input
      // q‖k‖v and its output, z, b and a, the l2-normed q and k, and the gated norm's input o;
      // the gated norm's output is the input of out_proj.
      const auto& la = c.linear;
      const i64 kd = ceil_div(la.key_dim(), t), vd = ceil_div(la.value_dim(), t), Hv = ceil_div(la.v_heads, t);
      const i64 conv = 2 * kd + vd;
      set(a.linear_attn, sb * (conv * 2 + vd + 2 * Hv + 2 * kd + vd) * e + sb * Hv * (2 + 64) * 4);
      set(a.attn_out_input, sb * vd * e);
    } else if (c.mla.enabled) {
      const auto& m = c.mla;
      set(a.qk, sb * Ht * 2 * (m.qk_nope_dim + m.qk_rope_dim) * e);  // q and k expanded per head
      set(a.v, sb * Ht * m.v_head_dim * e);
      // + the lightning indexer's q, k and head weights (DeepSeek-V3.2)
      set(a.mla_latent, rep(sb * (2 * m.q_lora_rank + (m.kv_lora_rank + m.qk_rope_dim) + m.kv_lora_rank) * e) +
                            sb * (m.index_heads * m.index_dim + m.index_dim + m.index_heads) * e);
      set(a.attn_out_input, sb * Ht * m.v_head_dim * e);
    } else {
      const i64 Kt = kv_heads_per_gpu(c.n_kv_heads, t);
      set(a.qk, sb * (Ht * (c.attn_out_gate ? 2 : 1) + Kt) * c.head_dim * e);  // Qwen3-Next: + output gate
      set(a.v, sb * Kt * c.head_dim * e);
      if (c.norm_qk) set(a.qk_norm, sb * (Ht + Kt) * c.head_dim * e);
      set(a.attn_out_input, sb * Ht * c.head_dim * e);
    }
    if (linear_layer) {
      // no softmax: nothing of b·H·s² or its statistics
    } else if (p.flash) {
      set(a.softmax_stats, sb * Ht * 4);  // fp32 logsumexp per head and query
    } else if (!selective) {
      // ref: Korthikanti §4.1: softmax output 2as²b; dropout mask as²b and output 2as²b.
      const Checked s2 = Checked(p.micro_batch) * Ht * p.seq * p.seq;
      set(a.scores, s2 * e);
      if (p.dropout) set(a.attn_dropout, s2 * (1 + e));
    }
    const bool shared_norm = c.parallel_block && !c.norm_ffn_input;
    if (!shared_norm) set(a.ffn_input, rep(sbh * e));
    // ref: Korthikanti §4.1: GeLU input and output, 8sbh each for f = 4h; gated FFNs keep
    // gate‖up and the product (Megatron's fused SwiGLU recomputes silu).
    const i64 mult = c.ffn_kind == FfnKind::Gated ? 3 : 2;
    if (!moe_layer) {
      set(a.ffn_hidden, sb * ceil_div(c.d_ff, t) * mult * e);
    } else {
      const auto& m = c.moe;
      const i64 fe = p.ep > 1 ? m.expert_ffn : ceil_div(m.expert_ffn, t);
      set(a.ffn_hidden, sb * m.top_k * fe * mult * e + sb * ceil_div(m.shared_ffn, t) * mult * e);
      // The fp32 router probabilities; each routed entry's dispatched input (its experts' weight
      // gradients) and its expert's output, kept by the weighted combine for the router's gradient
      // (ref: Megatron-LM moe_utils.py unpermute, permuted_tokens * permuted_probs; HF modeling_mixtral.py
      // MixtralSparseMoeBlock, expert_layer(current_state) * routing_weights); with Qwen2-MoE's shared
      // gate, sigmoid(x·w_g) and the shared output it scales (modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock).
      const Checked gate = m.shared_gate && m.shared_ffn > 0 ? sb * (c.d_model + 1) * e : Checked(0);
      set(a.moe_routing, rep(sb * m.num_experts * 4) + sb * m.top_k * c.d_model * e * 2 + gate);
    }
    if (p.dropout) set(a.dropout_masks, rep(sbh * 2));  // 1-byte masks after attention and FFN
    if (c.norm_sandwich) set(a.sandwich_norms, rep(sbh * e * 2));
    if (p.lora_rank > 0) {
      // x·A (b·s·r) per adapted matrix; tokens pass top_k routed experts.
      i64 mats = 0;
      auto count = [&](Role r, i64 times) { mats += lora_targets_role(p.lora_targets, r) ? times : 0; };
      if (c.mla.enabled) {
        if (c.mla.q_lora_rank > 0) { count(Role::MlaQA, 1); count(Role::MlaQB, 1); }
        else count(Role::AttnQ, 1);
        count(Role::MlaKVA, 1);
        count(Role::MlaKVB, 1);
      } else if (c.fused_qkv) {
        count(Role::AttnQKV, 1);
      } else {
        count(Role::AttnQ, 1); count(Role::AttnK, 1); count(Role::AttnV, 1);
      }
      count(Role::AttnO, 1);
      const i64 ffn_times = moe_layer ? c.moe.top_k + (c.moe.shared_ffn > 0 ? 1 : 0) : 1;
      if (c.ffn_kind == FfnKind::Gated) {
        if (c.fused_gate_up && !moe_layer) count(Role::FfnGateUp, 1);
        else { count(Role::FfnGate, ffn_times); count(Role::FfnUp, ffn_times); }
      } else {
        count(Role::FfnUp, ffn_times);
      }
      count(Role::FfnDown, ffn_times);
      set(a.lora, sb * p.lora_rank * mats * e);
    }
  }
  if (!total.ok()) return issue_row("seq", Str::issue_activations_overflow);
  a.total = total.value();
  return a;
}

Result<LayerActivations> layer_activations(const ModelConfig& c, const ActParams& p, Mixer mixer, bool has_ffn,
                                           bool moe_layer) {
  const bool one_block = !c.block_pattern.empty() && !c.block_ffn;  // Nemotron-H: a mixer or an MLP per layer
  const bool partial = c.per_layer() && (mixer == Mixer::None || !has_ffn);  // a NAS layer missing a block
  if (!one_block && !partial && mixer != Mixer::Mamba && mixer != Mixer::ShortConv && mixer != Mixer::Mamba1 &&
      mixer != Mixer::AttentionMamba)
    return layer_activations(c, p, moe_layer, mixer == Mixer::Linear);
  // Start from an attention + FFN layer and keep (or replace) the parts this layer has.
  auto base = layer_activations(c, p, moe_layer && has_ffn, false);
  if (!base) return base;
  LayerActivations a = *base;
  if (p.recompute == Recompute::Full) return a;  // the layer input alone, whatever the layer holds
  if (one_block) {
    a.norm_inputs /= 2;    // one norm, not two
    a.dropout_masks /= 2;  // one residual branch
    if (!has_ffn) a.ffn_input = a.ffn_hidden = a.moe_routing = 0;
  }
  if (partial) {  // ref: vLLM nemotron_nas.py DeciLMDecoderLayer: a no_op block has no norm and no residual branch
    const i64 blocks = (mixer == Mixer::None ? 0 : 1) + (has_ffn ? 1 : 0);
    a.norm_inputs = a.norm_inputs * blocks / 2;
    a.dropout_masks = a.dropout_masks * blocks / 2;
    if (!has_ffn) a.ffn_input = a.ffn_hidden = a.moe_routing = 0;
  }
  const bool attends = mixer == Mixer::Attention || mixer == Mixer::AttentionMamba;
  if (!attends)
    a.attn_input = a.qk = a.v = a.qk_norm = a.scores = a.attn_dropout = a.softmax_stats = a.attn_out_input = 0;
  if (!attends) a.lora = 0;  // adapters on the mixer's matrices are not modelled here
  if (mixer == Mixer::ShortConv) {
    // ref: modeling_lfm2.py Lfm2ShortConv (slow path): in_proj's B‖C‖x, B·x, the convolution's
    // output and C·conv, the input of out_proj.
    const i64 t = std::max<i64>(1, p.tp), e = p.dtype_bytes;
    const Checked sb = Checked(p.seq) * p.micro_batch;
    const i64 dt = ceil_div(c.d_model, t);
    const Checked x = sb * c.d_model * e;
    a.attn_input = (p.seq_parallel && x.ok() ? Checked(ceil_div(x.value(), t)) : x).value();
    a.linear_attn = (sb * dt * 5 * e).value();
    a.attn_out_input = (sb * dt * e).value();
  }
  if (mixer == Mixer::Mamba || mixer == Mixer::AttentionMamba) {
    // ref: mamba_ssm / vLLM mamba_chunk_scan_combined autograd keeps in_proj's output z‖xBC‖dt,
    // the convolution's output, y and the gated norm's output (the input of out_proj). Falcon-H1
    // keeps these beside the attention's tensors: both branches read the same normed input.
    const auto& m = c.mamba;
    const i64 t = std::max<i64>(1, p.tp), e = p.dtype_bytes;
    const Checked sb = Checked(p.seq) * p.micro_batch;
    const i64 di = ceil_div(m.d_inner(), t);
    const Checked x = sb * c.d_model * e;
    if (mixer == Mixer::Mamba) a.attn_input = (p.seq_parallel && x.ok() ? Checked(ceil_div(x.value(), t)) : x).value();
    a.linear_attn = (sb * (ceil_div(m.in_proj(), t) + ceil_div(m.conv_dim(), t) + di) * e).value();
    a.attn_out_input = (Checked(mixer == Mixer::Mamba ? 0 : a.attn_out_input) + sb * di * e).value();
  }
  if (mixer == Mixer::Mamba1) {
    // ref: mamba_ssm MambaInnerFn (the fused path of JambaMambaMixer) saves in_proj's x‖z, the
    // convolution's output, x_proj's dt‖B‖C, the expanded dt, and the scan's output before out_proj.
    const auto& m = c.mamba1;
    const i64 t = std::max<i64>(1, p.tp), e = p.dtype_bytes;
    const Checked sb = Checked(p.seq) * p.micro_batch;
    const i64 di = ceil_div(c.mamba1_inner(), t);
    const Checked x = sb * c.d_model * e;
    a.attn_input = (p.seq_parallel && x.ok() ? Checked(ceil_div(x.value(), t)) : x).value();
    a.linear_attn = (sb * (2 * di + di + m.dt_rank + 2 * m.state + di) * e).value();
    a.attn_out_input = (sb * di * e).value();
  }
  Checked total = Checked(a.layer_input) + a.norm_inputs + a.attn_input + a.qk + a.v + a.qk_norm + a.mla_latent +
                  a.linear_attn + a.scores + a.attn_dropout + a.softmax_stats + a.attn_out_input + a.ffn_input +
                  a.ffn_hidden + a.moe_routing + a.dropout_masks + a.sandwich_norms + a.lora;
  if (!total.ok()) return issue_row("seq", Str::issue_activations_overflow);
  a.total = total.value();
  return a;
}

i64 recompute_rebuilt_bytes(const LayerActivations& none, const LayerActivations& full) {
  return std::max<i64>(0, none.total - full.layer_input);
}

}  // namespace llmsize::core

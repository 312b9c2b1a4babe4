// Role binding of a decoder's weights (see bind.hpp). Order facts used, from
// core/inventory.cpp's add_layer: the layer's own norms come first (attention input, FFN
// input when present, then the two sandwich norms); every bias directly follows its weight
// (`of` names it); MLA's q_a/kv_a norms directly follow q_a/kv_a; per-head q/k norms follow
// the q/k/v projections; routed expert tensors are `routed`, shared ones follow the router.
#include "bind.hpp"

namespace llmsize::ref {

namespace {

using core::Issue;
using core::Role;

bool is_bias_name(const std::string& s) { return s.size() >= 5 && s.compare(s.size() - 5, 5, ".bias") == 0; }

Issue unexpected(const WeightTensor& w, core::Str why) {
  return core::issue_row("model_type", core::Str::ref_bind, core::tensor_name(w.spec.name, w.layer), why);
}

void set(Lin& l, const WeightTensor& w) {
  l.w = w.buf.data();
  l.din = w.spec.rows;
  l.dout = w.spec.cols;
  l.copies = w.spec.copies;
}

struct LayerBinder {
  const core::ModelConfig& c;
  LayerW& L;
  Lin* last_lin = nullptr;
  Role last_role = Role::Bias;
  NormW* last_norm = nullptr;
  bool attn_started = false, router_seen = false;
  int own_norms = 0, qk_norms = 0;

  NormW* next_norm() {
    if (L.single && !attn_started) return own_norms++ == 0 ? &L.attn_norm : nullptr;  // NemotronHBlock.norm
    if (c.per_layer() && (L.no_attn || attn_started))  // DeciLM: the FFN's norm follows the attention's tensors
      return L.ffn_norm.w || L.no_ffn ? nullptr : &L.ffn_norm;
    if (c.per_layer()) return L.attn_norm.w ? nullptr : &L.attn_norm;
    if (!attn_started) {
      NormW* slots[4] = {nullptr, nullptr, nullptr, nullptr};
      int n = 0;
      if (c.norm_pre) slots[n++] = &L.attn_norm;  // OLMo-2 has only the post norms
      if (c.norm_pre && c.norm_ffn_input) slots[n++] = &L.ffn_norm;
      if (c.norm_sandwich) slots[n++] = &L.post_attn_norm, slots[n++] = &L.post_ffn_norm;
      return own_norms < n ? slots[own_norms++] : nullptr;
    }
    if (last_role == Role::EmbedProj) return L.ple_norm.w ? nullptr : &L.ple_norm;  // Gemma 4: post_per_layer_input_norm
    if (c.moe.dense_beside && router_seen)  // Gemma 4: pre_feedforward_layernorm_2, post_feedforward_layernorm_1, _2
      return !L.ffn_norm2.w ? &L.ffn_norm2 : !L.post_ffn_norm1.w ? &L.post_ffn_norm1 : !L.post_ffn_norm2.w ? &L.post_ffn_norm2 : nullptr;
    if (L.linear || L.mamba) return L.lin_norm.w ? nullptr : &L.lin_norm;  // the mixer's gated norm
    if (L.mamba1)  // JambaMambaMixer's dt_layernorm, b_layernorm, c_layernorm, in that order
      return !L.m1_dt_norm.w ? &L.m1_dt_norm : !L.m1_b_norm.w ? &L.m1_b_norm : !L.m1_c_norm.w ? &L.m1_c_norm : nullptr;
    if (last_role == Role::MlaQA) return &L.q_a_norm;
    if (last_role == Role::MlaKVA) return &L.kv_a_norm;
    if (last_role == Role::IdxK) return &L.idx_k_norm;  // the indexer's k_norm follows wk
    if (c.norm_qk && !c.mla.enabled && qk_norms < 2) return qk_norms++ == 0 ? &L.q_norm : &L.k_norm;
    return nullptr;
  }

  Lin* matrix(const core::Tensor& t) {
    switch (t.role) {
      case Role::AttnQ: return &L.q;
      case Role::AttnK: return &L.k;
      case Role::AttnV: return &L.v;
      case Role::AttnQKV: return &L.qkv;
      case Role::AttnO: return &L.o;
      case Role::MlaQA: return &L.q_a;
      case Role::MlaQB: return &L.q_b;
      case Role::MlaKVA: return &L.kv_a;
      case Role::MlaKVB: return &L.kv_b;
      case Role::IdxQ: return &L.idx_q;
      case Role::IdxK: return &L.idx_k;
      case Role::IdxWeights: return &L.idx_w;
      case Role::Router: router_seen = true; return &L.router;
      case Role::SharedGate: return &L.shared_gate;
      case Role::FfnGate: return t.routed ? &L.e_gate : router_seen ? &L.s_gate : &L.gate;
      case Role::FfnUp: return t.routed ? &L.e_up : router_seen ? &L.s_up : &L.up;
      case Role::FfnDown: return t.routed ? &L.e_down : router_seen ? &L.s_down : &L.down;
      case Role::FfnGateUp: return t.routed ? &L.e_gate_up : router_seen ? &L.s_gate_up : &L.gate_up;
      // Gated DeltaNet: the fused q‖k‖v‖z and b‖a (Qwen3-Next), or qkv, z, b, a in that order
      // (Qwen3.5); LFM2's short convolution: its in_proj B‖C‖x.
      case Role::LinQKVZ:
        if (L.short_conv) return &L.sc_in;
        return t.cols == 2 * c.linear.key_dim() + 2 * c.linear.value_dim() ? &L.lin_qkvz : L.lin_qkv ? &L.lin_z : &L.lin_qkv;
      case Role::LinBA: return t.cols == 2 * c.linear.v_heads ? &L.lin_ba : L.lin_b ? &L.lin_a : &L.lin_b;
      case Role::LinOut: return &L.lin_out;
      case Role::MambaIn: return L.mamba1 && L.mamba_in ? &L.m1_x : &L.mamba_in;  // Mamba-1: in_proj, then x_proj
      case Role::EmbedProj: return L.ple_gate ? &L.ple_proj : &L.ple_gate;  // Gemma 4: per_layer_input_gate, then per_layer_projection
      default: return nullptr;
    }
  }

  std::optional<Issue> take(const WeightTensor& w) {
    const core::Tensor& t = w.spec;
    const float* p = w.buf.data();
    if (t.role == Role::Norm) {
      if (is_bias_name(t.name)) {
        if (!last_norm || last_norm->b || last_norm->n != t.cols) return unexpected(w, core::Str::ref_bind_norm_bias);
        last_norm->b = p;
        return std::nullopt;
      }
      NormW* slot = next_norm();
      if (!slot || slot->w) return unexpected(w, core::Str::ref_bind_norm);
      slot->w = p;
      slot->n = t.cols;
      last_norm = slot;
      return std::nullopt;
    }
    if (t.role == Role::Bias && t.of != Role::LinConv) {
      if (!last_lin || t.of != last_role || last_lin->b || t.cols != last_lin->dout)
        return unexpected(w, core::Str::ref_bind_bias);
      last_lin->b = p;
      return std::nullopt;
    }
    if (t.role == Role::AttnSink) {  // ref: modeling_gpt_oss.py GptOssAttention.sinks, one per head
      if (L.sinks || t.numel() != c.n_heads) return unexpected(w, core::Str::ref_bind_sink);
      L.sinks = p;
      return std::nullopt;
    }
    if (t.role == Role::Bias && t.of == Role::LinConv) {  // Mamba-2's conv1d.bias
      const i64 want = L.mamba ? c.mamba.conv_dim() : L.mamba1 ? c.mamba1_inner() : c.d_model;
      if (!(L.mamba || L.mamba1 || L.short_conv) || !L.conv || L.conv_bias || t.numel() != want)
        return unexpected(w, core::Str::ref_bind_conv_bias);
      L.conv_bias = p;
      return std::nullopt;
    }
    if (t.role == Role::MambaD) {
      const i64 want = L.mamba1 ? c.mamba1_inner() : c.mamba.heads;  // Mamba-1: one per channel
      if (!(L.mamba || L.mamba1) || L.mamba_d || t.numel() != want) return unexpected(w, core::Str::ref_bind_d);
      L.mamba_d = p;
      return std::nullopt;
    }
    if (L.mamba1 && t.role == Role::LinDtBias) {  // Mamba-1's dt_proj: a matrix with its bias
      if (L.m1_dt || t.rows != c.mamba1.dt_rank || t.cols != c.mamba1_inner())
        return unexpected(w, core::Str::ref_bind_dt);
      set(L.m1_dt, w);
      last_lin = &L.m1_dt;
      last_role = t.role;
      attn_started = true;
      return std::nullopt;
    }
    if (t.role == Role::LinConv || t.role == Role::LinDtBias || t.role == Role::LinALog) {
      const float** slot = t.role == Role::LinConv ? &L.conv : t.role == Role::LinDtBias ? &L.dt_bias : &L.a_log;
      const i64 want = L.short_conv ? (t.role == Role::LinConv ? c.short_conv * c.d_model : -1)
                       : L.mamba    ? (t.role == Role::LinConv ? c.mamba.conv_kernel * c.mamba.conv_dim() : c.mamba.heads)
                       : L.mamba1   ? (t.role == Role::LinConv ? c.mamba1.conv_kernel * c.mamba1_inner()
                                                               : c.mamba1_inner() * c.mamba1.state)  // A_log
                                    : (t.role == Role::LinConv ? c.linear.conv_kernel * c.linear.conv_dim() : c.linear.v_heads);
      if (!(L.linear || L.mamba || L.mamba1 || L.short_conv) || *slot || t.numel() != want)
        return unexpected(w, core::Str::ref_bind_mixer);
      *slot = p;
      attn_started = true;
      return std::nullopt;
    }
    if (t.role == Role::RouterBias) {
      L.router_correction = p;
      return std::nullopt;
    }
    if (t.role == Role::RouterScale) {  // Gemma4TextRouter: scale (d), then per_expert_scale (E)
      const float** slot = !L.router_scale ? &L.router_scale : !L.expert_scale ? &L.expert_scale : nullptr;
      const i64 want = slot == &L.router_scale ? c.d_model : c.moe.num_experts;
      if (!slot || !c.moe.dense_beside || !router_seen || t.numel() != want) return unexpected(w, core::Str::ref_bind_role);
      *slot = p;
      return std::nullopt;
    }
    Lin* l = matrix(t);
    if (!l || l->w) return unexpected(w, core::Str::ref_bind_role);
    attn_started = true;
    set(*l, w);
    last_lin = l;
    last_role = t.role;
    return std::nullopt;
  }

  std::optional<Issue> check(const WeightTensor& any) const {
    const bool linear = ((L.lin_qkvz && L.lin_ba) || (L.lin_qkv && L.lin_z && L.lin_b && L.lin_a)) && L.conv &&
                        L.dt_bias && L.a_log && L.lin_norm && L.lin_out;
    const bool mamba = L.mamba_in && L.conv && L.dt_bias && L.a_log && L.mamba_d && L.lin_out &&
                       (L.lin_norm || !c.mamba.gated_norm) && (L.conv_bias || !c.mamba.conv_bias);
    if (L.single && (L.mamba || L.mlp_only)) {
      // An MLP block, or an MoE block (Nemotron 3's 'E': router, routed and shared experts).
      const bool mlp = L.moe ? L.router && (L.e_up || L.e_gate_up) && L.e_down : (L.up || L.gate_up) && L.down;
      const bool ok = L.mamba ? mamba : mlp;
      if (!ok || !L.attn_norm) return unexpected(any, L.mamba ? core::Str::ref_bind_no_mamba : core::Str::ref_bind_no_mlp);
      return std::nullopt;
    }
    const bool short_conv = L.sc_in && L.conv && L.lin_out && (L.conv_bias || !c.short_conv_bias);
    if (L.no_attn && L.no_ffn) return unexpected(any, core::Str::ref_bind_empty);
    if (L.no_attn) {  // a NAS layer: its FFN alone
      if (!((L.up || L.gate_up) && L.down && L.ffn_norm)) return unexpected(any, core::Str::ref_bind_no_ffn);
      return std::nullopt;
    }
    const bool mamba1 = L.mamba_in && L.m1_x && L.m1_dt && L.m1_dt.b && L.conv && L.a_log && L.mamba_d && L.lin_out &&
                        (L.conv_bias || !c.mamba1.conv_bias) &&
                        (!c.mamba1.inner_norms || (L.m1_dt_norm && L.m1_b_norm && L.m1_c_norm));
    const bool recurrent = L.linear || L.mamba || L.mamba1 || L.short_conv;  // mixers with out_proj, not o
    const bool attn = L.mamba1        ? mamba1
                      : L.short_conv  ? short_conv
                      : L.mamba       ? mamba && (!L.attn_mamba || ((L.qkv || (L.q && L.k && L.v)) && L.o))
                      : L.linear      ? linear
                      : c.mla.enabled ? (L.kv_a && L.kv_b && (L.q || (L.q_a && L.q_b)))
                                      : (L.qkv || (L.q && ((L.k && (L.v || L.k_is_v)) || c.kv_shared_at(L.index))));
    if (!attn || (!recurrent && !L.o) || (c.norm_pre && !L.attn_norm)) return unexpected(any, core::Str::ref_bind_no_attn);
    if (c.mla.has_indexer() && !(L.idx_q && L.idx_k && L.idx_w && L.idx_k_norm.w && L.idx_k_norm.b && L.q_a))
      return unexpected(any, core::Str::ref_bind_no_indexer);
    if (c.ple_dim > 0 && !(L.ple_gate && L.ple_proj && L.ple_norm))
      return unexpected(any, core::Str::ref_bind_no_ple);
    if (L.single || L.no_ffn) return std::nullopt;  // an attention block alone
    const bool ffn = L.moe ? (L.router && (L.e_up || L.e_gate_up) && L.e_down) : ((L.up || L.gate_up) && L.down);
    if (L.s_down && !(L.s_up || L.s_gate_up)) return unexpected(any, core::Str::ref_bind_shared);
    if (!ffn) return unexpected(any, core::Str::ref_bind_no_ffn);
    if (L.moe && c.moe.dense_beside &&
        !(L.s_down && L.router_scale && L.expert_scale && L.ffn_norm2 && L.post_ffn_norm1 && L.post_ffn_norm2))
      return unexpected(any, core::Str::ref_bind_shared);
    return std::nullopt;
  }
};

std::optional<Issue> bind_global(Decoder& dec, const WeightTensor& w, NormW*& last_norm) {
  GlobalW& g = dec.g;
  const float* p = w.buf.data();
  switch (w.spec.role) {
    case Role::Embed: g.embed = p; return std::nullopt;
    case Role::LayerEmbed: g.ple_embed = p; return std::nullopt;  // Gemma 4: embed_tokens_per_layer
    case Role::PosEmbed: g.pos = p; return std::nullopt;
    case Role::EmbedProj:
      if (w.spec.name.find("per_layer_model_projection") != std::string::npos) set(g.ple_proj, w);
      else set(g.proj_in ? g.proj_out : g.proj_in, w);
      return std::nullopt;
    case Role::LmHead: set(g.head, w); return std::nullopt;
    case Role::Bias: g.head_bias = p; return std::nullopt;
    case Role::Norm:
      if (is_bias_name(w.spec.name)) {
        if (!last_norm) return unexpected(w, core::Str::ref_bind_norm_bias);
        last_norm->b = p;
      } else {
        last_norm = w.spec.name.find("per_layer_projection_norm") != std::string::npos ? &g.ple_norm
                    : dec.cfg.norm_embed && !g.embed_norm                             ? &g.embed_norm
                                                                                      : &g.final_norm;
        if (last_norm->w) return unexpected(w, core::Str::ref_bind_third_norm);
        last_norm->w = p;
        last_norm->n = w.spec.cols;
      }
      return std::nullopt;
    default: return unexpected(w, core::Str::ref_bind_global_role);
  }
}

}  // namespace

std::optional<Issue> bind_weights(Decoder& dec, i64 first, i64 count) {
  const core::ModelConfig& c = dec.cfg;
  size_t i = 0;
  NormW* last_norm = nullptr;
  for (; i < dec.weights.size() && dec.weights[i].layer < 0; ++i)
    if (auto issue = bind_global(dec, dec.weights[i], last_norm)) return issue;
  if (dec.opt.globals && !dec.g.embed) return core::issue_row("vocab_size", core::Str::ref_no_embedding);
  dec.layers.assign(static_cast<size_t>(count), LayerW{});
  for (i64 k = 0; k < count; ++k) {
    LayerW& L = dec.layers[static_cast<size_t>(k)];
    L.index = first + k;
    L.moe = dec.plan.is_moe(L.index);
    L.window = dec.plan.window(L.index);
    L.chunked = dec.plan.cache_of(L.index).kind == core::AttnKind::Chunked;
    L.ple_slot = k;
    L.kv_heads = c.kv_heads_at(L.index);
    L.head_dim = c.head_dim_at(L.index);
    L.k_is_v = !c.v_proj_at(L.index);
    L.no_attn = c.per_layer() && L.kv_heads == 0;
    L.no_ffn = c.per_layer() && !c.layer_has_ffn(L.index);
    L.linear = dec.plan.cache_of(L.index).kind == core::AttnKind::Linear;
    L.single = !c.block_pattern.empty() && !c.block_ffn;
    L.attn_mamba = c.layer_mixer(L.index) == core::Mixer::AttentionMamba;
    L.mamba = c.layer_mixer(L.index) == core::Mixer::Mamba || L.attn_mamba;
    L.mlp_only = L.single && c.layer_mixer(L.index) == core::Mixer::None;
    L.short_conv = c.layer_mixer(L.index) == core::Mixer::ShortConv;
    L.mamba1 = c.layer_mixer(L.index) == core::Mixer::Mamba1;
    LayerBinder b{c, L};
    const size_t start = i;
    for (; i < dec.weights.size() && dec.weights[i].layer == L.index; ++i)
      if (auto issue = b.take(dec.weights[i])) return issue;
    if (i == start) return core::issue_row("num_hidden_layers", core::Str::ref_layer_no_tensors, std::to_string(L.index));
    if (c.kv_shared_at(L.index)) {
      // ref: modeling_gemma4.py Gemma4TextAttention: store_full_length_kv marks the last layer of each
      // kind before the first shared one; a shared layer reads shared_kv_states[its kind].
      i64 src = c.n_layers - c.kv_shared - 1;
      while (src >= 0 && c.layer_slides(src) != c.layer_slides(L.index)) --src;
      if (src < first)
        return core::issue_row("first_layer", core::Str::ref_layer_shared_kv, std::to_string(L.index), std::to_string(src));
      L.kv_from = src - first;
      if (L.window > 0) dec.layers[static_cast<size_t>(L.kv_from)].window_source = true;
    }
    if (auto issue = b.check(dec.weights[start])) return issue;
  }
  return std::nullopt;
}

}  // namespace llmsize::ref

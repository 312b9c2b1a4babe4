// Parameter report and the explained gap to 12·L·d² + v·d (see params.hpp).
#include "params.hpp"

#include <algorithm>
#include <cstdio>

#include "format.hpp"

namespace llmsize::core {

namespace {

// Sums of one layer's tensors by the cause they belong to in the gap explanation.
struct Parts {
  Checked attn_matrices, ffn_matrices, biases, norms, router, embed;
  Checked all, active;
};

Parts layer_parts(const LayerKind& k, i64 top_k) {
  Parts p;
  for (const Tensor& t : k.tensors) {
    const i64 one = t.numel_one();
    const Checked n = Checked(one) * t.copies;
    p.all += n;
    p.active += t.routed ? Checked(one) * top_k : n;
    if (t.role == Role::Norm) p.norms += n;
    else if (t.role == Role::Bias) p.biases += n;
    else if (t.group == Group::Router) p.router += n;
    else if (t.group == Group::Embedding) p.embed += n;  // Gemma 4's per-layer input gate and projection
    else if (t.group == Group::Attention) p.attn_matrices += n;
    else p.ffn_matrices += n;
  }
  return p;
}

std::string n(i64 v) { return with_commas(v); }

std::string ratio(i64 num, i64 den) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(num) / static_cast<double>(den));
  return buf;
}

std::string attention_why(const ModelConfig& c) {
  const i64 d = c.d_model, H = c.n_heads;
  if (c.mla.enabled) {
    const auto& m = c.mla;
    std::string q = m.q_lora_rank > 0 ? "q through a rank-" + n(m.q_lora_rank) + " bottleneck"
                                      : "q as d×H·(nope+rope) = " + n(d) + "×" + n(H * (m.qk_nope_dim + m.qk_rope_dim));
    return "multi-head latent attention: " + q + ", k and v through a rank-" + n(m.kv_lora_rank) +
           " latent (+" + n(m.qk_rope_dim) + " rope dims), o is H·v_hd×d = " + n(H * m.v_head_dim) +
           "×" + n(d) + ", instead of four d×d matrices per layer";
  }
  std::string s;
  const i64 K = c.n_kv_heads, hd = c.head_dim;
  if (K == 1) s = "multi-query attention (1 KV head for " + n(H) + " query heads): k and v are d×hd = " + n(d) + "×" + n(hd);
  else if (K < H) s = "grouped-query attention (" + n(K) + " KV heads for " + n(H) + " query heads): k and v are d×K·hd = " + n(d) + "×" + n(K * hd);
  if (H * hd != d) {
    if (!s.empty()) s += "; ";
    s += "H·hd = " + n(H) + "·" + n(hd) + " = " + n(H * hd) + " differs from d = " + n(d) +
         ", so q and o are " + n(d) + "×" + n(H * hd);
  }
  if (c.attn_out_gate) s += std::string(s.empty() ? "" : "; ") + "q_proj also yields the output gate (2·H·hd columns)";
  if (c.attn_sinks) s += std::string(s.empty() ? "" : "; ") + "one sink logit per head";
  if (c.linear.enabled()) {
    const auto& a = c.linear;
    i64 lin = 0;
    for (i64 l = 0; l < c.n_layers; ++l) lin += c.layer_is_linear(l) ? 1 : 0;
    s += std::string(s.empty() ? "" : "; ") + n(lin) + " of " + n(c.n_layers) +
         " layers are Gated DeltaNet linear attention: q‖k‖v‖z projections d×" + n(2 * a.key_dim() + 2 * a.value_dim()) +
         ", b‖a projections d×" + n(2 * a.v_heads) + ", out_proj " + n(a.value_dim()) + "×d, a width-" + n(a.conv_kernel) +
         " convolution over " + n(a.conv_dim()) + " channels";
  }
  if (!c.block_pattern.empty()) {
    i64 mamba = 0, conv = 0, attn = 0, mamba1 = 0, beside = 0;
    for (char b : c.block_pattern) {
      mamba += b == 'M' ? 1 : 0;
      conv += b == 'C' ? 1 : 0;
      attn += b == '*' ? 1 : 0;
      mamba1 += b == 'S' ? 1 : 0;
      beside += b == 'P' ? 1 : 0;
    }
    const auto& m = c.mamba;
    std::string kinds;
    if (mamba > 0)
      kinds += n(mamba) + " Mamba-2 mixers (in_proj d×" + n(m.in_proj()) + ", out_proj " + n(m.d_inner()) + "×d, a width-" +
               n(m.conv_kernel) + " convolution over " + n(m.conv_dim()) + " channels)";
    if (beside > 0)
      kinds = n(beside) + " attention layers each beside a Mamba-2 mixer (in_proj d×" + n(m.in_proj()) + ", out_proj " +
              n(m.d_inner()) + "×d)";
    if (mamba1 > 0)
      kinds += std::string(kinds.empty() ? "" : ", ") + n(mamba1) + " Mamba-1 mixers (in_proj d×" + n(2 * c.mamba1_inner()) +
               ", x_proj, dt_proj, out_proj " + n(c.mamba1_inner()) + "×d)";
    if (conv > 0)
      kinds += std::string(kinds.empty() ? "" : ", ") + n(conv) + " short convolutions (in_proj d×3d, a width-" +
               n(c.short_conv) + " depthwise convolution, out_proj d×d)";
    s += std::string(s.empty() ? "" : "; ") + (c.block_ffn ? "the mixer of each layer: " : "one block per layer: ") + kinds +
         " and " + n(attn) + " attention layers, where the estimate assumes attention in every layer";
  }
  if (c.global_head_dim > 0 || c.global_kv_heads > 0 || c.k_eq_v)
    s += std::string(s.empty() ? "" : "; ") + "full-attention layers: head size " + n(c.head_dim_at(c.n_layers - 1)) +
         ", " + n(c.kv_heads_at(c.n_layers - 1)) + " KV heads" + (c.k_eq_v ? ", no v_proj (V from k_proj)" : "");
  if (c.kv_shared > 0)
    s += std::string(s.empty() ? "" : "; ") + "the last " + n(c.kv_shared) + " layers share an earlier layer's K and V: no k_proj or v_proj";
  if (!c.layer_kv_heads.empty()) {
    i64 attn = 0;
    for (i64 k : c.layer_kv_heads) attn += k > 0 ? 1 : 0;
    s += std::string(s.empty() ? "" : "; ") + "per-layer shapes: " + n(attn) + " of " + n(c.n_layers) +
         " layers have attention, each with its own KV heads, the others none";
  }
  if (s.empty()) return "four d×d matrices per layer, exactly as the estimate assumes";
  return s + ", instead of d×d each";
}

std::string ffn_why(const ModelConfig& c, i64 moe_layers) {
  const i64 d = c.d_model;
  std::string s;
  if (c.ffn_kind == FfnKind::Gated)
    s = "gated FFN (" + std::string(c.act == Activation::Silu ? "SwiGLU" : "GeGLU") +
        "): three d×f matrices with f = " + n(c.d_ff) + " (" + ratio(c.d_ff, d) + "·d)";
  else
    s = "classic FFN: two d×f matrices with f = " + n(c.d_ff) + " (" + ratio(c.d_ff, d) + "·d)";
  if (!c.layer_ffn.empty()) {
    i64 with = 0, low = c.widest_ffn();
    for (i64 f : c.layer_ffn)
      if (f > 0) {
        ++with;
        low = std::min(low, f);
      }
    s += "; per-layer widths: " + n(with) + " of " + n(c.n_layers) + " layers have an FFN, f from " + n(low) + " to " +
         n(c.widest_ffn());
  }
  if (!c.block_pattern.empty() && !c.block_ffn) {  // with block_ffn every layer has its FFN
    i64 mlp = 0;
    for (char b : c.block_pattern) mlp += b == '-' || b == 'E' ? 1 : 0;
    s += "; only " + n(mlp) + " of " + n(c.n_layers) + " layers are FFN blocks";
  }
  if (moe_layers > 0) {
    const auto& m = c.moe;
    s += "; " + n(moe_layers) + " of " + n(c.n_layers) + " layers are MoE with " + n(m.num_experts) +
         " routed experts of width " + n(m.expert_ffn);
    if (m.shared_ffn > 0) s += " plus a shared MLP of width " + n(m.shared_ffn);
    s += ", all stored (" + n(m.top_k) + " active per token)";
  }
  return s + ", where the estimate assumes two d×4d matrices (8·d²)";
}

}  // namespace

Result<ParamReport> count_params(const ModelConfig& c, const Inventory& inv) {
  ParamReport r;
  std::array<Checked, kGroupCount> groups{};
  Checked total, active, matrix, mtp;
  Checked attn, ffn, biases, norms, router, head, embed;
  i64 moe_layers = 0;

  for (const Tensor& t : inv.global) {
    const i64 v = t.numel();
    groups[static_cast<int>(t.group)] += v;
    total += v;
    active += v;
    if (t.is_matrix()) matrix += v;
    if (t.role == Role::Norm) norms += v;
    else if (t.group == Group::LmHead) head += v;
    else embed += v;
  }
  for (const LayerKind& k : inv.kinds) {
    const i64 L = static_cast<i64>(k.layers.size());
    if (k.is_moe) moe_layers += L;
    const Parts p = layer_parts(k, c.moe.top_k);
    for (const Tensor& t : k.tensors) {
      groups[static_cast<int>(t.group)] += Checked(t.numel()) * L;
      if (t.is_matrix()) matrix += Checked(t.numel()) * L;
    }
    total += p.all * L;
    active += p.active * L;
    attn += p.attn_matrices * L;
    ffn += p.ffn_matrices * L;
    biases += p.biases * L;
    norms += p.norms * L;
    router += p.router * L;
    embed += p.embed * L;
    r.kinds.push_back({k.label, L, p.all.value(), p.active.value()});
  }
  for (const LayerKind& k : inv.mtp) mtp += layer_parts(k, c.moe.top_k).all;
  Checked vision;
  for (const Tensor& t : inv.vision) vision += t.numel();
  vision += layer_parts(inv.vision_layer, 0).all * static_cast<i64>(inv.vision_layer.layers.size());
  groups[static_cast<int>(Group::Mtp)] = mtp;

  const i64 d = c.d_model, L = c.n_layers;
  const Checked d2 = Checked(d) * d * L;
  const Checked a_attn = d2 * 4, a_ffn = d2 * 8, a_emb = Checked(c.vocab) * d;
  const Checked approx = a_attn + a_ffn + a_emb;
  bool ok = total.ok() && active.ok() && matrix.ok() && mtp.ok() && vision.ok() && approx.ok() && attn.ok() &&
            ffn.ok() && biases.ok() && norms.ok() && router.ok();
  for (const auto& gsum : groups) ok = ok && gsum.ok();
  if (!ok)
    return Issue{"num_hidden_layers",
                 "the parameter count overflows 64-bit integers; reduce num_hidden_layers, "
                 "hidden_size, intermediate_size or num_experts"};

  r.total = total.value();
  r.active = active.value();
  r.mtp = mtp.value();
  r.vision = vision.value();
  r.matrix_params = matrix.value();
  for (int i = 0; i < kGroupCount; ++i) r.by_group[i] = groups[i].value();
  r.approx_attention = a_attn.value();
  r.approx_ffn = a_ffn.value();
  r.approx_embedding = a_emb.value();
  r.approx_12nd2_vd = approx.value();

  // The gap, cause by cause; each delta is exact, and together they sum to total − approx.
  auto item = [&](std::string cause, i64 delta, std::string why) {
    if (delta != 0) r.gap.push_back({std::move(cause), delta, std::move(why)});
  };
  const char* attn_label = c.mla.enabled ? "MLA attention"
                           : c.n_kv_heads == 1 && c.n_heads > 1 ? "MQA attention"
                           : c.n_kv_heads < c.n_heads ? "GQA attention"
                                                      : "attention shape";
  item(attn_label, attn.value() - r.approx_attention, attention_why(c));
  item(c.is_moe() ? "MoE FFN" : c.ffn_kind == FfnKind::Gated ? "gated FFN" : "FFN width",
       ffn.value() - r.approx_ffn, ffn_why(c, moe_layers));
  item("untied LM head", head.value(),
       c.tie_embeddings ? "the head is tied to the embedding but has its own bias (" + n(c.vocab) + ")"
                        : "the output head is a separate v×d matrix (" + n(c.vocab) + "×" +
                              n(c.embed_proj_dim > 0 ? c.embed_proj_dim : d) + ")" +
                              (c.bias_lm_head ? " with a bias" : ""));
  {
    std::string why;
    if (c.pos == PosKind::Learned)
      why = "learned position table of " + n(c.max_positions + c.pos_offset) + "×" + n(d);
    if (c.embed_proj_dim > 0 && c.embed_proj_dim != d)
      why += std::string(why.empty() ? "" : "; ") + "embeddings of width " + n(c.embed_proj_dim) +
             " with project_in/out to d = " + n(d);
    if (c.ple_dim > 0)
      why += std::string(why.empty() ? "" : "; ") + "per-layer input embeddings: a " + n(c.ple_vocab) + "×" +
             n(c.n_layers * c.ple_dim) + " table (" + n(c.ple_dim) + " per layer), its d×" + n(c.n_layers * c.ple_dim) +
             " projection, and in each layer a d×" + n(c.ple_dim) + " gate and a " + n(c.ple_dim) + "×d projection";
    item("positions / embedding", embed.value() - r.approx_embedding, why);
  }
  item("biases", biases.value(), "bias vectors on the projections that have them");
  item("norms", norms.value(),
       std::string(c.norm == NormKind::LayerNorm ? "LayerNorm weight and bias" : "norm weights") +
           (c.norm_final ? " in every layer and at the end" : " in every layer (no final norm)"));
  item("router", router.value(), "MoE router matrices d×E" + std::string(c.moe.router_correction_bias ? " and correction biases" : "") +
                                     std::string(c.moe.shared_gate ? " and the shared-expert gate" : ""));
  return r;
}

Result<ParamReport> count_params(const ModelConfig& cfg) {
  auto inv = build_inventory(cfg);
  if (!inv) return inv.issues();
  return count_params(cfg, *inv);
}

}  // namespace llmsize::core

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

// A row of the string tables filled: the gap's texts in `lang`.
template <class... A>
std::string fill(Lang lang, Str row, const A&... args) {
  return printf_text(tr(row, lang), std::string(args).c_str()...);
}

std::string attention_why(const ModelConfig& c, Lang lang) {
  const i64 d = c.d_model, H = c.n_heads;
  const std::string sep = tr(Str::gap_sep, lang);
  auto add = [&](std::string& s, const std::string& part) { s += (s.empty() ? "" : sep) + part; };
  if (c.mla.enabled) {
    const auto& m = c.mla;
    const std::string q = m.q_lora_rank > 0 ? fill(lang, Str::gap_mla_q_bottleneck, n(m.q_lora_rank))
                                            : fill(lang, Str::gap_mla_q_full, n(d), n(H * (m.qk_nope_dim + m.qk_rope_dim)));
    return fill(lang, Str::gap_mla, q, n(m.kv_lora_rank), n(m.qk_rope_dim), n(H * m.v_head_dim), n(d));
  }
  std::string s;
  const i64 K = c.n_kv_heads, hd = c.head_dim;
  if (K == 1) s = fill(lang, Str::gap_mqa, n(H), n(d), n(hd));
  else if (K < H) s = fill(lang, Str::gap_gqa, n(K), n(H), n(d), n(K * hd));
  if (H * hd != d) add(s, fill(lang, Str::gap_hhd, n(H), n(hd), n(H * hd), n(d), n(d), n(H * hd)));
  if (c.attn_out_gate) add(s, tr(Str::gap_out_gate, lang));
  if (c.attn_sinks) add(s, tr(Str::gap_sinks, lang));
  if (c.linear.enabled()) {
    const auto& a = c.linear;
    i64 lin = 0;
    for (i64 l = 0; l < c.n_layers; ++l) lin += c.layer_is_linear(l) ? 1 : 0;
    add(s, fill(lang, Str::gap_linear, n(lin), n(c.n_layers), n(2 * a.key_dim() + 2 * a.value_dim()), n(2 * a.v_heads),
                n(a.value_dim()), n(a.conv_kernel), n(a.conv_dim())));
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
    const std::string list_sep = tr(Str::gap_list_sep, lang);
    std::string kinds;
    auto list = [&](const std::string& part) { kinds += (kinds.empty() ? "" : list_sep) + part; };
    if (mamba > 0) kinds = fill(lang, Str::gap_mamba2, n(mamba), n(m.in_proj()), n(m.d_inner()), n(m.conv_kernel), n(m.conv_dim()));
    if (beside > 0) kinds = fill(lang, Str::gap_beside, n(beside), n(m.in_proj()), n(m.d_inner()));
    if (mamba1 > 0) list(fill(lang, Str::gap_mamba1, n(mamba1), n(2 * c.mamba1_inner()), n(c.mamba1_inner())));
    if (conv > 0) list(fill(lang, Str::gap_short_conv, n(conv), n(c.short_conv)));
    add(s, fill(lang, c.block_ffn ? Str::gap_mixer_each : Str::gap_block_each, kinds, n(attn)));
  }
  if (c.global_head_dim > 0 || c.global_kv_heads > 0 || c.k_eq_v)
    add(s, fill(lang, Str::gap_global, n(c.head_dim_at(c.n_layers - 1)), n(c.kv_heads_at(c.n_layers - 1)),
                std::string(c.k_eq_v ? tr(Str::gap_k_eq_v, lang) : "")));
  if (c.kv_shared > 0) add(s, fill(lang, Str::gap_kv_shared, n(c.kv_shared)));
  if (!c.layer_kv_heads.empty()) {
    i64 attn = 0;
    for (i64 k : c.layer_kv_heads) attn += k > 0 ? 1 : 0;
    add(s, fill(lang, Str::gap_per_layer_shapes, n(attn), n(c.n_layers)));
  }
  if (s.empty()) return tr(Str::gap_attn_exact, lang);
  return fill(lang, Str::gap_instead, s);
}

std::string ffn_why(const ModelConfig& c, i64 moe_layers, Lang lang) {
  const i64 d = c.d_model;
  const std::string sep = tr(Str::gap_sep, lang);
  std::string s = c.ffn_kind == FfnKind::Gated
                      ? fill(lang, Str::gap_gated, std::string(c.act == Activation::Silu ? "SwiGLU" : "GeGLU"), n(c.d_ff), ratio(c.d_ff, d))
                      : fill(lang, Str::gap_classic_ffn, n(c.d_ff), ratio(c.d_ff, d));
  if (!c.layer_ffn.empty()) {
    i64 with = 0, low = c.widest_ffn();
    for (i64 f : c.layer_ffn)
      if (f > 0) {
        ++with;
        low = std::min(low, f);
      }
    s += sep + fill(lang, Str::gap_ffn_widths, n(with), n(c.n_layers), n(low), n(c.widest_ffn()));
  }
  if (!c.block_pattern.empty() && !c.block_ffn) {  // with block_ffn every layer has its FFN
    i64 mlp = 0;
    for (char b : c.block_pattern) mlp += b == '-' || b == 'E' ? 1 : 0;
    s += sep + fill(lang, Str::gap_ffn_blocks, n(mlp), n(c.n_layers));
  }
  if (moe_layers > 0) {
    const auto& m = c.moe;
    s += sep + fill(lang, Str::gap_moe, n(moe_layers), n(c.n_layers), n(m.num_experts), n(m.expert_ffn));
    if (m.shared_ffn > 0) s += fill(lang, Str::gap_moe_shared, n(m.shared_ffn));
    s += fill(lang, Str::gap_moe_stored, n(m.top_k));
  }
  return fill(lang, Str::gap_ffn_assumes, s);
}

}  // namespace

namespace {

// The cause and why of `g` in `lang`, built from the string tables.
GapItem build_gap_words(const ModelConfig& c, const ParamReport& r, const GapItem& g, Lang lang) {
  GapItem out = g;
  auto cause = [&](Str row) { return std::string(tr(row, lang)); };
  switch (g.kind) {
    case GapCause::Attention:
      out.cause = cause(c.mla.enabled                                ? Str::gap_cause_mla
                        : c.n_kv_heads == 1 && c.n_heads > 1         ? Str::gap_cause_mqa
                        : c.n_kv_heads < c.n_heads                   ? Str::gap_cause_gqa
                                                                     : Str::gap_cause_attn_shape);
      out.why = attention_why(c, lang);
      break;
    case GapCause::Ffn:
      out.cause = cause(c.is_moe() ? Str::gap_cause_moe_ffn : c.ffn_kind == FfnKind::Gated ? Str::gap_cause_gated_ffn : Str::gap_cause_ffn_width);
      out.why = ffn_why(c, r.moe_layers, lang);
      break;
    case GapCause::Head:
      out.cause = cause(Str::gap_cause_head);
      out.why = c.tie_embeddings ? fill(lang, Str::gap_head_tied_bias, n(c.vocab))
                                 : fill(lang, Str::gap_head_untied, n(c.vocab), n(c.embed_proj_dim > 0 ? c.embed_proj_dim : c.d_model),
                                        std::string(c.bias_lm_head ? tr(Str::gap_with_bias, lang) : ""));
      break;
    case GapCause::Embedding: {
      out.cause = cause(Str::gap_cause_embedding);
      const std::string sep = tr(Str::gap_sep, lang);
      std::string why;
      auto add = [&](const std::string& part) { why += (why.empty() ? "" : sep) + part; };
      if (c.pos == PosKind::Learned) add(fill(lang, Str::gap_learned_pos, n(c.max_positions + c.pos_offset), n(c.d_model)));
      if (c.embed_proj_dim > 0 && c.embed_proj_dim != c.d_model) add(fill(lang, Str::gap_embed_proj, n(c.embed_proj_dim), n(c.d_model)));
      if (c.ple_dim > 0)
        add(fill(lang, Str::gap_ple, n(c.ple_vocab), n(c.n_layers * c.ple_dim), n(c.ple_dim), n(c.n_layers * c.ple_dim), n(c.ple_dim),
                 n(c.ple_dim)));
      out.why = why;
      break;
    }
    case GapCause::Biases:
      out.cause = cause(Str::gap_cause_biases);
      out.why = tr(Str::gap_biases, lang);
      break;
    case GapCause::Norms:
      out.cause = cause(Str::gap_cause_norms);
      out.why = fill(lang, c.norm_final ? Str::gap_norms_final : Str::gap_norms_no_final,
                     std::string(tr(c.norm == NormKind::LayerNorm ? Str::gap_norm_ln : Str::gap_norm_weights, lang)));
      break;
    case GapCause::Router:
      out.cause = cause(Str::gap_cause_router);
      out.why = fill(lang, Str::gap_router, std::string(c.moe.router_correction_bias ? tr(Str::gap_router_bias, lang) : ""),
                     std::string(c.moe.shared_gate ? tr(Str::gap_router_shared_gate, lang) : ""));
      break;
  }
  return out;
}

}  // namespace

GapItem gap_words(const ModelConfig& c, const ParamReport& r, const GapItem& g, Lang lang) {
  return lang == Lang::En ? g : build_gap_words(c, r, g, lang);  // count_params made the English
}

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
    r.kinds.push_back({k.label, k.words, L, p.all.value(), p.active.value()});
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
    return issue_row("num_hidden_layers", Str::issue_params_overflow);

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
  r.moe_layers = moe_layers;
  const std::array<std::pair<GapCause, i64>, 7> deltas = {{
      {GapCause::Attention, attn.value() - r.approx_attention},
      {GapCause::Ffn, ffn.value() - r.approx_ffn},
      {GapCause::Head, head.value()},
      {GapCause::Embedding, embed.value() - r.approx_embedding},
      {GapCause::Biases, biases.value()},
      {GapCause::Norms, norms.value()},
      {GapCause::Router, router.value()},
  }};
  for (const auto& [kind, delta] : deltas)
    if (delta != 0) {
      GapItem g{"", delta, "", kind};
      const GapItem words = build_gap_words(c, r, g, Lang::En);
      g.cause = words.cause;
      g.why = words.why;
      r.gap.push_back(std::move(g));
    }
  return r;
}

Result<ParamReport> count_params(const ModelConfig& cfg) {
  auto inv = build_inventory(cfg);
  if (!inv) return inv.issues();
  return count_params(cfg, *inv);
}

}  // namespace llmsize::core

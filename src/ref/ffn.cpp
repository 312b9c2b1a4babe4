// FFN ops of a decoder layer (see block.hpp): the classic MLP act(x·W_up + b)·W_down + b,
// the gated MLP (act(x·W_gate) ⊙ x·W_up)·W_down (ref: Shazeer 2020, "GLU Variants Improve
// Transformer"), and mixture-of-experts layers: a router picks top_k experts per token
// (ref: Fedus et al. 2021; Jiang et al. 2024 for Mixtral's renormalised softmax weights;
// DeepSeek-AI 2024, V3 report eq. 13–16, for sigmoid scores with a selection-only bias),
// rows are grouped per expert, and always-active shared experts are added.
// gpt-oss's experts (biased, fused gate and up interleaved, clamped SwiGLU with alpha 1.702) and its
// biased router (softmax over the chosen logits, which the renormalised softmax is); Llama 4's
// router (modeling_llama4.py Llama4Router: top-k of the logits, their sigmoid scaling the chosen
// experts' inputs, outputs summed unweighted).
// The top-k weights are renormalized unless norm_topk_prob is false, then multiplied by
// routed_scaling_factor (Gemma 4's router: add_moe_ops). Omitted on purpose: DeepSeek's group-limited routing, capacity limits and
// token dropping; the reference routes every token to exactly top_k experts.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "block.hpp"
#include "math.hpp"

namespace llmsize::ref {

namespace {

std::string lname(const LayerW& L, const std::string& what) {
  return "layer " + std::to_string(L.index) + " · " + what;
}

// A dense MLP with weights gate/up/gate_up/down over `rows()` rows of in (ld d) into out
// (ld d), using h (ld (gated ? 2 : 1)·f) for the intermediates; `copy` picks an expert.
struct Mlp {
  Lin gate, up, gate_up, down;
  i64 copy = 0;
  float gate_mult = 1.0f, down_mult = 1.0f;  // Falcon-H1's mlp_multipliers (FalconH1MLP.forward)
};

void add_mlp_ops(Decoder& dec, const LayerW& L, const std::string& label, const Mlp& w, i64 max_rows,
                 const std::function<i64()>& rows, const float* in, float* h, float* out, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const i64 d = c.d_model;
  const bool gated = c.ffn_kind == core::FfnKind::Gated;
  const i64 f = w.down.din, ldh = gated ? 2 * f : f;
  if (gated && w.gate_up) {
    add_op(p, gemm_op(dec, lname(L, label + ".gate_up"), max_rows, rows, in, d, w.gate_up, w.copy, h, ldh));
  } else {
    if (gated) add_op(p, gemm_op(dec, lname(L, label + ".gate"), max_rows, rows, in, d, w.gate, w.copy, h, ldh));
    add_op(p, gemm_op(dec, lname(L, label + ".up"), max_rows, rows, in, d, w.up, w.copy, gated ? h + f : h, ldh));
  }
  const core::Activation act = c.act;
  // gpt-oss's experts: gate and up interleaved in the fused matrix, and their own clamped
  // activation (ref: modeling_gpt_oss.py GptOssExperts: gate_up[..., ::2], gate_up[..., 1::2]).
  const bool oss = c.family == core::Family::GptOss;
  const bool interleaved = oss && w.gate_up;
  const float gm = w.gate_mult;
  Op a;
  a.name = lname(L, label + ".act");
  a.units = max_rows;
  a.cost_per_unit = 8.0 * static_cast<double>(f);
  a.run = [=](i64 b, i64 e) {
    e = std::min(e, rows());
    for (i64 r = b; r < e; ++r) {
      float* g = h + r * ldh;
      if (interleaved)  // in place: step j reads 2j and 2j + 1, never below j
        for (i64 j = 0; j < f; ++j) g[j] = gpt_oss_glu(g[2 * j], g[2 * j + 1]);
      else if (gated && oss)
        for (i64 j = 0; j < f; ++j) g[j] = gpt_oss_glu(g[j], g[f + j]);
      else if (gated)
        for (i64 j = 0; j < f; ++j) g[j] = activate(act, g[j] * gm) * g[f + j];
      else
        for (i64 j = 0; j < f; ++j) g[j] = activate(act, g[j]);
    }
  };
  add_op(p, std::move(a));
  add_op(p, gemm_op(dec, lname(L, label + ".down"), max_rows, rows, h, ldh, w.down, w.copy, out, d));
  if (w.down_mult != 1.0f) {
    const float dm = w.down_mult;
    add_op(p, rows_op(lname(L, label + ".down multiplier"), max_rows, static_cast<double>(d), [=](i64 r) {
      if (r >= rows()) return;
      for (i64 j = 0; j < d; ++j) out[r * d + j] *= dm;
    }));
  }
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Gemma 4's MoE layer (modeling_gemma4.py Gemma4TextDecoderLayer.forward, enable_moe_block), with
// in = pre_feedforward_layernorm(x) and x the residual stream:
//   out = post_feedforward_layernorm_1(mlp(in)) + post_feedforward_layernorm_2(experts(pre_feedforward_layernorm_2(x)))
// routed by Gemma4TextRouter on x: softmax(proj(rms(x) ⊙ scale · d^-1/2)), the top_k renormalized,
// then times per_expert_scale of the chosen experts. The dense branch runs first into out; the
// experts add up in moe_sum; x's two normed copies take xg (the router's input, free until the
// experts gather) and xn (the dense branch's input, read by then).
void add_moe_ops(Decoder& dec, const LayerW& L, i64 n, const float* in, float* out, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const i64 M = dec.opt.batch * n, d = c.d_model, E = c.moe.num_experts, k = c.moe.top_k;
  Workspace& ws = dec.ws;
  float* logits = ws.router;
  const bool beside = c.moe.dense_beside;
  const float* route_in = in;
  const float* expert_in = in;
  float* acc = out;
  if (beside) {
    add_mlp_ops(dec, L, "mlp", Mlp{L.s_gate, L.s_up, L.s_gate_up, L.s_down, 0}, M, [M] { return M; }, in, ws.h, out, p);
    const core::NormKind kind = c.norm;
    const NormW post1 = L.post_ffn_norm1, pre2 = L.ffn_norm2;
    const float* x = ws.x.data();
    float* xr = ws.xg;
    float* xe = ws.xn.data();
    const float* rs = L.router_scale;
    const float root = 1.0f / std::sqrt(static_cast<float>(d));
    add_op(p, rows_op(lname(L, "mlp post-norm, router and experts' norms"), M, 20.0 * static_cast<double>(d), [=](i64 r) {
      norm_vec(kind, post1, out + r * d, out + r * d, d);
      rms_vec(rs, x + r * d, xr + r * d, d);
      for (i64 j = 0; j < d; ++j) xr[r * d + j] *= root;
      norm_vec(kind, pre2, x + r * d, xe + r * d, d);
    }));
    route_in = xr;
    expert_in = xe;
    acc = ws.moe_sum;
  }
  add_op(p, gemm_op(dec, lname(L, "router"), M, route_in, d, L.router, logits, E));
  std::int32_t* sel = ws.sel;
  float* selw = ws.selw;
  std::int32_t* order = ws.order;
  std::int32_t* off = ws.offsets;
  const float* corr = L.router_correction;
  const bool scale_in = c.moe.scale_input, norm = c.moe.norm_topk;
  const double rscale = c.moe.routed_scale;
  const float* escale = L.expert_scale;  // Gemma 4's per_expert_scale
  Op route;
  route.name = lname(L, "route");
  route.cost_per_unit = static_cast<double>(M * E * (k + 4));
  route.run = [=](i64, i64) {
    for (i64 r = 0; r < M; ++r) {
      float* s = logits + r * E;
      if (scale_in) {  // Llama4Router: top-k of the logits, then the sigmoid of each chosen one (no renormalization)
        top_k(s, nullptr, E, k, sel + r * k);
        for (i64 i = 0; i < k; ++i) selw[r * k + i] = sigmoid(s[sel[r * k + i]]);
        continue;
      }
      if (corr) for (i64 e = 0; e < E; ++e) s[e] = sigmoid(s[e]);
      else softmax(s, E);
      top_k(s, corr, E, k, sel + r * k);
      double sum = 0;
      for (i64 i = 0; i < k; ++i) sum += s[sel[r * k + i]];
      if (!norm) sum = 1.0;  // norm_topk_prob false: the scores as they are
      for (i64 i = 0; i < k; ++i) selw[r * k + i] = static_cast<float>(s[sel[r * k + i]] / sum * rscale);
      if (escale)
        for (i64 i = 0; i < k; ++i) selw[r * k + i] *= escale[sel[r * k + i]];
    }
    // Counting sort of the (row, slot) entries by expert, rows in order within an expert.
    std::fill_n(off, E + 1, 0);
    for (i64 i = 0; i < M * k; ++i) ++off[sel[i] + 1];
    for (i64 e = 0; e < E; ++e) off[e + 1] += off[e];
    for (i64 i = 0; i < M * k; ++i) order[off[sel[i]]++] = static_cast<std::int32_t>(i);
    for (i64 e = E; e > 0; --e) off[e] = off[e - 1];
    off[0] = 0;
    std::fill_n(acc, M * d, 0.0f);
  };
  add_op(p, std::move(route));
  float* xg = ws.xg;
  float* yg = ws.yg;
  float* hg = ws.hg;
  for (i64 e = 0; e < E; ++e) {
    const std::string label = "expert " + std::to_string(e);
    auto rows = [=] { return static_cast<i64>(off[e + 1] - off[e]); };
    add_op(p, rows_op(lname(L, label + ".gather"), 1, static_cast<double>(M * d), [=](i64) {
      for (i64 i = off[e]; i < off[e + 1]; ++i) {
        float* row = xg + (i - off[e]) * d;
        std::memcpy(row, expert_in + (order[i] / k) * d, static_cast<size_t>(d) * 4);
        if (scale_in)  // Llama4TextMoe: routed_in = hidden_states · router_scores
          for (i64 j = 0; j < d; ++j) row[j] *= selw[order[i]];
      }
    }));
    add_mlp_ops(dec, L, label, Mlp{L.e_gate, L.e_up, L.e_gate_up, L.e_down, e}, M, rows, xg, hg, yg, p);
    add_op(p, rows_op(lname(L, label + ".scatter"), 1, static_cast<double>(M * d), [=](i64) {
      for (i64 i = off[e]; i < off[e + 1]; ++i)
        axpy(scale_in ? 1.0f : selw[order[i]], yg + (i - off[e]) * d, acc + (order[i] / k) * d, d);
    }));
  }
  if (beside) {
    const core::NormKind kind = c.norm;
    const NormW post2 = L.post_ffn_norm2;
    add_op(p, rows_op(lname(L, "experts' post-norm + mlp"), M, 8.0 * static_cast<double>(d), [=](i64 r) {
      norm_vec(kind, post2, acc + r * d, acc + r * d, d);
      for (i64 j = 0; j < d; ++j) out[r * d + j] += acc[r * d + j];
    }));
    return;
  }
  if (!L.s_down) return;
  add_mlp_ops(dec, L, "shared", Mlp{L.s_gate, L.s_up, L.s_gate_up, L.s_down, 0}, M, [M] { return M; }, in,
              ws.h, yg, p);
  const float* sg = L.shared_gate.w;  // Qwen2-MoE: sigmoid(x · w_g) scales the shared expert
  add_op(p, rows_op(lname(L, "shared.add"), M, 3.0 * static_cast<double>(d), [=](i64 r) {
    const float g = sg ? sigmoid(dot(in + r * d, sg, d)) : 1.0f;
    axpy(g, yg + r * d, out + r * d, d);
  }));
}

}  // namespace

void add_ffn_ops(Decoder& dec, const LayerW& L, i64 n, const float* in, float* out, Program& p) {
  if (L.moe) return add_moe_ops(dec, L, n, in, out, p);
  const i64 M = dec.opt.batch * n;
  const auto& u = dec.cfg.mup;  // Falcon-H1: the dense MLP's gate and down multipliers
  add_mlp_ops(dec, L, "ffn",
              Mlp{L.gate, L.up, L.gate_up, L.down, 0, static_cast<float>(u.mlp_gate), static_cast<float>(u.mlp_down)}, M,
              [M] { return M; }, in, dec.ws.h, out, p);
}

}  // namespace llmsize::ref

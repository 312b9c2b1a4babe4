// One measured training step of one decoder layer (see train.hpp).
//
// Forward (rows M = b·s, row = sequence·s + t), each tensor kept for backward named as
// core::LayerActivations names it:
//   x  ──norm1──► n1 (attn_input) ──q,k,v (+LoRA: x·A kept)──► q, k (after RoPE), v (qk, v)
//   flash attention per head: O (attn_out_input) and the fp32 logsumexp (softmax_stats)
//   O ──o──► + x = h1 (norm_inputs: x and h1) ──norm2──► n2 (ffn_input)
//   n2 ──gate‖up──► act(gate)·up (ffn_hidden: gate‖up and the product; classic: act's input and output) ──down──► + h1
// Backward walks it in reverse and frees each kept tensor once its node has run, as autograd
// does; gradients are made when first produced (and freed after the step: zero_grad's
// set_to_none); AdamW's states are made at the first step, as torch.optim.AdamW does.
#include "train.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <unordered_map>

#include "core/activations.hpp"
#include "core/field.hpp"
#include "core/format.hpp"
#include "core/model_states.hpp"
#include "core/weights.hpp"
#include "decoder.hpp"
#include "demo.hpp"
#include "kernels/gemm.hpp"
#include "math.hpp"

namespace llmsize::ref {

namespace {

using core::Issue;
using core::ModelConfig;

// PEFT/LitGPT: y = x·W + (alpha / r)·(x·A)·B with B zero at the start; alpha = 2r here.
constexpr float kLoraScale = 2.0f;
// torch.optim.AdamW's defaults (torch/optim/adamw.py): betas, eps, weight_decay.
constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kAdamEps = 1e-8, kWeightDecay = 0.01;

constexpr i64 kMaxSeq = 8192, kMaxBatch = 64, kMaxRank = 4096;

// A matrix as the checkpoint stores it (a fused qkv or gate_up is one), din × dout, and its
// LoRA adapter when its role is targeted.
struct Unit {
  std::string name;
  Lin lin;      // lin.copies experts stacked (one for a plain matrix)
  bool lora = false;
  Buffer A, B;  // per copy din × r and r × dout, copies stacked (Mem::Adapters)
  Buffer t;     // (alpha/r)·x·A of every row the unit saw (M, or M·top_k routed entries) × r, kept for backward
};

// The matrices of one MLP (dense, one routed expert, or the shared experts): unit indices, -1 absent.
struct Mlp {
  int gate = -1, up = -1, gate_up = -1, down = -1;
};

struct Param {
  std::string name;
  float* value = nullptr;
  i64 numel = 0;
  Buffer grad, m, v;
};

void gemm(Trans ta, Trans tb, i64 M, i64 N, i64 K, const float* A, i64 lda, const float* B, i64 ldb, float* C,
          i64 ldc, bool acc = false) {
  sgemm_op(ta, tb, static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), A, static_cast<int>(lda), B,
           static_cast<int>(ldb), C, static_cast<int>(ldc), acc);
}

// Backward of y = norm(x)·w (+ b) over n values: dx += ∂L/∂x, gw += dy·x̂, gb += dy (when given).
// RMSNorm: x̂ = x·r, dx = r·(dx̂ − x̂·mean(dx̂·x̂)); LayerNorm also subtracts mean(dx̂), with
// dx̂ = dy·w; μ and r = 1/sqrt(mean((x − μ)²) + eps) from norm_stats, as norm_vec's.
void norm_backward(core::NormKind kind, const NormW& w, const float* x, const float* dy, float* dx, float* gw,
                   float* gb, i64 n) {
  const NormStats st = norm_stats(kind, x, n);
  const float mu = st.mean;
  const double r = st.inv;
  double s_dxh = 0.0, s_dxh_xh = 0.0;
  for (i64 i = 0; i < n; ++i) {
    const double xh = (x[i] - mu) * r, dxh = static_cast<double>(dy[i]) * w.w[i];
    s_dxh += dxh;
    s_dxh_xh += dxh * xh;
    if (gw) gw[i] += static_cast<float>(dy[i] * xh);
    if (gb) gb[i] += dy[i];
  }
  const double m1 = kind != core::NormKind::RmsNorm ? s_dxh / static_cast<double>(n) : 0.0;
  const double m2 = s_dxh_xh / static_cast<double>(n);
  for (i64 i = 0; i < n; ++i) {
    const double xh = (x[i] - mu) * r;
    dx[i] += static_cast<float>(r * (static_cast<double>(dy[i]) * w.w[i] - m1 - xh * m2));
  }
}

}  // namespace

std::optional<Issue> train_unsupported(const ModelConfig& c, i64 layer) {
  if (layer < 0 || layer >= c.n_layers) return core::check_range("layer", 0, c.n_layers - 1, layer);
  using core::Str;
  const std::pair<bool, Str> no[] = {
      {c.layer_mixer(layer) != core::Mixer::Attention, Str::ref_train_kind_mixer},
      {c.mla.enabled, Str::ref_train_kind_mla},
      {c.layer_is_moe(layer) && (c.moe.scale_input || c.moe.expert_bias || c.ffn_kind != core::FfnKind::Gated),
       Str::ref_train_kind_moe},
      {!c.layer_has_ffn(layer) || c.kv_heads_at(layer) == 0 || c.ffn_at(layer) == 0, Str::ref_train_kind_partial},
      {c.parallel_block, Str::ref_train_kind_parallel},
      {!c.norm_pre || c.norm_sandwich, Str::ref_train_kind_norms},
      {c.norm_qk || c.norm_v || c.qk_l2norm, Str::ref_train_kind_qkv_norm},
      {c.attn_sinks, Str::ref_train_kind_sinks},
      {c.attn_out_gate, Str::ref_train_kind_gate},
      {c.nope_full || c.attn_floor_scale > 0.0, Str::ref_train_kind_nope},
      {c.k_eq_v || c.kv_shared_at(layer), Str::ref_train_kind_kv_share},
      {c.ple_dim > 0, Str::ref_train_kind_ple},
      {!(c.mup == core::MupConfig{}) || c.residual_mult != 1.0, Str::ref_train_kind_mup},
      {c.family == core::Family::GptOss, Str::ref_train_kind_gpt_oss},
      // the core's activations follow the model-wide K and FFN width (training_memory.cpp sizes such layers itself)
      {c.varies_by_layer(), Str::ref_train_kind_per_layer},
  };
  std::vector<Str> kinds;
  for (const auto& [on, kind] : no)
    if (on) kinds.push_back(kind);
  if (kinds.empty()) return std::nullopt;
  return core::issue("model_type", [kinds, layer](core::Lang l) {
    std::string list;
    for (size_t i = 0; i < kinds.size(); ++i) list += (i ? core::tr(Str::ref_list_sep, l) : "") + std::string(core::tr(kinds[i], l));
    return core::printf_text(core::tr(Str::ref_train_unsupported, l), list.c_str(), std::to_string(layer).c_str());
  });
}

namespace {
// The core's figures for this step (fp32 weights, gradients and AdamW states; activations at
// dtype 4 with flash attention and no dropout).
struct Estimate {
  i64 weights = 0, adapters = 0, trainable = 0, saved = 0, recompute = 0, grads = 0, optimizer = 0;
};

}  // namespace

struct TrainStep::Impl {
  MemCounter mem;  // before every Buffer of the step
  std::unique_ptr<Decoder> dec;
  const LayerW* L = nullptr;
  TrainSettings s;
  i64 b = 0, n = 0, M = 0, d = 0, H = 0, K = 0, hd = 0, f = 0, W = 0, r = 0, rot = 0, window = 0;
  bool gated = true, chunked = false, alibi = false;
  float scale = 1.0f;
  std::vector<Unit> units;
  int uq = -1, uk = -1, uv = -1, uqkv = -1, uo = -1;
  Mlp dense, expert, shared;  // expert: the routed experts' stacked matrices; shared: the always-active experts
  bool moe = false, sigmoid_router = false, norm_topk = true;
  i64 E = 0, top_k = 0, fe = 0, fs = 0;  // experts, chosen per token, routed and shared widths
  double routed_scale = 1.0;
  std::vector<Param> params;
  std::unordered_map<const float*, size_t> param_of;
  Buffer x0;   // the layer input (Saved: norm1's input)
  Buffer G;    // dL/dy (Activations: what the next layer hands back)
  Buffer n1, qkv, O, lse, h1, n2, hid, prod;  // kept for backward (hid, prod: the dense FFN's)
  // MoE, kept: the router's probabilities (sigmoid scores with a correction bias) M × E fp32, each routed
  // entry's gathered input, gate‖up, product and output (M·k rows in expert order), the shared experts'
  // gate‖up and product, and with a shared gate its sigmoid and the shared output it scales.
  Buffer probs, xg, hg, pg, yg, hs, ps, ys, sg;
  // Routing, rebuilt from probs when needed (not kept): chosen experts, their weights, entries by expert.
  std::vector<std::int32_t> sel, order, off;
  std::vector<float> selw;
  Buffer dx0;  // dL/dx after backward
  i64 steps = 0;
  bool kept = false;  // the last forward kept its tensors
  i64 working_peak = 0;
  i64 rebuilt_saved = 0;  // full recomputation: Saved bytes the rebuilt forward added
  Estimate estimate;
  TrainResult result;
  int stage = 0;  // advance(): the next of forward, backward, AdamW, the second forward

  float* grad_of(const float* value) {
    auto it = param_of.find(value);
    if (it == param_of.end()) return nullptr;
    Param& p = params[it->second];
    if (p.grad.size() == 0) {
      p.grad = Buffer::make(mem, Mem::Gradients, p.numel);
      std::fill_n(p.grad.data(), p.numel, 0.0f);
    }
    return p.grad.data();
  }
  void note_working() { working_peak = std::max(working_peak, mem.stats()[Mem::Activations]); }

  // create() asked the system for an upper bound of everything the step holds at once and gave it
  // back before the first allocation (a refusal there is an Issue); a refusal after that, with
  // no exceptions in this library, ends the process rather than writing through a null buffer.
  Buffer make(Mem m, i64 floats) {
    Buffer out = Buffer::make(mem, m, floats);
    if (!out.ok()) std::abort();
    note_working();
    return out;
  }

  void begin_t(Unit& u, i64 rows, Mem keep) {
    if (u.lora) u.t = make(keep, rows * r);
  }

  // Rows [row0, row0 + rows) of the unit's input: y (ld ldy) = x·W + b (+ (alpha/r)·(x·A)·B) with
  // copy `copy` of the stacked matrices; x and y point at the first of those rows.
  void linear(Unit& u, i64 copy, i64 row0, i64 rows, const float* x, i64 ldx, float* y, i64 ldy) {
    const Lin& w = u.lin;
    gemm(Trans::N, Trans::N, rows, w.dout, w.din, x, ldx, w.w + copy * w.din * w.dout, w.dout, y, ldy);
    if (w.b)
      for (i64 row = 0; row < rows; ++row)
        for (i64 j = 0; j < w.dout; ++j) y[row * ldy + j] += w.b[copy * w.dout + j];
    if (!u.lora) return;
    float* t = u.t.data() + row0 * r;
    gemm(Trans::N, Trans::N, rows, r, w.din, x, ldx, u.A.data() + copy * w.din * r, r, t, r);
    for (i64 i = 0; i < rows * r; ++i) t[i] *= kLoraScale;
    gemm(Trans::N, Trans::N, rows, w.dout, r, t, r, u.B.data() + copy * r * w.dout, w.dout, y, ldy, true);
  }

  // The same rows backward: dx (+)= dy·Wᵀ (+ LoRA's), and the gradients of the trained W, b, A, B of that copy.
  void linear_backward(Unit& u, i64 copy, i64 row0, i64 rows, const float* x, i64 ldx, const float* dy, i64 lddy,
                       float* dx, i64 lddx, bool acc) {
    const Lin& w = u.lin;
    const float* Wc = w.w + copy * w.din * w.dout;
    gemm(Trans::N, Trans::T, rows, w.din, w.dout, dy, lddy, Wc, w.dout, dx, lddx, acc);
    if (float* gw = grad_of(w.w))
      gemm(Trans::T, Trans::N, w.din, w.dout, rows, x, ldx, dy, lddy, gw + copy * w.din * w.dout, w.dout);
    if (w.b)
      if (float* gb = grad_of(w.b))
        for (i64 row = 0; row < rows; ++row)
          for (i64 j = 0; j < w.dout; ++j) gb[copy * w.dout + j] += dy[row * lddy + j];
    if (!u.lora) return;
    const float* t = u.t.data() + row0 * r;
    const float* A = u.A.data() + copy * w.din * r;
    const float* B = u.B.data() + copy * r * w.dout;
    gemm(Trans::T, Trans::N, r, w.dout, rows, t, r, dy, lddy, grad_of(u.B.data()) + copy * r * w.dout, w.dout);
    Buffer dt = make(Mem::Activations, rows * r);  // (alpha/r)·dy·Bᵀ = ∂L/∂(x·A)
    gemm(Trans::N, Trans::T, rows, r, w.dout, dy, lddy, B, w.dout, dt.data(), r);
    for (i64 i = 0; i < rows * r; ++i) dt[i] *= kLoraScale;
    gemm(Trans::T, Trans::N, w.din, r, rows, x, ldx, dt.data(), r, grad_of(u.A.data()) + copy * w.din * r, r);
    gemm(Trans::N, Trans::T, rows, w.din, r, dt.data(), r, A, r, dx, lddx, true);
  }

  i64 width(const Mlp& m) const { return units[m.down].lin.din; }
  void begin_mlp(const Mlp& m, i64 rows, Mem keep) {
    for (int i : {m.gate, m.up, m.gate_up, m.down})
      if (i >= 0) begin_t(units[i], rows, keep);
  }
  void end_mlp(const Mlp& m) {
    for (int i : {m.gate, m.up, m.gate_up, m.down})
      if (i >= 0) units[i].t = Buffer{};
  }

  // rows of x (ld d) through an MLP: hid (ld 2f gated, f classic) gets gate‖up, prod act(gate)·up, y the output.
  void mlp(const Mlp& m, i64 copy, i64 row0, i64 rows, const float* x, float* hid_, float* prod_, float* y) {
    const core::Activation act = dec->cfg.act;
    const i64 fw = width(m), ldh = gated ? 2 * fw : fw;
    if (m.gate_up >= 0) {
      linear(units[m.gate_up], copy, row0, rows, x, d, hid_, ldh);
    } else {
      if (gated) linear(units[m.gate], copy, row0, rows, x, d, hid_, ldh);
      linear(units[m.up], copy, row0, rows, x, d, hid_ + (gated ? fw : 0), ldh);
    }
    for (i64 row = 0; row < rows; ++row) {
      const float* hr = hid_ + row * ldh;
      float* pr = prod_ + row * fw;
      for (i64 j = 0; j < fw; ++j) pr[j] = gated ? activate(act, hr[j]) * hr[fw + j] : activate(act, hr[j]);
    }
    linear(units[m.down], copy, row0, rows, prod_, fw, y, d);
  }

  // Its backward from dy: dx (+)= ∂L/∂x (acc), gradients of the copy's trained matrices.
  void mlp_backward(const Mlp& m, i64 copy, i64 row0, i64 rows, const float* x, const float* hid_, const float* prod_,
                    const float* dy, float* dx, bool acc) {
    const core::Activation act = dec->cfg.act;
    const i64 fw = width(m), ldh = gated ? 2 * fw : fw;
    Buffer dprod = make(Mem::Activations, rows * fw);
    linear_backward(units[m.down], copy, row0, rows, prod_, fw, dy, d, dprod.data(), fw, false);
    Buffer dhid = make(Mem::Activations, rows * ldh);
    for (i64 row = 0; row < rows; ++row) {
      const float* hr = hid_ + row * ldh;
      const float* dp = dprod.data() + row * fw;
      float* dh = dhid.data() + row * ldh;
      for (i64 j = 0; j < fw; ++j) {
        if (gated) {
          dh[j] = dp[j] * hr[fw + j] * activate_grad(act, hr[j]);
          dh[fw + j] = dp[j] * activate(act, hr[j]);
        } else {
          dh[j] = dp[j] * activate_grad(act, hr[j]);
        }
      }
    }
    dprod = Buffer{};
    if (m.gate_up >= 0) {
      linear_backward(units[m.gate_up], copy, row0, rows, x, d, dhid.data(), ldh, dx, d, acc);
    } else {
      if (gated) linear_backward(units[m.gate], copy, row0, rows, x, d, dhid.data(), ldh, dx, d, acc);
      linear_backward(units[m.up], copy, row0, rows, x, d, dhid.data() + (gated ? fw : 0), ldh, dx, d, gated || acc);
    }
  }

  // The routing of every row from the kept probabilities (ffn.cpp add_moe_ops): top_k of the
  // probabilities (+ the correction bias, for the choice only), their weights renormalized unless
  // norm_topk_prob is false, times routed_scaling_factor; entries (row·k + slot) grouped by expert.
  void route() {
    const float* corr = L->router_correction;
    sel.assign(static_cast<size_t>(M * top_k), 0);
    selw.assign(static_cast<size_t>(M * top_k), 0.0f);
    for (i64 row = 0; row < M; ++row) {
      const float* p = probs.data() + row * E;
      std::int32_t* sr = sel.data() + row * top_k;
      ref::top_k(p, corr, E, top_k, sr);  // math.hpp's, as ffn.cpp routes
      double sum = 0;
      for (i64 i = 0; i < top_k; ++i) sum += p[sr[i]];
      if (!norm_topk) sum = 1.0;
      for (i64 i = 0; i < top_k; ++i) selw[row * top_k + i] = static_cast<float>(p[sr[i]] / sum * routed_scale);
    }
    off.assign(static_cast<size_t>(E + 1), 0);
    for (std::int32_t e : sel) ++off[e + 1];
    for (i64 e = 0; e < E; ++e) off[e + 1] += off[e];
    order.assign(sel.size(), 0);
    std::vector<std::int32_t> next(off.begin(), off.end() - 1);
    for (size_t i = 0; i < sel.size(); ++i) order[next[sel[i]]++] = static_cast<std::int32_t>(i);
  }

  // The MoE FFN on n2 into y (M × d, overwritten); saved tensors in `km`.
  void moe_forward(float* y, Mem km) {
    const Lin& R = L->router;
    Buffer logits = make(Mem::Activations, M * E);
    gemm(Trans::N, Trans::N, M, E, d, n2.data(), d, R.w, E, logits.data(), E);
    probs = make(km, M * E);
    for (i64 row = 0; row < M; ++row) {
      float* lr = logits.data() + row * E;
      if (R.b)
        for (i64 e = 0; e < E; ++e) lr[e] += R.b[e];
      if (sigmoid_router)
        for (i64 e = 0; e < E; ++e) lr[e] = 1.0f / (1.0f + std::exp(-lr[e]));
      else
        softmax(lr, E);
      std::memcpy(probs.data() + row * E, lr, static_cast<size_t>(E) * 4);
    }
    logits = Buffer{};
    route();
    const i64 N = M * top_k, ldh = 2 * fe;
    xg = make(km, N * d);
    hg = make(km, N * ldh);
    pg = make(km, N * fe);
    yg = make(km, N * d);
    for (i64 i = 0; i < N; ++i) std::memcpy(xg.data() + i * d, n2.data() + (order[i] / top_k) * d, static_cast<size_t>(d) * 4);
    begin_mlp(expert, N, km);
    for (i64 e = 0; e < E; ++e) {
      const i64 r0 = off[e], rows = off[e + 1] - off[e];
      if (rows > 0) mlp(expert, e, r0, rows, xg.data() + r0 * d, hg.data() + r0 * ldh, pg.data() + r0 * fe, yg.data() + r0 * d);
    }
    std::fill_n(y, M * d, 0.0f);
    for (i64 i = 0; i < N; ++i) axpy(selw[order[i]], yg.data() + i * d, y + (order[i] / top_k) * d, d);
    if (km != Mem::Saved) {
      end_mlp(expert);
      probs = Buffer{}, xg = Buffer{}, hg = Buffer{}, pg = Buffer{}, yg = Buffer{};
    }
    if (shared.down < 0) return;
    hs = make(km, M * 2 * fs);
    ps = make(km, M * fs);
    const bool gate = static_cast<bool>(L->shared_gate);
    ys = make(gate ? km : Mem::Activations, M * d);
    begin_mlp(shared, M, km);
    mlp(shared, 0, 0, M, n2.data(), hs.data(), ps.data(), ys.data());
    if (gate) {  // Qwen2-MoE: sigmoid(x·w_g) scales the shared experts' output (ffn.cpp add_moe_ops)
      sg = make(km, M);
      for (i64 row = 0; row < M; ++row) sg[row] = 1.0f / (1.0f + std::exp(-dot(n2.data() + row * d, L->shared_gate.w, d)));
    }
    for (i64 row = 0; row < M; ++row) axpy(gate ? sg[row] : 1.0f, ys.data() + row * d, y + row * d, d);
    if (km != Mem::Saved) end_mlp(shared), hs = Buffer{}, ps = Buffer{}, sg = Buffer{};
    if (!gate || km != Mem::Saved) ys = Buffer{};  // kept only for the gate's backward
  }

  // Its backward from dy: dn2 += ∂L/∂n2, gradients of the router, the experts and the shared gate.
  void moe_backward(const float* dy, float* dn2) {
    route();  // rebuilt from the kept probabilities
    const i64 N = M * top_k, ldh = 2 * fe;
    if (shared.down >= 0) {
      const bool gate = static_cast<bool>(L->shared_gate);
      Buffer dys;
      const float* dshared = dy;
      if (gate) {
        dys = make(Mem::Activations, M * d);
        float* gw = grad_of(L->shared_gate.w);
        for (i64 row = 0; row < M; ++row) {
          const float g = sg[row];
          const float dpre = dot(dy + row * d, ys.data() + row * d, d) * g * (1.0f - g);
          for (i64 j = 0; j < d; ++j) dys[row * d + j] = g * dy[row * d + j];
          axpy(dpre, L->shared_gate.w, dn2 + row * d, d);
          if (gw) axpy(dpre, n2.data() + row * d, gw, d);
        }
        dshared = dys.data();
        ys = Buffer{}, sg = Buffer{};
      }
      mlp_backward(shared, 0, 0, M, n2.data(), hs.data(), ps.data(), dshared, dn2, true);
      end_mlp(shared);
      hs = Buffer{}, ps = Buffer{};
    }
    // The weighted combine: each entry's output gradient is w·dy, each weight's is its output · dy.
    Buffer dyg = make(Mem::Activations, N * d);
    std::vector<float> dw(static_cast<size_t>(N), 0.0f);
    for (i64 i = 0; i < N; ++i) {
      const float* dr = dy + (order[i] / top_k) * d;
      for (i64 j = 0; j < d; ++j) dyg[i * d + j] = selw[order[i]] * dr[j];
      dw[order[i]] = dot(dr, yg.data() + i * d, d);
    }
    yg = Buffer{};
    Buffer dxg = make(Mem::Activations, N * d);
    for (i64 e = 0; e < E; ++e) {
      const i64 r0 = off[e], rows = off[e + 1] - off[e];
      mlp_backward(expert, e, r0, rows, xg.data() + r0 * d, hg.data() + r0 * ldh, pg.data() + r0 * fe,
                   dyg.data() + r0 * d, dxg.data() + r0 * d, false);
    }
    end_mlp(expert);
    dyg = Buffer{}, xg = Buffer{}, hg = Buffer{}, pg = Buffer{};
    for (i64 i = 0; i < N; ++i) axpy(1.0f, dxg.data() + i * d, dn2 + (order[i] / top_k) * d, d);
    dxg = Buffer{};
    // The router: ∂L/∂p of the chosen experts through the (renormalized, scaled) weights, then
    // through softmax (p ⊙ (dp − Σ dp·p)) or the sigmoid (p·(1 − p)).
    Buffer dlogits = make(Mem::Activations, M * E);
    std::fill_n(dlogits.data(), M * E, 0.0f);
    for (i64 row = 0; row < M; ++row) {
      const float* p = probs.data() + row * E;
      float* dl = dlogits.data() + row * E;
      const std::int32_t* sr = sel.data() + row * top_k;
      double S = 0, dot_wp = 0;
      for (i64 i = 0; i < top_k; ++i) S += p[sr[i]], dot_wp += static_cast<double>(dw[row * top_k + i]) * p[sr[i]];
      for (i64 i = 0; i < top_k; ++i) {
        const double g = dw[row * top_k + i];
        dl[sr[i]] += static_cast<float>(norm_topk ? routed_scale * (g / S - dot_wp / (S * S)) : routed_scale * g);
      }
      if (sigmoid_router) {
        for (i64 e = 0; e < E; ++e) dl[e] *= p[e] * (1.0f - p[e]);
      } else {
        double sdp = 0;
        for (i64 e = 0; e < E; ++e) sdp += static_cast<double>(dl[e]) * p[e];
        for (i64 e = 0; e < E; ++e) dl[e] = p[e] * (dl[e] - static_cast<float>(sdp));
      }
    }
    probs = Buffer{};
    const Lin& R = L->router;
    gemm(Trans::N, Trans::T, M, d, E, dlogits.data(), E, R.w, E, dn2, d, true);
    if (float* gr = grad_of(R.w)) gemm(Trans::T, Trans::N, d, E, M, n2.data(), d, dlogits.data(), E, gr, E);
    if (R.b)
      if (float* gb = grad_of(R.b))
        for (i64 row = 0; row < M; ++row) axpy(1.0f, dlogits.data() + row * E, gb, E);
  }

  i64 lo_of(i64 t) const {
    return window == 0 ? 0 : chunked ? t - t % window : std::max<i64>(0, t - window + 1);
  }
  // Scores of query row `row`, head h, over keys lo..t of its sequence, into sc (T floats).
  void scores(i64 row, i64 h, float* sc) const {
    const i64 sq = row / n, t = row % n, lo = lo_of(t), g = h / (H / K);
    const float* q = qkv.data() + row * W + h * hd;
    const float slope = alibi ? alibi_slope(h, H) : 0.0f;
    for (i64 j = lo; j <= t; ++j) {
      sc[j - lo] = dot(q, qkv.data() + (sq * n + j) * W + H * hd + g * hd, hd) * scale;
      if (alibi) sc[j - lo] -= slope * static_cast<float>(t - j);
    }
  }

  void attention() {
    Buffer sc = make(Mem::Activations, n);
    for (i64 row = 0; row < M; ++row) {
      const i64 sq = row / n, t = row % n, lo = lo_of(t), T = t - lo + 1;
      for (i64 h = 0; h < H; ++h) {
        scores(row, h, sc.data());
        float mx = sc[0];
        for (i64 j = 1; j < T; ++j) mx = std::max(mx, sc[j]);
        double sum = 0.0;
        for (i64 j = 0; j < T; ++j) sum += std::exp(static_cast<double>(sc[j] - mx));
        const float l = mx + static_cast<float>(std::log(sum));
        lse[row * H + h] = l;
        float* o = O.data() + row * H * hd + h * hd;
        std::fill_n(o, hd, 0.0f);
        const i64 g = h / (H / K);
        for (i64 j = 0; j < T; ++j)
          axpy(std::exp(sc[j] - l), qkv.data() + (sq * n + lo + j) * W + (H + K) * hd + g * hd, o, hd);
      }
    }
  }

  // FlashAttention-2's backward (Dao 2023, Algorithm 2) one query row at a time: P rebuilt from
  // the logsumexp, D = rowsum(dO ⊙ O), dS = P ⊙ (dO·Vᵀ − D).
  void attention_backward(const float* dO, float* dqkv) {
    Buffer sc = make(Mem::Activations, n);
    for (i64 row = 0; row < M; ++row) {
      const i64 sq = row / n, t = row % n, lo = lo_of(t), T = t - lo + 1;
      for (i64 h = 0; h < H; ++h) {
        const i64 g = h / (H / K);
        const float* dout = dO + row * H * hd + h * hd;
        const float D = dot(dout, O.data() + row * H * hd + h * hd, hd);
        scores(row, h, sc.data());
        const float l = lse[row * H + h];
        const float* q = qkv.data() + row * W + h * hd;
        float* dq = dqkv + row * W + h * hd;
        for (i64 j = 0; j < T; ++j) {
          const i64 kr = (sq * n + lo + j) * W;
          const float p = std::exp(sc[j] - l);
          const float dp = dot(dout, qkv.data() + kr + (H + K) * hd + g * hd, hd);
          const float ds = p * (dp - D) * scale;
          axpy(ds, qkv.data() + kr + H * hd + g * hd, dq, hd);
          axpy(ds, q, dqkv + kr + H * hd + g * hd, hd);
          axpy(p, dout, dqkv + kr + (H + K) * hd + g * hd, hd);
        }
      }
    }
  }

  void rope(float* rows, i64 sign) const {
    if (rot == 0) return;
    const ModelConfig& c = dec->cfg;
    for (i64 row = 0; row < M; ++row) {
      const i64 pos = sign * (row % n);
      for (i64 h = 0; h < H + K; ++h) rope_any(c.rope_interleaved, rows + row * W + h * hd, rot, pos, c.rope_theta);
    }
  }

  double forward(bool keep) {
    const ModelConfig& c = dec->cfg;
    const Mem km = keep ? Mem::Saved : Mem::Activations;
    kept = keep;
    n1 = make(km, M * d);
    for (i64 row = 0; row < M; ++row) norm_vec(c.norm, L->attn_norm, x0.data() + row * d, n1.data() + row * d, d);
    qkv = make(km, M * W);
    for (int u : {uqkv, uq, uk, uv, uo})
      if (u >= 0) begin_t(units[u], M, km);
    if (uqkv >= 0) {
      linear(units[uqkv], 0, 0, M, n1.data(), d, qkv.data(), W);
    } else {
      linear(units[uq], 0, 0, M, n1.data(), d, qkv.data(), W);
      linear(units[uk], 0, 0, M, n1.data(), d, qkv.data() + H * hd, W);
      linear(units[uv], 0, 0, M, n1.data(), d, qkv.data() + (H + K) * hd, W);
    }
    if (!keep) n1 = Buffer{};
    rope(qkv.data(), 1);
    O = make(km, M * H * hd);
    lse = make(km, M * H);
    attention();
    if (!keep) qkv = Buffer{}, lse = Buffer{};
    h1 = make(km, M * d);
    linear(units[uo], 0, 0, M, O.data(), H * hd, h1.data(), d);
    if (!keep) {
      O = Buffer{};
      for (int u : {uqkv, uq, uk, uv, uo})
        if (u >= 0) units[u].t = Buffer{};
    }
    for (i64 i = 0; i < M * d; ++i) h1[i] += x0[i];
    n2 = make(km, M * d);
    for (i64 row = 0; row < M; ++row) norm_vec(c.norm, L->ffn_norm, h1.data() + row * d, n2.data() + row * d, d);
    Buffer y = make(Mem::Activations, M * d);
    if (moe) {
      moe_forward(y.data(), km);
    } else {
      hid = make(km, M * (gated ? 2 * f : f));
      prod = make(km, M * f);
      begin_mlp(dense, M, km);
      mlp(dense, 0, 0, M, n2.data(), hid.data(), prod.data(), y.data());
      if (!keep) end_mlp(dense), hid = Buffer{}, prod = Buffer{};
    }
    if (!keep) n2 = Buffer{};
    for (i64 i = 0; i < M * d; ++i) y[i] += h1[i];
    if (!keep) h1 = Buffer{};
    double loss = 0.0;
    for (i64 i = 0; i < M * d; ++i) loss += static_cast<double>(y[i]) * G[i];
    return loss;
  }

  void backward() {
    const ModelConfig& c = dec->cfg;
    for (Param& p : params) p.grad = Buffer{};
    if (!kept) {  // full recomputation: the forward rebuilt, keeping what backward needs
      forward(true);
      rebuilt_saved = mem.stats()[Mem::Saved] - x0.bytes();
    }
    const float* dy = G.data();
    Buffer dn2 = make(Mem::Activations, M * d);
    if (moe) {
      std::fill_n(dn2.data(), M * d, 0.0f);
      moe_backward(dy, dn2.data());
    } else {
      mlp_backward(dense, 0, 0, M, n2.data(), hid.data(), prod.data(), dy, dn2.data(), false);
      end_mlp(dense);
      hid = Buffer{}, prod = Buffer{};
    }
    n2 = Buffer{};
    Buffer dh1 = make(Mem::Activations, M * d);
    std::memcpy(dh1.data(), dy, static_cast<size_t>(M * d) * 4);
    {
      float* gw = grad_of(L->ffn_norm.w);
      float* gb = L->ffn_norm.b ? grad_of(L->ffn_norm.b) : nullptr;
      for (i64 row = 0; row < M; ++row)
        norm_backward(c.norm, L->ffn_norm, h1.data() + row * d, dn2.data() + row * d, dh1.data() + row * d, gw, gb, d);
    }
    dn2 = Buffer{};
    h1 = Buffer{};
    // Attention
    Buffer dO = make(Mem::Activations, M * H * hd);
    linear_backward(units[uo], 0, 0, M, O.data(), H * hd, dh1.data(), d, dO.data(), H * hd, false);
    units[uo].t = Buffer{};
    Buffer dqkv = make(Mem::Activations, M * W);
    std::fill_n(dqkv.data(), M * W, 0.0f);
    attention_backward(dO.data(), dqkv.data());
    dO = Buffer{};
    O = Buffer{}, lse = Buffer{}, qkv = Buffer{};
    rope(dqkv.data(), -1);  // the transpose of a rotation is the rotation back
    Buffer dn1 = make(Mem::Activations, M * d);
    if (uqkv >= 0) {
      linear_backward(units[uqkv], 0, 0, M, n1.data(), d, dqkv.data(), W, dn1.data(), d, false);
    } else {
      linear_backward(units[uq], 0, 0, M, n1.data(), d, dqkv.data(), W, dn1.data(), d, false);
      linear_backward(units[uk], 0, 0, M, n1.data(), d, dqkv.data() + H * hd, W, dn1.data(), d, true);
      linear_backward(units[uv], 0, 0, M, n1.data(), d, dqkv.data() + (H + K) * hd, W, dn1.data(), d, true);
    }
    for (int u : {uqkv, uq, uk, uv})
      if (u >= 0) units[u].t = Buffer{};
    dqkv = Buffer{};
    n1 = Buffer{};
    dx0 = Buffer{};
    dx0 = make(Mem::Activations, M * d);
    std::memcpy(dx0.data(), dh1.data(), static_cast<size_t>(M * d) * 4);
    {
      float* gw = grad_of(L->attn_norm.w);
      float* gb = L->attn_norm.b ? grad_of(L->attn_norm.b) : nullptr;
      for (i64 row = 0; row < M; ++row)
        norm_backward(c.norm, L->attn_norm, x0.data() + row * d, dn1.data() + row * d, dx0.data() + row * d, gw, gb, d);
    }
    kept = false;
  }

  // torch.optim.AdamW (torch/optim/adamw.py, _single_tensor_adamw): decoupled weight decay
  // p ← p·(1 − lr·λ), then m, v and the bias-corrected update; states made at the first step.
  void step() {
    ++steps;
    const double lr = s.lr, bc1 = 1.0 - std::pow(kBeta1, steps), bc2 = 1.0 - std::pow(kBeta2, steps);
    for (Param& p : params) {
      if (p.m.size() == 0) {
        p.m = make(Mem::Optimizer, p.numel);
        p.v = make(Mem::Optimizer, p.numel);
        std::fill_n(p.m.data(), p.numel, 0.0f);
        std::fill_n(p.v.data(), p.numel, 0.0f);
      }
      if (p.grad.size() == 0) continue;  // no gradient reached it (torch skips a None grad)
      for (i64 i = 0; i < p.numel; ++i) {
        const double g = p.grad[i];
        p.value[i] = static_cast<float>(p.value[i] * (1.0 - lr * kWeightDecay));
        p.m[i] = static_cast<float>(kBeta1 * p.m[i] + (1.0 - kBeta1) * g);
        p.v[i] = static_cast<float>(kBeta2 * p.v[i] + (1.0 - kBeta2) * g * g);
        const double denom = std::sqrt(p.v[i] / bc2) + kAdamEps;
        p.value[i] = static_cast<float>(p.value[i] - lr / bc1 * p.m[i] / denom);
      }
    }
    for (Param& p : params) p.grad = Buffer{};  // optimizer.zero_grad(set_to_none=True)
  }
};

namespace {

// The inventory of layer `layer` alone: its kind's tensors, layers = {layer}, no globals.
core::Inventory one_layer(const core::Inventory& inv, i64 layer) {
  core::Inventory out;
  for (const core::LayerKind& k : inv.kinds)
    if (std::find(k.layers.begin(), k.layers.end(), layer) != k.layers.end()) {
      core::LayerKind one = k;
      one.layers = {layer};
      out.kinds.push_back(std::move(one));
    }
  return out;
}

std::vector<Issue> check_settings(const TrainSettings& s) {
  std::vector<Issue> bad;
  auto range = [&](const char* field, i64 lo, i64 hi, i64 v) {
    if (auto i = core::check_range(field, lo, hi, v)) bad.push_back(*i);
  };
  range("train_seq", 1, kMaxSeq, s.seq);
  range("train_batch", 1, kMaxBatch, s.micro_batch);
  range("lora_rank", 0, kMaxRank, s.lora_rank);
  if (s.lora_rank > 0 && (s.lora_targets == 0 || s.lora_targets > core::kLoraAll))
    bad.push_back(core::issue_row("lora_targets", core::Str::ref_lora_targets_empty));
  if (!(s.lr > 0.0 && s.lr <= 1.0)) bad.push_back(core::issue_row("lr", core::Str::ref_train_lr, core::format_real(s.lr)));
  return bad;
}

core::Result<Estimate> estimate(const Decoder& dec, i64 layer, const TrainSettings& s) {
  const core::Inventory inv = one_layer(dec.inv, layer);
  Estimate e;
  i64 params = 0;
  for (const core::LayerKind& k : inv.kinds)
    for (const core::Tensor& t : k.tensors) params += t.numel();
  e.weights = params * 4;
  if (s.lora_rank > 0) {
    auto a = core::lora_params(inv, s.lora_rank, s.lora_targets);
    if (!a) return a.issues();
    e.adapters = *a * 4;
    e.trainable = *a;
  } else {
    e.trainable = params;
  }
  core::Workload w;
  w.mode = core::Mode::Training;
  w.precision = core::Precision::Fp32;
  w.optimizer = core::Optimizer::AdamW;
  auto ms = core::model_states(e.trainable, w, 1);
  if (!ms) return ms.issues();
  e.grads = ms->grads;
  e.optimizer = ms->optimizer;
  core::ActParams ap;
  ap.seq = s.seq;
  ap.micro_batch = s.micro_batch;
  ap.dtype_bytes = 4;
  ap.flash = true;
  ap.dropout = false;
  ap.recompute = s.recompute;
  ap.lora_rank = s.lora_rank;
  ap.lora_targets = s.lora_targets;
  const bool moe = dec.cfg.layer_is_moe(layer);
  auto act = core::layer_activations(dec.cfg, ap, core::Mixer::Attention, true, moe);
  if (!act) return act.issues();
  e.saved = act->total;
  if (s.recompute == core::Recompute::Full) {
    ap.recompute = core::Recompute::None;
    auto none = core::layer_activations(dec.cfg, ap, core::Mixer::Attention, true, moe);
    if (!none) return none.issues();
    e.recompute = core::recompute_rebuilt_bytes(*none, *act);
  }
  return e;
}

}  // namespace

TrainStep::TrainStep(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TrainStep::~TrainStep() = default;
double TrainStep::forward() { return impl_->forward(impl_->s.recompute != core::Recompute::Full); }
void TrainStep::backward() { impl_->backward(); }
void TrainStep::step() { impl_->step(); }
float* TrainStep::input() { return impl_->x0.data(); }
const float* TrainStep::input_grad() const { return impl_->dx0.size() > 0 ? impl_->dx0.data() : nullptr; }
const MemStats& TrainStep::stats() const { return impl_->mem.stats(); }
const Decoder& TrainStep::decoder() const { return *impl_->dec; }

std::vector<TrainStep::Tensor> TrainStep::trainable() {
  std::vector<Tensor> out;
  for (Param& p : impl_->params)
    out.push_back({p.name, p.value, p.grad.size() > 0 ? p.grad.data() : nullptr, p.numel});
  return out;
}

core::Result<std::unique_ptr<TrainStep>> TrainStep::create(const ModelConfig& cfg, i64 layer, const TrainSettings& s) {
  if (auto bad = check_settings(s); !bad.empty()) return bad;
  if (auto u = train_unsupported(cfg, layer)) return *u;
  DecoderOptions o;
  o.batch = 1;
  o.context = 1;
  o.globals = false;
  o.first_layer = layer;
  o.n_layers = 1;
  o.seed = s.seed;
  auto dec = build_decoder(cfg, o);
  if (!dec) return dec.issues();
  auto impl = std::make_unique<Impl>();
  Impl& I = *impl;
  I.dec = std::move(dec.value());
  I.s = s;
  const ModelConfig& c = I.dec->cfg;
  const LayerW& L = I.dec->layers[0];
  I.L = &L;
  I.b = s.micro_batch;
  I.n = s.seq;
  I.M = I.b * I.n;
  I.d = c.d_model;
  I.H = c.n_heads;
  I.K = L.kv_heads;
  I.hd = L.head_dim;
  I.W = (I.H + 2 * I.K) * I.hd;
  I.moe = L.moe;
  I.f = L.moe ? 0 : L.down.din;
  I.r = s.lora_rank;
  I.window = L.window;
  I.chunked = L.chunked;
  I.gated = c.ffn_kind == core::FfnKind::Gated;
  I.alibi = c.pos == core::PosKind::Alibi;
  I.rot = c.pos == core::PosKind::Rotary ? rotary_dims(c, I.hd) : 0;
  I.scale = c.attn_mult > 0.0 ? static_cast<float>(c.attn_mult) : 1.0f / std::sqrt(static_cast<float>(I.hd));

  // Everything the step can hold at once, bounded above, asked of the system once before the
  // first allocation (a refusal is an Issue, not a crash mid-step).
  auto est = estimate(*I.dec, layer, s);
  if (!est) return est.issues();
  I.estimate = *est;
  const core::Checked working = core::Checked(I.M) * (3 * I.f + 2 * I.W + 4 * I.d + I.H * I.hd + I.r + 1) * 4 +
                                core::Checked(I.M) * (c.moe.top_k * (2 * I.d + 3 * c.moe.expert_ffn) + 2 * c.moe.num_experts +
                                                      3 * c.moe.shared_ffn) * 4;
  const core::Checked bound = core::Checked(est->adapters) + est->saved + est->recompute +
                              core::Checked(I.M) * (I.d * 4 + I.W + I.H * I.hd + I.H + 3 * I.f + 8 * I.r) * 4 +
                              est->grads + est->optimizer + working;
  if (!bound.ok()) return core::memory_overflow("train_seq");
  if (void* probe = ::operator new(static_cast<std::size_t>(std::min<i64>(bound.value(), i64{1} << 40)), std::nothrow)) {
    ::operator delete(probe);
  } else {
    return core::issue_row("train_seq", core::Str::ref_train_memory, core::with_commas(bound.value()));
  }

  auto unit = [&](const char* name, const Lin& lin, core::Role role) {
    Unit u;
    u.name = name;
    u.lin = lin;
    u.lora = s.lora_rank > 0 && core::lora_targets_role(s.lora_targets, role);
    I.units.push_back(std::move(u));
    return static_cast<int>(I.units.size()) - 1;
  };
  if (L.qkv) {
    I.uqkv = unit("qkv", L.qkv, core::Role::AttnQKV);
  } else {
    I.uq = unit("q", L.q, core::Role::AttnQ);
    I.uk = unit("k", L.k, core::Role::AttnK);
    I.uv = unit("v", L.v, core::Role::AttnV);
  }
  I.uo = unit("o", L.o, core::Role::AttnO);
  auto mlp_units = [&](const char* prefix, const Lin& gate, const Lin& up, const Lin& gate_up, const Lin& down) {
    Mlp m;
    const std::string p = prefix;
    if (I.gated && gate_up) {
      m.gate_up = unit((p + "gate_up").c_str(), gate_up, core::Role::FfnGateUp);
    } else {
      if (I.gated) m.gate = unit((p + "gate").c_str(), gate, core::Role::FfnGate);
      m.up = unit((p + "up").c_str(), up, core::Role::FfnUp);
    }
    m.down = unit((p + "down").c_str(), down, core::Role::FfnDown);
    return m;
  };
  if (I.moe) {
    const core::MoeConfig& mc = c.moe;
    I.E = mc.num_experts;
    I.top_k = mc.top_k;
    I.norm_topk = mc.norm_topk;
    I.routed_scale = mc.routed_scale;
    I.sigmoid_router = L.router_correction != nullptr;
    I.expert = mlp_units("experts.", L.e_gate, L.e_up, L.e_gate_up, L.e_down);
    I.fe = L.e_down.din;
    if (L.s_down) {
      I.shared = mlp_units("shared.", L.s_gate, L.s_up, L.s_gate_up, L.s_down);
      I.fs = L.s_down.din;
    }
  } else {
    I.dense = mlp_units("", L.gate, L.up, L.gate_up, L.down);
  }

  // Trainable tensors: LoRA's A (uniform in ±1/√d_in, PEFT's kaiming_uniform(a=√5) bound) and B
  // (zeros), or every tensor of the layer.
  std::uint64_t rng = s.seed * 0x9E3779B97F4A7C15ull + 7;
  auto uniform = [&rng]() {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(static_cast<double>(rng >> 40) / static_cast<double>(1ull << 24) * 2.0 - 1.0);
  };
  if (s.lora_rank > 0) {
    for (Unit& u : I.units) {
      if (!u.lora) continue;
      u.A = I.make(Mem::Adapters, u.lin.copies * u.lin.din * I.r);
      u.B = I.make(Mem::Adapters, u.lin.copies * I.r * u.lin.dout);
      const float bound_a = 1.0f / std::sqrt(static_cast<float>(u.lin.din));
      for (i64 i = 0; i < u.A.size(); ++i) u.A[i] = uniform() * bound_a;
      std::fill_n(u.B.data(), u.B.size(), 0.0f);
      I.params.push_back({u.name + ".lora_A", u.A.data(), u.A.size(), {}, {}, {}});
      I.params.push_back({u.name + ".lora_B", u.B.data(), u.B.size(), {}, {}, {}});
    }
  } else {
    for (WeightTensor& t : I.dec->weights)
      I.params.push_back({core::tensor_name(t.spec.name, t.layer), t.buf.data(), t.buf.size(), {}, {}, {}});
  }
  for (size_t i = 0; i < I.params.size(); ++i) I.param_of[I.params[i].value] = i;

  I.x0 = I.make(Mem::Saved, I.M * I.d);
  I.G = I.make(Mem::Activations, I.M * I.d);
  for (i64 sq = 0; sq < I.b; ++sq) {
    demo_inputs(s.seed + static_cast<std::uint64_t>(sq), 0, I.n, I.d, I.x0.data() + sq * I.n * I.d);
    demo_inputs(s.seed + 0x5EED + static_cast<std::uint64_t>(sq), 0, I.n, I.d, I.G.data() + sq * I.n * I.d);
  }
  I.working_peak = 0;
  return std::unique_ptr<TrainStep>(new TrainStep(std::move(impl)));
}

bool TrainStep::advance() {
  Impl& I = *impl_;
  TrainResult& r = I.result;
  TrainMemory& m = r.memory;
  const MemStats& st = I.mem.stats();
  const auto t0 = std::chrono::steady_clock::now();
  switch (I.stage) {
    case 0:
      r.loss_before = forward();
      m.saved_measured = st[Mem::Saved];
      break;
    case 1:
      backward();
      m.recompute_measured = I.rebuilt_saved;
      m.gradients_measured = st[Mem::Gradients];
      break;
    case 2:
      step();
      m.optimizer_measured = st[Mem::Optimizer];
      break;
    case 3: {
      r.loss_after = forward();  // keeps its tensors: the second step's end of forward counts in the peak
      const Estimate& e = I.estimate;
      m.weights_measured = I.dec->mem.stats()[Mem::Weights];
      m.adapters_measured = st[Mem::Adapters];
      m.weights_estimated = e.weights;
      m.adapters_estimated = e.adapters;
      m.saved_estimated = e.saved;
      m.recompute_estimated = e.recompute;
      m.gradients_estimated = e.grads;
      m.optimizer_estimated = e.optimizer;
      m.trainable_params = e.trainable;
      m.peak_measured = m.weights_measured + st.peak_total;
      m.formula_total = e.weights + e.adapters + e.saved + e.recompute + e.grads + e.optimizer;
      m.working_measured = I.working_peak;
      r.notes = {core::issue_row("demo", core::Str::demo_note_train_input), core::issue_row("demo", core::Str::demo_note_train_working)};
      break;
    }
    default:
      return true;
  }
  if (I.stage < 3) r.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ++I.stage;
  return I.stage > 3;
}

const TrainResult& TrainStep::result() const { return impl_->result; }

core::Result<TrainResult> run_train_step(const ModelConfig& cfg, i64 layer, const TrainSettings& s) {
  auto made = TrainStep::create(cfg, layer, s);
  if (!made) return made.issues();
  while (!(*made)->advance()) {
  }
  return (*made)->result();
}

}  // namespace llmsize::ref

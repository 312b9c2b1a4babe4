// Gated DeltaNet ops of a linear-attention layer (see block.hpp), following
// modeling_qwen3_next.py Qwen3NextGatedDeltaNet.forward and torch_recurrent_gated_delta_rule:
//   q‖k‖v‖z, b‖a = projections of x (Qwen3-Next groups them per key head; Qwen3.5 keeps them apart)
//   q‖k‖v       = silu(causal depthwise conv over the last conv_kernel inputs)
//   q, k        = l2norm per key head; q scaled by 1/sqrt(k_dim); value head j reads key head j / (Hv/Hk)
//   β = sigmoid(b),  g = −exp(A_log) · softplus(a + dt_bias)
//   S ← S·exp(g);  S ← S + k ⊗ β(v − Sᵀk);  o = Sᵀq          (S: k_dim × v_dim per value head)
//   o = rmsnorm(o) ⊙ w ⊙ silu(z) per value head;  out = out_proj(o)
// The state lives in the layer's KvCache (conv window, per-head matrices), carried across calls.
// Decode (one token per call) is that state update; a prefill runs the chunked form of the same
// recurrence (torch_chunk_gated_delta_rule, 64-token chunks), see chunk_rule below.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "block.hpp"
#include "math.hpp"
#include "ref/kernels/gemm.hpp"

namespace llmsize::ref {

namespace {

std::string lname(const LayerW& L, const char* what) {
  return "layer " + std::to_string(L.index) + " · " + what;
}

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// x / sqrt(Σx² + 1e-6) in place (ref: modeling_qwen3_next.py l2norm, as fla's kernels).
void l2norm_vec(float* x, i64 n) {
  double ss = 0.0;
  for (i64 i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  const float inv = static_cast<float>(1.0 / std::sqrt(ss + 1e-6));
  for (i64 i = 0; i < n; ++i) x[i] *= inv;
}

// Where each channel sits in the projection rows: Qwen3-Next's in_proj_qkvz is grouped per key
// head, [q_g | k_g | v_g (r value heads) | z_g (r value heads)], and in_proj_ba [b_g | a_g]
// (fix_query_key_value_ordering); Qwen3.5's separate projections give [q | k | v | z] and [b | a].
struct Layout {
  bool fused = false;
  i64 Hv = 0, dk = 0, dv = 0, r = 1, kd = 0, group = 0;
  // Column of conv channel ch (q‖k‖v order, as the convolution and its state see them).
  i64 col(i64 ch) const {
    if (!fused) return ch;
    if (ch < 2 * kd) {
      const i64 part = ch / kd, e = ch % kd;  // q or k, then key head e / dk
      return (e / dk) * group + part * dk + e % dk;
    }
    const i64 e = ch - 2 * kd, j = e / dv;
    return (j / r) * group + 2 * dk + (j % r) * dv + e % dv;
  }
  i64 z_col(i64 j) const { return fused ? (j / r) * group + 2 * dk + r * dv + (j % r) * dv : 2 * kd + Hv * dv + j * dv; }
  i64 b_col(i64 j) const { return fused ? (j / r) * 2 * r + j % r : j; }
  i64 a_col(i64 j) const { return fused ? (j / r) * 2 * r + r + j % r : Hv + j; }
};

// What one (sequence, value head) unit reads and writes: rows t of its tokens at stride `ld*`.
struct HeadRows {
  const float* q;  // (n, dk) at stride ldc, scaled and normed
  const float* k;  // (n, dk) at stride ldc
  float* v;        // (n, dv) at stride ldc; overwritten
  float* o;        // (n, dv) at stride ldo
  const float* beta;  // (n) at stride ldba: sigmoid(b)
  float* g;           // (n) at stride ldba: the log decay g_t, overwritten by its cumulative sum per chunk
  float* tri;      // (n, kChunk) at stride ldt: one row of the chunk's triangular matrix per token
  float* vn;       // (n, dv) at stride ldo: the chunk's new values
  i64 ldc, ldo, ldba, ldt;
};

constexpr i64 kChunk = 64;  // ref: torch_chunk_gated_delta_rule chunk_size = 64, as fla's kernels

// The gated delta rule over n tokens in chunks of kChunk (ref: modeling_qwen3_next.py
// torch_chunk_gated_delta_rule, the same algebra with the state updated in place). Within a chunk,
// with G_t = Σ_{u≤t} g_u:
//   A[t][u] = −β_t (k_t·k_u) e^{G_t−G_u} (u < t); T = (I − A)⁻¹ by forward substitution (HF's loop)
//   v'_t = Σ_{u≤t} T[t][u] β_u (v_u − e^{G_u} Sᵀk_u)        (= value − k_cumdecay·S of the reference)
//   o_t  = e^{G_t} Sᵀq_t + Σ_{u≤t} (q_t·k_u) e^{G_t−G_u} v'_u
//   S   ← e^{G_last} S + Σ_t e^{G_last−G_t} k_t ⊗ v'_t
// Sᵀk and Sᵀq of a chunk are GEMMs with the project's kernels. after(t) runs once S holds the
// state after token t (the last of each chunk).
template <class After>
void chunk_rule(const HeadRows& h, float* S, i64 n, i64 dk, i64 dv, After after) {
  for (i64 t0 = 0; t0 < n; t0 += kChunk) {
    const i64 C = std::min(kChunk, n - t0);
    auto gcum = [&](i64 t) { return h.g[(t0 + t) * h.ldba]; };  // G_t, once the loop below has run
    float acc = 0.0f;
    for (i64 t = 0; t < C; ++t) acc += h.g[(t0 + t) * h.ldba], h.g[(t0 + t) * h.ldba] = acc;
    const float* q = h.q + t0 * h.ldc;
    const float* k = h.k + t0 * h.ldc;
    float* v = h.v + t0 * h.ldc;
    float* o = h.o + t0 * h.ldo;
    float* vn = h.vn + t0 * h.ldo;
    auto tri = [&](i64 t) { return h.tri + (t0 + t) * h.ldt; };
    auto beta = [&](i64 t) { return h.beta[(t0 + t) * h.ldba]; };
    for (i64 t = 0; t < C; ++t)
      for (i64 u = 0; u < t; ++u)
        tri(t)[u] = -beta(t) * dot(k + t * h.ldc, k + u * h.ldc, dk) * std::exp(gcum(t) - gcum(u));
    for (i64 i = 1; i < C; ++i)  // row i += Σ_m row_i[m]·row_m over the rows above, ascending u keeps row_i[m > u] old
      for (i64 u = 0; u < i; ++u) {
        float add = 0.0f;
        for (i64 m = u + 1; m < i; ++m) add += tri(i)[m] * tri(m)[u];
        tri(i)[u] += add;
      }
    // vn = Sᵀk per token, then β_t (v_t − e^{G_t} vn_t), then T applied in place from the last row up.
    sgemm_strided(static_cast<int>(C), static_cast<int>(dv), static_cast<int>(dk), k, static_cast<int>(h.ldc), S,
                  static_cast<int>(dv), vn, static_cast<int>(h.ldo));
    for (i64 t = 0; t < C; ++t) {
      const float e = std::exp(gcum(t)), b = beta(t);
      for (i64 j = 0; j < dv; ++j) vn[t * h.ldo + j] = b * (v[t * h.ldc + j] - e * vn[t * h.ldo + j]);
    }
    for (i64 t = C - 1; t > 0; --t)
      for (i64 u = 0; u < t; ++u) axpy(tri(t)[u], vn + u * h.ldo, vn + t * h.ldo, dv);
    sgemm_strided(static_cast<int>(C), static_cast<int>(dv), static_cast<int>(dk), q, static_cast<int>(h.ldc), S,
                  static_cast<int>(dv), o, static_cast<int>(h.ldo));
    for (i64 t = 0; t < C; ++t) {
      float* ot = o + t * h.ldo;
      const float e = std::exp(gcum(t));
      for (i64 j = 0; j < dv; ++j) ot[j] *= e;
      for (i64 u = 0; u <= t; ++u)
        axpy(dot(q + t * h.ldc, k + u * h.ldc, dk) * std::exp(gcum(t) - gcum(u)), vn + u * h.ldo, ot, dv);
    }
    const float glast = gcum(C - 1), elast = std::exp(glast);
    for (i64 i = 0; i < dk * dv; ++i) S[i] *= elast;
    for (i64 t = 0; t < C; ++t) {
      const float w = std::exp(glast - gcum(t));
      const float* kt = k + t * h.ldc;
      for (i64 i = 0; i < dk; ++i) axpy(w * kt[i], vn + t * h.ldo, S + i * dv, dv);
    }
    after(t0 + C - 1);
  }
}

}  // namespace

void add_linear_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out,
                    Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const auto& a = c.linear;
  const i64 b = dec.opt.batch, M = b * n, d = c.d_model;
  const i64 Hv = a.v_heads, dk = a.k_dim, dv = a.v_dim, kd = a.key_dim(), vd = a.value_dim();
  const i64 CD = a.conv_dim(), Kc = a.conv_kernel, PW = 2 * kd + 2 * vd;
  Layout lay;
  lay.fused = static_cast<bool>(L.lin_qkvz);
  lay.Hv = Hv, lay.dk = dk, lay.dv = dv, lay.r = Hv / a.k_heads, lay.kd = kd;
  lay.group = 2 * dk + 2 * lay.r * dv;
  float* P = dec.ws.lin_p;
  float* BA = dec.ws.lin_ba;
  float* C = dec.ws.lin_c;
  float* O = dec.ws.lin_o;
  if (lay.fused) {
    add_op(p, gemm_op(dec, lname(L, "in_proj_qkvz"), M, in, d, L.lin_qkvz, P, PW));
    add_op(p, gemm_op(dec, lname(L, "in_proj_ba"), M, in, d, L.lin_ba, BA, 2 * Hv));
  } else {
    add_op(p, gemm_op(dec, lname(L, "in_proj_qkv"), M, in, d, L.lin_qkv, P, PW));
    add_op(p, gemm_op(dec, lname(L, "in_proj_z"), M, in, d, L.lin_z, P + CD, PW));
    add_op(p, gemm_op(dec, lname(L, "in_proj_b"), M, in, d, L.lin_b, BA, 2 * Hv));
    add_op(p, gemm_op(dec, lname(L, "in_proj_a"), M, in, d, L.lin_a, BA + Hv, 2 * Hv));
  }
  const i64 pos0 = dec.pos;
  // The convolution, one sequence per unit: its window of the last Kc inputs (zeros before the
  // first token) shifts by one row per token; tap Kc − 1 multiplies the newest input.
  add_op(p, conv_silu_op(lname(L, "conv1d"), b, n, Kc, CD, pos0, kv.conv.data(), L.conv, nullptr,
                         [=](i64 r, float* newest) {
                           for (i64 ch = 0; ch < CD; ++ch) newest[ch] = P[r * PW + lay.col(ch)];
                         },
                         C));
  const i64 Hk = a.k_heads;
  const float qscale = 1.0f / std::sqrt(static_cast<float>(dk));
  add_op(p, rows_op(lname(L, "q/k l2norm"), M, 6.0 * static_cast<double>(kd), [=](i64 r) {
    for (i64 h = 0; h < 2 * Hk; ++h) l2norm_vec(C + r * CD + h * dk, dk);
    for (i64 e = 0; e < kd; ++e) C[r * CD + e] *= qscale;
  }));
  // β = sigmoid(b) and g = −exp(A_log)·softplus(a + dt_bias), written over b and a.
  const float* dt_bias = L.dt_bias;
  const float* a_log = L.a_log;
  add_op(p, rows_op(lname(L, "beta, decay"), M, 8.0 * static_cast<double>(Hv), [=](i64 r) {
    float* row = BA + r * 2 * Hv;
    for (i64 j = 0; j < Hv; ++j) {
      row[lay.b_col(j)] = sigmoid(row[lay.b_col(j)]);
      row[lay.a_col(j)] = -std::exp(a_log[j]) * softplus(row[lay.a_col(j)] + dt_bias[j]);
    }
  }));
  // The gated delta rule, one (sequence, value head) per unit, tokens in order. Decode: two passes
  // over S per token, decaying it while reading Sᵀq into o and v − Sᵀk into v's slot (then
  // δ = β(v − Sᵀk)); o += (q·k)·δ gives (S + k ⊗ δ)ᵀq; then S += k ⊗ δ. Prefill: chunk_rule.
  float* S = kv.ssm.data();
  float* tri = dec.ws.lin_tri;
  float* VN = dec.ws.lin_vn;
  DecoderStats* stats = &dec.stats;
  Decoder* D = &dec;
  const LayerW* LP = &L;
  Op rule;
  rule.name = lname(L, "gated delta rule");
  rule.units = b * Hv;
  rule.cost_per_unit = 6.0 * static_cast<double>(n * dk * dv);
  rule.run = [=](i64 u0, i64 u1) {
    for (i64 u = u0; u < u1; ++u) {
      const i64 s = u / Hv, j = u % Hv, g = j / lay.r;
      float* st = S + u * dk * dv;
      if (pos0 == 0) std::fill_n(st, dk * dv, 0.0f);
      const i64 r0 = s * n;
      if (n > 1) {
        const HeadRows h{C + r0 * CD + g * dk, C + r0 * CD + kd + g * dk, C + r0 * CD + 2 * kd + j * dv,
                         O + r0 * vd + j * dv, BA + r0 * 2 * Hv + lay.b_col(j), BA + r0 * 2 * Hv + lay.a_col(j),
                         tri + (r0 * Hv + j) * kChunk, VN + r0 * vd + j * dv, CD, vd, 2 * Hv, Hv * kChunk};
        chunk_rule(h, st, n, dk, dv, [&](i64 t) {
          if (s == 0) record_state_norm(*D, *LP, j, pos0 + t, st, dk * dv);
        });
        continue;
      }
      const float* q = C + r0 * CD + g * dk;
      const float* k = C + r0 * CD + kd + g * dk;
      float* v = C + r0 * CD + 2 * kd + j * dv;
      float* o = O + r0 * vd + j * dv;
      const float beta = BA[r0 * 2 * Hv + lay.b_col(j)];
      const float decay = std::exp(BA[r0 * 2 * Hv + lay.a_col(j)]);
      std::fill_n(o, dv, 0.0f);
      for (i64 i = 0; i < dk; ++i) {
        float* row = st + i * dv;
        const float qi = q[i], ki = k[i];
        for (i64 e = 0; e < dv; ++e) {
          row[e] *= decay;
          o[e] += qi * row[e];
          v[e] -= ki * row[e];
        }
      }
      const float qk = dot(q, k, dk);
      for (i64 e = 0; e < dv; ++e) {
        v[e] *= beta;  // δ
        o[e] += qk * v[e];
      }
      for (i64 i = 0; i < dk; ++i) axpy(k[i], v, st + i * dv, dv);
      if (s == 0) record_state_norm(*D, *LP, j, pos0, st, dk * dv);
    }
    stats->flops += 6.0 * static_cast<double>((u1 - u0) * n * dk * dv);
    stats->kv_bytes_read += 16.0 * static_cast<double>((u1 - u0) * n * dk * dv);  // S read and written twice per token
  };
  add_op(p, std::move(rule));
  const NormW nw = L.lin_norm;
  add_op(p, rows_op(lname(L, "gated norm"), M, 8.0 * static_cast<double>(vd), [=](i64 r) {
    for (i64 j = 0; j < Hv; ++j) {
      float* o = O + r * vd + j * dv;
      const float* z = P + r * PW + lay.z_col(j);
      norm_vec(core::NormKind::RmsNorm, nw, o, o, dv);
      for (i64 e = 0; e < dv; ++e) o[e] *= z[e] / (1.0f + std::exp(-z[e]));
    }
  }));
  add_op(p, gemm_op(dec, lname(L, "out_proj"), M, O, vd, L.lin_out, out, d));
}

}  // namespace llmsize::ref

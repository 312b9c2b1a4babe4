// Mamba-1 ops of a layer (see block.hpp), following modeling_jamba.py JambaMambaMixer.slow_forward:
//   x‖gate = in_proj(h)                                    (d_inner each)
//   x      = silu(causal depthwise conv over the last conv_kernel inputs of x, + bias)
//   dt‖B‖C = x_proj(x);  dt, B, C each through its RMSNorm (dt_layernorm, b_layernorm, c_layernorm)
//   Δ      = softplus(dt_proj(dt))                         (d_inner, dt_proj with its bias)
//   per channel i and state n:  S[i][n] ← exp(Δ_i·A[i][n]) S[i][n] + Δ_i B[n] x_i,  A = −exp(A_log)
//   y_i    = Σ_n S[i][n] C[n] + D_i x_i;   y ⊙ silu(gate);   out = out_proj(y)
// The state (the conv window, and S as d_inner × state) lives in the layer's KvCache and is carried
// from call to call, as the core's plan counts it (layer_plan.cpp: d_inner × (d_conv + d_state)).
// The selective scan is sequential in the tokens (no chunked form: each channel's recurrence is a
// state-sized update per token), one (sequence, channel) per unit.
#include <cmath>
#include <cstring>

#include "block.hpp"
#include "math.hpp"

namespace llmsize::ref {

namespace {
std::string lname(const LayerW& L, const char* what) {
  return "layer " + std::to_string(L.index) + " · " + what;
}
float silu(float x) { return x / (1.0f + std::exp(-x)); }
}  // namespace

void add_mamba1_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const auto& m = c.mamba1;
  const i64 b = dec.opt.batch, M = b * n, d = c.d_model, di = c.mamba1_inner();
  const i64 N = m.state, R = m.dt_rank, Kc = m.conv_kernel, SW = R + 2 * N;
  float* Pj = dec.ws.m1_p;
  float* X = dec.ws.m1_c;
  float* Sp = dec.ws.m1_s;
  float* Dt = dec.ws.m1_dt;
  float* Y = dec.ws.m1_y;
  add_op(p, gemm_op(dec, lname(L, "in_proj"), M, in, d, L.mamba_in, Pj, 2 * di));
  const i64 pos0 = dec.pos;
  add_op(p, conv_silu_op(lname(L, "conv1d"), b, n, Kc, di, pos0, kv.conv.data(), L.conv, L.conv_bias,
                         [=](i64 r, float* newest) { std::memcpy(newest, Pj + r * 2 * di, static_cast<size_t>(di) * 4); },
                         X));
  add_op(p, gemm_op(dec, lname(L, "x_proj"), M, X, di, L.m1_x, Sp, SW));
  const NormW nd = L.m1_dt_norm, nb = L.m1_b_norm, nc = L.m1_c_norm;
  if (nd) {
    add_op(p, rows_op(lname(L, "dt, B, C norms"), M, 4.0 * static_cast<double>(SW), [=](i64 r) {
      float* row = Sp + r * SW;
      norm_vec(core::NormKind::RmsNorm, nd, row, row, R);
      norm_vec(core::NormKind::RmsNorm, nb, row + R, row + R, N);
      norm_vec(core::NormKind::RmsNorm, nc, row + R + N, row + R + N, N);
    }));
  }
  add_op(p, gemm_op(dec, lname(L, "dt_proj"), M, Sp, SW, L.m1_dt, Dt, di));
  add_op(p, rows_op(lname(L, "softplus"), M, 4.0 * static_cast<double>(di), [=](i64 r) {
    for (i64 i = 0; i < di; ++i) Dt[r * di + i] = softplus(Dt[r * di + i]);
  }));
  float* S = kv.ssm.data();
  const float* a_log = L.a_log;
  const float* Dskip = L.mamba_d;
  DecoderStats* stats = &dec.stats;
  Op scan;
  scan.name = lname(L, "selective scan");
  scan.units = b * di;
  scan.cost_per_unit = 6.0 * static_cast<double>(n * N);
  scan.run = [=](i64 u0, i64 u1) {
    for (i64 u = u0; u < u1; ++u) {
      const i64 s = u / di, i = u % di;
      float* h = S + u * N;  // (sequence s, channel i): state × 1
      if (pos0 == 0) std::fill_n(h, N, 0.0f);
      const float* A = a_log + i * N;
      for (i64 t = 0; t < n; ++t) {
        const i64 r = s * n + t;
        const float dt = Dt[r * di + i], x = X[r * di + i];
        const float* Bv = Sp + r * SW + R;
        const float* Cv = Bv + N;
        float y = 0.0f;
        for (i64 k = 0; k < N; ++k) {
          h[k] = std::exp(-std::exp(A[k]) * dt) * h[k] + dt * Bv[k] * x;
          y += h[k] * Cv[k];
        }
        Y[r * di + i] = (y + Dskip[i] * x) * silu(Pj[r * 2 * di + di + i]);
      }
    }
    stats->flops += 6.0 * static_cast<double>((u1 - u0) * n * N);
    stats->kv_bytes_read += 8.0 * static_cast<double>((u1 - u0) * N);  // the state read and written per call
  };
  add_op(p, std::move(scan));
  add_op(p, gemm_op(dec, lname(L, "out_proj"), M, Y, di, L.lin_out, out, d));
}

}  // namespace llmsize::ref

// Mamba-2 ops of a block-pattern layer (see block.hpp), following modeling_nemotron_h.py
// NemotronHMamba2Mixer.torch_forward (and modeling_bamba.py BambaMixer.torch_forward, Granite-4.0-H's
// mixer: the same maths with its own dt floor):
//   z‖xBC‖dt = in_proj(x)
//   x‖B‖C    = silu(causal depthwise conv over the last conv_kernel inputs of xBC, + bias)
//   dt       = max(softplus(dt + dt_bias), dt_floor);  A = −exp(A_log)            (per head)
//   S_h ← exp(dt·A) S_h + dt · B_g ⊗ x_h;   y_h = S_h C_g + D_h x_h   (head h reads group g = h / (heads/groups))
//   y = rmsnorm per group of d_inner/groups (y ⊙ silu(z)) ⊙ w;  out = out_proj(y)
// Falcon-H1's mixer (modeling_falcon_h1.py FalconH1Mixer.torch_forward) adds its μP multipliers on
// in_proj's parts and the output, and its gated norm is optional and may normalize before gating.
// The state (conv window, and S_h as state × head_dim per head) lives in the layer's KvCache. A
// call runs the scan in chunks of the config's chunk_size (the SSD form of the same recurrence,
// Dao & Gu 2024 §6: within a chunk the outputs are a masked product C·Bᵀ with decays, and the
// state enters and leaves through S); decode is a chunk of one token.
#include <array>
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


}  // namespace

Op conv_silu_op(std::string name, i64 b, i64 n, i64 taps, i64 channels, i64 pos0, float* windows, const float* w,
                const float* bias, std::function<void(i64 row, float* newest)> fill, float* out) {
  return rows_op(std::move(name), b, 2.0 * static_cast<double>(n * taps * channels), [=](i64 s) {
    float* st = windows + s * taps * channels;
    if (pos0 == 0) std::fill_n(st, taps * channels, 0.0f);
    for (i64 t = 0; t < n; ++t) {
      const i64 r = s * n + t;
      fill(r, conv_push(st, taps, channels));
      float* y = out + r * channels;
      conv_apply(st, taps, channels, w, bias, y);
      for (i64 ch = 0; ch < channels; ++ch) y[ch] /= 1.0f + std::exp(-y[ch]);  // silu
    }
  });
}

void add_mamba_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const auto& m = c.mamba;
  const i64 b = dec.opt.batch, M = b * n, d = c.d_model;
  const i64 H = m.heads, P = m.head_dim, N = m.state, G = m.groups, di = m.d_inner();
  const i64 CD = m.conv_dim(), Kc = m.conv_kernel, IW = m.in_proj(), chunk = std::max<i64>(1, m.chunk);
  float* Pj = dec.ws.mam_p;
  float* Cv = dec.ws.mam_c;
  float* Y = dec.ws.mam_y;
  float* Gc = dec.ws.mam_g;
  add_op(p, gemm_op(dec, lname(L, "in_proj"), M, in, d, L.mamba_in, Pj, IW));
  // Falcon-H1's μP multipliers on in_proj(x · ssm_in_multiplier): z, x, B, C and dt each by their
  // ssm_multipliers entry (FalconH1Mixer.torch_forward, compute_mup_vector). in_proj has no bias
  // there (mamba_proj_bias is refused), so the input's multiplier joins each part's.
  if (const auto& u = c.mup; u.ssm_in != 1.0 || u.ssm != std::array<double, 5>{1.0, 1.0, 1.0, 1.0, 1.0}) {
    const i64 GN = G * N, ends[5] = {di, 2 * di, 2 * di + GN, 2 * di + 2 * GN, IW};
    std::array<float, 5> f{};
    for (size_t k = 0; k < 5; ++k) f[k] = static_cast<float>(u.ssm[k] * u.ssm_in);
    add_op(p, rows_op(lname(L, "in_proj multipliers"), M, static_cast<double>(IW), [=](i64 r) {
      float* row = Pj + r * IW;
      for (i64 k = 0, j = 0; k < 5; ++k)
        for (; j < ends[k]; ++j) row[j] *= f[static_cast<size_t>(k)];
    }));
  }
  const i64 pos0 = dec.pos;
  add_op(p, conv_silu_op(lname(L, "conv1d"), b, n, Kc, CD, pos0, kv.conv.data(), L.conv, L.conv_bias,
                         [=](i64 r, float* newest) { std::memcpy(newest, Pj + r * IW + di, static_cast<size_t>(CD) * 4); },
                         Cv));
  // dt = max(softplus(dt + dt_bias), time_step_min), written over the projection's dt.
  const float* dt_bias = L.dt_bias;
  // The floor: NemotronHConfig time_step_min = 0.001 (torch_forward's clamp); BambaMixer (Granite) clamps
  // at time_step_limit[0] = 0, i.e. not at all (core: Mamba2Config::dt_floor).
  const float dt_floor = static_cast<float>(c.mamba.dt_floor);
  add_op(p, rows_op(lname(L, "dt"), M, 4.0 * static_cast<double>(H), [=](i64 r) {
    float* dt = Pj + r * IW + di + CD;
    for (i64 h = 0; h < H; ++h) dt[h] = std::max(softplus(dt[h] + dt_bias[h]), dt_floor);
  }));
  // The scan, one (sequence, head) per unit, chunk by chunk; S is state × head_dim, row n of it
  // the n-th state dimension.
  float* S = kv.ssm.data();
  const float* a_log = L.a_log;
  const float* Dskip = L.mamba_d;
  DecoderStats* stats = &dec.stats;
  Decoder* D = &dec;
  const LayerW* LP = &L;
  Op scan;
  scan.name = lname(L, "ssd scan");
  scan.units = b * H;
  scan.cost_per_unit = 4.0 * static_cast<double>(n * N * P);
  scan.run = [=](i64 u0, i64 u1) {
    for (i64 u = u0; u < u1; ++u) {
      const i64 s = u / H, h = u % H, g = h / (H / G);
      float* st = S + u * N * P;
      if (pos0 == 0) std::fill_n(st, N * P, 0.0f);
      const float A = -std::exp(a_log[h]);
      for (i64 t0 = 0; t0 < n; t0 += chunk) {
        const i64 Cn = std::min(chunk, n - t0), r0 = s * n + t0;
        auto row = [&](i64 t) { return r0 + t; };
        auto dt = [&](i64 t) { return Pj[row(t) * IW + di + CD + h]; };
        auto x = [&](i64 t) { return Cv + row(t) * CD + h * P; };
        auto Bv = [&](i64 t) { return Cv + row(t) * CD + di + g * N; };
        auto Cq = [&](i64 t) { return Cv + row(t) * CD + di + G * N + g * N; };
        float* gsum = Gc + h;  // G_t = Σ_{u≤t} dt_u·A at Gc[row(t)·H + h]
        float acc = 0.0f;
        for (i64 t = 0; t < Cn; ++t) acc += dt(t) * A, gsum[row(t) * H] = acc;
        auto gcum = [&](i64 t) { return gsum[row(t) * H]; };
        // y_t = e^{G_t} Sᵀ-side: Σ_n C_t[n] S[n][:], for the chunk's rows at once (a GEMM).
        sgemm_strided(static_cast<int>(Cn), static_cast<int>(P), static_cast<int>(N), Cq(0), static_cast<int>(CD), st,
                      static_cast<int>(P), Y + row(0) * di + h * P, static_cast<int>(di));
        for (i64 t = 0; t < Cn; ++t) {
          float* yt = Y + row(t) * di + h * P;
          const float e = std::exp(gcum(t));
          for (i64 j = 0; j < P; ++j) yt[j] = yt[j] * e + Dskip[h] * x(t)[j];
          for (i64 v = 0; v <= t; ++v)
            axpy(dot(Cq(t), Bv(v), N) * std::exp(gcum(t) - gcum(v)) * dt(v), x(v), yt, P);
        }
        const float glast = gcum(Cn - 1), elast = std::exp(glast);
        for (i64 i = 0; i < N * P; ++i) st[i] *= elast;
        for (i64 v = 0; v < Cn; ++v) {
          const float w = std::exp(glast - gcum(v)) * dt(v);
          const float* bv = Bv(v);
          for (i64 k = 0; k < N; ++k) axpy(w * bv[k], x(v), st + k * P, P);
        }
        if (s == 0) record_state_norm(*D, *LP, h, pos0 + t0 + Cn - 1, st, N * P);
      }
    }
    stats->flops += 4.0 * static_cast<double>((u1 - u0) * n * N * P);
    stats->kv_bytes_read += 8.0 * static_cast<double>((u1 - u0) * N * P);  // the state read and written per call
  };
  add_op(p, std::move(scan));
  // rmsnorm_fn(y, z, group_size = d_inner / groups, norm_before_gate = False): gate, then norm per
  // group; Falcon-H1's FalconH1RMSNormGated with norm_before_gate: norm, then gate; without its norm
  // (mamba_rms_norm false) y · silu(z) alone.
  const NormW nw = L.lin_norm;
  const bool before = c.mamba.norm_before_gate;
  add_op(p, rows_op(lname(L, nw ? "gated norm" : "gate"), M, 8.0 * static_cast<double>(di), [=](i64 r) {
    float* y = Y + r * di;
    const float* z = Pj + r * IW;
    auto gate = [&] {
      for (i64 j = 0; j < di; ++j) y[j] *= z[j] / (1.0f + std::exp(-z[j]));
    };
    if (!before || !nw) gate();
    if (!nw) return;
    const i64 gs = di / G;
    for (i64 k = 0; k < G; ++k) {
      const NormW part{nw.w + k * gs, nullptr, gs};
      norm_vec(core::NormKind::RmsNorm, part, y + k * gs, y + k * gs, gs);
    }
    if (before) gate();
  }));
  add_op(p, gemm_op(dec, lname(L, "out_proj"), M, Y, di, L.lin_out, out, d));
  if (c.mup.ssm_out != 1.0) {  // Falcon-H1: mamba(x) · ssm_out_multiplier (FalconH1DecoderLayer.forward)
    const float so = static_cast<float>(c.mup.ssm_out);
    add_op(p, rows_op(lname(L, "output multiplier"), M, static_cast<double>(d), [=](i64 r) {
      for (i64 j = 0; j < d; ++j) out[r * d + j] *= so;
    }));
  }
}

}  // namespace llmsize::ref

// Naive scalar reference (see naive.hpp). Every formula is written out again here, in the
// most direct form: full causal attention per query, K and V of MLA expanded from the
// latent, every expert evaluated per token in a loop.
#include "naive.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

namespace llmsize::test {

using core::ModelConfig;
using core::Role;
using i64 = std::int64_t;
using Vec = std::vector<double>;

namespace {

struct W {  // a weight: rows × cols (x·W), or a vector (rows = 1)
  const float* p = nullptr;
  i64 rows = 0, cols = 0;
  explicit operator bool() const { return p != nullptr; }
};

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
bool is_bias(const std::string& s) { return s.size() > 5 && s.substr(s.size() - 5) == ".bias"; }
// Always-active experts: shared_expert(s) (Qwen2-MoE, DeepSeek, …) or Granite's shared_mlp.
bool is_shared(const std::string& s) { return has(s, "shared_expert") || has(s, "shared_mlp"); }

// Looks a tensor up among layer `layer`'s weights (-1: globals) by name parts.
W find(const ref::Decoder& dec, i64 layer, const std::vector<const char*>& parts, bool bias = false,
       bool shared = false) {
  for (const auto& w : dec.weights) {
    if (w.layer != layer || is_bias(w.spec.name) != bias) continue;
    if (is_shared(w.spec.name) != shared) continue;
    for (const char* part : parts)
      if (has(w.spec.name, part)) return W{w.buf.data(), w.spec.rows, w.spec.cols};
  }
  return W{};
}
W find_role(const ref::Decoder& dec, i64 layer, Role role, bool routed, bool shared, bool bias = false) {
  for (const auto& w : dec.weights)
    if (w.layer == layer && (bias ? w.spec.of : w.spec.role) == role && w.spec.routed == routed &&
        is_shared(w.spec.name) == shared && (w.spec.role == Role::Bias) == bias && w.spec.role != Role::Norm)
      return W{w.buf.data(), w.spec.rows, w.spec.cols};
  return W{};
}

// y = x·W[copy] + b for one row vector x.
Vec lin(const Vec& x, const W& w, const W& b = W{}, i64 copy = 0) {
  Vec y(static_cast<size_t>(w.cols), 0.0);
  const float* base = w.p + copy * w.rows * w.cols;
  for (i64 j = 0; j < w.cols; ++j) {
    double s = 0;
    for (i64 i = 0; i < w.rows; ++i) s += x[i] * base[i * w.cols + j];
    y[j] = s + (b ? b.p[copy * w.cols + j] : 0.0);
  }
  return y;
}

Vec norm(const ModelConfig& c, const Vec& x, const W& w, const W& b, bool force_rms = false) {
  const double n = static_cast<double>(x.size());
  double mean = 0;
  if (!force_rms && c.norm != core::NormKind::RmsNorm) {
    for (double v : x) mean += v;
    mean /= n;
  }
  double var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  const double inv = 1.0 / std::sqrt(var / n + 1e-5);
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = (x[i] - mean) * inv * w.p[i] + (b ? b.p[i] : 0.0);
  return y;
}

double act(core::Activation a, double x) {
  switch (a) {
    case core::Activation::Gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case core::Activation::GeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case core::Activation::Relu: return std::max(0.0, x);
    case core::Activation::Silu: return x / (1 + std::exp(-x));
    case core::Activation::Relu2: return std::max(0.0, x) * std::max(0.0, x);
  }
  return x;
}

// silu of the causal depthwise convolution (padding K − 1, + bias) at row t over channels
// [off, off + C) of rows[0..t]; tap j of channel ch at conv[j·C + ch].
Vec conv_silu(const std::vector<Vec>& rows, i64 t, i64 K, i64 C, i64 off, const W& conv, const W& bias) {
  Vec y(static_cast<size_t>(C));
  for (i64 ch = 0; ch < C; ++ch) {
    double acc = bias ? bias.p[ch] : 0.0;
    for (i64 j = 0; j < K; ++j)
      if (const i64 src = t - (K - 1) + j; src >= 0) acc += conv.p[j * C + ch] * rows[src][off + ch];
    y[ch] = act(core::Activation::Silu, acc);
  }
  return y;
}

// Rotary embedding of dims [0, rot) of v[off..], pairs (i, i + rot/2).
void rope(Vec& v, i64 off, i64 rot, i64 pos, double theta) {
  for (i64 i = 0; i < rot / 2; ++i) {
    const double ang = static_cast<double>(pos) * std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rot));
    const double a = v[off + i], b = v[off + i + rot / 2];
    v[off + i] = a * std::cos(ang) - b * std::sin(ang);
    v[off + i + rot / 2] = a * std::sin(ang) + b * std::cos(ang);
  }
}

double slope(i64 h, i64 H) {  // ALiBi, Press et al. 2022
  i64 p = 1;
  while (p * 2 <= H) p *= 2;
  if (h < p) return std::pow(2.0, -8.0 * static_cast<double>(h + 1) / static_cast<double>(p));
  return std::pow(std::pow(2.0, -8.0 / static_cast<double>(2 * p)), static_cast<double>(2 * (h - p) + 1));
}

Vec slice(const Vec& v, i64 off, i64 n) { return Vec(v.begin() + off, v.begin() + off + n); }

// Each attention layer's keys and values (after their norms and RoPE) for the sequence being run,
// which the KV-shared layers of Gemma 4 read; naive_layers and naive_logits clear it per sequence.
std::map<i64, std::pair<std::vector<Vec>, std::vector<Vec>>> g_kv;

// v[off, off + n) divided by its root mean square, no weight (Llama4TextL2Norm, Gemma 4's v_norm).
void rms_unit(Vec& v, i64 off, i64 n) {
  double ms = 0;
  for (i64 e = 0; e < n; ++e) ms += v[off + e] * v[off + e] / static_cast<double>(n);
  for (i64 e = 0; e < n; ++e) v[off + e] /= std::sqrt(ms + 1e-5);
}

// Causal attention of one sequence: q (T, H, dq), k (T, KH, dq), v (T, KH, dv) → (T, H·dv).
// `sinks` (H logits, gpt-oss): a score per head beside the keys' that takes part in the softmax
// and has no value. `allow` (T × T, sparse attention): query i attends key j only where allow[i][j].
using Mask = std::vector<std::vector<bool>>;
std::vector<Vec> attend(const ModelConfig& c, bool slides, const std::vector<Vec>& q, const std::vector<Vec>& k,
                        const std::vector<Vec>& v, i64 H, i64 KH, i64 dq, i64 dv, const W& sinks,
                        const Mask* allow = nullptr) {
  const i64 T = static_cast<i64>(q.size());
  std::vector<Vec> out(static_cast<size_t>(T), Vec(static_cast<size_t>(H * dv), 0.0));
  for (i64 i = 0; i < T; ++i)
    for (i64 h = 0; h < H; ++h) {
      const i64 g = h / (H / KH);
      Vec s(static_cast<size_t>(i + 1), -INFINITY);
      for (i64 j = 0; j <= i; ++j) {
        if (slides && !c.window_chunked && i - j >= c.sliding_window) continue;
        if (slides && c.window_chunked && j < i - i % c.sliding_window) continue;  // Llama 4's chunked causal mask
        if (allow && !(*allow)[i][j]) continue;
        double dotp = 0;
        for (i64 e = 0; e < dq; ++e) dotp += q[i][h * dq + e] * k[j][g * dq + e];
        s[j] = dotp * (c.attn_mult > 0 ? c.attn_mult : 1 / std::sqrt(static_cast<double>(dq)));  // Granite: attention_multiplier
        if (c.pos == core::PosKind::Alibi) s[j] -= slope(h, H) * static_cast<double>(i - j);
      }
      const double sink = sinks ? sinks.p[h] : -INFINITY;
      const double mx = std::max(sink, *std::max_element(s.begin(), s.end()));
      double sum = sinks ? std::exp(sink - mx) : 0.0;
      for (double& e : s) sum += (e = std::exp(e - mx));
      for (i64 j = 0; j <= i; ++j)
        for (i64 e = 0; e < dv; ++e) out[i][h * dv + e] += s[j] / sum * v[j][g * dv + e];
    }
  return out;
}

// A value rounded to fp8 e4m3 (3 mantissa bits, smallest normal 2^-6, subnormal step 2^-9,
// largest 448), ties to even; v already within ±448.
double e4m3(double v) {
  const double a = std::fabs(v);
  const double step = a >= std::ldexp(1.0, -6) ? std::ldexp(1.0, static_cast<int>(std::floor(std::log2(a))) - 3) : std::ldexp(1.0, -9);
  return std::copysign(std::nearbyint(a / step) * step, v);
}

// DeepSeek-V3.2's lightning indexer over one sequence (inference/model.py Indexer.forward and
// kernel.py act_quant / fp8_index): which keys each query attends.
Mask indexer(const ref::Decoder& dec, i64 L, const std::vector<Vec>& xn, const std::vector<Vec>& cq) {
  const ModelConfig& c = dec.cfg;
  const auto& m = c.mla;
  const i64 T = static_cast<i64>(xn.size()), HI = m.index_heads, dI = m.index_dim;
  // The orthonormal Hadamard matrix in Sylvester's order: H[i][j] = (-1)^popcount(i & j) / sqrt(n).
  auto hadamard = [&](const Vec& x, i64 off) {
    Vec y(static_cast<size_t>(dI), 0.0);
    for (i64 i = 0; i < dI; ++i)
      for (i64 j = 0; j < dI; ++j) y[i] += (__builtin_popcountll(static_cast<unsigned long long>(i & j)) % 2 ? -1.0 : 1.0) * x[off + j];
    for (double& e : y) e /= std::sqrt(static_cast<double>(dI));
    return y;
  };
  // Blocks of 128 scaled by 2^ceil(log2(max(amax, 1e-4) / 448)) ("ue8m0"), rounded to e4m3, scaled back.
  auto fp8 = [&](Vec x) {
    for (i64 b0 = 0; b0 < dI; b0 += 128) {
      const i64 b1 = std::min(dI, b0 + 128);
      double amax = 1e-4;
      for (i64 i = b0; i < b1; ++i) amax = std::max(amax, std::fabs(x[i]));
      const double sc = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(amax / 448.0))));
      for (i64 i = b0; i < b1; ++i) x[i] = e4m3(std::max(-448.0, std::min(448.0, x[i] / sc))) * sc;
    }
    return x;
  };
  const W wq = find(dec, L, {"indexer.wq_b"}), wk = find(dec, L, {"indexer.wk"}), wp = find(dec, L, {"indexer.weights_proj"});
  const W nw = find(dec, L, {"indexer.k_norm"}), nb = find(dec, L, {"indexer.k_norm"}, true);
  std::vector<std::vector<Vec>> q(static_cast<size_t>(T));
  std::vector<Vec> k(static_cast<size_t>(T)), w(static_cast<size_t>(T));
  for (i64 t = 0; t < T; ++t) {
    Vec kk = lin(xn[t], wk);
    double mean = 0, var = 0;  // the LayerNorm k_norm
    for (double e : kk) mean += e / static_cast<double>(dI);
    for (double e : kk) var += (e - mean) * (e - mean) / static_cast<double>(dI);
    for (i64 i = 0; i < dI; ++i) kk[i] = (kk[i] - mean) / std::sqrt(var + 1e-5) * nw.p[i] + nb.p[i];
    rope(kk, 0, m.qk_rope_dim, t, c.rope_theta);  // not interleaved, on the first qk_rope_head_dim values
    k[t] = fp8(hadamard(kk, 0));
    Vec qq = lin(cq[t], wq);
    for (i64 h = 0; h < HI; ++h) {
      rope(qq, h * dI, m.qk_rope_dim, t, c.rope_theta);
      q[t].push_back(fp8(hadamard(qq, h * dI)));
    }
    w[t] = lin(xn[t], wp);
    for (double& e : w[t]) e /= std::sqrt(static_cast<double>(HI * dI));
  }
  Mask allow(static_cast<size_t>(T), std::vector<bool>(static_cast<size_t>(T), false));
  for (i64 i = 0; i < T; ++i) {
    std::vector<std::pair<double, i64>> sc;  // (−score, position): ascending = best first, earlier on ties
    for (i64 j = 0; j <= i; ++j) {
      double s = 0;
      for (i64 h = 0; h < HI; ++h) {
        double qk = 0;
        for (i64 e = 0; e < dI; ++e) qk += q[i][h][e] * k[j][e];
        s += w[i][h] * std::max(0.0, qk);
      }
      sc.emplace_back(-s, j);
    }
    std::sort(sc.begin(), sc.end());
    for (i64 r = 0; r < std::min(m.index_topk, i + 1); ++r) allow[i][sc[r].second] = true;
  }
  return allow;
}

std::vector<Vec> attention(const ref::Decoder& dec, i64 L, const std::vector<Vec>& xn) {
  const ModelConfig& c = dec.cfg;
  const i64 T = static_cast<i64>(xn.size()), H = c.n_heads;
  std::vector<Vec> q(T), k(T), v(T), gate, cqs(T);
  // This layer's K and head size (NAS block_configs; Gemma 4's full layers: num_global_key_value_heads, global_head_dim).
  i64 KH = c.kv_heads_at(L), dq = c.head_dim_at(L), dv = c.head_dim_at(L);
  if (c.mla.enabled) {
    const auto& m = c.mla;
    KH = H, dq = m.qk_nope_dim + m.qk_rope_dim, dv = m.v_head_dim;
    const W kva = find_role(dec, L, Role::MlaKVA, false, false), kvb = find_role(dec, L, Role::MlaKVB, false, false);
    for (i64 t = 0; t < T; ++t) {
      if (m.q_lora_rank > 0) {
        Vec cq = lin(xn[t], find_role(dec, L, Role::MlaQA, false, false));
        cqs[t] = norm(c, cq, find(dec, L, {"q_a_layernorm"}), W{}, true);
        q[t] = lin(cqs[t], find_role(dec, L, Role::MlaQB, false, false));
      } else {
        q[t] = lin(xn[t], find_role(dec, L, Role::AttnQ, false, false));
      }
      const Vec a = lin(xn[t], kva);
      Vec ckv = norm(c, slice(a, 0, m.kv_lora_rank), find(dec, L, {"kv_a_layernorm"}), W{}, true);
      Vec kpe = slice(a, m.kv_lora_rank, m.qk_rope_dim);
      rope(kpe, 0, m.qk_rope_dim, t, c.rope_theta);
      const Vec kv = lin(ckv, kvb);  // (H, nope + v)
      k[t].assign(static_cast<size_t>(H * dq), 0.0);
      v[t].assign(static_cast<size_t>(H * dv), 0.0);
      for (i64 h = 0; h < H; ++h) {
        rope(q[t], h * dq + m.qk_nope_dim, m.qk_rope_dim, t, c.rope_theta);
        for (i64 e = 0; e < m.qk_nope_dim; ++e) k[t][h * dq + e] = kv[h * (m.qk_nope_dim + dv) + e];
        for (i64 e = 0; e < m.qk_rope_dim; ++e) k[t][h * dq + m.qk_nope_dim + e] = kpe[e];
        for (i64 e = 0; e < dv; ++e) v[t][h * dv + e] = kv[h * (m.qk_nope_dim + dv) + m.qk_nope_dim + e];
      }
    }
  } else {
    const W qkv = find_role(dec, L, Role::AttnQKV, false, false);
    gate.resize(static_cast<size_t>(T));
    // modeling_gemma4.py: a KV-shared layer computes its queries only (KO = 0 heads of keys and values)
    // and reads the keys and values its source layer stored (shared_kv_states), after the loop.
    const bool shared = c.kv_shared_at(L);
    const i64 KO = shared ? 0 : KH;
    for (i64 t = 0; t < T; ++t) {
      if (shared) {
        q[t] = lin(xn[t], find_role(dec, L, Role::AttnQ, false, false), find_role(dec, L, Role::AttnQ, false, false, true));
      } else if (qkv) {
        const Vec all = lin(xn[t], qkv, find_role(dec, L, Role::AttnQKV, false, false, true));
        q[t] = slice(all, 0, H * dq), k[t] = slice(all, H * dq, KH * dq), v[t] = slice(all, (H + KH) * dq, KH * dq);
      } else {
        q[t] = lin(xn[t], find_role(dec, L, Role::AttnQ, false, false), find_role(dec, L, Role::AttnQ, false, false, true));
        k[t] = lin(xn[t], find_role(dec, L, Role::AttnK, false, false), find_role(dec, L, Role::AttnK, false, false, true));
        // modeling_gemma4.py Gemma4TextAttention: without v_proj (attention_k_eq_v) value_states = k_proj(x)
        v[t] = c.v_proj_at(L) ? lin(xn[t], find_role(dec, L, Role::AttnV, false, false), find_role(dec, L, Role::AttnV, false, false, true))
                              : k[t];
      }
      if (c.norm_v)  // Gemma 4's v_norm: RMS per value head, no weight
        for (i64 h = 0; h < KO; ++h) rms_unit(v[t], h * dv, dv);
      for (double& e : k[t]) e *= c.mup.key;  // modeling_falcon_h1.py FalconH1Attention: k_proj(x) · key_multiplier
      if (c.attn_out_gate) {  // modeling_qwen3_next.py: q_proj(x).view(..., H, 2·hd), chunk(2): query, gate
        Vec qq;
        for (i64 h = 0; h < H; ++h) {
          qq.insert(qq.end(), q[t].begin() + h * 2 * dq, q[t].begin() + h * 2 * dq + dq);
          gate[t].insert(gate[t].end(), q[t].begin() + h * 2 * dq + dq, q[t].begin() + (h + 1) * 2 * dq);
        }
        q[t] = qq;
      }
      if (c.norm_qk) {
        const W qw = find(dec, L, {"q_norm", "q_layernorm"}), qb = find(dec, L, {"q_norm", "q_layernorm"}, true);
        const W kw = find(dec, L, {"k_norm", "k_layernorm"}), kb = find(dec, L, {"k_norm", "k_layernorm"}, true);
        if (c.norm_qk_full) {  // modeling_olmo2.py: q_norm(q_proj(x)), k_norm(k_proj(x)) before the heads split
          q[t] = norm(c, q[t], qw, qb);
          if (!shared) k[t] = norm(c, k[t], kw, kb);
        } else {
          for (i64 h = 0; h < H; ++h) {
            const Vec y = norm(c, slice(q[t], h * dq, dq), qw, qb);
            std::copy(y.begin(), y.end(), q[t].begin() + h * dq);
          }
          for (i64 h = 0; h < KO; ++h) {
            const Vec y = norm(c, slice(k[t], h * dq, dq), kw, kb);
            std::copy(y.begin(), y.end(), k[t].begin() + h * dq);
          }
        }
      }
      // Llama 4 (modeling_llama4.py Llama4TextAttention.forward): layers without a window have no RoPE
      // and scale q by log1p(floor((t + 1) / floor_scale)) · attn_scale + 1; layers with RoPE (adjacent
      // pairs) then divide q and k by their RMS per head.
      const bool nope = c.nope_full && !c.layer_slides(L);
      if (c.pos == core::PosKind::Rotary && !nope) {
        i64 rot = static_cast<i64>(static_cast<double>(dq) * c.rotary_fraction);
        rot -= rot % 2;
        auto rot_any = [&](Vec& x, i64 off) {
          if (!c.rope_interleaved) return rope(x, off, rot, t, c.rope_theta);
          for (i64 i = 0; i < rot / 2; ++i) {
            const double ang = static_cast<double>(t) * std::pow(c.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(rot));
            const double a = x[off + 2 * i], b = x[off + 2 * i + 1];
            x[off + 2 * i] = a * std::cos(ang) - b * std::sin(ang);
            x[off + 2 * i + 1] = a * std::sin(ang) + b * std::cos(ang);
          }
        };
        for (i64 h = 0; h < H; ++h) rot_any(q[t], h * dq);
        for (i64 h = 0; h < KO; ++h) rot_any(k[t], h * dq);
      }
      auto l2 = [&](Vec& x, i64 off) { rms_unit(x, off, dq); };
      if (c.qk_l2norm && !nope) {
        for (i64 h = 0; h < H; ++h) l2(q[t], h * dq);
        for (i64 h = 0; h < KO; ++h) l2(k[t], h * dq);
      }
      if (nope && c.attn_floor_scale > 0)
        for (double& e : q[t]) e *= std::log1p(std::floor((static_cast<double>(t) + 1) / c.attn_floor_scale)) * c.attn_temp_scale + 1;
    }
    if (shared) {  // store_full_length_kv: the last layer of this kind before the first shared one
      i64 src = c.n_layers - c.kv_shared - 1;
      while (src >= 0 && c.layer_slides(src) != c.layer_slides(L)) --src;
      std::tie(k, v) = g_kv.at(src);
    } else {
      g_kv[L] = {k, v};
    }
  }
  Mask allow;
  if (c.mla.has_indexer()) allow = indexer(dec, L, xn, cqs);
  auto o = attend(c, c.layer_slides(L), q, k, v, H, KH, dq, dv, find_role(dec, L, Role::AttnSink, false, false),
                  allow.empty() ? nullptr : &allow);
  if (c.attn_out_gate)  // attn_output * torch.sigmoid(gate)
    for (i64 t = 0; t < T; ++t)
      for (size_t e = 0; e < o[t].size(); ++e) o[t][e] *= 1 / (1 + std::exp(-gate[t][e]));
  std::vector<Vec> out(T);
  const W ow = find_role(dec, L, Role::AttnO, false, false), ob = find_role(dec, L, Role::AttnO, false, false, true);
  for (i64 t = 0; t < T; ++t) out[t] = lin(o[t], ow, ob);
  return out;
}

// Gated DeltaNet over one sequence, as modeling_qwen3_next.py Qwen3NextGatedDeltaNet.forward
// with torch_recurrent_gated_delta_rule (Qwen3.5: modeling_qwen3_5.py, four projections).
std::vector<Vec> linear_attention(const ref::Decoder& dec, i64 L, const std::vector<Vec>& xn) {
  const ModelConfig& c = dec.cfg;
  const auto& a = c.linear;
  const i64 T = static_cast<i64>(xn.size()), Hk = a.k_heads, Hv = a.v_heads, dk = a.k_dim, dv = a.v_dim;
  const i64 rep = Hv / Hk, kd = a.key_dim(), CD = a.conv_dim(), K = a.conv_kernel;
  const W qkvz = find(dec, L, {"in_proj_qkvz"}), ba = find(dec, L, {"in_proj_ba"});
  std::vector<Vec> mixed(T), z(T), bb(T), aa(T);
  for (i64 t = 0; t < T; ++t) {
    if (qkvz) {  // fix_query_key_value_ordering: view (Hk, 2·dk + 2·rep·dv) and (Hk, 2·rep), then split
      const Vec p = lin(xn[t], qkvz), q2 = lin(xn[t], ba);
      const i64 gw = 2 * dk + 2 * rep * dv;
      Vec qs, ks, vs;
      for (i64 g = 0; g < Hk; ++g) {
        const i64 o = g * gw;
        qs.insert(qs.end(), p.begin() + o, p.begin() + o + dk);
        ks.insert(ks.end(), p.begin() + o + dk, p.begin() + o + 2 * dk);
        vs.insert(vs.end(), p.begin() + o + 2 * dk, p.begin() + o + 2 * dk + rep * dv);
        z[t].insert(z[t].end(), p.begin() + o + 2 * dk + rep * dv, p.begin() + o + gw);
        bb[t].insert(bb[t].end(), q2.begin() + g * 2 * rep, q2.begin() + g * 2 * rep + rep);
        aa[t].insert(aa[t].end(), q2.begin() + g * 2 * rep + rep, q2.begin() + (g + 1) * 2 * rep);
      }
      mixed[t] = qs;
      mixed[t].insert(mixed[t].end(), ks.begin(), ks.end());
      mixed[t].insert(mixed[t].end(), vs.begin(), vs.end());
    } else {
      mixed[t] = lin(xn[t], find(dec, L, {"in_proj_qkv."}));
      z[t] = lin(xn[t], find(dec, L, {"in_proj_z"}));
      bb[t] = lin(xn[t], find(dec, L, {"in_proj_b."}));
      aa[t] = lin(xn[t], find(dec, L, {"in_proj_a."}));
    }
  }
  // F.silu(conv1d(mixed)[..., :T]) with padding K − 1, weight[j][ch] the j-th tap of channel ch.
  const W conv = find(dec, L, {"conv1d"});
  std::vector<Vec> cv(T, Vec(static_cast<size_t>(CD), 0.0));
  for (i64 t = 0; t < T; ++t) cv[t] = conv_silu(mixed, t, K, CD, 0, conv, W{});
  const W dt = find(dec, L, {"dt_bias"}), alog = find(dec, L, {"A_log"});
  const W nw = find(dec, L, {"linear_attn.norm"}), out = find(dec, L, {"out_proj"});
  std::vector<Vec> S(static_cast<size_t>(Hv), Vec(static_cast<size_t>(dk * dv), 0.0));
  std::vector<Vec> res(T);
  for (i64 t = 0; t < T; ++t) {
    Vec o;
    for (i64 h = 0; h < Hv; ++h) {
      const i64 g = h / rep;  // repeat_interleave(rep, dim=2)
      auto l2 = [&](i64 off) {
        Vec x = slice(cv[t], off, dk);
        double ss = 0;
        for (double e : x) ss += e * e;
        for (double& e : x) e /= std::sqrt(ss + 1e-6);
        return x;
      };
      Vec q = l2(g * dk), k = l2(kd + g * dk);
      for (double& e : q) e /= std::sqrt(static_cast<double>(dk));
      const Vec v = slice(cv[t], 2 * kd + h * dv, dv);
      const double beta = 1 / (1 + std::exp(-bb[t][h]));
      const double gt = -std::exp(static_cast<double>(alog.p[h])) * std::log1p(std::exp(aa[t][h] + dt.p[h]));
      Vec& st = S[h];
      for (double& e : st) e *= std::exp(gt);
      Vec delta(static_cast<size_t>(dv));
      for (i64 e = 0; e < dv; ++e) {
        double mem = 0;
        for (i64 i = 0; i < dk; ++i) mem += st[i * dv + e] * k[i];
        delta[e] = (v[e] - mem) * beta;
      }
      for (i64 i = 0; i < dk; ++i)
        for (i64 e = 0; e < dv; ++e) st[i * dv + e] += k[i] * delta[e];
      Vec oh(static_cast<size_t>(dv), 0.0);
      for (i64 e = 0; e < dv; ++e)
        for (i64 i = 0; i < dk; ++i) oh[e] += st[i * dv + e] * q[i];
      oh = norm(c, oh, nw, W{}, true);  // Qwen3NextRMSNormGated: norm, weight, then · silu(z)
      for (i64 e = 0; e < dv; ++e) oh[e] *= act(core::Activation::Silu, z[t][h * dv + e]);
      o.insert(o.end(), oh.begin(), oh.end());
    }
    res[t] = lin(o, out);
  }
  return res;
}

// A weight of layer L by the end of its inventory name ("backbone.layers.{i}.norm.weight": pass
// "}.norm.weight", which "mixer.norm.weight" does not end with).
W exact(const ref::Decoder& dec, i64 layer, const std::string& tail) {
  for (const auto& w : dec.weights)
    if (w.layer == layer && w.spec.name.size() >= tail.size() &&
        w.spec.name.compare(w.spec.name.size() - tail.size(), tail.size(), tail) == 0)
      return W{w.buf.data(), w.spec.rows, w.spec.cols};
  return W{};
}

// A Mamba mixer's tensor by the end of its name: Nemotron-H names the mixer `mixer`, Granite-4.0-H
// and Jamba `mamba`.
W mixer_tensor(const ref::Decoder& dec, i64 L, const std::string& tail) {
  const W w = exact(dec, L, ".mixer." + tail);
  return w ? w : exact(dec, L, ".mamba." + tail);
}

// Mamba-1 over one sequence, as modeling_jamba.py JambaMambaMixer.slow_forward, token by token.
std::vector<Vec> mamba1(const ref::Decoder& dec, i64 L, const std::vector<Vec>& xn) {
  const ModelConfig& c = dec.cfg;
  const auto& m = c.mamba1;
  const i64 T = static_cast<i64>(xn.size()), di = c.mamba1_inner(), N = m.state, R = m.dt_rank, K = m.conv_kernel;
  auto ex = [&](const char* tail) { return mixer_tensor(dec, L, tail); };
  const W in = ex("in_proj.weight"), in_b = ex("in_proj.bias"), conv = ex("conv1d.weight"), conv_b = ex("conv1d.bias");
  const W xp = ex("x_proj.weight"), dtw = ex("dt_proj.weight"), dtb = ex("dt_proj.bias");
  const W alog = ex("A_log"), D = ex("D"), out = ex("out_proj.weight"), out_b = ex("out_proj.bias");
  const W nd = ex("dt_layernorm.weight"), nb = ex("b_layernorm.weight"), nc = ex("c_layernorm.weight");
  std::vector<Vec> proj(T);
  for (i64 t = 0; t < T; ++t) proj[t] = lin(xn[t], in, in_b);  // x ‖ gate
  Vec S(static_cast<size_t>(di * N), 0.0);
  std::vector<Vec> res(T);
  for (i64 t = 0; t < T; ++t) {
    const Vec x = conv_silu(proj, t, K, di, 0, conv, conv_b);
    const Vec sp = lin(x, xp);
    Vec dt = slice(sp, 0, R), B = slice(sp, R, N), C = slice(sp, R + N, N);
    if (nd) dt = norm(c, dt, nd, W{}, true), B = norm(c, B, nb, W{}, true), C = norm(c, C, nc, W{}, true);
    Vec delta = lin(dt, dtw, dtb);
    for (double& v : delta) v = std::log1p(std::exp(v));  // softplus
    Vec y(static_cast<size_t>(di), 0.0);
    for (i64 i = 0; i < di; ++i) {
      for (i64 k = 0; k < N; ++k) {
        double& h = S[i * N + k];
        h = std::exp(-std::exp(alog.p[i * N + k]) * delta[i]) * h + delta[i] * B[k] * x[i];
        y[i] += h * C[k];
      }
      y[i] = (y[i] + D.p[i] * x[i]) * act(core::Activation::Silu, proj[t][di + i]);
    }
    res[t] = lin(y, out, out_b);
  }
  return res;
}

// Mamba-2 over one sequence, as modeling_nemotron_h.py NemotronHMamba2Mixer.torch_forward's decode
// branch applied token by token (the recurrence itself, no chunks).
std::vector<Vec> mamba(const ref::Decoder& dec, i64 L, const std::vector<Vec>& xn) {
  const auto& m = dec.cfg.mamba;
  const i64 T = static_cast<i64>(xn.size()), H = m.heads, P = m.head_dim, N = m.state, G = m.groups;
  const i64 di = m.d_inner(), CD = m.conv_dim(), K = m.conv_kernel;
  auto ex = [&](const char* tail) { return mixer_tensor(dec, L, tail); };
  const W in = ex("in_proj.weight"), in_b = ex("in_proj.bias");
  const W conv = ex("conv1d.weight"), conv_b = ex("conv1d.bias");
  const W dtb = ex("dt_bias"), alog = ex("A_log"), D = ex("D");
  const W nw = ex("norm.weight");
  const W out = ex("out_proj.weight"), out_b = ex("out_proj.bias");
  // modeling_falcon_h1.py FalconH1Mixer.torch_forward: in_proj(x · ssm_in_multiplier) · mup_vector, whose
  // parts z, x, B, C, dt carry ssm_multipliers[0..4] (compute_mup_vector); 1 for other models.
  const auto& u = dec.cfg.mup;
  std::vector<Vec> proj(T);
  for (i64 t = 0; t < T; ++t) {
    Vec xs = xn[t];
    for (double& e : xs) e *= u.ssm_in;
    proj[t] = lin(xs, in, in_b);
    for (i64 j = 0; j < di + CD + H; ++j) {
      const i64 part = j < di ? 0 : j < 2 * di ? 1 : j < 2 * di + G * N ? 2 : j < 2 * di + 2 * G * N ? 3 : 4;
      proj[t][j] *= u.ssm[part];
    }
  }
  std::vector<Vec> S(static_cast<size_t>(H), Vec(static_cast<size_t>(P * N), 0.0));  // [p][n], as the HF cache
  std::vector<Vec> res(T);
  for (i64 t = 0; t < T; ++t) {
    const Vec xbc = conv_silu(proj, t, K, CD, di, conv, conv_b);
    Vec y(static_cast<size_t>(di));
    for (i64 h = 0; h < H; ++h) {
      const i64 g = h / (H / G);
      const double dt = std::max(std::log1p(std::exp(proj[t][di + CD + h] + dtb.p[h])), dec.cfg.mamba.dt_floor);
      const double dA = std::exp(dt * -std::exp(static_cast<double>(alog.p[h])));
      for (i64 p = 0; p < P; ++p) {
        double acc = 0;
        for (i64 n = 0; n < N; ++n) {
          double& s = S[h][p * N + n];
          s = s * dA + dt * xbc[di + g * N + n] * xbc[h * P + p];
          acc += s * xbc[di + G * N + g * N + n];
        }
        y[h * P + p] = acc + D.p[h] * xbc[h * P + p];
      }
    }
    // rmsnorm_fn(norm_before_gate=False): y·silu(z), then RMS per group of d_inner/G, weight;
    // FalconH1RMSNormGated(norm_before_gate=True): the norm, then ·silu(z); no norm: y·silu(z).
    const bool before = dec.cfg.mamba.norm_before_gate && nw;
    if (!before)
      for (i64 j = 0; j < di; ++j) y[j] *= act(core::Activation::Silu, proj[t][j]);
    if (nw) {
      const i64 gs = di / G;
      for (i64 k = 0; k < G; ++k) {
        const Vec part = norm(dec.cfg, slice(y, k * gs, gs), W{nw.p + k * gs, 1, gs}, W{}, true);
        std::copy(part.begin(), part.end(), y.begin() + k * gs);
      }
    }
    if (before)
      for (i64 j = 0; j < di; ++j) y[j] *= act(core::Activation::Silu, proj[t][j]);
    res[t] = lin(y, out, out_b);
    for (double& e : res[t]) e *= u.ssm_out;  // FalconH1DecoderLayer: mamba(...) · ssm_out_multiplier
  }
  return res;
}

// LFM2's short convolution over one sequence (modeling_lfm2.py Lfm2ShortConv.slow_forward):
// B, C, x = in_proj(h).chunk(3); y = C · conv(B · x)[..., :T] with padding L − 1; out_proj(y).
std::vector<Vec> short_conv(const ref::Decoder& dec, i64 L, const std::vector<Vec>& xn) {
  const i64 T = static_cast<i64>(xn.size()), d = dec.cfg.d_model, K = dec.cfg.short_conv;
  const W in = exact(dec, L, ".conv.in_proj.weight"), in_b = exact(dec, L, ".conv.in_proj.bias");
  const W w = exact(dec, L, ".conv.conv.weight"), wb = exact(dec, L, ".conv.conv.bias");
  const W out = exact(dec, L, ".conv.out_proj.weight"), out_b = exact(dec, L, ".conv.out_proj.bias");
  std::vector<Vec> bcx(T), res(T);
  for (i64 t = 0; t < T; ++t) bcx[t] = lin(xn[t], in, in_b);
  for (i64 t = 0; t < T; ++t) {
    Vec y(static_cast<size_t>(d));
    for (i64 ch = 0; ch < d; ++ch) {
      double acc = wb ? wb.p[ch] : 0.0;
      for (i64 j = 0; j < K; ++j)
        if (const i64 src = t - (K - 1) + j; src >= 0) acc += w.p[j * d + ch] * bcx[src][ch] * bcx[src][2 * d + ch];
      y[ch] = bcx[t][d + ch] * acc;
    }
    res[t] = lin(y, out, out_b);
  }
  return res;
}

// Dense MLP (copy of an expert stack, or the shared expert).
Vec mlp(const ref::Decoder& dec, i64 L, const Vec& x, bool routed, bool shared, i64 copy, double gate_mult = 1.0) {
  const ModelConfig& c = dec.cfg;
  auto get = [&](Role r, bool bias = false) { return find_role(dec, L, r, routed, shared, bias); };
  Vec hmid;
  if (c.ffn_kind == core::FfnKind::Gated) {
    Vec g, u;
    const bool oss = c.family == core::Family::GptOss;
    if (W gu = get(Role::FfnGateUp); gu && oss) {  // gpt-oss: gate_up[..., ::2], gate_up[..., 1::2]
      const Vec both = lin(x, gu, get(Role::FfnGateUp, true), copy);
      for (i64 j = 0; j < gu.cols / 2; ++j) g.push_back(both[2 * j]), u.push_back(both[2 * j + 1]);
    } else if (gu) {
      const Vec both = lin(x, gu, get(Role::FfnGateUp, true), copy);
      g = slice(both, 0, gu.cols / 2), u = slice(both, gu.cols / 2, gu.cols / 2);
    } else {
      g = lin(x, get(Role::FfnGate), get(Role::FfnGate, true), copy);
      u = lin(x, get(Role::FfnUp), get(Role::FfnUp, true), copy);
    }
    for (size_t i = 0; i < g.size(); ++i) {
      if (oss) {  // modeling_gpt_oss.py GptOssExperts: clamp, then (up + 1) · gate · sigmoid(1.702 · gate)
        const double gc = std::min(g[i], 7.0), uc = std::clamp(u[i], -7.0, 7.0);
        g[i] = (uc + 1) * gc / (1 + std::exp(-1.702 * gc));
      } else {
        g[i] = act(c.act, g[i] * gate_mult) * u[i];  // FalconH1MLP: act(gate · mlp_multipliers[0])
      }
    }
    hmid = g;
  } else {
    hmid = lin(x, get(Role::FfnUp), get(Role::FfnUp, true), copy);
    for (double& e : hmid) e = act(c.act, e);
  }
  return lin(hmid, get(Role::FfnDown), get(Role::FfnDown, true), copy);
}

// A router's scores over the experts: softmax of the logits, or (DeepSeek-V3, a correction bias)
// their sigmoid; the experts ranked by score plus the bias, and the top k's summed score.
struct Ranked {
  Vec s;
  std::vector<i64> idx;
  double top_sum = 0;
};
Ranked rank_experts(Vec s, const W& corr, i64 k) {
  if (corr) {
    for (double& e : s) e = 1 / (1 + std::exp(-e));
  } else {
    const double mx = *std::max_element(s.begin(), s.end());
    double sum = 0;
    for (double& e : s) sum += (e = std::exp(e - mx));
    for (double& e : s) e /= sum;
  }
  Ranked r{std::move(s), std::vector<i64>(0), 0.0};
  for (i64 e = 0; e < static_cast<i64>(r.s.size()); ++e) r.idx.push_back(e);
  auto key = [&](i64 e) { return r.s[e] + (corr ? corr.p[e] : 0.0); };
  std::stable_sort(r.idx.begin(), r.idx.end(), [&](i64 a, i64 b) { return key(a) > key(b); });
  for (i64 i = 0; i < k; ++i) r.top_sum += r.s[r.idx[i]];
  return r;
}

Vec ffn(const ref::Decoder& dec, i64 L, const Vec& x) {
  const ModelConfig& c = dec.cfg;
  if (!c.layer_is_moe(L)) {  // Granite without experts: shared_mlp is the layer's FFN
    Vec y = mlp(dec, L, x, false, !find_role(dec, L, Role::FfnDown, false, false), 0, c.mup.mlp_gate);
    for (double& e : y) e *= c.mup.mlp_down;  // FalconH1MLP: down_proj(...) · mlp_multipliers[1]
    return y;
  }
  const i64 k = c.moe.top_k;
  const Ranked r = rank_experts(lin(x, find_role(dec, L, Role::Router, false, false), find_role(dec, L, Role::Router, false, false, true)),
                                find_role(dec, L, Role::RouterBias, false, false), k);
  const Vec& s = r.s;
  const std::vector<i64>& idx = r.idx;
  const double wsum = r.top_sum;
  Vec out(x.size(), 0.0);
  for (i64 i = 0; i < k; ++i) {
    if (c.moe.scale_input) {  // modeling_llama4.py Llama4TextMoe: experts(x · sigmoid(chosen logit)), summed
      const double logit = lin(x, find_role(dec, L, Role::Router, false, false))[idx[i]];
      Vec xs = x;
      for (double& e : xs) e /= 1 + std::exp(-logit);
      const Vec y = mlp(dec, L, xs, true, false, idx[i]);
      for (size_t j = 0; j < x.size(); ++j) out[j] += y[j];
      continue;
    }
    const Vec y = mlp(dec, L, x, true, false, idx[i]);
    const double w = s[idx[i]] / (c.moe.norm_topk ? wsum : 1.0) * c.moe.routed_scale;  // norm_topk_prob, routed_scaling_factor
    for (size_t j = 0; j < x.size(); ++j) out[j] += w * y[j];
  }
  if (find_role(dec, L, Role::FfnDown, false, true)) {  // mlp.shared_expert(s).*
    Vec y = mlp(dec, L, x, false, true, 0);
    double g = 1;
    if (const W sg = find_role(dec, L, Role::SharedGate, false, true)) {
      double z = 0;
      for (size_t j = 0; j < x.size(); ++j) z += x[j] * sg.p[j];
      g = 1 / (1 + std::exp(-z));
    }
    for (size_t j = 0; j < x.size(); ++j) out[j] += g * y[j];
  }
  return out;
}

// Gemma 4's MoE layer (modeling_gemma4.py Gemma4TextDecoderLayer.forward with enable_moe_block,
// Gemma4TextRouter, Gemma4TextExperts): xn = pre_feedforward_layernorm(x), x the residual stream.
Vec gemma4_moe(const ref::Decoder& dec, i64 L, const Vec& x, const Vec& xn) {
  const ModelConfig& c = dec.cfg;
  const i64 k = c.moe.top_k;
  const double d = static_cast<double>(x.size());
  Vec dense = norm(c, mlp(dec, L, xn, false, false, 0), exact(dec, L, ".post_feedforward_layernorm_1.weight"), W{});
  // The router: norm without scale, times scale and hidden_size^-0.5, proj, softmax, top_k renormalized.
  const W scale = exact(dec, L, ".router.scale"), per_expert = exact(dec, L, ".router.per_expert_scale");
  double ms = 0;
  for (double v : x) ms += v * v;
  const double inv = 1.0 / std::sqrt(ms / d + 1e-5);
  Vec r(x.size());
  for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] * inv * scale.p[i] / std::sqrt(d);
  const Ranked ranked = rank_experts(lin(r, find_role(dec, L, Role::Router, false, false)), W{}, k);
  const Vec& s = ranked.s;
  const std::vector<i64>& idx = ranked.idx;
  const double wsum = ranked.top_sum;
  const Vec xe = norm(c, x, exact(dec, L, ".pre_feedforward_layernorm_2.weight"), W{});
  Vec experts(x.size(), 0.0);
  for (i64 i = 0; i < k; ++i) {
    const Vec y = mlp(dec, L, xe, true, false, idx[i]);
    const double w = s[idx[i]] / wsum * per_expert.p[idx[i]];
    for (size_t j = 0; j < x.size(); ++j) experts[j] += w * y[j];
  }
  experts = norm(c, experts, exact(dec, L, ".post_feedforward_layernorm_2.weight"), W{});
  for (size_t j = 0; j < x.size(); ++j) dense[j] += experts[j];
  return dense;
}

// One layer over one sequence (T rows of d); pli: Gemma 4's per-layer input of each row, or null.
void layer(const ref::Decoder& dec, i64 L, std::vector<Vec>& x, const std::vector<Vec>* pli = nullptr) {
  const ModelConfig& c = dec.cfg;
  const i64 T = static_cast<i64>(x.size());
  if (!c.block_pattern.empty() && !c.block_ffn) {  // NemotronHBlock: x + mixer(norm(x)), the mixer one of three
    const W nw = exact(dec, L, "}.norm.weight");
    std::vector<Vec> xn(T);
    for (i64 t = 0; t < T; ++t) xn[t] = norm(c, x[t], nw, W{});
    const core::Mixer mx = c.layer_mixer(L);
    std::vector<Vec> y(T);
    if (mx == core::Mixer::Mamba) y = mamba(dec, L, xn);
    else if (mx == core::Mixer::Attention) y = attention(dec, L, xn);
    else for (i64 t = 0; t < T; ++t) y[t] = ffn(dec, L, xn[t]);
    for (i64 t = 0; t < T; ++t)
      for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += c.residual_mult * y[t][j];
    return;
  }
  const std::vector<const char*> n1 = {"input_layernorm", "ln_1", "self_attn_layer_norm", "ln_attn", "operator_norm"};
  auto nw = [&](const std::vector<const char*>& names, bool bias) { return find(dec, L, names, bias); };
  const W a_w = nw(n1, false), a_b = nw(n1, true);
  const std::vector<const char*> n2 = c.norm_sandwich
      ? std::vector<const char*>{"pre_feedforward_layernorm"}
      : std::vector<const char*>{"post_attention_layernorm", "ln_2", "final_layer_norm", "ln_mlp", "ffn_norm",
                                  "pre_ff_layernorm"};  // Jamba
  const W f_w = c.norm_ffn_input ? nw(n2, false) : W{}, f_b = c.norm_ffn_input ? nw(n2, true) : W{};
  const W pa = c.norm_sandwich ? nw({"post_attention_layernorm"}, false) : W{};
  const W pf = c.norm_sandwich ? nw({"post_feedforward_layernorm"}, false) : W{};
  std::vector<Vec> xn(T);
  if (c.per_layer()) {  // DeciLMDecoderLayer: x += attn(norm(x)) unless no_op, then x += ffn(norm(x)) unless no_op
    if (c.kv_heads_at(L) > 0) {
      for (i64 t = 0; t < T; ++t) xn[t] = norm(c, x[t], a_w, a_b);
      const std::vector<Vec> a = attention(dec, L, xn);
      for (i64 t = 0; t < T; ++t)
        for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += a[t][j];
    }
    if (c.ffn_at(L) > 0)
      for (i64 t = 0; t < T; ++t) {
        const Vec f = ffn(dec, L, norm(c, x[t], f_w, f_b));
        for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += f[j];
      }
    return;
  }
  for (i64 t = 0; t < T; ++t) xn[t] = c.norm_pre ? norm(c, x[t], a_w, a_b) : x[t];  // OLMo-2: no pre norm
  std::vector<Vec> a;
  if (c.layer_mixer(L) == core::Mixer::AttentionMamba) {
    // modeling_falcon_h1.py FalconH1DecoderLayer.forward: mamba(xn) · ssm_out (inside mamba()) plus
    // self_attn(xn · attention_in_multiplier) · attention_out_multiplier.
    const std::vector<Vec> m = mamba(dec, L, xn);
    std::vector<Vec> xa = xn;
    for (auto& row : xa)
      for (double& e : row) e *= c.mup.attn_in;
    a = attention(dec, L, xa);
    for (i64 t = 0; t < T; ++t)
      for (size_t j = 0; j < a[t].size(); ++j) a[t][j] = m[t][j] + c.mup.attn_out * a[t][j];
  } else a = c.layer_mixer(L) == core::Mixer::ShortConv ? short_conv(dec, L, xn)
                       : c.layer_mixer(L) == core::Mixer::Mamba     ? mamba(dec, L, xn)  // Granite-4.0-H
                       : c.layer_mixer(L) == core::Mixer::Mamba1    ? mamba1(dec, L, xn)  // Jamba
                       : c.layer_is_linear(L)                       ? linear_attention(dec, L, xn)
                                                                    : attention(dec, L, xn);
  for (i64 t = 0; t < T; ++t) {
    if (pa) a[t] = norm(c, a[t], pa, W{});
    if (c.parallel_block) {
      const Vec f = ffn(dec, L, f_w ? norm(c, x[t], f_w, f_b) : xn[t]);
      for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += c.residual_mult * (a[t][j] + f[j]);
      continue;
    }
    // Granite: residual + block output · residual_multiplier (1 elsewhere)
    for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += c.residual_mult * a[t][j];
    Vec f = c.moe.dense_beside && c.layer_is_moe(L) ? gemma4_moe(dec, L, x[t], norm(c, x[t], f_w, f_b))
                                                    : ffn(dec, L, f_w ? norm(c, x[t], f_w, f_b) : x[t]);
    if (pf) f = norm(c, f, pf, W{});
    for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += c.residual_mult * f[j];
    if (pli) {  // modeling_gemma4.py Gemma4TextDecoderLayer: x + post_per_layer_input_norm(projection(act(gate(x)) · u))
      Vec g = lin(x[t], exact(dec, L, ".per_layer_input_gate.weight"));
      for (size_t j = 0; j < g.size(); ++j) g[j] = act(c.act, g[j]) * (*pli)[t][j];
      const Vec y = norm(c, lin(g, exact(dec, L, ".per_layer_projection.weight")), exact(dec, L, ".post_per_layer_input_norm.weight"), W{});
      for (size_t j = 0; j < x[t].size(); ++j) x[t][j] += y[j];
    }
  }
}

// Gemma 4's per-layer inputs of layer L for one sequence from (b, T, built layers, ple) floats.
std::vector<Vec> ple_rows(const ref::Decoder& dec, const std::vector<float>& ple, i64 s, i64 T, size_t slot) {
  const i64 P = dec.cfg.ple_dim, n = static_cast<i64>(dec.layers.size());
  std::vector<Vec> out(T);
  for (i64 t = 0; t < T; ++t) {
    const float* row = ple.data() + ((s * T + t) * n + static_cast<i64>(slot)) * P;
    out[t] = Vec(row, row + P);
  }
  return out;
}

std::vector<std::vector<Vec>> to_seqs(const std::vector<float>& x, i64 b, i64 T, i64 d) {
  std::vector<std::vector<Vec>> seqs(b, std::vector<Vec>(T, Vec(d)));
  for (i64 s = 0; s < b; ++s)
    for (i64 t = 0; t < T; ++t)
      for (i64 j = 0; j < d; ++j) seqs[s][t][j] = x[(s * T + t) * d + j];
  return seqs;
}

}  // namespace

std::vector<double> naive_layers(const ref::Decoder& dec, const std::vector<float>& x, i64 T,
                                 const std::vector<float>& per_layer) {
  const i64 b = dec.opt.batch, d = dec.cfg.d_model;
  auto seqs = to_seqs(x, b, T, d);
  for (i64 s = 0; s < b; ++s) {
    g_kv.clear();
    for (size_t k = 0; k < dec.layers.size(); ++k) {
      const std::vector<Vec> pli = dec.cfg.ple_dim > 0 ? ple_rows(dec, per_layer, s, T, k) : std::vector<Vec>{};
      layer(dec, dec.layers[k].index, seqs[s], dec.cfg.ple_dim > 0 ? &pli : nullptr);
    }
  }
  Vec out;
  for (const auto& seq : seqs)
    for (const auto& row : seq) out.insert(out.end(), row.begin(), row.end());
  return out;
}

std::vector<double> naive_logits(const ref::Decoder& dec, const std::vector<std::int32_t>& tokens, i64 T) {
  const ModelConfig& c = dec.cfg;
  const i64 b = dec.opt.batch, d = c.d_model;
  const W embed = find_role(dec, -1, Role::Embed, false, false);
  const W pos = find_role(dec, -1, Role::PosEmbed, false, false);
  W proj_in, proj_out;
  for (const auto& w : dec.weights)
    if (w.layer < 0 && w.spec.role == Role::EmbedProj && !has(w.spec.name, "per_layer"))  // OPT's; not Gemma 4's PLE
      (has(w.spec.name, "project_in") ? proj_in : proj_out) = W{w.buf.data(), w.spec.rows, w.spec.cols};
  const i64 de = embed.cols;
  Vec out;
  for (i64 s = 0; s < b; ++s) {
    std::vector<Vec> x(T);
    for (i64 t = 0; t < T; ++t) {
      Vec e(embed.p + tokens[s * T + t] * de, embed.p + (tokens[s * T + t] + 1) * de);
      for (double& v : e) v *= c.embed_mult;  // Granite: inputs_embeds · embedding_multiplier
      x[t] = proj_in ? lin(e, proj_in) : e;
      if (pos)
        for (i64 j = 0; j < d; ++j) x[t][j] += pos.p[(t + c.pos_offset) * d + j];
      if (c.norm_embed)
        x[t] = norm(c, x[t], find(dec, -1, {"word_embeddings_layernorm"}), find(dec, -1, {"word_embeddings_layernorm"}, true));
    }
    // Gemma 4 (Gemma4TextModel.get_per_layer_inputs, project_per_layer_inputs): per layer l,
    // u_l = (norm(per_layer_model_projection(e)_l / sqrt(d)) + embed_tokens_per_layer[token]_l · sqrt(ple)) / sqrt(2).
    const i64 P = c.ple_dim;
    std::vector<std::vector<Vec>> pli(dec.layers.size(), std::vector<Vec>(T));
    if (P > 0) {
      const W table = find_role(dec, -1, Role::LayerEmbed, false, false);
      const W mp = exact(dec, -1, "per_layer_model_projection.weight"), pn = exact(dec, -1, "per_layer_projection_norm.weight");
      for (i64 t = 0; t < T; ++t) {
        Vec ctx = lin(x[t], mp);
        for (size_t k = 0; k < dec.layers.size(); ++k) {
          const i64 l = dec.layers[k].index;
          Vec u = slice(ctx, l * P, P);
          for (double& e : u) e /= std::sqrt(static_cast<double>(d));
          u = norm(c, u, pn, W{});
          for (i64 j = 0; j < P; ++j)
            u[j] = (u[j] + table.p[tokens[s * T + t] * table.cols + l * P + j] * std::sqrt(static_cast<double>(P))) / std::sqrt(2.0);
          pli[k][t] = u;
        }
      }
    }
    g_kv.clear();
    for (size_t k = 0; k < dec.layers.size(); ++k) layer(dec, dec.layers[k].index, x, P > 0 ? &pli[k] : nullptr);
    Vec h = x[T - 1];
    const std::vector<const char*> finals = {"ln_f", "model.norm", "final_layer_norm", "final_layernorm", "norm_f",
                                             "embedding_norm"};  // LFM2: model.embedding_norm is the final norm
    if (c.norm_final) h = norm(c, h, find(dec, -1, finals), find(dec, -1, finals, true));
    if (proj_out) h = lin(h, proj_out);
    const W head = find_role(dec, -1, Role::LmHead, false, false);
    const W hb = find_role(dec, -1, Role::LmHead, false, false, true);
    Vec logits(static_cast<size_t>(c.vocab), 0.0);
    for (i64 v = 0; v < c.vocab; ++v) {
      double z = hb ? hb.p[v] : 0.0;
      for (i64 j = 0; j < de; ++j) z += h[j] * (head ? head.p[j * c.vocab + v] : embed.p[v * de + j]);
      logits[v] = z / c.logits_div * c.mup.lm_head;  // Granite: logits / logits_scaling; Falcon-H1: · lm_head_multiplier
    }
    out.insert(out.end(), logits.begin(), logits.end());
  }
  return out;
}

std::vector<float> random_floats(i64 n, std::uint64_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  std::uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& e : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;  // ref: Knuth MMIX LCG
    e = static_cast<float>(static_cast<std::int64_t>(s >> 40) - (1 << 23)) * 0x1p-23f;
  }
  return v;
}

double max_rel_error(const std::vector<float>& a, const std::vector<double>& ref) {
  double ss = 0, worst = 0;
  for (double r : ref) ss += r * r;
  const double rms = std::sqrt(ss / static_cast<double>(std::max<size_t>(1, ref.size())));
  for (size_t i = 0; i < ref.size() && i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(ref[i])) return INFINITY;  // a NaN compares false: never let it pass
    worst = std::max(worst, std::abs(a[i] - ref[i]));
  }
  if (a.size() != ref.size() || !std::isfinite(rms)) return INFINITY;
  return worst / std::max(rms, 1e-30);
}

}  // namespace llmsize::test

// Attention ops of a decoder layer (see block.hpp): multi-head / grouped-query / multi-query
// attention with RoPE or ALiBi, optional sliding windows and attention sinks (gpt-oss), and DeepSeek's multi-head latent
// attention (MLA) over the compressed (kv_lora + rope) cache, with DeepSeek-V3.2's lightning indexer
// choosing the keys each query attends (DeepSeek Sparse Attention). Causal; one query row at a
// time, so scores never exceed H × context floats (a row-wise, "flash"-like schedule).
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

// Copies the attention probabilities of the query at position p (heads × visible) into
// the heat map, positions before `lo` (outside a sliding window) as zeros. With `js` (a sparse
// attention's cnt selected positions), probability j belongs to position js[j] and every other
// position is zero.
void record_heat(Decoder& dec, const LayerW& L, const float* scores, i64 ld, i64 H, i64 lo, i64 p,
                 const std::int32_t* js = nullptr, i64 cnt = 0) {
  float* heat = dec.ws.heat.data();
  const i64 P = p + 1;
  for (i64 h = 0; h < H; ++h) {
    if (js) {
      std::fill_n(heat + h * P, P, 0.0f);
      for (i64 j = 0; j < cnt; ++j) heat[h * P + js[j]] = scores[h * ld + j];
      continue;
    }
    std::fill_n(heat + h * P, lo, 0.0f);
    std::copy_n(scores + h * ld, P - lo, heat + h * P + lo);
  }
  dec.heat = HeatMap{H, P, p, L.index, heat};
}

void add_mha_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out,
                 Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const i64 M = dec.opt.batch * n, d = c.d_model, H = c.n_heads, K = L.kv_heads, hd = L.head_dim;
  // With an output gate (Qwen3-Next, Qwen3.5: modeling_qwen3_next.py Qwen3NextAttention.forward,
  // q_proj(x).view(..., H, 2·hd) chunked in two) each head's query is followed by its gate.
  const bool og = c.attn_out_gate;
  const i64 qs = og ? 2 * hd : hd;  // stride between heads' queries
  const i64 W = H * qs + 2 * K * hd, ko = H * qs, vo = ko + K * hd;
  // A KV-shared layer (Gemma 4) computes queries only and attends over its source layer's cache (kv).
  const bool shared = L.kv_from >= 0;
  const i64 Kown = shared ? 0 : K;  // the KV heads this layer computes
  float* qkv = dec.ws.qkv;
  if (L.qkv) {
    add_op(p, gemm_op(dec, lname(L, "qkv"), M, in, d, L.qkv, qkv, W));
  } else if (shared) {
    add_op(p, gemm_op(dec, lname(L, "q"), M, in, d, L.q, qkv, W));
  } else {
    add_op(p, gemm_op(dec, lname(L, "q"), M, in, d, L.q, qkv, W));
    add_op(p, gemm_op(dec, lname(L, "k"), M, in, d, L.k, qkv + ko, W));
    if (L.k_is_v)  // Gemma 4's attention_k_eq_v: value_states = k_proj's output, before k_norm and RoPE
      add_op(p, rows_op(lname(L, "v = k"), M, static_cast<double>(K * hd),
                        [=](i64 r) { std::memcpy(qkv + r * W + vo, qkv + r * W + ko, static_cast<size_t>(K * hd) * 4); }));
    else
      add_op(p, gemm_op(dec, lname(L, "v"), M, in, d, L.v, qkv + vo, W));
  }
  const i64 pos0 = dec.pos;
  if (c.mup.key != 1.0) {  // Falcon-H1: k_proj(x) · key_multiplier (FalconH1Attention.forward)
    const float km = static_cast<float>(c.mup.key);
    add_op(p, rows_op(lname(L, "key multiplier"), M, static_cast<double>(Kown * hd), [=](i64 r) {
      for (i64 e = 0; e < Kown * hd; ++e) qkv[r * W + ko + e] *= km;
    }));
  }
  if (c.norm_v && !shared) {  // Gemma 4 (Gemma4TextAttention.v_norm): RMS per value head, no weight
    add_op(p, rows_op(lname(L, "v norm"), M, 3.0 * static_cast<double>(K * hd), [=](i64 r) {
      for (i64 h = 0; h < K; ++h) rms_unit(qkv + r * W + vo + h * hd, hd);
    }));
  }
  if (L.q_norm) {
    const core::NormKind kind = c.norm;
    const NormW qn = L.q_norm, kn = L.k_norm;
    // Per head (Qwen3, Gemma 3), or once over every head's width before the heads split
    // (OLMo-2, MiniMax-M2: ref modeling_olmo2.py Olmo2Attention, q_norm over H·hd, k_norm over K·hd).
    const i64 qw = c.norm_qk_full ? H * hd : hd, kw = c.norm_qk_full ? K * hd : hd;
    add_op(p, rows_op(lname(L, "q/k norm"), M, 5.0 * static_cast<double>(W), [=](i64 r) {
      if (qw == hd)
        for (i64 h = 0; h < H; ++h) norm_vec(kind, qn, qkv + r * W + h * qs, qkv + r * W + h * qs, hd);
      else
        norm_vec(kind, qn, qkv + r * W, qkv + r * W, qw);
      for (i64 h = 0; h < Kown * hd; h += kw) norm_vec(kind, kn, qkv + r * W + ko + h, qkv + r * W + ko + h, kw);
    }));
  }
  // Llama 4: full layers have no RoPE (nope_full); RoPE layers then divide q and k per head by
  // their RMS (qk_l2norm, Llama4TextL2Norm, after RoPE), NoPE layers scale q by the temperature of
  // their position (attn_temperature_tuning). ref: modeling_llama4.py Llama4TextAttention.forward.
  const bool nope = c.nope_full && L.window == 0;
  const i64 rot = c.pos == core::PosKind::Rotary && !nope ? rotary_dims(c, hd) : 0;
  if (rot > 0) {
    const double theta = c.rope_theta;
    const bool inter = c.rope_interleaved;
    add_op(p, rows_op(lname(L, "rope"), M, 4.0 * static_cast<double>((H + Kown) * rot), [=](i64 r) {
      const i64 pos = pos0 + r % n;
      for (i64 h = 0; h < H; ++h) rope_any(inter, qkv + r * W + h * qs, rot, pos, theta);
      for (i64 h = 0; h < Kown; ++h) rope_any(inter, qkv + r * W + ko + h * hd, rot, pos, theta);
    }));
  }
  if (c.qk_l2norm && !nope) {
    add_op(p, rows_op(lname(L, "q/k l2 norm"), M, 3.0 * static_cast<double>((H + K) * hd), [=](i64 r) {
      for (i64 h = 0; h < H; ++h) rms_unit(qkv + r * W + h * qs, hd);
      for (i64 h = 0; h < Kown; ++h) rms_unit(qkv + r * W + ko + h * hd, hd);
    }));
  }
  if (nope && c.attn_floor_scale > 0.0) {
    const double fs = c.attn_floor_scale, as = c.attn_temp_scale;
    add_op(p, rows_op(lname(L, "query temperature"), M, static_cast<double>(H * hd), [=](i64 r) {
      const double pos = static_cast<double>(pos0 + r % n);
      const float t = static_cast<float>(std::log1p(std::floor((pos + 1.0) / fs)) * as + 1.0);
      for (i64 h = 0; h < H; ++h)
        for (i64 e = 0; e < hd; ++e) qkv[r * W + h * qs + e] *= t;
    }));
  }
  const bool alibi = c.pos == core::PosKind::Alibi;
  const i64 window = L.window;
  const bool chunked = L.chunked;
  // ref: Vaswani et al. 2017, eq. 1; Granite: attention_multiplier (GraniteMoeSharedAttention.scaling).
  const float scale = c.attn_mult > 0.0 ? static_cast<float>(c.attn_mult) : 1.0f / std::sqrt(static_cast<float>(hd));
  float* attn = dec.ws.attn;
  float* scores = dec.ws.scores.data();
  const i64 ctx = dec.opt.context, cap = kv.cap, wk = kv.width_k;
  const float* sinks = L.sinks;
  float* kc = kv.k.data();
  float* vc = kv.v.data();
  Decoder* D = &dec;
  const LayerW* LP = &L;
  // Gemma 4: the sliding source of KV-shared layers keeps the keys and values of the call's window
  // (Workspace::shared_win, row p − base for position p), and its shared sliding layers read them
  // there (ref: modeling_gemma4.py Gemma4TextAttention, shared_kv_states: the full-length states of
  // the forward pass, not the sliding cache).
  const bool keeps = L.window_source, reads = shared && window > 0;
  float* win = keeps || reads ? dec.ws.shared_win.data() : nullptr;
  const i64 wrows = dec.ws.shared_rows, base = std::max<i64>(0, pos0 - window + 1);
  if (keeps)
    add_op(p, rows_op(lname(L, "window for the shared layers"), dec.opt.batch, 2.0 * static_cast<double>(window * wk),
                      [=](i64 s) {
                        for (i64 q = base; q < pos0; ++q) {
                          std::memcpy(win + (s * wrows + q - base) * 2 * wk, kc + (s * cap + q % cap) * wk, static_cast<size_t>(wk) * 4);
                          std::memcpy(win + (s * wrows + q - base) * 2 * wk + wk, vc + (s * cap + q % cap) * wk, static_cast<size_t>(wk) * 4);
                        }
                      }));
  auto krow = [=](i64 s, i64 q) -> const float* { return reads ? win + (s * wrows + q - base) * 2 * wk : kc + (s * cap + q % cap) * wk; };
  auto vrow = [=](i64 s, i64 q) -> const float* { return reads ? win + (s * wrows + q - base) * 2 * wk + wk : vc + (s * cap + q % cap) * wk; };
  add_op(p, rows_op(lname(L, "attention"), M, 4.0 * static_cast<double>(H * hd * (pos0 + n)), [=](i64 r) {
    const i64 s = r / n, t = r % n, pos = pos0 + t;
    const i64 slot = (s * cap + pos % cap) * wk;
    if (!shared) {  // a shared layer's source wrote position pos earlier in this call
      std::memcpy(kc + slot, qkv + r * W + ko, static_cast<size_t>(wk) * 4);
      std::memcpy(vc + slot, qkv + r * W + vo, static_cast<size_t>(wk) * 4);
    }
    if (keeps) {
      std::memcpy(win + (s * wrows + pos - base) * 2 * wk, qkv + r * W + ko, static_cast<size_t>(wk) * 4);
      std::memcpy(win + (s * wrows + pos - base) * 2 * wk + wk, qkv + r * W + vo, static_cast<size_t>(wk) * 4);
    }
    // A sliding window keeps the last `window` keys; a chunk (Llama 4's chunked causal mask) the
    // keys from the start of the query's chunk of `window` positions.
    const i64 lo = window == 0 ? 0 : chunked ? pos - pos % window : std::max<i64>(0, pos - window + 1), T = pos - lo + 1;
    for (i64 h = 0; h < H; ++h) {
      const i64 g = h / (H / K);
      const float* q = qkv + r * W + h * qs;
      float* sc = scores + h * ctx;
      const float slope = alibi ? alibi_slope(h, H) : 0.0f;
      for (i64 j = 0; j < T; ++j) {
        const i64 pj = lo + j;
        sc[j] = dot(q, krow(s, pj) + g * hd, hd) * scale;
        if (alibi) sc[j] -= slope * static_cast<float>(pos - pj);
      }
      if (sinks) softmax_with_sink(sc, T, sinks[h]);
      else softmax(sc, T);
      float* o = attn + r * (H * hd) + h * hd;
      std::fill_n(o, hd, 0.0f);
      for (i64 j = 0; j < T; ++j) axpy(sc[j], vrow(s, lo + j) + g * hd, o, hd);
      if (og)  // attn_output * sigmoid(gate)
        for (i64 e = 0; e < hd; ++e) o[e] /= 1.0f + std::exp(-q[hd + e]);
    }
    D->stats.flops += 4.0 * static_cast<double>(H * hd * T);
    D->stats.kv_bytes_read += 8.0 * static_cast<double>(T * wk);
    if (s == 0 && t == n - 1) record_heat(*D, *LP, scores, ctx, H, lo, pos);
  }));
  add_op(p, gemm_op(dec, lname(L, "o"), M, attn, H * hd, L.o, out, d));
}

// DeepSeek-V3.2's lightning indexer (DeepSeek Sparse Attention), as inference/model.py
// Indexer.forward and kernel.py fp8_index: queries wq_b(q latent) in index_n_heads heads and one key
// k_norm(wk(x)) per token, each with the non-interleaved rope on its first qk_rope_head_dim values,
// Hadamard-rotated and quantized to fp8 e4m3 in blocks of 128 with power-of-two scales; the key's
// codes and scales are what the cache keeps (KvCache::idx). The score of key j for a query is
// I(j) = Σ_h w_h · relu(q_h · k_j) with w = weights_proj(x) · index_n_heads^-½ · index_head_dim^-½
// (the reference folds q's and k's scales outside the relu, equal since scales are positive).
// Each query then attends only the min(index_topk, visible) keys of highest score; ties go to the
// earlier position (torch.topk leaves their order unspecified). Writes idx_sel, one row per query.
void add_indexer_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const auto& m = c.mla;
  const i64 M = dec.opt.batch * n, d = c.d_model, HI = m.index_heads, dI = m.index_dim, rope = m.qk_rope_dim;
  float* q = dec.ws.idx_q;
  float* k = dec.ws.idx_k;
  float* w = dec.ws.idx_w;
  add_op(p, gemm_op(dec, lname(L, "indexer q"), M, dec.ws.mla_cq, m.q_lora_rank, L.idx_q, q, HI * dI));
  add_op(p, gemm_op(dec, lname(L, "indexer k"), M, in, d, L.idx_k, k, dI));
  add_op(p, gemm_op(dec, lname(L, "indexer weights"), M, in, d, L.idx_w, w, HI));
  const i64 pos0 = dec.pos, cap = kv.cap, row = kv.idx_row;
  std::uint8_t* cache = reinterpret_cast<std::uint8_t*>(kv.idx.data());
  const NormW kn = L.idx_k_norm;
  const double theta = c.rope_theta;
  const float wscale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(HI * dI)));
  add_op(p, rows_op(lname(L, "indexer q/k"), M, 8.0 * static_cast<double>((HI + 1) * dI), [=](i64 r) {
    const i64 s = r / n, pos = pos0 + r % n;
    float* kr = k + r * dI;
    norm_vec(core::NormKind::LayerNorm, kn, kr, kr, dI);
    rope_vec(kr, rope, pos, theta);  // "rope in indexer is not interleaved": pairs (i, i + rope/2)
    hadamard_vec(kr, dI);
    std::uint8_t* slot = cache + (s * cap + pos % cap) * row;
    fp8_quantize(kr, dI, slot, reinterpret_cast<float*>(slot + dI));
    std::uint8_t codes[kFp8Block];
    for (i64 h = 0; h < HI; ++h) {
      float* qh = q + (r * HI + h) * dI;
      rope_vec(qh, rope, pos, theta);
      hadamard_vec(qh, dI);
      for (i64 b0 = 0; b0 < dI; b0 += kFp8Block) {  // q as its fp8 codes times their scale (exact)
        const i64 len = std::min(kFp8Block, dI - b0);
        float scale = 0;
        fp8_quantize(qh + b0, len, codes, &scale);
        for (i64 i = 0; i < len; ++i) qh[b0 + i] = fp8_e4m3_decode(codes[i]) * scale;
      }
      w[r * HI + h] *= wscale;
    }
  }));
  const i64 ctx = dec.opt.context, kmax = std::min(ctx, m.index_topk);
  float* score = dec.ws.idx_s;
  std::int32_t* sel = dec.ws.idx_sel;
  DecoderStats* stats = &dec.stats;
  add_op(p, rows_op(lname(L, "indexer scores + top-k"), M, 2.0 * static_cast<double>(HI * dI * (pos0 + n)), [=](i64 r) {
    const i64 s = r / n, T = pos0 + r % n + 1;
    float* kd = k + r * dI;  // this row's key is in the cache now: its buffer holds each key decoded
    float* sr = score + r * ctx;
    const float* qr = q + r * HI * dI;
    const float* wr = w + r * HI;
    for (i64 j = 0; j < T; ++j) {
      const std::uint8_t* slot = cache + (s * cap + j % cap) * row;
      const float* ks = reinterpret_cast<const float*>(slot + dI);
      for (i64 i = 0; i < dI; ++i) kd[i] = fp8_e4m3_decode(slot[i]) * ks[i / kFp8Block];
      float acc = 0.0f;
      for (i64 h = 0; h < HI; ++h) acc += wr[h] * std::max(0.0f, dot(qr + h * dI, kd, dI));
      sr[j] = acc;
    }
    stats->flops += 2.0 * static_cast<double>(T * HI * dI);
    stats->kv_bytes_read += static_cast<double>(T * row);
    // The K best keys by (score, earlier position): a heap whose front is the worst kept.
    std::int32_t* out = sel + r * kmax;
    const i64 K = std::min(kmax, T);
    for (i64 j = 0; j < K; ++j) out[j] = static_cast<std::int32_t>(j);
    if (K < T) {
      auto better = [sr](std::int32_t a, std::int32_t b) { return sr[a] > sr[b] || (sr[a] == sr[b] && a < b); };
      std::make_heap(out, out + K, better);
      for (i64 j = K; j < T; ++j) {
        if (!better(static_cast<std::int32_t>(j), out[0])) continue;
        std::pop_heap(out, out + K, better);
        out[K - 1] = static_cast<std::int32_t>(j);
        std::push_heap(out, out + K, better);
      }
      std::sort(out, out + K);
    }
  }));
}

void add_mla_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out,
                 Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const auto& m = c.mla;
  const i64 M = dec.opt.batch * n, d = c.d_model, H = c.n_heads;
  const i64 nope = m.qk_nope_dim, rope = m.qk_rope_dim, lora = m.kv_lora_rank, vhd = m.v_head_dim;
  const i64 qw = H * (nope + rope), lw = lora + rope, kvb_w = H * (nope + vhd);
  float* q = dec.ws.qkv;
  float* lat = dec.ws.mla_kv;
  if (L.q_a) {
    float* cq = dec.ws.mla_cq;
    const i64 ql = m.q_lora_rank;
    add_op(p, gemm_op(dec, lname(L, "q_a"), M, in, d, L.q_a, cq, ql));
    const float* w = L.q_a_norm.w;
    add_op(p, rows_op(lname(L, "q_a norm"), M, 4.0 * static_cast<double>(ql),
                      [=](i64 r) { rms_vec(w, cq + r * ql, cq + r * ql, ql); }));
    add_op(p, gemm_op(dec, lname(L, "q_b"), M, cq, ql, L.q_b, q, qw));
  } else {
    add_op(p, gemm_op(dec, lname(L, "q"), M, in, d, L.q, q, qw));
  }
  add_op(p, gemm_op(dec, lname(L, "kv_a"), M, in, d, L.kv_a, lat, lw));
  const i64 pos0 = dec.pos;
  const double theta = c.rope_theta;
  const float* kvn = L.kv_a_norm.w;
  add_op(p, rows_op(lname(L, "kv_a norm + rope"), M, 4.0 * static_cast<double>(lora + (H + 1) * rope), [=](i64 r) {
    const i64 pos = pos0 + r % n;
    rms_vec(kvn, lat + r * lw, lat + r * lw, lora);
    rope_vec(lat + r * lw + lora, rope, pos, theta);
    for (i64 h = 0; h < H; ++h) rope_vec(q + r * qw + h * (nope + rope) + nope, rope, pos, theta);
  }));
  // Absorbed queries: qlat[r][h] = q_nope[r][h] · W_kvb[:, key cols of h]ᵀ  (lora floats).
  float* qlat = dec.ws.mla_qlat;
  float* olat = dec.ws.mla_olat;
  float* wt = dec.ws.mla_wt.data();
  const float* kvb = L.kv_b.w;
  DecoderStats* stats = &dec.stats;
  Op absorb;
  absorb.name = lname(L, "absorb q");
  absorb.units = H;
  absorb.cost_per_unit = 2.0 * static_cast<double>(M * nope * lora);
  absorb.run = [=](i64 b, i64 e) {
    for (i64 h = b; h < e; ++h) {
      for (i64 j = 0; j < nope; ++j)  // wt (nope × lora) = key block of head h, transposed
        for (i64 cidx = 0; cidx < lora; ++cidx) wt[j * lora + cidx] = kvb[cidx * kvb_w + h * (nope + vhd) + j];
      sgemm_strided(static_cast<int>(M), static_cast<int>(lora), static_cast<int>(nope), q + h * (nope + rope),
                    static_cast<int>(qw), wt, static_cast<int>(lora), qlat + h * lora, static_cast<int>(H * lora));
      stats->flops += 2.0 * static_cast<double>(M * nope * lora);
      stats->weight_bytes_read += 4.0 * static_cast<double>(nope * lora);
    }
  };
  add_op(p, std::move(absorb));
  if (m.has_indexer()) add_indexer_ops(dec, L, kv, n, in, p);
  const float scale = 1.0f / std::sqrt(static_cast<float>(nope + rope));  // ref: DeepSeek-V2 report, eq. 17
  const i64 ctx = dec.opt.context, cap = kv.cap, window = L.window;
  // With the indexer each query attends its selected keys only (index_mask: -inf elsewhere).
  const std::int32_t* sel = m.has_indexer() ? dec.ws.idx_sel : nullptr;
  const i64 kmax = std::min(ctx, m.index_topk);
  float* cache = kv.k.data();
  float* scores = dec.ws.scores.data();
  Decoder* D = &dec;
  const LayerW* LP = &L;
  add_op(p, rows_op(lname(L, "latent attention"), M, 4.0 * static_cast<double>(H * lw * (pos0 + n)), [=](i64 r) {
    const i64 s = r / n, t = r % n, pos = pos0 + t;
    std::memcpy(cache + (s * cap + pos % cap) * lw, lat + r * lw, static_cast<size_t>(lw) * 4);
    const i64 lo = window > 0 ? std::max<i64>(0, pos - window + 1) : 0;
    const std::int32_t* js = sel ? sel + r * kmax : nullptr;  // the indexer's keys, ascending
    const i64 T = js ? std::min(kmax, pos + 1) : pos - lo + 1;
    auto key = [&](i64 j) { return cache + (s * cap + (js ? js[j] : lo + j) % cap) * lw; };
    for (i64 h = 0; h < H; ++h) {
      const float* ql = qlat + r * H * lora + h * lora;
      const float* qpe = q + r * qw + h * (nope + rope) + nope;
      float* sc = scores + h * ctx;
      for (i64 j = 0; j < T; ++j) {
        const float* row = key(j);
        sc[j] = (dot(ql, row, lora) + dot(qpe, row + lora, rope)) * scale;
      }
      softmax(sc, T);
      float* o = olat + r * H * lora + h * lora;
      std::fill_n(o, lora, 0.0f);
      for (i64 j = 0; j < T; ++j) axpy(sc[j], key(j), o, lora);
    }
    D->stats.flops += 2.0 * static_cast<double>(H * T * (2 * lora + rope));
    D->stats.kv_bytes_read += 4.0 * static_cast<double>(T * lw);
    if (s == 0 && t == n - 1) record_heat(*D, *LP, scores, ctx, H, lo, pos, js, T);
  }));
  // Values: attn[:, h] = olat[:, h] · W_kvb[:, value cols of h]   (M × vhd per head).
  float* attn = dec.ws.attn;
  Op up;
  up.name = lname(L, "value up-projection");
  up.units = H;
  up.cost_per_unit = 2.0 * static_cast<double>(M * lora * vhd);
  up.run = [=](i64 b, i64 e) {
    for (i64 h = b; h < e; ++h) {
      sgemm_strided(static_cast<int>(M), static_cast<int>(vhd), static_cast<int>(lora), olat + h * lora,
                    static_cast<int>(H * lora), kvb + h * (nope + vhd) + nope, static_cast<int>(kvb_w),
                    attn + h * vhd, static_cast<int>(H * vhd));
      stats->flops += 2.0 * static_cast<double>(M * lora * vhd);
      stats->weight_bytes_read += 4.0 * static_cast<double>(lora * vhd);
    }
  };
  add_op(p, std::move(up));
  add_op(p, gemm_op(dec, lname(L, "o"), M, attn, H * vhd, L.o, out, d));
}

}  // namespace

void add_attention_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in,
                       float* out, Program& p) {
  if (L.linear) add_linear_ops(dec, L, kv, n, in, out, p);
  else if (L.mamba && !L.attn_mamba) add_mamba_ops(dec, L, kv, n, in, out, p);  // Falcon-H1: block.cpp runs both
  else if (L.mamba1) add_mamba1_ops(dec, L, kv, n, in, out, p);
  else if (L.short_conv) add_short_conv_ops(dec, L, kv, n, in, out, p);
  else if (dec.cfg.mla.enabled) add_mla_ops(dec, L, kv, n, in, out, p);
  else add_mha_ops(dec, L, kv, n, in, out, p);
}

}  // namespace llmsize::ref

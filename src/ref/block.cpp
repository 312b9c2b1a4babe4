// One decoder layer as ops (see block.hpp). Pre-norm residual blocks:
//   sequential  x += attn(norm1(x));            x += ffn(norm2(x))
//   parallel    x += attn(norm1(x)) + ffn(norm2(x) or norm1(x))   (GPT-J, NeoX, Falcon, Phi)
//   sandwich    x += post1(attn(norm1(x)));     x += post2(ffn(norm2(x)))   (Gemma-2)
//   post only   x += post1(attn(x));            x += post2(ffn(x))          (OLMo-2)
//   one block   x += block(norm(x)), block = Mamba-2, attention or MLP    (Nemotron-H)
//   NAS         sequential, with either block absent (no_op: no norm, no residual branch; DeciLM)
//   side by side x += so·mamba(norm1(x)) + ao·attn(ai·norm1(x));  x += ffn(norm2(x))   (Falcon-H1)
//   then, with a per-layer input u (Gemma 4): x += norm(proj(act(gate(x)) · u))
#include "block.hpp"

#include "math.hpp"

namespace llmsize::ref {

namespace {
std::string lname(const LayerW& L, const char* what) {
  return "layer " + std::to_string(L.index) + " · " + what;
}

// Falcon-H1 (modeling_falcon_h1.py FalconH1DecoderLayer.forward): the Mamba-2 mixer and attention
// read the same normed rows xn, and their outputs add up:
//   ao = ssm_out_multiplier · mamba(xn) + attention_out_multiplier · attn(attention_in_multiplier · xn)
// (the mixer applies ssm_in_multiplier and ssm_out_multiplier itself: mamba.cpp). The mixer runs
// first into ao, which is the first view of both arena phases and so outlives the attention's
// buffers; attention writes ao2. xn is scaled in place: the FFN's norm rewrites it afterwards.
void add_attn_mamba_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, float* xn, float* ao, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const i64 M = dec.opt.batch * n, d = c.d_model;
  add_mamba_ops(dec, L, kv, n, xn, ao, p);
  if (c.mup.attn_in != 1.0) {
    const float ai = static_cast<float>(c.mup.attn_in);
    add_op(p, rows_op(lname(L, "attention input multiplier"), M, static_cast<double>(d), [=](i64 r) {
      for (i64 j = 0; j < d; ++j) xn[r * d + j] *= ai;
    }));
  }
  float* ao2 = dec.ws.ao2;
  add_attention_ops(dec, L, kv, n, xn, ao2, p);
  const float am = static_cast<float>(c.mup.attn_out);
  add_op(p, rows_op(lname(L, "mamba + attention"), M, 2.0 * static_cast<double>(d), [=](i64 r) {
    for (i64 j = 0; j < d; ++j) ao[r * d + j] += am * ao2[r * d + j];
  }));
}
// Gemma 4's per-layer input (modeling_gemma4.py Gemma4TextDecoderLayer.forward, after the FFN's
// residual add): x += norm(per_layer_projection(act(per_layer_input_gate(x)) · per_layer_input)).
void add_ple_ops(Decoder& dec, const LayerW& L, i64 n, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const i64 M = dec.opt.batch * n, d = c.d_model, P = c.ple_dim, stride = static_cast<i64>(dec.layers.size()) * P;
  float* x = dec.ws.x.data();
  float* g = dec.ws.ple_g;
  float* y = dec.ws.fo;
  const float* in = dec.ws.ple_in.data() + L.ple_slot * P;
  add_op(p, gemm_op(dec, lname(L, "per-layer input gate"), M, x, d, L.ple_gate, g, P));
  const core::Activation act = c.act;
  add_op(p, rows_op(lname(L, "per-layer input"), M, 8.0 * static_cast<double>(P), [=](i64 r) {
    for (i64 j = 0; j < P; ++j) g[r * P + j] = activate(act, g[r * P + j]) * in[r * stride + j];
  }));
  add_op(p, gemm_op(dec, lname(L, "per-layer projection"), M, g, P, L.ple_proj, y, d));
  const NormW nw = L.ple_norm;
  const core::NormKind kind = c.norm;
  add_op(p, rows_op(lname(L, "per-layer norm + residual"), M, 7.0 * static_cast<double>(d), [=](i64 r) {
    norm_vec(kind, nw, y + r * d, y + r * d, d);
    for (i64 j = 0; j < d; ++j) x[r * d + j] += y[r * d + j];
  }));
}
}  // namespace

void add_layer_ops(Decoder& dec, size_t li, i64 n, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const LayerW& L = dec.layers[li];
  const i64 M = dec.opt.batch * n, d = c.d_model;
  const core::NormKind kind = c.norm;
  float* x = dec.ws.x.data();
  float* xn = dec.ws.xn.data();
  float* ao = dec.ws.ao;
  float* fo = dec.ws.fo;
  const double norm_cost = 6.0 * static_cast<double>(d);
  const NormW n1 = L.attn_norm, n2 = L.ffn_norm, post1 = L.post_attn_norm, post2 = L.post_ffn_norm;
  // Granite: each block's output × residual_multiplier before it joins the residual stream (1 elsewhere).
  const float rm = static_cast<float>(c.residual_mult);
  if (L.single) {  // ref: modeling_nemotron_h.py NemotronHBlock: residual + mixer(norm(x))
    add_op(p, rows_op(lname(L, "norm"), M, norm_cost, [=](i64 r) { norm_vec(kind, n1, x + r * d, xn + r * d, d); }));
    float* y = L.mlp_only ? fo : ao;
    if (L.mlp_only) add_ffn_ops(dec, L, n, xn, y, p);
    else if (L.mamba) add_mamba_ops(dec, L, dec.kv[li], n, xn, y, p);
    else add_attention_ops(dec, L, dec.kv[li], n, xn, y, p);
    add_op(p, rows_op(lname(L, "residual"), M, static_cast<double>(d), [=](i64 r) {
      for (i64 j = 0; j < d; ++j) x[r * d + j] += rm * y[r * d + j];
    }));
    return;
  }

  if (L.no_attn) {  // ref: vLLM nemotron_nas.py DeciLMDecoderLayer: x += ffn(norm(x)) alone
    add_op(p, rows_op(lname(L, "ffn norm"), M, norm_cost, [=](i64 r) { norm_vec(kind, n2, x + r * d, xn + r * d, d); }));
    add_ffn_ops(dec, L, n, xn, fo, p);
    add_op(p, rows_op(lname(L, "residual"), M, static_cast<double>(d), [=](i64 r) {
      for (i64 j = 0; j < d; ++j) x[r * d + j] += rm * fo[r * d + j];
    }));
    return;
  }
  if (n1)
    add_op(p, rows_op(lname(L, "attention norm"), M, norm_cost,
                      [=](i64 r) { norm_vec(kind, n1, x + r * d, xn + r * d, d); }));
  const float* attn_in = n1 ? xn : x;  // OLMo-2: attention reads the residual stream itself
  float* ffn_in = xn;
  if (c.parallel_block && n2) {
    float* xn2 = dec.ws.xn2.data();
    add_op(p, rows_op(lname(L, "ffn norm"), M, norm_cost,
                      [=](i64 r) { norm_vec(kind, n2, x + r * d, xn2 + r * d, d); }));
    ffn_in = xn2;
  }
  if (L.attn_mamba) add_attn_mamba_ops(dec, L, dec.kv[li], n, xn, ao, p);
  else add_attention_ops(dec, L, dec.kv[L.kv_from >= 0 ? static_cast<size_t>(L.kv_from) : li], n, attn_in, ao, p);
  if (post1)
    add_op(p, rows_op(lname(L, "post-attention norm"), M, norm_cost,
                      [=](i64 r) { norm_vec(kind, post1, ao + r * d, ao + r * d, d); }));
  if (!c.parallel_block) {
    // Residual add, then the FFN's input norm (a copy when the config has none).
    add_op(p, rows_op(lname(L, "residual + ffn norm"), M, norm_cost, [=](i64 r) {
      for (i64 j = 0; j < d; ++j) x[r * d + j] += rm * ao[r * d + j];
      if (n2) norm_vec(kind, n2, x + r * d, xn + r * d, d);
      else for (i64 j = 0; j < d; ++j) xn[r * d + j] = x[r * d + j];
    }));
  }
  if (L.no_ffn) return;  // a NAS layer: its attention alone, already added to x
  add_ffn_ops(dec, L, n, ffn_in, fo, p);
  if (post2)
    add_op(p, rows_op(lname(L, "post-ffn norm"), M, norm_cost,
                      [=](i64 r) { norm_vec(kind, post2, fo + r * d, fo + r * d, d); }));
  const bool parallel = c.parallel_block;
  add_op(p, rows_op(lname(L, "residual"), M, 2.0 * static_cast<double>(d), [=](i64 r) {
    for (i64 j = 0; j < d; ++j) x[r * d + j] += rm * (parallel ? ao[r * d + j] + fo[r * d + j] : fo[r * d + j]);
  }));
  if (L.ple_gate) add_ple_ops(dec, L, n, p);
}

}  // namespace llmsize::ref

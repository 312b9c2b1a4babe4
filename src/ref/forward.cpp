// Forward programs over hidden states or token ids (see forward.hpp).
#include "forward.hpp"

#include <algorithm>
#include <cmath>

#include "block.hpp"
#include "math.hpp"

namespace llmsize::ref {

using core::Issue;

namespace {

void add_advance(Decoder& dec, i64 n, Program& p) {
  Decoder* D = &dec;
  add_op(p, rows_op("advance", 1, 1.0, [=](i64) { D->pos += n; }));
}

// Granite: logits ÷ logits_scaling (GraniteMoeHybridForCausalLM.forward); Falcon-H1: logits ×
// lm_head_multiplier (FalconH1ForCausalLM.forward); nothing for other models.
void add_logits_scale(const core::ModelConfig& c, i64 b, i64 v, float* logits, Program& p) {
  if (c.logits_div == 1.0 && c.mup.lm_head == 1.0) return;
  const float f = static_cast<float>(c.mup.lm_head / c.logits_div);
  add_op(p, rows_op("logits scale", b, static_cast<double>(v), [=](i64 s) {
    for (i64 t = 0; t < v; ++t) logits[s * v + t] *= f;
  }));
}

// Gemma 4's per-layer inputs of the built layers from the embeddings e and the tokens
// (modeling_gemma4.py Gemma4TextModel.get_per_layer_inputs, project_per_layer_inputs):
//   u_l = (norm(per_layer_model_projection(e)_l · d^-½) + embed_tokens_per_layer[token]_l · ple^½) · 2^-½
void add_ple_input_ops(Decoder& dec, i64 n, const float* e, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const GlobalW& g = dec.g;
  const i64 M = dec.opt.batch * n, d = c.d_model, P = c.ple_dim, all = c.n_layers * P;
  const i64 built = static_cast<i64>(dec.layers.size()), first = dec.layers.empty() ? 0 : dec.layers[0].index;
  float* ctx = dec.ws.ple_ctx.data();
  float* out = dec.ws.ple_in.data();
  add_op(p, gemm_op(dec, "per-layer model projection", M, e, d, g.ple_proj, ctx, all));
  const std::int32_t* tok = dec.ws.tokens.ints();
  const float* table = g.ple_embed;
  const NormW nw = g.ple_norm;
  const core::NormKind kind = c.norm;
  const float in_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  const float table_scale = static_cast<float>(std::sqrt(static_cast<double>(P)));
  const float mix = static_cast<float>(1.0 / std::sqrt(2.0));
  add_op(p, rows_op("per-layer inputs", M, 10.0 * static_cast<double>(built * P), [=](i64 r) {
    for (i64 k = 0; k < built; ++k) {
      float* u = out + (r * built + k) * P;
      const float* v = ctx + r * all + (first + k) * P;
      for (i64 j = 0; j < P; ++j) u[j] = v[j] * in_scale;
      norm_vec(kind, nw, u, u, P);
      const float* row = table + static_cast<i64>(tok[r]) * all + (first + k) * P;
      for (i64 j = 0; j < P; ++j) u[j] = (u[j] + row[j] * table_scale) * mix;
    }
  }));
}

void add_embedding_ops(Decoder& dec, i64 n, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const GlobalW& g = dec.g;
  const i64 M = dec.opt.batch * n, d = c.d_model;
  const i64 de = g.proj_in ? g.proj_in.din : d;
  const std::int32_t* tok = dec.ws.tokens.ints();
  float* x = dec.ws.x.data();
  float* e_out = g.proj_in ? dec.ws.xn.data() : x;  // OPT: embeddings are de wide, then projected
  const float* embed = g.embed;
  const float em = static_cast<float>(c.embed_mult);  // Granite: inputs_embeds · embedding_multiplier
  add_op(p, rows_op("embedding", M, static_cast<double>(de), [=](i64 r) {
    std::copy_n(embed + static_cast<i64>(tok[r]) * de, de, e_out + r * de);
    if (em != 1.0f)
      for (i64 j = 0; j < de; ++j) e_out[r * de + j] *= em;
  }));
  if (g.proj_in) add_op(p, gemm_op(dec, "project_in", M, e_out, de, g.proj_in, x, d));
  if (g.pos) {
    const float* pos_table = g.pos;
    const i64 pos0 = dec.pos + c.pos_offset;  // OPT keeps `pos_offset` unused leading rows
    add_op(p, rows_op("positions", M, static_cast<double>(d), [=](i64 r) {
      axpy(1.0f, pos_table + (pos0 + r % n) * d, x + r * d, d);
    }));
  }
  if (g.ple_proj) add_ple_input_ops(dec, n, x, p);
  if (g.embed_norm) {
    const NormW en = g.embed_norm;
    const core::NormKind kind = c.norm;
    add_op(p, rows_op("embedding norm", M, 6.0 * static_cast<double>(d),
                      [=](i64 r) { norm_vec(kind, en, x + r * d, x + r * d, d); }));
  }
}

void add_head_ops(Decoder& dec, i64 n, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const GlobalW& g = dec.g;
  const i64 b = dec.opt.batch, d = c.d_model, v = c.vocab;
  const float* x = dec.ws.x.data();
  float* last = dec.ws.last;  // (b, d) each sequence's last row, normed
  const NormW fn = g.final_norm;
  const core::NormKind kind = c.norm;
  add_op(p, rows_op("final norm", b, 6.0 * static_cast<double>(d), [=](i64 s) {
    const float* row = x + (s * n + n - 1) * d;
    if (fn) norm_vec(kind, fn, row, last + s * d, d);
    else std::copy_n(row, d, last + s * d);
  }));
  const float* head_in = last;
  i64 de = d;
  if (g.proj_out) {
    de = g.proj_out.dout;
    add_op(p, gemm_op(dec, "project_out", b, last, d, g.proj_out, dec.ws.proj, de));
    head_in = dec.ws.proj;
  }
  float* logits = dec.ws.logits;
  if (g.head) {
    Lin head = g.head;
    head.b = g.head_bias;
    add_op(p, gemm_op(dec, "lm_head", b, head_in, de, head, logits, v));
    add_logits_scale(c, b, v, logits, p);
    return;
  }
  // Tied head: logits = h · Eᵀ, one dot product per vocabulary row, in blocks of rows.
  constexpr i64 kBlock = 2048;
  const float* embed = g.embed;
  const float* bias = g.head_bias;
  DecoderStats* stats = &dec.stats;
  Op op;
  op.name = "lm_head (tied)";
  op.units = (v + kBlock - 1) / kBlock;
  op.cost_per_unit = 2.0 * static_cast<double>(b * kBlock * de);
  op.run = [=](i64 u0, i64 u1) {
    for (i64 s = 0; s < b; ++s)
      for (i64 t = u0 * kBlock; t < std::min(v, u1 * kBlock); ++t)
        logits[s * v + t] = dot(head_in + s * de, embed + t * de, de) + (bias ? bias[t] : 0.0f);
    const i64 rows = std::min(v, u1 * kBlock) - u0 * kBlock;
    stats->flops += 2.0 * static_cast<double>(b * rows * de);
    stats->weight_bytes_read += 4.0 * static_cast<double>(rows * de);
  };
  add_op(p, std::move(op));
  add_logits_scale(c, b, v, logits, p);
}

}  // namespace

std::optional<Issue> check_call(const Decoder& dec, i64 n) {
  if (n < 1 || n > dec.opt.max_tokens)
    return core::issue_row("tokens", core::Str::ref_call_tokens, std::to_string(dec.opt.max_tokens), std::to_string(n));
  if (dec.pos + n > dec.opt.context)
    return core::issue_row("context", core::Str::ref_call_context, std::to_string(dec.pos), std::to_string(n),
                           std::to_string(dec.opt.context));
  return std::nullopt;
}

core::Result<Program> hidden_program(Decoder& dec, i64 n) {
  if (auto issue = check_call(dec, n)) return *issue;
  Program p;
  for (size_t li = 0; li < dec.layers.size(); ++li) add_layer_ops(dec, li, n, p);
  add_advance(dec, n, p);
  return p;
}

core::Result<Program> tokens_program(Decoder& dec, i64 n) {
  if (auto issue = check_call(dec, n)) return *issue;
  if (!dec.opt.globals) return core::issue_row("globals", core::Str::ref_no_globals);
  if (dec.g.pos && dec.pos + n > dec.cfg.max_positions)
    return core::issue_row("context", core::Str::ref_positions_end, std::to_string(dec.cfg.max_positions));
  Program p;
  add_embedding_ops(dec, n, p);
  for (size_t li = 0; li < dec.layers.size(); ++li) add_layer_ops(dec, li, n, p);
  add_head_ops(dec, n, p);
  add_advance(dec, n, p);
  return p;
}

core::Result<std::vector<float>> forward_hidden(Decoder& dec, const std::vector<float>& x, i64 n,
                                                const std::vector<float>& per_layer) {
  const i64 rows = dec.opt.batch * n, d = dec.cfg.d_model;
  if (static_cast<i64>(x.size()) != rows * d)
    return core::issue_row("x", core::Str::ref_expected_x, std::to_string(rows * d));
  const i64 ple = rows * static_cast<i64>(dec.layers.size()) * dec.cfg.ple_dim;
  if (static_cast<i64>(per_layer.size()) != ple)
    return core::issue_row("per_layer_inputs", core::Str::ref_expected_ple, std::to_string(ple));
  auto prog = hidden_program(dec, n);
  if (!prog) return prog.issues();
  std::copy(x.begin(), x.end(), dec.ws.x.data());
  std::copy(per_layer.begin(), per_layer.end(), dec.ws.ple_in.data());
  run_all(prog.value());
  return std::vector<float>(dec.ws.x.data(), dec.ws.x.data() + rows * d);
}

core::Result<std::vector<float>> forward_tokens(Decoder& dec, const std::vector<std::int32_t>& tokens, i64 n) {
  const i64 rows = dec.opt.batch * n, v = dec.cfg.vocab;
  if (static_cast<i64>(tokens.size()) != rows)
    return core::issue_row("tokens", core::Str::ref_expected_tokens, std::to_string(rows));
  for (std::int32_t t : tokens)
    if (t < 0 || t >= v)
      return core::issue_row("tokens", core::Str::ref_token_range, std::to_string(v - 1), std::to_string(t));
  auto prog = tokens_program(dec, n);
  if (!prog) return prog.issues();
  std::copy(tokens.begin(), tokens.end(), dec.ws.tokens.ints());
  run_all(prog.value());
  return std::vector<float>(dec.ws.logits, dec.ws.logits + dec.opt.batch * v);
}

void reset_cache(Decoder& dec) {
  dec.pos = 0;
  std::fill_n(dec.ws.state_norm.data(), dec.ws.state_norm.size(), std::nanf(""));  // a new sequence's trace
}

}  // namespace llmsize::ref

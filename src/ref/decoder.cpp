// Building a Decoder (see decoder.hpp): option checks, the allocation plan (weights from the
// inventory, KV cache per layer, workspace), allocation through the MemCounter, seeded
// weight values, and the by-role binding of each layer's tensors (bind.cpp).
#include "decoder.hpp"

#include <algorithm>
#include <cmath>

#include "bind.hpp"
#include "math.hpp"

namespace llmsize::ref {

using core::Checked;
using core::Issue;
using core::ModelConfig;

namespace {

constexpr i64 kMaxBatch = 4096;
constexpr i64 kMaxContext = i64{1} << 24;

// "must be an integer in [lo, hi], got x", in the issue's language.
Issue range_msg(const char* field, i64 lo, i64 hi, i64 got) {
  return core::issue_row(field, core::Str::issue_must_be_got, core::row_arg(core::Str::allow_int, std::to_string(lo), std::to_string(hi)),
                         std::to_string(got));
}

// Which model layers are built, after the option checks.
struct Span {
  i64 first = 0, count = 0;
};

// The layer kinds among the built layers: they size the workspace's phases.
struct Built {
  bool dense = false, moe = false;  // FFN kinds
  bool attn = false, linear = false;  // attention layers (caches that keep tokens), Gated DeltaNet layers
  bool mamba = false, conv = false;   // Mamba-2 layers, short-convolution layers (LFM2)
  bool mamba1 = false;                // Mamba-1 layers (Jamba)
  bool attn_mamba = false;            // attention beside a Mamba-2 mixer in one layer (Falcon-H1)
  i64 shared_win_width = 0;           // 2·K·hd of a KV-shared sliding layer's source (Gemma 4), 0: none built
  i64 shared_window = 0;              // its window W
  i64 layers = 0;                     // layers built
};

}  // namespace

std::optional<Issue> unsupported(const ModelConfig& c) {
  using core::Str;
  std::vector<Str> kinds;
  if (c.mamba.enabled() && c.block_pattern.empty()) kinds.push_back(Str::ref_kind_mamba_no_pattern);
  if (c.per_layer() && (c.parallel_block || c.norm_sandwich || !c.norm_pre || !c.block_pattern.empty()))
    kinds.push_back(Str::ref_kind_per_layer_blocks);
  if (kinds.empty()) return std::nullopt;
  return core::issue("model_type", [kinds](core::Lang l) {
    std::string list;
    for (size_t i = 0; i < kinds.size(); ++i) list += (i ? core::tr(Str::ref_list_sep, l) : "") + std::string(core::tr(kinds[i], l));
    return core::printf_text(core::tr(Str::ref_unsupported, l), list.c_str());
  });
}

namespace {

std::vector<Issue> check_options(const ModelConfig& c, const DecoderOptions& o, Span& span) {
  std::vector<Issue> out;
  if (auto u = unsupported(c)) return {*u};
  if (o.batch < 1 || o.batch > kMaxBatch) out.push_back(range_msg("batch", 1, kMaxBatch, o.batch));
  if (o.context < 1 || o.context > kMaxContext)
    out.push_back(range_msg("context", 1, kMaxContext, o.context));
  if (o.max_tokens < 0 || o.max_tokens > o.context)
    out.push_back(range_msg("max_tokens", 0, std::max<i64>(0, o.context), o.max_tokens));
  if (o.first_layer < 0 || o.first_layer >= c.n_layers)
    out.push_back(range_msg("first_layer", 0, c.n_layers - 1, o.first_layer));
  // The indexer's Hadamard rotation needs a power of two; its rope covers the key's first
  // qk_rope_head_dim values (ref: DeepSeek-V3.2 inference/model.py Indexer.forward).
  if (const auto& m = c.mla; m.has_indexer()) {
    const bool pow2 = m.index_dim > 0 && (m.index_dim & (m.index_dim - 1)) == 0;
    if (!pow2 || m.index_dim < std::max<i64>(4, m.qk_rope_dim))
      out.push_back(core::issue_row("index_head_dim", core::Str::ref_index_dim, std::to_string(m.qk_rope_dim), std::to_string(m.index_dim)));
  }
  span.first = o.first_layer;
  span.count = o.n_layers < 0 ? c.n_layers - o.first_layer : o.n_layers;
  if (out.empty() && (span.count < 0 || span.first + span.count > c.n_layers))
    out.push_back(range_msg("n_layers", 0, c.n_layers - o.first_layer, o.n_layers));
  return out;
}

const core::LayerKind* kind_of(const core::Inventory& inv, i64 layer) {
  for (const auto& k : inv.kinds)
    if (std::find(k.layers.begin(), k.layers.end(), layer) != k.layers.end()) return &k;
  return nullptr;
}

// One requested buffer: where it goes, its category and its size in 4-byte elements.
struct Request {
  Buffer* target;  // null while planning
  Mem cat;
  i64 elems;
};

// The views of one arena phase, in order; `view(ptr, floats)` is called for each (ptr null
// while planning). The attention, FFN and head phases and those of the recurrent mixers (Gated
// DeltaNet, Mamba-2, short convolution) share the arena. The mixer's output `ao` comes first in
// the attention phase and in every mixer's phase, at offset 0: the block reads it after any of them.
enum Phase { kAttention, kFfn, kHead, kLinear, kMamba, kConv, kPhases };
template <class View>
void arena_views(const ModelConfig& c, const DecoderOptions& o, const Built& built, Workspace* w, View view) {
  const Checked M = Checked(o.batch) * o.max_tokens;
  const i64 d = c.d_model, H = c.n_heads;
  const i64 gated = c.ffn_kind == core::FfnKind::Gated ? 2 : 1;
  const bool any_dense = built.dense, any_moe = built.moe;
  auto f = [&](float* Workspace::*field) { return w ? &(w->*field) : nullptr; };
  auto iv = [&](std::int32_t* Workspace::*field) {
    return w ? reinterpret_cast<float**>(&(w->*field)) : nullptr;
  };
  if (built.linear) {
    const auto& a = c.linear;
    if (!c.parallel_block) view(kLinear, f(&Workspace::ao), M * d);
    view(kLinear, f(&Workspace::lin_p), M * (2 * a.key_dim() + 2 * a.value_dim()));
    view(kLinear, f(&Workspace::lin_ba), M * (2 * a.v_heads));
    view(kLinear, f(&Workspace::lin_c), M * a.conv_dim());
    view(kLinear, f(&Workspace::lin_o), M * a.value_dim());
    if (o.max_tokens > 1) {  // the chunked prefill (linear_attn.cpp chunk_rule); decode needs neither
      view(kLinear, f(&Workspace::lin_vn), M * a.value_dim());
      view(kLinear, f(&Workspace::lin_tri), M * a.v_heads * 64);
    }
  }
  if (built.mamba) {
    const auto& m = c.mamba;
    if (!c.parallel_block) view(kMamba, f(&Workspace::ao), M * d);
    view(kMamba, f(&Workspace::mam_p), M * m.in_proj());
    view(kMamba, f(&Workspace::mam_c), M * m.conv_dim());
    view(kMamba, f(&Workspace::mam_y), M * m.d_inner());
    view(kMamba, f(&Workspace::mam_g), M * m.heads);
  }
  if (built.mamba1) {  // in the Mamba-2 phase: a model has one kind or the other
    const auto& m = c.mamba1;
    const i64 di = c.mamba1_inner();
    if (!c.parallel_block && !built.mamba) view(kMamba, f(&Workspace::ao), M * d);
    view(kMamba, f(&Workspace::m1_p), M * 2 * di);
    view(kMamba, f(&Workspace::m1_c), M * di);
    view(kMamba, f(&Workspace::m1_s), M * (m.dt_rank + 2 * m.state));
    view(kMamba, f(&Workspace::m1_dt), M * di);
    view(kMamba, f(&Workspace::m1_y), M * di);
  }
  if (built.conv) {
    if (!c.parallel_block) view(kConv, f(&Workspace::ao), M * d);
    view(kConv, f(&Workspace::sc_p), M * 3 * d);
    view(kConv, f(&Workspace::sc_y), M * d);
  }
  if (built.attn && c.mla.enabled) {
    if (!c.parallel_block) view(kAttention, f(&Workspace::ao), M * d);
    const auto& m = c.mla;
    view(kAttention, f(&Workspace::qkv), M * H * (m.qk_nope_dim + m.qk_rope_dim));
    view(kAttention, f(&Workspace::mla_cq), M * m.q_lora_rank);
    view(kAttention, f(&Workspace::mla_kv), M * (m.kv_lora_rank + m.qk_rope_dim));
    view(kAttention, f(&Workspace::mla_qlat), M * H * m.kv_lora_rank);
    view(kAttention, f(&Workspace::mla_olat), M * H * m.kv_lora_rank);
    if (m.has_indexer()) {  // the indexer (attention.cpp add_indexer_ops)
      view(kAttention, f(&Workspace::idx_q), M * m.index_heads * m.index_dim);
      view(kAttention, f(&Workspace::idx_k), M * m.index_dim);
      view(kAttention, f(&Workspace::idx_w), M * m.index_heads);
      view(kAttention, f(&Workspace::idx_s), M * o.context);
      view(kAttention, iv(&Workspace::idx_sel), M * std::min(o.context, m.index_topk));
    }
  } else if (built.attn) {
    if (!c.parallel_block) view(kAttention, f(&Workspace::ao), M * d);
    if (built.attn_mamba) view(kAttention, f(&Workspace::ao2), M * d);  // ao holds the Mamba-2 output meanwhile
    // The widest layer's q‖k‖v rows: Qwen3-Next's q_proj yields each head's query and output gate
    // side by side; NAS layers have their own KV heads, Gemma 4's full layers their own head size and K.
    i64 width = 0;
    for (i64 l = 0; l < c.n_layers; ++l)
      width = std::max(width, (H * (c.attn_out_gate ? 2 : 1) + 2 * c.kv_heads_at(l)) * c.head_dim_at(l));
    view(kAttention, f(&Workspace::qkv), M * width);
  }
  i64 v_hd = c.v_head_dim();  // the widest layer's value heads (Gemma 4's full layers)
  for (i64 l = 0; l < c.n_layers && !c.mla.enabled; ++l) v_hd = std::max(v_hd, c.head_dim_at(l));
  if (built.attn) view(kAttention, f(&Workspace::attn), M * H * v_hd);
  view(kFfn, f(&Workspace::fo), M * d);
  if (c.ple_dim > 0) view(kFfn, f(&Workspace::ple_g), M * c.ple_dim);  // after the FFN, in its phase
  i64 f_max = any_dense ? c.widest_ffn() : 0;
  if (any_moe) f_max = std::max(f_max, c.moe.shared_ffn);
  view(kFfn, f(&Workspace::h), M * gated * f_max);
  if (any_moe) {
    const i64 E = c.moe.num_experts, k = c.moe.top_k;
    view(kFfn, f(&Workspace::router), M * E);
    view(kFfn, iv(&Workspace::sel), M * k);
    view(kFfn, f(&Workspace::selw), M * k);
    view(kFfn, iv(&Workspace::order), M * k);
    view(kFfn, iv(&Workspace::offsets), Checked(E) + 1);
    view(kFfn, f(&Workspace::xg), M * d);
    view(kFfn, f(&Workspace::hg), M * gated * c.moe.expert_ffn);
    view(kFfn, f(&Workspace::yg), M * d);
    if (c.moe.dense_beside) view(kFfn, f(&Workspace::moe_sum), M * d);
  }
  if (o.globals) {
    const i64 de = c.embed_proj_dim > 0 ? c.embed_proj_dim : d;
    view(kHead, f(&Workspace::last), Checked(o.batch) * d);
    view(kHead, f(&Workspace::proj), Checked(o.batch) * de);
    view(kHead, f(&Workspace::logits), Checked(o.batch) * c.vocab);
  }
}

// Views are 16-float (64-byte) aligned inside the arena.
i64 round16(i64 n) { return (n + 15) / 16 * 16; }

// The workspace buffers for M = b·max_tokens rows, sized for the layer kinds that are built.
void plan_workspace(const ModelConfig& c, const DecoderOptions& o, const Built& built, Workspace* w,
                    std::vector<Request>& out) {
  auto add = [&](Buffer Workspace::*field, Mem cat, Checked n) {
    out.push_back({w ? &(w->*field) : nullptr, cat, n.ok() ? n.value() : -1});
  };
  const Checked M = Checked(o.batch) * o.max_tokens;
  const i64 d = c.d_model, H = c.n_heads;
  const i64 de = c.embed_proj_dim > 0 ? std::max(d, c.embed_proj_dim) : d;
  const auto A = Mem::Activations;
  add(&Workspace::x, A, M * d);
  add(&Workspace::xn, A, M * (o.globals ? de : d));
  if (c.parallel_block && c.norm_ffn_input) add(&Workspace::xn2, A, M * d);
  if (c.parallel_block) add(&Workspace::ao_keep, A, M * d);
  add(&Workspace::scores, A, Checked(H) * o.context);
  if (o.globals) add(&Workspace::tokens, A, M);
  if (c.ple_dim > 0) {
    add(&Workspace::ple_in, A, M * built.layers * c.ple_dim);
    if (o.globals) add(&Workspace::ple_ctx, A, M * c.n_layers * c.ple_dim);
  }
  Checked phase[kPhases] = {Checked(0), Checked(0), Checked(0), Checked(0), Checked(0), Checked(0)};
  arena_views(c, o, built, nullptr,
              [&](int ph, float**, Checked n) { phase[ph] += n.ok() ? Checked(round16(n.value())) : n; });
  Checked arena = phase[kAttention];
  for (const Checked& ph : phase) {
    if (!ph.ok()) arena = ph;
    else if (arena.ok() && ph.value() > arena.value()) arena = ph;
  }
  add(&Workspace::arena, A, arena);
  if (built.shared_win_width > 0) {
    const i64 rows = std::min(o.context, built.shared_window - 1 + o.max_tokens);
    if (w) w->shared_rows = rows;
    add(&Workspace::shared_win, A, Checked(o.batch) * rows * built.shared_win_width);
  }
  add(&Workspace::heat, Mem::Scratch, Checked(H) * o.context);
  if (c.mla.enabled && built.attn) add(&Workspace::mla_wt, Mem::Scratch, Checked(c.mla.qk_nope_dim) * c.mla.kv_lora_rank);
  const i64 th = std::max(built.linear ? c.linear.v_heads : 0, built.mamba ? c.mamba.heads : 0);
  if (th > 0) add(&Workspace::state_norm, Mem::Scratch, Checked(th) * o.context);
}

// Points the phase views into the allocated arena.
void carve_workspace(const ModelConfig& c, const DecoderOptions& o, const Built& built, Workspace& w) {
  i64 offset[kPhases] = {0, 0, 0, 0, 0, 0};
  arena_views(c, o, built, &w, [&](int ph, float** v, Checked n) {
    *v = n.value() > 0 ? w.arena.data() + offset[ph] : nullptr;
    offset[ph] += round16(n.value());
  });
  if (c.parallel_block) w.ao = w.ao_keep.data();
  for (int ph = 0; ph < kPhases; ++ph) w.phase_bytes[static_cast<size_t>(ph)] = 4 * offset[ph];
}

// Every buffer a decoder needs, in allocation order: weights, KV cache, workspace. With a
// null `dec` only the sizes are produced.
core::Result<std::vector<Request>> plan(const ModelConfig& c, const core::Inventory& inv, const core::LayerPlan& lp,
                                        const DecoderOptions& o, const Span& span, Decoder* dec,
                                        Built* kinds = nullptr) {
  std::vector<Request> out;
  auto weight = [&](const core::Tensor& t, i64 layer) {
    if (dec) dec->weights.push_back({t, layer, Buffer{}});
    out.push_back({nullptr, Mem::Weights, t.numel()});
  };
  if (o.globals)
    for (const auto& t : inv.global) weight(t, -1);
  Built built;
  built.layers = span.count;
  for (i64 i = span.first; i < span.first + span.count; ++i) {
    const core::LayerKind* k = kind_of(inv, i);
    if (!k) return core::issue_row("num_hidden_layers", core::Str::ref_layer_no_kind, std::to_string(i));
    if (c.layer_has_ffn(i)) (k->is_moe ? built.moe : built.dense) = true;
    const core::AttnKind ak = lp.cache_of(i).kind;
    if (ak == core::AttnKind::Linear) built.linear = true;
    else if (ak == core::AttnKind::Mamba) built.mamba = true;
    else if (ak == core::AttnKind::Mamba1) built.mamba1 = true;
    else if (ak == core::AttnKind::Conv) built.conv = true;
    else if (core::attends(ak)) built.attn = true;  // Shared: a Gemma 4 layer attending another layer's cache
    if (ak == core::AttnKind::FullMamba) built.mamba = built.attn_mamba = true;  // Falcon-H1: attention and Mamba-2
    if (ak == core::AttnKind::Shared && lp.window(i) > 0)
      built.shared_win_width = 2 * c.kv_heads_at(i) * c.head_dim_at(i), built.shared_window = lp.window(i);
    for (const auto& t : k->tensors) weight(t, i);
  }
  if (dec) {  // weights vector is final: point the requests at its buffers
    for (size_t i = 0; i < dec->weights.size(); ++i) out[i].target = &dec->weights[i].buf;
    dec->kv.resize(static_cast<size_t>(span.count));
  }
  for (i64 i = 0; i < span.count; ++i) {
    const i64 layer = span.first + i;
    const core::CacheShape& cs = lp.cache_of(layer);
    const i64 cap = cs.tokens_kept(o.context);
    const i64 wk = cs.heads * cs.k_dim, wv = cs.heads * cs.v_dim;
    KvCache* kv = dec ? &dec->kv[static_cast<size_t>(i)] : nullptr;
    // A recurrent layer's state per sequence, as the plan counts it at 4-byte activations (tp = 1):
    // the convolution's window (taps × channels) and the state matrices (0 for a short convolution).
    // ref: layer_plan.cpp linear_state_bytes (Gated DeltaNet: v_heads × k_dim × v_dim),
    // mamba_state_bytes (Mamba-2: heads × head_dim × state), Lfm2HybridConvCache (d × conv_L_cache).
    Checked conv(0), ssm(0);
    if (cs.kind == core::AttnKind::Linear) {
      const auto& a = c.linear;
      conv = Checked(o.batch) * a.conv_kernel * a.conv_dim(), ssm = Checked(o.batch) * a.v_heads * a.k_dim * a.v_dim;
    } else if (cs.kind == core::AttnKind::Mamba || cs.kind == core::AttnKind::FullMamba) {  // FullMamba: K/V too, below
      const auto& m = c.mamba;
      conv = Checked(o.batch) * m.conv_kernel * m.conv_dim(), ssm = Checked(o.batch) * m.heads * m.head_dim * m.state;
    } else if (cs.kind == core::AttnKind::Mamba1) {  // ref: layer_plan.cpp: d_inner × (d_conv + d_state)
      const i64 di = c.mamba1_inner();
      conv = Checked(o.batch) * c.mamba1.conv_kernel * di, ssm = Checked(o.batch) * di * c.mamba1.state;
    } else if (cs.kind == core::AttnKind::Conv) {
      conv = Checked(o.batch) * c.short_conv * c.d_model;
    }
    if (!conv.ok() || !ssm.ok()) return core::issue_row("batch", core::Str::ref_overflow, core::Str::ref_what_state);
    if (conv.value() > 0) out.push_back({kv ? &kv->conv : nullptr, Mem::State, conv.value()});
    if (ssm.value() > 0) out.push_back({kv ? &kv->ssm : nullptr, Mem::State, ssm.value()});
    if (core::is_stateful(cs.kind)) continue;
    if (cs.kind == core::AttnKind::None || cs.kind == core::AttnKind::Shared) continue;  // an MLP block, a KV-shared layer: no cache
    if (!core::keeps_tokens(cs.kind))
      return core::issue_row("model_type", core::Str::ref_layer_no_cache, std::to_string(layer));
    if (kv) kv->cap = cap, kv->width_k = wk, kv->width_v = wv;
    const Checked per_seq = Checked(o.batch) * cap;
    out.push_back({kv ? &kv->k : nullptr, Mem::KvCache, (per_seq * wk).value()});
    if (wv > 0) out.push_back({kv ? &kv->v : nullptr, Mem::KvCache, (per_seq * wv).value()});
    if (!(per_seq * wk).ok()) return core::issue_row("context", core::Str::ref_overflow, core::Str::ref_what_kv);
    if (cs.index_bytes_per_token > 0) {
      // The indexer's keys: index_head_dim fp8 codes and one fp32 scale per 128 of them per token
      // (attention.cpp add_indexer_ops writes this layout); a multiple of 4 bytes (check_options).
      const i64 row = c.mla.index_dim + 4 * ((c.mla.index_dim + kFp8Block - 1) / kFp8Block);
      const Checked bytes = per_seq * row;
      if (!bytes.ok()) return core::issue_row("context", core::Str::ref_overflow, core::Str::ref_what_indexer);
      if (kv) kv->idx_row = row;
      out.push_back({kv ? &kv->idx : nullptr, Mem::Indexer, bytes.value() / 4});
    }
  }
  plan_workspace(c, o, built, dec ? &dec->ws : nullptr, out);
  if (kinds) *kinds = built;
  Checked total(0);
  for (const auto& r : out) {
    if (r.elems < 0) return core::issue_row("context", core::Str::ref_overflow, core::Str::ref_what_workspace);
    total += Checked(r.elems) * 4;
  }
  if (!total.ok()) return core::issue_row("context", core::Str::ref_overflow, core::Str::ref_what_decoder);
  return out;
}

std::uint64_t splitmix64(std::uint64_t x) {  // ref: Steele, Lea, Flood 2014 (SplittableRandom)
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t name_hash(const std::string& s) {  // FNV-1a 64
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

bool ends_with(const std::string& s, const char* suffix) {
  const std::string_view v(suffix);
  return s.size() >= v.size() && s.compare(s.size() - v.size(), v.size(), v) == 0;
}

}  // namespace

namespace {
// value(elem) = offset + (mult · u) / div with u uniform in [-1, 1) from (base, elem).
struct WeightGen {
  std::uint64_t base;
  float offset, mult, div;
};

WeightGen weight_gen(std::uint64_t seed, const core::Tensor& t, i64 layer) {
  WeightGen g{splitmix64(seed ^ name_hash(core::tensor_name(t.name, layer))), 0.0f, 1.0f, 1.0f};
  switch (t.role) {
    case core::Role::Norm:
    case core::Role::RouterScale:  // Gemma 4's router scales multiply, as a norm's weight does
      if (!ends_with(t.name, ".bias")) g.offset = 1.0f;
      g.mult = 0.1f;
      break;
    case core::Role::Bias:
    case core::Role::RouterBias:
    case core::Role::PosEmbed:
      g.mult = 0.1f;
      break;
    case core::Role::Embed:
      break;
    default:  // matrices: outputs of about unit size for unit inputs (1/sqrt(d_in))
      g.div = std::sqrt(static_cast<float>(t.rows));
  }
  return g;
}

inline float gen_value(const WeightGen& g, i64 elem) {
  const std::uint64_t r = splitmix64(g.base + static_cast<std::uint64_t>(elem));
  // Uniform in [-1, 1) with 24 random bits: exact in float on every platform.
  const float u = static_cast<float>(static_cast<std::int64_t>(r >> 40) - (1 << 23)) * 0x1p-23f;
  return g.offset + g.mult * u / g.div;
}
}  // namespace

float weight_value(std::uint64_t seed, const core::Tensor& t, i64 layer, i64 elem) {
  return gen_value(weight_gen(seed, t, layer), elem);
}

core::Result<DecoderPlan> plan_decoder(const ModelConfig& cfg, const DecoderOptions& opt_in) {
  DecoderOptions o = opt_in;
  if (o.max_tokens == 0) o.max_tokens = o.context;
  Span span;
  if (auto issues = check_options(cfg, o, span); !issues.empty()) return issues;
  auto inv = core::build_inventory(cfg);
  if (!inv) return inv.issues();
  auto lp = core::layer_plan(cfg, core::KvDtype::F32, 1, 4);  // fp32 KV and recurrent state
  if (!lp) return lp.issues();
  auto reqs = plan(cfg, *inv, *lp, o, span, nullptr);
  if (!reqs) return reqs.issues();
  DecoderPlan p;
  for (const auto& r : *reqs) {
    p.bytes[static_cast<int>(r.cat)] += r.elems * 4;
    p.total += r.elems * 4;
    if (r.cat == Mem::Weights) p.weight_params += r.elems;
  }
  return p;
}

core::Result<std::unique_ptr<Decoder>> build_decoder(const ModelConfig& cfg,
                                                     const DecoderOptions& opt_in) {
  auto dec = std::make_unique<Decoder>();
  dec->opt = opt_in;
  if (dec->opt.max_tokens == 0) dec->opt.max_tokens = dec->opt.context;
  Span span;
  if (auto issues = check_options(cfg, dec->opt, span); !issues.empty()) return issues;
  auto inv = core::build_inventory(cfg);
  if (!inv) return inv.issues();
  dec->cfg = cfg;
  dec->inv = std::move(inv.value());
  auto lp = core::layer_plan(cfg, core::KvDtype::F32, 1, 4);  // fp32 KV and recurrent state
  if (!lp) return lp.issues();
  dec->plan = std::move(lp.value());
  Built kinds;
  auto reqs = plan(cfg, dec->inv, dec->plan, dec->opt, span, dec.get(), &kinds);
  if (!reqs) return reqs.issues();
  for (const auto& r : *reqs) {
    *r.target = Buffer::make(dec->mem, r.cat, r.elems);
    if (!r.target->ok())
      return core::issue_row("budget", core::Str::ref_out_of_memory, core::with_commas(r.elems * 4), std::string(to_string(r.cat)));
  }
  carve_workspace(cfg, dec->opt, kinds, dec->ws);
  if (auto issue = bind_weights(*dec, span.first, span.count)) return *issue;
  for (const LayerW& L : dec->layers)
    if (trace_heads(*dec, L) > 0) {
      dec->trace_layer = L.index;
      break;
    }
  std::fill_n(dec->ws.state_norm.data(), dec->ws.state_norm.size(), std::nanf(""));
  if (!dec->opt.defer_init) init_weights(*dec, i64{1} << 62);
  return dec;
}

bool init_weights(Decoder& dec, i64 max_floats) {
  while (max_floats > 0 && dec.init_tensor < static_cast<i64>(dec.weights.size())) {
    WeightTensor& w = dec.weights[static_cast<size_t>(dec.init_tensor)];
    const i64 end = std::min(w.buf.size(), dec.init_elem + max_floats);
    const WeightGen g = weight_gen(dec.opt.seed, w.spec, w.layer);
    float* out = w.buf.data();
    for (i64 i = dec.init_elem; i < end; ++i) out[i] = gen_value(g, i);
    max_floats -= end - dec.init_elem;
    dec.init_elem = end;
    if (end == w.buf.size()) ++dec.init_tensor, dec.init_elem = 0;
  }
  return dec.init_tensor == static_cast<i64>(dec.weights.size());
}

double init_fraction(const Decoder& dec) {
  i64 done = 0, total = 0;
  for (size_t i = 0; i < dec.weights.size(); ++i) {
    const i64 n = dec.weights[i].buf.size();
    total += n;
    if (static_cast<i64>(i) < dec.init_tensor) done += n;
    else if (static_cast<i64>(i) == dec.init_tensor) done += dec.init_elem;
  }
  return total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
}

i64 allocated_params(const Decoder& dec) {
  i64 n = 0;
  for (const auto& w : dec.weights) n += w.buf.size();
  return n;
}

i64 allocated_params(const Decoder& dec, core::Group group) {
  i64 n = 0;
  for (const auto& w : dec.weights)
    if (w.spec.group == group) n += w.buf.size();
  return n;
}

i64 trace_heads(const Decoder& dec, const LayerW& L) {
  return L.linear ? dec.cfg.linear.v_heads : L.mamba ? dec.cfg.mamba.heads : 0;
}

StateTrace state_trace(const Decoder& dec) {
  StateTrace t;
  if (dec.trace_layer < 0) return t;
  t.layer = dec.trace_layer;
  for (const LayerW& L : dec.layers)
    if (L.index == dec.trace_layer) t.heads = trace_heads(dec, L), t.mamba = L.mamba;
  t.positions = dec.pos;
  t.norms = dec.ws.state_norm.data();
  return t;
}

void record_state_norm(Decoder& dec, const LayerW& L, i64 h, i64 pos, const float* S, i64 n) {
  if (L.index != dec.trace_layer || pos >= dec.opt.context) return;
  double ss = 0.0;
  for (i64 i = 0; i < n; ++i) ss += static_cast<double>(S[i]) * S[i];
  dec.ws.state_norm[pos * trace_heads(dec, L) + h] = static_cast<float>(std::sqrt(ss));
}

const WeightTensor* find_weight(const Decoder& dec, const std::string& name) {
  for (const auto& w : dec.weights)
    if (core::tensor_name(w.spec.name, w.layer) == name) return &w;
  return nullptr;
}

}  // namespace llmsize::ref

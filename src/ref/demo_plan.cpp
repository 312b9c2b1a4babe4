// Choosing the demo block (see demo.hpp): one layer of each attention kind of the model (sliding
// and full, Gated DeltaNet and full: a compacted config whose plan has exactly the model's cache
// shapes, one layer each), else the model's most common layer kind as a one-layer config, every
// layer with the FFN kind the model mostly has. If the block does not fit the budget, routed
// experts are dropped first (top_k and
// the expert width stay, so a token's work is unchanged), then every width is divided by
// 2, 3, 4, … (hidden size, heads, KV heads, FFN and expert widths, MLA ranks; head_dim kept)
// until it fits (NAS models: each layer's KV heads and FFN width too). Sizes come from
// plan_decoder, i.e. exactly what the block will allocate.
#include <algorithm>
#include <optional>

#include "demo.hpp"

namespace llmsize::ref {

namespace {

using core::i64;
using core::Issue;
using core::ModelConfig;

constexpr i64 kMiB = i64{1} << 20;
constexpr i64 kMaxDivisor = 256;

// One layer of `m` standing for layer `layer` of its plan: FFN kind and window resolved.
ModelConfig one_layer(const ModelConfig& m, const core::LayerPlan& plan, i64 layer) {
  ModelConfig b = m;
  b.n_layers = 1;
  b.mtp_layers = 0;
  if (m.is_moe()) {
    if (plan.is_moe(layer)) {
      b.moe.first_dense = 0;
      b.moe.freq = 1;
      b.moe.phase = 0;
      b.moe.dense_layers.clear();
    } else {
      b.moe = core::MoeConfig{};
    }
  }
  b.sliding_window = plan.window(layer);  // 0: a layer that keeps every token
  b.sliding_pattern = 1;
  if (m.per_layer()) {  // NAS: that layer's KV heads and FFN width
    b.layer_kv_heads = {m.kv_heads_at(layer)};
    b.layer_ffn = {m.ffn_at(layer)};
  }
  // A block-pattern model of one kind (Falcon-H1: every layer 'P'): that layer's block
  // (validate() holds the pattern to one character per layer).
  if (!m.block_pattern.empty() && layer >= 0 && layer < static_cast<i64>(m.block_pattern.size()))
    b.block_pattern = m.block_pattern.substr(static_cast<size_t>(layer), 1);
  b.kv_shared = 0;  // one layer keeps its own cache (a KV-shared layer needs its source: one_of_each)
  return b;
}

// A cache shape without its layer count: what makes two layers the same attention kind.
core::CacheShape shape_of(const core::LayerPlan& plan, i64 layer) {
  core::CacheShape s = plan.cache_of(layer);
  s.layers = 0;
  return s;
}

// One layer of each distinct cache shape of `m`, in the order of `m`'s first layers of each, all
// with the FFN of model layer `ffn_layer`: the sliding pattern becomes 2 (a sliding layer, then a
// full one), Gated DeltaNet's interval 2 (a linear layer, then a full one). `layers` gets the model
// layer each block layer stands for. nullopt when the model has one shape, or when the compacted
// plan does not hold exactly the model's shapes (a pattern this does not know how to compact).
std::optional<ModelConfig> one_of_each(const ModelConfig& m, const core::LayerPlan& plan, i64 ffn_layer,
                                       std::vector<i64>& layers) {
  std::vector<core::CacheShape> shapes;
  std::vector<i64> first;
  for (i64 l = 0; l < m.n_layers; ++l) {
    const core::CacheShape s = shape_of(plan, l);
    if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s), first.push_back(l);
  }
  if (shapes.size() < 2) return std::nullopt;
  ModelConfig b = one_layer(m, plan, ffn_layer);
  b.n_layers = static_cast<i64>(shapes.size());
  b.sliding_window = m.sliding_window;
  b.sliding_pattern = m.sliding_pattern > 1 ? 2 : m.sliding_pattern;
  if (m.linear.enabled()) b.linear.full_interval = 2;
  if (m.per_layer()) {  // NAS: each block layer keeps the KV heads and FFN width of the model layer it stands for
    b.layer_kv_heads.clear();
    b.layer_ffn.clear();
    for (i64 l : first) b.layer_kv_heads.push_back(m.kv_heads_at(l)), b.layer_ffn.push_back(m.ffn_at(l));
  }
  // Gemma 4: the KV-shared kinds come last in the model, and so in the block: that many trailing
  // layers share (each reads the block's earlier layer of its kind, as in the model).
  if (m.kv_shared > 0)
    b.kv_shared = std::count_if(shapes.begin(), shapes.end(), [](const core::CacheShape& s) { return s.kind == core::AttnKind::Shared; });
  if (!m.block_pattern.empty()) {  // Nemotron-H: each block kind once, in the model's order
    b.block_pattern.clear();
    for (char ch : m.block_pattern)
      if (b.block_pattern.find(ch) == std::string::npos) b.block_pattern += ch;
  }
  if (!core::validate(b).empty()) return std::nullopt;
  auto bp = core::layer_plan(b, core::KvDtype::F32);
  if (!bp) return std::nullopt;
  layers.clear();
  for (i64 l = 0; l < b.n_layers; ++l) {
    const auto it = std::find(shapes.begin(), shapes.end(), shape_of(*bp, l));
    if (it == shapes.end() || std::find(layers.begin(), layers.end(), first[static_cast<size_t>(it - shapes.begin())]) != layers.end())
      return std::nullopt;
    layers.push_back(first[static_cast<size_t>(it - shapes.begin())]);
  }
  return b;
}

ModelConfig narrower(const ModelConfig& c, i64 w) {
  ModelConfig s = c;
  auto div = [w](i64 v) { return std::max<i64>(1, v / w); };
  s.d_model = div(c.d_model);
  s.n_heads = div(c.n_heads);
  s.n_kv_heads = std::min(div(c.n_kv_heads), s.n_heads);
  while (s.n_heads % s.n_kv_heads != 0) --s.n_kv_heads;
  if (c.mla.enabled) s.n_kv_heads = s.n_heads;
  s.d_ff = div(c.d_ff);
  s.embed_proj_dim = 0;
  if (c.is_moe()) {
    s.moe.expert_ffn = div(c.moe.expert_ffn);
    if (c.moe.shared_ffn > 0) s.moe.shared_ffn = div(c.moe.shared_ffn);
  }
  if (c.mamba.enabled()) {  // Mamba-2: fewer heads, still a multiple of the groups
    const i64 g = c.mamba.groups;
    s.mamba.heads = std::max(g, div(c.mamba.heads) / g * g);
  }
  if (c.linear.enabled()) {  // Gated DeltaNet: fewer key heads, the same value heads per key head
    s.linear.k_heads = div(c.linear.k_heads);
    s.linear.v_heads = s.linear.k_heads * (c.linear.v_heads / c.linear.k_heads);
  }
  if (c.mla.enabled) {
    if (c.mla.q_lora_rank > 0) s.mla.q_lora_rank = div(c.mla.q_lora_rank);
    s.mla.kv_lora_rank = div(c.mla.kv_lora_rank);
  }
  for (i64& kv : s.layer_kv_heads)  // NAS: 0 (no attention) stays 0; others divide the narrower heads
    if (kv > 0) {
      kv = std::min(div(kv), s.n_heads);
      while (s.n_heads % kv != 0) --kv;
    }
  for (i64& f : s.layer_ffn)
    if (f > 0) f = div(f);
  return s;
}

std::string arrow(i64 from, i64 to) { return std::to_string(from) + "->" + std::to_string(to); }  // the UI font has no →
}  // namespace

std::string scaling_text(const DemoPlan& p, core::Lang l) {
  using core::printf_text;
  using core::Str;
  using core::tr;
  if (!p.scaled) return tr(Str::cdemo_real_dims, l);
  const ModelConfig &real = p.model, &block = p.block;
  std::string text;
  if (p.width_divisor > 1) {
    std::string more;
    if (!real.mla.enabled && real.n_kv_heads != real.n_heads)
      more += printf_text(tr(Str::cdemo_scaled_kv, l), arrow(real.n_kv_heads, block.n_kv_heads).c_str());
    if (real.mamba.enabled() && real.mamba.heads != block.mamba.heads)
      more += printf_text(tr(Str::cdemo_scaled_mamba, l), arrow(real.mamba.heads, block.mamba.heads).c_str());
    if (real.linear.enabled() && real.linear.v_heads != block.linear.v_heads)
      more += printf_text(tr(Str::cdemo_scaled_linear, l), arrow(real.linear.v_heads, block.linear.v_heads).c_str());
    more += p.moe ? printf_text(tr(Str::cdemo_scaled_expert_ffn, l), arrow(real.moe.expert_ffn, block.moe.expert_ffn).c_str())
                  : printf_text(tr(Str::cdemo_scaled_ffn, l), arrow(real.d_ff, block.d_ff).c_str());
    text = printf_text(tr(Str::cdemo_scaled_width, l), arrow(real.d_model, block.d_model).c_str(),
                       static_cast<long long>(p.width_divisor), arrow(real.n_heads, block.n_heads).c_str(), more.c_str(),
                       static_cast<long long>(real.mla.enabled ? real.q_head_dim() : real.head_dim));
  }
  if (p.experts_block != p.experts_model)
    text += printf_text(tr(text.empty() ? Str::cdemo_scaled_experts : Str::cdemo_scaled_and_experts, l),
                        arrow(p.experts_model, p.experts_block).c_str(), static_cast<long long>(real.moe.top_k));
  return text;
}

core::Result<DemoPlan> plan_demo(const ModelConfig& model, const DemoSettings& s) {
  std::vector<Issue> bad = validate(s);
  if (bad.empty() && s.prompt + s.tokens > model.max_positions)
    bad.push_back(core::issue_row("prompt", core::Str::ref_demo_context, std::to_string(model.max_positions),
                                  std::to_string(s.prompt + s.tokens)));
  if (auto issues = core::validate(model); !issues.empty()) bad.insert(bad.end(), issues.begin(), issues.end());
  if (!bad.empty()) return bad;

  auto lp = core::layer_plan(model, core::KvDtype::F32);
  if (!lp) return lp.issues();
  DemoPlan p;
  p.model = model;
  p.layer = 0;
  if (model.is_moe())  // the routed kind: in MoE models it is the common one
    while (p.layer + 1 < model.n_layers && !lp->is_moe(p.layer)) ++p.layer;
  p.moe = lp->is_moe(p.layer);
  const auto each = one_of_each(model, *lp, p.layer, p.layers);
  if (!each) p.layers = {p.layer};
  const ModelConfig real = each ? *each : one_layer(model, *lp, p.layer);
  const DecoderOptions opt{.batch = 1, .context = s.prompt + s.tokens, .max_tokens = s.chunk(), .globals = false};
  auto bytes = [&](const ModelConfig& c) -> i64 {
    auto plan = plan_decoder(c, opt);
    return plan.ok() ? plan->total : -1;
  };
  auto fits = [&](const ModelConfig& c) {
    const i64 b = bytes(c);
    return b >= 0 && b <= s.budget_bytes;
  };

  if (auto whole = plan_decoder(real, opt); !whole) return whole.issues();  // refusals are not a budget matter
  ModelConfig block = real;
  p.experts_model = p.experts_block = p.moe ? real.moe.num_experts : 0;
  if (p.moe && !fits(block)) {  // fewer routed experts, each still real-sized
    const i64 floor = std::min(real.moe.num_experts, 2 * real.moe.top_k);
    i64 e = real.moe.num_experts;
    while (e > floor && !fits(block)) {
      e = std::max(floor, e / 2);
      block.moe.num_experts = e;
    }
    p.experts_block = e;
  }
  const ModelConfig wide = block;
  while (!fits(block)) {
    if (++p.width_divisor > kMaxDivisor)
      return core::issue_row("budget", core::Str::ref_demo_narrower, std::to_string(kMaxDivisor),
                             std::to_string(bytes(narrower(wide, kMaxDivisor)) / kMiB + 1));
    block = narrower(wide, p.width_divisor);
  }
  p.block = block;
  p.bytes = bytes(block);
  p.scaled = p.width_divisor > 1 || p.experts_block != p.experts_model;
  p.scaling = scaling_text(p, core::Lang::En);
  if (s.train_seq > 0) {  // the first block layer the training step models, or the first layer's refusal
    std::optional<Issue> first;
    for (i64 l = 0; l < p.block.n_layers && p.train_layer < 0; ++l) {
      auto why = train_unsupported(p.block, l);
      if (!why) p.train_layer = l;
      else if (!first) first = why;
    }
    if (p.train_layer < 0) return *first;
  }
  return p;
}

}  // namespace llmsize::ref

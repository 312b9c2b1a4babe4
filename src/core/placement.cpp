// Tensor placement over tensor/expert/pipeline parallel GPUs (see placement.hpp).
#include "placement.hpp"

#include <algorithm>

#include "layer_plan.hpp"

namespace llmsize::core {

StageRange stage_range(i64 n_layers, i64 pp, i64 stage) {
  const i64 base = n_layers / pp, extra = n_layers % pp;
  StageRange r;
  r.count = base + (stage < extra ? 1 : 0);
  r.first = stage * base + std::min(stage, extra);
  return r;
}

}  // namespace llmsize::core

namespace llmsize::core::placement {

namespace {

// Column-parallel tensors whose bias is split with them (Megatron ColumnParallelLinear).
bool column_parallel(Role r) {
  return r == Role::AttnQ || r == Role::AttnK || r == Role::AttnV || r == Role::AttnQKV || r == Role::FfnGate ||
         r == Role::FfnUp || r == Role::FfnGateUp || r == Role::MlaQB || r == Role::MlaKVB;
}
}  // namespace

std::vector<Issue> check_parallel(const ModelConfig& c, const Workload& w) {
  std::vector<Issue> out;
  auto n = [](i64 v) { return std::to_string(v); };
  if (w.pp > c.n_layers) out.push_back(issue_row("pp", Str::issue_at_most, "num_hidden_layers", n(c.n_layers), n(w.pp)));
  if (c.n_heads % w.tp != 0)
    out.push_back(issue_row("tp", Str::issue_must_divide, "num_attention_heads", n(c.n_heads), n(w.tp)));
  else if (!c.mla.enabled && c.n_kv_heads % w.tp != 0 && w.tp % c.n_kv_heads != 0)
    out.push_back(issue_row("tp", Str::issue_divide_or_multiple, "num_key_value_heads", n(c.n_kv_heads), n(w.tp)));
  // ref: vLLM Qwen3NextGatedDeltaNet: key and value heads are split over tensor parallel GPUs.
  if (c.linear.enabled() && c.linear.k_heads % w.tp != 0)
    out.push_back(issue_row("tp", Str::issue_must_divide, "linear_num_key_heads", n(c.linear.k_heads), n(w.tp)));
  // ref: vLLM's vision towers split their heads with divide() (clip.py, siglip.py, pixtral.py,
  // qwen2_5_vl.py, mllama4.py, moonvit.py): no padding, an assertion where tp does not divide them.
  if (c.vision.enabled() && c.vision.heads > 0 && c.vision.heads % w.tp != 0)
    out.push_back(issue_row("tp", Str::issue_must_divide, "vision_config.num_attention_heads", n(c.vision.heads), n(w.tp)));
  if (c.is_moe() && w.ep > c.moe.num_experts)
    out.push_back(issue_row("exp", Str::issue_at_most, "num_experts", n(c.moe.num_experts), n(w.ep)));
  return out;
}

std::optional<i64> gpu_share(const ModelConfig& c, const Tensor& t, i64 total, Split s) {
  if (s.tp == 1 && s.ep == 1) return total;
  if (t.routed && t.copies > 0) {
    const i64 one = total / t.copies;  // total = one copy × copies
    if (s.ep > 1) {
      const auto held = mul(one, ceil_div(t.copies, s.ep));
      return held;
    }
    return ceil_div(total, s.tp);
  }
  if (t.tp_split == TpSplit::Whole) return total;
  if (t.tp_split == TpSplit::Columns) return ceil_div(total, s.tp);
  const Role r = t.role == Role::Bias ? t.of : t.role;
  const bool vector = t.rows == 1 || t.cols == 1;
  if (t.role == Role::Norm || t.role == Role::RouterBias || t.role == Role::Router || t.role == Role::SharedGate ||
      t.role == Role::RouterScale ||
      t.role == Role::PosEmbed || t.role == Role::EmbedProj || r == Role::MlaQA || r == Role::MlaKVA ||
      r == Role::IdxQ || r == Role::IdxK || r == Role::IdxWeights)
    // replicated: vLLM's ReplicatedLinear for MLA down-projections and the router; the lightning
    // indexer's wq_b, wk and weights_proj "no tensor parallel, just replicated" (vLLM deepseek_v2.py
    // Indexer, SGLang nsa_indexer.py Indexer)
    return total;
  if (vector && !(t.role == Role::Bias && column_parallel(r))) return total;  // row-parallel biases
  const i64 K = t.kv_heads > 0 ? t.kv_heads : c.n_kv_heads;  // this layer's K (Gemma 4 full layers)
  if (!c.mla.enabled && (r == Role::AttnK || r == Role::AttnV) && K > 0) {
    const i64 held = kv_heads_per_gpu(K, s.tp);  // K/tp heads, or 1 replicated head when tp > K
    auto v = mul(total / K, held);
    return v;
  }
  return ceil_div(total, s.tp);
}

bool on_first_stage(const Tensor& t) {
  if (t.role == Role::Embed || t.role == Role::PosEmbed || t.role == Role::LayerEmbed) return true;
  if (t.role == Role::EmbedProj) return t.name.find("project_out") == std::string::npos;
  if (t.role == Role::Norm) return t.name.find("embed") != std::string::npos;  // BLOOM's embedding norm
  return false;
}

i64 Table::stage(const ModelConfig& cfg, i64 pp, i64 s) const {
  const StageRange r = stage_range(cfg.n_layers, pp, s);
  i64 v = prefix[static_cast<size_t>(r.first + r.count)] - prefix[static_cast<size_t>(r.first)];
  if (s == 0) v += first;
  if (s == pp - 1) v += last;
  return v;  // ≤ 2 × replica, which build() keeps below 2^61
}

}  // namespace llmsize::core::placement

// estimate(): validation, then parameters, inference and training memory, throughput
// (see estimate.hpp). Explanations are built by explain() in explain.cpp.
#include "estimate.hpp"

#include "placement.hpp"

namespace llmsize::core {

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::Exact: return "exact";
    case Bound::Lower: return "lower bound";
    case Bound::Upper: return "upper bound";
    case Bound::Estimate: return "estimate";
  }
  return "estimate";
}

Result<Estimate> estimate(const ModelConfig& cfg, const Workload& w) {
  std::vector<Issue> issues = validate(cfg);
  for (auto& i : validate(w)) issues.push_back(std::move(i));
  if (!issues.empty()) return issues;
  const Gpu* gpu = find_gpu(w.gpu);
  if (!gpu) return Issue{"gpu", "unknown GPU \"" + w.gpu + "\""};
  if (auto p = placement::check_parallel(cfg, w); !p.empty()) return p;
  auto inv = build_inventory(cfg);
  if (!inv) return inv.issues();
  auto params = count_params(cfg, *inv);
  if (!params) return params.issues();
  auto plan = layer_plan(cfg, w.kv_dtype, w.tp, dtype_bytes(w.dtype));
  if (!plan) return plan.issues();
  Estimate e;
  e.gpu = *gpu;
  e.dp = w.dp();
  auto inf = inference_memory(cfg, *inv, *plan, w, *gpu);
  if (!inf) return inf.issues();
  auto tr = training_memory(cfg, *inv, *plan, w, *gpu);
  if (!tr) return tr.issues();
  auto th = throughput(cfg, *inv, *plan, *params, w, *gpu, inf->weights);
  if (!th) return th.issues();
  e.inventory = std::move(inv).value();
  e.params = std::move(params).value();
  e.plan = std::move(plan).value();
  e.inference = std::move(inf).value();
  e.training = std::move(tr).value();
  e.throughput = std::move(th).value();
  // A context beyond the trained positions: impossible with a learned position table,
  // possible but out of distribution with rotary embeddings (needs RoPE scaling).
  if (w.seq > cfg.max_positions) {
    const std::string n = std::to_string(cfg.max_positions);
    if (cfg.pos == PosKind::Learned)
      e.notes.push_back({"seq", "is longer than the " + n + " rows of this model's learned position table, so the "
                                "model cannot run it; the memory shown is for the context as given"});
    else
      e.notes.push_back({"seq", "exceeds the trained context of " + n + " tokens (max_position_embeddings); " +
                                    "running it needs RoPE scaling or ALiBi extrapolation, and quality may drop"});
  }
  return e;
}

}  // namespace llmsize::core

// Training model states and LoRA adapter counts (see model_states.hpp).
#include "model_states.hpp"

#include <algorithm>

namespace llmsize::core {

namespace {
i64 state_dtype_bytes(const Workload& w) { return w.opt_state == StateDtype::F32 ? 4 : 2; }
}  // namespace

StateBytes state_bytes(const Workload& w) {
  StateBytes b;
  const i64 half = dtype_bytes(w.dtype);
  b.weights = w.precision == Precision::Fp32 ? 4 : half;
  // ref: Micikevicius et al. 2018 "Mixed Precision Training": fp32 master copy of the weights.
  b.master = w.precision == Precision::Mixed && half < 4 ? 4 : 0;
  switch (w.grad_dtype) {
    case GradDtype::Auto: b.grads = b.weights; break;
    case GradDtype::F32: b.grads = 4; break;
    default: b.grads = 2;
  }
  const i64 s = state_dtype_bytes(w);
  switch (w.optimizer) {
    case Optimizer::AdamW: b.optimizer = 2 * s; break;     // m and v
    case Optimizer::AdamW8bit: b.optimizer = 2; break;     // + block absmax (per tensor)
    case Optimizer::Sgd: b.optimizer = 0; break;
    case Optimizer::SgdMomentum: case Optimizer::Lion: b.optimizer = s; break;  // one momentum
    case Optimizer::Adafactor: b.optimizer = 0; break;     // factored: rows + cols per matrix
  }
  return b;
}

Result<ModelStates> model_states(i64 params, const Workload& w, i64 dp) {
  if (dp < 1) return issue_row("gpus", Str::issue_dp_min);
  const StateBytes b = state_bytes(w);
  const auto z = w.sharding;
  const bool opt = z != Sharding::None, grads = z == Sharding::Zero2 || z == Sharding::Zero3 || z == Sharding::Fsdp,
             weights = z == Sharding::Zero3 || z == Sharding::Fsdp;
  auto part = [&](i64 per, bool sharded) -> std::optional<i64> {
    auto v = mul(params, per);
    if (!v) return std::nullopt;
    return sharded ? ceil_div(*v, dp) : *v;
  };
  auto wt = part(b.weights, weights), gr = part(b.grads, grads), ms = part(b.master, opt), op = part(b.optimizer, opt);
  if (!wt || !gr || !ms || !op) return issue_row("hidden_size", Str::issue_states_overflow);
  return ModelStates{*wt, *gr, *ms, *op};
}

std::optional<i64> optimizer_bytes_for(const Workload& w, i64 numel, i64 rows, i64 cols) {
  const i64 s = state_dtype_bytes(w);
  switch (w.optimizer) {
    case Optimizer::AdamW: return mul(numel, 2 * s);
    case Optimizer::SgdMomentum: case Optimizer::Lion: return mul(numel, s);
    case Optimizer::Sgd: return 0;
    case Optimizer::Adafactor:
      // ref: Shazeer & Stern 2018 §3: row and column second-moment factors for matrices.
      if (rows > 1 && cols > 1) return mul(rows + cols, s);
      return mul(numel, s);
    case Optimizer::AdamW8bit: {
      // ref: bitsandbytes Optimizer2State: uint8 state1/state2 with fp32 absmax per 256 values
      // (blockwise), 32-bit states for tensors under min_8bit_size = 4096 values.
      if (numel < 4096) return mul(numel, 8);
      const Checked b = (Checked(numel) + Checked(ceil_div(numel, 256)) * 4) * 2;
      if (!b.ok()) return std::nullopt;
      return b.value();
    }
  }
  return std::nullopt;
}

bool lora_targets_role(std::uint32_t t, Role r) {
  switch (r) {
    case Role::AttnQ: case Role::MlaQA: case Role::MlaQB: return t & kLoraQ;
    case Role::AttnK: case Role::MlaKVA: return t & kLoraK;
    case Role::AttnV: case Role::MlaKVB: return t & kLoraV;
    case Role::AttnQKV: return t & (kLoraQ | kLoraK | kLoraV);
    case Role::AttnO: return t & kLoraO;
    case Role::FfnGate: return t & kLoraGate;
    case Role::FfnUp: return t & kLoraUp;
    case Role::FfnGateUp: return t & (kLoraGate | kLoraUp);
    case Role::FfnDown: return t & kLoraDown;
    default: return false;
  }
}

Result<i64> lora_params(const Inventory& inv, i64 rank, std::uint32_t targets) {
  Checked n;
  for (const LayerKind& k : inv.kinds)
    for (const Tensor& t : k.tensors)
      if (t.rows > 1 && t.cols > 1 && lora_targets_role(targets, t.role))
        // ref: Hu et al. 2021 "LoRA": A (r × d_in) and B (d_out × r) per adapted matrix.
        n += Checked(rank) * (t.rows + t.cols) * t.copies * static_cast<i64>(k.layers.size());
  if (!n.ok()) return issue_row("lora", Str::issue_adapters_overflow);
  return n.value();
}

}  // namespace llmsize::core

// Training model states, per-layer activations and LoRA adapter counts (see training.hpp);
// the per-GPU breakdown is in training_memory.cpp.
#include "training.hpp"

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
  if (dp < 1) return Issue{"gpus", "data-parallel degree must be at least 1"};
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
  if (!wt || !gr || !ms || !op) return Issue{"hidden_size", "model states overflow 64-bit byte counts"};
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
  if (!n.ok()) return Issue{"lora", "adapter parameters overflow 64-bit counts"};
  return n.value();
}

Result<LayerActivations> layer_activations(const ModelConfig& c, const ActParams& p, bool moe_layer) {
  const i64 t = std::max<i64>(1, p.tp), e = p.dtype_bytes;
  const Checked sb = Checked(p.seq) * p.micro_batch;
  const Checked sbh = sb * c.d_model;
  // Replicated across tensor parallel unless sequence parallel splits them along s.
  auto rep = [&](Checked v) { return !p.seq_parallel || !v.ok() ? v : Checked(ceil_div(v.value(), t)); };
  const i64 Ht = ceil_div(c.n_heads, t);
  LayerActivations a;
  Checked total;
  auto set = [&](i64& field, Checked v) {
    field = v.value();
    total += v;
  };
  if (p.recompute == Recompute::Full) {
    // ref: Korthikanti et al. 2022 §4.3: full recomputation keeps the layer input, 2sbh.
    set(a.layer_input, rep(sbh * e));
  } else {
    const bool selective = p.recompute == Recompute::Selective;
    const i64 n_norm_inputs = c.parallel_block || !c.norm_ffn_input ? 1 : 2;  // parallel blocks: one input x
    set(a.norm_inputs, rep(sbh * e * n_norm_inputs));
    set(a.attn_input, rep(sbh * e));
    if (c.mla.enabled) {
      const auto& m = c.mla;
      set(a.qk, sb * Ht * 2 * (m.qk_nope_dim + m.qk_rope_dim) * e);  // q and k expanded per head
      set(a.v, sb * Ht * m.v_head_dim * e);
      set(a.mla_latent, rep(sb * (2 * m.q_lora_rank + (m.kv_lora_rank + m.qk_rope_dim) + m.kv_lora_rank) * e));
      set(a.attn_out_input, sb * Ht * m.v_head_dim * e);
    } else {
      const i64 Kt = kv_heads_per_gpu(c.n_kv_heads, t);
      set(a.qk, sb * (Ht + Kt) * c.head_dim * e);
      set(a.v, sb * Kt * c.head_dim * e);
      if (c.norm_qk) set(a.qk_norm, sb * (Ht + Kt) * c.head_dim * e);
      set(a.attn_out_input, sb * Ht * c.head_dim * e);
    }
    if (p.flash) {
      set(a.softmax_stats, sb * Ht * 4);  // fp32 logsumexp per head and query
    } else if (!selective) {
      // ref: Korthikanti §4.1: softmax output 2as²b; dropout mask as²b and output 2as²b.
      const Checked s2 = Checked(p.micro_batch) * Ht * p.seq * p.seq;
      set(a.scores, s2 * e);
      if (p.dropout) set(a.attn_dropout, s2 * (1 + e));
    }
    const bool shared_norm = c.parallel_block && !c.norm_ffn_input;
    if (!shared_norm) set(a.ffn_input, rep(sbh * e));
    // ref: Korthikanti §4.1: GeLU input and output, 8sbh each for f = 4h; gated FFNs keep
    // gate‖up and the product (Megatron's fused SwiGLU recomputes silu).
    const i64 mult = c.ffn_kind == FfnKind::Gated ? 3 : 2;
    if (!moe_layer) {
      set(a.ffn_hidden, sb * ceil_div(c.d_ff, t) * mult * e);
    } else {
      const auto& m = c.moe;
      const i64 fe = p.ep > 1 ? m.expert_ffn : ceil_div(m.expert_ffn, t);
      set(a.ffn_hidden, sb * m.top_k * fe * mult * e + sb * ceil_div(m.shared_ffn, t) * mult * e);
      set(a.moe_routing, rep(sb * m.num_experts * 4) + sb * m.top_k * c.d_model * e);
    }
    if (p.dropout) set(a.dropout_masks, rep(sbh * 2));  // 1-byte masks after attention and FFN
    if (c.norm_sandwich) set(a.sandwich_norms, rep(sbh * e * 2));
    if (p.lora_rank > 0) {
      // x·A (b·s·r) per adapted matrix; tokens pass top_k routed experts.
      i64 mats = 0;
      auto count = [&](Role r, i64 times) { mats += lora_targets_role(p.lora_targets, r) ? times : 0; };
      if (c.mla.enabled) {
        if (c.mla.q_lora_rank > 0) { count(Role::MlaQA, 1); count(Role::MlaQB, 1); }
        else count(Role::AttnQ, 1);
        count(Role::MlaKVA, 1);
        count(Role::MlaKVB, 1);
      } else if (c.fused_qkv) {
        count(Role::AttnQKV, 1);
      } else {
        count(Role::AttnQ, 1); count(Role::AttnK, 1); count(Role::AttnV, 1);
      }
      count(Role::AttnO, 1);
      const i64 ffn_times = moe_layer ? c.moe.top_k + (c.moe.shared_ffn > 0 ? 1 : 0) : 1;
      if (c.ffn_kind == FfnKind::Gated) {
        if (c.fused_gate_up && !moe_layer) count(Role::FfnGateUp, 1);
        else { count(Role::FfnGate, ffn_times); count(Role::FfnUp, ffn_times); }
      } else {
        count(Role::FfnUp, ffn_times);
      }
      count(Role::FfnDown, ffn_times);
      set(a.lora, sb * p.lora_rank * mats * e);
    }
  }
  if (!total.ok()) return Issue{"seq", "activations overflow 64-bit byte counts; reduce seq or batch"};
  a.total = total.value();
  return a;
}

}  // namespace llmsize::core

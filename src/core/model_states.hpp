// Training model states per parameter and per tensor: the bytes of weights, gradients, fp32
// master weights and optimizer states by precision and optimizer, their ZeRO/FSDP sharding, and
// the exact LoRA adapter count. Not here: activations (activations.hpp), the per-GPU breakdown
// (training_memory.hpp).
#pragma once
#include "inventory.hpp"
#include "workload.hpp"

namespace llmsize::core {

// ---- Model states ----------------------------------------------------------------------
// Bytes per parameter of each state, before sharding.
struct StateBytes {
  i64 weights = 0;   // the working copy (16-bit in Mixed/Pure, 4 in Fp32)
  i64 grads = 0;
  i64 master = 0;    // fp32 master copy (Mixed only)
  i64 optimizer = 0; // AdamW m+v, momentum, … (8-bit Adam: 2 + block absmax, see below)
};
StateBytes state_bytes(const Workload& w);

// Model states for `params` parameters held on one GPU before ZeRO, sharded over `dp`:
// ZeRO-1 shards optimizer (+ master), ZeRO-2 also gradients, ZeRO-3/FSDP also weights
// (ref: Rajbhandari et al. 2020, "ZeRO", §5 and Fig. 1). Optimizer bytes are computed per
// tensor elsewhere (8-bit Adam and Adafactor depend on shapes); this helper uses
// state_bytes().optimizer per parameter — the ZeRO paper's K.
struct ModelStates {
  i64 weights = 0, grads = 0, master = 0, optimizer = 0;
  i64 total() const { return weights + grads + master + optimizer; }
};
Result<ModelStates> model_states(i64 params, const Workload& w, i64 dp);

// Optimizer-state bytes of one tensor of `numel` values shaped rows × cols:
//   AdamW: 2 states (m, v) × state dtype; Lion, SGD+momentum: 1 state; SGD: 0;
//   Adafactor (no momentum): factored second moment, (rows + cols) fp32 for matrices, numel
//     for vectors (ref: Shazeer & Stern 2018);
//   8-bit AdamW (bitsandbytes): 2 × (1 byte + fp32 absmax per 256-value block) for tensors of
//     at least 4096 values, 32-bit states below (bitsandbytes min_8bit_size).
std::optional<i64> optimizer_bytes_for(const Workload& w, i64 numel, i64 rows, i64 cols);

// ---- LoRA --------------------------------------------------------------------------------
// Exact adapter parameters: r·(d_in + d_out) per adapted matrix (each routed-expert copy of a
// targeted role gets its own adapter), from the inventory shapes. MTP layers excluded.
Result<i64> lora_params(const Inventory& inv, i64 rank, std::uint32_t targets);
bool lora_targets_role(std::uint32_t targets, Role r);

}  // namespace llmsize::core

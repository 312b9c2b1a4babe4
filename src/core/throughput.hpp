// Rate and time bounds: decode tokens/s from memory bandwidth (bytes read per step: active
// weights — MoE reads only the experts its tokens chose — plus the KV cache), prefill and
// training time from FLOPs (2·P per token forward, 6·P training, plus attention) at a
// user-set utilization, and the Chinchilla-optimal token count. Doubles: these are rates.
// Not here: memory (inference_memory.hpp, training_memory.hpp).
#pragma once
#include "engine_llamacpp.hpp"
#include "params.hpp"
#include "training_memory.hpp"

namespace llmsize::core {

// FLOPs of attention scores and weighted sum for `queries` new tokens of one sequence that
// follow `past` cached tokens: per layer 2·2·H·(hd_qk + hd_v)/2 per (query, key) pair —
// i.e. 2·H·(hd_qk + hd_v) — with causal masking and each layer's window (the plan's) capping
// the keys.
double attention_flops(const ModelConfig& cfg, const LayerPlan& plan, i64 past, i64 queries);

// Parameters that take part in matrix multiplies per token (active: top-k experts), i.e.
// without the embedding lookup tables (a tied head is counted as the head).
i64 matmul_params_active(const ModelConfig& cfg, const Inventory& inv);

struct Throughput {
  // Decode (memory-bandwidth roofline; upper bounds on tokens/s).
  i64 decode_bytes_per_step = 0;     // one replica, one step of `batch` tokens
  i64 decode_weight_bytes = 0;       // of which weights (touched experts, b embedding rows)
  i64 decode_kv_bytes = 0;           // of which KV cache and recurrent state
  double experts_touched = 0;        // routed experts read per MoE layer per step (uniform routing)
  double decode_step_seconds = 0;
  double decode_tokens_per_s = 0;    // all replicas: dp × batch / step
  double decode_tokens_per_s_per_seq = 0;
  // Prefill (compute roofline at `utilization`).
  double prefill_flops = 0;          // batch × (2·P_active·s + attention)
  double prefill_seconds = 0;
  // Training.
  double train_flops_per_token = 0;  // 6·P_active + 3× attention (+ recomputed forward)
  i64 tokens_per_step = 0;           // seq × micro-batch × grad_accum × dp
  double step_seconds = 0;
  i64 train_tokens = 0;              // workload's, or Chinchilla-optimal when 0
  double train_seconds = 0;
  i64 chinchilla_tokens = 0;         // ≈ 20 · P (Hoffmann et al. 2022)
  double peak_tflops = 0;            // per GPU, the dtype used
  double bandwidth_gbs = 0;          // per GPU
  // llama.cpp's layers on the CPU (no GPU, -ngl short of every layer, --n-cpu-moe): the bytes of
  // a decode step the CPU reads (its weights, its layers' cache and state), at the host's bandwidth
  // (--host-bw-gbs). Without that bandwidth: no decode bound on the CPU alone; beside GPUs, the
  // CPU's bytes at the GPU's bandwidth (still an upper bound on the rate, a loose one).
  i64 decode_host_bytes = 0;
  double host_bandwidth_gbs = 0;
  bool host_only = false;            // the CPU alone (llama.cpp without a GPU): the host is the device
  bool host_at_device_rate = false;  // the CPU's bytes taken at the GPU's bandwidth
  bool fp8_compute = false;          // fp8 weights on a GPU with fp8 tensor cores
};

// `llamacpp`: llama.cpp's buffers, where the runtime is llama.cpp (the CPU's share of a step).
Result<Throughput> throughput(const ModelConfig& cfg, const Inventory& inv, const LayerPlan& plan, const ParamReport& params,
                              const Workload& w, const Gpu& gpu, const WeightsReport& weights,
                              const LlamaCppBuffers* llamacpp = nullptr);

}  // namespace llmsize::core

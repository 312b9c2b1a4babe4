// Decode, prefill and training rate bounds and the Chinchilla token count (see throughput.hpp).
#include "throughput.hpp"

#include <algorithm>
#include <cmath>

namespace llmsize::core {

namespace {
// Σ_{x=a}^{b} min(x, W), W ≤ 0 meaning no cap.
double sum_capped(double a, double b, double W) {
  if (b < a) return 0;
  auto range = [](double lo, double hi) { return hi < lo ? 0.0 : (lo + hi) * (hi - lo + 1) / 2; };
  if (W <= 0 || b <= W) return range(a, b);
  if (a > W) return (b - a + 1) * W;
  return range(a, W) + (b - W) * W;
}
// Σ_{x=a}^{b} ((x − 1) mod C + 1): keys attended when each chunk of C positions starts afresh.
double sum_chunked(double a, double b, double C) {
  if (b < a) return 0;
  auto upto = [C](double n) {  // Σ_{x=1}^{n}
    const double q = std::floor(n / C), r = n - q * C;
    return q * C * (C + 1) / 2 + r * (r + 1) / 2;
  };
  return upto(b) - upto(a - 1);
}
}  // namespace

double attention_flops(const ModelConfig& c, const LayerPlan& plan, i64 past, i64 queries) {
  const double dqk = static_cast<double>(c.q_head_dim()), dv = static_cast<double>(c.v_head_dim());
  // Query at position p attends p + 1 keys (causal), at most the window of its layer.
  const double a = static_cast<double>(past) + 1, b = static_cast<double>(past + queries);
  std::vector<double> per_cache;
  // A sparse-attention layer (DeepSeek-V3.2) attends at most index_topk keys; its indexer scores all.
  const double topk = static_cast<double>(c.mla.index_topk);
  // Each cache's (query, key) pairs weighted by its q·k and p·v widths (Gemma 4's full layers have
  // their own head size; MLA's latent is not the head size).
  for (const CacheShape& s : plan.caches)
    per_cache.push_back((!attends(s.kind)                ? 0.0
                         : s.kind == AttnKind::MlaIndexer ? sum_capped(a, b, topk)
                         : s.kind == AttnKind::Chunked    ? sum_chunked(a, b, static_cast<double>(s.window))
                                                          : sum_capped(a, b, static_cast<double>(s.window))) *
                        (is_mla(s.kind) ? dqk + dv : static_cast<double>(s.k_dim + s.v_dim)));
  double pairs = 0;  // summed layer by layer: the same bits whatever the plan's grouping
  i64 linear_layers = 0, indexer_layers = 0, mamba_layers = 0, mamba1_layers = 0;
  for (const PlannedLayer& l : plan.layers) {
    pairs += per_cache[static_cast<size_t>(l.cache)];
    const AttnKind k = plan.caches[static_cast<size_t>(l.cache)].kind;
    linear_layers += k == AttnKind::Linear ? 1 : 0;
    indexer_layers += k == AttnKind::MlaIndexer ? 1 : 0;
    mamba_layers += k == AttnKind::Mamba || k == AttnKind::FullMamba ? 1 : 0;
    mamba1_layers += k == AttnKind::Mamba1 ? 1 : 0;
  }
  // ref: QKᵀ 2·dqk and P·V 2·dv FLOPs per head per (query, key) pair.
  double flops = pairs * 2.0 * static_cast<double>(c.n_heads);
  if (indexer_layers > 0)  // ref: the indexer's logits q·k per head per (query, key) pair, 2·H_I·d_I FLOPs
    flops += static_cast<double>(indexer_layers) * sum_capped(a, b, 0) * 2.0 * static_cast<double>(c.mla.index_heads) *
             static_cast<double>(c.mla.index_dim);
  if (mamba_layers > 0) {
    // ref: Dao & Gu 2024 (Mamba-2) SSD recurrence per token and head: decay the head_dim × state
    // state, add x·Bᵀ, read y = S·C: about 3 passes of 2·head_dim·state FLOPs.
    const auto& m = c.mamba;
    flops += static_cast<double>(mamba_layers) * static_cast<double>(queries) * 6.0 * static_cast<double>(m.heads) *
             static_cast<double>(m.head_dim) * static_cast<double>(m.state);
  }
  if (mamba1_layers > 0) {
    // ref: Gu & Dao 2023 (Mamba) selective scan per token, channel and state: h = exp(Δ·A)·h + Δ·B·x,
    // y = C·h, about 6 FLOPs over the d_inner × state state.
    flops += static_cast<double>(mamba1_layers) * static_cast<double>(queries) * 6.0 *
             static_cast<double>(c.mamba1_inner()) * static_cast<double>(c.mamba1.state);
  }
  if (linear_layers > 0) {
    // ref: Yang et al. 2024 (Gated DeltaNet) recurrence per token and value head: decay S, Sᵀk,
    // the rank-1 update k(β(v − Sᵀk))ᵀ and the output Sᵀq, about 4 passes of 2·dk·dv FLOPs
    // over the dk × dv state (the chunked form does the same work in matrix products).
    const auto& la = c.linear;
    flops += static_cast<double>(linear_layers) * static_cast<double>(queries) * 8.0 *
             static_cast<double>(la.v_heads) * static_cast<double>(la.k_dim) * static_cast<double>(la.v_dim);
  }
  return flops;
}

i64 matmul_params_active(const ModelConfig& c, const Inventory& inv) {
  Checked n;
  for (const Tensor& t : inv.global) {
    if (!(t.rows > 1 && t.cols > 1)) continue;
    if (t.role == Role::PosEmbed || t.role == Role::LayerEmbed) continue;  // lookups
    if (t.role == Role::Embed && !c.tie_embeddings) continue;  // a lookup, not a matmul
    n += t.numel();  // a tied embedding is the head's matmul
  }
  for (const LayerKind& k : inv.kinds)
    for (const Tensor& t : k.tensors)
      if (t.rows > 1 && t.cols > 1)
        n += Checked(t.numel_one()) * (t.routed ? c.moe.top_k : t.copies) * static_cast<i64>(k.layers.size());
  return n.value();
}

Result<Throughput> throughput(const ModelConfig& c, const Inventory& inv, const LayerPlan& plan, const ParamReport& params,
                              const Workload& w, const Gpu& gpu, const WeightsReport& weights, const LlamaCppBuffers* llamacpp) {
  Throughput r;
  r.host_only = llamacpp && llamacpp->no_gpu;
  const bool fp8_weights = w.weights == WeightFormat::Fp8 || w.weights == WeightFormat::Fp8Block;
  r.fp8_compute = fp8_weights && gpu.fp8_tflops > 0 && !r.host_only;
  // The CPU alone: no GPU's rate applies; the CPU's is the one given (--host-tflops), else none
  // (no prefill or training time).
  r.peak_tflops = r.host_only ? w.host_tflops : r.fp8_compute ? gpu.fp8_tflops : gpu.bf16_tflops;
  if (w.dtype == ComputeDtype::F32 && !r.host_only) r.peak_tflops /= 2;  // TF32 tensor cores: half the bf16 rate (the CPU's is given in its dtype)
  r.bandwidth_gbs = gpu.bandwidth_gbs;
  const i64 dp = std::max<i64>(1, w.dp());
  const double b = static_cast<double>(w.batch), s = static_cast<double>(w.seq);

  // Decode: one step reads every weight once (the embedding only for b rows; routed experts
  // only those chosen) and the whole KV cache of every sequence.
  const double E = static_cast<double>(c.moe.num_experts), k = static_cast<double>(c.moe.top_k);
  // Expected distinct experts under uniform routing of b tokens: E·(1 − (1 − k/E)^b).
  // Integer power by squaring: the same bits natively and in WASM (no libm pow).
  double miss = 1.0, base = 1.0 - k / E;
  for (i64 n = w.batch; n > 0; n >>= 1, base *= base)
    if (n & 1) miss *= base;
  r.experts_touched = c.is_moe() ? E * (1.0 - miss) : 0.0;
  double weight_bytes = 0;
  for (const WeightRow& row : weights.rows) {
    const Tensor& t = tensor_of(inv, row);
    double bytes = static_cast<double>(row.bytes);
    if (t.routed) bytes *= r.experts_touched / E;
    else if ((t.role == Role::Embed && !c.tie_embeddings) || t.role == Role::PosEmbed || t.role == Role::LayerEmbed)
      bytes *= std::min(1.0, b / static_cast<double>(std::max<i64>(1, stored_dims(t).n_rows)));
    weight_bytes += bytes;
  }
  // A decode step reads every sequence's KV cache and recurrent state (linear layers).
  const Checked kv = plan.kv_cache_bytes(w.seq, w.batch) + Checked(plan.state_bytes_per_sequence()) * w.batch +
                     plan.indexer_cache_bytes_gpu(plan.all(), w.seq, w.batch);
  if (!kv.ok()) return memory_overflow();
  r.decode_weight_bytes = static_cast<i64>(weight_bytes);
  r.decode_kv_bytes = kv.value();
  r.decode_bytes_per_step = r.decode_weight_bytes + r.decode_kv_bytes;  // both ≤ 2^62
  // llama.cpp's CPU reads its tensors and its layers' cache itself (layer split: the devices run
  // one after another, so the step is the sum of each side's read time).
  if (llamacpp && llamacpp->cpu_computes_layers()) {
    Checked host_kv;
    if (r.host_only) {
      host_kv = kv;
    } else {
      for (i64 l = 0; l < static_cast<i64>(plan.layers.size()) && l < static_cast<i64>(llamacpp->layer_device.size()); ++l)
        if (llamacpp->layer_device[static_cast<size_t>(l)] < 0)
          host_kv += plan.kv_cache_bytes_gpu({l, 1}, w.seq, w.batch) + Checked(plan.state_bytes_gpu({l, 1})) * w.batch;
    }
    if (!host_kv.ok()) return memory_overflow();
    const double host_weights = r.host_only ? weight_bytes
                                            : static_cast<double>(llamacpp->cpu_read_bytes) +
                                                  static_cast<double>(llamacpp->cpu_expert_bytes) * (E > 0 ? r.experts_touched / E : 1.0);
    r.decode_host_bytes = std::min(r.decode_bytes_per_step, static_cast<i64>(host_weights) + host_kv.value());
    r.host_bandwidth_gbs = w.host_bw_gbs;
  }
  // tp GPUs read their shards at once; pipeline stages run one after another.
  const double device_rate = gpu.bandwidth_gbs * 1e9 * static_cast<double>(w.tp);  // bytes/s
  if (r.decode_host_bytes > 0 && r.host_bandwidth_gbs > 0) {
    r.decode_step_seconds = static_cast<double>(r.decode_bytes_per_step - r.decode_host_bytes) / device_rate +
                            static_cast<double>(r.decode_host_bytes) / (r.host_bandwidth_gbs * 1e9);
  } else if (!r.host_only) {
    r.decode_step_seconds = static_cast<double>(r.decode_bytes_per_step) / device_rate;
    r.host_at_device_rate = r.decode_host_bytes > 0;
  }
  if (r.decode_step_seconds > 0) {  // else no bound: the CPU alone, its bandwidth not given
    r.decode_tokens_per_s_per_seq = 1.0 / r.decode_step_seconds;
    r.decode_tokens_per_s = static_cast<double>(dp) * b / r.decode_step_seconds;
  }

  // Prefill: 2 FLOPs per active matmul parameter per token + attention (ref: Kaplan et al.
  // 2020 §2.1, C_forward ≈ 2N + 2·n_layer·n_ctx·d_attn).
  const double P = static_cast<double>(matmul_params_active(c, inv));
  const double attn = attention_flops(c, plan, 0, w.seq);
  const double peak = r.peak_tflops * 1e12 * w.utilization;
  r.prefill_flops = b * (2.0 * P * s + attn);
  r.prefill_seconds = peak > 0 ? r.prefill_flops / (peak * static_cast<double>(w.tp)) : 0;

  // Training: forward 2P, backward 4P (input and weight gradients); LoRA skips the frozen
  // weights' gradients (4P + 6·P_adapters); attention backward costs twice its forward.
  const bool lora = w.lora_rank > 0;
  double per_token = lora ? 4.0 * P : 6.0 * P;
  if (lora) {
    auto a = lora_params(inv, w.lora_rank, w.lora_targets);
    if (!a) return a.issues();
    per_token += 6.0 * static_cast<double>(*a);
  }
  const double attn_token = attn / s;
  per_token += 3.0 * attn_token;
  if (w.recompute == Recompute::Full) per_token += 2.0 * P + attn_token;  // one more forward
  else if (w.recompute == Recompute::Selective) per_token += attn_token;  // the attention core again
  r.train_flops_per_token = per_token;
  const Checked step = Checked(w.seq) * w.batch * w.grad_accum * dp;
  if (!step.ok()) return issue_row("accum", Str::issue_step_overflow);
  r.tokens_per_step = step.value();
  const double cluster = peak * static_cast<double>(w.gpus);
  r.step_seconds = cluster > 0 ? per_token * static_cast<double>(r.tokens_per_step) / cluster : 0;
  // ref: Hoffmann et al. 2022 (Chinchilla): compute-optimal D ≈ 20·N tokens.
  const auto chin = mul(params.total, 20);
  r.chinchilla_tokens = chin ? *chin : 0;
  r.train_tokens = w.train_tokens > 0 ? w.train_tokens : r.chinchilla_tokens;
  r.train_seconds = cluster > 0 ? per_token * static_cast<double>(r.train_tokens) / cluster : 0;
  return r;
}

}  // namespace llmsize::core

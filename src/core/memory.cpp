// Inference memory: KV cache, weights as stored, layer temporaries, reserve, phases and fit
// (see memory.hpp).
#include "memory.hpp"

#include <algorithm>

#include "placement.hpp"

namespace llmsize::core {

namespace {
i64 ceil_div(i64 a, i64 b) { return a / b + (a % b != 0 ? 1 : 0); }
constexpr i64 kMiB = i64{1} << 20;

Issue overflow(const char* field = "seq") {
  return Issue{field, "the memory of this model and workload overflows 64-bit byte counts; reduce seq, batch "
                      "or the model size"};
}
bool is_float(QType t) { return t == QType::F32 || t == QType::F16 || t == QType::BF16; }
}  // namespace

// ---- KV cache ------------------------------------------------------------------------------

std::optional<i64> kv_row_bytes(KvDtype t, i64 values) {
  switch (t) {
    case KvDtype::BF16: case KvDtype::F16: return mul(values, 2);
    case KvDtype::F32: return mul(values, 4);
    case KvDtype::Fp8: return values;
    case KvDtype::Q8_0: return mul(ceil_div(values, 32), 34);  // ref: ggml block_q8_0, 34 B / 32
    case KvDtype::Q4_0: return mul(ceil_div(values, 32), 18);  // ref: ggml block_q4_0, 18 B / 32
  }
  return std::nullopt;
}

i64 kv_heads_per_gpu(const ModelConfig& c, i64 tp) {
  if (c.mla.enabled) return 1;
  const i64 K = c.n_kv_heads;
  return K >= tp ? ceil_div(K, tp) : 1;  // ref: vLLM: num_kv_heads = max(1, total_num_kv_heads // tp_size)
}

Result<i64> kv_bytes_per_token_layer(const ModelConfig& c, KvDtype t, i64 tp) {
  if (tp < 1) return Issue{"tp", "must be at least 1"};
  if (c.mla.enabled) {
    // ref: DeepSeek-V2 (2024) §2.1: MLA caches the compressed c_KV (kv_lora_rank) and the
    // decoupled rope key (qk_rope_head_dim) per layer per token; vLLM stores exactly these.
    auto row = kv_row_bytes(t, c.mla.kv_lora_rank + c.mla.qk_rope_dim);
    if (!row) return overflow();
    return *row;
  }
  // ref: K and V, each K_gpu heads × head_dim values per layer per token.
  auto row = kv_row_bytes(t, kv_heads_per_gpu(c, tp) * c.head_dim);
  if (!row) return overflow();
  auto both = mul(*row, 2);
  if (!both) return overflow();
  return *both;
}

Result<i64> kv_bytes_per_token(const ModelConfig& c, KvDtype t, i64 tp) {
  auto layer = kv_bytes_per_token_layer(c, t, tp);
  if (!layer) return layer;
  auto all = mul(*layer, c.n_layers);
  if (!all) return overflow();
  return *all;
}

Result<i64> kv_cache_bytes(const ModelConfig& c, KvDtype t, i64 context, i64 batch, i64 tp) {
  auto layer = kv_bytes_per_token_layer(c, t, tp);
  if (!layer) return layer;
  i64 sliding = 0;
  for (i64 l = 0; l < c.n_layers; ++l) sliding += c.layer_slides(l) ? 1 : 0;
  const i64 capped = c.sliding_window > 0 ? std::min(context, c.sliding_window) : context;
  const Checked tokens = Checked(c.n_layers - sliding) * context + Checked(sliding) * capped;
  const Checked bytes = tokens * *layer * batch;
  if (!bytes.ok()) return overflow();
  return bytes.value();
}

// ---- Weights -------------------------------------------------------------------------------

Result<i64> weights_bytes_fp32(const Inventory& inv) {
  Checked p;
  for (const Tensor& t : inv.global) p += t.numel();
  for (const LayerKind& k : inv.kinds)
    for (const Tensor& t : k.tensors) p += Checked(t.numel()) * static_cast<i64>(k.layers.size());
  p *= 4;
  if (!p.ok()) return overflow("hidden_size");
  return p.value();
}

Result<WeightsReport> weights_report(const ModelConfig& c, const Inventory& inv, const Workload& w) {
  WeightsReport r;
  Checked total, params, quantized, kept;
  std::array<Checked, kGroupCount> groups{};
  bool ok = true;
  auto add = [&](int kind, int index, const Tensor& t, i64 layers, const Storage& st) {
    auto one = storage_bytes(st, stored_dims(t));
    if (!one) { ok = false; return; }
    const Checked bytes = Checked(*one) * t.copies * layers;
    const Checked p = Checked(t.numel()) * layers;
    if (!bytes.ok() || !p.ok()) { ok = false; return; }
    total += bytes;
    params += p;
    groups[static_cast<int>(t.group)] += bytes;
    (is_float(st.type) ? kept : quantized) += p;
    r.rows.push_back({kind, index, layers, st, p.value(), bytes.value()});
  };
  for (size_t i = 0; i < inv.global.size(); ++i)
    add(-1, static_cast<int>(i), inv.global[i], 1, storage_for(c, w, inv.global[i], -1));
  const bool per_layer = is_gguf(w.weights);  // only llama.cpp mixes vary with the layer index
  for (size_t k = 0; k < inv.kinds.size(); ++k) {
    const LayerKind& kind = inv.kinds[k];
    for (size_t i = 0; i < kind.tensors.size(); ++i) {
      const Tensor& t = kind.tensors[i];
      if (!per_layer) {
        add(static_cast<int>(k), static_cast<int>(i), t, static_cast<i64>(kind.layers.size()),
            storage_for(c, w, t, kind.layers.front()));
        continue;
      }
      std::vector<std::pair<Storage, i64>> seen;  // storage → layers using it
      for (i64 l : kind.layers) {
        const Storage st = storage_for(c, w, t, l);
        auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == st; });
        if (it == seen.end()) seen.push_back({st, 1});
        else ++it->second;
      }
      for (const auto& [st, n] : seen) add(static_cast<int>(k), static_cast<int>(i), t, n, st);
    }
  }
  if (!ok || !total.ok() || !params.ok()) return overflow("hidden_size");
  r.total_bytes = total.value();
  r.params = params.value();
  r.quantized_params = quantized.value();
  r.kept_params = kept.value();
  for (int g = 0; g < kGroupCount; ++g) r.bytes_by_group[g] = groups[g].value();
  return r;
}

// ---- Temporaries ---------------------------------------------------------------------------

Result<Temporaries> layer_temporaries(const ModelConfig& c, const TempParams& p, bool moe_layer) {
  const i64 e = p.dtype_bytes, d = c.d_model, tp = std::max<i64>(1, p.tp);
  const i64 H = ceil_div(c.n_heads, tp);
  const Checked tokens = Checked(p.batch) * p.chunk;  // b·c
  const Checked hidden = tokens * d * e;              // x or normed x: b·c·d
  Checked q, kv, out;
  if (c.mla.enabled) {
    const auto& m = c.mla;
    q = tokens * H * (m.qk_nope_dim + m.qk_rope_dim) * e;
    // latent c_KV + rope key, then k (nope+rope) and v expanded per head for the chunk
    kv = tokens * (m.kv_lora_rank + m.qk_rope_dim) * e + tokens * H * (m.qk_nope_dim + m.qk_rope_dim + m.v_head_dim) * e;
    out = tokens * H * m.v_head_dim * e;
  } else {
    q = tokens * H * c.head_dim * e;
    kv = tokens * 2 * kv_heads_per_gpu(c, tp) * c.head_dim * e;
    out = tokens * H * c.head_dim * e;
  }
  // Eager attention materializes scores S and probabilities P, b·H·c·T each.
  const Checked scores = tokens * H * p.context * e * 2;
  Temporaries t;
  const Checked attention = hidden * 2 + q + kv + (p.flash ? out : scores);
  const i64 width_mult = c.ffn_kind == FfnKind::Gated ? 3 : 2;  // gate, up, act·up | up, act
  Checked ffn;
  if (!moe_layer) {
    ffn = hidden * 2 + tokens * ceil_div(c.d_ff, tp) * width_mult * e;
  } else {
    const auto& m = c.moe;
    const i64 fe = p.ep > 1 ? m.expert_ffn : ceil_div(m.expert_ffn, tp);
    // ref: vLLM fused_moe: intermediate caches [T, k, 2·f_e], [T·k, f_e], [T, k, d]
    const Checked routed = tokens * m.top_k * (Checked(fe) * width_mult + d) * e;
    const Checked shared = tokens * ceil_div(m.shared_ffn, tp) * width_mult * e;
    const Checked router = tokens * m.num_experts * 4;  // fp32 router logits
    // Routed and shared experts run one after the other: the larger set is the peak.
    const Checked larger = !routed.ok() || !shared.ok() ? routed + shared : routed.value() >= shared.value() ? routed : shared;
    ffn = hidden * 2 + router + larger;
  }
  const Checked logits = Checked(p.batch) * p.logits_positions * d * e + Checked(p.batch) * p.logits_positions * c.vocab * 4;
  if (!attention.ok() || !ffn.ok() || !logits.ok()) return overflow();
  t.attention = attention.value();
  t.ffn = ffn.value();
  t.logits = logits.value();
  t.peak = std::max({t.attention, t.ffn, t.logits});
  return t;
}

// ---- Reserve -------------------------------------------------------------------------------

i64 runtime_reserve_default(Runtime r) {
  switch (r) {
    case Runtime::PyTorch: return 1024 * kMiB;  // CUDA context + cuBLAS workspace + allocator slack
    case Runtime::Vllm: return 1536 * kMiB;     // + CUDA graphs, counted inside gpu_memory_utilization
    case Runtime::LlamaCpp: return 512 * kMiB;  // CUDA context; its compute buffer is the temporaries
    case Runtime::None: return 0;
  }
  return 0;
}

i64 comm_workspace_bytes(i64 gpus_in_group) {
  return gpus_in_group > 1 ? 256 * kMiB : 0;  // NCCL: up to 32 channels × 2 × 4 MiB buffers
}

StageRange stage_range(i64 n_layers, i64 pp, i64 stage) {
  const i64 base = n_layers / pp, extra = n_layers % pp;
  StageRange r;
  r.count = base + (stage < extra ? 1 : 0);
  r.first = stage * base + std::min(stage, extra);
  return r;
}

}  // namespace llmsize::core

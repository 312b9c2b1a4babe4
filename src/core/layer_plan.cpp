// The per-layer plan and the KV-cache bytes it implies (see layer_plan.hpp).
#include "layer_plan.hpp"

#include <algorithm>

#include "field.hpp"
#include "quant.hpp"

namespace llmsize::core {

namespace {

// Bytes one token adds to one layer's cache holding `heads` heads of k_dim keys and v_dim values.
std::optional<i64> cache_bytes(KvDtype t, i64 heads, i64 k_dim, i64 v_dim) {
  if (kv_turboquant(t)) {  // one packed K‖V slot a head (layer_plan checks k_dim == v_dim first)
    const auto slot = turboquant_slot_bytes(t, k_dim);
    return slot ? mul(heads, *slot) : std::nullopt;
  }
  const auto kv = mul(heads, k_dim), vv = mul(heads, v_dim);
  if (!kv || !vv) return std::nullopt;
  const auto k = kv_row_bytes(t, *kv), v = kv_row_bytes(t, *vv);
  if (!k || !v) return std::nullopt;
  return add(*k, *v);
}
}  // namespace

// ref: vLLM model_executor/layers/quantization/turboquant/config.py (0.27.1): TQ_PRESETS gives each
// preset's key and value bits; TurboQuantConfig.key_packed_size is head_dim bytes for fp8 keys (8
// bits), else ceil(head_dim × bits / 8) + 2 (an fp16 norm); value_packed_size ceil(head_dim × bits / 8)
// + 4 (fp16 scale and zero); slot_size_aligned their sum rounded up to even. TQFullAttentionSpec's page
// is block_size × num_kv_heads × that slot (v1/kv_cache_interface.py).
std::optional<i64> turboquant_slot_bytes(KvDtype t, i64 head_dim) {
  if (!kv_turboquant(t) || head_dim <= 0 || head_dim > (i64{1} << 40)) return std::nullopt;
  const i64 key_bits = t == KvDtype::TqK8V4 ? 8 : t == KvDtype::Tq4bitNc ? 4 : 3;
  const i64 value_bits = t == KvDtype::Tq3bitNc ? 3 : 4;
  const i64 key = key_bits == 8 ? head_dim : ceil_div(head_dim * key_bits, 8) + 2;
  const i64 slot = key + ceil_div(head_dim * value_bits, 8) + 4;
  return slot + slot % 2;
}

std::optional<i64> kv_row_bytes(KvDtype t, i64 values) {
  if (kv_turboquant(t)) return std::nullopt;  // packed per head: cache_bytes, not a row of values
  if (t == KvDtype::Fp8) return values;  // e4m3 / e5m2, one byte each
  const QType q = t == KvDtype::F32 ? QType::F32 : t == KvDtype::Q8_0 ? QType::Q8_0 : t == KvDtype::Q4_0 ? QType::Q4_0
                                                                                                         : QType::F16;
  const BlockShape b = block_shape(q);  // ref: ggml block_q8_0 34 B / 32 values, block_q4_0 18 B / 32
  return mul(ceil_div(values, b.values), b.bytes);
}

i64 kv_heads_per_gpu(i64 kv_heads, i64 tp) {
  return kv_heads >= tp ? ceil_div(kv_heads, tp) : 1;  // ref: vLLM: num_kv_heads = max(1, total_num_kv_heads // tp_size)
}

i64 CacheShape::tokens_kept(i64 context) const {
  if (!keeps_tokens(kind)) return 0;
  return window > 0 ? std::min(context, window) : context;
}

namespace {
// One Gated DeltaNet layer's state per sequence, holding `v_heads` of the value heads:
// ref: modeling_qwen3_next.py Qwen3NextDynamicCache / Qwen3NextGatedDeltaNet.forward: the conv
// state keeps the last conv_kernel inputs of q‖k‖v (F.pad to conv_kernel_size) in the
// activation dtype; the recurrent state is v_heads × k_dim × v_dim, kept in float32
// (torch_chunk_gated_delta_rule and fla's chunk_gated_delta_rule return it in fp32).
std::optional<i64> linear_state_bytes(const LinearAttnConfig& a, i64 v_heads, i64 act_bytes) {
  const i64 k_heads = v_heads * a.k_heads / a.v_heads;  // the key heads serving those value heads
  const Checked conv = (Checked(k_heads) * a.k_dim * 2 + Checked(v_heads) * a.v_dim) * a.conv_kernel * act_bytes;
  const Checked ssm = Checked(v_heads) * a.k_dim * a.v_dim * 4;
  const Checked s = conv + ssm;
  if (!s.ok()) return std::nullopt;
  return s.value();
}
// One Mamba-2 layer's state per sequence on a GPU holding 1/tp of it: ref: modeling_nemotron_h.py
// HybridMambaAttentionDynamicCache: conv_states (conv_dim, conv_kernel) and ssm_states (heads,
// head_dim, state), both in the model's dtype.
std::optional<i64> mamba_state_bytes(const Mamba2Config& m, i64 tp, i64 act_bytes) {
  const Checked conv = Checked(ceil_div(m.conv_dim(), tp)) * m.conv_kernel * act_bytes;
  const Checked ssm = Checked(ceil_div(m.heads, tp)) * m.head_dim * m.state * act_bytes;
  const Checked s = conv + ssm;
  if (!s.ok()) return std::nullopt;
  return s.value();
}
}  // namespace

Result<LayerPlan> layer_plan(const ModelConfig& c, KvDtype t, i64 tp, i64 act_bytes) {
  if (tp < 1) return issue_row("tp", Str::issue_at_least_one);
  // TurboQuant (vLLM, engine/arg_utils.py create_engine_config → TurboQuantConfig.get_boundary_skip_layers):
  // a model that is not hybrid keeps its first and last n = min(2, L / 2) layers in the model dtype
  // (attention.py Attention.__init__: kv_cache_dtype "auto" for a layer index in
  // kv_cache_dtype_skip_layers); a hybrid one skips none once its full-attention layers are found by
  // layer_types (Qwen3.5, Qwen3-Next: the hybrids followed here). The TQ backend serves decoder
  // attention of one K and V head size, one per model here: no sliding windows, MLA or per-layer shapes.
  const bool hybrid = c.linear.enabled() || c.mamba.enabled() || c.mamba1.enabled() || c.short_conv > 0;
  const i64 skip = kv_turboquant(t) && !hybrid ? std::min<i64>(2, c.n_layers / 2) : 0;
  if (kv_turboquant(t)) {
    const bool hybrid_followed = c.family == Family::Qwen35 || c.family == Family::Qwen35Moe || c.family == Family::Qwen3Next;
    if ((hybrid && !hybrid_followed) || c.mla.enabled || c.sliding_window > 0 || c.varies_by_layer() || !turboquant_slot_bytes(t, c.head_dim))
      return issue_row("kvt", Str::issue_tq_family, std::string(to_string(t)));
  }
  const KvDtype model_kv = act_bytes == 4 ? KvDtype::F32 : KvDtype::BF16;  // the skipped layers' cache
  LayerPlan p;
  p.kv_dtype = t;
  p.tp = tp;
  const size_t n = static_cast<size_t>(std::max<i64>(0, c.n_layers));
  p.layers.resize(n);
  p.caches.reserve(4);
  // The shape every layer shares but for its kind and window (per-layer head counts and dims
  // would be set in the loop).
  CacheShape base;
  if (c.mla.enabled) {
    // ref: DeepSeek-V2 (2024) §2.1: MLA caches the compressed c_KV (kv_lora_rank) and the
    // decoupled rope key (qk_rope_head_dim) per layer per token; vLLM stores exactly these,
    // one latent that every tensor-parallel GPU holds whole.
    base.kind = AttnKind::MlaLatent;
    base.heads = base.heads_gpu = 1;
    base.k_dim = c.mla.kv_lora_rank + c.mla.qk_rope_dim;
    if (c.mla.has_indexer()) {
      // ref: DeepSeek-V3.2-Exp inference/model.py Indexer: k_cache float8_e4m3fn of index_head_dim and
      // k_scale_cache float32 per 128 values; vLLM's DeepseekV32IndexerCache and SGLang's index_k
      // buffer store the same 128 + 4 bytes, whatever the KV dtype of the latent.
      base.kind = AttnKind::MlaIndexer;
      const Checked ib = Checked(c.mla.index_dim) + Checked(ceil_div(c.mla.index_dim, 128)) * 4;
      if (!ib.ok()) return memory_overflow();
      base.index_bytes_per_token = ib.value();
    }
  } else {
    // ref: Kwon et al. 2023 (vLLM) §2: K and V, each K heads × head_dim values per layer per token.
    base.heads = c.n_kv_heads;
    base.heads_gpu = kv_heads_per_gpu(c.n_kv_heads, tp);
    base.k_dim = base.v_dim = c.head_dim;
  }
  // ref: vLLM MambaStateShapeCalculator.gated_delta_net_state_shape: value (and key) heads split
  // over tensor parallel GPUs.
  CacheShape linear;
  if (c.linear.enabled()) {
    const auto& a = c.linear;
    linear.kind = AttnKind::Linear;
    linear.heads = a.v_heads;
    linear.heads_gpu = a.v_heads >= tp ? ceil_div(a.v_heads, tp) : 1;
    linear.k_dim = a.k_dim;
    linear.v_dim = a.v_dim;
    const auto whole = linear_state_bytes(a, linear.heads, act_bytes), gpu = linear_state_bytes(a, linear.heads_gpu, act_bytes);
    if (!whole || !gpu) return memory_overflow();
    linear.state_bytes = *whole;
    linear.state_bytes_gpu = *gpu;
  }
  CacheShape mamba, none, conv, mamba1;
  if (!c.block_pattern.empty() && c.mamba1.enabled()) {
    // ref: modeling_jamba.py HybridMambaAttentionDynamicCache: conv_states (d_inner, d_conv) and
    // ssm_states (d_inner, d_state) per Mamba layer, in the model's dtype; the channels split over
    // tensor parallel GPUs (vLLM MambaStateShapeCalculator.mamba1_state_shape).
    const auto& m = c.mamba1;
    const i64 di = c.mamba1_inner();
    mamba1.kind = AttnKind::Mamba1;
    mamba1.heads = di;
    mamba1.heads_gpu = ceil_div(di, tp);
    mamba1.k_dim = m.conv_kernel;
    mamba1.v_dim = m.state;
    const Checked whole = Checked(di) * (m.conv_kernel + m.state) * act_bytes,
                  gpu = Checked(mamba1.heads_gpu) * (m.conv_kernel + m.state) * act_bytes;
    if (!whole.ok() || !gpu.ok()) return memory_overflow();
    mamba1.state_bytes = whole.value();
    mamba1.state_bytes_gpu = gpu.value();
  }
  none.kind = AttnKind::None;
  if (c.short_conv > 0) {
    // ref: modeling_lfm2.py Lfm2HybridConvCache: (batch, hidden_size, conv_L_cache) per layer in the
    // model's dtype; the channels split over tensor parallel GPUs.
    conv.kind = AttnKind::Conv;
    conv.heads = c.d_model;
    conv.heads_gpu = ceil_div(c.d_model, tp);
    conv.k_dim = c.short_conv;
    const Checked whole = Checked(c.d_model) * c.short_conv * act_bytes, gpu = Checked(conv.heads_gpu) * c.short_conv * act_bytes;
    if (!whole.ok() || !gpu.ok()) return memory_overflow();
    conv.state_bytes = whole.value();
    conv.state_bytes_gpu = gpu.value();
  }
  if (!c.block_pattern.empty() && c.mamba.enabled()) {
    // ref: vLLM MambaStateShapeCalculator.mamba2_state_shape: heads (and groups) split over tensor parallel.
    mamba.kind = AttnKind::Mamba;
    mamba.heads = c.mamba.heads;
    mamba.heads_gpu = ceil_div(c.mamba.heads, tp);
    mamba.k_dim = c.mamba.head_dim;
    mamba.v_dim = c.mamba.state;
    const auto whole = mamba_state_bytes(c.mamba, 1, act_bytes), gpu = mamba_state_bytes(c.mamba, tp, act_bytes);
    if (!whole || !gpu) return memory_overflow();
    mamba.state_bytes = *whole;
    mamba.state_bytes_gpu = *gpu;
  }
  const bool moe_model = c.is_moe(), windows = !c.mla.enabled && c.sliding_window > 0;
  size_t last = 0;  // the previous layer's shape, tried first (layers mostly repeat or alternate)
  for (size_t i = 0; i < n; ++i) {
    const i64 l = static_cast<i64>(i);
    const Mixer mixer = c.layer_mixer(l);
    CacheShape s = mixer == Mixer::Linear      ? linear
                   : mixer == Mixer::Mamba     ? mamba
                   : mixer == Mixer::None      ? none
                   : mixer == Mixer::ShortConv ? conv
                   : mixer == Mixer::Mamba1    ? mamba1
                                               : base;
    if (mixer == Mixer::Attention && c.varies_by_layer() && !c.mla.enabled) {
      // This layer's own K and head size (NAS block_configs; Gemma 4's full layers).
      s.heads = c.kv_heads_at(l);
      s.heads_gpu = kv_heads_per_gpu(s.heads, tp);
      s.k_dim = s.v_dim = c.head_dim_at(l);
    }
    if (mixer == Mixer::AttentionMamba) {
      // ref: modeling_falcon_h1.py FalconHybridMambaAttentionDynamicCache: every layer keeps its K and V
      // and a Mamba-2 conv + SSM state.
      s.kind = AttnKind::FullMamba;
      s.state_bytes = mamba.state_bytes;
      s.state_bytes_gpu = mamba.state_bytes_gpu;
    }
    if (keeps_tokens(s.kind) && windows && c.layer_slides(l)) {
      // ref: HF cache_utils ChunkedSlidingLayer and vLLM ChunkedLocalAttentionSpec keep at most one
      // chunk of attention_chunk_size tokens for Llama 4's chunked layers, as a window would.
      s.kind = c.window_chunked ? AttnKind::Chunked : AttnKind::Sliding;
      s.window = c.sliding_window;
    }
    // ref: modeling_gemma4.py (DynamicCache builds cache layers for the first L − num_kv_shared_layers
    // layers only): a shared layer reads the cache of the last earlier layer of its kind.
    if (keeps_tokens(s.kind) && c.kv_shared_at(l)) s.kind = AttnKind::Shared;
    if (keeps_tokens(s.kind) && (l < skip || l >= c.n_layers - skip)) s.unquantized = true;
    auto same = [&](const CacheShape& x) {
      return x.kind == s.kind && x.window == s.window && x.heads == s.heads && x.k_dim == s.k_dim && x.v_dim == s.v_dim &&
             x.unquantized == s.unquantized;
    };
    size_t k = last < p.caches.size() && same(p.caches[last]) ? last : 0;
    while (k < p.caches.size() && !same(p.caches[k])) ++k;
    if (k == p.caches.size() && !keeps_tokens(s.kind)) {
      p.caches.push_back(s);
    } else if (k == p.caches.size()) {
      const KvDtype kt = s.unquantized ? model_kv : t;
      const auto whole = cache_bytes(kt, s.heads, s.k_dim, s.v_dim), gpu = cache_bytes(kt, s.heads_gpu, s.k_dim, s.v_dim);
      if (!whole || !gpu) return memory_overflow();
      s.bytes_per_token = *whole;
      s.bytes_per_token_gpu = *gpu;
      p.caches.push_back(s);
    }
    ++p.caches[k].layers;
    last = k;
    p.layers[i] = {static_cast<int>(k), !c.layer_has_ffn(l)               ? FfnPlan::None
                                        : moe_model && c.layer_is_moe(l) ? FfnPlan::Moe
                                                                          : FfnPlan::Dense};
  }
  p.cache_prefix.assign(p.caches.size() * (n + 1), 0);
  p.moe_prefix.assign(n + 1, 0);
  p.dense_prefix.assign(n + 1, 0);
  for (size_t k = 0; k < p.caches.size(); ++k) {
    i64* pre = p.cache_prefix.data() + k * (n + 1);
    for (size_t i = 0; i < n; ++i) pre[i + 1] = pre[i] + (p.layers[i].cache == static_cast<int>(k) ? 1 : 0);
  }
  for (size_t i = 0; i < n; ++i) {
    p.moe_prefix[i + 1] = p.moe_prefix[i] + (p.layers[i].ffn == FfnPlan::Moe ? 1 : 0);
    p.dense_prefix[i + 1] = p.dense_prefix[i] + (p.layers[i].ffn == FfnPlan::Dense ? 1 : 0);
  }
  // Whole-model KV per token must fit: every later product starts from it.
  Checked total;
  Checked state;
  for (const CacheShape& s : p.caches) {
    total += Checked(s.bytes_per_token) * s.layers;
    state += Checked(s.state_bytes) * s.layers;
  }
  if (!total.ok() || !state.ok()) return memory_overflow();
  return p;
}

i64 LayerPlan::layers_in(size_t c, StageRange r) const {
  const i64* pre = cache_prefix.data() + c * (layers.size() + 1);
  return pre[r.first + r.count] - pre[r.first];
}

i64 LayerPlan::moe_in(StageRange r) const {
  return moe_prefix[static_cast<size_t>(r.first + r.count)] - moe_prefix[static_cast<size_t>(r.first)];
}

i64 LayerPlan::dense_in(StageRange r) const {
  return dense_prefix[static_cast<size_t>(r.first + r.count)] - dense_prefix[static_cast<size_t>(r.first)];
}

i64 LayerPlan::kv_bytes_per_token_gpu(StageRange r) const {
  i64 sum = 0;  // ≤ the whole model's at tp = 1, which layer_plan() checked
  for (size_t k = 0; k < caches.size(); ++k) sum += caches[k].bytes_per_token_gpu * layers_in(k, r);
  return sum;
}

i64 LayerPlan::kv_bytes_per_token() const {
  i64 sum = 0;
  for (const CacheShape& s : caches) sum += s.bytes_per_token * s.layers;
  return sum;
}

i64 LayerPlan::indexer_bytes_per_token() const {
  i64 sum = 0;  // ≤ index_head_dim · 1.04 · layers: checked small by validate()'s bounds
  for (const CacheShape& s : caches) sum += s.index_bytes_per_token * s.layers;
  return sum;
}

Checked LayerPlan::indexer_cache_bytes_gpu(StageRange r, i64 context, i64 batch) const {
  Checked sum;
  for (size_t k = 0; k < caches.size(); ++k)
    sum += Checked(batch) * caches[k].index_bytes_per_token * (Checked(layers_in(k, r)) * context);
  return sum;
}

i64 LayerPlan::state_bytes_per_sequence() const {
  i64 sum = 0;  // checked by layer_plan()
  for (const CacheShape& s : caches) sum += s.state_bytes * s.layers;
  return sum;
}

i64 LayerPlan::state_bytes_gpu(StageRange r) const {
  i64 sum = 0;
  for (size_t k = 0; k < caches.size(); ++k) sum += caches[k].state_bytes_gpu * layers_in(k, r);
  return sum;
}

Checked LayerPlan::kv_cache_bytes_gpu(StageRange r, i64 context, i64 batch) const {
  Checked sum;
  for (size_t k = 0; k < caches.size(); ++k)
    sum += Checked(batch) * caches[k].bytes_per_token_gpu * (Checked(layers_in(k, r)) * caches[k].tokens_kept(context));
  return sum;
}

Checked LayerPlan::kv_cache_bytes(i64 context, i64 batch) const {
  Checked sum;
  for (const CacheShape& s : caches) sum += Checked(batch) * s.bytes_per_token * (Checked(s.layers) * s.tokens_kept(context));
  return sum;
}

std::string_view to_string(AttnKind k) { return name_at(kAttnKindNames, static_cast<size_t>(k)); }

}  // namespace llmsize::core

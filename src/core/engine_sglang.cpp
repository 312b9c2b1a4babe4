// SGLang's start-up memory accounting (see engine_sglang.hpp).
#include "engine_sglang.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "format.hpp"
#include "torch_allocator.hpp"

namespace llmsize::core {

namespace {

constexpr double kGiBd = 1073741824.0;

// Memory taken before the weights load: the CUDA context, library handles and the
// communicators' buffers. Nothing sizes it in code; the published start-ups put it at 0.3–0.6 GiB
// on one card or four PCIe cards (GPU total minus "Load weight begin. avail mem": H100 0.38 and
// 0.60 GiB, 4 × L4 0.32 GiB, 4 × RTX 4090 0.56 GiB; vLLM's "Free memory on device (78.68/79.19
// GiB)" 0.51 GiB), so 0.51 GiB, an estimate either way of about 0.2 GiB (more on a card that also
// drives a display; NVLink systems at TP ≥ 2 add their all-reduce buffers).
constexpr i64 kContextBytes = 547608576;  // 0.51 GiB

// server_args.py (PR #10975): chunked_prefill_size and cuda_graph_max_bs by nvidia-smi's total.
void bucket_defaults(i64 gpu_mib, i64 tp, i64& cps, i64& cgbs) {
  const bool small_tp = tp < 4;
  if (gpu_mib < 20 * 1024) cps = 2048, cgbs = 8;
  else if (gpu_mib < 35 * 1024) cps = 2048, cgbs = small_tp ? 24 : 80;
  else if (gpu_mib < 60 * 1024) cps = 4096, cgbs = small_tp ? 32 : 160;
  else if (gpu_mib < 160 * 1024) cps = 8192, cgbs = small_tp ? 256 : 512;
  else cps = 16384, cgbs = 512;
}

// ref: configs/model_config.py is_hybrid_swa_model and get_hybrid_layer_ids: of the families
// llmsize knows, Llama 4 (Llama4ForConditionalGeneration) gets SGLang's hybrid pool, its chunked
// layers ((i + 1) % 4 != 0) as the sliding ones; and gpt-oss (GptOssForCausalLM, its layer_types'
// sliding_attention layers) where server_args.py leaves the pool on: in late 2025 its gpt-oss
// branch sets disable_hybrid_swa_memory always (as for Gemma 2/3, OLMo 2/3, EXAONE 4); from
// March 2026 only with the trtllm_mha backend ("Disable hybrid SWA memory for GPT-OSS model with
// trtllm_mha attention backend"), SGLang's default on SM100. Every other family's sliding-window
// layers are sized at full length in the one pool.
bool hybrid_swa_arch(Family f, SglangBuild build, bool trtllm_mha) {
  return f == Family::Llama4 || (f == Family::GptOss && build == SglangBuild::Mar2026 && !trtllm_mha);
}

// ref: server_args.py, the default attention backend of a model without MLA: trtllm_mha on SM100
// (B200, B300: compute capability 10.x). Models with a recurrent state or Llama 4's chunked layers
// choose their own backends.
bool sm100_mha(const Gpu& gpu) { return gpu.vendor == "NVIDIA" && gpu.cuda_cc >= 10.0 && gpu.cuda_cc < 11.0; }

std::string gb(double gib) { return fixed(gib, 2); }

// One state layer's slot in SGLang's MambaPool: ref configs/mamba_utils.py Mamba2StateShape.create
// (conv (conv_dim / tp, conv_kernel − 1), temporal (heads / tp, head_dim, state), n_groups raised to
// tp where it does not divide) and Mamba2CacheParams.mamba_cache_per_req; the convolution state
// bf16 (mamba2_state_dtype: SGLANG_MAMBA_CONV_DTYPE, unset), the SSM state `ssm` bytes an element
// (ssm_state_dtype below). The families on the path:
// Qwen3-Next and Qwen3.5 (hybrid_gdn_config: value heads as heads, key heads as groups), Nemotron-H and
// LFM2 (mamba2_config; LFM2's short convolution keeps conv_L_cache − 1 rows of d, no SSM state).
Result<std::pair<i64, i64>> mamba_slot(const ModelConfig& c, AttnKind kind, i64 tp, i64 ssm_bytes) {
  auto divide = [&](i64 x, Str what) -> std::optional<Issue> {
    if (tp > 0 && x % tp == 0) return std::nullopt;
    return issue_row("tp", Str::eng_sglang_divide, what, with_commas(x));
  };
  auto groups_for = [&](i64 g) { return g % tp == 0 ? g : g + (tp - g); };  // extra_groups_for_head_shards
  i64 conv_dim = 0, kernel = 0, heads = 0, head_dim = 0, state = 0;
  if (kind == AttnKind::Linear &&
      (c.family == Family::Qwen3Next || c.family == Family::Qwen35 || c.family == Family::Qwen35Moe)) {
    const LinearAttnConfig& a = c.linear;
    conv_dim = a.v_heads * a.v_dim + 2 * groups_for(a.k_heads) * a.k_dim;
    kernel = a.conv_kernel, heads = a.v_heads, head_dim = a.v_dim, state = a.k_dim;
  } else if ((kind == AttnKind::Mamba && c.family == Family::NemotronH) || (kind == AttnKind::FullMamba && c.family == Family::FalconH1)) {
    // Falcon-H1 (configs/falcon_h1.py mamba2_cache_params: mamba_d_ssm channels, every layer also
    // among full_attention_layer_ids): the same Mamba2StateShape.
    const Mamba2Config& m = c.mamba;
    conv_dim = m.d_inner() + 2 * groups_for(m.groups) * m.state;
    kernel = m.conv_kernel, heads = m.heads, head_dim = m.head_dim, state = m.state;
  } else if (kind == AttnKind::Conv && c.family == Family::Lfm2) {
    conv_dim = c.d_model, kernel = c.short_conv;
  } else {
    return issue_row("rt", Str::eng_sglang_state_pool, kind == AttnKind::Mamba1 ? Str::eng_what_mamba1 : Str::eng_what_sglang_other);
  }
  if (auto bad = divide(conv_dim, Str::eng_what_conv)) return *bad;
  if (heads > 0)
    if (auto bad = divide(heads, Str::eng_what_state_heads)) return *bad;
  const Checked conv = Checked(conv_dim / tp) * (kernel - 1) * 2;
  const Checked ssm = Checked(heads / tp) * head_dim * state * ssm_bytes;
  if (!conv.ok() || !ssm.ok()) return memory_overflow("tp");
  return std::make_pair(conv.value(), ssm.value());
}

// The SSM state's dtype: configs/mamba_utils.py mamba2_state_dtype: float32 by default, the config's
// mamba_ssm_dtype (float32 in Qwen3.5's; the other families' configs have none), then
// SGLANG_MAMBA_SSM_DTYPE, which server_args.py _handle_environment_variables sets from
// --mamba-ssm-dtype: float32 (ServerArgs mamba_ssm_dtype: str = "float32") or bfloat16 (SGLang PR
// #10258) in 0.5.6; float16 came with the FP16 state's stochastic rounding (PR #18444), not shown to
// be in the builds followed: refused by name. The flag's default became None (the config's) by
// early 2026 (the v0.5.8.post1 and later start-ups print mamba_ssm_dtype=None); whether 0.5.6's
// float32 default still overrode a config's other dtype is not established: refused by name.
Result<std::pair<i64, std::string_view>> ssm_state_dtype(const ModelConfig& c, const Workload& w) {
  MambaDtype t = w.mamba_ssm_dtype;
  if (t == MambaDtype::Auto && c.linear.ssm_dtype != MambaDtype::Auto && c.linear.ssm_dtype != MambaDtype::F32) {
    if (w.sglang_build == SglangBuild::Late2025)
      return issue_row("lsd", Str::eng_sglang_ssm_config, std::string(to_string(c.linear.ssm_dtype)));
    t = c.linear.ssm_dtype;
  }
  switch (t) {
    case MambaDtype::BF16: return std::pair<i64, std::string_view>{2, "bfloat16"};
    case MambaDtype::F16:
      return issue_row(w.mamba_ssm_dtype == MambaDtype::F16 ? "msd" : "lsd", Str::eng_sglang_ssm_f16,
                       std::string(sglang_version(w.sglang_build)));
    default: return std::pair<i64, std::string_view>{4, "float32"};
  }
}

}  // namespace

Result<SglangMemory> sglang_memory(const ModelConfig& c, const LayerPlan& plan, const InferenceMemory& inf, const Workload& w,
                                   const Gpu& gpu, std::optional<std::pair<double, double>> pre_post_gib) {
  if (auto refused = paged_engine_refusal("SGLang", plan.kv_dtype)) return *refused;
  if (kv_turboquant(plan.kv_dtype)) return issue_row("kvt", Str::eng_tq_engine, std::string("SGLang"));
  if (w.pp > 1) return issue_row("pp", Str::eng_sglang_pp);
  const KvDtype t = plan.kv_dtype;
  SglangMemory m;
  m.version = sglang_version(w.sglang_build);
  m.context_len = w.seq;
  m.max_num_reqs_set = w.max_running_requests;
  if (w.seq > c.max_positions)  // ref: model_config.py: a longer context_length is refused unless an env override
    return issue_row("seq", Str::eng_sglang_context, with_commas(w.seq), with_commas(c.max_positions));
  m.smi_total_mib = gpu.smi_total_mib;
  // ref: server_args.py: the defaults read nvidia-smi's total.
  i64 cps = 0, cgbs = 0;
  if (m.smi_total_mib > 0) bucket_defaults(m.smi_total_mib, w.tp, cps, cgbs);
  m.chunked_prefill_size = w.chunked_prefill_size > 0 ? w.chunked_prefill_size : cps;
  m.cuda_graph_max_bs = w.cuda_graph_max_bs > 0 ? w.cuda_graph_max_bs : cgbs;
  if (w.mem_fraction_static > 0) {
    m.mem_fraction_static = w.mem_fraction_static;
  } else {
    if (m.smi_total_mib == 0 || m.chunked_prefill_size == 0)
      return issue_row("mfs", Str::eng_sglang_smi, gpu.name);
    // ref: server_args.py, the mem_fraction_static heuristic (PR #10975): MiB reserved for
    // activations, CUDA graphs and communication, at least 10 GiB on cards above 60 GiB.
    double reserved = 512 + static_cast<double>(std::max<i64>(m.chunked_prefill_size, 2048)) * 1.5 +
                      static_cast<double>(m.cuda_graph_max_bs) * 2 + static_cast<double>(w.tp * w.pp) / 8 * 1024;
    if (m.smi_total_mib > 60 * 1024) reserved = std::max(reserved, 10240.0);
    m.reserved_mib = static_cast<i64>(reserved);
    const double gpu_mem = static_cast<double>(m.smi_total_mib);
    m.heuristic_mfs = std::round((gpu_mem - reserved) / gpu_mem * 1000) / 1000;
    m.mem_fraction_static = m.heuristic_mfs;
    m.mfs_default = true;
    // ref: server_args.py adjust_mem_fraction_for_vlm, called where model_config.is_multimodal
    // (configs/model_config.py multimodal_model_archs: every wrapper llmsize reads — LLaVA,
    // Gemma 3, Llama 4, Qwen2.5-VL, Qwen3.5 and Qwen3.5-MoE, Mistral 3, Kimi-VL): the fraction
    // times 0.95 × clamp(1 − 0.1 × (L · h² / (24 · 1024²) − 1), 0.8, 1.05), L and h the vision
    // config's num_hidden_layers and hidden_size as getattr reads them (default 24 and 1024). The
    // Qwen towers' configs (Qwen2_5_VLVisionConfig, Qwen3_5VisionConfig) name their depth "depth",
    // so L is the default 24 there. The product is not rounded again.
    if (c.vision.enabled()) {
      m.vit_layers = c.vision.kind == VisionKind::Qwen35 || c.vision.kind == VisionKind::Qwen25 ? 24 : c.vision.layers;
      m.vit_hidden = c.vision.hidden;
      const double ratio = static_cast<double>(m.vit_layers) * static_cast<double>(m.vit_hidden) * static_cast<double>(m.vit_hidden) /
                           (24.0 * 1024.0 * 1024.0);
      m.vlm_factor = 0.95 * std::max(0.8, std::min(1.05, 1.0 - 0.1 * (ratio - 1.0)));
      m.mem_fraction_static *= m.vlm_factor;
    }
  }

  // ref: memory_pool.py and model_runner.py get_cell_size_per_token: K and V of this rank's
  // heads per attention layer; MLA one latent (kv_lora_rank + rope dim) per layer, whole on
  // every rank; DeepSeek-V3.2 (NSA) adds the indexer's 128 fp8 key bytes and a 4-byte scale per
  // layer, its latent kept as 512 fp8 + 4 scales per 128 + 64 bf16 rope = 656 bytes when fp8,
  // and pages of 64 tokens.
  if (c.family == Family::Gemma4)  // model_config.py: Gemma 4 joined is_hybrid_swa_model in 2026 (pool_configurator.py)
    return issue_row("rt", Str::eng_sglang_gemma4);
  m.hybrid = hybrid_swa_arch(c.family, w.sglang_build, sm100_mha(gpu)) && !w.disable_hybrid_swa_memory;
  i64 k_row = 0, v_row = 0;  // bytes of one token over the layers: K, V (MLA: the latent in k_row)
  i64 cell_k = 0;            // K as get_cell_size_per_token counts it (the NSA fp8 latent: 576 B, not 656)
  std::optional<std::pair<i64, std::string_view>> ssm_dtype;  // resolved at the first state layer
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const CacheShape& s = plan.caches[static_cast<size_t>(plan.layers[i].cache)];
    if (has_state(s.kind)) {
      if (!ssm_dtype) {
        auto d = ssm_state_dtype(c, w);
        if (!d) return d.issues();
        ssm_dtype = *d;
        m.mamba_ssm_dtype = d->second;
      }
      auto slot = mamba_slot(c, s.kind, w.tp, ssm_dtype->first);
      if (!slot) return slot.issues();
      ++m.mamba_layers;
      m.mamba_conv_bytes += slot->first;
      m.mamba_ssm_bytes += slot->second;
      if (!keeps_tokens(s.kind)) continue;  // Falcon-H1's layers also keep K and V
    }
    if (s.kind == AttnKind::Shared) return issue_row("rt", Str::eng_sglang_shared);
    if (s.kind == AttnKind::Chunked && c.family != Family::Llama4)
      return issue_row("rt", Str::eng_sglang_chunked);
    if (m.hybrid && c.family == Family::Llama4 && (s.kind == AttnKind::Chunked) != ((i + 1) % 4 != 0))
      return issue_row("rt", s.kind == AttnKind::Chunked ? Str::eng_sglang_llama4_is : Str::eng_sglang_llama4_is_not,
                       std::to_string(i));
    if (!keeps_tokens(s.kind)) continue;
    ++m.layers;
    if (is_mla(s.kind)) {
      m.mla = true;
      if (s.kind == AttnKind::MlaIndexer) {
        // ref: server_args.py (v0.5.8): "Setting page size to 1 for DeepSeek DSA on ROCm", else 64
        // (later builds keep 64 on ROCm where aiter's preshuffle paged-MQA kernel runs: not followed).
        m.page_size = gpu.vendor == "AMD" ? 1 : 64;
        m.indexer_bytes = 128 + 4;
        // ref: model_runner_kv_cache_mixin.py: calculate_mla_kv_cache_dim stores an fp8 latent as 512
        // fp8 + 4 scales per 128 + 64 bf16 rope (656 B), while get_cell_size_per_token, which sizes the
        // pool, counts (kv_lora_rank + qk_rope_head_dim) × the element size (576 B): the pool outgrows
        // the fraction by the difference (GLM-5-FP8 on MI355X: 3.90 GB left after it).
        const i64 plain = s.k_dim * static_cast<i64>(kv_row_bytes(t, 1).value_or(2));
        k_row += t == KvDtype::Fp8 ? 512 + 512 / 128 * 4 + 64 * 2 : plain;
        cell_k += plain;
        if (t == KvDtype::Fp8) m.nsa_fp8_latent = true;
      } else {
        k_row += s.bytes_per_token_gpu;
        cell_k += s.bytes_per_token_gpu;
      }
    } else {
      const i64 per_value = kv_row_bytes(t, 1).value_or(2);
      const i64 k = s.heads_gpu * s.k_dim * per_value, v = s.heads_gpu * s.v_dim * per_value;
      k_row += k;
      cell_k += k;
      v_row += v;
      if (m.hybrid && (s.kind == AttnKind::Chunked || s.kind == AttnKind::Sliding)) {
        ++m.swa_layers;
        m.swa_k_row_bytes += k;
        m.swa_v_row_bytes += v;
        m.window = s.window;
      } else if (m.hybrid) {
        ++m.full_layers;
      }
    }
  }
  if (m.layers == 0) return issue_row("rt", Str::eng_sglang_no_kv);
  // ref: server_args.py, the default attention backend of a model without MLA: fa3 on Hopper,
  // trtllm_mha on SM100 (B200, B300: compute capability 10.x), whose pages must be 16, 32 or 64
  // tokens ("TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from
  // None to 64"). Models with a recurrent state or Llama 4's chunked layers choose their own
  // backends (not followed: their pages stay 1).
  // --page-size otherwise (server_args.py: any size; trtllm_mha changes one it cannot take to 64;
  // DeepSeek-V3.2's sparse attention keeps its 64).
  if (w.page_size > 0 && m.indexer_bytes == 0) {
    m.page_size = w.page_size;
    m.page_set = true;
    m.page_set_to = w.page_size;
  }
  if (!m.mla && m.mamba_layers == 0 && c.family != Family::Llama4 && sm100_mha(gpu)) {
    m.trtllm_mha = true;
    if (m.page_size != 16 && m.page_size != 32 && m.page_size != 64) m.page_changed_to_64 = true, m.page_size = 64;
  }
  // ref: model_runner_kv_cache_mixin.py get_cell_size_per_token (late 2025): every layer's K and V
  // in the cell, the hybrid pool's sliding layers too.
  m.cell_bytes = cell_k + v_row + m.indexer_bytes * m.layers;

  // ref: model_runner.py: free memory (GiB) before the load, and after it.
  if (c.pos == PosKind::Rotary) {  // the rotary cos_sin_caches, kept in fp32: ModelConfig::rope_cache_values × 4
    const Checked rope = c.rope_cache_values() * 4;
    if (!rope.ok()) return memory_overflow("rcp");
    m.weights_bytes += rope.value();
  }
  m.weights_bytes += inf.weights_bytes + inf.vision_weights_bytes;
  if (pre_post_gib) {
    m.pre_gib = pre_post_gib->first;
    m.post_gib = pre_post_gib->second;
    m.measured = true;
  } else {
    if (gpu.cuda_total_bytes <= 0)
      return issue_row("gpu", Str::eng_sglang_gpu_total, gpu.name);
    m.context_bytes = kContextBytes;
    m.pre_gib = static_cast<double>(gpu.cuda_total_bytes - m.context_bytes) / kGiBd;
    m.post_gib = m.pre_gib - static_cast<double>(m.weights_bytes) / kGiBd;
  }
  // ref: model_runner.py profile_max_num_token and init_memory_pool.
  m.rest_gib = m.post_gib - m.pre_gib * (1 - m.mem_fraction_static);
  if (m.mamba_layers > 0) {
    // ref: model_runner_kv_cache_mixin.py handle_max_mamba_cache: the state pool takes
    // mamba_full_memory_ratio / (1 + ratio) of the rest (0.9 / 1.9), whole slots; the KV pool the
    // remainder (its cell counts the full-attention layers only).
    const double per_req = static_cast<double>(m.mamba_conv_bytes + m.mamba_ssm_bytes);
    const double raw = m.rest_gib * 0.9 / (1 + 0.9);
    const double slots = m.rest_gib > 0 ? std::floor(raw * kGiBd / per_req) : 0;
    if (!(slots < 9.2e18)) return issue_row("mfs", Str::eng_sglang_state_overflow);
    m.mamba_slots = static_cast<i64>(slots);
    m.rest_gib -= static_cast<double>(m.mamba_slots) * per_req / kGiBd;
  }
  const double rest_bytes = std::floor(m.rest_gib * kGiBd);
  if (!(rest_bytes < 9.2e18)) return issue_row("mfs", Str::eng_sglang_token_overflow);
  i64 tokens = rest_bytes > 0 ? static_cast<i64>(rest_bytes) / m.cell_bytes : 0;
  // ref: model_runner.py init_memory_pool: --max-total-tokens caps the profiled pool (a larger one
  // is said and ignored), before the page alignment.
  if (w.max_total_tokens > 0) {
    if (w.max_total_tokens > tokens) m.mtt_ignored_profiled = tokens, m.mtt_ignored_set = w.max_total_tokens;
    tokens = std::min(tokens, w.max_total_tokens);
  }
  m.max_total_tokens = tokens / m.page_size * m.page_size;
  if (m.max_total_tokens <= 0) {
    m.error = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.";
    return m;
  }
  m.k_row_bytes = k_row - m.swa_k_row_bytes;
  m.v_row_bytes = v_row - m.swa_v_row_bytes;
  if (!m.hybrid) {
    auto pool = sglang_with_tokens(m, m.max_total_tokens);
    if (!pool) return pool;
    SglangMemory out = std::move(pool).value();
    // ref: init_memory_pool allocates req_to_token and the KV tensors outright: where they need more
    // than the load left free, torch's allocator raises before "Memory pool end" (its message names
    // the request and the card's totals, elided here).
    if (out.pool_segment_bytes > 0 && out.pool_end_gib < 0) out.error = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...";
    return out;
  }
  // ref: model_runner_kv_cache_mixin.py set_num_tokens_hybrid_swa (late 2025): the profiled tokens
  // of every layer shared so that a sliding layer keeps swa_full_tokens_ratio of a full layer's:
  // full = int(T × layers / (ratio × sliding + full layers)), swa = int(full × ratio), each to whole
  // pages (Python floats: the same IEEE doubles, in the same order).
  m.swa_ratio = w.swa_full_tokens_ratio;
  m.profiled_tokens = m.max_total_tokens;
  const double denominator = m.swa_ratio * static_cast<double>(m.swa_layers) + static_cast<double>(m.full_layers);
  const Checked total = Checked(m.profiled_tokens) * static_cast<i64>(plan.layers.size());
  if (!total.ok() || denominator <= 0) return memory_overflow("swar");
  const i64 full = static_cast<i64>(static_cast<double>(total.value()) / denominator);
  const i64 swa = static_cast<i64>(static_cast<double>(full) * m.swa_ratio);
  return sglang_with_tokens(m, full / m.page_size * m.page_size, "seq", swa / m.page_size * m.page_size);
}

Result<SglangMemory> sglang_with_tokens(const SglangMemory& in, i64 tokens, const std::string& field,
                                        std::optional<i64> swa_tokens) {
  if (tokens < 0 || (swa_tokens && *swa_tokens < 0)) return issue_row(field, Str::eng_sglang_negative);
  SglangMemory m = in;
  m.max_total_tokens = tokens;
  if (m.hybrid) {  // ref: swa_memory_pool.py SWAKVPool: an MHATokenToKVPool of size_swa rows for the sliding layers
    m.swa_tokens = swa_tokens ? *swa_tokens
                              : static_cast<i64>(static_cast<double>(tokens) * m.swa_ratio) / m.page_size * m.page_size;
    const Checked swa_rows = Checked(m.swa_tokens) + m.page_size;
    const Checked sk = swa_rows * m.swa_k_row_bytes, sv = swa_rows * m.swa_v_row_bytes;
    if (!sk.ok() || !sv.ok()) return memory_overflow(field);
    m.swa_k_bytes = sk.value();
    m.swa_v_bytes = sv.value();
  }
  // ref: memory_pool.py: the pool's tensors hold size + page_size rows (slot 0 padded); the
  // NSA indexer's buffer whole pages of them.
  const Checked rows = Checked(tokens) + m.page_size;
  const Checked k = rows * m.k_row_bytes + Checked((tokens + m.page_size + 1) / m.page_size) * m.page_size * m.indexer_bytes * m.layers;
  const Checked v = rows * m.v_row_bytes;
  if (!k.ok() || !v.ok()) return memory_overflow(field);
  m.k_bytes = k.value();
  m.v_bytes = v.value();
  // ref: init_memory_pool (max_num_reqs) and tp_worker (max_running_requests).
  i64 reqs = std::min<i64>(
      std::max<i64>(static_cast<i64>(static_cast<double>(tokens) / static_cast<double>(m.context_len) * 512), 2048), 4096);
  // tp_worker.py: max_running_requests = min(--max-running-requests, or max_total_num_tokens // 2,
  // the pool's rows); init_memory_pool sizes the pool by --max-running-requests where given.
  if (m.max_num_reqs_set > 0) reqs = m.max_num_reqs_set;
  m.max_running_requests = m.max_num_reqs_set > 0 ? reqs : std::min(tokens / 2, reqs);
  // ref: init_memory_pool (calculate_mamba_ratio): a request holds a state slot; no_buffer keeps 3 per request.
  if (m.mamba_layers > 0) m.max_running_requests = std::min(reqs, m.mamba_slots / 3);
  // ref: model_runner.py init_memory_pool, then its "Memory pool end. avail mem=%.2f GB" (utils
  // get_available_gpu_memory: empty_cache, then mem_get_info): ReqToTokenPool(size=max_num_reqs,
  // max_context_len=context_len + 4) allocates torch.zeros((size, max_context_len), int32);
  // MHATokenToKVPool._create_buffers one K and one V tensor of size + page rows per layer
  // (MLATokenToKVPool one latent tensor); TokenToKVPoolAllocator.clear torch.arange(1, size + 1,
  // int64), PagedTokenToKVPoolAllocator one int64 per page. The pool's tensors open the caching
  // allocator's segments (torch_allocator.hpp LoadAllocator::reserved: a tensor of 10 MiB or more its size
  // rounded up to 2 MiB, smaller ones sharing 20 MiB segments). The free indices, 10 MiB or less,
  // are taken as served from a block the load left cached (the published start-ups fit that; a
  // fresh 20 MiB segment would lower the line by 0.02 GB).
  m.max_num_reqs = reqs;
  m.req_to_token_bytes = m.kv_segment_bytes = m.free_index_bytes = m.pool_segment_bytes = 0;
  m.pool_end_gib = 0;
  if (!m.hybrid && m.mamba_layers == 0 && m.layers > 0 && m.k_row_bytes % m.layers == 0 &&
      m.v_row_bytes % m.layers == 0) {
    const Checked r2t = Checked(reqs) * (m.context_len + 4) * 4;
    const Checked per_k = rows * (m.k_row_bytes / m.layers), per_v = rows * (m.v_row_bytes / m.layers);
    // NSATokenToKVPool: after the latents, each layer's index_k_with_scale_buffer of
    // (size + page + 1) // page pages of page × 132 bytes.
    const Checked per_index = Checked((tokens + m.page_size + 1) / m.page_size) * m.page_size * m.indexer_bytes;
    const Checked free = Checked(m.page_size == 1 ? tokens : tokens / m.page_size) * 8;
    // The allocator's sums stay within int64 for tensors up to 2^50 bytes (1 PiB); beyond, the line is not modelled.
    constexpr i64 kBound = i64{1} << 50;
    bool bounded = true;
    for (const Checked& x : {r2t, per_k, per_v, per_index, free}) {
      if (!x.ok()) return memory_overflow(field);
      bounded = bounded && x.value() <= kBound;
    }
    if (bounded) {
      LoadAllocator segments;  // in init_memory_pool's order: req_to_token, every K, every V
      segments.malloc(r2t.value());
      const i64 r2t_segments = segments.reserved();
      for (i64 l = 0; l < m.layers; ++l) segments.malloc(per_k.value());
      if (m.v_row_bytes > 0)
        for (i64 l = 0; l < m.layers; ++l) segments.malloc(per_v.value());
      if (m.indexer_bytes > 0)
        for (i64 l = 0; l < m.layers; ++l) segments.malloc(per_index.value());
      m.kv_segment_bytes = segments.reserved() - r2t_segments;
      if (free.value() <= 10 * (i64{1} << 20)) {
        m.pool_segment_bytes = segments.reserved() + allocator_round(free.value());
      } else {
        segments.malloc(free.value());
        m.pool_segment_bytes = segments.reserved();
      }
      m.req_to_token_bytes = r2t.value();
      m.free_index_bytes = free.value();
      m.pool_end_gib = m.post_gib - static_cast<double>(m.pool_segment_bytes) / kGiBd;
    }
  }
  return m;
}

i64 sglang_max_requests(const SglangMemory& m, i64 context) {
  if (!m.error.empty() || context <= 0) return 0;
  i64 full = m.max_total_tokens / context;
  if (m.mamba_layers > 0) full = std::min(full, m.max_running_requests);  // each running request holds a state slot
  if (!m.hybrid) return full;
  const i64 kept = m.window > 0 ? std::min(context, m.window) : context;
  return std::min(full, m.swa_tokens / kept);
}

std::string sglang_settings(const SglangMemory& m, std::string_view sep, Lang lang) {
  return "mem_fraction_static " + fixed(m.mem_fraction_static, 3) + (m.mfs_default ? tr(Str::rep_its_default, lang) : "") +
         std::string(sep) + "context_len " + with_commas(m.context_len);
}

std::vector<std::string> sglang_log(const SglangMemory& m) {
  std::vector<std::string> out;
  if (m.trtllm_mha) {  // ref: server_args.py's two lines when it picks the backend and its pages
    out.push_back("Attention backend not specified. Use trtllm_mha backend by default.");
    if (m.page_changed_to_64)
      out.push_back("TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from " +
                    (m.page_set ? std::to_string(m.page_set_to) : std::string("None")) + " to 64.");
  }
  // ref: model_runner.py load_model: "Load weight end. type=…, dtype=…, avail mem=%.2f GB, mem usage=%.2f GB."
  out.push_back("Load weight end. ..., avail mem=" + gb(m.post_gib) + " GB, mem usage=" +
                gb(m.measured ? m.pre_gib - m.post_gib : static_cast<double>(m.weights_bytes) / kGiBd) + " GB.");
  if (m.mtt_ignored_profiled >= 0)  // ref: init_memory_pool's warning
    out.push_back("max_total_tokens=" + std::to_string(m.mtt_ignored_set) + " is larger than the profiled value " +
                  std::to_string(m.mtt_ignored_profiled) + ". Use the profiled value instead.");
  if (!m.error.empty()) {
    out.push_back(m.error);
    return out;
  }
  const auto mha_line = [](i64 tokens, i64 k, i64 v) {
    return "KV Cache is allocated. #tokens: " + std::to_string(tokens) + ", K size: " + gb(static_cast<double>(k) / kGiBd) +
           " GB, V size: " + gb(static_cast<double>(v) / kGiBd) + " GB";
  };
  if (m.mamba_layers > 0) {  // ref: memory_pool.py MambaPool.__init__ (slots + 1 rows: slot 0 is padding)
    const double rows = static_cast<double>(m.mamba_slots + 1);
    out.push_back("Mamba Cache is allocated. max_mamba_cache_size: " + std::to_string(m.mamba_slots) +
                  ", conv_state size: " + gb(rows * static_cast<double>(m.mamba_conv_bytes) / kGiBd) +
                  "GB, ssm_state size: " + gb(rows * static_cast<double>(m.mamba_ssm_bytes) / kGiBd) + "GB ");
  }
  if (m.hybrid) {
    // ref: model_runner_kv_cache_mixin.py set_num_tokens_hybrid_swa, then swa_memory_pool.py
    // SWAKVPool.__init__: the sliding layers' pool is created first, each pool's own line, then the
    // pair's (mem usage = both pools' K and V).
    out.push_back("Use sliding window memory pool. full_layer_tokens=" + std::to_string(m.max_total_tokens) +
                  ", swa_layer_tokens=" + std::to_string(m.swa_tokens));
    out.push_back(mha_line(m.swa_tokens, m.swa_k_bytes, m.swa_v_bytes));
    out.push_back(mha_line(m.max_total_tokens, m.k_bytes, m.v_bytes));
    out.push_back("SWAKVPool mem usage: " + gb(static_cast<double>(m.swa_k_bytes + m.swa_v_bytes + m.k_bytes + m.v_bytes) / kGiBd) +
                  " GB, swa size: " + std::to_string(m.swa_tokens) + ", full size: " + std::to_string(m.max_total_tokens));
  } else if (m.mla) {  // ref: memory_pool.py, MHATokenToKVPool / MLATokenToKVPool _create_buffers.

    out.push_back("KV Cache is allocated. #tokens: " + std::to_string(m.max_total_tokens) +
                  ", KV size: " + gb(static_cast<double>(m.k_bytes) / kGiBd) + " GB");
  } else {
    out.push_back(mha_line(m.max_total_tokens, m.k_bytes, m.v_bytes));
  }
  // ref: model_runner.py init_memory_pool's last line (where its pools are modelled).
  if (m.pool_segment_bytes > 0) out.push_back("Memory pool end. avail mem=" + gb(m.pool_end_gib) + " GB");
  // ref: scheduler.py, the line after the CUDA graphs are captured (its free memory left out).
  out.push_back("max_total_num_tokens=" + std::to_string(m.max_total_tokens) +
                (m.chunked_prefill_size > 0 ? ", chunked_prefill_size=" + std::to_string(m.chunked_prefill_size) : "") +
                ", max_prefill_tokens=16384, max_running_requests=" + std::to_string(m.max_running_requests) +
                ", context_len=" + std::to_string(m.context_len) + ", available_gpu_mem=... GB");
  return out;
}

std::vector<EngineTerm> sglang_terms(const SglangMemory& m, const Workload& w, const Gpu& gpu, Lang lang) {
  const auto b = [](i64 v) { return with_commas(v); };
  const auto tx = [lang](Str k, const auto&... a) {
    if constexpr (sizeof...(a) == 0) return std::string(tr(k, lang));
    else return printf_text(tr(k, lang), std::string(a).c_str()...);
  };
  const std::string src = std::string(m.version) + ", ";
  std::vector<EngineTerm> t;
  t.push_back({"pre_bytes", "", m.pre_gib * kGiBd, true, m.measured ? "exact" : "estimate",
               m.measured ? tx(Str::efx_sg_pre_log, fixed(m.pre_gib, 2)) : tx(Str::efx_sg_pre, b(gpu.cuda_total_bytes), b(m.context_bytes)),
               src + "model_runner.py init_torch_distributed; utils get_available_gpu_memory"});
  t.push_back({"mem_fraction_static", "mem_fraction_static", m.mem_fraction_static, false, "exact",
               m.mfs_default ? tx(Str::efx_sg_mfs, b(m.chunked_prefill_size), b(m.cuda_graph_max_bs), b(w.tp * w.pp), b(m.reserved_mib),
                                  b(m.smi_total_mib), fixed(m.heuristic_mfs, 3)) +
                                   (m.vlm_factor != 1.0 ? tx(Str::efx_sg_mfs_vlm, b(m.vit_layers), b(m.vit_hidden), fixed(m.vlm_factor, 4),
                                                             fixed(m.mem_fraction_static, 4))
                                                        : std::string())
                             : "--mem-fraction-static = " + fixed(m.mem_fraction_static, 3),
               src + tx(Str::efx_sg_mfs_src) + (m.vlm_factor != 1.0 ? "; server_args.py adjust_mem_fraction_for_vlm" : "")});
  t.push_back({"weights_bytes", "Load weight mem usage", static_cast<double>(m.weights_bytes), true, "exact",
               tx(Str::efx_sg_weights, b(m.weights_bytes)), src + "model_runner.py load_model"});
  t.push_back({"rest_bytes", "", m.rest_gib * kGiBd, true, m.measured ? "exact" : "estimate",
               tx(Str::efx_sg_rest, fixed(m.post_gib, 3), fixed(m.pre_gib, 3), fixed(1 - m.mem_fraction_static, 3), fixed(m.rest_gib, 3)),
               src + "model_runner.py profile_max_num_token"});
  t.push_back({"cell_bytes", "", static_cast<double>(m.cell_bytes), true, "exact",
               tx(m.mla ? Str::efx_sg_cell_latent : Str::efx_sg_cell_kv, b(m.layers),
                  (m.indexer_bytes > 0 ? tx(Str::efx_sg_cell_indexer) : "") + (m.nsa_fp8_latent ? tx(Str::efx_sg_cell_nsa_fp8) : ""),
                  b(m.cell_bytes)),
               src + "model_runner.py get_cell_size_per_token"});
  const std::string how = m.measured ? "exact" : "estimate";
  if (m.mamba_layers > 0) {
    const i64 per_req = m.mamba_conv_bytes + m.mamba_ssm_bytes;
    t.push_back({"mamba_bytes_per_request", "", static_cast<double>(per_req), true, "exact",
                 tx(Str::efx_sg_state, b(m.mamba_layers), b(m.mamba_conv_bytes), std::string(m.mamba_ssm_dtype), b(m.mamba_ssm_bytes),
                    b(per_req)),
                 src + tx(Str::efx_sg_state_src)});
    t.push_back({"mamba_slots", "max_mamba_cache_size", static_cast<double>(m.mamba_slots), false, how,
                 tx(Str::efx_sg_slots, b(per_req), b(m.mamba_slots), b(m.mamba_slots / 3)),
                 src + "model_runner_kv_cache_mixin.py handle_max_mamba_cache, init_memory_pool"});
  }
  if (!m.hybrid) {
    t.push_back({"kv_tokens", "#tokens", static_cast<double>(m.max_total_tokens), false, how,
                 tx(Str::efx_sg_tokens, b(m.page_size), b(m.max_total_tokens)),
                 src + "model_runner.py profile_max_num_token, init_memory_pool"});
    if (m.pool_segment_bytes > 0) {
      t.push_back({"req_to_token_bytes", "", static_cast<double>(m.req_to_token_bytes), true, "exact",
                   m.max_num_reqs_set > 0
                       ? tx(Str::efx_sg_req_to_token_flag, b(m.max_num_reqs), b(m.context_len + 4), b(m.req_to_token_bytes))
                       : tx(Str::efx_sg_req_to_token, b(m.max_total_tokens), b(m.context_len), b(m.max_num_reqs), b(m.context_len + 4),
                            b(m.req_to_token_bytes)),
                   src + "model_runner.py init_memory_pool; memory_pool.py ReqToTokenPool"});
      t.push_back({"pool_end_bytes", "Memory pool end. avail mem", m.pool_end_gib * kGiBd, true, "estimate",
                   tx(Str::efx_sg_pool_end, fixed(m.post_gib, 3), b(m.req_to_token_bytes), b(m.mla && m.indexer_bytes == 0 ? m.layers : 2 * m.layers),
                      b(m.kv_segment_bytes), b(m.free_index_bytes), b(m.pool_segment_bytes), fixed(m.pool_end_gib, 3)),
                   src + "model_runner.py init_memory_pool; memory_pool.py; c10 CUDACachingAllocator.cpp get_allocation_size"});
    }
    label_terms(t);
    return t;
  }
  const i64 layers = m.full_layers + m.swa_layers;
  t.push_back({"profiled_tokens", "", static_cast<double>(m.profiled_tokens), false, how,
               tx(Str::efx_sg_tokens, b(m.page_size), b(m.profiled_tokens)), src + "model_runner.py profile_max_num_token"});
  t.push_back({"kv_tokens", "full_layer_tokens", static_cast<double>(m.max_total_tokens), false, how,
               tx(Str::efx_sg_full_tokens, b(m.profiled_tokens), b(layers), fixed(m.swa_ratio, 3), b(m.swa_layers), b(m.full_layers),
                  b(m.max_total_tokens)),
               src + "model_runner_kv_cache_mixin.py set_num_tokens_hybrid_swa"});
  t.push_back({"swa_tokens", "swa_layer_tokens", static_cast<double>(m.swa_tokens), false, how,
               tx(Str::efx_sg_swa_tokens, fixed(m.swa_ratio, 3), b(m.swa_tokens)),
               src + "model_runner_kv_cache_mixin.py set_num_tokens_hybrid_swa"});
  t.push_back({"kv_bytes", "SWAKVPool mem usage", static_cast<double>(m.swa_k_bytes + m.swa_v_bytes + m.k_bytes + m.v_bytes), true,
               how, tx(Str::efx_sg_swa_bytes, b(m.swa_k_row_bytes + m.swa_v_row_bytes), b(m.k_row_bytes + m.v_row_bytes)),
               src + "swa_memory_pool.py SWAKVPool"});
  label_terms(t);
  return t;
}

}  // namespace llmsize::core

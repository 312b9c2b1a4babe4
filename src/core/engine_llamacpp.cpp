// llama.cpp's KV cache and recurrent state as llama-server allocates them (see engine_llamacpp.hpp).
#include "engine_llamacpp.hpp"

#include <algorithm>
#include <cstdio>

#include "field.hpp"
#include "quant.hpp"

namespace llmsize::core {

namespace {

i64 pad(i64 v, i64 to) { return ceil_div(v, to) * to; }  // GGML_PAD

// Families whose llama.cpp architecture reads a sliding window (src/models/<arch>.cpp
// load_arch_hparams sets swa_type STANDARD or, Llama 4, CHUNKED): gemma2, gemma3, gemma4,
// openai-moe (gpt-oss), llama4, olmo2, lfm2. The others keep every token in every layer: phi3.cpp
// sets LLAMA_SWA_TYPE_NONE whatever the GGUF says, and llama, qwen2 or starcoder2 read no window.
bool llamacpp_slides(Family f) {
  return f == Family::Gemma2 || f == Family::Gemma3 || f == Family::Gemma4 || f == Family::GptOss ||
         f == Family::Llama4 || f == Family::Olmo2 || f == Family::Lfm2;
}

// ggml type names of the cache types (ggml_type_name); fp8 is not one.
const char* ggml_name(KvDtype t) {
  switch (t) {
    case KvDtype::BF16: return "bf16";
    case KvDtype::F16: return "f16";
    case KvDtype::F32: return "f32";
    case KvDtype::Q8_0: return "q8_0";
    case KvDtype::Q4_0: return "q4_0";
    case KvDtype::Fp8: return nullptr;
  }
  return nullptr;
}

// llama_hparams::n_embd_r() and n_embd_s() of one recurrent layer (src/llama-hparams.cpp): the
// conv state keeps d_conv − 1 inputs (LFM2: L_cache − 1), the SSM / DeltaNet state d_state ×
// d_inner; both are f32 tensors (create_memory passes GGML_TYPE_F32 for r and s).
struct Recurrent {
  i64 r = 0, s = 0;
};
Recurrent recurrent_widths(const ModelConfig& c, AttnKind k) {
  switch (k) {
    case AttnKind::Linear: return {(c.linear.conv_kernel - 1) * c.linear.conv_dim(), c.linear.k_dim * c.linear.value_dim()};
    case AttnKind::Mamba:
    case AttnKind::FullMamba: return {(c.mamba.conv_kernel - 1) * c.mamba.conv_dim(), c.mamba.state * c.mamba.d_inner()};
    case AttnKind::Mamba1: return {(c.mamba1.conv_kernel - 1) * c.mamba1_inner(), c.mamba1.state * c.mamba1_inner()};
    case AttnKind::Conv: return {c.d_model * (c.short_conv - 1), 0};
    default: return {};
  }
}

}  // namespace

i64 LlamaCppMemory::kv_bytes() const {
  i64 sum = 0;
  for (const auto& c : caches) sum += c.k_bytes + c.v_bytes;
  return sum;
}

Result<LlamaCppMemory> llamacpp_memory(const ModelConfig& c, const LayerPlan& plan, const Workload& w) {
  const KvDtype t = plan.kv_dtype;
  if (!ggml_name(t)) return Issue{"kvt", "fp8 is not a llama.cpp cache type (f32, fp16, bf16, q8_0, q4_0)"};
  if ((t == KvDtype::Q8_0 || t == KvDtype::Q4_0) && !w.flash_attention)
    return Issue{"flash", "llama.cpp needs flash attention for a quantized V cache (llama_init_from_model refuses it)"};
  LlamaCppMemory m;
  // ref: llama_context::llama_context: n_batch (2048 by default) and n_ubatch are clamped by the
  // unpadded n_ctx, then n_ctx = GGML_PAD(n_ctx, 256); split in n_seq_max streams unless unified,
  // each of GGML_PAD(n_ctx / n_seq_max, 256) cells. llama-server's default (-np auto): 4 slots
  // sharing one unified stream (tools/server/server.cpp).
  m.n_ubatch = std::min({w.seq, i64{2048}, w.n_ubatch});
  m.n_seq = w.parallel == 0 ? 4 : w.parallel;
  m.unified = w.parallel == 0 || w.kv_unified;
  m.n_ctx = pad(w.seq, 256);
  if (m.unified) {
    m.n_ctx_seq = m.n_ctx;
    m.n_stream = 1;
  } else {
    m.n_ctx_seq = pad(m.n_ctx / m.n_seq, 256);
    if (m.n_ctx_seq == 0) return Issue{"seq", "n_ctx / n_seq_max rounds to 0 cells per slot"};
    m.n_ctx = m.n_ctx_seq * m.n_seq;
    m.n_stream = m.n_seq;
  }
  // ref: llama_kv_cache_iswa::llama_kv_cache_iswa: the SWA cache holds
  // GGML_PAD(min(size_base, n_swa · (unified ? n_seq_max : 1) + n_ubatch), 256) cells, or size_base with --swa-full.
  const bool slides = llamacpp_slides(c.family);
  i64 n_swa = 0;
  for (const CacheShape& s : plan.caches)
    if ((s.kind == AttnKind::Sliding || s.kind == AttnKind::Chunked) && slides) n_swa = std::max(n_swa, s.window);
  m.iswa = n_swa > 0;
  const i64 swa_cells =
      w.swa_full ? m.n_ctx_seq : pad(std::min(m.n_ctx_seq, n_swa * (m.unified ? m.n_seq : 1) + m.n_ubatch), 256);
  // ref: llama_kv_cache::llama_kv_cache: per layer K of n_embd_k_gqa and V of n_embd_v_gqa (the
  // model's widest when V is transposed, without flash attention), no V for MLA; KV-shared
  // layers (Gemma 4) and layers without attention hold none.
  i64 v_max = 0;
  for (const CacheShape& s : plan.caches)
    if (keeps_tokens(s.kind)) v_max = std::max(v_max, s.heads * s.v_dim);
  LlamaCppCache base{false, m.n_ctx_seq, 0, 0, 0}, swa{true, swa_cells, 0, 0, 0};
  Checked k_base, v_base, k_swa, v_swa, r_sum, s_sum;
  i64 recurrent_layers = 0;
  m.rs_cells = std::max<i64>(1, m.n_seq);  // ref: create_memory: recurrent cells = max(1, n_seq_max)
  for (const PlannedLayer& l : plan.layers) {
    const CacheShape& s = plan.caches[static_cast<size_t>(l.cache)];
    Checked layer;  // this layer's K, V and state
    if (s.kind == AttnKind::MlaIndexer)
      return Issue{"rt", "llama.cpp keeps DeepSeek-V3.2's keys in its DSA cache (llama_kv_cache_dsa), not modelled yet"};
    if (keeps_tokens(s.kind)) {
      const bool in_swa = m.iswa && (s.kind == AttnKind::Sliding || s.kind == AttnKind::Chunked);
      LlamaCppCache& cache = in_swa ? swa : base;
      const auto k = kv_row_bytes(t, s.heads * s.k_dim);
      const auto v = is_mla(s.kind) ? std::optional<i64>(0) : kv_row_bytes(t, w.flash_attention ? s.heads * s.v_dim : v_max);
      if (!k || !v) return memory_overflow();
      const Checked cells = Checked(cache.cells) * m.n_stream;
      (in_swa ? k_swa : k_base) += cells * *k;
      (in_swa ? v_swa : v_base) += cells * *v;
      layer += cells * (*k + *v);
      ++cache.layers;
    }
    if (has_state(s.kind)) {
      const Recurrent rs = recurrent_widths(c, s.kind);
      r_sum += Checked(rs.r) * 4 * m.rs_cells;
      s_sum += Checked(rs.s) * 4 * m.rs_cells;
      layer += Checked(rs.r + rs.s) * 4 * m.rs_cells;
      ++recurrent_layers;
    }
    if (!layer.ok()) return memory_overflow();
    m.layer_bytes.push_back(layer.value());
  }
  // ref: llama_model::create_memory filters the nextn (MTP) layers out of the cache only for
  // step35, hy_v3, glm_dsa, mimo2 and deepseek32: glm4moe's GGUF keeps its nextn layer, and
  // llama_kv_cache's loop over n_layer_all gives it K and V like a trunk layer.
  if (c.family == Family::Glm4Moe && c.mtp_layers > 0 && !plan.layers.empty()) {
    const CacheShape& s = plan.caches[static_cast<size_t>(plan.layers.front().cache)];
    const auto k = kv_row_bytes(t, s.heads * s.k_dim), v = kv_row_bytes(t, w.flash_attention ? s.heads * s.v_dim : v_max);
    if (!k || !v) return memory_overflow();
    k_base += Checked(base.cells) * m.n_stream * *k * c.mtp_layers;
    v_base += Checked(base.cells) * m.n_stream * *v * c.mtp_layers;
    base.layers += c.mtp_layers;
    const Checked one = Checked(base.cells) * m.n_stream * (*k + *v);
    if (!one.ok()) return memory_overflow();
    for (i64 i = 0; i < c.mtp_layers; ++i) m.layer_bytes.push_back(one.value());
  }
  if (!k_base.ok() || !v_base.ok() || !k_swa.ok() || !v_swa.ok() || !r_sum.ok() || !s_sum.ok()) return memory_overflow();
  base.k_bytes = k_base.value();
  base.v_bytes = v_base.value();
  swa.k_bytes = k_swa.value();
  swa.v_bytes = v_swa.value();
  if (base.layers > 0 || m.iswa) m.caches.push_back(base);
  if (m.iswa) m.caches.push_back(swa);
  m.recurrent = recurrent_layers > 0;
  if (m.recurrent) {
    m.rs_layers = c.n_layers;  // ref: llama_memory_recurrent prints hparams.n_layer(), not the recurrent layers
    m.r_bytes = r_sum.value();
    m.s_bytes = s_sum.value();
  } else {
    m.rs_cells = 0;
  }
  return m;
}

Result<LlamaCppBuffers> llamacpp_buffers(const ModelConfig& c, const Inventory& inv, const LlamaCppMemory& m,
                                         const Workload& w, const Gpu& gpu) {
  if (w.tp > 1 || w.pp > 1)
    return Issue{"tp", "llama.cpp splits layers over devices (--tensor-split), which is not modelled yet; use tp 1 and pp 1"};
  LlamaCppBuffers b;
  b.device = gpu.vendor == "AMD" ? "ROCm0" : gpu.vendor == "Apple" ? "Metal" : "CUDA0";
  b.n_layer = c.n_layers;
  // ref: llama_model::load_tensors: i_gpu_start, act_gpu_layers and get_layer_buft_list.
  const i64 ngl = w.n_gpu_layers < 0 ? c.n_layers + 1 : w.n_gpu_layers;
  const i64 i_gpu_start = std::max<i64>(c.n_layers - ngl, 0);
  const i64 act = std::min(ngl, c.n_layers + 1);
  auto on_gpu = [&](i64 il) { return il >= i_gpu_start && il - i_gpu_start < act; };
  b.offloaded = act;
  b.output_on_gpu = on_gpu(c.n_layers);
  auto bytes_of = [&](const Tensor& t, i64 layer) -> std::optional<i64> {
    auto one = storage_bytes(storage_for(c, w, t, layer), stored_dims(t));
    return one ? mul(*one, t.copies) : std::nullopt;
  };
  Checked gpu_bytes, cpu_bytes;
  for (const Tensor& t : inv.global) {
    auto bytes = bytes_of(t, -1);
    if (!bytes) return memory_overflow();
    // The token embedding is the input layer (always the CPU); the position table too; the rest
    // of the globals (final norm, head) is the output layer.
    const bool input = t.role == Role::Embed || t.role == Role::PosEmbed || t.role == Role::EmbedProj || t.role == Role::LayerEmbed;
    if (input) {
      cpu_bytes += Checked(*bytes);
      // A tied head: llama.cpp duplicates token_embd as the output tensor on the output layer's device.
      if (c.tie_embeddings && t.role == Role::Embed && b.output_on_gpu) gpu_bytes += Checked(*bytes);
    } else {
      (b.output_on_gpu ? gpu_bytes : cpu_bytes) += Checked(*bytes);
    }
  }
  for (const LayerKind& k : inv.kinds)
    for (const i64 il : k.layers)
      for (const Tensor& t : k.tensors) {
        auto bytes = bytes_of(t, il);
        if (!bytes) return memory_overflow();
        // --n-cpu-moe N: "blk\.(0…N−1)\.ffn_(up|down|gate)_exps" buffers override to the CPU.
        const bool expert_on_cpu = t.routed && il < w.n_cpu_moe;
        (on_gpu(il) && !expert_on_cpu ? gpu_bytes : cpu_bytes) += Checked(*bytes);
      }
  for (size_t il = 0; il < m.layer_bytes.size(); ++il) {
    // The nextn layers follow the trunk (il ≥ n_layer): they go with the output layer.
    const bool gpu_layer = static_cast<i64>(il) < c.n_layers ? on_gpu(static_cast<i64>(il)) : b.output_on_gpu;
    (gpu_layer ? b.gpu_cache_bytes : b.cpu_cache_bytes) += m.layer_bytes[il];
  }
  if (!gpu_bytes.ok() || !cpu_bytes.ok()) return memory_overflow();
  b.gpu_model_bytes = gpu_bytes.value();
  b.cpu_mapped_bytes = cpu_bytes.value();
  return b;
}

std::vector<std::string> llamacpp_buffer_log(const LlamaCppBuffers& b) {
  std::vector<std::string> out;
  char buf[160];
  auto mib = [](i64 v) { return static_cast<double>(v) / 1048576.0; };
  // ref: llama_model::load_tensors's LLAMA_LOG_INFO lines.
  std::snprintf(buf, sizeof buf, "load_tensors: offloaded %lld/%lld layers to GPU", static_cast<long long>(b.offloaded),
                static_cast<long long>(b.n_layer + 1));
  out.emplace_back(buf);
  std::snprintf(buf, sizeof buf, "load_tensors: %12s model buffer size = %8.2f MiB", "CPU_Mapped", mib(b.cpu_mapped_bytes));
  out.emplace_back(buf);
  // A discrete GPU's buffer holds its tensors (copied, aligned); Metal maps the file range from
  // its first tensor to its last, which depends on the GGUF's tensor order: not printed.
  if (b.offloaded > 0 && b.device != "Metal") {
    std::snprintf(buf, sizeof buf, "load_tensors: %12s model buffer size = %8.2f MiB", b.device.c_str(), mib(b.gpu_model_bytes));
    out.emplace_back(buf);
  }
  return out;
}

std::vector<std::string> llamacpp_log(const LlamaCppMemory& m, KvDtype t) {
  std::vector<std::string> out;
  const char* type = ggml_name(t);
  if (!type) return out;
  char buf[256];
  auto mib = [](i64 b) { return static_cast<float>(b) / (1024.0f * 1024.0f); };
  // ref: llama_kv_cache::llama_kv_cache's LLAMA_LOG_INFO and llama_kv_cache_iswa's "creating" lines.
  for (const LlamaCppCache& c : m.caches) {
    if (m.iswa) {
      std::snprintf(buf, sizeof buf, "llama_kv_cache_iswa: creating %s KV cache, size = %lld cells",
                    c.swa ? "    SWA" : "non-SWA", static_cast<long long>(c.cells));
      out.emplace_back(buf);
    }
    std::snprintf(buf, sizeof buf,
                  "llama_kv_cache: size = %7.2f MiB (%6lld cells, %3lld layers, %2lld/%lld seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB",
                  static_cast<double>(mib(c.k_bytes + c.v_bytes)), static_cast<long long>(c.cells),
                  static_cast<long long>(c.layers), static_cast<long long>(m.n_seq), static_cast<long long>(m.n_stream), type,
                  static_cast<double>(mib(c.k_bytes)), type, static_cast<double>(mib(c.v_bytes)));
    out.emplace_back(buf);
  }
  if (m.recurrent) {  // ref: llama_memory_recurrent::llama_memory_recurrent's LLAMA_LOG_INFO (n_rs_seq 0)
    std::snprintf(buf, sizeof buf,
                  "llama_memory_recurrent: size = %7.2f MiB (%6lld cells, %3lld layers, %2lld seqs %2d rs_seq), R (f32): %7.2f MiB, "
                  "S (f32): %7.2f MiB",
                  static_cast<double>(mib(m.r_bytes + m.s_bytes)), static_cast<long long>(m.rs_cells),
                  static_cast<long long>(m.rs_layers), static_cast<long long>(m.n_seq), 0, static_cast<double>(mib(m.r_bytes)),
                  static_cast<double>(mib(m.s_bytes)));
    out.emplace_back(buf);
  }
  return out;
}

}  // namespace llmsize::core

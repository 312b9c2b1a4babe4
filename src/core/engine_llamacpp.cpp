// llama.cpp's KV cache and recurrent state as llama-server allocates them (see engine_llamacpp.hpp).
#include "engine_llamacpp.hpp"

#include <algorithm>
#include <cstdio>

#include "field.hpp"
#include "file_weights.hpp"
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

const char* llamacpp_cache_type(KvDtype t) {
  switch (t) {
    case KvDtype::BF16: return "bf16";
    case KvDtype::F16: return "f16";
    case KvDtype::F32: return "f32";
    case KvDtype::Q8_0: return "q8_0";
    case KvDtype::Q4_0: return "q4_0";
    case KvDtype::Fp8:
    case KvDtype::TqK8V4:
    case KvDtype::Tq4bitNc:
    case KvDtype::TqK3V4Nc:
    case KvDtype::Tq3bitNc: return nullptr;
  }
  return nullptr;
}

i64 LlamaCppMemory::kv_bytes() const {
  i64 sum = 0;
  for (const auto& c : caches) sum += c.k_bytes + c.v_bytes;
  return sum;
}

Result<LlamaCppMemory> llamacpp_memory(const ModelConfig& c, const LayerPlan& plan, const Workload& w) {
  const KvDtype t = plan.kv_dtype;
  if (!llamacpp_cache_type(t)) return issue_row("kvt", Str::eng_llamacpp_fp8, std::string(to_string(t)));
  if (kv_block_quantized(t) && !w.flash_attention)
    return issue_row("flash", Str::eng_llamacpp_quant_v);
  LlamaCppMemory m;
  // ref: llama_context::llama_context: n_batch (2048 by default) and n_ubatch are clamped by the
  // unpadded n_ctx, then n_ctx = GGML_PAD(n_ctx, 256); split in n_seq_max streams unless unified,
  // each of GGML_PAD(n_ctx / n_seq_max, 256) cells. llama-server's default (-np auto): 4 slots
  // sharing one unified stream (tools/server/server.cpp).
  m.n_ubatch = std::min({w.seq, w.n_batch, w.n_ubatch});
  m.rs_seq = w.llamacpp_graph == LlamaCppGraph::F16Mask;
  m.n_seq = w.parallel == 0 ? 4 : w.parallel;
  m.unified = w.parallel == 0 || w.kv_unified;
  m.n_ctx = pad(w.seq, 256);
  if (m.unified) {
    m.n_ctx_seq = m.n_ctx;
    m.n_stream = 1;
  } else {
    m.n_ctx_seq = pad(m.n_ctx / m.n_seq, 256);
    if (m.n_ctx_seq == 0) return issue_row("seq", Str::eng_llamacpp_zero_cells);
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
  // ref: llama_model::create_memory (LLM_ARCH_DEEPSEEK32) and llama_kv_cache_dsa::llama_kv_cache_dsa:
  // the MLA cache of the trunk layers, then a second llama_kv_cache of the same cells for the
  // indexer's keys: hparams_lid with one KV head of indexer_head_size, still MLA (no V), in type_k.
  LlamaCppCache index{false, m.n_ctx_seq, 0, 0, 0, true};
  Checked k_base, v_base, k_swa, v_swa, k_index, r_sum, s_sum;
  i64 recurrent_layers = 0;
  m.rs_cells = std::max<i64>(1, m.n_seq);  // ref: create_memory: recurrent cells = max(1, n_seq_max)
  for (const PlannedLayer& l : plan.layers) {
    const CacheShape& s = plan.caches[static_cast<size_t>(l.cache)];
    Checked layer;  // this layer's K, V and state
    int cache_index = -1;
    i64 kv_of_layer = 0;
    i64 index_of_layer = 0;  // the indexer's keys of this layer (DSA)
    if (s.kind == AttnKind::MlaIndexer) {
      if (c.family != Family::DeepseekV32)
        return issue_row("rt", Str::eng_llamacpp_dsa_only);
      const auto k = kv_row_bytes(t, c.mla.index_dim);
      if (!k) return memory_overflow();
      const Checked bytes = Checked(index.cells) * m.n_stream * *k;
      if (!bytes.ok()) return memory_overflow();
      k_index += bytes;
      layer += bytes;
      index_of_layer = bytes.value();
      ++index.layers;
      m.dsa = true;
    }
    m.layer_indexer.push_back(index_of_layer);
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
      const Checked kv_layer = cells * (*k + *v) + index_of_layer;
      if (!kv_layer.ok()) return memory_overflow();
      kv_of_layer = kv_layer.value();
      cache_index = in_swa ? 1 : 0;
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
    m.layer_kv.push_back(kv_of_layer);
    m.layer_cache.push_back(cache_index);
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
    for (i64 i = 0; i < c.mtp_layers; ++i) {
      m.layer_bytes.push_back(one.value());
      m.layer_kv.push_back(one.value());
      m.layer_cache.push_back(0);
    }
  }
  // ref: qwen35.cpp load_arch_hparams (PR #22673, 2026-05-16): a GGUF that keeps the MTP block
  // (convert_hf_to_gguf's default since that PR; --no-mtp drops it) counts it in block_count, so it
  // is one of the layers -ngl counts and "offloaded N/M" prints; create_memory filters the cache
  // and the recurrent state to il < n_main, so it holds neither, and load_tensors skips its
  // weights unless --spec-type draft-mtp (PR #26296). A config with mtp_num_hidden_layers is taken
  // as such a GGUF; a GGUF header without nextn_predict_layers (an older converter's) has none.
  if ((c.family == Family::Qwen35 || c.family == Family::Qwen35Moe) && c.mtp_layers > 0)
    for (i64 i = 0; i < c.mtp_layers; ++i) {
      m.layer_bytes.push_back(0);
      m.layer_kv.push_back(0);
      m.layer_cache.push_back(-1);
    }
  if (!k_base.ok() || !v_base.ok() || !k_swa.ok() || !v_swa.ok() || !k_index.ok() || !r_sum.ok() || !s_sum.ok()) return memory_overflow();
  base.k_bytes = k_base.value();
  base.v_bytes = v_base.value();
  swa.k_bytes = k_swa.value();
  swa.v_bytes = v_swa.value();
  index.k_bytes = k_index.value();
  if (m.dsa && m.iswa) return issue_row("rt", Str::eng_llamacpp_dsa_swa);
  if (m.dsa) m.layer_indexer.resize(m.layer_bytes.size(), 0);  // the nextn layers: none
  else m.layer_indexer.clear();
  if (base.layers > 0 || m.iswa) m.caches.push_back(base);
  if (m.iswa) m.caches.push_back(swa);
  if (m.dsa) m.caches.push_back(index);
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

i64 LlamaCppBuffers::gpu_model_bytes() const {
  i64 sum = 0;
  for (const auto& d : devices) sum += d.model_bytes;
  return sum;
}
i64 LlamaCppBuffers::gpu_cache_bytes() const {
  i64 sum = 0;
  for (const auto& d : devices) sum += d.cache_bytes;
  return sum;
}
bool LlamaCppBuffers::cpu_computes_layers() const {
  return no_gpu || cpu_span || std::any_of(layer_device.begin(), layer_device.end(), [](int d) { return d < 0; });
}

namespace {

// The slot of a layer's matrix (its role), or of that matrix's bias; null where the graph has none.
i64* matrix_slot(LlamaCppLayerWeights& lw, Role r, bool routed, bool bias) {
  switch (r) {
    case Role::AttnQ: return bias ? &lw.bq : &lw.wq;
    case Role::AttnK: return bias ? &lw.bk : &lw.wk;
    case Role::AttnV: return bias ? &lw.bv : &lw.wv;
    case Role::AttnO: return bias ? &lw.bo : &lw.wo;
    case Role::Router: return bias ? &lw.router_b : &lw.router;
    case Role::FfnGate: return routed ? (bias ? &lw.gate_exps_b : &lw.gate_exps) : bias ? nullptr : &lw.gate;
    case Role::FfnUp: return routed ? (bias ? &lw.up_exps_b : &lw.up_exps) : bias ? nullptr : &lw.up;
    case Role::FfnDown: return routed ? (bias ? &lw.down_exps_b : &lw.down_exps) : bias ? nullptr : &lw.down;
    case Role::LinConv: return bias ? nullptr : &lw.lin_conv;
    case Role::LinDtBias: return bias ? nullptr : &lw.lin_dt;
    case Role::LinALog: return bias ? nullptr : &lw.lin_a;
    case Role::LinOut: return bias ? nullptr : &lw.lin_out;
    case Role::SharedGate: return bias ? nullptr : &lw.shexp_gate;
    default: return nullptr;
  }
}

// A layer tensor's stored bytes in its slot of the reserved graph's weights (by role; biases by
// the matrix they belong to; norms by name).
void record_weight(LlamaCppLayerWeights& lw, const Tensor& t, i64 bytes, bool sandwich) {
  auto has = [&](std::string_view part) { return t.name.find(part) != std::string::npos; };
  const bool bias = t.role == Role::Bias;
  const Role matrix = bias ? t.of : t.role;
  i64* slot = nullptr;
  if (matrix == Role::FfnGateUp) {
    // A checkpoint's fused gate_up (gpt-oss's experts) is two GGUF tensors, gate and up, of half
    // its bytes each; so is its bias.
    i64* gate = matrix_slot(lw, Role::FfnGate, t.routed, bias);
    i64* up = matrix_slot(lw, Role::FfnUp, t.routed, bias);
    if (gate && up) *gate += bytes / 2, *up += bytes - bytes / 2;
    return;
  }
  if (t.role == Role::AttnSink) {
    slot = &lw.sinks;
  } else if (t.role == Role::Norm && has("linear_attn.norm")) {
    slot = &lw.lin_norm;  // Qwen3.5's gated norm (ssm_norm)
  } else if (t.role == Role::Norm) {
    // Gemma's four: input (attn_norm), post_attention (attn_post_norm), pre_feedforward
    // (ffn_norm), post_feedforward (ffn_post_norm); elsewhere post_attention is the FFN's.
    slot = has("q_norm") ? &lw.q_norm : has("k_norm") ? &lw.k_norm
         : has("pre_feedforward") ? &lw.ffn_norm : has("post_feedforward") ? &lw.ffn_post_norm
         : has("post_attention") ? (sandwich ? &lw.attn_post_norm : &lw.ffn_norm) : &lw.attn_norm;
  } else if (matrix == Role::LinQKVZ || matrix == Role::LinBA) {
    // Qwen3.5's four input projections (in_proj_qkv, _z, _b, _a: attn_qkv, attn_gate, ssm_beta, ssm_alpha).
    if (!bias)
      slot = matrix == Role::LinQKVZ ? (has("in_proj_z") ? &lw.lin_z : &lw.lin_qkv) : (has("in_proj_b") ? &lw.lin_beta : &lw.lin_alpha);
  } else {
    slot = matrix_slot(lw, matrix, t.routed, bias);
  }
  if (slot) *slot += bytes;
}

}  // namespace

Result<LlamaCppBuffers> llamacpp_buffers(const ModelConfig& c, const Inventory& inv, const LlamaCppMemory& m,
                                         const Workload& w, const Gpu& gpu, const FileWeights* file) {
  if (w.tp > 1)
    return issue_row("tp", Str::eng_llamacpp_tp);
  const Gpu* first = w.devices.empty() ? &gpu : find_gpu(w.devices.front());  // the backend of the devices
  const std::string vendor = first ? first->vendor : gpu.vendor;
  const bool metal = vendor == "Apple";
  if (metal && w.pp > 1) return issue_row("pp", Str::eng_llamacpp_metal_pp);
  // --device none (or a build without a GPU backend): one device, the CPU, whatever -ngl says.
  const bool no_gpu = w.llamacpp_no_gpu;
  if (no_gpu && w.pp > 1) return issue_row("pp", Str::eng_llamacpp_no_gpu_pp);
  LlamaCppBuffers b;
  const std::string backend = vendor == "AMD" ? "ROCm" : metal ? "Metal" : "CUDA";
  // ref: load_tensors: n_layer_all = the trunk and the nextn layers the GGUF keeps (the cache's layers).
  const i64 n_layer_all = static_cast<i64>(m.layer_bytes.size());
  b.n_layer = n_layer_all;
  b.ngl = w.n_gpu_layers < 0 ? n_layer_all + 1 : w.n_gpu_layers;
  b.no_gpu = no_gpu;
  const i64 ngl = no_gpu ? 0 : b.ngl;  // the layers a GPU holds
  // ref: load_tensors: the split points: each share summed in order, then divided by the sum,
  // in float; all zero (or none given) = by each device's free memory, equal on identical cards.
  const i64 n_dev = w.pp;
  std::vector<float> splits(static_cast<size_t>(n_dev), 1.0f);
  b.even_split = std::all_of(w.tensor_split.begin(), w.tensor_split.end(), [](double x) { return static_cast<float>(x) == 0.0f; });
  if (!b.even_split)
    for (i64 i = 0; i < n_dev; ++i) splits[static_cast<size_t>(i)] = static_cast<float>(w.tensor_split[static_cast<size_t>(i)]);
  float split_sum = 0.0f;
  for (float& x : splits) x = (split_sum += x);
  for (float& x : splits) x /= split_sum;
  b.splits = splits;
  // ref: load_tensors: i_gpu_start = n_layer_all + 1 − ngl since PR #18148 (the output layer
  // first), n_layer − ngl before it; act_gpu_layers = min(ngl, n_layer + 1) in both.
  b.output_first = w.llamacpp_offload == LlamaCppOffload::OutputFirst;
  const i64 i_gpu_start = std::max<i64>(n_layer_all + (b.output_first ? 1 : 0) - ngl, 0);
  const i64 act = std::min(ngl, n_layer_all + 1);
  // The device of layer il (il = n_layer_all: the output layer), or -1 for the CPU.
  auto device_of = [&](i64 il) -> i64 {
    if (il < i_gpu_start || il - i_gpu_start >= act) return -1;
    const float at = static_cast<float>(il - i_gpu_start) / static_cast<float>(act);
    const i64 d = std::upper_bound(splits.begin(), splits.end(), at) - splits.begin();
    return std::min(d, n_dev - 1);
  };
  b.offloaded = act;
  for (i64 i = 0; i < n_dev; ++i)
    b.devices.push_back({metal ? backend : backend + std::to_string(i), 0, 0, false, 0, 0});
  const i64 out_dev = device_of(n_layer_all);
  b.output_on_gpu = out_dev >= 0;
  if (b.output_on_gpu) b.devices[static_cast<size_t>(out_dev)].output = true;
  for (i64 il = 0; il < n_layer_all; ++il)
    if (const i64 d = device_of(il); d >= 0) {
      LlamaCppDevice& dev = b.devices[static_cast<size_t>(d)];
      if (dev.count == 0) dev.first = il;
      ++dev.count;
    }
  auto bytes_of = [&](const Tensor& t, i64 layer) { return tensor_stored_bytes(c, w, inv, t, layer, file); };
  std::vector<Checked> dev_bytes(static_cast<size_t>(n_dev));
  Checked cpu_bytes, cpu_read, cpu_experts;
  auto place = [&](i64 d, i64 bytes, bool routed = false) {
    (d >= 0 ? dev_bytes[static_cast<size_t>(d)] : cpu_bytes) += Checked(bytes);
    if (d < 0) (routed ? cpu_experts : cpu_read) += Checked(bytes);
    b.cpu_span |= d < 0 && bytes > 0;
  };
  // Each tensor's bytes as the reserved graph's weights too (the compute buffers below).
  std::vector<LlamaCppLayerWeights> layer_weights(static_cast<size_t>(n_layer_all));
  i64 token_embd = 0, output_weight = 0, output_norm = 0;
  for (const Tensor& t : inv.global) {
    auto bytes = bytes_of(t, -1);
    if (!bytes) return memory_overflow();
    if (t.role == Role::Embed) {
      token_embd = *bytes;
      if (c.tie_embeddings) output_weight = *bytes;  // token_embd duplicated as the output tensor
    } else if (t.role == Role::LmHead) {
      output_weight = *bytes;
    } else if (t.role == Role::Norm) {
      output_norm = *bytes;
    }
    // The token embedding is the input layer (always the CPU); the position table too; the rest
    // of the globals (final norm, head) is the output layer.
    const bool input = t.role == Role::Embed || t.role == Role::PosEmbed || t.role == Role::EmbedProj || t.role == Role::LayerEmbed;
    if (input) {
      cpu_bytes += Checked(*bytes);
      // A tied head: llama.cpp duplicates token_embd as the output tensor on the output layer's device.
      if (c.tie_embeddings && t.role == Role::Embed && b.output_on_gpu) place(out_dev, *bytes);
    } else {
      place(out_dev, *bytes);
    }
  }
  for (const LayerKind& k : inv.kinds)
    for (const i64 il : k.layers)
      for (const Tensor& t : k.tensors) {
        auto bytes = bytes_of(t, il);
        if (!bytes) return memory_overflow();
        if (il >= 0 && il < n_layer_all) record_weight(layer_weights[static_cast<size_t>(il)], t, *bytes, c.norm_sandwich);
        // --n-cpu-moe N: "blk\.(0…N−1)\.ffn_(up|down|gate)_exps" buffers override to the CPU.
        const bool expert_on_cpu = t.routed && il < w.n_cpu_moe;
        place(expert_on_cpu ? -1 : device_of(il), *bytes, t.routed);
      }
  // A file's tensors the inventory does not name (rope_freqs): with layer 0, as load_tensors creates it.
  if (file && file->other_bytes > 0) place(device_of(0), file->other_bytes);
  if (!cpu_read.ok() || !cpu_experts.ok()) return memory_overflow();
  b.cpu_read_bytes = cpu_read.value();
  b.cpu_expert_bytes = cpu_experts.value();
  for (i64 il = 0; il < n_layer_all; ++il) {
    const i64 d = device_of(il);
    b.layer_device.push_back(static_cast<int>(d));
    (d >= 0 ? b.devices[static_cast<size_t>(d)].cache_bytes : b.cpu_cache_bytes) += m.layer_bytes[static_cast<size_t>(il)];
  }
  if (!cpu_bytes.ok()) return memory_overflow();
  for (i64 i = 0; i < n_dev; ++i) {
    if (!dev_bytes[static_cast<size_t>(i)].ok()) return memory_overflow();
    b.devices[static_cast<size_t>(i)].model_bytes = dev_bytes[static_cast<size_t>(i)].value();
  }
  b.cpu_mapped_bytes = cpu_bytes.value();
  // Every tensor on the CPU (-ngl 0, or a build without a GPU backend): the mapped span is the
  // file's whole tensor data, each tensor's bytes (GGUF aligns each to 32 B), so it is printed.
  if (std::all_of(b.devices.begin(), b.devices.end(), [](const LlamaCppDevice& d) { return d.model_bytes == 0; }))
    b.cpu_span = false;
  // ref: llama_context::output_reserve(n_seq_max): logits of n_vocab floats for max(n_outputs,
  // n_seq_max) rows (no embeddings rows: llama-server runs without --embeddings), in the host
  // buffer type of the output layer's device (CUDA_Host, ROCm_Host), else the CPU's (Metal has none).
  b.output_buffer = b.output_on_gpu && !metal ? backend + "_Host" : "CPU";
  // ref: llama_context::llama_context: the CPU backend computes in the first GPU's host buffer
  // type (pinned, for faster transfers), whatever layers that GPU holds.
  b.host_buffer = metal || no_gpu ? "CPU" : backend + "_Host";
  const Checked out_bytes = Checked(c.vocab) * m.n_seq * 4;
  if (!out_bytes.ok()) return memory_overflow();
  b.output_buffer_bytes = out_bytes.value();

  // The compute buffers. ref: llama_context::llama_context: graph_reserve(n_tokens =
  // min(n_ctx, n_ubatch), n_seqs, n_outputs = n_tokens) on the full-size cache, then per backend
  // ggml_backend_sched_get_buffer_size, printed where above 1 byte (GPUs first, the CPU last).
  // Followed for llm_build_llama (Mixtral's too) / qwen2 / qwen3 / qwen3moe graphs and the iswa
  // ones below, on discrete GPUs or the CPU alone: the host holds the inputs (token ids, the
  // build's embeddings input, positions, the cache's row indices, the KQ mask n_kv ×
  // GGML_PAD(n_tokens, GGML_KQ_MASK_PAD) of older builds, output ids) and the token embeddings
  // ggml_get_rows makes on the CPU (token_embd stays there); n_tokens a multiple of 64 keeps the
  // pad out. Every layer is followed through ggml's scheduler and allocator
  // (engine_llamacpp_graph.cpp), MoE layers and eager attention too, on every device, whole or
  // partial offload, -ngl 0 (the GPU running the big ops with copies of the weights) and
  // --llamacpp-no-gpu (--device none, or a build without a GPU backend: the CPU the one backend).
  // gpt-oss (llm_build_openai_moe_iswa), Gemma 2 and Gemma 3 (llm_build_gemma2_iswa,
  // llm_build_gemma3_iswa: Gemma 3's vision tower is mmproj's, outside this graph) on their iswa
  // cache: the full and SWA caches' inputs, each layer reading its own.
  const bool gemma = c.family == Family::Gemma2 || c.family == Family::Gemma3;
  const bool gpt_oss = c.family == Family::GptOss;
  const bool iswa_graph = (gpt_oss || gemma) && m.iswa && m.caches.size() == 2 &&
                          m.layer_cache.size() == static_cast<size_t>(n_layer_all);
  // Qwen2.5-VL's text model (GGUF arch qwen2vl, llm_build_qwen2vl): Qwen2's graph with
  // ggml_rope_multi over four positions a token (M-RoPE); its vision tower is mmproj's, outside it.
  const bool mrope = c.family == Family::Qwen2 && c.vision.kind == VisionKind::Qwen25;
  const i64 n = std::min(m.n_ctx, m.n_ubatch);
  // Qwen3.5 (GGUF arch qwen35, llm_build_qwen35: Gated DeltaNet and gated full-attention layers,
  // M-RoPE; its vision tower is mmproj's): the hybrid graph of the 2026-01 builds (8399 to 8641
  // build the same one) with flash attention, each sequence of the reserved ubatch whole. Later
  // builds (the 2026-05 graph) are not followed: their delta-net and output reservations changed
  // (PRs #23764, #23861, the MTP block's PRs) and no published start-up pins them. Every trunk
  // layer on a GPU, no GPU, or one sequence: sched_reserve first reserves a check graph of 16 ·
  // n_seqs tokens and keeps the fused chunked op only where each delta net runs on its layer's
  // device. With layers on the CPU beside a GPU and two sequences or more (32 rows: op offload's
  // batch), their big ops, and the delta net after them, go to the GPU there, the fused op is
  // turned off ("usually due to missing support") and the unfused chunking graph, not followed,
  // is reserved; with one sequence the check's 16 rows stay on the CPU and the fused graph stands.
  bool trunk_on_gpus = static_cast<i64>(b.layer_device.size()) >= c.n_layers;
  for (i64 il = 0; trunk_on_gpus && il < c.n_layers; ++il) trunk_on_gpus = b.layer_device[static_cast<size_t>(il)] >= 0;
  // Qwen3.5-MoE (qwen35moe, llm_build_qwen35moe): the same layers, each FFN build_moe_ffn's softmax
  // path with the chosen weights renormalized and a sigmoid-gated shared expert.
  const MoeConfig& moe = c.moe;
  const bool qwen35_moe = c.family == Family::Qwen35Moe && c.is_moe() && moe.first_dense == 0 && moe.freq == 1 &&
                          moe.dense_layers.empty() && moe.shared_ffn > 0 && moe.shared_gate && !moe.router_bias &&
                          !moe.router_correction_bias && !moe.expert_bias && !moe.scale_input;
  const bool qwen35_graph = ((c.family == Family::Qwen35 && !c.is_moe()) || qwen35_moe) && m.recurrent && c.linear.full_interval > 0 && !m.iswa &&
                            m.caches.size() == 1 && (w.llamacpp_graph == LlamaCppGraph::EmbdInput || w.llamacpp_graph == LlamaCppGraph::KvRot) && w.flash_attention &&
                            m.n_seq > 0 && n % m.n_seq == 0 && m.rs_cells >= m.n_seq && (no_gpu || trunk_on_gpus || m.n_seq == 1);
  const bool graph = ((c.family == Family::Llama || c.family == Family::Mistral || c.family == Family::Qwen2 ||
                       c.family == Family::Qwen3 || c.family == Family::Qwen3Moe || c.family == Family::Mixtral || iswa_graph) &&
                      !c.mla.enabled && !m.recurrent && !m.dsa && (iswa_graph || (!m.iswa && m.caches.size() == 1)) &&
                      (c.vision.kind == VisionKind::None || c.family == Family::Gemma3 || mrope) && (!metal || no_gpu)) ||
                     (qwen35_graph && (!metal || no_gpu));
  b.compute_tokens = n;
  b.sched_reserve = llamacpp_embd_input(w.llamacpp_graph);
  // The outputs the worst-case graph is reserved with: llama_context::sched_reserve,
  // n_outputs_pp = min(n_tokens, cparams.n_outputs_max), the context parameter's default n_batch;
  // llama-server (PR #23861 "llama: limit max outputs of llama_context", 2026-05-29, and its
  // speculative fix: server_n_outputs_max = min(n_batch, n_parallel · (1 + the draft's n_max)))
  // sets it to its slots, no draft model here.
  // A build before PR #23764 (--llamacpp-graph other than 2026-05) also predates PR #23861: its
  // server reserved the whole ubatch's outputs, as every caller did.
  const bool limited = w.llamacpp_caller == LlamaCppCaller::Server && w.llamacpp_graph == LlamaCppGraph::F16Mask;
  const i64 n_outputs = limited ? std::min(n, m.n_seq) : n;
  b.compute_outputs = n_outputs;
  // Each stream's tokens a multiple of 64 keeps GGML_KQ_MASK_PAD's rows out of the masks (and
  // graph_reserve's rounding of n_tokens up to a multiple of the streams).
  if (graph && n % (64 * std::max<i64>(m.n_stream, 1)) == 0) {
    // The reserved graph through ggml's allocator (engine_llamacpp_graph.cpp): the host's inputs
    // and token embeddings always; each device's buffer where the layers are followed.
    LlamaCppGraphShape shape;
    shape.d_model = c.d_model, shape.n_heads = c.n_heads, shape.n_kv_heads = c.n_kv_heads, shape.head_dim = c.head_dim;
    shape.d_ff = c.d_ff, shape.n_layer = n_layer_all, shape.vocab = c.vocab;
    shape.tokens = n, shape.n_kv = m.caches.front().cells, shape.outputs = n_outputs, shape.n_stream = m.n_stream;
    shape.qk_norm = c.norm_qk, shape.qkv_bias = c.bias_qkv, shape.graph = w.llamacpp_graph;
    shape.pos_per_token = mrope || qwen35_graph ? 4 : 1;
    shape.flash = w.flash_attention;
    // ref: llama_kv_cache::llama_kv_cache (PR #21038): attn_rot_k = ggml_is_quantized(type_k) &&
    // n_embd_head_k % 64 == 0 with one head size in every layer (attn_rot_v the same for V),
    // unless LLAMA_ATTN_ROT_DISABLE; build_input_k_rot's matrix is the largest power of two that
    // divides the head size, build_input_v_rot's 64 wide.
    if (llamacpp_rotates_kv(w.llamacpp_graph) && kv_block_quantized(w.kv_dtype) && c.head_dim > 0 &&
        c.head_dim % 64 == 0) {
      shape.rot_k = 64;
      while (c.head_dim % (shape.rot_k * 2) == 0) shape.rot_k *= 2;
      shape.rot_v = 64;
    }
    if (qwen35_graph) {
      // The trunk's layers (a kept MTP block is not in this graph); hparams.is_recurrent(il).
      shape.n_layer = c.n_layers;
      for (i64 il = 0; il < c.n_layers; ++il) shape.layer_linear.push_back(c.layer_is_linear(il));
      const LinearAttnConfig& a = c.linear;
      shape.gdn_k_heads = a.k_heads, shape.gdn_v_heads = a.v_heads, shape.gdn_k_dim = a.k_dim, shape.gdn_v_dim = a.v_dim;
      shape.gdn_conv = a.conv_kernel;
      // ref: llama_context::sched_reserve: graph_reserve(n_tokens, n_seqs = n_seq_max, ...); the
      // recurrent memory's cells, one a sequence.
      shape.n_seqs = m.n_seq, shape.n_rs = m.rs_cells;
      if (qwen35_moe) shape.shexp_ffn = moe.shared_ffn;
    }
    // A MoE decoder is followed where every layer is routed as build_moe_ffn's softmax path with
    // the weights renormalized (qwen3moe passes norm_w = true whatever norm_topk_prob says; so
    // does llama's MoE branch, Mixtral) and no shared expert, router or expert bias.
    // gpt-oss's: biased router and experts, SOFTMAX_WEIGHT gating (moe_oai).
    const MoeConfig& e = c.moe;
    const bool moe_layout = c.is_moe() && e.first_dense == 0 && e.freq == 1 && e.dense_layers.empty() && e.shared_ffn == 0 &&
                            !e.router_correction_bias && !e.scale_input;
    const bool moe_followed = moe_layout && (gpt_oss ? e.router_bias && e.expert_bias : !e.router_bias && !e.expert_bias);
    if (c.is_moe()) shape.n_expert = e.num_experts, shape.n_expert_used = e.top_k, shape.expert_ffn = e.expert_ffn;
    shape.moe_oai = gpt_oss;
    shape.o_bias = gpt_oss && c.bias_o, shape.sinks = gpt_oss && c.attn_sinks;
    // Gemma: embeddings and Q scaled, the sandwich norms; Gemma 2 soft-caps (its GGUF's
    // attn_logit_softcapping and final_logit_softcapping, which Gemma 3's lack).
    shape.embd_scale = shape.q_scale = shape.post_norms = gemma;
    shape.attn_softcap = shape.final_softcap = c.family == Family::Gemma2;
    if (iswa_graph) {
      shape.n_kv_swa = m.caches[1].cells;
      for (const int ci : m.layer_cache) shape.layer_swa.push_back(ci == 1);
    }
    shape.layers = (!c.is_moe() || moe_followed || qwen35_moe) && (!c.bias_o || gpt_oss) && (!c.attn_sinks || gpt_oss) &&
                   !c.bias_ffn && (!c.attn_out_gate || qwen35_graph) && c.norm_pre && (!c.norm_sandwich || gemma) && !c.norm_qk_full &&
                   !c.parallel_block && c.norm_final && (!gemma || c.norm_sandwich);
    if (shape.layers) {
      // Where each tensor is, and (for those on the CPU, whose ops the scheduler offloads with a
      // copy of the weight) its bytes as stored: --n-gpu-layers' span, the output layer's device,
      // --n-cpu-moe's experts.
      shape.n_devices = no_gpu ? 0 : static_cast<int>(b.devices.size());
      shape.layer_device = b.layer_device;
      shape.output_device = static_cast<int>(out_dev);
      shape.experts_cpu_count = std::min(w.n_cpu_moe, n_layer_all);
      shape.layer_weights = std::move(layer_weights);
      if (qwen35_graph) {  // the trunk's
        shape.layer_device.resize(static_cast<size_t>(shape.n_layer));
        shape.layer_weights.resize(static_cast<size_t>(shape.n_layer));
      }
      shape.token_embd = token_embd, shape.output = output_weight, shape.output_norm = output_norm;
      // The cache's bytes per cell of a layer, K and V (their types).
      const LlamaCppCache& cache = m.caches.front();
      if (cache.cells > 0 && cache.layers > 0) {
        shape.k_cell_bytes = cache.k_bytes / (cache.cells * cache.layers);
        shape.v_cell_bytes = cache.v_bytes / (cache.cells * cache.layers);
      }
    }
    // Without the layers only a full offload's host buffer is known (the inputs copied to the
    // GPU); with layers on the CPU the host computes them.
    const bool host_known = shape.layers || (b.offloaded == n_layer_all + 1 && !iswa_graph && !no_gpu);
    const auto compute = host_known ? llamacpp_graph_compute(shape) : std::optional<LlamaCppCompute>(LlamaCppCompute{});
    if (!compute) return memory_overflow();
    b.host_compute_bytes = compute->host_bytes;
    if (shape.layers) {
      for (size_t i = 0; i < b.devices.size() && i < compute->devices.size(); ++i) b.devices[i].compute_bytes = compute->devices[i];
      b.output_compute_bytes = out_dev >= 0 ? compute->devices[static_cast<size_t>(out_dev)] : 0;
      b.compute_layers = true;
      // ref: llama_context::sched_reserve (before it, the constructor): the graph reserved again
      // for one token (n_outputs 1), whose split count it prints beside the ubatch's ("bs=1");
      // Qwen3.5's for one token of each of its n_seqs sequences (graph_reserve(n_seqs, n_seqs, n_seqs)).
      LlamaCppGraphShape one = shape;
      one.tokens = one.outputs = qwen35_graph ? shape.n_seqs : 1;
      const auto tg = llamacpp_graph_compute(one);
      if (!tg) return memory_overflow();
      b.splits_pp = compute->splits, b.splits_tg = tg->splits, b.graph_nodes = compute->nodes;
    } else if (w.flash_attention && w.n_cpu_moe == 0 && b.offloaded == n_layer_all + 1) {
      // A split over several devices, or a MoE decoder other than the above (shared experts,
      // dense layers, biases), is not followed: the output
      // device's head, lm_head's input and the logits, every other tensor freed, where
      // no layer can beat it: every tensor of one layer, with the device's copies of the inputs
      // (embeddings, positions, the mask and its f16 cast), stays below it. With --n-cpu-moe the
      // scheduler runs the CPU's expert matmuls of a large batch on the GPU with copies of their
      // weights in its compute buffer (op offload), so the device is not followed.
      const i64 n_kv = m.caches.front().cells, d = c.d_model;
      const Checked out = Checked(n_outputs) * c.vocab * 4 + Checked(n_outputs) * d * 4;
      const i64 hd = c.head_dim, H = c.n_heads, K = c.n_kv_heads;
      Checked layer = Checked(n) * 4 * (8 * d + 3 * H * hd + 4 * K * hd);
      if (c.is_moe())
        layer += Checked(n) * 4 * (3 * c.moe.num_experts + c.moe.top_k * (4 * c.moe.expert_ffn + d) + 4 * c.moe.shared_ffn);
      else
        layer += Checked(n) * 4 * 4 * c.d_ff;
      layer += Checked(n) * d * 4 + Checked(n) * 4 + Checked(n_kv) * n * 4 + Checked(n_kv) * n * 2;
      // A quantized cache's rotations: q, k, v and the output rotated (new tensors), the matrices.
      if (shape.rot_k > 0 || shape.rot_v > 0)
        layer += Checked(n) * 4 * (2 * H * hd + 2 * K * hd) + Checked(shape.rot_k) * shape.rot_k * 4 + Checked(shape.rot_v) * shape.rot_v * 4;
      if (!out.ok() || !layer.ok()) return memory_overflow();
      if (layer.value() <= out.value()) b.output_compute_bytes = out.value();
    }
  }
  return b;
}

std::vector<std::string> llamacpp_compute_log(const LlamaCppBuffers& b) {
  std::vector<std::string> out;
  char buf[160];
  auto mib = [](i64 v) { return static_cast<double>(v) / 1048576.0; };
  // ref: llama_context::sched_reserve's (before it, llama_context::llama_context's) "%10s compute
  // buffer size = %8.2f MiB" lines.
  const char* who = b.sched_reserve ? "sched_reserve" : "llama_context";
  for (const LlamaCppDevice& d : b.devices)
    if (b.compute_on(d)) {
      std::snprintf(buf, sizeof buf, "%s: %10s compute buffer size = %8.2f MiB", who, d.name.c_str(), mib(b.compute_of(d)));
      out.emplace_back(buf);
    }
  if (b.host_compute_bytes > 0) {
    std::snprintf(buf, sizeof buf, "%s: %10s compute buffer size = %8.2f MiB", who, b.host_buffer.c_str(), mib(b.host_compute_bytes));
    out.emplace_back(buf);
  }
  // ref: llama_context::sched_reserve's "graph splits = %d" (the same for both graphs) or
  // "graph splits = %d (with bs=%d), %d (with bs=1)".
  if (b.splits_pp > 0) {
    if (b.splits_pp == b.splits_tg)
      std::snprintf(buf, sizeof buf, "%s: graph splits = %d", who, b.splits_pp);
    else
      std::snprintf(buf, sizeof buf, "%s: graph splits = %d (with bs=%lld), %d (with bs=1)", who, b.splits_pp,
                    static_cast<long long>(b.compute_tokens), b.splits_tg);
    out.emplace_back(buf);
  }
  return out;
}

std::vector<std::string> llamacpp_buffer_log(const LlamaCppBuffers& b) {
  std::vector<std::string> out;
  char buf[160];
  auto mib = [](i64 v) { return static_cast<double>(v) / 1048576.0; };
  // ref: llama_model_base::load_tensors's LLAMA_LOG_INFO lines (it counts min(ngl, n_layer_all)
  // layers, the output layer first, whatever the split); before PR #18148 the repeating layers
  // came first, min(ngl, n_layer) of them, and the output layer's line only for ngl > n_layer.
  const i64 n_gpu = std::min(b.ngl, b.n_layer);
  if (b.output_first && n_gpu > 0) out.emplace_back("load_tensors: offloading output layer to GPU");
  std::snprintf(buf, sizeof buf, "load_tensors: offloading %lld repeating layers to GPU",
                static_cast<long long>(b.output_first && n_gpu > 0 ? n_gpu - 1 : n_gpu));
  out.emplace_back(buf);
  if (!b.output_first && b.ngl > b.n_layer) out.emplace_back("load_tensors: offloading output layer to GPU");
  // Without a GPU the CPU is the device the layers are "offloaded" to (the same lines).
  std::snprintf(buf, sizeof buf, "load_tensors: offloaded %lld/%lld layers to GPU",
                static_cast<long long>(b.no_gpu ? std::min(b.ngl, b.n_layer + 1) : b.offloaded),
                static_cast<long long>(b.n_layer + 1));
  out.emplace_back(buf);
  if (!b.cpu_span) {
    std::snprintf(buf, sizeof buf, "load_tensors: %12s model buffer size = %8.2f MiB", "CPU_Mapped", mib(b.cpu_mapped_bytes));
    out.emplace_back(buf);
  }
  // A discrete GPU's buffer holds its tensors (copied, aligned); Metal maps the file range from
  // its first tensor to its last, which depends on the GGUF's tensor order: not printed. A device
  // without tensors has no buffer.
  for (const LlamaCppDevice& d : b.devices)
    if ((d.count > 0 || d.output) && d.name != "Metal") {
      std::snprintf(buf, sizeof buf, "load_tensors: %12s model buffer size = %8.2f MiB", d.name.c_str(), mib(d.model_bytes));
      out.emplace_back(buf);
    }
  // ref: llama_context::llama_context's "output buffer size" line.
  std::snprintf(buf, sizeof buf, "llama_context: %10s  output buffer size = %8.2f MiB", b.output_buffer.c_str(),
                mib(b.output_buffer_bytes));
  out.emplace_back(buf);
  return out;
}

std::string llamacpp_layers_text(const LlamaCppDevice& d, Lang l) {
  return (d.count > 0 ? printf_text(tr(Str::fx_ll_layers, l), std::to_string(d.first).c_str(), std::to_string(d.first + d.count - 1).c_str())
                      : std::string(tr(Str::fx_ll_no_layers, l))) +
         (d.output ? tr(Str::fx_ll_output, l) : "");
}

std::vector<std::string> llamacpp_buffer_notes(const LlamaCppBuffers& b, ByteUnit unit, Lang l) {
  std::vector<std::string> out;
  if (b.devices.size() > 1)
    for (const LlamaCppDevice& d : b.devices)
      out.push_back(row_text(Str::efx_ll_device, {d.name, llamacpp_layers_text(d, l), format_bytes(d.model_bytes, unit),
                                                  format_bytes(d.cache_bytes, unit)}, l));
  if (b.cpu_span) out.push_back(row_text(Str::efx_ll_cpu_span, {format_bytes(b.cpu_mapped_bytes, unit)}, l));
  if (b.cpu_cache_bytes > 0) out.push_back(row_text(Str::efx_ll_cpu_cache, {format_bytes(b.cpu_cache_bytes, unit)}, l));
  // The compute buffers left out: every device's but the output one's where its head sets the peak.
  std::string missing;
  for (const LlamaCppDevice& d : b.devices)
    if ((d.count > 0 || d.output) && !b.compute_on(d)) missing += (missing.empty() ? "" : ", ") + d.name;
  if (b.host_compute_bytes == 0) missing += (missing.empty() ? "" : ", ") + b.host_buffer;
  if (!missing.empty()) out.push_back(row_text(Str::efx_ll_compute, {missing}, l));
  return out;
}

std::vector<std::string> llamacpp_log(const LlamaCppMemory& m, KvDtype t, const LlamaCppBuffers* b) {
  std::vector<std::string> out;
  const char* type = llamacpp_cache_type(t);
  if (!type) return out;
  char buf[256];
  auto mib = [](i64 v) { return static_cast<float>(v) / (1024.0f * 1024.0f); };
  // ref: llama_kv_cache::llama_kv_cache and llama_memory_recurrent: one buffer per buffer type
  // holding layers, in the order of their names (ggml_backend_buft_comparator: strcmp), each
  // printed as "%10s KV buffer size = %8.2f MiB" ("RS" for the recurrent state).
  auto buffers = [&](const char* who, const char* what, auto bytes_of_layer) {
    if (!b || b->layer_device.size() != m.layer_bytes.size()) return;
    std::vector<std::pair<std::string, i64>> by_name;
    for (size_t il = 0; il < m.layer_bytes.size(); ++il) {
      const i64 bytes = bytes_of_layer(il);
      if (bytes <= 0) continue;
      const int d = b->layer_device[il];
      const std::string name = d < 0 ? std::string("CPU") : b->devices[static_cast<size_t>(d)].name;
      auto it = std::find_if(by_name.begin(), by_name.end(), [&](const auto& p) { return p.first == name; });
      if (it == by_name.end()) by_name.emplace_back(name, bytes);
      else it->second += bytes;
    }
    std::sort(by_name.begin(), by_name.end());
    for (const auto& [name, bytes] : by_name) {
      std::snprintf(buf, sizeof buf, "%s: %10s %s buffer size = %8.2f MiB", who, name.c_str(), what, static_cast<double>(bytes) / 1048576.0);
      out.emplace_back(buf);
    }
  };
  // ref: llama_kv_cache::llama_kv_cache's LLAMA_LOG_INFO and llama_kv_cache_iswa's "creating" lines.
  for (const LlamaCppCache& c : m.caches) {
    if (m.iswa) {
      std::snprintf(buf, sizeof buf, "llama_kv_cache_iswa: creating %s KV cache, size = %lld cells",
                    c.swa ? "    SWA" : "non-SWA", static_cast<long long>(c.cells));
      out.emplace_back(buf);
    }
    if (m.dsa) {  // ref: llama_kv_cache_dsa::llama_kv_cache_dsa's two LLAMA_LOG_INFO lines
      std::snprintf(buf, sizeof buf, "llama_kv_cache_dsa: creating %s KV cache, size = %lld cells", c.indexer ? "indexer" : "main",
                    static_cast<long long>(c.cells));
      out.emplace_back(buf);
    }
    const int ci = c.swa ? 1 : 0;
    const auto index_of = [&](size_t il) { return il < m.layer_indexer.size() ? m.layer_indexer[il] : i64{0}; };
    if (c.indexer) buffers("llama_kv_cache", "KV", index_of);
    else buffers("llama_kv_cache", "KV", [&](size_t il) { return m.layer_cache[il] == ci ? m.layer_kv[il] - index_of(il) : i64{0}; });
    std::snprintf(buf, sizeof buf,
                  "llama_kv_cache: size = %7.2f MiB (%6lld cells, %3lld layers, %2lld/%lld seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB",
                  static_cast<double>(mib(c.k_bytes + c.v_bytes)), static_cast<long long>(c.cells),
                  static_cast<long long>(c.layers), static_cast<long long>(m.n_seq), static_cast<long long>(m.n_stream), type,
                  static_cast<double>(mib(c.k_bytes)), type, static_cast<double>(mib(c.v_bytes)));
    out.emplace_back(buf);
  }
  if (m.recurrent) {  // ref: llama_memory_recurrent::llama_memory_recurrent's LLAMA_LOG_INFO (n_rs_seq 0)
    buffers("llama_memory_recurrent", "RS", [&](size_t il) { return m.layer_bytes[il] - m.layer_kv[il]; });
    char seqs[48];
    if (m.rs_seq)
      std::snprintf(seqs, sizeof seqs, "%2lld seqs %2d rs_seq", static_cast<long long>(m.n_seq), 0);
    else
      std::snprintf(seqs, sizeof seqs, "%2lld seqs", static_cast<long long>(m.n_seq));
    std::snprintf(buf, sizeof buf, "llama_memory_recurrent: size = %7.2f MiB (%6lld cells, %3lld layers, %s), R (f32): %7.2f MiB, S (f32): %7.2f MiB",
                  static_cast<double>(mib(m.r_bytes + m.s_bytes)), static_cast<long long>(m.rs_cells),
                  static_cast<long long>(m.rs_layers), seqs, static_cast<double>(mib(m.r_bytes)), static_cast<double>(mib(m.s_bytes)));
    out.emplace_back(buf);
  }
  // The compute buffers, reserved after the caches.
  if (b)
    for (std::string& line : llamacpp_compute_log(*b)) out.push_back(std::move(line));
  return out;
}

}  // namespace llmsize::core

// model.generate() under Transformers as torch.cuda.max_memory_allocated() measures it
// (engine_transformers.hpp: the versions and files followed).
#include "engine_transformers.hpp"

#include <algorithm>

#include "format.hpp"
#include "torch_allocator.hpp"

namespace llmsize::core {

namespace {

constexpr i64 kMiB = i64{1} << 20;
constexpr double kGiBd = 1073741824.0;

// The checkpoint's load (the weights' part of the profile), the same for every seq and batch.
struct Load {
  i64 raw = 0, allocated = 0, large = 0;
};

// A checkpoint quantized by GPTQ (auto_gptq) or AWQ (autoawq): every Linear of the layers packed,
// the rest (embeddings, lm_head, norms, biases) in fp16.
struct Packing {
  WeightFormat format = WeightFormat::F16;
  i64 bits = 16, group = 128;
  bool packed() const { return bits < 16; }
};

bool quantized_linear(const Tensor& t) {
  switch (t.role) {
    case Role::AttnQ: case Role::AttnK: case Role::AttnV: case Role::AttnO:
    case Role::FfnGate: case Role::FfnUp: case Role::FfnDown: return t.is_matrix();
    default: return false;
  }
}

Load load_weights(const Inventory& inv, i64 dt, const Packing& q) {
  // Each safetensors file's tensors in sorted key order (safe_open keys()), each moved to the GPU as
  // it is read (accelerate set_module_tensor_to_device). One file's order is taken: where a
  // checkpoint's shards break the order, tensors of 1 to 10 MiB may pair differently in their
  // 20 MiB segments.
  std::vector<std::pair<std::string, i64>> tensors;
  auto add = [&](const Tensor& t, i64 layer) {
    std::string name = t.name;
    if (const auto at = name.find("{i}"); at != std::string::npos) name.replace(at, 3, std::to_string(layer));
    if (!q.packed() || !quantized_linear(t)) {
      tensors.emplace_back(std::move(name), t.numel() * dt);
      return;
    }
    // auto_gptq QuantLinear: qweight (in·bits/32, out) int32, qzeros (in/group, out·bits/32)
    // int32, scales (in/group, out) fp16, g_idx (in) int32; autoawq WQLinear_GEMM: qweight
    // (in, out·bits/32) int32, qzeros and scales the same, no g_idx.
    const std::string stem = name.substr(0, name.size() - std::string_view(".weight").size());
    const i64 in = t.rows, out = t.cols, groups = in / q.group;
    tensors.emplace_back(stem + ".qweight", in * out * q.bits / 8);
    tensors.emplace_back(stem + ".qzeros", groups * out * q.bits / 8);
    tensors.emplace_back(stem + ".scales", groups * out * 2);
    if (q.format != WeightFormat::AwqInt4) tensors.emplace_back(stem + ".g_idx", in * 4);
  };
  for (const Tensor& t : inv.global) add(t, 0);
  for (const LayerKind& k : inv.kinds)
    for (const i64 layer : k.layers)
      for (const Tensor& t : k.tensors) add(t, layer);
  std::sort(tensors.begin(), tensors.end());
  LoadAllocator alloc;
  Load l;
  for (const auto& [name, bytes] : tensors) {
    l.raw += bytes;
    if (allocator_round(bytes) > kMiB) ++l.large;
    alloc.malloc(bytes);
  }
  l.allocated = alloc.allocated();
  return l;
}

Packing packing_of(const Workload& w) {
  Packing q;
  q.format = w.weights;
  q.group = w.group_size;
  q.bits = w.weights == WeightFormat::GptqInt8 ? 8 : w.weights == WeightFormat::GptqInt4 || w.weights == WeightFormat::AwqInt4 ? 4 : 16;
  return q;
}

Result<TransformersMemory> profile(const ModelConfig& c, const Inventory& inv, const Workload& w, const Gpu& gpu, const Load* load);

}  // namespace

Result<TransformersMemory> transformers_memory(const ModelConfig& c, const Inventory& inv, const Workload& w, const Gpu& gpu) {
  return profile(c, inv, w, gpu, nullptr);
}

TransformersFit transformers_fit(const ModelConfig& c, const Inventory& inv, const Workload& w, const Gpu& gpu, i64 room,
                                 const TransformersMemory& at) {
  TransformersFit f;
  const Load load{at.weights_raw_bytes, at.weights_bytes, at.large_tensors};
  auto fits = [&](i64 seq, i64 batch) {
    Workload x = w;
    x.seq = seq;
    x.batch = batch;
    const auto m = profile(c, inv, x, gpu, &load);
    return m.ok() && m->peak_bytes <= room;
  };
  // The largest value in [lo, hi] where fits holds (it holds below any value where it holds), or lo − 1.
  auto largest = [](i64 lo, i64 hi, const auto& ok) {
    if (!ok(lo)) return lo - 1;
    while (lo < hi) {
      const i64 mid = lo + (hi - lo + 1) / 2;
      if (ok(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const i64 seq_lo = w.max_new_tokens + 1;  // a prompt of one token
  if (seq_lo <= c.max_positions) f.max_seq = std::max<i64>(0, largest(seq_lo, c.max_positions, [&](i64 s) { return fits(s, w.batch); }));
  f.max_batch = std::max<i64>(0, largest(1, i64{1} << 20, [&](i64 b) { return fits(w.seq, b); }));
  return f;
}

namespace {

Result<TransformersMemory> profile(const ModelConfig& c, const Inventory& inv, const Workload& w, const Gpu& gpu, const Load* load) {
  if (!hf_llama_decoder(c))
    return issue_row("rt", Str::eng_tf_model, std::string(family_id(c.family)));
  // device_map="auto" over several GPUs puts consecutive layers on each (--pp N on N GPUs) and runs
  // them in turn; tensor or data parallelism is not what it does.
  if (w.tp != 1 || w.gpus != w.pp || w.pp > c.n_layers) return issue_row("gpus", Str::eng_tf_gpus);
  // from_pretrained(torch_dtype): the checkpoint's 16-bit weights, or a GPTQ / AWQ checkpoint (its
  // kernels take fp16); DynamicCache keeps K and V in the activations' dtype.
  const Packing q = packing_of(w);
  const bool bf16 = w.weights == WeightFormat::BF16 && w.dtype == ComputeDtype::BF16;
  const bool fp16 = (w.weights == WeightFormat::F16 || q.packed()) && w.dtype == ComputeDtype::F16;
  if (!bf16 && !fp16) return issue_row("w", Str::eng_tf_weights, std::string(to_string(w.weights)), std::string(to_string(w.dtype)));
  if (w.kv_dtype != (bf16 ? KvDtype::BF16 : KvDtype::F16)) return issue_row("kvt", Str::eng_tf_kv, std::string(to_string(w.dtype)));
  if (q.packed())  // the packed layout: whole groups of rows, whole int32 words of columns
    for (const LayerKind& k : inv.kinds)
      for (const Tensor& t : k.tensors)
        if (quantized_linear(t) && (t.rows % q.group != 0 || (t.cols * q.bits) % 32 != 0))
          return issue_row("g", Str::eng_tf_group, std::string(to_string(w.weights)), with_commas(q.group), with_commas(t.rows), with_commas(t.cols));
  // PyTorch's CUDA caching allocator is what max_memory_allocated() reads.
  if (gpu.cuda_cc <= 0) return issue_row("gpu", Str::eng_tf_cuda, gpu.name);
  const AttnImpl impl = w.attn_impl;
  // flash_attention_2: flash-attn 2 runs on sm80 and newer, head dimensions up to 256.
  if (impl == AttnImpl::FlashAttention2 && (gpu.cuda_cc < 8.0 || c.head_dim > 256)) return issue_row("gpu", Str::eng_tf_gpu, gpu.name);
  if (impl == AttnImpl::Sdpa) {
    // PyTorch 2.3's sdp_utils.cpp: the flash (sm80+) and memory-efficient kernels keep no scores;
    // the math kernel, taken where neither can (head dimensions not a multiple of 8, or above 256
    // for both), does.
    if (c.head_dim % 8 != 0 || c.head_dim > 256) return issue_row("attn", Str::eng_tf_sdpa_math, with_commas(c.head_dim));
    // Qwen2Model._update_causal_mask: AttentionMaskConverter._ignore_causal_mask_sdpa drops the mask
    // (is_causal instead) only while the keys are fewer than the sliding window; past it a 4D mask
    // of B · prompt · keys is built.
    if (c.sliding_window > 0 && w.seq > c.sliding_window)
      return issue_row("attn", Str::eng_tf_sdpa_window, with_commas(c.sliding_window), with_commas(w.seq));
  }
  if (w.prefill_chunk != 0) return issue_row("chunk", Str::eng_tf_chunk);
  if (w.max_new_tokens >= w.seq)
    return issue_row("mnt", Str::eng_tf_mnt, with_commas(w.max_new_tokens), with_commas(w.seq));

  TransformersMemory m;
  m.gpus = w.pp;
  m.batch = w.batch;
  m.new_tokens = w.max_new_tokens;
  m.prompt = w.seq - w.max_new_tokens;
  m.end_tokens = m.prompt + m.new_tokens - 1;
  const i64 dt = dtype_bytes(w.dtype), B = w.batch, P = m.prompt, T = m.end_tokens;
  const i64 C = c.d_model, I = c.d_ff, L = c.n_layers, hd = c.head_dim, qd = c.n_heads * hd, kvd = c.n_kv_heads * hd;
  m.attn_impl = impl;
  m.layers = L;
  m.kv_width = kvd;
  m.dtype_bytes = dt;

  // --- The load (load_weights).
  const Load l = load ? *load : load_weights(inv, dt, q);
  m.weights_raw_bytes = l.raw;
  m.large_tensors = l.large;
  m.weights_bytes = l.allocated;
  m.segment_slack_bytes = m.weights_bytes - m.weights_raw_bytes;
  m.cublas_bytes = kCublasWorkspace * m.gpus;  // one handle per device
  // GPTQ 4-bit runs auto_gptq's exllama kernels (transformers' GPTQConfig default, version 1).
  // auto_gptq modeling/_utils.py post_init (from exllama_post_init) allocates on each device temp_dq,
  // (1, max qweight.numel() · 8) fp16 = the largest quantized matrix's in · out, where prefill
  // dequantizes a weight before cuBLAS, and temp_state, (max_input_len, max_inner_outer_dim) fp16,
  // which without act-order (desc_act false) is (1, 1).
  if (w.weights == WeightFormat::GptqInt4) {
    i64 largest = 0;
    for (const LayerKind& k : inv.kinds)
      for (const Tensor& t : k.tensors)
        if (quantized_linear(t)) largest = std::max(largest, t.rows * t.cols);
    m.kernel_buffer_bytes = (allocator_round(largest * 2) + allocator_round(2)) * m.gpus;
  }

  // --- The prompt's forward. DynamicCache.update appends each layer's K (after RoPE) and V (the
  // v_proj output) as they are: one allocation each.
  const Checked N = Checked(B) * P;
  auto cache = [&](Checked tokens) { return allocator_round(tokens * kvd * dt) * (2 * L); };
  const Checked kv_prompt = cache(N);
  // Held through the whole forward: input_ids and attention_mask (B, P) int64 from the tokenizer,
  // position_ids (B, P) and cache_position (P) int64 (prepare_inputs_for_generation), and the
  // rotary cos and sin (1, P, head_dim) Qwen2Model.forward makes once for every layer.
  // Over several GPUs (accelerate's AlignDevicesHook), each layer call on another GPU gets copies of
  // position_ids, cache_position, cos and sin there; inputs_embeds stays on the first.
  const Checked positions = allocator_round(N * 8) + allocator_round(Checked(P) * 8) + allocator_round(Checked(P) * hd * dt) * 2;
  const Checked ids = allocator_round(N * 8) * 2 + positions + positions * (m.gpus - 1);
  const Checked hidden = allocator_round(N * C * dt);
  // Each GPU peaks in its last layer (the cache is complete there); what is summed over the GPUs
  // is a hidden state fewer on each GPU after the first (inputs_embeds), the rest the same.
  // The MLP, at act_fn(gate_proj(x)) * up_proj(x): silu(gate), up and their product, beside four
  // hidden states: inputs_embeds (Qwen2Model.forward keeps it), the layer's input (the model's loop
  // variable), the residual after attention and the normed input (one fewer in a one-layer model,
  // whose input is inputs_embeds).
  const i64 g = m.gpus;
  const Checked mlp = allocator_round(N * I * dt) * (3 * g) + hidden * ((L > 1 ? 4 : 3) + 3 * (g - 1));
  // The attention: three hidden states (inputs_embeds, the input, the normed input), q after RoPE,
  // repeat_kv's K and V at every query head (none when there are as many KV heads: repeat_kv
  // returns its input), then by implementation:
  //   flash_attention_2 (flash_attn_func): the output and the fp32 softmax_lse (B, heads, P);
  //   sdpa (Qwen2SdpaAttention, is_causal): the same from the fused kernel, and the output's
  //     transpose(1, 2).contiguous() copy;
  //   eager (Qwen2Attention): at softmax(dtype=float32).to(dtype), the scores q·kᵀ/√d + mask in the
  //     model's dtype, their fp32 softmax and its cast back (B, heads, P, P each).
  // Eager also keeps the 4D causal mask (B, 1, P, P) in the model's dtype through the whole forward
  // (_prepare_4d_causal_attention_mask_with_cache_position, cloned for the attention mask).
  const Checked repeated = kvd != qd ? allocator_round(N * qd * dt) * 2 : Checked();
  const Checked scores = Checked(B) * c.n_heads * P * P;
  const Checked eager_mask = impl == AttnImpl::Eager ? allocator_round(N * P * dt) : Checked();
  Checked kernel = allocator_round(N * qd * dt) + allocator_round(N * c.n_heads * 4);  // flash: out and the logsumexp
  if (impl == AttnImpl::Sdpa) kernel += allocator_round(N * qd * dt);
  if (impl == AttnImpl::Eager) kernel = allocator_round(scores * dt) * 2 + allocator_round(scores * 4);
  const Checked attn = hidden * ((L > 1 ? 3 : 2) + 2 * (g - 1)) + (allocator_round(N * qd * dt) + repeated + kernel) * g;
  if (!mlp.ok() || !attn.ok()) return memory_overflow("seq");  // before comparing them
  m.prefill_at_mlp = mlp.value() >= attn.value();
  const Checked prefill = (m.prefill_at_mlp ? mlp : attn) + ids + eager_mask * g;
  const Checked prefill_peak = Checked(m.weights_bytes) + m.kernel_buffer_bytes + m.cublas_bytes + kv_prompt + prefill;

  // --- The last decode step (prompt + new − 1 tokens cached after it). In the last layer,
  // torch.cat makes the grown K while the old one is live, then V; repeat_kv then copies both to
  // every query head. After the layers, the logits of one position (num_logits_to_keep = 1), their
  // clone and its fp32 copy. input_ids and attention_mask have grown to (B, T) int64.
  const Checked NT = Checked(B) * T;
  const Checked kv_end = cache(NT);
  const Checked decode_ids = allocator_round(NT * 8) * 2;
  Checked grow = kvd != qd ? allocator_round(NT * qd * dt) * 2 : allocator_round(Checked(B) * (T - 1) * kvd * dt);
  // Eager: the step's scores (B, heads, 1, T) as above, and its mask (B, 1, 1, T).
  if (impl == AttnImpl::Eager) grow += allocator_round(NT * c.n_heads * dt) * 2 + allocator_round(NT * c.n_heads * 4) + allocator_round(NT * dt);
  const Checked logits = allocator_round(Checked(B) * c.vocab * dt) * 2 + allocator_round(Checked(B) * c.vocab * 4);
  if (!grow.ok() || !logits.ok()) return memory_overflow("seq");
  const Checked decode = (grow.value() >= logits.value() ? grow * g : grow * (g - 1) + logits) + decode_ids;
  const Checked decode_peak = m.new_tokens > 1 ? Checked(m.weights_bytes) + m.kernel_buffer_bytes + m.cublas_bytes + kv_end + decode : Checked();

  for (const Checked& x : {kv_prompt, prefill, prefill_peak, kv_end, decode, decode_peak})
    if (!x.ok()) return memory_overflow("seq");
  m.kv_prompt_bytes = kv_prompt.value();
  m.prefill_bytes = prefill.value();
  m.prefill_peak_bytes = prefill_peak.value();
  m.kv_end_bytes = kv_end.value();
  m.decode_bytes = m.new_tokens > 1 ? decode.value() : 0;
  m.decode_peak_bytes = decode_peak.value();
  m.peak_in_prefill = m.prefill_peak_bytes >= m.decode_peak_bytes;
  m.peak_bytes = std::max(m.prefill_peak_bytes, m.decode_peak_bytes);
  return m;
}

}  // namespace

std::string transformers_settings(const TransformersMemory& m, std::string_view sep) {
  std::string out = "prompt " + with_commas(m.prompt) + std::string(sep) + "max_new_tokens " + with_commas(m.new_tokens) +
                    std::string(sep) + std::string(to_string(m.attn_impl));
  if (m.gpus > 1) out += std::string(sep) + "device_map=\"auto\" × " + with_commas(m.gpus);
  return out;
}

std::vector<std::string> transformers_log(const TransformersMemory& m) {
  const std::string call = m.gpus == 1 ? "torch.cuda.max_memory_allocated()"
                                       : "sum(torch.cuda.max_memory_allocated(i) for i in range(" + std::to_string(m.gpus) + "))";
  return {call + ": " + std::to_string(m.peak_bytes) + " (" + fixed(static_cast<double>(m.peak_bytes) / kGiBd, 2) + " GiB)"};
}

std::vector<EngineTerm> transformers_terms(const TransformersMemory& m, Lang lang) {
  const auto b = [](i64 v) { return with_commas(v); };
  const auto tx = [lang](Str k, const auto&... a) { return printf_text(tr(k, lang), std::string(a).c_str()...); };
  const std::string src = std::string(kTransformersVersion) + ", ";
  const i64 dt = m.dtype_bytes;
  std::vector<EngineTerm> t;
  if (m.gpus > 1)
    t.push_back({"gpus", "device_map=\"auto\"", static_cast<double>(m.gpus), false, "exact", tx(Str::efx_tf_gpus, b(m.gpus)),
                 src + "accelerate infer_auto_device_map, AlignDevicesHook"});
  t.push_back({"weights_bytes", "", static_cast<double>(m.weights_bytes), true, "estimate",
               tx(Str::efx_tf_weights, b(m.large_tensors), b(m.weights_raw_bytes), b(m.segment_slack_bytes), b(m.weights_bytes)),
               src + "modeling_utils.py _load_pretrained_model; CUDACachingAllocator.cpp get_allocation_size, should_split"});
  if (m.kernel_buffer_bytes > 0)
    t.push_back({"kernel_buffer_bytes", "", static_cast<double>(m.kernel_buffer_bytes), true, "estimate",
                 tx(Str::efx_tf_exllama, b(m.gpus), b(m.kernel_buffer_bytes)), "auto_gptq 0.7 modeling/_utils.py exllama_post_init, post_init"});
  t.push_back({"cublas_bytes", "", static_cast<double>(m.cublas_bytes), true, "exact", tx(Str::efx_tf_cublas, b(m.cublas_bytes)),
               src + "CublasHandlePool.cpp getNewWorkspace"});
  t.push_back({"kv_prompt_bytes", "", static_cast<double>(m.kv_prompt_bytes), true, "exact",
               tx(Str::efx_tf_kv, b(m.layers), b(m.batch * m.prompt), b(m.kv_width), b(dt), b(m.kv_prompt_bytes)),
               src + "cache_utils.py DynamicCache.update"});
  t.push_back({"prefill_activation_bytes", "", static_cast<double>(m.prefill_bytes), true, "estimate",
               tx(m.prefill_at_mlp ? Str::efx_tf_prefill_mlp
                  : m.attn_impl == AttnImpl::Eager ? Str::efx_tf_prefill_eager
                  : m.attn_impl == AttnImpl::Sdpa ? Str::efx_tf_prefill_sdpa
                                                  : Str::efx_tf_prefill_attn,
                  b(m.batch * m.prompt), b(m.prefill_bytes)),
               src + "modeling_qwen2.py Qwen2Model.forward, Qwen2DecoderLayer.forward, Qwen2MLP.forward, Qwen2FlashAttention2.forward"});
  if (m.new_tokens > 1) {
    t.push_back({"kv_bytes", "", static_cast<double>(m.kv_end_bytes), true, "exact",
                 tx(Str::efx_tf_kv, b(m.layers), b(m.batch * m.end_tokens), b(m.kv_width), b(dt), b(m.kv_end_bytes)),
                 src + "cache_utils.py DynamicCache.update (torch.cat)"});
    t.push_back({"decode_activation_bytes", "", static_cast<double>(m.decode_bytes), true, "estimate",
                 tx(Str::efx_tf_decode, b(m.batch * m.end_tokens), b(m.decode_bytes)),
                 src + "DynamicCache.update, repeat_kv; generation/utils.py _sample"});
  }
  t.push_back({"peak_allocated_bytes", m.gpus == 1 ? "torch.cuda.max_memory_allocated()" : "Σ torch.cuda.max_memory_allocated(i)", static_cast<double>(m.peak_bytes), true, "estimate",
               tx(Str::efx_tf_peak, b(m.prefill_peak_bytes), b(m.decode_peak_bytes), b(m.peak_bytes)),
               src + "torch.cuda.max_memory_allocated (allocated_bytes.all.peak)"});
  for (EngineTerm& x : t) {
    if (!x.label.empty()) continue;
    x.row = x.key == "weights_bytes" ? Str::term_tf_weights
            : x.key == "cublas_bytes" ? Str::term_tf_cublas
            : x.key == "kernel_buffer_bytes" ? Str::term_tf_kernel
            : x.key == "kv_prompt_bytes" ? Str::term_tf_kv_prompt
            : x.key == "prefill_activation_bytes" ? Str::term_tf_prefill
            : x.key == "kv_bytes" ? Str::term_tf_kv_end
                                  : Str::term_tf_decode;
    x.label = term_label(x, Lang::En);
  }
  return t;
}

}  // namespace llmsize::core

// Hugging Face Transformers' model.generate() as torch.cuda.max_memory_allocated() measures it
// (issue 11, the Transformers profile): the checkpoint loaded onto one GPU through PyTorch's
// caching allocator, the DynamicCache, the live tensors at the prompt's (prefill's) peak and at
// the last generated token's. Follows, at the versions of the calibration's runs
// (tests/calibration/transformers_test.cpp):
// - transformers 4.46.0: modeling_utils.py _load_pretrained_model (shard by shard, each
//   safetensors file's tensors in its sorted key order, each moved to the GPU as it is read);
//   models/qwen2/modeling_qwen2.py (and its Llama and Mistral originals) Qwen2Model.forward
//   (inputs_embeds held for the whole forward, one rotary cos/sin for every layer,
//   _update_causal_mask returning None for flash_attention_2 when no token is padded),
//   Qwen2DecoderLayer.forward, Qwen2FlashAttention2.forward (repeat_kv before flash attention),
//   Qwen2MLP.forward; cache_utils.py DynamicCache.update (torch.cat per layer per step);
//   generation/utils.py GenerationMixin._sample (num_logits_to_keep = 1, logits.clone()[:, -1, :].float());
// - PyTorch 2.3.1: c10/cuda/CUDACachingAllocator.cpp (round_size, get_allocation_size,
//   get_free_block, should_split; allocated_bytes counts whole blocks), aten CublasHandlePool.cpp
//   (the cuBLAS workspace, through the allocator), aten sdp_utils.cpp (which kernel
//   scaled_dot_product_attention takes);
// - flash-attn 2.5.8: flash_attn_interface.py flash_attn_func (out and the fp32 softmax_lse).
// attn_implementation: sdpa (the default), flash_attention_2 (the calibration's) or eager.
// One GPU, or device_map="auto" over several (consecutive layers on each, run in turn: --pp N on N
// GPUs), whose figures are the sums over the GPUs of each one's peak (what a script that adds
// max_memory_allocated(i) over the devices prints; which layers land where is not modelled);
// sequences of one length (no padding), the Llama-decoder families; 16-bit checkpoints, or GPTQ
// (auto_gptq 0.7: exllama for 4 bits) and AWQ (autoawq 0.2.6, GEMM) ones in fp16.
#pragma once
#include <string>
#include <vector>

#include "engine_vllm.hpp"
#include "inventory.hpp"

namespace llmsize::core {

inline constexpr std::string_view kTransformersVersion = "transformers 4.46.0 · PyTorch 2.3.1 · flash-attn 2.5.8";

struct TransformersMemory {
  AttnImpl attn_impl = AttnImpl::Sdpa;
  i64 gpus = 1;                    // device_map="auto" over --pp GPUs: every figure below is summed over them
  i64 batch = 0, prompt = 0, new_tokens = 0;
  i64 layers = 0, kv_width = 0, dtype_bytes = 2;  // the cache's layers, K (and V) values per token of a layer, their bytes
  i64 end_tokens = 0;              // tokens in the cache after the last forward: prompt + new − 1
  i64 weights_bytes = 0;           // the checkpoint's tensors as the allocator counts them
  i64 weights_raw_bytes = 0;       // their bytes
  i64 segment_slack_bytes = 0;     // weights − raw: blocks kept whole (a remainder of ≤ 1 MiB is not split off)
  i64 large_tensors = 0;           // tensors over 1 MiB (the large pool)
  i64 cublas_bytes = 0;            // the cuBLAS workspace
  i64 kernel_buffer_bytes = 0;     // GPTQ 4-bit: exllama's temp_dq on each GPU
  i64 kv_prompt_bytes = 0;         // DynamicCache after the prompt: every layer's K and V
  i64 prefill_bytes = 0;           // live tensors beside weights and cache at the prompt's peak
  bool prefill_at_mlp = true;      // the prompt's peak: the last layer's MLP (else its attention)
  i64 prefill_peak_bytes = 0;      // weights + cuBLAS + cache + prefill
  i64 kv_end_bytes = 0;            // the cache after the last forward
  i64 decode_bytes = 0;            // the last step's live tensors beside the cache (repeat_kv's copies, the logits)
  i64 decode_peak_bytes = 0;       // 0 with one new token (no decode step)
  i64 peak_bytes = 0;              // max(prefill, decode): what torch.cuda.max_memory_allocated() returns
  bool peak_in_prefill = true;
};

// The profile of `cfg` under `w` (seq = prompt + max_new_tokens, batch sequences of that length).
// Fails, naming the field, outside the scope above.
Result<TransformersMemory> transformers_memory(const ModelConfig& cfg, const Inventory& inv, const Workload& w, const Gpu& gpu);

// On one GPU with `room` bytes for what max_memory_allocated() counts (the GPU's usable memory less
// the CUDA context and the allocator's cache): the longest seq (prompt + max_new_tokens, at most
// the model's positions) at the workload's batch, and the largest batch at its seq, whose peak fits;
// 0 where none does.
struct TransformersFit {
  i64 max_seq = 0, max_batch = 0;
};
// `at` is transformers_memory's result for `w`: its load is reused, not simulated again.
TransformersFit transformers_fit(const ModelConfig& cfg, const Inventory& inv, const Workload& w, const Gpu& gpu, i64 room,
                                 const TransformersMemory& at);

// The settings the profile ran with, joined by `sep`: "prompt N", "max_new_tokens N", the attention
// implementation and, over several GPUs, device_map="auto" × N (the CLI's line and the panel's).
std::string transformers_settings(const TransformersMemory& m, std::string_view sep);

// What a script that prints torch.cuda.max_memory_allocated() after generate() shows.
std::vector<std::string> transformers_log(const TransformersMemory& m);

// Every term with its formula and source (their words in `lang`).
std::vector<EngineTerm> transformers_terms(const TransformersMemory& m, Lang lang = Lang::En);

}  // namespace llmsize::core

// Weight storage per tensor: plain dtypes and quantization schemes with their exact bytes
// (packed values + scales + zero-points + indices, as the runtime stores them), and the rule
// that picks a storage type for each inventory tensor under a Workload's weight format —
// including llama.cpp's per-tensor GGUF mixes. Not here: KV-cache bytes (layer_plan.hpp).
//
// Sources: ggml/src/ggml-common.h block structs (GGUF block sizes and bytes);
// llama.cpp src/llama-quant.cpp llama_tensor_get_type_impl / tensor_type_fallback /
// tensor_allows_quantization (GGUF mixes); AutoGPTQ / AutoAWQ packed layouts; bitsandbytes
// Params4bit / Int8Params; OCP Microscaling Formats (MX) v1.0; DeepSeek-V3 weight_scale_inv.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "inventory.hpp"
#include "workload.hpp"

namespace llmsize::core {

enum class QType : std::uint8_t {
  F32, F16, BF16,
  Fp8,          // e4m3 + one fp32 scale per tensor
  Fp8Block,     // e4m3 + fp32 scale per 128×128 block: ceil(out/128)·ceil(in/128) scales
  Int8Channel,  // int8 + fp32 scale per output channel
  Gptq,         // bits-bit qweight, fp16 scales and bits-bit zeros per group, int32 g_idx per input
  Awq,          // as Gptq without g_idx
  Nf4,          // 4-bit values + fp32 absmax per 64 values
  Nf4Dq,        // 4-bit values + 8-bit absmax per 64 values + fp32 scale per 256 absmax
  Mxfp4,        // 32 × e2m1 + one e8m0 scale: 17 bytes per 32 values (= ggml MXFP4)
  Int4Sym,      // compressed-tensors pack-quantized: 8 int4 per int32, a bf16 scale per group, no zero point
  // ggml block types (ggml-common.h): values per block, bytes per block
  Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,             // 32: 18, 20, 22, 24, 34
  Q2_K, Q3_K, Q4_K, Q5_K, Q6_K,             // 256: 84, 110, 144, 176, 210
  IQ4_NL, IQ4_XS,                           // 32: 18; 256: 136
};

struct Storage {
  QType type = QType::BF16;
  i64 bits = 0;   // Gptq/Awq: bits per value (2, 3, 4, 8)
  i64 group = 0;  // Gptq/Awq: input rows per scale
};
bool operator==(const Storage& a, const Storage& b);

std::string_view to_string(QType t);  // "bf16", "Q4_K", "nf4-dq", …
std::string storage_name(const Storage& s);  // "gptq int4 g128", "Q6_K", "bf16"

// ggml-style block: `values` per block stored in `bytes`. Plain dtypes are blocks of 1.
// Gptq/Awq/Nf4/Nf4Dq/Fp8/Fp8Block/Int8Channel have no single block (values = 0).
struct BlockShape {
  i64 values = 0;
  i64 bytes = 0;
};
BlockShape block_shape(QType t);

// A tensor as stored: `row_len` values along the contiguous (input) dimension — ggml ne[0],
// GPTQ in_features — times `n_rows`. Weight matrices x·W (rows = d_in): row_len = d_in,
// n_rows = d_out; embeddings (vocab × d): row_len = d, n_rows = vocab; vectors: row_len = n.
struct StoredDims {
  i64 row_len = 1;
  i64 n_rows = 1;
};
StoredDims stored_dims(const Tensor& t);

// Exact bytes of one copy stored as `s`; nullopt on int64 overflow. Block types round each
// row up to whole blocks (ggml requires divisibility; storage_for() falls back like
// llama.cpp when a row does not divide).
std::optional<i64> storage_bytes(const Storage& s, StoredDims dims);

// The storage the workload's weight format gives tensor `t` of layer `layer` (-1 for
// tensors outside the layers). Conventions of Keep::Auto, per format:
//   fp32/bf16/fp16: everything in that dtype;
//   fp8, fp8-block, gptq, awq, mxfp4: layer matrices quantized; embeddings, LM head and
//     router kept in the compute dtype (DeepSeek-V3 checkpoints, AutoGPTQ/AutoAWQ module lists);
//   int4-experts: the routed experts only (compressed-tensors' ignore list of Kimi K2 Thinking and
//     K2.5: lm_head, self_attn, shared_experts and the dense MLPs); everything else in the compute dtype;
//   int8, nf4, nf4-dq (bitsandbytes through transformers): every nn.Linear quantized except
//     the LM head, so the router is quantized; embeddings kept;
//   GGUF file types: llama.cpp's llama_tensor_get_type_impl rules (token_embd quantized,
//     output.weight Q6_K, 1-D tensors and the router ffn_gate_inp in F32).
// Norms, biases and other vectors are never quantized (F32 in GGUF, else the compute dtype).
Storage storage_for(const ModelConfig& cfg, const Workload& w, const Tensor& t, i64 layer);

// Whether Keep::Auto keeps a group unquantized under `f` (for display; see storage_for).
bool auto_keeps(WeightFormat f, Group g);

}  // namespace llmsize::core

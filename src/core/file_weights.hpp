// A model file's bytes in place of the estimated ones (issue 12): every inventory tensor, per
// layer, matched to the tensors a GGUF or safetensors file holds for it, with their bytes and
// type. Where the whole inventory is found with the model's element counts, these bytes are the
// weights (weights_report, the per-GPU placement, llama.cpp's model buffers) instead of the
// workload's nominal format; where a tensor is missing or its shape differs, the matcher fails
// naming it, and the estimate keeps its own figures with that reason as a note.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "estimate.hpp"
#include "gguf.hpp"
#include "inventory.hpp"
#include "safetensors.hpp"

namespace llmsize::core {

// One inventory tensor (all its copies) in one layer, as the file stores it.
struct FileTensor {
  i64 bytes = 0;
  std::string_view type;  // the file's type (ggml type or safetensors dtype name); "mixed" when parts differ
};

struct FileWeights {
  std::string format;  // "gguf" or "safetensors"
  std::vector<FileTensor> global;                           // inv.global order
  std::vector<std::vector<std::vector<FileTensor>>> kinds;  // [kind][tensor][j]: layer inv.kinds[kind].layers[j]
  std::vector<i64> slot;                                    // layer → j within its kind
  // Tensors of the file no inventory tensor claims (llama.cpp's rope_freqs, a stored tied head…):
  // counted in the weights, with layer 0 (the first stage; llama.cpp: layer 0's device, where
  // llama_model_base::load_tensors creates rope_freqs, duplicated to the other layers by reference).
  i64 other_bytes = 0, other_tensors = 0;
  std::vector<std::string> other_names;  // at most 8
  i64 mtp_bytes = 0;                     // multi-token-prediction layers: outside the weights, as the inventory's mtp
  i64 total_bytes = 0;                   // Σ global + layers + other (MTP excluded)

  // The bytes of inventory tensor `t` (a reference into `inv`) in `layer` (-1: a global tensor);
  // nullopt when t is not one of inv's tensors.
  std::optional<FileTensor> at(const Inventory& inv, const Tensor& t, i64 layer) const;
};

// llama.cpp's names for the inventory's tensors (src/llama-arch.cpp LLM_TENSOR_NAMES, as
// convert_hf_to_gguf.py maps Hugging Face names through gguf-py's tensor_mapping.py): token_embd,
// output_norm, output; blk.N.attn_q/k/v (or one fused attn_qkv, shared by its parts in proportion
// to their elements: one tensor has one type, so the split is exact), attn_output, attn_q_norm,
// attn_sinks, ffn_gate/up/down, ffn_*_exps (all experts of a layer in one tensor, or the older
// per-expert ffn_gate.E), ffn_*_shexp, ffn_gate_inp; gpt-oss's fused gate_up as ffn_gate_exps +
// ffn_up_exps. Fails naming the first tensor the file lacks or whose elements differ.
Result<FileWeights> gguf_file_weights(const GgufHeader& h, const ModelConfig& cfg, const Inventory& inv);

// A checkpoint's tensors by their own names (the inventory's), each weight's scales, zero points
// and packings with it (safetensors_match). Fails naming the first tensor the checkpoint lacks or
// whose elements differ.
Result<FileWeights> safetensors_file_weights(const std::vector<const SafetensorsHeader*>& files, const Inventory& inv);

// A model file's weights as a share link carries them (the key "file"), run-length coded over
// each tensor's layers, globals first, then each kind's tensors in inventory order:
// - a GGUF file: "gguf~O~B~T,T,…", each T the ggml type ids of one tensor ("12" one type for all,
//   "14x2.12x2" two layers of q6_K then two of q4_K); the bytes follow from the types (elements /
//   block × block bytes), so this holds only where each tensor's bytes are exactly that;
// - a safetensors checkpoint: "st~O~B~T,T,…", each run "<bytes>-<dtype>" (the weight's dtype, "M"
//   where its parts differ; the bytes with its scales and zero points), e.g. "58720256-F8_E4M3x61".
// O is the bytes of the file's other tensors, B its weights' total (a model whose shapes differ
// from the file's is refused). nullopt where a tensor cannot be written so (a GGUF tensor of two
// types) or the summary would pass kMaxFileSummaryBytes: the link then carries no file.
std::optional<std::string> file_summary(const FileWeights& f, const Inventory& inv);
// The weights a summary describes for `inv`; Issues name "file" and what does not fit (a type id
// ggml does not define, runs that do not cover the layers, a tensor count that differs).
Result<FileWeights> file_weights_from_summary(std::string_view summary, const Inventory& inv);
inline constexpr size_t kMaxFileSummaryBytes = 4096;

// A model file for a prepared model: its bytes become the weights of every estimate of `m`
// (m.file), or, where its tensors do not match m's inventory, m.file_refused says why (field
// "gguf" / "safetensors") and the estimates keep the workload format's weights.
void attach_file(PreparedModel& m, const GgufHeader& h);
void attach_file(PreparedModel& m, const std::vector<SafetensorsHeader>& files);
void attach_file_summary(PreparedModel& m, std::string_view summary);  // a share link's "file" (field "file")

}  // namespace llmsize::core

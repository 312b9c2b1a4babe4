// The exact tensor inventory of a model: every learnable weight tensor of the Hugging Face
// *ForCausalLM model, with its checkpoint name, shape and group. Parameter counts, memory
// per tensor (quantization) and the reference transformer's allocation all read this one
// list; no closed formula counts parameters anywhere else.
//
// Counting convention (as `model.num_parameters()` counts): a tied head is counted once;
// biases where the family has them; non-persistent buffers (causal masks, rotary inv_freq)
// and quantization scales excluded; router correction biases stored as parameters included;
// multi-token-prediction layers listed separately (Inventory::mtp) and not in the total.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "model.hpp"

namespace llmsize::core {

enum class Group : std::uint8_t { Embedding, Attention, Ffn, Router, Norm, LmHead, Mtp };
inline constexpr int kGroupCount = 7;
std::string_view to_string(Group g);  // "embedding", "attention", …

// What a tensor does, independent of the family's naming.
enum class Role : std::uint8_t {
  Embed, PosEmbed, EmbedProj,                    // token/position tables, OPT project_in/out
  LayerEmbed,                                    // Gemma 4's per-layer input embedding table (a lookup)
  AttnQ, AttnK, AttnV, AttnQKV, AttnO,           // attention projections (QKV when fused)
  AttnSink,                                      // gpt-oss: one learned softmax logit per head
  MlaQA, MlaQB, MlaKVA, MlaKVB,                  // MLA low-rank projections
  IdxQ, IdxK, IdxWeights,                        // DeepSeek-V3.2 lightning indexer
  LinQKVZ, LinBA, LinConv, LinDtBias, LinALog, LinOut,  // Gated DeltaNet (linear attention), also Mamba-2's
  MambaIn, MambaD,                               // Mamba-2's in_proj and D (skip) parameter
  FfnGate, FfnUp, FfnGateUp, FfnDown,            // FFN matrices (GateUp when fused)
  Router, RouterBias, SharedGate,                // MoE routing
  RouterScale,                                   // Gemma 4's router scale (d) and per-expert scales (E)
  Norm, Bias, LmHead, MtpProj,
};
std::string_view to_string(Role r);

// How a tensor is split over tensor-parallel GPUs where its role alone does not say
// (placement.cpp gpu_share): the vision towers' and projectors' layers vLLM builds otherwise.
enum class TpSplit : std::uint8_t {
  ByRole,   // the role's rule (column- or row-parallel, replicated norms, routers, patch embeddings)
  Whole,    // on every GPU whole (vLLM ReplicatedLinear, nn.Linear, a bare nn.Parameter)
  Columns,  // split, whatever its role (vLLM ColumnParallelLinear, e.g. Llama 4's patch embedding)
};

struct Tensor {
  std::string name;  // checkpoint name; "{i}" stands for the layer index, "{e}" for the expert
  Group group = Group::Attention;
  Role role = Role::Bias;
  i64 rows = 1;      // matrices: d_in (rows) × d_out (cols), as x·W; vectors: 1 × n
  i64 cols = 1;
  i64 copies = 1;    // E routed experts of this shape in each layer, else 1
  bool routed = false;  // only top_k of the copies are active per token
  Role of = Role::Bias; // for biases and norms: the tensor they belong to (informative)
  i64 kv_heads = 0;     // K/V projections of a layer whose K differs from the model's (Gemma 4 full layers, vision towers)
  TpSplit tp_split = TpSplit::ByRole;

  bool is_matrix() const { return rows > 1; }
  i64 numel_one() const { return rows * cols; }          // one copy (checked when built)
  i64 numel() const { return rows * cols * copies; }     // all copies (checked when built)
};

// Layers that share one structure (dense or MoE FFN, softmax or linear attention; the MTP layers).
struct LayerKind {
  std::string label;        // "dense", "moe", "linear dense", "linear moe", "mtp": English, and the kind's id
  std::function<std::string(Lang)> words{};  // the label in any language, from the string tables (label = words(En))
  std::vector<i64> layers;  // layer indices in this kind
  std::vector<Tensor> tensors;  // tensors of ONE layer of this kind
  bool is_moe = false;
};

// A layer kind's label (LayerKind, LayerKindCount) in `lang`: its words, else the English label.
template <class Kind>
std::string kind_text(const Kind& k, Lang lang) {
  return lang == Lang::En || !k.words ? k.label : k.words(lang);
}

struct Inventory {
  std::vector<Tensor> global;   // embeddings, norms and head outside the layers
  std::vector<LayerKind> kinds; // in the total
  std::vector<LayerKind> mtp;   // multi-token prediction, outside the total
  // A multimodal wrapper's vision tower and projector, outside the total: the tensors outside
  // its encoder layers, and one encoder layer (layers = the encoder's layer indices).
  std::vector<Tensor> vision;
  LayerKind vision_layer;
};

// Builds the inventory after validate(); fails only when a size overflows int64.
Result<Inventory> build_inventory(const ModelConfig& cfg);

// Expands "{i}"/"{e}" in a name.
std::string tensor_name(const std::string& pattern, i64 layer, i64 expert = -1);

}  // namespace llmsize::core

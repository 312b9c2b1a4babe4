// GGUF model files (issue 12, first step): the header — the metadata key/values and the tensor
// table — read from the first bytes of a file, with the bytes of every tensor from ggml's block
// table. Follows ggml/docs/gguf.md and ggml/src/gguf.cpp (gguf_init_from_file_impl) of llama.cpp
// b10573; the blocks are ggml.c's type_traits over ggml-common.h's block structs.
//
// Hostile files: every count is checked against the bytes left before anything is sized by it,
// strings and arrays are bounded, nesting is bounded, sizes are multiplied with overflow checks;
// an unknown or removed ggml type, a misaligned or out-of-file tensor, a repeated name or key is
// a named error. Nothing is read past `head`.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checked.hpp"
#include "hf_config.hpp"
#include "inventory.hpp"
#include "issue.hpp"
#include "workload.hpp"

namespace llmsize::core {

// One ggml tensor type: `block` values stored in `bytes` (plain types are blocks of 1).
struct GgmlType {
  std::uint32_t id = 0;
  std::string_view name;  // ggml_type_name: "f32", "q4_K", "iq2_xxs", "mxfp4", …
  i64 block = 1;
  i64 bytes = 0;
};
// Every type a GGUF file may hold today (ids 4, 5 and 31–33, 36–38 were removed from ggml).
std::span<const GgmlType> ggml_types();
const GgmlType* ggml_type(std::uint32_t id);  // null for a removed or unknown id

// A name or string from a file as it may be printed: at most 256 bytes, control bytes (terminal
// escapes) as '?'.
std::string gguf_printable(std::string_view s);

// The metadata value types of the GGUF spec (gguf_type).
enum class GgufKind : std::uint8_t { U8, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64 };
std::string_view to_string(GgufKind k);  // "u32", "string", "array", …

struct GgufValue {
  GgufKind kind = GgufKind::U8;
  GgufKind elem = GgufKind::U8;  // arrays: the elements' kind
  i64 count = 0;                 // arrays: elements
  i64 i = 0;                     // integers and bool (a u64 beyond int64 is refused)
  double f = 0;                  // f32, f64
  std::string s;                 // strings
  std::vector<i64> ints;         // arrays of integers or bools, kept whole up to kGgufKeptInts elements
  bool is_integer() const;       // an integer or bool scalar
};

struct GgufTensor {
  std::string name;
  std::vector<i64> ne;           // ggml order: ne[0] is the contiguous dimension
  const GgmlType* type = nullptr;
  i64 offset = 0;                // from the start of the data section
  i64 elements = 0;
  i64 bytes = 0;                 // elements / block × block bytes
};

struct GgufHeader {
  std::uint32_t version = 0;
  i64 alignment = 32;            // general.alignment, else GGUF_DEFAULT_ALIGNMENT
  i64 data_offset = 0;           // where the tensor data starts: the header's bytes, padded
  i64 file_bytes = 0;            // the whole file, as the caller gave it (0: unknown)
  i64 shards = 1;                // a split model merged (merge_gguf_shards): its files; data_offset and
                                 // file_bytes are then sums, tensor offsets within each tensor's own file
  std::vector<std::pair<std::string, GgufValue>> kv;
  std::vector<GgufTensor> tensors;

  const GgufValue* find(std::string_view key) const;
  std::string string_of(std::string_view key) const;  // "" when absent or not a string
  i64 tensor_bytes() const;      // Σ tensor bytes
  i64 elements() const;          // Σ tensor elements: the parameters as stored
};

inline constexpr i64 kGgufMaxHeaderBytes = i64{256} << 20;  // the most of a file read as header
inline constexpr i64 kGgufMaxTensors = i64{1} << 20;
inline constexpr i64 kGgufMaxKeys = i64{1} << 16;
inline constexpr i64 kGgufMaxString = i64{1} << 24;         // a chat template is ~10⁵ bytes
inline constexpr i64 kGgufMaxArray = i64{1} << 27;          // tokenizer arrays: ~10⁵–10⁶ entries
inline constexpr i64 kGgufMaxName = 64;                     // GGML_MAX_NAME, with its NUL
inline constexpr i64 kGgufMaxDims = 4;                      // GGML_MAX_DIMS
inline constexpr i64 kGgufMaxNesting = 8;                   // arrays of arrays
inline constexpr i64 kGgufKeptInts = i64{1} << 16;

// Reads the header from `head`, the first bytes of a file of `file_bytes` bytes (0: unknown).
// Fails with Issues naming "gguf" and what is wrong (the key or tensor, the allowed range). When
// `head` ends inside the header and the file is longer, it fails and sets `*more` (if given) to
// the bytes to read before trying again (at least the header read so far plus what is pending).
Result<GgufHeader> read_gguf_header(std::string_view head, i64 file_bytes, i64* more = nullptr);

// A model split over files by llama.cpp's gguf-split (tools/gguf-split, llama_split_path):
// "<prefix>-00001-of-00003.gguf" …, each a GGUF of its own with split.no (u16, from 0),
// split.count (u16) and, in each, split.tensors.count (i32, the model's whole tensor count); the
// first holds the metadata. gguf_split reads those keys (nullopt for a file that is not a shard);
// gguf_shard_paths names every shard beside `path` (empty when the name is not of that form or
// does not say `count`); merge_gguf_shards checks that the shards are one model's, each once,
// and gives one header: the first's metadata, every shard's tensors.
struct GgufSplit {
  i64 no = 0, count = 1, tensors = -1;
};
std::optional<GgufSplit> gguf_split(const GgufHeader& h);
std::vector<std::string> gguf_shard_paths(std::string_view path, i64 count);
Result<GgufHeader> merge_gguf_shards(std::vector<GgufHeader> shards);
inline constexpr i64 kGgufMaxShards = 1024;

// Tensors per ggml type, in type id order: how the file stores its parameters.
struct GgufTypeCount {
  const GgmlType* type = nullptr;
  i64 tensors = 0, elements = 0, bytes = 0;
};
std::vector<GgufTypeCount> gguf_type_counts(const GgufHeader& h);

// The tensors by the inventory's groups, from llama.cpp's tensor names (src/llama-arch.cpp
// LLM_TENSOR_NAMES): token_embd / position_embd / per_layer_token_embd / per_layer_model_proj and
// Gemma 4's per-layer inp_gate / proj the embedding, output the head, *_norm the norms, ffn_gate_inp
// and exp_probs_b the router, attn_* / ssm_* / time_mix_* / shortconv.* / indexer.* the attention
// (the token mixers), ffn_* the FFN, blk.N with N ≥ block_count − nextn_predict_layers
// the MTP layers. Names no rule knows are listed, not dropped.
struct GgufGroups {
  std::array<i64, kGroupCount> params{}, bytes{};
  std::array<std::string, kGroupCount> first;  // the first tensor of each group, as the file orders them
  std::vector<std::string> unmatched;          // at most 32 names (the count below is whole)
  i64 unmatched_count = 0, unmatched_params = 0, unmatched_bytes = 0;
};
GgufGroups gguf_groups(const GgufHeader& h);

// The header in words (the CLI's `llmsize gguf FILE`) and as JSON
// (file.{format, version, header_bytes, file_bytes, tensors, params, weights_bytes, types{}, metadata{}},
// and with `tensor_list` every tensor's {name, ne, type, type_id, offset, bytes}).
std::string gguf_text(const GgufHeader& h, std::string_view path, Lang lang = Lang::En);
std::string gguf_json(const GgufHeader& h, bool tensor_list = false);

// general.file_type (llama_ftype, llama.h) by its llama.cpp name ("Q4_K - Medium"), and the weight
// format that models the same per-tensor mix, where one does (nullopt: IQ2_XXS and the other
// types llmsize does not mix; the file's own bytes still stand).
std::string gguf_file_type_name(const GgufHeader& h);
std::optional<WeightFormat> gguf_weight_format(const GgufHeader& h);

// A multimodal projector file (llama.cpp's mmproj-*.gguf, general.architecture "clip"): the vision
// encoder and projector llama.cpp's mtmd loads beside the language model.
bool gguf_is_projector(const GgufHeader& h);

// The model the metadata describes (general.architecture and its <arch>.* keys), read through
// the Hugging Face importer: the architectures of gguf_config.cpp's table; any other is an Issue
// naming general.architecture. Issues name the GGUF key a value came from.
Result<ImportedConfig> gguf_config(const GgufHeader& h);

}  // namespace llmsize::core

// Weights as stored: every tensor of the inventory in the workload's format (plain dtypes,
// integer and 4-bit schemes, GGUF per-tensor mixes), grouped by the storage each uses, with
// totals by tensor group. Bytes are int64, overflow-checked; stored bytes only (runtimes add
// alignment padding). Not here: how the tensors split over GPUs (placement.hpp).
#pragma once
#include <array>
#include <vector>

#include "quant.hpp"

namespace llmsize::core {

struct FileWeights;  // file_weights.hpp: a model file's bytes per tensor and layer

// Tensors that share a storage type: inventory tensor `index` of layer kind `kind` (-1 =
// global tensors) in `layers` layers (1 for globals), stored as `storage` — or, where a model
// file's bytes are the weights, as the file's type `file_type` (ggml type or safetensors dtype).
struct WeightRow {
  int kind = -1;
  int index = 0;
  i64 layers = 1;
  Storage storage;
  i64 params = 0;  // all copies in all `layers`
  i64 bytes = 0;
  std::string_view file_type;  // empty unless the bytes are a model file's
};
struct WeightsReport {  // one replica, no parallel split, MTP excluded
  bool from_file = false;    // the bytes are a model file's (FileWeights), not the workload format's
  i64 other_bytes = 0;       // from_file: the file's tensors no inventory tensor claims (in total_bytes)
  i64 total_bytes = 0;
  i64 params = 0;
  std::array<i64, kGroupCount> bytes_by_group{};
  i64 quantized_params = 0;  // params stored in a quantized (non-float) type
  i64 kept_params = 0;       // params kept in a float dtype
  std::vector<WeightRow> rows;
};
// With `file`, each tensor's bytes and type are the file's (its tensors matched to this inventory).
Result<WeightsReport> weights_report(const ModelConfig& cfg, const Inventory& inv, const Workload& w,
                                     const FileWeights* file = nullptr);

// One inventory tensor's stored bytes, all its copies, in `layer` (-1: a global tensor): the
// model file's where `file` is given, else the workload's format (storage_for). The one home of
// this figure for the weights report, the per-GPU placement and llama.cpp's model buffers.
// nullopt on overflow, or when t is not one of the file table's tensors.
std::optional<i64> tensor_stored_bytes(const ModelConfig& cfg, const Workload& w, const Inventory& inv, const Tensor& t,
                                       i64 layer, const FileWeights* file);
Result<i64> weights_bytes_fp32(const Inventory& inv);  // 4 × parameters (MTP excluded)

// A multimodal wrapper's vision tower and projector as runtimes load them: in the compute dtype
// whatever the language model's format (vLLM and llama.cpp's mmproj keep them unquantized),
// split over tensor parallel GPUs as vLLM builds the tower and projector (placement.cpp gpu_share).
struct VisionWeights {
  i64 params = 0;
  i64 bytes = 0;      // whole tower, one replica
  i64 bytes_gpu = 0;  // one GPU of tensor parallel tp (held by the first pipeline stage)
};
Result<VisionWeights> vision_weights(const ModelConfig& cfg, const Inventory& inv, const Workload& w);

// The inventory tensor a row describes.
const Tensor& tensor_of(const Inventory& inv, const WeightRow& r);

}  // namespace llmsize::core

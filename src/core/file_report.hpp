// A model file beside the estimate made from it (issue 12): the file's bytes per group and per
// type next to the estimate's for the same weight format, as text (the CLI) and JSON (file{}).
#pragma once
#include <string>
#include <string_view>

#include "estimate.hpp"
#include "format.hpp"
#include "gguf.hpp"
#include "safetensors.hpp"

namespace llmsize::core {

// "From the file (…)": tensor bytes vs the estimate's weights, the groups (parameters that
// differ name the group's first tensor), names no rule matched, the per-type table.
std::string gguf_estimate_text(const GgufHeader& h, std::string_view path, const Workload& w, const Estimate& e, ByteUnit unit,
                               Lang lang = Lang::En);
// The estimate's JSON with file{…, file_type, estimated_weights_bytes, by_group{}, unmatched{}} added.
std::string with_gguf_json(const std::string& estimate_json, const GgufHeader& h, const Estimate& e);

// A checkpoint's shard headers: files, tensors, bytes per dtype, and JSON
// file{format, files, header_bytes, tensors, weights_bytes, types{}}.
std::string safetensors_text(const std::vector<SafetensorsHeader>& files, std::string_view path, Lang lang = Lang::En);
std::string safetensors_json(const std::vector<SafetensorsHeader>& files);
// The checkpoint beside the estimate for the workload's weight format: bytes per group,
// names not matched, shapes that differ; and the estimate's JSON with file{…, by_group{}, …}.
std::string safetensors_estimate_text(const std::vector<SafetensorsHeader>& files, const Inventory& inv, const Workload& w,
                                      const Estimate& e, ByteUnit unit, Lang lang = Lang::En);
std::string with_safetensors_json(const std::string& estimate_json, const std::vector<SafetensorsHeader>& files,
                                  const Inventory& inv, const Estimate& e);

// A multimodal projector file beside the estimate: its bytes as the vision encoder, in words
// and as JSON (projector{name, projector_type, tensors, bytes, header_bytes, file_bytes}).
std::string projector_text(const GgufHeader& h, std::string_view path, ByteUnit unit, Lang lang = Lang::En);
std::string with_projector_json(const std::string& estimate_json, const GgufHeader& h, std::string_view path);

}  // namespace llmsize::core

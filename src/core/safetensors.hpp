// safetensors checkpoints (issue 12): the header of one file (an 8-byte little-endian length and
// a JSON object of tensors: dtype, shape, data_offsets) and the shard list of a
// model.safetensors.index.json, read bounded, and the tensors matched to the inventory by name
// (quantization scales and packings grouped with the weight they belong to). Follows
// huggingface/safetensors' format (safetensors/src/tensor.rs: MAX_HEADER_SIZE, the dtype list,
// the checks of read_metadata / validate).
#pragma once
#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "checked.hpp"
#include "inventory.hpp"
#include "issue.hpp"

namespace llmsize::core {

// One dtype: its name in the header and its bits per element.
struct SafetensorsDtype {
  std::string_view name;
  i64 bits = 0;
};
const SafetensorsDtype* safetensors_dtype(std::string_view name);  // null: not a dtype the format defines

struct SafetensorsTensor {
  std::string name;
  const SafetensorsDtype* dtype = nullptr;
  std::vector<i64> shape;
  i64 begin = 0, end = 0;  // data_offsets, from the end of the header
  i64 elements = 0;
  i64 bytes() const { return end - begin; }
};

struct SafetensorsHeader {
  i64 header_bytes = 0;  // 8 + the JSON's length
  i64 file_bytes = 0;    // as given (0: unknown)
  std::vector<SafetensorsTensor> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;  // __metadata__, strings
  i64 tensor_bytes() const;
};
// The headers as the matchers take them (one entry per file, in order).
std::vector<const SafetensorsHeader*> pointers_to(const std::vector<SafetensorsHeader>& files);

inline constexpr i64 kSafetensorsMaxHeader = 100'000'000;  // safetensors' MAX_HEADER_SIZE
inline constexpr i64 kSafetensorsMaxTensors = i64{1} << 20;
inline constexpr i64 kSafetensorsMaxShards = 10000;

// Reads one file's header from its first bytes `head` (the file is `file_bytes` long, 0 when
// unknown). Issues name "safetensors" and what is wrong; when `head` ends inside the header,
// `*more` is set to the bytes to read.
Result<SafetensorsHeader> read_safetensors_header(std::string_view head, i64 file_bytes, i64* more = nullptr);

// The shard files a model.safetensors.index.json names (weight_map's values, each once, in
// order of first appearance), and its metadata.total_size (0 when absent).
struct SafetensorsIndex {
  std::vector<std::string> shards;
  i64 total_size = 0;
};
Result<SafetensorsIndex> read_safetensors_index(std::string_view json_text);

// The checkpoint's tensors by the inventory's groups: each tensor's name with its layer and
// expert indices read as {i} and {e} matched to an inventory name (a scale, zero point or packing
// — weight_scale_inv, weight_scale, weight_packed, qweight, scales, *_blocks, … — counts with its
// weight). Mismatches name the first tensor whose element count differs from the model's.
struct SafetensorsGroups {
  std::array<i64, kGroupCount> bytes{};
  std::vector<std::string> unmatched;  // at most 32 names
  i64 unmatched_count = 0, unmatched_bytes = 0;
  std::vector<std::string> differ;     // at most 8: "name: 1,024 elements, the model's 2,048"
  i64 matched = 0;
};
SafetensorsGroups safetensors_groups(const std::vector<const SafetensorsHeader*>& files, const Inventory& inv);

// One checkpoint tensor name matched to the inventory: its tensor (kind −1: a global one; mtp:
// inv.mtp[kind]), the layer read from the name, whether it is the weight itself (not a scale,
// zero point or packing of it), the tensor's group and elements of one copy.
struct SafetensorsMatch {
  int kind = -1, index = -1;
  bool mtp = false;
  i64 layer = -1;
  bool primary = true;
  Group group = Group::Attention;
  i64 elements_one = 0;
};
class SafetensorsMatcher {
 public:
  explicit SafetensorsMatcher(const Inventory& inv);  // keeps a reference: inv outlives the matcher
  std::optional<SafetensorsMatch> match(std::string_view name) const;

 private:
  struct Entry {
    int kind, index;
    bool mtp;
  };
  const Inventory* inv_;
  std::unordered_map<std::string, std::vector<Entry>> names_;
};

}  // namespace llmsize::core

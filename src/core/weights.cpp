// Weights as stored, per tensor and storage type (see weights.hpp).
#include "weights.hpp"

#include <algorithm>

#include "file_weights.hpp"
#include "placement.hpp"

namespace llmsize::core {

namespace {
bool is_float(QType t) { return t == QType::F32 || t == QType::F16 || t == QType::BF16; }
// A file's float types (ggml's and safetensors' names): parameters kept unquantized.
bool is_float_name(std::string_view n) {
  for (std::string_view f : {"f32", "f16", "bf16", "f64", "F32", "F16", "BF16", "F64"})
    if (n == f) return true;
  return false;
}
}  // namespace

std::optional<i64> tensor_stored_bytes(const ModelConfig& c, const Workload& w, const Inventory& inv, const Tensor& t, i64 layer,
                                       const FileWeights* file) {
  if (file) {
    const auto x = file->at(inv, t, layer);
    if (!x) return std::nullopt;
    return x->bytes;
  }
  auto one = storage_bytes(storage_for(c, w, t, layer), stored_dims(t));
  return one ? mul(*one, t.copies) : std::nullopt;
}

const Tensor& tensor_of(const Inventory& inv, const WeightRow& r) {
  return r.kind < 0 ? inv.global[static_cast<size_t>(r.index)]
                    : inv.kinds[static_cast<size_t>(r.kind)].tensors[static_cast<size_t>(r.index)];
}

Result<i64> weights_bytes_fp32(const Inventory& inv) {
  Checked p;
  for (const Tensor& t : inv.global) p += t.numel();
  for (const LayerKind& k : inv.kinds)
    for (const Tensor& t : k.tensors) p += Checked(t.numel()) * static_cast<i64>(k.layers.size());
  p *= 4;
  if (!p.ok()) return memory_overflow("hidden_size");
  return p.value();
}

Result<WeightsReport> weights_report(const ModelConfig& c, const Inventory& inv, const Workload& w, const FileWeights* file) {
  WeightsReport r;
  Checked total, params, quantized, kept;
  std::array<Checked, kGroupCount> groups{};
  bool ok = true;
  if (file) {  // the file's bytes and types, layers of one type in one row
    r.from_file = true;
    r.other_bytes = file->other_bytes;
    total += file->other_bytes;
    auto add_file = [&](int kind, int index, const Tensor& t, i64 layers, std::string_view type, i64 bytes) {
      const Checked p = Checked(t.numel()) * layers;
      if (!p.ok()) { ok = false; return; }
      total += bytes;
      params += p;
      groups[static_cast<int>(t.group)] += bytes;
      (is_float_name(type) ? kept : quantized) += p;
      r.rows.push_back({kind, index, layers, storage_for(c, w, t, kind < 0 ? -1 : inv.kinds[static_cast<size_t>(kind)].layers.front()),
                        p.value(), bytes, type});
    };
    for (size_t i = 0; i < inv.global.size() && i < file->global.size(); ++i)
      add_file(-1, static_cast<int>(i), inv.global[i], 1, file->global[i].type, file->global[i].bytes);
    for (size_t k = 0; k < inv.kinds.size() && k < file->kinds.size(); ++k)
      for (size_t i = 0; i < inv.kinds[k].tensors.size() && i < file->kinds[k].size(); ++i) {
        std::vector<std::pair<std::string_view, std::pair<i64, Checked>>> seen;  // type → layers, bytes
        for (const FileTensor& x : file->kinds[k][i]) {
          auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == x.type; });
          if (it == seen.end()) seen.push_back({x.type, {1, Checked(x.bytes)}});
          else ++it->second.first, it->second.second += x.bytes;
        }
        for (const auto& [type, n] : seen) {
          if (!n.second.ok()) { ok = false; break; }
          add_file(static_cast<int>(k), static_cast<int>(i), inv.kinds[k].tensors[i], n.first, type, n.second.value());
        }
      }
  }
  auto add = [&](int kind, int index, const Tensor& t, i64 layers, const Storage& st) {
    auto one = storage_bytes(st, stored_dims(t));
    if (!one) { ok = false; return; }
    const Checked bytes = Checked(*one) * t.copies * layers;
    const Checked p = Checked(t.numel()) * layers;
    if (!bytes.ok() || !p.ok()) { ok = false; return; }
    total += bytes;
    params += p;
    groups[static_cast<int>(t.group)] += bytes;
    (is_float(st.type) ? kept : quantized) += p;
    r.rows.push_back({kind, index, layers, st, p.value(), bytes.value(), {}});
  };
  for (size_t i = 0; i < inv.global.size() && !file; ++i)
    add(-1, static_cast<int>(i), inv.global[i], 1, storage_for(c, w, inv.global[i], -1));
  const bool per_layer = is_gguf(w.weights);  // only llama.cpp mixes vary with the layer index
  for (size_t k = 0; k < inv.kinds.size() && !file; ++k) {  // the workload format's (the file's rows are above)
    const LayerKind& kind = inv.kinds[k];
    for (size_t i = 0; i < kind.tensors.size(); ++i) {
      const Tensor& t = kind.tensors[i];
      if (!per_layer) {
        add(static_cast<int>(k), static_cast<int>(i), t, static_cast<i64>(kind.layers.size()),
            storage_for(c, w, t, kind.layers.front()));
        continue;
      }
      std::vector<std::pair<Storage, i64>> seen;  // storage → layers using it
      for (i64 l : kind.layers) {
        const Storage st = storage_for(c, w, t, l);
        auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == st; });
        if (it == seen.end()) seen.push_back({st, 1});
        else ++it->second;
      }
      for (const auto& [st, n] : seen) add(static_cast<int>(k), static_cast<int>(i), t, n, st);
    }
  }
  if (!ok || !total.ok() || !params.ok()) return memory_overflow("hidden_size");
  r.total_bytes = total.value();
  r.params = params.value();
  r.quantized_params = quantized.value();
  r.kept_params = kept.value();
  for (int g = 0; g < kGroupCount; ++g) r.bytes_by_group[g] = groups[g].value();
  return r;
}

Result<VisionWeights> vision_weights(const ModelConfig& c, const Inventory& inv, const Workload& w) {
  VisionWeights v;
  const i64 e = dtype_bytes(w.dtype);
  const placement::Split split{std::max<i64>(1, w.tp), 1};
  Checked params, bytes, gpu;
  bool ok = true;
  auto take = [&](const Tensor& t, i64 times) {
    const Checked n = Checked(t.numel()) * times;
    params += n;
    bytes += n * e;
    // Each tensor as the language model's are split (placement.cpp gpu_share, the vision rules in
    // inventory.cpp add_vision's comment).
    const auto share = n.ok() ? placement::gpu_share(c, t, n.value(), split) : std::nullopt;
    if (!share) ok = false;
    else gpu += Checked(*share) * e;
  };
  for (const Tensor& t : inv.vision) take(t, 1);
  for (const Tensor& t : inv.vision_layer.tensors) take(t, static_cast<i64>(inv.vision_layer.layers.size()));
  if (!ok || !params.ok() || !bytes.ok() || !gpu.ok()) return memory_overflow();
  v.params = params.value();
  v.bytes = bytes.value();
  v.bytes_gpu = gpu.value();
  return v;
}

}  // namespace llmsize::core

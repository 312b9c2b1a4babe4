// Weights as stored, per tensor and storage type (see weights.hpp).
#include "weights.hpp"

#include <algorithm>

namespace llmsize::core {

namespace {
bool is_float(QType t) { return t == QType::F32 || t == QType::F16 || t == QType::BF16; }
}  // namespace

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

Result<WeightsReport> weights_report(const ModelConfig& c, const Inventory& inv, const Workload& w) {
  WeightsReport r;
  Checked total, params, quantized, kept;
  std::array<Checked, kGroupCount> groups{};
  bool ok = true;
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
    r.rows.push_back({kind, index, layers, st, p.value(), bytes.value()});
  };
  for (size_t i = 0; i < inv.global.size(); ++i)
    add(-1, static_cast<int>(i), inv.global[i], 1, storage_for(c, w, inv.global[i], -1));
  const bool per_layer = is_gguf(w.weights);  // only llama.cpp mixes vary with the layer index
  for (size_t k = 0; k < inv.kinds.size(); ++k) {
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

Result<VisionWeights> vision_weights(const Inventory& inv, const Workload& w) {
  VisionWeights v;
  const i64 e = dtype_bytes(w.dtype), tp = std::max<i64>(1, w.tp);
  Checked params, bytes, gpu;
  auto take = [&](const Tensor& t, i64 times) {
    const Checked n = Checked(t.numel()) * times;
    params += n;
    bytes += n * e;
    gpu += (t.is_matrix() && n.ok() ? Checked(ceil_div(n.value(), tp)) : n) * e;
  };
  for (const Tensor& t : inv.vision) take(t, 1);
  for (const Tensor& t : inv.vision_layer.tensors) take(t, static_cast<i64>(inv.vision_layer.layers.size()));
  if (!params.ok() || !bytes.ok() || !gpu.ok()) return memory_overflow();
  v.params = params.value();
  v.bytes = bytes.value();
  v.bytes_gpu = gpu.value();
  return v;
}

}  // namespace llmsize::core

// Parameter counts from the tensor inventory: total, by group, per layer kind, active per
// token (MoE), MTP, and the classic 12·L·d² + v·d estimate with the gap explained per cause.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "inventory.hpp"
#include "lang.hpp"

namespace llmsize::core {

struct LayerKindCount {
  std::string label;  // "dense", "moe"
  std::function<std::string(Lang)> words{};  // the label in a language (LayerKind::words)
  i64 layers = 0;
  i64 params_per_layer = 0;
  i64 active_per_layer = 0;  // dense parts + top_k routed experts + shared experts
};

// One reason why the exact count differs from 12·L·d² + v·d. The deltas sum exactly to
// total − approx_12nd2_vd.
enum class GapCause : std::uint8_t { Attention, Ffn, Head, Embedding, Biases, Norms, Router };
struct GapItem {
  std::string cause;  // short label: "gated FFN", "GQA", "untied LM head", … (English)
  i64 delta = 0;      // exact − classic, for the part of the model this cause concerns
  std::string why;    // one sentence with the numbers substituted (English)
  GapCause kind = GapCause::Attention;
};

struct ParamReport {
  i64 total = 0;   // learnable parameters, MTP excluded
  i64 active = 0;  // per token: everything but the routed experts not chosen
  i64 mtp = 0;     // multi-token-prediction layers (DeepSeek-V3), outside total
  i64 vision = 0;  // a multimodal wrapper's vision tower and projector, outside total
  std::array<i64, kGroupCount> by_group{};  // by_group[Mtp] == mtp
  std::vector<LayerKindCount> kinds;
  i64 matrix_params = 0;  // params in 2-D weight matrices (embeddings and head included)

  // Classic estimate (ref: Kaplan et al. 2020, Narayanan et al. 2021): per layer
  // attention 4·d² + FFN 8·d², plus the token embedding v·d.
  i64 approx_12nd2_vd = 0;
  i64 approx_attention = 0;  // 4·L·d²
  i64 approx_ffn = 0;        // 8·L·d²
  i64 approx_embedding = 0;  // v·d
  std::vector<GapItem> gap;
  i64 moe_layers = 0;  // layers with routed experts

  i64 group(Group g) const { return by_group[static_cast<int>(g)]; }
};

Result<ParamReport> count_params(const ModelConfig& cfg, const Inventory& inv);

// Gap item `g` of `report` (of `cfg`) with its cause and why in `lang` (the string tables; the
// English ones are the item's own, which count_params built from the same rows).
GapItem gap_words(const ModelConfig& cfg, const ParamReport& report, const GapItem& g, Lang lang);

// Convenience: validate, build the inventory and count.
Result<ParamReport> count_params(const ModelConfig& cfg);

}  // namespace llmsize::core

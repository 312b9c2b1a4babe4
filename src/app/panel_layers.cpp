// Results › Parameters › Layer plan (below the per-layer table): the core's per-layer plan as a strip (one cell per layer,
// coloured by what its attention keeps) and one row per cache shape: layers, tokens kept, K/V
// heads and dims on this GPU, bytes per token. Display only: every number is the plan's.
#include <string>

#include "app/panels.hpp"
#include "app/theme.hpp"
#include "app/widgets.hpp"
#include "core/format.hpp"

namespace llmsize::app {

namespace {

using core::i64;

std::string kept_text(const core::CacheShape& s) {
  if (core::is_stateful(s.kind)) return "none: a fixed state";
  if (s.kind == core::AttnKind::FullMamba) return "every token, and a fixed state";
  if (s.kind == core::AttnKind::Shared) return "none: reads an earlier layer's K and V";
  if (s.kind == core::AttnKind::None) return "none (an MLP block)";
  if (s.index_bytes_per_token > 0) return "every token, and its indexer key";
  return s.window > 0 ? "last " + core::with_commas(s.window) + " tokens" : std::string("every token");
}

std::string heads_text(const core::CacheShape& s) {
  if (core::is_mla(s.kind)) return "1 latent (every GPU)";
  if (s.kind == core::AttnKind::None) return "-";
  if (core::is_stateful(s.kind)) {  // heads of the recurrent state
    std::string t = core::with_commas(s.heads_gpu) + " value";
    if (s.heads_gpu != s.heads) t += " of " + core::with_commas(s.heads);
    return t;
  }
  std::string t = core::with_commas(s.heads_gpu);
  if (s.heads_gpu != s.heads) t += " of " + core::with_commas(s.heads);
  return t;
}

// One cell per layer, coloured by its cache shape; MoE layers carry a bar along the bottom.
void layer_strip(const core::LayerPlan& plan) {
  const i64 n = static_cast<i64>(plan.layers.size());
  if (n == 0) return;
  const float w = ImGui::GetContentRegionAvail().x, h = ImGui::GetTextLineHeight() * 1.4f;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cell = w / static_cast<float>(n), gap = cell >= 4.0f ? 1.0f : 0.0f;
  for (i64 l = 0; l < n; ++l) {
    const float x0 = o.x + cell * static_cast<float>(l), x1 = x0 + cell - gap;
    const auto& L = plan.layers[static_cast<size_t>(l)];
    dl->AddRectFilled(ImVec2(x0, o.y), ImVec2(x1, o.y + h), series_colour(L.cache));
    if (L.ffn == core::FfnPlan::Moe) dl->AddRectFilled(ImVec2(x0, o.y + h * 0.8f), ImVec2(x1, o.y + h), text_weak());
  }
  ImGui::Dummy(ImVec2(w, h));
  if (ImGui::IsItemHovered()) {
    const i64 l = std::min<i64>(n - 1, static_cast<i64>((ImGui::GetMousePos().x - o.x) / cell));
    const auto& L = plan.layers[static_cast<size_t>(std::max<i64>(0, l))];
    const core::CacheShape& s = plan.caches[static_cast<size_t>(L.cache)];
    ImGui::SetTooltip("layer %lld: %s mixer (%s), %s FFN", static_cast<long long>(l),
                      std::string(core::to_string(s.kind)).c_str(), kept_text(s).c_str(),
                      L.ffn == core::FfnPlan::Moe ? "MoE" : L.ffn == core::FfnPlan::None ? "no" : "dense");
  }
  mark("plan.strip");
}

}  // namespace

void draw_layer_plan(const core::LayerPlan& plan) {
  section("Layer plan: what each layer keeps per token");
  layer_strip(plan);
  const i64 moe = plan.moe_in(plan.all());
  ImGui::TextDisabled("%lld layers: %lld with a dense FFN, %lld with MoE (marked along the bottom); bytes per token "
                      "at KV dtype %s on one GPU of tensor parallel %lld%s",
                      static_cast<long long>(plan.layers.size()), static_cast<long long>(plan.layers.size()) - moe,
                      static_cast<long long>(moe), std::string(core::to_string(plan.kv_dtype)).c_str(),
                      static_cast<long long>(plan.tp),
                      plan.state_bytes_per_sequence() > 0 ? "; linear layers keep a fixed state per sequence" : "");
  if (ImGui::BeginTable("plan", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("attention cache", ImGuiTableColumnFlags_WidthStretch, 0.22f);
    ImGui::TableSetupColumn("layers", ImGuiTableColumnFlags_WidthStretch, 0.08f);
    ImGui::TableSetupColumn("tokens kept", ImGuiTableColumnFlags_WidthStretch, 0.18f);
    ImGui::TableSetupColumn("KV heads per GPU", ImGuiTableColumnFlags_WidthStretch, 0.18f);
    ImGui::TableSetupColumn("K / V head dims", ImGuiTableColumnFlags_WidthStretch, 0.14f);
    ImGui::TableSetupColumn("bytes / token / layer", ImGuiTableColumnFlags_WidthStretch, 0.2f);
    // A linear-attention row shows its state per sequence instead (constant in context).
    ImGui::TableHeadersRow();
    for (size_t k = 0; k < plan.caches.size(); ++k) {
      const core::CacheShape& s = plan.caches[k];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::ColorButton(("##kind" + std::to_string(k)).c_str(), series_colour_v(static_cast<int>(k)),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()));
      ImGui::SameLine();
      ImGui::TextUnformatted(std::string(core::to_string(s.kind)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(core::with_commas(s.layers).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(kept_text(s).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(heads_text(s).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted((core::with_commas(s.k_dim) + " / " + core::with_commas(s.v_dim)).c_str());
      ImGui::TableNextColumn();
      if (core::is_stateful(s.kind))
        ImGui::TextUnformatted(("state " + core::with_commas(s.state_bytes_gpu) + " / sequence").c_str());
      else if (s.kind == core::AttnKind::FullMamba)
        ImGui::TextUnformatted((core::with_commas(s.bytes_per_token_gpu) + " + state " + core::with_commas(s.state_bytes_gpu) +
                                " / sequence").c_str());
      else if (s.index_bytes_per_token > 0)
        ImGui::TextUnformatted((core::with_commas(s.bytes_per_token_gpu) + " + indexer " +
                                core::with_commas(s.index_bytes_per_token)).c_str());
      else
        ImGui::TextUnformatted(core::with_commas(s.bytes_per_token_gpu).c_str());
    }
    ImGui::EndTable();
  }
  mark("plan.table");
}

}  // namespace llmsize::app

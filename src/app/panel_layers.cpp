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
  if (core::is_stateful(s.kind)) return T(Str::plan_kept_state);
  if (s.kind == core::AttnKind::FullMamba) return T(Str::plan_kept_all_state);
  if (s.kind == core::AttnKind::Shared) return T(Str::plan_kept_shared);
  if (s.kind == core::AttnKind::None) return T(Str::plan_kept_mlp);
  if (s.index_bytes_per_token > 0) return T(Str::plan_kept_indexer);
  return s.window > 0 ? printf_text(T(Str::plan_kept_window), core::with_commas(s.window).c_str()) : std::string(T(Str::plan_kept_all));
}

std::string heads_text(const core::CacheShape& s) {
  if (core::is_mla(s.kind)) return T(Str::plan_heads_latent);
  if (s.kind == core::AttnKind::None) return "-";
  if (core::is_stateful(s.kind)) {  // heads of the recurrent state
    if (s.heads_gpu != s.heads)
      return printf_text(T(Str::plan_heads_value_of), core::with_commas(s.heads_gpu).c_str(), core::with_commas(s.heads).c_str());
    return printf_text(T(Str::plan_heads_value), core::with_commas(s.heads_gpu).c_str());
  }
  if (s.heads_gpu != s.heads)
    return printf_text(T(Str::plan_heads_of), core::with_commas(s.heads_gpu).c_str(), core::with_commas(s.heads).c_str());
  return core::with_commas(s.heads_gpu);
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
    ImGui::SetTooltip(T(Str::plan_layer_tip), static_cast<long long>(l), std::string(tr_name("attn", core::to_string(s.kind))).c_str(),
                      kept_text(s).c_str(),
                      T(L.ffn == core::FfnPlan::Moe ? Str::plan_ffn_moe : L.ffn == core::FfnPlan::None ? Str::plan_ffn_none
                                                                                                       : Str::plan_ffn_dense));
  }
  mark("plan.strip");
}

}  // namespace

void draw_layer_plan(const core::LayerPlan& plan) {
  section(T(Str::plan_title));
  layer_strip(plan);
  const i64 moe = plan.moe_in(plan.all());
  ImGui::TextDisabled(T(Str::plan_summary),
                      static_cast<long long>(plan.layers.size()), static_cast<long long>(plan.layers.size()) - moe,
                      static_cast<long long>(moe), std::string(core::to_string(plan.kv_dtype)).c_str(),
                      static_cast<long long>(plan.tp),
                      plan.state_bytes_per_sequence() > 0 ? T(Str::plan_summary_state) : "");
  if (ImGui::BeginTable("plan", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn(T(Str::plan_col_cache), ImGuiTableColumnFlags_WidthStretch, 0.22f);
    ImGui::TableSetupColumn(T(Str::col_layers), ImGuiTableColumnFlags_WidthStretch, 0.08f);
    ImGui::TableSetupColumn(T(Str::plan_col_kept), ImGuiTableColumnFlags_WidthStretch, 0.18f);
    ImGui::TableSetupColumn(T(Str::plan_col_heads), ImGuiTableColumnFlags_WidthStretch, 0.18f);
    ImGui::TableSetupColumn(T(Str::plan_col_dims), ImGuiTableColumnFlags_WidthStretch, 0.14f);
    ImGui::TableSetupColumn(T(Str::plan_col_bytes), ImGuiTableColumnFlags_WidthStretch, 0.2f);
    // A linear-attention row shows its state per sequence instead (constant in context).
    ImGui::TableHeadersRow();
    for (size_t k = 0; k < plan.caches.size(); ++k) {
      const core::CacheShape& s = plan.caches[k];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::ColorButton(("##kind" + std::to_string(k)).c_str(), series_colour_v(static_cast<int>(k)),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()));
      ImGui::SameLine();
      ImGui::TextUnformatted(std::string(tr_name("attn", core::to_string(s.kind))).c_str());
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
        ImGui::TextUnformatted(printf_text(T(Str::plan_bytes_state), core::with_commas(s.state_bytes_gpu).c_str()).c_str());
      else if (s.kind == core::AttnKind::FullMamba)
        ImGui::TextUnformatted(printf_text(T(Str::plan_bytes_token_state), core::with_commas(s.bytes_per_token_gpu).c_str(),
                                   core::with_commas(s.state_bytes_gpu).c_str())
                                   .c_str());
      else if (s.index_bytes_per_token > 0)
        ImGui::TextUnformatted(printf_text(T(Str::plan_bytes_indexer), core::with_commas(s.bytes_per_token_gpu).c_str(),
                                   core::with_commas(s.index_bytes_per_token).c_str())
                                   .c_str());
      else
        ImGui::TextUnformatted(core::with_commas(s.bytes_per_token_gpu).c_str());
    }
    ImGui::EndTable();
  }
  mark("plan.table");
}

}  // namespace llmsize::app

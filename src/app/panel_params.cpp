// Results › Parameters: exact count by module and per layer kind, the classic
// 12·L·d² + v·d estimate beside it with the reasons for the gap, and the tensor inventory.
#include <string>

#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/format.hpp"
#include "core/inventory.hpp"
#include "core/report.hpp"

namespace llmsize::app {

namespace {

using core::i64;

std::string shape_text(const core::Tensor& t) {
  std::string s = t.is_matrix() ? core::with_commas(t.rows) + " x " + core::with_commas(t.cols)
                                : core::with_commas(t.cols);
  if (t.copies > 1) s = std::to_string(t.copies) + " x (" + s + ")";
  return s;
}

void tensor_table(const char* id, const std::vector<core::Tensor>& ts, i64 layer) {
  if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
  ImGui::TableSetupColumn(T(Str::col_tensor), ImGuiTableColumnFlags_WidthStretch, 0.55f);
  ImGui::TableSetupColumn(T(Str::col_shape), ImGuiTableColumnFlags_WidthStretch, 0.28f);
  ImGui::TableSetupColumn(T(Str::col_params_short), ImGuiTableColumnFlags_WidthStretch, 0.17f);
  ImGui::TableHeadersRow();
  for (const auto& t : ts) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::tensor_name(t.name, layer).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", shape_text(t).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::with_commas(t.numel()).c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_params_results(App& app, const core::ParamReport& p, const core::LayerPlan* plan) {
  const AppState& s = app.state;
  const float s1 = app.scale;
  ImGui::TextDisabled("%s", core::architecture_summary(s.cfg, ui_lang()).c_str());
  ImGui::Spacing();
  const float col = 190 * s1;
  big_number(app.fonts, T(Str::params_exact), core::short_count(p.total), core::with_commas(p.total), col);
  mark("figure.total");
  if (s.cfg.is_moe()) {
    flow_same_line(col);
    big_number(app.fonts, T(Str::params_active), core::short_count(p.active), core::with_commas(p.active), col);
  }
  flow_same_line(col);
  big_number(app.fonts, "12·L·d² + v·d", core::short_count(p.approx_12nd2_vd), T(Str::params_classic), col);
  if (p.mtp > 0) {
    flow_same_line(col);
    big_number(app.fonts, T(Str::params_mtp), core::short_count(p.mtp), core::with_commas(p.mtp), col);
  }
  if (p.mtp > 0 && p.vision > 0) {  // the language model, its tower and MTP block: a safetensors count
    const core::i64 all = p.total + p.mtp + p.vision;
    flow_same_line(col);
    big_number(app.fonts, T(Str::params_checkpoint), core::short_count(all), core::with_commas(all), col);
    mark("figure.checkpoint");
  }

  section(T(Str::params_by_module));
  if (ImGui::BeginTable("by_group", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn(T(Str::col_module), ImGuiTableColumnFlags_WidthStretch, 0.25f);
    ImGui::TableSetupColumn(T(Str::col_parameters), ImGuiTableColumnFlags_WidthStretch, 0.30f);
    ImGui::TableSetupColumn(T(Str::col_share), ImGuiTableColumnFlags_WidthStretch, 0.45f);
    ImGui::TableHeadersRow();
    for (int g = 0; g < core::kGroupCount; ++g) {
      const auto grp = static_cast<core::Group>(g);
      if (grp == core::Group::Mtp) continue;
      const core::i64 v = p.by_group[static_cast<size_t>(g)];
      if (v == 0) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(tr_name("group", core::to_string(grp))).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(core::with_commas(v).c_str());
      ImGui::TableNextColumn();
      const float frac = p.total > 0 ? static_cast<float>(static_cast<double>(v) / static_cast<double>(p.total)) : 0.f;
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.1f%%", frac * 100.0f);
      ImGui::ProgressBar(frac, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight()), pct);
    }
    ImGui::EndTable();
  }

  section(T(Str::params_per_layer));
  if (ImGui::BeginTable("kinds", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableSetupColumn(T(Str::col_layer_kind));
    ImGui::TableSetupColumn(T(Str::col_layers));
    ImGui::TableSetupColumn(T(Str::col_params_per_layer));
    ImGui::TableSetupColumn(T(Str::col_active_per_layer));
    ImGui::TableHeadersRow();
    for (const auto& k : p.kinds) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(core::kind_text(k, ui_lang()).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(k.layers));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(core::with_commas(k.params_per_layer).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(core::with_commas(k.active_per_layer).c_str());
    }
    ImGui::EndTable();
  }
  if (plan) draw_layer_plan(*plan);

  section(T(Str::params_exact_vs_classic));
  explained_value("approx_att", T(Str::params_approx_att), core::with_commas(p.approx_attention), T(Str::params_approx_att_why));
  explained_value("approx_ffn", T(Str::params_approx_ffn), core::with_commas(p.approx_ffn), T(Str::params_approx_ffn_why));
  explained_value("approx_emb", T(Str::params_approx_emb), core::with_commas(p.approx_embedding), T(Str::params_approx_emb_why));
  explained_value("approx_sum", "12·L·d² + v·d", core::with_commas(p.approx_12nd2_vd), "");
  explained_value("exact", T(Str::params_exact_inventory), core::with_commas(p.total), "");
  ImGui::Spacing();
  if (!p.gap.empty() && ImGui::BeginTable("gap", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn(T(Str::col_why_differ), ImGuiTableColumnFlags_WidthStretch, 0.22f);
    ImGui::TableSetupColumn(T(Str::col_exact_minus_classic), ImGuiTableColumnFlags_WidthStretch, 0.2f);
    ImGui::TableSetupColumn(T(Str::col_explanation), ImGuiTableColumnFlags_WidthStretch, 0.58f);
    ImGui::TableHeadersRow();
    for (const auto& item : p.gap) {
      const core::GapItem g = core::gap_words(s.cfg, p, item, ui_lang());
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(g.cause.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(((g.delta > 0 ? "+" : "") + core::with_commas(g.delta)).c_str());
      ImGui::TableNextColumn();
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", g.why.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::EndTable();
  }

  section(T(Str::params_inventory));
  auto inv = core::build_inventory(s.cfg);
  if (!inv) return;
  if (ImGui::TreeNode("outside", "%s", T(Str::params_outside_layers))) {
    tensor_table("global", inv->global, -1);
    ImGui::TreePop();
  }
  for (const auto& k : inv->kinds) {
    if (ImGui::TreeNode(k.label.c_str(), T(Str::params_kind_layers), core::kind_text(k, ui_lang()).c_str(), static_cast<int>(k.layers.size()))) {
      tensor_table(k.label.c_str(), k.tensors, k.layers.empty() ? 0 : k.layers.front());
      ImGui::TreePop();
    }
  }
  for (const auto& k : inv->mtp) {
    if (ImGui::TreeNode(("mtp" + k.label).c_str(), T(Str::params_mtp_kind), core::kind_text(k, ui_lang()).c_str(), static_cast<int>(k.layers.size()))) {
      tensor_table(("mtp" + k.label).c_str(), k.tensors, k.layers.empty() ? 0 : k.layers.front());
      ImGui::TreePop();
    }
  }
}

}  // namespace llmsize::app

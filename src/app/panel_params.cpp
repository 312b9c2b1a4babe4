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
  ImGui::TableSetupColumn("tensor", ImGuiTableColumnFlags_WidthStretch, 0.55f);
  ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthStretch, 0.28f);
  ImGui::TableSetupColumn("params", ImGuiTableColumnFlags_WidthStretch, 0.17f);
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
  ImGui::TextDisabled("%s", core::architecture_summary(s.cfg).c_str());
  ImGui::Spacing();
  const float col = 190 * s1;
  big_number(app.fonts, "PARAMETERS (EXACT)", core::short_count(p.total), core::with_commas(p.total), col);
  mark("figure.total");
  if (s.cfg.is_moe()) {
    flow_same_line(col);
    big_number(app.fonts, "ACTIVE PER TOKEN", core::short_count(p.active), core::with_commas(p.active), col);
  }
  flow_same_line(col);
  big_number(app.fonts, "12·L·d² + v·d", core::short_count(p.approx_12nd2_vd), "classic estimate", col);
  if (p.mtp > 0) {
    flow_same_line(col);
    big_number(app.fonts, "MTP LAYERS (NOT IN TOTAL)", core::short_count(p.mtp), core::with_commas(p.mtp), col);
  }

  section("By module");
  if (ImGui::BeginTable("by_group", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("module", ImGuiTableColumnFlags_WidthStretch, 0.25f);
    ImGui::TableSetupColumn("parameters", ImGuiTableColumnFlags_WidthStretch, 0.30f);
    ImGui::TableSetupColumn("share of total", ImGuiTableColumnFlags_WidthStretch, 0.45f);
    ImGui::TableHeadersRow();
    for (int g = 0; g < core::kGroupCount; ++g) {
      const auto grp = static_cast<core::Group>(g);
      if (grp == core::Group::Mtp) continue;
      const core::i64 v = p.by_group[static_cast<size_t>(g)];
      if (v == 0) continue;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(std::string(core::to_string(grp)).c_str());
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

  section("Per layer");
  if (ImGui::BeginTable("kinds", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableSetupColumn("layer kind");
    ImGui::TableSetupColumn("layers");
    ImGui::TableSetupColumn("params per layer");
    ImGui::TableSetupColumn("active per layer");
    ImGui::TableHeadersRow();
    for (const auto& k : p.kinds) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.label.c_str());
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

  section("Exact count against 12·L·d² + v·d");
  explained_value("approx_att", "attention, 4·L·d²", core::with_commas(p.approx_attention),
                  "Four d x d projections (q, k, v, o) per layer, as in Kaplan et al. 2020.");
  explained_value("approx_ffn", "FFN, 8·L·d²", core::with_commas(p.approx_ffn),
                  "Two d x 4d matrices per layer (classic MLP with a 4x expansion).");
  explained_value("approx_emb", "embedding, v·d", core::with_commas(p.approx_embedding),
                  "One token-embedding table, the head tied to it; no biases, norms or positions.");
  explained_value("approx_sum", "12·L·d² + v·d", core::with_commas(p.approx_12nd2_vd), "");
  explained_value("exact", "exact (from the tensor inventory)", core::with_commas(p.total), "");
  ImGui::Spacing();
  if (!p.gap.empty() && ImGui::BeginTable("gap", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("why they differ", ImGuiTableColumnFlags_WidthStretch, 0.22f);
    ImGui::TableSetupColumn("exact - classic", ImGuiTableColumnFlags_WidthStretch, 0.2f);
    ImGui::TableSetupColumn("explanation", ImGuiTableColumnFlags_WidthStretch, 0.58f);
    ImGui::TableHeadersRow();
    for (const auto& g : p.gap) {
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

  section("Tensor inventory");
  auto inv = core::build_inventory(s.cfg);
  if (!inv) return;
  if (ImGui::TreeNode("Outside the layers")) {
    tensor_table("global", inv->global, -1);
    ImGui::TreePop();
  }
  for (const auto& k : inv->kinds) {
    if (ImGui::TreeNode(k.label.c_str(), "%s layers (%zu), one layer", k.label.c_str(), k.layers.size())) {
      tensor_table(k.label.c_str(), k.tensors, k.layers.empty() ? 0 : k.layers.front());
      ImGui::TreePop();
    }
  }
  for (const auto& k : inv->mtp) {
    if (ImGui::TreeNode(("mtp" + k.label).c_str(), "%s (%zu), not in the total", k.label.c_str(), k.layers.size())) {
      tensor_table(("mtp" + k.label).c_str(), k.tensors, k.layers.empty() ? 0 : k.layers.front());
      ImGui::TreePop();
    }
  }
}

}  // namespace llmsize::app

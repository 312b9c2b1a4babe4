// Results › Demo: runs one real decoder block of the model (or a scaled one when it would
// not fit the memory budget, said plainly) with a progress bar, then shows measured time,
// GFLOP/s and memory measured beside the estimator's figure, the attention heat map (drawn by
// the platform with shaders/heatmap.*) and, for a recurrent layer, its state's norm over positions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "app/field_editor.hpp"
#include "app/figures.hpp"
#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/format.hpp"

namespace llmsize::app {

namespace {

// A measured-beside-estimated table: the block's column, measured, estimated, and "equal" marks.
bool begin_memory_table(const char* id) {
  if (!ImGui::BeginTable(id, 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) return false;
  ImGui::TableSetupColumn(T(Str::demo_col_block));
  ImGui::TableSetupColumn(T(Str::demo_col_measured));
  ImGui::TableSetupColumn(T(Str::demo_col_estimated));
  ImGui::TableSetupColumn("");
  ImGui::TableHeadersRow();
  return true;
}

void memory_row(const char* what, core::i64 measured, core::i64 estimated, core::ByteUnit u) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(what);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(format_bytes_auto(measured, u).c_str());
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(format_bytes_auto(estimated, u).c_str());
  ImGui::TableNextColumn();
  if (measured == estimated) ImGui::TextColored(ok_colour(), "%s", T(Str::demo_equal));
}

// The training step's counters beside the core's figures (ref/train.hpp), once it has run.
void draw_train(const DemoUi& d, const AppState& s) {
  const ref::DemoResults& r = ref::demo_results(*d.demo);
  for (const auto& is : r.train_issues) error_text(printf_text(T(Str::demo_train_failed), core::to_string(is, ui_lang()).c_str()));
  if (!r.train) return;
  const ref::TrainMemory& m = r.train->memory;
  const ref::TrainSettings t = d.settings.train();
  section(printf_text(T(Str::demo_train_title), static_cast<long long>(r.train_layer)).c_str());
  const std::string how = t.lora_rank > 0 ? printf_text(T(Str::demo_train_lora), static_cast<long long>(t.lora_rank),
                                                        core::flags_text(*ref::find_demo_field("lora_targets"), t.lora_targets).c_str())
                                          : std::string(T(Str::demo_train_full));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text(T(Str::demo_train_setup), static_cast<long long>(t.micro_batch), static_cast<long long>(t.seq), how.c_str(),
              std::string(core::to_string(t.recompute)).c_str(), core::format_duration(r.train->ms / 1e3, ui_lang()).c_str(),
              r.train->loss_before, r.train->loss_after);
  ImGui::PopTextWrapPos();
  if (begin_memory_table("demo_train")) {
    memory_row(T(Str::demo_weights), m.weights_measured, m.weights_estimated, s.unit);
    if (m.adapters_measured || m.adapters_estimated) memory_row(T(Str::demo_train_adapters), m.adapters_measured, m.adapters_estimated, s.unit);
    memory_row(T(Str::demo_train_saved), m.saved_measured, m.saved_estimated, s.unit);
    if (m.recompute_measured || m.recompute_estimated)
      memory_row(T(Str::demo_train_rebuilt), m.recompute_measured, m.recompute_estimated, s.unit);
    memory_row(T(Str::demo_train_grads), m.gradients_measured, m.gradients_estimated, s.unit);
    memory_row(T(Str::demo_train_optimizer), m.optimizer_measured, m.optimizer_estimated, s.unit);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(T(Str::demo_train_working));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_bytes_auto(m.working_measured, s.unit).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("-");
    ImGui::TableNextColumn();
    memory_row(T(Str::demo_train_peak), m.peak_measured, m.formula_total, s.unit);
    ImGui::EndTable();
  }
  mark("demo.train");
  ImGui::PushTextWrapPos(0.0f);
  for (const auto& n : r.train->notes) ImGui::TextDisabled("%s", core::message_in(n, ui_lang()).c_str());
  ImGui::TextDisabled("%s", T(Str::demo_train_notes));
  ImGui::PopTextWrapPos();
}

void draw_heat_map(App& app, DemoUi& d) {
  if (d.heat.empty()) return;
  section(T(Str::demo_heat_title));
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = std::clamp(static_cast<float>(d.heat_heads) * 14.0f * app.scale, 120.0f * app.scale, 320.0f * app.scale);
  const int tw = std::max(1, static_cast<int>(w)), th = std::max(1, static_cast<int>(h));
  const float pmax = *std::max_element(d.heat.begin(), d.heat.end());
  if (app.hooks.heatmap && (d.heat_dirty || !d.heat_texture)) {
    d.heat_texture = app.hooks.heatmap->render(d.heat.data(), static_cast<int>(d.heat_heads),
                                               static_cast<int>(d.heat_positions), pmax, tw, th, clear_colour());
    d.heat_dirty = false;
  }
  if (!d.heat_texture) {
    ImGui::TextDisabled("%s", T(Str::demo_no_renderer));
    return;
  }
  ImGui::Image(d.heat_texture, ImVec2(w, h));
  mark("demo.heatmap");
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos, a = ImGui::GetItemRectMin();
    const auto pos = static_cast<long long>((m.x - a.x) / w * static_cast<float>(d.heat_positions));
    const auto head = static_cast<long long>((m.y - a.y) / h * static_cast<float>(d.heat_heads));
    if (pos >= 0 && pos < d.heat_positions && head >= 0 && head < d.heat_heads)
      ImGui::SetTooltip(T(Str::demo_heat_tip), head, pos,
                        static_cast<double>(d.heat[static_cast<size_t>(head * d.heat_positions + pos)]));
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(T(Str::demo_heat_caption),
                      d.heat_heads, d.heat_positions, d.heat_query, static_cast<double>(pmax));
  ImGui::PopTextWrapPos();
}

// The recurrent state's norm over positions, where a heat map has nothing to show: one thin line per
// head (the first DemoUi::kTraceHeads), the mean over every head thick, through the positions where
// the state was materialized (each prefill chunk's end, then every decoded token).
void draw_state_trace(App& app, const DemoUi& d) {
  if (d.state_layer < 0 || d.state_positions == 0) return;
  float vmax = 0.0f;
  for (float v : d.state_norms) vmax = std::isfinite(v) ? std::max(vmax, v) : vmax;
  for (float v : d.state_mean) vmax = std::isfinite(v) ? std::max(vmax, v) : vmax;
  if (vmax <= 0.0f) return;  // nothing recorded yet
  section(T(Str::demo_state_title));
  const float w = ImGui::GetContentRegionAvail().x, h = 160.0f * app.scale, pad = 6.0f * app.scale;
  const ImVec2 a = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##state_trace", ImVec2(w, h));
  mark("demo.state_trace");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(a, ImVec2(a.x + w, a.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
  const auto P = static_cast<float>(d.state_positions);
  auto at = [&](long long p, float v) {
    return ImVec2(a.x + (static_cast<float>(p) + 0.5f) / P * w, a.y + h - pad - v / vmax * (h - 2 * pad));
  };
  std::vector<ImVec2> pts;
  auto line = [&](auto value, ImU32 col, float thick) {
    pts.clear();
    for (long long p = 0; p < d.state_positions; ++p)
      if (const float v = value(p); std::isfinite(v)) pts.push_back(at(p, v));
    if (pts.size() == 1) dl->AddCircleFilled(pts[0], thick + 1.5f, col);
    else if (pts.size() > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, 0, thick);
  };
  for (long long hd = 0; hd < d.state_shown; ++hd)
    line([&](long long p) { return d.state_norms[static_cast<size_t>(p * d.state_shown + hd)]; },
         ImColor::HSV(static_cast<float>(hd) / static_cast<float>(d.state_shown), 0.55f, 0.85f, 0.8f), 1.0f * app.scale);
  line([&](long long p) { return d.state_mean[static_cast<size_t>(p)]; }, ImGui::GetColorU32(ImGuiCol_Text), 2.5f * app.scale);
  const ImU32 label = ImGui::GetColorU32(ImGuiCol_TextDisabled);  // axes: the top value, the first and last position
  char txt[48];
  std::snprintf(txt, sizeof txt, "%.3g", static_cast<double>(vmax));
  dl->AddText(ImVec2(a.x + pad, a.y + pad), label, txt);
  dl->AddText(ImVec2(a.x + pad, a.y + h - pad - ImGui::GetTextLineHeight()), label, T(Str::demo_position0));
  std::snprintf(txt, sizeof txt, "%lld", d.state_positions - 1);
  dl->AddText(ImVec2(a.x + w - pad - ImGui::CalcTextSize(txt).x, a.y + h - pad - ImGui::GetTextLineHeight()), label, txt);
  long long points = 0;
  for (float v : d.state_mean) points += std::isfinite(v) ? 1 : 0;
  if (ImGui::IsItemHovered()) {  // the recorded position nearest the mouse
    const float mx = ImGui::GetIO().MousePos.x;
    long long best = -1;
    for (long long p = 0; p < d.state_positions; ++p)
      if (std::isfinite(d.state_mean[static_cast<size_t>(p)]) && (best < 0 || std::fabs(at(p, 0).x - mx) < std::fabs(at(best, 0).x - mx)))
        best = p;
    if (best >= 0) {
      float hmax = 0.0f;
      for (long long hd = 0; hd < d.state_shown; ++hd) hmax = std::max(hmax, d.state_norms[static_cast<size_t>(best * d.state_shown + hd)]);
      ImGui::SetTooltip(T(Str::demo_state_tip), best,
                        static_cast<double>(d.state_mean[static_cast<size_t>(best)]), d.state_heads, d.state_shown - 1,
                        static_cast<double>(hmax));
    }
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled(T(Str::demo_state_caption),
                      d.state_layer, d.state_mamba ? "Mamba-2" : "Gated DeltaNet", points, d.state_positions,
                      d.state_shown, d.state_heads, static_cast<double>(vmax));
  ImGui::PopTextWrapPos();
}

}  // namespace

void draw_demo_panel(App& app) {
  DemoUi& d = app.demo;
  const AppState& s = app.state;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", T(Str::demo_intro));
  ImGui::PopTextWrapPos();

  if (ImGui::BeginTable("demo_settings", 2, ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("l", ImGuiTableColumnFlags_WidthStretch, 0.4f);
    ImGui::TableSetupColumn("v", ImGuiTableColumnFlags_WidthStretch, 0.6f);
    for (const auto& f : ref::demo_fields()) {
      if (f.flag.empty()) continue;  // set by code only (the prefill chunk)
      edit_field_row(f, d.settings, d.edits[std::string(f.key)], {});
      mark(("demo." + std::string(f.key)).c_str());
    }
    ImGui::EndTable();
  }

  // The plan is validated every frame: settings out of range show here, not when running.
  auto plan = ref::plan_demo(s.cfg, d.settings);
  if (!plan) {
    for (const auto& is : plan.issues()) error_text(core::to_string(is, ui_lang()));
  } else {
    const auto& p = plan.value();
    bool linear = false;
    std::string layers = T(p.layers.size() > 1 ? Str::demo_layers : Str::demo_layer);
    for (size_t i = 0; i < p.layers.size(); ++i) {
      layers += (i ? ", " : " ") + std::to_string(p.layers[i]);
      if (p.model.layer_is_linear(p.layers[i])) linear = true, layers += " (Gated DeltaNet)";
    }
    if (p.layers.size() > 1) layers += T(Str::demo_one_per_kind);
    ImGui::Text(T(Str::demo_block), layers.c_str(), p.moe ? " (MoE)" : "",
                T(p.scaled ? Str::demo_scaled_to_fit : Str::demo_real_dims),
                format_bytes_auto(p.bytes, s.unit).c_str());
    if (p.scaled) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextColored(error_colour(), T(Str::demo_scaled), ref::scaling_text(p, ui_lang()).c_str());
      ImGui::PopTextWrapPos();
    }
    if (linear && p.layers.size() == 1)
      ImGui::TextDisabled("%s", T(Str::demo_linear_no_map));
  }

  if (!d.running) {
    ImGui::BeginDisabled(!plan);
    ImGui::PushStyleColor(ImGuiCol_Button, series_colour_v(0));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    if (ImGui::Button(TL(Str::demo_run, "run"))) demo_start(d, s.cfg);
    ImGui::PopStyleColor(2);
    mark("demo.run");
    ImGui::EndDisabled();
  } else {
    if (ImGui::Button(TL(Str::demo_cancel, "cancel"))) demo_cancel(d);
    mark("demo.cancel");
  }
  if (!d.error.empty()) error_text(d.error);
  if (!d.demo) return;

  const auto& pr = d.progress;
  char overlay[160];
  std::snprintf(overlay, sizeof overlay, "%s  %.0f%%", T(ref::phase_row(pr.phase)), pr.fraction * 100.0);
  ImGui::ProgressBar(static_cast<float>(pr.fraction), ImVec2(-FLT_MIN, 0), overlay);
  mark("demo.progress");
  ImGui::TextDisabled(T(Str::demo_progress), static_cast<long long>(pr.prefilled),
                      static_cast<long long>(d.settings.prompt), static_cast<long long>(pr.decoded),
                      static_cast<long long>(d.settings.tokens), pr.op.empty() ? "" : T(Str::demo_now),
                      ref::progress_op(pr, ui_lang()).c_str());

  const ref::DemoResults& r = ref::demo_results(*d.demo);
  if (r.prefill_done || r.decode_done) {
    section(T(Str::demo_measured));
    if (ImGui::BeginTable("demo_times", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame)) {
      ImGui::TableSetupColumn(T(Str::demo_col_phase));
      ImGui::TableSetupColumn(T(Str::demo_col_time));
      ImGui::TableSetupColumn(T(Str::demo_col_per_token));
      ImGui::TableSetupColumn("GFLOP/s");
      ImGui::TableSetupColumn(T(Str::demo_col_read));
      ImGui::TableHeadersRow();
      auto row = [](const char* name, double ms, double per, double gflops, double gbps) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(core::format_duration(ms / 1e3, ui_lang()).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(core::format_duration(per / 1e3, ui_lang()).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%.1f", gflops);
        ImGui::TableNextColumn();
        if (gbps > 0) ImGui::Text("%.2f", gbps);
        else ImGui::TextDisabled("-");
      };
      if (r.prefill_done) row(T(Str::demo_prefill), r.prefill_ms, r.prefill_ms_per_token, r.prefill_gflops, 0);
      if (r.decode_done) row(T(Str::demo_decode), r.decode_ms, r.decode_ms_per_token, r.decode_gflops, r.decode_gbps);
      ImGui::EndTable();
    }
    ImGui::TextDisabled(T(Str::demo_kernel), r.kernel.c_str(), r.isa.c_str());
    if (r.decode_done && r.model_decode_ms_per_token > 0) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::Text(T(Str::demo_whole_model),
                  core::format_duration(r.model_prefill_ms_per_token / 1e3, ui_lang()).c_str(),
                  core::format_duration(r.model_decode_ms_per_token / 1e3, ui_lang()).c_str());
      ImGui::PopTextWrapPos();
    }
  }
  const ref::MemoryComparison& m = r.memory;
  if (m.peak_measured > 0) {
    section(T(Str::demo_memory));
    if (begin_memory_table("demo_mem")) {
      memory_row(T(Str::demo_weights), m.weights_measured, m.weights_estimated, s.unit);
      memory_row(T(Str::demo_kv), m.kv_measured, m.kv_estimated, s.unit);
      if (m.state_measured || m.state_estimated) memory_row(T(Str::demo_state), m.state_measured, m.state_estimated, s.unit);
      if (m.indexer_measured || m.indexer_estimated) memory_row(T(Str::demo_indexer), m.indexer_measured, m.indexer_estimated, s.unit);
      if (m.attention_estimated) memory_row(T(Str::demo_attn_tmp), m.attention_measured, m.attention_estimated, s.unit);
      if (m.linear_estimated) memory_row(T(Str::demo_linear_tmp), m.linear_measured, m.linear_estimated, s.unit);
      if (m.mamba_estimated) memory_row(T(Str::demo_mamba_tmp), m.mamba_measured, m.mamba_estimated, s.unit);
      if (m.conv_estimated) memory_row(T(Str::demo_conv_tmp), m.conv_measured, m.conv_estimated, s.unit);
      memory_row(T(Str::demo_ffn_tmp), m.ffn_measured, m.ffn_estimated, s.unit);
      if (m.logits_measured || m.logits_estimated) memory_row(T(Str::demo_logits), m.logits_measured, m.logits_estimated, s.unit);
      memory_row(T(Str::demo_activations), m.activations_measured, m.activations_estimated, s.unit);
      memory_row(T(Str::demo_peak), m.peak_measured, m.peak_estimated, s.unit);
      if (m.by_kind.size() > 1)
        for (const auto& k : m.by_kind) {
          if (k.kv_estimated || k.kv_measured)
            memory_row(printf_text("%s · %s", T(Str::demo_kv), k.kind.c_str()).c_str(), k.kv_measured, k.kv_estimated, s.unit);
          if (k.state_estimated || k.state_measured)
            memory_row(printf_text("%s · %s", T(Str::demo_state), k.kind.c_str()).c_str(), k.state_measured, k.state_estimated, s.unit);
        }
      ImGui::EndTable();
    }
    if (!m.notes.empty() && ImGui::TreeNode("why_differ", "%s", T(Str::demo_why_differ))) {
      ImGui::PushTextWrapPos(0.0f);
      for (const auto& n : m.notes) ImGui::BulletText("%s", core::message_in(n, ui_lang()).c_str());
      ImGui::PopTextWrapPos();
      ImGui::TreePop();
    }
  }
  draw_train(d, s);
  draw_heat_map(app, d);
  draw_state_trace(app, d);
}

}  // namespace llmsize::app

// Results › GPUs (the same workload on every GPU of the catalog: memory needed per GPU,
// fit, GPUs needed, throughput bound; a click picks the GPU) and Results › Throughput
// (decode and prefill bounds, training step and total time, each with its formula).
#include <cctype>
#include <cmath>

#include "app/figures.hpp"
#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/figures.hpp"

namespace llmsize::app {

void draw_gpu_table(App& app, const core::Estimate& e) {
  AppState& s = app.state;
  const bool training = s.work.mode == core::Mode::Training;
  const core::ModeFigures& mf = core::mode_figures(s.work.mode);
  const core::ByteUnit u = s.unit;
  ImGui::TextDisabled(T(s.work.gpus > 1 ? Str::gpus_intro_many : Str::gpus_intro_one), static_cast<long long>(s.work.gpus),
                      static_cast<long long>(s.work.tp), static_cast<long long>(s.work.pp));
  const core::WorkloadField* gpu_field = core::find_field("gpu");
  if (!gpu_field) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerH;
  if (!ImGui::BeginTable("gpus", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(T(Str::gpus_col_gpu), ImGuiTableColumnFlags_WidthStretch, 0.34f);
  ImGui::TableSetupColumn(T(Str::gpus_col_memory), ImGuiTableColumnFlags_WidthStretch, 0.12f);
  ImGui::TableSetupColumn(T(Str::gpus_col_needed), ImGuiTableColumnFlags_WidthStretch, 0.15f);
  ImGui::TableSetupColumn(T(Str::gpus_col_fits), ImGuiTableColumnFlags_WidthStretch, 0.09f);
  ImGui::TableSetupColumn(T(Str::gpus_col_count), ImGuiTableColumnFlags_WidthStretch, 0.12f);
  ImGui::TableSetupColumn(T(training ? Str::gpus_col_train_time : Str::gpus_col_decode), ImGuiTableColumnFlags_WidthStretch,
                          0.18f);
  ImGui::TableHeadersRow();
  for (const auto& g : core::gpu_catalog()) {
    core::Workload w = s.work;
    if (gpu_field->set(w, g.id)) continue;
    core::clear_gpu_amendments(w);  // each card as the catalog has it
    w.devices.clear();              // on every device
    auto r = estimate(app, w);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool selected = g.id == s.work.gpu;
    if (ImGui::Selectable(g.name.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) {
      gpu_field->set(s.work, g.id);
      core::clear_gpu_amendments(s.work);
      s.work.devices.clear();
    }
    mark(("gpu:" + g.id).c_str());
    if (ImGui::IsItemHovered() && !g.note.empty()) ImGui::SetTooltip("%s", g.note.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::format_bytes(g.memory_bytes, u).c_str());
    if (!r) {
      ImGui::TableNextColumn();
      ImGui::TextDisabled("-");
      continue;
    }
    const core::Estimate& x = r.value();
    const bool fits = mf.fits(x);
    const core::i64 need = mf.total->value(x).whole;
    const core::i64 min_gpus = mf.min_gpus->value(x).whole;
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::format_bytes(need, u).c_str());
    ImGui::TableNextColumn();
    if (fits) ImGui::TextColored(ok_colour(), "%s", T(Str::yes));
    else ImGui::TextColored(error_colour(), "%s", T(Str::no));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(min_gpus > 0 ? std::to_string(min_gpus).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_value(mf.rate->value(x).as_double(), mf.rate->unit, u).c_str());
  }
  ImGui::EndTable();
  (void)e;
}

// "PREFILL (ESTIMATE)": the caption carries the bound the core gives the figure.
static std::string caption(const std::vector<core::Explanation>& ex, const char* key, Str what) {
  std::string c = T(what);
  if (const core::Explanation* x = find_explanation(ex, key)) {
    std::string b(bound_text(x->bound));
    for (char& ch : b) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    c += " (" + b + ")";
  }
  return c;
}

void draw_throughput_results(App& app, const core::Estimate& e, const std::vector<core::Explanation>& ex) {
  const AppState& s = app.state;
  const bool training = s.work.mode == core::Mode::Training;
  const float col = 210 * app.scale;
  const auto& t = e.throughput;
  if (training) {
    big_number(app.fonts, caption(ex, "throughput.step_seconds", Str::tp_step_time).c_str(),
               core::format_duration(t.step_seconds, ui_lang()), printf_text(T(Str::tp_tokens_per_step), core::short_count(t.tokens_per_step).c_str()), col);
    flow_same_line(col);
    big_number(app.fonts, caption(ex, "throughput.train_seconds", Str::tp_train_time).c_str(),
               core::format_duration(t.train_seconds, ui_lang()), printf_text(T(Str::tp_tokens), core::short_count(t.train_tokens).c_str()), col);
    flow_same_line(col);
    big_number(app.fonts, T(Str::tp_chinchilla), core::short_count(t.chinchilla_tokens), T(Str::tp_chinchilla_detail), col);
  } else {
    big_number(app.fonts, caption(ex, "throughput.decode_tokens_per_s", Str::tp_decode).c_str(),
               format_value(t.decode_tokens_per_s, core::Unit::TokensPerSecond, s.unit), T(Str::tp_decode_detail), col * 1.2f);
    flow_same_line(col);
    big_number(app.fonts, T(Str::tp_per_seq), format_value(t.decode_tokens_per_s_per_seq, core::Unit::TokensPerSecond, s.unit),
               T(Str::tp_upper_bound), col);
    flow_same_line(col);
    big_number(app.fonts, caption(ex, "throughput.prefill_seconds", Str::tp_prefill).c_str(), core::format_duration(t.prefill_seconds, ui_lang()),
               T(Str::tp_prefill_detail), col);
  }
  mark("figure.throughput");
  section(T(Str::mem_every_figure));
  // Decode and prefill figures in inference, the training ones in training.
  explanation_rows(ex, "throughput", s.work.mode, s.unit);
}

}  // namespace llmsize::app

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
  ImGui::TextDisabled("The current model and workload on each GPU of the catalog (%lld GPU%s, tp %lld, pp %lld). "
                      "Click a row to choose that GPU.",
                      static_cast<long long>(s.work.gpus), s.work.gpus > 1 ? "s" : "",
                      static_cast<long long>(s.work.tp), static_cast<long long>(s.work.pp));
  const core::WorkloadField* gpu_field = core::find_field("gpu");
  if (!gpu_field) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerH;
  if (!ImGui::BeginTable("gpus", 6, flags, ImVec2(0, ImGui::GetContentRegionAvail().y))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("GPU", ImGuiTableColumnFlags_WidthStretch, 0.34f);
  ImGui::TableSetupColumn("memory", ImGuiTableColumnFlags_WidthStretch, 0.12f);
  ImGui::TableSetupColumn("needed per GPU", ImGuiTableColumnFlags_WidthStretch, 0.15f);
  ImGui::TableSetupColumn("fits", ImGuiTableColumnFlags_WidthStretch, 0.09f);
  ImGui::TableSetupColumn("GPUs needed", ImGuiTableColumnFlags_WidthStretch, 0.12f);
  ImGui::TableSetupColumn(training ? "training time (bound)" : "decode tokens/s (bound)", ImGuiTableColumnFlags_WidthStretch,
                          0.18f);
  ImGui::TableHeadersRow();
  for (const auto& g : core::gpu_catalog()) {
    core::Workload w = s.work;
    if (gpu_field->set(w, g.id)) continue;
    w.gpu_mem_gib = w.gpu_bw_gbs = w.gpu_tflops = w.wired_limit_gib = 0;  // each card as the catalog has it
    w.devices.clear();                                                    // on every device
    auto r = estimate(app, w);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool selected = g.id == s.work.gpu;
    if (ImGui::Selectable(g.name.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) {
      gpu_field->set(s.work, g.id);
      s.work.gpu_mem_gib = s.work.gpu_bw_gbs = s.work.gpu_tflops = s.work.wired_limit_gib = 0;
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
    if (fits) ImGui::TextColored(ok_colour(), "yes");
    else ImGui::TextColored(error_colour(), "no");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(min_gpus > 0 ? std::to_string(min_gpus).c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_value(mf.rate->value(x).as_double(), mf.rate->unit, u).c_str());
  }
  ImGui::EndTable();
  (void)e;
}

// "PREFILL (ESTIMATE)": the caption carries the bound the core gives the figure.
static std::string caption(const std::vector<core::Explanation>& ex, const char* key, const char* what) {
  std::string c = what;
  if (const core::Explanation* x = find_explanation(ex, key)) {
    std::string b(core::to_string(x->bound));
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
    big_number(app.fonts, caption(ex, "throughput.step_seconds", "STEP TIME").c_str(),
               core::format_duration(t.step_seconds), core::short_count(t.tokens_per_step) + " tokens per step", col);
    flow_same_line(col);
    big_number(app.fonts, caption(ex, "throughput.train_seconds", "TRAINING TIME").c_str(),
               core::format_duration(t.train_seconds), core::short_count(t.train_tokens) + " tokens", col);
    flow_same_line(col);
    big_number(app.fonts, "CHINCHILLA-OPTIMAL DATA", core::short_count(t.chinchilla_tokens), "tokens, about 20 per parameter",
               col);
  } else {
    big_number(app.fonts, caption(ex, "throughput.decode_tokens_per_s", "DECODE").c_str(),
               format_value(t.decode_tokens_per_s, core::Unit::TokensPerSecond, s.unit),
               "all sequences, memory-bandwidth roofline", col * 1.2f);
    flow_same_line(col);
    big_number(app.fonts, "PER SEQUENCE", format_value(t.decode_tokens_per_s_per_seq, core::Unit::TokensPerSecond, s.unit),
               "upper bound", col);
    flow_same_line(col);
    big_number(app.fonts, caption(ex, "throughput.prefill_seconds", "PREFILL").c_str(), core::format_duration(t.prefill_seconds),
               "whole prompt at the set utilization", col);
  }
  mark("figure.throughput");
  section("Every figure, with its formula");
  // Decode and prefill figures in inference, the training ones in training.
  explanation_rows(ex, "throughput", s.work.mode, s.unit);
}

}  // namespace llmsize::app

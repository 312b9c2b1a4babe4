// Workload panel: every field of core::workload_fields() — the mode first, then the fields
// shared by both modes and those of the chosen mode — with inline messages from the field
// setters, validate(workload) and estimate().
#include "app/field_editor.hpp"
#include "app/panels.hpp"
#include "app/widgets.hpp"

namespace llmsize::app {

void draw_workload_panel(App& app, const std::vector<core::Issue>& issues) {
  AppState& s = app.state;
  const auto& fields = core::workload_fields();
  const bool training = s.work.mode == core::Mode::Training;

  // The mode as two large buttons: it decides which fields matter.
  section(T(Str::work_mode));
  const float w = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) / 2;
  for (int i = 0; i < 2; ++i) {
    const bool on = (i == 1) == training;
    if (i) ImGui::SameLine();
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, series_colour_v(0));
    if (on) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
    if (ImGui::Button(TL(i ? Str::work_training : Str::work_inference, i ? "training" : "inference"), ImVec2(w, 0)) && !on)
      if (const core::WorkloadField* f = core::find_field("mode")) f->set(s.work, i ? "training" : "inference");
    if (on) ImGui::PopStyleColor(2);
    mark(i ? "mode.training" : "mode.inference");
  }

  auto group = [&](Str title, core::FieldScope scope) {
    section(T(title));
    if (!ImGui::BeginTable(std::string(core::key_name(title)).c_str(), 2, ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthStretch, 0.45f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch, 0.55f);
    for (const auto& f : fields) {
      if (f.scope != scope || f.key == "mode") continue;
      edit_field_row(f, s.work, s.edits[std::string(f.key)], issues);
      mark(("field:" + std::string(f.key)).c_str());
    }
    ImGui::EndTable();
  };
  group(Str::work_hardware, core::FieldScope::Both);
  if (training) group(Str::work_training, core::FieldScope::Training);
  else group(Str::work_inference, core::FieldScope::Inference);

  // Issues that name no workload field (cross-field checks of the model and workload).
  for (const auto& is : issues) {
    bool known = false;
    for (const auto& f : fields) known |= field_named(f, is.field);
    for (const auto& f : core::model_fields()) known |= field_named(f, is.field);
    if (!known) error_text(core::to_string(is, ui_lang()));
  }
}

}  // namespace llmsize::app

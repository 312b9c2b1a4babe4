// One editor row for a field of a table-driven field list (core::model_fields(),
// core::workload_fields()): label with help, a widget by kind, the strict text setter of
// the core, and inline messages — the parse error of what is being typed and any
// validation issue the core reported for this field.
#pragma once
#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <string>
#include <vector>

#include "app/state.hpp"
#include "app/widgets.hpp"
#include "core/gpus.hpp"
#include "core/issue.hpp"
#include "core/model_fields.hpp"
#include "core/workload.hpp"

namespace llmsize::app {

// What differs between the two field tables.
inline bool field_named(const core::ModelField& f, std::string_view name) {
  return name == f.canonical || name == f.key;
}
inline bool field_named(const core::WorkloadField& f, std::string_view name) { return name == f.key || name == f.flag; }
inline std::string field_allowed(const core::ModelField&) { return {}; }
inline std::string field_allowed(const core::WorkloadField& f) { return core::allowed_text(f); }
inline std::string_view field_config_name(const core::ModelField& f) { return f.canonical; }
inline std::string_view field_config_name(const core::WorkloadField& f) { return f.flag; }
inline std::string choice_label(const core::ModelField&, std::string_view v) { return std::string(v); }
inline std::string choice_label(const core::WorkloadField& f, std::string_view v) {
  if (f.key == "gpu")
    if (const core::Gpu* g = core::find_gpu(v)) return g->name;
  return std::string(v);
}

// Call inside a two-column table. Returns true when the object changed.
template <class Field, class Obj>
bool edit_field_row(const Field& f, Obj& obj, FieldEdit& e, const std::vector<core::Issue>& issues) {
  bool changed = false;
  ImGui::PushID(f.key.data(), f.key.data() + f.key.size());
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(f.label.data(), f.label.data() + f.label.size());
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24.0f);
    ImGui::TextUnformatted(f.help.data(), f.help.data() + f.help.size());
    const std::string allowed = field_allowed(f);
    if (!allowed.empty()) ImGui::TextDisabled("%s", allowed.c_str());
    const auto cn = field_config_name(f);
    ImGui::TextDisabled("link key \"%.*s\", %.*s", static_cast<int>(f.key.size()), f.key.data(),
                        static_cast<int>(cn.size()), cn.data());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  ImGui::TableSetColumnIndex(1);
  ImGui::SetNextItemWidth(-FLT_MIN);
  const std::string current = f.get(obj);
  switch (f.kind) {
    case core::FieldKind::Bool: {
      bool v = current == "1";
      if (ImGui::Checkbox("##v", &v)) changed = !f.set(obj, v ? "1" : "0");
      break;
    }
    case core::FieldKind::Enum: {
      if (ImGui::BeginCombo("##v", choice_label(f, current).c_str())) {
        for (auto c : f.choices) {
          const std::string cs(c);
          if (ImGui::Selectable(choice_label(f, c).c_str(), cs == current) && cs != current) changed = !f.set(obj, cs);
        }
        ImGui::EndCombo();
      }
      break;
    }
    case core::FieldKind::Flags: {
      // One checkbox per member; the text form is the members joined by ',' ("all" = every one).
      std::string next;
      bool toggled = false;
      for (size_t i = 0; i < f.choices.size(); ++i) {
        const std::string m(f.choices[i]);
        bool on = current == "all" || ("," + current + ",").find("," + m + ",") != std::string::npos;
        if (i > 0) ImGui::SameLine();
        toggled |= ImGui::Checkbox(m.c_str(), &on);
        if (on) next += (next.empty() ? "" : ",") + m;
      }
      if (toggled) {
        auto issue = f.set(obj, next);
        e.error = issue ? issue->message : std::string();
        changed = !issue;
      }
      break;
    }
    default: {
      // While the user types, the box keeps their text; otherwise it shows the value.
      if (e.error.empty() && ImGui::GetActiveID() != ImGui::GetID("##v")) e.text = current;
      if (ImGui::InputText("##v", &e.text)) {
        auto issue = f.set(obj, e.text);
        e.error = issue ? issue->message : std::string();
        changed = !issue;
      }
      break;
    }
  }
  if (!e.error.empty()) error_text(e.error);
  for (const auto& is : issues)
    if (field_named(f, is.field)) error_text(is.message);
  ImGui::PopID();
  return changed;
}

}  // namespace llmsize::app

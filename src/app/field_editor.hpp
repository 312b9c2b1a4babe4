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
#include "core/issue.hpp"

namespace llmsize::app {

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
    ImGui::TextDisabled("link key \"%.*s\", config key \"%.*s\"", static_cast<int>(f.key.size()), f.key.data(),
                        static_cast<int>(f.canonical.size()), f.canonical.data());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  ImGui::TableSetColumnIndex(1);
  ImGui::SetNextItemWidth(-FLT_MIN);
  const std::string current = f.get(obj);
  switch (f.kind) {
    case decltype(f.kind)::Bool: {
      bool v = current == "1";
      if (ImGui::Checkbox("##v", &v)) changed = !f.set(obj, v ? "1" : "0");
      break;
    }
    case decltype(f.kind)::Enum: {
      if (ImGui::BeginCombo("##v", current.c_str())) {
        for (auto c : f.choices) {
          const std::string cs(c);
          if (ImGui::Selectable(cs.c_str(), cs == current) && cs != current) changed = !f.set(obj, cs);
        }
        ImGui::EndCombo();
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
    if (is.field == f.canonical || is.field == f.key) error_text(is.message);
  ImGui::PopID();
  return changed;
}

}  // namespace llmsize::app

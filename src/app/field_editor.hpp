// One editor row for a field of a table-driven field list (core::model_fields(),
// core::workload_fields(), ref::demo_fields(): all core::Field<T>): label with help, a
// widget by kind, the strict text setter of the table, and inline messages — the parse error
// of what is being typed and any validation issue reported for this field.
#pragma once
#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <string>
#include <vector>

#include "app/state.hpp"
#include "app/widgets.hpp"
#include "core/field.hpp"
#include "core/gpus.hpp"
#include "core/issue.hpp"
#include "core/model_fields.hpp"
#include "core/workload.hpp"
#include "ref/demo.hpp"

namespace llmsize::app {

// An issue names a field by its key, its canonical name (model) or its CLI flag (workload).
inline bool field_named(const core::FieldSpec& f, std::string_view name) {
  return !name.empty() && (name == f.key || name == f.canonical || name == f.flag);
}
// What differs between the tables: model ranges are what a field can store, not what
// validate() accepts, so the model's tooltips do not show them.
template <class T>
std::string field_allowed(const core::Field<T>& f) {
  return core::allowed_text(f, ui_lang());
}
inline std::string field_allowed(const core::ModelField&) { return {}; }
// The names a field goes by outside the UI, for its tooltip.
inline std::string field_names(const core::ModelField& f) {
  return printf_text(T(Str::field_link_key), std::string(f.key).c_str(), std::string(f.canonical).c_str());
}
inline std::string field_names(const core::WorkloadField& f) {
  return printf_text(T(Str::field_link_key), std::string(f.key).c_str(), std::string(f.flag).c_str());
}
inline std::string field_names(const ref::DemoField& f) { return printf_text(T(Str::field_cli_flag), std::string(f.flag).c_str()); }
// The field table's name in the string tables (core::field_text).
inline std::string_view field_table(const core::ModelField&) { return "model"; }
inline std::string_view field_table(const core::WorkloadField&) { return "workload"; }
inline std::string_view field_table(const ref::DemoField&) { return "demo"; }
// The label and help in the interface's language: the row's own (English) where the language
// has none.
template <class Field>
core::FieldText field_words(const Field& f) {
  if (const core::FieldText* t = core::field_text(field_table(f), f.key, ui_lang())) return *t;
  return {field_table(f), f.key, f.label, f.help};
}
// The workload's GPU ids show as the catalog's names.
inline std::string choice_label(const core::FieldSpec& f, std::string_view v) {
  if (f.key == "gpu") {
    if (const core::Gpu* g = core::find_gpu(v)) return g->name;
    if (v == core::kCustomGpu) return T(Str::field_custom_gpu);
  }
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
  const core::FieldText words = field_words(f);
  ImGui::TextUnformatted(words.label.data(), words.label.data() + words.label.size());
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24.0f);
    ImGui::TextUnformatted(words.help.data(), words.help.data() + words.help.size());
    const std::string allowed = field_allowed(f);
    if (!allowed.empty()) ImGui::TextDisabled("%s", allowed.c_str());
    ImGui::TextDisabled("%s", field_names(f).c_str());
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
        e.error = issue ? core::message_in(*issue, ui_lang()) : std::string();
        changed = !issue;
      }
      break;
    }
    default: {
      // While the user types, the box keeps their text; otherwise it shows the value.
      if (e.error.empty() && ImGui::GetActiveID() != ImGui::GetID("##v")) e.text = current;
      if (ImGui::InputText("##v", &e.text)) {
        auto issue = f.set(obj, e.text);
        e.error = issue ? core::message_in(*issue, ui_lang()) : std::string();
        changed = !issue;
      }
      break;
    }
  }
  if (!e.error.empty()) error_text(e.error);
  for (const auto& is : issues)
    if (field_named(f, is.field)) error_text(core::message_in(is, ui_lang()));
  ImGui::PopID();
  return changed;
}

}  // namespace llmsize::app

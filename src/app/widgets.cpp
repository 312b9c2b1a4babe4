// UI building blocks (see widgets.hpp).
#include "app/widgets.hpp"

#include <array>

#include "app/theme.hpp"

namespace llmsize::app {

namespace {
std::map<std::string, MarkedRect> g_marks;
core::Lang g_lang = core::Lang::En;
}

void set_ui_lang(core::Lang lang) { g_lang = lang; }
core::Lang ui_lang() { return g_lang; }

const char* TL(Str key, const char* id) {
  // ImGui hashes and copies a label when it is passed: a few buffers in turn are enough.
  static std::array<std::string, 8> ring;
  static size_t next = 0;
  std::string& b = ring[next++ % ring.size()];
  b = T(key);
  b += "###";
  b += id;
  return b.c_str();
}

std::string_view tr_name(std::string_view table, std::string_view key, std::string_view english) {
  const core::FieldText* t = core::field_text(table, key, g_lang);
  return t ? t->label : english;
}

const char* bound_text(core::Bound b) { return core::bound_text(b, ui_lang()); }


void mark(const char* name) {
  if (!ImGui::IsItemVisible()) return;  // scrolled out of view: not clickable
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  g_marks[name] = {a.x, a.y, b.x - a.x, b.y - a.y};
}
const std::map<std::string, MarkedRect>& marked_rects() { return g_marks; }
void clear_marks() { g_marks.clear(); }

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void explained_value(const char* id, const std::string& label, const std::string& value,
                     const std::string& explanation, const char* tag) {
  ImGui::PushID(id);
  const float value_x = ImGui::GetContentRegionAvail().x * 0.55f;
  const ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanAvailWidth | ImGuiTreeNodeFlags_NoTreePushOnOpen |
                                   (explanation.empty() ? ImGuiTreeNodeFlags_Leaf : 0);
  const float x0 = ImGui::GetCursorPosX();
  const bool open = ImGui::TreeNodeEx("##row", flags, "%s", label.c_str());
  mark((std::string("row:") + id).c_str());
  ImGui::SameLine(x0 + value_x);
  ImGui::TextUnformatted(value.c_str());
  if (tag) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", tag);
  }
  if (open && !explanation.empty()) {
    ImGui::Indent(ImGui::GetTreeNodeToLabelSpacing());
    ImGui::PushTextWrapPos(0.0f);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextUnformatted(explanation.c_str());
    mark((std::string("open:") + id).c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    ImGui::Unindent(ImGui::GetTreeNodeToLabelSpacing());
  }
  ImGui::PopID();
}

void big_number(const Fonts& fonts, const char* caption, const std::string& value, const std::string& detail,
                float width, const ImVec4* colour) {
  ImGui::BeginGroup();
  ImGui::PushFont(fonts.small);
  ImGui::TextDisabled("%s", caption);
  ImGui::PopFont();
  ImGui::PushFont(fonts.big);
  if (colour) ImGui::PushStyleColor(ImGuiCol_Text, *colour);
  ImGui::TextUnformatted(value.c_str());
  if (colour) ImGui::PopStyleColor();
  ImGui::PopFont();
  ImGui::PushFont(fonts.small);
  ImGui::TextDisabled("%s", detail.c_str());
  ImGui::PopFont();
  ImGui::EndGroup();
  const float used = ImGui::GetItemRectSize().x;
  if (width > used) {
    ImGui::SameLine(0, 0);
    ImGui::Dummy(ImVec2(width - used, 1));
  }
}

void flow_same_line(float next_width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + next_width <= right) ImGui::SameLine();
  else ImGui::Spacing();
}

void error_text(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, error_colour());
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(("! " + text).c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextUnformatted(title);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y - 2), ImVec2(p.x + ImGui::GetContentRegionAvail().x, p.y - 2),
                                      ImGui::GetColorU32(ImGuiCol_Separator));
  ImGui::Spacing();
}

}  // namespace llmsize::app

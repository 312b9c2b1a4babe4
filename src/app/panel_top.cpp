// The top bar (title, model, theme and unit switches, copy link) and the banners that
// report a bad link or a failed import.
#include <imgui.h>

#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/report.hpp"

#include <string>
#include <string_view>

namespace llmsize::app {

namespace {

bool toggle_button(const char* label, bool on) {
  if (on) ImGui::PushStyleColor(ImGuiCol_Button, series_colour_v(0));
  if (on) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  const bool pressed = ImGui::Button(label);
  if (on) ImGui::PopStyleColor(2);
  return pressed;
}

}  // namespace

void draw_top_bar(App& app) {
  AppState& s = app.state;
  const float sc = app.scale;
  ImGui::PushFont(app.fonts.big);
  ImGui::TextUnformatted("llmsize");
  ImGui::PopFont();
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextUnformatted(s.model_name.c_str());
  ImGui::PushFont(app.fonts.small);
  ImGui::TextDisabled("%s", T(Str::top_subtitle));
  ImGui::PopFont();
  ImGui::EndGroup();

  // Right-aligned controls.
  const ImGuiStyle& st = ImGui::GetStyle();
  auto w = [&](const char* t) { return ImGui::CalcTextSize(t).x + st.FramePadding.x * 2 + st.ItemSpacing.x; };
  const char* theme_label = TL(s.dark ? Str::top_light_theme : Str::top_dark_theme, "theme");
  // The language switch names the other language in its own script.
  const char* lang_label = TL(s.lang == core::Lang::Zh ? Str::top_lang_other_en : Str::top_lang_other_zh, "lang");
  const char* copy_label = TL(Str::top_copy_link, "copy_link");
  auto shown = [](const char* label) { return std::string(label, std::string_view(label).find("###")); };
  const float right = w("GB") + w("GiB") + w(shown(lang_label).c_str()) + w(shown(theme_label).c_str()) +
                      w(shown(copy_label).c_str()) + 10 * sc - st.ItemSpacing.x;
  // The controls sit at the right end of the title line, or on their own line when the
  // window is too narrow for both.
  if (ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + st.ItemSpacing.x + right <=
      ImGui::GetWindowContentRegionMax().x)
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - right);
  if (toggle_button("GB", s.unit == core::ByteUnit::GB)) s.unit = core::ByteUnit::GB;
  mark("unit.gb");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", T(Str::top_gb_tip));
  ImGui::SameLine(0, 2 * sc);
  if (toggle_button("GiB", s.unit == core::ByteUnit::GiB)) s.unit = core::ByteUnit::GiB;
  mark("unit.gib");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", T(Str::top_gib_tip));
  ImGui::SameLine(0, 12 * sc);
  if (ImGui::Button(lang_label)) s.lang = s.lang == core::Lang::Zh ? core::Lang::En : core::Lang::Zh;
  mark("lang");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", T(Str::top_lang_tip));
  ImGui::SameLine();
  if (ImGui::Button(theme_label)) s.dark = !s.dark;
  mark("theme");
  ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Button, series_colour_v(0));
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 1, 1, 1));
  if (ImGui::Button(copy_label)) copy_link(app);
  ImGui::PopStyleColor(2);
  mark("copy_link");
  if (app.copied_at >= 0 && ImGui::GetTime() - app.copied_at < 2.0) {
    ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(app.copied_note.c_str()).x);
    ImGui::TextColored(ok_colour(), "%s", app.copied_note.c_str());
  }
  ImGui::Spacing();
}

void draw_banners(App& app) {
  auto& banners = app.state.banners;
  for (size_t i = 0; i < banners.size();) {
    const ImVec4 col = banners[i].error ? error_colour() : ok_colour();
    ImGui::PushID(static_cast<int>(i));
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(col.x, col.y, col.z, 0.14f));
    ImGui::PushStyleColor(ImGuiCol_Border, col);
    const float wrap = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6;
    const std::string text = banner_text(banners[i], ui_lang());
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
    ImGui::BeginChild("banner", ImVec2(0, ts.y + ImGui::GetStyle().WindowPadding.y * 2 + 2), true,
                      ImGuiWindowFlags_NoScrollbar);
    ImGui::PushTextWrapPos(wrap);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    mark("banner");
    const char* retry = T(Str::banner_retry_llama);
    const bool can_retry = !banners[i].retry_text.empty();
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(T(Str::banner_dismiss)).x -
                    ImGui::GetStyle().FramePadding.x * 2 -
                    (can_retry ? ImGui::CalcTextSize(retry).x + ImGui::GetStyle().FramePadding.x * 2 +
                                     ImGui::GetStyle().ItemSpacing.x
                               : 0.0f));
    bool retried = false;
    if (can_retry) {
      retried = ImGui::SmallButton((std::string(retry) + "###retry").c_str());
      mark("banner.retry");
      ImGui::SameLine();
    }
    const bool dismiss = ImGui::SmallButton(TL(Str::banner_dismiss, "dismiss")) || retried;
    ImGui::EndChild();
    ImGui::PopStyleColor(2);
    ImGui::PopID();
    if (retried) {
      const Banner b = banners[i];
      banners.erase(banners.begin() + static_cast<long>(i));
      if (import_config(app.state, b.retry_text, b.retry_name, true)) banners.clear();
      break;  // the list changed
    }
    if (dismiss) banners.erase(banners.begin() + static_cast<long>(i));
    else ++i;
  }
}

}  // namespace llmsize::app

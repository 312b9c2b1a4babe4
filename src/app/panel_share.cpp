// Share panel: the link of the current state and the same state as a CLI command.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/panels.hpp"
#include "app/widgets.hpp"

namespace llmsize::app {

void copy_link(App& app);

void draw_share_panel(App& app) {
  section("Link");
  std::string link = app.hooks.page_url + current_link(app);
  ImGui::TextDisabled("Whoever opens this link sees exactly this state.");
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputText("##link", &link, ImGuiInputTextFlags_ReadOnly);
  mark("share.link");
  if (ImGui::Button("Copy link")) copy_link(app);
}

}  // namespace llmsize::app

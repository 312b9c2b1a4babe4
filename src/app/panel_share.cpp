// Share panel: the link of the current state (whoever opens it sees exactly this state) and
// the same state as a command line of the llmsize CLI.
#include <algorithm>
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/panels.hpp"
#include "app/widgets.hpp"

namespace llmsize::app {

void copy_link(App& app) {
  const std::string link = app.hooks.page_url + current_link(app);
  if (app.hooks.copy_text) app.hooks.copy_text(link);
  app.copied_note = T(Str::share_link_copied);
  app.copied_at = ImGui::GetTime();
}

void draw_share_panel(App& app) {
  section(T(Str::share_link));
  std::string link = app.hooks.page_url + current_link(app);
  ImGui::TextDisabled("%s", T(Str::share_link_hint));
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputText("##link", &link, ImGuiInputTextFlags_ReadOnly);
  mark("share.link");
  if (ImGui::Button(TL(Str::top_copy_link, "copy_link"))) copy_link(app);
  mark("share.copy_link");

  section(T(Str::share_cli));
  std::string cli = cli_of(app.state);
  ImGui::TextDisabled("%s", T(Str::share_cli_hint));
  ImGui::InputTextMultiline("##cli", &cli, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 3.5f),
                            ImGuiInputTextFlags_ReadOnly);
  mark("share.cli");
  if (ImGui::Button(TL(Str::share_copy_command, "copy_cli"))) {
    if (app.hooks.copy_text) app.hooks.copy_text(cli);
    app.copied_note = T(Str::share_command_copied);
    app.copied_at = ImGui::GetTime();
  }
  mark("share.copy_cli");

  section(T(Str::share_launch));
  // The chosen engine's command line with the flags this estimate assumed (core::launch_command).
  if (auto launch = launch_of(app.state)) {
    std::string text = launch->text();
    ImGui::TextDisabled(T(Str::share_launch_hint), launch->version.c_str());
    // Tall enough for every line of a command written over several (torchtune's overrides).
    const float lines = static_cast<float>(std::count(text.begin(), text.end(), '\n') + 1);
    ImGui::InputTextMultiline("##launch", &text, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * std::clamp(lines + 1.0f, 3.5f, 15.0f)),
                              ImGuiInputTextFlags_ReadOnly);
    if (!launch->config_name.empty()) {  // training: the configuration file the command reads
      std::string file = launch->config_text;
      ImGui::TextDisabled("%s", (launch->config_name + ":").c_str());
      ImGui::InputTextMultiline("##launch_config", &file, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 9.0f), ImGuiInputTextFlags_ReadOnly);
      mark("share.launch_config");
      if (ImGui::Button(TL(Str::share_copy_config, "copy_config"))) {
        if (app.hooks.copy_text) app.hooks.copy_text(file);
        app.copied_note = T(Str::share_config_copied);
        app.copied_at = ImGui::GetTime();
      }
    }
    mark("share.launch");
    for (const core::Issue& n : launch->notes) ImGui::TextWrapped("%s", core::message_in(n, ui_lang()).c_str());
    if (ImGui::Button(TL(Str::share_copy_launch, "copy_launch"))) {
      if (app.hooks.copy_text) app.hooks.copy_text(text);
      app.copied_note = T(Str::share_launch_copied);
      app.copied_at = ImGui::GetTime();
    }
    mark("share.copy_launch");
  } else {
    ImGui::TextWrapped(T(Str::share_no_launch), core::join(launch.issues(), "; ", ui_lang()).c_str());
    mark("share.launch_refused");
  }

  if (app.hooks.download) {
    section(T(Str::share_download));
    ImGui::TextDisabled("%s", T(Str::share_download_hint));
    if (ImGui::Button("JSON")) app.hooks.download("llmsize-figures.json", "application/json", figures_json(app.state, true));
    mark("share.download_json");
    ImGui::SameLine();
    if (ImGui::Button("CSV")) app.hooks.download("llmsize-figures.csv", "text/csv", figures_csv(app.state));
    mark("share.download_csv");
    ImGui::TextDisabled("%s", T(Str::share_chart_hint));
    if (ImGui::Button("SVG")) app.hooks.download("llmsize-memory.svg", "image/svg+xml", chart_svg(app.state));
    mark("share.download_svg");
    ImGui::SameLine();
    // The page rasterises the same SVG (image/png: the hook draws it on a canvas at twice its size).
    if (ImGui::Button("PNG")) app.hooks.download("llmsize-memory.png", "image/png", chart_svg(app.state));
    mark("share.download_png");
  }

  if (!app.hooks.web) return;
  section(T(Str::share_embed));
  std::string embed = "<iframe src=\"" + app.hooks.page_url + (app.hooks.page_url.find('?') == std::string::npos ? "?" : "&") +
                      "embed=1" + current_link(app) + "\" width=\"100%\" height=\"560\" title=\"llmsize\"></iframe>";
  ImGui::InputTextMultiline("##embed", &embed, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 3.5f),
                            ImGuiInputTextFlags_ReadOnly);
}

}  // namespace llmsize::app

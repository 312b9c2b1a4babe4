// Share panel: the link of the current state (whoever opens it sees exactly this state) and
// the same state as a command line of the llmsize CLI.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/panels.hpp"
#include "app/widgets.hpp"

namespace llmsize::app {

void copy_link(App& app) {
  const std::string link = app.hooks.page_url + current_link(app);
  if (app.hooks.copy_text) app.hooks.copy_text(link);
  app.copied_note = "Link copied";
  app.copied_at = ImGui::GetTime();
}

void draw_share_panel(App& app) {
  section("Link");
  std::string link = app.hooks.page_url + current_link(app);
  ImGui::TextDisabled("Whoever opens this link sees exactly this state: model, workload, unit and tab.");
  ImGui::SetNextItemWidth(-FLT_MIN);
  ImGui::InputText("##link", &link, ImGuiInputTextFlags_ReadOnly);
  mark("share.link");
  if (ImGui::Button("Copy link")) copy_link(app);
  mark("share.copy_link");

  section("Command line");
  std::string cli = cli_of(app.state);
  ImGui::TextDisabled("The same estimate from a terminal (the llmsize CLI):");
  ImGui::InputTextMultiline("##cli", &cli, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 3.5f),
                            ImGuiInputTextFlags_ReadOnly);
  mark("share.cli");
  if (ImGui::Button("Copy command")) {
    if (app.hooks.copy_text) app.hooks.copy_text(cli);
    app.copied_note = "Command copied";
    app.copied_at = ImGui::GetTime();
  }
  mark("share.copy_cli");

  section("Launch command");
  // The chosen engine's command line with the flags this estimate assumed (core::launch_command).
  if (auto launch = launch_of(app.state)) {
    std::string text = launch->text();
    ImGui::TextDisabled("%s", ("Start " + launch->version + " as this estimate assumes:").c_str());
    ImGui::InputTextMultiline("##launch", &text, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 3.5f), ImGuiInputTextFlags_ReadOnly);
    if (!launch->config_name.empty()) {  // training: the configuration file the command reads
      std::string file = launch->config_text;
      ImGui::TextDisabled("%s", (launch->config_name + ":").c_str());
      ImGui::InputTextMultiline("##launch_config", &file, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 9.0f), ImGuiInputTextFlags_ReadOnly);
      mark("share.launch_config");
      if (ImGui::Button("Copy configuration")) {
        if (app.hooks.copy_text) app.hooks.copy_text(file);
        app.copied_note = "Configuration copied";
        app.copied_at = ImGui::GetTime();
      }
    }
    mark("share.launch");
    for (const std::string& n : launch->notes) ImGui::TextWrapped("%s", n.c_str());
    if (ImGui::Button("Copy launch command")) {
      if (app.hooks.copy_text) app.hooks.copy_text(text);
      app.copied_note = "Launch command copied";
      app.copied_at = ImGui::GetTime();
    }
    mark("share.copy_launch");
  } else {
    ImGui::TextWrapped("%s", ("No launch command: " + core::join(launch.issues()) + ".").c_str());
    mark("share.launch_refused");
  }

  if (app.hooks.download) {
    section("Download the figures");
    ImGui::TextDisabled("Every figure of this estimate with its formula, source and bound, made here:");
    if (ImGui::Button("JSON")) app.hooks.download("llmsize-figures.json", "application/json", figures_json(app.state, true));
    mark("share.download_json");
    ImGui::SameLine();
    if (ImGui::Button("CSV")) app.hooks.download("llmsize-figures.csv", "text/csv", figures_csv(app.state));
    mark("share.download_csv");
    ImGui::TextDisabled("The memory chart, for documents:");
    if (ImGui::Button("SVG")) app.hooks.download("llmsize-memory.svg", "image/svg+xml", chart_svg(app.state));
    mark("share.download_svg");
    ImGui::SameLine();
    // The page rasterises the same SVG (image/png: the hook draws it on a canvas at twice its size).
    if (ImGui::Button("PNG")) app.hooks.download("llmsize-memory.png", "image/png", chart_svg(app.state));
    mark("share.download_png");
  }

  if (!app.hooks.web) return;
  section("Embed in a page");
  std::string embed = "<iframe src=\"" + app.hooks.page_url + (app.hooks.page_url.find('?') == std::string::npos ? "?" : "&") +
                      "embed=1" + current_link(app) + "\" width=\"100%\" height=\"560\" title=\"llmsize\"></iframe>";
  ImGui::InputTextMultiline("##embed", &embed, ImVec2(-FLT_MIN, ImGui::GetTextLineHeight() * 3.5f),
                            ImGuiInputTextFlags_ReadOnly);
}

}  // namespace llmsize::app

// App init / frame / shutdown and the page layout (see app.hpp).
#include "app/app.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/params.hpp"

namespace llmsize::app {

void init(App& app, PlatformHooks hooks, float scale, bool embed) {
  app.hooks = std::move(hooks);
  app.state = default_state();
  app.state.embed = embed;
  app.stats.ms.assign(240, 0.0);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini: the page and the app keep no hidden state
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  app.scale = 0;  // force the first build
  set_scale(app, scale);
}

bool set_scale(App& app, float scale) {
  scale = std::clamp(scale, 0.5f, 4.0f);
  if (scale == app.scale) return false;
  app.scale = scale;
  app.fonts = build_fonts(scale);
  apply_style(app.state.dark, scale);
  return true;
}

void shutdown(App& app) { app = App{}; }

void open_link(App& app, std::string_view fragment) {
  (void)fragment;
  (void)app;
  // Share links arrive with core/share_link.hpp.
}

void import_text(App& app, std::string_view text, std::string_view name) {
  if (import_config(app.state, text, name)) app.state.banners.clear();
}

std::string current_link(const App& app) {
  (void)app;
  return {};
}

std::string frame_stats_json(const App& app) {
  std::vector<double> v;
  for (double x : app.stats.ms)
    if (x > 0) v.push_back(x);
  std::sort(v.begin(), v.end());
  auto pct = [&](double q) { return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))]; };
  char buf[160];
  std::snprintf(buf, sizeof buf, "{\"frames\": %lld, \"samples\": %zu, \"median_ms\": %.3f, \"p95_ms\": %.3f, \"max_ms\": %.3f}",
                app.stats.frames, v.size(), pct(0.5), pct(0.95), v.empty() ? 0.0 : v.back());
  return buf;
}

namespace {

void draw_results(App& app) {
  auto params = core::count_params(app.state.cfg);
  if (!params) {
    section("Results");
    ImGui::TextDisabled("The model has problems; fix the fields marked in the Model panel:");
    for (const auto& is : params.issues()) error_text(core::to_string(is));
    return;
  }
  if (ImGui::BeginTabBar("results")) {
    if (ImGui::BeginTabItem("Parameters")) {
      mark("tab.params");
      ImGui::BeginChild("params_scroll", ImVec2(0, 0), false);
      draw_params_results(app, params.value());
      ImGui::EndChild();
      ImGui::EndTabItem();
    } else {
      mark("tab.params");
    }
    if (!app.state.embed) {
      if (ImGui::BeginTabItem("Share")) {
        mark("tab.share");
        draw_share_panel(app);
        ImGui::EndTabItem();
      } else {
        mark("tab.share");
      }
    }
    ImGui::EndTabBar();
  }
}

}  // namespace

void frame(App& app) {
  const auto t0 = std::chrono::steady_clock::now();
  clear_marks();
  if (theme_is_dark() != app.state.dark) apply_style(app.state.dark, app.scale);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags full = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("llmsize", nullptr, full);
  if (!app.state.embed) draw_top_bar(app);
  draw_banners(app);

  const float s = app.scale;
  const bool narrow = ImGui::GetContentRegionAvail().x < 820 * s;
  if (app.state.embed || narrow) {
    // One column: the model picker folds away above the results.
    if (ImGui::CollapsingHeader(("Model: " + app.state.model_name).c_str(),
                                app.state.embed ? 0 : ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::BeginChild("model_col", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.45f), true);
      draw_model_panel(app);
      ImGui::EndChild();
    }
    draw_results(app);
  } else {
    const float left_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.33f, 320 * s, 430 * s);
    ImGui::BeginChild("left", ImVec2(left_w, 0), true);
    if (ImGui::BeginTabBar("inputs")) {
      if (ImGui::BeginTabItem("Model")) {
        ImGui::BeginChild("model_scroll");
        draw_model_panel(app);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("right", ImVec2(0, 0), true);
    draw_results(app);
    ImGui::EndChild();
  }
  ImGui::End();

  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  app.stats.ms[app.stats.next] = ms;
  app.stats.next = (app.stats.next + 1) % app.stats.ms.size();
  ++app.stats.frames;
}

}  // namespace llmsize::app

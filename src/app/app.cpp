// App init / frame / shutdown and the page layout (see app.hpp).
#include "app/app.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "app/panels.hpp"
#include "app/widgets.hpp"
#include "core/compare.hpp"
#include "core/estimate.hpp"
#include "core/file_weights.hpp"
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
  const bool cjk = app.state.lang == core::Lang::Zh && has_cjk_font();
  if (scale == app.scale && cjk == app.fonts.cjk) return false;
  app.scale = scale;
  app.fonts = build_fonts(scale, cjk);
  apply_style(app.state.dark, scale);
  return true;
}

core::Lang shown_lang(const App& app) { return app.fonts.cjk ? core::Lang::Zh : core::Lang::En; }

void shutdown(App& app) { app = App{}; }

void open_link(App& app, std::string_view fragment) { app::open_link(app.state, fragment); }

void import_text(App& app, std::string_view text, std::string_view name) {
  if (import_config(app.state, text, name)) app.state.banners.clear();
}

void open_path(App& app, const std::string& path) {
  const bool gguf = (path.size() > 5 && path.compare(path.size() - 5, 5, ".gguf") == 0) ||
                    (path.size() > 12 && path.compare(path.size() - 12, 12, ".safetensors") == 0);
  std::string err;
  if (gguf && app.hooks.read_prefix) {
    auto read_one = [&](const std::string& p) {
      core::i64 want = core::i64{4} << 20;
      for (int round = 0; round < 8 && want > 0; ++round) {
        core::i64 size = 0;
        auto head = app.hooks.read_prefix(p, want, size, err);
        if (!head) break;
        const core::i64 more = import_model_file(app.state, *head, size, p);
        if (more <= static_cast<core::i64>(head->size())) return true;
        want = std::min(std::max(more, 2 * want), std::max(core::kGgufMaxHeaderBytes, 8 + core::kSafetensorsMaxHeader));
      }
      if (!err.empty())
        app.state.banners.push_back(make_banner([p, err](core::Lang l) {
          return printf_text(core::tr(Str::banner_could_not_open, l), p.c_str(), err.c_str());
        }, true));
      return false;
    };
    if (!read_one(path)) return;
    // One file of a split model: the others beside it, as gguf-split names them.
    if (!app.state.model_file_shards.empty())
      if (const auto split = core::gguf_split(app.state.model_file_shards.back()))
        for (const auto& p : core::gguf_shard_paths(path, split->count))
          if (p != path && !app.state.model_file_shards.empty() && !read_one(p)) return;
    // One shard of a checkpoint (…-0000k-of-0000N.safetensors): the others beside it.
    if (!app.state.safetensors_shards.empty()) {
      const size_t at = path.rfind("-of-");
      const core::i64 count = at != std::string::npos && at >= 5 ? std::atoll(path.substr(at + 4, 5).c_str()) : 0;
      for (core::i64 k = 1; k <= count && k <= core::kSafetensorsMaxShards && !app.state.safetensors_shards.empty(); ++k) {
        char no[8];
        std::snprintf(no, sizeof no, "%05lld", static_cast<long long>(k));
        const std::string p = path.substr(0, at - 5) + no + path.substr(at);
        if (p != path && !read_one(p)) return;
      }
    }
    return;
  }
  if (!app.hooks.read_file) return;
  auto text = app.hooks.read_file(path, err);
  if (text) import_text(app, *text, path);
  else
    app.state.banners.push_back(make_banner([path, err](core::Lang l) {
      return printf_text(core::tr(Str::banner_could_not_open, l), path.c_str(), err.c_str());
    }, true));
}

std::string current_link(const App& app) { return link_of(app.state); }

bool run_demo(App& app) { return demo_start(app.demo, app.state.cfg); }

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

// One result tab; `select` forces it open once (a link named it).
bool tab(App& app, Str label, ResultTab t) {
  const bool select = app.state.tab_from_link && app.state.tab == t;
  const bool open = ImGui::BeginTabItem(TL(label, tab_id(t)), nullptr, select ? ImGuiTabItemFlags_SetSelected : 0);
  mark((std::string("tab.") + tab_id(t)).c_str());
  if (open && !app.state.tab_from_link) app.state.tab = t;
  return open;
}

void draw_results(App& app, const core::Result<core::Estimate>& est) {
  const AppState& s = app.state;
  if (!est) {
    // The parameters need only the model: show them when the workload is what fails.
    auto params = core::count_params(s.cfg);
    section(T(Str::results_blocked));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", T(Str::results_blocked_detail));
    ImGui::PopTextWrapPos();
    for (const auto& is : est.issues()) error_text(core::to_string(is, ui_lang()));
    if (!s.preset_id.empty() && ImGui::Button(TL(Str::reset_model_to_preset, "reset_preset"))) {
      load_preset(app.state, std::string(s.preset_id));
      return;
    }
    mark("reset_preset");
    if (!params) return;
    section(T(Str::params_model_alone));
    ImGui::BeginChild("params_scroll");
    draw_params_results(app, params.value());
    ImGui::EndChild();
    return;
  }
  const core::Estimate& e = est.value();
  if (ImGui::BeginTabBar("results", ImGuiTabBarFlags_FittingPolicyScroll)) {
    if (tab(app, Str::tab_params, ResultTab::Params)) {
      ImGui::BeginChild("params_scroll");
      draw_params_results(app, e.params, &e.plan);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab(app, Str::tab_memory, ResultTab::Memory)) {
      ImGui::BeginChild("memory_scroll");
      draw_memory_results(app, e, core::explain(s.cfg, s.work, e, ui_lang()));
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab(app, Str::tab_scaling, ResultTab::Scaling)) {
      ImGui::BeginChild("scaling_scroll");
      draw_scaling_results(app, e);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (tab(app, Str::tab_gpus, ResultTab::Gpus)) {
      draw_gpu_table(app, e);
      ImGui::EndTabItem();
    }
    if (tab(app, Str::tab_throughput, ResultTab::Throughput)) {
      ImGui::BeginChild("tp_scroll");
      draw_throughput_results(app, e, core::explain(s.cfg, s.work, e, ui_lang()));
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (!s.embed && tab(app, Str::tab_demo, ResultTab::Demo)) {
      ImGui::BeginChild("demo_scroll");
      draw_demo_panel(app);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    // Compare: in an embedded page only when its link holds a comparison.
    if ((!s.embed || !s.compare.empty()) && tab(app, Str::tab_compare, ResultTab::Compare)) {
      ImGui::BeginChild("compare_scroll");
      draw_compare_results(app, e);
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
    if (!s.embed && tab(app, Str::tab_share, ResultTab::Share)) {
      draw_share_panel(app);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace

core::Result<core::Estimate> estimate(App& app, const core::Workload& w) {
  if (!app.prepared || !(app.prepared->cfg == app.state.cfg) || app.prepared_file_serial != app.state.model_file_serial) {
    app.prepared.reset();
    // The model file's bytes as the weights, while its tensors match the model (an edit that
    // changes a shape makes it a note instead).
    auto m = prepared_of(app.state);
    if (!m) return core::estimate(app.state.cfg, w);  // the same issues, in the same order
    app.prepared = std::move(m).value();
    app.prepared_file_serial = app.state.model_file_serial;
  }
  // Invalid input reports as estimate(cfg, w) does (both inputs' issues at once).
  if (!core::validate(w).empty() || !core::gpu_of(w)) return core::estimate(app.state.cfg, w);
  return core::estimate(*app.prepared, w);
}

core::Result<core::Estimate> estimate_case(App& app, size_t number, const core::Workload& w) {
  if (number <= 1) return estimate(app, w);
  const std::vector<core::ShareState>& cases = app.state.compare;
  if (number - 2 >= cases.size()) return core::issue_row("case", core::Str::cmp_no_case, std::to_string(number));
  auto& models = app.case_models;
  models.resize(cases.size());
  App::CaseModel& m = models[number - 2];
  if ((!m.model && m.issues.empty()) || !(m.state == cases[number - 2])) {
    m.state = cases[number - 2];
    m.model.reset();
    m.issues.clear();
    auto pm = core::prepare_case(m.state);
    if (pm) m.model = std::move(pm).value();
    else m.issues = pm.issues();
  }
  if (!m.model) return m.issues;
  if (!core::validate(w).empty() || !core::gpu_of(w)) return core::estimate(m.state.model, w);
  return core::estimate(*m.model, w);
}

void frame(App& app) {
  // The demo advances by one time slice per frame, whichever tab is shown (outside the
  // frame-time statistics, which measure the figures and the UI).
  demo_tick(app.demo);
  const auto t0 = std::chrono::steady_clock::now();
  clear_marks();
  if (theme_is_dark() != app.state.dark) apply_style(app.state.dark, app.scale);
  // Chinese shows once its glyphs are in the atlas (set_scale, before the frame, builds it):
  // until the page has fetched them, English, never boxes.
  if (app.state.lang == core::Lang::Zh && !has_cjk_font() && !app.cjk_requested && app.hooks.request_cjk_font) {
    app.cjk_requested = true;
    app.hooks.request_cjk_font();
  }
  set_ui_lang(shown_lang(app));

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags full = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                ImGuiWindowFlags_NoBackground;  // the platform clears to WindowBg: one full-screen fill less
  ImGui::Begin("llmsize", nullptr, full);
  if (!app.state.embed) draw_top_bar(app);
  draw_banners(app);

  // Immediate mode: every figure is recomputed from the state, every frame.
  const auto est = estimate(app, app.state.work);
  std::vector<core::Issue> work_issues = core::validate(app.state.work);
  if (!est) work_issues.insert(work_issues.end(), est.issues().begin(), est.issues().end());

  const float s = app.scale;
  const bool narrow = ImGui::GetContentRegionAvail().x < 820 * s;
  if (app.state.embed && app.hooks.open_url) {
    // Embedded in a documentation page: one quiet way out to the full calculator.
    const char* open_label = TL(Str::open_full_calculator, "embed_open");
    ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(open_label).x -
                         ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::SmallButton(open_label)) app.hooks.open_url(app.hooks.page_url + current_link(app));
    mark("embed.open");
  }
  if (app.state.embed || narrow) {
    // One column: the model picker folds away above the results.
    if (ImGui::CollapsingHeader((printf_text(T(Str::header_model), app.state.model_name.c_str()) + "###model").c_str(),
                                app.state.embed ? 0 : ImGuiTreeNodeFlags_DefaultOpen)) {
      ImGui::BeginChild("model_col", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.45f), true);
      draw_model_panel(app);
      ImGui::EndChild();
    }
    mark("header.model");
    const std::string work_title =
        printf_text(T(app.state.work.mode == core::Mode::Training ? Str::header_workload_training : Str::header_workload_inference),
            static_cast<long long>(app.state.work.seq), static_cast<long long>(app.state.work.batch));
    if (ImGui::CollapsingHeader((work_title + "###workload").c_str())) {
      ImGui::BeginChild("work_col", ImVec2(0, ImGui::GetContentRegionAvail().y * 0.45f), true);
      draw_workload_panel(app, work_issues);
      ImGui::EndChild();
    }
    mark("header.workload");
    draw_results(app, est);
  } else {
    const float left_w = std::clamp(ImGui::GetContentRegionAvail().x * 0.33f, 320 * s, 430 * s);
    ImGui::BeginChild("left", ImVec2(left_w, 0), true);
    if (ImGui::BeginTabBar("inputs")) {
      // A link may name the panel: select it once, then follow the user's clicks.
      const bool pick = app.state.tab_from_link;
      if (ImGui::BeginTabItem(TL(Str::tab_model, "model"), nullptr, pick && !app.state.workload_panel ? ImGuiTabItemFlags_SetSelected : 0)) {
        if (!pick) app.state.workload_panel = false;
        ImGui::BeginChild("model_scroll");
        draw_model_panel(app);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
      mark("tab.model");
      if (ImGui::BeginTabItem(TL(Str::tab_workload, "workload"), nullptr, pick && app.state.workload_panel ? ImGuiTabItemFlags_SetSelected : 0)) {
        if (!pick) app.state.workload_panel = true;
        ImGui::BeginChild("work_scroll");
        draw_workload_panel(app, work_issues);
        ImGui::EndChild();
        ImGui::EndTabItem();
      }
      mark("tab.workload");
      ImGui::EndTabBar();
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("right", ImVec2(0, 0), true);
    draw_results(app, est);
    ImGui::EndChild();
  }
  ImGui::End();
  app.state.tab_from_link = false;  // a link's tab and panel were selected this frame

  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  app.stats.ms[app.stats.next] = ms;
  app.stats.next = (app.stats.next + 1) % app.stats.ms.size();
  ++app.stats.frames;
}

}  // namespace llmsize::app

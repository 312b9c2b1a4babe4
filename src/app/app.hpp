// The calculator UI as init / frame / shutdown; the platform (src/app/platform/) owns the
// window, the GL context and the loop, and calls frame() between ImGui::NewFrame() and
// ImGui::Render(). Platform services the UI needs (clipboard, file reading, the heat-map
// renderer) come in as hooks. No GLFW, GL or Emscripten headers here.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/demo.hpp"
#include "core/engine_log.hpp"
#include "core/estimate.hpp"
#include "app/state.hpp"
#include "app/theme.hpp"

namespace llmsize::app {

// Draws attention probabilities into a texture with the shaders of shaders/ (platform GL).
struct HeatmapRenderer {
  virtual ~HeatmapRenderer() = default;
  // probs: (rows, cols) row-major, a negative value marks a masked cell; colours span
  // [0, value_max]. Returns a texture of out_w × out_h for ImGui::Image, or nullptr when
  // the GPU refused.
  virtual ImTextureID render(const float* probs, int rows, int cols, float value_max, int out_w, int out_h,
                             ImVec4 masked) = 0;
};

struct PlatformHooks {
  std::function<void(const std::string&)> copy_text;  // to the system clipboard
  std::function<void(const std::string&)> open_url;   // web: a new tab (embed mode's "open")
  // web: the browser saves `text` as a file named `name` (made here, nothing sent anywhere)
  std::function<void(const std::string& name, const std::string& mime, const std::string& text)> download;
  std::function<std::optional<std::string>(const std::string& path, std::string& error)> read_file;  // native only
  // The first `max_bytes` of a file and its whole size (native only: a model file's header).
  std::function<std::optional<std::string>(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes,
                                           std::string& error)>
      read_prefix;
  std::function<void()> pick_files;  // web: the browser's file picker (model files and configs)
  // web: fetch the Chinese glyphs (llmsize-zh.otf), handed back through set_cjk_font(); asked
  // once, when Chinese is first chosen. Natively the app compiles them in.
  std::function<void()> request_cjk_font;
  HeatmapRenderer* heatmap = nullptr;
  std::string page_url;  // prefix of share links (the page's address without its fragment)
  bool web = false;
};

struct FrameStats {
  std::vector<double> ms;  // UI build time of recent frames (ring buffer)
  size_t next = 0;
  long long frames = 0;
};

struct App {
  AppState state;
  PlatformHooks hooks;
  Fonts fonts;
  float scale = 1.0f;
  FrameStats stats;
  std::string preset_filter;
  std::string paste_buffer;  // the "paste a config.json" box
  std::string path_buffer;   // native: path of a config.json to open
  std::string log_buffer;    // the "check a start-up log" box
  std::optional<core::EngineLog> log;  // the log last checked (parsed once; compared every frame)
  std::string log_error;     // why the pasted log was refused
  std::string log_preset;    // the preset that is the checkpoint the log names (core::find_preset_by_hub), or empty
  std::string copied_note;   // "Copied link" feedback
  double copied_at = -1;
  DemoUi demo;
  bool cjk_requested = false;  // hooks.request_cjk_font was called
  // The model prepared once per configuration (inventory, parameter count, per-layer plans);
  // estimate() below rebuilds it only when state.cfg changes.
  std::optional<core::PreparedModel> prepared;
  core::i64 prepared_file_serial = -1;  // state.model_file_serial when `prepared` took its file
  // The comparison's further cases prepared (core::prepare_case), rebuilt when a case changes.
  struct CaseModel {
    core::ShareState state;
    std::optional<core::PreparedModel> model;
    std::vector<core::Issue> issues;
  };
  std::vector<CaseModel> case_models;
};

// core::estimate() of the current model under `w`, reusing the prepared model: what every
// figure of a frame (the GPU table and the Scaling tab's curves included) is computed from.
core::Result<core::Estimate> estimate(App& app, const core::Workload& w);
// The same for case `number` of the comparison (1: the current model, as estimate() above; 2…:
// state.compare's, each prepared once) under `w`.
core::Result<core::Estimate> estimate_case(App& app, size_t number, const core::Workload& w);

void init(App& app, PlatformHooks hooks, float scale, bool embed);
// Rebuilds fonts and style for a new UI scale, or for the language chosen (Chinese merges the
// Chinese table's glyphs in, once set_cjk_font has them); true when the font atlas changed
// (the platform then re-uploads the atlas texture). Platforms call it before every frame.
bool set_scale(App& app, float scale);
// The language the interface is drawn in: the state's, as far as the atlas can show it.
core::Lang shown_lang(const App& app);
void frame(App& app);
void shutdown(App& app);

// Events from the platform.
void open_link(App& app, std::string_view fragment);        // a share link (the URL fragment)
void import_text(App& app, std::string_view text, std::string_view name);  // a dropped/pasted config.json
// A path opened or dropped (native): a .gguf model file read for its header (hooks.read_prefix),
// else a config.json (hooks.read_file); a problem becomes a banner.
void open_path(App& app, const std::string& path);

// The share link of the current state (fragment, starting with '#').
std::string current_link(const App& app);
// Starts the demo block on the current model (as the Run button does).
bool run_demo(App& app);
// Median and 95th percentile of recent frame build times, as JSON.
std::string frame_stats_json(const App& app);

}  // namespace llmsize::app

// Web main: Emscripten's built-in GLFW with a WebGL2 (OpenGL ES 3.0) context, the browser's
// animation-frame loop, and the page glue (web/llmsize.js, window.llmsizeGlue) for the
// canvas size and devicePixelRatio, the URL fragment, the clipboard and file drops.
// Also binds the page's test hooks (figures, widget rectangles, frame times) with Embind.
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <array>
#include <vector>
#include <cmath>
#include <memory>
#include <cstdio>
#include <string>

#include "app/app.hpp"
#include "app/widgets.hpp"
#include "core/lang.hpp"
#include "gl.hpp"
#include "gl_heatmap.hpp"

namespace {

using emscripten::val;
using namespace llmsize;

struct Web {
  GLFWwindow* window = nullptr;
  app::App app;
  std::unique_ptr<platform::GlHeatmap> heatmap;
  int width = 0, height = 0;  // canvas pixels
  std::string last_link;      // what the URL fragment holds
  double frame_ms[240] = {};  // whole main-loop callback (UI + GL submission)
  double render_ms[240] = {}; // of which ImGui's GL renderer (draw-list submission to WebGL)
  int frame_next = 0;
  long long frames = 0;
};
Web* g = nullptr;

// ImGui 1.86 polls key state once per frame: a key pressed and released between two frames
// (a quick tap at the page's frame rate, or an automated test) would be missed. Releases of
// keys pressed since the last frame are held back until that frame has seen them.
std::vector<int> g_pressed;                          // keys pressed since the last NewFrame
std::vector<std::array<int, 3>> g_held_releases;     // key, scancode, mods
void key_callback(GLFWwindow* w, int key, int scancode, int action, int mods) {
  if (action == GLFW_PRESS) g_pressed.push_back(key);
  if (action == GLFW_RELEASE && std::find(g_pressed.begin(), g_pressed.end(), key) != g_pressed.end()) {
    g_held_releases.push_back({key, scancode, mods});
    return;
  }
  ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
}
// Emscripten 3.1.6's GLFW hands the browser's wheel deltas through unchanged: pixels (about
// 100 per notch in Chromium; Firefox sends 3 lines) with the DOM's sign (positive = down).
// ImGui wants notches with positive = up.
void scroll_callback(GLFWwindow* w, double dx, double dy) {
  auto notches = [](double d) { return -(std::fabs(d) >= 10.0 ? d / 100.0 : d / 3.0); };
  ImGui_ImplGlfw_ScrollCallback(w, notches(dx), notches(dy));
}

void release_held_keys() {
  g_pressed.clear();
  for (const auto& [key, scancode, mods] : g_held_releases)
    ImGui_ImplGlfw_KeyCallback(g->window, key, scancode, GLFW_RELEASE, mods);
  g_held_releases.clear();
}

val glue() { return val::global("llmsizeGlue"); }

void sync_canvas_size() {
  val sz = glue().call<val>("canvasSize");
  const double css_w = sz["width"].as<double>(), css_h = sz["height"].as<double>(), dpr = sz["dpr"].as<double>();
  const int w = std::max(1, static_cast<int>(std::lround(css_w * dpr)));
  const int h = std::max(1, static_cast<int>(std::lround(css_h * dpr)));
  if (w != g->width || h != g->height) {
    glfwSetWindowSize(g->window, w, h);
    g->width = w;
    g->height = h;
  }
  if (app::set_scale(g->app, static_cast<float>(dpr))) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
}

void main_loop() {
  const double t0 = emscripten_get_now();
  sync_canvas_size();
  const bool first = g->frames == 0;  // its steps are marked (performance.mark): the time to the first frame
  ImGui_ImplOpenGL3_NewFrame();  // the first creates the shaders and uploads the font atlas
  if (first) glue().call<void>("mark", std::string("frame0.gl_objects"));
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  release_held_keys();
  app::frame(g->app);
  if (first) glue().call<void>("mark", std::string("frame0.ui"));
  ImGui::Render();
  glViewport(0, 0, g->width, g->height);
  const ImVec4 c = app::clear_colour();
  glClearColor(c.x, c.y, c.z, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  const double t_gl = emscripten_get_now();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  g->render_ms[g->frame_next] = emscripten_get_now() - t_gl;
  if (first) glue().call<void>("mark", std::string("frame0.drawn"));

  const std::string link = app::current_link(g->app);
  if (link != g->last_link) {
    g->last_link = link;
    glue().call<void>("setFragment", link);
  }
  g->frame_ms[g->frame_next] = emscripten_get_now() - t0;
  g->frame_next = (g->frame_next + 1) % 240;
  if (g->frames++ == 0) glue().call<void>("firstFrame");
}

// ImGui's clipboard: copy goes to the browser; paste arrives as a 'paste' event (pasteText).
void set_clipboard(void*, const char* text) { glue().call<void>("copyText", std::string(text)); }
const char* get_clipboard(void*) { return ""; }

// --- test hooks and page events (Embind) ---
std::string hook_figures() { return app::figures_json(g->app.state); }
std::string hook_link() { return app::current_link(g->app); }
void hook_open_link(std::string fragment) {
  if (fragment == g->last_link) return;  // our own replaceState echoing back
  app::open_link(g->app, fragment);
  g->last_link = app::current_link(g->app);
}
void hook_import(std::string text, std::string name) { app::import_text(g->app, text, name); }
// A dropped model file's first bytes (a Uint8Array of File.slice): 0 when done (read, or refused
// with a banner), else how many bytes to read before calling again. Nothing leaves the page.
double hook_model_file(std::string name, val bytes, double file_size) {
  const std::vector<std::uint8_t> v = emscripten::convertJSArrayToNumberVector<std::uint8_t>(bytes);
  const std::string head(v.begin(), v.end());
  return static_cast<double>(app::import_model_file(g->app.state, head, static_cast<core::i64>(file_size), name));
}
double hook_model_file_read() {
  const auto& st = g->app.state;
  return st.model_file || !st.model_safetensors.empty() ? static_cast<double>(st.model_file_read) : 0.0;
}
// A paste outside a text field that looks like JSON imports it; inside one, it is typed.
bool hook_paste(std::string text) {
  if (ImGui::GetIO().WantTextInput) {
    ImGui::GetIO().AddInputCharactersUTF8(text.c_str());
    return true;
  }
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    app::import_text(g->app, text, "pasted config");
    return true;
  }
  if (first != std::string::npos && (text[first] == '#' || text.find("#v=") != std::string::npos)) {
    hook_open_link(text.substr(text.find('#')));
    return true;
  }
  return false;
}
val hook_rect(std::string name) {
  const auto& m = app::marked_rects();
  auto it = m.find(name);
  if (it == m.end()) return val::null();
  val o = val::object();
  o.set("x", it->second.x);
  o.set("y", it->second.y);
  o.set("w", it->second.w);
  o.set("h", it->second.h);
  return o;
}
val hook_rect_names() {
  val arr = val::array();
  for (const auto& [k, v] : app::marked_rects()) arr.call<void>("push", k);
  return arr;
}
val hook_banners() {
  val arr = val::array();
  for (const auto& b : g->app.state.banners) arr.call<void>("push", b.text);
  return arr;
}
std::string hook_frame_stats() {
  auto stats = [](const double* src, double& median, double& p95) {
    double v[240];
    int n = 0;
    for (int i = 0; i < 240; ++i)
      if (src[i] > 0) v[n++] = src[i];
    std::sort(v, v + n);
    median = n ? v[n / 2] : 0.0;
    p95 = n ? v[std::min(n - 1, n * 95 / 100)] : 0.0;
    return n;
  };
  double fm, fp, rm, rp;
  const int n = stats(g->frame_ms, fm, fp);
  stats(g->render_ms, rm, rp);
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "{\"frame\": {\"samples\": %d, \"median_ms\": %.3f, \"p95_ms\": %.3f}, "
                "\"gl_render\": {\"median_ms\": %.3f, \"p95_ms\": %.3f}, \"ui\": %s}",
                n, fm, fp, rm, rp, app::frame_stats_json(g->app).c_str());
  return buf;
}
void hook_set_theme(bool dark) { g->app.state.dark = dark; }
// The Chinese glyphs arrived (web/llmsize.js loadCjkFont): the next frame's set_scale builds them in.
void hook_set_cjk_font(std::string bytes) { app::set_cjk_font(std::move(bytes)); }
void hook_cjk_font_failed(std::string why) {
  g->app.state.banners.push_back(app::make_banner([why](core::Lang l) {
    return app::printf_text(core::tr(core::Str::banner_cjk_failed, l), why.c_str());
  }, true));
  g->app.state.lang = core::Lang::En;  // the switch names Chinese again, and may ask once more
  g->app.cjk_requested = false;
}
// Test hooks: the language chosen and shown ("zh": Chinese, with its glyphs in the atlas), and
// the code points of the shown language's table the atlas has no glyph for (U+XXXX, spaced).
std::string hook_language() { return std::string(core::lang_code(app::shown_lang(g->app))); }
void hook_set_language(std::string code) {
  if (auto l = core::lang_of_code(code)) g->app.state.lang = *l;
}
std::string hook_missing_glyphs() {
  const std::string all = core::all_text(app::shown_lang(g->app));
  std::string out;
  char b[16];
  for (char32_t c : app::missing_glyphs(all)) {
    std::snprintf(b, sizeof b, "%sU+%04X", out.empty() ? "" : " ", static_cast<unsigned>(c));
    out += b;
  }
  return out;
}
std::string hook_demo_state() { return app::demo_state_json(g->app.demo); }

}  // namespace

EMSCRIPTEN_BINDINGS(llmsize_page) {
  emscripten::function("figures", &hook_figures);
  emscripten::function("currentLink", &hook_link);
  emscripten::function("openLink", &hook_open_link);
  emscripten::function("importText", &hook_import);
  emscripten::function("readModelFile", &hook_model_file);
  emscripten::function("modelFileRead", &hook_model_file_read);
  emscripten::function("pasteText", &hook_paste);
  emscripten::function("widgetRect", &hook_rect);
  emscripten::function("widgetNames", &hook_rect_names);
  emscripten::function("banners", &hook_banners);
  emscripten::function("frameStats", &hook_frame_stats);
  emscripten::function("setDarkTheme", &hook_set_theme);
  emscripten::function("setCjkFont", &hook_set_cjk_font);
  emscripten::function("cjkFontFailed", &hook_cjk_font_failed);
  emscripten::function("language", &hook_language);
  emscripten::function("setLanguage", &hook_set_language);
  emscripten::function("missingGlyphs", &hook_missing_glyphs);
  emscripten::function("demoState", &hook_demo_state);
}

int main() {
  glue().call<void>("mark", std::string("main"));
  g = new Web();
  if (!glfwInit()) {
    glue().call<void>("fail", std::string("GLFW could not start"));
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  // An opaque colour-only canvas: no depth/stencil buffers to allocate and clear, and the
  // compositor need not blend the canvas with the page.
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  val sz = glue().call<val>("canvasSize");
  const double dpr = sz["dpr"].as<double>();
  g->width = std::max(1, static_cast<int>(std::lround(sz["width"].as<double>() * dpr)));
  g->height = std::max(1, static_cast<int>(std::lround(sz["height"].as<double>() * dpr)));
  g->window = glfwCreateWindow(g->width, g->height, "llmsize", nullptr, nullptr);
  if (!g->window) {
    glue().call<void>("fail", std::string("This browser has no WebGL2."));
    return 1;
  }
  glfwMakeContextCurrent(g->window);

  glue().call<void>("mark", std::string("context"));
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui_ImplGlfw_InitForOpenGL(g->window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  glfwSetKeyCallback(g->window, key_callback);
  glfwSetScrollCallback(g->window, scroll_callback);
  ImGuiIO& io = ImGui::GetIO();
  io.SetClipboardTextFn = set_clipboard;
  io.GetClipboardTextFn = get_clipboard;

  glue().call<void>("mark", std::string("gl_init"));
  g->heatmap = std::make_unique<platform::GlHeatmap>();
  glue().call<void>("mark", std::string("heatmap"));
  app::PlatformHooks hooks;
  hooks.web = true;
  hooks.copy_text = [](const std::string& s) { glue().call<void>("copyText", s); };
  hooks.open_url = [](const std::string& u) { glue().call<void>("openUrl", u); };
  hooks.download = [](const std::string& name, const std::string& mime, const std::string& text) {
    glue().call<void>("download", name, mime, text);
  };
  hooks.pick_files = [] { glue().call<void>("pickFiles"); };
  hooks.request_cjk_font = [] { glue().call<void>("loadCjkFont"); };
  hooks.heatmap = g->heatmap.get();
  hooks.page_url = glue().call<std::string>("pageUrl");
  app::init(g->app, hooks, static_cast<float>(dpr), glue().call<bool>("embed"));
  g->app.state.lang = core::lang_of_locale(glue().call<std::string>("language")).value_or(core::Lang::En);
  // The page shares the browser's memory and frame with everything else: a smaller block
  // budget than the desktop's, and ~8 ms of demo work per frame.
  g->app.demo.settings.budget_bytes = std::int64_t{256} << 20;
  g->app.demo.step_budget_ms = 8.0;
  glue().call<void>("mark", std::string("initialised"));
  const std::string fragment = glue().call<std::string>("fragment");
  if (!fragment.empty()) app::open_link(g->app, fragment);
  g->last_link = fragment;
  emscripten_set_main_loop(main_loop, 0, false);
  return 0;
}

// Desktop main: GLFW window with an OpenGL 3.3 core context, the same UI as the page.
// Usage: llmsize-app [config.json | '#v=1&…' share link] [--embed] [--light]
//                    [--size WxH] [--frames N] [--screenshot out.png] [--figures out.json]
// --frames N renders N frames and exits (with --screenshot: reads back the last frame);
// --demo runs the demo block first and counts the N frames from its end.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "app/assets.hpp"
#include "core/lang.hpp"
#include "core/hf_config.hpp"
#include "gl.hpp"
#include "gl_heatmap.hpp"

namespace {

std::vector<std::string> g_dropped;  // paths dropped on the window, handled in the loop

std::optional<std::string> read_file(const std::string& path, std::string& error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = "cannot open the file";
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  if (s.size() > llmsize::core::kMaxConfigBytes) {
    error = "larger than " + std::to_string(llmsize::core::kMaxConfigBytes) + " bytes";
    return std::nullopt;
  }
  return s;
}

// The first max_bytes of a file and its size: a model file is read only as far as its header.
std::optional<std::string> read_prefix(const std::string& path, std::int64_t max_bytes, std::int64_t& file_bytes, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = "cannot open the file";
    return std::nullopt;
  }
  const bool sized = fseeko(f, 0, SEEK_END) == 0;
  file_bytes = sized ? static_cast<std::int64_t>(ftello(f)) : -1;
  std::rewind(f);
  if (file_bytes < 0) {
    std::fclose(f);
    error = "cannot tell the file's size";
    return std::nullopt;
  }
  std::string data(static_cast<size_t>(std::min(std::max<std::int64_t>(max_bytes, 0), file_bytes)), '\0');
  const size_t n = data.empty() ? 0 : std::fread(data.data(), 1, data.size(), f);
  std::fclose(f);
  if (n != data.size()) {
    error = "cannot read the file";
    return std::nullopt;
  }
  return data;
}

bool is_link(const std::string& a) { return !a.empty() && (a[0] == '#' || a.find("#v=") != std::string::npos || a.rfind("v=", 0) == 0); }

bool write_png(const char* path, int w, int h) {
  std::vector<unsigned char> px(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h / 2; ++y)  // GL rows are bottom-up
    std::swap_ranges(px.begin() + static_cast<long>(row * static_cast<size_t>(y)),
                     px.begin() + static_cast<long>(row * static_cast<size_t>(y + 1)),
                     px.begin() + static_cast<long>(row * static_cast<size_t>(h - 1 - y)));
  for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;
  return stbi_write_png(path, w, h, 4, px.data(), static_cast<int>(row)) != 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace llmsize;
  std::string input, screenshot, figures_out;
  int frames = 0, width = 1360, height = 860;
  bool embed = false, light = false, demo = false;
  // The interface language: --lang, else the locale (LC_ALL, LC_MESSAGES, LANG, as POSIX
  // orders them), else English. A link's "lang" overrides both.
  std::optional<core::Lang> lang = core::lang_of_environment();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : std::string(); };
    if (a == "--frames") frames = std::atoi(next().c_str());
    else if (a == "--screenshot") screenshot = next();
    else if (a == "--figures") figures_out = next();
    else if (a == "--embed") embed = true;
    else if (a == "--demo") demo = true;
    else if (a == "--light") light = true;
    else if (a == "--lang") {
      const std::string v = next();
      lang = core::lang_of_code(v);
      if (!lang) {
        std::fprintf(stderr, "llmsize-app: --lang must be en or zh, got \"%s\"\n", v.c_str());
        return 2;
      }
    }
    else if (a == "--size") std::sscanf(next().c_str(), "%dx%d", &width, &height);
    else if (a == "--help" || a == "-h") {
      std::printf("usage: llmsize-app [config.json | '#v=1&...'] [--embed] [--light] [--lang en|zh] [--size WxH]\n"
                  "                   [--frames N] [--screenshot out.png] [--figures out.json] [--demo]\n");
      return 0;
    } else input = a;
  }

  if (!glfwInit()) {
    std::fprintf(stderr, "llmsize-app: cannot initialise GLFW (no display?)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(width, height, "llmsize", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "llmsize-app: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(frames > 0 ? 0 : 1);
  glfwSetDropCallback(window, [](GLFWwindow*, int n, const char** paths) {
    for (int i = 0; i < n; ++i) g_dropped.emplace_back(paths[i]);
  });

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  auto heatmap = std::make_unique<platform::GlHeatmap>();
  app::PlatformHooks hooks;
  hooks.copy_text = [](const std::string& s) { ImGui::SetClipboardText(s.c_str()); };
  hooks.read_file = read_file;
  hooks.read_prefix = read_prefix;
  hooks.page_url = LLMSIZE_PAGE_URL;  // the hosted page, when the build names it
  hooks.heatmap = heatmap.get();
  float xs = 1, ys = 1;
  glfwGetWindowContentScale(window, &xs, &ys);
  app::App app;
  app.state.dark = !light;
  app::set_cjk_font(std::string(app::cjk_font_otf()));
  app::init(app, hooks, xs, embed);
  if (light) app.state.dark = false;
  app.state.lang = lang.value_or(core::Lang::En);

  if (!input.empty()) {
    if (is_link(input)) {
      app::open_link(app, input.substr(input.find('#') == std::string::npos ? 0 : input.find('#')));
    } else {
      app::open_path(app, input);
    }
  }

  if (demo && !app::run_demo(app)) std::fprintf(stderr, "llmsize-app: demo refused: %s\n", app.demo.error.c_str());
  int frame = 0, demo_frames = 0;
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    for (const auto& path : g_dropped) app::open_path(app, path);
    g_dropped.clear();
    glfwGetWindowContentScale(window, &xs, &ys);
    if (app::set_scale(app, xs)) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    app::frame(app);
    ImGui::Render();
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    const ImVec4 c = app::clear_colour();
    glClearColor(c.x, c.y, c.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (app.demo.running) ++demo_frames;
    else ++frame;
    if (frames > 0 && frame >= frames) {
      if (!screenshot.empty() && !write_png(screenshot.c_str(), fw, fh)) {
        std::fprintf(stderr, "llmsize-app: cannot write %s\n", screenshot.c_str());
        return 1;
      }
      break;
    }
    glfwSwapBuffers(window);
  }

  if (!figures_out.empty()) {
    std::ofstream f(figures_out);
    f << "{\"link\": \"" << app::current_link(app) << "\", \"figures\": " << app::figures_json(app.state)
      << ", \"frame_stats\": " << app::frame_stats_json(app) << ", \"banners\": " << app.state.banners.size()
      << ", \"demo\": " << app::demo_state_json(app.demo) << ", \"demo_frames\": " << demo_frames
      << ", \"language\": \"" << core::lang_code(app::shown_lang(app)) << "\", \"missing_glyphs\": "
      << app::missing_glyphs(core::all_text(app::shown_lang(app))).size() << "}\n";
  }
  std::printf("llmsize-app: %d frames, %s\n", frame, app::frame_stats_json(app).c_str());
  app::shutdown(app);
  heatmap.reset();  // GL objects go while the context is current
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}

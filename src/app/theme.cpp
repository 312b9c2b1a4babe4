// Palette, styles and fonts (see theme.hpp).
#include "app/theme.hpp"

#include <imgui_internal.h>  // ImTextCharFromUtf8

#include "app/assets.hpp"
#include "core/chart.hpp"
#include "core/lang.hpp"

namespace llmsize::app {

namespace {
bool g_dark = true;

// The series palette (Okabe & Ito 2008), as the core's charts use it.
constexpr ImU32 colour(core::Rgb c) { return IM_COL32(c.r, c.g, c.b, 255); }
static_assert(core::kSeriesPaletteSize == kPaletteSize);

ImVec4 rgb(float r, float g, float b, float a = 1.f) { return ImVec4(r / 255.f, g / 255.f, b / 255.f, a); }
}  // namespace

ImU32 series_colour(int i) {
  const int k = ((i % kPaletteSize) + kPaletteSize) % kPaletteSize;
  // Okabe-Ito yellow has too little contrast on a white background: grey in the light theme.
  if (k == 6 && !g_dark) return IM_COL32(110, 110, 110, 255);
  return colour(core::kSeriesPalette[k]);
}
ImVec4 series_colour_v(int i) { return ImGui::ColorConvertU32ToFloat4(series_colour(i)); }

namespace {
std::string g_cjk;  // the Chinese table's glyphs (OpenType bytes), once given
constexpr float kCjkSizeRatio = 1.448f / 1.17f;  // see build_fonts
}

void set_cjk_font(std::string bytes) { g_cjk = std::move(bytes); }
bool has_cjk_font() { return !g_cjk.empty(); }

Fonts build_fonts(float scale, bool cjk) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  Fonts f;
  f.cjk = cjk && has_cjk_font();
  const auto ttf = font_ttf();
  const auto sw = cjk_switch_otf();
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;  // the bytes are compiled in
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  // The CJK glyphs to rasterise: the switch's, or every character of the Chinese table
  // (ImGui keeps a pointer to the ranges until the atlas is built).
  static ImVector<ImWchar> latin_ranges, switch_ranges, zh_ranges;
  auto ranges = [](ImVector<ImWchar>& out, core::Lang lang, const ImWchar* base = nullptr) {
    if (!out.empty()) return;
    ImFontGlyphRangesBuilder b;
    if (base) b.AddRanges(base);
    b.AddText(core::all_text(lang).c_str());
    if (lang == core::Lang::En) b.AddText(core::kFormulaSymbols);  // formulas are English
    b.BuildRanges(&out);
  };
  // Latin-1 and the English table's other characters (≤, ≈) from the Latin font, where it has them.
  ranges(latin_ranges, core::Lang::En, io.Fonts->GetGlyphRangesDefault());
  if (!sw.empty()) ranges(switch_ranges, core::Lang::En);
  if (f.cjk) ranges(zh_ranges, core::Lang::Zh);  // not on the English page's start-up
  ImFontConfig merge;
  merge.FontDataOwnedByAtlas = false;
  merge.MergeMode = true;
  merge.OversampleH = 1;  // CJK glyphs are wide: no horizontal oversampling needed for crisp strokes
  merge.OversampleV = 1;
  auto add = [&](float px) {
    ImFont* font;
    if (ttf.empty()) {
      ImFontConfig c;
      c.SizePixels = 13.f * scale;
      font = io.Fonts->AddFontDefault(&c);
    } else {
      font = io.Fonts->AddFontFromMemoryTTF(const_cast<char*>(ttf.data()), static_cast<int>(ttf.size()), px * scale,
                                            &cfg, latin_ranges.Data);
    }
    // Merged glyphs a font already has are skipped (ImGui keeps the first): Latin stays Roboto.
    // ImGui sizes a font by its ascent − descent: 1.448 em for Noto Sans CJK, 1.17 for Roboto,
    // so at the same pixel size a CJK character would be 0.8 of Roboto's em. Scaled up to match.
    const float cjk_px = px * scale * kCjkSizeRatio;
    if (f.cjk)
      io.Fonts->AddFontFromMemoryTTF(g_cjk.data(), static_cast<int>(g_cjk.size()), cjk_px, &merge, zh_ranges.Data);
    else if (!sw.empty())
      io.Fonts->AddFontFromMemoryTTF(const_cast<char*>(sw.data()), static_cast<int>(sw.size()), cjk_px, &merge,
                                     switch_ranges.Data);
    return font;
  };
  f.body = add(15.f);
  f.big = add(26.f);
  f.small = add(13.f);
  io.FontDefault = f.body;
  io.Fonts->Build();
  return f;
}

std::u32string missing_glyphs(std::string_view text) {
  std::u32string out;
  const ImFont* font = ImGui::GetIO().FontDefault;
  if (!font) return out;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    unsigned int c = 0;
    const int n = ImTextCharFromUtf8(&c, p, end);
    if (n <= 0) break;
    p += n;
    if (c >= 0x20 && !font->FindGlyphNoFallback(static_cast<ImWchar>(c)) && out.find(static_cast<char32_t>(c)) == std::u32string::npos)
      out += static_cast<char32_t>(c);
  }
  return out;
}

void apply_style(bool dark, float scale) {
  g_dark = dark;
  ImGuiStyle style;
  if (dark) ImGui::StyleColorsDark(&style); else ImGui::StyleColorsLight(&style);
  style.WindowRounding = 0.f;
  style.ChildRounding = 6.f;
  style.FrameRounding = 4.f;
  style.GrabRounding = 4.f;
  style.PopupRounding = 6.f;
  style.TabRounding = 4.f;
  style.ScrollbarRounding = 6.f;
  style.WindowBorderSize = 0.f;
  style.FrameBorderSize = dark ? 0.f : 1.f;
  style.ChildBorderSize = 1.f;
  style.WindowPadding = ImVec2(12, 10);
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.CellPadding = ImVec2(6, 3);
  style.ScrollbarSize = 12.f;
  ImVec4* c = style.Colors;
  const ImVec4 accent = series_colour_v(0);
  const ImVec4 accent_hi = series_colour_v(4);
  if (dark) {
    c[ImGuiCol_WindowBg] = rgb(24, 26, 31);
    c[ImGuiCol_ChildBg] = rgb(30, 33, 39, 0.0f);
    c[ImGuiCol_PopupBg] = rgb(34, 37, 44, 0.98f);
    c[ImGuiCol_Border] = rgb(52, 56, 66);
    c[ImGuiCol_FrameBg] = rgb(40, 44, 52);
    c[ImGuiCol_FrameBgHovered] = rgb(50, 55, 66);
    c[ImGuiCol_FrameBgActive] = rgb(56, 62, 74);
    c[ImGuiCol_Text] = rgb(226, 229, 235);
    c[ImGuiCol_TextDisabled] = rgb(140, 146, 158);
    c[ImGuiCol_Header] = rgb(0, 114, 178, 0.35f);
    c[ImGuiCol_HeaderHovered] = rgb(0, 114, 178, 0.55f);
    c[ImGuiCol_HeaderActive] = rgb(0, 114, 178, 0.75f);
    c[ImGuiCol_Button] = rgb(46, 51, 61);
    c[ImGuiCol_ButtonHovered] = rgb(0, 114, 178, 0.70f);
    c[ImGuiCol_ButtonActive] = accent;
    c[ImGuiCol_Tab] = rgb(36, 40, 48);
    c[ImGuiCol_TabHovered] = rgb(0, 114, 178, 0.70f);
    c[ImGuiCol_TabActive] = rgb(0, 94, 150);
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = rgb(20, 22, 26);
    c[ImGuiCol_MenuBarBg] = rgb(20, 22, 26);
    c[ImGuiCol_TableHeaderBg] = rgb(38, 42, 50);
    c[ImGuiCol_TableRowBgAlt] = rgb(255, 255, 255, 0.03f);
    c[ImGuiCol_CheckMark] = accent_hi;
    c[ImGuiCol_SliderGrab] = accent_hi;
    c[ImGuiCol_PlotHistogram] = accent_hi;
    c[ImGuiCol_Separator] = rgb(52, 56, 66);
  } else {
    c[ImGuiCol_WindowBg] = rgb(246, 247, 249);
    c[ImGuiCol_ChildBg] = rgb(255, 255, 255, 0.0f);
    c[ImGuiCol_PopupBg] = rgb(255, 255, 255, 0.98f);
    c[ImGuiCol_Border] = rgb(210, 214, 222);
    c[ImGuiCol_FrameBg] = rgb(255, 255, 255);
    c[ImGuiCol_FrameBgHovered] = rgb(236, 242, 250);
    c[ImGuiCol_FrameBgActive] = rgb(224, 234, 246);
    c[ImGuiCol_Text] = rgb(28, 31, 36);
    c[ImGuiCol_TextDisabled] = rgb(105, 112, 124);
    c[ImGuiCol_Header] = rgb(0, 114, 178, 0.18f);
    c[ImGuiCol_HeaderHovered] = rgb(0, 114, 178, 0.30f);
    c[ImGuiCol_HeaderActive] = rgb(0, 114, 178, 0.45f);
    c[ImGuiCol_Button] = rgb(232, 235, 240);
    c[ImGuiCol_ButtonHovered] = rgb(0, 114, 178, 0.25f);
    c[ImGuiCol_ButtonActive] = rgb(0, 114, 178, 0.45f);
    c[ImGuiCol_Tab] = rgb(226, 230, 236);
    c[ImGuiCol_TabHovered] = rgb(0, 114, 178, 0.30f);
    c[ImGuiCol_TabActive] = rgb(255, 255, 255);
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = rgb(234, 237, 241);
    c[ImGuiCol_MenuBarBg] = rgb(234, 237, 241);
    c[ImGuiCol_TableHeaderBg] = rgb(236, 239, 244);
    c[ImGuiCol_TableRowBgAlt] = rgb(0, 0, 0, 0.025f);
    c[ImGuiCol_CheckMark] = accent;
    c[ImGuiCol_SliderGrab] = accent;
    c[ImGuiCol_PlotHistogram] = accent;
    c[ImGuiCol_Separator] = rgb(210, 214, 222);
  }
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

bool theme_is_dark() { return g_dark; }
ImU32 text_weak() { return ImGui::GetColorU32(ImGuiCol_TextDisabled); }
ImU32 grid_colour() { return g_dark ? IM_COL32(255, 255, 255, 22) : IM_COL32(0, 0, 0, 22); }
ImVec4 error_colour() { return g_dark ? rgb(255, 140, 90) : rgb(190, 70, 0); }
ImVec4 ok_colour() { return g_dark ? rgb(60, 200, 150) : rgb(0, 120, 88); }
ImVec4 clear_colour() { return ImGui::GetStyle().Colors[ImGuiCol_WindowBg]; }

}  // namespace llmsize::app

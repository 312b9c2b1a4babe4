// Colours and fonts of the UI: the Okabe–Ito colour-blind-safe palette for data, a dark and
// a light ImGui style, and the fonts built for a given UI scale (devicePixelRatio on the
// web, the monitor content scale natively). No platform code.
#pragma once
#include <imgui.h>

#include <string>
#include <string_view>

namespace llmsize::app {

// Okabe & Ito (2008), "Color Universal Design": eight colours distinguishable under the
// common colour-vision deficiencies. Data series take them in this order.
inline constexpr int kPaletteSize = 7;
ImU32 series_colour(int i);        // 0 blue, 1 orange, 2 bluish green, 3 vermillion, 4 sky blue, 5 reddish purple, 6 yellow
ImVec4 series_colour_v(int i);

struct Fonts {
  ImFont* body = nullptr;   // 15 px × scale
  ImFont* big = nullptr;    // 26 px × scale, headline numbers
  ImFont* small = nullptr;  // 13 px × scale, axis ticks and footnotes
  bool cjk = false;         // the Chinese table's glyphs are merged into each
};

// The Chinese table's glyphs (an OpenType subset, scripts/cjk_subset.py): compiled into the
// desktop app, fetched by the page when Chinese is chosen. Kept for later atlas builds.
void set_cjk_font(std::string bytes);
bool has_cjk_font();

// Rebuilds the font atlas for `scale` (the caller re-uploads the atlas texture): the Latin
// UI font with the language switch's CJK glyphs merged in, and with `cjk` (and a font given to
// set_cjk_font) every character of the Chinese table.
Fonts build_fonts(float scale, bool cjk = false);

// Code points of `text` (UTF-8) the atlas's body font has no glyph for (browser and app tests:
// nothing of the string table may render as a box).
std::u32string missing_glyphs(std::string_view text);

// Applies the dark or light style, sized for `scale`.
void apply_style(bool dark, float scale);

// Semantic colours that follow the theme.
ImU32 text_weak();     // secondary text
ImU32 grid_colour();   // plot grid lines
ImVec4 error_colour();  // validation messages (vermillion, readable on both themes)
ImVec4 ok_colour();     // confirmations (bluish green)
ImVec4 clear_colour();  // framebuffer clear (window background)
bool theme_is_dark();

}  // namespace llmsize::app

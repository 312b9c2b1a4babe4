// Colours and fonts of the UI: the Okabe–Ito colour-blind-safe palette for data, a dark and
// a light ImGui style, and the fonts built for a given UI scale (devicePixelRatio on the
// web, the monitor content scale natively). No platform code.
#pragma once
#include <imgui.h>

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
};

// Rebuilds the font atlas for `scale` (the caller re-uploads the atlas texture).
Fonts build_fonts(float scale);

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

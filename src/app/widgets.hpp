// Small UI building blocks shared by the panels: a figure that expands to its derivation,
// headline numbers, help markers, and the test-hook registry of widget rectangles (browser
// and desktop tests click where a person would click).
#pragma once
#include <imgui.h>

#include <map>
#include <string>

#include "core/estimate.hpp"
#include "core/format.hpp"
#include "core/lang.hpp"

namespace llmsize::app {

using core::Str;

// The interface language of the frame being drawn (app::frame sets it from the state, as far
// as the fonts can show it) and its texts: T(key) from the string table, TL(key, id) as an
// ImGui label "text###id" whose id is the same in every language (a tab stays selected, a
// header stays open, when the language changes).
void set_ui_lang(core::Lang lang);
core::Lang ui_lang();
inline const char* T(Str key) { return core::tr(key, ui_lang()); }
const char* TL(Str key, const char* id);
// A name from a core table in the interface's language: a figure's label ("figure", by its
// key), a memory bar's legend ("legend", by its figure's key), a module ("group") or an
// attention kind ("attn", by their English names); `english` (the row's own) where the
// language has none.
std::string_view tr_name(std::string_view table, std::string_view key, std::string_view english);
inline std::string_view tr_name(std::string_view table, std::string_view english) { return tr_name(table, english, english); }
// A figure's bound ("exact", "lower bound", …) in the interface's language.
const char* bound_text(core::Bound b);
using core::printf_text;  // printf into a string: a table text with its placeholders filled

struct Fonts;

// Remembers the last item's rectangle under `name` for this frame (test hook).
void mark(const char* name);
struct MarkedRect {
  float x = 0, y = 0, w = 0, h = 0;
};
const std::map<std::string, MarkedRect>& marked_rects();
void clear_marks();  // at the start of each frame

void help_marker(const char* text);

// "label ........ value" with a disclosure arrow; open, it shows `explanation` (the
// formula with the numbers substituted, as the core wrote it). `tag` may say "lower bound".
void explained_value(const char* id, const std::string& label, const std::string& value,
                     const std::string& explanation, const char* tag = nullptr);

// A headline figure: caption above, large value, detail below.
void big_number(const Fonts& fonts, const char* caption, const std::string& value, const std::string& detail,
                float width, const ImVec4* colour = nullptr);

// SameLine() when an item `next_width` wide still fits on this line, else a new line:
// headline figures flow onto more lines on a narrow screen.
void flow_same_line(float next_width);

// Wrapped text in the theme's error colour, prefixed with a marker readable without colour.
void error_text(const std::string& text);

// A section title with a thin rule below.
void section(const char* title);

}  // namespace llmsize::app

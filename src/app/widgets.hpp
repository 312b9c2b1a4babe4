// Small UI building blocks shared by the panels: a figure that expands to its derivation,
// headline numbers, help markers, and the test-hook registry of widget rectangles (browser
// and desktop tests click where a person would click).
#pragma once
#include <imgui.h>

#include <map>
#include <string>

namespace llmsize::app {

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

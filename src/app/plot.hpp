// A small plotting API drawn with ImGui's draw lists, shaped like ImPlot's (ImPlot is not
// packaged here): begin_plot … plot_line / plot_hline … end_plot, plus a horizontal stacked
// bar. Series are buffered between begin and end; end_plot fits the axes, draws grid, ticks,
// lines, a legend and a hover read-out of the nearest sample. It computes no figures.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace llmsize::app::plot {

enum Flags : int { kNone = 0, kLogX = 1 << 0, kLogY = 1 << 1 };
using Formatter = std::string (*)(double);

// Returns false when the plot is clipped; call end_plot() only when it returned true.
bool begin_plot(const char* id, ImVec2 size, const char* x_label, const char* y_label, int flags = kNone);
void setup_format(Formatter x, Formatter y);    // tick and read-out text (default: %g)
void setup_y_min(double y0);                     // default 0 for linear y
void plot_line(const char* label, const std::vector<double>& xs, const std::vector<double>& ys, ImU32 colour,
               float thickness = 2.0f);
// A dashed horizontal reference line (a GPU's capacity); kept in view when within
// `keep_within` × the data maximum, else listed in the legend as off the chart.
void plot_hline(const char* label, double y, ImU32 colour, double keep_within = 3.0);
void plot_vline(const char* label, double x, ImU32 colour);
void end_plot();

struct Segment {
  std::string label;
  double value = 0;  // in display units; segments with value <= 0 are skipped
  ImU32 colour = 0;
  std::string tooltip;  // shown on hover (the figure's explanation)
};
// One horizontal bar split into segments, with a legend below it; `capacity` > 0 draws a
// marker at that value (a GPU's memory). `scale_max` > 0 is the value at the bar's right end
// (bars compared on one scale); else the larger of the total and the capacity. Returns the index
// of the hovered segment or -1.
int stacked_bar(const char* id, const std::vector<Segment>& segs, double capacity, const char* capacity_label,
                Formatter fmt, float height, double scale_max = 0);

}  // namespace llmsize::app::plot

// Plot drawing (see plot.hpp): axis fitting, ticks, lines, legend and hover read-out.
#include "app/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui_internal.h>

#include "app/theme.hpp"
#include "app/widgets.hpp"

namespace llmsize::app::plot {

namespace {

struct Line {
  std::string label;
  std::vector<double> xs, ys;
  ImU32 colour;
  float thickness;
};
struct RefLine {
  std::string label;
  double v;
  ImU32 colour;
  double keep_within;
  bool vertical;
};
struct Ctx {
  ImRect frame;
  std::string x_label, y_label;
  int flags = 0;
  Formatter fx = nullptr, fy = nullptr;
  double y_min = 0;
  std::vector<Line> lines;
  std::vector<RefLine> refs;
} g;

std::string default_fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// "Nice" linear tick step: 1, 2 or 5 × 10^k giving about `target` ticks.
double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float th, float dash) {
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len <= 0) return;
  const ImVec2 d((b.x - a.x) / len, (b.y - a.y) / len);
  for (float t = 0; t < len; t += 2 * dash) {
    const float e = std::min(len, t + dash);
    dl->AddLine(ImVec2(a.x + d.x * t, a.y + d.y * t), ImVec2(a.x + d.x * e, a.y + d.y * e), col, th);
  }
}

}  // namespace

bool begin_plot(const char* id, ImVec2 size, const char* x_label, const char* y_label, int flags) {
  ImGui::PushID(id);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  ImGui::InvisibleButton("##plot", size);
  g = Ctx{};
  g.frame = ImRect(p, ImVec2(p.x + size.x, p.y + size.y));
  g.x_label = x_label;
  g.y_label = y_label;
  g.flags = flags;
  g.fx = default_fmt;
  g.fy = default_fmt;
  if (!ImGui::IsItemVisible()) {
    ImGui::PopID();
    return false;
  }
  return true;
}

void setup_format(Formatter x, Formatter y) {
  if (x) g.fx = x;
  if (y) g.fy = y;
}
void setup_y_min(double y0) { g.y_min = y0; }

void plot_line(const char* label, const std::vector<double>& xs, const std::vector<double>& ys, ImU32 colour,
               float thickness) {
  g.lines.push_back({label, xs, ys, colour, thickness});
}
void plot_hline(const char* label, double y, ImU32 colour, double keep_within) {
  g.refs.push_back({label, y, colour, keep_within, false});
}
void plot_vline(const char* label, double x, ImU32 colour) { g.refs.push_back({label, x, colour, 0, true}); }

void end_plot() {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = ImGui::GetFontSize() / 15.f;
  ImFont* small = ImGui::GetIO().Fonts->Fonts.Size > 2 ? ImGui::GetIO().Fonts->Fonts[2] : ImGui::GetFont();
  const float fs = small->FontSize;
  const bool logx = g.flags & kLogX;
  auto tx = [&](double x) { return logx ? std::log2(std::max(x, 1e-300)) : x; };

  // Fit the axes to the data.
  double x0 = INFINITY, x1 = -INFINITY, ymax = 0;
  for (const auto& l : g.lines)
    for (size_t i = 0; i < l.xs.size() && i < l.ys.size(); ++i) {
      if (!std::isfinite(l.ys[i])) continue;
      x0 = std::min(x0, tx(l.xs[i]));
      x1 = std::max(x1, tx(l.xs[i]));
      ymax = std::max(ymax, l.ys[i]);
    }
  if (!(x1 > x0)) { x0 = 0; x1 = 1; }
  const double data_max = ymax > 0 ? ymax : 1;
  for (const auto& r : g.refs)
    if (!r.vertical && r.v <= r.keep_within * data_max) ymax = std::max(ymax, r.v);
  double y0 = g.y_min, y1 = (ymax > y0 ? ymax : y0 + 1) * 1.08;

  // Layout: y tick labels on the left, x ticks and label below.
  const float left = 46 * s, bottom = 2.2f * fs + 10 * s, top = fs + 10 * s, right = 12 * s;
  const ImRect pr(ImVec2(g.frame.Min.x + left, g.frame.Min.y + top),
                  ImVec2(g.frame.Max.x - right, g.frame.Max.y - bottom));
  auto px = [&](double x) { return static_cast<float>(pr.Min.x + (tx(x) - x0) / (x1 - x0) * pr.GetWidth()); };
  auto pxt = [&](double t) { return static_cast<float>(pr.Min.x + (t - x0) / (x1 - x0) * pr.GetWidth()); };
  auto py = [&](double y) { return static_cast<float>(pr.Max.y - (y - y0) / (y1 - y0) * pr.GetHeight()); };

  const ImU32 weak = text_weak();
  const ImU32 grid = grid_colour();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddRectFilled(pr.Min, pr.Max, ImGui::GetColorU32(ImGuiCol_FrameBg, 0.35f), 4 * s);

  // Y ticks.
  const double ys = nice_step(y1 - y0, std::max(2, static_cast<int>(pr.GetHeight() / (34 * s))));
  for (double y = std::ceil(y0 / ys) * ys; y <= y1 + 1e-9 * ys; y += ys) {
    const float yy = py(y);
    dl->AddLine(ImVec2(pr.Min.x, yy), ImVec2(pr.Max.x, yy), grid);
    const std::string t = g.fy(y);
    const ImVec2 ts = small->CalcTextSizeA(fs, FLT_MAX, 0, t.c_str());
    dl->AddText(small, fs, ImVec2(pr.Min.x - ts.x - 6 * s, yy - ts.y / 2), weak, t.c_str());
  }
  // X ticks: powers of two on a log axis, nice steps otherwise.
  std::vector<double> xt;
  if (logx) {
    const int n = static_cast<int>(std::floor(x1) - std::ceil(x0)) + 1;
    const int every = std::max(1, n / std::max(2, static_cast<int>(pr.GetWidth() / (60 * s))));
    for (double e = std::ceil(x0); e <= x1 + 1e-9; e += every) xt.push_back(e);
  } else {
    const double xs = nice_step(x1 - x0, std::max(2, static_cast<int>(pr.GetWidth() / (80 * s))));
    for (double x = std::ceil(x0 / xs) * xs; x <= x1 + 1e-9 * xs; x += xs) xt.push_back(x);
  }
  for (double t : xt) {
    const float xx = pxt(t);
    dl->AddLine(ImVec2(xx, pr.Min.y), ImVec2(xx, pr.Max.y), grid);
    const std::string lab = g.fx(logx ? std::exp2(t) : t);
    const ImVec2 ts = small->CalcTextSizeA(fs, FLT_MAX, 0, lab.c_str());
    dl->AddText(small, fs, ImVec2(xx - ts.x / 2, pr.Max.y + 4 * s), weak, lab.c_str());
  }
  {
    const ImVec2 ts = small->CalcTextSizeA(fs, FLT_MAX, 0, g.x_label.c_str());
    dl->AddText(small, fs, ImVec2(pr.GetCenter().x - ts.x / 2, pr.Max.y + fs + 8 * s), text, g.x_label.c_str());
    dl->AddText(small, fs, ImVec2(g.frame.Min.x + 4 * s, g.frame.Min.y + 2 * s), text, g.y_label.c_str());
  }

  dl->PushClipRect(pr.Min, pr.Max, true);
  std::vector<std::string> off_chart;
  std::vector<ImRect> placed;
  for (const auto& r : g.refs) {
    if (r.vertical) {
      dashed_line(dl, ImVec2(px(r.v), pr.Min.y), ImVec2(px(r.v), pr.Max.y), r.colour, 1.5f * s, 5 * s);
      continue;
    }
    if (r.v > y1) {
      off_chart.push_back(r.label);
      continue;
    }
    const float yy = py(r.v);
    dashed_line(dl, ImVec2(pr.Min.x, yy), ImVec2(pr.Max.x, yy), r.colour, 1.5f * s, 6 * s);
    // Labels sit right-aligned above their line; one that would overlap a placed label moves left.
    const ImVec2 ts = small->CalcTextSizeA(fs, FLT_MAX, 0, r.label.c_str());
    ImVec2 at(pr.Max.x - ts.x - 4 * s, yy - ts.y - 1 * s);
    for (bool moved = true; moved;) {
      moved = false;
      for (const ImRect& o : placed)
        if (o.Overlaps(ImRect(at, ImVec2(at.x + ts.x, at.y + ts.y)))) {
          at.x = o.Min.x - ts.x - 12 * s;
          moved = true;
        }
    }
    placed.emplace_back(at, ImVec2(at.x + ts.x, at.y + ts.y));
    dl->AddText(small, fs, at, r.colour, r.label.c_str());
  }
  for (const auto& l : g.lines) {
    std::vector<ImVec2> pts;
    for (size_t i = 0; i < l.xs.size() && i < l.ys.size(); ++i)
      if (std::isfinite(l.ys[i])) pts.emplace_back(px(l.xs[i]), py(l.ys[i]));
    if (pts.size() >= 2) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), l.colour, 0, l.thickness * s);
    for (const auto& p : pts) dl->AddCircleFilled(p, 2.2f * s, l.colour);
  }
  dl->PopClipRect();

  // Legend, top-left inside the plot.
  {
    float y = pr.Min.y + 6 * s;
    const float x = pr.Min.x + 8 * s;
    auto row = [&](const std::string& label, ImU32 col, bool dashed) {
      const float cy = y + fs / 2;
      if (dashed) dashed_line(dl, ImVec2(x, cy), ImVec2(x + 16 * s, cy), col, 2 * s, 3 * s);
      else dl->AddLine(ImVec2(x, cy), ImVec2(x + 16 * s, cy), col, 3 * s);
      dl->AddText(small, fs, ImVec2(x + 22 * s, y), text, label.c_str());
      y += fs + 3 * s;
    };
    for (const auto& l : g.lines) row(l.label, l.colour, false);
    if (!off_chart.empty()) {
      std::string t = T(Str::plot_above);
      for (size_t i = 0; i < off_chart.size(); ++i) t += (i ? ", " : "") + off_chart[i];
      dl->AddText(small, fs, ImVec2(x, y), weak, t.c_str());
    }
  }

  // Hover read-out: the nearest sample of each line.
  if (ImGui::IsItemHovered() && !g.lines.empty()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (pr.Contains(m)) {
      const double t = x0 + (m.x - pr.Min.x) / pr.GetWidth() * (x1 - x0);
      const Line& first = g.lines.front();
      size_t best = 0;
      for (size_t i = 1; i < first.xs.size(); ++i)
        if (std::fabs(tx(first.xs[i]) - t) < std::fabs(tx(first.xs[best]) - t)) best = i;
      if (best < first.xs.size()) {
        const float xx = px(first.xs[best]);
        dl->AddLine(ImVec2(xx, pr.Min.y), ImVec2(xx, pr.Max.y), weak);
        ImGui::BeginTooltip();
        ImGui::TextUnformatted((g.x_label + ": " + g.fx(first.xs[best])).c_str());
        for (const auto& l : g.lines)
          if (best < l.ys.size()) {
            ImGui::ColorButton(l.label.c_str(), ImGui::ColorConvertU32ToFloat4(l.colour),
                               ImGuiColorEditFlags_NoTooltip, ImVec2(fs, fs));
            ImGui::SameLine();
            ImGui::Text("%s: %s %s", l.label.c_str(), g.fy(l.ys[best]).c_str(), g.y_label.c_str());
          }
        ImGui::EndTooltip();
      }
    }
  }
  ImGui::PopID();
}

int stacked_bar(const char* id, const std::vector<Segment>& segs, double capacity, const char* capacity_label,
                Formatter fmt, float height, double scale_to) {
  ImGui::PushID(id);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float s = ImGui::GetFontSize() / 15.f;
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::InvisibleButton("##bar", ImVec2(w, height));
  const bool hovered = ImGui::IsItemHovered();
  double total = 0;
  for (const auto& sg : segs) total += std::max(0.0, sg.value);
  const double scale_max = scale_to > 0 ? scale_to : std::max(total, capacity) * 1.02;
  const float bar_w = w;
  int hovered_seg = -1;
  float x = p.x;
  dl->AddRectFilled(p, ImVec2(p.x + bar_w, p.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 4 * s);
  for (size_t i = 0; i < segs.size(); ++i) {
    if (segs[i].value <= 0 || scale_max <= 0) continue;
    const float sw = static_cast<float>(segs[i].value / scale_max * bar_w);
    const ImVec2 a(x, p.y), b(x + sw, p.y + height);
    dl->AddRectFilled(a, b, segs[i].colour);
    if (sw > 2 * s) dl->AddLine(ImVec2(b.x, a.y), ImVec2(b.x, b.y), ImGui::GetColorU32(ImGuiCol_WindowBg), 1.5f * s);
    if (hovered && ImGui::GetIO().MousePos.x >= a.x && ImGui::GetIO().MousePos.x < b.x) hovered_seg = static_cast<int>(i);
    x += sw;
  }
  if (capacity > 0 && scale_max > 0) {
    const float cx = static_cast<float>(p.x + capacity / scale_max * bar_w);
    dl->AddLine(ImVec2(cx, p.y - 4 * s), ImVec2(cx, p.y + height + 4 * s), ImGui::GetColorU32(ImGuiCol_Text), 2 * s);
    if (capacity_label && *capacity_label) {
      const ImVec2 ts = ImGui::CalcTextSize(capacity_label);
      const float lx = std::min(cx + 4 * s, p.x + bar_w - ts.x);
      dl->AddText(ImVec2(lx, p.y + height + 2 * s), ImGui::GetColorU32(ImGuiCol_Text), capacity_label);
    }
    ImGui::Dummy(ImVec2(1, ImGui::GetTextLineHeight()));
  }
  if (hovered_seg >= 0) {
    const auto& sg = segs[static_cast<size_t>(hovered_seg)];
    ImGui::BeginTooltip();
    ImGui::Text("%s: %s", sg.label.c_str(), fmt(sg.value).c_str());
    if (!sg.tooltip.empty()) {
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
      ImGui::TextDisabled("%s", sg.tooltip.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::EndTooltip();
  }
  // Legend: swatch, label and value per segment, flowing over lines.
  const float avail = ImGui::GetContentRegionAvail().x;
  float used = 0;
  for (size_t i = 0; i < segs.size(); ++i) {
    if (segs[i].value <= 0) continue;
    const std::string t = segs[i].label + " " + fmt(segs[i].value);
    const float item_w = ImGui::GetFrameHeight() * 0.6f + ImGui::CalcTextSize(t.c_str()).x + 22 * s;
    if (used > 0 && used + item_w < avail) ImGui::SameLine(0, 14 * s);
    else used = 0;
    used += item_w;
    const float sq = ImGui::GetTextLineHeight() * 0.7f;
    const ImVec2 c = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(c.x, c.y + (ImGui::GetTextLineHeight() - sq) / 2),
                                              ImVec2(c.x + sq, c.y + (ImGui::GetTextLineHeight() + sq) / 2),
                                              segs[i].colour, 2 * s);
    ImGui::Dummy(ImVec2(sq, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, 5 * s);
    ImGui::TextUnformatted(t.c_str());
    if (!segs[i].tooltip.empty() && ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
      ImGui::TextUnformatted(segs[i].tooltip.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  ImGui::PopID();
  return hovered_seg;
}

}  // namespace llmsize::app::plot

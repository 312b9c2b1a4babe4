// The memory chart as SVG (see chart.hpp).
#include "chart.hpp"

#include <algorithm>
#include <cstdio>

#include "figures.hpp"

namespace llmsize::core {

namespace {

std::string xml(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control bytes are not XML characters.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t') out += ch;
    }
  }
  return out;
}

std::string hex(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string memory_chart_svg(const ModelConfig& cfg, const Workload& w, const Estimate& e, ByteUnit unit) {
  const ModeFigures& mf = mode_figures(w.mode);
  struct Part {
    std::string_view legend;
    i64 bytes;
  };
  std::vector<Part> parts;
  for (const auto& p : mf.parts) parts.push_back({p.legend, std::max<i64>(0, p.figure->value(e).whole)});
  // Rows of the legend: the parts this estimate has (each keeps its colour, the part's place in the mode).
  std::vector<size_t> shown;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].bytes > 0) shown.push_back(i);
  const i64 total = mf.total->value(e).whole, capacity = mf.capacity(e);
  const bool fits = mf.fits(e);
  // Layout (px): a 720-wide page, the bar 680 wide from x = 20, one legend row per part.
  constexpr double kLeft = 20, kWidth = 680, kBarTop = 90, kBarHeight = 36;
  const double legend_top = kBarTop + kBarHeight + 30;
  const double height = legend_top + 22.0 * static_cast<double>(shown.size()) + 8;
  const double scale = kWidth / static_cast<double>(std::max<i64>({total, capacity, 1}));
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"" + num(height) + "\" viewBox=\"0 0 720 " +
                  num(height) + "\" font-family=\"sans-serif\" font-size=\"13\">\n";
  s += "<rect width=\"720\" height=\"" + num(height) + "\" fill=\"#ffffff\"/>\n";
  const std::string name = cfg.name.empty() ? std::string("Custom model") : cfg.name;
  s += "<text x=\"20\" y=\"26\" font-size=\"16\" font-weight=\"bold\">" + xml(name) + " · " + xml(to_string(w.mode)) + "</text>\n";
  s += "<text x=\"20\" y=\"48\" fill=\"#444444\">" +
       xml(format_bytes(total, unit) + " on the most loaded of " + std::to_string(w.gpus) + " × " + e.gpu.name + " (usable " +
           format_bytes(capacity, unit) + (fits ? "): fits" : "): does not fit")) +
       "</text>\n";
  double x = kLeft;
  for (size_t i = 0; i < parts.size(); ++i) {
    const double wpx = static_cast<double>(parts[i].bytes) * scale;
    if (wpx <= 0) continue;
    s += "<rect x=\"" + num(x) + "\" y=\"" + num(kBarTop) + "\" width=\"" + num(wpx) + "\" height=\"" + num(kBarHeight) + "\" fill=\"" +
         hex(kSeriesPalette[i % kSeriesPaletteSize]) + "\"><title>" + xml(std::string(parts[i].legend) + ": " + format_bytes(parts[i].bytes, unit)) +
         "</title></rect>\n";
    x += wpx;
  }
  // The usable memory: a dashed line across the bar, labelled above it.
  const double cx = kLeft + static_cast<double>(capacity) * scale;
  s += "<line x1=\"" + num(cx) + "\" y1=\"" + num(kBarTop - 6) + "\" x2=\"" + num(cx) + "\" y2=\"" + num(kBarTop + kBarHeight + 6) +
       "\" stroke=\"#222222\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>\n";
  s += "<text x=\"" + num(std::min(cx, kLeft + kWidth)) + "\" y=\"" + num(kBarTop - 12) + "\" text-anchor=\"end\" fill=\"#222222\">" +
       xml("usable " + format_bytes(capacity, unit)) + "</text>\n";
  for (size_t row = 0; row < shown.size(); ++row) {
    const size_t i = shown[row];
    const double y = legend_top + 22.0 * static_cast<double>(row);
    s += "<rect x=\"20\" y=\"" + num(y - 11) + "\" width=\"14\" height=\"14\" fill=\"" + hex(kSeriesPalette[i % kSeriesPaletteSize]) + "\"/>\n";
    s += "<text x=\"42\" y=\"" + num(y) + "\">" + xml(std::string(parts[i].legend)) + "</text>\n";
    s += "<text x=\"700\" y=\"" + num(y) + "\" text-anchor=\"end\">" + xml(format_bytes(parts[i].bytes, unit)) + "</text>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace llmsize::core

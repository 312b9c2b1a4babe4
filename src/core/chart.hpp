// Charts as documents (issue 14, Export): the memory chart of an estimate — the stacked bar of
// where the memory of the most loaded GPU goes, against the GPU's usable memory — as a
// standalone SVG (the page rasterises the same SVG for PNG). The palette is the one the UI
// draws its series with (Okabe & Ito 2008, colour-blind safe), kept here so both use one.
#pragma once
#include <cstdint>
#include <string>

#include "estimate.hpp"
#include "format.hpp"

namespace llmsize::core {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};
// ref: Okabe & Ito 2008, Color Universal Design, sRGB values of the palette.
inline constexpr Rgb kSeriesPalette[] = {
    {0, 114, 178},   // blue
    {230, 159, 0},   // orange
    {0, 158, 115},   // bluish green
    {213, 94, 0},    // vermillion
    {86, 180, 233},  // sky blue
    {204, 121, 167}, // reddish purple
    {240, 228, 66},  // yellow
};
inline constexpr int kSeriesPaletteSize = static_cast<int>(sizeof(kSeriesPalette) / sizeof(kSeriesPalette[0]));

// The memory chart (the mode's parts, bottom to top, as a horizontal stacked bar scaled to the
// larger of the total and the usable memory, the latter marked) as an SVG document with its
// title, legend and sizes in `unit`. Text from the model (its name) is escaped.
std::string memory_chart_svg(const ModelConfig& cfg, const Workload& w, const Estimate& e, ByteUnit unit);

}  // namespace llmsize::core

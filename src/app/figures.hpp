// Display of the core's figures: a value formatted by its unit (bytes in the chosen GB/GiB,
// counts, tokens/s, durations), and a row that expands to the figure's formula with the
// values substituted, its reference, and whether it is exact or a bound — all written by
// core::explain(). Formatting only; no figure is computed here.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/estimate.hpp"
#include "core/format.hpp"

namespace llmsize::app {

std::string format_bytes_auto(std::int64_t bytes, core::ByteUnit unit);  // GB, or MB/kB when small
std::string format_value(double v, core::Unit unit, core::ByteUnit bytes_unit);
const core::Explanation* find_explanation(const std::vector<core::Explanation>& ex, std::string_view key);

// A row "label … value (bound)" that opens to formula and reference.
void explanation_row(const core::Explanation& e, core::ByteUnit unit);
// Rows for every explanation in the JSON section `section` ("inference", "throughput", …)
// whose figure belongs to workload mode `mode` (core::figures() says which).
void explanation_rows(const std::vector<core::Explanation>& ex, std::string_view section, core::Mode mode,
                      core::ByteUnit unit);
// A tooltip text for a figure: formula, then reference.
std::string explanation_tooltip(const std::vector<core::Explanation>& ex, std::string_view key);

}  // namespace llmsize::app

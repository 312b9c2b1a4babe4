// The figure table: every figure of an Estimate, written once — its JSON path in the
// `llmsize estimate --json` report, label, unit, bound, value and derivation. explain(),
// the JSON report (values and its "bounds" object) and the UI all iterate this table, so a
// key of --explain always names a value of the JSON. Also the figures each workload mode
// leads with (mode_figures), so callers look them up instead of branching on the mode.
// Not here: the formulas themselves (memory.hpp, training.hpp, throughput.hpp).
#pragma once
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "estimate.hpp"

namespace llmsize::core {

// A figure's value: whole numbers (bytes, counts, tokens) stay 64-bit integers; rates,
// seconds and FLOPs are doubles. The unit says which (Unit::Bytes/Count/Tokens: whole).
struct FigureValue {
  FigureValue(i64 v) : integral(true), whole(v) {}     // NOLINT: implicit by design
  FigureValue(double v) : integral(false), real(v) {}  // NOLINT
  bool integral = true;
  i64 whole = 0;
  double real = 0;
  double as_double() const { return integral ? static_cast<double>(whole) : real; }
};

// A figure's formula with the values substituted ("= result" is appended for bytes by
// explain()) and the reference it follows.
struct Derivation {
  std::string formula;
  std::string reference;
};

struct Figure {
  std::string_view key;    // JSON path of the report, "section.name": "inference.kv_cache_bytes"
  std::string_view label;  // "KV cache"
  Unit unit = Unit::Bytes;
  std::optional<Mode> mode;  // the workload mode it belongs to; nullopt: both (params.total)
  FigureValue (*value)(const Estimate& e) = nullptr;
  Bound (*bound)(const Workload& w, const Estimate& e) = nullptr;
  // Builds strings: the words in `lang` (the string table's fx_ rows), symbols, numbers and code names as they are.
  Derivation (*derive)(const ModelConfig& c, const Workload& w, const Estimate& e, Lang lang) = nullptr;
  // Counts a part only some models have (a vision tower, indexer keys, a recurrent state): the
  // UI's figure list and --explain leave it out where it is 0; the JSON and the CSV keep it.
  bool model_part = false;
};
// Whether a list for people shows the figure: false for a model part this model lacks (value 0).
bool listed(const Figure& f, double value);

// Every figure, in display order (parameters, inference, training, throughput).
std::span<const Figure> figures();
const Figure* find_figure(std::string_view key);  // nullptr when no figure has that key

// The figures a workload mode leads with (headline numbers, the GPU table, the scaling
// plots, the stacked bar).
struct ModeFigures {
  struct Part {
    std::string_view legend;  // short legend of the stacked bar: "KV cache"
    const Figure* figure;
  };
  Mode mode = Mode::Inference;
  std::string_view section;         // JSON object of the mode's memory figures: "inference"
  const Figure* total = nullptr;    // memory per GPU (most loaded GPU)
  const Figure* min_gpus = nullptr;
  const Figure* growth = nullptr;   // the part that grows with context and batch (KV cache, activations)
  const Figure* rate = nullptr;     // the mode's speed figure (decode tokens/s, training time)
  const Figure* max_context = nullptr;  // inference only; nullptr in training
  std::vector<Part> parts;          // what the total is made of, bottom to top
  // Not figures of their own (fit.* in the JSON): usable memory per GPU and whether the total fits.
  i64 (*capacity)(const Estimate& e) = nullptr;
  bool (*fits)(const Estimate& e) = nullptr;
};
const ModeFigures& mode_figures(Mode m);

}  // namespace llmsize::core

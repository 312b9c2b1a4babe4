// Configurations side by side (issue 14, Compare): up to four states (model × workload × GPU ×
// engine, as share links carry them) estimated each, their headline figures in columns — the
// parameters, the memory per GPU and what it is made of, the fit, the GPUs needed, the longest
// context and the mode's speed — each row marked where the cases differ, with each case's
// difference from the first. The CLI prints it (`llmsize compare`), the JSON holds the values.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "estimate.hpp"
#include "format.hpp"
#include "share_link.hpp"

namespace llmsize::core {

struct CompareRow {
  std::string key;    // the figure's key ("inference.kv_cache_bytes"), "params.active", or "fit.fits" (".training")
  std::string label;  // "KV cache"
  Unit unit = Unit::Bytes;
  std::vector<std::optional<double>> values;  // per case; nullopt: not a figure of its mode, or no estimate
  bool differs = false;                       // two cases that have the figure give it different values
};

struct Comparison {
  std::vector<std::string> titles;               // per case: the model and what differs from the defaults
  std::vector<std::vector<Issue>> issues;        // per case: why it has no estimate (empty: it has one)
  std::vector<CompareRow> rows;
};

// Every case estimated (a model file summary's bytes and a projector's as the link carries them).
Comparison compare(const std::vector<ShareState>& cases);
std::string compare_text(const Comparison& c, ByteUnit unit);
std::string compare_json(const Comparison& c);

}  // namespace llmsize::core

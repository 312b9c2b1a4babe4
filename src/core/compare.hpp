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

// A case's model prepared as its link describes it: the model file summary's bytes as the weights
// (where its tensors match the model) and a projector's bytes, as the link carries them.
Result<PreparedModel> prepare_case(const ShareState& s);

// Every case estimated (prepare_case, then estimate under the case's workload).
Comparison compare(const std::vector<ShareState>& cases, Lang lang = Lang::En);
// The same from estimates made by the caller (the app: case 1 with the files read there, the
// others from prepared models it keeps); one estimate (or its issues) per case.
Comparison compare(const std::vector<ShareState>& cases, const std::vector<Result<Estimate>>& estimates, Lang lang = Lang::En);

// Whether any case has the row's figure (rows of another mode, or of a part no case holds —
// no vision tower anywhere — are left out of the table).
bool row_present(const CompareRow& r);
// Case k's value as the table shows it ("16.1 GB", "yes", "–"), with its difference from case 1
// ("(+12.5%)") where there is one.
std::string compare_cell(const CompareRow& r, size_t k, ByteUnit unit, Lang lang = Lang::En);
// The row's label in the language (the figure's, lang/zh_fields.inc; `label` stays the JSON's English).
std::string compare_label(const CompareRow& r, Lang lang);
// The case's title as the table heads its column: the model and the workload fields that differ
// from the defaults ("Llama 3 8B (seq 8192, w q4_k_m)").
std::string case_title(const ShareState& s, Lang lang = Lang::En);

std::string compare_text(const Comparison& c, ByteUnit unit, Lang lang = Lang::En);
std::string compare_json(const Comparison& c);

}  // namespace llmsize::core

// Machine-readable and human-readable reports of an estimate, shared by the CLI and the
// JS API so that both print exactly the same numbers. Pure string building, no I/O.
#pragma once
#include <string>

#include "estimate.hpp"
#include "format.hpp"
#include "lang.hpp"
#include "params.hpp"
#include "presets.hpp"

namespace llmsize::core {

// One JSON object: {"model": {...}, "params": {...}} with integer counts.
std::string params_json(const ModelConfig& cfg, const ParamReport& p);

// Aligned text tables with thousands separators. The text views take the language of their
// headings and labels (the CLI's --lang); tensor names, formulas, references, the gap's causes
// and the engines' own lines stay as written.
std::string params_text(const ModelConfig& cfg, const ParamReport& p, Lang lang = Lang::En);

// The derivation: every tensor with its shape and count, per layer kind, and the gap.
std::string inventory_text(const ModelConfig& cfg, const Inventory& inv, const ParamReport& p, Lang lang = Lang::En);

// [{"id", "name", "family", "total", "active"}, …] for `llmsize presets --json` and the JS API.
std::string presets_json(const std::vector<Preset>& presets);

// One-line architecture summary: "llama · 32 layers · d 4096 · 32 heads (8 KV) · …".
// In `lang` (the UI passes the one it shows; the CLI and reports English).
std::string architecture_summary(const ModelConfig& cfg, Lang lang = Lang::En);

// Full estimate (report_memory.cpp): params_json's keys plus "workload" (field key → text),
// "gpu", "parallel", "inference", "training" (bytes per GPU, integers), "fit", "throughput",
// "bounds" (figure key → exact / lower bound / upper bound / estimate) and, with
// `with_explain`, "explain": every figure's formula and reference. Every figure of
// figures.hpp sits at its key ("inference.max_context" → {"inference": {"max_context": …}}).
std::string estimate_json(const ModelConfig& cfg, const Workload& w, const Estimate& e, bool with_explain);
// The same report for a model and workload, estimating them first: the text of the one JSON
// object that the CLI's --json prints, the JS API's estimate() returns and the page's test
// hooks read. Invalid input gives {"model", "params", "issues": "field: message; …"} (no
// "params" when the model itself is invalid).
std::string estimate_report(const ModelConfig& cfg, const Workload& w, bool with_explain = false);
// The same for a prepared model (its model file's bytes as the weights where one is attached).
std::string estimate_report(const PreparedModel& m, const Workload& w, bool with_explain = false);
// Every figure of the workload's mode as CSV (RFC 4180, one header row): key, label, unit,
// bound, value (whole numbers exact), formula with its values, reference — the rows of
// explain(), for a spreadsheet.
std::string estimate_csv(const ModelConfig& cfg, const Workload& w, const Estimate& e);
// Memory, fit and throughput tables of the workload's mode, in GB or GiB.
std::string estimate_text(const ModelConfig& cfg, const Workload& w, const Estimate& e, ByteUnit unit,
                          Lang lang = Lang::En);
// Weights per tensor (storage type, bytes) and every derivation, for --explain.
// Figure labels and bounds in `lang`.
std::string estimate_explain_text(const ModelConfig& cfg, const Workload& w, const Estimate& e, ByteUnit unit,
                                  Lang lang = Lang::En);

}  // namespace llmsize::core

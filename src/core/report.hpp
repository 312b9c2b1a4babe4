// Machine-readable and human-readable reports of an estimate, shared by the CLI and the
// JS API so that both print exactly the same numbers. Pure string building, no I/O.
#pragma once
#include <string>

#include "params.hpp"
#include "presets.hpp"

namespace llmsize::core {

// One JSON object: {"model": {...}, "params": {...}} with integer counts.
std::string params_json(const ModelConfig& cfg, const ParamReport& p);

// Aligned text tables with thousands separators.
std::string params_text(const ModelConfig& cfg, const ParamReport& p);

// The derivation: every tensor with its shape and count, per layer kind, and the gap.
std::string inventory_text(const ModelConfig& cfg, const Inventory& inv, const ParamReport& p);

// [{"id", "name", "family", "total", "active"}, …] for `llmsize presets --json` and the JS API.
std::string presets_json(const std::vector<Preset>& presets);

// One-line architecture summary: "llama · 32 layers · d 4096 · 32 heads (8 KV) · …".
std::string architecture_summary(const ModelConfig& cfg);

}  // namespace llmsize::core

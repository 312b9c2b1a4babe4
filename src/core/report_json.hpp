// Private helper (core .cpp files only): the report objects as nlohmann::json, so that one
// report is built from another's object directly (no dump and parse back). The public
// functions of report.hpp return these objects' text.
#pragma once
#include "estimate.hpp"
#include "json_util.hpp"

namespace llmsize::core {

// {"model": {...}, "params": {...}} (report.cpp); params_json() is its text.
json_util::json params_object(const ModelConfig& cfg, const ParamReport& p);

}  // namespace llmsize::core

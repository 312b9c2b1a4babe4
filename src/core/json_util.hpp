// Private helper (core .cpp files only): parse untrusted JSON text without exceptions,
// with a size limit, a nesting limit and duplicate-key detection, and read typed values
// from it with Issues that name the key. Keeps nlohmann::json out of public headers.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "issue.hpp"
#include "checked.hpp"

namespace llmsize::core::json_util {

using json = nlohmann::json;

// `what` names the input in messages ("config.json", "preset llama-3-8b").
Result<json> parse(std::string_view text, const std::string& what, size_t max_bytes, int max_depth);

// Type name for messages: "a string", "an array", …
std::string type_name(const json& v);  // "an object": its row's English
Str type_row(const json& v);          // the row naming the value's type, for a message in any language

// Integer read from an integer or an integral float; Issue (naming `key`) otherwise.
std::optional<i64> to_int(const json& v, const std::string& key, std::vector<Issue>& issues);
std::optional<double> to_double(const json& v, const std::string& key, std::vector<Issue>& issues);

}  // namespace llmsize::core::json_util

// Strict text <-> value conversions for untrusted input (share links, CLI flags, UI text):
// whole-string decimal integers without signs games or overflow, finite doubles, 0/1
// booleans, and shortest round-trip formatting of doubles. No locale, no exceptions.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "checked.hpp"

namespace llmsize::core {

std::optional<i64> parse_int(std::string_view s);      // "-12" ok; "", "1e3", "12x", "+-1", overflow -> nullopt
std::optional<double> parse_real(std::string_view s);  // finite decimal or exponent form; nan/inf -> nullopt
std::optional<bool> parse_bool(std::string_view s);    // "0"/"1"/"true"/"false"
std::string format_real(double v);                     // shortest text that parses back to v

}  // namespace llmsize::core

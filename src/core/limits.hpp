// The documented bounds of every input, generated from the tables that enforce them
// (field_limits(), real_limits(), model_fields(), workload_fields(), the parser limits), so the
// documentation cannot drift from the code. `llmsize limits` prints it; docs/LIMITS.md is
// its committed copy (a test keeps them equal).
#pragma once
#include <string>

#include "lang.hpp"

namespace llmsize::core {

// In English (docs/LIMITS.md) or another language (`llmsize limits --lang zh`).
std::string limits_markdown(Lang lang = Lang::En);

}  // namespace llmsize::core

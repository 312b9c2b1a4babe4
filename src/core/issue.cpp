// Formatting of Issue lists (see issue.hpp).
#include "issue.hpp"

namespace llmsize::core {

std::string to_string(const Issue& issue) {
  if (issue.field.empty()) return issue.message;
  return issue.field + ": " + issue.message;
}

std::string join(const std::vector<Issue>& issues, const char* sep) {
  std::string out;
  for (const auto& i : issues) {
    if (!out.empty()) out += sep;
    out += to_string(i);
  }
  return out;
}

Issue memory_overflow(std::string field) {
  return Issue{std::move(field), "the memory of this model and workload overflows 64-bit byte counts; reduce seq, "
                                 "batch or the model size"};
}

}  // namespace llmsize::core

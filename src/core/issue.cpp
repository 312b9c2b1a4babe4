// Formatting of Issue lists (see issue.hpp).
#include "issue.hpp"

namespace llmsize::core {

Issue issue(std::string field, std::function<std::string(Lang)> text) {
  std::string english = text(Lang::En);
  return Issue{std::move(field), std::move(english), std::move(text)};
}

std::string row_text(Str row, const std::vector<RowArg>& args, Lang lang) {
  const char* f = tr(row, lang);
  std::vector<std::string> a;
  for (const RowArg& x : args) a.push_back(x.in(lang));
  a.resize(4);
  switch (args.size()) {
    case 0: return f;
    case 1: return printf_text(f, a[0].c_str());
    case 2: return printf_text(f, a[0].c_str(), a[1].c_str());
    case 3: return printf_text(f, a[0].c_str(), a[1].c_str(), a[2].c_str());
    default: return printf_text(f, a[0].c_str(), a[1].c_str(), a[2].c_str(), a[3].c_str());
  }
}

std::string message_in(const Issue& issue, Lang lang) {
  return issue.text && lang != Lang::En ? issue.text(lang) : issue.message;
}

std::string to_string(const Issue& issue, Lang lang) {
  if (issue.field.empty()) return message_in(issue, lang);
  return printf_text(tr(Str::cli_what_error, lang), issue.field.c_str(), message_in(issue, lang).c_str());  // "field: message"
}

std::string join(const std::vector<Issue>& issues, const char* sep, Lang lang) {
  std::string out;
  for (const auto& i : issues) {
    if (!out.empty()) out += sep;
    out += to_string(i, lang);
  }
  return out;
}

Issue memory_overflow(std::string field) {
  return issue(std::move(field), [](Lang l) { return std::string(tr(Str::issue_memory_overflow, l)); });
}

}  // namespace llmsize::core

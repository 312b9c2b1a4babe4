// Errors as values. The core never throws, prints or exits: functions that can fail
// return a Result<T> holding either a value or a list of Issue{field, message}.
// `field` names what the user typed (a config.json key, a CLI flag, a link key).
#pragma once
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "format.hpp"
#include "lang.hpp"

namespace llmsize::core {

struct Issue {
  std::string field;    // e.g. "num_key_value_heads", "--seq", "kv"
  std::string message;  // one sentence with the allowed range, e.g. "must be in [1, 1048576], got 0"
  // The message in any language, from the string tables (core/lang.hpp): set by issue(), which
  // makes `message` its English. Empty for a message that exists in English only.
  std::function<std::string(Lang)> text{};
};

// An issue whose message is `text` in each language (its English is the message).
Issue issue(std::string field, std::function<std::string(Lang)> text);
// One value of a row's %s placeholder: a text the same in every language (a number, a name), a
// row of the string table, or a text made in the issue's language (row_arg: a row with values).
struct RowArg {
  RowArg(std::string s) : text(std::move(s)) {}  // NOLINT: implicit by design
  RowArg(const char* s) : text(s) {}              // NOLINT
  RowArg(Str r) : row(r) {}                       // NOLINT
  RowArg(std::function<std::string(Lang)> f) : fn(std::move(f)) {}  // NOLINT
  std::string in(Lang l) const { return fn ? fn(l) : row ? std::string(tr(*row, l)) : text; }
  std::string text;
  std::optional<Str> row;
  std::function<std::string(Lang)> fn;
};
// An issue whose message is the row `text` with its %s placeholders filled by `args` in order, in
// each language. A row without arguments is its text as it stands.
template <class... A>
Issue issue_row(std::string field, Str text, A&&... args) {
  return issue(std::move(field), [text, a = std::array<RowArg, sizeof...(A)>{RowArg(std::forward<A>(args))...}](Lang l) {
    if constexpr (sizeof...(A) == 0) return (void)a, std::string(tr(text, l));
    else return std::apply([&](const auto&... x) { return printf_text(tr(text, l), x.in(l).c_str()...); }, a);
  });
}
// A row of the string table with its %s values (up to four) in `lang`; more values than that
// are not filled.
std::string row_text(Str row, const std::vector<RowArg>& args, Lang lang);
// A row with its values as the value of another row's placeholder: "key 3 length" is
// row_arg(Str::rd_gguf_what_length, row_arg(Str::rd_gguf_what_key, "3")).
template <class... A>
RowArg row_arg(Str row, A&&... args) {
  static_assert(sizeof...(A) <= 4, "row_text fills at most four %s");
  return RowArg([row, v = std::vector<RowArg>{RowArg(std::forward<A>(args))...}](Lang l) { return row_text(row, v, l); });
}
// The message in `lang`: the issue's text where it has one, else its English message.
std::string message_in(const Issue& issue, Lang lang);

// "field: message" on one line, as the CLI prints it.
std::string to_string(const Issue& issue, Lang lang = Lang::En);
std::string join(const std::vector<Issue>& issues, const char* sep = "; ", Lang lang = Lang::En);
// The one message for inference memory that does not fit 64-bit byte counts, naming `field`.
Issue memory_overflow(std::string field = "seq");

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(std::vector<Issue> issues) : issues_(std::move(issues)) {}  // NOLINT
  Result(Issue issue) : issues_{std::move(issue)} {}                  // NOLINT

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  const T& operator*() const { return *value_; }
  const std::vector<Issue>& issues() const { return issues_; }

 private:
  std::optional<T> value_;
  std::vector<Issue> issues_;
};

}  // namespace llmsize::core

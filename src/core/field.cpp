// The shared text setters and texts of field rows (see field.hpp).
#include "field.hpp"

#include <algorithm>

#include "format.hpp"

namespace llmsize::core {

namespace {

std::string quoted(std::string_view t) { return "\"" + std::string(t.substr(0, 40)) + "\""; }

// "must be <the field's allowed values>, got <text>", in every language.
Issue must_be_got(const FieldSpec& f, std::string got) {
  return issue(std::string(f.key), [f, got = std::move(got)](Lang l) {
    return printf_text(tr(Str::issue_must_be_got, l), allowed_text(f, l).c_str(), got.c_str());
  });
}

}  // namespace

std::optional<size_t> index_of(Names names, std::string_view name) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<size_t>(it - names.begin());
}

std::string_view name_at(Names names, size_t index) { return index < names.size() ? names[index] : ""; }

std::string join_names(Names names, std::string_view sep) {
  std::string s;
  for (auto v : names) s += (s.empty() ? "" : std::string(sep)) + std::string(v);
  return s;
}

std::optional<Issue> read_int(const FieldSpec& f, std::string_view text, i64& out) {
  auto v = parse_int(text);
  if (!v || *v < f.min_int || *v > f.max_int)
    return must_be_got(f, quoted(text));
  out = *v;
  return std::nullopt;
}

std::optional<Issue> read_real(const FieldSpec& f, std::string_view text, double& out) {
  auto v = parse_real(text);
  if (!v || !((*v > f.min_real && *v <= f.max_real) || (f.zero_is_default && *v == 0)))
    return must_be_got(f, quoted(text));
  out = *v;
  return std::nullopt;
}

std::optional<Issue> read_bool(const FieldSpec& f, std::string_view text, bool& out) {
  auto v = parse_bool(text);
  if (!v) return must_be_got(f, quoted(text));
  out = *v;
  return std::nullopt;
}

std::optional<Issue> read_choice(const FieldSpec& f, std::string_view text, size_t& index) {
  auto i = index_of(f.choices, text);
  if (!i) return must_be_got(f, quoted(text));
  index = *i;
  return std::nullopt;
}

std::optional<Issue> read_flags(const FieldSpec& f, std::string_view text, std::uint32_t& bits) {
  const std::uint32_t all = (1u << f.choices.size()) - 1;
  if (text == "all") {
    bits = all;
    return std::nullopt;
  }
  std::uint32_t v = 0;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    auto i = index_of(f.choices, rest.substr(0, comma));
    if (!i || (v & (1u << *i)))  // duplicates are refused, not merged
      return must_be_got(f, quoted(text));
    v |= 1u << *i;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  bits = v;
  return std::nullopt;
}

std::string flags_text(const FieldSpec& f, std::uint32_t bits) {
  if (bits == (1u << f.choices.size()) - 1) return "all";
  std::string s;
  for (size_t i = 0; i < f.choices.size(); ++i)
    if (bits & (1u << i)) s += (s.empty() ? "" : ",") + std::string(f.choices[i]);
  return s;
}

std::string allowed_text(const FieldSpec& f, Lang l) {
  const std::string lo = std::to_string(f.min_int), hi = std::to_string(f.max_int);
  const std::string rlo = format_real(f.min_real), rhi = format_real(f.max_real), names = join_names(f.choices);
  switch (f.kind) {
    case FieldKind::Int: return printf_text(tr(Str::allow_int, l), lo.c_str(), hi.c_str());
    case FieldKind::Real:
      return printf_text(tr(f.zero_is_default ? Str::allow_real_or_zero : Str::allow_real, l), rlo.c_str(), rhi.c_str());
    case FieldKind::Bool: return tr(Str::allow_bool, l);
    case FieldKind::Enum: return printf_text(tr(Str::allow_enum, l), names.c_str());
    case FieldKind::Flags: return printf_text(tr(Str::allow_flags, l), names.c_str());
    case FieldKind::IntList: return printf_text(tr(Str::allow_int_list, l), lo.c_str(), hi.c_str());
    case FieldKind::EnumList: return printf_text(tr(Str::allow_enum_list, l), hi.c_str(), names.c_str());
    case FieldKind::RealList: return printf_text(tr(Str::allow_real_list, l), hi.c_str(), rlo.c_str(), rhi.c_str());
    case FieldKind::Text: return printf_text(tr(Str::allow_text, l), hi.c_str(), names.c_str());
  }
  return "";
}

Issue must_be(const FieldSpec& f) {
  return issue(std::string(f.key), [f](Lang l) { return printf_text(tr(Str::issue_must_be, l), allowed_text(f, l).c_str()); });
}

std::optional<Issue> check_range(std::string_view field, i64 lo, i64 hi, i64 value) {
  if (value >= lo && value <= hi) return std::nullopt;
  return issue(std::string(field), [lo, hi, value](Lang l) {
    const std::string range = printf_text(tr(Str::allow_int, l), std::to_string(lo).c_str(), std::to_string(hi).c_str());
    return printf_text(tr(Str::issue_must_be_got, l), range.c_str(), std::to_string(value).c_str());
  });
}

}  // namespace llmsize::core

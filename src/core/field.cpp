// The shared text setters and texts of field rows (see field.hpp).
#include "field.hpp"

#include <algorithm>

namespace llmsize::core {

namespace {

std::string quoted(std::string_view t) { return "\"" + std::string(t.substr(0, 40)) + "\""; }
std::string int_range(i64 lo, i64 hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; }

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
    return Issue{std::string(f.key), "must be an integer in " + int_range(f.min_int, f.max_int) + ", got " + quoted(text)};
  out = *v;
  return std::nullopt;
}

std::optional<Issue> read_real(const FieldSpec& f, std::string_view text, double& out) {
  auto v = parse_real(text);
  if (!v || !((*v > f.min_real && *v <= f.max_real) || (f.zero_is_default && *v == 0)))
    return Issue{std::string(f.key), "must be " + allowed_text(f) + ", got " + quoted(text)};
  out = *v;
  return std::nullopt;
}

std::optional<Issue> read_bool(const FieldSpec& f, std::string_view text, bool& out) {
  auto v = parse_bool(text);
  if (!v) return Issue{std::string(f.key), "must be 0 or 1, got " + quoted(text)};
  out = *v;
  return std::nullopt;
}

std::optional<Issue> read_choice(const FieldSpec& f, std::string_view text, size_t& index) {
  auto i = index_of(f.choices, text);
  if (!i) return Issue{std::string(f.key), "must be one of " + join_names(f.choices) + ", got " + quoted(text)};
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
      return Issue{std::string(f.key), "must be \"all\" or a comma-separated subset of " + join_names(f.choices) +
                                           ", got " + quoted(text)};
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

std::string allowed_text(const FieldSpec& f) {
  switch (f.kind) {
    case FieldKind::Int: return "an integer in " + int_range(f.min_int, f.max_int);
    case FieldKind::Real:
      return std::string(f.zero_is_default ? "0 (the default) or " : "") + "a number in (" + format_real(f.min_real) + ", " +
             format_real(f.max_real) + "]";
    case FieldKind::Bool: return "0 or 1";
    case FieldKind::Enum: return "one of " + join_names(f.choices);
    case FieldKind::Flags: return "\"all\" or a comma-separated subset of " + join_names(f.choices);
    case FieldKind::IntList: return "comma-separated integers in " + int_range(f.min_int, f.max_int);
    case FieldKind::EnumList:
      return "up to " + std::to_string(f.max_int) + " comma-separated values, each one of " + join_names(f.choices) + " (or empty)";
    case FieldKind::RealList:
      return "up to " + std::to_string(f.max_int) + " comma-separated numbers in [" + format_real(f.min_real) + ", " +
             format_real(f.max_real) + "] (or empty)";
    case FieldKind::Text:
      return "up to " + std::to_string(f.max_int) + " characters, each one of " + join_names(f.choices) + " (or empty)";
  }
  return "";
}

std::optional<Issue> check_range(std::string_view field, i64 lo, i64 hi, i64 value) {
  if (value >= lo && value <= hi) return std::nullopt;
  return Issue{std::string(field), "must be an integer in " + int_range(lo, hi) + ", got " + std::to_string(value)};
}

}  // namespace llmsize::core

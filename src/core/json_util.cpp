// Untrusted JSON parsing and typed reads (see json_util.hpp).
#include "json_util.hpp"

#include <cmath>
#include <limits>
#include <set>

namespace llmsize::core::json_util {

namespace {
// Depth of bracket nesting outside strings, computed before parsing so that the DOM
// parser never recurses deeper than max_depth.
int nesting_depth(std::string_view s) {
  int depth = 0, max_depth = 0;
  bool in_str = false, esc = false;
  for (char ch : s) {
    if (in_str) {
      if (esc) esc = false;
      else if (ch == '\\') esc = true;
      else if (ch == '"') in_str = false;
      continue;
    }
    if (ch == '"') in_str = true;
    else if (ch == '{' || ch == '[') max_depth = std::max(max_depth, ++depth);
    else if (ch == '}' || ch == ']') --depth;
  }
  return max_depth;
}

// Error text for a syntax error: re-runs the SAX parser, which reports position and
// reason without throwing.
struct ErrorSax : nlohmann::json_sax<json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    message = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: …" -> drop the tag.
    if (auto p = message.find("] "); p != std::string::npos) message = message.substr(p + 2);
    return false;
  }
};
}  // namespace

Result<json> parse(std::string_view text, const std::string& what, size_t max_bytes, int max_depth) {
  if (text.size() > max_bytes)
    return issue_row(what, Str::rd_json_size, with_commas(static_cast<i64>(text.size())), with_commas(static_cast<i64>(max_bytes)));
  if (nesting_depth(text) > max_depth)
    return issue_row(what, Str::rd_json_depth, std::to_string(max_depth));

  // Duplicate keys are refused: a config with two different "hidden_size" values is ambiguous.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  json::parser_callback_t cb = [&](int, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    else if (ev == json::parse_event_t::object_end) { if (!keys.empty()) keys.pop_back(); }
    else if (ev == json::parse_event_t::key && !keys.empty() && parsed.is_string()) {
      const auto& k = parsed.get_ref<const std::string&>();
      if (!keys.back().insert(k).second && duplicate.empty()) duplicate = k;
    }
    return true;
  };
  json doc = json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    ErrorSax sax;
    json::sax_parse(text.begin(), text.end(), &sax);
    if (sax.message.empty()) return issue_row(what, Str::rd_json_invalid, Str::rd_json_syntax);
    return issue_row(what, Str::rd_json_invalid, sax.message);  // the parser's own words
  }
  if (!duplicate.empty()) return issue_row(what, Str::rd_json_duplicate, duplicate);
  return doc;
}

Str type_row(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return Str::rd_type_null;
    case json::value_t::object: return Str::rd_type_object;
    case json::value_t::array: return Str::rd_type_array;
    case json::value_t::string: return Str::rd_type_string;
    case json::value_t::boolean: return Str::rd_type_boolean;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return Str::rd_type_integer;
    case json::value_t::number_float: return Str::rd_type_number;
    default: return Str::rd_type_other;
  }
}

std::string type_name(const json& v) { return tr(type_row(v), Lang::En); }

std::optional<i64> to_int(const json& v, const std::string& key, std::vector<Issue>& issues) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<json::number_unsigned_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<i64>::max())) {
      issues.push_back(issue_row(key, Str::rd_json_int_big));
      return std::nullopt;
    }
    return static_cast<i64>(u);
  }
  if (v.is_number_integer()) return v.get<json::number_integer_t>();
  if (v.is_number_float()) {
    const double x = v.get<double>();
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9.0e15) return static_cast<i64>(x);
    issues.push_back(issue_row(key, Str::rd_json_int, v.dump()));
    return std::nullopt;
  }
  issues.push_back(issue_row(key, Str::rd_json_int, type_row(v)));
  return std::nullopt;
}

std::optional<double> to_double(const json& v, const std::string& key, std::vector<Issue>& issues) {
  if (v.is_number()) {
    const double x = v.get<double>();
    if (std::isfinite(x)) return x;
  }
  if (v.is_number()) issues.push_back(issue_row(key, Str::rd_json_finite, v.dump()));
  else issues.push_back(issue_row(key, Str::rd_json_finite, type_row(v)));
  return std::nullopt;
}

}  // namespace llmsize::core::json_util

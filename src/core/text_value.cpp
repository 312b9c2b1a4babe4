// Strict conversions (see text_value.hpp).
#include "text_value.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace llmsize::core {

std::optional<i64> parse_int(std::string_view s) {
  if (s.empty() || s.size() > 24) return std::nullopt;
  i64 v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  for (char c : s)  // only plain decimal forms: no hex floats, inf, nan, spaces
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  const std::string buf(s);
  char* end = nullptr;
  const double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<bool> parse_bool(std::string_view s) {
  if (s == "1" || s == "true") return true;
  if (s == "0" || s == "false") return false;
  return std::nullopt;
}

std::string format_real(double v) {
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace llmsize::core

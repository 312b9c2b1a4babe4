// Number formatting (see format.hpp).
#include "format.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace llmsize::core {

std::string with_commas(std::int64_t v) {
  const bool neg = v < 0;
  // Work in unsigned to handle INT64_MIN.
  std::uint64_t u = neg ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  std::string digits = std::to_string(u);
  std::string out;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    out += digits[i];
    if ((n - 1 - i) % 3 == 0 && i + 1 < n) out += ',';
  }
  return neg ? "-" + out : out;
}

std::string printf_text(const char* format, ...) {
  va_list a;
  va_start(a, format);
  va_list b;
  va_copy(b, a);
  const int n = std::vsnprintf(nullptr, 0, format, a);
  va_end(a);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, b);
  va_end(b);
  return out;
}

std::size_t display_width(std::string_view s) {
  std::size_t cols = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    char32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
    for (std::size_t k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x300 && cp < 0x370) continue;  // combining diacritical marks
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
                      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
    cols += wide ? 2 : 1;
  }
  return cols;
}

std::string pad_left(const std::string& s, std::size_t columns) {
  const std::size_t w = display_width(s);
  return w >= columns ? s : std::string(columns - w, ' ') + s;
}

std::string pad_right(const std::string& s, std::size_t columns) {
  const std::size_t w = display_width(s);
  return w >= columns ? s : s + std::string(columns - w, ' ');
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string short_count(std::int64_t v) {
  const double a = std::fabs(static_cast<double>(v));
  const char* suffix = "";
  double x = static_cast<double>(v);
  if (a >= 1e12) { x /= 1e12; suffix = "T"; }
  else if (a >= 1e9) { x /= 1e9; suffix = "B"; }
  else if (a >= 1e6) { x /= 1e6; suffix = "M"; }
  else if (a >= 1e3) { x /= 1e3; suffix = "K"; }
  else return std::to_string(v);
  const double ax = std::fabs(x);
  return fixed(x, ax >= 100 ? 0 : ax >= 10 ? 1 : 2) + suffix;
}

std::string format_duration(double s, Lang lang) {
  if (!std::isfinite(s) || s <= 0) return "n/a";
  if (s < 1) return fixed(s * 1e3, s < 0.01 ? 2 : 1) + " ms";
  if (s < 120) return fixed(s, 1) + " s";
  if (s < 7200) return fixed(s / 60, 1) + " min";
  if (s < 2 * 86400) return fixed(s / 3600, 1) + " h";
  if (s < 2 * 365 * 86400) return printf_text(tr(Str::unit_days, lang), fixed(s / 86400, 1).c_str());
  return printf_text(tr(Str::unit_years, lang), fixed(s / (365.25 * 86400), 1).c_str());
}

double to_unit(std::int64_t bytes, ByteUnit unit) {
  return static_cast<double>(bytes) / (unit == ByteUnit::GB ? 1e9 : 1073741824.0);
}

const char* unit_label(ByteUnit unit) { return unit == ByteUnit::GB ? "GB" : "GiB"; }

std::string format_bytes(std::int64_t bytes, ByteUnit unit, int decimals) {
  return fixed(to_unit(bytes, unit), decimals) + " " + unit_label(unit);
}

}  // namespace llmsize::core

// Number formatting shared by the CLI, the UI and the JS API: thousands separators,
// byte sizes in GB (10^9) or GiB (2^30) — labelled, never mixed — and short counts (7.24B).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "lang.hpp"

namespace llmsize::core {

enum class ByteUnit : std::uint8_t { GB, GiB };

std::string with_commas(std::int64_t v);              // 6738415616 -> "6,738,415,616"
std::string short_count(std::int64_t v);              // 6738415616 -> "6.74B"
std::string format_bytes(std::int64_t bytes, ByteUnit unit, int decimals = 2);  // "13.48 GB"
double to_unit(std::int64_t bytes, ByteUnit unit);    // bytes / 1e9 or / 2^30
const char* unit_label(ByteUnit unit);                // "GB" or "GiB"
std::string fixed(double v, int decimals);            // locale-independent "%.*f"
// "850.0 ms", "12.4 s", "3.0 h", "241.9 days" ("241.9 天"); "n/a" if not > 0
std::string format_duration(double seconds, Lang lang = Lang::En);
// printf into a string: a string table's text (core/lang.hpp) with its placeholders filled.
std::string printf_text(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Columns a UTF-8 text takes in a terminal: 2 for East Asian wide characters (CJK ideographs,
// kana, Hangul, full-width forms and punctuation), 0 for combining marks, 1 for the rest.
std::size_t display_width(std::string_view utf8);
// The text padded with spaces to `columns` display columns (left: spaces first); unchanged when wider.
std::string pad_left(const std::string& s, std::size_t columns);
std::string pad_right(const std::string& s, std::size_t columns);

}  // namespace llmsize::core

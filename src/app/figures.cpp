// Figure display (see figures.hpp).
#include "app/figures.hpp"

#include <cmath>

#include "app/widgets.hpp"
#include "core/figures.hpp"

namespace llmsize::app {

std::string format_bytes_auto(std::int64_t bytes, core::ByteUnit unit) {
  // Small figures (a KV row, one token's cache) in the smaller units of the same family:
  // kB/MB beside GB (powers of 10), KiB/MiB beside GiB (powers of 2); never mixed.
  const bool dec = unit == core::ByteUnit::GB;
  const double k = dec ? 1e3 : 1024.0, b = static_cast<double>(bytes);
  if (bytes != 0 && std::fabs(b) < k * k * k / 10) {
    if (std::fabs(b) < k) return std::to_string(bytes) + " B";
    if (std::fabs(b) < k * k) return core::fixed(b / k, 1) + (dec ? " kB" : " KiB");
    return core::fixed(b / (k * k), 1) + (dec ? " MB" : " MiB");
  }
  return core::format_bytes(bytes, unit);
}

std::string format_value(double v, core::Unit unit, core::ByteUnit bytes_unit) {
  switch (unit) {
    case core::Unit::Bytes: return format_bytes_auto(static_cast<std::int64_t>(std::llround(v)), bytes_unit);
    case core::Unit::Count: return core::with_commas(static_cast<std::int64_t>(std::llround(v)));
    case core::Unit::Tokens: {
      const auto n = static_cast<std::int64_t>(std::llround(v));
      return printf_text(T(Str::unit_tokens), (n < 1000000 ? core::with_commas(n) : core::short_count(n)).c_str());
    }
    case core::Unit::TokensPerSecond:  // no rate: a bound not given (the CPU alone, its bandwidth unknown)
      return v > 0 ? printf_text(T(Str::unit_tokens_per_s), core::fixed(v, v < 100 ? 1 : 0).c_str()) : "n/a";
    case core::Unit::Seconds: return core::format_duration(v, ui_lang());
    case core::Unit::Flops: {
      const char* p[] = {"", "K", "M", "G", "T", "P", "E", "Z"};
      int i = 0;
      while (std::fabs(v) >= 1000 && i < 7) {
        v /= 1000;
        ++i;
      }
      return core::fixed(v, 2) + " " + p[i] + "FLOP";
    }
  }
  return core::fixed(v, 2);
}

const core::Explanation* find_explanation(const std::vector<core::Explanation>& ex, std::string_view key) {
  for (const auto& e : ex)
    if (e.key == key) return &e;
  return nullptr;
}

void explanation_row(const core::Explanation& e, core::ByteUnit unit) {
  std::string body = e.formula;
  if (!e.reference.empty()) body += "\n" + printf_text(T(Str::fig_ref), e.reference.c_str());
  const std::string tag(bound_text(e.bound));
  explained_value(e.key.c_str(), std::string(tr_name("figure", e.key, e.label)), format_value(e.value, e.unit, unit), body,
                  e.bound == core::Bound::Exact ? nullptr : tag.c_str());
}

void explanation_rows(const std::vector<core::Explanation>& ex, std::string_view section, core::Mode mode,
                      core::ByteUnit unit) {
  for (const auto& e : ex) {
    const std::string_view key = e.key;
    if (key.size() <= section.size() || key.substr(0, section.size()) != section || key[section.size()] != '.') continue;
    const core::Figure* f = core::find_figure(key);
    if (f && (!f->mode || *f->mode == mode) && core::listed(*f, e.value)) explanation_row(e, unit);
  }
}

std::string explanation_tooltip(const std::vector<core::Explanation>& ex, std::string_view key) {
  const core::Explanation* e = find_explanation(ex, key);
  if (!e) return {};
  std::string t = e->formula;
  if (!e->reference.empty()) t += "\n" + printf_text(T(Str::fig_ref), e->reference.c_str());
  return t + "\n(" + std::string(bound_text(e->bound)) + ")";
}

}  // namespace llmsize::app

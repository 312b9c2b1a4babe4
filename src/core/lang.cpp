// The string tables (see lang.hpp).
#include "core/lang.hpp"

#include <array>

namespace llmsize::core {

namespace {

struct Table {
  std::array<const char*, kStrCount> text{};
  int rows = 0;
};

const Table& table(Lang lang) {
  static const Table en = [] {
    Table t;
#define S(key, s) t.text[static_cast<int>(Str::key)] = s, ++t.rows;
#include "core/lang/en.inc"
#undef S
    return t;
  }();
  static const Table zh = [] {
    Table t;
#define S(key, s) t.text[static_cast<int>(Str::key)] = s, ++t.rows;
#include "core/lang/zh.inc"
#undef S
    return t;
  }();
  return lang == Lang::Zh ? zh : en;
}

constexpr std::string_view kKeyNames[] = {
#define S(key, text) #key,
#include "core/lang/en.inc"
#undef S
};

constexpr FieldText kZhFields[] = {
#define F(table, key, label, help) {table, key, label, help},
#include "core/lang/zh_fields.inc"
#undef F
};

}  // namespace

std::span<const FieldText> field_texts(Lang lang) {
  if (lang == Lang::Zh) return kZhFields;
  return {};
}

const FieldText* field_text(std::string_view table, std::string_view key, Lang lang) {
  for (const FieldText& f : field_texts(lang))
    if (f.table == table && f.key == key) return &f;
  return nullptr;
}

const char* tr_row(Str key, Lang lang) {
  const int i = static_cast<int>(key);
  if (i < 0 || i >= kStrCount) return nullptr;
  return table(lang).text[static_cast<size_t>(i)];
}

const char* tr(Str key, Lang lang) {
  if (const char* s = tr_row(key, lang)) return s;
  const char* en = tr_row(key, Lang::En);
  return en ? en : "";
}

std::string all_text(Lang lang) {
  std::string out;
  for (int i = 0; i < kStrCount; ++i) out += tr(static_cast<Str>(i), lang);
  for (const FieldText& f : field_texts(lang)) {
    out += f.label;
    out += f.help;
  }
  return out;
}

int row_count(Lang lang) { return table(lang).rows; }

std::string_view key_name(Str key) {
  const int i = static_cast<int>(key);
  return i >= 0 && i < kStrCount ? kKeyNames[i] : std::string_view();
}

std::string_view lang_code(Lang lang) { return lang == Lang::Zh ? "zh" : "en"; }

std::optional<Lang> lang_of_code(std::string_view code) {
  if (code == "en") return Lang::En;
  if (code == "zh") return Lang::Zh;
  return std::nullopt;
}

std::optional<Lang> lang_of_locale(std::string_view locale) {
  if (locale.empty()) return std::nullopt;
  const bool zh = locale.size() >= 2 && (locale[0] == 'z' || locale[0] == 'Z') && (locale[1] == 'h' || locale[1] == 'H') &&
                  (locale.size() == 2 || locale[2] == '-' || locale[2] == '_' || locale[2] == '.');
  return zh ? Lang::Zh : Lang::En;
}

std::optional<Lang> lang_of_environment() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"})
    if (const char* v = std::getenv(var); v && *v) return lang_of_locale(v);
  return std::nullopt;
}

}  // namespace llmsize::core

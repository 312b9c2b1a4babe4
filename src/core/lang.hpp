// The interface's languages and its string table: one table per language, each a list of
// S(key, "text") rows (src/core/lang/en.inc, zh.inc). English is the reference: its rows
// define the keys (Str) and their order; a Chinese row for a key English lacks does not
// compile, a key Chinese lacks falls back to English and fails lang_test. Texts may hold
// printf placeholders (%s, %d, %.2f …): both languages take the same ones in the same order.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace llmsize::core {

enum class Lang : std::uint8_t { En, Zh };
inline constexpr Lang kLangs[] = {Lang::En, Lang::Zh};

enum class Str : int {
#define S(key, text) key,
#include "core/lang/en.inc"
#undef S
};
inline constexpr int kStrCount = 0
#define S(key, text) +1
#include "core/lang/en.inc"
#undef S
    ;

// The text of `key` in `lang`; English where the language has no row for it.
const char* tr(Str key, Lang lang);
// The row of `key` in `lang`, or null where it has none (lang_test).
const char* tr_row(Str key, Lang lang);
// How many rows the language's table has (its file's S() rows, repeats included).
int row_count(Lang lang);
std::string_view key_name(Str key);  // "top_subtitle"

// The label and help of an input field, or the label of a figure, in a language other than
// English. English ones are in their rows (model_fields(), workload_fields(), ref::demo_fields(),
// figures(), mode_figures()' parts, the module and attention-kind names), their one home; each
// other language has a row per field and name in its table (lang/zh_fields.inc), by the
// table's name ("model", "workload", "demo"; "figure", "legend", "group", "attn") and the key.
struct FieldText {
  std::string_view table, key, label, help;
};
// The row of field `key` of `table` in `lang`; null for English, or where the table has none.
const FieldText* field_text(std::string_view table, std::string_view key, Lang lang);
// Every row of the language's field table, in file order (empty for English).
std::span<const FieldText> field_texts(Lang lang);

// Every text of the language (its rows, then its field labels and help) joined: what its font
// must cover.
std::string all_text(Lang lang);
// Symbols the formulas and references use beyond Latin-1 and the English table (Σ for sums, −,
// ≈, √, –, …): the UI's Latin font (Roboto) draws each, and its atlas takes them (app/theme.cpp).
// A formula uses nothing else (tests/core/figures_test.cpp): a character outside the atlas draws
// as "?". Roboto has no ceiling or floor brackets: formulas write ceil( ) and floor( ).
inline constexpr const char* kFormulaSymbols = "Σ−≈√–…";

// "en", "zh": the code links (lang=), the CLI (--lang) and the page use.
std::string_view lang_code(Lang lang);
// A language from a link's or a flag's code ("en", "zh"), exactly.
std::optional<Lang> lang_of_code(std::string_view code);
// A language from a locale as systems and browsers write it ("zh-CN", "zh_CN.UTF-8",
// "zh-Hans-SG", "en-US", "C.UTF-8"): Chinese for any "zh", else English; nullopt for an empty
// string.
std::optional<Lang> lang_of_locale(std::string_view locale);
// The language of the process's locale: the first set of LC_ALL, LC_MESSAGES and LANG (as POSIX
// orders them); nullopt when none is set.
std::optional<Lang> lang_of_environment();

}  // namespace llmsize::core

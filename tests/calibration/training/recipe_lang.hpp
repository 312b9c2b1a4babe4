// The language checks every training recipe's parts share (litgpt_test.cpp, hf_peft_test.cpp).
#pragma once
#include <set>
#include <string>
#include <tuple>

#include "core/training_recipe.hpp"
#include "test_util.hpp"

namespace llmsize::test {

// One part's formula and source in each language: the English made from the rows equals the
// JSON's text, the Chinese has the same runs of digits and a Chinese word, unless the English is
// one of `no_words` (code and names only), which stays as it is. Records the English in `seen`.
inline void check_part_languages(const core::RecipePart& part, const std::set<std::string>& no_words, std::set<std::string>& seen) {
  using core::Lang;
  INFO(core::key_name(part.label));
  for (const auto& [en, made_en, zh] :
       {std::tuple{part.formula, core::recipe_part_formula(part, Lang::En), core::recipe_part_formula(part, Lang::Zh)},
        std::tuple{part.source, core::recipe_part_source(part, Lang::En), core::recipe_part_source(part, Lang::Zh)}}) {
    INFO(en << " | " << zh);
    seen.insert(en);
    CHECK(made_en == en);
    CHECK(digit_runs(zh) == digit_runs(en));
    if (no_words.count(en)) CHECK(zh == en);
    else CHECK(has_cjk(zh));
  }
  if (part.formula_in) CHECK(part.formula_in(Lang::En) == part.formula);
  if (part.source_in) CHECK(part.source_in(Lang::En) == part.source);
}

// Every exception to the Chinese-word rule is a text some part has.
inline void check_no_words_seen(const std::set<std::string>& no_words, const std::set<std::string>& seen) {
  for (const std::string& s : no_words) {
    INFO(s);
    CHECK(seen.count(s) == 1);
  }
}

}  // namespace llmsize::test

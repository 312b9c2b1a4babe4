// The language checks every training recipe's parts share (litgpt_test.cpp, hf_peft_test.cpp), and
// the refusal check of the megatron and torchtune tests.
#pragma once
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <tuple>

#include "core/estimate.hpp"
#include "core/report.hpp"
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

// The CLI's text of a recipe's estimate names the recipe and says when its peak happens, in
// English and in Chinese.
inline void check_recipe_text(const core::ModelConfig& cfg, const core::Workload& w, const core::Estimate& e, const std::string& recipe) {
  const core::RecipePeak& p = *e.training.recipe;
  const std::string en = core::estimate_text(cfg, w, e, core::ByteUnit::GB, core::Lang::En);
  const std::string zh = core::estimate_text(cfg, w, e, core::ByteUnit::GB, core::Lang::Zh);
  CHECK(en.find("Recipe " + recipe) != std::string::npos);
  CHECK(en.find(core::tr(core::recipe_phase_row(p.phase), core::Lang::En)) != std::string::npos);
  CHECK(zh.find(core::tr(core::recipe_phase_row(p.phase), core::Lang::Zh)) != std::string::npos);
}

// A recipe's peak from an estimate that must succeed (a copy: the estimate is often a temporary).
inline core::RecipePeak recipe_peak_of(const core::Result<core::Estimate>& e) {
  INFO(core::join(e.issues()));
  REQUIRE(e.ok());
  REQUIRE(e.value().training.recipe.has_value());
  return *e.value().training.recipe;
}

// The parts sum to the peak, and so do the peak's groups.
inline void check_recipe_sums(const core::RecipePeak& p) {
  std::int64_t sum = 0;
  for (const core::RecipePart& part : p.parts) sum += part.bytes;
  CHECK(sum == p.peak_allocated_bytes);
  CHECK(p.weights_bytes + p.adapter_bytes + p.gradient_bytes + p.master_bytes + p.optimizer_bytes + p.saved_bytes + p.head_bytes +
            p.fixed_bytes ==
        p.peak_allocated_bytes);
}

// One setting a recipe does not follow: what it is, the change that makes it, and the words the
// refusal must contain.
struct RefusalCase {
  const char* what;
  std::function<void(core::ModelConfig&, core::Workload&)> change;
  const char* says;
};

// Each case, applied to `cfg` and `base`, is refused by the recipe, saying its words.
inline void check_refusals(const core::ModelConfig& cfg, const core::Workload& base, std::initializer_list<RefusalCase> cases) {
  REQUIRE(core::estimate(cfg, base).ok());
  for (const RefusalCase& x : cases) {
    INFO(x.what);
    core::ModelConfig c = cfg;
    core::Workload w = base;
    x.change(c, w);
    const auto e = core::estimate(c, w);
    REQUIRE_FALSE(e.ok());
    const std::string says = core::join(e.issues());
    INFO(says);
    CHECK(says.find(x.says) != std::string::npos);
    CHECK(says.find("recipe") != std::string::npos);
  }
}

}  // namespace llmsize::test

// The ModelConfig field table: unique keys, strict parsing, and a text round trip that
// restores every preset exactly.
#include <set>

#include "core/model_fields.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

TEST_CASE("model field keys are unique and every field has a label and help", "[core][fields]") {
  std::set<std::string_view> keys;
  for (const auto& f : model_fields()) {
    INFO(f.key);
    CHECK(keys.insert(f.key).second);
    CHECK_FALSE(f.label.empty());
    CHECK_FALSE(f.help.empty());
  }
}

TEST_CASE("every preset survives get -> set through the table unchanged", "[core][fields]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    INFO(p.id);
    ModelConfig copy;  // defaults, then every field from text
    copy.name = p.config.name;
    for (const auto& f : model_fields()) {
      auto issue = f.set(copy, f.get(p.config));
      INFO(f.key << " = " << f.get(p.config));
      CHECK_FALSE(issue.has_value());
    }
    CHECK(copy == p.config);
  }
}

// No test compares the table's integer ranges with field_limits(): the table has no ranges of
// its own. Each integer field takes its range from its field_limits() row (model_fields.cpp,
// limited()), so the two cannot disagree.

TEST_CASE("malformed values are refused with the key and the allowed range", "[core][fields]") {
  ModelConfig c;
  const auto* L = find_model_field("L");
  REQUIRE(L);
  for (const char* bad : {"", "0", "-1", "1e3", "12x", " 12", "99999999999999999999999", "0x10", "10001"}) {
    INFO(bad);
    auto issue = L->set(c, bad);
    REQUIRE(issue.has_value());
    CHECK(issue->field == "L");
    CHECK_THAT(issue->message, Catch::Contains("[1, 10000]"));
  }
  CHECK_THAT(find_model_field("norm")->set(c, "batchnorm")->message, Catch::Contains("rmsnorm"));
  CHECK(find_model_field("tie")->set(c, "yes").has_value());
  CHECK(find_model_field("rot")->set(c, "nan").has_value());
  CHECK(find_model_field("rot")->set(c, "1.5").has_value());
  CHECK_FALSE(find_model_field("rot")->set(c, "0.4").has_value());
  CHECK(find_model_field("rot")->get(c) == "0.4");
  CHECK(find_model_field("dl")->set(c, "1,x").has_value());
  CHECK_FALSE(find_model_field("dl")->set(c, "0,5,7").has_value());
  CHECK(c.moe.dense_layers == std::vector<i64>{0, 5, 7});
}

// Preset files: each parses, its id matches its file name (find_preset relies on it), and
// every preset names the source of its numbers.
#include "core/embedded.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

TEST_CASE("every preset file is named <order>-<id>.json and names its source", "[core][presets]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  CHECK(all->size() >= 30);
  for (const auto& p : all.value()) {
    INFO(p.id);
    CHECK_FALSE(p.source.empty());
    auto found = find_preset(p.id);
    REQUIRE(found.ok());
    CHECK(found->config == p.config);
  }
  for (const auto& f : embedded_files()) {
    if (f.path.rfind("models/", 0) != 0) continue;
    INFO(f.path);
    CHECK(f.path.find('-') != std::string_view::npos);
  }
  auto missing = find_preset("llama-9");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.issues()[0].message, Catch::Contains("llama-3-8b"));
}

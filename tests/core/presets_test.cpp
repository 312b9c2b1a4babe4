// Preset files: each parses, its id matches its file name (find_preset relies on it), and
// every preset names the source of its numbers.
#include "core/embedded.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;

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

TEST_CASE("a later release with the same shapes shares its config through config_of", "[core][presets]") {
  // Qwen3.6-27B and Qwen3.8-27B are model_type qwen3_5 with Qwen3.5-27B's shapes; their Hub
  // counts (27,781,427,952 each) are Qwen3.5-27B's, tensor by tensor in sum.
  for (const char* id : {"qwen3.6-27b", "qwen3.8-27b"}) {
    INFO(id);
    const Preset later = preset(id);
    const Preset base = preset("qwen3.5-27b");
    CHECK(later.config_of == "qwen3.5-27b");
    CHECK(later.name != base.name);
    CHECK(later.config.name == later.name);
    ModelConfig renamed = later.config;
    renamed.name = base.config.name;
    CHECK(renamed == base.config);
    CHECK(later.published_checkpoint == base.published_checkpoint);
  }
  CHECK(preset("qwen3.6-35b-a3b").config_of == "qwen3.5-35b-a3b");
  CHECK(preset("qwen3.5-27b").config_of.empty());
  // A log naming the checkpoint picks its own preset.
  auto by_hub = find_preset_by_hub("Qwen/Qwen3.6-35B-A3B");
  REQUIRE(by_hub);
  CHECK(by_hub->id == "qwen3.6-35b-a3b");
  REQUIRE(find_preset_by_hub("qwen/qwen3.6-27b"));
  CHECK(find_preset_by_hub("qwen/qwen3.6-27b")->id == "qwen3.6-27b");
}

TEST_CASE("a preset file's config_of and checkpoint count are checked, each refusal naming its field", "[core][presets]") {
  auto refused = [](std::string_view json) {
    const EmbeddedFile f{"models/999-test.json", json};
    auto p = parse_preset(f);
    REQUIRE_FALSE(p.ok());
    return p.issues()[0].field + ": " + p.issues()[0].message;
  };
  const std::string head = R"({"id": "test", "name": "Test", "source": "a test", )";
  // Neither a config nor config_of, or both.
  CHECK_THAT(refused(head + R"("published": {}})"), Catch::Contains("config_of"));
  CHECK_THAT(refused(head + R"("config_of": "qwen3.5-27b", "config": {"model_type": "llama"}})"), Catch::Contains("either"));
  // config_of names no preset, or itself.
  CHECK_THAT(refused(head + R"("config_of": "qwen9-1t"})"), Catch::Contains("config_of") && Catch::Contains("qwen9-1t"));
  CHECK_THAT(refused(head + R"("config_of": "test"})"), Catch::Contains("names no other preset"));
  // One step only: the named preset must hold its config itself.
  CHECK_THAT(refused(head + R"("config_of": "qwen3.6-27b"})"), Catch::Contains("holds no \"config\" object"));
  // A checkpoint count needs its own source.
  CHECK_THAT(refused(head + R"("config_of": "qwen3.5-27b", "published": {"checkpoint_total": 27781427952}})"),
             Catch::Contains("published.checkpoint_source"));
  // A well-formed one reads.
  const std::string text = head + R"("config_of": "qwen3.5-27b", "published": {"checkpoint_total": 1, "checkpoint_source": "x"}})";
  const EmbeddedFile ok{"models/999-test.json", text};
  auto p = parse_preset(ok);
  REQUIRE(p.ok());
  CHECK(p->config.n_layers == 64);
  CHECK(p->published_checkpoint == 1);
}

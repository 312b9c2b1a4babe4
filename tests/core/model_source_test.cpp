// load_model: the one loader of the CLI and the JS API, with one set of messages.
#include "core/model_source.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

TEST_CASE("a preset loads as find_preset gives it, with its id", "[core][model_source]") {
  auto m = load_model(ModelSource::preset("llama-3-8b"));
  REQUIRE(m.ok());
  CHECK(m->config == llmsize::test::preset("llama-3-8b").config);
  CHECK(m->preset == "llama-3-8b");
  CHECK(m->notes.empty());
}

TEST_CASE("an unknown preset names the field preset and lists the ids", "[core][model_source]") {
  auto m = load_model(ModelSource::preset("nope"));
  REQUIRE_FALSE(m.ok());
  REQUIRE(m.issues().size() == 1);
  CHECK(m.issues()[0].field == "preset");
  CHECK_THAT(m.issues()[0].message, Catch::StartsWith("unknown preset \"nope\"; available: ") && Catch::Contains("llama-3-8b"));
}

TEST_CASE("a config loads as import_hf_config reads it, generic reading included", "[core][model_source]") {
  const std::string text = llmsize::test::read_text("core/configs/falcon-rw-1b.json");
  auto m = load_model(ModelSource::config(text));
  REQUIRE(m.ok());
  CHECK(m->config == llmsize::test::import_file("core/configs/falcon-rw-1b.json"));
  CHECK(m->preset.empty());

  const std::string olmo = llmsize::test::read_text("core/configs/olmo-1b.json");
  auto plain = load_model(ModelSource::config(olmo));
  REQUIRE_FALSE(plain.ok());
  CHECK_THAT(join(plain.issues()), Catch::Contains("model_type: \"olmo\" is not supported"));
  auto generic = load_model(ModelSource::config(olmo, true));
  REQUIRE(generic.ok());
  CHECK_FALSE(generic->notes.empty());

  auto bad = load_model(ModelSource::config(llmsize::test::read_text("core/configs/bad/heads_not_dividing.json")));
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(join(bad.issues()), Catch::Contains("num_attention_heads: must divide"));
}

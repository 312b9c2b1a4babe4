// The CLI as a library: commands, JSON keys, human tables, exit codes and error lines.
#include <catch2/catch.hpp>

#include "cli.hpp"
#include "test_util.hpp"

using llmsize::cli::run;

namespace {
llmsize::cli::Output cli(std::vector<std::string> args) {
  return run(args, [](const std::string& path, std::string& err) -> std::optional<std::string> {
    return llmsize::cli::read_file_limited(llmsize::test::data_path(path), err);
  });
}
}  // namespace

TEST_CASE("estimate --json prints the parameter keys as integers", "[cli]") {
  const auto o = cli({"estimate", "--preset", "mixtral-8x7b", "--json"});
  REQUIRE(o.status == 0);
  for (const char* key : {"\"total\": 46702792704", "\"active\": 12879925248", "\"mtp\": 0", "\"embedding\":",
                          "\"attention\":", "\"ffn\":", "\"router\": 1048576", "\"norm\":", "\"lm_head\":",
                          "\"approx_12nd2_vd\":"})
    CHECK_THAT(o.out, Catch::Contains(key));
}

TEST_CASE("estimate prints aligned tables with separators and the explained gap", "[cli]") {
  const auto o = cli({"estimate", "--preset", "llama-3-8b"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("8,030,261,248"));
  CHECK_THAT(o.out, Catch::Contains("12·L·d² + v·d"));
  CHECK_THAT(o.out, Catch::Contains("GQA attention"));
  const auto e = cli({"estimate", "--preset", "llama-3-8b", "--explain"});
  CHECK_THAT(e.out, Catch::Contains("model.layers.{i}.self_attn.k_proj.weight"));
}

TEST_CASE("estimate reads a config.json from a path", "[cli]") {
  const auto o = cli({"estimate", "--config", "core/configs/phi-1_5.json", "--json"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("\"total\": 1418270720"));
}

TEST_CASE("bad usage and bad input exit with status 2 and one named line", "[cli]") {
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  const Case cases[] = {
      {{}, "no command"},
      {{"frobnicate"}, "unknown command"},
      {{"estimate"}, "exactly one of --preset"},
      {{"estimate", "--preset"}, "--preset needs a value"},
      {{"estimate", "--preset", "nope"}, "unknown preset \"nope\""},
      {{"estimate", "--preset", "gpt2", "--bogus"}, "unknown option --bogus"},
      {{"estimate", "--config", "does/not/exist.json"}, "cannot open"},
      {{"estimate", "--config", "core/configs/bad/heads_not_dividing.json"}, "num_attention_heads: must divide"},
      {{"estimate", "--config", "core/configs/olmo-1b.json"}, "model_type: \"olmo\" is not supported"},
  };
  for (const auto& c : cases) {
    INFO(c.expect);
    const auto o = cli(c.args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    CHECK_THAT(o.err, Catch::Contains(c.expect));
  }
  CHECK(cli({"estimate", "--config", "core/configs/olmo-1b.json", "--generic"}).status == 0);
}

TEST_CASE("presets lists every preset, as text or JSON", "[cli]") {
  const auto t = cli({"presets"});
  REQUIRE(t.status == 0);
  CHECK_THAT(t.out, Catch::Contains("deepseek-v3"));
  const auto j = cli({"presets", "--json"});
  CHECK_THAT(j.out, Catch::Contains("\"id\": \"llama-2-7b\""));
  CHECK_THAT(j.out, Catch::Contains("\"total\": 6738415616"));
}

// Bad input gets an Issue naming the field (as the user spelled it) and the allowed range.
#include "core/params.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {
std::vector<Issue> import_issues(const std::string& text) {
  auto r = import_hf_config(text);
  REQUIRE_FALSE(r.ok());
  return r.issues();
}
const std::string base_keys =
    R"("model_type":"llama","num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100)";
}  // namespace

TEST_CASE("malformed JSON is reported with its position", "[core][validation]") {
  const auto i = import_issues(llmsize::test::read_text("core/configs/bad/truncated.json"));
  CHECK(i[0].field == "config.json");
  CHECK_THAT(i[0].message, Catch::Contains("not valid JSON"));
  CHECK_THAT(i[0].message, Catch::Contains("line 1"));
}

TEST_CASE("a missing required field names every accepted spelling", "[core][validation]") {
  const auto i = import_issues("{" + base_keys + "}");
  CHECK(i[0].field == "hidden_size");
  CHECK_THAT(i[0].message, Catch::Contains("n_embd"));
}

TEST_CASE("wrong types, zero, negative and non-integer sizes are refused by name", "[core][validation]") {
  CHECK_THAT(import_issues("{" + base_keys + R"(,"hidden_size":"64"})")[0].message, Catch::Contains("integer"));
  auto zero = import_issues("{" + base_keys + R"(,"hidden_size":0})");
  CHECK(zero[0].field == "hidden_size");
  CHECK_THAT(zero[0].message, Catch::Contains("[1, 1048576], got 0"));
  auto neg = import_issues(R"({"model_type":"gpt2","n_embd":64,"n_layer":-3,"n_head":4,"vocab_size":100})");
  CHECK(neg[0].field == "n_layer");
  CHECK_THAT(neg[0].message, Catch::Contains("got -3"));
  auto frac = import_issues("{" + base_keys + R"(,"hidden_size":64.5})");
  CHECK(frac[0].field == "hidden_size");
  CHECK_THAT(frac[0].message, Catch::Contains("must be an integer"));
  auto huge = import_issues("{" + base_keys + R"(,"hidden_size":18446744073709551615})");
  CHECK_THAT(huge[0].message, Catch::Contains("too large"));
  auto boolean = import_issues("{" + base_keys + R"(,"hidden_size":64,"tie_word_embeddings":"yes"})");
  CHECK(boolean[0].field == "tie_word_embeddings");
}

TEST_CASE("heads must divide the hidden size when head_dim is not given", "[core][validation]") {
  const auto i = import_issues(llmsize::test::read_text("core/configs/bad/heads_not_dividing.json"));
  CHECK(i[0].field == "num_attention_heads");
  CHECK_THAT(i[0].message, Catch::Contains("must divide hidden_size (4096)"));
  // …but an explicit head_dim makes it legal (as in Gemma).
  CHECK(import_hf_config(R"({"model_type":"llama","hidden_size":4096,"intermediate_size":64,"num_attention_heads":30,"head_dim":128,"num_hidden_layers":2,"vocab_size":100})").ok());
}

TEST_CASE("KV heads must divide the query heads", "[core][validation]") {
  const auto i = import_issues("{" + base_keys + R"(,"hidden_size":64,"num_key_value_heads":3})");
  CHECK(i[0].field == "num_key_value_heads");
  CHECK_THAT(i[0].message, Catch::Contains("divide"));
}

TEST_CASE("sizes whose product overflows 64 bits are an error, not a wrapped number", "[core][validation]") {
  const auto i = import_issues(
      R"({"model_type":"mixtral","hidden_size":1048576,"num_hidden_layers":10000,"num_attention_heads":16,
          "intermediate_size":16777216,"vocab_size":100,"num_local_experts":65536,"num_experts_per_tok":2})");
  REQUIRE_FALSE(i.empty());
  CHECK_THAT(i[0].message, Catch::Contains("overflow"));
}

TEST_CASE("MoE fields are checked against each other", "[core][validation]") {
  const auto i = import_issues(
      R"({"model_type":"mixtral","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
          "intermediate_size":128,"vocab_size":100,"num_local_experts":8,"num_experts_per_tok":9})");
  CHECK(i[0].field == "num_experts_per_tok");
  CHECK_THAT(i[0].message, Catch::Contains("[1, 8]"));
}

TEST_CASE("duplicate keys, deep nesting, oversized and non-object input are refused", "[core][validation]") {
  CHECK_THAT(import_issues(R"({"model_type":"llama","hidden_size":64,"hidden_size":65})")[0].message,
             Catch::Contains("\"hidden_size\" twice"));
  CHECK_THAT(import_issues(std::string(100, '[') + std::string(100, ']'))[0].message, Catch::Contains("nests deeper"));
  CHECK_THAT(import_issues(std::string(kMaxConfigBytes + 1, ' '))[0].message, Catch::Contains("limit"));
  CHECK_THAT(import_issues("[1,2]")[0].message, Catch::Contains("must be a JSON object"));
  CHECK_THAT(import_issues(R"({"model_type": 7})")[0].message, Catch::Contains("must be a string"));
  CHECK_THAT(import_issues(R"({"model_type": "llama", "x": NaN})")[0].message, Catch::Contains("not valid JSON"));
  CHECK_THAT(import_issues(R"({"model_type": "llama", "hidden_size": 1e400})")[0].message, Catch::Contains("not valid JSON"));
}

TEST_CASE("validate() checks every documented bound", "[core][validation]") {
  for (const auto& lim : field_limits()) {
    INFO(lim.field);
    CHECK(check_limit(lim.field, lim.min) == std::nullopt);
    CHECK(check_limit(lim.field, lim.max) == std::nullopt);
    REQUIRE(check_limit(lim.field, lim.max + 1).has_value());
    CHECK(check_limit(lim.field, lim.max + 1)->field == lim.field);
    CHECK(check_limit(lim.field, lim.min - 1).has_value());
  }
  // A check naming a field without a row refuses every value instead of passing it.
  REQUIRE(check_limit("no_such_field", 1).has_value());
  CHECK(check_limit("no_such_field", 1)->field == "no_such_field");
}

TEST_CASE("non-ASCII text is handled: reported verbatim where valid, refused where not UTF-8", "[core][validation]") {
  // A Cyrillic "а" in the model_type: not supported, named in the message as typed.
  auto cyr = import_issues(R"({"model_type":"llam\u0430","hidden_size":64})");
  CHECK(cyr[0].field == "model_type");
  CHECK_THAT(cyr[0].message, Catch::Contains("llam\xd0\xb0"));
  // Non-ASCII keys are simply unknown keys; the known ones still read.
  auto ok = import_hf_config("{" + base_keys + R"(,"hidden_size":64,"\u00e9t\u00e9":1,"\ud83d\ude00":[1,2]})");
  CHECK(ok.ok());
  // Invalid UTF-8 inside a string is not valid JSON.
  const std::string bad = "{\"model_type\":\"llama\xff\xfe\",\"hidden_size\":64}";
  CHECK_THAT(import_issues(bad)[0].message, Catch::Contains("not valid JSON"));
}

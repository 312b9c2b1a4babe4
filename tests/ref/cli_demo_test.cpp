// `llmsize demo` through the CLI library: a run to the end in text and JSON, and strict
// flag validation (the flag and its range named, exit status 2).
#include <catch2/catch.hpp>

#include "cli.hpp"

using llmsize::cli::Output;

namespace {
Output run(std::vector<std::string> args) {
  return llmsize::cli::run(args, [](const std::string&, std::string& error) -> std::optional<std::string> {
    error = "no files in this test";
    return std::nullopt;
  });
}
}  // namespace

TEST_CASE("demo runs a block and prints timings, memory and the heat map", "[ref][cli]") {
  const Output o = run({"demo", "--preset", "gpt2", "--prompt", "16", "--tokens", "3"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("demo block of GPT-2") != std::string::npos);
  CHECK(o.out.find("real dimensions") != std::string::npos);
  CHECK(o.out.find("ms/token") != std::string::npos);
  CHECK(o.out.find("  weights                                 28,351,488     28,351,488") != std::string::npos);
  CHECK(o.out.find("attention of the last decoded token (layer 0, position 18): 12 heads × 19 positions") !=
        std::string::npos);
}

TEST_CASE("demo --json prints one object with measured and estimated bytes", "[ref][cli]") {
  const Output o = run({"demo", "--preset", "llama-3-8b", "--prompt", "8", "--tokens", "2", "--budget-mib", "64", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.front() == '{');
  CHECK(o.out.find("\"scaled\": true") != std::string::npos);
  CHECK(o.out.find("\"scaling\": \"d 4096->") != std::string::npos);
  CHECK(o.out.find("\"decode_ms_per_token\": ") != std::string::npos);
  CHECK(o.out.find("\"heat_map\": {\"layer\": 0, \"query_pos\": 9") != std::string::npos);
  CHECK(o.out.find("\"by_kind\": [{\"kind\": \"full\", \"block_layers\": [0], \"model_layers\": [0], \"kv_measured\": ") !=
        std::string::npos);
  CHECK(o.out.find("\"state_trace\": null}") != std::string::npos);  // no recurrent layer
}

TEST_CASE("demo --json of a hybrid names one row per attention kind, with the model layer each stands for", "[ref][cli]") {
  const Output o = run({"demo", "--preset", "qwen3-next-80b-a3b", "--prompt", "8", "--tokens", "2", "--budget-mib", "64", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("\"model_layers\": [0, 3]") != std::string::npos);
  CHECK(o.out.find("{\"kind\": \"linear\", \"block_layers\": [0], \"model_layers\": [0], \"kv_measured\": 0, "
                   "\"kv_estimated\": 0, \"state_measured\": ") != std::string::npos);
  CHECK(o.out.find("{\"kind\": \"full\", \"block_layers\": [1], \"model_layers\": [3]") != std::string::npos);
  CHECK(o.out.find("\"heat_map\": {\"layer\": 3,") != std::string::npos);  // the full layer attended last
  // The linear layer's state norm: after the 8-token prefill (one chunk), then after each decoded token.
  const auto at = o.out.find("\"state_trace\": {\"layer\": 0, \"kind\": \"linear\", \"heads\": 8, \"positions\": 10, \"points\": [");
  REQUIRE(at != std::string::npos);
  const std::string pts = o.out.substr(at);
  CHECK(pts.find("{\"position\": 7, \"mean\": ") != std::string::npos);
  CHECK(pts.find("{\"position\": 8, \"mean\": ") != std::string::npos);
  CHECK(pts.find("{\"position\": 9, \"mean\": ") != std::string::npos);
  CHECK(pts.find("{\"position\": 6,") == std::string::npos);  // inside the prefill chunk: no state
  const Output t = run({"demo", "--preset", "qwen3-next-80b-a3b", "--prompt", "8", "--tokens", "2", "--budget-mib", "64"});
  REQUIRE(t.status == 0);
  CHECK(t.out.find("recurrent state of layer 0 (Gated DeltaNet, sequence 0): ||S|| (Frobenius) of each of 8 heads") != std::string::npos);
  CHECK(t.out.find("  position      9: mean ") != std::string::npos);
}

TEST_CASE("demo --json of DeepSeek-V3.2 measures the indexer's keys beside the estimate", "[ref][cli][indexer]") {
  const Output o = run({"demo", "--preset", "deepseek-v3.2", "--prompt", "8", "--tokens", "2", "--budget-mib", "64", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  // 10 positions × (128 fp8 codes + one fp32 scale) = 1,320 bytes: the indexer keeps its real width when the block narrows.
  CHECK(o.out.find("\"indexer_cache\": {\"measured\": 1320, \"estimated\": 1320}") != std::string::npos);
  CHECK(o.out.find("\"index_measured\": 1320, \"index_estimated\": 1320}") != std::string::npos);
  const Output t = run({"demo", "--preset", "deepseek-v3.2", "--prompt", "8", "--tokens", "2", "--budget-mib", "64"});
  REQUIRE(t.status == 0);
  CHECK(t.out.find("indexer 64 × 128, top-2048 keys") != std::string::npos);
  CHECK(t.out.find("  indexer keys                                 1,320          1,320") != std::string::npos);
}

TEST_CASE("demo of a NAS model runs a layer with attention and a layer whose attention is no_op", "[ref][cli]") {
  // Llama-3.3-Nemotron-Super-49B (DeciLM block_configs): layer 0 has attention and an FFN; layer 6 the FFN alone.
  const Output o = run({"demo", "--preset", "llama-3.3-nemotron-super-49b", "--prompt", "8", "--tokens", "2", "--budget-mib", "64", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("\"model_layers\": [0, 6]") != std::string::npos);
  CHECK(o.out.find("{\"kind\": \"none\", \"block_layers\": [1], \"model_layers\": [6], \"kv_measured\": 0, \"kv_estimated\": 0") !=
        std::string::npos);
}

TEST_CASE("demo flags are validated strictly", "[ref][cli]") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"demo", "--preset", "gpt2", "--prompt", "0"}, "--prompt must be an integer in [1, 8192], got \"0\""},
      {{"demo", "--preset", "gpt2", "--prompt", "12x"}, "--prompt must be an integer in [1, 8192], got \"12x\""},
      {{"demo", "--preset", "gpt2", "--tokens", "-3"}, "--tokens must be an integer in [1, 4096], got \"-3\""},
      {{"demo", "--preset", "gpt2", "--tokens", "4097"}, "--tokens must be an integer in [1, 4096]"},
      {{"demo", "--preset", "gpt2", "--budget-mib", "8"}, "--budget-mib must be an integer in [16, 65536], got \"8\""},
      {{"demo", "--preset", "gpt2", "--prompt"}, "--prompt needs a value"},
      {{"demo", "--preset", "gpt2", "--seq", "100"}, "--seq is not a demo option"},
      {{"demo", "--preset", "gpt2", "--explain"}, "--explain is not a demo option"},
      {{"demo", "--preset", "gpt2", "--prompt", "1024"}, "--prompt: prompt + tokens must be at most the model's context"},
      {{"demo"}, "demo needs exactly one of --preset NAME or --config PATH"},
      {{"demo", "--preset", "nope"}, "nope"},
      {{"estimate", "--preset", "gpt2", "--prompt", "5"}, "options of `llmsize demo`"},
      {{"demo", "--preset", "gpt2", "--train-seq", "-1"}, "--train-seq must be an integer in [0, 8192], got \"-1\""},
      {{"demo", "--preset", "gpt2", "--train-seq", "4", "--train-lora-targets", "q,x"}, "--train-lora-targets must be"},
      {{"demo", "--preset", "gpt2", "--train-seq", "4", "--train-recompute", "some"}, "--train-recompute must be"},
      {{"demo", "--preset", "gpt-oss-20b", "--budget-mib", "64", "--train-seq", "4"},
       "the training step does not model a mixture-of-experts FFN with input-scaling routing, expert biases or ungated "
       "experts, attention sinks, gpt-oss's clamped SwiGLU in layer 0"},
  };
  for (const auto& c : cases) {
    INFO(c.args.back());
    const Output o = run(c.args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    CHECK(o.err.find(c.message) != std::string::npos);
  }
}

TEST_CASE("demo --train-seq runs a training step of the block and sets its counters beside the core's", "[ref][cli][train]") {
  const Output o = run({"demo", "--preset", "gpt2", "--prompt", "8", "--tokens", "2", "--train-seq", "16", "--json"});
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("\"train\": {\"layer\": 0, \"seq\": 16, \"micro_batch\": 1, \"lora_rank\": 8, \"lora_targets\": \"q,v\"") !=
        std::string::npos);
  // GPT-2's layer at s = 16, b = 1, fp32 (d 768, 12 heads of 64, FFN 3072 classic, fused qkv adapted once), by hand from
  // Korthikanti et al.'s components: norm inputs 2·sbh·4 = 98,304; attention input 49,152; q and k 98,304; v 49,152;
  // logsumexp s·H·4 = 768; attention output 49,152; FFN input 49,152; GELU input and output 2·s·f·4 = 393,216;
  // LoRA x·A s·r·4 = 512: 787,712 bytes.
  CHECK(o.out.find("\"saved\": {\"measured\": 787712, \"estimated\": 787712}") != std::string::npos);
  // Adapters on the fused qkv (768 → 2304) at r 8: 8·(768 + 2304) = 24,576 parameters; gradients 4 B each, AdamW 8 B.
  CHECK(o.out.find("\"adapters\": {\"measured\": 98304, \"estimated\": 98304}") != std::string::npos);
  CHECK(o.out.find("\"gradients\": {\"measured\": 98304, \"estimated\": 98304}") != std::string::npos);
  CHECK(o.out.find("\"optimizer\": {\"measured\": 196608, \"estimated\": 196608}") != std::string::npos);
  const Output t = run({"demo", "--preset", "gpt2", "--prompt", "8", "--tokens", "2", "--train-seq", "16", "--train-lora-rank",
                        "0", "--train-recompute", "full"});
  INFO(t.err);
  REQUIRE(t.status == 0);
  CHECK(t.out.find("training step of model layer 0 (fp32, 1 × 16 tokens, every tensor trained, AdamW, recompute full)") !=
        std::string::npos);
  CHECK(t.out.find("  saved for backward (end of forward)         49,152         49,152") != std::string::npos);  // the input alone
  CHECK(t.out.find("    rebuilt in backward (recompute)          738,048        738,048") != std::string::npos);
}

// `llmsize estimate` with workload flags: JSON keys for inference/training/fit/throughput,
// text tables, --explain derivations, and one-line errors naming the flag and its range.
#include <catch2/catch.hpp>

#include <algorithm>

#include "cli.hpp"
#include "core/format.hpp"
#include "core/workload.hpp"

using llmsize::cli::run;

namespace {
llmsize::cli::Output cli(std::vector<std::string> args, llmsize::core::Lang locale = llmsize::core::Lang::En) {
  return run(
      args,
      [](const std::string&, std::string& err) -> std::optional<std::string> {
        err = "no files in this test";
        return std::nullopt;
      },
      llmsize::cli::read_file_prefix, locale);
}
}  // namespace

TEST_CASE("estimate --json adds inference, training, fit and throughput figures", "[cli][memory]") {
  const auto o = cli({"estimate", "--preset", "llama-3.1-8b", "--seq", "8192", "--batch", "4", "--json"});
  REQUIRE(o.status == 0);
  for (const char* key :
       {"\"weights_bytes\": 16060522496", "\"kv_bytes_per_token\": 131072", "\"kv_cache_bytes\": 4294967296",
        "\"activation_bytes\":", "\"overhead_bytes\":", "\"total_bytes\":", "\"gradients_bytes\":",
        "\"optimizer_bytes\":", "\"master_weights_bytes\":", "\"max_context\":", "\"max_sequences\":",
        "\"inference_fits\": true", "\"decode_tokens_per_s\":", "\"chinchilla_tokens\": 160605224960",
        "\"inference.kv_cache_bytes\": \"lower bound\"", "\"seq\": \"8192\"", "\"total\": 8030261248"})
    CHECK_THAT(o.out, Catch::Contains(key));
  CHECK_THAT(o.out, !Catch::Contains("\"explain\""));
  const auto e = cli({"estimate", "--preset", "llama-3.1-8b", "--json", "--explain"});
  CHECK_THAT(e.out, Catch::Contains("\"formula\""));
}

TEST_CASE("estimate prints the memory table of the chosen mode, in GB or GiB", "[cli][memory]") {
  const auto inf = cli({"estimate", "--preset", "llama-3.1-8b", "--weights", "q4_k_m"});
  REQUIRE(inf.status == 0);
  CHECK_THAT(inf.out, Catch::Contains("Inference on NVIDIA H100 SXM 80GB"));
  CHECK_THAT(inf.out, Catch::Contains("KV cache (131,072 B/token)"));
  CHECK_THAT(inf.out, Catch::Contains(" GB"));
  const auto gib = cli({"estimate", "--preset", "llama-3.1-8b", "--gib"});
  CHECK_THAT(gib.out, Catch::Contains(" GiB"));
  const auto tr = cli({"estimate", "--preset", "llama-2-7b", "--mode", "training", "--zero", "3", "--gpus", "8"});
  REQUIRE(tr.status == 0);
  CHECK_THAT(tr.out, Catch::Contains("Optimizer states"));
  CHECK_THAT(tr.out, Catch::Contains("fp32 master weights"));
}

TEST_CASE("estimate --explain leaves out the parts a model lacks; the JSON keeps them at 0", "[cli][memory]") {
  // GPT-2 Medium has no vision tower, no sparse-attention indexer and no recurrent layers.
  for (const char* mode : {"inference", "training"}) {
    INFO(mode);
    const auto text = cli({"estimate", "--preset", "gpt2-medium", "--mode", mode, "--explain"});
    REQUIRE(text.status == 0);
    for (const char* key : {"vision_weights_bytes]", "[inference.indexer_bytes_per_token]", "[inference.indexer_cache_bytes]",
                            "[inference.state_bytes_per_sequence]", "[inference.state_bytes]"})
      CHECK_THAT(text.out, !Catch::Contains(key));
    CHECK_THAT(text.out, Catch::Contains(std::string(mode) == "training" ? "[training.activation_bytes]" : "[inference.kv_cache_bytes]"));
  }
  const auto json = cli({"estimate", "--preset", "gpt2-medium", "--json", "--explain"});
  CHECK_THAT(json.out, Catch::Contains("\"vision_weights_bytes\": 0"));
  CHECK_THAT(json.out, Catch::Contains("\"key\": \"inference.state_bytes\""));
  // A model that has them lists them: Qwen3-Next's Gated DeltaNet layers keep a recurrent state.
  const auto hybrid = cli({"estimate", "--preset", "qwen3-next-80b-a3b", "--explain"});
  CHECK_THAT(hybrid.out, Catch::Contains("[inference.state_bytes]"));
  CHECK_THAT(hybrid.out, !Catch::Contains("[inference.vision_weights_bytes]"));
}

TEST_CASE("estimate --explain prints every derivation with its reference", "[cli][memory]") {
  const auto o = cli({"estimate", "--preset", "deepseek-v3", "--weights", "fp8-block", "--gpus", "8", "--tp", "8",
                      "--explain"});
  REQUIRE(o.status == 0);
  for (const char* s : {"Weights by tensor", "fp8 e4m3 + 128×128 block scales", "L · (kv_lora_rank + qk_rope_head_dim)",
                        "ref: DeepSeek-V2", "Korthikanti", "Rajbhandari", "Hoffmann", "[inference.max_context]"})
    CHECK_THAT(o.out, Catch::Contains(s));
}

TEST_CASE("Every workload flag is accepted, and bad values name the flag and range", "[cli][memory]") {
  const llmsize::core::Workload def;
  for (const auto& f : llmsize::core::workload_fields()) {
    INFO(f.flag);
    const auto o = cli({"estimate", "--preset", "gpt2", std::string(f.flag), f.get(def)});
    CHECK(o.status == 0);
  }
  struct Case {
    std::vector<std::string> args;
    const char* expect;
  };
  const Case cases[] = {
      {{"--seq", "0"}, "--seq: must be an integer in [1, 134217728]"},
      {{"--batch", "x"}, "--batch: must be an integer in [1, 1048576]"},
      {{"--weights", "q9"}, "--weights: must be one of fp32"},
      {{"--gpu-mem-util", "1.5"}, "--gpu-mem-util: must be 0 (the default) or a number in (0, 1]"},
      {{"--gpu", "tpu"}, "--gpu: must be one of a10"},
      {{"--tp", "5", "--gpus", "5"}, "--tp: must divide num_attention_heads (12)"},
      {{"--gpus", "3", "--tp", "2"}, "--gpus: must be a multiple of tp × pp = 2"},
      {{"--seq"}, "--seq needs a value"},
  };
  for (const auto& c : cases) {
    INFO(c.expect);
    std::vector<std::string> args = {"estimate", "--preset", "gpt2"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto o = cli(args);
    CHECK(o.status == 2);
    CHECK(o.out.empty());
    CHECK_THAT(o.err, Catch::Contains(c.expect));
  }
  CHECK_THAT(cli({"--help"}).out, Catch::Contains("--kv-dtype"));
  // "--flag=value" is the same as "--flag value".
  CHECK(cli({"estimate", "--preset", "gpt2", "--seq=512", "--json"}).out ==
        cli({"estimate", "--preset", "gpt2", "--seq", "512", "--json"}).out);
  CHECK_THAT(cli({"estimate", "--preset", "gpt2", "--seq=0"}).err, Catch::Contains("--seq: must be an integer"));
}

TEST_CASE("estimate --lang zh prints the tables in Chinese, aligned; the locale is the default", "[cli][memory][lang]") {
  using llmsize::core::Lang;
  const auto zh = cli({"estimate", "--preset", "llama-3.1-8b", "--lang", "zh"});
  REQUIRE(zh.status == 0);
  for (const char* s : {"参数", "总计", "经典估算 12·L·d² + v·d", "推理：NVIDIA H100 SXM 80GB × 1，每 GPU（GB）",
                        "KV 缓存（131,072 B/token）", "权重", "运行时预留", "可用", "放得下", "阶段：加载后", "吞吐量上界",
                        "解码 ≤ ", "注意力", "词表"})
    CHECK_THAT(zh.out, Catch::Contains(s));
  for (const char* s : {"Parameters", "Inference on", "usable", "Throughput bounds", "phases:", "max context", "custom model"})
    CHECK_THAT(zh.out, !Catch::Contains(s));
  // The memory rows' byte figures end in one column although their labels are Chinese (2 columns a character).
  std::vector<size_t> ends;
  size_t at = zh.out.find("推理：");
  REQUIRE(at != std::string::npos);
  const size_t phases = zh.out.find("  阶段：", at);  // the line after the table
  REQUIRE(phases != std::string::npos);
  for (size_t line = zh.out.find('\n', at) + 1; line < phases;) {
    const size_t end = zh.out.find('\n', line);
    const std::string row = zh.out.substr(line, end - line);
    if (const size_t gb = row.find(" GB"); gb != std::string::npos) ends.push_back(llmsize::core::display_width(row.substr(0, gb)));
    line = end + 1;
  }
  REQUIRE(ends.size() >= 5);
  CHECK(std::count(ends.begin(), ends.end(), ends.front()) == static_cast<long>(ends.size()));

  // The locale's language is the default; --lang overrides it; the JSON is the same in both.
  CHECK(cli({"estimate", "--preset", "llama-3.1-8b"}, Lang::Zh).out == zh.out);
  CHECK(cli({"estimate", "--preset", "llama-3.1-8b", "--lang=en"}, Lang::Zh).out == cli({"estimate", "--preset", "llama-3.1-8b"}).out);
  CHECK(cli({"estimate", "--preset", "llama-3.1-8b", "--json", "--lang", "zh"}).out ==
        cli({"estimate", "--preset", "llama-3.1-8b", "--json"}).out);

  const auto tr = cli({"estimate", "--preset", "llama-2-7b", "--mode", "training", "--lang", "zh", "--explain"});
  REQUIRE(tr.status == 0);
  for (const char* s : {"训练：", "优化器状态", "fp32 主权重", "梯度", "张量清单", "按张量列出的权重", "推导（", "来源：", "精确值"})
    CHECK_THAT(tr.out, Catch::Contains(s));

  // A language it does not have, a missing value: refused, naming the flag (every other command
  // takes --lang: lang_cli_test.cpp).
  const auto bad = cli({"estimate", "--preset", "gpt2", "--lang", "fr"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("--lang must be en or zh, got \"fr\""));
  CHECK(cli({"estimate", "--preset", "gpt2", "--lang"}).status == 2);
  CHECK(cli({"presets", "--lang", "zh"}).status == 0);
  CHECK(cli({"demo", "--preset", "gpt2", "--lang", "zh"}).status == 0);
}

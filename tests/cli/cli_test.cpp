// The CLI as a library: commands, JSON keys, human tables, exit codes and error lines.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <map>

#include "cli.hpp"
#include "core/format.hpp"
#include "core/inventory.hpp"
#include "core/model_source.hpp"
#include "core/params.hpp"
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

TEST_CASE("check-log sets a published start-up log beside llmsize's profile", "[cli]") {
  const std::string log = "fuzz/corpus/engine_log/vllm-0.19-llama-3.1-8b.log";
  const auto o = cli({"check-log", log, "--preset", "llama-3.1-8b"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("A vLLM 0.19.0 start-up log of meta-llama/Llama-3.1-8B-Instruct"));
  CHECK_THAT(o.out, Catch::Contains("settings read from the log: seq 8192, util 0.95"));
  CHECK_THAT(o.out, Catch::Contains("Model loading took              14.99 GiB        14.99 GiB        same"));
  CHECK_THAT(o.out, Catch::Contains("GPU KV cache size (tokens)      476,016          475,984          -0.01%"));
  // --lang zh: the view in Chinese, its columns aligned by display width; the log's own words stay.
  const auto zh = cli({"check-log", log, "--preset", "llama-3.1-8b", "--lang", "zh"});
  REQUIRE(zh.status == 0);
  CHECK_THAT(zh.out, Catch::Contains("vLLM 0.19.0 启动日志（meta-llama/Llama-3.1-8B-Instruct）"));
  CHECK_THAT(zh.out, Catch::Contains("从日志读取的设置：seq 8192, util 0.95"));
  CHECK_THAT(zh.out, Catch::Contains("Model loading took              14.99 GiB        14.99 GiB        相同"));
  CHECK_THAT(zh.out, Catch::Contains("  预算                            "));  // 4 columns wide, padded to 32
  const auto j = cli({"check-log", log, "--preset", "llama-3.1-8b", "--json"});
  REQUIRE(j.status == 0);
  CHECK_THAT(j.out, Catch::Contains("\"engine\": \"vLLM\""));
  CHECK_THAT(j.out, Catch::Contains("\"same_text\": true"));
  // Without a model the error names the one the log ran; without a file, the path is asked for.
  const auto m = cli({"check-log", log});
  CHECK(m.status == 2);
  CHECK_THAT(m.err, Catch::Contains("the log ran meta-llama/Llama-3.1-8B-Instruct"));
  // Its base model is a preset: named as a hint, not picked (an Instruct config may differ).
  CHECK_THAT(m.err, Catch::Contains("of the same name there is llama-3.1-8b (meta-llama/Llama-3.1-8B): pass it with --preset"));
  CHECK(cli({"check-log", "--preset", "llama-3.1-8b"}).status == 2);
  CHECK(cli({"check-log", log, "--preset", "llama-3.1-8b", "--config", "core/configs/phi-1_5.json"}).status == 2);
  const auto bad = cli({"check-log", "core/configs/phi-1_5.json", "--preset", "llama-3.1-8b"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("log: holds no start-up line"));
}

TEST_CASE("check-log without a model flag checks against the preset that is the log's checkpoint", "[cli]") {
  // The llm-d 0.19 run of Qwen/Qwen3-8B (vllm_test.cpp): the repository is preset qwen3-8b's.
  const std::string log = "fuzz/corpus/engine_log/vllm-0.19-qwen3-8b.log";
  const auto o = cli({"check-log", log});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("model: preset qwen3-8b, the checkpoint the log names (Qwen/Qwen3-8B)"));
  const auto named = cli({"check-log", log, "--preset", "qwen3-8b"});
  REQUIRE(named.status == 0);
  CHECK_THAT(named.out, !Catch::Contains("model: preset"));
  // The rows are the named preset's, line for line.
  CHECK(o.out.substr(o.out.find("Model loading took")) == named.out.substr(named.out.find("Model loading took")));
  const auto j = cli({"check-log", log, "--json"});
  REQUIRE(j.status == 0);
  CHECK_THAT(j.out, Catch::Contains("\"preset\": \"qwen3-8b\""));
  CHECK_THAT(cli({"check-log", log, "--lang", "zh"}).out, Catch::Contains("模型：预设 qwen3-8b，即日志所指的检查点（Qwen/Qwen3-8B）"));
}

TEST_CASE("gguf FILE reads a model file's header only, and more of it while it continues", "[cli][gguf]") {
  // A GGUF of 1 GiB whose header holds a 6 MiB chat template and one f16 tensor of 2^29 values:
  // the first 4 MiB read ends inside the template, the second read (at least what it needs) holds it.
  llmsize::test::GgufWriter g;
  g.header(3, 1, 2);
  g.key_str("general.architecture", "llama");
  g.key_str("tokenizer.chat_template", std::string(6 << 20, 'x'));
  g.tensor("w", {std::uint64_t{1} << 29}, 1, 0);
  std::string head = g.b;
  const std::int64_t file_bytes = (std::int64_t{1} << 30) + (std::int64_t{8} << 20);
  std::vector<std::int64_t> reads;
  auto reader = [&](const std::string& path, std::int64_t max_bytes, std::int64_t& size, std::string& error) -> std::optional<std::string> {
    if (path != "model.gguf") {
      error = "cannot open \"" + path + "\"";
      return std::nullopt;
    }
    reads.push_back(max_bytes);
    size = file_bytes;
    return head.substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, static_cast<std::int64_t>(head.size()))));
  };
  const auto no_files = [](const std::string&, std::string& e) -> std::optional<std::string> { e = "no"; return std::nullopt; };
  const auto o = run({"gguf", "model.gguf"}, no_files, reader);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(reads.size() == 2);
  CHECK(reads[1] >= static_cast<std::int64_t>(6 << 20));
  CHECK(reads[1] < file_bytes / 64);  // the header, never the whole model
  CHECK_THAT(o.out, Catch::Contains("architecture llama"));
  CHECK_THAT(o.out, Catch::Contains("536,870,912"));  // parameters
  const auto j = run({"gguf", "model.gguf", "--json"}, no_files, reader);
  REQUIRE(j.status == 0);
  CHECK_THAT(j.out, Catch::Contains("\"weights_bytes\":1073741824"));
  CHECK_THAT(j.out, Catch::Contains("\"tokenizer.chat_template\":\"xxxx"));
  // A missing file, a missing path, a file that is not GGUF: one named line, status 2.
  CHECK(run({"gguf", "other.gguf"}, no_files, reader).status == 2);
  CHECK_THAT(run({"gguf"}, no_files, reader).err, Catch::Contains("gguf needs the file's path"));
  head = "not a model";
  const auto bad = run({"gguf", "model.gguf"}, no_files, reader);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("gguf: not a GGUF file"));
}

TEST_CASE("estimate --gguf takes the model and the weight format from the file", "[cli][gguf]") {
  const llmsize::test::QwenGguf q;  // Qwen2.5-7B's metadata, file type Q4_K_M, output.weight in q6_K
  std::string head = q.head;
  const std::int64_t file_bytes = q.file_bytes;
  auto reader = [&](const std::string&, std::int64_t max_bytes, std::int64_t& size, std::string&) -> std::optional<std::string> {
    size = file_bytes;
    return head.substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, static_cast<std::int64_t>(head.size()))));
  };
  const auto no_files = [](const std::string&, std::string& e) -> std::optional<std::string> { e = "no"; return std::nullopt; };
  const auto o = run({"estimate", "--gguf", "qwen.gguf", "--json"}, no_files, reader);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("\"total\": 7615616512"));            // Qwen2.5-7B's parameters
  CHECK_THAT(o.out, Catch::Contains("\"file_type\": \"Q4_K - Medium\""));
  // A Q4_K_M Qwen2.5-7B holds 4.36 GiB ("print_info: file size = 4.36 GiB (4.91 BPW)", a public
  // Ollama transcript): the estimate for the file's type, beside the file's own tensors.
  CHECK_THAT(o.out, Catch::Contains("\"estimated_weights_bytes\": 4677120000"));
  CHECK_THAT(o.out, Catch::Contains("\"weights_bytes\": 447068160"));
  // The head, group by group: the file's q6_K output.weight is the estimate's head to the byte.
  CHECK_THAT(o.out, Catch::Contains("\"lm_head\": {\n        \"bytes\": 447068160,\n        \"estimated_bytes\": 447068160"));
  CHECK_THAT(o.out, Catch::Contains("\"first_tensor\": \"output.weight\""));
  // A file of one tensor is not the model's weights: said, by the first tensor it lacks.
  CHECK_THAT(o.out, Catch::Contains("\"replaces_estimate\": false"));
  CHECK_THAT(o.err, Catch::Contains("gguf: the file's bytes stand beside the estimate, not in it: the file has no "
                                    "token_embd.weight for model.embed_tokens.weight"));
  // --weights given wins over the file type.
  const auto q8 = run({"estimate", "--gguf", "qwen.gguf", "--weights", "q8_0"}, no_files, reader);
  REQUIRE(q8.status == 0);
  CHECK_THAT(q8.out, Catch::Contains("estimated for q8_0"));
  // Exactly one model source, and one file beside the estimate.
  CHECK_THAT(run({"estimate", "--gguf", "qwen.gguf", "--preset", "gpt2"}, no_files, reader).err,
             Catch::Contains("exactly one of --preset NAME, --config PATH or --gguf FILE"));
  CHECK_THAT(run({"estimate", "--gguf", "qwen.gguf", "--safetensors", "ckpt"}, no_files, reader).err,
             Catch::Contains("give one of them"));
  // An architecture not read yet is named.
  head.replace(head.find("qwen2"), 5, "mamba");
  const auto bad = run({"estimate", "--gguf", "qwen.gguf"}, no_files, reader);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("general.architecture"));
}

TEST_CASE("safetensors PATH and estimate --safetensors read a checkpoint folder's headers only", "[cli][safetensors]") {
  // Qwen3-0.6B as a two-shard bf16 checkpoint: its config.json, an index, and shards whose
  // headers name every tensor of the model (data not held: the reader never asks for it).
  const std::string config = llmsize::test::read_text("calibration/configs/qwen3-0.6b.json");
  auto model = llmsize::core::load_model(llmsize::core::ModelSource::config(config));
  REQUIRE(model.ok());
  auto inv = llmsize::core::build_inventory(model->config);
  REQUIRE(inv.ok());
  std::vector<std::pair<std::string, std::int64_t>> tensors;  // name, bytes
  std::vector<std::vector<std::int64_t>> shapes;
  auto add = [&](const llmsize::core::Tensor& t, std::int64_t layer) {
    std::string n = t.name;
    if (auto at = n.find("{i}"); at != std::string::npos) n.replace(at, 3, std::to_string(layer));
    tensors.emplace_back(n, t.numel_one() * 2);
    shapes.push_back(t.is_matrix() ? std::vector<std::int64_t>{t.cols, t.rows} : std::vector<std::int64_t>{t.cols});
  };
  for (const auto& t : inv->global) add(t, -1);
  for (const auto& k : inv->kinds)
    for (auto l : k.layers)
      for (const auto& t : k.tensors) add(t, l);
  std::map<std::string, std::string> files;  // path → bytes (headers only); sizes below
  std::map<std::string, std::int64_t> sizes;
  std::string index = "{\"metadata\":{\"total_size\":0},\"weight_map\":{";
  for (int shard = 0; shard < 2; ++shard) {
    const std::string name = "model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors";
    std::string j = "{";
    std::int64_t at = 0;
    for (size_t i = static_cast<size_t>(shard); i < tensors.size(); i += 2) {
      if (j.size() > 1) j += ",";
      j += "\"" + tensors[i].first + "\":{\"dtype\":\"BF16\",\"shape\":[";
      for (size_t d = 0; d < shapes[i].size(); ++d) j += (d ? "," : "") + std::to_string(shapes[i][d]);
      j += "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + tensors[i].second) + "]}";
      at += tensors[i].second;
      index += (index.back() == '{' ? "\"" : ",\"") + tensors[i].first + "\":\"" + name + "\"";
    }
    j += "}";
    std::string bytes;
    for (int k = 0; k < 8; ++k) bytes.push_back(static_cast<char>(static_cast<std::uint64_t>(j.size()) >> (8 * k)));
    files["ckpt/" + name] = bytes + j;
    sizes["ckpt/" + name] = static_cast<std::int64_t>(bytes.size() + j.size()) + at;
  }
  files["ckpt/model.safetensors.index.json"] = index + "}}";
  sizes["ckpt/model.safetensors.index.json"] = static_cast<std::int64_t>(files["ckpt/model.safetensors.index.json"].size());
  std::int64_t largest_read = 0;
  auto prefix = [&](const std::string& path, std::int64_t max_bytes, std::int64_t& size, std::string& error) -> std::optional<std::string> {
    if (!files.count(path)) {
      error = "cannot open \"" + path + "\"";
      return std::nullopt;
    }
    size = sizes[path];
    largest_read = std::max(largest_read, std::min<std::int64_t>(max_bytes, size));
    return files[path].substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, static_cast<std::int64_t>(files[path].size()))));
  };
  auto read = [&](const std::string& path, std::string& error) -> std::optional<std::string> {
    if (path == "ckpt/config.json") return config;
    error = "cannot open \"" + path + "\"";
    return std::nullopt;
  };
  const auto o = run({"safetensors", "ckpt"}, read, prefix);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("2 files"));
  CHECK_THAT(o.out, Catch::Contains("BF16"));
  // The model from the folder's config.json; the checkpoint's bytes per group are the estimate's in bf16.
  const auto e = run({"estimate", "--safetensors", "ckpt", "--json"}, read, prefix);
  INFO(e.err);
  REQUIRE(e.status == 0);
  auto count = llmsize::core::count_params(model->config);
  REQUIRE(count.ok());
  CHECK_THAT(e.out, Catch::Contains("\"weights_bytes\": " + std::to_string(2 * count->total)));
  CHECK_THAT(e.out, Catch::Contains("\"estimated_weights_bytes\": " + std::to_string(2 * count->total)));
  CHECK_THAT(e.out, Catch::Contains("\"differ\": []"));
  // Every tensor of the model is there: the checkpoint's bytes are the estimate's weights.
  CHECK_THAT(e.out, Catch::Contains("\"replaces_estimate\": true"));
  const std::string wb = "\"weights_bytes\": " + std::to_string(2 * count->total);
  const size_t first = e.out.find(wb);  // file.weights_bytes (keys sort: "file" before "inference") …
  REQUIRE(first != std::string::npos);
  CHECK(e.out.find(wb, first + 1) > e.out.find("\"inference\""));  // … and inference.weights_bytes
  CHECK(e.out.find(wb, first + 1) != std::string::npos);
  CHECK(largest_read < sizes["ckpt/model-00001-of-00002.safetensors"] / 100);  // headers, not the weights
  // A shard that escapes the folder is refused; a lone file needs a model.
  files["ckpt/model.safetensors.index.json"] = "{\"weight_map\":{\"a\":\"../x.safetensors\"}}";
  sizes["ckpt/model.safetensors.index.json"] = static_cast<std::int64_t>(files["ckpt/model.safetensors.index.json"].size());
  CHECK_THAT(run({"safetensors", "ckpt"}, read, prefix).err, Catch::Contains("weight_map"));
  CHECK_THAT(run({"estimate", "--safetensors", "ckpt/model-00001-of-00002.safetensors"}, read, prefix).err,
             Catch::Contains("needs --preset or --config"));
}

TEST_CASE("gguf and estimate --gguf read every file of a split model", "[cli][gguf]") {
  // Two files as gguf-split writes them (split.no, split.count u16; split.tensors.count i32).
  auto shard = [](int no, std::vector<std::string> tensors) {
    llmsize::test::GgufWriter g;
    g.header(3, tensors.size(), no == 0 ? 4 : 3);
    if (no == 0) g.key_str("general.architecture", "llama");
    g.str("split.no"), g.u32(2), g.u16(static_cast<std::uint16_t>(no));
    g.str("split.count"), g.u32(2), g.u16(2);
    g.str("split.tensors.count"), g.u32(5), g.u32(3);
    std::uint64_t offset = 0;
    for (const auto& t : tensors) g.tensor(t, {1024}, 1, offset), offset += 2048;
    return g.b;
  };
  std::map<std::string, std::string> files{{"m/x-00001-of-00002.gguf", shard(0, {"token_embd.weight", "output.weight"})},
                                           {"m/x-00002-of-00002.gguf", shard(1, {"blk.0.attn_q.weight"})}};
  auto reader = [&](const std::string& path, std::int64_t max_bytes, std::int64_t& size, std::string& error) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) {
      error = "cannot open \"" + path + "\"";
      return std::nullopt;
    }
    size = static_cast<std::int64_t>(it->second.size()) + 64 + 4096;
    return it->second.substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, static_cast<std::int64_t>(it->second.size()))));
  };
  const auto no_files = [](const std::string&, std::string& e) -> std::optional<std::string> { e = "no"; return std::nullopt; };
  for (const char* given : {"m/x-00001-of-00002.gguf", "m/x-00002-of-00002.gguf"}) {  // either file names the model
    const auto o = run({"gguf", given, "--json"}, no_files, reader);
    INFO(o.err);
    REQUIRE(o.status == 0);
    CHECK_THAT(o.out, Catch::Contains("\"shards\":2"));
    CHECK_THAT(o.out, Catch::Contains("\"tensors\":3"));
    CHECK_THAT(o.out, Catch::Contains("\"architecture\":\"llama\""));
  }
  CHECK_THAT(run({"gguf", "m/x-00001-of-00002.gguf"}, no_files, reader).out, Catch::Contains("split in 2 files"));
  // A file missing, or a shard not named as gguf-split names them: said, by path.
  files.erase("m/x-00002-of-00002.gguf");
  const auto missing = run({"gguf", "m/x-00001-of-00002.gguf"}, no_files, reader);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("cannot open \"m/x-00002-of-00002.gguf\""));
  files["m/renamed.gguf"] = shard(0, {"token_embd.weight"});
  const auto renamed = run({"gguf", "m/renamed.gguf"}, no_files, reader);
  CHECK(renamed.status == 2);
  CHECK_THAT(renamed.err, Catch::Contains("is one of 2 files of a split model"));
}

TEST_CASE("estimate --mmproj: a multimodal projector file's bytes are the vision encoder", "[cli][gguf]") {
  // An mmproj file as llama.cpp's convert writes it (general.architecture clip, v.* and mm.*
  // tensors), f16.
  llmsize::test::GgufWriter g;
  g.header(3, 3, 2);
  g.key_str("general.architecture", "clip");
  g.key_str("clip.projector_type", "mlp");
  g.tensor("v.patch_embd.weight", {14, 14, 3, 1024}, 1, 0);
  g.tensor("v.blk.0.attn_q.weight", {1024, 1024}, 1, 1204224);
  g.tensor("mm.0.weight", {1024, 896}, 1, 1204224 + 2097152);
  const std::string head = g.b;
  const std::int64_t bytes = 14 * 14 * 3 * 1024 * 2 + 1024 * 1024 * 2 + 1024 * 896 * 2;
  auto reader = [&](const std::string& path, std::int64_t max_bytes, std::int64_t& size, std::string& error) -> std::optional<std::string> {
    if (path != "mmproj-f16.gguf") {
      error = "cannot open \"" + path + "\"";
      return std::nullopt;
    }
    size = static_cast<std::int64_t>(head.size()) + 64 + bytes;
    return head.substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, static_cast<std::int64_t>(head.size()))));
  };
  const auto no_files = [](const std::string&, std::string& e) -> std::optional<std::string> { e = "no"; return std::nullopt; };
  const auto o = run({"estimate", "--preset", "qwen2.5-0.5b", "--mmproj", "mmproj-f16.gguf", "--json"}, no_files, reader);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("\"vision_weights_bytes\": " + std::to_string(bytes)));
  CHECK_THAT(o.out, Catch::Contains("\"projector_type\": \"mlp\""));
  const auto t = run({"estimate", "--preset", "qwen2.5-0.5b", "--mmproj", "mmproj-f16.gguf", "--explain"}, no_files, reader);
  REQUIRE(t.status == 0);
  CHECK_THAT(t.out, Catch::Contains("Multimodal projector (mmproj-f16.gguf, mlp)"));
  CHECK_THAT(t.out, Catch::Contains("the multimodal projector file's tensors"));
  // The projector is not a model, and a model is not a projector: both said.
  const auto as_model = run({"estimate", "--gguf", "mmproj-f16.gguf"}, no_files, reader);
  CHECK(as_model.status == 2);
  CHECK_THAT(as_model.err, Catch::Contains("multimodal projector (an mmproj file)"));
  const auto missing = run({"estimate", "--preset", "gpt2", "--mmproj", "other.gguf"}, no_files, reader);
  CHECK(missing.status == 2);
}

TEST_CASE("export prints the engine's launch command, its notes as comments, or JSON; refusals exit 2 naming the flag", "[cli][export]") {
  // A preset's command names the repository its config comes from.
  auto o = cli({"export", "--preset", "llama-3.1-8b", "--runtime", "vllm", "--seq", "8192", "--gpu-mem-util", "0.95"});
  REQUIRE(o.status == 0);
  CHECK(o.out.rfind("vllm serve meta-llama/Llama-3.1-8B --max-model-len 8192 --dtype bfloat16 --gpu-memory-utilization 0.95\n# vLLM 0.19", 0) ==
        0);
  o = cli({"export", "--preset", "llama-3.1-8b", "--runtime", "llamacpp", "--model-id", "Llama-3.1-8B-Q4_K_M.gguf", "--json"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("\"command\": \"llama-server -m Llama-3.1-8B-Q4_K_M.gguf -c 4096 -ngl all -ctk bf16 -ctv bf16 -fa on\""));
  CHECK_THAT(o.out, Catch::Contains("\"field\": \"kvt\""));
  // A config.json has no id: MODEL, said in a note.
  o = cli({"export", "--config", "core/configs/phi-1_5.json", "--runtime", "sglang"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("--model-path MODEL "));
  CHECK_THAT(o.out, Catch::Contains("# MODEL stands for the model"));
  // Refusals name the CLI flag.
  o = cli({"export", "--preset", "llama-3.1-8b", "--runtime", "llamacpp", "--kv-dtype", "fp8"});
  CHECK(o.status == 2);
  CHECK_THAT(o.err, Catch::Contains("--kv-dtype: fp8 is not a llama.cpp cache type"));
  o = cli({"export", "--preset", "llama-3.1-8b"});
  CHECK(o.status == 2);
  CHECK_THAT(o.err, Catch::Contains("--runtime: choose an engine"));
  CHECK(cli({"export", "--runtime", "vllm"}).status == 2);
  CHECK_THAT(cli({"estimate", "--preset", "gpt2", "--model-id", "x"}).err, Catch::Contains("--model-id is an option of `llmsize export`"));
  // Training: the command and the configuration file it reads.
  o = cli({"export", "--preset", "gpt2", "--mode", "training", "--zero", "2", "--gpus", "2"});
  REQUIRE(o.status == 0);
  CHECK(o.out.rfind("deepspeed --num_gpus 2 train.py --deepspeed ds_config.json\n# ds_config.json:\n{\n", 0) == 0);
  CHECK_THAT(o.out, Catch::Contains("\"stage\": 2"));
  o = cli({"export", "--preset", "gpt2", "--mode", "training", "--zero", "fsdp", "--json"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("\"name\": \"fsdp_config.yaml\""));
}

TEST_CASE("estimate --csv prints every figure of the mode as CSV; with --json it is refused", "[cli][export]") {
  auto o = cli({"estimate", "--preset", "llama-3-8b", "--csv"});
  REQUIRE(o.status == 0);
  CHECK(o.out.rfind("key,label,unit,bound,value,formula,reference\r\n", 0) == 0);
  CHECK_THAT(o.out, Catch::Contains("\r\nparams.total,Parameters,count,exact,8030261248,"));
  o = cli({"estimate", "--preset", "llama-3-8b", "--csv", "--json"});
  CHECK(o.status == 2);
  CHECK_THAT(o.err, Catch::Contains("--csv prints the figures or the chart alone"));
  CHECK(cli({"presets", "--csv"}).status == 2);
  o = cli({"estimate", "--preset", "llama-3-8b", "--svg", "--gib"});
  REQUIRE(o.status == 0);
  CHECK(o.out.rfind("<svg xmlns=", 0) == 0);
  CHECK_THAT(o.out, Catch::Contains(" GiB"));
  CHECK(cli({"estimate", "--preset", "llama-3-8b", "--svg", "--csv"}).status == 2);
}

TEST_CASE("compare prints 2 to 4 cases side by side from a comparison link or --case links", "[cli][compare]") {
  auto o = cli({"compare", "--case", "#v=1&preset=llama-3-8b", "--case", "#v=1&preset=llama-3-8b&w=q4_k_m"});
  REQUIRE(o.status == 0);
  CHECK(o.out.rfind("Comparison of 2 cases\n  1  Llama 3 8B\n  2  Llama 3 8B (w q4_k_m)\n", 0) == 0);
  CHECK_THAT(o.out, Catch::Contains("* Weights "));
  o = cli({"compare", "v=1&preset=gpt2&c2=v%3D1%26preset%3Dgpt2-medium", "--json"});
  REQUIRE(o.status == 0);
  CHECK_THAT(o.out, Catch::Contains("\"title\": \"GPT-2 Medium (355M)\""));
  CHECK_THAT(cli({"compare", "--case", "#v=1&preset=gpt2"}).err, Catch::Contains("compare needs 2 to 4 cases, got 1"));
  CHECK_THAT(cli({"compare", "--case", "#v=1&preset=gpt2", "--case", "#v=1&seq=0"}).err, Catch::Contains("--case 2: seq"));
  CHECK(cli({"compare", "--case", "#v=1&preset=gpt2", "--case", "#v=1&preset=gpt2", "--seq", "8"}).status == 2);
  CHECK_THAT(cli({"estimate", "--preset", "gpt2", "--case", "x"}).err, Catch::Contains("--case is an option of `llmsize compare`"));
}

namespace {
// The numbers of a line (digit runs, with their inner ',' and '.'), sorted: a translation may
// reorder them, never change them.
std::vector<std::string> numbers_of(const std::string& line) {
  std::vector<std::string> out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(line[i]))) continue;
    size_t j = i;
    while (j < line.size() && (std::isdigit(static_cast<unsigned char>(line[j])) ||
                               ((line[j] == ',' || line[j] == '.') && j + 1 < line.size() &&
                                std::isdigit(static_cast<unsigned char>(line[j + 1])))))
      ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
  std::sort(out.begin(), out.end());
  return out;
}
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  return out;
}
// The JSON without its timings (the phases' times, the whole-model extrapolation, the training step's ms).
std::string without_timings(std::string json) {
  for (const char* key : {"\"timing\": {", "\"model_estimate\": {"}) {
    const size_t at = json.find(key);
    if (at != std::string::npos) json.erase(at, json.find('}', at) + 1 - at);
  }
  if (const size_t at = json.find("\"ms\": "); at != std::string::npos) json.erase(at, json.find(',', at) - at);
  return json;
}
}  // namespace

TEST_CASE("demo --lang zh prints its text view and errors in Chinese, with the English run's numbers and JSON", "[cli][demo][lang]") {
  const std::vector<std::vector<std::string>> runs = {
      {"demo", "--preset", "gpt2", "--prompt", "8", "--tokens", "2", "--train-seq", "16"},  // the training step
      {"demo", "--preset", "qwen3-next-80b-a3b", "--prompt", "8", "--tokens", "2", "--budget-mib", "64"},  // scaled; recurrent state
  };
  for (const auto& args : runs) {
    INFO(args[2]);
    auto zh_args = args;
    zh_args.insert(zh_args.end(), {"--lang", "zh"});
    const auto en = cli(args), zh = cli(zh_args), en_flag = cli([&] {
      auto a = args;
      a.insert(a.end(), {"--lang", "en"});
      return a;
    }());
    REQUIRE(en.status == 0);
    REQUIRE(zh.status == 0);
    REQUIRE(en_flag.status == 0);
    CHECK(lines_of(en_flag.out).size() == lines_of(en.out).size());
    CHECK_THAT(en.out, Catch::Contains("peak") && Catch::Contains(" measured vs ") && Catch::Contains("activations (peak of the phases)"));
    // Chinese labels, and none of the English ones left.
    for (const char* s : {"的演示块：", "块：d ", "阶段", "用时（ms）", "（固定种子填充）", "整个模型在此 CPU 上", "实测", "估算",
                          "激活（各阶段的峰值）", "注意力阶段存活集", "FFN 阶段存活集", "临时区（热力图副本等）", "峰值：实测 ",
                          "最后一个解码 token 的注意力（第 "})
      CHECK_THAT(zh.out, Catch::Contains(s));
    for (const char* s : {"demo block of", "block: ", "phase", "time (ms)", "seeded fill", "whole model", "measured", "estimated",
                          "weights", "KV cache", "activations", "live set", "scratch", "peak", "attention of the last",
                          "recurrent state", "training step", "real dimensions", "narrower", "heads", "layer", "position",
                          "tokens", "decoded", "one thread"})
      CHECK_THAT(zh.out, !Catch::Contains(s));
    // The same lines in the same order, with the same numbers; only the timings differ from run to run.
    const auto el = lines_of(en.out), zl = lines_of(zh.out);
    REQUIRE(el.size() == zl.size());
    for (size_t i = 0; i < el.size(); ++i) {
      const std::string& e = el[i];
      if (e.rfind("  weights ", 0) == 0 || e.rfind("  prefill ", 0) == 0 || e.rfind("  decode ", 0) == 0 ||
          e.find("whole model on this CPU") != std::string::npos || e.find("training step of model layer") != std::string::npos)
        continue;
      INFO(e << "\n" << zl[i]);
      CHECK(numbers_of(e) == numbers_of(zl[i]));
      if (e.rfind("  h ", 0) == 0) CHECK(e == zl[i]);  // the heat map's rows
    }
    // --json is the same in every language.
    auto en_json = args, zh_json = zh_args;
    en_json.push_back("--json");
    zh_json.push_back("--json");
    const auto ej = cli(en_json), zj = cli(zh_json);
    REQUIRE(ej.status == 0);
    REQUIRE(zj.status == 0);
    CHECK(without_timings(ej.out) == without_timings(zj.out));
    CHECK(ej.out.find("\"timing\": {") != std::string::npos);
    // The block's scaling as the text prints it is the plan's (the JSON's "scaling").
    const size_t s = ej.out.find("\"scaling\": \"");
    REQUIRE(s != std::string::npos);
    const std::string scaling = ej.out.substr(s + 12, ej.out.find('"', s + 12) - (s + 12));
    CHECK(el.front().size() > scaling.size());
    CHECK(el.front().substr(el.front().size() - scaling.size()) == scaling);
  }
  const auto zh = cli({"demo", "--preset", "gpt2", "--prompt", "8", "--tokens", "2", "--train-seq", "16", "--lang", "zh"});
  for (const char* s : {"模型第 0 层的训练步（fp32，1 × 16 个 token，LoRA 秩 8，作用于 q,v，AdamW，重计算 none）：前向、反向与更新共 ",
                        "\n  权重（该层）                            28,351,488     28,351,488\n",
                        "\n  为反向保存（前向结束时）                   787,712        787,712\n", "\n  损失 ", "（一步 AdamW 之后）\n"})
    CHECK_THAT(zh.out, Catch::Contains(s));
  const auto hybrid = cli({"demo", "--preset", "qwen3-next-80b-a3b", "--prompt", "8", "--tokens", "2", "--budget-mib", "64", "--lang", "zh"});
  for (const char* s : {"第 0、3 层（每种注意力各一层），MoE，d 2048->512，缩窄 4 倍（头 16->4，KV 头 2->1，",
                        "\n  循环状态                                   557,056        557,056\n",
                        "\n  线性注意力（模型第 0 层）\n    循环状态 ", "\n  全注意力（模型第 3 层）\n    KV 缓存 ",
                        "\n第 0 层的循环状态（Gated DeltaNet，序列 0）：8 个头各自的 ||S||", "\n  位置      9：平均 "})
    CHECK_THAT(hybrid.out, Catch::Contains(s));
  // The memory table's column heads end where its counts end (display columns: a CJK character is two).
  const auto hl = lines_of(hybrid.out);
  const auto head = std::find_if(hl.begin(), hl.end(), [](const std::string& l) { return l.rfind("  内存（", 0) == 0; });
  REQUIRE(head != hl.end());
  CHECK(llmsize::core::display_width(*head) == llmsize::core::display_width(*(head + 1)));

  // Errors: the flag's range and the usage hint in Chinese, exit status 2; English as before.
  auto bad = cli({"demo", "--preset", "gpt2", "--prompt", "0", "--lang", "zh"});
  CHECK(bad.status == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err == "llmsize: --prompt 必须是 [1, 8192] 内的整数，实际为 \"0\"（见 `llmsize --help`）\n");
  bad = cli({"demo", "--preset", "gpt2", "--train-seq", "4", "--train-recompute", "some", "--lang", "zh"});
  CHECK(bad.status == 2);
  CHECK(bad.err == "llmsize: --train-recompute 必须是 none, selective, full 之一，实际为 \"some\"（见 `llmsize --help`）\n");
  bad = cli({"demo", "--lang", "zh"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("demo 需要且只能给出 --preset NAME 或 --config PATH 之一（见 `llmsize --help`）"));
  bad = cli({"demo", "--preset", "gpt2", "--prompt", "1024", "--lang", "zh"});  // the core's issue, in the language
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("llmsize: --prompt: prompt + tokens 不得超过模型的上下文"));
  bad = cli({"demo", "--preset", "gpt2", "--prompt", "0"});
  CHECK(bad.err == "llmsize: --prompt must be an integer in [1, 8192], got \"0\" (see `llmsize --help`)\n");
}

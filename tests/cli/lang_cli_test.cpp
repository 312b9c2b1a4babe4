// Every command of the CLI in Simplified Chinese (--lang zh, or the locale's language): its text
// views and its errors, with the same numbers as in English; JSON and launch commands the same in
// both languages. The English text of each is pinned by the other CLI tests.
#include <catch2/catch.hpp>

#include <map>

#include "cli.hpp"
#include "core/format.hpp"
#include "test_util.hpp"

using llmsize::cli::Output;
using llmsize::cli::run;
using llmsize::core::Lang;
using llmsize::test::has_cjk;

namespace {

// As main.cpp runs it: the files' errors in the language of --lang, else the locale's.
Output cli(std::vector<std::string> args, Lang locale = Lang::En) {
  const Lang lang = llmsize::cli::lang_of_args(args).value_or(locale);
  return run(
      args,
      [lang](const std::string& path, std::string& err) -> std::optional<std::string> {
        return llmsize::cli::read_file_limited_in(llmsize::test::data_path(path), err, lang);
      },
      [lang](const std::string& path, std::int64_t max_bytes, std::int64_t& size, std::string& err) {
        return llmsize::cli::read_file_prefix_in(path, max_bytes, size, err, lang);
      },
      locale);
}

// Every number of a text ("1,234", "16.06") in order: what a translation must leave as it is.
std::vector<std::string> numbers(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if ((c >= '0' && c <= '9') || (!cur.empty() && (c == ',' || c == '.'))) cur += c;
    else if (!cur.empty()) out.push_back(cur), cur.clear();
  }
  if (!cur.empty()) out.push_back(cur);
  for (std::string& x : out)  // "512," ends a clause, not the number
    while (x.back() == ',' || x.back() == '.') x.pop_back();
  return out;
}

}  // namespace

TEST_CASE("every command prints Chinese with --lang zh, or under a Chinese locale", "[cli][lang]") {
  // --help: the usage, the demo's and the workload's flags (their help from the field tables).
  const auto help = cli({"--help", "--lang", "zh"});
  REQUIRE(help.status == 0);
  for (const char* s : {"用法：", "选项：", "`estimate` 的工作负载参数", "计数约定", "默认 bf16"}) CHECK_THAT(help.out, Catch::Contains(s));
  for (const char* s : {"Usage:", "Options:", "Workload flags", "Counting convention", ", default "}) CHECK_THAT(help.out, !Catch::Contains(s));
  CHECK(cli({"--help"}, Lang::Zh).out == help.out);  // the locale's language

  // limits: the same tables (keys, flags, bounds) with Chinese headings and field names.
  const auto en = cli({"limits"}), zh = cli({"limits", "--lang", "zh"});
  REQUIRE(zh.status == 0);
  CHECK_THAT(zh.out, Catch::Contains("# 输入的取值范围"));
  CHECK_THAT(zh.out, Catch::Contains("| `--seq` |"));
  auto table_rows = [](const std::string& s) {
    size_t n = 0;
    for (size_t at = 0; at < s.size(); at = s.find('\n', at) + 1) {
      n += s[at] == '|';
      if (s.find('\n', at) == std::string::npos) break;
    }
    return n;
  };
  CHECK(table_rows(zh.out) == table_rows(en.out));
  CHECK(std::count(zh.out.begin(), zh.out.end(), '|') == std::count(en.out.begin(), en.out.end(), '|'));
  CHECK(numbers(zh.out).size() >= numbers(en.out).size() - 40);  // words like "2 and 3" are Chinese now, the bounds stay

  // compare: the rows' labels and yes/no in Chinese, the same values and differences.
  const std::vector<std::string> cases{"compare", "--case", "#v=1&preset=llama-3-8b", "--case", "#v=1&preset=llama-3-8b&w=q4_k_m"};
  auto zh_args = cases;
  zh_args.insert(zh_args.end(), {"--lang", "zh"});
  const auto ce = cli(cases), cz = cli(zh_args);
  REQUIRE(cz.status == 0);
  for (const char* s : {"2 个配置的对比", "每个 token 的激活参数", "GPU 放得下", "是", "相对于配置 1", "权重"}) CHECK_THAT(cz.out, Catch::Contains(s));
  for (const char* s : {"Comparison of", "Active parameters", "fits on the GPU", "yes", "against case 1"}) CHECK_THAT(cz.out, !Catch::Contains(s));
  CHECK(numbers(cz.out) == numbers(ce.out));
  auto json = cases;
  json.push_back("--json");
  auto json_zh = zh_args;
  json_zh.push_back("--json");
  CHECK(cli(json).out == cli(json_zh).out);

  // export: the command is the engine's, the notes are Chinese.
  const auto xe = cli({"export", "--preset", "llama-3.1-8b", "--runtime", "vllm", "--batch", "8"});
  const auto xz = cli({"export", "--preset", "llama-3.1-8b", "--runtime", "vllm", "--batch", "8", "--lang", "zh"});
  REQUIRE(xz.status == 0);
  CHECK(xz.out.substr(0, xz.out.find('\n')) == xe.out.substr(0, xe.out.find('\n')));
  CHECK(has_cjk(xz.out.substr(xz.out.find('\n'))));
  CHECK(cli({"export", "--preset", "llama-3.1-8b", "--runtime", "vllm", "--json"}).out ==
        cli({"export", "--preset", "llama-3.1-8b", "--runtime", "vllm", "--json", "--lang", "zh"}).out);

  // presets: names and numbers only, the same in both.
  CHECK(cli({"presets", "--lang", "zh"}).out == cli({"presets"}).out);
}

TEST_CASE("the CLI's errors read in Chinese, each naming the same flag or field", "[cli][lang]") {
  auto zh_error = [](const Output& o, const char* says) {
    INFO(o.err);
    CHECK(o.status == 2);
    CHECK_THAT(o.err, Catch::StartsWith("llmsize: "));
    CHECK_THAT(o.err, Catch::Contains(says));
    CHECK(has_cjk(o.err));
  };
  zh_error(cli({"--lang", "zh"}), "没有给出命令");
  zh_error(cli({"frobnicate", "--lang", "zh"}), "未知命令 \"frobnicate\"");
  zh_error(cli({"estimate", "--preset", "gpt2", "--frob", "--lang", "zh"}), "未知选项 --frob");
  zh_error(cli({"estimate", "--preset", "gpt2", "--seq", "0", "--lang", "zh"}), "--seq：");  // the field's range in Chinese
  zh_error(cli({"estimate", "--preset", "gpt2", "--seq", "0"}, Lang::Zh), "--seq：");         // the locale's language
  zh_error(cli({"--lang", "zh", "estimate", "--preset", "no-such-model"}), "--preset：未知的预设");  // --lang before the command too
  zh_error(cli({"estimate", "--lang", "zh"}), "恰好一个");
  zh_error(cli({"estimate", "--config", "no/such/config.json", "--lang", "zh"}), "--config：无法打开");
  zh_error(cli({"gguf", "--lang", "zh"}), "gguf 需要文件的路径");
  zh_error(cli({"compare", "--case", "#v=1&preset=gpt2", "--lang", "zh"}), "compare 需要 2 到 4 个对比项");
  zh_error(cli({"presets", "--model-id", "x", "--lang", "zh"}), "--model-id 是 `llmsize export` 的选项");
  // The English of the same errors is unchanged.
  CHECK_THAT(cli({"gguf"}).err, Catch::Contains("gguf needs the file's path (llmsize gguf model.gguf)"));
  CHECK_THAT(cli({"estimate"}).err, Catch::Contains("(see `llmsize --help`)"));
  CHECK_THAT(cli({"frobnicate"}).err, Catch::Contains("unknown command \"frobnicate\""));
}

TEST_CASE("gguf and estimate --gguf in Chinese: the header, the file beside the estimate, a file refused", "[cli][lang][gguf]") {
  const llmsize::test::QwenGguf q;
  std::string head = q.head;
  auto reader = [&](const std::string& path, std::int64_t max_bytes, std::int64_t& size, std::string& error) -> std::optional<std::string> {
    if (path != "qwen.gguf") {
      error = "cannot open \"" + path + "\"";
      return std::nullopt;
    }
    size = q.file_bytes;
    return head.substr(0, static_cast<size_t>(std::min<std::int64_t>(max_bytes, static_cast<std::int64_t>(head.size()))));
  };
  const auto no_files = [](const std::string&, std::string& e) -> std::optional<std::string> { e = "no"; return std::nullopt; };
  const auto ge = run({"gguf", "qwen.gguf"}, no_files, reader), gz = run({"gguf", "qwen.gguf", "--lang", "zh"}, no_files, reader);
  REQUIRE(gz.status == 0);
  for (const char* s : {"架构 qwen2", "个元数据键", "每个参数", "类型", "张量数"}) CHECK_THAT(gz.out, Catch::Contains(s));
  CHECK(numbers(gz.out) == numbers(ge.out));
  const auto ee = run({"estimate", "--gguf", "qwen.gguf"}, no_files, reader);
  const auto ez = run({"estimate", "--gguf", "qwen.gguf", "--lang", "zh"}, no_files, reader);
  REQUIRE(ez.status == 0);
  for (const char* s : {"来自文件（Q4_K - Medium）", "文件中的张量字节数", "按 q4_k_m 估算", "参数（文件）", "输出头"}) CHECK_THAT(ez.out, Catch::Contains(s));
  for (const char* s : {"From the file", "estimated for", "params (file)", "lm_head  "}) CHECK_THAT(ez.out, !Catch::Contains(s));
  CHECK(numbers(ez.out) == numbers(ee.out));
  CHECK(run({"estimate", "--gguf", "qwen.gguf", "--json", "--lang", "zh"}, no_files, reader).out ==
        run({"estimate", "--gguf", "qwen.gguf", "--json"}, no_files, reader).out);
  // A header the reader refuses, in Chinese, naming the format.
  head = "GGUF";
  head += std::string("\x01\0\0\0", 4);
  const auto bad = run({"gguf", "qwen.gguf", "--lang", "zh"}, no_files, reader);
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("llmsize: gguf：不读取 GGUF 第 1 版"));
}

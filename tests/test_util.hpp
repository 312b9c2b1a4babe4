// Helpers shared by the test suites: test data files (read natively and under node's
// NODERAWFS alike) and preset lookup that fails the test loudly.
#pragma once
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine_log.hpp"
#include "core/estimate.hpp"
#include "core/hf_config.hpp"
#include "core/presets.hpp"
#include "gguf_writer.hpp"

namespace llmsize::test {

// Each setting read from an engine log once, with this value.
inline void check_settings(const core::EngineLog& log, const std::vector<std::pair<std::string, std::string>>& expected) {
  for (const auto& kv : expected) {
    INFO(kv.first << " " << kv.second);
    CHECK(std::count(log.settings.begin(), log.settings.end(), kv) == 1);
  }
}

inline std::string data_path(const std::string& rel) { return std::string(LLMSIZE_TEST_DATA_DIR) + "/" + rel; }

inline std::string read_text(const std::string& rel) {
  std::ifstream f(data_path(rel), std::ios::binary);
  REQUIRE(f.good());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A Qwen2.5-7B GGUF header as convert_hf_to_gguf.py writes it: its metadata, general.file_type 15
// (Q4_K_M) and its output.weight in q6_K (llama.cpp's Q4_K_M keeps the head in Q6_K); `file_bytes`
// is the whole file's size (the header, alignment and that one tensor's data).
struct QwenGguf {
  std::string head;
  std::int64_t file_bytes = 0;
  QwenGguf() {
    GgufWriter g;
    const std::pair<const char*, std::uint32_t> keys[] = {
        {"qwen2.block_count", 28},           {"qwen2.context_length", 32768}, {"qwen2.embedding_length", 3584},
        {"qwen2.feed_forward_length", 18944}, {"qwen2.attention.head_count", 28}, {"qwen2.attention.head_count_kv", 4},
        {"general.file_type", 15}};
    g.header(3, 1, std::size(keys) + 2);
    g.key_str("general.architecture", "qwen2");
    for (const auto& [k, v] : keys) g.key_u32(k, v);
    g.str("tokenizer.ggml.tokens"), g.u32(9), g.u32(8), g.u64(152064);
    for (int t = 0; t < 152064; ++t) g.str("t");
    g.tensor("output.weight", {3584, 152064}, 14, 0);
    head = g.b;
    file_bytes = static_cast<std::int64_t>(head.size()) + 64 + std::int64_t{3584} * 152064 / 256 * 210;
  }
};

// Whether a text has a CJK ideograph or full-width punctuation: U+3000…U+9FFF (UTF-8 lead bytes
// E3…E9) or U+FF00…U+FFEF (EF BC…EF BF).
inline bool has_cjk(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE3 && c <= 0xE9) return true;
    if (c == 0xEF && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0xBC) return true;
  }
  return false;
}

// The texts of a collection, one per line: what a test shows (INFO) beside a check that it is empty.
template <class Texts>
std::string lines_of(const Texts& texts) {
  std::string out;
  for (const auto& t : texts) out += std::string(t) + "\n";
  return out;
}

// The runs of digits of a text, sorted: the numbers a translation keeps (its word order may move them).
inline std::vector<std::string> digit_runs(const std::string& s) {
  std::vector<std::string> out;
  std::string run;
  for (char c : s + " ") {
    if (c >= '0' && c <= '9') run += c;
    else if (!run.empty()) out.push_back(run), run.clear();
  }
  std::sort(out.begin(), out.end());
  return out;
}

// An issue read in both languages: its English text is its message; its Chinese is another text,
// with CJK characters in it.
inline void check_in_both(const core::Issue& is) {
  INFO(is.field << ": " << is.message);
  REQUIRE(static_cast<bool>(is.text));
  CHECK(core::message_in(is, core::Lang::En) == is.message);
  const std::string zh = core::message_in(is, core::Lang::Zh);
  INFO(zh);
  CHECK(zh != is.message);
  CHECK(has_cjk(zh));
}

inline core::Preset preset(const std::string& id) {
  auto p = core::find_preset(id);
  INFO(id << ": " << (p ? "" : core::join(p.issues())));
  REQUIRE(p.ok());
  return p.value();
}

// The parameter report of `c`, failing the test loudly.
inline core::ParamReport param_report(const core::ModelConfig& c) {
  auto r = core::count_params(c);
  INFO(core::join(r.issues()));
  REQUIRE(r.ok());
  return r.value();
}

// The core's per-layer plan of `c`, failing the test loudly.
inline core::LayerPlan plan_of(const core::ModelConfig& c, core::KvDtype t = core::KvDtype::BF16, core::i64 tp = 1) {
  auto p = core::layer_plan(c, t, tp);
  INFO(c.name << ": " << (p ? "" : core::join(p.issues())));
  REQUIRE(p.ok());
  return p.value();
}

inline core::ModelConfig import_file(const std::string& rel, bool generic = false) {
  core::ImportOptions opt;
  opt.generic_fallback = generic;
  auto r = core::import_hf_config(read_text(rel), opt);
  INFO(rel << ": " << (r ? "" : core::join(r.issues())));
  REQUIRE(r.ok());
  return r->config;
}

// estimate() that fails the test (with the issues) instead of returning an error.
inline core::Estimate run(const core::ModelConfig& c, const core::Workload& w) {
  auto e = core::estimate(c, w);
  INFO(core::join(e.issues()));
  REQUIRE(e.ok());
  return std::move(e).value();
}

// A workload from share-link keys and values, e.g. with({{"seq", "8192"}, {"w", "q4_k_m"}}).
inline core::Workload with(std::initializer_list<std::pair<const char*, const char*>> kv) {
  core::Workload w;
  for (auto [k, v] : kv) {
    const core::WorkloadField* f = core::find_field(k);
    INFO(k);
    REQUIRE(f != nullptr);
    auto issue = f->set(w, v);
    INFO(k << "=" << v << ": " << (issue ? issue->message : ""));
    REQUIRE_FALSE(issue);
  }
  return w;
}


}  // namespace llmsize::test

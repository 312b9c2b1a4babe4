// The importers' errors in each language (src/core/lang/en_import.inc, zh_import.inc): configs and
// GGUF metadata that a config.json's reading (hf_config.cpp, hf_families.cpp) or a GGUF file's
// (gguf_config.cpp) refuses. Each message is a row of the string tables: its English is the
// Issue's message, word for word as before, and its Chinese is Chinese.
#include <string>
#include <utility>
#include <vector>

#include "core/gguf.hpp"
#include "core/issue.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {

bool has_cjk(const std::string& s) {  // a UTF-8 lead byte of U+4000 and above (CJK, full-width forms)
  for (unsigned char c : s)
    if (c >= 0xE4) return true;
  return false;
}

// The issue of `field` among `issues`, failing the test when there is none.
Issue issue_at(const std::vector<Issue>& issues, const std::string& field) {
  INFO("looking for " << field << " in: " << join(issues));
  for (const Issue& i : issues)
    if (i.field == field) return i;
  FAIL("no issue for " << field);
  return {};
}

// The issue's message is `english`, from a row that has Chinese too; returns the Chinese.
std::string check_both(const Issue& is, const std::string& english) {
  const std::string zh = message_in(is, Lang::Zh);
  INFO(is.field << ": " << is.message << " / " << zh);
  CHECK(static_cast<bool>(is.text));
  CHECK(is.message == english);
  CHECK(message_in(is, Lang::En) == is.message);
  CHECK(zh != is.message);
  CHECK(has_cjk(zh));
  return zh;
}

std::vector<Issue> hf_issues(const std::string& text, bool generic = false) {
  ImportOptions opt;
  opt.generic_fallback = generic;
  auto r = import_hf_config(text, opt);
  REQUIRE_FALSE(r.ok());
  return r.issues();
}

// A small config of `model_type` plus `extra` keys (each starting with a comma).
std::string small_config(const std::string& model_type, const std::string& extra) {
  return R"({"model_type":")" + model_type +
         R"(","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,)"
         R"("vocab_size":100)" + extra + "}";
}

// GGUF metadata: general.architecture (unless empty), <arch>.<key> u32 values and u32 arrays, string
// keys by their full names, the tokenizer's token list (unless 0 tokens) and output.weight.
struct Meta {
  std::string arch;
  std::vector<std::pair<std::string, std::uint32_t>> ints;
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> arrays = {};
  std::vector<std::pair<std::string, std::string>> strings = {};
  std::uint64_t tokens = 4;
};
std::vector<Issue> gguf_issues(const Meta& m) {
  llmsize::test::GgufWriter g;
  g.header(3, 1, (m.arch.empty() ? 0 : 1) + m.ints.size() + m.arrays.size() + m.strings.size() + (m.tokens ? 1 : 0));
  if (!m.arch.empty()) g.key_str("general.architecture", m.arch);
  for (const auto& [k, v] : m.ints) g.key_u32(m.arch + "." + k, v);
  for (const auto& [k, v] : m.arrays) {  // GGUF_TYPE_ARRAY of GGUF_TYPE_UINT32
    g.str(m.arch + "." + k), g.u32(9), g.u32(4), g.u64(v.size());
    for (std::uint32_t x : v) g.u32(x);
  }
  for (const auto& [k, v] : m.strings) g.key_str(k, v);
  if (m.tokens) {
    g.str("tokenizer.ggml.tokens"), g.u32(9), g.u32(8), g.u64(m.tokens);
    for (std::uint64_t t = 0; t < m.tokens; ++t) g.str("t");
  }
  g.tensor("output.weight", {256, 1}, 0, 0);
  auto h = read_gguf_header(g.b, 0);
  INFO(join(h.issues()));
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE_FALSE(c.ok());
  return c.issues();
}

}  // namespace

TEST_CASE("import (config.json): refused configs are named in English and Chinese", "[core][import][lang]") {
  check_both(issue_at(hf_issues("[1, 2]"), "config.json"), "must be a JSON object, got an array");
  check_both(issue_at(hf_issues(R"({"model_type": 3})"), "model_type"), "must be a string, got an integer");
  CHECK_THAT(check_both(issue_at(hf_issues(R"({"model_type": "llava", "text_config": 5})"), "text_config"),
                        "must be an object, got an integer"),
             Catch::Contains("整数"));  // the type's row in Chinese
  check_both(issue_at(hf_issues(R"({"model_type": "llava"})"), "text_config"),
             "is required for model_type \"llava\" (the language model's config)");
  const std::string wrappers = "is not counted yet (only the vision towers of the llava, gemma3, gemma4, llama4, mistral3, qwen2_5_vl, qwen3_5, qwen3_5_moe, kimi_vl and kimi_k25 wrappers); "
                               "import its text model's config (text_config) on its own";
  CHECK_THAT(check_both(issue_at(hf_issues(R"({"model_type": "foo", "audio_config": {}})"), "audio_config"),
                        "the audio encoder of model_type \"foo\" " + wrappers),
             Catch::Contains("音频"));
  CHECK_THAT(check_both(issue_at(hf_issues(R"({"model_type": "foo", "vision_config": {}})"), "vision_config"),
                        "the vision encoder of model_type \"foo\" " + wrappers),
             Catch::Contains("视觉"));
  // A wrapper whose vision tower is counted, with an audio tower (Gemma 4 E2B and E4B): the audio is refused.
  CHECK_THAT(check_both(issue_at(hf_issues(R"({"model_type": "gemma4", "text_config": {}, "audio_config": {}})"), "audio_config"),
                        "the audio encoder of model_type \"gemma4\" " + wrappers),
             Catch::Contains("音频"));

  std::string list;
  for (auto t : supported_model_types()) list += (list.empty() ? "" : ", ") + std::string(t);
  check_both(issue_at(hf_issues(small_config("foo", "")), "model_type"),
             "\"foo\" is not supported; supported: " + list + " (or choose the generic LLaMA-like reading)");
  check_both(issue_at(hf_issues(R"({"hidden_size": 64})"), "model_type"),
             "is missing; supported: " + list + " (or choose the generic LLaMA-like reading)");

  check_both(issue_at(hf_issues(R"({"model_type":"llama","hidden_size":100,"num_hidden_layers":2,"num_attention_heads":3,)"
                                R"("intermediate_size":128,"vocab_size":100})"),
                      "num_attention_heads"),
             "must divide hidden_size (100) when head_dim is not given, got 3");
  check_both(issue_at(hf_issues(small_config("mixtral", R"(,"num_local_experts":0)")), "num_local_experts"),
             "must be at least 1 for model_type \"mixtral\" (a mixture of experts), got 0");
  check_both(issue_at(hf_issues(small_config("foo", R"(,"mamba_d_state":16)"), /*generic=*/true), "mamba_d_state"),
             "is not read by the generic LLaMA-like reading and may change the layers, their caches or the experts; "
             "this model_type is not supported");
  CHECK_THAT(check_both(issue_at(hf_issues(small_config("gemma3_text", R"(,"layer_types":["full_attention","sliding_attention"])")),
                                 "layer_types"),
                        "this mix of sliding_attention and full layers is not supported: only every layer sliding_attention, "
                        "or every n-th layer full (layer i full iff (i + 1) % n == 0)"),
             Catch::Contains("(i + 1) % n == 0"));  // "%%" in the row, one "%" in the text

  // Multimodal wrappers: the vision tower and the wrapper's own keys.
  const std::string llava = R"({"model_type":"llava","text_config":)" + small_config("llama", "");
  check_both(issue_at(hf_issues(llava + R"(,"vision_config":{"model_type":"siglip_vision_model"}})"), "vision_config.model_type"),
             "\"siglip_vision_model\" is not supported for model_type \"llava\" (only \"clip_vision_model\")");
  check_both(issue_at(hf_issues(llava + R"(,"vision_config":[]})"), "vision_config"), "must be an object, got an array");
  check_both(issue_at(hf_issues(llava + R"(,"multimodal_projector_bias":"yes"})"), "multimodal_projector_bias"),
             "must be true or false, got a string");
  check_both(issue_at(hf_issues(R"({"model_type":"llava","tie_word_embeddings":true,"text_config":)" +
                                small_config("llama", R"(,"tie_word_embeddings":false)") + "}"),
                      "tie_word_embeddings"),
             "differs from text_config.tie_word_embeddings: which head the model has is unclear");
  check_both(issue_at(hf_issues(R"({"model_type":"gemma3","text_config":)" + small_config("gemma3_text", "") +
                                R"(,"vision_config":{}})"),
                      "vision_config.vision_use_head"),
             "true is not supported (only false: no pooling head)");
}

TEST_CASE("import (family table): refused family keys are named in English and Chinese", "[core][import][lang]") {
  check_both(issue_at(hf_issues(small_config("openai-gpt", R"(,"afn":"foo")")), "afn"),
             "\"foo\" is not one of gelu, relu, silu, swish");
  check_both(issue_at(hf_issues(small_config("opt", R"(,"layer_norm_elementwise_affine":false)")), "layer_norm_elementwise_affine"),
             "false is not supported (only true)");
  check_both(issue_at(hf_issues(small_config("lfm2", "")), "layer_types"),
             "is required (or full_attn_idxs): which layers are attention");
  check_both(issue_at(hf_issues(small_config("jamba", R"(,"attn_layer_period":8,"attn_layer_offset":9)")), "attn_layer_offset"),
             "must be in [0, attn_layer_period − 1] with attn_layer_period >= 1, got 9 and 8");
  check_both(issue_at(hf_issues(small_config("gemma4_text", R"(,"enable_moe_block":true,"num_experts":8,"moe_intermediate_size":16)")),
                      "top_k_experts"),
             "is required when enable_moe_block is true (Gemma4TextConfig leaves it None): a positive integer");
  check_both(issue_at(hf_issues(small_config("nemotron-nas", "")), "block_configs"), "must list one block per layer (2)");
  check_both(issue_at(hf_issues(small_config("falcon_h1", R"(,"attn_layer_indices":[0])")), "attn_layer_indices"),
             "only null is supported (attention in every layer)");
}

TEST_CASE("import (GGUF): refused metadata is named in English and Chinese", "[core][gguf][lang]") {
  const std::string arch = "general.architecture";
  check_both(issue_at(gguf_issues(Meta{"", {}}), arch), "the GGUF file names no architecture (a string key)");
  check_both(issue_at(gguf_issues(Meta{"clip", {}}), arch),
             "\"clip\" is a multimodal projector (an mmproj file), not a language model: give it beside the model "
             "(--mmproj FILE, or open both files together)");
  check_both(issue_at(gguf_issues(Meta{"gptj", {}}), arch),
             "\"gptj\" files are neither written nor loaded by llama.cpp, so their keys are not defined: give the "
             "checkpoint's config.json instead");
  {
    const Issue is = issue_at(gguf_issues(Meta{"mamba", {{"block_count", 2}}}), arch);
    CHECK_THAT(is.message, Catch::StartsWith("\"mamba\" is not read from GGUF metadata yet; read are llama, qwen2, "));
    CHECK_THAT(check_both(is, is.message), Catch::Contains("llama, qwen2, "));  // the list as it is
  }
  check_both(issue_at(gguf_issues(Meta{"llama", {{"block_count", 2}}, {{"attention.head_count_kv", {4, 8}}}}),
                      "llama.attention.head_count_kv"),
             "per-layer values that differ are not read from GGUF yet");
  check_both(issue_at(gguf_issues(Meta{"llama", {}, {}, {{"llama.block_count", "two"}}}), "llama.block_count"),
             "must be an integer, got a string");
  check_both(issue_at(gguf_issues(Meta{"qwen3", {}}), "qwen3.block_count"), "is required (an integer)");
  const std::vector<std::pair<std::string, std::uint32_t>> shape = {
      {"block_count", 2}, {"embedding_length", 64}, {"attention.head_count", 8}, {"feed_forward_length", 256}};
  check_both(issue_at(gguf_issues(Meta{"qwen3", shape, {}, {}, 0}), "qwen3.vocab_size"),
             "is required, or the tokenizer's tokenizer.ggml.tokens");
  {
    Meta m{"starcoder", shape};
    m.ints.emplace_back("attention.head_count_kv", 2);
    check_both(issue_at(gguf_issues(m), "starcoder.attention.head_count_kv"),
               "must be 1 (multi-query) or attention.head_count (GPTBigCode has no grouped K/V), got 2");
  }
  check_both(issue_at(gguf_issues(Meta{"bloom", {{"block_count", 2}, {"embedding_length", 64}, {"feed_forward_length", 200},
                                                 {"attention.head_count", 8}}}),
                      "bloom.feed_forward_length"),
             "must be 4 × embedding_length (BLOOM's MLP), got 200");
  check_both(issue_at(gguf_issues(Meta{"minimax-m2", {{"block_count", 2}, {"embedding_length", 64}, {"feed_forward_length", 128},
                                                      {"attention.head_count", 8}, {"expert_count", 4},
                                                      {"expert_feed_forward_length", 96}}}),
                      "minimax-m2.expert_feed_forward_length"),
             "must equal feed_forward_length (MiniMax-M2's experts are intermediate_size wide)");
  check_both(issue_at(gguf_issues(Meta{"ernie4_5-moe", {{"block_count", 2}, {"embedding_length", 64}, {"attention.head_count", 8}}}),
                      "ernie4_5-moe.expert_count"),
             "is required (an integer above 0): ERNIE 4.5 MoE's experts");
  check_both(issue_at(gguf_issues(Meta{"deepseek2", shape}), "deepseek2.attention.key_length_mla"),
             "MLA needs the key and value head widths (key_length[_mla] > rope.dimension_count, value_length[_mla])");
  {
    Meta m{"llama4", shape};
    m.ints.emplace_back("attention.sliding_window", 0);
    check_both(issue_at(gguf_issues(m), "llama4.attention.sliding_window"),
               "0 (no chunked attention: MobileLLM) is not read from GGUF yet");
  }
  check_both(issue_at(gguf_issues(Meta{"granitehybrid", shape}), "granitehybrid.expert_count"),
             "a Granite hybrid without experts is not read from GGUF yet");
  {
    Meta m{"lfm2", shape};
    m.ints.emplace_back("expert_count", 4);
    check_both(issue_at(gguf_issues(m), "lfm2.expert_count"), "LFM2's experts (lfm2moe) are not read from GGUF yet");
    // Its per-layer head_count_kv is missing too: what a 0 means is a row of its own.
    CHECK_THAT(check_both(issue_at(gguf_issues(m), "lfm2.attention.head_count_kv"),
                          "must list a value for each of the block_count layers (0 for a convolution)"),
               Catch::Contains("卷积层为 0"));
  }
  CHECK_THAT(check_both(issue_at(gguf_issues(Meta{"nemotron_h", shape}), "nemotron_h.attention.head_count_kv"),
                        "must list a value for each of the block_count layers (0 where the layer has none)"),
             Catch::Contains("该层没有时为 0"));
  {
    const auto issues = gguf_issues(Meta{"gemma4", shape});
    check_both(issue_at(issues, "gemma4.attention.key_length_swa"), "is required (the sliding layers' head width)");
    check_both(issue_at(issues, "gemma4.attention.sliding_window_pattern"),
               "must list a value for each of the block_count layers (0 for a full-attention layer)");
  }
  check_both(issue_at(gguf_issues(Meta{"jamba", {{"block_count", 4}, {"embedding_length", 64}, {"attention.head_count", 8}},
                                       {{"attention.head_count_kv", {0, 4, 4, 0}}}}),
                      "jamba.attention.head_count_kv"),
             "the attention layers must be every n-th from the first (attn_layer_period, attn_layer_offset); other "
             "patterns are not read");
  // Llama-Nemotron NAS: the layer a message names is a row with its number ("layer 1" / "第 1 层").
  const std::vector<std::pair<std::string, std::uint32_t>> deci = {{"block_count", 2}, {"embedding_length", 64}};
  CHECK_THAT(check_both(issue_at(gguf_issues(Meta{"deci", deci,
                                                  {{"attention.head_count", {8, 8}},
                                                   {"attention.head_count_kv", {2, 0}},
                                                   {"feed_forward_length", {256, 256}}}}),
                                 "deci.attention.head_count_kv"),
                        "layer 1: attention replaced by a linear layer (replace_with_linear) is not read yet"),
             Catch::StartsWith("第 1 层："));
  check_both(issue_at(gguf_issues(Meta{"deci", deci,
                                       {{"attention.head_count", {8, 6}},
                                        {"attention.head_count_kv", {2, 2}},
                                        {"feed_forward_length", {256, 256}}}}),
                      "deci.attention.head_count"),
             "layer 1: 6 query heads for 2 KV heads; attention layers must share one query head count that their KV heads divide");
  check_both(issue_at(gguf_issues(Meta{"deci", deci,
                                       {{"attention.head_count", {8, 8}},
                                        {"attention.head_count_kv", {2, 2}},
                                        {"feed_forward_length", {100, 256}}}}),
                      "deci.feed_forward_length"),
             "layer 0: must be 0 or a multiple of 256 (DeciLM's widths), got 100");
}

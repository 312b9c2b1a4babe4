// config.json import: every supported model_type from a real config, key aliases,
// class defaults, nested text_config, and the generic fallback.
#include <map>

#include "core/params.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::import_file;
using llmsize::test::preset;

TEST_CASE("every supported model_type is read from a real config", "[core][import]") {
  // model_type -> a preset or test config of that family (real config.json contents).
  const std::map<std::string, std::string> real = {
      {"gpt2", "gpt2"}, {"gptj", "gpt-j-6b"}, {"gpt_neox", "gpt-neox-20b"}, {"opt", "opt-125m"},
      {"bloom", "bloom-560m"}, {"falcon", "falcon-40b"}, {"llama", "llama-3-8b"}, {"mistral", "mistral-7b"},
      {"mixtral", "mixtral-8x7b"}, {"qwen2", "qwen2.5-7b"}, {"qwen2_moe", "qwen1.5-moe-a2.7b"},
      {"qwen3", "qwen3-8b"}, {"qwen3_moe", "qwen3-30b-a3b"}, {"gemma", "gemma-7b"}, {"gemma2", "gemma-2-9b"},
      {"phi", "phi-2"}, {"phi3", "phi-3-mini"}, {"deepseek_v2", "deepseek-v2-lite"},
      {"deepseek_v3", "deepseek-v3"}, {"openai-gpt", "gpt-1"}, {"gemma3_text", "gemma-3-1b"},
      {"gpt_oss", "gpt-oss-20b"}, {"qwen3_next", "qwen3-next-80b-a3b"},
      {"smollm3", "smollm3-3b"}, {"olmo2", "olmo-2-7b"},
      {"deepseek_v32", "deepseek-v3.2"}, {"kimi_k2", "kimi-k2"}, {"glm4_moe", "glm-4.5-air"},
      {"llama4_text", "llama-4-scout"}, {"nemotron_h", "nemotron-nano-9b-v2"},
      {"granite", "granite-3.3-8b"}, {"granitemoehybrid", "granite-4.0-h-small"}, {"gpt_bigcode", "starcoder-15b"},
      {"lfm2", "lfm2-1.2b"}, {"starcoder2", "starcoder2-15b"},
      {"ernie4_5_moe", "ernie-4.5-21b-a3b"}, {"minimax_m2", "minimax-m2"},
      {"qwen3_5_moe_text", "qwen3.5-397b-a17b"}, {"qwen3_5_text", "qwen3.5-0.8b"},
      {"jamba", "jamba-1.5-mini"}, {"falcon_h1", "falcon-h1-0.5b"},
      {"nemotron-nas", "llama-3.3-nemotron-super-49b"}, {"gemma4_text", "gemma-4-e4b"}, {"glm_moe_dsa", "glm-5.1"}};
  for (auto type : supported_model_types()) {
    if (type == "RefinedWeb" || type == "RefinedWebModel") continue;  // Falcon aliases, tested below
    INFO(type);
    auto it = real.find(std::string(type));
    REQUIRE(it != real.end());
    const auto p = preset(it->second);
    CHECK(family_id(p.config.family) == type);
    CHECK(count_params(p.config).ok());
  }
}

TEST_CASE("family specifics are read from the config", "[core][import]") {
  SECTION("Qwen2 has biases on q, k, v only") {
    const auto c = preset("qwen2.5-7b").config;
    CHECK(c.bias_qkv);
    CHECK_FALSE(c.bias_o);
    CHECK_FALSE(c.tie_embeddings);
    CHECK(preset("qwen2.5-0.5b").config.tie_embeddings);
  }
  SECTION("Gemma gives head_dim explicitly and ties the head by class default") {
    const auto c = preset("gemma-7b").config;
    CHECK(c.head_dim == 256);
    CHECK(c.n_heads * c.head_dim != c.d_model);
    CHECK(c.tie_embeddings);  // key absent in the config: GemmaConfig defaults to tied
    CHECK(c.ffn_kind == FfnKind::Gated);
    CHECK(c.act == Activation::Gelu);
  }
  SECTION("Gemma-2 alternates sliding and global layers and has sandwich norms") {
    const auto c = preset("gemma-2-9b").config;
    CHECK(c.sliding_window == 4096);
    CHECK(c.layer_slides(0));
    CHECK_FALSE(c.layer_slides(1));
    CHECK(c.norm_sandwich);
  }
  SECTION("Mistral slides on every layer; Mixtral has no window") {
    CHECK(preset("mistral-7b").config.sliding_window == 4096);
    CHECK(preset("mistral-7b").config.layer_slides(31));
    CHECK(preset("mixtral-8x7b").config.sliding_window == 0);
  }
  SECTION("Qwen2 keeps use_sliding_window false") { CHECK(preset("qwen2.5-7b").config.sliding_window == 0); }
  SECTION("GPT-J reads rotary_dim as a partial rotary fraction") {
    CHECK(preset("gpt-j-6b").config.rotary_fraction == Approx(0.25));
  }
  SECTION("GPT-NeoX reads rotary_pct") { CHECK(preset("gpt-neox-20b").config.rotary_fraction == Approx(0.25)); }
  SECTION("BLOOM uses ALiBi and an embedding LayerNorm") {
    const auto c = preset("bloom-560m").config;
    CHECK(c.pos == PosKind::Alibi);
    CHECK(c.norm_embed);
  }
  SECTION("Falcon 7B is multi-query") { CHECK(preset("falcon-7b").config.n_kv_heads == 1); }
  SECTION("DeepSeek-V2-Lite has no q LoRA; V3 has one and an MTP layer") {
    CHECK(preset("deepseek-v2-lite").config.mla.q_lora_rank == 0);
    CHECK_FALSE(preset("deepseek-v2-lite").config.moe.router_correction_bias);
    CHECK(preset("deepseek-v3").config.mla.q_lora_rank == 1536);
    CHECK(preset("deepseek-v3").config.mtp_layers == 1);
    CHECK(preset("deepseek-v3").config.moe.shared_ffn == 2048);
  }
  SECTION("Qwen1.5-MoE has a gated shared expert") {
    const auto c = preset("qwen1.5-moe-a2.7b").config;
    CHECK(c.moe.shared_ffn == 5632);
    CHECK(c.moe.shared_gate);
  }
  SECTION("Qwen3 has per-head q/k norms") { CHECK(preset("qwen3-8b").config.norm_qk); }
}

TEST_CASE("aliases of the same field are all read", "[core][import]") {
  const char* variants[] = {
      R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100})",
      R"({"model_type":"llama","n_embd":64,"n_layer":2,"n_head":4,"intermediate_size":128,"vocab_size":100})",
      R"({"model_type":"llama","d_model":64,"n_layers":2,"num_heads":4,"intermediate_size":128,"vocab_size":100})",
      R"({"model_type":"llama","hidden_size":64.0,"num_layers":2,"n_heads":4,"intermediate_size":128,"vocab_size":100})",
  };
  for (const char* v : variants) {
    INFO(v);
    auto r = import_hf_config(v);
    REQUIRE(r.ok());
    CHECK(r->config.d_model == 64);
    CHECK(r->config.n_layers == 2);
    CHECK(r->config.n_heads == 4);
    CHECK(r->config.head_dim == 16);
  }
}

TEST_CASE("an unsupported model_type is an error listing what is supported, unless generic", "[core][import]") {
  const std::string text = llmsize::test::read_text("core/configs/olmo-1b.json");
  auto r = import_hf_config(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.issues()[0].field == "model_type");
  CHECK_THAT(r.issues()[0].message, Catch::Contains("\"olmo\" is not supported"));
  CHECK_THAT(r.issues()[0].message, Catch::Contains("deepseek_v3"));

  const auto c = import_file("core/configs/olmo-1b.json", /*generic=*/true);
  CHECK(c.family == Family::Custom);
  CHECK(c.tie_embeddings);
  const i64 d = 2048, L = 16, v = 50304, f = 8192;
  CHECK(count_params(c)->total == v * d + d + L * (4 * d * d + 3 * d * f + 2 * d));
}

TEST_CASE("absent keys become notes, not silent guesses", "[core][import]") {
  auto r = import_hf_config(
      R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100})");
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->notes.empty());
  CHECK(r->notes[0].field == "max_position_embeddings");
  CHECK_THAT(r->notes[0].message, Catch::Contains("max_position_embeddings absent: assumed"));
  CHECK_THAT(message_in(r->notes[0], Lang::Zh), Catch::Contains("缺少 max_position_embeddings：假定为"));
}

namespace {
// A small config of `model_type` plus `extra` keys (each starting with a comma).
std::string small_config(const std::string& model_type, const std::string& extra) {
  return R"({"model_type":")" + model_type +
         R"(","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,)"
         R"("vocab_size":100)" + extra + "}";
}
// DeepSeek also needs its latent-attention sizes.
const std::string kMla = R"(,"kv_lora_rank":16,"qk_nope_head_dim":8,"qk_rope_head_dim":8,"v_head_dim":16)";
}  // namespace

TEST_CASE("a mixture-of-experts model_type with no experts is refused, naming the key", "[core][import][moe]") {
  struct Case {
    const char* model_type;
    const char* key;
    std::string extra;
  };
  const auto c = GENERATE(values<Case>({
      {"mixtral", "num_local_experts", R"(,"num_local_experts":0)"},
      {"qwen2_moe", "num_experts", R"(,"num_experts":0)"},
      {"qwen3_moe", "num_experts", R"(,"num_experts":0)"},
      {"qwen3_moe", "num_experts", R"(,"num_experts":-4)"},
      {"deepseek_v2", "n_routed_experts", R"(,"n_routed_experts":0)" + kMla},
      {"deepseek_v3", "n_routed_experts", R"(,"n_routed_experts":0,"num_experts_per_tok":8)" + kMla},
  }));
  INFO(c.model_type << c.extra);
  auto r = import_hf_config(small_config(c.model_type, c.extra));
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.issues().size() == 1);
  CHECK(r.issues()[0].field == c.key);
  CHECK_THAT(r.issues()[0].message,
             Catch::StartsWith("must be at least 1 for model_type \"" + std::string(c.model_type) + "\""));
}

TEST_CASE("a refused expert count inside text_config is named with its path", "[core][import][moe]") {
  auto r = import_hf_config(R"({"model_type":"llava","text_config":)" +
                            small_config("mixtral", R"(,"num_local_experts":0)") + "}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.issues()[0].field == "text_config.num_local_experts");
}

TEST_CASE("absent expert counts keep their class defaults", "[core][import][moe]") {
  SECTION("Mixtral's class has 8 experts, 2 per token") {
    auto r = import_hf_config(small_config("mixtral", ""));
    REQUIRE(r.ok());
    CHECK(r->config.moe.num_experts == 8);
    CHECK(r->config.moe.top_k == 2);
    CHECK(r->config.moe.expert_ffn == 128);  // Mixtral experts are as wide as intermediate_size
  }
  SECTION("a DeepSeek config without routed experts (absent or null) is dense") {
    for (const char* extra : {"", R"(,"n_routed_experts":null)"}) {
      INFO(extra);
      auto r = import_hf_config(small_config("deepseek_v2", extra + kMla));
      REQUIRE(r.ok());
      CHECK_FALSE(r->config.is_moe());
    }
  }
  SECTION("the generic reading takes 0 experts as a dense model") {
    ImportOptions opt;
    opt.generic_fallback = true;
    auto r = import_hf_config(small_config("olmo", R"(,"num_experts":0)"), opt);
    REQUIRE(r.ok());
    CHECK_FALSE(r->config.is_moe());
  }
}

TEST_CASE("Falcon's layout follows new_decoder_architecture and the RefinedWeb spelling", "[core][import]") {
  const std::string k8 = R"(,"num_kv_heads":2)";
  auto old_layout = import_hf_config(small_config("falcon", ""));
  REQUIRE(old_layout.ok());
  CHECK(old_layout->config.n_kv_heads == 1);  // multi_query by class default
  CHECK_FALSE(old_layout->config.norm_ffn_input);
  auto refined_web = import_hf_config(small_config("RefinedWeb", k8));
  REQUIRE(refined_web.ok());
  CHECK(refined_web->config.n_kv_heads == 2);
  CHECK(refined_web->config.parallel_block);
  CHECK(refined_web->config.norm_ffn_input);  // ln_attn and ln_mlp
}

TEST_CASE("an absurd hidden size is named by validation, not overflowed into the FFN width's default", "[core][import]") {
  // 4 · 3e18 overflows int64: the class default of an absent FFN width must not be computed unchecked.
  auto r = import_hf_config(R"({"model_type": "gpt2", "n_embd": 3000000000000000000, "n_layer": 2, "n_head": 2,
                                "vocab_size": 100, "n_positions": 64})");
  const auto issues = r.ok() ? validate(r->config) : r.issues();
  REQUIRE_FALSE(issues.empty());
  CHECK(issues.front().field == "n_embd");
}

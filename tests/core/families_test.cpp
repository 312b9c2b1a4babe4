// Families added for issue 10, each read from its real config.json and held against a published
// count. Every anchor keeps the line it was quoted from and where; the tensor lists follow the
// Hugging Face modeling file named beside each case (the num_parameters() convention of the
// *ForCausalLM model: a tied head counted once, buffers excluded).
#include "core/hf_config.hpp"
#include "core/params.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::plan_of;
using llmsize::test::preset;

namespace {
i64 total_of(const ModelConfig& c) { return llmsize::test::param_report(c).total; }
}  // namespace

TEST_CASE("GPT-1 counts 116,534,784 parameters; its checkpoint's causal masks are buffers", "[core][params][anchor]") {
  // ref: ai-glimpse/toynlp tests/test_gpt.py:
  //   "# 116534784 match EXACTLY with Huggingface: AutoModelForCausalLM.from_pretrained("openai-community/openai-gpt")"
  const ModelConfig c = preset("gpt-1").config;
  CHECK(total_of(c) == 116'534'784);
  // By hand, modeling_openai.py: tokens_embed v×d, positions_embed 512×d, per Block c_attn d×3d (+3d),
  // c_proj d×d (+d), ln_1, ln_2 (2d each), c_fc d×4d (+4d), c_proj 4d×d (+d); no final norm; tied head.
  const i64 d = 768, L = 12, v = 40478, P = 512;
  const i64 block = (3 * d * d + 3 * d) + (d * d + d) + 4 * d + (4 * d * d + 4 * d) + (4 * d * d + d);
  CHECK(total_of(c) == v * d + P * d + L * block);
  // The checkpoint stores 119,680,512 elements: the same plus each Attention's "bias" buffer,
  // a 512×512 causal mask (register_buffer in modeling_openai.py), which is not a parameter.
  CHECK(total_of(c) + L * P * P == 119'680'512);
  CHECK_FALSE(c.norm_final);
  CHECK(c.act == Activation::GeluTanh);  // ACT_FNS["gelu"] is gelu_new
  CHECK(c.tie_embeddings);
  // KV: 2 · L · d · 2 bytes per token at bf16.
  CHECK(plan_of(c).kv_bytes_per_token() == 36'864);
}

TEST_CASE("Gemma 3 1B counts 999,885,952 parameters and slides on 22 of 26 layers", "[core][params][anchor][plan]") {
  // ref: keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py, preset "gemma3_1b":
  //   "1 billion parameter, 26-layer, text-only pretrained " "Gemma3 model."  ...  "params": 999885952,
  const ModelConfig c = preset("gemma-3-1b").config;
  CHECK(total_of(c) == 999'885'952);
  // By hand, modeling_gemma3.py Gemma3DecoderLayer: q d×H·hd, k and v d×K·hd, o H·hd×d, q_norm and
  // k_norm hd each, gated MLP 3·d·f, four RMSNorms of d; final norm d; tied head.
  const i64 d = 1152, L = 26, v = 262144, H = 4, K = 1, hd = 256, f = 6912;
  const i64 layer = d * H * hd + 2 * d * K * hd + H * hd * d + 2 * hd + 3 * d * f + 4 * d;
  CHECK(total_of(c) == v * d + L * layer + d);
  CHECK(c.norm_qk);
  CHECK(c.norm_sandwich);

  const LayerPlan p = plan_of(c);
  i64 sliding = 0;
  for (i64 l = 0; l < c.n_layers; ++l) {
    const bool full = (l + 1) % 6 == 0;  // layers 5, 11, 17, 23
    CHECK(p.cache_of(l).kind == (full ? AttnKind::Full : AttnKind::Sliding));
    if (full) continue;
    CHECK(p.window(l) == 512);
    ++sliding;
  }
  CHECK(sliding == 22);
  // KV: 2 · K · hd · 2 bytes = 1,024 per layer per token at bf16, over 26 layers (before any cap).
  CHECK(p.kv_bytes_per_token() == 26'624);
  CHECK(p.kv_cache_bytes(32768, 1).value() == 1024 * (22 * 512 + 4 * i64{32768}));
}

namespace {
std::string gemma3_text(const std::string& extra) {
  return R"({"model_type":"gemma3_text","hidden_size":64,"num_hidden_layers":6,"num_attention_heads":4,)"
         R"("num_key_value_heads":1,"head_dim":16,"intermediate_size":128,"vocab_size":100,"sliding_window":8)" +
         extra + "}";
}
}  // namespace

TEST_CASE("Gemma 3 reads layer_types and refuses a pattern the plan cannot express", "[core][import]") {
  SECTION("absent: 5 of every 6 layers slide (Gemma3TextConfig sliding_window_pattern 6)") {
    auto r = import_hf_config(gemma3_text(""));
    REQUIRE(r.ok());
    CHECK(r->config.sliding_pattern == 6);
  }
  SECTION("sliding_window_pattern is read") {
    auto r = import_hf_config(gemma3_text(R"(,"sliding_window_pattern":3)"));
    REQUIRE(r.ok());
    CHECK(r->config.sliding_pattern == 3);
  }
  SECTION("layer_types wins over sliding_window_pattern") {
    auto r = import_hf_config(gemma3_text(
        R"(,"sliding_window_pattern":6,"layer_types":["sliding_attention","full_attention","sliding_attention",)"
        R"("full_attention","sliding_attention","full_attention"])"));
    REQUIRE(r.ok());
    CHECK(r->config.sliding_pattern == 2);
    CHECK(r->config.sliding_window == 8);
  }
  SECTION("every layer full turns the window off; every layer sliding is pattern 1") {
    const std::string full = R"("full_attention")", slide = R"("sliding_attention")";
    auto all_full = import_hf_config(gemma3_text(R"(,"layer_types":[)" + full + "," + full + "," + full + "," +
                                                 full + "," + full + "," + full + "]"));
    REQUIRE(all_full.ok());
    CHECK(all_full->config.sliding_window == 0);
    auto all_slide = import_hf_config(gemma3_text(R"(,"layer_types":[)" + slide + "," + slide + "," + slide + "," +
                                                  slide + "," + slide + "," + slide + "]"));
    REQUIRE(all_slide.ok());
    CHECK(all_slide->config.sliding_pattern == 1);
  }
  SECTION("an irregular mix, a wrong length or an unknown kind is refused, naming layer_types") {
    for (const char* bad : {
             R"(,"layer_types":["full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention"])",
             R"(,"layer_types":["sliding_attention","full_attention"])",
             R"(,"layer_types":["chunked_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention"])",
             R"(,"layer_types":"sliding_attention")"}) {
      INFO(bad);
      auto r = import_hf_config(gemma3_text(bad));
      REQUIRE_FALSE(r.ok());
      CHECK(r.issues()[0].field == "layer_types");
    }
  }
}

TEST_CASE("The gemma3 wrapper is refused: its vision tower is not counted yet", "[core][import]") {
  auto r = import_hf_config(R"({"model_type":"gemma3","text_config":)" + gemma3_text("") +
                            R"(,"vision_config":{"model_type":"siglip_vision_model","hidden_size":1152}})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.issues()[0].field == "vision_config");
  CHECK_THAT(r.issues()[0].message, Catch::Contains("vision tower") && Catch::Contains("gemma3_text"));
}

TEST_CASE("GPT-1 reads afn as its modeling file does and refuses special-token rows", "[core][import]") {
  const std::string base =
      R"({"model_type":"openai-gpt","n_embd":64,"n_layer":2,"n_head":4,"n_positions":32,"vocab_size":100)";
  auto relu = import_hf_config(base + R"(,"afn":"relu"})");
  REQUIRE(relu.ok());
  CHECK(relu->config.act == Activation::Relu);
  auto bad = import_hf_config(base + R"(,"afn":"tanh"})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues()[0].field == "afn");
  auto special = import_hf_config(base + R"(,"n_special":4})");
  REQUIRE_FALSE(special.ok());
  CHECK(special.issues()[0].field == "n_special");
}

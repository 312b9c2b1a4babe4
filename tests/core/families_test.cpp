// Families added for issue 10, each read from its real config.json and held against a published
// count. Every anchor keeps the line it was quoted from and where; the tensor lists follow the
// Hugging Face modeling file named beside each case (the num_parameters() convention of the
// *ForCausalLM model: a tied head counted once, buffers excluded).
#include "core/hf_config.hpp"
#include "core/json_util.hpp"
#include "core/model_fields.hpp"
#include "core/params.hpp"
#include "core/placement.hpp"
#include "core/report.hpp"
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

TEST_CASE("Multimodal wrappers: gemma3 and llava towers are read; others and unknown towers are refused by name",
          "[core][import]") {
  SECTION("gemma3: the SigLIP tower's keys, class defaults for the rest") {
    // 224 px in patches of 16: a 14 × 14 grid, which 196 soft tokens per image leave unpooled.
    auto r = import_hf_config(R"({"model_type":"gemma3","mm_tokens_per_image":196,"text_config":)" + gemma3_text("") +
                              R"(,"vision_config":{"model_type":"siglip_vision_model","hidden_size":1152,"vision_use_head":false}})");
    REQUIRE(r.ok());
    CHECK(r->config.vision.kind == VisionKind::Siglip);
    CHECK(r->config.vision.hidden == 1152);
    CHECK(r->config.vision.layers == 12);  // SiglipVisionConfig default
    CHECK(r->config.vision.projector == ProjectorKind::Gemma3);
    CHECK(r->config.vision.merge == 1);
  }
  SECTION("gemma3: mm_tokens_per_image sets the projector's pool (Gemma3MultiModalProjector kernel_size)") {
    const std::string tower = R"(,"vision_config":{"image_size":896,"patch_size":14,"vision_use_head":false}})";
    for (const auto& [tokens, merge] : {std::pair{"256", 4}, std::pair{"64", 8}, std::pair{"4096", 1}}) {
      auto r = import_hf_config(std::string(R"({"model_type":"gemma3","mm_tokens_per_image":)") + tokens + R"(,"text_config":)" +
                                gemma3_text("") + tower);
      REQUIRE(r.ok());
      CHECK(r->config.vision.merge == merge);
    }
    // Not a square, a root that does not divide the 64 patches per side, out of range, not an integer.
    for (const char* tokens : {"255", "144", "0", "100000", "\"256\""}) {
      INFO(tokens);
      auto r = import_hf_config(std::string(R"({"model_type":"gemma3","mm_tokens_per_image":)") + tokens + R"(,"text_config":)" +
                                gemma3_text("") + tower);
      REQUIRE_FALSE(r.ok());
      CHECK(r.issues()[0].field == "mm_tokens_per_image");
    }
  }
  const std::pair<std::string, std::string> bad[] = {
      // SiglipVisionConfig's 224 px in patches of 16 (14 per side) cannot pool to Gemma3Config's default 256 tokens.
      {R"({"model_type":"gemma3","text_config":)" + gemma3_text("") + R"(,"vision_config":{"vision_use_head":false}})",
       "mm_tokens_per_image"},
      {R"({"model_type":"gemma3","text_config":)" + gemma3_text("") + R"(,"vision_config":{"model_type":"clip_vision_model"}})",
       "vision_config.model_type"},
      {R"({"model_type":"gemma3","text_config":)" + gemma3_text("") + R"(,"vision_config":{"vision_use_head":true}})",
       "vision_config.vision_use_head"},
      {R"({"model_type":"gemma3","text_config":)" + gemma3_text("") + R"(,"vision_config":{"patch_size":14,"image_size":900,"vision_use_head":false}})",
       "vision_config.image_size"},
      {R"({"model_type":"qwen3_vl","text_config":)" + gemma3_text("") + R"(,"vision_config":{"depth":32}})", "vision_config"},
      {R"({"model_type":"gemma3","vision_config":{"vision_use_head":false}})", "text_config"},
  };
  for (const auto& [cfg, field] : bad) {
    INFO(cfg);
    auto r = import_hf_config(cfg);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == field);
  }
}

TEST_CASE("Gemma 3 4B and 12B: keras-hub's published totals and the 64 vocabulary rows the Hugging Face configs add",
          "[core][params][anchor]") {
  // ref: keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py:
  //   "gemma3_instruct_4b": "4 billion parameter, 34-layer, vision+text instruction-tuned " "Gemma3 model.", "params": 4299915632
  //   "gemma3_12b": "12 billion parameter, 48-layer, vision+text pretrained " "Gemma3 model.", "params": 12187079280
  // keras-hub's embedding has 262,144 rows, google/gemma-3-*-it's text_config 262,208. The 4B's
  // text_config names neither its heads nor its KV heads: Gemma3TextConfig's 8 and 4.
  for (const auto& [id, keras, d] : {std::tuple{"gemma-3-4b", i64{4'299'915'632}, i64{2560}},
                                     std::tuple{"gemma-3-12b", i64{12'187'079'280}, i64{3840}}}) {
    INFO(id);
    const ModelConfig c = preset(id).config;
    const ParamReport r = llmsize::test::param_report(c);
    CHECK(r.total + r.vision == keras + 64 * d);
    CHECK(r.vision == 27'432'062'576 - 27'009'002'240 - 1152 * (5376 - d));  // the 27B's tower; the projector h·d
  }
  CHECK(preset("gemma-3-4b").config.n_heads == 8);
  CHECK(preset("gemma-3-4b").config.n_kv_heads == 4);
}

TEST_CASE("rope_scaling sets the rows an engine's rotary cache holds (vLLM get_rope's scaled classes)", "[core][import]") {
  const auto rows = [](const std::string& extra) {
    auto r = import_hf_config(gemma3_text(R"(,"max_position_embeddings":1000)" + extra));
    REQUIRE(r.ok());
    return r->config.rope_cache_positions;
  };
  CHECK(rows("") == 0);
  CHECK(rows(R"(,"rope_scaling":{"rope_type":"linear","factor":8.0})") == 8000);    // max_position × factor
  CHECK(rows(R"(,"rope_scaling":{"type":"dynamic","factor":2.5})") == 2500);
  CHECK(rows(R"(,"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":100})") == 400);  // original × factor
  CHECK(rows(R"(,"rope_scaling":{"type":"yarn","factor":4,"original_max_position_embeddings":250})") == 0);  // = max_position
  CHECK(rows(R"(,"rope_scaling":{"rope_type":"llama3","factor":8.0,"original_max_position_embeddings":100})") == 0);
  // Gemma 3's sliding layers keep their own unscaled cache beside it.
  auto g = import_hf_config(gemma3_text(R"(,"max_position_embeddings":1000,"rope_scaling":{"rope_type":"linear","factor":8.0})"));
  REQUIRE(g.ok());
  CHECK(g->config.rope_cache_rows() == 9000);
  for (const auto& [extra, field] :
       {std::pair{R"(,"rope_scaling":{"rope_type":"linear","factor":"8"})", "text_config.rope_scaling.factor"},
        std::pair{R"(,"rope_scaling":{"rope_type":"linear"})", "text_config.rope_scaling.factor"},
        std::pair{R"(,"rope_scaling":{"rope_type":"linear","factor":1e12})", "text_config.rope_scaling.factor"},
        std::pair{R"(,"rope_scaling":{"rope_type":"linear","factor":-1})", "text_config.rope_scaling.factor"},
        std::pair{R"(,"rope_scaling":{"rope_type":"yarn","factor":2,"original_max_position_embeddings":1.5})",
                  "text_config.rope_scaling.original_max_position_embeddings"},
        std::pair{R"(,"rope_scaling":{"rope_type":"yarn","factor":2,"original_max_position_embeddings":0})",
                  "text_config.rope_scaling.original_max_position_embeddings"},
        // max_position_embeddings itself out of range is named, not the factor that multiplies it.
        std::pair{R"(,"max_position_embeddings":0,"rope_scaling":{"rope_type":"linear","factor":8})", "text_config.max_position_embeddings"}}) {
    INFO(extra);
    auto r = import_hf_config(R"({"model_type":"gemma3","mm_tokens_per_image":196,"text_config":)" + gemma3_text(extra) + "}");
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == field);
  }
}

TEST_CASE("Gemma 3 27B's vision tower and projector count 423,060,336 parameters; memory holds them apart",
          "[core][params][anchor][memory]") {
  // ref: keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py: "gemma3_27b" (vision+text)
  //   "params": 27432062576, and "gemma3_27b_text" "params": 27009002240: the tower and projector are the
  //   difference, 423,060,336 (the language model's 64 extra vocabulary rows cancel out).
  const ModelConfig c = preset("gemma-3-27b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.vision == 27'432'062'576 - 27'009'002'240);
  // By hand, modeling_siglip.py SiglipVisionModel (no pooling head) at 896 px, patch 14 (4,096
  // patches): patch conv 3·14·14·h + h, positions 4,096·h, 27 layers as CLIP's, post LayerNorm;
  // Gemma3MultiModalProjector: mm_input_projection_weight h·d and mm_soft_emb_norm h.
  const i64 h = 1152, f = 4304, d = 5376;
  const i64 tower = 3 * 14 * 14 * h + h + 4096 * h + 27 * (4 * (h * h + h) + 4 * h + h * f + f + f * h + h) + 2 * h;
  CHECK(r.vision == tower + h * d + h);
  // Inference: the tower in the compute dtype beside the weights, split over tp, on the first stage.
  const Estimate one = llmsize::test::run(c, llmsize::test::with({{"w", "q4_k_m"}}));
  CHECK(one.inference.vision_weights_bytes == 2 * r.vision);
  CHECK(one.inference.total_bytes == one.inference.weights_bytes + one.inference.vision_weights_bytes +
                                         one.inference.kv_cache_bytes + one.inference.activation_bytes +
                                         one.inference.overhead_bytes);
  const Estimate pp = llmsize::test::run(c, llmsize::test::with({{"gpus", "2"}, {"pp", "2"}}));
  CHECK((pp.inference.stage == 0) == (pp.inference.vision_weights_bytes > 0));
  // Over 2 tensor-parallel GPUs as vLLM builds them (siglip.py, gemma3_mm.py): the patch conv
  // (Conv2dLayer), the positions (nn.Embedding), the norms and mm_input_projection_weight (a bare
  // Parameter) whole on each GPU; q, k, v and fc1 column-parallel (weights and biases halved),
  // out_proj and fc2 row-parallel (weights halved, biases whole).
  const i64 whole = 3 * 14 * 14 * h + h + 4096 * h + 2 * h + h * d + h + 27 * (4 * h + h + h);
  const i64 halved = 27 * (4 * h * h + 3 * h + h * f + f + f * h);
  CHECK(whole + halved == r.vision);
  const Estimate tp2 = llmsize::test::run(c, llmsize::test::with({{"tp", "2"}, {"gpus", "2"}}));
  CHECK(tp2.inference.vision_weights_bytes == 2 * (whole + halved / 2));
  // vLLM splits the tower's 16 heads with divide(): 32 GPUs (which the language model's 32 heads
  // allow) are refused by name.
  const auto tp32 = estimate(c, llmsize::test::with({{"tp", "32"}, {"gpus", "32"}}));
  REQUIRE_FALSE(tp32.ok());
  CHECK(tp32.issues().front().field == "tp");
  CHECK_THAT(tp32.issues().front().message, Catch::Contains("vision_config.num_attention_heads (16)"));
  CHECK(message_in(tp32.issues().front(), Lang::Zh) == "必须整除 vision_config.num_attention_heads（16），实际为 32");
  // Training keeps it frozen: no gradients, no optimizer states.
  const Estimate t = llmsize::test::run(c, llmsize::test::with({{"mode", "training"}}));
  CHECK(t.training.vision_weights_bytes == 2 * r.vision);
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

TEST_CASE("gpt-oss-20b and -120b count 20,914,757,184 and 116,829,156,672 parameters", "[core][params][anchor][plan]") {
  // ref: attogram/ollama-bash-lib demos/show.md, `ollama show` of the GGUFs converted from the
  // released checkpoints: gpt-oss:20b "general.parameter_count": 20914757184 and gpt-oss:120b
  //   "general.parameter_count": 116829156672
  // (OpenAI 2025, gpt-oss model card arXiv:2508.10925 Table 1: 20.91B and 116.83B total).
  const ModelConfig c = preset("gpt-oss-20b").config;
  CHECK(total_of(c) == 20'914'757'184);
  CHECK(total_of(preset("gpt-oss-120b").config) == 116'829'156'672);
  // By hand, modeling_gpt_oss.py: q d×H·hd, k and v d×K·hd, o H·hd×d, each with a bias; sinks H;
  // router d×E + E; experts gate_up E·d·2f + E·2f, down E·f·d + E·d; two RMSNorms; final norm;
  // untied head.
  const i64 d = 2880, L = 24, v = 201088, H = 64, K = 8, hd = 64, E = 32, f = 2880;
  const i64 attn = (d * H * hd + H * hd) + 2 * (d * K * hd + K * hd) + (H * hd * d + d) + H;
  const i64 moe = (d * E + E) + (E * d * 2 * f + E * 2 * f) + (E * f * d + E * d);
  CHECK(total_of(c) == 2 * v * d + d + L * (attn + moe + 2 * d));
  // The 6.6 M a LLaMA-like reading misses (issue 10): the experts' and the router's biases and the sinks.
  CHECK(L * (E * 2 * f + E * d + E + H) == 6'637'824);
  CHECK(c.attn_sinks);
  CHECK(c.moe.expert_bias);
  CHECK(c.moe.router_bias);
  CHECK(c.moe.top_k == 4);

  // KV, issue 10's anchor: 49,152 B/token over all 24 layers; the 12 sliding (even) layers keep 128 tokens.
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == 49'152);
  for (i64 l = 0; l < L; ++l) {
    INFO(l);
    CHECK(p.cache_of(l).kind == (l % 2 == 0 ? AttnKind::Sliding : AttnKind::Full));
    CHECK(p.window(l) == (l % 2 == 0 ? 128 : 0));
  }
  const i64 per_layer = 2 * K * hd * 2;
  CHECK(p.kv_cache_bytes(131072, 1).value() == per_layer * (12 * 128 + 12 * i64{131072}));  // ≈ 3.2 GB, not 0.01 GB
  // Fit at 131,072 tokens on one 80 GB GPU counts the full layers' 3.2 GB per sequence.
  const Estimate e = llmsize::test::run(c, llmsize::test::with({{"seq", "131072"}, {"w", "mxfp4"}}));
  CHECK(e.inference.kv_cache_bytes == per_layer * (12 * 128 + 12 * i64{131072}));
  CHECK(e.inference.max_sequences < 30);
  CHECK(e.inference.state_bytes == 0);
}

TEST_CASE("Qwen3-Next-80B-A3B: 79,674,391,296 parameters, 24,576 KV bytes per token, 77,856,768 state bytes per sequence",
          "[core][params][anchor][plan]") {
  // ref: issue 10's anchors, the checkpoint's safetensors totals of Qwen/Qwen3-Next-80B-A3B:
  //   "Qwen3-Next-80B-A3B: 79,674,391,296 (81,324,862,720 with the MTP layer); KV 24,576 B/token
  //   (the 12 full-attention layers); recurrent state 77,856,768 B per sequence"
  // (model card: "Number of Parameters: 80B in total and 3B activated").
  const ModelConfig c = preset("qwen3-next-80b-a3b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 79'674'391'296);
  CHECK(r.total + r.mtp == 81'324'862'720);
  // By hand, modeling_qwen3_next.py. Full attention: q_proj d×2·H·hd (q and its gate), k, v d×K·hd,
  // o H·hd×d, q_norm and k_norm hd. Gated DeltaNet: in_proj_qkvz d×(2·kd + 2·vd), in_proj_ba d×2·Hv,
  // conv1d (2·kd + vd)×4, dt_bias and A_log Hv, norm dv, out_proj vd×d. MoE every layer: router d×E,
  // E experts 3·d·fe, a shared expert 3·d·fs and its gate d×1; two norms per layer.
  const i64 d = 2048, v = 151936, H = 16, K = 2, hd = 256, E = 512, fe = 512, fs = 512;
  const i64 Hk = 16, Hv = 32, dk = 128, dv = 128, kd = Hk * dk, vd = Hv * dv;
  const i64 full = d * 2 * H * hd + 2 * d * K * hd + H * hd * d + 2 * hd;
  const i64 linear = d * (2 * kd + 2 * vd) + d * 2 * Hv + (2 * kd + vd) * 4 + 2 * Hv + dv + vd * d;
  const i64 moe = d * E + E * 3 * d * fe + 3 * d * fs + d;
  CHECK(r.total == 2 * v * d + d + 12 * full + 36 * linear + 48 * (moe + 2 * d));
  // The MTP layer (mtp.*): fc 2d×d, three norms of d, one full-attention MoE decoder layer.
  CHECK(r.mtp == 2 * d * d + 3 * d + full + moe + 2 * d);

  const LayerPlan p = plan_of(c);
  i64 linear_layers = 0;
  for (i64 l = 0; l < c.n_layers; ++l) {
    INFO(l);
    const bool is_full = (l + 1) % 4 == 0;
    CHECK(p.cache_of(l).kind == (is_full ? AttnKind::Full : AttnKind::Linear));
    linear_layers += is_full ? 0 : 1;
  }
  CHECK(linear_layers == 36);
  CHECK(p.kv_bytes_per_token() == 24'576);  // 12 · 2 · K · hd · 2
  // Conv state: the last 4 inputs of q‖k‖v at bf16; recurrent state: Hv · dk · dv in fp32.
  CHECK(p.state_bytes_per_sequence() == 36 * ((2 * kd + vd) * 4 * 2 + Hv * dk * dv * 4));
  CHECK(p.state_bytes_per_sequence() == 77'856'768);
  // Tensor parallel splits the value heads (and the convolution's channels): half per GPU at tp 2.
  CHECK(plan_of(c, KvDtype::BF16, 2).state_bytes_gpu(p.all()) == 77'856'768 / 2);
  // fp32 activations keep the conv state in fp32 too.
  auto p32 = layer_plan(c, KvDtype::BF16, 1, 4);
  REQUIRE(p32.ok());
  CHECK(p32->state_bytes_per_sequence() == 36 * ((2 * kd + vd) * 4 * 4 + Hv * dk * dv * 4));

  // The estimate holds the state once per sequence, constant in context, beside the KV cache.
  const Estimate a = llmsize::test::run(c, llmsize::test::with({{"seq", "4096"}, {"batch", "3"}, {"gpus", "4"}, {"tp", "4"}}));
  const Estimate b = llmsize::test::run(c, llmsize::test::with({{"seq", "65536"}, {"batch", "3"}, {"gpus", "4"}, {"tp", "4"}}));
  CHECK(a.inference.state_bytes == 3 * 77'856'768 / 4);
  CHECK(b.inference.state_bytes == a.inference.state_bytes);
  CHECK(a.inference.state_bytes_per_sequence == 77'856'768);
  CHECK(a.inference.total_bytes == a.inference.weights_bytes + a.inference.kv_cache_bytes + a.inference.state_bytes +
                                       a.inference.activation_bytes + a.inference.overhead_bytes);
}

TEST_CASE("Qwen3-Next's layer kinds are read from full_attention_interval or layer_types", "[core][import]") {
  auto cfg = [](const std::string& extra, const char* value_heads = "4") {
    return R"({"model_type":"qwen3_next","hidden_size":64,"num_hidden_layers":8,"num_attention_heads":4,)"
           R"("num_key_value_heads":2,"head_dim":16,"vocab_size":100,"num_experts":4,"num_experts_per_tok":2,)"
           R"("moe_intermediate_size":32,"shared_expert_intermediate_size":32,"linear_num_key_heads":2,)"
           R"("linear_key_head_dim":8,"linear_value_head_dim":8,"linear_num_value_heads":)" +
           std::string(value_heads) + extra + "}";
  };
  SECTION("absent: every 4th layer full (Qwen3NextConfig full_attention_interval 4)") {
    auto r = import_hf_config(cfg(""));
    REQUIRE(r.ok());
    CHECK(r->config.linear.full_interval == 4);
    CHECK(r->config.layer_is_linear(0));
    CHECK_FALSE(r->config.layer_is_linear(3));
    CHECK(r->config.mtp_layers == 1);  // vLLM's default: the checkpoints store one mtp layer
  }
  SECTION("layer_types wins") {
    auto r = import_hf_config(cfg(R"(,"full_attention_interval":4,"layer_types":["linear_attention","full_attention",)"
                                  R"("linear_attention","full_attention","linear_attention","full_attention",)"
                                  R"("linear_attention","full_attention"])"));
    REQUIRE(r.ok());
    CHECK(r->config.linear.full_interval == 2);
  }
  SECTION("every layer full: no linear layers") {
    auto r = import_hf_config(cfg(R"(,"full_attention_interval":1)"));
    REQUIRE(r.ok());
    CHECK_FALSE(r->config.linear.enabled());
  }
  SECTION("refused, naming the key: an irregular mix, every layer linear, value heads not a multiple of key heads") {
    const std::pair<const char*, const char*> bad[] = {
        {R"(,"layer_types":["full_attention","linear_attention","linear_attention","linear_attention","linear_attention","linear_attention","linear_attention","full_attention"])",
         "layer_types"},
        {R"(,"layer_types":["linear_attention","linear_attention","linear_attention","linear_attention","linear_attention","linear_attention","linear_attention","linear_attention"])",
         "layer_types"},
        {R"(,"layer_types":["sliding_attention","full_attention","linear_attention","full_attention","linear_attention","full_attention","linear_attention","full_attention"])",
         "layer_types"},
        {R"(,"linear_conv_kernel_dim":0)", "linear_conv_kernel_dim"},
    };
    for (const auto& [extra, field] : bad) {
      INFO(extra);
      auto r = import_hf_config(cfg(extra));
      REQUIRE_FALSE(r.ok());
      CHECK(r.issues()[0].field == field);
    }
    auto odd = import_hf_config(cfg("", "3"));
    REQUIRE_FALSE(odd.ok());
    CHECK(odd.issues()[0].field == "linear_num_value_heads");
  }
  SECTION("tensor parallel must split the key heads") {
    auto r = import_hf_config(cfg(""));
    REQUIRE(r.ok());
    auto e = estimate(r->config, llmsize::test::with({{"gpus", "4"}, {"tp", "4"}}));
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues()[0].field == "tp");
  }
}

TEST_CASE("The generic reading refuses keys that change memory and lists the others it did not read", "[core][import]") {
  ImportOptions generic;
  generic.generic_fallback = true;
  const std::string base = R"({"model_type":"my_model","hidden_size":64,"num_hidden_layers":4,"num_attention_heads":4,)"
                           R"("vocab_size":100,"intermediate_size":128)";
  SECTION("harmless unread keys are listed in a note") {
    auto r = import_hf_config(base + R"(,"rms_norm_eps":1e-6,"initializer_range":0.02})", generic);
    REQUIRE(r.ok());
    bool listed = false;
    for (const auto& n : r->notes) listed |= n.message.find("not read") != std::string::npos && n.message.find("rms_norm_eps") != std::string::npos &&
                                            n.message.find("initializer_range") != std::string::npos;
    CHECK(listed);
  }
  SECTION("a memory-looking key that is off (null, false, 0, empty) is only listed") {
    auto r = import_hf_config(base + R"(,"add_cross_attention":false,"chunk_size_feed_forward":0,"sliding_window":null,)"
                                     R"("layer_types":[]})", generic);
    REQUIRE(r.ok());
    bool listed = false;
    for (const auto& n : r->notes) listed |= n.message.find("add_cross_attention") != std::string::npos;
    CHECK(listed);
  }
  SECTION("gpt-oss read generically would lose its layer kinds: refused by name") {
    // The issue's trial: gpt-oss-20b's config.json with another model_type and the generic reading.
    auto j = json_util::json::parse(llmsize::test::read_text("../presets/models/170-gpt-oss-20b.json")).at("config");
    j["model_type"] = "gpt_oss_renamed";
    auto r = import_hf_config(j.dump(), generic);
    REQUIRE_FALSE(r.ok());
    bool named = false;
    for (const auto& i : r.issues()) named |= i.field == "layer_types";
    CHECK(named);
  }
  for (const char* key : {R"("full_attention_interval":4)", R"("attention_chunk_size":8192)", R"("mamba_d_state":128)",
                          R"("layer_types":["full_attention"])", R"("hybrid_override_pattern":"M-M*")",
                          R"("index_topk":2048)", R"("max_window_layers":28)", R"("per_layer_config":{"5":{"head_dim":512}})",
                          R"("block_configs":[{}])", R"("moe_latent_size":1024)", R"("attn_type_list":[0,1])",
                          R"("num_kv_shared_layers":20)", R"("global_head_dim":512)"}) {
    INFO(key);
    auto r = import_hf_config(base + "," + key + "}", generic);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].message.find("not read by the generic") != std::string::npos);
  }
}

TEST_CASE("estimate JSON: the layer plan run-length and KV and state by kind", "[core][report][plan]") {
  const ModelConfig c = preset("gpt-oss-20b").config;
  const auto j = json_util::json::parse(estimate_report(c, Workload{}));
  const auto& runs = j.at("model").at("layer_plan");
  REQUIRE(runs.size() == 24);  // sliding, full, sliding, … one layer each
  CHECK(runs[0].at("kind") == "sliding");
  CHECK(runs[0].at("window") == 128);
  CHECK(runs[0].at("ffn") == "moe");
  CHECK(runs[1].at("kind") == "full");
  i64 sum = 0;
  for (const auto& k : j.at("inference").at("kv_by_kind")) sum += k.at("bytes_per_token").get<i64>();
  CHECK(sum == j.at("inference").at("kv_bytes_per_token").get<i64>());
  CHECK(j.at("inference").at("state_bytes_per_sequence") == 0);

  const auto q = json_util::json::parse(estimate_report(preset("qwen3-next-80b-a3b").config, Workload{}));
  CHECK(q.at("model").at("layer_plan")[0].at("kind") == "linear");
  CHECK(q.at("model").at("layer_plan")[0].at("count") == 3);
  CHECK(q.at("inference").at("state_bytes_per_sequence") == 77'856'768);
  CHECK(q.at("inference").at("kv_by_kind")[0].at("state_bytes_per_sequence") == 77'856'768);
}

TEST_CASE("SmolLM3 3B counts 3,075,098,624 parameters: a LLaMA block with a tied head", "[core][params][anchor]") {
  // ref: the checkpoint's safetensors index, as quoted in a public model-family note: "The safetensors
  //   index for `HuggingFaceTB/SmolLM3-3B` reports `total_parameters=3075098624`"
  const ModelConfig c = preset("smollm3-3b").config;
  CHECK(total_of(c) == 3'075'098'624);
  // By hand, modeling_smollm3.py: q, o d×d; k, v d×K·hd; gated MLP 3·d·f; two norms; final norm; tied.
  const i64 d = 2048, L = 36, v = 128256, K = 4, hd = 128, f = 11008;
  CHECK(total_of(c) == v * d + d + L * (2 * d * d + 2 * d * K * hd + 3 * d * f + 2 * d));
  CHECK(c.tie_embeddings);  // absent in the config: SmolLM3Config ties by default
  CHECK(c.sliding_window == 0);  // use_sliding_window false
  CHECK(plan_of(c).kv_bytes_per_token() == L * 2 * K * hd * 2);
}

TEST_CASE("OLMo 2 7B counts 7,298,617,344 parameters: post norms only and full-width q/k norms", "[core][params][anchor]") {
  // ref: allenai/OLMo-2-1124-7B's safetensors parameter total, recorded in a public model table as
  //   "allenai/OLMo-2-1124-7B": (7298617344, "7df9a82518afdecae4e8c02...")
  const ModelConfig c = preset("olmo-2-7b").config;
  CHECK(total_of(c) == 7'298'617'344);
  // By hand, modeling_olmo2.py Olmo2DecoderLayer: q, k, v, o d×d (K = H); q_norm and k_norm over H·hd
  // = d each; post_attention_layernorm and post_feedforward_layernorm (no input norms); gated MLP.
  const i64 d = 4096, L = 32, v = 100352, f = 11008;
  CHECK(total_of(c) == 2 * v * d + d + L * (4 * d * d + 3 * d * f + 2 * d + 2 * d));
  CHECK_FALSE(c.norm_pre);
  CHECK(c.norm_qk_full);
  // The norms are named as the checkpoint names them.
  auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  std::vector<std::string> norms;
  for (const Tensor& t : inv->kinds[0].tensors)
    if (t.role == Role::Norm) norms.push_back(t.name + " " + std::to_string(t.cols));
  CHECK(norms == std::vector<std::string>{"model.layers.{i}.post_attention_layernorm.weight 4096",
                                          "model.layers.{i}.post_feedforward_layernorm.weight 4096",
                                          "model.layers.{i}.self_attn.q_norm.weight 4096",
                                          "model.layers.{i}.self_attn.k_norm.weight 4096"});
}

TEST_CASE("Gemma 3 27B's text model: keras-hub's 27,009,002,240 plus the 64 image-token rows of the HF vocabulary",
          "[core][params][anchor][plan]") {
  // ref: keras-team/keras-hub keras_hub/src/models/gemma3/gemma3_presets.py, preset "gemma3_27b_text":
  //   "27 billion parameter, 62-layer, text-only pretrained " "Gemma3 model."  ...  "params": 27009002240,
  // keras-hub's text-only embedding has 262,144 rows; google/gemma-3-27b-it's text_config has
  // vocab_size 262,208 (the multimodal checkpoint's 64 extra rows), counted as the file holds them.
  const ModelConfig c = preset("gemma-3-27b").config;
  const i64 d = 5376, L = 62, H = 32, K = 16, hd = 128, f = 21504;
  CHECK(total_of(c) == 27'009'002'240 + 64 * d);
  const i64 layer = d * H * hd + 2 * d * K * hd + H * hd * d + 2 * hd + 3 * d * f + 4 * d;
  CHECK(total_of(c) == 262208 * d + L * layer + d);
  // KV: 10 full layers (5, 11, …, 59) and 52 sliding layers of 1,024 tokens, 2 · K · hd · 2 B each.
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == L * 2 * K * hd * 2);
  CHECK(p.kv_cache_bytes(131072, 1).value() == 2 * K * hd * 2 * (52 * i64{1024} + 10 * i64{131072}));
}

TEST_CASE("DeepSeek-V3.2 counts 685,355,329,792 with MTP: DeepSeek-V3 plus the lightning indexer; its keys cost 132 B per token per layer",
          "[core][params][anchor][plan]") {
  // ref: the checkpoint's safetensors total, in a public model table:
  //   "| deepseek-ai/DeepSeek-V3.2 | base | 685355329792 | 37606579175 |"
  const ModelConfig c = preset("deepseek-v3.2").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total + r.mtp == 685'355'329'792);
  // By hand: DeepSeek-V3 (671,026,419,200, its MTP layer 13,463,426,304) plus, in each of the 61 layers
  // and the MTP layer, DeepSeek-V3.2-Exp inference/model.py Indexer: wq_b q_lora × H_I·d_I, wk d × d_I,
  // k_norm LayerNorm d_I (weight and bias), weights_proj d × H_I.
  const i64 d = 7168, q_lora = 1536, HI = 64, dI = 128;
  const i64 indexer = q_lora * HI * dI + d * dI + 2 * dI + d * HI;
  CHECK(r.total == 671'026'419'200 + 61 * indexer);
  CHECK(r.mtp == 13'463'426'304 + indexer);
  const LayerPlan p = plan_of(c);
  CHECK(p.cache_of(0).kind == AttnKind::MlaIndexer);
  CHECK(p.kv_bytes_per_token() == plan_of(preset("deepseek-v3").config).kv_bytes_per_token());  // the latent alone
  CHECK(p.indexer_bytes_per_token() == 61 * (128 + 4));  // fp8 key + one fp32 scale per 128 values
  // Memory: the indexer's keys grow with context, replicated on every tensor-parallel GPU, in the total.
  const Estimate e = llmsize::test::run(c, llmsize::test::with({{"seq", "32768"}, {"batch", "2"}, {"gpus", "8"}, {"tp", "8"}}));
  CHECK(e.inference.indexer_cache_bytes == 2 * i64{32768} * 61 * 132);
  CHECK(e.inference.total_bytes == e.inference.weights_bytes + e.inference.kv_cache_bytes + e.inference.indexer_cache_bytes +
                                       e.inference.activation_bytes + e.inference.overhead_bytes);
  // Sparse attention: each query reads at most index_topk keys, so attention FLOPs stop growing with
  // context past 2,048, except the indexer's own scoring.
  const LayerPlan dense = plan_of(preset("deepseek-v3").config);
  CHECK(attention_flops(c, p, 100000, 1) < attention_flops(preset("deepseek-v3").config, dense, 100000, 1));
}

TEST_CASE("Kimi K2 counts 1,026,408,232,448 parameters: DeepSeek-V3's tensors at 384 experts and 64 heads",
          "[core][params][anchor]") {
  // ref: a public checkpoint audit's logical count (scales, shape tensors and RoPE buffers excluded):
  //   "|K2-Instruct|61|139644|1026408232448|1029173256720|"
  // Hugging Face's 1,026,408,235,864 also counts the checkpoint's 61 rotary_emb.inv_freq buffers of 56
  // values (gogongxt/python scripts/models/kimi_k2_instruct.md: "model.layers.0-60.self_attn.rotary_emb.inv_freq
  // (×61 layers) | [56] | torch.bfloat16"), which are buffers, not parameters.
  const ModelConfig c = preset("kimi-k2").config;
  CHECK(total_of(c) == 1'026'408'232'448);
  CHECK(total_of(c) + 61 * 56 == 1'026'408'235'864);
  // By hand (DeepSeek-V3 layout): attention q_a d·1536 + 1536, q_b 1536·64·192, kv_a d·576 + 512,
  // kv_b 512·64·256, o 64·128·d; two norms; layer 0 dense (3·d·18432); 60 MoE layers of 384 experts
  // and one shared expert (3·d·2048 each), router d·384 and its correction bias 384.
  const i64 d = 7168, H = 64, v = 163840;
  const i64 attn = d * 1536 + 1536 + 1536 * H * 192 + d * 576 + 512 + 512 * H * 256 + H * 128 * d + 2 * d;
  const i64 moe = 385 * 3 * d * 2048 + d * 384 + 384;
  CHECK(total_of(c) == 2 * v * d + d + 61 * attn + 3 * d * 18432 + 60 * moe);
}

TEST_CASE("GLM-4.5-Air counts 106,852,251,264 parameters, 110,468,824,832 with its MTP layer", "[core][params][anchor]") {
  // ref: a public model table of checkpoint totals: "| zai-org/GLM-4.5-Air | base | 110468824832 | 13632377355 |"
  // (the MTP layer included; the same table lists an MTP-less checkpoint of this shape at 106852251264).
  const ModelConfig c = preset("glm-4.5-air").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 106'852'251'264);
  CHECK(r.total + r.mtp == 110'468'824'832);
  // By hand, modeling_glm4_moe.py: q d·H·hd + H·hd, k and v d·K·hd + K·hd (biases), o H·hd·d (none);
  // two norms; layer 0 dense (3·d·10944); 45 MoE layers: 128 experts + 1 shared of 3·d·1408, router
  // d·128 and correction bias 128. MTP (vLLM glm4_moe_mtp.py): enorm, hnorm, eh_proj 2d·d, its own
  // embed_tokens and shared_head (norm, head v·d), one MoE decoder layer.
  const i64 d = 4096, H = 96, K = 8, hd = 128, v = 151552;
  const i64 attn = d * H * hd + H * hd + 2 * (d * K * hd + K * hd) + H * hd * d + 2 * d;
  const i64 moe = 129 * 3 * d * 1408 + d * 128 + 128;
  CHECK(r.total == 2 * v * d + d + 46 * attn + 3 * d * 10944 + 45 * moe);
  CHECK(r.mtp == 3 * d + 2 * d * d + 2 * v * d + attn + moe);
  CHECK(c.rotary_fraction == 0.5);
  CHECK(c.bias_qkv);
  CHECK_FALSE(c.bias_o);
}

TEST_CASE("Llama 4 Scout's text model counts 107,769,861,120; 36 of its 48 layers keep one chunk of 8,192 tokens",
          "[core][params][anchor][plan]") {
  // ref: the checkpoint's "Declared total parameters | 108,641,793,536" (meta-llama/Llama-4-Scout-17B-16E-
  // Instruct, safetensors), and a public analysis of it: "其中文本骨干为 107,769,861,120，视觉编码器与多模态
  // 投影器为 871,932,416" (text backbone 107,769,861,120; vision encoder and projector 871,932,416).
  const ModelConfig c = preset("llama-4-scout").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 107'769'861'120);
  CHECK(r.total + r.vision == 108'641'793'536);
  CHECK(r.vision == 871'932'416);
  // The vision tower by hand (modeling_llama4.py Llama4VisionModel at 336 px, patch 14): patch linear
  // 3·14·14·h, class token h, 577 positions, two LayerNorms, 34 layers (q, k, v, o with biases, fc1/fc2
  // with biases, two LayerNorms), the adapter fc1 5632·4096 and fc2 4096², the projector 4096·d.
  {
    const i64 h = 1408, vf = 5632, a = 4096;
    const i64 tower = 3 * 14 * 14 * h + h + 577 * h + 4 * h +
                      34 * (4 * (h * h + h) + (h * vf + vf) + (vf * h + h) + 4 * h) + vf * a + a * a;
    CHECK(r.vision == tower + a * 5120);
    // Over 2 tensor-parallel GPUs as vLLM builds them (mllama4.py): the patch linear column-parallel
    // (Llama4UnfoldConvolution), q, k, v and fc1 with their biases, the adapter's fc1 and the
    // projector too; o, fc2 and the adapter's fc2 row-parallel (biases whole); the class token, the
    // positions (Parameters) and the LayerNorms whole.
    const i64 whole = h + 577 * h + 4 * h + 34 * (h + h + 4 * h);
    const i64 halved = 3 * 14 * 14 * h + 34 * (4 * h * h + 3 * h + h * vf + vf + vf * h) + vf * a + a * a + a * 5120;
    CHECK(whole + halved == r.vision);
    const Estimate tp2 = llmsize::test::run(c, llmsize::test::with({{"tp", "2"}, {"gpus", "2"}}));
    CHECK(tp2.inference.vision_weights_bytes == 2 * (whole + halved / 2));
  }
  CHECK(r.active == 17'172'894'720);  // top-1 routed expert + the shared expert
  // By hand, modeling_llama4.py: q, o d·H·hd; k, v d·K·hd; no biases; the q/k L2 norm has no weights;
  // two RMSNorms; Llama4TextMoe in every layer: router d·E, experts gate_up E·d·2f and down E·f·d (3-D),
  // shared expert 3·d·f; untied head.
  const i64 d = 5120, H = 40, K = 8, hd = 128, E = 16, f = 8192, v = 202048;
  const i64 layer = 2 * d * H * hd + 2 * d * K * hd + 2 * d + d * E + E * d * 2 * f + E * f * d + 3 * d * f;
  CHECK(r.total == 2 * v * d + d + 48 * layer);
  // Chunked layers (no_rope_layers 1) keep at most one chunk; every 4th layer (NoPE) keeps all tokens.
  const LayerPlan p = plan_of(c);
  for (i64 l = 0; l < 48; ++l) {
    INFO(l);
    CHECK(p.cache_of(l).kind == ((l + 1) % 4 == 0 ? AttnKind::Full : AttnKind::Chunked));
  }
  CHECK(p.kv_cache_bytes(131072, 1).value() == 2 * K * hd * 2 * (36 * i64{8192} + 12 * i64{131072}));
  // A query at position p of a chunked layer attends p mod 8192 + 1 keys: position 8192 starts afresh.
  const double full_layer = 2.0 * H * (hd + hd);  // FLOPs per (query, key) pair and layer
  CHECK(attention_flops(c, p, 8192, 1) == Approx(full_layer * (36 * 1 + 12 * 8193.0)));
}

TEST_CASE("Llama 4 reads no_rope_layers and moe_layers, refusing lists it cannot express", "[core][import]") {
  auto cfg = [](const std::string& extra) {
    return R"({"model_type":"llama4_text","hidden_size":64,"num_hidden_layers":4,"num_attention_heads":4,)"
           R"("num_key_value_heads":2,"head_dim":16,"vocab_size":100,"intermediate_size":32,"intermediate_size_mlp":64,)"
           R"("num_local_experts":4,"attention_chunk_size":16)" + extra + "}";
  };
  auto ok = import_hf_config(cfg(R"(,"interleave_moe_layer_step":2,"moe_layers":[1,3],"no_rope_layers":[1,0,1,0])"));
  REQUIRE(ok.ok());
  CHECK(ok->config.sliding_pattern == 2);
  CHECK(ok->config.window_chunked);
  CHECK_FALSE(ok->config.layer_is_moe(0));
  CHECK(ok->config.layer_is_moe(1));
  CHECK(ok->config.d_ff == 64);  // dense layers: intermediate_size_mlp
  for (const char* bad : {R"(,"no_rope_layers":[0,1,1,1])", R"(,"no_rope_layers":[1,1,0])",
                          R"(,"interleave_moe_layer_step":2,"moe_layers":[0,2])"}) {
    INFO(bad);
    auto r = import_hf_config(cfg(bad));
    REQUIRE_FALSE(r.ok());
  }
}

TEST_CASE("Nemotron Nano 9B v2 counts 8,888,227,328: 27 Mamba-2, 4 attention and 25 MLP blocks; 73,433,088 state bytes per sequence",
          "[core][params][anchor][plan]") {
  // ref: debaditc/kvfit scripts/build_registry.py, "exact params from HF safetensors":
  //   ("Nemotron-Nano-9B-v2", "nvidia_NVIDIA-Nemotron-Nano-9B-v2", 8888227328, ...)
  const ModelConfig c = preset("nemotron-nano-9b-v2").config;
  CHECK(total_of(c) == 8'888'227'328);
  // By hand, modeling_nemotron_h.py: every block has one RMSNorm. Mamba-2 (d_inner 128·80 = 10,240,
  // conv_dim 10,240 + 2·8·128 = 12,288): in_proj d·(10,240 + 12,288 + 128), conv1d 12,288·4 + bias,
  // dt_bias, A_log and D 128 each, gated norm 10,240, out_proj 10,240·d. Attention: q, o d·5,120,
  // k, v d·1,024. MLP (relu², no gate): up d·15,680, down 15,680·d.
  const i64 d = 4480, v = 131072;
  const i64 mamba = d * 22656 + 12288 * 4 + 12288 + 3 * 128 + 10240 + 10240 * d + d;
  const i64 attn = 2 * d * 5120 + 2 * d * 1024 + d;
  const i64 mlp = 2 * d * 15680 + d;
  CHECK(total_of(c) == 2 * v * d + d + 27 * mamba + 4 * attn + 25 * mlp);
  const LayerPlan p = plan_of(c);
  i64 kinds[3] = {0, 0, 0};
  for (i64 l = 0; l < c.n_layers; ++l) {
    const char b = c.block_pattern[static_cast<size_t>(l)];
    INFO(l << " " << b);
    const AttnKind k = p.cache_of(l).kind;
    CHECK(k == (b == 'M' ? AttnKind::Mamba : b == '*' ? AttnKind::Full : AttnKind::None));
    CHECK((p.layers[static_cast<size_t>(l)].ffn == FfnPlan::Dense) == (b == '-'));
    ++kinds[b == 'M' ? 0 : b == '*' ? 1 : 2];
  }
  CHECK(kinds[0] == 27);
  CHECK(kinds[1] == 4);
  CHECK(p.kv_bytes_per_token() == 4 * 2 * 8 * 128 * 2);
  // HybridMambaAttentionDynamicCache: conv (12,288 × 4) and SSM (128 × 80 × 128) states in bf16.
  CHECK(p.state_bytes_per_sequence() == 27 * (12288 * 4 + 128 * 80 * 128) * 2);
  CHECK(p.state_bytes_per_sequence() == 73'433'088);
  const Estimate e = llmsize::test::run(c, llmsize::test::with({{"seq", "8192"}, {"batch", "4"}}));
  CHECK(e.inference.state_bytes == 4 * 73'433'088);
  const Estimate t = llmsize::test::run(c, llmsize::test::with({{"mode", "training"}}));
  CHECK(t.training.activation_bytes > 0);
}

TEST_CASE("Nemotron-H's block pattern is validated and survives a share link", "[core][import]") {
  auto cfg = [](const std::string& pattern) {
    return R"({"model_type":"nemotron_h","hidden_size":64,"num_hidden_layers":4,"num_attention_heads":4,)"
           R"("num_key_value_heads":2,"head_dim":16,"vocab_size":100,"intermediate_size":128,"mamba_num_heads":8,)"
           R"("mamba_head_dim":8,"ssm_state_size":16,"n_groups":2,"conv_kernel":4,"hybrid_override_pattern":")" +
           pattern + "\"}";
  };
  auto ok = import_hf_config(cfg("M*-M"));
  REQUIRE(ok.ok());
  CHECK(ok->config.block_pattern == "M*-M");
  for (const char* bad : {"M*-", "M*-E", "M*-X"}) {
    INFO(bad);
    auto r = import_hf_config(cfg(bad));
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == "hybrid_override_pattern");
  }
  const ModelField* f = find_model_field("bp");
  REQUIRE(f != nullptr);
  ModelConfig c = ok->config;
  CHECK(f->get(c) == "M*-M");
  CHECK_FALSE(f->set(c, "M-*M").has_value());
  CHECK(c.block_pattern == "M-*M");
  CHECK(f->set(c, "M+").has_value());
}

TEST_CASE("Granite 4.0 H Small counts 32,207,337,984: 36 Mamba-2 and 4 attention layers, each with 72 experts and a shared MLP",
          "[core][params][anchor][plan]") {
  // ref: debaditc/kvfit scripts/build_registry.py, "exact params from HF safetensors": 32207337984 for
  //   ibm-granite/granite-4.0-h-small
  const ModelConfig c = preset("granite-4.0-h-small").config;
  CHECK(total_of(c) == 32'207'337'984);
  // By hand, modeling_granitemoehybrid.py: BambaMixer (d_inner 8,192, conv_dim 8,192 + 2·1·128): in_proj
  // d·(8,192 + 8,448 + 128), conv 8,448·4 + bias, dt_bias, A_log, D 128 each, gated norm 8,192, out_proj;
  // attention q, o d·d, k, v d·1,024; MoE router d·72, experts 72·3·d·768 (fused gate‖up), shared_mlp
  // 3·d·1,536; two norms; tied embedding; final norm.
  const i64 d = 4096, v = 100352;
  const i64 mamba = d * 16768 + 8448 * 4 + 8448 + 3 * 128 + 8192 + 8192 * d;
  const i64 attn = 2 * d * d + 2 * d * 1024;
  const i64 ffn = d * 72 + 72 * 3 * d * 768 + 3 * d * 1536 + 2 * d;
  CHECK(total_of(c) == v * d + d + 36 * mamba + 4 * attn + 40 * ffn);
  const LayerPlan p = plan_of(c);
  for (i64 l = 0; l < c.n_layers; ++l) {
    INFO(l);
    CHECK(p.cache_of(l).kind == (l % 10 == 5 ? AttnKind::Full : AttnKind::Mamba));
    CHECK(p.is_moe(l));
  }
  CHECK(p.kv_bytes_per_token() == 4 * 2 * 8 * 128 * 2);
  CHECK(p.state_bytes_per_sequence() == 36 * (8448 * 4 + 128 * 64 * 128) * 2);
  CHECK(c.pos == PosKind::None);  // position_embedding_type "nope"
  // The checkpoint's names: the fused experts and shared MLP, the Mamba mixer under "mamba".
  auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  std::vector<std::string> names;
  for (const Tensor& t : inv->kinds[0].tensors) names.push_back(t.name);
  for (const char* want : {"model.layers.{i}.mamba.in_proj.weight", "model.layers.{i}.block_sparse_moe.input_linear.weight",
                           "model.layers.{i}.block_sparse_moe.router.layer.weight",
                           "model.layers.{i}.shared_mlp.input_linear.weight", "model.layers.{i}.shared_mlp.output_linear.weight"}) {
    INFO(want);
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  }
}

TEST_CASE("StarCoder 15B counts 15,517,456,384: GPT-2's block with multi-query attention", "[core][params][anchor]") {
  // ref: a public table of StarCoder fine-tunes' shapes and counts: 'multipl-t-starcoder-15b-ocaml':
  //   (40, 6144, 15517456384.0) and 'multipl-t-starcoder-1b-ocaml': (24, 2048, 1137207296.0)
  const ModelConfig c = preset("starcoder-15b").config;
  CHECK(total_of(c) == 15'517'456'384);
  CHECK(c.n_kv_heads == 1);
  // By hand, modeling_gpt_bigcode.py: wte v·d, wpe 8,192·d; per block ln_1, ln_2 (2d each), c_attn d·(d + 2·hd)
  // + bias, c_proj d·d + d, c_fc d·4d + 4d, c_proj 4d·d + d; ln_f; tied head.
  auto block = [](i64 d, i64 hd) { return 4 * d + d * (d + 2 * hd) + d + 2 * hd + d * d + d + d * 4 * d + 4 * d + 4 * d * d + d; };
  CHECK(total_of(c) == 49152 * 6144 + 8192 * 6144 + 40 * block(6144, 128) + 2 * 6144);
  // The 1B sibling (24 layers, d 2,048, 16 heads) from the same table.
  ModelConfig one = c;
  one.n_layers = 24;
  one.d_model = 2048;
  one.n_heads = 16;
  one.d_ff = 4 * 2048;
  CHECK(total_of(one) == 1'137'207'296);
  CHECK(plan_of(c).kv_bytes_per_token() == 40 * 2 * 1 * 128 * 2);  // one K/V head
}

TEST_CASE("StarCoder2 15B counts 15,957,889,024: biased GQA attention and MLP, LayerNorms, every layer sliding",
          "[core][params][anchor][plan]") {
  // ref: a model card generated from the Hub's metadata of bigcode/starcoder2-15b (revision 46d4474…):
  //   "| Num parameters | 15,957,889,024 parameters \\(safetensors metadata\\) |"
  const ModelConfig c = preset("starcoder2-15b").config;
  CHECK(total_of(c) == 15'957'889'024);
  // By hand, modeling_starcoder2.py: q, o d·H·hd + bias; k, v d·K·hd + bias; c_fc d·f + f, c_proj f·d + d;
  // input_layernorm and post_attention_layernorm LayerNorms (weight and bias); final LayerNorm; untied head.
  const i64 d = 6144, L = 40, K = 4, hd = 128, f = 24576, v = 49152;
  const i64 layer = 2 * (d * d + d) + 2 * (d * K * hd + K * hd) + (d * f + f) + (f * d + d) + 4 * d;
  CHECK(total_of(c) == 2 * v * d + L * layer + 2 * d);
  // The 3B and 7B tie their heads (tie_word_embeddings absent: Starcoder2Config's default, confirmed in
  // bigcode-project/starcoder2 issue 18: "Is it because of tied embedding?" "Yes!").
  const std::string three = R"({"model_type": "starcoder2", "hidden_size": 3072, "intermediate_size": 12288,
    "num_hidden_layers": 30, "num_attention_heads": 24, "num_key_value_heads": 2, "vocab_size": 49152,
    "max_position_embeddings": 16384, "sliding_window": 4096, "use_bias": true, "norm_type": "layer_norm"})";
  const auto r3 = import_hf_config(three);
  REQUIRE(r3.ok());
  CHECK(r3->config.tie_embeddings);
  CHECK(total_of(r3->config) == 3'030'371'328);  // derived from the same tensor list; rounds to the card's "3.03B"
  // KV: all 40 layers slide over 4,096 tokens, 2 · K · hd · 2 B each.
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == L * 2 * K * hd * 2);
  CHECK(p.kv_cache_bytes(16384, 1).value() == L * 2 * K * hd * 2 * i64{4096});
  CHECK(p.caches.size() == 1);
  CHECK(p.cache_of(0).kind == AttnKind::Sliding);
}

TEST_CASE("ERNIE 4.5 21B-A3B counts 21,825,437,888: 27 MoE layers of 64 experts with two shared, the router's bias a parameter",
          "[core][params][anchor]") {
  // ref: the Hub's API record of baidu/ERNIE-4.5-21B-A3B-Thinking (same architecture), saved in a public repository:
  //   "safetensors":{"parameters":{"F32":4425408,"BF16":21821012480},"total":21825437888}
  const ModelConfig c = preset("ernie-4.5-21b-a3b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 21'825'437'888);
  // By hand, modeling_ernie4_5_moe.py: q, o d·H·hd; k, v d·K·hd (use_bias false); two RMSNorms; layer 0
  // dense (3·d·f); layers 1-27 MoE: router d·E and Ernie4_5_MoeStatics' correction bias 1 × E (an
  // nn.Parameter, so counted), 64 experts of 3·d·1536, shared experts as one MLP of 2 · 1536; tied head.
  const i64 d = 2560, H = 20, K = 4, hd = 128, f = 12288, E = 64, fe = 1536, v = 103424;
  const i64 attn = 2 * d * H * hd + 2 * d * K * hd + 2 * d;
  const i64 moe = d * E + E + E * 3 * d * fe + 3 * d * 2 * fe;
  CHECK(r.total == v * d + d + 28 * attn + 3 * d * f + 27 * moe);
  // The checkpoint's fp32 tensors are the router and its bias: 27 · (64 · 2560 + 64) = 4,425,408, as the record splits.
  CHECK(27 * (d * E + E) == 4'425'408);
  CHECK(r.mtp == 0);  // the MTP block the -PT checkpoint ships is not built by the model
  auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  bool statics = false;
  for (const LayerKind& k : inv->kinds)
    for (const Tensor& t : k.tensors) statics |= t.name == "model.layers.{i}.mlp.moe_statics.e_score_correction_bias";
  CHECK(statics);
  // moe_layer_end_index bounds the MoE layers; a value outside [start, L − 1] is refused by name.
  const std::string base = R"({"model_type": "ernie4_5_moe", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 6,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100, "moe_num_experts": 4, "moe_k": 2,
    "moe_intermediate_size": 32, "moe_num_shared_experts": 0, "moe_layer_start_index": 1, "moe_layer_interval": 2)";
  const auto ok = import_hf_config(base + R"(, "moe_layer_end_index": 3})");
  REQUIRE(ok.ok());
  std::vector<bool> moe_layers;
  for (i64 l = 0; l < 6; ++l) moe_layers.push_back(ok->config.layer_is_moe(l));
  CHECK(moe_layers == std::vector<bool>{false, true, false, true, false, false});  // (i + 1) % 2 == 0, 1 <= i <= 3
  const auto bad = import_hf_config(base + R"(, "moe_layer_end_index": 6})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues()[0].field == "moe_layer_end_index");
}

TEST_CASE("MiniMax-M2 counts 228,689,764,864: 62 layers of 256 experts, q/k norms over all heads", "[core][params][anchor]") {
  // ref: a public table of checkpoint totals: "MiniMaxAI/MiniMax-M2 | base | 228689764864"; llama.cpp's
  //   llama-bench on a MiniMax-M2.7 GGUF: "model_n_params: 228689764864". The same table's M2.5 row,
  //   228,703,644,928, also counts the FP8 checkpoint's weight_scale_inv blocks (13,880,064 values).
  const ModelConfig c = preset("minimax-m2").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 228'689'764'864);
  // By hand, modeling_minimax_m2.py: q, o d·H·hd; k, v d·K·hd; q_norm H·hd and k_norm K·hd (over every
  // head); two RMSNorms; router d·E and its correction bias E (a buffer in transformers, so its
  // num_parameters() is 62 · 256 = 15,872 lower; stored in the checkpoint and counted here, as for
  // DeepSeek-V3); 256 experts of 3·d·1536; untied head.
  const i64 d = 3072, H = 48, K = 8, hd = 128, E = 256, f = 1536, v = 200064;
  const i64 layer = 2 * d * H * hd + 2 * d * K * hd + H * hd + K * hd + 2 * d + d * E + E + E * 3 * d * f;
  CHECK(r.total == 2 * v * d + d + 62 * layer);
  CHECK(r.total - 62 * E == 228'689'748'992);
  // FP8 scales of the M2.5 row: one per 128 × 128 block of every expert and attention matrix.
  const i64 scales = 62 * (E * (2 * (f / 128) * (d / 128) + (d / 128) * (f / 128)) + 2 * (H * hd / 128) * (d / 128) +
                           2 * (K * hd / 128) * (d / 128));
  CHECK(r.total + scales == 228'703'644'928);
  CHECK(r.mtp == 0);  // use_mtp and num_mtp_modules name modules no checkpoint ships
  CHECK(c.norm_qk_full);
  CHECK(c.rotary_fraction == 0.5);  // rotary_dim 64 of head_dim 128
  CHECK(r.active == 2 * v * d + d + 62 * (layer - (E - 8) * 3 * d * f));
  // Only softmax layers are built: another attn_type_list value is refused by name.
  const std::string lin = R"({"model_type": "minimax_m2", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 32, "num_local_experts": 4, "attn_type_list": [0, 1]})";
  const auto bad = import_hf_config(lin);
  REQUIRE_FALSE(bad.ok());
  REQUIRE(bad.issues().size() == 1);
  CHECK(bad.issues()[0].field == "attn_type_list");
}

TEST_CASE("Qwen3.5 397B-A17B: 396,346,350,336 in the language model, 456,010,480 in the vision tower, 6,595,568,128 in MTP",
          "[core][params][anchor][plan]") {
  // ref: a public per-prefix split of the checkpoint: "language_model 396,346,350,336; visual 456,010,480;
  //   mtp 6,595,568,128"; their sum is the checkpoint's safetensors total, listed in a public table of
  //   Qwen3.5 totals as 403,397,928,944.
  const ModelConfig c = preset("qwen3.5-397b-a17b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 396'346'350'336);
  CHECK(r.vision == 456'010'480);
  CHECK(r.mtp == 6'595'568'128);
  CHECK(r.total + r.vision + r.mtp == 403'397'928'944);
  // By hand: Qwen3-Next's layers (modeling_qwen3_5_moe.py): Gated DeltaNet in_proj_qkv d·(2·kd + vd),
  // in_proj_z d·vd, in_proj_b and in_proj_a d·Hv, conv1d 4·(2·kd + vd), dt_bias and A_log Hv, norm 128,
  // out_proj vd·d; gated attention q 2·H·hd, k and v K·hd, o, q/k norms hd; 512 experts and a gated
  // shared expert in every layer.
  const i64 d = 4096, H = 32, K = 2, hd = 256, kd = 16 * 128, vd = 64 * 128, Hv = 64, E = 512, fe = 1024, v = 248320;
  const i64 gdn = d * (2 * kd + vd) + d * vd + 2 * d * Hv + 4 * (2 * kd + vd) + 2 * Hv + 128 + vd * d;
  const i64 attn = d * 2 * H * hd + 2 * d * K * hd + H * hd * d + 2 * hd;
  const i64 moe = d * E + E * 3 * d * fe + 3 * d * fe + d;
  CHECK(r.total == 2 * v * d + d + 45 * gdn + 15 * attn + 60 * (moe + 2 * d));
  // The tower by hand (modeling_qwen3_5.py Qwen3_5VisionModel): Conv3d 3·2·16·16·h + h, 2,304 positions,
  // 27 blocks (two LayerNorms, qkv and proj with biases, fc1/fc2 with biases), the merger (LayerNorm,
  // linear_fc1 4h·4h + 4h, linear_fc2 4h·d + d).
  {
    const i64 h = 1152, f = 4304;
    const i64 block = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * f + f) + (f * h + h);
    CHECK(r.vision == 3 * 2 * 16 * 16 * h + h + 2304 * h + 27 * block + 2 * h + (16 * h * h + 4 * h) + (4 * h * d + d));
  }
  // Memory: KV only in the 15 full layers; the 45 DeltaNet layers hold conv (12,288 channels × 4 in
  // bf16) and an fp32 recurrent state of 64 heads × 128 × 128 per sequence.
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == 15 * 2 * K * hd * 2);
  CHECK(p.state_bytes_per_sequence() == 45 * ((2 * kd + vd) * 4 * 2 + Hv * 128 * 128 * 4));
}

TEST_CASE("Qwen3.5 dense and MoE sizes match KerasHub's published counts of language model plus vision tower",
          "[core][params][anchor]") {
  // ref: keras-team/keras-hub keras_hub/src/models/qwen3_5/qwen3_5_presets.py ("qwen3_5_0.8b" … "params":
  //   852985920, "qwen3_5_2b" … 2213241664, "qwen3_5_4b" … 4539265536, "qwen3_5_9b" … 9409813744,
  //   "qwen3_5_27b" … 27356728560) and qwen3_5_moe_presets.py ("qwen3_5_moe_35b_a3b" … "params": 35107181936).
  // Shapes per checkpoint as a public port lists them (p-doom/omegalax omegalax/models/qwen3_5/config.py).
  struct Size {
    const char* type;
    i64 d, L, H, K, f, Hv, experts;
    bool tied;
    i64 vL, vh, vf, published;
  };
  const Size sizes[] = {
      {"qwen3_5", 1024, 24, 8, 2, 3584, 16, 0, true, 12, 768, 3072, 852'985'920},
      {"qwen3_5", 2048, 24, 8, 2, 6144, 16, 0, true, 24, 1024, 4096, 2'213'241'664},
      {"qwen3_5", 2560, 32, 16, 4, 9216, 32, 0, true, 24, 1024, 4096, 4'539'265'536},
      {"qwen3_5", 4096, 32, 16, 4, 12288, 32, 0, false, 27, 1152, 4304, 9'409'813'744},
      {"qwen3_5", 5120, 64, 24, 4, 17408, 48, 0, false, 27, 1152, 4304, 27'356'728'560},
      {"qwen3_5_moe", 2048, 40, 16, 2, 0, 32, 256, false, 27, 1152, 4304, 35'107'181'936},
  };
  for (const Size& z : sizes) {
    INFO(z.d);
    const std::string moe = z.experts ? R"(, "num_experts": )" + std::to_string(z.experts) +
                                            R"(, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "num_experts_per_tok": 8)"
                                      : R"(, "intermediate_size": )" + std::to_string(z.f);
    const std::string json = std::string(R"({"model_type": ")") + z.type + R"(", "tie_word_embeddings": )" +
                             (z.tied ? "true" : "false") + R"(, "text_config": {"model_type": ")" + z.type +
                             R"(_text", "hidden_size": )" + std::to_string(z.d) + R"(, "num_hidden_layers": )" +
                             std::to_string(z.L) + R"(, "num_attention_heads": )" + std::to_string(z.H) +
                             R"(, "num_key_value_heads": )" + std::to_string(z.K) + R"(, "linear_num_value_heads": )" +
                             std::to_string(z.Hv) + R"(, "vocab_size": 248320, "mtp_num_hidden_layers": 1)" + moe +
                             R"(}, "vision_config": {"model_type": ")" + z.type + R"(", "depth": )" + std::to_string(z.vL) +
                             R"(, "hidden_size": )" + std::to_string(z.vh) + R"(, "intermediate_size": )" + std::to_string(z.vf) +
                             R"(, "out_hidden_size": )" + std::to_string(z.d) + R"(, "deepstack_visual_indexes": []}})";
    const auto imported = import_hf_config(json);
    REQUIRE(imported.ok());
    CHECK(imported->config.tie_embeddings == z.tied);
    const ParamReport r = llmsize::test::param_report(imported->config);
    CHECK(r.total + r.vision == z.published);
  }
  // The 0.8B's own split (a public note on the checkpoint): "the language model (752,393,024), a vision
  // tower (100,592,896) and a multi-token-prediction head (20,452,864)", 873,438,784 in the checkpoint.
  const ParamReport small = llmsize::test::param_report(preset("qwen3.5-0.8b").config);
  CHECK(small.total == 752'393'024);
  CHECK(small.vision == 100'592'896);
  CHECK(small.mtp == 20'452'864);
  CHECK(small.total + small.vision + small.mtp == 873'438'784);
}

TEST_CASE("Qwen3.5 wrappers: the head's tie, the tower's width and DeepStack are checked by name", "[core][import]") {
  auto cfg = [](const std::string& top, const std::string& text, const std::string& vision) {
    return R"({"model_type": "qwen3_5")" + top + R"(, "text_config": {"model_type": "qwen3_5_text", "hidden_size": 1024,
      "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 3584,
      "linear_num_value_heads": 16)" + text + R"(}, "vision_config": {"model_type": "qwen3_5_vision", "depth": 2,
      "hidden_size": 64, "intermediate_size": 128, "num_heads": 4, "out_hidden_size": 1024)" + vision + "}}";
  };
  SECTION("the wrapper's tie_word_embeddings decides; text_config's alone is read too") {
    auto top = import_hf_config(cfg(R"(, "tie_word_embeddings": true)", "", ""));
    REQUIRE(top.ok());
    CHECK(top->config.tie_embeddings);
    auto text = import_hf_config(cfg("", R"(, "tie_word_embeddings": true)", ""));
    REQUIRE(text.ok());
    CHECK(text->config.tie_embeddings);
    auto neither = import_hf_config(cfg("", "", ""));
    REQUIRE(neither.ok());
    CHECK_FALSE(neither->config.tie_embeddings);  // Qwen3_5Config and Qwen3_5TextConfig: false
  }
  SECTION("two ties that disagree are refused") {
    auto r = import_hf_config(cfg(R"(, "tie_word_embeddings": true)", R"(, "tie_word_embeddings": false)", ""));
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == "tie_word_embeddings");
  }
  SECTION("the merger must map into the language model's width") {
    std::string wide = cfg("", "", "");
    wide.replace(wide.find(R"("out_hidden_size": 1024)"), 23, R"("out_hidden_size": 2048)");
    auto r = import_hf_config(wide);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == "vision_config.out_hidden_size");
  }
  SECTION("DeepStack mergers (Qwen3-VL) are refused, an empty list is not") {
    auto r = import_hf_config(cfg("", "", R"(, "deepstack_visual_indexes": [5, 11, 17])"));
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == "vision_config.deepstack_visual_indexes");
    CHECK(import_hf_config(cfg("", "", R"(, "deepstack_visual_indexes": [])")).ok());
  }
  SECTION("an old checkpoint's vision model_type \"qwen3_5\" is read, another is refused") {
    std::string old = cfg("", "", "");
    old.replace(old.find("qwen3_5_vision"), 14, "qwen3_5");
    CHECK(import_hf_config(old).ok());
    std::string other = cfg("", "", "");
    other.replace(other.find("qwen3_5_vision"), 14, "siglip_vision_model");
    auto r = import_hf_config(other);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == "vision_config.model_type");
  }
}

TEST_CASE("Jamba 1.5 Mini counts 51,570,323,328: 28 Mamba-1 and 4 attention layers, MoE on every other; 9,175,040 state bytes per sequence",
          "[core][params][anchor][plan]") {
  // ref: the checkpoint's index, quoted in a generated model card: "(total_size: 103140646656)" at two bf16
  //   bytes per parameter; a public port's notes: "Jamba-v0.1, reproducing 51,570,323,328 exactly, … Jamba also
  //   norms the timestep and both gates before the scan … [256], [16] and [16], and being 8,064 short across
  //   the model is how that was found."
  const ModelConfig c = preset("jamba-1.5-mini").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 51'570'323'328);
  CHECK(2 * r.total == 103'140'646'656);
  // By hand, modeling_jamba.py: attention q, o d·d and k, v d·K·hd, no biases (layers 4, 12, 20, 28); the
  // Mamba mixer elsewhere: in_proj d·2di, conv1d 4·di + di, x_proj di·(R + 2N), dt_proj R·di + di, A_log
  // di·N, D di, out_proj di·d, dt/B/C RMSNorms R + 2N; two norms per layer; dense SwiGLU on even layers,
  // 16 experts and a router on odd ones; final norm; untied head.
  const i64 d = 4096, K = 8, hd = 128, f = 14336, E = 16, v = 65536, di = 8192, R = 256, N = 16;
  const i64 attn = 2 * d * d + 2 * d * K * hd;
  const i64 mamba = d * 2 * di + 4 * di + di + di * (R + 2 * N) + R * di + di + di * N + di + di * d + R + 2 * N;
  CHECK(r.total == 2 * v * d + d + 4 * attn + 28 * mamba + 32 * 2 * d + 16 * 3 * d * f + 16 * (d * E + E * 3 * d * f));
  CHECK(r.active == r.total - 16 * (E - 2) * 3 * d * f);  // "12B active"
  // Memory: KV only in the 4 attention layers; each Mamba layer keeps conv (di × 4) and SSM (di × 16)
  // states in the model dtype (HybridMambaAttentionDynamicCache).
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == 4 * 2 * K * hd * 2);
  CHECK(p.state_bytes_per_sequence() == 28 * di * (4 + 16) * 2);
  CHECK(p.state_bytes_per_sequence() == 9'175'040);
  for (i64 l = 0; l < 32; ++l) {
    INFO(l);
    CHECK(p.cache_of(l).kind == (l % 8 == 4 ? AttnKind::Full : AttnKind::Mamba1));
    CHECK(p.is_moe(l) == (l % 2 == 1));
  }
  // mamba_dt_rank "auto" is ceil(hidden_size / 16); a period/offset pair that places no layer is refused.
  const std::string base = R"({"model_type": "jamba", "hidden_size": 100, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 64, "vocab_size": 32, "num_experts": 1, "attn_layer_period": 2)";
  const auto auto_rank = import_hf_config(base + R"(, "attn_layer_offset": 1, "mamba_dt_rank": "auto"})");
  REQUIRE(auto_rank.ok());
  CHECK(auto_rank->config.mamba1.dt_rank == 7);
  CHECK_FALSE(auto_rank->config.is_moe());  // one expert: JambaMLP everywhere
  CHECK(auto_rank->config.block_pattern == "S*S*");
  const auto bad = import_hf_config(base + R"(, "attn_layer_offset": 2})");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues()[0].field == "attn_layer_offset");
}

TEST_CASE("Falcon-H1 0.5B counts 521,411,104: attention beside a Mamba-2 mixer in all 36 layers; KV and state in every layer",
          "[core][params][anchor][plan]") {
  // ref: a public measurement: "tiiuae/Falcon-H1-0.5B-Base … Measured: 521,411,104 params (100% bfloat16)".
  const ModelConfig c = preset("falcon-h1-0.5b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 521'411'104);
  // By hand, modeling_falcon_h1.py: mamba in_proj d·(2·d_ssm + 2·G·N + nH), conv1d 4·(d_ssm + 2GN) + bias,
  // dt_bias, A_log, D per head, no gated norm (mamba_rms_norm false), out_proj d_ssm·d; attention q, o
  // d·H·hd, k, v d·K·hd; SwiGLU 3·d·f; two RMSNorms; final norm; untied head.
  const i64 d = 1024, H = 8, K = 2, hd = 64, f = 2048, v = 32784, dssm = 1536, nH = 24, N = 128;
  const i64 conv = dssm + 2 * N;
  const i64 mamba = d * (2 * dssm + 2 * N + nH) + 5 * conv + 3 * nH + dssm * d;
  const i64 layer = mamba + 2 * d * H * hd + 2 * d * K * hd + 3 * d * f + 2 * d;
  CHECK(r.total == 2 * v * d + d + 36 * layer);
  // Memory: every layer keeps K and V and a conv + SSM state (FalconHybridMambaAttentionDynamicCache).
  const LayerPlan p = plan_of(c);
  REQUIRE(p.caches.size() == 1);
  CHECK(p.cache_of(0).kind == AttnKind::FullMamba);
  CHECK(p.kv_bytes_per_token() == 36 * 2 * K * hd * 2);
  CHECK(p.state_bytes_per_sequence() == 36 * (conv * 4 + nH * 64 * N) * 2);
  CHECK(p.state_bytes_per_sequence() == 14'671'872);
}

TEST_CASE("Falcon-H1's μP multipliers and gated-norm order are read from its config, and bad lists are refused by name",
          "[core][import]") {
  // The 0.5B preset's config.json: "key_multiplier": 0.39062499999999994, "ssm_multipliers": [0.3535533905932738,
  // 0.25, 0.3535533905932738, 0.5, 0.3535533905932738], "mlp_multipliers": [0.8838834764831844, 0.5859375],
  // "lm_head_multiplier": 0.0390625, "mamba_norm_before_gate": false (the reference block applies them).
  const ModelConfig c = preset("falcon-h1-0.5b").config;
  CHECK(c.mup.key == 0.39062499999999994);
  CHECK(c.mup.attn_in == 1.0);
  CHECK(c.mup.attn_out == 0.9375);
  CHECK(c.mup.ssm_in == 1.25);
  CHECK(c.mup.ssm_out == 0.23570226039551587);
  CHECK(c.mup.ssm == std::array<double, 5>{0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738});
  CHECK(c.mup.mlp_gate == 0.8838834764831844);
  CHECK(c.mup.mlp_down == 0.5859375);
  CHECK(c.mup.lm_head == 0.0390625);
  CHECK(c.embed_mult == 5.656854249492381);
  CHECK_FALSE(c.mamba.norm_before_gate);
  CHECK(c.mamba.dt_floor == 0.0);
  // FalconH1Config's defaults: 1.0 each, null lists of ones, mamba_norm_before_gate true.
  const std::string base = R"({"model_type": "falcon_h1", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000, "mamba_n_heads": 8, "mamba_d_ssm": 512,
      "mamba_d_state": 16)";
  const auto plain = import_hf_config(base + R"(, "ssm_multipliers": null})");
  REQUIRE(plain.ok());
  CHECK(plain->config.mup == MupConfig{});
  CHECK(plain->config.mamba.norm_before_gate);
  for (const char* bad : {R"(, "ssm_multipliers": [1, 2]})", R"(, "mlp_multipliers": [1, "x"]})", R"(, "mlp_multipliers": 2})"}) {
    INFO(bad);
    const auto r = import_hf_config(base + bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].message.find("must be null or a list of") != std::string::npos);
    CHECK(r.issues()[0].field.find("_multipliers") != std::string::npos);
  }
  const auto neg = import_hf_config(base + R"(, "key_multiplier": -1})");
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.issues()[0].field == "key_multiplier");
}

TEST_CASE("Falcon-H1 1.5B and 7B match their published counts; mamba_d_ssm and mamba_d_head follow FalconH1Config",
          "[core][params][anchor][import]") {
  // ref: a public script pinned to the 1.5B checkpoint: "sum(p.numel() for p in model.parameters()) == 1554863488";
  //   public notes on the 7B: "Hub tensors 7,585,654,880" (Instruct, vocab 130,049) and "Falcon-H1-7B-Base
  //   (44 layers, 7,585,648,736)" (vocab 130,048). Shapes from the transformers docs' Falcon-H1 table and
  //   Megatron-Bridge's falconh1_provider.py.
  auto json = [](i64 d, i64 L, i64 H, i64 f, i64 v, i64 nH, i64 P, i64 dssm) {
    return R"({"model_type": "falcon_h1", "hidden_size": )" + std::to_string(d) + R"(, "num_hidden_layers": )" +
           std::to_string(L) + R"(, "num_attention_heads": )" + std::to_string(H) +
           R"(, "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": )" + std::to_string(f) +
           R"(, "vocab_size": )" + std::to_string(v) + R"(, "mamba_n_heads": )" + std::to_string(nH) + R"(, "mamba_d_head": )" +
           std::to_string(P) + R"(, "mamba_d_ssm": )" + std::to_string(dssm) +
           R"(, "mamba_d_state": 256, "mamba_n_groups": 1, "mamba_rms_norm": true, "tie_word_embeddings": false})";
  };
  const auto b15 = import_hf_config(json(2048, 24, 8, 4608, 65537, 48, 64, 3072));
  REQUIRE(b15.ok());
  CHECK(llmsize::test::param_report(b15->config).total == 1'554'863'488);
  const auto b7 = import_hf_config(json(3072, 44, 12, 12288, 130049, 24, 128, 3072));
  REQUIRE(b7.ok());
  CHECK(llmsize::test::param_report(b7->config).total == 7'585'654'880);
  const auto b7base = import_hf_config(json(3072, 44, 12, 12288, 130048, 24, 128, 3072));
  REQUIRE(b7base.ok());
  CHECK(llmsize::test::param_report(b7base->config).total == 7'585'648'736);
  // "auto" head width is the quotient; a width that does not divide is refused by name; so are biases
  // this reading does not place, and attention on only some layers.
  std::string autoh = json(2048, 24, 8, 4608, 65537, 48, 64, 3072);
  autoh.replace(autoh.find(R"("mamba_d_head": 64)"), 18, R"("mamba_d_head": "auto")");
  const auto a = import_hf_config(autoh);
  REQUIRE(a.ok());
  CHECK(a->config.mamba.head_dim == 64);
  const auto bad = import_hf_config(json(2048, 24, 8, 4608, 65537, 48, 60, 3072));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues()[0].field == "mamba_d_head");
  std::string biased = json(2048, 24, 8, 4608, 65537, 48, 64, 3072);
  biased.insert(1, R"("projectors_bias": true, )");
  const auto pb = import_hf_config(biased);
  REQUIRE_FALSE(pb.ok());
  CHECK(pb.issues()[0].field == "projectors_bias");
  std::string some = json(2048, 24, 8, 4608, 65537, 48, 64, 3072);
  some.insert(1, R"("attn_layer_indices": [0, 5], )");
  const auto si = import_hf_config(some);
  REQUIRE_FALSE(si.ok());
  CHECK(si.issues()[0].field == "attn_layer_indices");
}

TEST_CASE("Llama 3.3 Nemotron Super 49B counts 49,867,145,216: per-layer KV heads and FFN widths, 31 layers without attention",
          "[core][params][anchor][plan]") {
  // ref: a public research log on this model: "Confirmed size 49,867,145,216 bf16 params ≈ 99.75 GB".
  const ModelConfig c = preset("llama-3.3-nemotron-super-49b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 49'867'145'216);
  // By hand (vLLM nemotron_nas.py DeciLMDecoderLayer): an attention block is input_layernorm + q, o d·d and
  // k, v d·K·hd with K = 64 / n_heads_in_group = 8; a no_op block has no tensors; an FFN block is
  // post_attention_layernorm + 3·d·f with f = int(2 · ffn_mult · d / 3) rounded up to 256.
  const i64 d = 8192, v = 128256;
  const i64 attn = d + 2 * d * d + 2 * d * 1024;
  auto ffn = [&](i64 f) { return d + 3 * d * f; };
  // 49 layers attend; FFN widths: 49 × 28,672 (ffn_mult 5.25), 6 × 14,336 (2.625), 1 × 17,920 (3.28125),
  // 10 × 7,168 (1.3125), 8 × 5,632 (1.0), 6 × 2,816 (0.5).
  CHECK(r.total == 2 * v * d + d + 49 * attn + 49 * ffn(28672) + 6 * ffn(14336) + ffn(17920) + 10 * ffn(7168) +
                       8 * ffn(5632) + 6 * ffn(2816));
  i64 attending = 0;
  for (i64 k : c.layer_kv_heads) attending += k == 8 ? 1 : k == 0 ? 0 : 1000;
  CHECK(attending == 49);
  CHECK(c.widest_ffn() == 28672);
  CHECK(c.ffn_at(62) == 2816);
  // KV only in the 49 attention layers: 2 · 8 · 128 · 2 B each, where a uniform reading of 80 layers
  // would print 327,680 B per token.
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == 49 * 2 * 8 * 128 * 2);
  CHECK(p.cache_of(6).kind == AttnKind::None);
  CHECK(p.cache_of(0).kind == AttnKind::Full);
  CHECK(p.layers[6].ffn == FfnPlan::Dense);
  // Blocks this reading does not model are refused by name.
  const std::string base = R"({"model_type": "nemotron-nas", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "vocab_size": 100, "block_configs": [{"attention": {"n_heads_in_group": 2}, "ffn": {"ffn_mult": 1.0}}, )";
  const auto ok = import_hf_config(base + R"({"attention": {"no_op": true}, "ffn": {"no_op": true}}]})");
  REQUIRE(ok.ok());
  CHECK(ok->config.layer_kv_heads == std::vector<i64>{2, 0});
  CHECK(ok->config.layer_ffn == std::vector<i64>{256, 0});  // int(2 · 1.0 · 64 / 3) = 42, rounded up to 256
  const auto linear = import_hf_config(base + R"({"attention": {"replace_with_linear": true}, "ffn": {"ffn_mult": 1.0}}]})");
  REQUIRE_FALSE(linear.ok());
  CHECK(linear.issues()[0].field == "block_configs[1].attention.replace_with_linear");
  const auto window = import_hf_config(base + R"({"attention": {"n_heads_in_group": 2, "window_length": 512}, "ffn": {"ffn_mult": 1.0}}]})");
  REQUIRE_FALSE(window.ok());
  CHECK(window.issues()[0].field == "block_configs[1].attention.window_length");
  const auto group = import_hf_config(base + R"({"attention": {"n_heads_in_group": 3}, "ffn": {"ffn_mult": 1.0}}]})");
  REQUIRE_FALSE(group.ok());
  CHECK(group.issues()[0].field == "block_configs[1].attention.n_heads_in_group");
  std::string three = base + R"({"attention": {"no_op": true}, "ffn": {"no_op": true}}]})";
  three.replace(three.find(R"("num_hidden_layers": 2)"), 22, R"("num_hidden_layers": 3)");
  const auto short_list = import_hf_config(three);
  REQUIRE_FALSE(short_list.ok());
  CHECK(short_list.issues()[0].field == "block_configs");
}

TEST_CASE("Gemma 4 E4B counts 7,463,013,376: per-layer embeddings, 18 KV-shared layers that keep no cache of their own",
          "[core][params][anchor][plan]") {
  // ref: a public count of the text model, "matching HuggingFace": "# E4B: 7,463,013,376 params".
  const ModelConfig c = preset("gemma-4-e4b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 7'463'013'376);
  // By hand, modeling_gemma4.py: embed v·d; PLE table 262,144 · L·256, its projection d · L·256 and norm 256;
  // final norm; per layer four norms, the PLE gate d·256, projection 256·d and norm d, SwiGLU 3·d·f; attention
  // q and o d·H·hd, q_norm hd, and on the first 24 layers k, v d·K·hd and k_norm hd; hd = 512 on full layers.
  const i64 d = 2560, L = 42, H = 8, K = 2, f = 10240, v = 262144, P = 256;
  const i64 global = v * d + v * L * P + d * L * P + P + d;
  const i64 layer = 4 * d + 2 * d * P + d + 3 * d * f;
  auto attn = [&](i64 hd, bool own) { return 2 * d * H * hd + hd + (own ? 2 * d * K * hd + hd : 0); };
  CHECK(r.total == global + L * layer + 20 * attn(256, true) + 4 * attn(512, true) + 15 * attn(256, false) + 3 * attn(512, false));
  // KV only in the 24 layers before the shared ones: 20 sliding (K · 256) and 4 full (K · 512).
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == (20 * 2 * K * 256 + 4 * 2 * K * 512) * 2);
  CHECK(p.kv_bytes_per_token() == 57'344);
  CHECK(p.kv_cache_bytes(131072, 1).value() == (20 * 2 * K * 256 * i64{512} + 4 * 2 * K * 512 * i64{131072}) * 2);
  for (i64 l = 24; l < L; ++l) {
    INFO(l);
    CHECK(p.cache_of(l).kind == AttnKind::Shared);
  }
  CHECK(p.cache_of(23).kind == AttnKind::Full);
  CHECK(p.cache_of(23).k_dim == 512);
  // E2B (35 layers, the last 20 shared and double-wide): a text decoder of 4,628,569,344 in public notes
  // ("The text decoder has 4,628,569,344 parameters"), 18,880,512 less than its checkpoint stores: the
  // shared layers' k_proj, v_proj and k_norm, which the model no longer builds.
  ModelConfig e2b = c;
  e2b.d_model = 1536;
  e2b.n_layers = 35;
  e2b.d_ff = 6144;
  e2b.n_kv_heads = 1;
  e2b.kv_shared = 20;
  e2b.double_wide = true;
  e2b.sliding_pattern = 5;
  CHECK(total_of(e2b) == 4'628'569'344);
  CHECK(plan_of(e2b).kv_bytes_per_token() == 18'432);
}

TEST_CASE("Gemma 4 31B counts 30,697,345,280: full layers with 4 KV heads of 512 and no v_proj", "[core][params][anchor][plan]") {
  // ref: a public analysis of the checkpoint: "Packed private W is exactly 30,697,345,280 scalars".
  const ModelConfig c = preset("gemma-4-31b").config;
  CHECK(total_of(c) == 30'697'345'280);
  // By hand: sliding layers q, o d·32·256, k, v d·16·256, q/k norms 256; full layers q, o d·32·512, k
  // d·4·512 and no v_proj (attention_k_eq_v), q/k norms 512; four norms and 3·d·f per layer; tied head.
  const i64 d = 5376, f = 21504, v = 262144;
  const i64 sliding = 2 * d * 32 * 256 + 2 * d * 16 * 256 + 512, full = 2 * d * 32 * 512 + d * 4 * 512 + 1024;
  CHECK(total_of(c) == v * d + d + 60 * (4 * d + 3 * d * f) + 50 * sliding + 10 * full);
  // The cache still stores V for the full layers (the same shape as K): 50 · 2 · 16 · 256 + 10 · 2 · 4 · 512.
  CHECK(plan_of(c).kv_bytes_per_token() == (50 * 2 * 16 * 256 + 10 * 2 * 4 * 512) * 2);
  // Refused by name: the MoE variant without its sizes (Gemma4TextConfig defaults them to None), a
  // last layer that slides, and the newer per_layer_config spelling.
  const std::string moe = R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 128, "enable_moe_block": true})";
  const auto m = import_hf_config(moe);
  REQUIRE_FALSE(m.ok());
  REQUIRE(m.issues().size() == 3);
  CHECK(m.issues()[0].field == "num_experts");
  CHECK(m.issues()[1].field == "top_k_experts");
  CHECK(m.issues()[2].field == "moe_intermediate_size");
  const std::string odd = R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 7, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 128})";
  const auto o = import_hf_config(odd);
  REQUIRE_FALSE(o.ok());
  CHECK(o.issues()[0].field == "layer_types");
}

TEST_CASE("Gemma 4 26B-A4B counts 25,233,141,760 (3,822,530,560 active): 128 experts beside each layer's dense MLP",
          "[core][params][anchor][plan]") {
  // ref: a fine-tuning record of google/gemma-4-26B-A4B-it: "The **25,233,141,760 loaded text parameters** and
  //   **25,805,933,872 total loaded parameters** are separate from the nominal **3,822,530,560 active text
  //   parameters per token**"; a header-only audit: "25,805,936,206 stored parameters: 25,233,141,790 in
  //   `model.language_model`, 569,550,384 in the vision tower, and 3,244,032 in its vision projection" (the 30
  //   layer_scalar buffers make the 30); "Routed expert parameters 22,837,985,280".
  const ModelConfig c = preset("gemma-4-26b-a4b").config;
  CHECK(c.moe.dense_beside);
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 25'233'141'760);
  CHECK(r.active == 3'822'530'560);
  // By hand, modeling_gemma4.py: sliding layers q, o d·16·256, k, v d·8·256, q/k norms 256; full layers q, o
  // d·16·512, k d·2·512 and no v_proj, q/k norms 512; per layer the dense MLP 3·d·2112, the router's proj d·128,
  // scale d and per_expert_scale 128, the experts' gate_up 128·1408·d and down 128·d·704, seven norms.
  const i64 d = 2816, v = 262144, E = 128, fe = 704, f = 2112;
  const i64 sliding = 2 * d * 16 * 256 + 2 * d * 8 * 256 + 512, full = 2 * d * 16 * 512 + d * 2 * 512 + 1024;
  const i64 experts = E * 3 * d * fe, layer = 7 * d + 3 * d * f + d * E + d + E + experts;
  CHECK(experts * 30 == 22'837'985'280);
  CHECK(r.total == v * d + d + 30 * layer + 25 * sliding + 5 * full);
  CHECK(r.active == r.total - 30 * (E - 8) * 3 * d * fe);
  // Every layer routes; the cache is Gemma 4's: 25 sliding layers of 8 KV heads of 256, 5 full of 2 heads of 512.
  const LayerPlan p = plan_of(c);
  for (i64 l = 0; l < 30; ++l) CHECK(p.is_moe(l));
  CHECK(p.kv_bytes_per_token() == (25 * 2 * 8 * 256 + 5 * 2 * 2 * 512) * 2);
  // The tensors' names are the checkpoint's (Gemma4TextDecoderLayer, Gemma4TextRouter, Gemma4TextExperts).
  const auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  std::vector<std::string> names;
  for (const auto& k : inv->kinds)
    for (const auto& t : k.tensors) names.push_back(t.name);
  for (const char* n : {"model.layers.{i}.router.proj.weight", "model.layers.{i}.router.scale", "model.layers.{i}.router.per_expert_scale",
                        "model.layers.{i}.experts.gate_up_proj", "model.layers.{i}.experts.down_proj", "model.layers.{i}.mlp.gate_proj.weight",
                        "model.layers.{i}.pre_feedforward_layernorm_2.weight", "model.layers.{i}.post_feedforward_layernorm_1.weight",
                        "model.layers.{i}.post_feedforward_layernorm_2.weight"}) {
    INFO(n);
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  }
  // The vision tower (modeling_gemma4.py Gemma4VisionModel, Gemma4MultimodalEmbedder) by hand: 27 layers of q, k,
  // v, o 1152², q/k norms 72, a gated MLP 3·1152·4304 and four norms; input_proj 3·16²·1152, a position table
  // 2·10,240·1152, std_bias and std_scale; the projector 1152·2816. The audit's 569,550,384 and 3,244,032.
  const i64 h = 1152, tower = 27 * (4 * h * h + 144 + 3 * h * 4304 + 4 * h) + 3 * 16 * 16 * h + 2 * 10240 * h + 2 * h;
  CHECK(tower == 569'550'384);
  CHECK(r.vision == tower + h * d);
  CHECK(r.total + r.vision == 25'805'936'206 - 30);  // the checkpoint's stored count, its 30 layer_scalar buffers apart
  // Gemma 4 31B's checkpoint carries the same tower, projected into 5,376: the Hub's 31,273,088,876 less its 60
  // layer_scalar buffers (a public model listing: "31B 31273088876").
  ModelConfig big = preset("gemma-4-31b").config;
  big.vision = c.vision;
  CHECK(llmsize::test::param_report(big).total + llmsize::test::param_report(big).vision == 31'273'088'876 - 60);
  // Gemma4Config's towers: none without vision_config; an audio tower (E2B, E4B) refused by name; a tower whose
  // KV heads or head size differ from the counted layout refused by name.
  auto wrap = json_util::json::parse(llmsize::test::read_text("../presets/models/148-gemma-4-26b-a4b.json")).at("config");
  auto text_only = wrap;
  text_only.erase("vision_config");
  const auto t = import_hf_config(text_only.dump());
  REQUIRE(t.ok());
  CHECK_FALSE(t->config.vision.enabled());
  auto audio = wrap;
  audio["audio_config"] = {{"model_type", "gemma4_audio"}};
  const auto a = import_hf_config(audio.dump());
  REQUIRE_FALSE(a.ok());
  CHECK(a.issues()[0].field == "audio_config");
  auto odd = wrap;
  odd["vision_config"]["num_key_value_heads"] = 8;
  const auto o = import_hf_config(odd.dump());
  REQUIRE_FALSE(o.ok());
  CHECK(o.issues()[0].field == "vision_config.num_key_value_heads");
  // Gemma4TextConfig leaves the three MoE sizes None: each is required with enable_moe_block.
  auto j = json_util::json::parse(R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 128, "enable_moe_block": true, "num_experts": 8, "top_k_experts": 2,
    "moe_intermediate_size": 16})");
  const auto small = import_hf_config(j.dump());
  REQUIRE(small.ok());
  CHECK(small->config.moe.shared_ffn == 128);
  CHECK(small->config.moe.expert_ffn == 16);
  j["top_k_experts"] = 9;
  const auto too_many = import_hf_config(j.dump());
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.issues()[0].field == "num_experts_per_tok");
}

TEST_CASE("Nemotron 3 Nano 30B-A3B counts 31,577,937,344 (3,580,073,408 active): 23 Mamba-2, 6 attention and 23 MoE blocks",
          "[core][params][anchor][plan]") {
  // ref: the checkpoint's index, quoted in a public note: "The HF index reports total_parameters=31,577,937,344,
  //   total_size=63,155,886,464"; the technical report: "Nemotron 3 Nano totals 31.6B parameters out of which
  //   only 3.2B are activated per forward pass (3.6B including embeddings)".
  const ModelConfig c = preset("nemotron-3-nano-30b-a3b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 31'577'937'344);
  CHECK(r.active == 3'580'073'408);
  // By hand, modeling_nemotron_h.py: each block one RMSNorm; Mamba-2 in_proj d·(2·di + 2·G·N + nh), conv1d
  // 4·conv_dim + conv_dim, dt_bias, A_log, D, gated norm di, out_proj di·d (di = 64 · 64); attention q, o d·32·128,
  // k, v d·2·128; NemotronHMoE: router d·E, 128 relu² experts up and down of 1,856, one shared expert of 3,712
  // (its e_score_correction_bias is a buffer: the index total leaves out 23 · 128 values, stored in fp32:
  // 63,155,886,464 = 2 · 31,577,937,344 + 4 · 2,944).
  const i64 d = 2688, di = 4096, N = 128, G = 8, nh = 64, E = 128, fe = 1856, fs = 3712, v = 131072;
  const i64 conv = di + 2 * G * N;
  const i64 mamba = d + d * (di + conv + nh) + 5 * conv + 3 * nh + di + di * d;
  const i64 attn = d + 2 * d * 32 * 128 + 2 * d * 2 * 128;
  const i64 moe = d + d * E + E * 2 * d * fe + 2 * d * fs;
  CHECK(r.total == 2 * v * d + d + 23 * mamba + 6 * attn + 23 * moe);
  CHECK(63'155'886'464 == 2 * r.total + 4 * 23 * E);
  const LayerPlan p = plan_of(c);
  CHECK(p.kv_bytes_per_token() == 6 * 2 * 2 * 128 * 2);
  CHECK(p.layers[1].ffn == FfnPlan::Moe);
  CHECK(p.cache_of(1).kind == AttnKind::None);
  CHECK(p.layers[0].ffn == FfnPlan::None);
  // Nemotron 3 Super's latent MoE is refused by name; experts without 'E' blocks change nothing.
  std::string base = R"({"model_type": "nemotron_h", "hidden_size": 64, "num_hidden_layers": 3, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 16, "mamba_num_heads": 4, "mamba_head_dim": 16, "n_groups": 2,
    "ssm_state_size": 8, "intermediate_size": 96, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
    "moe_shared_expert_intermediate_size": 48, "vocab_size": 100)";
  const auto latent = import_hf_config(base + R"(, "hybrid_override_pattern": "ME*", "moe_latent_size": 16})");
  REQUIRE_FALSE(latent.ok());
  CHECK(latent.issues()[0].field == "moe_latent_size");
  const auto none = import_hf_config(base + R"(, "hybrid_override_pattern": "M-*"})");
  REQUIRE(none.ok());
  CHECK_FALSE(none->config.is_moe());
  CHECK(none->config.mamba.ssm_cache_dtype == MambaDtype::Auto);
  // mamba_ssm_cache_dtype, which vLLM's NemotronH hook reads: torch's dtype names; another name, or
  // a non-string, is one issue naming the key.
  const auto f16 = import_hf_config(base + R"(, "hybrid_override_pattern": "M-*", "mamba_ssm_cache_dtype": "float16"})");
  REQUIRE(f16.ok());
  CHECK(f16->config.mamba.ssm_cache_dtype == MambaDtype::F16);
  for (const char* bad : {R"("fp8")", "32"}) {
    const auto e = import_hf_config(base + R"(, "hybrid_override_pattern": "M-*", "mamba_ssm_cache_dtype": )" + bad + "}");
    REQUIRE_FALSE(e.ok());
    REQUIRE(e.issues().size() == 1);
    CHECK(e.issues()[0].field == "mamba_ssm_cache_dtype");
  }
}

TEST_CASE("Qwen2.5-VL 7B: 7,615,616,512 in the language model and 676,550,144 in its vision tower", "[core][params][anchor]") {
  // ref: a public fine-tuning script's printed counts: "总可训练参数 (冻结前): 8292166656 / 视觉模块 (visual) 总参数:
  //   676550144 / 总可训练参数 (冻结后): 7615616512" (all parameters; the vision module; after freezing it).
  const ModelConfig c = preset("qwen2.5-vl-7b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 7'615'616'512);
  CHECK(r.vision == 676'550'144);
  CHECK(r.total + r.vision == 8'292'166'656);
  // The tower by hand (modeling_qwen2_5_vl.py): Conv3d 3·2·14·14·h without bias; 32 blocks of two RMSNorms,
  // qkv and proj with biases, a gated MLP with biases; the merger's RMSNorm h, mlp.0 4h·4h + 4h, mlp.2 4h·d + d.
  const i64 h = 1280, f = 3420, d = 3584;
  const i64 block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * (h * f + f) + (f * h + h);
  CHECK(r.vision == 3 * 2 * 14 * 14 * h + 32 * block + h + (16 * h * h + 4 * h) + (4 * h * d + d));
  // The text model is Qwen2.5-7B's (Qwen2: biases on q, k, v), the same count as its own preset.
  CHECK(r.total == total_of(preset("qwen2.5-7b").config));
  // The configs the checkpoints shipped with keep the text model at the top level, beside vision_config.
  const std::string flat = R"({"model_type": "qwen2_5_vl", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
    "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064, "tie_word_embeddings": false,
    "vision_config": {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16, "in_chans": 3,
    "out_hidden_size": 3584, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}})";
  const auto f2 = import_hf_config(flat);
  REQUIRE(f2.ok());
  const ParamReport rf = llmsize::test::param_report(f2->config);
  CHECK(rf.total == r.total);
  CHECK(rf.vision == r.vision);
}

TEST_CASE("Phi-4 (phi3) and Mistral Small 3.1 (mistral) keep working: 14,659,507,200 and 23,572,403,200",
          "[core][params][anchor]") {
  // ref: NVIDIA NeMo customizer docs: "microsoft/phi-4@1.0".num_parameters 14659507200; the Hub's safetensors
  //   count of unsloth/Mistral-Small-24B-Instruct-2501: "23,572,403,200 (23.6B)".
  const i64 d = 5120;
  // Phi-4: fused qkv d·(d + 2·10·128), o d·d, fused gate_up d·2·17,920, down, two norms; untied head.
  CHECK(total_of(preset("phi-4").config) ==
        2 * 100352 * d + d + 40 * (d * (d + 2 * 1280) + d * d + d * 2 * 17920 + 17920 * d + 2 * d));
  // Mistral Small: q d·32·128, k, v d·8·128, o 32·128·d (H·hd = 4,096 ≠ d), SwiGLU 3·d·32,768, two norms.
  CHECK(total_of(preset("mistral-small-24b").config) ==
        2 * 131072 * d + d + 40 * (2 * d * 4096 + 2 * d * 1024 + 3 * d * 32768 + 2 * d));
  CHECK(preset("mistral-small-24b").config.sliding_window == 0);  // sliding_window null
}

TEST_CASE("Mistral Small 3.1 (mistral3): 23,572,403,200 in the language model and 438,958,080 in its Pixtral tower and projector",
          "[core][params][anchor]") {
  // ref: keras-hub's mistral3 presets: "24 billion parameter, 40-layer, pretrained Mistral3 model with a Pixtral
  //   vision encoder for image input.", "params": 24011361280 (mistral_small_3.1_24b_base_2503_en).
  const ModelConfig c = preset("mistral-small-24b").config;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 23'572'403'200);
  CHECK(r.total + r.vision == 24'011'361'280);
  // By hand (modeling_pixtral.py, modeling_mistral3.py): patch_conv 3·14·14·h without bias, ln_pre h; 24 layers of
  // two RMSNorms, q/k/v/o h·h and a gated MLP 3·h·f without biases; the projector's norm h, merging_layer
  // 4h·h, linear_1 h·d and linear_2 d·d (multimodal_projector_bias false).
  const i64 h = 1024, f = 4096, d = 5120;
  CHECK(r.vision == 3 * 14 * 14 * h + h + 24 * (2 * h + 4 * h * h + 3 * h * f) + h + 4 * h * h + h * d + d * d);
  // The tensor names as the checkpoint has them.
  const auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  CHECK(std::any_of(inv->vision.begin(), inv->vision.end(),
                    [](const Tensor& t) { return t.name == "multi_modal_projector.patch_merger.merging_layer.weight"; }));
  // With projector biases, and refusals named: a list of feature layers, a merge size of 0.
  auto with_top = [](const std::string& extra) {
    return R"({"model_type":"mistral3",)" + extra + R"(,"text_config":{"model_type":"mistral","hidden_size":5120,"intermediate_size":32768,
      "num_hidden_layers":40,"num_attention_heads":32,"num_key_value_heads":8,"head_dim":128,"vocab_size":131072},
      "vision_config":{"model_type":"pixtral","hidden_size":1024,"intermediate_size":4096,"num_hidden_layers":24,
      "num_attention_heads":16,"patch_size":14,"image_size":1540}})";
  };
  const auto biased = import_hf_config(with_top(R"("multimodal_projector_bias":true)"));
  REQUIRE(biased.ok());
  CHECK(llmsize::test::param_report(biased->config).vision == r.vision + 2 * d);
  const auto layers = import_hf_config(with_top(R"("vision_feature_layer":[-1,-2])"));
  REQUIRE_FALSE(layers.ok());
  CHECK(layers.issues().front().field == "vision_feature_layer");
  const auto merge = import_hf_config(with_top(R"("spatial_merge_size":0)"));
  REQUIRE_FALSE(merge.ok());
  CHECK(merge.issues().front().field == "spatial_merge_size");
}

TEST_CASE("Kimi-VL (kimi_vl): Moonlight's MLA MoE language model and a MoonViT tower of 447,545,840 with its projector",
          "[core][params]") {
  // calibration/configs/kimi-vl-a3b-instruct.json (vllm_test.cpp: the llm-d 0.19 start-ups load within 1%).
  const ModelConfig c = llmsize::test::import_file("calibration/configs/kimi-vl-a3b-instruct.json");
  CHECK(c.family == Family::DeepseekV3);
  CHECK(c.vision.kind == VisionKind::MoonVit);
  CHECK(c.vision.projector == ProjectorKind::KimiVl);
  const ParamReport r = llmsize::test::param_report(c);
  // By hand (vLLM moonvit.py, kimi_vl.py): patch_embed.proj 3·14·14·h + h, pos_emb 64·64·h, 27 blocks of
  // norm0 and norm1 (LayerNorms, 2h each), wqkv h·3h + 3h, wo h·h + h, mlp.fc0 h·f + f and fc1 f·h + h;
  // final_layernorm 2h; the projector: pre_norm 2h, linear_1 4h·4h + 4h, linear_2 4h·d + d.
  const i64 h = 1152, f = 4304, d = 2048;
  const i64 block = 4 * h + 3 * h * h + 3 * h + h * h + h + h * f + f + f * h + h;
  CHECK(r.vision == 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * block + 2 * h + 2 * h + 16 * h * h + 4 * h + 4 * h * d + d);
  CHECK(r.vision == 447'545'840);
  // Over 2 tensor-parallel GPUs as vLLM builds them: the patch embedding (Conv2dLayer), the position
  // grid (a Parameter), the norms and the whole projector (ReplicatedLinear) on each GPU; in each
  // block wqkv and fc0 column-parallel (weights and biases halved), wo and fc1 row-parallel
  // (weights halved, biases whole).
  const i64 whole = 3 * 14 * 14 * h + h + 64 * 64 * h + 2 * h + 2 * h + 16 * h * h + 4 * h + 4 * h * d + d + 27 * (4 * h + h + h);
  const i64 halved = 27 * (3 * h * h + 3 * h + h * h + h * f + f + f * h);
  CHECK(whole + halved == r.vision);
  const Estimate tp2 = llmsize::test::run(c, llmsize::test::with({{"tp", "2"}, {"gpus", "2"}}));
  CHECK(tp2.inference.vision_weights_bytes == 2 * (whole + halved / 2));
  const auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  for (const char* name : {"vision_tower.patch_embed.pos_emb.weight", "multi_modal_projector.linear_1.weight"}) {
    INFO(name);
    CHECK(std::any_of(inv->vision.begin(), inv->vision.end(), [&](const Tensor& t) { return t.name == name; }));
  }
  // KimiVLConfig's defaults stand for an absent vision_config: the same tower.
  const std::string text = llmsize::test::read_text("calibration/configs/kimi-vl-a3b-instruct.json");
  auto bare = json_util::parse(text, "kimi", kMaxConfigBytes, kMaxConfigDepth).value();
  bare.erase("vision_config");
  const auto defaulted = import_hf_config(bare.dump());
  REQUIRE(defaulted.ok());
  CHECK(llmsize::test::param_report(defaulted->config).vision == r.vision);
  // A non-square merge kernel, a position grid out of range: refused by name.
  auto bad = [&](const char* key, const json_util::json& value) {
    auto j = json_util::parse(text, "kimi", kMaxConfigBytes, kMaxConfigDepth).value();
    j["vision_config"][key] = value;
    const auto got = import_hf_config(j.dump());
    REQUIRE_FALSE(got.ok());
    return got.issues().front().field;
  };
  CHECK(bad("merge_kernel_size", json_util::json::array({2, 3})) == "vision_config.merge_kernel_size");
  CHECK(bad("merge_kernel_size", 2) == "vision_config.merge_kernel_size");
  CHECK(bad("init_pos_emb_height", 0) == "vision_config.init_pos_emb_height");
  CHECK(bad("init_pos_emb_width", 5000) == "vision_config.init_pos_emb_width");
}

TEST_CASE("GLM-5 and GLM-5.1 (glm_moe_dsa) count 743,911,218,432 and 753,864,139,008 with the MTP layer",
          "[core][params][anchor]") {
  // The checkpoint's total is the presets' published.checkpoint_total (inventory_test); here the
  // parts, by hand from the GLM-5.1 checkpoint's tensor list (modeling_glm_moe_dsa.py): per layer
  // q_a d·2048, q_a_layernorm 2048, q_b 2048·64·256, kv_a d·576, kv_a_layernorm 512, kv_b 512·64·448,
  // o 64·256·d; the indexer wq_b 2048·32·128, wk d·128, k_norm (LayerNorm) 2·128, weights_proj d·32;
  // two norms; layers 0-2 a dense MLP 3·d·12288, layers 3-77 256 experts and 1 shared of 3·d·2048 and
  // the router 256·d with its 256 correction biases; both vocab matrices and the final norm.
  const ModelConfig c = preset("glm-5.1").config;
  CHECK(c.family == Family::GlmMoeDsa);
  CHECK(c.mla.has_indexer());
  CHECK(c.mla.index_heads == 32);
  const i64 d = 6144, v = 154880;
  const i64 attn = d * 2048 + 2048 + 2048 * 64 * 256 + d * 576 + 512 + 512 * 64 * 448 + 64 * 256 * d;
  const i64 indexer = 2048 * 32 * 128 + d * 128 + 2 * 128 + d * 32;
  CHECK(attn == 165'022'208);
  CHECK(indexer == 9'371'904);
  const i64 dense = attn + indexer + 2 * d + 3 * d * 12288;
  const i64 moe = attn + indexer + 2 * d + 257 * 3 * d * 2048 + 256 * d + 256;
  const ParamReport r = llmsize::test::param_report(c);
  CHECK(r.total == 2 * v * d + d + 3 * dense + 75 * moe);
  CHECK(r.total == 743'911'218'432);  // the README's "744B parameters (40B active)"
  // The MTP layer (model.layers.78): eh_proj 2d·d, enorm, hnorm, shared_head.norm and a MoE layer;
  // no embedding or head of its own, unlike DeepSeek-V3's.
  CHECK(r.mtp == 2 * d * d + 3 * d + moe);
  CHECK(r.mtp == 9'952'920'576);
  CHECK(llmsize::test::param_report(preset("glm-5").config).total == r.total);
  // Over 8 tensor-parallel GPUs the indexer's wq_b, wk and weights_proj are whole on each (vLLM's and
  // SGLang's Indexer: ReplicatedLinear), as MLA's q_a and kv_a down-projections; q_b is split.
  const auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  int seen = 0;
  for (const Tensor& t : inv->kinds.front().tensors) {
    const bool whole = t.role == Role::IdxQ || t.role == Role::IdxK || t.role == Role::IdxWeights || t.role == Role::MlaQA;
    if (!whole && t.role != Role::MlaQB) continue;
    INFO(t.name);
    const i64 n = t.rows * t.cols;
    CHECK(placement::gpu_share(c, t, n, {.tp = 8}) == (whole ? n : n / 8));
    ++seen;
  }
  CHECK(seen == 5);
  // GLM-5.2's IndexShare (layers that reuse an earlier layer's top-k hold no indexer) is refused by
  // name, however the config spells it; GLM-5's own spelling (every layer full) is read.
  const std::string text = llmsize::test::read_text("../presets/models/182c-glm-5.1.json");
  const auto base = json_util::parse(text, "glm", kMaxConfigBytes, kMaxConfigDepth).value()["config"];
  auto field_of = [&](const char* key, const json_util::json& value) -> std::string {
    auto j = base;
    j[key] = value;
    const auto got = import_hf_config(j.dump());
    if (got.ok()) return "";
    return got.issues().front().field;
  };
  CHECK(field_of("index_topk_freq", 4) == "index_topk_freq");
  CHECK(field_of("index_topk_freq", 0) == "index_topk_freq");
  CHECK(field_of("index_topk_freq", 1).empty());
  CHECK(field_of("index_topk_pattern", std::string(78, 'F')).empty());
  CHECK(field_of("index_topk_pattern", std::string(77, 'F') + "S") == "index_topk_pattern");
  CHECK(field_of("index_topk_pattern", "FX") == "index_topk_pattern");
  auto kinds = json_util::json::array();
  for (int i = 0; i < 78; ++i) kinds.push_back(i < 3 || (i - 2) % 4 == 0 ? "full" : "shared");
  CHECK(field_of("indexer_types", kinds) == "indexer_types");
  for (auto& k : kinds) k = "full";
  CHECK(field_of("indexer_types", kinds).empty());
}

TEST_CASE("Kimi K2.5 (kimi_k25): Kimi K2's language model and a MoonViT tower spelled vt_*, 471,143,920 with its projector",
          "[core][params]") {
  const ModelConfig c = preset("kimi-k2.5").config;
  CHECK(c.family == Family::DeepseekV3);
  CHECK(c.vision.kind == VisionKind::MoonVit);
  CHECK(c.vision.layers == 27);
  CHECK(c.vision.hidden == 1152);
  CHECK(c.max_positions == 262144);
  const ParamReport r = llmsize::test::param_report(c);
  // The language model is Kimi K2's: its published count (the kimi-k2 preset's).
  CHECK(r.total == preset("kimi-k2").published_total);
  CHECK(r.mtp == 0);
  // The tower and projector by hand from the checkpoint's tensor list (vision_tower.*, mm_projector.*):
  // patch_embed.proj [1152, 3, 14, 14] + bias, pos_emb [64, 64, 1152], 27 blocks of norm0, norm1
  // (weight, bias), wqkv [3456, 1152] + bias, wo [1152, 1152] + bias, mlp.fc0 [4304, 1152] + bias,
  // fc1 [1152, 4304] + bias; final_layernorm; pre_norm (weight, bias), proj.0 [4608, 4608] + bias,
  // proj.2 [7168, 4608] + bias.
  const i64 h = 1152, f = 4304, d = 7168;
  const i64 block = 4 * h + 3 * h * h + 3 * h + h * h + h + h * f + f + f * h + h;
  const i64 tower = 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * block + 2 * h;
  const i64 projector = 2 * h + 16 * h * h + 4 * h + 4 * h * d + d;
  CHECK(tower == 416'866'032);
  CHECK(projector == 54'277'888);
  CHECK(r.vision == tower + projector);
  // Stored as its checkpoint is (--weights int4-experts: compressed-tensors pack-quantized int4 in
  // groups of 32 on the routed experts, the rest bf16): each expert matrix weight_packed int32
  // [out, in/8], weight_scale bf16 [out, in/32] and weight_shape int32 [2]; 60 MoE layers of 384
  // experts of gate, up [2048, 7168] and down [7168, 2048]. The checkpoint's tensor list sums to
  // "张量累计大小: 554.27 GB" (GiB; its router biases are fp32, 46,080 B more than here).
  const Estimate e = llmsize::test::run(c, llmsize::test::with({{"w", "int4-experts"}}));
  const i64 matrix = 2048 * (7168 / 8) * 4 + 2048 * (7168 / 32) * 2 + 8;
  CHECK(matrix == 7168 * (2048 / 8) * 4 + 7168 * (2048 / 32) * 2 + 8);
  const i64 experts = 60LL * 384 * 3 * matrix;
  const i64 rest = r.total - 60LL * 384 * 3 * 7168 * 2048;
  CHECK(e.inference.weights_bytes == experts + 2 * rest);
  CHECK(e.inference.vision_weights_bytes == 2 * r.vision);
  const double gib = static_cast<double>(e.inference.weights_bytes + e.inference.vision_weights_bytes + 60 * 384 * 2) / 1073741824.0;
  CHECK(std::round(gib * 100) / 100 == Approx(554.27).margin(1e-9));
  // Refused by name: Kimi-K3's projector, a projector into another width.
  const std::string text = llmsize::test::read_text("../presets/models/164a-kimi-k2.5.json");
  auto bad = [&](const char* key, const json_util::json& value) {
    auto j = json_util::parse(text, "kimi", kMaxConfigBytes, kMaxConfigDepth).value()["config"];
    j["vision_config"][key] = value;
    const auto got = import_hf_config(j.dump());
    REQUIRE_FALSE(got.ok());
    return got.issues().front().field;
  };
  CHECK(bad("mm_projector_type", "patchmergerv2") == "vision_config.mm_projector_type");
  CHECK(bad("text_hidden_size", 4096) == "vision_config.text_hidden_size");
  CHECK(bad("model_type", "moonvit") == "vision_config.model_type");
}

TEST_CASE("LFM2 1.2B counts 1,170,340,608: 10 short-convolution and 6 attention layers, each with a SwiGLU MLP",
          "[core][params][anchor][plan]") {
  // ref: the LFM2 model card's table: "| **Parameters** | 354,483,968 | 742,489,344 | 1,170,340,608 |
  //   2,569,272,320 |" (350M, 700M, 1.2B, 2.6B)
  const ModelConfig c = preset("lfm2-1.2b").config;
  CHECK(total_of(c) == 1'170'340'608);
  CHECK(c.d_ff == 8192);  // Lfm2MLP: 12,288 → int(2·12,288 / 3) = 8,192, a multiple of 256
  // By hand, modeling_lfm2.py: operator_norm, ffn_norm; conv layers in_proj d·3d, conv d·3, out_proj d·d;
  // attention q, out d·d, k, v d·512, q/k layernorms 64 each; MLP w1, w3 d·f, w2 f·d; tied; final
  // embedding_norm.
  const i64 d = 2048, f = 8192;
  const i64 conv = 3 * d * d + 3 * d + d * d, attn = 2 * d * d + 2 * d * 512 + 2 * 64, mlp = 3 * d * f + 2 * d;
  CHECK(total_of(c) == 65536 * d + d + 10 * (conv + mlp) + 6 * (attn + mlp));
  // The 350M and 700M of the same table, from the same reading.
  ModelConfig small = c;
  small.d_model = 1024;
  small.n_heads = 16;
  small.head_dim = 64;
  small.d_ff = 4608;  // 6,656 → 4,437 → 4,608
  CHECK(total_of(small) == 354'483'968);
  ModelConfig mid = c;
  mid.d_model = 1536;
  mid.n_heads = 24;
  mid.head_dim = 64;
  mid.d_ff = 6912;  // 10,240 → 6,826 → 6,912
  CHECK(total_of(mid) == 742'489'344);
  const LayerPlan p = plan_of(c);
  for (i64 l = 0; l < 16; ++l) {
    INFO(l);
    const bool full = l == 2 || l == 5 || l == 8 || l == 10 || l == 12 || l == 14;
    CHECK(p.cache_of(l).kind == (full ? AttnKind::Full : AttnKind::Conv));
  }
  // Lfm2HybridConvCache keeps (hidden, conv_L_cache) per conv layer at bf16.
  CHECK(p.state_bytes_per_sequence() == 10 * d * 3 * 2);
  CHECK(p.kv_bytes_per_token() == 6 * 2 * 8 * 64 * 2);
}

TEST_CASE("Granite-4.0-H and LFM2 read their per-layer kinds, refusing others by name", "[core][import]") {
  const std::string granite = R"({"model_type":"granitemoehybrid","hidden_size":64,"num_hidden_layers":3,)"
                              R"("num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100,"intermediate_size":32,)"
                              R"("shared_intermediate_size":64,"mamba_n_heads":8,"mamba_d_head":16,)"
                              R"("mamba_d_state":16,"mamba_n_groups":1,"mamba_expand":2)";
  auto ok = import_hf_config(granite + R"(,"num_local_experts":4,"layer_types":["mamba","attention","mamba"]})");
  REQUIRE(ok.ok());
  CHECK(ok->config.block_pattern == "M*M");
  CHECK(ok->config.block_ffn);
  auto older = import_hf_config(granite + R"(,"layers_block_type":["attention","mamba","mamba"]})");
  REQUIRE(older.ok());
  CHECK(older->config.block_pattern == "*MM");
  // No experts: every layer's FFN is shared_mlp alone, a dense FFN of shared_intermediate_size.
  auto dense = import_hf_config(granite + R"(,"num_local_experts":0,"layer_types":["mamba","attention","mamba"]})");
  REQUIRE(dense.ok());
  CHECK_FALSE(dense->config.is_moe());
  CHECK(dense->config.d_ff == 64);
  const std::string lfm = R"({"model_type":"lfm2","hidden_size":64,"num_hidden_layers":3,"num_attention_heads":4,)"
                          R"("num_key_value_heads":2,"vocab_size":100,"block_ff_dim":96)";
  auto l = import_hf_config(lfm + R"(,"layer_types":["conv","full_attention","conv"]})");
  REQUIRE(l.ok());
  CHECK(l->config.block_pattern == "C*C");
  CHECK(l->config.d_ff == 256);  // int(2·96 / 3) = 64, rounded up to block_multiple_of 256
  auto idx = import_hf_config(lfm + R"(,"full_attn_idxs":[0]})");
  REQUIRE(idx.ok());
  CHECK(idx->config.block_pattern == "*CC");
  for (const auto& [cfg, field] : std::vector<std::pair<std::string, std::string>>{
           {granite + R"(,"layer_types":["mamba","moe","mamba"]})", "layer_types"},
           {granite + R"(,"layer_types":["mamba","attention"]})", "layer_types"},
           {granite + "}", "layer_types"},
           {lfm + R"(,"layer_types":["conv","sliding_attention","conv"]})", "layer_types"},
           {lfm + R"(,"full_attn_idxs":[3]})", "full_attn_idxs"},
           {lfm + "}", "layer_types"}}) {
    INFO(cfg);
    auto r = import_hf_config(cfg);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues()[0].field == field);
  }
}

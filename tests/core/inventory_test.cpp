// Exact parameter counts from the tensor inventory: published anchors, hand derivations
// per family, groups, MoE active counts, MTP, and the classic 12·L·d² + v·d estimate.
#include "core/hf_config.hpp"
#include "core/json_util.hpp"
#include "core/params.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::import_file;
using llmsize::test::preset;

namespace {
ParamReport count(const ModelConfig& c) { return llmsize::test::param_report(c); }
}  // namespace

TEST_CASE("the issue's anchors match exactly", "[core][params][anchor]") {
  CHECK(count(preset("gpt2").config).total == 124'439'808);
  CHECK(count(preset("llama-2-7b").config).total == 6'738'415'616);
  CHECK(count(preset("llama-3-8b").config).total == 8'030'261'248);

  const auto mix = count(preset("mixtral-8x7b").config);
  CHECK(mix.total == 46'702'792'704);
  CHECK(mix.active == 12'879'925'248);

  const auto ds = count(preset("deepseek-v3").config);
  CHECK(ds.total == 671'026'419'200);
  CHECK(ds.mtp == 684'489'845'504 - 671'026'419'200);
  CHECK(ds.total + ds.mtp == 684'489'845'504);

  const auto g3 = count(preset("gpt3-175b").config);
  CHECK(g3.total == 174'604'259'328);
  CHECK(g3.approx_12nd2_vd == 174'563'733'504);
}

TEST_CASE("every preset with a published count matches it exactly", "[core][params][anchor]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  int checked = 0;
  for (const auto& p : all.value()) {
    if (p.published_total == 0 && p.published_with_vision == 0 && p.published_checkpoint == 0) continue;
    INFO(p.id << " (" << p.published_source << p.checkpoint_source << ")");
    const auto r = count(p.config);
    if (p.published_total) CHECK(r.total == p.published_total);
    if (p.published_active) CHECK(r.active == p.published_active);
    // A count of the language model with its vision tower (KerasHub's "params").
    if (p.published_with_vision) CHECK(r.total + r.vision == p.published_with_vision);
    // Every tensor of the checkpoint (the Hub's safetensors count): the language model, the MTP
    // block the model does not build and the vision tower.
    if (p.published_checkpoint) CHECK(r.total + r.mtp + r.vision == p.published_checkpoint);
    ++checked;
  }
  CHECK(checked >= 30);
}

// Families without an exact published count: the sum written out by hand, tensor by
// tensor, as the Hugging Face modeling code defines them.
TEST_CASE("hand derivations agree for families without a published exact count", "[core][params]") {
  SECTION("GPT-J 6B: parallel block, one LayerNorm, biased FFN and head, untied") {
    const i64 d = 4096, L = 28, v = 50400, f = 16384;
    const i64 layer = 2 * d + 4 * d * d + (d * f + f) + (f * d + d);
    CHECK(count(preset("gpt-j-6b").config).total == v * d + L * layer + 2 * d + (d * v + v));
  }
  SECTION("Falcon 7B: multi-query, fused qkv d×(d+2·hd), one norm per parallel block") {
    const i64 d = 4544, L = 32, v = 65024, hd = 64;
    const i64 layer = 2 * d + d * (d + 2 * hd) + d * d + 2 * d * 4 * d;
    CHECK(count(preset("falcon-7b").config).total == v * d + L * layer + 2 * d);
    CHECK(count(preset("falcon-7b").config).total == 6'921'720'704);
  }
  SECTION("Falcon 40B: new decoder architecture, 8 KV heads, ln_attn and ln_mlp") {
    const i64 d = 8192, L = 60, v = 65024, hd = 64, H = 128, K = 8;
    const i64 layer = 4 * d + d * (H + 2 * K) * hd + d * d + 2 * d * 4 * d;
    CHECK(count(preset("falcon-40b").config).total == v * d + L * layer + 2 * d);
  }
  SECTION("Falcon-RW 1B: ALiBi, biases, MHA, sequential block with two norms") {
    const i64 d = 2048, L = 24, v = 50304;
    const i64 layer = 4 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d);
    CHECK(count(import_file("core/configs/falcon-rw-1b.json")).total == v * d + L * layer + 2 * d);
  }
  SECTION("RefinedWebModel (old Falcon config keys) reads like Falcon 7B") {
    CHECK(count(import_file("core/configs/refinedwebmodel-7b.json")).total == 6'921'720'704);
  }
  SECTION("OPT-13B: learned positions with 2 offset rows, biased projections, tied head") {
    const i64 d = 5120, L = 40, v = 50272, f = 20480;
    const i64 layer = 4 * (d * d + d) + 4 * d + (d * f + f) + (f * d + d);
    CHECK(count(preset("opt-13b").config).total == v * d + 2050 * d + L * layer + 2 * d);
  }
  SECTION("OPT-350m: 512-wide embeddings with project_in/out, no final norm") {
    const i64 d = 1024, L = 24, v = 50272, f = 4096, e = 512;
    const i64 layer = 4 * (d * d + d) + 4 * d + (d * f + f) + (f * d + d);
    CHECK(count(import_file("core/configs/opt-350m.json")).total == v * e + 2050 * d + 2 * e * d + L * layer);
    CHECK(count(import_file("core/configs/opt-350m.json")).total == 331'196'416);
  }
  SECTION("Phi-1.5: parallel block, partial rotary, biased head") {
    CHECK(count(import_file("core/configs/phi-1_5.json")).total == 1'418'270'720);
  }
  SECTION("DeepSeek-V2: MLA with q_lora, 160 experts, 2 shared, first layer dense") {
    const i64 d = 5120, H = 128, L = 60, v = 102400, E = 160, fe = 1536, f = 12288;
    const i64 attn = d * 1536 + 1536 + 1536 * H * 192 + d * 576 + 512 + 512 * H * 256 + H * 128 * d;
    const i64 dense = attn + 2 * d + 3 * d * f;
    const i64 moe = attn + 2 * d + d * E + E * 3 * d * fe + 3 * d * 2 * fe;
    const auto r = count(preset("deepseek-v2").config);
    CHECK(r.total == 2 * v * d + d + dense + (L - 1) * moe);
    CHECK(r.active == 2 * v * d + d + dense + (L - 1) * (moe - (E - 6) * 3 * d * fe));
  }
  SECTION("LLaMA 1: the Llama-2 block without GQA; 65B at d 8192, f 22016, 80 layers") {
    CHECK(count(preset("llama-1-7b").config).total == 6'738'415'616);
    const i64 d = 8192, L = 80, v = 32000, f = 22016;
    CHECK(count(preset("llama-1-65b").config).total == 2 * v * d + d + L * (4 * d * d + 3 * d * f + 2 * d));
  }
  SECTION("LLaVA-1.5-7B: the Llama text model, and its CLIP tower and projector counted apart") {
    // ref: a public test of llava-hf/llava-1.5-7b-hf: "config = LlavaConfig.from_pretrained("llava-hf/llava-1.5-7b-hf")
    //   model = LlavaForConditionalGeneration(config)  assert count_parameters(model) == (7063427072, 7063427072)"
    const ModelConfig c = import_file("core/configs/llava-1.5-7b.json");
    const ParamReport r = count(c);
    const i64 d = 4096, L = 32, v = 32064, f = 11008;
    CHECK(r.total == 2 * v * d + d + L * (4 * d * d + 3 * d * f + 2 * d));
    CHECK(r.total + r.vision == 7'063'427'072);
    // By hand, modeling_clip.py CLIPVisionModel (ViT-L/14 at 336 px, 576 patches + the class token):
    // class embedding h, patch conv 3·14·14·h, 577 positions, pre and post LayerNorms, 24 layers of
    // q, k, v, out (h² + h each), two LayerNorms, fc1 h·4h + 4h, fc2 4h·h + h; LlavaMultiModalProjector
    // linear_1 h·d + d, linear_2 d·d + d.
    const i64 h = 1024, vf = 4096;
    const i64 tower = h + 3 * 14 * 14 * h + 577 * h + 4 * h + 24 * (4 * (h * h + h) + 4 * h + h * vf + vf + vf * h + h);
    CHECK(r.vision == tower + (h * d + d) + (d * d + d));
    CHECK(c.vision.kind == VisionKind::Clip);
  }
}

TEST_CASE("groups, layer kinds and the gap add up for every preset", "[core][params]") {
  auto all = load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value()) {
    INFO(p.id);
    const auto r = count(p.config);
    i64 groups = 0;
    for (int g = 0; g < kGroupCount; ++g)
      if (static_cast<Group>(g) != Group::Mtp) groups += r.by_group[g];
    CHECK(groups == r.total);
    CHECK(r.group(Group::Mtp) == r.mtp);

    i64 layers = 0, layer_params = 0;
    for (const auto& k : r.kinds) {
      layers += k.layers;
      layer_params += k.layers * k.params_per_layer;
      CHECK(k.active_per_layer <= k.params_per_layer);
    }
    CHECK(layers == p.config.n_layers);
    CHECK(layer_params < r.total);
    CHECK(r.active <= r.total);
    if (!p.config.is_moe()) CHECK(r.active == r.total);

    i64 gap = 0;
    for (const auto& g : r.gap) {
      gap += g.delta;
      CHECK_FALSE(g.why.empty());
    }
    CHECK(r.approx_12nd2_vd + gap == r.total);
    CHECK(r.approx_12nd2_vd == r.approx_attention + r.approx_ffn + r.approx_embedding);
  }
}

TEST_CASE("the gap names each cause for Llama 3 8B", "[core][params][gap]") {
  const auto r = count(preset("llama-3-8b").config);
  auto delta = [&](const std::string& cause) -> i64 {
    for (const auto& g : r.gap)
      if (g.cause == cause) return g.delta;
    FAIL("no gap item " << cause);
    return 0;
  };
  const i64 d = 4096, L = 32, v = 128256;
  CHECK(delta("GQA attention") == L * (2 * d * 1024 - 2 * d * d));  // k, v are d×1024, not d×d
  CHECK(delta("gated FFN") == L * (3 * d * 14336 - 8 * d * d));
  CHECK(delta("untied LM head") == v * d);
  CHECK(delta("norms") == (2 * L + 1) * d);
}

TEST_CASE("Mixtral routes 2 of 8 experts and counts the router", "[core][params][moe]") {
  const auto r = count(preset("mixtral-8x7b").config);
  REQUIRE(r.kinds.size() == 1);
  CHECK(r.kinds[0].label == "moe");
  CHECK(r.group(Group::Router) == 32 * 4096 * 8);
  CHECK(r.kinds[0].params_per_layer - r.kinds[0].active_per_layer == 6 * 3 * 4096 * 14336);
}

TEST_CASE("DeepSeek-V3 has 3 dense and 58 MoE layers, correction biases and a separate MTP layer",
          "[core][params][moe][mla]") {
  const auto c = preset("deepseek-v3").config;
  auto inv = build_inventory(c);
  REQUIRE(inv.ok());
  REQUIRE(inv->kinds.size() == 2);
  CHECK(inv->kinds[0].label == "dense");
  CHECK(inv->kinds[0].layers.size() == 3);
  CHECK(inv->kinds[1].layers.size() == 58);
  CHECK(inv->kinds[1].layers.front() == 3);
  REQUIRE(inv->mtp.size() == 1);
  CHECK(inv->mtp[0].layers[0] == 61);
  bool correction = false;
  for (const auto& t : inv->kinds[1].tensors)
    if (t.role == Role::RouterBias) correction = t.numel() == 256;
  CHECK(correction);
  for (const auto& t : inv->mtp[0].tensors) CHECK(t.group == Group::Mtp);
  const auto r = count(c);
  CHECK(r.total + r.mtp == 684'489'845'504);
  CHECK(r.active < r.total / 10);
}

TEST_CASE("tensor names follow each family's checkpoint", "[core][inventory]") {
  auto names = [](const ModelConfig& c) {
    std::vector<std::string> out;
    auto inv = build_inventory(c);
    REQUIRE(inv.ok());
    for (const auto& t : inv->global) out.push_back(t.name);
    for (const auto& k : inv->kinds)
      for (const auto& t : k.tensors) out.push_back(tensor_name(t.name, k.layers.front(), 0));
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  const auto gpt2 = names(preset("gpt2").config);
  CHECK(has(gpt2, "transformer.wte.weight"));
  CHECK(has(gpt2, "transformer.wpe.weight"));
  CHECK(has(gpt2, "transformer.h.0.attn.c_attn.bias"));
  CHECK_FALSE(has(gpt2, "lm_head.weight"));  // tied
  const auto llama = names(preset("llama-3-8b").config);
  CHECK(has(llama, "model.layers.0.self_attn.k_proj.weight"));
  CHECK(has(llama, "model.layers.0.mlp.gate_proj.weight"));
  CHECK(has(llama, "lm_head.weight"));
  const auto mix = names(preset("mixtral-8x7b").config);
  CHECK(has(mix, "model.layers.0.block_sparse_moe.experts.0.w1.weight"));
  const auto ds = names(preset("deepseek-v3").config);
  CHECK(has(ds, "model.layers.3.mlp.gate.e_score_correction_bias"));
  CHECK(has(ds, "model.layers.0.self_attn.kv_a_proj_with_mqa.weight"));
  const auto neox = names(preset("gpt-neox-20b").config);
  CHECK(has(neox, "embed_out.weight"));
  const auto falcon40 = names(preset("falcon-40b").config);
  CHECK(has(falcon40, "transformer.h.0.ln_mlp.weight"));
  const auto g2 = names(preset("gemma-2-9b").config);
  CHECK(has(g2, "model.layers.0.pre_feedforward_layernorm.weight"));
  CHECK(has(g2, "model.layers.0.post_feedforward_layernorm.weight"));
  const auto phi3 = names(preset("phi-3-mini").config);
  CHECK(has(phi3, "model.layers.0.mlp.gate_up_proj.weight"));
  CHECK(has(phi3, "model.layers.0.self_attn.qkv_proj.weight"));
}

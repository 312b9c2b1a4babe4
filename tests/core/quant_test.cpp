// Weight storage: ggml block sizes, GGUF file sizes of a known model (TheBloke's
// Llama-2-7B-GGUF table), llama.cpp's per-tensor mixes, GPTQ/AWQ/bitsandbytes/fp8/MXFP4
// byte layouts and the keep-unquantized conventions.
#include <catch2/catch.hpp>

#include "core/weights.hpp"
#include "core/params.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;

namespace {
Workload fmt(const char* name) {
  Workload w;
  auto issue = find_field("w")->set(w, name);
  REQUIRE_FALSE(issue);
  return w;
}
// Storage types a tensor gets across the layers of its kind (first kind holding `role`).
std::vector<std::pair<std::string, i64>> types_of(const WeightsReport& r, const Inventory& inv, Role role) {
  std::vector<std::pair<std::string, i64>> out;
  for (const auto& row : r.rows) {
    const Tensor& t = row.kind < 0 ? inv.global[static_cast<size_t>(row.index)]
                                   : inv.kinds[static_cast<size_t>(row.kind)].tensors[static_cast<size_t>(row.index)];
    if (t.role == role) out.push_back({storage_name(row.storage), row.layers});
  }
  return out;
}
bool has(const std::vector<std::pair<std::string, i64>>& v, const std::string& type, i64 layers) {
  return std::find(v.begin(), v.end(), std::make_pair(type, layers)) != v.end();
}
}  // namespace

TEST_CASE("ggml block sizes are those of ggml-common.h", "[core][quant]") {
  struct Row {
    QType t;
    i64 values, bytes;
    double bpw;
  };
  const Row rows[] = {
      {QType::Q8_0, 32, 34, 8.5},     {QType::Q6_K, 256, 210, 6.5625}, {QType::Q5_K, 256, 176, 5.5},
      {QType::Q4_K, 256, 144, 4.5},   {QType::Q4_0, 32, 18, 4.5},      {QType::Q3_K, 256, 110, 3.4375},
      {QType::Q2_K, 256, 84, 2.625},  {QType::IQ4_XS, 256, 136, 4.25}, {QType::Q5_0, 32, 22, 5.5},
      {QType::Mxfp4, 32, 17, 4.25},   {QType::IQ4_NL, 32, 18, 4.5},
  };
  for (const auto& r : rows) {
    INFO(to_string(r.t));
    CHECK(block_shape(r.t).values == r.values);
    CHECK(block_shape(r.t).bytes == r.bytes);
    CHECK(8.0 * static_cast<double>(r.bytes) / static_cast<double>(r.values) == Approx(r.bpw));
  }
}

TEST_CASE("GGUF file sizes of Llama-2-7B match TheBloke's published table", "[core][quant][gguf]") {
  // ref: Hugging Face TheBloke/Llama-2-7B-GGUF, "Provided files" (sizes in GB, 2 decimals). The
  // file adds ~1 MB of metadata (tokenizer) to the tensor bytes counted here. Q2_K is left
  // out: llama.cpp's Q2_K mix has changed since those files were made.
  struct Row {
    const char* format;
    double gb;
  };
  const Row rows[] = {{"q3_k_s", 2.95}, {"q3_k_m", 3.30}, {"q3_k_l", 3.60}, {"q4_0", 3.83},
                      {"q4_k_s", 3.86}, {"q4_k_m", 4.08}, {"q5_0", 4.65},   {"q5_k_s", 4.65},
                      {"q5_k_m", 4.78}, {"q6_k", 5.53},   {"q8_0", 7.16}};
  const ModelConfig c = preset("llama-2-7b").config;
  auto inv = build_inventory(c);
  for (const auto& r : rows) {
    INFO(r.format);
    auto rep = weights_report(c, *inv, fmt(r.format));
    REQUIRE(rep.ok());
    CHECK(static_cast<double>(rep->total_bytes) / 1e9 == Approx(r.gb).margin(0.0051));
  }
}

TEST_CASE("Q4_K_M follows llama.cpp's per-tensor rules", "[core][quant][gguf]") {
  // ref: llama.cpp src/llama-quant.cpp llama_tensor_get_type_impl: output.weight Q6_K; attn_v and
  // ffn_down Q6_K where use_more_bits(i, n) (first and last eighth, every third in between).
  const ModelConfig c = preset("llama-2-7b").config;  // 32 layers: 16 use more bits
  auto inv = build_inventory(c);
  auto r = weights_report(c, *inv, fmt("q4_k_m"));
  CHECK(has(types_of(*r, *inv, Role::LmHead), "Q6_K", 1));
  CHECK(has(types_of(*r, *inv, Role::Embed), "Q4_K", 1));
  CHECK(has(types_of(*r, *inv, Role::AttnV), "Q6_K", 16));
  CHECK(has(types_of(*r, *inv, Role::AttnV), "Q4_K", 16));
  CHECK(has(types_of(*r, *inv, Role::FfnDown), "Q6_K", 16));
  CHECK(has(types_of(*r, *inv, Role::AttnQ), "Q4_K", 32));
  CHECK(has(types_of(*r, *inv, Role::Norm), "fp32", 32));
  // A tied embedding is quantized as the output tensor.
  const ModelConfig g = preset("gemma-7b").config;
  REQUIRE(g.tie_embeddings);
  auto ginv = build_inventory(g);
  CHECK(has(types_of(*weights_report(g, *ginv, fmt("q4_k_m")), *ginv, Role::Embed), "Q6_K", 1));
}

TEST_CASE("GGUF mixes adapt to 70B models, 8 experts and odd row lengths", "[core][quant][gguf]") {
  const ModelConfig l70 = preset("llama-2-70b").config;  // LLM_TYPE_70B: attn_v Q4_K → Q5_K
  auto inv70 = build_inventory(l70);
  for (const auto& [type, n] : types_of(*weights_report(l70, *inv70, fmt("q4_k_m")), *inv70, Role::AttnV))
    CHECK((type == "Q5_K" || type == "Q6_K"));
  const ModelConfig mx = preset("mixtral-8x7b").config;  // n_expert == 8: attn_v, attn_k Q8_0
  auto invm = build_inventory(mx);
  auto rm = weights_report(mx, *invm, fmt("q4_k_m"));
  CHECK(has(types_of(*rm, *invm, Role::AttnV), "Q8_0", 32));
  CHECK(has(types_of(*rm, *invm, Role::AttnK), "Q8_0", 32));
  CHECK(has(types_of(*rm, *invm, Role::AttnO), "Q5_K", 32));
  CHECK(has(types_of(*rm, *invm, Role::Router), "fp32", 32));  // ffn_gate_inp is never quantized
  const ModelConfig f7 = preset("falcon-7b").config;  // d = 4544 is not a multiple of 256
  auto invf = build_inventory(f7);
  auto rf = weights_report(f7, *invf, fmt("q4_k_m"));
  REQUIRE(f7.tie_embeddings);
  CHECK(has(types_of(*rf, *invf, Role::Embed), "Q8_0", 1));  // Falcon's output rule, tied embedding
  CHECK(has(types_of(*rf, *invf, Role::FfnUp), "Q5_0", 32));  // tensor_type_fallback: Q4_K → Q5_0
}

TEST_CASE("MXFP4_MOE puts the routed experts in MXFP4 and everything else in Q8_0", "[core][quant][gguf]") {
  // ref: llama-quant.cpp, LLAMA_FTYPE_MOSTLY_MXFP4_MOE: 3-D expert tensors MXFP4, others Q8_0.
  const ModelConfig c = preset("qwen3-30b-a3b").config;
  auto inv = build_inventory(c);
  auto r = weights_report(c, *inv, fmt("mxfp4_moe"));
  for (const auto& row : r->rows) {
    const Tensor& t = row.kind < 0 ? inv->global[static_cast<size_t>(row.index)]
                                   : inv->kinds[static_cast<size_t>(row.kind)].tensors[static_cast<size_t>(row.index)];
    INFO(t.name);
    if (t.routed) CHECK(row.storage.type == QType::Mxfp4);
    else if (t.rows > 1 && t.cols > 1 && t.role != Role::Router) CHECK(row.storage.type == QType::Q8_0);
    else CHECK(row.storage.type == QType::F32);
  }
}

TEST_CASE("GPTQ, AWQ, bitsandbytes, fp8 and int8 layouts count every scale and zero", "[core][quant]") {
  const StoredDims m{4096, 4096};  // in × out
  struct Row {
    Storage s;
    i64 bytes;
    const char* what;
  };
  const Row rows[] = {
      // qweight 4096·4/32·4·4096 + qzeros 32·512·4 + fp16 scales 32·4096·2 + g_idx 4096·4
      {{QType::Gptq, 4, 128}, 8388608 + 65536 + 262144 + 16384, "gptq int4 g128"},
      {{QType::Awq, 4, 128}, 8388608 + 65536 + 262144, "awq int4 g128"},
      {{QType::Gptq, 4, 32}, 8388608 + 262144 + 1048576 + 16384, "gptq int4 g32"},
      {{QType::Gptq, 3, 128}, 6291456 + 49152 + 262144 + 16384, "gptq int3 g128"},
      {{QType::Nf4}, 8388608 + 262144 * 4, "nf4: fp32 absmax per 64"},
      {{QType::Nf4Dq}, 8388608 + 262144 + 1024 * 4, "nf4-dq: 8-bit absmax + fp32 per 256"},
      {{QType::Fp8}, 16777216 + 4, "fp8 + tensor scale"},
      {{QType::Fp8Block}, 16777216 + 32 * 32 * 4, "fp8 + 128×128 block scales"},
      {{QType::Int8Channel}, 16777216 + 4096 * 4, "int8 + fp32 row scales"},
      {{QType::Mxfp4}, 16777216 / 32 * 17, "mxfp4"},
  };
  for (const auto& r : rows) {
    INFO(r.what);
    CHECK(*storage_bytes(r.s, m) == r.bytes);
  }
  // QLoRA §3: double quantization cuts the constants from 32/64 = 0.5 to 8/64 + 32/(64·256) ≈ 0.127 bits.
  const StoredDims big{1 << 14, 1 << 14};
  const double n = static_cast<double>(big.row_len * big.n_rows);
  CHECK(8.0 * static_cast<double>(*storage_bytes({QType::Nf4}, big)) / n == Approx(4.5));
  CHECK(8.0 * static_cast<double>(*storage_bytes({QType::Nf4Dq}, big)) / n == Approx(4.127).margin(0.001));
}

TEST_CASE("Which tensors stay unquantized is each format's convention, and can be changed", "[core][quant]") {
  const ModelConfig c = preset("mixtral-8x7b").config;
  auto inv = build_inventory(c);
  auto head = [&](const Workload& w) { return types_of(*weights_report(c, *inv, w), *inv, Role::LmHead).front().first; };
  auto router = [&](const Workload& w) { return types_of(*weights_report(c, *inv, w), *inv, Role::Router).front().first; };
  CHECK(head(fmt("gptq-int4")) == "bf16");     // AutoGPTQ quantizes the layers only
  CHECK(router(fmt("gptq-int4")) == "bf16");
  CHECK(head(fmt("nf4")) == "bf16");           // transformers skips lm_head
  CHECK(router(fmt("nf4")) == "nf4 (absmax/64)");  // but the router is an nn.Linear
  Workload w = fmt("gptq-int4");
  w.keep_head = Keep::No;
  CHECK(head(w) == "gptq int4 g128");
  w.keep_router = Keep::Yes;
  w.dtype = ComputeDtype::F16;
  CHECK(router(w) == "fp16");
  // gpt-oss's MXFP4 checkpoint keeps self_attn in bf16 (modules_to_not_convert): --keep-attention yes.
  const ModelConfig oss = preset("gpt-oss-20b").config;
  auto oss_inv = build_inventory(oss);
  Workload mx = fmt("mxfp4");
  CHECK(types_of(*weights_report(oss, *oss_inv, mx), *oss_inv, Role::AttnQ).front().first == "MXFP4");
  mx.keep_attention = Keep::Yes;
  for (Role r : {Role::AttnQ, Role::AttnK, Role::AttnV, Role::AttnO})
    CHECK(types_of(*weights_report(oss, *oss_inv, mx), *oss_inv, r).front().first == "bf16");
  CHECK(types_of(*weights_report(oss, *oss_inv, mx), *oss_inv, Role::FfnGateUp).front().first == "MXFP4");  // the experts stay MXFP4
  // Norms are never quantized.
  CHECK(types_of(*weights_report(c, *inv, fmt("q2_k")), *inv, Role::Norm).front().first == "fp32");
  CHECK(types_of(*weights_report(c, *inv, fmt("awq-int4")), *inv, Role::Norm).front().first == "bf16");
}

TEST_CASE("Quantized formats keep the totals consistent with the parameter count", "[core][quant]") {
  const ModelConfig c = preset("deepseek-v3").config;
  auto inv = build_inventory(c);
  const i64 params = count_params(c)->total;
  for (const char* f : {"fp8-block", "q4_k_m", "nf4-dq", "mxfp4", "gptq-int4"}) {
    INFO(f);
    auto r = weights_report(c, *inv, fmt(f));
    REQUIRE(r.ok());
    CHECK(r->params == params);
    CHECK(r->quantized_params + r->kept_params == params);
    CHECK(r->quantized_params > params / 2);
  }
  // DeepSeek-V3's fp8 checkpoint: 1 byte per quantized weight + fp32 per 128×128 block.
  auto fp8 = weights_report(c, *inv, fmt("fp8-block"));
  const double extra = static_cast<double>(fp8->total_bytes - fp8->quantized_params - 2 * fp8->kept_params);
  CHECK(extra / static_cast<double>(fp8->quantized_params) == Approx(4.0 / 16384).epsilon(0.05));
}

// A model file's bytes as the weights (issue 12): GGUF tensor tables written here with the names
// llama.cpp gives them (src/llama-arch.cpp LLM_TENSOR_NAMES; the layouts of src/models/qwen2.cpp
// and openai-moe.cpp), matched to the inventory tensor by tensor and layer; the estimate's weights,
// per-GPU stages and llama.cpp's model buffers then hold the file's bytes. Files that do not match
// (a shape, a missing tensor) are refused by name and the estimate keeps the format's figures.
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/file_weights.hpp"
#include "core/params.hpp"
#include "core/share_link.hpp"
#include "file_weights_check.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using u64 = std::uint64_t;

namespace {

struct T {
  std::string name;
  std::vector<u64> ne;
  std::uint32_t type;
};

// A GGUF header over `tensors` (offsets aligned to 32 bytes, in order) with the architecture key.
GgufHeader gguf_of(const std::string& arch, const std::vector<T>& tensors) {
  llmsize::test::GgufWriter g;
  g.header(3, tensors.size(), 1);
  g.key_str("general.architecture", arch);
  u64 offset = 0;
  for (const T& t : tensors) {
    g.str(t.name);
    g.u32(static_cast<std::uint32_t>(t.ne.size()));
    u64 n = 1;
    for (u64 x : t.ne) g.u64(x), n *= x;
    g.u32(t.type), g.u64(offset);
    const GgmlType* type = ggml_type(t.type);
    REQUIRE(type != nullptr);
    offset += (n / static_cast<u64>(type->block) * static_cast<u64>(type->bytes) + 31) / 32 * 32;
  }
  auto h = read_gguf_header(g.b, 0);
  INFO(join(h.issues()));
  REQUIRE(h.ok());
  return std::move(h).value();
}

constexpr std::uint32_t F32 = 0, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14, BF16 = 30, MXFP4 = 39;

// Qwen2.5-0.5B as convert_hf_to_gguf.py names it (tied head: no output.weight): norms and biases
// f32, the embedding q4_0, 896-wide rows q8_0 (896 is not a multiple of 256), ffn_down q6_K.
// `edit` may change a layer's tensors.
std::vector<T> qwen25_tensors(bool fused_qkv = false) {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  const u64 d = static_cast<u64>(c.d_model), kv = static_cast<u64>(c.n_kv_heads * c.head_dim), f = static_cast<u64>(c.d_ff),
            v = static_cast<u64>(c.vocab);
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_0}, {"output_norm.weight", {d}, F32}};
  for (i64 l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    std::vector<T> layer{{"attn_norm.weight", {d}, F32}, {"attn_output.weight", {d, d}, Q8_0}, {"ffn_norm.weight", {d}, F32},
                         {"ffn_gate.weight", {d, f}, Q8_0}, {"ffn_up.weight", {d, f}, Q8_0}, {"ffn_down.weight", {f, d}, Q6_K}};
    if (fused_qkv) {
      layer.push_back({"attn_qkv.weight", {d, d + 2 * kv}, Q8_0});
      layer.push_back({"attn_qkv.bias", {d + 2 * kv}, F32});
    } else {
      for (const T& x : std::vector<T>{{"attn_q.weight", {d, d}, Q8_0}, {"attn_q.bias", {d}, F32}, {"attn_k.weight", {d, kv}, Q8_0},
                                       {"attn_k.bias", {kv}, F32}, {"attn_v.weight", {d, kv}, Q8_0}, {"attn_v.bias", {kv}, F32}})
        layer.push_back(x);
    }
    for (const T& x : layer) t.push_back({b + x.name, x.ne, x.type});
  }
  return t;
}

PreparedModel prepared(const ModelConfig& c) {
  auto m = prepare(c);
  INFO(join(m.issues()));
  REQUIRE(m.ok());
  return std::move(m).value();
}

// The model prepared with the file's bytes as its weights, failing the test (with the reason)
// where the file's tensors do not match it.
PreparedModel with_file(const ModelConfig& c, const GgufHeader& h) {
  PreparedModel m = prepared(c);
  attach_file(m, h);
  INFO((m.file_refused ? m.file_refused->message : ""));
  REQUIRE(m.file);
  return m;
}

Estimate estimate_of(const PreparedModel& m, const Workload& w) {
  auto e = estimate(m, w);
  INFO(join(e.issues()));
  REQUIRE(e.ok());
  return std::move(e).value();
}

const WeightRow* row_of(const Estimate& e, std::string_view name, std::string_view type) {
  for (const WeightRow& r : e.inference.weights.rows)
    if (tensor_of(*e.inventory, r).name == name && r.file_type == type) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("file weights: a GGUF's bytes are the weights, per tensor and layer", "[core][gguf][file]") {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  const GgufHeader h = gguf_of("qwen2", qwen25_tensors());
  PreparedModel m = prepared(c);
  auto fw = gguf_file_weights(h, c, *m.inventory);
  INFO(join(fw.issues()));
  REQUIRE(fw.ok());
  CHECK(fw->total_bytes == h.tensor_bytes());
  CHECK(fw->other_tensors == 0);
  attach_file(m, h);
  REQUIRE(m.file);
  CHECK_FALSE(m.file_refused);
  const Workload w = llmsize::test::with({{"w", "q8_0"}});
  const Estimate e = estimate_of(m, w);
  CHECK(e.inference.weights.from_file);
  CHECK(e.inference.weights.total_bytes == h.tensor_bytes());
  CHECK(e.inference.weights_bytes == h.tensor_bytes());  // one GPU holds them all
  // The format's own figure stays beside it, and is what an estimate without the file gives.
  REQUIRE(e.format_weights);
  CHECK(e.format_weights->total_bytes == llmsize::test::run(c, w).inference.weights.total_bytes);
  CHECK(e.format_weights->total_bytes != h.tensor_bytes());  // q8_0 everywhere vs the file's q4_0 / q6_K mix
  // Rows carry the file's types: every layer's down projection in q6_K.
  const WeightRow* down = row_of(e, "model.layers.{i}.mlp.down_proj.weight", "q6_K");
  REQUIRE(down != nullptr);
  CHECK(down->layers == c.n_layers);
  CHECK(down->bytes == c.n_layers * (c.d_ff * c.d_model / 256 * 210));
  REQUIRE(row_of(e, "model.embed_tokens.weight", "q4_0") != nullptr);
  // The parameters are the model's whatever the types.
  CHECK(e.inference.weights.params == llmsize::test::param_report(c).total);

  SECTION("a layer stored differently moves the weights by exactly its bytes") {
    auto t = qwen25_tensors();
    for (T& x : t)
      if (x.name == "blk.5.attn_q.weight") x.type = Q4_0;  // 18 instead of 34 bytes per 32 values
    const GgufHeader h5 = gguf_of("qwen2", t);
    const PreparedModel m5 = with_file(c, h5);
    const Estimate e5 = estimate_of(m5, w);
    CHECK(e.inference.weights.total_bytes - e5.inference.weights.total_bytes == c.d_model * c.d_model / 32 * (34 - 18));
    // That layer's q_proj has its own row (one layer of q4_0 beside 23 of q8_0).
    const WeightRow* q4 = row_of(e5, "model.layers.{i}.self_attn.q_proj.weight", "q4_0");
    REQUIRE(q4 != nullptr);
    CHECK(q4->layers == 1);
  }
  SECTION("llama.cpp's model buffers hold the file's bytes: the embedding on the CPU, the rest on the devices") {
    const Workload lw = llmsize::test::with({{"w", "q8_0"}, {"rt", "llamacpp"}, {"pp", "2"}, {"gpus", "2"}});
    const Estimate el = estimate_of(m, lw);
    REQUIRE(el.llamacpp_devices);
    const i64 embd = h.tensors[0].bytes;  // token_embd, the input layer: always the CPU
    CHECK(el.llamacpp_devices->cpu_mapped_bytes == embd);
    // A tied head: llama.cpp duplicates token_embd on the output layer's device.
    CHECK(el.llamacpp_devices->gpu_model_bytes() == h.tensor_bytes() - embd + embd);
    // The per-GPU figure is the most loaded device's share of the file's bytes.
    CHECK(el.inference.weights_bytes < h.tensor_bytes());
  }
  SECTION("pipeline stages split the file's bytes by layer") {
    const Estimate e2 = estimate_of(m, llmsize::test::with({{"w", "q8_0"}, {"pp", "2"}, {"gpus", "2"}}));
    // Stage 0: the embedding and layers 0–11; stage 1: layers 12–23, the final norm and the
    // (tied) head again: the most loaded of the two, from the file's tensors.
    i64 first = h.tensors[0].bytes, last = h.tensors[1].bytes + h.tensors[0].bytes;
    for (const GgufTensor& t : h.tensors) {
      if (t.name.rfind("blk.", 0) != 0) continue;
      const i64 layer = std::stoll(t.name.substr(4));
      (layer < 12 ? first : last) += t.bytes;
    }
    CHECK(e2.inference.weights_bytes == std::max(first, last));
  }
}

TEST_CASE("file weights: one fused attn_qkv tensor is shared by q, k and v in proportion", "[core][gguf][file]") {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  const GgufHeader split = gguf_of("qwen2", qwen25_tensors(false)), fused = gguf_of("qwen2", qwen25_tensors(true));
  CHECK(split.tensor_bytes() == fused.tensor_bytes());  // q8_0 rows of 896: one tensor or three, the same blocks
  PreparedModel m = with_file(c, fused);
  const Estimate e = estimate_of(m, llmsize::test::with({{"w", "q8_0"}}));
  CHECK(e.inference.weights.total_bytes == fused.tensor_bytes());
  const WeightRow* k = row_of(e, "model.layers.{i}.self_attn.k_proj.weight", "q8_0");
  REQUIRE(k != nullptr);
  CHECK(k->bytes == c.n_layers * (c.d_model * c.n_kv_heads * c.head_dim / 32 * 34));
}

TEST_CASE("file weights: a file that does not match the model is named, and the estimate keeps its own", "[core][gguf][file]") {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  auto refused = [&](const std::vector<T>& t) {
    PreparedModel m = prepared(c);
    attach_file(m, gguf_of("qwen2", t));
    REQUIRE_FALSE(m.file);
    REQUIRE(m.file_refused);
    CHECK(m.file_refused->field == "gguf");
    // Every estimate says why, and its weights are the format's.
    const Workload w = llmsize::test::with({{"w", "q8_0"}});
    const Estimate e = estimate_of(m, w);
    CHECK_FALSE(e.inference.weights.from_file);
    CHECK(e.inference.weights.total_bytes == llmsize::test::run(c, w).inference.weights.total_bytes);
    bool noted = false;
    for (const Issue& n : e.notes) noted |= n.field == "gguf" && n.message == m.file_refused->message;
    CHECK(noted);
    llmsize::test::check_in_both(*m.file_refused);  // in each language, the file's reason too
    return m.file_refused->message;
  };
  auto t = qwen25_tensors();
  for (T& x : t)
    if (x.name == "blk.3.attn_k.weight") x.ne = {896, 64};
  CHECK(refused(t) == "the file's bytes stand beside the estimate, not in it: blk.3.attn_k.weight holds 57,344 elements "
                      "where the model's model.layers.3.self_attn.k_proj.weight has 114,688");
  t = qwen25_tensors();
  std::erase_if(t, [](const T& x) { return x.name == "blk.7.ffn_up.weight"; });
  CHECK(refused(t) == "the file's bytes stand beside the estimate, not in it: the file has no blk.7.ffn_up.weight for "
                      "model.layers.7.mlp.up_proj.weight");

  // A tensor the model does not name (llama.cpp's rope_freqs of Llama 3) counts, with layer 0.
  t = qwen25_tensors();
  t.push_back({"rope_freqs.weight", {32}, F32});
  const GgufHeader h = gguf_of("qwen2", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->other_tensors == 1);
  CHECK(m.file->other_names == std::vector<std::string>{"rope_freqs.weight"});
  const Estimate e = estimate_of(m, Workload{});
  CHECK(e.inference.weights.total_bytes == h.tensor_bytes());
  CHECK(e.inference.weights.other_bytes == 128);
}

TEST_CASE("file weights: gpt-oss's fused gate_up is llama.cpp's ffn_gate_exps and ffn_up_exps", "[core][gguf][file]") {
  // gpt-oss-20b as llama.cpp's src/models/openai-moe.cpp creates its tensors: MXFP4 experts (as the
  // checkpoint ships them), bf16 attention, f32 norms, sinks, biases and router.
  const ModelConfig c = llmsize::test::preset("gpt-oss-20b").config;
  const u64 d = static_cast<u64>(c.d_model), q = static_cast<u64>(c.n_heads * c.head_dim),
            kv = static_cast<u64>(c.n_kv_heads * c.head_dim), e = static_cast<u64>(c.moe.num_experts),
            ff = static_cast<u64>(c.moe.expert_ffn), v = static_cast<u64>(c.vocab);
  std::vector<T> t{{"token_embd.weight", {d, v}, BF16}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, BF16}};
  for (i64 l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},           {"post_attention_norm.weight", {d}, F32},
                                     {"attn_q.weight", {d, q}, BF16},          {"attn_q.bias", {q}, F32},
                                     {"attn_k.weight", {d, kv}, BF16},         {"attn_k.bias", {kv}, F32},
                                     {"attn_v.weight", {d, kv}, BF16},         {"attn_v.bias", {kv}, F32},
                                     {"attn_output.weight", {q, d}, BF16},     {"attn_output.bias", {d}, F32},
                                     {"attn_sinks.weight", {static_cast<u64>(c.n_heads)}, F32},
                                     {"ffn_gate_inp.weight", {d, e}, F32},     {"ffn_gate_inp.bias", {e}, F32},
                                     {"ffn_gate_exps.weight", {d, ff, e}, MXFP4}, {"ffn_up_exps.weight", {d, ff, e}, MXFP4},
                                     {"ffn_down_exps.weight", {ff, d, e}, MXFP4}, {"ffn_gate_exps.bias", {ff, e}, F32},
                                     {"ffn_up_exps.bias", {ff, e}, F32},       {"ffn_down_exps.bias", {d, e}, F32}})
      t.push_back({b + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("gpt-oss", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->other_tensors == 0);
  const Estimate est = estimate_of(m, llmsize::test::with({{"w", "mxfp4"}}));
  CHECK(est.inference.weights.total_bytes == h.tensor_bytes());
  CHECK(est.inference.weights.params == llmsize::test::param_report(c).total);
  // gate_up_proj: ffn_gate_exps + ffn_up_exps, 17 bytes per 32 values each.
  const WeightRow* gate_up = row_of(est, "model.layers.{i}.mlp.experts.gate_up_proj", "mxfp4");
  REQUIRE(gate_up != nullptr);
  CHECK(gate_up->bytes == c.n_layers * static_cast<i64>(2 * d * ff * e / 32 * 17));
}

TEST_CASE("file weights: a share link carries a GGUF's types per tensor, and its bytes come back exact", "[core][gguf][file][link]") {
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  auto t = qwen25_tensors();
  for (T& x : t)
    if (x.name == "blk.5.attn_q.weight" || x.name == "blk.6.attn_q.weight") x.type = Q4_0;
  t.push_back({"rope_freqs.weight", {32}, F32});
  const GgufHeader h = gguf_of("qwen2", t);
  PreparedModel m = prepared(c);
  auto fw = gguf_file_weights(h, c, *m.inventory);
  REQUIRE(fw.ok());
  const auto summary = file_summary(*fw, *m.inventory);
  REQUIRE(summary);
  // Globals (embedding q4_0, final norm f32), then layer tensors: q_proj in runs of 5 q8_0 layers,
  // 2 of q4_0, 17 of q8_0.
  CHECK(summary->rfind("gguf~128~" + std::to_string(h.tensor_bytes()) + "~2,0,", 0) == 0);
  CHECK(summary->find(",8x5.2x2.8x17,") != std::string::npos);
  auto back = file_weights_from_summary(*summary, *m.inventory);
  INFO(join(back.issues()));
  REQUIRE(back.ok());
  CHECK(back->total_bytes == h.tensor_bytes());
  CHECK(back->other_bytes == 128);
  check_same_layers(*back, *fw);
  // Through the link codec: the state and the estimate from it.
  ShareState s;
  s.preset = "qwen2.5-0.5b";
  s.model = c;
  s.file = *summary;
  const std::string link = encode_link(s);
  CHECK(link.find("&file=gguf~128~") != std::string::npos);
  auto opened = decode_link(link);
  INFO(join(opened.issues()));
  REQUIRE(opened.ok());
  CHECK(*opened == s);
  PreparedModel from_link = prepared(opened->model);
  attach_file_summary(from_link, opened->file);
  REQUIRE(from_link.file);
  CHECK(estimate_of(from_link, Workload{}).inference.weights_bytes == h.tensor_bytes());

  // Summaries that do not describe the model are refused by the link, under "file".
  auto refused = [&](const std::string& f) {
    auto r = decode_link("v=1&preset=qwen2.5-0.5b&file=" + f);
    REQUIRE_FALSE(r.ok());
    CHECK(r.issues().front().field == "file");
    llmsize::test::check_in_both(r.issues().front());
    return r.issues().front().message;
  };
  CHECK_THAT(refused("ggml~0~0~1"), Catch::Contains("gguf~"));
  CHECK_THAT(refused("gguf~0~0~1"), Catch::Contains("lists 1 tensors; the model has"));
  std::string bad_type = *summary;
  bad_type.replace(bad_type.find(",8x5.2x2.8x17,"), 14, ",4x5.2x2.8x17,");  // ggml type 4 was removed
  CHECK_THAT(refused(bad_type), Catch::Contains("is not a ggml type id"));
  std::string short_runs = *summary;
  short_runs.replace(short_runs.find(",8x5.2x2.8x17,"), 14, ",8x5.2x2.8x16,");
  CHECK_THAT(refused(short_runs), Catch::Contains("cover its 24 layers exactly"));
  // The same types on a model of other shapes: the totals differ, and the link says so.
  auto edited = decode_link("v=1&preset=qwen2.5-0.5b&ff=4096&file=" + *summary);
  REQUIRE_FALSE(edited.ok());
  CHECK_THAT(edited.issues().front().message, Catch::Contains("whose shapes are not the file's"));
  llmsize::test::check_in_both(edited.issues().front());
  // A tensor of two types (not expressible as one type's blocks) gives no summary: the link
  // then carries no file.
  FileWeights mixed = *fw;
  mixed.kinds[0][0][0].type = "mixed";
  CHECK_FALSE(file_summary(mixed, *m.inventory));
}

TEST_CASE("file weights: DeepSeek's MLA tensors, split k_b / v_b and fused gate_up experts", "[core][gguf][file]") {
  // DeepSeek-V2-Lite as llama.cpp's src/models/deepseek2.cpp creates it: no q_lora (attn_q), the
  // latent kv_b split into attn_k_b {nope, kv_lora, heads} and attn_v_b {kv_lora, v, heads}, one
  // dense leading layer, then experts with gate and up fused (ffn_gate_up_exps) and shared experts
  // (rows of 1,408 are not whole k-quant blocks: the down projections in q8_0).
  const ModelConfig c = llmsize::test::preset("deepseek-v2-lite").config;
  const u64 d = static_cast<u64>(c.d_model), h = static_cast<u64>(c.n_heads), r = static_cast<u64>(c.mla.kv_lora_rank),
            rope = static_cast<u64>(c.mla.qk_rope_dim), nope = static_cast<u64>(c.mla.qk_nope_dim),
            vd = static_cast<u64>(c.mla.v_head_dim), e = static_cast<u64>(c.moe.num_experts),
            fe = static_cast<u64>(c.moe.expert_ffn), fs = static_cast<u64>(c.moe.shared_ffn), f = static_cast<u64>(c.d_ff),
            v = static_cast<u64>(c.vocab);
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},          {"attn_q.weight", {d, h * (nope + rope)}, Q8_0},
                         {"attn_kv_a_mqa.weight", {d, r + rope}, Q8_0}, {"attn_kv_a_norm.weight", {r}, F32},
                         {"attn_k_b.weight", {nope, r, h}, Q8_0},  {"attn_v_b.weight", {r, vd, h}, Q8_0},
                         {"attn_output.weight", {h * vd, d}, Q8_0}, {"ffn_norm.weight", {d}, F32}};
    if (l < 1) {
      for (const T& x : std::vector<T>{{"ffn_gate.weight", {d, f}, Q8_0}, {"ffn_up.weight", {d, f}, Q8_0}, {"ffn_down.weight", {f, d}, Q8_0}})
        layer.push_back(x);
    } else {
      for (const T& x : std::vector<T>{{"ffn_gate_inp.weight", {d, e}, F32},         {"ffn_gate_up_exps.weight", {d, 2 * fe, e}, Q4_K},
                                       {"ffn_down_exps.weight", {fe, d, e}, Q8_0},    {"ffn_gate_shexp.weight", {d, fs}, Q8_0},
                                       {"ffn_up_shexp.weight", {d, fs}, Q8_0},        {"ffn_down_shexp.weight", {fs, d}, Q8_0}})
        layer.push_back(x);
    }
    for (const T& x : layer) t.push_back({b + x.name, x.ne, x.type});
  }
  const GgufHeader hd = gguf_of("deepseek2", t);
  PreparedModel m = with_file(c, hd);
  CHECK(m.file->other_tensors == 0);
  const Estimate est = estimate_of(m, llmsize::test::with({{"w", "q4_k_m"}}));
  CHECK(est.inference.weights.total_bytes == hd.tensor_bytes());
  CHECK(est.inference.weights.params == llmsize::test::param_report(c).total);
  // kv_b_proj: attn_k_b + attn_v_b, r × h × (nope + v) values in q8_0.
  i64 kvb = 0;  // over both layer kinds (the dense first layer, the MoE rest)
  for (const WeightRow& row : est.inference.weights.rows)
    if (tensor_of(*est.inventory, row).name == "model.layers.{i}.self_attn.kv_b_proj.weight" && row.file_type == "q8_0") kvb += row.bytes;
  CHECK(kvb == c.n_layers * static_cast<i64>(r * h * (nope + vd) / 32 * 34));
  // A fused tensor whose parts do not add up to it is named.
  for (T& x : t)
    if (x.name == "blk.3.ffn_gate_up_exps.weight") x.ne = {d, 3 * fe, e};
  PreparedModel bad = prepared(c);
  attach_file(bad, gguf_of("deepseek2", t));
  REQUIRE(bad.file_refused);
  CHECK_THAT(bad.file_refused->message, Catch::Contains("blk.3.ffn_gate_up_exps.weight holds"));
}

TEST_CASE("file weights: a file's multi-token-prediction layer stays outside the weights", "[core][gguf][file]") {
  // GLM-4.5-Air as src/models/glm4-moe.cpp creates it: 46 trunk layers (the first dense) and the
  // nextn layer 46 with its own eh_proj, enorm, hnorm and shared head norm.
  const ModelConfig c = llmsize::test::preset("glm-4.5-air").config;
  const u64 d = 4096, q = 96 * 128, kv = 8 * 128, e = 128, fe = 1408, f = 10944, v = 151552;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q8_0}};
  i64 mtp = 0;
  for (i64 l = 0; l <= 46; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},  {"attn_q.weight", {d, q}, Q8_0},  {"attn_q.bias", {q}, F32},
                         {"attn_k.weight", {d, kv}, Q8_0}, {"attn_k.bias", {kv}, F32},      {"attn_v.weight", {d, kv}, Q8_0},
                         {"attn_v.bias", {kv}, F32},       {"attn_output.weight", {q, d}, Q8_0}, {"post_attention_norm.weight", {d}, F32}};
    if (l == 0) {
      for (const T& x : std::vector<T>{{"ffn_gate.weight", {d, f}, Q8_0}, {"ffn_up.weight", {d, f}, Q8_0}, {"ffn_down.weight", {f, d}, Q8_0}})
        layer.push_back(x);
    } else {
      for (const T& x : std::vector<T>{{"ffn_gate_inp.weight", {d, e}, F32},      {"exp_probs_b.bias", {e}, F32},
                                       {"ffn_gate_exps.weight", {d, fe, e}, Q8_0}, {"ffn_up_exps.weight", {d, fe, e}, Q8_0},
                                       {"ffn_down_exps.weight", {fe, d, e}, Q8_0}, {"ffn_gate_shexp.weight", {d, fe}, Q8_0},
                                       {"ffn_up_shexp.weight", {d, fe}, Q8_0},     {"ffn_down_shexp.weight", {fe, d}, Q8_0}})
        layer.push_back(x);
    }
    if (l == 46)
      for (const T& x : std::vector<T>{{"nextn.eh_proj.weight", {2 * d, d}, Q8_0}, {"nextn.enorm.weight", {d}, F32},
                                       {"nextn.hnorm.weight", {d}, F32},          {"nextn.shared_head_norm.weight", {d}, F32}})
        layer.push_back(x);
    for (const T& x : layer) t.push_back({b + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("glm4moe", t);
  for (const GgufTensor& x : h.tensors)
    if (x.name.rfind("blk.46.", 0) == 0) mtp += x.bytes;
  PreparedModel m = with_file(c, h);
  CHECK(m.file->mtp_bytes == mtp);
  CHECK(m.file->other_tensors == 0);
  CHECK(m.file->total_bytes == h.tensor_bytes() - mtp);
  CHECK(estimate_of(m, Workload{}).inference.weights.total_bytes == h.tensor_bytes() - mtp);
}

TEST_CASE("file weights: Phi-3's fused attn_qkv and gate-and-up ffn_up", "[core][gguf][file]") {
  // src/models/phi3.cpp: wqkv {n_embd, n_embd + 2 n_embd_gqa}, ffn_up {n_embd, 2 n_ff}.
  const ModelConfig c = llmsize::test::preset("phi-3-mini").config;
  const u64 d = 3072, f = 8192, v = 32064;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < c.n_layers; ++l)
    for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},       {"attn_qkv.weight", {d, 3 * d}, Q4_K},
                                     {"attn_output.weight", {d, d}, Q4_K}, {"ffn_norm.weight", {d}, F32},
                                     {"ffn_up.weight", {d, 2 * f}, Q4_K},  {"ffn_down.weight", {f, d}, Q6_K}})
      t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  const GgufHeader h = gguf_of("phi3", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: a share link carries a projector's bytes", "[core][link][file]") {
  ShareState s;
  s.preset = "qwen2.5-0.5b";
  s.model = llmsize::test::preset("qwen2.5-0.5b").config;
  s.projector_bytes = 812345678;
  const std::string link = encode_link(s);
  CHECK(link.find("&mmproj=812345678") != std::string::npos);
  auto back = decode_link(link);
  REQUIRE(back.ok());
  CHECK(*back == s);
  auto bad = decode_link("v=1&preset=gpt2&mmproj=-3");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.issues().front().field == "mmproj");
  // The estimate of a prepared model with it: the vision encoder's bytes, on the first GPU.
  PreparedModel m = prepared(s.model);
  m.projector_bytes = s.projector_bytes;
  const Estimate e = estimate_of(m, Workload{});
  CHECK(e.inference.vision_weights_bytes == 812345678);
  CHECK(e.inference.after_load_bytes == e.inference.weights_bytes + 812345678 + e.inference.overhead_bytes);
}

TEST_CASE("file weights: Gemma 3's four norms per layer, and a tensor that would stand for two", "[core][gguf][file]") {
  // src/models/gemma3.cpp: attn_norm, attn_q_norm, attn_k_norm, post_attention_norm, ffn_norm (the
  // pre-FFN norm), post_ffw_norm; the head tied (no output.weight).
  const ModelConfig c = llmsize::test::preset("gemma-3-1b").config;
  const u64 d = 1152, q = 4 * 256, kv = 256, f = 6912, v = 262144;
  auto table = [&](bool post_attention_norm_in_layer_0) {
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}};
    for (i64 l = 0; l < c.n_layers; ++l)
      for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},      {"attn_q.weight", {d, q}, Q8_0},
                                       {"attn_k.weight", {d, kv}, Q8_0},    {"attn_v.weight", {d, kv}, Q8_0},
                                       {"attn_q_norm.weight", {256}, F32},  {"attn_k_norm.weight", {256}, F32},
                                       {"attn_output.weight", {q, d}, Q8_0}, {"post_attention_norm.weight", {d}, F32},
                                       {"ffn_norm.weight", {d}, F32},       {"ffn_gate.weight", {d, f}, Q8_0},
                                       {"ffn_up.weight", {d, f}, Q8_0},     {"ffn_down.weight", {f, d}, Q8_0},
                                       {"post_ffw_norm.weight", {d}, F32}})
        if (post_attention_norm_in_layer_0 || l != 0 || x.name != "post_attention_norm.weight")
          t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    return gguf_of("gemma3", t);
  };
  const GgufHeader h = table(true);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  // Without layer 0's post_attention_norm its ffn_norm would count for both norms: refused.
  PreparedModel bad = prepared(c);
  attach_file(bad, table(false));
  REQUIRE(bad.file_refused);
  CHECK_THAT(bad.file_refused->message, Catch::Contains("blk.0.ffn_norm.weight would stand for two of the model's tensors"));
}

TEST_CASE("file weights: OLMo 2's norms after attention and after the FFN", "[core][gguf][file]") {
  // src/models/olmo2.cpp: attn_q_norm {n_embd}, attn_k_norm {n_head_kv · head}, post_attention_norm,
  // post_ffw_norm; no norm before attention.
  const ModelConfig c = llmsize::test::preset("olmo-2-7b").config;
  const u64 d = 4096, f = 11008, v = 100352;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < c.n_layers; ++l)
    for (const T& x : std::vector<T>{{"attn_q.weight", {d, d}, Q4_K},        {"attn_k.weight", {d, d}, Q4_K},
                                     {"attn_v.weight", {d, d}, Q6_K},        {"attn_output.weight", {d, d}, Q4_K},
                                     {"attn_q_norm.weight", {d}, F32},      {"attn_k_norm.weight", {d}, F32},
                                     {"post_attention_norm.weight", {d}, F32}, {"ffn_gate.weight", {d, f}, Q4_K},
                                     {"ffn_up.weight", {d, f}, Q4_K},        {"ffn_down.weight", {f, d}, Q6_K},
                                     {"post_ffw_norm.weight", {d}, F32}})
      t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  const GgufHeader h = gguf_of("olmo2", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Qwen3.5's Gated DeltaNet and attention layers by llama.cpp's names", "[core][gguf][file]") {
  // src/models/qwen35.cpp load_arch_tensors: linear layers attn_qkv {d, 2·key_dim + value_dim}, attn_gate,
  // ssm_conv1d, ssm_dt.bias, ssm_a, ssm_beta, ssm_alpha, ssm_norm {head_v_dim}, ssm_out; every fourth layer
  // attn_q (with its gate, 2 × heads × 256), attn_k, attn_v, attn_output, attn_q_norm, attn_k_norm; each
  // layer attn_norm, post_attention_norm and the MLP; the MTP block (blk.24) outside the weights.
  const ModelConfig c = llmsize::test::preset("qwen3.5-0.8b").config;
  const u64 d = 1024, f = 3584, v = 248320, key = 16 * 128, value = 16 * 128, conv = 2 * key + value;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q6_K}, {"output_norm.weight", {d}, F32}};
  for (i64 l = 0; l < 25; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},   {"post_attention_norm.weight", {d}, F32},
                         {"ffn_gate.weight", {d, f}, Q4_K}, {"ffn_up.weight", {d, f}, Q4_K},
                         {"ffn_down.weight", {f, d}, Q6_K}};
    if ((l + 1) % 4 != 0 && l < 24) {
      for (const T& x : std::vector<T>{{"attn_qkv.weight", {d, conv}, Q8_0}, {"attn_gate.weight", {d, value}, Q4_K},
                                       {"ssm_conv1d.weight", {4, conv}, F32}, {"ssm_dt.bias", {16}, F32},
                                       {"ssm_a", {16}, F32},                 {"ssm_beta.weight", {d, 16}, F32},
                                       {"ssm_alpha.weight", {d, 16}, F32},   {"ssm_norm.weight", {128}, F32},
                                       {"ssm_out.weight", {value, d}, Q8_0}})
        layer.push_back(x);
    } else {
      for (const T& x : std::vector<T>{{"attn_q.weight", {d, 2 * 8 * 256}, Q4_K}, {"attn_k.weight", {d, 2 * 256}, Q4_K},
                                       {"attn_v.weight", {d, 2 * 256}, Q6_K},     {"attn_output.weight", {8 * 256, d}, Q4_K},
                                       {"attn_q_norm.weight", {256}, F32},       {"attn_k_norm.weight", {256}, F32}})
        layer.push_back(x);
    }
    if (l == 24) layer.push_back({"nextn.eh_proj.weight", {2 * d, d}, Q8_0});
    for (const T& x : layer) t.push_back({b + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("qwen35", t);
  i64 mtp = 0;
  for (const GgufTensor& x : h.tensors)
    if (x.name.rfind("blk.24.", 0) == 0) mtp += x.bytes;
  PreparedModel m = with_file(c, h);
  CHECK(m.file->mtp_bytes == mtp);
  CHECK(m.file->total_bytes == h.tensor_bytes() - mtp);
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Llama 4's experts, shared expert and router by llama.cpp's names", "[core][gguf][file]") {
  // src/models/llama4.cpp load_arch_tensors with Llama-4-Scout's sizes: every layer MoE (step 1):
  // ffn_gate_inp, ffn_{gate,up,down}_exps of 16 experts of 8192 (conversion/llama.py splits the
  // checkpoint's gate_up_proj), the shared expert's ffn_*_shexp; the rope_freqs of layer 0 counted apart.
  const ModelConfig c = llmsize::test::preset("llama-4-scout").config;
  const u64 d = 5120, q = 40 * 128, kv = 8 * 128, e = 16, fe = 8192, v = 202048;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K},
                   {"blk.0.rope_freqs.weight", {64}, F32}};
  for (i64 l = 0; l < c.n_layers; ++l)
    for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},         {"attn_q.weight", {d, q}, Q4_K},
                                     {"attn_k.weight", {d, kv}, Q4_K},       {"attn_v.weight", {d, kv}, Q6_K},
                                     {"attn_output.weight", {q, d}, Q4_K},   {"ffn_norm.weight", {d}, F32},
                                     {"ffn_gate_inp.weight", {d, e}, F32},   {"ffn_gate_exps.weight", {d, fe, e}, Q4_K},
                                     {"ffn_up_exps.weight", {d, fe, e}, Q4_K}, {"ffn_down_exps.weight", {fe, d, e}, Q6_K},
                                     {"ffn_gate_shexp.weight", {d, fe}, Q4_K}, {"ffn_up_shexp.weight", {d, fe}, Q4_K},
                                     {"ffn_down_shexp.weight", {fe, d}, Q6_K}})
      t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  const GgufHeader h = gguf_of("llama4", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 1);  // blk.0.rope_freqs.weight, named and counted with layer 0
}

TEST_CASE("file weights: Qwen3-Next's fused DeltaNet projections and experts by llama.cpp's names", "[core][gguf][file]") {
  // src/models/qwen3next.cpp: in_proj_qkvz as attn_qkv {d, 2·key + value} and attn_gate {d, value}, in_proj_ba as
  // ssm_ba {d, 2·v_heads}; experts in every layer with a gated shared expert (ffn_gate_inp_shexp {d}).
  const ModelConfig c = llmsize::test::preset("qwen3-next-80b-a3b").config;
  const u64 d = 2048, key = 16 * 128, value = 32 * 128, conv = 2 * key + value, e = 512, fe = 512, v = 151936;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < 48; ++l) {
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},          {"post_attention_norm.weight", {d}, F32},
                         {"ffn_gate_inp.weight", {d, e}, F32},     {"ffn_gate_exps.weight", {d, fe, e}, Q4_K},
                         {"ffn_up_exps.weight", {d, fe, e}, Q4_K}, {"ffn_down_exps.weight", {fe, d, e}, Q6_K},
                         {"ffn_gate_inp_shexp.weight", {d}, F32},  {"ffn_gate_shexp.weight", {d, fe}, Q4_K},
                         {"ffn_up_shexp.weight", {d, fe}, Q4_K},   {"ffn_down_shexp.weight", {fe, d}, Q6_K}};
    if ((l + 1) % 4 != 0)
      for (const T& x : std::vector<T>{{"attn_qkv.weight", {d, conv}, Q8_0}, {"attn_gate.weight", {d, value}, Q4_K},
                                       {"ssm_conv1d.weight", {4, conv}, F32}, {"ssm_dt.bias", {32}, F32},
                                       {"ssm_a", {32}, F32},                 {"ssm_ba.weight", {d, 64}, F32},
                                       {"ssm_norm.weight", {128}, F32},      {"ssm_out.weight", {value, d}, Q8_0}})
        layer.push_back(x);
    else
      for (const T& x : std::vector<T>{{"attn_q.weight", {d, 2 * 16 * 256}, Q4_K}, {"attn_k.weight", {d, 2 * 256}, Q4_K},
                                       {"attn_v.weight", {d, 2 * 256}, Q6_K},      {"attn_output.weight", {16 * 256, d}, Q4_K},
                                       {"attn_q_norm.weight", {256}, F32},        {"attn_k_norm.weight", {256}, F32}})
        layer.push_back(x);
    for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("qwen3next", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: StarCoder2's LayerNorm biases and c_fc / c_proj MLP by llama.cpp's names", "[core][gguf][file]") {
  // src/models/starcoder2.cpp: attn_norm and ffn_norm with biases, q/k/v/output with biases, ffn_up / ffn_down with biases.
  const ModelConfig c = llmsize::test::preset("starcoder2-15b").config;
  const u64 d = 6144, kv = 4 * 128, f = 24576, v = 49152;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"output_norm.bias", {d}, F32},
                   {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < c.n_layers; ++l)
    for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32}, {"attn_norm.bias", {d}, F32},  {"attn_q.weight", {d, d}, Q8_0},
                                     {"attn_q.bias", {d}, F32},       {"attn_k.weight", {d, kv}, Q8_0}, {"attn_k.bias", {kv}, F32},
                                     {"attn_v.weight", {d, kv}, Q8_0}, {"attn_v.bias", {kv}, F32},     {"attn_output.weight", {d, d}, Q8_0},
                                     {"attn_output.bias", {d}, F32},  {"ffn_norm.weight", {d}, F32},   {"ffn_norm.bias", {d}, F32},
                                     {"ffn_up.weight", {d, f}, Q8_0}, {"ffn_up.bias", {f}, F32},       {"ffn_down.weight", {f, d}, Q8_0},
                                     {"ffn_down.bias", {d}, F32}})
      t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  const GgufHeader h = gguf_of("starcoder2", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Nemotron-H's and Granite 4.0-H's Mamba-2, attention and MLP blocks by llama.cpp's names", "[core][gguf][file]") {
  // src/models/nemotron-h.cpp: a norm per block (attn_norm); Mamba-2 ssm_in, ssm_conv1d (+ bias), ssm_dt.bias, ssm_a,
  // ssm_d, ssm_norm {d_inner / groups, groups}, ssm_out; attention attn_q/k/v/output; MLP ffn_up / ffn_down (relu²).
  {
    const ModelConfig c = llmsize::test::preset("nemotron-nano-9b-v2").config;
    const u64 d = 4480, heads = 128, hd = 80, groups = 8, state = 128, inner = heads * hd, conv = inner + 2 * groups * state,
              in = 2 * inner + 2 * groups * state + heads, q = 40 * 128, kv = 8 * 128, f = 15680, v = 131072;
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q8_0}};
    const std::string pattern = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
    for (size_t l = 0; l < pattern.size(); ++l) {
      std::vector<T> layer{{"attn_norm.weight", {d}, F32}};
      if (pattern[l] == 'M')
        layer.insert(layer.end(), {{"ssm_in.weight", {d, in}, Q8_0},   {"ssm_conv1d.weight", {4, conv}, F32},
                                   {"ssm_conv1d.bias", {conv}, F32},   {"ssm_dt.bias", {heads}, F32},
                                   {"ssm_a", {1, heads}, F32},         {"ssm_d", {1, heads}, F32},
                                   {"ssm_norm.weight", {inner / groups, groups}, F32}, {"ssm_out.weight", {inner, d}, Q8_0}});
      else if (pattern[l] == '*')
        layer.insert(layer.end(), {{"attn_q.weight", {d, q}, Q8_0}, {"attn_k.weight", {d, kv}, Q8_0},
                                   {"attn_v.weight", {d, kv}, Q8_0}, {"attn_output.weight", {q, d}, Q8_0}});
      else
        layer.insert(layer.end(), {{"ffn_up.weight", {d, f}, Q8_0}, {"ffn_down.weight", {f, d}, Q8_0}});
      for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    }
    const GgufHeader h = gguf_of("nemotron_h", t);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
  // src/models/granite-hybrid.cpp with granite-4.0-h-small: the experts' fused input_linear as ffn_gate_exps + ffn_up_exps,
  // the shared MLP's as ffn_gate_shexp + ffn_up_shexp; tied head.
  {
    const ModelConfig c = llmsize::test::preset("granite-4.0-h-small").config;
    const u64 d = 4096, heads = 128, hd = 64, groups = 1, state = 128, inner = heads * hd, conv = inner + 2 * groups * state,
              in = 2 * inner + 2 * groups * state + heads, q = 32 * 128, kv = 8 * 128, e = 72, fe = 768, fs = 1536, v = 100352;
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}};
    const std::string pattern = "MMMMM*MMMMMMMMM*MMMMMMMMM*MMMMMMMMM*MMMM";
    for (size_t l = 0; l < pattern.size(); ++l) {
      std::vector<T> layer{{"attn_norm.weight", {d}, F32},          {"ffn_norm.weight", {d}, F32},
                           {"ffn_gate_inp.weight", {d, e}, F32},     {"ffn_gate_exps.weight", {d, fe, e}, Q4_K},
                           {"ffn_up_exps.weight", {d, fe, e}, Q4_K}, {"ffn_down_exps.weight", {fe, d, e}, Q6_K},
                           {"ffn_gate_shexp.weight", {d, fs}, Q4_K}, {"ffn_up_shexp.weight", {d, fs}, Q4_K},
                           {"ffn_down_shexp.weight", {fs, d}, Q6_K}};
      if (pattern[l] == 'M')
        layer.insert(layer.end(), {{"ssm_in.weight", {d, in}, Q8_0},   {"ssm_conv1d.weight", {4, conv}, F32},
                                   {"ssm_conv1d.bias", {conv}, F32},   {"ssm_dt.bias", {heads}, F32},
                                   {"ssm_a", {1, heads}, F32},         {"ssm_d", {1, heads}, F32},
                                   {"ssm_norm.weight", {inner / groups, groups}, F32}, {"ssm_out.weight", {inner, d}, Q8_0}});
      else
        layer.insert(layer.end(), {{"attn_q.weight", {d, q}, Q8_0}, {"attn_k.weight", {d, kv}, Q8_0},
                                   {"attn_v.weight", {d, kv}, Q8_0}, {"attn_output.weight", {q, d}, Q8_0}});
      for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    }
    const GgufHeader h = gguf_of("granitehybrid", t);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
}

TEST_CASE("file weights: LFM2's short convolutions and attention layers by llama.cpp's names", "[core][gguf][file]") {
  // src/models/lfm2.cpp with LFM2-1.2B: attn_norm (operator_norm) and ffn_norm per layer, shortconv.{in_proj, conv,
  // out_proj} or attn_q/k/v/output with attn_q_norm / attn_k_norm, the MLP as ffn_gate/up/down, token_embd_norm, tied.
  const ModelConfig c = llmsize::test::preset("lfm2-1.2b").config;
  const u64 d = 2048, kv = 8 * 64, f = 8192, v = 65536;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"token_embd_norm.weight", {d}, F32}};
  for (i64 l = 0; l < 16; ++l) {
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},     {"ffn_norm.weight", {d}, F32},   {"ffn_gate.weight", {d, f}, Q8_0},
                         {"ffn_up.weight", {d, f}, Q8_0},     {"ffn_down.weight", {f, d}, Q8_0}};
    if (l == 2 || l == 5 || l == 8 || l == 10 || l == 12 || l == 14)
      layer.insert(layer.end(), {{"attn_q.weight", {d, d}, Q8_0}, {"attn_k.weight", {d, kv}, Q8_0}, {"attn_v.weight", {d, kv}, Q8_0},
                                 {"attn_output.weight", {d, d}, Q8_0}, {"attn_q_norm.weight", {64}, F32}, {"attn_k_norm.weight", {64}, F32}});
    else
      layer.insert(layer.end(), {{"shortconv.in_proj.weight", {d, 3 * d}, Q8_0}, {"shortconv.conv.weight", {3, d}, F32},
                                 {"shortconv.out_proj.weight", {d, d}, Q8_0}});
    for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("lfm2", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Gemma's tensors by llama.cpp's names, the head tied", "[core][gguf][file]") {
  // src/models/gemma.cpp: Llama's layout, q and o H·head = 4096 wide, output = token_embd (not stored).
  const ModelConfig c = llmsize::test::preset("gemma-7b").config;
  const u64 d = 3072, q = 16 * 256, f = 24576, v = 256000;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q6_K}, {"output_norm.weight", {d}, F32}};
  for (i64 l = 0; l < c.n_layers; ++l)
    for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},     {"attn_q.weight", {d, q}, Q4_K},
                                     {"attn_k.weight", {d, q}, Q4_K},    {"attn_v.weight", {d, q}, Q6_K},
                                     {"attn_output.weight", {q, d}, Q4_K}, {"ffn_norm.weight", {d}, F32},
                                     {"ffn_gate.weight", {d, f}, Q4_K},  {"ffn_up.weight", {d, f}, Q4_K},
                                     {"ffn_down.weight", {f, d}, Q6_K}})
      t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  const GgufHeader h = gguf_of("gemma", t);
  CHECK(h.elements() == count_params(c)->total);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Phi-2's split or fused q, k, v and its biased head by llama.cpp's names", "[core][gguf][file]") {
  // src/models/phi2.cpp: create_tensor_qkv takes attn_q/k/v with biases, or one attn_qkv (files of the older
  // transformer.h.{i}.mixer.Wqkv checkpoints); attn_output, ffn_up, ffn_down with biases; output and output.bias.
  const ModelConfig c = llmsize::test::preset("phi-2").config;
  const u64 d = 2560, f = 10240, v = 51200;
  auto table = [&](bool fused) {
    std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output_norm.bias", {d}, F32},
                     {"output.weight", {d, v}, Q6_K},    {"output.bias", {v}, F32}};
    for (i64 l = 0; l < c.n_layers; ++l) {
      std::vector<T> x{{"attn_norm.weight", {d}, F32},     {"attn_norm.bias", {d}, F32},  {"attn_output.weight", {d, d}, Q4_K},
                       {"attn_output.bias", {d}, F32},     {"ffn_up.weight", {d, f}, Q4_K}, {"ffn_up.bias", {f}, F32},
                       {"ffn_down.weight", {f, d}, Q6_K},  {"ffn_down.bias", {d}, F32}};
      if (fused) {
        x.push_back({"attn_qkv.weight", {d, 3 * d}, Q4_K});
        x.push_back({"attn_qkv.bias", {3 * d}, F32});
      } else {
        for (const char* p : {"attn_q", "attn_k", "attn_v"}) {
          x.push_back({std::string(p) + ".weight", {d, d}, Q4_K});
          x.push_back({std::string(p) + ".bias", {d}, F32});
        }
      }
      for (const T& y : x) t.push_back({"blk." + std::to_string(l) + "." + y.name, y.ne, y.type});
    }
    return gguf_of("phi2", t);
  };
  for (bool fused : {false, true}) {
    INFO(fused);
    const GgufHeader h = table(fused);
    CHECK(h.elements() == count_params(c)->total);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
}

TEST_CASE("file weights: GPT-NeoX and BLOOM by llama.cpp's names (gpt_neox.layers.{i}., transformer.h.{i}.)", "[core][gguf][file]") {
  // src/models/gptneox.cpp, bloom.cpp: LayerNorms, q‖k‖v in one attn_qkv, attn_output, ffn_up, ffn_down, all
  // with biases; GPT-NeoX's untied output (embed_out), BLOOM's token_embd_norm and tied head.
  auto layers = [](std::vector<T>& t, i64 n, u64 d) {
    const u64 f = 4 * d;
    for (i64 l = 0; l < n; ++l)
      for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32}, {"attn_norm.bias", {d}, F32},
                                       {"attn_qkv.weight", {d, 3 * d}, Q4_K}, {"attn_qkv.bias", {3 * d}, F32},
                                       {"attn_output.weight", {d, d}, Q4_K}, {"attn_output.bias", {d}, F32},
                                       {"ffn_norm.weight", {d}, F32},  {"ffn_norm.bias", {d}, F32},
                                       {"ffn_up.weight", {d, f}, Q4_K}, {"ffn_up.bias", {f}, F32},
                                       {"ffn_down.weight", {f, d}, Q6_K}, {"ffn_down.bias", {d}, F32}})
        t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  };
  const ModelConfig pythia = llmsize::test::preset("pythia-160m").config;
  std::vector<T> t{{"token_embd.weight", {768, 50304}, Q8_0}, {"output_norm.weight", {768}, F32},
                   {"output_norm.bias", {768}, F32},           {"output.weight", {768, 50304}, Q6_K}};
  layers(t, 12, 768);
  const GgufHeader h = gguf_of("gptneox", t);
  CHECK(h.elements() == count_params(pythia)->total);
  PreparedModel m = with_file(pythia, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
  const ModelConfig bloom = llmsize::test::preset("bloom-560m").config;
  std::vector<T> b{{"token_embd.weight", {1024, 250880}, Q8_0}, {"token_embd_norm.weight", {1024}, F32},
                   {"token_embd_norm.bias", {1024}, F32},        {"output_norm.weight", {1024}, F32},
                   {"output_norm.bias", {1024}, F32}};
  layers(b, 24, 1024);
  const GgufHeader hb = gguf_of("bloom", b);
  CHECK(hb.elements() == count_params(bloom)->total);
  PreparedModel mb = with_file(bloom, hb);
  CHECK(mb.file->total_bytes == hb.tensor_bytes());
  CHECK(mb.file->other_tensors == 0);
}

TEST_CASE("file weights: Falcon's one-norm (7B) and two-norm (40B) layers by llama.cpp's names", "[core][gguf][file]") {
  // src/models/falcon.cpp: attn_norm (7B input_layernorm; 40B ln_mlp) and attn_norm_2 (40B ln_attn) with biases,
  // attn_qkv {n_embd, n_embd + 2 n_embd_gqa}, no other biases; the head tied.
  auto table = [](i64 layers, u64 d, u64 kv, bool two_norms) {
    const u64 f = 4 * d, v = 65024;
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"output_norm.bias", {d}, F32}};
    for (i64 l = 0; l < layers; ++l) {
      std::vector<T> x{{"attn_norm.weight", {d}, F32},          {"attn_norm.bias", {d}, F32},
                       {"attn_qkv.weight", {d, d + 2 * kv}, Q8_0}, {"attn_output.weight", {d, d}, Q8_0},
                       {"ffn_up.weight", {d, f}, Q8_0},           {"ffn_down.weight", {f, d}, Q8_0}};
      if (two_norms) {
        x.push_back({"attn_norm_2.weight", {d}, F32});
        x.push_back({"attn_norm_2.bias", {d}, F32});
      }
      for (const T& y : x) t.push_back({"blk." + std::to_string(l) + "." + y.name, y.ne, y.type});
    }
    return gguf_of("falcon", t);
  };
  for (const auto& [preset, h] : {std::pair{"falcon-7b", table(32, 4544, 64, false)}, std::pair{"falcon-40b", table(60, 8192, 8 * 64, true)}}) {
    INFO(preset);
    const ModelConfig c = llmsize::test::preset(preset).config;
    CHECK(h.elements() == count_params(c)->total);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
}

TEST_CASE("file weights: GPT-2 and StarCoder by llama.cpp's names (transformer.h.{i}., position_embd)", "[core][gguf][file]") {
  // src/models/gpt2.cpp, starcoder.cpp: token_embd, position_embd {n_embd, n_ctx_train}, LayerNorms, attn_qkv
  // {n_embd, n_embd + 2 n_embd_gqa}, attn_output, ffn_up, ffn_down, all with biases; the head tied.
  auto table = [](i64 layers, u64 d, u64 kv, u64 v, u64 positions) {
    const u64 f = 4 * d;
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"position_embd.weight", {d, positions}, F32},
                     {"output_norm.weight", {d}, F32},    {"output_norm.bias", {d}, F32}};
    for (i64 l = 0; l < layers; ++l)
      for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32}, {"attn_norm.bias", {d}, F32},
                                       {"attn_qkv.weight", {d, d + 2 * kv}, Q4_K}, {"attn_qkv.bias", {d + 2 * kv}, F32},
                                       {"attn_output.weight", {d, d}, Q4_K}, {"attn_output.bias", {d}, F32},
                                       {"ffn_norm.weight", {d}, F32},  {"ffn_norm.bias", {d}, F32},
                                       {"ffn_up.weight", {d, f}, Q4_K}, {"ffn_up.bias", {f}, F32},
                                       {"ffn_down.weight", {f, d}, Q6_K}, {"ffn_down.bias", {d}, F32}})
        t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    return t;
  };
  for (const auto& [preset, arch, t] : {std::tuple{"gpt2", "gpt2", table(12, 768, 768, 50257, 1024)},
                                        std::tuple{"starcoder-15b", "starcoder", table(40, 6144, 128, 49152, 8192)}}) {
    INFO(preset);
    const ModelConfig c = llmsize::test::preset(preset).config;
    const GgufHeader h = gguf_of(arch, t);
    CHECK(h.elements() == count_params(c)->total);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
}

TEST_CASE("file weights: Jamba's Mamba-1, attention and expert layers by llama.cpp's names", "[core][gguf][file]") {
  // src/models/jamba.cpp with AI21-Jamba-1.5-Mini: attn_norm and ffn_norm (pre_ff_layernorm) per layer; Mamba-1 ssm_in,
  // ssm_conv1d (+ bias), ssm_x, ssm_dt (+ bias), ssm_dt_norm, ssm_b_norm, ssm_c_norm, ssm_a {d_state, d_inner}, ssm_d,
  // ssm_out, or attn_q/k/v/output at layers 4, 12, 20, 28; experts (ffn_gate_inp, ffn_{gate,up,down}_exps) at odd
  // layers, else ffn_gate/up/down; untied head.
  const ModelConfig c = llmsize::test::preset("jamba-1.5-mini").config;
  const u64 d = 4096, di = 8192, ds = 16, dt = 256, kv = 8 * 128, f = 14336, e = 16, v = 65536;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < 32; ++l) {
    std::vector<T> layer{{"attn_norm.weight", {d}, F32}, {"ffn_norm.weight", {d}, F32}};
    if (l % 8 == 4)
      layer.insert(layer.end(), {{"attn_q.weight", {d, d}, Q8_0}, {"attn_k.weight", {d, kv}, Q8_0},
                                 {"attn_v.weight", {d, kv}, Q8_0}, {"attn_output.weight", {d, d}, Q8_0}});
    else
      layer.insert(layer.end(), {{"ssm_in.weight", {d, 2 * di}, Q8_0},    {"ssm_conv1d.weight", {4, di}, F32},
                                 {"ssm_conv1d.bias", {di}, F32},          {"ssm_x.weight", {di, dt + 2 * ds}, Q8_0},
                                 {"ssm_dt_norm.weight", {dt}, F32},       {"ssm_dt.weight", {dt, di}, Q8_0},
                                 {"ssm_dt.bias", {di}, F32},              {"ssm_b_norm.weight", {ds}, F32},
                                 {"ssm_c_norm.weight", {ds}, F32},        {"ssm_a", {ds, di}, F32},
                                 {"ssm_d", {di}, F32},                    {"ssm_out.weight", {di, d}, Q8_0}});
    if (l % 2 == 1)
      layer.insert(layer.end(), {{"ffn_gate_inp.weight", {d, e}, F32}, {"ffn_gate_exps.weight", {d, f, e}, Q4_K},
                                 {"ffn_up_exps.weight", {d, f, e}, Q4_K}, {"ffn_down_exps.weight", {f, d, e}, Q6_K}});
    else
      layer.insert(layer.end(), {{"ffn_gate.weight", {d, f}, Q4_K}, {"ffn_up.weight", {d, f}, Q4_K}, {"ffn_down.weight", {f, d}, Q6_K}});
    for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("jamba", t);
  CHECK(h.elements() == count_params(c)->total);  // 51,570,323,328 in 531 tensors
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Falcon-H1's Mamba-2 and attention in every layer by llama.cpp's names", "[core][gguf][file]") {
  // src/models/falcon-h1.cpp with Falcon-H1-0.5B: attn_norm, ffn_norm (FFN_PRE_NORM: no ".weight"), ssm_in, ssm_conv1d (+ bias),
  // ssm_dt.bias, ssm_a / ssm_d {1, heads}, ssm_out, attn_q/k/v/output, ffn_gate/up/down; untied head; no ssm_norm (mamba_rms_norm false).
  const ModelConfig c = llmsize::test::preset("falcon-h1-0.5b").config;
  const u64 d = 1024, q = 8 * 64, kv = 2 * 64, f = 2048, heads = 24, inner = 1536, conv = inner + 2 * 1 * 128,
            in = inner + conv + heads, v = 32784;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q8_0}};
  for (i64 l = 0; l < 36; ++l)
    for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},   {"ffn_norm", {d}, F32},
                                     {"ssm_in.weight", {d, in}, Q8_0},  {"ssm_conv1d.weight", {4, conv}, F32},
                                     {"ssm_conv1d.bias", {conv}, F32},  {"ssm_dt.bias", {heads}, F32},
                                     {"ssm_a", {1, heads}, F32},        {"ssm_d", {1, heads}, F32},
                                     {"ssm_out.weight", {inner, d}, Q8_0}, {"attn_q.weight", {d, q}, Q8_0},
                                     {"attn_k.weight", {d, kv}, Q8_0},  {"attn_v.weight", {d, kv}, Q8_0},
                                     {"attn_output.weight", {q, d}, Q8_0}, {"ffn_gate.weight", {d, f}, Q8_0},
                                     {"ffn_up.weight", {d, f}, Q8_0},   {"ffn_down.weight", {f, d}, Q8_0}})
      t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  const GgufHeader h = gguf_of("falcon-h1", t);
  CHECK(h.elements() == count_params(c)->total);  // 521,411,104 in 579 tensors
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: Gemma 4's per-layer embeddings and head widths by llama.cpp's names", "[core][gguf][file]") {
  // src/models/gemma4.cpp with gemma-4-E4B (as a published conversion log lists it): sliding layers' heads 256, full 512;
  // per_layer_token_embd / per_layer_model_proj / per_layer_proj_norm, and per layer inp_gate, proj, post_norm; tied.
  // Beside the model's tensors the file holds rope_freqs, layer_output_scale (a buffer) in every layer, and attn_k / attn_v /
  // attn_k_norm in the 18 KV-shared layers (the checkpoint's, which transformers no longer builds): 97 other tensors.
  const ModelConfig c = llmsize::test::preset("gemma-4-e4b").config;
  const u64 d = 2560, f = 10240, p = 256, layers = 42, v = 262144;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0},           {"output_norm.weight", {d}, F32},
                   {"per_layer_token_embd.weight", {p * layers, v}, Q8_0}, {"per_layer_model_proj.weight", {d, p * layers}, BF16},
                   {"per_layer_proj_norm.weight", {p}, F32},      {"rope_freqs.weight", {256}, F32}};
  for (u64 l = 0; l < layers; ++l) {
    const bool full = (l + 1) % 6 == 0;
    const u64 hd = full ? 512 : 256, q = 8 * hd, kv = 2 * hd;
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},      {"attn_q.weight", {d, q}, Q8_0},     {"attn_q_norm.weight", {hd}, F32},
                         {"attn_k.weight", {d, kv}, Q8_0},     {"attn_v.weight", {d, kv}, Q8_0},    {"attn_k_norm.weight", {hd}, F32},
                         {"attn_output.weight", {q, d}, Q8_0}, {"post_attention_norm.weight", {d}, F32},
                         {"ffn_norm.weight", {d}, F32},        {"ffn_gate.weight", {d, f}, Q8_0},   {"ffn_up.weight", {d, f}, Q8_0},
                         {"ffn_down.weight", {f, d}, Q6_K},    {"post_ffw_norm.weight", {d}, F32},  {"inp_gate.weight", {d, p}, Q8_0},
                         {"proj.weight", {p, d}, Q8_0},        {"post_norm.weight", {d}, F32},      {"layer_output_scale.weight", {1}, F32}};
    for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("gemma4", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 97);
  CHECK(h.elements() == count_params(c)->total + 55055914);
}

TEST_CASE("file weights: Gemma 4 26B-A4B's experts beside the dense FFN by llama.cpp's names", "[core][gguf][file]") {
  // src/models/gemma4.cpp load_arch_tensors with gemma-4-26B-A4B's sizes: the dense FFN (ffn_norm, ffn_gate/up/down,
  // post_ffw_norm) and, beside it, ffn_gate_inp with its scale, pre_ffw_norm_2, post_ffw_norm_1 and _2, the experts'
  // ffn_gate_up_exps (or gate and up apart) and ffn_down_exps with the per-expert scale; tied. Beside the model's
  // tensors: rope_freqs once and layer_output_scale in every layer, 31 others. Rows of 2112 and 704 values are not
  // whole k-quant blocks: q8_0 there, as the quantizer falls back.
  const ModelConfig c = llmsize::test::preset("gemma-4-26b-a4b").config;
  const u64 d = 2816, f = 2112, fe = 704, e = 128, v = 262144;
  for (const bool fused : {true, false}) {
    INFO(fused);
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}, {"rope_freqs.weight", {256}, F32}};
    for (u64 l = 0; l < 30; ++l) {
      const bool full = (l + 1) % 6 == 0;
      const u64 hd = full ? 512 : 256, q = 16 * hd, kv = (full ? 2 : 8) * hd;
      std::vector<T> layer{{"attn_norm.weight", {d}, F32},       {"attn_q.weight", {d, q}, Q8_0},      {"attn_q_norm.weight", {hd}, F32},
                           {"attn_k.weight", {d, kv}, Q8_0},      {"attn_k_norm.weight", {hd}, F32},    {"attn_output.weight", {q, d}, Q8_0},
                           {"post_attention_norm.weight", {d}, F32}, {"ffn_norm.weight", {d}, F32},  {"ffn_gate.weight", {d, f}, Q8_0},
                           {"ffn_up.weight", {d, f}, Q8_0},       {"ffn_down.weight", {f, d}, Q8_0},    {"post_ffw_norm.weight", {d}, F32},
                           {"ffn_gate_inp.weight", {d, e}, F32},  {"ffn_gate_inp.scale", {d}, F32},     {"pre_ffw_norm_2.weight", {d}, F32},
                           {"post_ffw_norm_1.weight", {d}, F32},  {"post_ffw_norm_2.weight", {d}, F32}, {"ffn_down_exps.weight", {fe, d, e}, Q8_0},
                           {"ffn_down_exps.scale", {e}, F32},     {"layer_output_scale.weight", {1}, F32}};
      if (!full) layer.push_back({"attn_v.weight", {d, kv}, Q8_0});
      if (fused) layer.push_back({"ffn_gate_up_exps.weight", {d, 2 * fe, e}, Q4_K});
      else layer.insert(layer.end(), {{"ffn_gate_exps.weight", {d, fe, e}, Q4_K}, {"ffn_up_exps.weight", {d, fe, e}, Q4_K}});
      for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    }
    const GgufHeader h = gguf_of("gemma4", t);
    CHECK(h.elements() == count_params(c)->total + 256 + 30);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 31);
  }
}

TEST_CASE("file weights: DeepSeek-V3.2's lightning indexer by llama.cpp's names", "[core][gguf][file]") {
  // src/models/deepseek32.cpp load_arch_tensors with DeepSeek-V3.2's sizes: MLA with k_b / v_b split, the indexer's
  // attn_q_b, attn_k, k_norm (weight and bias) and proj in every layer, 3 dense layers, then 256 experts of 2,048,
  // one shared expert and exp_probs_b.
  const ModelConfig c = llmsize::test::preset("deepseek-v3.2").config;
  const u64 d = 7168, h = 128, ql = 1536, r = 512, rope = 64, nope = 128, vd = 128, ih = 64, id = 128, e = 256, fe = 2048,
            f = 18432, v = 129280;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
  for (i64 l = 0; l < 61; ++l) {
    std::vector<T> layer{{"attn_norm.weight", {d}, F32},        {"attn_q_a_norm.weight", {ql}, F32},
                         {"attn_kv_a_norm.weight", {r}, F32},   {"attn_q_a.weight", {d, ql}, Q8_0},
                         {"attn_q_b.weight", {ql, h * (nope + rope)}, Q8_0}, {"attn_kv_a_mqa.weight", {d, r + rope}, Q8_0},
                         {"attn_k_b.weight", {nope, r, h}, Q8_0}, {"attn_v_b.weight", {r, vd, h}, Q8_0},
                         {"attn_output.weight", {h * vd, d}, Q8_0}, {"ffn_norm.weight", {d}, F32},
                         {"indexer.k_norm.weight", {id}, F32},   {"indexer.k_norm.bias", {id}, F32},
                         {"indexer.proj.weight", {d, ih}, F32},  {"indexer.attn_k.weight", {d, id}, Q8_0},
                         {"indexer.attn_q_b.weight", {ql, ih * id}, Q8_0}};
    if (l < 3)
      layer.insert(layer.end(), {{"ffn_gate.weight", {d, f}, Q4_K}, {"ffn_up.weight", {d, f}, Q4_K}, {"ffn_down.weight", {f, d}, Q6_K}});
    else
      layer.insert(layer.end(), {{"ffn_gate_inp.weight", {d, e}, F32},     {"exp_probs_b.bias", {e}, F32},
                                 {"ffn_gate_exps.weight", {d, fe, e}, Q4_K}, {"ffn_up_exps.weight", {d, fe, e}, Q4_K},
                                 {"ffn_down_exps.weight", {fe, d, e}, Q6_K}, {"ffn_gate_shexp.weight", {d, fe}, Q8_0},
                                 {"ffn_up_shexp.weight", {d, fe}, Q8_0},     {"ffn_down_shexp.weight", {fe, d}, Q8_0}});
    for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  }
  const GgufHeader hd = gguf_of("deepseek32", t);
  PreparedModel m = with_file(c, hd);
  CHECK(m.file->total_bytes == hd.tensor_bytes());
  CHECK(m.file->other_tensors == 0);
}

TEST_CASE("file weights: ERNIE 4.5's and MiniMax-M2's router correction biases by llama.cpp's names", "[core][gguf][file]") {
  // src/models/ernie4-5.cpp with ERNIE-4.5-21B-A3B: layer 0 dense (12,288), then 64 experts of 1,536, two shared
  // (ffn_*_shexp of 3,072), exp_probs_b from mlp.moe_statics.e_score_correction_bias; tied.
  {
    const ModelConfig c = llmsize::test::preset("ernie-4.5-21b-a3b").config;
    const u64 d = 2560, kv = 512, f = 12288, e = 64, fe = 1536, fs = 3072, v = 103424;
    std::vector<T> t{{"token_embd.weight", {d, v}, Q8_0}, {"output_norm.weight", {d}, F32}};
    for (i64 l = 0; l < 28; ++l) {
      std::vector<T> layer{{"attn_norm.weight", {d}, F32},     {"attn_q.weight", {d, d}, Q8_0}, {"attn_k.weight", {d, kv}, Q8_0},
                           {"attn_v.weight", {d, kv}, Q8_0},    {"attn_output.weight", {d, d}, Q8_0}, {"ffn_norm.weight", {d}, F32}};
      if (l == 0)
        layer.insert(layer.end(), {{"ffn_gate.weight", {d, f}, Q8_0}, {"ffn_up.weight", {d, f}, Q8_0}, {"ffn_down.weight", {f, d}, Q8_0}});
      else
        layer.insert(layer.end(), {{"ffn_gate_inp.weight", {d, e}, F32},     {"exp_probs_b.bias", {e}, F32},
                                   {"ffn_gate_exps.weight", {d, fe, e}, Q4_K}, {"ffn_up_exps.weight", {d, fe, e}, Q4_K},
                                   {"ffn_down_exps.weight", {fe, d, e}, Q6_K}, {"ffn_gate_shexp.weight", {d, fs}, Q8_0},
                                   {"ffn_up_shexp.weight", {d, fs}, Q8_0},     {"ffn_down_shexp.weight", {fs, d}, Q8_0}});
      for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    }
    const GgufHeader h = gguf_of("ernie4_5-moe", t);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
  // src/models/minimax-m2.cpp: q/k norms over all heads, 256 experts as wide as feed_forward_length, exp_probs_b
  // from block_sparse_moe.e_score_correction_bias; untied.
  {
    const ModelConfig c = llmsize::test::preset("minimax-m2").config;
    const u64 d = 3072, q = 48 * 128, kv = 8 * 128, e = 256, f = 1536, v = 200064;
    std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K}};
    for (i64 l = 0; l < 62; ++l)
      for (const T& x : std::vector<T>{{"attn_norm.weight", {d}, F32},        {"attn_q.weight", {d, q}, Q4_K},
                                       {"attn_k.weight", {d, kv}, Q4_K},      {"attn_v.weight", {d, kv}, Q6_K},
                                       {"attn_output.weight", {q, d}, Q4_K},  {"attn_q_norm.weight", {q}, F32},
                                       {"attn_k_norm.weight", {kv}, F32},     {"ffn_norm.weight", {d}, F32},
                                       {"ffn_gate_inp.weight", {d, e}, F32},  {"exp_probs_b.bias", {e}, F32},
                                       {"ffn_gate_exps.weight", {d, f, e}, Q4_K}, {"ffn_up_exps.weight", {d, f, e}, Q4_K},
                                       {"ffn_down_exps.weight", {f, d, e}, Q6_K}})
        t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
    const GgufHeader h = gguf_of("minimax-m2", t);
    PreparedModel m = with_file(c, h);
    CHECK(m.file->total_bytes == h.tensor_bytes());
    CHECK(m.file->other_tensors == 0);
  }
}

TEST_CASE("file weights: Llama-Nemotron NAS layers without attention or FFN by llama.cpp's names", "[core][gguf][file]") {
  // src/models/deci.cpp with Llama-3.3-Nemotron-Super-49B: attn_norm and attn_q/k/v/output only where the layer
  // attends (8 KV heads), ffn_norm and ffn_gate/up/down of each layer's own width, the llama3 rope_freqs apart.
  const ModelConfig c = llmsize::test::preset("llama-3.3-nemotron-super-49b").config;
  const u64 d = 8192, v = 128256;
  std::vector<T> t{{"token_embd.weight", {d, v}, Q4_K}, {"output_norm.weight", {d}, F32}, {"output.weight", {d, v}, Q6_K},
                   {"rope_freqs.weight", {64}, F32}};
  for (i64 l = 0; l < 80; ++l) {
    const u64 kv = static_cast<u64>(c.layer_kv_heads[static_cast<size_t>(l)] * 128),
              f = static_cast<u64>(c.layer_ffn[static_cast<size_t>(l)]);
    std::vector<T> layer;
    if (kv > 0)
      layer.insert(layer.end(), {{"attn_norm.weight", {d}, F32}, {"attn_q.weight", {d, d}, Q4_K}, {"attn_k.weight", {d, kv}, Q4_K},
                                 {"attn_v.weight", {d, kv}, Q6_K}, {"attn_output.weight", {d, d}, Q4_K}});
    if (f > 0)
      layer.insert(layer.end(), {{"ffn_norm.weight", {d}, F32}, {"ffn_gate.weight", {d, f}, Q4_K}, {"ffn_up.weight", {d, f}, Q4_K},
                                 {"ffn_down.weight", {f, d}, Q6_K}});
    for (const T& x : layer) t.push_back({"blk." + std::to_string(l) + "." + x.name, x.ne, x.type});
  }
  const GgufHeader h = gguf_of("deci", t);
  PreparedModel m = with_file(c, h);
  CHECK(m.file->total_bytes == h.tensor_bytes());
  CHECK(m.file->other_tensors == 1);  // rope_freqs.weight: llama.cpp's llama3 factors, not a parameter of the model
}

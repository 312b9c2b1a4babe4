// The reference decoder's forward passes against the naive scalar model (naive.cpp), for a
// tiny version of every preset family and of the test configs: prefill, decode and chunked
// calls through the KV cache, hidden states and logits, batch of two sequences.
//
// Tolerance: the largest element error divided by the RMS of the naive output must stay
// below 2e-5 (kTol). The decoder computes in fp32 (blocked SIMD GEMMs with FMA natively,
// mul+add in WASM, fp32 softmax and norms); the naive model in double. Observed errors are
// ~1e-6 (fp32 rounding over dot products of 16–192 terms, through 2–3 layers): a wrong
// index, mask, norm or position changes the output by O(1), far above the tolerance.
#include <catch2/catch.hpp>

#include <cmath>

#include "naive.hpp"
#include "ref/forward.hpp"
#include "ref/math.hpp"
#include "test_util.hpp"
#include "tiny.hpp"

using namespace llmsize;
using llmsize::test::max_rel_error;
using llmsize::test::random_floats;

namespace {

constexpr double kTol = 2e-5;

std::vector<std::pair<std::string, core::ModelConfig>> tiny_configs() {
  std::vector<std::pair<std::string, core::ModelConfig>> out;
  auto all = core::load_presets();
  REQUIRE(all.ok());
  for (const auto& p : all.value())
    if (!ref::unsupported(p.config)) out.emplace_back(p.id, test::tiny(p.config));  // others: alloc_test
  for (const char* f : {"falcon-rw-1b.json", "opt-350m.json", "phi-1_5.json"})
    out.emplace_back(f, test::tiny(test::import_file(std::string("../core/configs/") + f)));
  // Gemma 4 E4B's KV-shared layers with use_double_wide_mlp, without its per-layer embeddings.
  for (const auto& p : all.value())
    if (p.id == "gemma-4-e4b") {
      core::ModelConfig c = test::tiny(p.config);
      c.ple_dim = c.ple_vocab = 0;
      c.double_wide = true;
      out.emplace_back("gemma-4-e4b: KV-shared layers with double-wide MLPs, no per-layer embeddings", c);
    }
  // Falcon-H1 with its mixer's gated RMSNorm (mamba_rms_norm), normalizing before the gate
  // (mamba_norm_before_gate, FalconH1RMSNormGated), which the 0.5B preset turns off, and an
  // attention_in_multiplier other than the 0.5B's 1.0.
  for (const auto& p : all.value())
    if (p.id == "falcon-h1-0.5b") {
      core::ModelConfig c = test::tiny(p.config);
      c.mamba.gated_norm = c.mamba.norm_before_gate = true;
      c.mup.attn_in = 1.5;
      out.emplace_back("falcon-h1 with its gated norm before the gate", c);
    }
  return out;
}

std::unique_ptr<ref::Decoder> build(const core::ModelConfig& c, const ref::DecoderOptions& o) {
  auto dec = ref::build_decoder(c, o);
  INFO(core::join(dec.issues()));
  REQUIRE(dec.ok());
  return std::move(dec.value());
}

// Rows of positions [p0, p0 + n) of every sequence of x (b, T, d): (b·n, d).
std::vector<float> rows(const std::vector<float>& x, int64_t b, int64_t T, int64_t d, int64_t p0, int64_t n) {
  std::vector<float> out;
  for (int64_t s = 0; s < b; ++s)
    out.insert(out.end(), x.begin() + (s * T + p0) * d, x.begin() + (s * T + p0 + n) * d);
  return out;
}

}  // namespace

TEST_CASE("every family's layers match the naive model through prefill, decode and chunks", "[ref][block]") {
  const int64_t b = 2, T = 12;
  const std::vector<int64_t> calls = {7, 1, 1, 1, 2};  // prefill, three decode steps, a chunk
  for (const auto& [id, cfg] : tiny_configs()) {
    INFO(id);
    auto dec = build(cfg, {.batch = b, .context = T, .max_tokens = 8, .globals = false, .seed = 7});
    const int64_t d = cfg.d_model, ple = static_cast<int64_t>(dec->layers.size()) * cfg.ple_dim;
    const auto x = random_floats(b * T * d, 11);
    const auto u = random_floats(b * T * ple, 13);  // Gemma 4's per-layer inputs (none elsewhere)
    std::vector<float> got(static_cast<size_t>(b * T * d));
    int64_t p0 = 0;
    for (int64_t n : calls) {
      auto y = ref::forward_hidden(*dec, rows(x, b, T, d, p0, n), n, rows(u, b, T, ple, p0, n));
      INFO(core::join(y.issues()));
      REQUIRE(y.ok());
      for (int64_t s = 0; s < b; ++s)
        std::copy_n(y->begin() + s * n * d, n * d, got.begin() + (s * T + p0) * d);
      p0 += n;
    }
    REQUIRE(dec->pos == T);
    const double err = max_rel_error(got, test::naive_layers(*dec, x, T, u));
    INFO("max error / rms = " << err);
    CHECK(err < kTol);
  }
}

TEST_CASE("every family's logits match the naive model, embeddings to head", "[ref][block]") {
  const int64_t b = 2, T = 9;
  for (const auto& [id, cfg] : tiny_configs()) {
    INFO(id);
    auto dec = build(cfg, {.batch = b, .context = T, .max_tokens = 6, .seed = 3});
    std::vector<int32_t> tok(static_cast<size_t>(b * T));
    for (size_t i = 0; i < tok.size(); ++i) tok[i] = static_cast<int32_t>((i * 37 + 5) % cfg.vocab);
    int64_t p0 = 0;
    for (int64_t n : {6, 1, 2}) {
      std::vector<int32_t> call, seen;
      for (int64_t s = 0; s < b; ++s) {
        call.insert(call.end(), tok.begin() + s * T + p0, tok.begin() + s * T + p0 + n);
        seen.insert(seen.end(), tok.begin() + s * T, tok.begin() + s * T + p0 + n);
      }
      auto logits = ref::forward_tokens(*dec, call, n);
      INFO(core::join(logits.issues()));
      REQUIRE(logits.ok());
      p0 += n;
      const double err = max_rel_error(logits.value(), test::naive_logits(*dec, seen, p0));
      INFO("after " << p0 << " tokens: max error / rms = " << err);
      CHECK(err < kTol);
    }
  }
}

TEST_CASE("Gemma 4: a block starting past layer 0 takes its own layers' slices of the per-layer inputs", "[ref][block]") {
  // embed_tokens_per_layer and per_layer_model_projection hold every layer's slice side by side
  // (num_hidden_layers · hidden_size_per_layer_input columns); layers 2 and 3 read slices 2 and 3.
  core::ModelConfig cfg = test::tiny(test::preset("gemma-4-e4b").config);
  cfg.kv_shared = 0;  // four layers of their own: sliding, full, sliding, full
  const int64_t b = 2, T = 7;
  auto dec = build(cfg, {.batch = b, .context = T, .max_tokens = 7, .first_layer = 2, .n_layers = 2, .seed = 9});
  REQUIRE(dec->layers.size() == 2);
  REQUIRE(dec->layers[0].index == 2);
  std::vector<int32_t> tok(static_cast<size_t>(b * T));
  for (size_t i = 0; i < tok.size(); ++i) tok[i] = static_cast<int32_t>((i * 53 + 2) % cfg.vocab);
  auto logits = ref::forward_tokens(*dec, tok, T);
  REQUIRE(logits.ok());
  const double err = max_rel_error(logits.value(), test::naive_logits(*dec, tok, T));
  INFO("max error / rms = " << err);
  CHECK(err < kTol);
}

TEST_CASE("a program run one unit at a time gives the same bits as run whole", "[ref][program]") {
  for (const char* id : {"llama-3-8b", "deepseek-v3", "gpt2", "falcon-7b"}) {
    INFO(id);
    const auto cfg = test::tiny(test::preset(id).config);
    const ref::DecoderOptions o{.batch = 2, .context = 300, .max_tokens = 300, .globals = false};
    auto whole = build(cfg, o), sliced = build(cfg, o);
    const auto x = random_floats(2 * 300 * cfg.d_model, 5);  // 600 rows: several GEMM row blocks
    auto a = ref::forward_hidden(*whole, x, 300);
    REQUIRE(a.ok());
    auto prog = ref::hidden_program(*sliced, 300);
    REQUIRE(prog.ok());
    std::copy(x.begin(), x.end(), sliced->ws.x.data());
    int steps = 0;
    while (!ref::run_until(prog.value(), [] { return true; })) ++steps;
    CHECK(steps > 100);
    CHECK(prog->fraction() == Approx(1.0));
    CHECK(std::equal(a->begin(), a->end(), sliced->ws.x.data()));
    CHECK(whole->stats.flops == Approx(sliced->stats.flops));
  }
}

TEST_CASE("calls beyond the context or the chunk size are refused", "[ref][block]") {
  const auto cfg = test::tiny(test::preset("llama-3-8b").config);
  auto dec = build(cfg, {.batch = 1, .context = 4, .max_tokens = 3, .globals = false});
  const auto x = random_floats(4 * cfg.d_model, 1);
  CHECK_FALSE(ref::hidden_program(*dec, 4).ok());
  CHECK_FALSE(ref::hidden_program(*dec, 0).ok());
  REQUIRE(ref::forward_hidden(*dec, std::vector<float>(x.begin(), x.begin() + 3 * cfg.d_model), 3).ok());
  auto over = ref::hidden_program(*dec, 2);
  REQUIRE_FALSE(over.ok());
  CHECK(over.issues()[0].field == "context");
  ref::reset_cache(*dec);
  CHECK(ref::hidden_program(*dec, 2).ok());
}

TEST_CASE("gpt-oss's activation clamps the gate above and the up both ways; a sink takes its share of the softmax", "[ref][block]") {
  // modeling_gpt_oss.py GptOssExperts: gate.clamp(max=7), up.clamp(-7, 7), (up + 1) · gate · sigmoid(1.702 · gate).
  auto want = [](double g, double u) {
    g = std::min(g, 7.0), u = std::max(-7.0, std::min(u, 7.0));
    return (u + 1) * g / (1 + std::exp(-1.702 * g));
  };
  for (auto [g, u] : std::vector<std::pair<float, float>>{{0.5f, -0.25f}, {9.0f, 2.0f}, {-12.0f, 30.0f}, {3.0f, -11.0f}, {7.5f, 7.5f}})
    CHECK(ref::gpt_oss_glu(g, u) == Approx(want(g, u)).epsilon(1e-6));
  CHECK(ref::gpt_oss_glu(100.0f, 100.0f) == ref::gpt_oss_glu(7.0f, 7.0f));  // both clamped
  // The sink's exp joins the denominator: three scores and a sink of equal value share the mass in quarters.
  float x[3] = {0.5f, 0.5f, 0.5f};
  ref::softmax_with_sink(x, 3, 0.5f);
  for (float p : x) CHECK(p == Approx(0.25f));
  float y[2] = {1.0f, 2.0f}, z[2] = {1.0f, 2.0f};
  ref::softmax_with_sink(y, 2, -1e30f);  // a sink far below: the plain softmax
  ref::softmax(z, 2);
  CHECK(y[0] == Approx(z[0]));
  CHECK(y[1] == Approx(z[1]));
}

TEST_CASE("Gated DeltaNet: a prefill of several 64-token chunks, then decode, matches the recurrence", "[ref][block][linear]") {
  // Qwen3-Next (q‖k‖v‖z grouped per key head, two value heads per key head) and Qwen3.5 (four
  // projections): 150 prompt tokens are two whole chunks and a partial one; the state carried
  // between chunks and into decode must equal the naive token-by-token recurrence.
  for (const char* id : {"qwen3-next-80b-a3b", "qwen3.5-0.8b"}) {
    INFO(id);
    core::ModelConfig cfg = test::tiny(test::preset(id).config);
    const int64_t b = 2, T = 153, d = cfg.d_model;
    auto dec = build(cfg, {.batch = b, .context = T, .max_tokens = 150, .globals = false, .seed = 3});
    REQUIRE(dec->layers[0].linear);
    REQUIRE_FALSE(dec->layers[1].linear);
    const auto x = random_floats(b * T * d, 5);
    std::vector<float> got(static_cast<size_t>(b * T * d));
    int64_t p0 = 0;
    for (int64_t n : {150, 1, 1, 1}) {
      auto y = ref::forward_hidden(*dec, rows(x, b, T, d, p0, n), n);
      REQUIRE(y.ok());
      for (int64_t s = 0; s < b; ++s) std::copy_n(y->begin() + s * n * d, n * d, got.begin() + (s * T + p0) * d);
      p0 += n;
    }
    const double err = max_rel_error(got, test::naive_layers(*dec, x, T));
    INFO("max error / rms = " << err);
    CHECK(err < kTol);
  }
}

TEST_CASE("fp8 e4m3 codes, ue8m0 block scales and the Hadamard rotation of the indexer", "[ref][block][indexer]") {
  // OCP FP8 e4m3fn: 448 is the largest code (0x7E; 0x7F is NaN), 2^-9 the smallest subnormal.
  CHECK(ref::fp8_e4m3_encode(448.0f) == 0x7E);
  CHECK(ref::fp8_e4m3_encode(1.0f) == 0x38);
  CHECK(ref::fp8_e4m3_encode(-3.5f) == 0xC6);
  CHECK(ref::fp8_e4m3_encode(0x1p-9f) == 0x01);
  CHECK(ref::fp8_e4m3_encode(0x1p-11f) == 0x00);  // below half the smallest subnormal: zero
  CHECK(ref::fp8_e4m3_decode(ref::fp8_e4m3_encode(1.0625f)) == 1.0f);    // a tie goes to the even mantissa
  CHECK(ref::fp8_e4m3_decode(ref::fp8_e4m3_encode(1.1875f)) == 1.25f);
  CHECK(ref::fp8_e4m3_decode(ref::fp8_e4m3_encode(1.07f)) == 1.125f);
  for (int code = 0; code < 256; ++code) {  // every code but the NaNs decodes and encodes back to itself
    if ((code & 0x7F) == 0x7F) continue;
    const float v = ref::fp8_e4m3_decode(static_cast<std::uint8_t>(code));
    if (v == 0.0f) continue;  // ±0
    CHECK(ref::fp8_e4m3_encode(v) == code);
  }
  // Blocks of 128 with a power-of-two scale ≥ amax / 448: every value within half a step of its code.
  const auto x = random_floats(200, 9);
  std::vector<std::uint8_t> codes(200);
  float scales[2] = {0, 0};
  ref::fp8_quantize(x.data(), 200, codes.data(), scales);
  for (int b = 0; b < 2; ++b) {
    float amax = 0;
    for (int i = b * 128; i < std::min(200, b * 128 + 128); ++i) amax = std::max(amax, std::fabs(x[i]));
    CHECK(scales[b] >= amax / 448.0f);
    CHECK(scales[b] < 2 * amax / 448.0f);
    CHECK(std::exp2(std::round(std::log2(scales[b]))) == scales[b]);
  }
  for (int i = 0; i < 200; ++i) {
    const float v = x[i] / scales[i / 128], q = ref::fp8_e4m3_decode(codes[i]);
    CHECK(std::fabs(q - v) <= std::exp2(std::floor(std::log2(std::fabs(v)))) / 16 + 1e-9);
  }
  // The rotation is Sylvester's Hadamard matrix over sqrt(n): orthonormal, its own inverse.
  auto h = random_floats(16, 4);
  const auto h0 = h;
  ref::hadamard_vec(h.data(), 16);
  for (int i = 0; i < 16; ++i) {
    double want = 0;
    for (int j = 0; j < 16; ++j) want += (__builtin_popcount(i & j) % 2 ? -1.0 : 1.0) * h0[j] / 4.0;
    CHECK(h[i] == Approx(want).margin(1e-6));
  }
  ref::hadamard_vec(h.data(), 16);
  for (int i = 0; i < 16; ++i) CHECK(h[i] == Approx(h0[i]).margin(1e-6));
}

TEST_CASE("DeepSeek-V3.2's queries attend only the keys the indexer selects", "[ref][block][indexer]") {
  // index_topk 5 of the tiny config: once a query sees more than five keys, each head's
  // probabilities in the heat map are non-zero on exactly five positions, the same for every head.
  const auto cfg = test::tiny(test::preset("deepseek-v3.2").config);
  REQUIRE(cfg.mla.index_topk == 5);
  auto dec = build(cfg, {.batch = 1, .context = 12, .max_tokens = 12, .globals = false, .seed = 2});
  const auto x = random_floats(12 * cfg.d_model, 3);
  for (int64_t n : {3, 9}) {
    REQUIRE(ref::forward_hidden(*dec, std::vector<float>(x.begin() + (dec->pos) * cfg.d_model,
                                                         x.begin() + (dec->pos + n) * cfg.d_model), n).ok());
    const auto& hm = dec->heat;
    REQUIRE(hm.positions == dec->pos);
    std::vector<int64_t> first;
    for (int64_t h = 0; h < hm.heads; ++h) {
      std::vector<int64_t> nz;
      for (int64_t j = 0; j < hm.positions; ++j)
        if (hm.probs[h * hm.positions + j] > 0) nz.push_back(j);
      CHECK(static_cast<int64_t>(nz.size()) == std::min<int64_t>(5, hm.positions));
      if (h == 0) first = nz;
      CHECK(nz == first);
    }
  }
  CHECK(dec->mem.stats()[ref::Mem::Indexer] == 12 * (16 + 4) * cfg.n_layers);  // 16 fp8 codes + one fp32 scale per token
}

TEST_CASE("the state trace holds ‖S‖ per head at each prefill chunk's end and after each decoded token", "[ref][block][linear][mamba]") {
  // Gated DeltaNet (64-token chunks) and Mamba-2 (the tiny config's 4-token chunks): the trace of
  // sequence 0 is finite exactly where the state was materialized, and equals the Frobenius norm of
  // the state in the cache after the last call.
  struct Case {
    const char* id;
    int64_t prefill;
    std::vector<int64_t> finite;
  };
  for (const Case& k : {Case{"qwen3.5-0.8b", 150, {63, 127, 149, 150, 151, 152}},
                        Case{"nemotron-nano-9b-v2", 10, {3, 7, 9, 10, 11, 12}}}) {
    INFO(k.id);
    const core::ModelConfig cfg = test::tiny(test::preset(k.id).config);
    const int64_t b = 2, T = k.prefill + 3, d = cfg.d_model;
    auto dec = build(cfg, {.batch = b, .context = T, .max_tokens = k.prefill, .globals = false, .seed = 4});
    const auto x = random_floats(b * T * d, 6);
    int64_t p0 = 0;
    for (int64_t n : {k.prefill, int64_t{1}, int64_t{1}, int64_t{1}}) {
      REQUIRE(ref::forward_hidden(*dec, rows(x, b, T, d, p0, n), n).ok());
      p0 += n;
    }
    const ref::StateTrace t = ref::state_trace(*dec);
    REQUIRE(t.layer >= 0);
    const ref::LayerW& L = dec->layers[static_cast<size_t>(t.layer)];
    REQUIRE((L.linear || L.mamba));
    CHECK(t.heads == (L.linear ? cfg.linear.v_heads : cfg.mamba.heads));
    CHECK(t.positions == T);
    std::vector<int64_t> finite;
    for (int64_t p = 0; p < t.positions; ++p) {
      int64_t n_finite = 0;  // every head recorded at a position, or none
      for (int64_t h = 0; h < t.heads; ++h) n_finite += std::isfinite(t.norms[p * t.heads + h]) ? 1 : 0;
      CHECK((n_finite == 0 || n_finite == t.heads));
      if (n_finite > 0) finite.push_back(p);
    }
    CHECK(finite == k.finite);
    const int64_t per_head = L.linear ? cfg.linear.k_dim * cfg.linear.v_dim : cfg.mamba.state * cfg.mamba.head_dim;
    const float* S = dec->kv[static_cast<size_t>(t.layer)].ssm.data();  // sequence 0 first
    for (int64_t h = 0; h < t.heads; ++h) {
      double ss = 0;
      for (int64_t i = 0; i < per_head; ++i) ss += double(S[h * per_head + i]) * S[h * per_head + i];
      CHECK(t.norms[(T - 1) * t.heads + h] == Approx(std::sqrt(ss)).epsilon(1e-6));
      CHECK(t.norms[(T - 1) * t.heads + h] > 0);
    }
    ref::reset_cache(*dec);
    CHECK(std::isnan(ref::state_trace(*dec).norms[(T - 1) * t.heads]));
  }
}

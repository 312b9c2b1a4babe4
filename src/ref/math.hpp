// Elementwise and per-vector maths of the reference decoder: norms, activations, rotary
// position embedding, ALiBi slopes, softmax, dot products. Plain loops over contiguous
// floats (the compiler vectorises them); sums that set a scale are accumulated in double.
#pragma once
#include <cmath>
#include <cstdint>

#include "core/model.hpp"
#include "decoder.hpp"

namespace llmsize::ref {

inline constexpr float kNormEps = 1e-5f;  // ref: default layer_norm_eps / rms_norm_eps of most configs

// A norm's statistics over n floats: the mean μ (0 for RMSNorm) and 1/sqrt(mean((x − μ)²) + eps),
// sums in double; norm_vec and the training step's backward both read them.
struct NormStats {
  float mean;
  double inv;
};
NormStats norm_stats(core::NormKind kind, const float* x, i64 n);
// y = norm(x) ⊙ w (+ b) over n floats; x and y may alias. LayerNorm subtracts the mean.
void norm_vec(core::NormKind kind, const NormW& w, const float* x, float* y, i64 n);
// RMSNorm without a learned scale (the naive test uses it too).
void rms_vec(const float* w, const float* x, float* y, i64 n);

float activate(core::Activation a, float x);
// d activate(a, x) / dx (the training step's backward).
float activate_grad(core::Activation a, float x);

// Rotates the first `rot` dims of v by position `pos`, pairing dims i and i + rot/2
// (GPT-NeoX "rotate_half" layout), frequencies theta^(-2i/rot). ref: Su et al. 2021 (RoFormer).
void rope_vec(float* v, i64 rot, i64 pos, double theta);
// The same rotation pairing adjacent dims 2i and 2i + 1 (Llama 4: modeling_llama4.py apply_rotary_emb,
// view_as_complex over the last dim reshaped (-1, 2)); rope_vec's for the model's rope_interleaved.
void rope_vec_interleaved(float* v, i64 rot, i64 pos, double theta);
inline void rope_any(bool interleaved, float* v, i64 rot, i64 pos, double theta) {
  if (interleaved) rope_vec_interleaved(v, rot, pos, theta);
  else rope_vec(v, rot, pos, theta);
}
// Rotary dims of a head: floor(hd · fraction), made even (ref: GPT-NeoX rotary_ndims).
i64 rotary_dims(const core::ModelConfig& c);
// x ← x / sqrt(mean(x²) + eps) over n values, without a weight (Llama4TextL2Norm; Gemma 4's v_norm).
void rms_unit(float* x, i64 n);
// The same for a layer whose heads are hd wide (Gemma 4's full layers).
i64 rotary_dims(const core::ModelConfig& c, i64 hd);

// ALiBi slope of head h of H. ref: Press et al. 2022, "Train Short, Test Long", and
// Hugging Face BLOOM build_alibi_tensor for head counts that are not powers of two.
float alibi_slope(i64 h, i64 H);

// In-place softmax over n floats (max-subtracted, double-accumulated sum).
void softmax(float* x, i64 n);
// The same with one more logit, `sink`, that takes its share of the mass and has no output of its
// own: the n probabilities sum to less than 1 (ref: modeling_gpt_oss.py eager_attention_forward,
// the sinks concatenated to the scores, softmax, the sinks' column dropped).
void softmax_with_sink(float* x, i64 n, float sink);
// gpt-oss's expert activation of a gate g and an up u (ref: modeling_gpt_oss.py GptOssExperts:
// alpha 1.702, limit = GptOssConfig.swiglu_limit 7.0): g clamped above, u on both sides,
// (u + 1) · g · sigmoid(alpha · g).
inline constexpr float kGptOssAlpha = 1.702f, kGptOssLimit = 7.0f;
float gpt_oss_glu(float g, float u);

// A causal depthwise convolution's window: `taps` rows of `channels` values, oldest first (zeros
// before the first input). conv_push shifts it by one row and returns the newest row for the
// caller to fill; conv_apply writes y[ch] = bias[ch] + Σ_j w[j·channels + ch] · window[j][ch], so
// tap taps − 1 multiplies the newest input (torch's Conv1d with padding taps − 1, truncated; ref:
// modeling_qwen3_next.py torch_causal_conv1d_update, Lfm2ShortConv, NemotronHMamba2Mixer).
float* conv_push(float* window, i64 taps, i64 channels);
void conv_apply(const float* window, i64 taps, i64 channels, const float* w, const float* bias, float* y);

// log(1 + exp(x)), linear above torch's threshold 20 (F.softplus).
inline float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// The orthonormal Walsh–Hadamard transform of n floats in place (n a power of two), Sylvester's
// order: y = H_n·x / sqrt(n). ref: DeepSeek-V3.2 inference/model.py rotate_activation
// (fast_hadamard_transform's hadamard_transform with scale = n^-0.5).
void hadamard_vec(float* x, i64 n);

// fp8 e4m3fn (OCP FP8: 1 sign, 4 exponent bits biased by 7, 3 mantissa bits; no infinities;
// largest 448, smallest subnormal 2^-9): x (|x| ≤ 448) rounded to the nearest code, ties to even.
std::uint8_t fp8_e4m3_encode(float x);
float fp8_e4m3_decode(std::uint8_t code);
// Block-wise quantization of n floats in blocks of kFp8Block (the last may be shorter), each block
// scaled by a power of two s = 2^ceil(log2(max(amax, 1e-4) / 448)) and clamped to ±448, as
// DeepSeek-V3.2's act_quant does with scale_fmt "ue8m0" (inference/kernel.py act_quant_kernel,
// round_scale; the checkpoint's quantization_config declares scale_fmt ue8m0): codes[i] =
// e4m3(x[i] / s), scales[block] = s, so x[i] ≈ decode(codes[i]) · s.
inline constexpr i64 kFp8Block = 128;
void fp8_quantize(const float* x, i64 n, std::uint8_t* codes, float* scales);

// The k largest of `score` (+ `bias` for the choice only), ties to the lower index, into sel[0..k)
// (the MoE routers of ffn.cpp and the training step).
void top_k(const float* score, const float* bias, i64 E, i64 k, std::int32_t* sel);

float dot(const float* a, const float* b, i64 n);
void axpy(float a, const float* x, float* y, i64 n);  // y += a·x

}  // namespace llmsize::ref

// Elementwise maths of the reference decoder (see math.hpp).
#include "math.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace llmsize::ref {

NormStats norm_stats(core::NormKind kind, const float* x, i64 n) {
  double mean = 0.0;
  if (kind != core::NormKind::RmsNorm) {
    for (i64 i = 0; i < n; ++i) mean += x[i];
    mean /= static_cast<double>(n);
  }
  const float m = static_cast<float>(mean);
  double ss = 0.0;
  for (i64 i = 0; i < n; ++i) {
    const float c = x[i] - m;
    ss += static_cast<double>(c) * c;
  }
  return {m, 1.0 / std::sqrt(ss / static_cast<double>(n) + kNormEps)};
}

void norm_vec(core::NormKind kind, const NormW& w, const float* x, float* y, i64 n) {
  const NormStats st = norm_stats(kind, x, n);
  const float m = st.mean, inv = static_cast<float>(st.inv);
  for (i64 i = 0; i < n; ++i) {
    const float v = (x[i] - m) * inv * w.w[i];
    y[i] = w.b ? v + w.b[i] : v;
  }
}

void rms_vec(const float* w, const float* x, float* y, i64 n) {
  NormW nw{w, nullptr, n};
  norm_vec(core::NormKind::RmsNorm, nw, x, y, n);
}

float activate(core::Activation a, float x) {
  switch (a) {
    case core::Activation::Gelu:  // ref: Hendrycks & Gimpel 2016, exact erf form
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case core::Activation::GeluTanh: {  // ref: Hendrycks & Gimpel 2016, tanh approximation
      const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + std::tanh(u));
    }
    case core::Activation::Relu:
      return x > 0.0f ? x : 0.0f;
    case core::Activation::Silu:  // ref: Ramachandran et al. 2017 (swish, beta = 1)
      return x / (1.0f + std::exp(-x));
    case core::Activation::Relu2: {  // ref: So et al. 2021 (Primer), squared ReLU
      const float r = x > 0.0f ? x : 0.0f;
      return r * r;
    }
  }
  return x;
}

float activate_grad(core::Activation a, float x) {
  switch (a) {
    case core::Activation::Gelu: {  // Φ(x) + x·φ(x)
      const float cdf = 0.5f * (1.0f + std::erf(x * 0.70710678118654752f));
      return cdf + x * 0.39894228040143268f * std::exp(-0.5f * x * x);
    }
    case core::Activation::GeluTanh: {
      const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      const float t = std::tanh(u);
      return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * 0.79788456080286536f * (1.0f + 3.0f * 0.044715f * x * x);
    }
    case core::Activation::Relu:
      return x > 0.0f ? 1.0f : 0.0f;
    case core::Activation::Silu: {  // σ(x)·(1 + x·(1 − σ(x)))
      const float sg = 1.0f / (1.0f + std::exp(-x));
      return sg * (1.0f + x * (1.0f - sg));
    }
    case core::Activation::Relu2:
      return x > 0.0f ? 2.0f * x : 0.0f;
  }
  return 1.0f;
}

void rope_vec(float* v, i64 rot, i64 pos, double theta) {
  const i64 half = rot / 2;
  for (i64 i = 0; i < half; ++i) {
    const double freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rot));
    const double angle = static_cast<double>(pos) * freq;
    const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
    const float a = v[i], b = v[i + half];
    v[i] = a * c - b * s;
    v[i + half] = b * c + a * s;
  }
}

void rope_vec_interleaved(float* v, i64 rot, i64 pos, double theta) {
  for (i64 i = 0; i < rot / 2; ++i) {
    const double freq = std::pow(theta, -2.0 * static_cast<double>(i) / static_cast<double>(rot));
    const double angle = static_cast<double>(pos) * freq;
    const float c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
    const float a = v[2 * i], b = v[2 * i + 1];
    v[2 * i] = a * c - b * s;
    v[2 * i + 1] = b * c + a * s;
  }
}

i64 rotary_dims(const core::ModelConfig& c) { return rotary_dims(c, c.head_dim); }

void rms_unit(float* x, i64 n) {
  double ss = 0.0;
  for (i64 e = 0; e < n; ++e) ss += static_cast<double>(x[e]) * x[e];
  const float inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(n) + kNormEps));
  for (i64 e = 0; e < n; ++e) x[e] *= inv;
}

i64 rotary_dims(const core::ModelConfig& c, i64 hd) {
  if (c.mla.enabled) return c.mla.qk_rope_dim & ~i64{1};
  const i64 rot = static_cast<i64>(static_cast<double>(hd) * c.rotary_fraction);
  return std::clamp<i64>(rot, 0, hd) & ~i64{1};
}

float alibi_slope(i64 h, i64 H) {
  i64 p2 = 1;  // closest power of two ≤ H
  while (p2 * 2 <= H) p2 *= 2;
  if (h < p2) return static_cast<float>(std::pow(2.0, -8.0 * static_cast<double>(h + 1) / static_cast<double>(p2)));
  const i64 j = 2 * (h - p2) + 1;  // odd powers of the next power of two's base
  return static_cast<float>(std::pow(2.0, -4.0 * static_cast<double>(j) / static_cast<double>(p2)));
}

void softmax(float* x, i64 n) {
  float mx = x[0];
  for (i64 i = 1; i < n; ++i) mx = std::max(mx, x[i]);
  double sum = 0.0;
  for (i64 i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (i64 i = 0; i < n; ++i) x[i] *= inv;
}

void softmax_with_sink(float* x, i64 n, float sink) {
  float mx = sink;
  for (i64 i = 0; i < n; ++i) mx = std::max(mx, x[i]);
  double sum = std::exp(static_cast<double>(sink - mx));
  for (i64 i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - mx);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (i64 i = 0; i < n; ++i) x[i] *= inv;
}

float gpt_oss_glu(float g, float u) {
  g = std::min(g, kGptOssLimit);
  u = std::clamp(u, -kGptOssLimit, kGptOssLimit);
  return (u + 1.0f) * g / (1.0f + std::exp(-kGptOssAlpha * g));
}

float* conv_push(float* window, i64 taps, i64 channels) {
  std::memmove(window, window + channels, static_cast<size_t>((taps - 1) * channels) * sizeof(float));
  return window + (taps - 1) * channels;
}

void conv_apply(const float* window, i64 taps, i64 channels, const float* w, const float* bias, float* y) {
  for (i64 ch = 0; ch < channels; ++ch) y[ch] = bias ? bias[ch] : 0.0f;
  for (i64 j = 0; j < taps; ++j)
    for (i64 ch = 0; ch < channels; ++ch) y[ch] += w[j * channels + ch] * window[j * channels + ch];
}

void hadamard_vec(float* x, i64 n) {
  for (i64 h = 1; h < n; h *= 2)  // butterflies over pairs (j, j + h) within blocks of 2h
    for (i64 i = 0; i < n; i += 2 * h)
      for (i64 j = i; j < i + h; ++j) {
        const float a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
  const float s = static_cast<float>(1.0 / std::sqrt(static_cast<double>(n)));
  for (i64 i = 0; i < n; ++i) x[i] *= s;
}

std::uint8_t fp8_e4m3_encode(float x) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const float a = std::min(std::fabs(x), 448.0f);
  // Normal codes have exponent e in [-6, 8] and a step of 2^(e - 3); below 2^-6 the subnormal
  // step 2^-9. nearbyint rounds half to even in the default rounding mode; a carry into the next
  // binade is still exact (it is that binade's first code).
  int e = 0;
  std::frexp(a, &e);  // a = m · 2^e, m in [0.5, 1): the binade's exponent is e - 1
  const int be = std::max(e - 1, -6);
  const float step = std::ldexp(1.0f, be - 3);
  const float r = std::nearbyint(a / step) * step;
  if (r == 0.0f) return sign;
  std::frexp(r, &e);
  if (e - 1 < -6) return static_cast<std::uint8_t>(sign | static_cast<int>(r / std::ldexp(1.0f, -9)));  // subnormal
  const int m = static_cast<int>(r / std::ldexp(1.0f, e - 1) * 8.0f) - 8;  // 0..7
  return static_cast<std::uint8_t>(sign | ((e - 1 + 7) << 3) | m);
}

float fp8_e4m3_decode(std::uint8_t code) {
  const int ex = (code >> 3) & 0xF, m = code & 7;
  const float v = ex == 0 ? std::ldexp(static_cast<float>(m), -9) : std::ldexp(1.0f + static_cast<float>(m) / 8.0f, ex - 7);
  return (code & 0x80) ? -v : v;
}

void fp8_quantize(const float* x, i64 n, std::uint8_t* codes, float* scales) {
  for (i64 b0 = 0, blk = 0; b0 < n; b0 += kFp8Block, ++blk) {
    const i64 b1 = std::min(n, b0 + kFp8Block);
    float amax = 1e-4f;
    for (i64 i = b0; i < b1; ++i) amax = std::max(amax, std::fabs(x[i]));
    // fast_round_scale: 2^(exponent of amax/448, plus one when its mantissa is not zero).
    int e = 0;
    const float f = std::frexp(amax * (1.0f / 448.0f), &e);  // f in [0.5, 1)
    const float s = std::ldexp(1.0f, f == 0.5f ? e - 1 : e);
    scales[blk] = s;
    for (i64 i = b0; i < b1; ++i) codes[i] = fp8_e4m3_encode(std::clamp(x[i] / s, -448.0f, 448.0f));
  }
}

void top_k(const float* score, const float* bias, i64 E, i64 k, std::int32_t* sel) {
  for (i64 i = 0; i < k; ++i) {
    i64 best = -1;
    float best_v = 0;
    for (i64 e = 0; e < E; ++e) {
      if (std::find(sel, sel + i, static_cast<std::int32_t>(e)) != sel + i) continue;
      const float v = bias ? score[e] + bias[e] : score[e];
      if (best < 0 || v > best_v) best = e, best_v = v;
    }
    sel[i] = static_cast<std::int32_t>(best);
  }
}

float dot(const float* a, const float* b, i64 n) {
  // Eight independent partial sums: vectorisable without -ffast-math, same order everywhere.
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  i64 i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  for (int j = 0; i < n; ++i, ++j) acc[j] += a[i] * b[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

void axpy(float a, const float* x, float* y, i64 n) {
  for (i64 i = 0; i < n; ++i) y[i] += a * x[i];
}

}  // namespace llmsize::ref

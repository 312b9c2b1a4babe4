// LFM2's short convolution (see block.hpp), following modeling_lfm2.py Lfm2ShortConv.slow_forward:
//   B‖C‖x = in_proj(h);  y = C ⊙ conv(B ⊙ x);  out = out_proj(y)
// The convolution is depthwise and causal over the last short_conv (conv_L_cache) values of B·x,
// with no activation; its window is the layer's state (Lfm2HybridConvCache conv_cache), carried
// from call to call, so prefill and decode run the same per-token update.
#include <algorithm>
#include <cstring>

#include "block.hpp"
#include "math.hpp"

namespace llmsize::ref {

void add_short_conv_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out, Program& p) {
  const core::ModelConfig& c = dec.cfg;
  const i64 b = dec.opt.batch, M = b * n, d = c.d_model, Kc = c.short_conv;
  float* P = dec.ws.sc_p;
  float* Y = dec.ws.sc_y;
  const std::string name = "layer " + std::to_string(L.index) + " · ";
  add_op(p, gemm_op(dec, name + "in_proj", M, in, d, L.sc_in, P, 3 * d));
  const i64 pos0 = dec.pos;
  float* win = kv.conv.data();
  const float* w = L.conv;
  const float* bias = L.conv_bias;
  add_op(p, rows_op(name + "short conv", b, 3.0 * static_cast<double>(n * Kc * d), [=](i64 s) {
    float* st = win + s * Kc * d;
    if (pos0 == 0) std::fill_n(st, Kc * d, 0.0f);
    for (i64 t = 0; t < n; ++t) {
      const i64 r = s * n + t;
      const float* B = P + r * 3 * d;
      const float* C = B + d;
      const float* x = B + 2 * d;
      float* newest = conv_push(st, Kc, d);
      for (i64 ch = 0; ch < d; ++ch) newest[ch] = B[ch] * x[ch];
      float* y = Y + r * d;
      conv_apply(st, Kc, d, w, bias, y);
      for (i64 ch = 0; ch < d; ++ch) y[ch] *= C[ch];
    }
  }));
  add_op(p, gemm_op(dec, name + "out_proj", M, Y, d, L.lin_out, out, d));
}

}  // namespace llmsize::ref

// Internal: the ops of one decoder layer (attention.cpp, ffn.cpp, block.cpp). Each reads its
// input rows `in` (M = b·n rows of d floats, sequence-major: row = seq·n + t) and writes its
// output rows `out`; the layer adds them to the residual stream dec.ws.x.
#pragma once
#include "program.hpp"

namespace llmsize::ref {

// Attention of layer L: projections, q/k norms, RoPE, the causal attention over the KV cache
// (written token by token, so a sliding-window ring never loses a key still in the window)
// and the output projection. MLA runs in the absorbed form over the latent cache.
void add_attention_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in,
                       float* out, Program& p);

// Gated DeltaNet of a linear-attention layer L (linear_attn.cpp): projections, the causal
// depthwise convolution through its window of the last conv_kernel inputs, the gated delta rule
// over each value head's k_dim × v_dim state, the gated RMSNorm and out_proj. Decode and prefill
// both update the state token by token.
void add_linear_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out,
                    Program& p);

// The causal depthwise convolution of a recurrent mixer, then silu, over a call's b·n rows, one
// sequence per unit (mamba.cpp): each sequence's window of the last `taps` inputs (in `windows`,
// taps × channels per sequence, zeroed when the call starts at position 0) shifts by one row per
// token, fill(row, newest) writes that token's input into the newest row, and out gets
// silu(conv_apply(window)) in rows of `channels`. Gated DeltaNet, Mamba-2 and Mamba-1 use it.
Op conv_silu_op(std::string name, i64 b, i64 n, i64 taps, i64 channels, i64 pos0, float* windows, const float* w,
                const float* bias, std::function<void(i64 row, float* newest)> fill, float* out);

// Mamba-2 mixer of a block-pattern layer L (mamba.cpp): in_proj, the convolution through its
// window, the SSD scan in chunks of chunk_size over each head's state, the gated group norm and
// out_proj.
void add_mamba_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out, Program& p);

// LFM2's short convolution as the mixer of layer L (short_conv.cpp): in_proj's B‖C‖x, the causal
// depthwise convolution of B·x through its window of the last short_conv inputs, C · conv, out_proj.
// Mamba-1 (Jamba's JambaMambaMixer, a selective scan per channel; mamba1.cpp).
void add_mamba1_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out, Program& p);
void add_short_conv_ops(Decoder& dec, const LayerW& L, KvCache& kv, i64 n, const float* in, float* out, Program& p);

// FFN of layer L: classic or gated dense MLP, or routed top-k experts plus shared experts.
void add_ffn_ops(Decoder& dec, const LayerW& L, i64 n, const float* in, float* out, Program& p);

// The whole layer dec.layers[li] on dec.ws.x: norms, attention, FFN, residual adds
// (sequential, parallel or sandwich blocks as the config says).
void add_layer_ops(Decoder& dec, size_t li, i64 n, Program& p);

}  // namespace llmsize::ref

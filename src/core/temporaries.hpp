// Temporaries of one layer in inference: the largest set of tensors alive at once in the
// attention, the FFN and the logits of a prefill chunk or a decode step, on one GPU. Lower
// bounds (a runtime's own buffers come on top). Not here: training activations saved for
// backward (activations.hpp).
#pragma once
#include "layer_plan.hpp"

namespace llmsize::core {

struct TempParams {
  i64 batch = 1;
  i64 chunk = 1;       // query tokens processed in this step (prefill chunk; 1 in decode)
  i64 context = 1;     // keys attended by the last query (chunk included)
  i64 dtype_bytes = 2; // activation dtype
  bool flash = true;   // flash kernel: no b·H·c·T score matrix
  i64 tp = 1;          // heads and FFN width split across tp GPUs
  i64 ep = 1;          // >1: experts held whole (not split by tp)
  i64 logits_positions = 1;  // positions whose logits are computed (1 = last only)
};
// Largest set of tensors alive at once, per part (bytes, on one GPU):
//   attention: x (residual) + normed x + q + k + v + [scores S and probabilities P, each
//              b·H·c·T] or the flash output O (b·c·H·hd_v); k and v as the layer's cache
//              shape holds them (K heads per GPU × k/v head dims; MLA: latent + expanded k, v);
//   ffn:       x + normed x + gated: gate, up, act(gate)·up (3·b·c·f) | classic: up, act (2·b·c·f);
//              MoE: + fp32 router logits b·c·E and the fused-MoE buffers b·c·k·(3·f_e + d)
//              (vLLM fused_moe intermediate caches), shared experts as a dense FFN;
//   logits:    final hidden b·n·d + fp32 logits b·n·v (n = logits_positions, full vocab:
//              gathered on the first TP rank).
// peak = max of the three (they are not alive at the same time).
struct Temporaries {
  i64 attention = 0;
  i64 ffn = 0;
  i64 logits = 0;
  i64 peak = 0;
};
Result<Temporaries> layer_temporaries(const ModelConfig& cfg, const CacheShape& cache, const TempParams& p,
                                      bool moe_layer);

}  // namespace llmsize::core

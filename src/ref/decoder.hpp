// The reference decoder: fp32 weights allocated tensor by tensor from the core's inventory
// (build_inventory), bound to their roles, a KV cache per layer and a workspace sized for a
// chunk of tokens, all through one MemCounter. Forward passes are Programs (program.hpp).
// It is not an inference engine: weights are seeded noise, there is no tokenizer and no
// sampling, and it computes what the estimator counts so that the two can be compared.
//
// Symbols as in core/model.hpp: b batch, n tokens per sequence in one call, M = b·n rows,
// d hidden, H/K query/KV heads, hd head dim, f FFN width, E experts, T visible positions.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alloc.hpp"
#include "core/inventory.hpp"
#include "core/layer_plan.hpp"

namespace llmsize::ref {

struct DecoderOptions {
  i64 batch = 1;          // b sequences decoded together (all at the same position)
  i64 context = 0;        // KV positions kept per sequence, prompt + generated (≥ 1)
  i64 max_tokens = 0;     // most tokens per sequence in one call (prefill chunk); 0 = context
  bool globals = true;    // embeddings, final norm and LM head; false: hidden states in/out
  i64 first_layer = 0;    // build layers [first_layer, first_layer + n_layers) of the model
  i64 n_layers = -1;      // -1: every layer
  std::uint64_t seed = 1;  // weights are a pure function of (seed, tensor name, element)
  bool defer_init = false; // allocate only; fill with init_weights() (the demo slices this)
};

// A linear map x·W (+ b): W is din × dout row-major; `copies` experts are stacked.
struct Lin {
  const float* w = nullptr;
  const float* b = nullptr;  // dout floats per copy, or null
  i64 din = 0, dout = 0, copies = 1;
  explicit operator bool() const { return w != nullptr; }
};
struct NormW {
  const float* w = nullptr;
  const float* b = nullptr;  // LayerNorm bias, or null
  i64 n = 0;
  explicit operator bool() const { return w != nullptr; }
};

// One decoder layer's weights by role (unused roles stay null).
struct LayerW {
  i64 index = 0;     // layer index in the model
  bool moe = false;      // the plan's FFN kind
  i64 window = 0;       // the plan's window: keys attended per query (0 = every past key)
  bool chunked = false; // the window is a fixed chunk (Llama 4): keys from the chunk's start, pos − pos mod window
  i64 kv_heads = 0;     // this layer's KV heads (per-layer in NAS models: DeciLM block_configs; Gemma 4's full layers)
  i64 head_dim = 0;     // this layer's head size (Gemma 4's full layers: global_head_dim)
  bool k_is_v = false;  // no v_proj: the values are k_proj's output before k_norm and RoPE (Gemma 4's attention_k_eq_v)
  // A KV-shared layer (Gemma 4's last num_kv_shared_layers): no k or v, no cache of its own; it attends
  // over the cache of Decoder::layers[kv_from], the last earlier layer of its kind. -1 elsewhere.
  i64 kv_from = -1;
  // The sliding layer whose keys and values KV-shared sliding layers read: it also keeps those of
  // the call's window in Workspace::shared_win (HF keeps them as shared_kv_states, full length).
  bool window_source = false;
  bool no_attn = false, no_ffn = false;  // a NAS layer whose attention or FFN is no_op: no norm, no block
  const float* sinks = nullptr;  // H logits (gpt-oss): one more logit per head in the softmax, with no value
  NormW attn_norm, ffn_norm, post_attn_norm, post_ffn_norm, q_norm, k_norm;
  Lin q, k, v, qkv, o;                  // qkv when the checkpoint fuses them: [q | k | v] columns
  Lin q_a, q_b, kv_a, kv_b;             // MLA; q is the plain projection when q_lora_rank = 0
  NormW q_a_norm, kv_a_norm;
  Lin idx_q, idx_k, idx_w;              // DeepSeek-V3.2's indexer: wq_b (q latent), wk, weights_proj
  NormW idx_k_norm;                     // its k_norm, a LayerNorm with bias
  Lin gate, up, gate_up, down;          // dense FFN; gate_up columns [gate | up]
  Lin router;
  const float* router_correction = nullptr;  // E floats (DeepSeek-V3 selection bias)
  Lin e_gate, e_up, e_down;             // routed experts, copies = E
  Lin e_gate_up;                        // routed experts' fused gate and up (gpt-oss: columns interleaved)
  Lin s_gate, s_up, s_down;             // always-active shared experts
  Lin s_gate_up;                        // their fused [gate | up] (Granite's shared_mlp.input_linear)
  Lin shared_gate;                      // d × 1 sigmoid gate on the shared experts
  // Gemma 4's MoE layers (core::MoeConfig::dense_beside): the router's scale (d) and per-expert
  // scales (E), the experts' input norm and the two branches' post-norms.
  const float* router_scale = nullptr;
  const float* expert_scale = nullptr;
  NormW ffn_norm2, post_ffn_norm1, post_ffn_norm2;
  // Gated DeltaNet (a linear-attention layer, core::AttnKind::Linear). Qwen3-Next fuses
  // q‖k‖v‖z (grouped per key head) and b‖a; Qwen3.5 keeps qkv, z, b and a apart.
  bool linear = false;
  Lin lin_qkvz, lin_ba, lin_qkv, lin_z, lin_b, lin_a, lin_out;
  const float* conv = nullptr;     // (conv_kernel, conv_dim): tap j of channel c at [j·conv_dim + c]
  const float* dt_bias = nullptr;  // Hv (Mamba-2: heads)
  const float* a_log = nullptr;    // Hv (Mamba-2: heads)
  NormW lin_norm;                  // the gated RMSNorm over one value head (v_dim; Mamba-2: d_inner in groups)
  // Block-pattern layers (Nemotron-H: one norm, then one block): `single` marks them; the block
  // is a Mamba-2 mixer (`mamba`), attention, or an MLP alone (`mlp_only`).
  bool single = false, mamba = false, mlp_only = false;
  // Falcon-H1 ('P' layers): attention and a Mamba-2 mixer side by side on one normed input; `mamba`
  // is set too, and the block runs both (block.cpp add_attn_mamba_ops).
  bool attn_mamba = false;
  bool short_conv = false;         // LFM2's short convolution as the layer's mixer (in_proj is sc_in)
  Lin sc_in;                       // d → B‖C‖x (3·d)
  Lin mamba_in;                    // d → z‖xBC‖dt (d_inner + conv_dim + heads); lin_out is out_proj
  const float* conv_bias = nullptr;  // conv_dim
  const float* mamba_d = nullptr;    // heads: the skip connection D
  // Mamba-1 (Jamba's JambaMambaMixer): in_proj is mamba_in (d → x‖gate), conv and conv_bias over
  // d_inner channels, x_proj d_inner → dt_rank‖B‖C, dt_proj dt_rank → d_inner with bias, a_log
  // (d_inner, state), mamba_d (d_inner), the RMSNorms of dt, B and C, and lin_out.
  bool mamba1 = false;
  Lin m1_x, m1_dt;
  NormW m1_dt_norm, m1_b_norm, m1_c_norm;
  // Gemma 4's per-layer input (PLE): per_layer_input_gate d → ple, per_layer_projection ple → d,
  // post_per_layer_input_norm; ple_slot is this layer's place among the built layers' inputs.
  Lin ple_gate, ple_proj;
  NormW ple_norm;
  i64 ple_slot = 0;
};

struct GlobalW {
  const float* embed = nullptr;  // (v, de)
  const float* pos = nullptr;    // (max_positions + pos_offset, d) learned positions
  Lin proj_in, proj_out;         // OPT de → d and d → de
  NormW embed_norm, final_norm;
  Lin head;                      // (de, v); null when tied to embed
  const float* head_bias = nullptr;
  // Gemma 4's per-layer embeddings: embed_tokens_per_layer (ple_vocab, L·ple), per_layer_model_projection
  // (d, L·ple) and per_layer_projection_norm (ple).
  const float* ple_embed = nullptr;
  Lin ple_proj;
  NormW ple_norm;
};

struct WeightTensor {
  core::Tensor spec;
  i64 layer = -1;  // model layer index, -1 for global tensors
  Buffer buf;      // spec.numel() floats
};

// Per layer: keys and values of every sequence, [b][cap][width], shaped by the layer's cache in
// the core's plan: width_k = heads·k_dim, width_v = heads·v_dim (MLA: one latent row of
// kv_lora + rope in k and nothing in v), cap = tokens_kept(context); sliding layers keep those
// slots as a ring (position p lives in slot p mod cap).
// A linear-attention layer keeps no rows (cap = 0) but a recurrent state per sequence, as the
// core's plan counts it (layer_plan.cpp linear_state_bytes): the convolution's last conv_kernel
// inputs (b, conv_kernel, conv_dim) and one k_dim × v_dim matrix per value head (b, Hv, dk, dv).
// An MLA layer with DeepSeek-V3.2's lightning indexer also keeps one indexer key per token in
// `idx`, [b][cap][idx_row bytes]: the key's index_head_dim fp8 e4m3 codes, then its fp32 scales,
// one per 128 values (layer_plan.cpp index_bytes_per_token).
struct KvCache {
  Buffer k, v;  // (b, cap, width_k), (b, cap, width_v)
  i64 cap = 0, width_k = 0, width_v = 0;
  Buffer conv, ssm;  // linear layers only
  Buffer idx;        // indexer keys (MLA with an indexer only)
  i64 idx_row = 0;   // bytes per token in idx
};

// Activations for one call of up to M = b·max_tokens rows. Buffers alive for the whole
// call are their own allocations; the attention, FFN and head phases of a layer never
// overlap in time, so their buffers are views into one shared arena sized for the largest
// phase (as a runtime's allocator reuses freed blocks). See decoder.cpp for the sizes.
struct Workspace {
  Buffer x;        // (M, d) hidden states, in and out of every layer
  Buffer xn;       // (M, max(d, de)) normed input of attention and FFN (OPT: embeddings)
  Buffer xn2;      // (M, d) second norm of two-norm parallel blocks
  Buffer ao_keep;  // (M, d) parallel blocks: attention output kept through the FFN
  Buffer scores;   // (H, context) probabilities of the query being attended
  Buffer tokens;   // (M) int32 token ids (globals only)
  // Gemma 4: (M, built layers, ple) the built layers' per-layer inputs, from the tokens (globals) or
  // given beside the hidden states (HF's per_layer_inputs); ple_ctx (M, L·ple) the embeddings'
  // per_layer_model_projection (globals only).
  Buffer ple_in, ple_ctx;
  Buffer arena;    // max over the phases below
  // Gemma 4: (b, shared_rows, 2·K·hd) keys ‖ values of the sliding source layer at positions
  // [max(0, pos − W + 1), pos + n) of the call (pos = the call's first position), one row per
  // position, for its KV-shared sliding layers: its own ring of W slots has lost the call's
  // earliest positions by the time they run. shared_rows = min(context, W − 1 + max_tokens).
  Buffer shared_win;
  i64 shared_rows = 0;
  // Attention phase views.
  float* qkv = nullptr;      // (M, (H + 2K)·hd); MLA: (M, H·(nope + rope)) queries
  float* mla_cq = nullptr;   // (M, q_lora)
  float* mla_kv = nullptr;   // (M, kv_lora + rope) latent rows before caching
  float* mla_qlat = nullptr; // (M, H·kv_lora) absorbed queries
  float* mla_olat = nullptr; // (M, H·kv_lora) attention output in latent space
  float* idx_q = nullptr;    // (M, H_I·d_I) indexer queries: rotated, Hadamard-transformed, fp8-rounded
  float* idx_k = nullptr;    // (M, d_I) indexer keys before they are quantized into the cache; then a decoded key
  float* idx_w = nullptr;    // (M, H_I) per-head weights of the index score
  float* idx_s = nullptr;    // (M, context) fp32 index scores of every visible key
  std::int32_t* idx_sel = nullptr;  // (M, min(context, index_topk)) the keys each query attends
  float* attn = nullptr;     // (M, H·v_hd) attention output before o
  float* ao = nullptr;       // (M, d) o-projection output (ao_keep for parallel blocks)
  float* ao2 = nullptr;      // (M, d) Falcon-H1: the attention's output, while the Mamba-2 mixer's waits in ao
  // Linear-attention phase views (Gated DeltaNet; ao is shared with the attention phase).
  float* lin_p = nullptr;    // (M, 2·key_dim + 2·value_dim) projections q‖k‖v‖z (checkpoint order)
  float* lin_ba = nullptr;   // (M, 2·Hv) b‖a (checkpoint order)
  float* lin_c = nullptr;    // (M, conv_dim) convolution output q‖k‖v, then normed q and k
  float* lin_o = nullptr;    // (M, value_dim) the recurrence's output, then gated and normed
  float* lin_vn = nullptr;   // (M, value_dim) a prefill chunk's new values v' (max_tokens > 1)
  float* lin_tri = nullptr;  // (M, Hv, 64) a prefill chunk's triangular matrix, one row per token and head
  // Mamba-2 phase views (ao shared with the attention phase).
  float* mam_p = nullptr;    // (M, d_inner + conv_dim + heads) in_proj: z‖xBC‖dt
  float* mam_c = nullptr;    // (M, conv_dim) the convolution's output x‖B‖C
  float* mam_y = nullptr;    // (M, d_inner) the scan's output, then gated and normed
  float* mam_g = nullptr;    // (M, heads) the cumulative log decay within a chunk
  // Mamba-1 views, in the Mamba-2 phase (a model has one kind or the other).
  float* m1_p = nullptr;     // (M, 2·d_inner) in_proj: x‖gate
  float* m1_c = nullptr;     // (M, d_inner) the convolution's output x
  float* m1_s = nullptr;     // (M, dt_rank + 2·state) x_proj: dt‖B‖C, normed in place
  float* m1_dt = nullptr;    // (M, d_inner) softplus(dt_proj(dt))
  float* m1_y = nullptr;     // (M, d_inner) the scan's output, gated
  // Short-convolution phase views (LFM2; ao shared).
  float* sc_p = nullptr;     // (M, 3·d) in_proj: B‖C‖x
  float* sc_y = nullptr;     // (M, d) C · conv(B·x)
  // FFN phase views.
  float* fo = nullptr;       // (M, d) FFN output, then the per-layer input's projection (Gemma 4)
  float* ple_g = nullptr;    // (M, ple) Gemma 4: act(per_layer_input_gate(x)) · per-layer input
  float* h = nullptr;        // (M, 2·f) [gate | up] of the dense FFN or the shared experts
  float* moe_sum = nullptr;  // (M, d) Gemma 4: the experts' sum, while the dense branch's output waits in fo
  float* router = nullptr;   // (M, E) router logits, then scores
  std::int32_t* sel = nullptr;   // (M, top_k) chosen experts
  float* selw = nullptr;         // (M, top_k) their weights
  std::int32_t* order = nullptr; // (M·top_k) entries (row·top_k + slot) grouped by expert
  std::int32_t* offsets = nullptr;  // (E + 1) start of each expert's entries
  float* xg = nullptr;       // (M, d) rows gathered for one expert
  float* hg = nullptr;       // (M, 2·expert_ffn) that expert's [gate | up]
  float* yg = nullptr;       // (M, d) that expert's (or the shared experts') output
  // Head phase views (globals only).
  float* last = nullptr;     // (b, d) last row of each sequence, normed
  float* proj = nullptr;     // (b, de) OPT project_out
  float* logits = nullptr;   // (b, v)
  // Scratch (not activations of the model).
  Buffer heat;     // (H, context) probabilities of the last query (heat map)
  Buffer mla_wt;   // (nope, kv_lora) one head's key up-projection, transposed
  Buffer state_norm;  // (context, heads) the state trace (StateTrace), recurrent layers only
  // Bytes of the arena each phase uses (attention, FFN, head), for the memory report.
  std::array<i64, 6> phase_bytes{};  // attention, FFN, head, linear attention, Mamba-2, short convolution
};

struct DecoderStats {
  double flops = 0;          // floating-point operations executed (2 per multiply-add)
  double weight_bytes_read = 0;  // bytes of weights streamed by GEMMs (decode bandwidth)
  double kv_bytes_read = 0;      // bytes of KV cache read by attention
};

struct HeatMap {
  i64 heads = 0, positions = 0;  // probs is heads × positions, row-major
  i64 query_pos = -1;            // position of the query token, -1 before any attention
  i64 layer = -1;                // model layer the map comes from
  const float* probs = nullptr;
};

// The recurrent state's Frobenius norm per head over positions, for the first Gated DeltaNet or
// Mamba-2 layer built, sequence 0: norms[p·heads + h] is ‖S_h‖ after position p's update, NaN
// where the state was not materialized (inside a prefill chunk, which updates it once at the end).
struct StateTrace {
  i64 layer = -1;  // model layer traced, -1 when no recurrent layer is built
  bool mamba = false;  // a Mamba-2 layer (else Gated DeltaNet)
  i64 heads = 0;
  i64 positions = 0;  // positions the trace covers (the cache's length)
  const float* norms = nullptr;  // (context, heads)
};

struct Decoder {
  core::ModelConfig cfg;
  core::Inventory inv;
  core::LayerPlan plan;  // the core's per-layer plan at fp32, tp = 1: KV shapes, windows, FFN kinds
  DecoderOptions opt;
  MemCounter mem;  // declared before every Buffer: destroyed after them
  std::vector<WeightTensor> weights;  // global tensors, then each built layer in inventory order
  GlobalW g;
  std::vector<LayerW> layers;  // built layers, in order
  std::vector<KvCache> kv;     // one per built layer
  Workspace ws;
  i64 pos = 0;                 // positions already in the cache (same for every sequence)
  DecoderStats stats;
  HeatMap heat;
  i64 trace_layer = -1;  // StateTrace::layer; state_trace() reads ws.state_norm
  i64 init_tensor = 0, init_elem = 0;  // init_weights() cursor

  i64 rows_max() const { return opt.batch * opt.max_tokens; }
};

// The state trace of the decoder's first recurrent layer (StateTrace), positions = dec.pos.
StateTrace state_trace(const Decoder& dec);
// The heads a recurrent layer's trace has: Gated DeltaNet's value heads, Mamba-2's heads; 0 otherwise.
i64 trace_heads(const Decoder& dec, const LayerW& L);
// Records ‖S‖ (dk·dv floats) for head h at position pos when L is the traced layer.
void record_state_norm(Decoder& dec, const LayerW& L, i64 h, i64 pos, const float* S, i64 n);

// The layer kinds of `cfg` the reference block cannot run yet, as one Issue naming them (and
// the model field that turns each on), or nullopt when it runs every layer of the model.
// plan_decoder and build_decoder refuse such a model with it instead of running something else.
std::optional<core::Issue> unsupported(const core::ModelConfig& cfg);

// Everything build_decoder would allocate, per category, without allocating it.
struct DecoderPlan {
  std::array<i64, kMemCount> bytes{};
  i64 total = 0;
  i64 weight_params = 0;  // floats of weights (= parameters allocated)
};
core::Result<DecoderPlan> plan_decoder(const core::ModelConfig& cfg, const DecoderOptions& opt);

// Validates cfg and options, allocates, binds and (unless defer_init) fills the weights.
core::Result<std::unique_ptr<Decoder>> build_decoder(const core::ModelConfig& cfg,
                                                     const DecoderOptions& opt);

// Fills up to max_floats more weight elements; true when every weight is filled.
bool init_weights(Decoder& dec, i64 max_floats);
double init_fraction(const Decoder& dec);

// The seeded value of element i of a tensor (a pure function: chunked fills agree).
float weight_value(std::uint64_t seed, const core::Tensor& spec, i64 layer, i64 elem);

// Parameters allocated, in total and for one inventory group.
i64 allocated_params(const Decoder& dec);
i64 allocated_params(const Decoder& dec, core::Group group);

// A weight by expanded checkpoint name ("model.layers.0.self_attn.q_proj.weight"), or null.
const WeightTensor* find_weight(const Decoder& dec, const std::string& name);

}  // namespace llmsize::ref

// The worst-case graph llama.cpp reserves for a decoder (llm_build_llama, qwen2, qwen3, qwen3moe,
// openai_moe_iswa, gemma2_iswa, gemma3_iswa) and the compute buffers ggml's allocator sizes for it (ggml_alloc.hpp). Followed
// from llama.cpp's llama-graph.cpp (build_inp_embd, build_inp_pos, build_attn_inp_kv and
// build_attn_inp_kv_iswa, build_inp_out_ids, build_norm, build_qkv, build_attn and build_attn_mha
// (with and without flash attention, with gpt-oss's sinks), build_ffn with LLM_FFN_SILU /
// LLM_FFN_PAR, build_moe_ffn (softmax gating renormalized; gpt-oss's SOFTMAX_WEIGHT with biases
// and swiglu_oai)), src/models/{llama,qwen2,qwen3,qwen3moe,openai-moe-iswa,gemma2-iswa,gemma3}.cpp,
// llama-kv-cache.cpp (cpy_k, cpy_v, get_k, get_v), with every weight and cache tensor on its
// layer's device, through ggml-backend.cpp's ggml_backend_sched_split_graph (ggml::schedule: the
// token embeddings on the CPU, ops on CPU weights offloaded to the GPU with copies of those
// weights, each split's inputs copied in at its start).
#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

#include "engine_llamacpp.hpp"
#include "ggml_alloc.hpp"

namespace llmsize::core {

namespace {

// The scheduler's backends in priority order: the GPUs, then the CPU (its index: the device count).

struct Builder {
  ggml::Graph g;
  // Lazy: ops join the graph's nodes only when expand() reaches them, as ggml_build_forward_expand
  // visits a tensor's sources depth first and appends each op after them (ggml_visit_parents).
  // Otherwise each op is a node where it is made (the graphs above are written in their visit order).
  bool lazy = false;
  std::vector<char> seen;  // in the graph: a node appended, or a leaf
  int tensor(i64 bytes, std::initializer_list<int> src) {
    ggml::Tensor t;
    t.bytes = bytes;
    size_t i = 0;
    for (const int s : src)
      if (i < std::size(t.src)) t.src[i++] = s;  // the graph's ops take at most six sources
    g.tensors.push_back(t);
    seen.push_back(0);
    return static_cast<int>(g.tensors.size()) - 1;
  }
  void node(int t) {
    if (lazy) return;
    g.nodes.push_back(t);
    seen[static_cast<size_t>(t)] = 1;
  }
  void leaf(int t) {
    g.leafs.push_back(t);
    seen[static_cast<size_t>(t)] = 1;
  }
  // ggml_build_forward_expand(gf, t): its unvisited sources first (src[0] before src[1], ...),
  // then t; a tensor is marked when first met, as ggml's visited set does.
  void expand(int root) {
    if (seen[static_cast<size_t>(root)]) return;
    seen[static_cast<size_t>(root)] = 1;
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [t, next] = stack.back();
      const ggml::Tensor& x = g.tensors[static_cast<size_t>(t)];
      if (next < std::size(x.src)) {
        const int s = x.src[next++];
        if (s >= 0 && !seen[static_cast<size_t>(s)]) {
          seen[static_cast<size_t>(s)] = 1;
          stack.emplace_back(s, 0);
        }
        continue;
      }
      const int done = t;
      stack.pop_back();
      g.nodes.push_back(done);  // leafs are marked where they are made, never reached here
    }
  }
  ggml::Tensor& at(int t) { return g.tensors[static_cast<size_t>(t)]; }
  // An op's result (`inplace`: ggml_op_can_inplace of its op; `batch`: get_op_batch_size, which
  // decides op offload where a source is a weight on the CPU).
  int op(i64 bytes, std::initializer_list<int> src, bool inplace = false, i64 batch = 0) {
    const int t = tensor(bytes, src);
    at(t).can_inplace = inplace;
    at(t).batch = batch;
    node(t);
    return t;
  }
  int base(int of) { return at(of).view_src >= 0 ? at(of).view_src : of; }
  // A view op (reshape, permute, view_nd): no memory of its own; its base is the chain's.
  int view(int of) {
    const int b = base(of);
    const int t = tensor(at(of).bytes, {of});
    at(t).view_src = b;
    at(t).view_op = true;
    node(t);
    return t;
  }
  // A write into the cache (set_rows, or ggml_cpy): an op whose result is a view of the cache.
  int write(int cache, std::initializer_list<int> src) {
    const int t = tensor(at(cache).bytes, src);
    at(t).view_src = base(cache);
    node(t);
    return t;
  }
  int input(i64 bytes) {  // ggml_set_input: a leaf the scheduler keeps on the CPU
    const int t = tensor(bytes, {});
    at(t).input = at(t).op_none = true;
    leaf(t);
    return t;
  }
  int weight(i64 bytes, int device) {  // a model tensor in its layer's buffer (usage WEIGHTS)
    const int t = tensor(bytes, {});
    at(t).external = at(t).op_none = true;
    at(t).weight = device;
    leaf(t);
    return t;
  }
  int cache(i64 bytes, int device) {  // a layer's K or V cache tensor (its own buffer)
    const int t = tensor(bytes, {});
    at(t).external = at(t).op_none = true;
    at(t).preset = device;
    leaf(t);
    return t;
  }
};

// build_moe_ffn with softmax gating and the weights renormalized (norm_w: qwen3moe and llama's
// MoE layers pass true), no selection bias, no shared expert, the weights applied after down. The
// nodes in the graph's order: ggml_build_forward_expand(gf, weights) runs before the experts'
// matmuls ("so that topk-moe can be used", since PR #16130, 2025-09: the --llamacpp-graph eras
// before 2025-08 met the router's weights, n_expert_used floats a token, after the experts; that
// order is not followed), then the experts (DFS from the weighted down: the gate's mul_mat_id
// before the up's, both sources of ggml_swiglu_split), then the views of each chosen expert's
// rows ("order the views before the adds") and their sum.
//
// gpt-oss (moe_oai): the router's bias added to its logits (in place), SOFTMAX_WEIGHT gating (the
// logits themselves ranked; the chosen ones' softmax, a new tensor as its source is a view, no
// renormalization), each expert matmul followed by ggml_add_id of its bias (in place; an op of
// n_expert_used · n_tokens rows, which the scheduler offloads where the bias is on the CPU), and
// ggml_swiglu_oai.
int moe_ffn(Builder& b, int cur, i64 rows, const LlamaCppGraphShape& s, const LlamaCppLayerWeights& lw, int dev, int experts_dev) {
  const i64 E = s.n_expert, k = s.n_expert_used, ff = s.expert_ffn, d = s.d_model;
  const int router = b.weight(lw.router, dev);
  int probs = b.op(rows * E * 4, {router, cur}, false, rows);  // mul_mat(ffn_gate_inp, cur): [n_expert, n_tokens]
  if (s.moe_oai)
    probs = b.op(rows * E * 4, {probs, b.weight(lw.router_b, dev)}, true, rows);  // ggml_add(logits, ffn_gate_inp_b)
  else
    probs = b.op(rows * E * 4, {probs}, true);               // ggml_soft_max (in place)
  const int probs3 = b.view(probs);                          // reshape_3d(probs, 1, n_expert, n_tokens)
  const int argsort = b.op(rows * E * 4, {probs});           // ggml_argsort_top_k (PR #17365): argsort, i32 ...
  const int selected = b.view(argsort);                      // ... and the view of its first n_expert_used
  const int weights = b.op(rows * k * 4, {probs3, selected});  // get_rows: [1, n_expert_used, n_tokens]
  const int w2 = b.view(weights);                            // reshape_2d
  int w3;
  if (s.moe_oai) {
    w3 = b.view(b.op(rows * k * 4, {w2}, true));             // ggml_soft_max, reshape_3d
  } else {
    const int sum = b.op(rows * 4, {w2});                    // sum_rows: [1, n_tokens]
    const int clamped = b.op(rows * 4, {sum});               // ggml_clamp (not an in-place op for the allocator)
    const int norm = b.op(rows * k * 4, {w2, clamped}, true);  // ggml_div (its first source a view: a new tensor)
    w3 = b.view(norm);                                       // reshape_3d
  }
  b.expand(w3);  // ggml_build_forward_expand(gf, weights) (a lazy graph's; the others' are already in order)
  const int cur3 = b.view(cur);                              // reshape_3d(cur, n_embd, 1, n_tokens)
  const int gate_w = b.weight(lw.gate_exps, experts_dev), up_w = b.weight(lw.up_exps, experts_dev);
  const int down_w = b.weight(lw.down_exps, experts_dev);
  // An expert matmul and (gpt-oss) its bias: ggml_add_id(x, bias, selected), batch = its rows.
  auto biased = [&](int x, i64 bytes, i64 bias) {
    return s.moe_oai ? b.op(bytes, {x, b.weight(bias, experts_dev), selected}, true, rows * k) : x;
  };
  const int gate = biased(b.op(rows * k * ff * 4, {gate_w, cur3, selected}, false, rows), rows * k * ff * 4, lw.gate_exps_b);  // mul_mat_id: [n_ff_exp, n_expert_used, n_tokens]
  const int up = biased(b.op(rows * k * ff * 4, {up_w, cur3, selected}, false, rows), rows * k * ff * 4, lw.up_exps_b);
  const int act = b.op(rows * k * ff * 4, {gate, up});       // ggml_swiglu_split, ggml_swiglu_oai
  const int down = biased(b.op(rows * k * d * 4, {down_w, act, selected}, false, rows), rows * k * d * 4, lw.down_exps_b);  // [n_embd, n_expert_used, n_tokens]
  const int experts = b.op(rows * k * d * 4, {down, w3}, true);  // ggml_mul by the weights (in place)
  std::vector<int> views;
  for (i64 i = 0; i < k; ++i) {
    views.push_back(b.view(experts));  // view_2d of expert i's rows, each expanded
    b.expand(views.back());
  }
  int out = views[0];
  for (i64 i = 1; i < k; ++i) out = b.op(rows * d * 4, {out, views[static_cast<size_t>(i)]}, true);
  if (k == 1) out = b.op(rows * d * 4, {out});  // ggml_cont: a contiguous result
  return out;
}


// One cache's inputs: K's row indices (one per token), V's (one per token, or, V transposed in
// the cache without flash attention, one per element), its mask; and its mask's f16 cast
// (ggml_cast, made with the inputs, met at the first layer reading it).
struct CacheInputs {
  int k_idxs = -1, v_idxs = -1, mask = -1;
  int k_rot = -1, v_rot = -1;  // its Hadamard matrices' inputs (a quantized cache since PR #21038), or none
  i64 n_kv = 0;
  bool cast = false;
};

// llama_mul_mat_hadamard (llama-impl.h; ggml_mul_mat_aux in llama-graph.cpp at first): a
// contiguous x reshaped to rows of the matrix's width (ggml_cont_2d where it is not contiguous,
// which no followed graph meets), multiplied by the matrix (mul_mat, a new f32 tensor of x's
// elements), reshaped back to x's shape.
int hadamard(Builder& b, int x, i64 bytes, int rot) {
  return b.view(b.op(bytes, {rot, b.view(x)}));
}

// build_norm with a layer's index: ggml_rms_norm (in place where its input is the graph's own),
// pinned to device `pin` where llama_context::graph_get_cb pins a layer's "norm" (−1: not), then
// mul by its weight (in place).
int rms_norm(Builder& b, int x, i64 rows, i64 width, i64 weight_bytes, int weight_device, int pin) {
  const int r = b.op(rows * width * 4, {x}, true);
  if (pin >= 0) b.at(r).pin = pin;
  return b.op(rows * width * 4, {r, b.weight(weight_bytes, weight_device)}, true, rows);
}

// build_ffn with LLM_FFN_SILU and LLM_FFN_PAR: ggml_swiglu_split(gate, up) meets gate first, then
// up; then down. The matrices are the layer's gate, up and down (a MoE layer's shared expert's).
int swiglu_ffn(Builder& b, int cur, i64 rows, i64 width, i64 d, const LlamaCppLayerWeights& w, int device) {
  const int gate = b.op(rows * width * 4, {b.weight(w.gate, device), cur}, false, rows);
  const int up = b.op(rows * width * 4, {b.weight(w.up, device), cur}, false, rows);
  const int act = b.op(rows * width * 4, {gate, up});
  return b.op(rows * d * 4, {b.weight(w.down, device), act}, false, rows);
}

// cpy_k / cpy_v with set_rows (llama-kv-cache.cpp), each result a view of the cache, expanded:
// set_rows(cache, cur viewed 2-D, idxs), the cache reshaped to one [n_embd_gqa, kv_size ·
// n_stream] over several streams; V transposed in the cache (no flash attention) as single
// elements: the cache and v_cur reshaped to one column.
void set_rows_kv(Builder& b, const LlamaCppGraphShape& s, int k, int v, int k_cache, int v_cache, const CacheInputs& ci) {
  const bool streams = s.n_stream > 1;
  for (const auto& [x, cache, idxs] : {std::tuple{k, k_cache, ci.k_idxs}, std::tuple{v, v_cache, ci.v_idxs}}) {
    if (x == v && !s.flash) {
      const int dst = b.view(cache);
      b.expand(b.write(cache, {dst, b.view(b.view(x)), idxs}));
    } else {
      const int dst = streams ? b.view(cache) : cache;
      b.expand(b.write(cache, {dst, b.view(x), idxs}));
    }
  }
}

// What Qwen3.5's layers read from the graph's top: the token embeddings, the positions, s_copy,
// the output ids; whether norms are pinned, the cache is written by set_rows, the mask is cast;
// a cache cell's K and V bytes of a layer.
struct Qwen35Inputs {
  int embd = -1, pos = -1, s_copy = -1, out_ids = -1;
  bool pin_norms = false, set_rows = true, cast = false;
  i64 k_cell = 0, v_cell = 0;
};

// llm_build_qwen35's layers (src/models/qwen35.cpp, delta-net-base.cpp, llama-graph.cpp's build_rs
// and build_attn, as vendored at builds 8399 to 8641, which build the same graph), in the order
// ggml_build_forward_expand visits them (the builder lazy from here on): each Gated DeltaNet
// layer expands build_rs's zeroing, its rows and its extra rows for the conv state, then the conv
// state's write-back (reaching the norm, the qkv projection and the previous layer's tail), the
// SSM state's build_rs, then the state's write-back (reaching the convolution, the l2 norms, the
// gate and beta). build_delta_net takes the fused op in the reserve (llama_context::sched_reserve
// keeps fused_gdn_ch and fused_gdn_ar on where the op runs on the layer's device: "fused Gated
// Delta Net (chunked) enabled"): ggml_gated_delta_net, [v_dim · v_heads, n_tokens + v_dim ·
// n_seqs] f32, its output and the new state packed (no repeat of q and k to the value heads
// then). A full-attention layer expands Q, V, K and their cache writes (build_attn); the rest of a
// layer joins the graph when the next layer (or the head) reaches it. Returns the last layer's output.
template <class Dev, class Weights>
int qwen35_layers(Builder& b, const LlamaCppGraphShape& s, const Qwen35Inputs& in, CacheInputs& kv, Dev dev, Weights lw) {
  const i64 n = s.tokens, no = s.outputs, d = s.d_model, S = s.n_seqs, T = n / S;
  const i64 Hk = s.gdn_k_heads, Hv = s.gdn_v_heads, Dk = s.gdn_k_dim, Dv = s.gdn_v_dim, Kc = s.gdn_conv;
  const i64 C = 2 * Hk * Dk + Hv * Dv;            // the convolution's channels: q, k and v
  const i64 r_size = (Kc - 1) * C, s_size = Dk * Hv * Dv;  // hparams.n_embd_r(), n_embd_s()
  const i64 q_bytes = n * s.n_heads * s.head_dim * 4, kv_bytes = n * s.n_kv_heads * s.head_dim * 4;
  b.lazy = true;
  // build_rs_inp_impl's views of s_copy: the ubatch's sequences, and the other cells'.
  const int copy_main = b.view(in.s_copy), copy_extra = b.view(in.s_copy);
  int inp = in.embd;
  for (i64 il = 0; il < s.n_layer; ++il) {
    const bool last = il == s.n_layer - 1;
    const int dv = dev(il);
    const LlamaCppLayerWeights& w = lw(il);
    auto W = [&](i64 bytes) { return b.weight(bytes, dv); };
    // build_norm with the layer's index: rms_norm (pinned as the other graphs' are), mul by its weight.
    auto norm = [&](int x, i64 rows, i64 width, i64 weight_bytes, int device = -2) {
      return rms_norm(b, x, rows, width, weight_bytes, device == -2 ? dv : device, in.pin_norms ? dv : -1);
    };
    const int inp_sa = inp;
    int cur = norm(inp, n, d, w.attn_norm);
    if (s.layer_linear[static_cast<size_t>(il)]) {
      // build_rs: the cache as [state_size, n_rs], its zeroed cell (ggml_scale_inplace: a view),
      // the sequences' rows (get_rows by s_copy_main, returned), the other cells' rows copied
      // into place (get_rows by s_copy_extra, ggml_cpy into a view of the cache).
      auto build_rs = [&](int cache, i64 state_size) {
        const int states = b.view(cache);
        const int zero = b.view(states);
        b.expand(b.write(zero, {zero}));
        const int rows = b.op(state_size * S * 4, {states, copy_main});
        b.expand(rows);
        const int extra = b.op(state_size * (s.n_rs - S) * 4, {states, copy_extra});
        const int target = b.view(cache);
        b.expand(b.write(target, {extra, target}));
        return rows;
      };
      const int qkv = b.view(b.op(n * C * 4, {W(w.lin_qkv), cur}, false, n));  // mul_mat, reshape_3d [C, T, S]
      const int z = b.op(n * Hv * Dv * 4, {W(w.lin_z), cur}, false, n);
      const int beta = b.op(n * Hv * 4, {b.view(b.op(n * Hv * 4, {W(w.lin_beta), cur}, false, n))}, true);  // reshape_4d, sigmoid
      int alpha = b.view(b.op(n * Hv * 4, {W(w.lin_alpha), cur}, false, n));  // reshape_3d
      alpha = b.op(n * Hv * 4, {alpha, W(w.lin_dt)}, true, n);                // + ssm_dt
      alpha = b.op(n * Hv * 4, {alpha}, true);                                 // softplus
      const int gate = b.view(b.op(n * Hv * 4, {alpha, W(w.lin_a)}, true, n)); // · ssm_a, reshape_4d
      const int r_cache = b.cache(r_size * s.n_rs * 4, dv), s_cache = b.cache(s_size * s.n_rs * 4, dv);
      const int conv_states = b.view(build_rs(r_cache, r_size));              // reshape_3d [Kc − 1, C, S]
      const int conv_in = b.op((T + Kc - 1) * C * S * 4, {conv_states, b.view(qkv)});  // concat with qkv transposed
      const int r_target = b.view(r_cache);
      b.expand(b.write(r_target, {b.view(conv_in), r_target}));               // the last Kc − 1 columns saved
      const int state = b.view(build_rs(s_cache, s_size));                    // reshape_4d [Dv, Dv, Hv, S]
      const int conv = b.op(n * C * 4, {b.op(n * C * 4, {conv_in, W(w.lin_conv)}, false, n)}, true);  // ssm_conv, silu
      const int q = b.op(n * Hk * Dk * 4, {b.view(conv)});                    // l2_norm of q's view
      const int k = b.op(n * Hk * Dk * 4, {b.view(conv)});                    // of k's
      const int gdn = b.op((n + Dv * S) * Hv * Dv * 4, {q, k, b.view(conv), gate, beta, state});
      const int out = b.view(gdn);
      const int s_target = b.view(s_cache);
      b.expand(b.write(s_target, {b.view(gdn), s_target}));                    // the new state saved
      // build_norm_gated: rms_norm(out) · ssm_norm · silu(z), reshape_3d; ssm_out; reshape_2d.
      const int z4 = b.view(z);
      const int normed = norm(out, n * Hv, Dv, w.lin_norm);
      const int gated = b.op(n * Hv * Dv * 4, {normed, b.op(n * Hv * Dv * 4, {z4}, true)}, true);
      cur = b.view(b.op(n * d * 4, {W(w.lin_out), b.view(gated)}, false, n));
    } else {
      // build_layer_attn: Q and its gate from one matmul (views of every other head_dim), q/k
      // norms, the gate made contiguous (ggml_cont_2d), M-RoPE; build_attn expands Q, V, K, then
      // cpy_k / cpy_v (set_rows into the cache, reshaped per stream over several); build_attn_mha
      // with flash attention (the mask's f16 cast met at the first such layer); the sigmoid gate;
      // the output projection.
      const int q_full = b.op(2 * q_bytes, {W(w.wq), cur}, false, n);
      int q = norm(b.view(q_full), n * s.n_heads, s.head_dim, w.q_norm);
      const int kp = b.op(kv_bytes, {W(w.wk), cur}, false, n);
      const int v = b.view(b.op(kv_bytes, {W(w.wv), cur}, false, n));
      int k = norm(b.view(kp), n * s.n_kv_heads, s.head_dim, w.k_norm);
      const int gate = b.op(q_bytes, {b.view(q_full)});
      q = b.op(q_bytes, {q, in.pos}, true, n);
      b.at(q).rope = true;
      k = b.op(kv_bytes, {k, in.pos}, true, n);
      b.at(k).rope = true;
      // build_attn: a quantized cache's rotations of q and k (K's matrix), of v (V's).
      int vr = v;
      if (kv.k_rot >= 0) q = hadamard(b, q, q_bytes, kv.k_rot), k = hadamard(b, k, kv_bytes, kv.k_rot);
      if (kv.v_rot >= 0) vr = hadamard(b, v, kv_bytes, kv.v_rot);
      b.expand(q), b.expand(vr), b.expand(k);
      const int k_cache = b.cache(kv.n_kv * in.k_cell * s.n_stream, dv), v_cache = b.cache(kv.n_kv * in.v_cell * s.n_stream, dv);
      set_rows_kv(b, s, k, vr, k_cache, v_cache, kv);
      const int qp = b.view(b.view(q));
      const int kc = b.view(b.view(k_cache));
      const int vc = b.view(b.view(v_cache));
      if (in.cast && !kv.cast) kv.mask = b.op(kv.n_kv * n * 2, {kv.mask}), kv.cast = true;
      int fa = b.view(b.op(q_bytes, {qp, kc, vc, kv.mask}));
      if (kv.v_rot >= 0) fa = hadamard(b, fa, q_bytes, kv.v_rot);  // the output rotated back (V's matrix)
      const int gated = b.op(q_bytes, {fa, b.op(q_bytes, {gate}, true)}, true);  // · sigmoid(gate)
      cur = b.op(n * d * 4, {W(w.wo), gated}, false, n);
    }
    // The last layer keeps the outputs' rows of both inputs of the residual add; the post-attention
    // norm; build_ffn (LLM_FFN_SILU, LLM_FFN_PAR: ggml_swiglu_split(gate, up)); the residual add.
    i64 rows = n;
    int sa = inp_sa;
    if (last) {
      cur = b.op(no * d * 4, {cur, in.out_ids});
      sa = b.op(no * d * 4, {inp_sa, in.out_ids});
      rows = no;
    }
    const int res = b.op(rows * d * 4, {cur, sa}, true);
    // Qwen3.5-MoE's FFN: build_moe_ffn (softmax, the chosen weights renormalized) with the
    // routed experts where --n-cpu-moe keeps them, then the shared expert (build_ffn) scaled by
    // sigmoid(ffn_gate_inp_shexp · x) and added (qwen35moe.cpp build_layer_ffn).
    const bool cpu_experts = s.n_expert > 0 && il >= s.experts_cpu_first && il < s.experts_cpu_first + s.experts_cpu_count;
    const int ffn_dev = cpu_experts && s.ffn_cpu_all ? s.n_devices : dv;
    cur = norm(res, rows, d, w.ffn_norm, ffn_dev);
    int ffn_out;
    if (s.n_expert == 0) {
      ffn_out = swiglu_ffn(b, cur, rows, s.d_ff, d, w, dv);
    } else {
      ffn_out = moe_ffn(b, cur, rows, s, w, ffn_dev, cpu_experts ? s.n_devices : dv);
      if (s.shexp_ffn > 0) {
        const int shared = swiglu_ffn(b, cur, rows, s.shexp_ffn, d, w, ffn_dev);
        const int gate = b.op(rows * 4, {b.op(rows * 4, {b.weight(w.shexp_gate, ffn_dev), cur}, false, rows)}, true);  // sigmoid
        ffn_out = b.op(rows * d * 4, {ffn_out, b.op(rows * d * 4, {shared, gate}, true)}, true);
      }
    }
    inp = b.op(rows * d * 4, {ffn_out, res}, true);
  }
  return inp;
}

}  // namespace

std::optional<LlamaCppCompute> llamacpp_graph_compute(const LlamaCppGraphShape& s) {
  const i64 n = s.tokens, no = s.outputs, d = s.d_model;
  const i64 q_bytes = n * s.n_heads * s.head_dim * 4, kv_bytes = n * s.n_kv_heads * s.head_dim * 4;
  const bool set_rows = llamacpp_embd_input(s.graph) || s.graph == LlamaCppGraph::SetRows;
  const bool f16_mask = s.graph == LlamaCppGraph::F16Mask && s.flash;
  const bool cast = s.flash && !f16_mask && s.graph != LlamaCppGraph::NoCast;
  // The sizes: every tensor below is at most n · max(vocab, n_kv, d_ff, heads · head_dim) floats.
  if (s.n_expert < 0 || s.n_expert_used < 0 || s.n_expert_used > s.n_expert || (s.n_expert > 0 && s.n_expert_used == 0) ||
      s.n_expert_used > 512)
    return std::nullopt;
  const bool iswa = !s.layer_swa.empty();
  if (iswa && (static_cast<i64>(s.layer_swa.size()) != s.n_layer || s.n_kv_swa < 1)) return std::nullopt;
  if (s.n_stream < 1 || s.n_stream > 256) return std::nullopt;
  if (s.rot_k < 0 || s.rot_k > 4096 || s.rot_v < 0 || s.rot_v > 4096) return std::nullopt;
  for (const Checked m : {Checked(s.vocab), Checked(s.n_kv), Checked(s.n_kv_swa), Checked(s.d_ff), Checked(d), Checked(s.n_heads) * s.head_dim,
                          Checked(s.n_expert), Checked(s.n_expert_used) * s.expert_ffn, Checked(s.n_expert_used) * d,
                          Checked(s.n_kv) * s.n_heads}) {
    const Checked bytes = Checked(std::max<i64>(n, 1)) * m * 4;
    if (!bytes.ok() || bytes.value() > (i64{1} << 50)) return std::nullopt;
  }
  // A layer's cache: n_kv cells (of its cache: the SWA one's for an SWA layer) of n_embd_k_gqa
  // (n_embd_v_gqa) elements of the cache's type.
  const i64 k_cell = s.k_cell_bytes > 0 ? s.k_cell_bytes : s.n_kv_heads * s.head_dim * 2;
  const i64 v_cell = s.v_cell_bytes > 0 ? s.v_cell_bytes : s.n_kv_heads * s.head_dim * 2;
  for (const Checked m : {Checked(s.n_kv) * k_cell * s.n_stream, Checked(s.n_kv) * v_cell * s.n_stream,
                          Checked(s.n_kv_swa) * k_cell * s.n_stream, Checked(s.n_kv_swa) * v_cell * s.n_stream})
    if (!m.ok() || m.value() > (i64{1} << 50)) return std::nullopt;
  if (!s.layer_weights.empty() && static_cast<i64>(s.layer_weights.size()) != s.n_layer) return std::nullopt;
  // Qwen3.5's hybrid graph: one flag a layer, positive heads with equal key and value widths (the
  // state reshaped to [v_dim, v_dim, v_heads, n_seqs]), whole sequences in the ubatch, a state
  // cell for each of them; no iswa cache; a shared expert only beside routed ones.
  const bool hybrid = !s.layer_linear.empty();
  const i64 Hk = s.gdn_k_heads, Hv = s.gdn_v_heads, Dk = s.gdn_k_dim, Dv = s.gdn_v_dim, Kc = s.gdn_conv;
  if (s.shexp_ffn < 0 || (s.shexp_ffn > 0 && (!hybrid || s.n_expert == 0 || s.moe_oai))) return std::nullopt;
  if (hybrid) {
    if (static_cast<i64>(s.layer_linear.size()) != s.n_layer || iswa) return std::nullopt;
    if (const Checked f = Checked(std::max<i64>(n, 1)) * s.shexp_ffn * 4; !f.ok() || f.value() > (i64{1} << 50)) return std::nullopt;
    for (const i64 x : {Hk, Hv, Dk, Dv, Kc, s.n_seqs, s.n_rs})
      if (x < 1 || x > (i64{1} << 20)) return std::nullopt;
    if (Dk != Dv || Hv % Hk != 0 || n % s.n_seqs != 0 || s.n_rs < s.n_seqs) return std::nullopt;
    for (const Checked m : {(Checked(n) + Checked(Dv) * s.n_seqs) * Hv * Dv * 4, (Checked(n) + Kc) * (2 * Hk * Dk + Hv * Dv) * s.n_seqs * 4,
                            Checked(Dk) * Hv * Dv * s.n_rs * 4, Checked(Kc) * (2 * Hk * Dk + Hv * Dv) * s.n_rs * 4,
                            Checked(n) * s.n_heads * s.head_dim * 8})
      if (!m.ok() || m.value() > (i64{1} << 50)) return std::nullopt;
  }
  if (s.n_devices < 0 || s.n_devices > 64 || (!s.layer_device.empty() && static_cast<i64>(s.layer_device.size()) != s.n_layer))
    return std::nullopt;
  const int kCpu = s.n_devices;
  auto on = [&](int x) { return x >= 0 && x < s.n_devices ? x : kCpu; };
  auto dev = [&](i64 il) { return on(s.layer_device.empty() ? 0 : s.layer_device[static_cast<size_t>(il)]); };
  const LlamaCppLayerWeights none;
  auto lw = [&](i64 il) -> const LlamaCppLayerWeights& {
    return s.layer_weights.empty() ? none : s.layer_weights[static_cast<size_t>(il)];
  };
  const int out_dev = on(s.output_device);
  // ref: llama_context::graph_get_cb: full_offload = n_gpu_layers > n_layer.
  bool all_on_gpus = out_dev != kCpu;
  for (i64 il = 0; il < s.n_layer; ++il) all_on_gpus &= dev(il) != kCpu;
  const bool pin_norms = n < 32 || all_on_gpus;
  Builder b;
  // Leafs, in the order the graph first meets them: the token ids (build_inp_embd), the embeddings
  // input beside them (PR #18898's ggml_build_forward_select keeps both in the graph), positions,
  // the cache's row indices (set_rows), the KQ mask [n_kv, n_tokens] (f32, or f16 under flash
  // attention since PR #23764), for an iswa cache the same three for its SWA cache
  // (build_attn_inp_kv_iswa), the output ids (n_outputs int32).
  const int tokens = b.input(n * 4);
  if (llamacpp_embd_input(s.graph)) b.input(n * d * 4);
  // build_inp_mem_hybrid's recurrent input first: s_copy, one int32 a state cell.
  const int s_copy = hybrid ? b.input(s.n_rs * 4) : -1;
  const int pos = b.input(n * 4 * s.pos_per_token);
  auto cache_inputs = [&](i64 n_kv) {
    CacheInputs c;
    c.n_kv = n_kv;
    if (set_rows) {
      c.k_idxs = b.input(n * 8);
      c.v_idxs = b.input(n * 8 * (s.flash ? 1 : s.n_kv_heads * s.head_dim));
    }
    c.mask = b.input(n_kv * n * (f16_mask ? 2 : 4));
    return c;
  };
  CacheInputs base = cache_inputs(s.n_kv);
  CacheInputs swa = iswa ? cache_inputs(s.n_kv_swa) : CacheInputs{};
  // build_input_k_rot / build_input_v_rot after the masks: each cache's [n, n] f32 matrices.
  for (CacheInputs* c : {&base, &swa}) {
    if (c == &swa && !iswa) continue;
    if (s.rot_k > 0) c->k_rot = b.input(s.rot_k * s.rot_k * 4);
    if (s.rot_v > 0) c->v_rot = b.input(s.rot_v * s.rot_v * 4);
  }
  const int out_ids = b.input(no * 4);
  // The token embeddings: ggml_get_rows from token_embd, which stays on the CPU (the input layer;
  // get_rows is never offloaded).
  int embd = b.op(n * d * 4, {b.weight(s.token_embd, kCpu), tokens});
  // Gemma's ggml_scale of the embeddings by sqrt(n_embd) (in place).
  if (s.embd_scale) embd = b.op(n * d * 4, {embd}, true);
  // ref: ggml_backend_cuda_buffer_type_get_alignment (128); the CPU's host buffer types, TENSOR_ALIGNMENT (32).
  std::vector<i64> alignment(static_cast<size_t>(s.n_devices), 128);
  alignment.push_back(32);
  if (!s.layers) {
    if (s.n_devices == 0) return std::nullopt;  // no GPU: the CPU computes the layers, which are not followed
    // The host's buffer alone: the inputs as the first GPU split copies them, in order of first use.
    const int gpu_w = b.weight(0, 0);
    for (const int x : {embd, pos, base.k_rot, base.v_rot, base.k_idxs, base.v_idxs, base.mask, swa.k_rot, swa.v_rot, swa.k_idxs,
                        swa.v_idxs, swa.mask, out_ids})
      if (x >= 0) b.op(0, {gpu_w, x});
    const ggml::Graph copy = ggml::schedule(b.g, kCpu + 1);
    auto sizes = ggml::reserve(copy, alignment);
    if (!sizes) return std::nullopt;
    LlamaCppCompute r;
    r.host_bytes = (*sizes)[static_cast<size_t>(kCpu)];
    return r;
  }
  int inp = embd;
  if (hybrid) {
    const Qwen35Inputs in{embd, pos, s_copy, out_ids, pin_norms, set_rows, cast, k_cell, v_cell};
    inp = qwen35_layers(b, s, in, base, dev, lw);
  }
  for (i64 il = 0; il < (hybrid ? 0 : s.n_layer); ++il) {
    const bool last = il == s.n_layer - 1;
    const int dv = dev(il);
    const LlamaCppLayerWeights& w = lw(il);
    const int inp_sa = inp;
    // build_norm: rms_norm, then mul by its weight (both in place where the input is the graph's
    // own). llama_context::graph_get_cb pins a layer's "norm" (the rms_norm) to the layer's device
    // where the ubatch has fewer than 32 tokens or every layer and the output are offloaded.
    // (Gemma's ffn_post_norm is built with il = −1: never pinned.)
    auto norm = [&](int x, i64 rows, i64 width, i64 weight_bytes, int device, bool layer = true) {
      return rms_norm(b, x, rows, width, weight_bytes, device, pin_norms && layer ? dv : -1);
    };
    int cur = norm(inp, n, d, w.attn_norm, dv);
    // Q, K, V (build_qkv: mul_mat, Qwen2's bias add in place, reshape_3d), Qwen3's q/k norms on
    // the reshaped views (a view is never reused in place: a new tensor), rope (in place where its
    // input is the graph's own).
    auto proj = [&](i64 bytes, i64 wb, i64 bias) {
      int t = b.op(bytes, {b.weight(wb, dv), cur}, false, n);
      if (s.qkv_bias) t = b.op(bytes, {t, b.weight(bias, dv)}, true, n);
      return b.view(t);
    };
    auto normed_roped = [&](int t, i64 bytes, i64 heads, i64 norm_bytes) {
      if (s.qk_norm) t = norm(t, n * heads, s.head_dim, norm_bytes, dv);
      const int r = b.op(bytes, {t, pos}, true, n);
      b.at(r).rope = true;
      return r;
    };
    // build_attn expands q_cur, v_cur, k_cur (build_attn_inp_kv's path; the iswa path, gpt-oss's,
    // q_cur, k_cur, v_cur), then stores K and V.
    // The layer's cache: the SWA cache's for an SWA layer of an iswa cache. A quantized one's
    // rotations (build_attn, since PR #21038): q and k by K's matrix, v by V's, each expanded
    // after its own chain.
    CacheInputs& ci = iswa && s.layer_swa[static_cast<size_t>(il)] ? swa : base;
    auto rot_k = [&](int x, i64 bytes) { return ci.k_rot >= 0 ? hadamard(b, x, bytes, ci.k_rot) : x; };
    int q = normed_roped(proj(q_bytes, w.wq, w.bq), q_bytes, s.n_heads, w.q_norm);
    if (s.q_scale) q = b.op(q_bytes, {q}, true);  // Gemma's ggml_scale(Qcur, f_attention_scale)
    q = rot_k(q, q_bytes);
    int k = -1, v = -1;
    if (iswa) k = rot_k(normed_roped(proj(kv_bytes, w.wk, w.bk), kv_bytes, s.n_kv_heads, w.k_norm), kv_bytes);
    v = proj(kv_bytes, w.wv, w.bv);
    if (ci.v_rot >= 0) v = hadamard(b, v, kv_bytes, ci.v_rot);
    if (!iswa) k = rot_k(normed_roped(proj(kv_bytes, w.wk, w.bk), kv_bytes, s.n_kv_heads, w.k_norm), kv_bytes);
    const i64 n_kv = ci.n_kv;
    // cpy_k / cpy_v (llama-kv-cache.cpp), each result a view of the cache: set_rows (set_rows_kv).
    // Before PR #14959 ggml_cpy(cur, a view of the cache), V
    // reshaped 2-D first and, transposed in the cache, transposed (builds of June 2025). Views
    // hold no memory; the nodes are the build's (its "graph nodes").
    const int k_cache = b.cache(n_kv * k_cell * s.n_stream, dv), v_cache = b.cache(n_kv * v_cell * s.n_stream, dv);
    if (set_rows) {
      set_rows_kv(b, s, k, v, k_cache, v_cache, ci);
    } else if (s.graph == LlamaCppGraph::Cpy) {
      b.write(k_cache, {k, b.view(k_cache)});
      int x = b.view(v);
      if (!s.flash) x = b.view(x);
      b.write(v_cache, {x, b.view(v_cache)});
    } else {
      // Builds of spring 2025 (the 2025-05 graph): V reshaped under flash attention only (as
      // builds 5398 and 5505 count their nodes; not read from their source).
      b.write(k_cache, {k, b.view(k_cache)});
      b.write(v_cache, {s.flash ? b.view(v) : v, b.view(v_cache)});
    }
    // build_attn_mha: q viewed per stream and permuted; K and V views of the cache, permuted;
    // with flash attention, before PR #23764 the f32 mask cast to f16 (ggml_cast, met first here)
    // and flash_attn_ext's result [head_dim, n_head, n_tokens] f32 (gpt-oss's sinks its fifth
    // source, ggml_flash_attn_ext_add_sinks), reshaped; the output projection and (gpt-oss) its
    // bias, in place.
    const int qp = b.view(b.view(q));
    const int kp = b.view(b.view(k_cache));
    const int vp = b.view(b.view(v_cache));
    const int sinks = s.sinks ? b.weight(w.sinks, dv) : -1;
    if (s.flash) {
      if (cast && !ci.cast) ci.mask = b.op(n_kv * n * 2, {ci.mask}), ci.cast = true;
      const int fa = b.op(q_bytes, {qp, kp, vp, ci.mask, sinks});
      int o = b.view(fa);
      if (ci.v_rot >= 0) o = hadamard(b, o, q_bytes, ci.v_rot);  // the output rotated back (V's matrix)
      cur = b.op(n * d * 4, {b.weight(w.wo, dv), o}, false, n);
    } else {
      // Without flash attention: kq = mul_mat(k, q), [n_kv, n_tokens, n_head] f32; soft_max_ext
      // with the f32 mask (in place; gpt-oss's sinks its third source, ggml_soft_max_add_sinks);
      // kqv = mul_mat(v, kq) with V transposed in the cache, [head_dim, n_tokens, n_head];
      // permuted, then ggml_cont_2d to [head_dim · n_head, n_tokens].
      int kq = b.op(n_kv * n * s.n_heads * 4, {kp, qp});
      // Gemma 2's attention soft-capping (eager attention only): scale, tanh, scale, in place.
      if (s.attn_softcap)
        for (int i = 0; i < 3; ++i) kq = b.op(n_kv * n * s.n_heads * 4, {kq}, true);
      const int sm = b.op(n_kv * n * s.n_heads * 4, {kq, ci.mask, sinks}, true);
      const int kqv = b.op(q_bytes, {vp, sm});
      int merged = b.op(q_bytes, {b.view(kqv)});
      if (ci.v_rot >= 0) merged = hadamard(b, merged, q_bytes, ci.v_rot);
      cur = b.op(n * d * 4, {b.weight(w.wo, dv), merged}, false, n);
    }
    if (s.o_bias) cur = b.op(n * d * 4, {cur, b.weight(w.bo, dv)}, true, n);
    // The last layer keeps the outputs' rows (get_rows by inp_out_ids) of both inputs of the add.
    i64 rows = n;
    int sa = inp_sa;
    if (last) {
      cur = b.op(no * d * 4, {cur, out_ids});
      sa = b.op(no * d * 4, {inp_sa, out_ids});
      rows = no;
    }
    // Gemma's attn_post_norm on the attention's output before the residual add.
    if (s.post_norms) cur = norm(cur, rows, d, w.attn_post_norm, dv);
    const int ffn_inp = b.op(rows * d * 4, {cur, sa}, true);
    const bool cpu_experts = il >= s.experts_cpu_first && il < s.experts_cpu_first + s.experts_cpu_count;
    const int ffn_dev = cpu_experts && s.ffn_cpu_all ? kCpu : dv;
    cur = norm(ffn_inp, rows, d, w.ffn_norm, ffn_dev);
    int ffn_out;
    if (s.n_expert == 0) {
      ffn_out = swiglu_ffn(b, cur, rows, s.d_ff, d, w, dv);
    } else {
      ffn_out = moe_ffn(b, cur, rows, s, w, ffn_dev, cpu_experts ? kCpu : dv);
    }
    if (s.post_norms) ffn_out = norm(ffn_out, rows, d, w.ffn_post_norm, dv, false);
    inp = b.op(rows * d * 4, {ffn_out, ffn_inp}, true);  // the residual add
  }
  // The head: the final norm (t_embd, a graph output) and the logits (t_logits, an output).
  const int r = b.op(no * d * 4, {inp}, true);
  const int cur = b.op(no * d * 4, {r, b.weight(s.output_norm, out_dev)}, true, no);
  b.at(cur).output = true;
  int logits = b.op(no * s.vocab * 4, {b.weight(s.output, out_dev), cur}, false, no);
  // Gemma 2's final logit soft-capping: scale, tanh, scale, each in place.
  if (s.final_softcap)
    for (int i = 0; i < 3; ++i) logits = b.op(no * s.vocab * 4, {logits}, true);
  b.at(logits).output = true;
  b.expand(logits);  // the model's last ggml_build_forward_expand (the lazy graph's nodes from the layers on)
  const ggml::Graph copy = ggml::schedule(b.g, kCpu + 1);
  auto sizes = ggml::reserve(copy, alignment);
  if (!sizes) return std::nullopt;
  LlamaCppCompute out;
  out.devices.assign(sizes->begin(), sizes->begin() + s.n_devices);
  out.device_bytes = out.devices.empty() ? 0 : out.devices.front();
  out.host_bytes = (*sizes)[static_cast<size_t>(kCpu)];
  out.splits = copy.splits;
  out.nodes = static_cast<int>(b.g.nodes.size());
  return out;
}

}  // namespace llmsize::core

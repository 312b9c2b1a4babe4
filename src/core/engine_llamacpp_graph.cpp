// The worst-case graph llama.cpp reserves for a decoder (llm_build_llama, qwen2, qwen3, qwen3moe) and
// the compute buffers ggml's allocator sizes for it (ggml_alloc.hpp). Followed from llama.cpp's
// llama-graph.cpp (build_inp_embd, build_inp_pos, build_attn_inp_kv, build_inp_out_ids, build_norm,
// build_qkv, build_attn and build_attn_mha (with and without flash attention), build_ffn with LLM_FFN_SILU /
// LLM_FFN_PAR, build_moe_ffn), src/models/{llama,qwen2,qwen3,qwen3moe}.cpp, llama-kv-cache.cpp (cpy_k, cpy_v, get_k,
// get_v) and ggml-backend.cpp's ggml_backend_sched_split_graph (one split on the CPU for the token
// embeddings, one on the GPU whose inputs are copied in at its start, in order of first use).
#include <algorithm>
#include <iterator>
#include <vector>

#include "engine_llamacpp.hpp"
#include "ggml_alloc.hpp"

namespace llmsize::core {

namespace {

constexpr int kDevice = 0, kHost = 1;

struct Builder {
  ggml::Graph g;
  int tensor(i64 bytes, std::initializer_list<int> src, int buffer) {
    ggml::Tensor t;
    t.bytes = bytes;
    size_t i = 0;
    for (const int s : src)
      if (i < std::size(t.src)) t.src[i++] = s;  // the graph's ops take at most four sources
    t.buffer = buffer;
    g.tensors.push_back(t);
    return static_cast<int>(g.tensors.size()) - 1;
  }
  // An op's result on the GPU (`inplace`: ggml_op_can_inplace of its op).
  int op(i64 bytes, std::initializer_list<int> src, bool inplace = false, int buffer = kDevice) {
    const int t = tensor(bytes, src, buffer);
    g.tensors[static_cast<size_t>(t)].can_inplace = inplace;
    g.nodes.push_back(t);
    return t;
  }
  // A view node (reshape, permute, view_nd, and set_rows / cpy, whose result is a view of the
  // cache): no memory of its own; its base is the view chain's.
  int view(int of, std::initializer_list<int> src) {
    const int base = g.tensors[static_cast<size_t>(of)].view_src >= 0 ? g.tensors[static_cast<size_t>(of)].view_src : of;
    const int t = tensor(g.tensors[static_cast<size_t>(of)].bytes, src, g.tensors[static_cast<size_t>(base)].buffer);
    g.tensors[static_cast<size_t>(t)].view_src = base;
    g.nodes.push_back(t);
    return t;
  }
  int input(i64 bytes) {  // ggml_set_input: a leaf the scheduler keeps on the CPU
    const int t = tensor(bytes, {}, kHost);
    auto& x = g.tensors[static_cast<size_t>(t)];
    x.input = x.op_none = true;
    g.leafs.push_back(t);
    return t;
  }
  int external() {  // the KV cache's tensors (their own buffers)
    const int t = tensor(0, {}, kDevice);
    g.tensors[static_cast<size_t>(t)].external = g.tensors[static_cast<size_t>(t)].op_none = true;
    return t;
  }
};

// build_moe_ffn with softmax gating and the weights renormalized (norm_w: qwen3moe and llama's
// MoE layers pass true), no selection bias, no shared expert, the weights applied after down. The
// nodes in the graph's order: ggml_build_forward_expand(gf, weights) runs before the experts'
// matmuls ("so that topk-moe can be used", since PR #16130, 2025-09: the --llamacpp-graph eras
// before 2025-08 met the router's weights, n_expert_used floats a token, after the experts; that
// order is not followed), then the experts (DFS from the weighted down: the
// gate's mul_mat_id before the up's, both sources of ggml_swiglu_split), then the views of each
// chosen expert's rows ("order the views before the adds") and their sum.
int moe_ffn(Builder& b, int cur, i64 rows, const LlamaCppGraphShape& s) {
  const i64 E = s.n_expert, k = s.n_expert_used, ff = s.expert_ffn, d = s.d_model;
  const int logits = b.op(rows * E * 4, {cur});              // mul_mat(ffn_gate_inp, cur): [n_expert, n_tokens]
  const int probs = b.op(rows * E * 4, {logits}, true);      // ggml_soft_max (in place)
  const int probs3 = b.view(probs, {probs});                 // reshape_3d(probs, 1, n_expert, n_tokens)
  const int argsort = b.op(rows * E * 4, {probs});           // ggml_argsort_top_k (PR #17365): argsort, i32 ...
  const int selected = b.view(argsort, {argsort});           // ... and the view of its first n_expert_used
  const int weights = b.op(rows * k * 4, {probs3, selected});  // get_rows: [1, n_expert_used, n_tokens]
  const int w2 = b.view(weights, {weights});                 // reshape_2d
  const int sum = b.op(rows * 4, {w2});                      // sum_rows: [1, n_tokens]
  const int clamped = b.op(rows * 4, {sum});                 // ggml_clamp (not an in-place op for the allocator)
  const int norm = b.op(rows * k * 4, {w2, clamped}, true);  // ggml_div (its first source a view: a new tensor)
  const int w3 = b.view(norm, {norm});                       // reshape_3d
  const int cur3 = b.view(cur, {cur});                       // reshape_3d(cur, n_embd, 1, n_tokens)
  const int gate = b.op(rows * k * ff * 4, {cur3, selected});  // mul_mat_id: [n_ff_exp, n_expert_used, n_tokens]
  const int up = b.op(rows * k * ff * 4, {cur3, selected});
  const int act = b.op(rows * k * ff * 4, {gate, up});       // ggml_swiglu_split
  const int down = b.op(rows * k * d * 4, {act, selected});  // [n_embd, n_expert_used, n_tokens]
  const int experts = b.op(rows * k * d * 4, {down, w3}, true);  // ggml_mul by the weights (in place)
  std::vector<int> views;
  for (i64 i = 0; i < k; ++i) views.push_back(b.view(experts, {experts}));  // view_2d of expert i's rows
  int out = views[0];
  for (i64 i = 1; i < k; ++i) out = b.op(rows * d * 4, {out, views[static_cast<size_t>(i)]}, true);
  if (k == 1) out = b.op(rows * d * 4, {out});  // ggml_cont: a contiguous result
  return out;
}

}  // namespace

std::optional<LlamaCppCompute> llamacpp_graph_compute(const LlamaCppGraphShape& s) {
  const i64 n = s.tokens, no = s.outputs, d = s.d_model;
  const i64 q_bytes = n * s.n_heads * s.head_dim * 4, kv_bytes = n * s.n_kv_heads * s.head_dim * 4;
  const bool set_rows = s.graph == LlamaCppGraph::F16Mask || s.graph == LlamaCppGraph::EmbdInput || s.graph == LlamaCppGraph::SetRows;
  const bool f16_mask = s.graph == LlamaCppGraph::F16Mask && s.flash;
  const bool cast = s.flash && !f16_mask && s.graph != LlamaCppGraph::NoCast;
  // The sizes: every tensor below is at most n · max(vocab, n_kv, d_ff, heads · head_dim) floats.
  if (s.n_expert < 0 || s.n_expert_used < 0 || s.n_expert_used > s.n_expert || (s.n_expert > 0 && s.n_expert_used == 0) ||
      s.n_expert_used > 512)
    return std::nullopt;
  for (const Checked m : {Checked(s.vocab), Checked(s.n_kv), Checked(s.d_ff), Checked(d), Checked(s.n_heads) * s.head_dim,
                          Checked(s.n_expert), Checked(s.n_expert_used) * s.expert_ffn, Checked(s.n_expert_used) * d,
                          Checked(s.n_kv) * s.n_heads}) {
    const Checked bytes = Checked(std::max<i64>(n, 1)) * m * 4;
    if (!bytes.ok() || bytes.value() > (i64{1} << 50)) return std::nullopt;
  }
  Builder b;
  // Leafs, in the order the graph first meets them: the token ids (build_inp_embd), the embeddings
  // input beside them (PR #18898's ggml_build_forward_select keeps both in the graph), positions,
  // the cache's row indices (set_rows), the KQ mask [n_kv, n_tokens] (f32, or f16 under flash
  // attention since PR #23764), the output ids (n_outputs int32).
  const int tokens = b.input(n * 4);
  if (s.graph == LlamaCppGraph::F16Mask || s.graph == LlamaCppGraph::EmbdInput) b.input(n * d * 4);
  const int pos = b.input(n * 4);
  // V's indices: one per token, or (V transposed in the cache, without flash attention) one per element.
  const int k_idxs = set_rows ? b.input(n * 8) : -1;
  const int v_idxs = set_rows ? b.input(n * 8 * (s.flash ? 1 : s.n_kv_heads * s.head_dim)) : -1;
  const int mask = b.input(s.n_kv * n * (f16_mask ? 2 : 4));
  const int out_ids = b.input(no * 4);
  const int k_cache = b.external(), v_cache = b.external();
  // The token embeddings: ggml_get_rows from token_embd, which stays on the CPU (its split).
  const int embd = b.op(n * d * 4, {tokens}, false, kHost);
  // The GPU split's inputs, copied at its start: for each, a dependency view on the CPU (op NONE)
  // and its copy on the GPU (ggml_dup_tensor_layout), in order of first use.
  auto copy_in = [&](int from) {
    const int dep = b.tensor(0, {from}, kHost);
    auto& t = b.g.tensors[static_cast<size_t>(dep)];
    t.view_src = from, t.op_none = true;
    b.g.nodes.push_back(dep);
    const int cpy = b.tensor(b.g.tensors[static_cast<size_t>(from)].bytes, {}, kDevice);
    b.g.tensors[static_cast<size_t>(cpy)].op_none = true;
    b.g.nodes.push_back(cpy);
    return cpy;
  };
  const int embd_in = copy_in(embd), pos_in = copy_in(pos);
  const int k_idxs_in = set_rows ? copy_in(k_idxs) : -1, v_idxs_in = set_rows ? copy_in(v_idxs) : -1;
  int mask_in = copy_in(mask);
  const int out_ids_in = copy_in(out_ids);
  bool mask_cast = false;
  if (!s.layers) {  // the host's buffer alone
    auto sizes = ggml::reserve(b.g, {128, 32});
    if (!sizes) return std::nullopt;
    return LlamaCppCompute{0, (*sizes)[kHost]};
  }

  int inp = embd_in;
  for (i64 il = 0; il < s.n_layer; ++il) {
    const bool last = il == s.n_layer - 1;
    const int inp_sa = inp;
    // attn_norm: rms_norm, then mul by its weight (in place).
    int cur = b.op(n * d * 4, {inp}, true);
    cur = b.op(n * d * 4, {cur}, true);
    // Q, K, V (build_qkv: mul_mat, Qwen2's bias add in place, reshape_3d), Qwen3's q/k norms on
    // the reshaped views (a view is never reused in place: a new tensor), rope (in place where its
    // input is the graph's own). build_attn expands q_cur, v_cur, k_cur, then stores K and V.
    auto proj = [&](i64 bytes) {
      int t = b.op(bytes, {cur});
      if (s.qkv_bias) t = b.op(bytes, {t}, true);
      return b.view(t, {t});
    };
    auto normed_roped = [&](int t, i64 bytes) {
      if (s.qk_norm) {
        t = b.op(bytes, {t}, true);
        t = b.op(bytes, {t}, true);
      }
      return b.op(bytes, {t, pos_in}, true);
    };
    const int q = normed_roped(proj(q_bytes), q_bytes);
    const int v = proj(kv_bytes);
    const int k = normed_roped(proj(kv_bytes), kv_bytes);
    // cpy_k / cpy_v: set_rows(cache, reshape_2d(cur), idxs), or (before PR #14959) ggml_cpy(cur,
    // view_1d(cache)); either result is a view of the cache.
    for (const auto& [x, cache, idxs] : {std::tuple{k, k_cache, k_idxs_in}, std::tuple{v, v_cache, v_idxs_in}}) {
      if (set_rows) {
        const int x2 = b.view(x, {x});
        b.view(cache, {cache, x2, idxs});
      } else {
        const int dst = b.view(cache, {cache});
        b.view(cache, {x, dst});
      }
    }
    // build_attn_mha: q viewed per stream and permuted; K and V views of the cache, permuted;
    // with flash attention, before PR #23764 the f32 mask cast to f16 (ggml_cast, met first here)
    // and flash_attn_ext's result [head_dim, n_head, n_tokens] f32, reshaped; the output projection.
    const int q4 = b.view(q, {q});
    const int qp = b.view(q4, {q4});
    const int kv = b.view(k_cache, {k_cache}), kp = b.view(kv, {kv});
    const int vv = b.view(v_cache, {v_cache}), vp = b.view(vv, {vv});
    if (s.flash) {
      if (cast && !mask_cast) mask_in = b.op(s.n_kv * n * 2, {mask_in}), mask_cast = true;
      const int fa = b.op(q_bytes, {qp, kp, vp, mask_in});
      cur = b.op(n * d * 4, {b.view(fa, {fa})});
    } else {
      // Without flash attention: kq = mul_mat(k, q), [n_kv, n_tokens, n_head] f32; soft_max_ext
      // with the f32 mask (in place); kqv = mul_mat(v, kq) with V transposed in the cache,
      // [head_dim, n_tokens, n_head]; permuted, then ggml_cont_2d to [head_dim · n_head, n_tokens].
      const int kq = b.op(s.n_kv * n * s.n_heads * 4, {kp, qp});
      const int sm = b.op(s.n_kv * n * s.n_heads * 4, {kq, mask_in}, true);
      const int kqv = b.op(q_bytes, {vp, sm});
      const int merged = b.op(q_bytes, {b.view(kqv, {kqv})});
      cur = b.op(n * d * 4, {merged});
    }
    // The last layer keeps the outputs' rows (get_rows by inp_out_ids) of both inputs of the add.
    i64 rows = n;
    int sa = inp_sa;
    if (last) {
      cur = b.op(no * d * 4, {cur, out_ids_in});
      sa = b.op(no * d * 4, {inp_sa, out_ids_in});
      rows = no;
    }
    const int ffn_inp = b.op(rows * d * 4, {cur, sa}, true);
    cur = b.op(rows * d * 4, {ffn_inp}, true);
    cur = b.op(rows * d * 4, {cur}, true);
    int ffn_out;
    if (s.n_expert == 0) {
      // build_ffn: ggml_swiglu_split(gate, up) meets gate first, then up; then down.
      const int gate = b.op(rows * s.d_ff * 4, {cur});
      const int up = b.op(rows * s.d_ff * 4, {cur});
      const int act = b.op(rows * s.d_ff * 4, {gate, up});
      ffn_out = b.op(rows * d * 4, {act});
    } else {
      ffn_out = moe_ffn(b, cur, rows, s);
    }
    inp = b.op(rows * d * 4, {ffn_out, ffn_inp}, true);  // the residual add
  }
  // The head: the final norm (t_embd, a graph output) and the logits (t_logits, an output).
  int cur = b.op(no * d * 4, {inp}, true);
  cur = b.op(no * d * 4, {cur}, true);
  b.g.tensors[static_cast<size_t>(cur)].output = true;
  const int logits = b.op(no * s.vocab * 4, {cur});
  b.g.tensors[static_cast<size_t>(logits)].output = true;
  // ref: ggml_backend_cuda_buffer_type_get_alignment (128); the CPU's host buffer types, TENSOR_ALIGNMENT (32).
  auto sizes = ggml::reserve(b.g, {128, 32});
  if (!sizes) return std::nullopt;
  return LlamaCppCompute{(*sizes)[kDevice], (*sizes)[kHost]};
}

}  // namespace llmsize::core

// ggml's graph allocator (ggml/src/ggml-alloc.c) as llama.cpp's scheduler runs it when it reserves
// the worst-case graph: the buffer size of each backend's compute buffer ("<name> compute buffer
// size") is the highest address its dynamic allocator reached. One home for that arithmetic; the
// graphs themselves are built by the engine profile (engine_llamacpp.cpp).
#pragma once
#include <optional>
#include <vector>

#include "checked.hpp"

namespace llmsize::core::ggml {

// A tensor of the graph. Indices refer to Graph::tensors.
struct Tensor {
  i64 bytes = 0;                  // ggml_backend_buft_get_alloc_size (f32/f16/int tensors: ggml_nbytes)
  int src[6] = {-1, -1, -1, -1, -1, -1};  // node->src[0..5] (GGML_MAX_SRC is larger; these graphs use six: ggml_gated_delta_net's)
  int view_src = -1;              // the tensor whose memory a view shares (the chain's base, as ggml_new_tensor_impl keeps it)
  bool op_none = false;           // GGML_OP_NONE: a leaf, or a scheduler node (an input copy, a dependency view)
  bool can_inplace = false;       // ggml_op_can_inplace(op): rms_norm, mul, add, rope, scale, soft_max, unary, ...
  bool input = false, output = false;  // GGML_TENSOR_FLAG_INPUT / _OUTPUT
  bool external = false;          // already in a buffer (weights, the KV cache): never allocated here
  int buffer = 0;                 // the backend buffer (node_buffer_ids / leaf_buffer_ids); schedule() sets it
  // What the scheduler reads (ggml-backend.cpp ggml_backend_sched_split_graph):
  int pin = -1;                   // ggml_backend_sched_set_tensor_backend: the caller's choice, never overwritten
  int weight = -1;                // a weight (buffer usage WEIGHTS) held on this backend
  int preset = -1;                // otherwise pre-allocated on this backend (the KV cache)
  bool view_op = false;           // ggml_is_view_op: reshape, view, permute, transpose
  bool rope = false;              // GGML_OP_ROPE: its weights (frequency factors) do not pick its backend
  i64 batch = 0;                  // get_op_batch_size: ne[1] of mul_mat, ne[2] of mul_mat_id and rope, 0 for get_rows, else the rows
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<int> leafs, nodes;  // cgraph->leafs and cgraph->nodes, in order
  int splits = 0;                 // schedule()'s result: sched->n_splits ("graph splits = N")
};

// ggml_backend_sched_split_graph over a model's graph `g` (its tensors' buffers unset) on
// `n_backends` backends in priority order, the last the CPU, with op offload (a higher-priority
// backend runs an op whose weight is on the CPU where its batch is at least `min_batch`, as
// CUDA's offload_op: 32): passes 1 to 4 give each tensor a backend, pass 5 cuts the splits and
// adds a copy of every input a split reads from another backend; the result is the scheduler's
// graph_copy (each split's input dependencies and copies, then its nodes) with every tensor's
// buffer set to its backend's. Every backend here runs every op and uses only its own buffers
// (discrete GPUs; the CPU's compute buffer, the GPU's host type, only the CPU backend uses).
// One copy of the graph (n_copies 1: no pipeline parallelism).
Graph schedule(const Graph& g, int n_backends, i64 min_batch = 32);

// ggml_gallocr_alloc_graph_impl over `g` with one dynamic allocator per buffer (`alignment` each:
// CUDA 128, host 32), and the size each buffer reaches (ggml_dyn_tallocr's max_size of its one
// chunk). Empty when an address would pass 2^62 (the sizes come from checked configs).
std::optional<std::vector<i64>> reserve(const Graph& g, const std::vector<i64>& alignment);

}  // namespace llmsize::core::ggml

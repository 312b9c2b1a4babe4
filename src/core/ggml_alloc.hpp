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
  int src[4] = {-1, -1, -1, -1};  // node->src[0..3] (GGML_MAX_SRC is larger; these graphs use four)
  int view_src = -1;              // the tensor whose memory a view shares (the chain's base, as ggml_new_tensor_impl keeps it)
  bool op_none = false;           // GGML_OP_NONE: a leaf, or a scheduler node (an input copy, a dependency view)
  bool can_inplace = false;       // ggml_op_can_inplace(op): rms_norm, mul, add, rope, scale, soft_max, unary, ...
  bool input = false, output = false;  // GGML_TENSOR_FLAG_INPUT / _OUTPUT
  bool external = false;          // already in a buffer (weights, the KV cache): never allocated here
  int buffer = 0;                 // the backend buffer (node_buffer_ids / leaf_buffer_ids)
};

struct Graph {
  std::vector<Tensor> tensors;
  std::vector<int> leafs, nodes;  // cgraph->leafs and cgraph->nodes, in order
};

// ggml_gallocr_alloc_graph_impl over `g` with one dynamic allocator per buffer (`alignment` each:
// CUDA 128, host 32), and the size each buffer reaches (ggml_dyn_tallocr's max_size of its one
// chunk). Empty when an address would pass 2^62 (the sizes come from checked configs).
std::optional<std::vector<i64>> reserve(const Graph& g, const std::vector<i64>& alignment);

}  // namespace llmsize::core::ggml

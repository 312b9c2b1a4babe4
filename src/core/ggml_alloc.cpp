#include "ggml_alloc.hpp"

#include <algorithm>
#include <iterator>

namespace llmsize::core::ggml {

namespace {

constexpr i64 kLimit = i64{1} << 62;

// ref: ggml-alloc.c, struct ggml_dyn_tallocr with one chunk (the CUDA and host buffer types have
// no maximum size below SIZE_MAX/2): free blocks sorted by address, the last one open-ended.
class DynAlloc {
 public:
  explicit DynAlloc(i64 alignment) : align_(alignment) { free_.push_back({0, kLimit}); }

  // ref: ggml_dyn_tallocr_alloc: the best-fitting free block besides the last, ties to the later
  // block (`<=`); else the last block, which grows the chunk.
  std::optional<i64> alloc(i64 size) {
    size = pad(size);
    int best = -1;
    i64 best_size = kLimit;
    for (int i = 0; i + 1 < static_cast<int>(free_.size()); ++i) {
      const Block& b = free_[static_cast<size_t>(i)];
      if (b.size >= size && b.size <= best_size) best = i, best_size = b.size;
    }
    if (best < 0) best = static_cast<int>(free_.size()) - 1;
    Block& b = free_[static_cast<size_t>(best)];
    if (b.size < size) return std::nullopt;
    const i64 at = b.offset;
    b.offset += size;
    b.size -= size;
    if (b.size == 0) free_.erase(free_.begin() + best);
    max_ = std::max(max_, at + size);
    if (max_ > kLimit / 2) return std::nullopt;
    return at;
  }

  // ref: ggml_dyn_tallocr_free_bytes: merged with the block ending at it (and the next), or the
  // one starting after it (and the previous), else a new block in address order.
  void release(i64 at, i64 size) {
    size = pad(size);
    for (size_t i = 0; i < free_.size(); ++i) {
      Block& b = free_[i];
      if (b.offset + b.size == at) {
        b.size += size;
        if (i + 1 < free_.size() && b.offset + b.size == free_[i + 1].offset) {
          b.size += free_[i + 1].size;
          free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        }
        return;
      }
      if (at + size == b.offset) {
        b.offset = at;
        b.size += size;
        if (i > 0 && free_[i - 1].offset + free_[i - 1].size == b.offset) {
          free_[i - 1].size += b.size;
          free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        }
        return;
      }
    }
    auto pos = std::find_if(free_.begin(), free_.end(), [&](const Block& b) { return b.offset >= at; });
    free_.insert(pos, {at, size});
  }

  i64 max_size() const { return max_; }

 private:
  struct Block {
    i64 offset, size;
  };
  i64 pad(i64 size) const { return (size + align_ - 1) / align_ * align_; }
  i64 align_;
  std::vector<Block> free_;
  i64 max_ = 0;
};

struct State {
  int children = 0, views = 0;
  bool allocated = false;
  int buffer = 0;
  i64 offset = 0;
};

}  // namespace

Graph schedule(const Graph& model, int n_backends, i64 min_batch) {
  Graph g = model;  // pass 5 points the nodes' sources at the copies, in place, as ggml does
  const int cpu = n_backends - 1;
  const size_t n = g.tensors.size();
  std::vector<int> be(n, -1);  // hv_tensor_backend_ids
  auto t = [&](int i) -> const Tensor& { return g.tensors[static_cast<size_t>(i)]; };
  auto base = [&](int i) { return t(i).view_src >= 0 ? t(i).view_src : i; };
  // ggml_backend_sched_backend_from_buffer: the backend whose buffer holds a tensor or its view's base.
  auto held = [&](int i) {
    const Tensor& b = t(base(i));
    return b.weight >= 0 ? b.weight : b.preset;
  };
  // ggml_backend_sched_buffer_supported, every backend using only its own buffers.
  auto supported = [&](int i, int b) {
    if (const int h = held(i); h >= 0) return h == b;
    int tb = be[static_cast<size_t>(i)];
    if (tb == -1 && t(i).view_src >= 0) tb = be[static_cast<size_t>(t(i).view_src)];
    return tb == b;
  };
  // ggml_backend_sched_backend_id_from_cur.
  auto from_cur = [&](int i) {
    if (const int h = held(i); h >= 0) return h;  // pre-allocated, or a view of such
    if (t(i).input) return cpu;
    for (const int s : t(i).src) {
      if (s < 0 || t(i).rope || t(s).weight < 0 || t(s).view_src >= 0) continue;
      // op offload: a weight in host memory, an op a higher-priority backend wants
      if (t(s).weight == cpu && cpu > 0 && t(i).batch >= min_batch) return 0;
      return t(s).weight;
    }
    return -1;
  };
  // pass 1
  for (const int l : g.leafs) be[static_cast<size_t>(l)] = t(l).pin >= 0 ? t(l).pin : from_cur(l);
  for (const int i : g.nodes) be[static_cast<size_t>(i)] = t(i).pin >= 0 ? t(i).pin : from_cur(i);
  // pass 2: expand the GPUs' assignments down and up past unassigned nodes, then every backend's
  auto expand = [&](bool down, bool skip_cpu) {
    int cur = -1;
    for (size_t k = 0; k < g.nodes.size(); ++k) {
      const int i = g.nodes[down ? k : g.nodes.size() - 1 - k];
      if (t(i).view_op) continue;
      int& b = be[static_cast<size_t>(i)];
      if (b != -1)
        cur = skip_cpu && b == cpu ? -1 : b;
      else if (cur != -1)
        b = cur;
    }
  };
  expand(true, true);
  expand(false, true);
  expand(true, false);
  expand(false, false);
  // pass 3: an unassigned node to the backend that holds most of its sources (no upgrades: no two
  // backends share a buffer type here)
  for (const int i : g.nodes) {
    if (t(i).view_op || be[static_cast<size_t>(i)] != -1) continue;
    int best = -1;
    for (int b = 0; b < n_backends; ++b) {
      int count = 0;
      for (const int s : t(i).src)
        if (s >= 0 && (be[static_cast<size_t>(s)] != -1 || (t(s).view_src >= 0 && be[static_cast<size_t>(t(s).view_src)] != -1)) &&
            supported(s, b))
          ++count;
      if (count > best) best = count, be[static_cast<size_t>(i)] = b;
    }
  }
  // pass 4: views to their base's backend, unassigned sources to their user's
  for (const int i : g.nodes) {
    int& b = be[static_cast<size_t>(i)];
    if (t(i).view_src >= 0 && b == -1) b = be[static_cast<size_t>(t(i).view_src)];
    for (const int s : t(i).src) {
      if (s < 0 || be[static_cast<size_t>(s)] != -1) continue;
      be[static_cast<size_t>(s)] = t(s).view_src >= 0 ? be[static_cast<size_t>(t(s).view_src)] : b;
    }
    if (b == -1) b = 0;
  }
  // pass 5: the splits, and a copy of each input from another backend (one per tensor and backend)
  struct Split {
    int backend = 0;
    size_t start = 0, end = 0;
    std::vector<int> inputs;
  };
  constexpr size_t kMaxSplitInputs = 30;  // GGML_SCHED_MAX_SPLIT_INPUTS
  std::vector<Split> splits(1);
  std::vector<std::vector<int>> copy(n, std::vector<int>(static_cast<size_t>(n_backends), -1));
  size_t k = 0;
  for (; k < g.nodes.size(); ++k)
    if (!t(g.nodes[k]).view_op) {
      splits[0].backend = be[static_cast<size_t>(g.nodes[k])];
      break;
    }
  int cur = splits[0].backend;
  for (; k < g.nodes.size(); ++k) {
    const int i = g.nodes[k];
    if (t(i).view_op) continue;
    const int nb = be[static_cast<size_t>(i)];
    bool fresh = false;  // a new split lets the previous split's copied weights be reused
    if (nb == cur && !splits.back().inputs.empty())
      for (const int s : t(i).src) {
        if (s < 0) continue;
        if (t(s).weight >= 0 && t(s).view_src < 0 && be[static_cast<size_t>(s)] != cur && !supported(s, cur)) fresh = true;
        if (splits.back().inputs.size() == kMaxSplitInputs && be[static_cast<size_t>(s)] != cur &&
            copy[static_cast<size_t>(s)][static_cast<size_t>(cur)] == -1 && !supported(s, cur))
          fresh = true;
        if (fresh) break;
      }
    if (nb != cur || fresh) {
      splits.back().end = k;
      splits.push_back({nb, k, k, {}});
      cur = nb;
    }
    for (size_t j = 0; j < std::size(g.tensors[static_cast<size_t>(i)].src); ++j) {
      const int s = g.tensors[static_cast<size_t>(i)].src[j];
      if (s < 0 || be[static_cast<size_t>(s)] == cur || supported(s, cur)) continue;
      int& c = copy[static_cast<size_t>(s)][static_cast<size_t>(cur)];
      if (c == -1) {  // ggml_dup_tensor_layout: the source's bytes, a tensor of its own
        Tensor x;
        x.bytes = t(s).bytes;
        x.op_none = true;
        g.tensors.push_back(x);
        be.push_back(cur);
        c = static_cast<int>(g.tensors.size()) - 1;
        splits.back().inputs.push_back(s);
      }
      g.tensors[static_cast<size_t>(i)].src[j] = c;
    }
  }
  splits.back().end = g.nodes.size();
  // graph_copy: each split's inputs (a dependency view on the source's backend, then the copy),
  // then its nodes; the model's leafs.
  Graph out;
  out.tensors = g.tensors;
  out.splits = static_cast<int>(splits.size());
  auto add = [&](int i, int buffer) {
    out.tensors[static_cast<size_t>(i)].buffer = buffer;
    out.nodes.push_back(i);
  };
  for (const Split& sp : splits) {
    for (const int s : sp.inputs) {
      Tensor dep;  // ggml_view_tensor(input), src[0] = input, op NONE
      dep.src[0] = s;
      dep.view_src = base(s);
      dep.op_none = true;
      dep.bytes = t(s).bytes;
      out.tensors.push_back(dep);
      add(static_cast<int>(out.tensors.size()) - 1, be[static_cast<size_t>(s)]);
      add(copy[static_cast<size_t>(s)][static_cast<size_t>(sp.backend)], sp.backend);
    }
    for (size_t q = sp.start; q < sp.end; ++q) add(g.nodes[q], be[static_cast<size_t>(g.nodes[q])]);
  }
  for (const int l : g.leafs) {
    out.tensors[static_cast<size_t>(l)].buffer = be[static_cast<size_t>(l)] < 0 ? cpu : be[static_cast<size_t>(l)];
    out.leafs.push_back(l);
  }
  return out;
}

std::optional<std::vector<i64>> reserve(const Graph& g, const std::vector<i64>& alignment) {
  std::vector<DynAlloc> allocs;
  for (const i64 a : alignment) allocs.emplace_back(a);
  std::vector<State> st(g.tensors.size());
  bool failed = false;
  auto is_view = [&](int t) { return g.tensors[static_cast<size_t>(t)].view_src >= 0; };
  auto is_allocated = [&](int t) { return g.tensors[static_cast<size_t>(t)].external || st[static_cast<size_t>(t)].allocated; };

  // ref: ggml_gallocr_allocate_node: a parent's memory reused in place where the op allows it, the
  // parent is the graph's own (allocated here: never a view), not an output, of the same layout,
  // and this node is its last use; else a new block.
  auto allocate = [&](int id, int buffer) {
    const Tensor& t = g.tensors[static_cast<size_t>(id)];
    State& s = st[static_cast<size_t>(id)];
    if (is_allocated(id) || is_view(id)) return;
    s.allocated = true;
    if (t.can_inplace)
      for (const int p : t.src) {
        if (p < 0) continue;
        const Tensor& pt = g.tensors[static_cast<size_t>(p)];
        State& ps = st[static_cast<size_t>(p)];
        if (!ps.allocated || pt.output || pt.bytes != t.bytes) continue;
        if (ps.children == 1 && ps.views == 0) {
          s.buffer = ps.buffer;
          s.offset = ps.offset;
          ps.allocated = false;
          return;
        }
      }
    s.buffer = buffer;
    auto at = allocs[static_cast<size_t>(buffer)].alloc(t.bytes);
    if (!at) {
      failed = true;
      return;
    }
    s.offset = *at;
  };
  auto release = [&](int id) {
    const Tensor& t = g.tensors[static_cast<size_t>(id)];
    State& s = st[static_cast<size_t>(id)];
    if (t.output) return;  // ref: ggml_gallocr_free_node: graph outputs are never freed
    allocs[static_cast<size_t>(s.buffer)].release(s.offset, t.bytes);
    s.allocated = false;
  };

  // ref: ggml_gallocr_alloc_graph_impl: the inputs first, in the order the nodes first read
  // them; then the leafs no node reads.
  for (const int n : g.nodes) {
    const Tensor& t = g.tensors[static_cast<size_t>(n)];
    if (is_view(n) && !t.op_none) ++st[static_cast<size_t>(t.view_src)].views;
    if (t.input) allocate(n, t.buffer);
    for (const int s : t.src) {
      if (s < 0) continue;
      ++st[static_cast<size_t>(s)].children;
      if (g.tensors[static_cast<size_t>(s)].input) allocate(s, t.buffer);
    }
  }
  for (const int l : g.leafs)
    if (st[static_cast<size_t>(l)].children == 0) allocate(l, g.tensors[static_cast<size_t>(l)].buffer);
  for (const int n : g.nodes) {
    const Tensor& t = g.tensors[static_cast<size_t>(n)];
    for (const int p : t.src)
      if (p >= 0) allocate(p, t.buffer);
    allocate(n, t.buffer);
    for (const int p : t.src) {
      if (p < 0) continue;
      State& ps = st[static_cast<size_t>(p)];
      if (--ps.children != 0 || ps.views != 0) continue;
      if (is_view(p)) {
        const int v = g.tensors[static_cast<size_t>(p)].view_src;
        State& vs = st[static_cast<size_t>(v)];
        if (--vs.views == 0 && vs.children == 0 && vs.allocated) release(v);
      } else if (ps.allocated) {
        release(p);
      }
    }
    if (failed) return std::nullopt;
  }
  if (failed) return std::nullopt;
  std::vector<i64> out;
  for (const DynAlloc& a : allocs) out.push_back(a.max_size());
  return out;
}

}  // namespace llmsize::core::ggml

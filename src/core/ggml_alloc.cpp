#include "ggml_alloc.hpp"

#include <algorithm>

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

  // ref: ggml_gallocr_alloc_graph_impl.
  for (const int l : g.leafs) allocate(l, g.tensors[static_cast<size_t>(l)].buffer);
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

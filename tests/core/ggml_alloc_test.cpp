// ggml's graph allocator (ggml_alloc.hpp) on small hand-made graphs: best fit, in-place reuse, views,
// outputs, and a size past the bound refused. Each expectation follows ggml-alloc.c's rules.
#include <catch2/catch.hpp>
#include <iterator>

#include "core/ggml_alloc.hpp"

using namespace llmsize::core;
using namespace llmsize::core::ggml;

namespace {

struct G {
  Graph g;
  int node(i64 bytes, std::initializer_list<int> src, bool inplace = false) {
    REQUIRE(src.size() <= std::size(Tensor{}.src));
    Tensor t;
    t.bytes = bytes;
    int i = 0;
    for (int s : src) t.src[i++] = s;
    t.can_inplace = inplace;
    g.tensors.push_back(t);
    g.nodes.push_back(static_cast<int>(g.tensors.size()) - 1);
    return g.nodes.back();
  }
  int view(int of) {
    Tensor t;
    t.bytes = g.tensors[static_cast<size_t>(of)].bytes;
    t.src[0] = of;
    t.view_src = of;
    g.tensors.push_back(t);
    g.nodes.push_back(static_cast<int>(g.tensors.size()) - 1);
    return g.nodes.back();
  }
  i64 size() { return reserve(g, {128}).value().at(0); }
};

}  // namespace

TEST_CASE("ggml allocator: a chain reuses its inputs in place, a fork does not", "[ggml_alloc]") {
  G a;
  const int x = a.node(1000, {});
  const int y = a.node(1000, {x}, true);  // x's last use: y takes its block
  a.node(1000, {y}, true);
  CHECK(a.size() == 1024);  // one block, 1000 bytes padded to the alignment of 128

  G b;
  const int p = b.node(1024, {});
  const int q = b.node(1024, {p}, true);  // p is read again below: a new block
  b.node(1024, {q, p}, true);             // q's last use (and p's): q's block, p freed after
  CHECK(b.size() == 2048);

  G c;  // an op that cannot run in place always takes a new block
  const int u = c.node(1024, {});
  c.node(1024, {u});
  CHECK(c.size() == 2048);
}

TEST_CASE("ggml allocator: a view is never reused in place; its base is freed after the view's last use", "[ggml_alloc]") {
  G a;
  const int x = a.node(4096, {});
  const int v = a.view(x);
  const int y = a.node(4096, {v}, true);  // the parent is a view: not the graph's own, a new block
  a.node(1024, {y});                      // x was freed with the view's last use: this reuses x's block
  CHECK(a.size() == 8192);
}

TEST_CASE("ggml allocator: best fit among the free blocks before the last, else the last block grows", "[ggml_alloc]") {
  G a;
  const int big = a.node(4096, {});
  const int keep1 = a.node(128, {});
  const int small = a.node(1024, {});
  const int keep2 = a.node(128, {});
  // Free big (4096) and small (1024): two holes below the tail.
  const int use = a.node(128, {big, small});
  const int fits = a.node(1024, {});  // the 1024-byte hole, not the first-fitting 4096 one
  const int next = a.node(4096, {});  // the 4096-byte hole: the top stays where it was
  a.node(128, {keep1, keep2, use, fits});
  // big 0..4096, keep1 ..4224, small ..5248, keep2 ..5376, use ..5504; fits in small's hole, next
  // in big's, the last node at 5504..5632. Had fits taken big's hole, next would have grown the
  // top to 5504 + 4096 and the last node past it.
  CHECK(a.size() == 5632);
}

TEST_CASE("ggml allocator: graph outputs are never freed", "[ggml_alloc]") {
  G a;
  const int x = a.node(1024, {});
  a.g.tensors[static_cast<size_t>(x)].output = true;
  a.node(1024, {x}, true);  // an output parent is not reused
  CHECK(a.size() == 2048);
}

TEST_CASE("ggml allocator: a size past the bound is refused, not wrapped", "[ggml_alloc]") {
  G a;
  a.node(i64{1} << 61, {});
  a.node(i64{1} << 61, {});
  CHECK_FALSE(reserve(a.g, {128}).has_value());
}

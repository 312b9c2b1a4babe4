// How one model replica's tensors are spread over GPUs — tensor parallel splits heads and FFN
// widths, expert parallel splits routed experts, pipeline parallel gives each stage consecutive
// layers (embeddings on the first stage, the head on the last). Sums any per-tensor quantity
// (bytes, parameters, optimizer bytes) into one GPU's share per layer, with prefix sums so a
// stage's total costs O(1). StageRange is public; the placement:: helpers serve core .cpp files.
#pragma once
#include <vector>

#include "inventory.hpp"
#include "workload.hpp"

namespace llmsize::core {

// Where the layers sit: pipeline stage `stage` of `pp` holds layers [first, first + count).
// The first (L mod pp) stages take one extra layer.
struct StageRange {
  i64 first = 0;
  i64 count = 0;
};
StageRange stage_range(i64 n_layers, i64 pp, i64 stage);

}  // namespace llmsize::core

namespace llmsize::core::placement {

// Model-dependent parallel checks: pp ≤ L, tp dividing H and dividing (or being a multiple
// of) K, ep ≤ E. Issues name the workload keys tp, pp, exp.
std::vector<Issue> check_parallel(const ModelConfig& cfg, const Workload& w);

struct Split {
  i64 tp = 1;
  i64 ep = 1;
};

// One GPU's part of `total` (the quantity for all copies of tensor t): routed experts are
// divided by ep whole experts (then by tp only when ep == 1); k/v projections hold K_gpu of
// K heads; norms, other vectors, the router, MLA's down-projections and the lightning indexer are replicated;
// everything else is divided by tp (rounded up).
std::optional<i64> gpu_share(const ModelConfig& cfg, const Tensor& t, i64 total, Split s);

// Whether tensor t (global) lives on the first stage (embeddings) or the last (head, final norm).
bool on_first_stage(const Tensor& t);

struct Table {
  std::vector<i64> prefix;  // prefix[l] = Σ_{layers < l} one GPU's share
  i64 first = 0;            // globals on the first stage
  i64 last = 0;             // globals on the last stage (a tied head repeats the embedding when pp > 1)
  i64 replica = 0;          // whole replica, no split (each tensor once)
  i64 stage(const ModelConfig& cfg, i64 pp, i64 s) const;  // one GPU of stage s
};

// value(t, layer) → the quantity for all copies of t in that layer (layer = -1: globals),
// nullopt on overflow. MTP layers are not placed (outside the total). Unless `per_layer`,
// value() may ignore the layer: it is asked once per layer kind (the fast path).
template <class F>
std::optional<Table> build(const ModelConfig& cfg, const Inventory& inv, Split split, i64 pp, F value,
                           bool per_layer = false) {
  Table tab;
  std::vector<i64> layer_share(static_cast<size_t>(cfg.n_layers), 0);
  Checked first, last, replica;
  for (const Tensor& t : inv.global) {
    auto v = value(t, i64{-1});
    if (!v) return std::nullopt;
    auto g = gpu_share(cfg, t, *v, split);
    if (!g) return std::nullopt;
    replica += *v;
    const bool tied_head = t.role == Role::Embed && cfg.tie_embeddings && pp > 1;
    if (on_first_stage(t)) first += *g;
    else last += *g;
    if (tied_head) last += *g;
  }
  for (const LayerKind& k : inv.kinds) {
    i64 same = 0;  // the kind's per-layer share on the fast path
    for (size_t j = 0; j < k.layers.size(); ++j) {
      const i64 l = k.layers[j];
      if (per_layer || j == 0) {
        Checked sum, rep;
        for (const Tensor& t : k.tensors) {
          auto v = value(t, l);
          if (!v) return std::nullopt;
          auto g = gpu_share(cfg, t, *v, split);
          if (!g) return std::nullopt;
          sum += *g;
          rep += *v;
        }
        if (!sum.ok() || !rep.ok()) return std::nullopt;
        same = sum.value();
        replica += per_layer ? rep : rep * static_cast<i64>(k.layers.size());
      }
      layer_share[static_cast<size_t>(l)] = same;
    }
  }
  tab.prefix.assign(layer_share.size() + 1, 0);
  Checked run;
  for (size_t i = 0; i < layer_share.size(); ++i) {
    run += layer_share[i];
    tab.prefix[i + 1] = run.value();
  }
  if (!run.ok() || !first.ok() || !last.ok() || !replica.ok()) return std::nullopt;
  if (replica.value() > (i64{1} << 61)) return std::nullopt;  // keeps Table::stage() sums in range
  tab.first = first.value();
  tab.last = last.value();
  tab.replica = replica.value();
  return tab;
}

}  // namespace llmsize::core::placement

// Demo scheduling (see demo.hpp).
#include "app/demo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/widgets.hpp"
#include "core/issue.hpp"
#include "ref/kernels/gemm.hpp"

namespace llmsize::app {

bool demo_start(DemoUi& d, const core::ModelConfig& model) {
  d.demo.reset();
  d.heat.clear();
  d.heat_heads = d.heat_positions = 0;
  d.heat_query = -1;
  d.state_norms.clear();
  d.state_mean.clear();
  d.state_layer = -1;
  d.state_heads = d.state_shown = d.state_positions = 0;
  d.error.clear();
  auto r = ref::create_demo(model, d.settings);
  if (!r) {
    d.error = core::join(r.issues(), "; ", ui_lang());
    d.running = false;
    return false;
  }
  d.demo = std::move(r).value();
  d.progress = ref::demo_progress(*d.demo);
  d.running = true;
  return true;
}

void demo_tick(DemoUi& d) {
  if (!d.running || !d.demo) return;
  d.progress = ref::demo_step(*d.demo, d.step_budget_ms);
  const ref::HeatMap h = ref::demo_heat_map(*d.demo);
  if (h.probs && h.heads > 0 && h.positions > 0 && h.query_pos != d.heat_query) {
    d.heat.assign(h.probs, h.probs + h.heads * h.positions);
    d.heat_heads = h.heads;
    d.heat_positions = h.positions;
    d.heat_query = h.query_pos;
    d.heat_dirty = true;
  }
  const ref::StateTrace t = ref::demo_state_trace(*d.demo);
  if (t.layer >= 0 && t.heads > 0 && t.positions != d.state_positions) {
    d.state_layer = t.layer;
    d.state_mamba = t.mamba;
    d.state_heads = t.heads;
    d.state_shown = std::min<long long>(t.heads, DemoUi::kTraceHeads);
    d.state_positions = t.positions;
    d.state_norms.assign(static_cast<size_t>(t.positions * d.state_shown), 0.0f);
    d.state_mean.assign(static_cast<size_t>(t.positions), 0.0f);
    for (long long p = 0; p < t.positions; ++p) {
      double sum = 0.0;
      for (long long head = 0; head < t.heads; ++head) sum += t.norms[p * t.heads + head];  // NaN stays NaN
      d.state_mean[static_cast<size_t>(p)] = static_cast<float>(sum / static_cast<double>(t.heads));
      for (long long head = 0; head < d.state_shown; ++head)
        d.state_norms[static_cast<size_t>(p * d.state_shown + head)] = t.norms[p * t.heads + head];
    }
  }
  if (d.progress.phase == ref::DemoPhase::Done) d.running = false;
}

void demo_cancel(DemoUi& d) {
  d.running = false;
  d.demo.reset();
}

std::string demo_state_json(const DemoUi& d) {
  char buf[1024];
  const bool done = d.demo && d.progress.phase == ref::DemoPhase::Done;
  // The block's layers (one per attention kind) and its recurrent state, measured and estimated.
  long long layers = 0, state_measured = 0, state_estimated = 0, index_measured = 0, index_estimated = 0;
  long long trace_points = 0;
  long long train_saved_m = 0, train_saved_e = 0, train_opt_m = 0, train_opt_e = 0;
  bool train_lowered = false;
  for (float v : d.state_mean) trace_points += std::isfinite(v) ? 1 : 0;
  if (d.demo) {
    layers = static_cast<long long>(ref::demo_plan(*d.demo).layers.size());
    const auto& m = ref::demo_results(*d.demo).memory;
    state_measured = m.state_measured, state_estimated = m.state_estimated;
    index_measured = m.indexer_measured, index_estimated = m.indexer_estimated;
    if (const auto& t = ref::demo_results(*d.demo).train) {  // the training step, once it has run
      train_saved_m = t->memory.saved_measured, train_saved_e = t->memory.saved_estimated;
      train_opt_m = t->memory.optimizer_measured, train_opt_e = t->memory.optimizer_estimated;
      train_lowered = t->loss_after < t->loss_before;
    }
  }
  std::snprintf(buf, sizeof buf,
                "{\"running\": %s, \"phase\": \"%.*s\", \"fraction\": %.6f, \"prefilled\": %lld, \"decoded\": %lld, "
                "\"done\": %s, \"heat_positions\": %lld, \"error\": %s, \"isa\": \"%s\", \"block_layers\": %lld, "
                "\"state_measured\": %lld, \"state_estimated\": %lld, \"indexer_measured\": %lld, "
                "\"indexer_estimated\": %lld, \"state_trace_layer\": %lld, \"state_trace_points\": %lld, "
                "\"train_saved_measured\": %lld, \"train_saved_estimated\": %lld, \"train_optimizer_measured\": %lld, "
                "\"train_optimizer_estimated\": %lld, \"train_loss_lowered\": %s}",
                d.running ? "true" : "false", static_cast<int>(ref::to_string(d.progress.phase).size()),
                ref::to_string(d.progress.phase).data(), d.progress.fraction,
                static_cast<long long>(d.progress.prefilled), static_cast<long long>(d.progress.decoded),
                done ? "true" : "false", d.heat_positions, d.error.empty() ? "false" : "true", ref::active_kernel().isa,
                layers, state_measured, state_estimated, index_measured, index_estimated, d.state_layer, trace_points,
                train_saved_m, train_saved_e, train_opt_m, train_opt_e, train_lowered ? "true" : "false");
  return buf;
}

}  // namespace llmsize::app

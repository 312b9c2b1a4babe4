// The demo's scheduling across frames: the app owns one ref::Demo, calls ref::demo_step
// with a time budget once per frame (the page never freezes), keeps a copy of the latest
// attention probabilities for the heat map, and remembers what the user asked for.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "app/state.hpp"  // FieldEdit
#include "ref/demo.hpp"

namespace llmsize::app {

struct DemoUi {
  ref::DemoSettings settings;        // edited through ref::demo_fields()
  std::map<std::string, FieldEdit, std::less<>> edits;  // by demo field key
  ref::DemoPtr demo;                 // null until the user runs the block
  ref::DemoProgress progress;
  bool running = false;
  std::string error;                 // create_demo's issues, when it refused
  std::vector<float> heat;           // (heads, positions) attention of the last query
  long long heat_heads = 0, heat_positions = 0, heat_query = -1;
  bool heat_dirty = false;
  void* heat_texture = nullptr;      // ImTextureID from the platform renderer
  // The block's first recurrent layer (ref::StateTrace): ‖S‖ of its first kTraceHeads heads and the
  // mean over all its heads, per position, NaN where the state was not materialized.
  static constexpr long long kTraceHeads = 16;
  std::vector<float> state_norms;    // (positions, state_shown)
  std::vector<float> state_mean;     // (positions)
  long long state_layer = -1, state_heads = 0, state_shown = 0, state_positions = 0;
  bool state_mamba = false;
  double step_budget_ms = 8.0;       // per frame
};

// Starts a run on `model` (replacing any previous one); false with `error` set on refusal.
bool demo_start(DemoUi& d, const core::ModelConfig& model);
// One frame's share of work; no-op when not running.
void demo_tick(DemoUi& d);
void demo_cancel(DemoUi& d);
// {"running", "phase", "fraction", "prefilled", "decoded", "done", "error", "block_layers", the
// recurrent state and indexer bytes, "state_trace_layer", "state_trace_points"} for the test hooks.
std::string demo_state_json(const DemoUi& d);

}  // namespace llmsize::app

// The timed demo: one decoder block of a model, at its real dimensions when it fits a memory
// budget, else scaled (fewer routed experts first, then narrower), seeded weights and
// seeded input hidden states; it prefills a prompt and decodes tokens through the block.
// demo_step(budget_ms) runs for about that long and returns, so a UI calls it once per
// frame and never freezes; results fill in as phases end. Steady-clock timing; no threads.
// Not here: drawing (the app owns the progress bar and the heat map), tokens, sampling.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"
#include "measure.hpp"
#include "train.hpp"

namespace llmsize::ref {

// The defaults are here; the allowed ranges are demo_fields()' rows.
struct DemoSettings {
  i64 prompt = 128;              // prefill tokens
  i64 tokens = 32;               // decoded tokens
  i64 budget_bytes = i64{1} << 30;  // memory the block may use (default 1 GiB; set in MiB)
  i64 prefill_chunk = 512;       // prompt tokens per forward call (chunked prefill)
  std::uint64_t seed = 1;
  // After the decode, one measured training step of a block layer (train.hpp) when train_seq > 0.
  i64 train_seq = 0;
  i64 train_batch = 1;
  i64 train_lora_rank = 8;  // 0: every tensor of the layer trained
  std::uint32_t train_lora_targets = core::kLoraQ | core::kLoraV;
  core::Recompute train_recompute = core::Recompute::None;

  i64 chunk() const { return prefill_chunk < prompt ? prefill_chunk : prompt; }
  TrainSettings train() const;
};

// The settings as a field table (core/field.hpp), in display order: key (Issue::field), CLI
// flag, UI label, help and range. `llmsize demo` parses its flags and the app draws its
// editors from it. prefill_chunk has no flag: only code sets it.
using DemoField = core::Field<DemoSettings>;
const std::vector<DemoField>& demo_fields();
const DemoField* find_demo_field(std::string_view key);
const DemoField* find_demo_flag(std::string_view flag);
// Each setting against its row's range. Issues name "prompt", "tokens", "prefill_chunk", "budget".
std::vector<core::Issue> validate(const DemoSettings& s);

struct DemoPlan {
  core::ModelConfig model;  // the whole model, as given
  core::ModelConfig block;  // the config that runs (real or scaled): one layer of each attention kind
  i64 layer = 0;            // the model layer whose FFN kind every block layer has
  std::vector<i64> layers;  // the model layer each block layer stands for (one per attention kind)
  bool moe = false;         // a routed-expert layer
  bool scaled = false;
  i64 width_divisor = 1;    // 1: real widths
  i64 experts_model = 0, experts_block = 0;  // routed experts allocated (0: dense)
  std::string scaling;      // "real dimensions" or e.g. "d 7168->1792, 4× narrower; experts 256->16"
  i64 train_layer = -1;     // the block layer the training step runs (train_seq > 0), else -1
  i64 bytes = 0;            // what the block allocates (weights + KV + activations + scratch)
};

// Validates the settings and picks the block. Issues name "prompt", "tokens", "budget", and for a
// training step "train_seq", "train_batch", "lora_rank", "lora_targets" or the model field it lacks.
core::Result<DemoPlan> plan_demo(const core::ModelConfig& model, const DemoSettings& s);
// How the block was scaled to fit the budget, in `lang` ("real dimensions", "d 7168->1792, 4×
// narrower (…)"): DemoPlan::scaling is its English (the JSON's); the CLI and the page show it in theirs.
std::string scaling_text(const DemoPlan& p, core::Lang lang);

enum class DemoPhase : std::uint8_t { Init, Prefill, Decode, Train, Done };
std::string_view to_string(DemoPhase p);  // "filling weights", "prefill", "decode", "training step", "done"
core::Str phase_row(DemoPhase p);         // the phase's row of the string table

struct DemoProgress {
  DemoPhase phase = DemoPhase::Init;
  double fraction = 0;        // whole demo, 0..1 (weighted by estimated work)
  double phase_fraction = 0;  // current phase, 0..1
  i64 prefilled = 0;          // prompt tokens through the block (0 or prompt)
  i64 decoded = 0;            // tokens decoded so far
  std::string op;             // the op running now ("layer 0 · ffn.up"), in English
  int train_stage = 0;        // the training step's stage, 1 to 4 (phase Train)
};
// What runs now in `lang`: the op's name while prefilling or decoding (tensor names), else the phase.
std::string progress_op(const DemoProgress& p, core::Lang lang);

struct DemoResults {
  bool prefill_done = false, decode_done = false;
  double init_ms = 0, prefill_ms = 0, decode_ms = 0;  // time inside the block's ops
  double prefill_ms_per_token = 0, decode_ms_per_token = 0;
  double prefill_gflops = 0, decode_gflops = 0;  // executed FLOPs / time (GFLOP/s)
  double decode_gbps = 0;                         // weights + KV bytes read / time (GB/s, 10⁹)
  double prefill_flops = 0, decode_flops = 0;     // executed FLOPs in the phase
  // The whole model on this CPU, per token: block time × (model FLOPs / block FLOPs), both
  // from core::throughput's FLOP counts (2·active matmul params + attention) at this context.
  double model_prefill_ms_per_token = 0, model_decode_ms_per_token = 0;
  double model_flops_ratio_prefill = 0, model_flops_ratio_decode = 0;
  MemoryComparison memory;  // after the block is built
  // The training step (train_seq > 0) once it has run, of model layer train_layer; or why it could not.
  std::optional<TrainResult> train;
  i64 train_layer = -1;
  std::vector<core::Issue> train_issues;
  std::string kernel, isa;  // GEMM kernel that ran
};

struct Demo;  // opaque: decoder, current program, clocks
struct DemoDeleter {
  void operator()(Demo* d) const;
};
using DemoPtr = std::unique_ptr<Demo, DemoDeleter>;

// Plans and allocates the block (weights are filled during the first steps).
core::Result<DemoPtr> create_demo(const core::ModelConfig& model, const DemoSettings& s);

// Runs for about budget_ms (at least one unit of work; a unit is ~1 ms of GEMM work), then
// returns where the demo stands. After Done it returns at once.
DemoProgress demo_step(Demo& demo, double budget_ms);
DemoProgress demo_progress(const Demo& demo);
const DemoResults& demo_results(const Demo& demo);
const DemoPlan& demo_plan(const Demo& demo);
// Attention probabilities of the last query (heads × positions), valid until the next step.
HeatMap demo_heat_map(const Demo& demo);
// The block's first recurrent layer's state norm per head over positions (layer: the model's), or
// layer −1 when the block has none.
StateTrace demo_state_trace(const Demo& demo);
// The block itself (read-only: stats, cache position, workspace).
const Decoder& demo_decoder(const Demo& demo);

// The seeded input hidden states the demo feeds at positions [pos, pos + n): (n, d) floats.
void demo_inputs(std::uint64_t seed, i64 pos, i64 n, i64 d, float* x);

}  // namespace llmsize::ref

// One training step of one decoder layer, measured: forward with the tensors backward needs kept
// (flash-style attention: q, k, v, the output and its logsumexp, never the T × T probabilities),
// backward through the block with the project's GEMMs (sgemm_op: dX = dY·Wᵀ, dW = Xᵀ·dY), LoRA
// on the chosen matrices or every tensor of the layer trainable, and an AdamW step; optional
// full recomputation (only the layer input kept; the forward rebuilt in backward). Everything
// it holds is counted by category (weights, adapters, saved, gradients, optimizer states, working
// buffers) and set beside the core's figures for the same workload at fp32: the layer's weights
// (weights_report), saved activations (layer_activations: Korthikanti et al. 2022 at dtype 4,
// flash, no dropout), adapters (lora_params) and model states (model_states: AdamW, fp32).
//
// The loss is L = Σ y ⊙ G over the layer's output y for a fixed seeded G (the gradient that the
// next layer would hand back), so dL/dy = G; tests check every gradient against finite
// differences of L.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloc.hpp"
#include "core/issue.hpp"
#include "core/workload.hpp"

namespace llmsize::ref {

struct Decoder;

struct TrainSettings {
  i64 seq = 64;                    // tokens per sequence
  i64 micro_batch = 1;             // sequences
  i64 lora_rank = 8;               // 0: every tensor of the layer is trained
  std::uint32_t lora_targets = core::kLoraQ | core::kLoraV;
  core::Recompute recompute = core::Recompute::None;
  double lr = 1e-3;                // AdamW (torch.optim.AdamW defaults otherwise: betas 0.9, 0.999, eps 1e-8, weight decay 0.01)
  std::uint64_t seed = 1;          // weights, adapters' A, the input and G
};

// What the step held, measured by its counters, beside the core's figure for the same thing.
struct TrainMemory {
  i64 weights_measured = 0, weights_estimated = 0;      // the layer's tensors, fp32
  i64 adapters_measured = 0, adapters_estimated = 0;    // LoRA A and B, fp32 (0 without LoRA)
  // Kept for backward at the end of the forward: the layer input alone under full recomputation.
  i64 saved_measured = 0, saved_estimated = 0;
  // Full recomputation: what the rebuilt forward keeps during backward (0 otherwise).
  i64 recompute_measured = 0, recompute_estimated = 0;
  i64 gradients_measured = 0, gradients_estimated = 0;  // of the trainable tensors, after backward
  i64 optimizer_measured = 0, optimizer_estimated = 0;  // AdamW m and v
  i64 trainable_params = 0;
  // Highest total of the step: weights + adapters + the largest of (saved + working buffers
  // during backward + gradients so far) and (gradients + optimizer states at the step). The
  // formula's total (weights + adapters + saved + gradients + optimizer, all at once) bounds it
  // from above but for the backward's working buffers, which the paper model leaves out.
  i64 peak_measured = 0;
  i64 formula_total = 0;
  i64 working_measured = 0;  // the largest set of backward's buffers alive at once (dY, dX, the FFN's d(gate‖up))
};

struct TrainResult {
  TrainMemory memory;
  double loss_before = 0, loss_after = 0;  // L at the first and at the second forward (after one AdamW step)
  double ms = 0;                           // the first forward, backward and AdamW step
  std::vector<core::Issue> notes;  // field "demo", in each language
};

// A step one can drive piece by piece (the tests' finite differences); run_train_step does it all.
class TrainStep {
 public:
  struct Tensor {
    std::string name;   // the checkpoint's name, or "<matrix>.lora_A" / ".lora_B"
    float* value = nullptr;
    const float* grad = nullptr;  // null until backward() has run
    i64 numel = 0;
  };
  // The layer `layer` of `cfg` at real dimensions (the demo passes its scaled block). Refuses,
  // naming the model field, what the step does not model.
  static core::Result<std::unique_ptr<TrainStep>> create(const core::ModelConfig& cfg, i64 layer,
                                                         const TrainSettings& s);
  ~TrainStep();
  double forward();        // L; keeps what backward needs
  void backward();         // gradients of the trainable tensors and of the input
  void step();             // AdamW (states made on the first call), then the gradients freed
  // The measured run, one stage per call (the demo slices it across frames): the first forward,
  // backward, the AdamW step, the second forward; true once the last has run, then result()
  // holds every figure.
  bool advance();
  const TrainResult& result() const;
  std::vector<Tensor> trainable();
  float* input();                     // (b·s, d) the layer input (row = sequence·s + t)
  const float* input_grad() const;    // dL/dinput after backward()
  const MemStats& stats() const;      // the step's counter (weights live in the decoder's)
  const Decoder& decoder() const;

  struct Impl;

 private:
  explicit TrainStep(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Two forwards and one backward + AdamW step between them, measured against the core's figures.
core::Result<TrainResult> run_train_step(const core::ModelConfig& cfg, i64 layer, const TrainSettings& s);

// The reason the step cannot run layer `layer` of cfg, or nullopt.
std::optional<core::Issue> train_unsupported(const core::ModelConfig& cfg, i64 layer);

}  // namespace llmsize::ref

// The one entry point of the estimator: estimate(model, workload) → parameters, inference
// and training memory per GPU, fit, throughput bounds. Pure and string-free (fast enough for
// every UI frame); explain() builds, on demand, every figure's derivation with the values
// substituted, its reference and whether it is exact, a lower/upper bound or an estimate.
// Keys of explain() are the JSON paths of report.hpp ("inference.kv_cache_bytes", …): both
// read the one figure table of figures.hpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lang.hpp"

#include "engine_llamacpp.hpp"
#include "engine_sglang.hpp"
#include "engine_transformers.hpp"
#include "engine_vllm.hpp"
#include "throughput.hpp"

namespace llmsize::core {

struct Estimate {
  std::shared_ptr<const Inventory> inventory;  // shared with the PreparedModel it came from
  LayerPlan plan;             // per-layer attention cache and FFN kinds (KV dtype, tp of the workload)
  ParamReport params;
  Gpu gpu;                    // the workload's GPU (catalog entry)
  i64 dp = 1;                 // data-parallel replicas = gpus / (tp · pp)
  InferenceMemory inference;
  TrainingMemory training;
  Throughput throughput;
  // Where a model file's bytes are the weights (PreparedModel::file): the workload format's
  // weights, kept to set beside them ("estimated for q4_k_m").
  std::optional<WeightsReport> format_weights;
  i64 projector_bytes = -1;  // PreparedModel::projector_bytes: the vision encoder is an mmproj file's
  // The runtime's own accounting, where it is modelled (runtime llamacpp: its KV cache and state).
  std::optional<LlamaCppMemory> llamacpp;
  std::optional<LlamaCppBuffers> llamacpp_devices;  // runtime llamacpp: its model buffers and cache per device
  // runtime llamacpp with --host-mem-gib: the host memory its buffers may fill (0: not checked),
  // and whether its host buffers (LlamaCppBuffers::host_bytes) fit there.
  i64 host_capacity_bytes = 0;
  bool host_fits = false;
  // llama.cpp on a unified-memory device (Apple, DGX Spark, Strix Halo): its GPU's buffers (the
  // device's total) and its host buffers draw on one memory, so that sum is what --host-mem-gib
  // is checked against; 0 elsewhere.
  i64 unified_bytes = 0;
  std::optional<VllmMemory> vllm;  // runtime vllm: its budget, profile, KV blocks and lines
  std::optional<SglangMemory> sglang;  // runtime sglang: its free memory, mem_fraction_static, token pool and lines
  std::optional<TransformersMemory> transformers;  // runtime transformers: generate()'s max_memory_allocated, term by term
  // Valid but worth saying: e.g. a context beyond the model's trained positions. The figures
  // are still computed for the workload as given. Issues name the workload key.
  std::vector<Issue> notes;
};

// A model prepared once per configuration: validated, its tensor inventory and parameter
// report built, and its per-layer plans kept for each (KV dtype, tp, activation dtype) a
// workload asks for. The UI keeps one while the model is unchanged, so a frame (or the Scaling
// tab's many estimates) builds neither again. Not thread-safe: the plan cache is filled on use.
struct PreparedModel {
  ModelConfig cfg;
  std::shared_ptr<const Inventory> inventory;
  ParamReport params;
  struct PlanKey {
    KvDtype kv = KvDtype::BF16;
    i64 tp = 1, act_bytes = 2;
    bool operator==(const PlanKey&) const = default;
  };
  mutable std::vector<std::pair<PlanKey, LayerPlan>> plans;  // a few entries, most recent last
  // A model file's bytes per tensor (gguf_file_weights / safetensors_file_weights of this
  // inventory): when set, the weights are the file's, not the workload format's.
  std::shared_ptr<const FileWeights> file;
  std::optional<Issue> file_refused;  // a file was given but its tensors do not match: why (a note of every estimate)
  // A multimodal projector file (llama.cpp's mmproj-*.gguf): its tensor bytes as the vision
  // encoder (inference.vision_weights_bytes) in place of the config's tower; -1: none.
  i64 projector_bytes = -1;

  // The plan for `w`, built on first use. Fails only on overflow (Issue naming the field).
  Result<const LayerPlan*> plan_for(const Workload& w) const;
};
Result<PreparedModel> prepare(const ModelConfig& cfg);
#define LLMSIZE_HAS_PREPARE 1

// Validates both inputs (Issues name config.json keys or workload keys) and computes
// everything. Fails only on invalid input or int64 overflow (Issue naming the field).
Result<Estimate> estimate(const PreparedModel& m, const Workload& w);
Result<Estimate> estimate(const ModelConfig& cfg, const Workload& w);  // prepare(cfg), then estimate

enum class Bound : std::uint8_t {
  Exact,     // counted exactly from the tensor list / definitions
  Lower,     // real runs need at least this (runtimes add padding, fragmentation, …)
  Upper,     // real runs reach at most this (rooflines)
  Estimate,  // a modelled or typical value that may be off either way
};
std::string_view to_string(Bound b);  // "exact", "lower bound", "upper bound", "estimate"
const char* bound_text(Bound b, Lang lang);  // the same in a language (the string table's bound_* rows)

enum class Unit : std::uint8_t { Bytes, Count, Tokens, TokensPerSecond, Seconds, Flops };

struct Explanation {
  std::string key;        // JSON key, e.g. "inference.kv_cache_bytes"
  std::string label;      // "KV cache"
  Unit unit = Unit::Bytes;
  double value = 0;       // the figure (bytes, tokens/s, …)
  Bound bound = Bound::Lower;
  std::string formula;    // symbols, then "= values = result"
  std::string reference;  // paper / runtime / file the formula follows
};

// Every figure of `e` (the rows of figures(), in order) with its derivation (builds
// strings; call when shown). Defined in figures.cpp. The formulas' and references' words are in
// `lang`; machine output (the JSON report, the CSV) keeps English.
std::vector<Explanation> explain(const ModelConfig& cfg, const Workload& w, const Estimate& e, Lang lang = Lang::En);

}  // namespace llmsize::core

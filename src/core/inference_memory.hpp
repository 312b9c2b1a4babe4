// Inference memory on the most loaded GPU: weights (per tensor, as stored), KV cache (from the
// layer plan), temporaries of one layer, logits, runtime reserve; the phases after load /
// prefill peak / decode; fit, max context, max concurrent sequences and minimum GPU count.
// All sizes are bytes (int64, overflow-checked); every figure is a lower bound unless its doc
// says otherwise. Not here: training memory (training_memory.hpp), rates and times (throughput.hpp).
#pragma once
#include "gpus.hpp"
#include "temporaries.hpp"
#include "weights.hpp"

namespace llmsize::core {

// Default reserve of a runtime profile in bytes (CUDA context, allocator, CUDA graphs) — an
// estimate, editable through Workload::reserve_mib.
i64 runtime_reserve_default(Runtime r);
// Communication workspace per GPU when the replica spans several GPUs (NCCL channels):
// an estimate, 0 for one GPU.
i64 comm_workspace_bytes(i64 gpus_in_group);

struct InferenceMemory {
  // Most loaded GPU (pipeline stage `stage` of pp).
  i64 weights_bytes = 0;           // the language model's weights on this GPU
  i64 vision_weights_bytes = 0;    // a multimodal wrapper's vision tower and projector on this GPU
  // Gemma 4 (attention_k_eq_v): this GPU's K projections of the layers that read V from k_proj, which
  // vLLM's qkv_proj loads into its V slot too (an engine's figure; not in weights_bytes).
  i64 k_as_v_bytes = 0;
  i64 kv_bytes_per_token = 0;      // whole model, all layers (the published figure)
  i64 kv_bytes_per_token_gpu = 0;  // this GPU's layers and KV heads
  i64 kv_cache_bytes = 0;          // this GPU: batch × context (windows capped)
  i64 indexer_bytes_per_token = 0; // whole model: the sparse-attention indexer's key per token (DeepSeek-V3.2)
  i64 indexer_cache_bytes = 0;     // this GPU: batch × context of indexer keys (replicated under tp)
  i64 state_bytes_per_sequence = 0;  // whole model: recurrent state of one sequence (linear layers)
  i64 state_bytes = 0;             // this GPU: batch × its layers' state, constant in context
  i64 activation_bytes = 0;        // prefill temporaries peak (= prefill.peak)
  i64 overhead_bytes = 0;          // reserve + comm workspace
  i64 reserve_bytes = 0;
  i64 comm_bytes = 0;
  i64 total_bytes = 0;             // max(prefill peak, decode)
  Temporaries prefill, decode;
  // llama.cpp: the device's compute buffer, from its reserved graph through ggml's allocator
  // (engine_llamacpp_graph.cpp), allocated at start and held: it stands for the temporaries of
  // both phases. 0 where not modelled (the generic temporaries stand).
  i64 compute_buffer_bytes = 0;
  i64 chunk = 0;                   // effective prefill chunk (tokens; under llama.cpp at most n_ubatch)
  i64 chunk_batch = 0, chunk_keys = 0;  // its sequences and the keys its last query attends (batch, seq; llama.cpp: 1, a stream's cells)
  // Phases (this GPU).
  i64 after_load_bytes = 0;        // weights + overhead
  i64 prefill_peak_bytes = 0;      // + KV of the full context + state + prefill temporaries
  i64 decode_bytes = 0;            // + KV of the full context + state + decode temporaries
  i64 stage = 0, stage_first = 0, stage_layers = 0;  // its layers: [stage_first, + stage_layers)
  // Fit on the workload's GPU.
  i64 capacity_bytes = 0;          // usable per GPU (× gpu_mem_util under vLLM)
  bool fits = false;
  i64 max_context = 0;             // largest context that fits at this batch (0: none)
  bool max_context_is_model_limit = false;  // reached max_position_embeddings
  i64 max_sequences = 0;           // concurrent sequences at this context (chunked prefill of one)
  i64 min_gpus = 0;                // ideal split of weights and KV; 0 = never fits
  WeightsReport weights;           // whole model, per tensor
  // One GPU's weights per layer (tensor and expert parallel applied) and the globals of the first
  // stage (embeddings) and of the last (head, final norm; a tied head repeats the embedding when
  // pp > 1): for an engine that splits the layers its own way (vLLM's get_pp_indices).
  std::vector<i64> layer_weights_gpu;
  i64 first_weights_gpu = 0, last_weights_gpu = 0;
};

// What model files bring to the estimate: a model file's bytes per tensor as the weights
// (file_weights.hpp), a multimodal projector file's bytes (llama.cpp's mmproj) as the vision
// encoder on the first GPU (-1: none; the config's vision tower, if any, then counts).
struct FileInputs {
  const FileWeights* weights = nullptr;
  i64 projector_bytes = -1;
};
// `plan` is layer_plan(cfg, w.kv_dtype, w.tp).
Result<InferenceMemory> inference_memory(const ModelConfig& cfg, const Inventory& inv, const LayerPlan& plan,
                                         const Workload& w, const Gpu& gpu, FileInputs files = {});

}  // namespace llmsize::core

// llama.cpp's own memory accounting (issue 11, first step): the KV cache cells and bytes and the
// recurrent state cells llama-server allocates for a model and its flags, and the lines it prints
// at start-up. Follows ggml-org/llama.cpp master b10573 (2026-08): llama_context::llama_context
// (n_ctx padding, streams), llama_model::create_memory (which cache per architecture),
// llama_kv_cache_iswa (the SWA cache's cells), llama_kv_cache and llama_memory_recurrent (tensor
// sizes and their log lines). Whole model, as llama.cpp sizes it before splitting layers over
// devices; the compute buffer and partial offload are later steps of the issue.
#pragma once
#include <string>
#include <vector>

#include "gpus.hpp"
#include "inventory.hpp"
#include "layer_plan.hpp"

namespace llmsize::core {

inline constexpr std::string_view kLlamaCppVersion = "llama.cpp b10573 (master of 2026-08-22)";

// One llama_kv_cache: its cells (per stream), the layers holding tensors, K and V bytes.
struct LlamaCppCache {
  bool swa = false;  // the SWA half of an iswa cache
  i64 cells = 0, layers = 0, k_bytes = 0, v_bytes = 0;
};

struct LlamaCppMemory {
  i64 n_ctx = 0;      // after GGML_PAD(n_ctx, 256) (and, split in streams, n_ctx_seq · n_seq)
  i64 n_ctx_seq = 0;  // cells of one stream
  i64 n_seq = 0;      // n_seq_max: server slots
  i64 n_stream = 0;   // 1 when unified, else n_seq
  i64 n_ubatch = 0;
  bool unified = false, iswa = false;
  std::vector<LlamaCppCache> caches;  // the non-SWA cache, then the SWA cache (iswa); none for a recurrent-only model
  bool recurrent = false;             // a llama_memory_recurrent (recurrent or hybrid models)
  i64 rs_cells = 0, rs_layers = 0, r_bytes = 0, s_bytes = 0;  // rs_layers: n_layer(), as llama.cpp prints it
  std::vector<i64> layer_bytes;       // KV and recurrent state of each layer (the nextn layer last), for the device split
  i64 kv_bytes() const;
  i64 total_bytes() const { return kv_bytes() + r_bytes + s_bytes; }
};

// Where llama.cpp puts the weights and the cache (llama_model::load_tensors, b10573): layers
// i_gpu_start = n_layer − ngl … on the GPU, the output layer too when ngl > n_layer; the token
// embedding always on the CPU (read through mmap: "CPU_Mapped"); a tied head is duplicated on
// the output layer's device; --n-cpu-moe keeps the first N layers' expert tensors on the CPU;
// each layer's cache on its layer's device (offload_kqv).
struct LlamaCppBuffers {
  std::string device;           // "CUDA0", "ROCm0", "Metal" (the GPU's backend buffer name)
  i64 n_layer = 0;              // repeating layers
  i64 offloaded = 0;            // of n_layer + 1 (the output layer counts)
  bool output_on_gpu = false;
  i64 gpu_model_bytes = 0;      // "<device> model buffer size"
  i64 cpu_mapped_bytes = 0;     // "CPU_Mapped model buffer size"
  i64 gpu_cache_bytes = 0;      // KV and recurrent state on the GPU
  i64 cpu_cache_bytes = 0;      // on the CPU
};
Result<LlamaCppBuffers> llamacpp_buffers(const ModelConfig& cfg, const Inventory& inv, const LlamaCppMemory& m,
                                         const Workload& w, const Gpu& gpu);
// load_tensors' lines for those buffers.
std::vector<std::string> llamacpp_buffer_log(const LlamaCppBuffers& b);

// The memory llama-server allocates for `cfg` under `w` (seq = n_ctx, the llama.cpp flags of the
// workload, kv_dtype as -ctk/-ctv). `plan` is the model's plan at w's KV dtype (whole-model
// figures are read). Fails, naming the field, where llama.cpp would refuse the flags or where
// its memory for this model is not modelled (DeepSeek-V3.2's DSA cache).
Result<LlamaCppMemory> llamacpp_memory(const ModelConfig& cfg, const LayerPlan& plan, const Workload& w);

// The lines llama.cpp prints for that memory, as it formats them.
std::vector<std::string> llamacpp_log(const LlamaCppMemory& m, KvDtype t);

}  // namespace llmsize::core

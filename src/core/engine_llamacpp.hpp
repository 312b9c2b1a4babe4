// llama.cpp's own memory accounting (issue 11, first step): the KV cache cells and bytes and the
// recurrent state cells llama-server allocates for a model and its flags, and the lines it prints
// at start-up. Follows ggml-org/llama.cpp master b10573 (2026-08): llama_context::llama_context
// (n_ctx padding, streams), llama_model::create_memory (which cache per architecture),
// llama_kv_cache_iswa (the SWA cache's cells), llama_kv_cache and llama_memory_recurrent (tensor
// sizes and their log lines), llama_model_base::load_tensors (layers over devices) and
// llama_context::output_reserve, and the compute buffers of the reserved graph through ggml's
// scheduler and allocator (engine_llamacpp_graph.cpp: for llama / qwen2 / qwen2vl / qwen3 / qwen3moe /
// openai_moe_iswa / gemma2_iswa / gemma3_iswa graphs every device's, whole or partial offload or
// the CPU alone; else the host's inputs and, with flash attention, the output device's head where
// no layer can pass it). Not modelled: recurrent / MLA graphs, Metal's graph, --split-mode row.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "format.hpp"
#include "gpus.hpp"
#include "inventory.hpp"
#include "layer_plan.hpp"
#include "weights.hpp"

namespace llmsize::core {

inline constexpr std::string_view kLlamaCppVersion = "llama.cpp b10573 (master of 2026-08-22)";

// One llama_kv_cache: its cells (per stream), the layers holding tensors, K and V bytes.
// ggml's name of a cache type (ggml_type_name, as -ctk/-ctv take it); null for fp8, which is not one.
const char* llamacpp_cache_type(KvDtype t);

struct LlamaCppCache {
  bool swa = false;  // the SWA half of an iswa cache
  i64 cells = 0, layers = 0, k_bytes = 0, v_bytes = 0;
  bool indexer = false;  // the indexer-key half of a DSA cache (DeepSeek-V3.2's lightning indexer)
};

struct LlamaCppMemory {
  i64 n_ctx = 0;      // after GGML_PAD(n_ctx, 256) (and, split in streams, n_ctx_seq · n_seq)
  i64 n_ctx_seq = 0;  // cells of one stream
  i64 n_seq = 0;      // n_seq_max: server slots
  i64 n_stream = 0;   // 1 when unified, else n_seq
  i64 n_ubatch = 0;
  bool unified = false, iswa = false;
  bool dsa = false;  // llama_kv_cache_dsa: the MLA cache, then one of the indexer's keys (DeepSeek-V3.2)
  std::vector<LlamaCppCache> caches;  // the non-SWA cache, then the SWA cache (iswa) or the indexer's (dsa); none for a recurrent-only model
  bool recurrent = false;             // a llama_memory_recurrent (recurrent or hybrid models)
  i64 rs_cells = 0, rs_layers = 0, r_bytes = 0, s_bytes = 0;  // rs_layers: n_layer(), as llama.cpp prints it
  // The recurrent line's "N rs_seq" (the 2026-05 graph's builds; the 2026-01 graph's and earlier
  // ones, up to the May 2026 logs, print "N seqs)" without it).
  bool rs_seq = true;
  std::vector<i64> layer_bytes;       // KV and recurrent state of each layer (the nextn layer last), for the device split
  std::vector<i64> layer_kv;          // of which K and V
  std::vector<i64> layer_indexer;     // of which the indexer's keys (dsa; else empty)
  std::vector<int> layer_cache;       // the cache (index in `caches`) holding the layer's K and V, −1 for none
  i64 kv_bytes() const;
  i64 total_bytes() const { return kv_bytes() + r_bytes + s_bytes; }
};

// Where llama.cpp puts the weights and the cache (llama_model_base::load_tensors, b10573): of
// the n_layer_all repeating layers (the trunk and the nextn layers the GGUF keeps) and the output
// layer, the last ngl go to the GPUs (i_gpu_start = n_layer_all + 1 − ngl; n_layer_all − ngl in
// builds before PR #18148, whose output layer then follows the blocks); each of those goes to
// the device whose cumulative --tensor-split share first exceeds (il − i_gpu_start) / ngl; the
// token embedding always stays on the CPU (read through mmap: "CPU_Mapped"); a tied head is
// token_embd duplicated on the output layer's device; --n-cpu-moe keeps the first N layers'
// expert tensors on the CPU; each layer's cache on its layer's device (offload_kqv).
struct LlamaCppDevice {
  std::string name;         // "CUDA0", "CUDA1", "ROCm0", "Metal": the backend buffer's name
  i64 first = 0, count = 0; // its repeating layers, [first, first + count) of n_layer_all
  bool output = false;      // holds the output layer (final norm, head)
  i64 model_bytes = 0;      // "<name> model buffer size"
  i64 cache_bytes = 0;      // KV and recurrent state of its layers
  i64 compute_bytes = 0;    // "<name> compute buffer size" from the followed graph (LlamaCppBuffers::compute_layers)
};
struct LlamaCppBuffers {
  i64 n_layer = 0;              // n_layer_all: repeating layers, nextn layers included
  i64 ngl = 0;                  // -ngl as llama.cpp reads it (-1: n_layer_all + 1)
  bool no_gpu = false;          // --device none, or a build without a GPU backend: every layer on the CPU, whatever -ngl
  i64 offloaded = 0;            // of n_layer + 1 (the output layer counts)
  bool output_first = true;     // -ngl's order (--llamacpp-offload): the output layer first (PR #18148) or last
  bool output_on_gpu = false;
  bool even_split = true;       // no --tensor-split: shares by free memory, taken as equal on identical cards
  std::vector<float> splits;    // cumulative normalized shares, llama.cpp's split points (float, as it computes them)
  std::vector<LlamaCppDevice> devices;  // one per GPU (pipeline stage)
  std::vector<int> layer_device;  // per repeating layer: the index in `devices`, −1 for the CPU
  i64 cpu_mapped_bytes = 0;     // the tensors on the CPU: "CPU_Mapped model buffer size" when that is the token embedding alone
  bool cpu_span = false;        // other tensors on the CPU too (-ngl, --n-cpu-moe), some on a GPU: llama.cpp's CPU line is
                                // then the mapped file span from their first to their last (GGUF tensor order), or a
                                // CPU_REPACK buffer; with none on a GPU the span is every tensor
  i64 cpu_cache_bytes = 0;      // cache of the layers left on the CPU
  // What the CPU reads of its tensors in a decode step (the throughput's host share): the
  // tensors of its layers and of the output layer when it holds that, read whole; its routed
  // experts (its layers', or --n-cpu-moe's), of which a step reads those its tokens chose. The
  // token embedding (a lookup of a row a token) is not in either.
  i64 cpu_read_bytes = 0;
  i64 cpu_expert_bytes = 0;
  std::string output_buffer;    // "CUDA_Host", "ROCm_Host" or "CPU": the host buffer of the output layer's device
  std::string host_buffer;      // the CPU backend's compute buffer type: the first GPU's host type ("CUDA_Host"), or "CPU" (Metal)
  i64 output_buffer_bytes = 0;  // llama_context::output_reserve(n_seq_max): the logits of n_seq_max rows, f32
  // The compute buffers ("<name> compute buffer size"), where they are modelled: each GPU's from
  // the followed graph (compute_layers), else the output device's head bound; the host's (the CPU
  // backend's nodes and inputs, in host_buffer's type). 0: not modelled.
  bool sched_reserve = true;    // the compute lines' prefix: "sched_reserve:" (2026 builds, PR #18547) or "llama_context:"
  i64 compute_tokens = 0;       // n_tokens of the reserved graph: min(n_ctx, n_ubatch)
  i64 compute_outputs = 0;      // its outputs: every token for a library caller, one a slot for llama-server
  i64 output_compute_bytes = 0; // the output device's compute buffer, where modelled
  bool compute_layers = false;  // from every layer of the graph through ggml's allocator; else the head alone (logits and lm_head's input), which no layer passes
  // `d`'s compute buffer where modelled (else 0): each device's from the followed graph, or the
  // output device's head bound.
  i64 compute_of(const LlamaCppDevice& d) const { return compute_layers ? d.compute_bytes : d.output ? output_compute_bytes : 0; }
  bool compute_on(const LlamaCppDevice& d) const { return compute_of(d) > 0; }
  int splits_pp = 0, splits_tg = 0;  // "graph splits": the scheduler's splits of the ubatch's graph and of one token's, where the layers are followed
  int graph_nodes = 0;          // the ubatch graph's nodes, views included (not printed: exact for some builds' graphs only)
  i64 host_compute_bytes = 0;   // token ids, positions, output ids (int32), token embeddings n × n_embd f32, each KQ mask
  i64 gpu_model_bytes() const;  // over the devices
  i64 gpu_cache_bytes() const;
  // The host's memory. host_self_bytes: the "Host" row of llama.cpp's exit table
  // (common_memory_breakdown_print: self = model + context + compute over the host buffer types,
  // i.e. the mapped weights, the caches of the CPU's layers and the CPU backend's compute buffer).
  // host_bytes: that and the output buffer (pinned host memory, which the table leaves out).
  i64 host_self_bytes() const { return cpu_mapped_bytes + cpu_cache_bytes + host_compute_bytes; }
  i64 host_bytes() const { return host_self_bytes() + output_buffer_bytes; }
  // Whether the CPU computes layers (no GPU, or layers or experts left on it): its kernels may
  // then repack some tensor types into a CPU_REPACK buffer of their own, not counted here.
  bool cpu_computes_layers() const;
};
// The worst-case graph of a decoder over its devices (llm_build_llama, qwen2,
// qwen3, qwen3moe, openai_moe_iswa; engine_llamacpp_graph.cpp): its shape, and the two compute buffers ggml's graph
// allocator sizes for it. Empty where a size would pass 2^50 bytes.
// One layer's weights as stored, in bytes (those on the CPU are copied to the GPU where the
// scheduler offloads their ops); zero where the layer has none.
struct LlamaCppLayerWeights {
  i64 attn_norm = 0, wq = 0, wk = 0, wv = 0, bq = 0, bk = 0, bv = 0, q_norm = 0, k_norm = 0, wo = 0, bo = 0, sinks = 0;
  i64 attn_post_norm = 0, ffn_post_norm = 0;  // Gemma's norms after the attention and after the FFN
  i64 ffn_norm = 0, gate = 0, up = 0, down = 0, router = 0, router_b = 0, gate_exps = 0, up_exps = 0, down_exps = 0;
  i64 gate_exps_b = 0, up_exps_b = 0, down_exps_b = 0;  // gpt-oss's experts' biases (ggml_add_id)
  // A Gated DeltaNet layer's (Qwen3.5's GGUF names): attn_qkv, attn_gate (z), ssm_beta, ssm_alpha,
  // ssm_conv1d, ssm_dt (its bias), ssm_a, ssm_norm, ssm_out.
  i64 lin_qkv = 0, lin_z = 0, lin_beta = 0, lin_alpha = 0, lin_conv = 0, lin_dt = 0, lin_a = 0, lin_norm = 0, lin_out = 0;
  i64 shexp_gate = 0;  // Qwen3.5-MoE's shared expert's gate (ffn_gate_inp_shexp); its matrices are gate, up and down above
};
struct LlamaCppGraphShape {
  i64 d_model = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, d_ff = 0, n_layer = 0, vocab = 0;
  i64 tokens = 0;   // n_tokens of the reserved ubatch: min(n_ctx, n_ubatch)
  i64 n_kv = 0;     // the cache's cells of one stream (the KQ mask's columns)
  // The cache's streams (-np N without -kvu): each stream's share of the ubatch attends over its
  // own n_kv cells, so the mask and the scores are those of one stream over all n_tokens.
  i64 n_stream = 1;
  // An iswa cache (llama_kv_cache_iswa): the SWA cache's cells and which layers use it (empty:
  // none); build_attn_inp_kv_iswa's second set of inputs (row indices, the SWA mask).
  i64 n_kv_swa = 0;
  std::vector<bool> layer_swa;
  i64 outputs = 0;  // n_outputs: the rows the last layer and the head keep
  bool qk_norm = false, qkv_bias = false;  // Qwen3's q/k RMSNorm, Qwen2's projection biases
  i64 pos_per_token = 1;  // build_inp_pos's positions per token (hparams.n_pos_per_embd): 4 under M-RoPE (qwen2vl's ggml_rope_multi)
  bool o_bias = false, sinks = false;      // gpt-oss: the output projection's bias, a sink logit per head
  // Gemma (llm_build_gemma2_iswa, llm_build_gemma3_iswa): the embeddings scaled by sqrt(n_embd),
  // Q scaled after rope, a norm after the attention and after the FFN; Gemma 2's soft-capping of
  // the attention scores (eager attention) and of the logits.
  bool embd_scale = false, q_scale = false, post_norms = false, attn_softcap = false, final_softcap = false;
  // A MoE FFN in every layer (build_moe_ffn: softmax router, top n_expert_used renormalized, no
  // shared expert); n_expert 0: the dense FFN of d_ff.
  i64 n_expert = 0, n_expert_used = 0, expert_ffn = 0;
  // gpt-oss's build_moe_ffn (llm_build_openai_moe_iswa): the router's bias, SOFTMAX_WEIGHT gating
  // (softmax over the chosen experts' logits, no renormalization), each expert matmul's bias
  // (ggml_add_id), ggml_swiglu_oai.
  bool moe_oai = false;
  // Qwen3.5 (llm_build_qwen35 with llm_build_delta_net_base's fused path, builds 8399 to 8641):
  // which layers are Gated DeltaNet (empty: none, the graphs above), their heads (ssm_n_group key
  // heads, ssm_dt_rank value heads, of gdn_k_dim and gdn_v_dim), the convolution's width
  // (ssm_d_conv); the other layers are full attention with Q's output gate (Q and the gate from
  // one matmul), q/k norms and M-RoPE. The reserved ubatch's sequences (n_seqs: n_seq_max, each
  // of n_tokens / n_seqs tokens) and the recurrent state's cells (n_rs).
  std::vector<bool> layer_linear;
  i64 gdn_k_heads = 0, gdn_v_heads = 0, gdn_k_dim = 0, gdn_v_dim = 0, gdn_conv = 0;
  i64 n_seqs = 1, n_rs = 1;
  // Qwen3.5-MoE (llm_build_qwen35moe): build_moe_ffn's softmax path (n_expert above) and a shared
  // expert of this width scaled by sigmoid(ffn_gate_inp_shexp · x); 0: none.
  i64 shexp_ffn = 0;
  bool flash = true;   // flash attention: the mask's type, and V's index input (n_tokens, or n_tokens × n_embd_v_gqa transposed)
  bool layers = true;  // the layers and the head followed; else the host's buffer alone
  LlamaCppGraph graph = LlamaCppGraph::F16Mask;
  // Where the tensors are: each layer's device (−1 the CPU; empty: every layer on device 0), the
  // output layer's; token_embd on the CPU. No devices: a build without a GPU backend, the CPU the
  // scheduler's one backend (every tensor and op there).
  int n_devices = 1;
  std::vector<int> layer_device;
  int output_device = 0;
  std::vector<LlamaCppLayerWeights> layer_weights;  // per layer; empty: all zero (every layer on the GPU needs none)
  i64 experts_cpu_first = 0, experts_cpu_count = 0;  // layers whose routed experts stay on the CPU (--n-cpu-moe N: [0, N))
  bool ffn_cpu_all = false;  // in those layers every FFN tensor (ffn_norm, the router too), as -ot "blk\.N\.ffn.*=CPU" keeps them
  i64 token_embd = 0, output_norm = 0, output = 0;   // bytes as stored
  i64 k_cell_bytes = 0, v_cell_bytes = 0;            // a layer's cache bytes per cell (0: f16, n_kv_heads · head_dim · 2)
  // A quantized cache's Hadamard rotations (PR #21038; the 2026-04 graph and later): the width of
  // the [n, n] f32 matrix K's (q and k rotated before the cache) and V's (v, and the attention's
  // output) are multiplied by, each cache's an input; 0: not rotated.
  i64 rot_k = 0, rot_v = 0;
};
struct LlamaCppCompute {
  std::vector<i64> devices;  // each GPU's "CUDAi compute buffer size"
  i64 device_bytes = 0;  // "CUDA0 compute buffer size"
  i64 host_bytes = 0;    // "CUDA_Host compute buffer size": the inputs and the token embeddings
  int splits = 0;        // "graph splits = N (with bs=n_tokens)": the scheduler's splits of that graph
  int nodes = 0;         // the model graph's nodes (views included), before the scheduler's copies: "graph nodes = N"
};
std::optional<LlamaCppCompute> llamacpp_graph_compute(const LlamaCppGraphShape& shape);

// The buffers for `w` on w.pp devices of `gpu` (llama.cpp's default --split-mode layer: a device
// per pipeline stage, w.tensor_split their shares). Fails, naming the field, for tensor
// parallelism (--split-mode row is not modelled) and for more than one Metal device.
// With `file`, the model buffers hold a model file's bytes (file_weights.hpp).
Result<LlamaCppBuffers> llamacpp_buffers(const ModelConfig& cfg, const Inventory& inv, const LlamaCppMemory& m,
                                         const Workload& w, const Gpu& gpu, const FileWeights* file = nullptr);
// load_tensors' and the output buffer's lines for those buffers.
std::vector<std::string> llamacpp_buffer_log(const LlamaCppBuffers& b);
// The compute buffer lines llama.cpp prints after the caches' (the modelled ones).
std::vector<std::string> llamacpp_compute_log(const LlamaCppBuffers& b);
// "layers 0 to 21 and the output layer", "no layers": what a device holds, in words.
std::string llamacpp_layers_text(const LlamaCppDevice& d, Lang lang = Lang::En);  // "layers 0 to 15 and the output layer"
// What those lines leave out, in words: each device's layers and bytes (several devices), the
// cache left on the CPU, the compute buffers not modelled. For the CLI's text and the UI.
std::vector<std::string> llamacpp_buffer_notes(const LlamaCppBuffers& b, ByteUnit unit, Lang lang = Lang::En);

// The memory llama-server allocates for `cfg` under `w` (seq = n_ctx, the llama.cpp flags of the
// workload, kv_dtype as -ctk/-ctv). `plan` is the model's plan at w's KV dtype (whole-model
// figures are read). Fails, naming the field, where llama.cpp would refuse the flags or where
// its memory for this model is not modelled (DeepSeek-V3.2's DSA cache).
Result<LlamaCppMemory> llamacpp_memory(const ModelConfig& cfg, const LayerPlan& plan, const Workload& w);

// The lines llama.cpp prints for that memory, as it formats them; with `b`, each cache's buffer
// per device first ("CPU", "CUDA0", … in name order, as llama_kv_cache's ctx_map sorts them).
std::vector<std::string> llamacpp_log(const LlamaCppMemory& m, KvDtype t, const LlamaCppBuffers* b = nullptr);

}  // namespace llmsize::core

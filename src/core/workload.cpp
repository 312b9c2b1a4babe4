// The workload field table, strict text get/set and validate() (see workload.hpp).
#include "workload.hpp"

#include <algorithm>

#include "gpus.hpp"
#include "text_value.hpp"

namespace llmsize::core {

namespace {

using Names = std::vector<std::string_view>;

const Names kModes = {"inference", "training"};
const Names kFormats = {"fp32",   "bf16",   "fp16",   "fp8",    "fp8-block", "int8",   "gptq-int4", "gptq-int3",
                        "gptq-int8", "awq-int4", "nf4", "nf4-dq", "mxfp4",    "q8_0",   "q6_k",      "q5_k_m",
                        "q5_k_s", "q5_k",   "q5_0",   "q4_k_m", "q4_k_s",    "q4_k",   "q4_0",      "q3_k_l",
                        "q3_k_m", "q3_k_s", "q3_k",   "q2_k",   "iq4_xs",    "mxfp4_moe"};
const Names kKeep = {"auto", "yes", "no"};
const Names kKv = {"bf16", "fp16", "fp32", "fp8", "q8_0", "q4_0"};
const Names kLogits = {"last", "all"};
const Names kRuntimes = {"pytorch", "vllm", "llamacpp", "none"};
const Names kDtypes = {"bf16", "fp16", "fp32"};
const Names kOptimizers = {"adamw", "adamw8bit", "sgd", "sgdm", "adafactor", "lion"};
const Names kStates = {"fp32", "bf16"};
const Names kPrecisions = {"mixed", "pure", "fp32"};
const Names kGrads = {"auto", "fp32", "bf16", "fp16"};
const Names kSharding = {"0", "1", "2", "3", "fsdp"};
const Names kRecompute = {"none", "selective", "full"};
const Names kLoraTargets = {"q", "k", "v", "o", "gate", "up", "down"};
const Names kBool = {"0", "1"};

std::string join_names(const Names& n) {
  std::string s;
  for (auto v : n) s += (s.empty() ? "" : ", ") + std::string(v);
  return s;
}
std::string quoted(std::string_view t) { return "\"" + std::string(t.substr(0, 40)) + "\""; }

std::optional<Issue> set_int(i64& dst, std::string_view key, std::string_view text, i64 lo, i64 hi) {
  auto v = parse_int(text);
  if (!v || *v < lo || *v > hi)
    return Issue{std::string(key), "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                       "], got " + quoted(text)};
  dst = *v;
  return std::nullopt;
}
std::optional<Issue> set_real(double& dst, std::string_view key, std::string_view text, double lo, double hi) {
  auto v = parse_real(text);
  if (!v || !(*v > lo && *v <= hi))
    return Issue{std::string(key), "must be a number in (" + format_real(lo) + ", " + format_real(hi) + "], got " +
                                       quoted(text)};
  dst = *v;
  return std::nullopt;
}
std::optional<Issue> set_bool(bool& dst, std::string_view key, std::string_view text) {
  auto v = parse_bool(text);
  if (!v) return Issue{std::string(key), "must be 0 or 1, got " + quoted(text)};
  dst = *v;
  return std::nullopt;
}
template <class E>
std::optional<Issue> set_enum(E& dst, std::string_view key, std::string_view text, const Names& names) {
  auto it = std::find(names.begin(), names.end(), text);
  if (it == names.end()) return Issue{std::string(key), "must be one of " + join_names(names) + ", got " + quoted(text)};
  dst = static_cast<E>(it - names.begin());
  return std::nullopt;
}

std::string flags_text(std::uint32_t bits, const Names& names) {
  if (bits == (1u << names.size()) - 1) return "all";
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    if (bits & (1u << i)) s += (s.empty() ? "" : ",") + std::string(names[i]);
  return s;
}
std::optional<Issue> set_flags(std::uint32_t& dst, std::string_view key, std::string_view text, const Names& names) {
  auto bad = [&] {
    return Issue{std::string(key), "must be \"all\" or a comma-separated subset of " + join_names(names) + ", got " +
                                       quoted(text)};
  };
  if (text == "all") {
    dst = (1u << names.size()) - 1;
    return std::nullopt;
  }
  std::uint32_t bits = 0;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    auto it = std::find(names.begin(), names.end(), item);
    if (it == names.end()) return bad();
    const std::uint32_t bit = 1u << (it - names.begin());
    if (bits & bit) return bad();  // duplicates are refused, not merged
    bits |= bit;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  dst = bits;
  return std::nullopt;
}

Names gpu_ids() {
  Names ids;
  for (const auto& g : gpu_catalog()) ids.push_back(g.id);
  return ids;
}

constexpr i64 kMaxTokens = i64{1} << 27;  // = max_position_embeddings' bound (model.cpp)

#define WF(KEY, FLAG, LABEL, HELP, KIND, SCOPE) \
  WorkloadField { KEY, FLAG, LABEL, HELP, FieldKind::KIND, FieldScope::SCOPE
#define INT_F(KEY, FLAG, LABEL, HELP, SCOPE, MEMBER, LO, HI)                                  \
  WF(KEY, FLAG, LABEL, HELP, Int, SCOPE), LO, HI, 0, 0, {},                                   \
      [](const Workload& w) { return std::to_string(w.MEMBER); },                             \
      [](Workload& w, std::string_view t) { return set_int(w.MEMBER, KEY, t, LO, HI); }       \
  }
#define REAL_F(KEY, FLAG, LABEL, HELP, SCOPE, MEMBER, LO, HI)                                 \
  WF(KEY, FLAG, LABEL, HELP, Real, SCOPE), 0, 0, LO, HI, {},                                  \
      [](const Workload& w) { return format_real(w.MEMBER); },                                \
      [](Workload& w, std::string_view t) { return set_real(w.MEMBER, KEY, t, LO, HI); }      \
  }
#define BOOL_F(KEY, FLAG, LABEL, HELP, SCOPE, MEMBER)                                         \
  WF(KEY, FLAG, LABEL, HELP, Bool, SCOPE), 0, 1, 0, 0, kBool,                                 \
      [](const Workload& w) { return std::string(w.MEMBER ? "1" : "0"); },                    \
      [](Workload& w, std::string_view t) { return set_bool(w.MEMBER, KEY, t); }              \
  }
#define ENUM_F(KEY, FLAG, LABEL, HELP, SCOPE, MEMBER, NAMES)                                  \
  WF(KEY, FLAG, LABEL, HELP, Enum, SCOPE), 0, 0, 0, 0, NAMES,                                 \
      [](const Workload& w) { return std::string(NAMES[static_cast<size_t>(w.MEMBER)]); },    \
      [](Workload& w, std::string_view t) { return set_enum(w.MEMBER, KEY, t, NAMES); }       \
  }

std::vector<WorkloadField> build_fields() {
  static const Names gpus = gpu_ids();
  return {
      ENUM_F("mode", "--mode", "Mode", "inference (serving) or training (pre-training / fine-tuning)", Both, mode,
             kModes),
      INT_F("seq", "--seq", "Context length",
            "tokens per sequence: prompt + generated for inference, the sequence length for training", Both, seq, 1,
            kMaxTokens),
      INT_F("batch", "--batch", "Batch",
            "concurrent sequences (inference) or micro-batch size per GPU (training)", Both, batch, 1, 1 << 20),
      ENUM_F("dtype", "--dtype", "Compute dtype",
             "activation dtype; also the dtype of weights kept unquantized", Both, dtype, kDtypes),
      BOOL_F("flash", "--flash", "Flash attention",
             "a fused attention kernel that never stores the b·H·s² score matrix", Both, flash_attention),
      WF("gpu", "--gpu", "GPU", "the accelerator, from the GPU catalog", Enum, Both), 0, 0, 0, 0, gpus,
          [](const Workload& w) { return w.gpu; },
          [](Workload& w, std::string_view t) -> std::optional<Issue> {
            if (std::find(gpus.begin(), gpus.end(), t) == gpus.end())
              return Issue{"gpu", "must be one of " + join_names(gpus) + ", got " + quoted(t)};
            w.gpu = std::string(t);
            return std::nullopt;
          }},
      INT_F("gpus", "--gpus", "GPUs", "GPUs in total; data-parallel replicas = gpus / (tp · pp)", Both, gpus, 1,
            1 << 20),
      INT_F("tp", "--tp", "Tensor parallel", "GPUs that split every layer's heads and FFN width", Both, tp, 1, 65536),
      INT_F("pp", "--pp", "Pipeline parallel", "pipeline stages, each holding consecutive layers", Both, pp, 1,
            10000),
      INT_F("exp", "--ep", "Expert parallel", "GPUs that split the routed experts (must divide dp · tp)", Both, ep, 1,
            65536),
      REAL_F("mfu", "--utilization", "Utilization",
             "fraction of peak FLOP/s reached, for prefill and training time", Both, utilization, 0.0, 1.0),

      ENUM_F("w", "--weights", "Weight format",
             "storage of the weights: float, fp8, int8, GPTQ/AWQ, bitsandbytes NF4, MXFP4 or a GGUF file type",
             Inference, weights, kFormats),
      INT_F("g", "--group-size", "Quant group", "GPTQ/AWQ group size: input rows sharing one scale and zero",
            Inference, group_size, 8, 1 << 20),
      ENUM_F("kemb", "--keep-embedding", "Keep embeddings",
             "auto: the format's convention; yes: keep in the compute dtype; no: quantize", Inference, keep_embedding,
             kKeep),
      ENUM_F("khead", "--keep-head", "Keep LM head",
             "auto: the format's convention; yes: keep in the compute dtype; no: quantize", Inference, keep_head, kKeep),
      ENUM_F("krouter", "--keep-router", "Keep router",
             "auto: the format's convention; yes: keep in the compute dtype; no: quantize", Inference, keep_router,
             kKeep),
      ENUM_F("kvt", "--kv-dtype", "KV cache dtype", "element type of the KV cache", Inference, kv_dtype, kKv),
      INT_F("chunk", "--prefill-chunk", "Prefill chunk",
            "prompt tokens per prefill step (chunked prefill); 0 = the whole prompt at once", Inference, prefill_chunk,
            0, kMaxTokens),
      ENUM_F("logits", "--logits", "Logits", "fp32 logits for the last position only or for all positions",
             Inference, logits, kLogits),
      ENUM_F("rt", "--runtime", "Runtime",
             "runtime reserve profile: PyTorch/Transformers, vLLM (within gpu_memory_utilization), llama.cpp, none",
             Inference, runtime, kRuntimes),
      INT_F("reserve", "--reserve-mib", "Runtime reserve (MiB)",
            "CUDA context, allocator and graph memory per GPU in MiB; -1 = the runtime profile's default", Both,
            reserve_mib, -1, 1 << 24),
      REAL_F("util", "--gpu-mem-util", "GPU memory utilization",
             "vLLM gpu_memory_utilization: the share of each GPU's memory vLLM may use", Inference, gpu_mem_util,
             0.0, 1.0),

      ENUM_F("opt", "--optimizer", "Optimizer", "AdamW, 8-bit AdamW, SGD, SGD with momentum, Adafactor or Lion",
             Training, optimizer, kOptimizers),
      ENUM_F("ostate", "--opt-dtype", "Optimizer state dtype", "dtype of the optimizer states (not 8-bit AdamW)",
             Training, opt_state, kStates),
      ENUM_F("prec", "--precision", "Precision",
             "mixed: 16-bit weights + fp32 master; pure: 16-bit only; fp32: fp32 weights (autocast with a 16-bit dtype)",
             Training, precision, kPrecisions),
      ENUM_F("gdt", "--grad-dtype", "Gradient dtype", "dtype of the gradients; auto = the weights' dtype", Training,
             grad_dtype, kGrads),
      INT_F("accum", "--grad-accum", "Gradient accumulation", "micro-batches per optimizer step", Training,
            grad_accum, 1, 1 << 20),
      ENUM_F("zero", "--zero", "ZeRO / FSDP",
             "sharding over data parallel: ZeRO stage 0-3, or fsdp (FULL_SHARD, like stage 3)", Training, sharding,
             kSharding),
      BOOL_F("sp", "--seq-parallel", "Sequence parallel",
             "Megatron sequence parallelism: norms and dropout split along the sequence across tp", Training,
             seq_parallel),
      ENUM_F("rc", "--recompute", "Recomputation",
             "none, selective (attention core recomputed) or full (only layer inputs kept)", Training, recompute,
             kRecompute),
      BOOL_F("dropout", "--dropout", "Dropout", "dropout layers present: their masks are saved for backward",
             Training, dropout),
      INT_F("lora", "--lora-rank", "LoRA rank", "rank r of the LoRA adapters; 0 = full fine-tuning", Training,
            lora_rank, 0, 65536),
      WF("lt", "--lora-targets", "LoRA targets", "adapted matrices: all, or a subset of q,k,v,o,gate,up,down", Flags,
         Training), 0, 0, 0, 0, kLoraTargets,
          [](const Workload& w) { return flags_text(w.lora_targets, kLoraTargets); },
          [](Workload& w, std::string_view t) { return set_flags(w.lora_targets, "lt", t, kLoraTargets); }},
      BOOL_F("qlora", "--qlora", "QLoRA",
             "frozen base in NF4 with double quantization, bf16 compute copies, paged optimizer", Training, qlora),
      INT_F("tokens", "--train-tokens", "Training tokens", "tokens to train on; 0 = Chinchilla-optimal 20·P",
            Training, train_tokens, 0, i64{1} << 53),
  };
}

}  // namespace

bool is_gguf(WeightFormat f) { return f >= WeightFormat::Q8_0; }

const std::vector<WorkloadField>& workload_fields() {
  static const std::vector<WorkloadField> fields = build_fields();
  return fields;
}

const WorkloadField* find_field(std::string_view key) {
  for (const auto& f : workload_fields())
    if (f.key == key) return &f;
  return nullptr;
}

const WorkloadField* find_field_by_flag(std::string_view flag) {
  for (const auto& f : workload_fields())
    if (f.flag == flag) return &f;
  return nullptr;
}

std::string allowed_text(const WorkloadField& f) {
  return allowed_text(f.kind, f.choices, f.min_int, f.max_int, f.min_real, f.max_real);
}

std::vector<Issue> validate(const Workload& w) {
  std::vector<Issue> out;
  // Every field's own range, through the same strict parser the CLI and links use.
  for (const auto& f : workload_fields()) {
    Workload copy = w;
    if (auto issue = f.set(copy, f.get(w))) out.push_back(*issue);
  }
  if (!out.empty()) return out;
  const i64 tp_pp = w.tp * w.pp;  // both ≤ 65536 and 10000: no overflow
  if (w.gpus % tp_pp != 0) {
    out.push_back({"gpus", "must be a multiple of tp × pp = " + std::to_string(tp_pp) + ", got " +
                               std::to_string(w.gpus)});
    return out;
  }
  const i64 dp_tp = w.dp() * w.tp;
  if (dp_tp % w.ep != 0)
    out.push_back({"exp", "must divide dp × tp = " + std::to_string(dp_tp) + " (dp = gpus / (tp × pp)), got " +
                              std::to_string(w.ep)});
  if (w.qlora && w.lora_rank == 0) out.push_back({"lora", "QLoRA needs a LoRA rank of at least 1, got 0"});
  if (w.lora_targets == 0 || w.lora_targets > kLoraAll)
    out.push_back({"lt", "must name at least one of q,k,v,o,gate,up,down"});
  return out;
}

std::string_view to_string(Mode m) { return kModes[static_cast<size_t>(m)]; }
std::string_view to_string(WeightFormat f) { return kFormats[static_cast<size_t>(f)]; }
std::string_view to_string(Keep k) { return kKeep[static_cast<size_t>(k)]; }
std::string_view to_string(KvDtype k) { return kKv[static_cast<size_t>(k)]; }
std::string_view to_string(LogitsMode l) { return kLogits[static_cast<size_t>(l)]; }
std::string_view to_string(Runtime r) { return kRuntimes[static_cast<size_t>(r)]; }
std::string_view to_string(ComputeDtype d) { return kDtypes[static_cast<size_t>(d)]; }
std::string_view to_string(Optimizer o) { return kOptimizers[static_cast<size_t>(o)]; }
std::string_view to_string(StateDtype d) { return kStates[static_cast<size_t>(d)]; }
std::string_view to_string(Precision p) { return kPrecisions[static_cast<size_t>(p)]; }
std::string_view to_string(GradDtype g) { return kGrads[static_cast<size_t>(g)]; }
std::string_view to_string(Sharding s) { return kSharding[static_cast<size_t>(s)]; }
std::string_view to_string(Recompute r) { return kRecompute[static_cast<size_t>(r)]; }
i64 dtype_bytes(ComputeDtype d) { return d == ComputeDtype::F32 ? 4 : 2; }

}  // namespace llmsize::core

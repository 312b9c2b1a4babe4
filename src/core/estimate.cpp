// estimate(): validation, then parameters, inference and training memory, throughput
// (see estimate.hpp). Explanations are built by explain() in explain.cpp.
#include "estimate.hpp"

#include <cmath>

#include "format.hpp"
#include "placement.hpp"

namespace llmsize::core {

const char* bound_text(Bound b, Lang lang) {
  switch (b) {
    case Bound::Exact: return tr(Str::bound_exact, lang);
    case Bound::Lower: return tr(Str::bound_lower, lang);
    case Bound::Upper: return tr(Str::bound_upper, lang);
    case Bound::Estimate: return tr(Str::bound_estimate, lang);
  }
  return tr(Str::bound_estimate, lang);
}

std::string_view to_string(Bound b) { return bound_text(b, Lang::En); }

Result<PreparedModel> prepare(const ModelConfig& cfg) {
  if (auto issues = validate(cfg); !issues.empty()) return issues;
  auto inv = build_inventory(cfg);
  if (!inv) return inv.issues();
  auto params = count_params(cfg, *inv);
  if (!params) return params.issues();
  PreparedModel m;
  m.cfg = cfg;
  m.inventory = std::make_shared<const Inventory>(std::move(inv).value());
  m.params = std::move(params).value();
  return m;
}

Result<const LayerPlan*> PreparedModel::plan_for(const Workload& w) const {
  const PlanKey key{w.kv_dtype, w.tp, dtype_bytes(w.dtype)};
  for (const auto& [k, p] : plans)
    if (k == key) return &p;
  auto plan = layer_plan(cfg, key.kv, key.tp, key.act_bytes);
  if (!plan) return plan.issues();
  constexpr size_t kKeep = 8;  // a UI session uses one or two; the GPU table and Scaling tab share them
  if (plans.size() >= kKeep) plans.erase(plans.begin());
  plans.emplace_back(key, std::move(plan).value());
  return &plans.back().second;
}

namespace {
// The workload's GPU: the catalog's entry itself when the workload takes it as it is (no copy:
// estimate() runs every frame), else the custom or amended card, kept in `own`.
Result<const Gpu*> the_gpu(const Workload& w, std::optional<Gpu>& own) {
  if (!gpu_amended(w))
    if (const Gpu* g = find_gpu(w.gpu)) return g;
  auto g = gpu_of(w);
  if (!g) return g.issues();
  own = std::move(g).value();
  return &*own;
}
}  // namespace

Result<Estimate> estimate(const ModelConfig& cfg, const Workload& w) {
  // Both inputs' issues at once, then the workload's fit to the model, then what only building
  // the model finds (sizes that overflow): the order a user fixes them in.
  std::vector<Issue> issues = validate(cfg);
  for (auto& i : validate(w)) issues.push_back(std::move(i));
  if (!issues.empty()) return issues;
  std::optional<Gpu> own;
  if (auto g = the_gpu(w, own); !g) return g.issues();
  if (auto p = placement::check_parallel(cfg, w); !p.empty()) return p;
  auto m = prepare(cfg);
  if (!m) return m.issues();
  return estimate(*m, w);
}

Result<Estimate> estimate(const PreparedModel& m, const Workload& w) {
  const ModelConfig& cfg = m.cfg;
  if (auto issues = validate(w); !issues.empty()) return issues;
  std::optional<Gpu> own;
  const auto found = the_gpu(w, own);
  if (!found) return found.issues();
  const Gpu* gpu = found.value();
  if (auto p = placement::check_parallel(cfg, w); !p.empty()) return p;
  const Inventory& inv = *m.inventory;
  auto plan = m.plan_for(w);
  if (!plan) return plan.issues();
  Estimate e;
  e.gpu = *gpu;
  e.dp = w.dp();
  auto inf = inference_memory(cfg, inv, **plan, w, *gpu, {m.file.get(), m.projector_bytes});
  e.projector_bytes = m.projector_bytes;
  if (!inf) return inf.issues();
  if (m.file) {
    auto f = weights_report(cfg, inv, w);
    if (!f) return f.issues();
    e.format_weights = std::move(f).value();
  }
  if (m.file_refused) e.notes.push_back(*m.file_refused);
  auto tr = training_memory(cfg, inv, **plan, w, *gpu);
  if (!tr) return tr.issues();
  // Different cards per llama.cpp device: the fit is the least roomy device's, shown on its card;
  // decode and prefill bounds take the fastest card (layers run one device after another, so
  // no device reads or computes faster than that: still an upper bound on the rate).
  const Gpu* rate_gpu = gpu;
  std::optional<Gpu> fastest;
  if (!w.devices.empty()) {
    auto binding = stage_gpu(w, inf->stage);
    if (!binding) return binding.issues();
    e.gpu = std::move(binding).value();
    for (i64 st = 0; st < w.pp; ++st)
      if (auto g = stage_gpu(w, st)) {
        if (!fastest) {
          fastest = std::move(g).value();
          continue;
        }
        fastest->bandwidth_gbs = std::max(fastest->bandwidth_gbs, g->bandwidth_gbs);
        fastest->bf16_tflops = std::max(fastest->bf16_tflops, g->bf16_tflops);
        fastest->fp8_tflops = std::max(fastest->fp8_tflops, g->fp8_tflops);
      }
    if (fastest) rate_gpu = &*fastest;
  }
  e.inventory = m.inventory;
  e.params = m.params;
  e.plan = **plan;
  e.inference = std::move(inf).value();
  e.training = std::move(tr).value();
  if (w.runtime == Runtime::LlamaCpp && w.mode == Mode::Inference) {
    // What llama-server would allocate for -c seq · batch (the slots share n_ctx, as the inference
    // figures take it); where it would refuse the flags, a note names them.
    Workload x = w;
    const Checked n_ctx = Checked(w.seq) * w.batch;
    x.seq = n_ctx.value();
    if (!n_ctx.ok()) {
      e.notes.push_back(issue("batch", [](Lang l) { return std::string(core::tr(Str::note_llamacpp_ctx_overflow, l)); }));
    } else if (auto lm = llamacpp_memory(cfg, **plan, x)) {
      e.llamacpp = std::move(lm).value();
      if (auto dev = llamacpp_buffers(cfg, inv, *e.llamacpp, x, *gpu, m.file.get())) e.llamacpp_devices = std::move(dev).value();
      else e.notes.push_back(dev.issues().front());  // tensor parallelism, several Metal devices: said, not guessed
      // On unified memory the GPU's buffers come out of the host's memory too (one device: Metal
      // and the CPU alone take no more). ref: ggml-cuda.cu ggml_cuda_init sets every device's
      // `integrated = false` (PR #16308, 2025-09) and get_props has no buffer_from_host_ptr, so on
      // a GB10 the offloaded weights, the cache and the compute buffer are cudaMalloc'd out of the
      // system's memory beside the host's CPU_Mapped and CUDA_Host buffers; its exit table's total
      // is that whole pool (cudaMemGetInfo), its free /proc/meminfo's MemAvailable (PR #17368).
      if (e.llamacpp_devices && e.gpu.unified && !w.llamacpp_on_host() && w.pp == 1)
        e.unified_bytes = sat_add(e.inference.total_bytes, e.llamacpp_devices->host_bytes());
      if (e.llamacpp_devices && w.host_mem_gib > 0) {
        e.host_capacity_bytes = w.host_mem_bytes();
        e.host_fits = (e.unified_bytes > 0 ? e.unified_bytes : e.llamacpp_devices->host_bytes()) <= e.host_capacity_bytes;
      }
    } else {
      e.notes.push_back(lm.issues().front());
    }
  }
  // The rates, llama.cpp's CPU reading its own share of a step.
  auto th = throughput(cfg, inv, **plan, m.params, w, *rate_gpu, e.inference.weights,
                       e.llamacpp_devices ? &*e.llamacpp_devices : nullptr);
  if (!th) return th.issues();
  e.throughput = std::move(th).value();
  if (w.runtime == Runtime::Vllm && w.mode == Mode::Inference) {
    // What vllm serve would budget, profile and allocate; where it is not modelled, a note says why.
    if (auto vm = vllm_memory(cfg, **plan, e.inference, w, *gpu)) {
      // The fit becomes vLLM's: its budget, whether it starts and serves `batch` requests of
      // max_model_len, its concurrency, the longest max_model_len that fits one request.
      const VllmMemory& v = *(e.vllm = std::move(vm).value());
      InferenceMemory& fit = e.inference;
      fit.capacity_bytes = v.budget_bytes;
      fit.fits = v.error.empty() && v.max_concurrency >= static_cast<double>(w.batch);
      fit.max_sequences = v.error.empty() ? static_cast<i64>(std::floor(v.max_concurrency)) : 0;
      fit.max_context = v.max_model_len_fit;
      fit.max_context_is_model_limit = v.max_model_len_fit == cfg.max_positions;
    } else {
      e.notes.push_back(vm.issues().front());
    }
  }
  if (w.runtime == Runtime::Sglang && w.mode == Mode::Inference) {
    if (auto sm = sglang_memory(cfg, **plan, e.inference, w, *gpu)) {
      // The fit becomes SGLang's: its static budget and its token pool (sequences of --context-length).
      const SglangMemory& g = *(e.sglang = std::move(sm).value());
      InferenceMemory& fit = e.inference;
      fit.capacity_bytes = static_cast<i64>(g.pre_gib * g.mem_fraction_static * 1073741824.0);
      fit.max_sequences = sglang_max_requests(g, w.seq);
      fit.fits = fit.max_sequences >= w.batch;
      // One request's longest context: the full layers' pool, and the sliding layers' pool where it
      // holds less than a window.
      const i64 longest = g.hybrid && g.swa_tokens < g.window ? std::min(g.max_total_tokens, g.swa_tokens) : g.max_total_tokens;
      fit.max_context = g.error.empty() ? std::min(longest, cfg.max_positions) : 0;  // SGLang does not start
      fit.max_context_is_model_limit = fit.max_context == cfg.max_positions;
    } else {
      e.notes.push_back(sm.issues().front());
    }
  }
  if (w.runtime == Runtime::Transformers && w.mode == Mode::Inference) {
    // What torch.cuda.max_memory_allocated() reports after model.generate(). On one GPU the fit
    // becomes that peak's, beside the runtime reserve (the CUDA context and the allocator's cache,
    // outside the figure); over several the per-GPU split is not modelled and the fit stays the estimate's.
    if (auto tm = transformers_memory(cfg, inv, w, *gpu)) {
      const TransformersMemory& t = *(e.transformers = std::move(tm).value());
      if (t.gpus == 1) {
        InferenceMemory& fit = e.inference;
        const i64 room = fit.capacity_bytes - fit.reserve_bytes;
        const TransformersFit f = transformers_fit(cfg, inv, w, *gpu, room, t);
        fit.fits = t.peak_bytes <= room;
        fit.max_context = f.max_seq;
        fit.max_context_is_model_limit = f.max_seq == cfg.max_positions;
        fit.max_sequences = f.max_batch;
      }
    } else {
      e.notes.push_back(tm.issues().front());
    }
  }
  // A context beyond the trained positions: impossible with a learned position table,
  // possible but out of distribution with rotary embeddings (needs RoPE scaling).
  if (w.seq > cfg.max_positions) {
    const Str row = cfg.pos == PosKind::Learned ? Str::note_seq_learned : Str::note_seq_trained;
    e.notes.push_back(issue("seq", [row, n = std::to_string(cfg.max_positions)](Lang l) { return printf_text(core::tr(row, l), n.c_str()); }));
  }
  return e;
}

}  // namespace llmsize::core

// Reports of a full estimate (memory, fit, throughput): one JSON object and aligned text
// tables, plus the --explain derivations (declared in report.hpp). Pure string building.
#include <algorithm>

#include "estimate.hpp"
#include "figures.hpp"
#include "format.hpp"
#include "json_util.hpp"
#include "report.hpp"
#include "report_json.hpp"
#include "text_value.hpp"

namespace llmsize::core {

namespace {
using json_util::json;

// An engine's terms as JSON rows: key, label, value, bound, formula, source.
json terms_json(const std::vector<EngineTerm>& terms) {
  json out = json::array();
  for (const auto& t : terms)
    out.push_back({{"key", t.key}, {"label", t.label}, {"value", t.value}, {"bound", t.bound}, {"formula", t.formula},
                   {"source", t.source}});
  return out;
}

std::string n(i64 v) { return with_commas(v); }

std::string rate(double v) { return v >= 100 ? fixed(v, 0) : v >= 10 ? fixed(v, 1) : fixed(v, 2); }
}  // namespace

namespace {
// The whole report as one object: every figure of the table at its key, the values that
// are not figures of their own beside them, and the figures' bounds.
json estimate_object(const ModelConfig& cfg, const Workload& w, const Estimate& e, bool with_explain) {
  json out = params_object(cfg, e.params);
  json wl = json::object();
  for (const auto& f : workload_fields()) wl[std::string(f.key)] = f.get(w);
  out["workload"] = wl;
  out["gpu"] = {{"id", e.gpu.id}, {"name", e.gpu.name}, {"memory_bytes", e.gpu.memory_bytes},
                {"cuda_total_bytes", e.gpu.cuda_total_bytes}, {"usable_bytes", e.gpu.usable_bytes()}, {"usable_fraction", e.gpu.usable_fraction}, {"bandwidth_gbs", e.gpu.bandwidth_gbs},
                {"bf16_tflops", e.gpu.bf16_tflops}, {"fp8_tflops", e.gpu.fp8_tflops}, {"source", e.gpu.source}};
  out["parallel"] = {{"gpus", w.gpus}, {"dp", e.dp}, {"tp", w.tp}, {"pp", w.pp}, {"ep", w.ep}};
  json notes = json::array();
  for (const auto& n : e.notes) notes.push_back({{"field", n.field}, {"message", n.message}});
  out["notes"] = notes;
  const InferenceMemory& m = e.inference;
  json groups = json::object();
  for (int g = 0; g < kGroupCount; ++g)
    if (static_cast<Group>(g) != Group::Mtp) groups[std::string(to_string(static_cast<Group>(g)))] = m.weights.bytes_by_group[g];
  // The per-layer plan, run-length: consecutive layers of one attention kind, window and FFN kind.
  json runs = json::array();
  for (size_t i = 0; i < e.plan.layers.size(); ++i) {
    const PlannedLayer& l = e.plan.layers[i];
    if (i > 0 && e.plan.layers[i - 1].cache == l.cache && e.plan.layers[i - 1].ffn == l.ffn) {
      runs.back()["count"] = runs.back()["count"].get<i64>() + 1;
      continue;
    }
    const CacheShape& c = e.plan.caches[static_cast<size_t>(l.cache)];
    runs.push_back({{"kind", std::string(to_string(c.kind))}, {"window", c.window},
                    {"ffn", l.ffn == FfnPlan::Moe ? "moe" : l.ffn == FfnPlan::None ? "none" : "dense"}, {"count", 1}});
  }
  out["model"]["layer_plan"] = runs;
  // KV and state by cache shape: bytes one token adds over the shape's layers (whole model).
  json by_kind = json::array();
  for (const CacheShape& c : e.plan.caches)
    by_kind.push_back({{"kind", std::string(to_string(c.kind))}, {"layers", c.layers},
                       {"bytes_per_token", c.bytes_per_token * c.layers}, {"window", c.window},
                       {"indexer_bytes_per_token", c.index_bytes_per_token * c.layers},
                       {"state_bytes_per_sequence", c.state_bytes * c.layers}});
  out["inference"] = {{"kv_bytes_per_token_gpu", m.kv_bytes_per_token_gpu},
                      {"kv_by_kind", by_kind},
                      {"reserve_bytes", m.reserve_bytes},
                      {"comm_bytes", m.comm_bytes},
                      {"prefill_chunk", m.chunk},
                      {"stage", m.stage},
                      {"stage_layers", m.stage_layers},
                      {"model_weights_bytes", m.weights.total_bytes},
                      {"model_weights_by_group", groups},
                      {"quantized_params", m.weights.quantized_params},
                      {"kept_params", m.weights.kept_params}};
  const TrainingMemory& t = e.training;
  out["training"] = {{"logits_bytes", t.logits_bytes},
                     {"activation_per_layer_bytes", t.layer.total},
                     {"activation_per_moe_layer_bytes", t.layer_moe.total},
                     {"inflight_microbatches", t.inflight},
                     {"lora_params", t.lora_params},
                     {"stage", t.stage},
                     {"stage_layers", t.stage_layers}};
  json train_stages = json::array();
  for (const TrainingStage& st : t.stages)
    train_stages.push_back({{"stage", st.stage}, {"first_layer", st.first_layer}, {"layers", st.layers}, {"params_gpu", st.params_gpu},
                      {"inflight_microbatches", st.inflight}, {"activation_bytes", st.activation_bytes},
                      {"peak_allocated_bytes", st.peak_allocated_bytes}, {"total_bytes", st.total_bytes}});
  out["training"]["stages"] = train_stages;
  out["training"]["recipe"] = {{"name", std::string(to_string(w.recipe))}};
  if (t.recipe) {  // the recipe's own peak: its phase and live tensors by group, largest first
    json parts = json::array();
    for (const RecipePart& p : t.recipe->parts)
      parts.push_back({{"label", tr(p.label, Lang::En)}, {"bytes", p.bytes}, {"formula", p.formula}, {"source", p.source}});
    out["training"]["recipe"] = {{"name", std::string(to_string(t.recipe->recipe))},
                                 {"version", t.recipe->version},
                                 {"phase", tr(recipe_phase_row(t.recipe->phase), Lang::En)},
                                 {"weights_bytes", t.recipe->weights_bytes},
                                 {"adapter_bytes", t.recipe->adapter_bytes},
                                 {"gradient_bytes", t.recipe->gradient_bytes},
                                 {"optimizer_bytes", t.recipe->optimizer_bytes},
                                 {"saved_bytes", t.recipe->saved_bytes},
                                 {"head_bytes", t.recipe->head_bytes},
                                 {"fixed_bytes", t.recipe->fixed_bytes},
                                 {"gathered_bytes", t.recipe->gathered_bytes},
                                 {"master_bytes", t.recipe->master_bytes},
                                 {"after_step_bytes", t.recipe->peak_stage() ? t.recipe->peak_stage()->after_step_bytes : 0},
                                 {"parts", parts}};
  }
  out["fit"] = {{"capacity_bytes", m.capacity_bytes},
                {"training_capacity_bytes", t.capacity_bytes},
                {"inference_fits", m.fits},
                {"training_fits", t.fits},
                {"host_fits", e.host_capacity_bytes > 0 ? json(e.host_fits) : json(nullptr)},  // llama.cpp's host buffers in --host-mem-gib
                {"max_context", m.max_context},
                {"max_context_is_model_limit", m.max_context_is_model_limit},
                {"max_sequences", m.max_sequences},
                // the CPU alone (llama.cpp without a GPU): no GPUs to count
                {"inference_min_gpus", w.llamacpp_on_host() ? json(nullptr) : json(m.min_gpus)},
                {"training_min_gpus", t.min_gpus}};
  if (e.llamacpp) {  // runtime llamacpp: what llama-server allocates and prints
    const LlamaCppMemory& l = *e.llamacpp;
    json caches = json::array();
    for (const auto& c : l.caches)
      caches.push_back({{"swa", c.swa}, {"indexer", c.indexer}, {"cells", c.cells}, {"layers", c.layers}, {"k_bytes", c.k_bytes},
                        {"v_bytes", c.v_bytes}});
    out["engine"] = {{"name", "llama.cpp"}, {"version", std::string(kLlamaCppVersion)}, {"n_ctx", l.n_ctx},
                     {"n_ctx_seq", l.n_ctx_seq}, {"n_seq", l.n_seq}, {"n_stream", l.n_stream}, {"n_ubatch", l.n_ubatch},
                     {"kv_unified", l.unified}, {"kv_cells", l.caches.empty() ? 0 : l.caches.front().cells},
                     {"swa_cells", l.iswa ? l.caches.back().cells : 0}, {"kv_bytes", l.kv_bytes()}, {"caches", caches},
                     {"recurrent_cells", l.rs_cells}, {"recurrent_bytes", l.r_bytes + l.s_bytes},
                     {"log_lines", llamacpp_log(l, w.kv_dtype, e.llamacpp_devices ? &*e.llamacpp_devices : nullptr)}};
    if (e.llamacpp_devices) {
      const LlamaCppBuffers& d = *e.llamacpp_devices;
      json devices = json::array();
      for (const auto& dv : d.devices)
        devices.push_back({{"name", dv.name}, {"first_layer", dv.first}, {"layers", dv.count}, {"output_layer", dv.output},
                           {"model_bytes", dv.model_bytes}, {"cache_bytes", dv.cache_bytes}});
      out["engine"]["devices"] = devices;
      out["engine"]["offloaded_layers"] = d.offloaded;
      out["engine"]["output_on_gpu"] = d.output_on_gpu;
      out["engine"]["gpu_model_bytes"] = d.gpu_model_bytes();
      out["engine"]["cpu_mapped_bytes"] = d.cpu_mapped_bytes;
      out["engine"]["gpu_cache_bytes"] = d.gpu_cache_bytes();
      out["engine"]["cpu_cache_bytes"] = d.cpu_cache_bytes;
      out["engine"]["output_buffer"] = d.output_buffer;
      out["engine"]["output_buffer_bytes"] = d.output_buffer_bytes;
      // The device's compute buffer (its reserved graph through ggml's scheduler and allocator, or
      // the head's bound) and the host's; null where not modelled.
      out["engine"]["compute_tokens"] = d.compute_tokens;
      out["engine"]["compute_outputs"] = d.compute_outputs;
      // compute_buffer_bytes: the largest device's; compute_buffers: each device's where modelled.
      i64 largest = 0;
      json per_device = json::array();
      for (const LlamaCppDevice& dv : d.devices)
        if (d.compute_on(dv)) {
          largest = std::max(largest, d.compute_of(dv));
          per_device.push_back({{"device", dv.name}, {"bytes", d.compute_of(dv)}});
        }
      if (largest > 0) out["engine"]["compute_buffer_bytes"] = largest;
      else out["engine"]["compute_buffer_bytes"] = nullptr;
      out["engine"]["compute_buffers"] = per_device;
      if (d.host_compute_bytes > 0) out["engine"]["host_compute_buffer_bytes"] = d.host_compute_bytes;
      else out["engine"]["host_compute_buffer_bytes"] = nullptr;
      out["engine"]["host_compute_buffer"] = d.host_buffer;
      // "graph splits": the scheduler's splits of the ubatch's graph and of one token's.
      if (d.splits_pp > 0) out["engine"]["graph_splits"] = {d.splits_pp, d.splits_tg};
      else out["engine"]["graph_splits"] = nullptr;
      out["engine"]["load_lines"] = llamacpp_buffer_log(d);
    }
  }
  if (e.vllm) {  // runtime vllm: what vllm serve budgets, profiles, allocates and prints
    const VllmMemory& v = *e.vllm;
    json kv_groups = json::array();
    for (const auto& g : v.groups)
      kv_groups.push_back({{"kind", std::string(to_string(g.kind))}, {"window", g.window}, {"layers", g.layers},
                        {"block_size", g.block_size}, {"page_bytes", g.page_bytes}, {"max_request_bytes", g.max_request_bytes}});
    out["engine"] = {{"name", "vllm"}, {"version", std::string(v.version())}, {"max_model_len", v.max_model_len},
                     {"max_num_batched_tokens", v.max_num_batched_tokens}, {"max_num_seqs", v.max_num_seqs},
                     {"block_size", v.block_size}, {"total_bytes", v.total_bytes}, {"budget_bytes", v.budget_bytes},
                     // unified memory: the free memory at start-up (0: not recorded), and whether vLLM stops there
                     {"free_at_start_bytes", v.free_at_start_bytes}, {"startup_refused", v.startup_refused},
                     {"weights_bytes", v.weights_bytes}, {"rope_cache_bytes", v.rope_bytes},
                     {"activation_peak_bytes", v.activation_peak_bytes}, {"forward_peak_bytes", v.forward_peak_bytes},
                     {"sampler_peak_bytes", v.sampler_peak_bytes}, {"workspace_bytes", v.workspace_bytes},
                     {"encoder_profile_bytes", v.encoder_profile_bytes}, {"mm_items", v.mm_items},
                     {"non_torch_bytes", v.non_torch_bytes}, {"consumed_bytes", v.consumed_bytes}, {"non_kv_bytes", v.non_kv_bytes},
                     // 0.27's first runner: its CUDA graph estimate as given (taken from the KV cache memory)
                     {"cuda_graph_estimate_bytes", v.cuda_graph_estimate_bytes}, {"model_runner_v2", v.mrv2},
                     {"mamba_cache_mode", std::string(kMambaCacheModeNames[static_cast<int>(v.mamba_cache_mode)])},
                     // the recurrent state's dtypes as vLLM names them ("" without one); --max-model-len -1's start
                     {"mamba_conv_dtype", std::string(v.mamba_conv_dtype)}, {"mamba_ssm_dtype", std::string(v.mamba_ssm_dtype)},
                     {"auto_fit_from", v.auto_fit_from},
                     // TurboQuant's attention workspace, taken after the KV cache, outside the budget (0: none)
                     {"tq_workspace_bytes", v.tq_workspace_bytes},
                     {"gpu_memory_utilization", v.gpu_memory_utilization},
                     {"kv_available_bytes", v.kv_available_bytes}, {"groups", kv_groups}, {"group_size", v.group_size},
                     {"padding_layers", v.padding_layers}, {"num_blocks", v.num_blocks}, {"kv_tokens", v.kv_tokens},
                     {"blocks_per_request", v.blocks_per_request}, {"max_concurrency", v.max_concurrency},
                     {"needed_bytes", v.needed_bytes}, {"estimated_max_model_len", v.estimated_max_model_len},
                     {"max_model_len_fit", v.max_model_len_fit}, {"starts", v.error.empty()}, {"error", v.error},
                     {"log_lines", vllm_log(v)}};
    // CUDA graph memory: none under --enforce-eager; else not modelled (null).
    out["engine"]["enforce_eager"] = v.enforce_eager;
    out["engine"]["cuda_graph_bytes"] = v.enforce_eager ? json(0) : json(nullptr);
    if (!v.ranks.empty()) {  // pipeline parallel: each stage's worker (the figures above are stage 0's)
      json stages = json::array();
      for (const VllmMemory::Rank& k : v.ranks)
        stages.push_back({{"first_layer", k.first_layer}, {"layers", k.layers}, {"weights_bytes", k.weights_bytes},
                          {"intermediate_bytes", k.intermediate_bytes}, {"activation_peak_bytes", k.activation_peak_bytes},
                          {"kv_available_bytes", k.kv_available_bytes}, {"num_blocks", k.num_blocks}});
      out["engine"]["stages"] = std::move(stages);
      out["engine"]["bottleneck_stage"] = v.bottleneck_rank;
    }
    out["engine"]["terms"] = terms_json(vllm_terms(v, w, e.gpu));
  }
  if (e.sglang) {  // runtime sglang: its free memory, mem_fraction_static, token pool and lines
    const SglangMemory& g = *e.sglang;
    out["engine"] = {{"name", "sglang"}, {"version", std::string(g.version)}, {"smi_total_mib", g.smi_total_mib},
                     {"mem_fraction_static", g.mem_fraction_static}, {"mem_fraction_static_default", g.mfs_default},
                     {"chunked_prefill_size", g.chunked_prefill_size}, {"cuda_graph_max_bs", g.cuda_graph_max_bs},
                     {"pre_load_free_gib", g.pre_gib}, {"post_load_free_gib", g.post_gib}, {"weights_bytes", g.weights_bytes},
                     {"pool_budget_gib", g.rest_gib}, {"cell_bytes", g.cell_bytes}, {"page_size", g.page_size},
                     {"kv_tokens", g.max_total_tokens}, {"k_bytes", g.k_bytes}, {"v_bytes", g.v_bytes},
                     {"kv_bytes", g.k_bytes + g.v_bytes + g.swa_k_bytes + g.swa_v_bytes}, {"max_running_requests", g.max_running_requests},
                     {"starts", g.error.empty()}, {"error", g.error}, {"log_lines", sglang_log(g)}};
    if (g.mamba_layers > 0)  // MambaPool: a state slot per running request
      out["engine"]["mamba_pool"] = {{"layers", g.mamba_layers}, {"conv_bytes_per_request", g.mamba_conv_bytes},
                                     {"ssm_bytes_per_request", g.mamba_ssm_bytes}, {"ssm_dtype", std::string(g.mamba_ssm_dtype)}, {"slots", g.mamba_slots},
                                     {"bytes", (g.mamba_slots + 1) * (g.mamba_conv_bytes + g.mamba_ssm_bytes)}};
    if (g.pool_segment_bytes > 0)  // the rest of init_memory_pool and its last line (a plain pool)
      out["engine"]["memory_pool"] = {{"max_num_reqs", g.max_num_reqs}, {"req_to_token_bytes", g.req_to_token_bytes},
                                      {"free_index_bytes", g.free_index_bytes}, {"kv_segment_bytes", g.kv_segment_bytes},
                                      {"segment_bytes", g.pool_segment_bytes}, {"end_free_gib", g.pool_end_gib}};
    else
      out["engine"]["memory_pool"] = nullptr;
    if (g.hybrid)  // SWAKVPool: k_bytes / v_bytes above are the full layers' pool
      out["engine"]["swa_pool"] = {{"full_layers", g.full_layers}, {"swa_layers", g.swa_layers}, {"window", g.window},
                                   {"swa_full_tokens_ratio", g.swa_ratio}, {"profiled_tokens", g.profiled_tokens},
                                   {"swa_tokens", g.swa_tokens}, {"swa_k_bytes", g.swa_k_bytes}, {"swa_v_bytes", g.swa_v_bytes}};
    out["engine"]["terms"] = terms_json(sglang_terms(g, w, e.gpu));
  }
  if (e.transformers) {  // runtime transformers: generate() as torch.cuda.max_memory_allocated() measures it
    const TransformersMemory& tf = *e.transformers;
    out["engine"] = {{"name", "transformers"}, {"version", std::string(kTransformersVersion)}, {"prompt_tokens", tf.prompt},
                     {"max_new_tokens", tf.new_tokens}, {"attn_implementation", std::string(to_string(tf.attn_impl))}, {"gpus", tf.gpus}, {"weights_bytes", tf.weights_bytes}, {"weights_raw_bytes", tf.weights_raw_bytes},
                     {"cublas_bytes", tf.cublas_bytes}, {"kv_prompt_bytes", tf.kv_prompt_bytes},
                     {"prefill_activation_bytes", tf.prefill_bytes}, {"prefill_peak_bytes", tf.prefill_peak_bytes},
                     {"kv_bytes", tf.kv_end_bytes}, {"decode_activation_bytes", tf.decode_bytes}, {"decode_peak_bytes", tf.decode_peak_bytes},
                     {"activation_peak_bytes", tf.peak_in_prefill ? tf.prefill_bytes : tf.decode_bytes},
                     {"peak_allocated_bytes", tf.peak_bytes}, {"peak_phase", tf.peak_in_prefill ? "prefill" : "decode"},
                     {"log_lines", transformers_log(tf)}};
    out["engine"]["terms"] = terms_json(transformers_terms(tf));
  }
  const Throughput& p = e.throughput;
  out["throughput"] = {{"decode_tokens_per_s_per_seq", p.decode_tokens_per_s_per_seq},
                       {"prefill_flops", p.prefill_flops},
                       {"tokens_per_step", p.tokens_per_step},
                       {"train_tokens", p.train_tokens},
                       {"peak_tflops", p.peak_tflops},
                       // llama.cpp's CPU share of a decode step, and the host's bandwidth (0: not given)
                       {"decode_host_bytes", p.decode_host_bytes},
                       {"host_bandwidth_gbs", p.host_bandwidth_gbs},
                       {"host_at_device_rate", p.host_at_device_rate}};
  // Every figure at its key ("section.name"), and its bound.
  json bounds = json::object();
  for (const Figure& f : figures()) {
    const std::string key(f.key);
    const size_t dot = key.find('.');
    const FigureValue v = f.value(e);
    json& at = out[key.substr(0, dot)][key.substr(dot + 1)];
    if (v.integral) at = v.whole;
    else at = v.real;
    bounds[key] = std::string(to_string(f.bound(w, e)));
  }
  out["bounds"] = bounds;
  if (with_explain) {
    json list = json::array();
    for (const auto& x : explain(cfg, w, e))
      list.push_back({{"key", x.key}, {"label", x.label}, {"value", x.value}, {"bound", std::string(to_string(x.bound))},
                      {"formula", x.formula}, {"reference", x.reference}});
    out["explain"] = list;
  }
  return out;
}

std::string text_of(const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); }
}  // namespace

std::string estimate_json(const ModelConfig& cfg, const Workload& w, const Estimate& e, bool with_explain) {
  return text_of(estimate_object(cfg, w, e, with_explain));
}

std::string estimate_report(const PreparedModel& m, const Workload& w, bool with_explain) {
  auto est = estimate(m, w);
  if (est) return text_of(estimate_object(m.cfg, w, est.value(), with_explain));
  return estimate_report(m.cfg, w, with_explain);  // the issues, as for the config
}

std::string estimate_report(const ModelConfig& cfg, const Workload& w, bool with_explain) {
  auto est = estimate(cfg, w);
  if (est) return text_of(estimate_object(cfg, w, est.value(), with_explain));
  // Invalid input: the parameters (they need only the model) and the issues, on one line.
  json out = json::object();
  if (auto params = count_params(cfg)) out = params_object(cfg, params.value());
  out["issues"] = join(est.issues());
  return text_of(out);
}

std::string estimate_text(const ModelConfig& cfg, const Workload& w, const Estimate& e, ByteUnit unit, Lang lang) {
  (void)cfg;
  auto t = [lang](Str k) { return std::string(tr(k, lang)); };
  auto fig = [lang](const char* key) {  // a figure's label in the language (figures.hpp, lang/zh_fields.inc)
    if (const FieldText* f = field_text("figure", key, lang)) return std::string(f->label);
    const Figure* f = find_figure(key);
    return f ? std::string(f->label) : std::string(key);
  };
  auto b = [&](i64 v) { return pad_left(format_bytes(v, unit), 12); };
  auto row = [&](const std::string& label, i64 v, const std::string& note = {}) {
    return "  " + pad_right(label, 30) + b(v) + (note.empty() ? std::string() : "  " + note) + "\n";
  };
  const InferenceMemory& m = e.inference;
  const TrainingMemory& tm = e.training;
  const Throughput& p = e.throughput;
  std::string gpus = e.gpu.name + " × " + n(w.gpus) + (w.gpus > 1 ? " (dp " + n(e.dp) + ", tp " + n(w.tp) + ", pp " + n(w.pp) + (w.ep > 1 ? ", ep " + n(w.ep) : "") + ")" : "");
  if (!w.devices.empty())  // llama.cpp's devices, different cards: the figures are the least roomy one's
    gpus = printf_text(tr(Str::rep_llamacpp_devices, lang), find_field("devs")->get(w).c_str(), n(e.inference.stage + 1).c_str(),
                       e.gpu.name.c_str());
  const bool on_host = w.llamacpp_on_host();
  if (on_host)
    gpus = printf_text(tr(Str::rep_host_device, lang), w.host_mem_gib > 0 ? ("--host-mem-gib " + fixed(w.host_mem_gib, 2)).c_str()
                                                                          : e.gpu.name.c_str());
  std::string o;
  const bool est = w.reserve_mib < 0 && w.runtime != Runtime::None;
  const std::string est_note = est ? std::string(bound_text(Bound::Estimate, lang)) : std::string();
  const std::string fit = t(Str::rep_fits), no_fit = t(Str::rep_does_not_fit), none_fit = t(Str::rep_none_fit);
  if (w.mode == Mode::Inference) {
    o += "\n" + printf_text(tr(on_host ? Str::rep_inference_on_host : Str::rep_inference_on, lang), gpus.c_str(), unit_label(unit)) + "\n";
    o += "  " + printf_text(tr(Str::rep_inference_settings, lang), std::string(to_string(w.weights)).c_str(),
                            std::string(to_string(w.kv_dtype)).c_str(), n(w.seq).c_str(), n(w.batch).c_str(),
                            std::string(to_string(w.runtime)).c_str()) + "\n";
    if (on_host) o += "  " + printf_text(tr(Str::rep_llamacpp_no_gpu, lang), t(w.host_mem_gib > 0 ? Str::rep_host_given : Str::rep_host_not_given).c_str()) + "\n";
    o += row(fig("inference.weights_bytes"), m.weights_bytes);
    if (m.vision_weights_bytes > 0) o += row(fig("inference.vision_weights_bytes"), m.vision_weights_bytes);
    o += row(printf_text(tr(Str::rep_kv_per_token, lang), n(m.kv_bytes_per_token).c_str()), m.kv_cache_bytes);
    if (m.indexer_bytes_per_token > 0)
      o += row(printf_text(tr(Str::rep_indexer_per_token, lang), n(m.indexer_bytes_per_token).c_str()), m.indexer_cache_bytes);
    if (m.state_bytes_per_sequence > 0)
      o += row(printf_text(tr(Str::rep_state_per_seq, lang), n(m.state_bytes_per_sequence).c_str()), m.state_bytes);
    o += row(fig("inference.activation_bytes"), m.activation_bytes);
    o += row(fig("inference.overhead_bytes"), m.overhead_bytes, est_note);
    o += row(t(Str::rep_total), m.total_bytes, t(Str::rep_lower_unless_marked));
    o += "  " + pad_right(t(Str::rep_usable), 30) + b(m.capacity_bytes) + "  " + (m.fits ? fit : no_fit) + "\n";
    o += "  " + printf_text(tr(Str::rep_phases, lang), format_bytes(m.after_load_bytes, unit).c_str(),
                            format_bytes(m.prefill_peak_bytes, unit).c_str(), format_bytes(m.decode_bytes, unit).c_str()) + "\n";
    if (on_host)  // no GPUs to count
      o += "  " + printf_text(tr(Str::rep_max_context_host, lang), n(m.max_context).c_str(),
                              m.max_context_is_model_limit ? tr(Str::rep_model_limit, lang) : "", n(m.max_sequences).c_str()) + "\n";
    else
      o += "  " + printf_text(tr(Str::rep_max_context, lang), n(m.max_context).c_str(),
                              m.max_context_is_model_limit ? tr(Str::rep_model_limit, lang) : "", n(m.max_sequences).c_str(),
                              (m.min_gpus > 0 ? n(m.min_gpus) : none_fit).c_str()) + "\n";
  } else {
    o += "\n" + printf_text(tr(Str::rep_training_on, lang), gpus.c_str(), unit_label(unit)) + "\n";
    o += "  " + printf_text(tr(Str::rep_training_settings, lang), std::string(to_string(w.optimizer)).c_str(),
                            std::string(to_string(w.precision)).c_str(), std::string(to_string(w.sharding)).c_str(),
                            std::string(to_string(w.recompute)).c_str(), n(w.seq).c_str(), n(w.batch).c_str(), n(w.grad_accum).c_str()) +
         (w.lora_rank > 0 ? printf_text(tr(Str::rep_lora, lang), n(w.lora_rank).c_str()) + (w.qlora ? t(Str::rep_qlora) : std::string())
                          : std::string()) +
         (w.adapter != Adapter::None ? printf_text(tr(Str::rep_adapter, lang), std::string(to_string(w.adapter)).c_str()) : std::string()) + "\n";
    o += row(fig("training.weights_bytes"), tm.weights_bytes);
    if (tm.vision_weights_bytes > 0) o += row(fig("training.vision_weights_bytes"), tm.vision_weights_bytes);
    o += row(fig("training.gradients_bytes"), tm.gradients_bytes);
    o += row(fig("training.optimizer_bytes"), tm.optimizer_bytes);
    o += row(fig("training.master_weights_bytes"), tm.master_weights_bytes);
    o += row(printf_text(tr(Str::rep_activations_in_flight, lang), n(tm.inflight).c_str()), tm.activation_bytes);
    o += row(fig("training.overhead_bytes"), tm.overhead_bytes, est_note);
    o += row(t(Str::rep_total), tm.total_bytes, t(Str::rep_lower_unless_marked));
    o += "  " + pad_right(t(Str::rep_usable), 30) + b(tm.capacity_bytes) + "  " + (tm.fits ? fit : no_fit) + "\n";
    o += "  " + printf_text(tr(Str::rep_trainable_min_gpus, lang), n(tm.trainable_params).c_str(),
                            (tm.min_gpus > 0 ? n(tm.min_gpus) : none_fit).c_str()) + "\n";
    if (tm.stages.size() > 1) {  // every stage's GPU, micro-batches in flight (mb) from 1F1B
      o += "  " + t(Str::rep_stages) + "\n";
      for (const TrainingStage& st : tm.stages)
        o += row(printf_text(tr(Str::rep_stage_row, lang), n(st.stage).c_str(), n(st.first_layer).c_str(),
                             n(st.last_layer()).c_str(), n(st.inflight).c_str()),
                 st.total_bytes);
    }
    if (tm.recipe) {  // the recipe's live tensors at its peak, largest first
      const RecipePeak& r = *tm.recipe;
      o += "\n" + printf_text(tr(Str::rep_recipe_heading, lang), std::string(to_string(r.recipe)).c_str()) + " (" + r.version + ")\n";
      o += "  " + printf_text(tr(Str::rep_recipe_phase, lang), tr(recipe_phase_row(r.phase), lang)) + "\n";
      for (const RecipePart& part : r.parts) o += row(tr(part.label, lang), part.bytes);
      o += row(fig("training.peak_allocated_bytes"), tm.peak_allocated_bytes);
      if (const TrainingStage* st = r.peak_stage())
        o += row(t(r.recipe == Recipe::DeepSpeed ? Str::rep_recipe_after_step_ds : Str::rep_recipe_after_step), st->after_step_bytes);
    }
  }
  auto prints = [&](const char* engine, std::string_view version, const std::string& settings) {
    return "\n" + printf_text(tr(Str::mem_engine_prints, lang), engine) + " (" + std::string(version) + "; " + settings + ")\n";
  };
  if (e.llamacpp && w.mode == Mode::Inference) {
    const LlamaCppMemory& l = *e.llamacpp;
    o += prints("llama.cpp", kLlamaCppVersion,
                "n_ctx " + n(l.n_ctx) + ", " + (l.n_seq == 1 ? t(Str::rep_one_slot) : printf_text(tr(Str::rep_slots, lang), n(l.n_seq).c_str())) +
                    (l.unified ? ", unified" : "") + ", n_ubatch " + n(l.n_ubatch));
    if (e.llamacpp_devices)
      for (const auto& line : llamacpp_buffer_log(*e.llamacpp_devices)) o += "  " + line + "\n";
    for (const auto& line : llamacpp_log(l, w.kv_dtype, e.llamacpp_devices ? &*e.llamacpp_devices : nullptr)) o += "  " + line + "\n";
    if (e.llamacpp_devices)
      for (const auto& note : llamacpp_buffer_notes(*e.llamacpp_devices, unit, lang))
        o += lang == Lang::Zh ? "  （" + note + "）\n" : "  (" + note + ")\n";  // full-width in Chinese text
    if (e.llamacpp_devices) {  // the host's buffers, every line above that is not a device's
      const Figure* host = find_figure("inference.host_bytes");
      o += row(fig("inference.host_bytes"), e.llamacpp_devices->host_bytes(), bound_text(host->bound(w, e), lang));
      if (e.unified_bytes > 0) o += row(fig("inference.unified_bytes"), e.unified_bytes, bound_text(Bound::Lower, lang));
      if (e.host_capacity_bytes > 0)
        o += "  " + pad_right(fig("inference.host_capacity_bytes"), 30) + b(e.host_capacity_bytes) + "  " + (e.host_fits ? fit : no_fit) + "\n";
    }
  }
  if (e.vllm && w.mode == Mode::Inference) {
    const VllmMemory& v = *e.vllm;
    o += prints("vLLM", v.version(), vllm_settings(v, ", "));
    for (const auto& line : vllm_log(v)) o += "  " + line + "\n";
    if (v.hybrid()) o += "  " + printf_text(tr(Str::rep_vllm_groups, lang), n(static_cast<i64>(v.groups.size())).c_str()) + "\n";
    if (!v.startup_refused)  // stopped before loading: no graphs to speak of
      o += "  " + printf_text(tr(vllm_graphs_row(v), lang),
                              format_bytes(v.cuda_graph_estimate_bytes > 0 ? v.cuda_graph_estimate_bytes : v.total_bytes - v.budget_bytes, unit).c_str()) +
           "\n";
    if (v.tq_workspace_bytes > 0 && v.error.empty())
      o += "  " + printf_text(tr(Str::rep_vllm_tq_workspace, lang), format_bytes(v.tq_workspace_bytes, unit).c_str()) + "\n";
  }
  if (e.sglang && w.mode == Mode::Inference) {
    const SglangMemory& g = *e.sglang;
    o += prints("SGLang", g.version, sglang_settings(g, ", ", lang));
    for (const auto& line : sglang_log(g)) o += "  " + line + "\n";
  }
  if (e.transformers && w.mode == Mode::Inference) {
    const TransformersMemory& g = *e.transformers;
    o += prints("Transformers", kTransformersVersion, transformers_settings(g, ", "));
    for (const auto& line : transformers_log(g)) o += "  " + line + "\n";
  }
  o += "\n" + t(Str::rep_throughput_heading) + "\n";
  if (p.decode_tokens_per_s > 0)
    o += "  " + printf_text(tr(Str::rep_decode_rate, lang), rate(p.decode_tokens_per_s).c_str(), rate(p.decode_tokens_per_s_per_seq).c_str(),
                            format_bytes(p.decode_bytes_per_step, unit).c_str()) + "\n";
  else  // the CPU alone, its bandwidth not given
    o += "  " + printf_text(tr(Str::rep_decode_no_bw, lang), format_bytes(p.decode_bytes_per_step, unit).c_str()) + "\n";
  // No TFLOPS figure: the GPU's data sheet gives none, or the CPU computes alone.
  auto span = [&](double s) { return s > 0 ? format_duration(s, lang) : tr(p.host_only ? Str::rep_no_tflops_host : Str::rep_no_tflops, lang); };
  o += "  " + printf_text(tr(Str::rep_prefill_time, lang), n(w.batch).c_str(), n(w.seq).c_str(), span(p.prefill_seconds).c_str(),
                          fixed(w.utilization * 100, 0).c_str(), rate(p.peak_tflops).c_str()) + "\n";
  o += "  " + printf_text(tr(Str::rep_training_time, lang), n(p.tokens_per_step).c_str(), span(p.step_seconds).c_str(),
                          short_count(p.train_tokens).c_str(), w.train_tokens == 0 ? tr(Str::rep_chinchilla, lang) : "",
                          span(p.train_seconds).c_str()) + "\n";
  return o;
}

std::string estimate_csv(const ModelConfig& cfg, const Workload& w, const Estimate& e) {
  // A field in double quotes where it holds a comma, a quote or a line break (quotes doubled).
  auto field = [](std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
  };
  static constexpr std::string_view kUnits[] = {"bytes", "count", "tokens", "tokens/s", "seconds", "flop"};
  std::string out = "key,label,unit,bound,value,formula,reference\r\n";
  for (const Explanation& x : explain(cfg, w, e)) {
    const Figure* f = find_figure(x.key);
    if (!f || (f->mode && *f->mode != w.mode)) continue;  // the other mode's figures
    const FigureValue v = f->value(e);
    out += field(x.key) + "," + field(x.label) + "," + std::string(kUnits[static_cast<size_t>(x.unit)]) + "," +
           std::string(to_string(x.bound)) + "," + (v.integral ? std::to_string(v.whole) : format_real(v.real)) + "," +
           field(x.formula) + "," + field(x.reference) + "\r\n";
  }
  return out;
}

std::string estimate_explain_text(const ModelConfig& cfg, const Workload& w, const Estimate& e, ByteUnit unit, Lang lang) {
  const WeightsReport& wr = e.inference.weights;
  const std::string stored = wr.from_file ? std::string(tr(Str::rep_as_file_stores, lang)) : std::string(to_string(w.weights));
  std::string o = "\n" + printf_text(tr(Str::rep_weights_by_tensor, lang), stored.c_str()) + "\n";
  for (const auto& r : wr.rows) {
    const Tensor& t = tensor_of(*e.inventory, r);
    o += "    " + pad_right(t.name, 58) + pad_left(r.kind < 0 ? "" : n(r.layers) + " ×", 6) + " " +
         pad_right(r.file_type.empty() ? storage_name(r.storage) : std::string(r.file_type) + " (file)", 30) + pad_left(n(r.params), 18) +
         pad_left(format_bytes(r.bytes, unit), 14) + "\n";
  }
  if (wr.other_bytes > 0) o += "    " + pad_right(tr(Str::rep_other_tensors, lang), 95) + pad_left(format_bytes(wr.other_bytes, unit), 14) + "\n";
  o += "\n" + std::string(tr(Str::rep_derivations, lang)) + "\n";
  for (const auto& x : explain(cfg, w, e, lang)) {
    if (const Figure* f = find_figure(x.key); f && !listed(*f, x.value)) continue;  // a part this model lacks
    const FieldText* label = field_text("figure", x.key, lang);
    o += "  " + (label ? std::string(label->label) : x.label) + " [" + x.key + "] — " + bound_text(x.bound, lang) + "\n";
    o += "      " + x.formula + "\n";
    o += "      " + std::string(tr(Str::rep_ref, lang)) + " " + x.reference + "\n";
  }
  return o;
}

}  // namespace llmsize::core

// The launch command of a configuration (see launch.hpp).
#include "launch.hpp"

#include "training_recipe.hpp"

#include "engine_llamacpp.hpp"
#include "engine_sglang.hpp"
#include "engine_vllm.hpp"
#include "format.hpp"
#include "json_util.hpp"
#include "presets.hpp"
#include "text_value.hpp"
#include "training_recipe.hpp"

namespace llmsize::core {

namespace {

// vLLM's and SGLang's --dtype names (ModelDType: auto, half, float16, bfloat16, float, float32).
std::string_view torch_dtype(ComputeDtype d) {
  switch (d) {
    case ComputeDtype::BF16: return "bfloat16";
    case ComputeDtype::F16: return "float16";
    case ComputeDtype::F32: return "float32";
  }
  return "bfloat16";
}

// The KV dtype that is the model's own (--kv-cache-dtype auto) for this --dtype.
KvDtype same_as(ComputeDtype d) {
  switch (d) {
    case ComputeDtype::BF16: return KvDtype::BF16;
    case ComputeDtype::F16: return KvDtype::F16;
    case ComputeDtype::F32: return KvDtype::F32;
  }
  return KvDtype::BF16;
}

std::string name_of(KvDtype t) { return std::string(to_string(t)); }
std::string name_of(WeightFormat f) { return std::string(to_string(f)); }

// The weight format as vLLM or SGLang receive it: a flag for quantizing an unquantized checkpoint
// on the fly, nothing where the checkpoint's quantization_config says it, a refusal otherwise.
std::optional<Issue> weights_flag(LaunchCommand& c, const Workload& w, std::string_view engine) {
  const std::string f = name_of(w.weights);
  switch (w.weights) {
    case WeightFormat::F32:
    case WeightFormat::BF16:
    case WeightFormat::F16: {
      // Unquantized weights are held in --dtype.
      const bool same = (w.weights == WeightFormat::BF16 && w.dtype == ComputeDtype::BF16) ||
                        (w.weights == WeightFormat::F16 && w.dtype == ComputeDtype::F16) ||
                        (w.weights == WeightFormat::F32 && w.dtype == ComputeDtype::F32);
      if (!same)
        return issue_row("w", Str::exp_dtype, std::string(engine), std::string(torch_dtype(w.dtype)), f);
      return std::nullopt;
    }
    case WeightFormat::Fp8:  // on the fly: fp8 (e4m3) with a scale per tensor
      c.flags.push_back({"--quantization", "fp8", "w"});
      c.notes.push_back(issue_row("w", Str::launch_note_fp8));
      return std::nullopt;
    case WeightFormat::Nf4:  // bitsandbytes 4-bit as it loads
      c.flags.push_back({"--quantization", "bitsandbytes", "w"});
      return std::nullopt;
    case WeightFormat::Fp8Block:
    case WeightFormat::Int8:
    case WeightFormat::GptqInt4:
    case WeightFormat::GptqInt3:
    case WeightFormat::GptqInt8:
    case WeightFormat::AwqInt4:
    case WeightFormat::Mxfp4:
    case WeightFormat::Int4Experts:
      c.notes.push_back(issue_row("w", Str::launch_note_checkpoint, f, std::string(engine)));
      return std::nullopt;
    case WeightFormat::Nf4Dq:
      return issue_row("w", Str::exp_nf4dq, std::string(engine));
    default:
      return issue_row("w", Str::exp_gguf_type, f);
  }
}

Result<LaunchCommand> vllm_command(const Workload& w, std::string_view model) {
  LaunchCommand c;
  c.engine = "vllm";
  c.version = std::string(vllm_version(w.vllm_line));
  c.program = {"vllm", "serve", model.empty() ? std::string("MODEL") : std::string(model)};
  if (w.vllm_auto_fit) c.flags.push_back({"--max-model-len", "-1", "vaf"});
  else c.flags.push_back({"--max-model-len", std::to_string(w.seq), "seq"});
  c.flags.push_back({"--dtype", std::string(torch_dtype(w.dtype)), "dtype"});
  c.flags.push_back({"--gpu-memory-utilization", format_real(w.vllm_util()), "util"});
  if (w.tp > 1) c.flags.push_back({"--tensor-parallel-size", std::to_string(w.tp), "tp"});
  if (w.pp > 1) c.flags.push_back({"--pipeline-parallel-size", std::to_string(w.pp), "pp"});
  if (w.dp() > 1) c.flags.push_back({"--data-parallel-size", std::to_string(w.dp()), "gpus"});
  // ref: FusedMoEParallelConfig.make: with --enable-expert-parallel the experts are split over all
  // of dp · tp; there is no size.
  if (w.ep > 1) {
    if (w.ep != w.dp() * w.tp)
      return issue_row("exp", Str::exp_vllm_ep, std::to_string(w.dp() * w.tp));
    c.flags.push_back({"--enable-expert-parallel", "", "exp"});
  }
  // ref: vllm/config/cache.py CacheDType: auto (the model dtype), fp8 (= fp8_e4m3), …
  if (w.kv_dtype == KvDtype::Fp8) c.flags.push_back({"--kv-cache-dtype", "fp8", "kvt"});
  else if (kv_turboquant(w.kv_dtype)) c.flags.push_back({"--kv-cache-dtype", name_of(w.kv_dtype), "kvt"});
  else if (w.kv_dtype != same_as(w.dtype))
    return issue_row("kvt", Str::exp_vllm_kvt, std::string(torch_dtype(w.dtype)), name_of(w.kv_dtype));
  if (w.kv_cache_memory > 0) c.flags.push_back({"--kv-cache-memory-bytes", std::to_string(w.kv_cache_memory), "kvmem"});
  if (w.max_num_batched_tokens > 0) {
    c.flags.push_back({"--max-num-batched-tokens", std::to_string(w.max_num_batched_tokens), "mbt"});
  } else if (w.vllm_entry == VllmEntry::Llm) {
    // The command is `vllm serve`, whose default differs from the LLM class's: the LLM class's is given.
    auto gpu = gpu_of(w);
    if (!gpu) return gpu.issues();
    c.flags.push_back({"--max-num-batched-tokens", std::to_string(vllm_batch_defaults(*gpu, VllmEntry::Llm).max_num_batched_tokens), "ventry"});
  }
  if (w.max_num_seqs > 0) c.flags.push_back({"--max-num-seqs", std::to_string(w.max_num_seqs), "mns"});
  // 16 is vLLM's default (DEFAULT_BLOCK_SIZE), which it may change per backend and for hybrid
  // models as the profile does; only another size is passed.
  if (w.block_size != 16) c.flags.push_back({"--block-size", std::to_string(w.block_size), "bs"});
  if (w.enforce_eager) c.flags.push_back({"--enforce-eager", "", "ee"});
  if (w.language_model_only) c.flags.push_back({"--language-model-only", "", "lmo"});
  if (w.mamba_cache_dtype != MambaDtype::Auto) c.flags.push_back({"--mamba-cache-dtype", std::string(to_string(w.mamba_cache_dtype)), "mcd"});
  if (w.mamba_ssm_cache_dtype != MambaDtype::Auto)
    c.flags.push_back({"--mamba-ssm-cache-dtype", std::string(to_string(w.mamba_ssm_cache_dtype)), "mscd"});
  if (w.mamba_cache_mode != MambaCacheMode::None) c.flags.push_back({"--mamba-cache-mode", std::string(to_string(w.mamba_cache_mode)), "mcm"});
  if (w.prefix_caching == Keep::Yes) c.flags.push_back({"--enable-prefix-caching", "", "pc"});
  if (w.prefix_caching == Keep::No) c.flags.push_back({"--no-enable-prefix-caching", "", "pc"});
  if (auto issue = weights_flag(c, w, "vLLM")) return *issue;
  c.notes.push_back(issue_row("batch", Str::launch_note_batch_vllm, std::to_string(w.batch)));
  return c;
}

Result<LaunchCommand> sglang_command(const Workload& w, std::string_view model) {
  LaunchCommand c;
  c.engine = "sglang";
  c.version = std::string(sglang_version(w.sglang_build));
  c.program = {"python", "-m", "sglang.launch_server"};
  c.flags.push_back({"--model-path", model.empty() ? std::string("MODEL") : std::string(model), "model"});
  c.flags.push_back({"--context-length", std::to_string(w.seq), "seq"});
  c.flags.push_back({"--dtype", std::string(torch_dtype(w.dtype)), "dtype"});
  if (w.pp > 1) return issue_row("pp", Str::exp_sglang_pp);
  if (w.tp > 1) c.flags.push_back({"--tp-size", std::to_string(w.tp), "tp"});
  if (w.dp() > 1) c.flags.push_back({"--dp-size", std::to_string(w.dp()), "gpus"});
  if (w.ep > 1) {
    c.flags.push_back({"--ep-size", std::to_string(w.ep), "exp"});
    c.notes.push_back(issue_row("exp", Str::launch_note_ep_sglang));
  }
  // ref: server_args.py --kv-cache-dtype choices: auto (the model dtype), fp8_e5m2, fp8_e4m3, bf16, bfloat16, fp4_e2m1.
  if (w.kv_dtype == KvDtype::Fp8) c.flags.push_back({"--kv-cache-dtype", "fp8_e4m3", "kvt"});
  else if (w.kv_dtype == KvDtype::BF16 && w.dtype != ComputeDtype::BF16) c.flags.push_back({"--kv-cache-dtype", "bf16", "kvt"});
  else if (w.kv_dtype != same_as(w.dtype))
    return issue_row("kvt", Str::exp_sglang_kvt, name_of(w.kv_dtype), std::string(torch_dtype(w.dtype)));
  if (w.mem_fraction_static > 0) c.flags.push_back({"--mem-fraction-static", format_real(w.mem_fraction_static), "mfs"});
  if (w.chunked_prefill_size > 0) c.flags.push_back({"--chunked-prefill-size", std::to_string(w.chunked_prefill_size), "cps"});
  if (w.cuda_graph_max_bs > 0) c.flags.push_back({"--cuda-graph-max-bs", std::to_string(w.cuda_graph_max_bs), "cgbs"});
  if (w.page_size > 0) c.flags.push_back({"--page-size", std::to_string(w.page_size), "psz"});
  if (w.max_running_requests > 0) c.flags.push_back({"--max-running-requests", std::to_string(w.max_running_requests), "mrr"});
  if (w.max_total_tokens > 0) c.flags.push_back({"--max-total-tokens", std::to_string(w.max_total_tokens), "mtt"});
  if (w.swa_full_tokens_ratio != 0.8) c.flags.push_back({"--swa-full-tokens-ratio", format_real(w.swa_full_tokens_ratio), "swar"});
  if (w.disable_hybrid_swa_memory) c.flags.push_back({"--disable-hybrid-swa-memory", "", "dhswa"});
  // ref: server_args.py --mamba-ssm-dtype (float32, its default, or bfloat16 in the builds followed).
  if (w.mamba_ssm_dtype == MambaDtype::F16) return issue_row("msd", Str::eng_sglang_ssm_f16, c.version);
  if (w.mamba_ssm_dtype == MambaDtype::BF16) c.flags.push_back({"--mamba-ssm-dtype", "bfloat16", "msd"});
  if (auto issue = weights_flag(c, w, "SGLang")) return *issue;
  c.notes.push_back(issue_row("batch", Str::launch_note_batch, std::to_string(w.batch)));
  return c;
}

Result<LaunchCommand> llamacpp_command(const ModelConfig& cfg, const Workload& w, std::string_view model) {
  LaunchCommand c;
  c.engine = "llama-server";
  c.version = std::string(kLlamaCppVersion);
  c.program = {"llama-server"};
  c.flags.push_back({"-m", model.empty() ? std::string("MODEL.gguf") : std::string(model), "model"});
  if (w.tp > 1) return issue_row("tp", Str::exp_llamacpp_tp);
  if (w.ep > 1) return issue_row("exp", Str::exp_llamacpp_ep);
  if (w.llamacpp_caller != LlamaCppCaller::Server) return issue_row("lcc", Str::exp_llamacpp_library);
  if (w.llamacpp_offload != LlamaCppOffload::OutputFirst) return issue_row("lco", Str::exp_llamacpp_offload);
  if (w.llamacpp_graph != LlamaCppGraph::F16Mask)
    return issue_row("lcg", Str::exp_llamacpp_graph, std::string(kLlamaCppGraphNames[static_cast<size_t>(w.llamacpp_graph)]));
  // -c is the context the slots share: seq tokens for each of batch sequences (as the estimate takes it).
  const Checked n_ctx = Checked(w.seq) * w.batch;
  if (!n_ctx.ok()) return issue_row("batch", Str::exp_llamacpp_ctx);
  c.flags.push_back({"-c", std::to_string(n_ctx.value()), "seq"});
  if (w.parallel > 0) c.flags.push_back({"-np", std::to_string(w.parallel), "np"});  // 0: auto, which -np 0 is not
  if (w.kv_unified) c.flags.push_back({"-kvu", "", "kvu"});
  // ref: common/arg.cpp -ngl: "auto", "all" or N; -1 is auto (fit may lower it), so all is spelled out.
  c.flags.push_back({"-ngl", w.n_gpu_layers < 0 ? std::string("all") : std::to_string(w.n_gpu_layers), "ngl"});
  // ref: common/arg.cpp kv_cache_types; the default is f16, so both are always given.
  const char* type = llamacpp_cache_type(w.kv_dtype);
  if (!type) return issue_row("kvt", Str::exp_llamacpp_fp8, name_of(w.kv_dtype));
  if (kv_block_quantized(w.kv_dtype) && !w.flash_attention)
    return issue_row("flash", Str::exp_llamacpp_quant_v);
  c.flags.push_back({"-ctk", std::string(type), "kvt"});
  c.flags.push_back({"-ctv", std::string(type), "kvt"});
  c.flags.push_back({"-fa", w.flash_attention ? "on" : "off", "flash"});
  if (w.n_batch != 2048) c.flags.push_back({"-b", std::to_string(w.n_batch), "nb"});
  if (w.n_ubatch != 512) c.flags.push_back({"-ub", std::to_string(w.n_ubatch), "ub"});
  if (w.n_cpu_moe > 0) c.flags.push_back({"--n-cpu-moe", std::to_string(w.n_cpu_moe), "ncmoe"});
  if (w.swa_full) c.flags.push_back({"--swa-full", "", "swaf"});
  if (w.llamacpp_no_gpu) c.flags.push_back({"--device", "none", "lcnogpu"});
  if (!w.tensor_split.empty()) {
    std::string ts;
    for (double x : w.tensor_split) ts += (ts.empty() ? "" : ",") + format_real(x);
    c.flags.push_back({"-ts", ts, "ts"});
  }
  if (w.pp > 1)
    c.notes.push_back(issue_row("pp", Str::launch_note_pp, std::to_string(w.pp), std::to_string(w.pp)));
  if (is_gguf(w.weights) || model.empty())
    c.notes.push_back(issue_row("w", Str::launch_note_gguf_assumed, name_of(w.weights)));
  else
    c.notes.push_back(issue_row("w", Str::launch_note_gguf));
  (void)cfg;
  return c;
}

// Training: the data-parallel recipes whose configuration holds what the estimate assumed.
std::optional<Issue> training_limits(const Workload& w, std::string_view who) {
  if (w.tp > 1 || w.pp > 1)
    return issue_row(w.tp > 1 ? "tp" : "pp", Str::exp_train_tp_pp, std::string(who));
  if (w.precision == Precision::Pure)
    return issue_row("prec", Str::exp_train_pure, std::string(who));
  if (w.precision == Precision::Fp32 && w.dtype != ComputeDtype::F32)
    return issue_row("prec", Str::exp_train_fp32, std::string(who));
  if (w.recompute == Recompute::Selective)
    return issue_row("rc", Str::exp_train_selective, std::string(who));
  return std::nullopt;
}

void training_notes(LaunchCommand& c, const Workload& w) {
  c.notes.push_back(issue_row("opt", Str::launch_note_train_py, std::string(to_string(w.optimizer))));
  if (w.lora_rank > 0)
    c.notes.push_back(issue_row("lora", w.qlora ? Str::launch_note_qlora : Str::launch_note_lora, std::to_string(w.lora_rank)));
}

// A key of the configuration file the command reads, with the workload field it comes from.
LaunchFlag config_key(std::string key, std::string value, std::string field) {
  LaunchFlag f{std::move(key), std::move(value), std::move(field)};
  f.in_config = true;
  return f;
}

Result<LaunchCommand> deepspeed_config(const Workload& w) {
  if (w.sharding == Sharding::Fsdp) return issue_row("zero", Str::exp_fsdp_not_ds);
  if (auto issue = training_limits(w, "DeepSpeed")) return *issue;
  LaunchCommand c;
  c.engine = "deepspeed";
  c.version = "DeepSpeed ZeRO configuration";
  c.program = {"deepspeed", "--num_gpus", std::to_string(w.gpus), "train.py", "--deepspeed", "ds_config.json"};
  c.config_name = "ds_config.json";
  using json_util::json;
  json j = json::object();
  j["train_micro_batch_size_per_gpu"] = w.batch;
  c.flags.push_back(config_key("train_micro_batch_size_per_gpu", std::to_string(w.batch), "batch"));
  j["gradient_accumulation_steps"] = w.grad_accum;
  c.flags.push_back(config_key("gradient_accumulation_steps", std::to_string(w.grad_accum), "accum"));
  if (w.precision == Precision::Mixed && w.dtype != ComputeDtype::F32) {
    const char* key = w.dtype == ComputeDtype::BF16 ? "bf16" : "fp16";
    j[key] = {{"enabled", true}};
    c.flags.push_back(config_key(std::string(key) + ".enabled", "true", "prec"));
  }
  const int stage = static_cast<int>(w.sharding);  // None, Zero1, Zero2, Zero3
  j["zero_optimization"] = {{"stage", stage}};
  c.flags.push_back(config_key("zero_optimization.stage", std::to_string(stage), "zero"));
  c.config_text = j.dump(2) + "\n";
  if (w.recompute == Recompute::Full) c.notes.push_back(issue_row("rc", Str::launch_note_recompute));
  training_notes(c, w);
  return c;
}

Result<LaunchCommand> fsdp_config(const Workload& w) {
  if (auto issue = training_limits(w, "FSDP")) return *issue;
  LaunchCommand c;
  c.engine = "accelerate";
  c.version = "Accelerate FSDP configuration";
  c.program = {"accelerate", "launch", "--config_file", "fsdp_config.yaml", "train.py"};
  c.config_name = "fsdp_config.yaml";
  // FULL_SHARD: parameters, gradients and optimizer states sharded (the estimate's fsdp = ZeRO-3).
  const std::string mp = w.precision == Precision::Mixed && w.dtype != ComputeDtype::F32
                             ? (w.dtype == ComputeDtype::BF16 ? "bf16" : "fp16")
                             : "'no'";
  c.config_text = "compute_environment: LOCAL_MACHINE\n"
                  "distributed_type: FSDP\n"
                  "mixed_precision: " + mp + "\n"
                  "num_machines: 1\n"
                  "num_processes: " + std::to_string(w.gpus) + "\n"
                  "fsdp_config:\n"
                  "  fsdp_sharding_strategy: FULL_SHARD\n"
                  "  fsdp_offload_params: false\n"
                  "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n"
                  "  fsdp_activation_checkpointing: " + std::string(w.recompute == Recompute::Full ? "true" : "false") + "\n";
  c.flags.push_back(config_key("mixed_precision", mp, "prec"));
  c.flags.push_back(config_key("num_processes", std::to_string(w.gpus), "gpus"));
  c.flags.push_back(config_key("fsdp_sharding_strategy", "FULL_SHARD", "zero"));
  c.flags.push_back(config_key("fsdp_activation_checkpointing", w.recompute == Recompute::Full ? "true" : "false", "rc"));
  c.notes.push_back(issue_row("batch", Str::launch_note_accum, std::to_string(w.batch), std::to_string(w.grad_accum)));
  training_notes(c, w);
  return c;
}

// GPUs a machine for a multi-machine launch: all of them up to 8, else the largest count up to 8
// that divides them.
i64 gpus_per_node(i64 gpus) {
  i64 per_node = std::min<i64>(gpus, 8);
  while (gpus % per_node != 0) --per_node;
  return per_node;
}

// What the recipe refuses for this model and workload (and an unknown GPU): its command refuses
// the same, by name, rather than print a run the estimate does not model.
std::vector<Issue> recipe_refusals(const ModelConfig& cfg, const Workload& w) {
  auto gpu = gpu_of(w);
  if (!gpu) return gpu.issues();
  if (auto rp = recipe_peak(cfg, w, *gpu); !rp) return rp.issues();
  return {};
}

// DeepSpeed-Chat 3a77097a's step 1 (training/step1_supervised_finetuning/main.py parse_args; the
// deepspeed launcher's --num_gpus, and --hostfile / --num_nodes across machines) with what the
// deepspeed recipe assumed (training_recipe_deepspeed.cpp): the model, the micro-batch, the
// padded length, one step of accumulation, ZeRO stage 1 or 2, dropout off through --disable_dropout,
// each layer checkpointed through --gradient_checkpointing.
// main.py sets fp16, FusedAdam and the ZeRO buffers itself (utils/ds_utils.py).
Result<LaunchCommand> ds_chat_command(const ModelConfig& cfg, const Workload& w, std::string_view model) {
  if (auto refused = recipe_refusals(cfg, w); !refused.empty()) return refused;
  LaunchCommand c;
  c.engine = "deepspeed";
  c.version = "DeepSpeed-Chat 3a77097a (Apr 2023) training/step1_supervised_finetuning/main.py · DeepSpeed 0.9.0";
  const i64 per_node = gpus_per_node(w.gpus), nodes = w.gpus / per_node;
  c.program = {"deepspeed"};
  if (nodes > 1) c.program.insert(c.program.end(), {"--hostfile", "hostfile", "--num_nodes", std::to_string(nodes)});
  c.program.insert(c.program.end(), {"--num_gpus", std::to_string(per_node), "main.py"});
  auto add = [&](const char* flag, const std::string& value, const char* field) { c.flags.push_back({flag, value, field}); };
  add("--model_name_or_path", model.empty() ? std::string("MODEL") : std::string(model), "model");
  add("--data_path", "DATASET", "seq");
  add("--per_device_train_batch_size", std::to_string(w.batch), "batch");
  add("--max_seq_len", std::to_string(w.seq), "seq");
  add("--gradient_accumulation_steps", "1", "accum");
  add("--zero_stage", w.sharding == Sharding::Zero1 ? "1" : "2", "zero");
  if (!w.dropout) add("--disable_dropout", "", "dropout");
  if (w.recompute == Recompute::Full) add("--gradient_checkpointing", "", "rc");
  add("--deepspeed", "", "zero");
  if (model.empty()) c.notes.push_back(issue_row("model", Str::launch_note_model));
  if (nodes > 1)
    c.notes.push_back(issue_row("gpus", Str::launch_note_ds_hostfile, std::to_string(nodes), std::to_string(per_node)));
  return c;
}

// torchtune's `tune run full_finetune_single_device --config NAME key=value …`, or
// lora_finetune_single_device for LoRA and QLoRA (_cli/run.py; the overrides are OmegaConf dotlist entries,
// config/_parse.py) with every setting the torchtune recipe assumed (training_recipe_torchtune.cpp):
// the matched builder (its lora_ or qlora_ builder with the adapted modules and rank) as the model, packed
// batches of seq tokens, torch AdamW (fused), unchunked cross-entropy (LoRA: the chunked one its
// configs name), activation offloading and optimizer_in_bwd as asked, no compile. What the recipe refuses is refused here too.
Result<LaunchCommand> torchtune_command(const ModelConfig& cfg, const Workload& w) {
  if (auto refused = recipe_refusals(cfg, w); !refused.empty()) return refused;
  const auto b = torchtune_builder_of(cfg);
  if (!b) return issue_row("recipe", Str::recipe_tt_builder);
  const bool lora = w.lora_rank > 0, qlora = w.qlora || w.weights == WeightFormat::Nf4Dq;
  const std::string& config = qlora ? b->qlora_config : lora ? b->lora_config : b->config;
  if (config.empty())
    return issue_row("recipe", qlora ? Str::exp_tt_no_qlora_config : lora ? Str::exp_tt_no_lora_config : Str::exp_tt_no_config, b->name);
  LaunchCommand c;
  c.engine = "tune";
  c.version = "torchtune 1814feb1 (Nov 2024)";
  c.key_value = true;
  c.program = {"tune", "run", lora ? "lora_finetune_single_device" : "full_finetune_single_device", "--config", config};
  c.flags = {{"model._component_", qlora ? b->qlora_component : lora ? b->lora_component : b->component, qlora ? "qlora" : "model"}};
  if (lora) {
    // The builder's arguments (models/*/_model_builders.py lora_*): lora_attn_modules as a list,
    // apply_lora_to_mlp for w1, w2 and w3 together, the rank; lora_dropout 0.0 as the configs set it (0.05 with --dropout).
    std::string modules;
    const std::pair<std::uint32_t, const char*> attn[] = {{kLoraQ, "q_proj"}, {kLoraK, "k_proj"}, {kLoraV, "v_proj"}, {kLoraO, "output_proj"}};
    for (const auto& [bit, name] : attn)
      if (w.lora_targets & bit) modules += (modules.empty() ? "" : ",") + std::string(name);
    c.flags.push_back({"model.lora_attn_modules", "[" + modules + "]", "lt"});
    c.flags.push_back({"model.apply_lora_to_mlp", (w.lora_targets & kLoraGate) ? "True" : "False", "lt"});
    c.flags.push_back({"model.lora_rank", std::to_string(w.lora_rank), "lora"});
    c.flags.push_back({"model.lora_dropout", w.dropout ? "0.05" : "0.0", "dropout"});  // any p > 0 saves the same
  }
  const std::vector<LaunchFlag> rest = {{"batch_size", std::to_string(w.batch), "batch"},
                                        {"gradient_accumulation_steps", std::to_string(w.grad_accum), "accum"},
                                        {"dataset.packed", "True", "seq"},
                                        {"tokenizer.max_seq_len", std::to_string(w.seq), "seq"},
                                        {"dtype", "bf16", "dtype"},
                                        {"optimizer._component_", "torch.optim.AdamW", "opt"},
                                        {"optimizer.fused", "True", "opt"}};
  c.flags.insert(c.flags.end(), rest.begin(), rest.end());
  if (!lora) c.flags.push_back({"optimizer_in_bwd", w.optimizer_in_bwd ? "True" : "False", "oib"});
  c.flags.push_back({"loss._component_", lora ? "torchtune.modules.loss.CEWithChunkedOutputLoss" : "torch.nn.CrossEntropyLoss", "recipe"});
  c.flags.push_back({"enable_activation_checkpointing", w.recompute == Recompute::Full ? "True" : "False", "rc"});
  c.flags.push_back({"enable_activation_offloading", w.offload_activations ? "True" : "False", "aoff"});
  c.flags.push_back({"compile", "False", "recipe"});
  c.notes.push_back(issue_row("model", Str::launch_note_tt_checkpoint, config));
  return c;
}

// Megatron-LM 040eac94's `torchrun … pretrain_gpt.py` (arguments.py: every flag below is its
// spelling there) with the settings the megatron recipe assumed (training_recipe_megatron.cpp): the
// layout, the model's shape, the micro-batch and the global batch it makes with the accumulation,
// fp16 or bf16, the distributed optimizer, dropout 0.1, and a tokenizer whose size is the model's
// vocabulary before padding (GPT2BPETokenizer's 50,257, or NullTokenizer's --vocab-size + 1,
// tokenizer/tokenizer.py _NullTokenizer). Recomputation, flash attention, learned absolute positions
// and Adam are the script's defaults at that commit. One flag a line.
Result<LaunchCommand> megatron_command(const ModelConfig& cfg, const Workload& w) {
  if (auto refused = recipe_refusals(cfg, w); !refused.empty()) return refused;
  LaunchCommand c;
  c.engine = "torchrun";
  c.version = "Megatron-LM 040eac94 (July 2023) pretrain_gpt.py";
  c.one_a_line = true;
  // torchrun (torch/distributed/run.py): one process a GPU; past 8 GPUs, nodes of the largest
  // count up to 8 that divides them, meeting at a c10d rendezvous.
  const i64 per_node = gpus_per_node(w.gpus);
  if (per_node == w.gpus) {
    c.program = {"torchrun", "--nproc_per_node", std::to_string(w.gpus), "pretrain_gpt.py"};
  } else {
    const std::string nodes = std::to_string(w.gpus / per_node);
    c.program = {"torchrun", "--nnodes", nodes, "--nproc_per_node", std::to_string(per_node), "--rdzv_backend", "c10d",
                 "--rdzv_endpoint", "HOST:29500", "pretrain_gpt.py"};
    c.notes.push_back(issue_row("gpus", Str::launch_note_mg_nodes, nodes, std::to_string(per_node)));
  }
  const i64 dp = w.gpus / (w.tp * w.pp);
  auto add = [&](const char* flag, const std::string& value, const char* field) { c.flags.push_back({flag, value, field}); };
  add("--tensor-model-parallel-size", std::to_string(w.tp), "tp");
  add("--pipeline-model-parallel-size", std::to_string(w.pp), "pp");
  if (w.seq_parallel && w.tp > 1) add("--sequence-parallel", "", "sp");
  if (w.sharding == Sharding::Zero1) add("--use-distributed-optimizer", "", "zero");
  if (w.recompute == Recompute::Selective) add("--recompute-granularity", "selective", "rc");
  if (w.recompute == Recompute::Full) {  // the recipe's one layer a checkpoint
    add("--recompute-granularity", "full", "rc");
    add("--recompute-method", "uniform", "rc");
    add("--recompute-num-layers", "1", "rc");
  }
  add("--num-layers", std::to_string(cfg.n_layers), "model");
  add("--hidden-size", std::to_string(cfg.d_model), "model");
  add("--ffn-hidden-size", std::to_string(cfg.d_ff), "model");
  add("--num-attention-heads", std::to_string(cfg.n_heads), "model");
  add("--seq-length", std::to_string(w.seq), "seq");
  add("--max-position-embeddings", std::to_string(cfg.max_positions), "model");
  if (!cfg.tie_embeddings) add("--untie-embeddings-and-output-weights", "", "model");
  if (!cfg.bias_qkv) add("--disable-bias-linear", "", "model");
  add("--micro-batch-size", std::to_string(w.batch), "batch");
  add("--global-batch-size", std::to_string(w.batch * w.grad_accum * dp), "accum");
  add(w.dtype == ComputeDtype::BF16 ? "--bf16" : "--fp16", "", "dtype");
  if (w.dtype == ComputeDtype::F16 && w.grad_dtype == GradDtype::F32) add("--accumulate-allreduce-grads-in-fp32", "", "gdt");
  add("--attention-dropout", "0.1", "dropout");
  add("--hidden-dropout", "0.1", "dropout");
  if (cfg.vocab == 50257) {
    add("--tokenizer-type", "GPT2BPETokenizer", "model");
    add("--vocab-file", "gpt2-vocab.json", "model");
    add("--merge-file", "gpt2-merges.txt", "model");
    c.notes.push_back(issue_row("model", Str::launch_note_mg_gpt2));
  } else {
    add("--tokenizer-type", "NullTokenizer", "model");
    add("--vocab-size", std::to_string(cfg.vocab - 1), "model");
    c.notes.push_back(issue_row("model", Str::launch_note_mg_null, with_commas(cfg.vocab)));
  }
  c.notes.push_back(issue_row("recipe", Str::launch_note_mg_data));
  return c;
}

// LitGPT's `python finetune/lora.py` (8641822b) or `finetune/adapter.py` / `adapter_v2.py`
// (0f021f3a), the scripts the litgpt recipe follows: their setup() flags (jsonargparse CLI:
// --checkpoint_dir, --precision bf16-true, --quantize bnb.nf4 / bnb.nf4-dq); the micro-batch and
// LoRA's rank are module globals at those commits, said in a note, and the peak's sequence is the
// longest sample, which the script puts in the first micro-batch.
Result<LaunchCommand> litgpt_command(const ModelConfig& cfg, const Workload& w, std::string_view model) {
  if (auto refused = recipe_refusals(cfg, w); !refused.empty()) return refused;
  const bool lora = w.adapter == Adapter::None;
  const std::string script = lora ? "finetune/lora.py" : w.adapter == Adapter::V2 ? "finetune/adapter_v2.py" : "finetune/adapter.py";
  LaunchCommand c;
  c.engine = "litgpt";
  c.version = lora ? "LitGPT 8641822b (Oct 2023) finetune/lora.py" : "LitGPT 0f021f3a (Jan 2024) " + script;
  c.program = {"python", script};
  c.flags.push_back({"--checkpoint_dir", "checkpoints/" + (model.empty() ? std::string("ORG/NAME") : std::string(model)), "model"});
  c.flags.push_back({"--precision", "bf16-true", "prec"});
  const bool dq = w.qlora || w.weights == WeightFormat::Nf4Dq;
  if (dq || w.weights == WeightFormat::Nf4) c.flags.push_back({"--quantize", dq ? "bnb.nf4-dq" : "bnb.nf4", "w"});
  if (model.empty()) c.notes.push_back(issue_row("model", Str::launch_note_litgpt_model));
  if (lora)
    c.notes.push_back(issue_row("lora", Str::launch_note_litgpt_lora_globals, std::to_string(w.batch), std::to_string(w.lora_rank)));
  else
    c.notes.push_back(issue_row("batch", Str::launch_note_litgpt_adapter_globals, std::to_string(w.batch), script));
  // Several GPUs: devices > 1 selects the script's FSDPStrategy; batch_size // micro_batch_size is
  // its accumulation (module globals too).
  if (w.gpus > 1)
    c.notes.push_back(issue_row("gpus", Str::launch_note_litgpt_devices, std::to_string(w.gpus), with_commas(w.batch * w.grad_accum),
                                std::to_string(w.grad_accum)));
  c.notes.push_back(issue_row("seq", Str::launch_note_litgpt_longest, with_commas(w.seq)));
  return c;
}

// TRL 0.13.0's `trl sft` (trl/cli.py: accelerate launch of trl/scripts/sft.py, whose parser is
// ScriptArguments, SFTConfig and ModelConfig) with what the hf-peft recipe assumed
// (training_recipe_hf.cpp): the model loaded in bf16 with flash attention 2, packed sequences of
// --seq tokens (SFTConfig packing, max_seq_length), micro-batch and accumulation, gradient
// checkpointing or not, bf16=True autocast for --precision mixed, torch AdamW, and LoRA through
// get_peft_config (lora_r, lora_target_modules, lora_dropout 0.05 or 0) on a bf16 base or a
// bitsandbytes nf4 one (get_quantization_config: load_in_4bit, bnb_4bit_quant_type, nested quant).
// TRL 0.13.0 scripts/sft.py's flags for the hf-peft recipe's run (the fields of ScriptArguments,
// SFTConfig and ModelConfig; trainer/utils.py get_quantization_config and get_peft_config).
void trl_sft_flags(LaunchCommand& c, const Workload& w, std::string_view model) {
  auto add = [&](const char* flag, const std::string& value, const char* field) { c.flags.push_back({flag, value, field}); };
  add("--model_name_or_path", model.empty() ? std::string("MODEL") : std::string(model), "model");
  add("--dataset_name", "DATASET", "seq");
  add("--torch_dtype", "bfloat16", "dtype");
  add("--attn_implementation", "flash_attention_2", "flash");
  add("--packing", "", "seq");
  add("--max_seq_length", std::to_string(w.seq), "seq");
  add("--per_device_train_batch_size", std::to_string(w.batch), "batch");
  add("--gradient_accumulation_steps", std::to_string(w.grad_accum), "accum");
  if (w.recompute == Recompute::Full) add("--gradient_checkpointing", "", "rc");
  if (w.precision == Precision::Mixed) add("--bf16", "", "prec");
  add("--optim", "adamw_torch", "opt");
  const bool four_bit = w.qlora || w.weights == WeightFormat::Nf4 || w.weights == WeightFormat::Nf4Dq;
  if (w.lora_rank > 0) {
    add("--use_peft", "", "lora");
    add("--lora_r", std::to_string(w.lora_rank), "lora");
    std::string modules;
    constexpr std::pair<std::uint32_t, const char*> kModules[] = {{kLoraQ, "q_proj"},       {kLoraK, "k_proj"},  {kLoraV, "v_proj"},
                                                                  {kLoraO, "o_proj"},       {kLoraGate, "gate_proj"},
                                                                  {kLoraUp, "up_proj"},     {kLoraDown, "down_proj"}};
    for (auto [bit, name] : kModules)
      if (w.lora_targets & bit) modules += (modules.empty() ? "" : " ") + std::string(name);
    c.flags.push_back({"--lora_target_modules", modules, "lt", true});
    add("--lora_dropout", w.dropout ? "0.05" : "0.0", "dropout");
  }
  if (four_bit) {
    add("--load_in_4bit", "", "w");
    add("--bnb_4bit_quant_type", "nf4", "w");
    if (w.qlora || w.weights == WeightFormat::Nf4Dq) add("--use_bnb_nested_quant", "", "w");
  }
  add("--output_dir", "out", "model");
  if (model.empty()) c.notes.push_back(issue_row("model", Str::launch_note_model));
  c.notes.push_back(issue_row("seq", Str::launch_note_trl_dataset, with_commas(w.seq)));
}

// The hf-peft recipe on one GPU: `trl sft`, which runs scripts/sft.py under accelerate launch's
// defaults (trl/cli.py).
Result<LaunchCommand> hf_peft_command(const ModelConfig& cfg, const Workload& w, std::string_view model) {
  if (auto refused = recipe_refusals(cfg, w); !refused.empty()) return refused;
  LaunchCommand c;
  c.engine = "trl";
  c.version = "TRL 0.13.0 trl sft (scripts/sft.py) · transformers 4.48.1 · PEFT 0.13.2";
  c.one_a_line = true;
  c.program = {"trl", "sft"};
  trl_sft_flags(c, w, model);
  return c;
}

// The hf-peft recipe over FSDP: the same script as a module under `accelerate launch` (accelerate
// 1.0.1 commands/launch.py: --config_file, -m), with the configuration the recipe follows —
// fms-acceleration's scripts/benchmarks/accelerate.yaml at 24bdadb2 in accelerate 1.0.1's keys
// (commands/launch.py, utils/launch.py prepare_multi_gpu_env, utils/dataclasses.py
// FullyShardedDataParallelPlugin): FULL_SHARD, TRANSFORMER_BASED_WRAP (the model's
// _no_split_modules: one unit per decoder layer), BACKWARD_PRE, no forward prefetch, no offload,
// use_orig_params, the model loaded on rank 0 and broadcast, mixed_precision 'no' (the Trainer's
// --bf16 turns autocast on where --precision mixed asks). Activation checkpointing is the
// Trainer's --gradient_checkpointing, as the recipe models it, not FSDP's wrapper. Past 8 GPUs,
// machines of the largest count up to 8 that divides them.
Result<LaunchCommand> hf_peft_fsdp_command(const ModelConfig& cfg, const Workload& w, std::string_view model) {
  if (auto refused = recipe_refusals(cfg, w); !refused.empty()) return refused;
  LaunchCommand c;
  c.engine = "accelerate";
  c.version = "accelerate 1.0.1 launch (FSDP) · TRL 0.13.0 scripts/sft.py · transformers 4.48.1";
  c.one_a_line = true;
  c.config_name = "fsdp_config.yaml";
  const i64 per_node = gpus_per_node(w.gpus);
  const i64 machines = w.gpus / per_node;
  c.program = {"accelerate", "launch", "--config_file", "fsdp_config.yaml"};
  if (machines > 1) {
    c.program.insert(c.program.end(), {"--machine_rank", "RANK"});
    c.notes.push_back(issue_row("gpus", Str::launch_note_accel_machines, std::to_string(machines), std::to_string(per_node),
                                std::to_string(machines - 1)));
  }
  c.program.insert(c.program.end(), {"-m", "trl.scripts.sft"});
  c.config_text = "compute_environment: LOCAL_MACHINE\n"
                  "distributed_type: FSDP\n"
                  "fsdp_config:\n"
                  "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n"
                  "  fsdp_backward_prefetch: BACKWARD_PRE\n"
                  "  fsdp_forward_prefetch: false\n"
                  "  fsdp_offload_params: false\n"
                  "  fsdp_sharding_strategy: FULL_SHARD\n"
                  "  fsdp_state_dict_type: SHARDED_STATE_DICT\n"
                  "  fsdp_cpu_ram_efficient_loading: true\n"
                  "  fsdp_sync_module_states: true\n"
                  "  fsdp_use_orig_params: true\n"
                  "mixed_precision: 'no'\n"
                  "machine_rank: 0\n"
                  "num_machines: " + std::to_string(machines) + "\n"
                  "num_processes: " + std::to_string(w.gpus) + "\n" +
                  (machines > 1 ? "main_process_ip: HOST\nmain_process_port: 29500\n" : "") +
                  "rdzv_backend: static\n"
                  "same_network: true\n";
  c.flags.push_back(config_key("fsdp_sharding_strategy", "FULL_SHARD", "zero"));
  c.flags.push_back(config_key("num_machines", std::to_string(machines), "gpus"));
  c.flags.push_back(config_key("num_processes", std::to_string(w.gpus), "gpus"));
  trl_sft_flags(c, w, model);
  return c;
}

bool plain_word(std::string_view s) {
  if (s.empty()) return false;
  for (char ch : s)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' ||
          ch == '/' || ch == ',' || ch == ':' || ch == '='))
      return false;
  return true;
}
std::string shell_word(std::string_view s) {
  if (plain_word(s)) return std::string(s);
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

std::string LaunchCommand::text() const {
  std::string out;
  for (const std::string& p : program) out += (out.empty() ? "" : " ") + shell_word(p);
  for (const LaunchFlag& f : flags) {
    if (f.in_config) continue;  // in the file the command names
    if (key_value) {  // one override a line, the lines joined by the shell's continuation
      out += " \\\n  " + shell_word(f.flag + "=" + f.value);
      continue;
    }
    out += one_a_line ? " \\\n  " + f.flag : " " + f.flag;
    if (f.words) {
      for (size_t at = 0; at < f.value.size();) {
        const size_t end = std::min(f.value.find(' ', at), f.value.size());
        if (end > at) out += " " + shell_word(std::string_view(f.value).substr(at, end - at));
        at = end + 1;
      }
    } else if (!f.value.empty()) {
      out += " " + shell_word(f.value);
    }
  }
  return out;
}

Result<LaunchCommand> launch_command(const ModelConfig& cfg, const Workload& w, std::string_view model) {
  if (auto issues = validate(w); !issues.empty()) return issues;
  if (w.mode == Mode::Training && w.recipe == Recipe::Torchtune) return torchtune_command(cfg, w);
  if (w.mode == Mode::Training && w.recipe == Recipe::Megatron) return megatron_command(cfg, w);
  if (w.mode == Mode::Training && w.recipe == Recipe::LitGpt) return litgpt_command(cfg, w, model);
  if (w.mode == Mode::Training && w.recipe == Recipe::DeepSpeed) return ds_chat_command(cfg, w, model);
  if (w.mode == Mode::Training && w.recipe == Recipe::HfPeft)
    return w.sharding == Sharding::Fsdp ? hf_peft_fsdp_command(cfg, w, model) : hf_peft_command(cfg, w, model);
  if (w.mode == Mode::Training) return w.sharding == Sharding::Fsdp ? fsdp_config(w) : deepspeed_config(w);
  Result<LaunchCommand> c = issue_row("rt", Str::exp_no_engine, std::string(to_string(w.runtime)));
  if (w.runtime == Runtime::Vllm) c = vllm_command(w, model);
  if (w.runtime == Runtime::Sglang) c = sglang_command(w, model);
  if (w.runtime == Runtime::LlamaCpp) c = llamacpp_command(cfg, w, model);
  if (!c || !model.empty()) return c;
  LaunchCommand out = std::move(c).value();
  out.notes.insert(out.notes.begin(), issue_row("model", w.runtime == Runtime::LlamaCpp ? Str::launch_note_model_gguf : Str::launch_note_model));
  return out;
}

std::string preset_model_id(std::string_view preset, Runtime rt) {
  if (rt == Runtime::LlamaCpp || preset.empty()) return {};
  auto p = find_preset(preset);
  return p ? hub_repo_of(p->source) : std::string();
}

std::string launch_json(const LaunchCommand& c) {
  using json_util::json;
  json j;
  j["engine"] = c.engine;
  j["version"] = c.version;
  j["command"] = c.text();
  j["program"] = c.program;
  j["flags"] = json::array();
  for (const LaunchFlag& f : c.flags) {
    json flag = {{"flag", f.flag}, {"value", f.value}, {"field", f.field}};
    if (f.in_config) flag["in_config"] = true;
    j["flags"].push_back(std::move(flag));
  }
  j["notes"] = json::array();
  for (const Issue& n : c.notes) j["notes"].push_back(n.message);
  if (!c.config_name.empty()) j["config"] = {{"name", c.config_name}, {"text", c.config_text}};
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace llmsize::core

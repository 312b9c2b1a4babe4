// Start-up logs of vLLM and llama.cpp read and set beside llmsize's engine profiles (see engine_log.hpp).
#include "engine_log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <variant>

#include "format.hpp"
#include "json_util.hpp"

namespace llmsize::core {

namespace {

constexpr double kGiBd = 1073741824.0;
constexpr double kMiBd = 1048576.0;

bool digit(char c) { return c >= '0' && c <= '9'; }

// A number at the start of `s` (spaces skipped): digits with optional thousands commas and one
// decimal part, at most 32 characters. Its text goes to `text`. nullopt when there is none.
std::optional<double> leading_number(std::string_view s, std::string* text = nullptr) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  const size_t start = i;
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  double v = 0;
  int digits = 0;
  for (; i < s.size() && i - start < 32 && (digit(s[i]) || (s[i] == ',' && digits > 0)); ++i)
    if (s[i] != ',') {
      v = v * 10 + (s[i] - '0');
      ++digits;
    }
  if (digits == 0) return std::nullopt;
  if (i + 1 < s.size() && s[i] == '.' && digit(s[i + 1])) {
    double scale = 0.1;
    for (++i; i < s.size() && i - start < 32 && digit(s[i]); ++i, scale /= 10) v += (s[i] - '0') * scale;
  }
  if (text) *text = std::string(s.substr(start, i - start));
  return neg ? -v : v;
}

// A whole number read from a log as a setting's text; one beyond int64 becomes a text the field
// refuses by name (never a cast out of range).
std::string whole(double v) {
  if (!(v > -9.2e18 && v < 9.2e18)) return "9223372036854775808";
  return std::to_string(static_cast<i64>(v));
}

// The number right after `marker` in `line`.
std::optional<double> after(std::string_view line, std::string_view marker, std::string* text = nullptr) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return leading_number(line.substr(at + marker.size()), text);
}

// A version after `marker`: digits, dots and the characters of a suffix ("0.19.0", "0.11.0+582e4e37.nv25.11").
std::optional<std::string> version_after(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view v = line.substr(at + marker.size());
  size_t n = 0;
  while (n < v.size() && n < 48 && v[n] != ' ' && v[n] != '\r' && v[n] != '\t') ++n;
  if (n == 0 || !digit(v.front())) return std::nullopt;
  return std::string(v.substr(0, n));
}

// The number after `key` where the key starts a word (", tp_size=4" but not "attn_tp_size=4").
std::optional<double> after_key(std::string_view line, std::string_view key, std::string* text = nullptr) {
  for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
    const char before = at > 0 ? line[at - 1] : ' ';
    if ((before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z') || digit(before) || before == '_') continue;
    return leading_number(line.substr(at + key.size()), text);
  }
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// `key = value` of llama.cpp's llama_context / print_info lines: the value after '='.
std::optional<std::string_view> setting(std::string_view line, std::string_view prefix, std::string_view key) {
  const size_t at = line.find(prefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = trim(line.substr(at + prefix.size()));
  if (rest.substr(0, key.size()) != key) return std::nullopt;
  rest = trim(rest.substr(key.size()));
  if (rest.empty() || rest.front() != '=') return std::nullopt;
  return trim(rest.substr(1));
}

struct Reader {
  EngineLog log;
  int vllm = 0, llamacpp = 0, sglang = 0;  // recognised lines per engine
  int devices = 0;                         // llama.cpp's "using device" lines
  int kv_caches = 0;                       // llama.cpp's iswa or dsa "creating" lines so far
  bool size_line_read = false;             // llama.cpp's first cache size line
  bool offload_order_read = false;         // llama.cpp's first "offloading" line
  bool llamacpp_2025 = false;              // a llama.cpp build of 2025 or before, by its lines
  bool compute_from_context = false;       // llama.cpp's compute buffer lines printed by llama_context (before sched_reserve)
  bool ggml_cpy = false;                   // "LLAMA_SET_ROWS=0, using old ggml_cpy() method": the cache written with ggml_cpy
  bool sched_lines = false;                // compute buffers printed by sched_reserve (builds since PR #18547, January 2026)
  bool attn_rot = false;                   // "llama_kv_cache: attn_rot_k = 1, …": a build since PR #21038 rotating a quantized cache
  bool init_from_model = false;            // compute lines from llama_init_from_model (early 2025, before llama_context)
  bool page_defaulted = false;             // SGLang changed a page_size of None (its default, not a flag)
  int launch_lines = 0;                    // SGLang's launch command continued with '\': its lines so far (0: none open)
  std::vector<double> free_mib;            // llama.cpp's "using device … - N MiB free", per device
  std::string command;                     // a llama.cpp program's command line quoted in the log
  std::string_view command_program;        // its program
  int command_lines = 0;                   // its lines so far (continued with '\'); -1 when read
  static constexpr size_t kMaxCommand = 8192;

  // A quoted llama-server / llama-cli / llama-completion command: the flags that place tensors
  // and size the context, which the start-up lines do not all print (common/arg.cpp's names).
  void llamacpp_command(std::string_view program, std::string_view args) {
    if (program != "llama-server") set("lcc", "library");  // n_outputs_max left at n_batch (PR #23861 is the server's)
    std::vector<std::string> tokens;
    for (size_t i = 0; i < args.size() && tokens.size() < 512;) {
      while (i < args.size() && (args[i] == ' ' || args[i] == '\t' || args[i] == '\\')) ++i;
      if (i >= args.size()) break;
      std::string t;
      char quote = 0;
      for (; i < args.size() && (quote || (args[i] != ' ' && args[i] != '\t')); ++i) {
        if ((args[i] == '"' || args[i] == '\'') && (!quote || quote == args[i])) quote = quote ? 0 : args[i];
        else t += args[i];
      }
      tokens.push_back(std::move(t));
    }
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string& t = tokens[i];
      const std::string next = i + 1 < tokens.size() ? tokens[i + 1] : std::string();
      const auto number = [&]() -> std::optional<std::string> {
        std::string text;
        if (auto v = leading_number(next, &text); v && *v >= 0 && text.size() == next.size()) return whole(*v);
        return std::nullopt;
      };
      if (t == "-ngl" || t == "--n-gpu-layers" || t == "--gpu-layers") {
        if (auto n = number()) set("ngl", *n);
      } else if (t == "--n-cpu-moe" || t == "-ncmoe") {
        if (auto n = number()) set("ncmoe", *n);
      } else if (t == "--cpu-moe" || t == "-cmoe") {
        log.experts_on_cpu = true;
      } else if (t == "-ts" || t == "--tensor-split") {
        std::string ts = next.substr(0, 256);
        std::replace(ts.begin(), ts.end(), '/', ',');
        set("ts", ts);
      } else if (t == "-c" || t == "--ctx-size") {
        if (auto n = number(); n && *n != "0") set("seq", *n);  // -c 0: the model's n_ctx_train, printed later
      } else if (t == "-np" || t == "--parallel") {
        if (auto n = number(); n && *n != "0") set("np", *n);
      } else if (t == "-ot" || t == "--override-tensor") {
        // "<regex>=<buffer type>,…": the experts of every layer to the CPU is --cpu-moe; a pattern
        // naming blocks, or another buffer type, is said as not modelled.
        for (size_t at = 0; at <= next.size();) {
          const size_t comma = std::min(next.find(',', at), next.size());
          const std::string_view o = std::string_view(next).substr(at, comma - at);
          const size_t eq = o.rfind('=');
          if (eq != std::string_view::npos && o.substr(eq + 1) == "CPU" && o.substr(0, eq).find("exps") != std::string_view::npos &&
              o.substr(0, eq).find("blk") == std::string_view::npos)
            log.experts_on_cpu = true;
          else if (!o.empty() && log.unread.size() < 8)
            log.unread.emplace_back(t + " " + std::string(o.substr(0, 128)));
          at = comma + 1;
        }
      }
    }
  }
  static constexpr size_t kMaxKvLines = 64;
  static constexpr size_t kMaxFigures = 1024;
  bool swa_pool = false;                   // SGLang's hybrid pool: two "KV Cache is allocated" lines
  int pool_lines = 0;                      // of them so far
  int megatron = 0;                        // Megatron-LM's lines
  int ds_chat = 0;                         // DeepSpeed-Chat's lines
  int litgpt = 0;                          // LitGPT finetune/lora.py's lines
  std::string ds_other_step;               // what marks a step-2 or step-3 DeepSpeed-Chat log
  bool in_arguments = false;               // inside its argument block
  static constexpr size_t kMaxArguments = 2048;

  void set(const std::string& key, const std::string& value) {
    for (auto& [k, v] : log.settings)
      if (k == key) {
        v = value;
        return;
      }
    log.settings.emplace_back(key, value);
  }
  bool has_setting(std::string_view key) const {
    for (const auto& [k, v] : log.settings)
      if (k == key) return true;
    return false;
  }
  // llama.cpp's cache type as printed ("f16", "q8_0") as --kv-dtype's name.
  void cache_type(std::string_view type) { set("kvt", type == "f16" ? "fp16" : type == "f32" ? "fp32" : std::string(type)); }
  void figure(const std::string& key, double value, std::string_view line) {
    // A real start-up prints a few hundred figures at most; a hostile log naming a new buffer on
    // every line stops adding (each lookup stays bounded).
    if (log.figures.size() >= kMaxFigures || log.find(key)) return;  // the first occurrence: rank 0
    log.figures.push_back({key, value, std::string(trim(line))});
  }
  // The smallest of the ranks' figures: SGLang sizes its pool from the free memory all TP ranks
  // share (model_runner.py init_torch_distributed and profile_max_num_token call
  // get_available_gpu_memory with distributed=True: an all-reduce of the minimum), while each rank
  // prints its own "avail mem".
  void figure_min(const std::string& key, double value, std::string_view line) {
    for (auto& f : log.figures)
      if (f.key == key) {
        if (value < f.value) f.value = value, f.line = std::string(trim(line));
        return;
      }
    figure(key, value, line);
  }

  // vLLM's quantization method, from --quantization or the engine's config line: fp8 is
  // Fp8OnlineLinearMethod (per-tensor fp8 at load, or an fp8 checkpoint); mxfp4 is Mxfp4Config,
  // which quantizes the FusedMoE experts only and loads every LinearBase unquantized
  // (quantization/mxfp4.py get_quant_method: UnquantizedLinearMethod), attention included.
  // awq and awq_marlin (AWQConfig, AWQMarlinConfig: the checkpoint's 4-bit weights repacked, its
  // group size's fp16 scales and packed zeros) are always 4-bit. Other methods take their format
  // from the checkpoint (compressed-tensors' "Selected" line); GPTQ's bits are not in the log.
  void quantization(std::string_view v) {
    if (v == "fp8") set("w", "fp8");
    else if (v == "mxfp4") set("w", "mxfp4"), set("kattn", "yes");
    else if (v == "awq" || v == "awq_marlin") set("w", "awq-int4");
  }

  // vLLM's `non-default args: {'model': '…', 'max_model_len': 8192, …}` (a Python dict repr).
  void vllm_args(std::string_view line) {
    size_t at = line.find("non-default args: {");
    if (at == std::string_view::npos) return;
    std::string_view d = line.substr(at + 19);
    while (!d.empty() && d.front() != '}') {
      if (d.front() != '\'') {
        d.remove_prefix(1);
        continue;
      }
      const size_t close = d.find('\'', 1);
      if (close == std::string_view::npos) return;
      const std::string_view key = d.substr(1, close - 1);
      d.remove_prefix(close + 1);
      d = trim(d);
      if (d.empty() || d.front() != ':') continue;
      d = trim(d.substr(1));
      std::string_view value;
      if (!d.empty() && d.front() == '\'') {
        const size_t end = d.find('\'', 1);
        if (end == std::string_view::npos) return;
        value = d.substr(1, end - 1);
        d.remove_prefix(end + 1);
      } else {
        size_t end = 0;
        while (end < d.size() && d[end] != ',' && d[end] != '}') ++end;
        value = trim(d.substr(0, end));
        d.remove_prefix(end);
      }
      const std::string v(value);
      if (key == "model") log.model = v;
      else if (key == "max_model_len" && v == "-1") set("vaf", "1");  // auto-fit: the length is its line's (below)
      else if (key == "max_model_len") set("seq", v);
      else if (key == "gpu_memory_utilization") set("util", v);
      else if (key == "tensor_parallel_size") set("tp", v);
      else if (key == "pipeline_parallel_size") set("pp", v);
      else if (key == "max_num_seqs") set("mns", v);
      else if (key == "max_num_batched_tokens") set("mbt", v);
      else if (key == "block_size") set("bs", v);
      else if (key == "kv_cache_memory_bytes") set("kvmem", v);
      else if (key == "enforce_eager") set("ee", v == "True" ? "1" : "0");
      else if (key == "enable_prefix_caching") set("pc", v == "False" ? "no" : "yes");
      else if (key == "language_model_only" && v == "True") set("lmo", "1");
      else if (key == "mamba_cache_dtype") set("mcd", v);  // auto, float32, float16, bfloat16: vLLM's spellings
      else if (key == "mamba_ssm_cache_dtype") set("mscd", v);
      else if (key == "mamba_cache_mode") set("mcm", v);
      else if (key == "dtype") {
        set("dtype", v == "bfloat16" ? "bf16" : v == "float16" || v == "half" ? "fp16" : v == "float32" ? "fp32" : v);
        // ref: config/model.py: the unquantized weights are loaded in --dtype, and kv_cache_dtype
        // "auto" is the model's dtype: float32 doubles both (a quantization line, later, overrides "w").
        if (v == "float32") {
          set("w", "fp32");
          if (!has_setting("kvt")) set("kvt", "fp32");
        }
      } else if (key == "quantization") quantization(v);
      else if (key == "kv_cache_dtype") {
        if (v.rfind("fp8", 0) == 0) set("kvt", "fp8");
        else if (v == "bfloat16") set("kvt", "bf16");
        else if (v == "float16") set("kvt", "fp16");
        else if (v != "auto") set("kvt", v);  // refused by the field with its allowed values
      }
    }
  }

  // Megatron-LM (megatron/arguments.py _print_args, training.py report_memory, the model's
  // parameter count): the argument block's "  name ...... value" lines, "number of parameters on
  // (tensor, pipeline) model parallel rank (t, p): N", " > padded vocab (size: V) with … (new size:
  // W)" and "[Rank r] (after N iterations) memory (MB) | allocated: A | max allocated: M | …" (MiB).
  void megatron_line(std::string_view l) {
    if (l.find("------------------------ arguments ------------------------") != std::string_view::npos) {
      in_arguments = true;
      return;
    }
    if (l.find("-------------------- end of arguments ---------------------") != std::string_view::npos) {
      in_arguments = false;
      ++megatron;
      return;
    }
    if (in_arguments) {  // "  name ...... value"; any other line (a block cut short) is read as below
      const std::string_view t = trim(l);
      const size_t dots = t.find(" ..");
      if (dots != std::string_view::npos && dots > 0 && dots <= 64) {
        size_t v = dots + 1;
        while (v < t.size() && t[v] == '.') ++v;
        const std::string_view value = trim(t.substr(v));
        if (value.size() <= 256 && log.arguments.size() < kMaxArguments) log.arguments.emplace_back(t.substr(0, dots), value);
        return;
      }
    }
    if (const size_t at = l.find("number of parameters on (tensor, pipeline) model parallel rank ("); at != std::string_view::npos) {
      std::string_view rest = l.substr(at + 64);
      const auto t = leading_number(rest);
      const size_t comma = rest.find(','), close = rest.find("):");
      if (!t || comma == std::string_view::npos || close == std::string_view::npos || comma > close) return;
      const auto p = leading_number(rest.substr(comma + 1));
      const auto n = leading_number(rest.substr(close + 2));
      if (!p || !n || *t < 0 || *p < 0 || *t > 1e6 || *p > 1e6 || *n < 0 || *n > 1e15) return;
      figure("params:" + whole(*t) + "," + whole(*p), *n, l);
      ++megatron;
      return;
    }
    if (auto v = after(l, "(new size: "); v && l.find("padded vocab (size: ") != std::string_view::npos) {
      figure("padded_vocab", *v, l);
      ++megatron;
      return;
    }
    const size_t rank_at = l.find("[Rank ");
    if (rank_at == std::string_view::npos || l.find(") memory (MB) | allocated: ") == std::string_view::npos) return;
    const auto r = leading_number(l.substr(rank_at + 6));
    const auto allocated = after(l, "| allocated: "), max_allocated = after(l, "| max allocated: ");
    if (!r || !allocated || !max_allocated || *r < 0 || *r > 1e7) return;
    figure("allocated:" + whole(*r), *allocated * kMiBd, l);
    figure("max_allocated:" + whole(*r), *max_allocated * kMiBd, l);
    if (auto n = after(l, "(after ")) figure("iterations", *n, l);
    ++megatron;
  }

  // DeepSpeed-Chat's step-1 log (training/step1_supervised_finetuning/main.py): its first line
  // "cmd = deepspeed [--num_gpus G] main.py --flag value …" (or the runner's own "cmd = … -m
  // deepspeed.launcher.launch --world_info=… main.py …", DeepSpeed ≥ 0.10 runner.py main) and
  // DeepSpeed's ThroughputTimer lines "…, MemAllocated=3.96GB, MaxMemAllocated=22.95GB" (GiB,
  // rank 0, after the step); DeepSpeed's config print "  train_batch_size ............. 128" and
  // the launcher's "[launch.py:164:main] dist_world_size=8" (deepspeed/launcher/launch.py main)
  // where the log keeps them. Steps 2 and 3 (reward model, DPO, RLHF) are told apart by their
  // evaluation banner and the actor's flag, and refused when the log is checked.
  void ds_chat_line(std::string_view l) {
    const size_t cmd_at = l.find("cmd = ");
    if (cmd_at != std::string_view::npos && l.find(" main.py") != std::string_view::npos &&
        (l.substr(cmd_at, 16) == "cmd = deepspeed " || l.find(" deepspeed.launcher.launch ") != std::string_view::npos)) {
      std::string_view rest = l.substr(cmd_at + 6);
      std::vector<std::string_view> words;
      while (!rest.empty() && words.size() < 512) {
        const size_t sp = rest.find(' ');
        const std::string_view w = rest.substr(0, sp);
        if (!w.empty()) words.push_back(w);
        if (sp == std::string_view::npos) break;
        rest.remove_prefix(sp + 1);
      }
      auto value = [&](std::string_view flag) -> std::optional<std::string_view> {
        for (size_t i = 0; i + 1 < words.size(); ++i)
          if (words[i] == flag && words[i + 1].substr(0, 2) != "--") return words[i + 1];
        return std::nullopt;
      };
      auto has = [&](std::string_view flag) { return std::find(words.begin(), words.end(), flag) != words.end(); };
      set("mode", "training");
      set("recipe", "deepspeed");
      set("dtype", "fp16");  // get_train_ds_config: fp16 enabled, DeepSpeed's loss scaling
      set("prec", "mixed");
      set("opt", "adamw");   // FusedAdam
      set("ostate", "fp32");
      set("flash", "0");     // eager attention
      for (const auto& [flag, key] : {std::pair<std::string_view, const char*>{"--per_device_train_batch_size", "batch"},
                                      {"--max_seq_len", "seq"}, {"--gradient_accumulation_steps", "accum"},
                                      {"--zero_stage", "zero"}, {"--lora_dim", "lora"}})
        if (auto v = value(flag); v && v->size() <= 32) set(key, std::string(*v));
      if (!value("--zero_stage")) set("zero", "0");  // main.py's default
      set("dropout", has("--disable_dropout") ? "0" : "1");
      set("rc", has("--gradient_checkpointing") ? "full" : "none");
      if (auto m = value("--model_name_or_path"); m && m->size() <= 256) log.model = std::string(*m);
      if (has("--actor_model_name_or_path") && ds_other_step.empty()) ds_other_step = "--actor_model_name_or_path";
      // The launcher's GPUs per node and nodes (deepspeed/launcher/runner.py: --num_gpus, --num_nodes).
      for (const auto& [flag, key] : {std::pair<std::string_view, const char*>{"--num_gpus", "ds_launch_gpus"}, {"--num_nodes", "ds_launch_nodes"}})
        if (auto v = value(flag))
          if (auto n = leading_number(*v); n && *n >= 1 && *n <= 1e6) figure(key, *n, l);
      if (has("--hostfile")) figure("ds_hostfile", 1, l);
      ++ds_chat;
      return;
    }
    if (const size_t at = l.find("] dist_world_size="); at != std::string_view::npos) {
      if (auto n = leading_number(l.substr(at + 18)); n && *n >= 1 && *n <= 1e6) figure("ds_world_size", *n, l);
      ++ds_chat;
      return;
    }
    if (l.find("***** Evaluating reward") != std::string_view::npos && ds_other_step.empty()) {
      ds_other_step = std::string(trim(l));
      ++ds_chat;
      return;
    }
    if (l.find("MaxMemAllocated=") != std::string_view::npos) {
      const auto allocated = after(l, " MemAllocated="), max_allocated = after(l, "MaxMemAllocated=");
      if (!allocated || !max_allocated || *allocated < 0 || *max_allocated < 0 || *max_allocated > 1e9) return;
      figure("mem_allocated", *allocated * kGiBd, l);
      figure("max_mem_allocated", *max_allocated * kGiBd, l);
      ++ds_chat;
      return;
    }
    for (const auto& [name, key] : {std::pair<std::string_view, const char*>{"train_batch_size", "ds_global_batch"},
                                    {"train_micro_batch_size_per_gpu", "ds_micro_batch"}})
      if (const size_t at = l.find(name); at != std::string_view::npos && l.substr(at + name.size(), 3) == " ..")
        if (auto v = leading_number(trim(l.substr(l.find_last_of('.') + 1))); v && *v >= 1 && *v <= 1e9) figure(key, *v, l);
  }

  // The workload Megatron-LM's arguments describe, as share-link keys (after the last line).
  void megatron_settings() {
    auto arg = [&](std::string_view name) -> std::optional<std::string_view> {
      if (const std::string* v = log.argument(name)) return std::string_view(*v);
      return std::nullopt;
    };
    auto number = [&](std::string_view name) -> std::optional<double> {
      const auto v = arg(name);
      return v ? leading_number(*v) : std::nullopt;
    };
    auto truth = [&](std::string_view name) { return arg(name) == std::optional<std::string_view>("True"); };
    set("mode", "training");
    set("recipe", "megatron");
    for (const auto& [name, key] : {std::pair<std::string_view, const char*>{"tensor_model_parallel_size", "tp"},
                                   {"pipeline_model_parallel_size", "pp"}, {"world_size", "gpus"},
                                   {"micro_batch_size", "batch"}, {"seq_length", "seq"}})
      if (auto v = number(name)) set(key, whole(*v));
    // Micro-batches a step: global_batch_size / (micro_batch_size · data_parallel_size).
    const auto global = number("global_batch_size"), micro = number("micro_batch_size"), dp = number("data_parallel_size");
    if (global && micro && dp && *micro >= 1 && *dp >= 1 && *global <= 9e15 && *micro <= 9e15 && *dp <= 9e15) {
      const double mb = *global / (*micro * *dp);
      set("accum", mb == std::floor(mb) ? whole(mb) : fixed(mb, 3));  // a fraction the field refuses by name
    }
    if (arg("fp16") || arg("bf16")) {  // a block cut short before them says nothing of the precision
      const bool fp16 = truth("fp16"), bf16 = truth("bf16");
      set("dtype", bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
      set("prec", fp16 || bf16 ? "mixed" : "fp32");
      set("gdt", fp16 && truth("accumulate_allreduce_grads_in_fp32") ? "fp32" : "auto");
    }
    set("ostate", "fp32");  // Adam's states are fp32 on every precision path
    if (arg("use_flash_attn")) set("flash", truth("use_flash_attn") ? "1" : "0");
    if (arg("sequence_parallel")) set("sp", truth("sequence_parallel") ? "1" : "0");
    if (arg("use_distributed_optimizer")) set("zero", truth("use_distributed_optimizer") ? "1" : "0");
    if (auto v = arg("optimizer")) set("opt", *v == "adam" ? "adamw" : std::string(*v));
    if (auto v = arg("recompute_granularity")) {
      std::string rc = *v == "None" ? "none" : std::string(*v);
      // The recipe's full recomputation is --recompute-method uniform, one layer a checkpoint, the
      // inputs kept whole (no --distribute-saved-activations); another run is a value the field
      // refuses by name.
      if (rc == "full") {
        const auto method = arg("recompute_method");
        const auto layers = number("recompute_num_layers");
        if (method != std::optional<std::string_view>("uniform") || (layers && *layers != 1) || truth("distribute_saved_activations"))
          rc = "full, recompute_method " + std::string(method ? *method : "?") + ", recompute_num_layers " +
               (layers ? whole(*layers) : std::string("?")) + (truth("distribute_saved_activations") ? ", distribute_saved_activations" : "");
      }
      set("rc", rc);
    }
    // One switch for both dropouts: on where both are, off where neither is; a mix is refused by name.
    const auto hidden = number("hidden_dropout"), attention = number("attention_dropout");
    if (hidden && attention) set("dropout", *hidden > 0 && *attention > 0 ? "1" : *hidden == 0 && *attention == 0 ? "0" : "mixed");
  }

  // LitGPT's finetune/lora.py at 8641822 (the litgpt recipe's script) prints, rank 0 alone
  // (fabric.print): its module globals, fabric.print(hparams), a dict such as "{'eval_interval': 100,
  // …, 'devices': 1, …, 'micro_batch_size': 4, 'gradient_accumulation_iters': 32, …, 'lora_r': 8,
  // 'lora_alpha': 16, 'lora_dropout': 0.05, 'lora_query': True, 'lora_key': False, …}"; "Loading
  // model 'checkpoints/ORG/NAME/lit_model.pth' with {…}"; "Number of trainable parameters:
  // 4,194,304"; "The longest sequence length in the train data is 1304, the model's maximum …";
  // and after training "Memory used: 22.18 GB" (torch.cuda.max_memory_allocated() / 1e9).
  void litgpt_line(std::string_view l) {
    if (l.find("'micro_batch_size': ") != std::string_view::npos && l.find("'lora_r': ") != std::string_view::npos) {
      set("mode", "training");
      set("recipe", "litgpt");
      for (const auto& [key, field] : {std::pair<std::string_view, const char*>{"'micro_batch_size': ", "batch"},
                                       {"'gradient_accumulation_iters': ", "accum"}, {"'lora_r': ", "lora"}, {"'devices': ", "gpus"}})
        if (auto v = after(l, key)) set(field, whole(*v));
      if (auto d = after(l, "'devices': "); d && *d > 1) {
        set("zero", "fsdp");  // devices > 1: FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block})
        set("rc", "full");
      }
      // The adapted matrices (lit_gpt/lora.py Config: to_query … to_head) as --lora-targets; the
      // head has no name there and is kept as a figure the check refuses.
      auto on = [&](std::string_view key) {
        const size_t at = l.find(key);
        return at != std::string_view::npos && l.substr(at + key.size(), 4) == "True";
      };
      std::string lt;
      for (const auto& [key, name] : {std::pair<std::string_view, const char*>{"'lora_query': ", "q"}, {"'lora_key': ", "k"},
                                      {"'lora_value': ", "v"}, {"'lora_projection': ", "o"}, {"'lora_mlp': ", "gate,up,down"}})
        if (on(key)) lt += (lt.empty() ? "" : ",") + std::string(name);
      if (!lt.empty()) set("lt", lt);
      if (on("'lora_head': ")) figure("litgpt_lora_head", 1, l);
      ++litgpt;
      return;
    }
    if (const size_t at = l.find("Loading model '"); at != std::string_view::npos && l.find("/lit_model.pth'") != std::string_view::npos) {
      // The checkpoint folder's last two parts: convert_hf_checkpoint's checkpoints/ORG/NAME.
      std::string_view path = l.substr(at + 15);
      path = path.substr(0, path.find("/lit_model.pth'"));
      const size_t name_at = path.rfind('/');
      const size_t org_at = name_at == std::string_view::npos ? std::string_view::npos : path.rfind('/', name_at - 1);
      const std::string_view repo = name_at == std::string_view::npos ? path : path.substr(org_at == std::string_view::npos ? 0 : org_at + 1);
      if (!repo.empty() && repo.size() <= 256) log.model = std::string(repo);
      ++litgpt;
      return;
    }
    if (auto n = after(l, "Number of trainable parameters: "); n && *n >= 0 && *n <= 1e15) {
      figure("litgpt_trainable", *n, l);
      ++litgpt;
      return;
    }
    if (auto n = after(l, "The longest sequence length in the train data is "); n && *n >= 1) {
      set("seq", whole(*n));
      ++litgpt;
      return;
    }
    if (const size_t at = l.find("Memory used: "); at != std::string_view::npos && l.find(" GB", at) != std::string_view::npos) {
      if (auto gb = after(l, "Memory used: "); gb && *gb >= 0 && *gb <= 1e9) {
        figure("litgpt_memory_used", *gb * 1e9, l);
        ++litgpt;
      }
    }
  }

  void line(std::string_view l) {
    megatron_line(l);
    ds_chat_line(l);
    litgpt_line(l);
    // ---- vLLM ----
    if (l.find("non-default args: {") != std::string_view::npos) {
      vllm_args(l);
      ++vllm;
    }
    // The engine's config line: "Initializing a V1 LLM engine (v0.19.0) with config: model='…', …,
    // quantization=mxfp4, enforce_eager=False, …" (its repr of VllmConfig).
    if (const size_t at = l.find(" LLM engine (v"); at != std::string_view::npos) {
      // The version where the log has no "vLLM API server version" line (the LLM class).
      if (log.version.empty())
        if (auto v = version_after(l.substr(at), " LLM engine (v")) {
          if (!v->empty() && v->back() == ')') v->pop_back();
          log.version = *v, ++vllm;
        }
      if (l.find(", enforce_eager=True,") != std::string_view::npos) set("ee", "1");
      else if (l.find(", enforce_eager=False,") != std::string_view::npos) set("ee", "0");
      if (!has_setting("pc")) {
        if (l.find(", enable_prefix_caching=False,") != std::string_view::npos) set("pc", "no");
        else if (l.find(", enable_prefix_caching=True,") != std::string_view::npos) set("pc", "yes");
      }
      // The layout where no non-default args line gave it (the LLM class, a cut log).
      for (const auto& [field, key] : {std::pair{", tensor_parallel_size=", "tp"}, std::pair{", pipeline_parallel_size=", "pp"}})
        if (const size_t p_at = l.find(field); p_at != std::string_view::npos && !has_setting(key))
          if (auto v = leading_number(l.substr(p_at + std::string_view(field).size())); v && *v > 1 && *v <= 4096)
            set(key, std::to_string(static_cast<long long>(*v)));
      if (const size_t q_at = l.find(", quantization="); q_at != std::string_view::npos) {
        std::string_view q = l.substr(q_at + 15);
        q = q.substr(0, std::min(q.find(','), size_t{32}));
        quantization(q);  // over --dtype float32's "w"; the "Selected" line, later, overrides it
      }
    }
    std::string text;
    if (auto v = version_after(l, "vLLM API server version ")) {
      log.version = *v, ++vllm;
    } else if (log.version.empty() && l.find(" version ") != std::string_view::npos &&
               (l.find("[entrypoints/") != std::string_view::npos ||
                // 0.11 and later: the start-up banner's "█  version 0.19.1" (entrypoints/utils.py).
                (l.find("\u2588") != std::string_view::npos && l.find("utils.py:") != std::string_view::npos))) {
      if (auto v2 = version_after(l.substr(l.rfind(" version ")), " version ")) log.version = *v2;
    }
    // The linear method a compressed-tensors checkpoint loads with (quantization/compressed_tensors,
    // "Selected <kernel> for <scheme>"): W8A8 int8 or fp8 weights.
    if (l.find("] Selected ") != std::string_view::npos) {
      if (l.find(" for CompressedTensorsW8A8Int8") != std::string_view::npos) set("w", "int8");
      else if (l.find(" for CompressedTensorsW8A8Fp8") != std::string_view::npos) set("w", "fp8");
      else if (l.find(" for Fp8LinearMethod") != std::string_view::npos) set("w", "fp8");  // an fp8 checkpoint (or --quantization fp8)
    }
    if (auto v = after(l, "Defaulting max_num_batched_tokens to ")) set("mbt", whole(*v));
    if (auto v = after(l, "Defaulting max_num_seqs to ")) set("mns", whole(*v));
    if (auto v = after(l, "Chunked prefill is enabled with max_num_batched_tokens=")) set("mbt", whole(*v));
    // models/config.py NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype (0.19 on): "Updating
    // mamba_ssm_cache_dtype to 'float32' for NemotronH model" where the flag was auto: the dtype
    // vLLM took from the config or its release's default, which the SSM state is allocated in.
    if (const size_t at = l.find("Updating mamba_ssm_cache_dtype to '"); at != std::string_view::npos) {
      const std::string_view rest = l.substr(at + 35);
      if (const size_t end = rest.find('\''); end != std::string_view::npos && end <= 16 && l.find(" for NemotronH model", at) != std::string_view::npos)
        set("mscd", std::string(rest.substr(0, end)));  // the field refuses what is not a dtype it knows
    }
    if (l.find("Using V2 Model Runner") != std::string_view::npos) log.model_runner_v2 = true, ++vllm;
    if (l.find("gpu_model_runner.py:") != std::string_view::npos) log.model_runner_v1 = true;
    // vllm/compilation/backends.py: "Compiling a graph for compile range (1, 2048) takes 26.37 s" on a start
    // whose compile cache was empty; a warm start loads it ("Directly load AOT compilation from path …").
    if (l.find("Compiling a graph for compile range") != std::string_view::npos) log.compiled_cold = true;
    if (auto v = after(l, "Model loading took ")) figure("weights_bytes", *v * kGiBd, l), ++vllm;
    else if (auto v2 = after(l, "Loading model weights took ")) figure("weights_bytes", *v2 * kGiBd, l), ++vllm;
    if (auto v = after(l, "Total non KV cache memory: ")) figure("non_kv_bytes", *v * kGiBd, l);
    // The profiling line's "…; weights memory: 8.80GiB." (DEBUG since 0.11): the weights where a
    // log kept that line without "Model loading took".
    if (auto v = after(l, "; weights memory: "); v && !log.find("weights_bytes")) figure("weights_bytes", *v * kGiBd, l);
    if (auto v = after(l, "torch peak memory increase: ")) figure("activation_peak_bytes", *v * kGiBd, l);
    if (auto v = after(l, "non-torch forward increase memory: ")) figure("non_torch_bytes", *v * kGiBd, l);
    if (auto v = after(l, "Available KV cache memory: ")) figure("kv_available_bytes", *v * kGiBd, l), ++vllm;
    if (auto v = after(l, "GPU KV cache size: ")) figure("kv_tokens", *v, l), ++vllm;
    // kv_cache_utils.py _auto_fit_max_model_len (--max-model-len -1): "Auto-fit max_model_len: reduced from
    // 262144 to 172032 to fit in available GPU memory (…)", or "… full model context length 262144 fits …".
    if (const size_t at = l.find("Auto-fit max_model_len: reduced from "); at != std::string_view::npos) {
      const std::string_view rest = l.substr(at + 37);
      const size_t to = rest.find(" to ");
      if (auto len = to != std::string_view::npos ? leading_number(rest.substr(to + 4)) : std::nullopt) {
        figure("max_model_len", *len, l), ++vllm;
        set("vaf", "1");
      }
    } else if (auto v = after(l, "Auto-fit max_model_len: full model context length ")) {
      figure("max_model_len", *v, l), ++vllm;
      set("vaf", "1");
    }
    if (auto v = after(l, "Setting attention block size to ")) figure("attn_block_size", *v, l), ++vllm;
    // gpu_model_runner.py capture_model: "Graph capturing finished in %.0f secs, took %.2f GiB".
    if (after(l, "Graph capturing finished in ")) {
      const size_t x = l.find(", took ");
      if (x != std::string_view::npos)
        if (auto g = leading_number(l.substr(x + 7))) figure("cuda_graph_bytes", *g * kGiBd, l), ++vllm;
    }
    // vLLM 0.19's estimate of its CUDA graphs before the KV cache (gpu_model_runner.py
    // profile_cudagraph_memory: "Estimated CUDA graph memory: %.2f GiB total"), the advice
    // gpu_worker.py determine_available_memory prints when it did not subtract it ("… To try it now,
    // set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 and increase --gpu-memory-utilization from 0.9500
    // to 0.9588 …"), and after the capture "CUDA graph pool memory: 0.91 GiB (actual), 0.84 GiB (estimated)".
    if (auto v = after(l, "Estimated CUDA graph memory: ")) figure("cuda_graph_estimate_bytes", *v * kGiBd, l), ++vllm;
    constexpr std::string_view kAdvice = "set VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 and increase --gpu-memory-utilization from ";
    if (const size_t at = l.find(kAdvice); at != std::string_view::npos) {
      const std::string_view rest = l.substr(at + kAdvice.size());
      const size_t to = rest.find(" to ");
      const auto from_util = leading_number(rest), to_util = to != std::string_view::npos ? leading_number(rest.substr(to + 4)) : std::nullopt;
      if (from_util && to_util) {
        figure("cuda_graph_util_from", *from_util, l);
        figure("cuda_graph_util_to", *to_util, l);
      }
    }
    // 0.27's first runner, which subtracts its estimate (gpu_worker.py determine_available_memory): "The
    // current --gpu-memory-utilization=0.9200 is equivalent to --gpu-memory-utilization=0.9087 without
    // CUDA graph memory profiling." The estimate is their difference × the total.
    constexpr std::string_view kEquiv = " is equivalent to --gpu-memory-utilization=";
    if (const size_t at = l.find(kEquiv); at != std::string_view::npos && l.find("CUDA graph memory profiling is enabled") != std::string_view::npos) {
      const size_t cur = l.find("The current --gpu-memory-utilization=");
      const auto from_util = cur != std::string_view::npos && cur < at ? leading_number(l.substr(cur + 37)) : std::nullopt;
      const auto to_util = leading_number(l.substr(at + kEquiv.size()));
      if (from_util && to_util) {
        figure("cuda_graph_util_current", *from_util, l);
        figure("cuda_graph_util_equivalent", *to_util, l);
        ++vllm;
      }
    }
    if (auto v = after(l, "CUDA graph pool memory: ")) {
      figure("cuda_graph_bytes", *v * kGiBd, l), ++vllm;
      if (const size_t x = l.find(" GiB (actual), "); x != std::string_view::npos)
        if (auto e = leading_number(l.substr(x + 15))) figure("cuda_graph_estimate_bytes", *e * kGiBd, l);
    }
    if (auto v = after(l, "Maximum concurrency for ")) {
      const size_t x = l.find("tokens per request: ");
      if (x != std::string_view::npos)
        if (auto c = leading_number(l.substr(x + 20))) {
          figure("max_concurrency", *c, l);
          if (!has_setting("seq")) set("seq", whole(*v));
          ++vllm;
        }
    }
    if (auto v = after(l, "num_gpu_blocks is: ")) figure("num_blocks", *v, l);
    else if (auto v2 = after(l, "# GPU blocks: ")) figure("num_blocks", *v2, l);
    // "Free memory on device cuda:0 (114.54/121.69 GiB) on startup. Desired GPU memory utilization
    // is (0.9, 109.52 GiB)", or request_memory's ValueError "… on startup is less than desired GPU
    // memory utilization (0.95, 115.61 GiB)": the free memory at start, the total, the budget.
    if (const size_t at = l.find("Free memory on device"); at != std::string_view::npos) {
      const size_t slash = l.find('/', at), open = l.find('(', at);
      if (slash != std::string_view::npos) {
        if (auto t = leading_number(l.substr(slash + 1))) figure("total_bytes", *t * kGiBd, l);
        if (open != std::string_view::npos && open < slash)
          if (auto f = leading_number(l.substr(open + 1))) figure("free_at_start_bytes", *f * kGiBd, l);
      }
    }
    // vLLM 0.26 and later close the profile with its summary (gpu_worker.py): "Actual usage is 0.93 GiB
    // for weight, 1.06 GiB for peak activation, 0.07 GiB for non-torch memory, and 0.4 GiB for
    // CUDAGraph memory." (0.26), or "Actual usage is 15.54 GiB for consumed memory (weights +
    // non-torch), 1.18 GiB for peak activation, and 0.56 GiB for CUDAGraph memory." (0.27): each
    // figure is the number before its " GiB for <what>".
    if (const size_t at = l.find("Actual usage is "); at != std::string_view::npos) {
      const std::string_view rest = l.substr(at + 16);
      const std::pair<std::string_view, const char*> parts[] = {{" GiB for peak activation", "activation_peak_bytes"},
                                                                {" GiB for non-torch memory", "non_torch_bytes"},
                                                                {" GiB for consumed memory", "consumed_bytes"}};
      for (const auto& [what, key] : parts) {
        const size_t p = rest.find(what);
        if (p == std::string_view::npos || p == 0) continue;
        const size_t from = rest.find_last_of(' ', p - 1);
        if (auto v = leading_number(rest.substr(from == std::string_view::npos ? 0 : from + 1, p - (from == std::string_view::npos ? 0 : from + 1))))
          figure(key, *v * kGiBd, l);
      }
    }
    for (std::string_view desired : {"Desired GPU memory utilization is (", "less than desired GPU memory utilization ("})
      if (auto v = after(l, desired, &text)) {
        if (!has_setting("util")) set("util", text);
        const size_t comma = l.find(", ", l.find(desired));
        if (comma != std::string_view::npos)
          if (auto b = leading_number(l.substr(comma + 2))) figure("budget_bytes", *b * kGiBd, l);
        if (desired.front() == 'l') ++vllm;  // request_memory's refusal: vLLM's own line, and its last
      }
    // ---- llama.cpp ----
    // The command, quoted before its start-up lines (after a shell prompt, maybe over lines
    // ending in '\').
    if (command_lines > 0) {
      command += " " + std::string(trim(l));
      ++command_lines;
    } else if (command_lines == 0) {
      for (std::string_view program : {"llama-server", "llama-cli", "llama-completion"}) {
        const size_t at = l.find(program);
        if (at == std::string_view::npos || (at > 0 && l[at - 1] != '/' && l[at - 1] != ' ')) continue;
        std::string_view rest = l.substr(at + program.size());
        if (rest.substr(0, 4) == ".exe") rest.remove_prefix(4);
        if (!trim(rest).empty() && rest.front() != ' ') continue;  // "llama-server.exe", "llama-cli:": not a command
        command_program = program;
        command = std::string(trim(rest));
        command_lines = 1;
        break;
      }
    }
    if (command_lines > 0 && (command.empty() || command.back() != '\\' || command_lines >= 64 || command.size() > kMaxCommand)) {
      llamacpp_command(command_program, std::string_view(command).substr(0, kMaxCommand));
      command_lines = -1;
    }
    // Its cache classes by build: llama_kv_cache(_iswa, _dsa) since late 2025;
    // llama_kv_cache_unified(_iswa) from about b5100 to b6700; before, llama_kv_cache_init (its
    // "init:" in some builds) with one cache for every layer, summed as "KV self size".
    if (l.find("_iswa: creating") != std::string_view::npos || l.find("llama_kv_cache_dsa: creating") != std::string_view::npos)
      ++kv_caches;
    // "llama_kv_cache_iswa: using full-size SWA cache (ref: …)" (or _unified_iswa in mid-2025 builds): --swa-full.
    if (l.find("_iswa: using full-size SWA cache") != std::string_view::npos) set("swaf", "1");
    // "llama_kv_cache:      CUDA1 KV buffer size =  1152.00 MiB": per cache (counted by the iswa
    // lines before it) and device, under each build's class name.
    if (const size_t at = l.find(" KV buffer size = "); at != std::string_view::npos)
      for (std::string_view tag : {"llama_kv_cache_unified:", "llama_kv_cache_init:", "llama_kv_cache:", "init:"})
        if (const size_t t = l.find(tag); t != std::string_view::npos && t + tag.size() < at) {
          const std::string_view name = trim(l.substr(t + tag.size(), at - t - tag.size()));
          if (auto v = leading_number(l.substr(at + 18)); v && !name.empty() && name.size() <= 32)
            figure("kv_buffer:" + std::to_string(kv_caches) + ":" + std::string(name), *v * kMiBd, l);
          break;
        }
    for (std::string_view marker : {"llama_kv_cache_iswa: creating", "llama_kv_cache_unified_iswa: creating",
                                    "llama_kv_cache_dsa: creating", "llama_kv_cache: size =", "llama_kv_cache_unified: size =",
                                    "KV self size", "llama_memory_recurrent: size ="})
      if (const size_t at = l.find(marker); at != std::string_view::npos) {
        if (log.kv_lines.size() < kMaxKvLines) log.kv_lines.emplace_back(trim(l.substr(at)));
        ++llamacpp;
        llamacpp_2025 |= marker.find("unified") != std::string_view::npos || marker == "KV self size";
        // The builds before the SWA cache (PR #13194) kept every layer's n_ctx cells in one
        // cache: what --swa-full keeps, in two.
        if (marker == "KV self size") set("swaf", "1");
        // "(  8192 cells,  32 layers,  4/4 seqs)" of the first cache: n_ctx, the slots and the
        // streams (n_seq_max / 1 unified, n_seq_max / n_seq_max not) where no llama_context line
        // said them (a log quoting its size lines alone).
        if (marker.find(": size =") != std::string_view::npos && marker != "llama_memory_recurrent: size =" && !size_line_read) {
          size_line_read = true;
          const std::optional<double> cells = after(l, "(");
          const size_t seqs_at = l.find(" layers, ");
          const std::optional<double> a = seqs_at == std::string_view::npos ? std::nullopt : leading_number(l.substr(seqs_at + 9));
          const size_t slash = seqs_at == std::string_view::npos ? std::string_view::npos : l.find('/', seqs_at);
          const size_t close = seqs_at == std::string_view::npos ? std::string_view::npos : l.find(')', seqs_at);
          std::optional<double> b;
          if (slash != std::string_view::npos && slash < close) b = leading_number(trim(l.substr(slash + 1)));
          if (cells && a && *cells >= 1 && *a >= 1 && *a <= 1 << 20 && (!b || (*b >= 1 && *b <= *a))) {
            const double streams = b ? *b : 1;  // "1 seqs" (mid-2025): one stream
            if (!has_setting("np")) set("np", whole(*a));
            if (!has_setting("kvu") && *a > 1) set("kvu", streams == 1 ? "1" : "0");
            if (!has_setting("seq") && *cells * streams <= 1e12) set("seq", whole(*cells * streams));
          }
        }
      }
    // The cache's type from its size line, in any build's wording ("llama_kv_cache: size = …",
    // "llama_kv_cache_unified: size = …", "… KV self size = …"): "K (f16)"; or from
    // llama_kv_cache_init's "kv_size = 4096, offload = 1, type_k = 'f16', …".
    if (((l.find("llama_kv_cache") != std::string_view::npos && l.find(" size = ") != std::string_view::npos) ||
         l.find("KV self size") != std::string_view::npos) &&
        l.find(" buffer size = ") == std::string_view::npos)
      if (const size_t k = l.find("K ("); k != std::string_view::npos && !has_setting("kvt"))
        cache_type(l.substr(k + 3, std::min<size_t>(l.find(')', k), k + 16) - (k + 3)));
    if (l.find("kv_size = ") != std::string_view::npos)
      if (const size_t k = l.find("type_k = '"); k != std::string_view::npos && !has_setting("kvt")) {
        cache_type(l.substr(k + 10, std::min<size_t>(l.find('\'', k + 10), k + 24) - (k + 10)));
        set("swaf", "1");  // llama_kv_cache_init: one cache for every layer, before PR #13194
      }
    // The context's settings, printed by llama_context (2025 on), llama_init_from_model (early
    // 2025) or llama_new_context_with_model (2024).
    auto context = [&](std::string_view key) -> std::optional<std::string_view> {
      for (std::string_view p : {"llama_context:", "llama_init_from_model:", "llama_new_context_with_model:"})
        if (auto v = setting(l, p, key)) return v;
      return std::nullopt;
    };
    if (auto v = context("n_ctx")) {
      if (auto n = leading_number(*v)) set("seq", whole(*n)), ++llamacpp;
    }
    if (auto v = context("n_ubatch"))
      if (auto n = leading_number(*v)) set("ub", whole(*n));
    // n_batch as the context clamped it (min(n_ctx, -b)): read where it is not the default.
    if (auto v = context("n_batch"))
      if (auto n = leading_number(*v); n && *n != 2048) set("nb", whole(*n));
    if (auto v = context("n_seq_max"))
      if (auto n = leading_number(*v)) set("np", whole(*n));
    if (auto v = context("kv_unified")) set("kvu", *v == "true" ? "1" : "0");
    if (auto v = context("flash_attn"))
      set("flash", *v == "disabled" || *v == "0" || *v == "false" ? "0" : "1");
    if (auto v = setting(l, "print_info:", "general.name")) log.model = std::string(*v);
    // print_info: file type = Q4_K - Medium (llama_model_ftype_name) → the weights format.
    if (auto v = setting(l, "print_info:", "file type")) {
      static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
          {"Q4_K - Medium", "q4_k_m"}, {"Q4_K - Small", "q4_k_s"}, {"Q5_K - Medium", "q5_k_m"}, {"Q5_K - Small", "q5_k_s"},
          {"Q6_K", "q6_k"},           {"Q8_0", "q8_0"},          {"Q4_0", "q4_0"},           {"Q5_0", "q5_0"},
          {"Q3_K - Large", "q3_k_l"}, {"Q3_K - Medium", "q3_k_m"}, {"Q3_K - Small", "q3_k_s"}, {"Q2_K - Medium", "q2_k"},
          {"IQ4_XS - 4.25 bpw", "iq4_xs"}, {"MXFP4 MoE", "mxfp4_moe"}, {"BF16", "bf16"},       {"F16", "fp16"},
          {"all F32", "fp32"}};
      for (const auto& [name, key] : kTypes)
        if (*v == name) set("w", std::string(key));
    }
    // "offloaded N/M layers": every layer when N = M (-ngl -1: the same whatever layers the model
    // given has beside the file's, such as a Qwen3.5 GGUF with or without its MTP block), else N.
    if (const size_t at = l.find("load_tensors: offloaded "); at != std::string_view::npos)
      if (auto n = leading_number(l.substr(at + 24))) {
        const size_t slash = l.find('/', at + 24);
        const auto of = slash != std::string_view::npos ? leading_number(l.substr(slash + 1)) : std::nullopt;
        set("ngl", of && *of == *n ? std::string("-1") : whole(*n));
        ++llamacpp;
      }
    // -ngl's order (load_tensors' LLAMA_LOG_INFO): builds since PR #18148 print the output
    // layer's line first; earlier ones the repeating layers' first and the output layer's only
    // past n_layer.
    if (!offload_order_read && l.find("load_tensors: offloading ") != std::string_view::npos) {
      offload_order_read = true;
      const bool output_first = l.find("load_tensors: offloading output layer") != std::string_view::npos;
      set("lco", output_first ? "output-first" : "blocks-first");
      llamacpp_2025 |= !output_first;
    }
    // "load_tensors:        CUDA1 model buffer size =  3105.20 MiB": one figure per buffer, by name.
    if (const size_t at = l.find(" model buffer size = "); at != std::string_view::npos && l.find("load_tensors:") != std::string_view::npos) {
      const size_t lt = l.find("load_tensors:");
      const std::string_view name = trim(l.substr(lt + 13, at > lt + 13 ? at - lt - 13 : 0));
      if (auto v = leading_number(l.substr(at + 21)); v && !name.empty() && name.size() <= 32)
        figure("model_buffer:" + std::string(name), *v * kMiBd, l);
    }
    // "llama_context: graph splits = 329 (with bs=512), 53 (with bs=1)", or "graph splits = 2"
    // where both graphs split alike: the scheduler's splits of the ubatch's graph and one token's.
    if (const size_t at = l.find(" graph splits = "); at != std::string_view::npos &&
                                                       (l.find("llama_context:") < at || l.find("sched_reserve:") < at ||
                                                        l.find("llama_init_from_model:") < at)) {
      const std::string_view rest = l.substr(at + 16);
      if (auto pp = leading_number(rest); pp && *pp >= 1 && *pp < 1e6) {
        figure("graph_splits", *pp, l);
        double tg = *pp;
        if (const size_t c = rest.find("), "); c != std::string_view::npos && rest.find("(with bs=1)") != std::string_view::npos)
          if (auto v = leading_number(rest.substr(c + 3)); v && *v >= 1 && *v < 1e6) tg = *v;
        figure("graph_splits_tg", tg, l);
      }
    }
    // "sched_reserve: graph nodes  = 1377": the reserved ubatch graph's nodes (views included), or
    // "… = N (with bs=512), M (with bs=1)" where the two differ: the first.
    if (const size_t at = l.find(" graph nodes "); at != std::string_view::npos &&
                                                   (l.find("llama_context:") < at || l.find("sched_reserve:") < at ||
                                                    l.find("llama_init_from_model:") < at)) {
      const std::string_view rest = trim(l.substr(at + 13));
      if (!rest.empty() && rest[0] == '=')
        if (auto v = leading_number(trim(rest.substr(1))); v && *v >= 1 && *v < 1e8) figure("graph_nodes", *v, l);
    }
    // ref: llama_kv_cache_unified's warning (July 2025, while PR #14959's set_rows was opt-in).
    if (l.find("LLAMA_SET_ROWS=0, using old ggml_cpy() method") != std::string_view::npos) ggml_cpy = true;
    // "llama_kv_cache: attn_rot_k = 1, n_embd_head_k_all = 256" (PR #21038's rotation, on for a
    // quantized cache; printed by every build that has it).
    if (l.find("llama_kv_cache: attn_rot_k = 1") != std::string_view::npos || l.find("llama_kv_cache: attn_rot_v = 1") != std::string_view::npos)
      attn_rot = true;
    if (const size_t at = l.find("  output buffer size = "); at != std::string_view::npos && l.find("llama_context:") != std::string_view::npos)
      if (auto v = leading_number(l.substr(at + 23))) figure("output_buffer_bytes", *v * kMiBd, l);
    // "llama_context:      CUDA0 compute buffer size =   304.00 MiB" (builds of 2026 print it from
    // "sched_reserve:"): one figure per buffer, by name.
    if (const size_t at = l.find(" compute buffer size = "); at != std::string_view::npos) {
      size_t lc = l.find("llama_context:"), skip = 14;
      if (lc == std::string_view::npos && (lc = l.find("llama_init_from_model:")) != std::string_view::npos)
        skip = 22, compute_from_context = init_from_model = true;
      else if (lc == std::string_view::npos)
        sched_lines |= (lc = l.find("sched_reserve:")) != std::string_view::npos;
      else
        compute_from_context = true;
      if (lc == std::string_view::npos || lc > at) lc = at, skip = 0;
      const std::string_view name = skip ? trim(l.substr(lc + skip, at > lc + skip ? at - lc - skip : 0)) : std::string_view();
      if (auto v = leading_number(l.substr(at + 23)); v && !name.empty() && name.size() <= 32)
        figure("compute_buffer:" + std::string(name), *v * kMiBd, l);
    }
    // "graph_reserve: reserving a graph for ubatch with n_tokens =  512, n_seqs =  1, n_outputs =  512":
    // a ubatch's every token reserved as an output where there are fewer sequences, which
    // llama-server has not done since PR #23861 (its slots' outputs): a library caller's reserve.
    if (l.find("graph_reserve: reserving a graph for ubatch with") != std::string_view::npos) {
      const auto t = after(l, "n_tokens ="), q = after(l, "n_seqs ="), o = after(l, "n_outputs =");
      if (t && q && o && *o == *t && *t > *q && !has_setting("lcc")) set("lcc", "library");
    }
    // The table llama.cpp prints at exit (llama_memory_breakdown_print, 2026 builds), MiB
    // truncated: "|   - CUDA0 (RTX 4090)   | 24077 =  945 + (19187 = 17904 +     384 +     898) +  3945 |"
    // (total = free + (self = model + context + compute) + unaccounted) and "|   - Host | self =
    // model + context + compute |"; context is the KV cache and recurrent state
    // (llama_context::memory_breakdown: model, memory, scheduler buffers by buffer type). Later
    // builds print it as common_memory_breakdown_print, also before loading (the fit's projection
    // with the initial parameters): the last table is the run's.
    size_t table_at = l.find("llama_memory_breakdown_print: |   - ");
    if (table_at == std::string_view::npos) table_at = l.find("common_memory_breakdown_print: |   - ");
    if (table_at != std::string_view::npos) {
      const std::string_view row = l.substr(l.find("_breakdown_print: |   - ", table_at) + 24);
      const size_t bar = row.find('|');
      if (bar != std::string_view::npos) {
        std::string_view name = trim(row.substr(0, bar));
        if (const size_t paren = name.find(" ("); paren != std::string_view::npos) name = name.substr(0, paren);
        std::vector<double> n;
        std::string_view rest = row.substr(bar + 1);
        for (size_t i = 0; i < rest.size() && n.size() < 8;) {
          if (!digit(rest[i])) {
            ++i;
            continue;
          }
          std::string digits;
          if (auto v = leading_number(rest.substr(i), &digits)) n.push_back(*v);
          i += std::max<size_t>(digits.size(), 1);
        }
        const size_t first = n.size() == 7 ? 3 : n.size() == 4 ? 1 : 0;  // a device's line, or the host's
        if (first > 0 && !name.empty() && name.size() <= 32) {
          ++llamacpp;
          // self, then model, context and compute (the numbers after it)
          for (const auto& [column, i] : {std::pair<std::string_view, size_t>{"self", 0}, {"model", 1}, {"context", 2}, {"compute", 3}}) {
            const std::string key = "breakdown_" + std::string(column) + ":" + std::string(name);
            std::erase_if(log.figures, [&](const LogFigure& f) { return f.key == key; });
            figure(key, n[first - 1 + i] * kMiBd, l);
          }
        }
      }
    }
    // "llama_model_load_from_file_impl: using device CUDA1 (…)": llama.cpp's devices, one stage each here.
    if (l.find("llama_model_load_from_file_impl: using device ") != std::string_view::npos) {
      set("pp", std::to_string(++devices));
      set("gpus", std::to_string(devices));
      // "… - 9862 MiB free": load_tensors' default split is each device's free memory.
      if (const size_t at = l.rfind(" - "); at != std::string_view::npos && l.find(" MiB free", at) != std::string_view::npos)
        if (auto v = leading_number(l.substr(at + 3)); v && free_mib.size() < 16) free_mib.push_back(*v);
    }
    if (l.rfind("build: ", 0) == 0)
      if (auto b = leading_number(l.substr(7), &text)) log.version = "b" + text;
    // llama-server's "build_info: b8946-0f1bb602d" (a timestamp may come first).
    if (const size_t at = l.find("build_info: b"); at != std::string_view::npos && log.version.empty())
      if (auto b = leading_number(l.substr(at + 13), &text)) log.version = "b" + text;
    // ---- SGLang ----
    if (auto v = after(l, "Load weight begin. avail mem=")) figure_min("pre_bytes", *v * kGiBd, l), ++sglang;
    if (l.find("Load weight end.") != std::string_view::npos) {
      if (auto v = after(l, "avail mem=")) figure_min("post_bytes", *v * kGiBd, l), ++sglang;
      if (auto v = after(l, "mem usage=")) figure("weights_bytes", *v * kGiBd, l);
      // model_runner.py load_model: "…, type=Qwen3MoeForCausalLM, quant=fp8, fmt=e4m3, avail mem=…":
      // an fp8 checkpoint ("Detected fp8 checkpoint."), its weights one byte each.
      if (l.find(", quant=fp8,") != std::string_view::npos) set("w", "fp8");
      // "…, quant=awq, bits=4, avail mem=…": an AWQ checkpoint, 4-bit always (as vLLM's awq above).
      if (l.find(", quant=awq,") != std::string_view::npos) set("w", "awq-int4");
    }
    // server_args.py: context_length=None is the model's own context (model_config.py
    // get_context_length), where no later "context_len=" line says it.
    if (l.find("ServerArgs(") != std::string_view::npos && l.find(", context_length=None") != std::string_view::npos)
      log.seq_is_model_max = true;
    // The checkpoint: server_args' model_path='…' (the first one named).
    if (log.model.empty() && l.find("ServerArgs(") != std::string_view::npos)
      if (const size_t at = l.find("model_path='"); at != std::string_view::npos) {
        const std::string_view rest = l.substr(at + 12);
        if (const size_t end = rest.find('\''); end != std::string_view::npos && end > 0 && end <= 256)
          log.model = std::string(rest.substr(0, end));
      }
    // The hybrid pool (swa_memory_pool.py): "Use sliding window memory pool. full_layer_tokens=F,
    // swa_layer_tokens=W", the sliding layers' pool line, the full layers', then "SWAKVPool mem usage".
    if (l.find("ing window memory pool.") != std::string_view::npos) {
      ++sglang;
      if (auto v = after_key(l, "full_layer_tokens=")) figure("kv_tokens", *v, l);
      if (auto v = after_key(l, "swa_layer_tokens=")) figure("swa_tokens", *v, l);
    }
    if (auto v = after(l, "SWAKVPool mem usage: ")) {
      ++sglang;
      figure("kv_bytes", *v * kGiBd, l);
      if (auto n = after(l, "swa size: ")) figure("swa_tokens", *n, l);
      if (auto n = after(l, "full size: ")) figure("kv_tokens", *n, l);
    }
    if (l.find("Mamba Cache is allocated.") != std::string_view::npos) {  // memory_pool.py MambaPool
      ++sglang;
      if (auto v = after(l, "max_mamba_cache_size: ")) figure("mamba_slots", *v, l);
      if (auto v = after(l, "conv_state size: ")) figure("mamba_conv_bytes", *v * kGiBd, l);
      if (auto v = after(l, "ssm_state size: ")) figure("mamba_ssm_bytes", *v * kGiBd, l);
    }
    if (l.find("KV Cache is allocated.") != std::string_view::npos) {
      ++sglang;
      const std::optional<double> tokens = after(l, "#tokens: ");
      std::string pool;  // "swa_" for the sliding layers' pool: by its size where the log gave both, else first
      if (swa_pool) {
        const LogFigure* w = log.find("swa_tokens");
        const LogFigure* f = log.find("kv_tokens");
        const bool first = ++pool_lines % 2 == 1;
        if (w && f && w->value != f->value ? tokens && *tokens == w->value : first) pool = "swa_";
      }
      if (tokens) figure(pool.empty() ? "kv_tokens" : "swa_tokens", *tokens, l);
      if (l.find("KV size: ") != std::string_view::npos) {
        if (auto v = after(l, "KV size: ")) figure(pool + "k_bytes", *v * kGiBd, l);
      } else {
        if (auto v = after(l, "K size: ")) figure(pool + "k_bytes", *v * kGiBd, l);
        if (auto v = after(l, "V size: ")) figure(pool + "v_bytes", *v * kGiBd, l);
      }
    }
    // Each rank's own free memory after the pools: the least, as the free memory before them.
    if (auto v = after(l, "Memory pool end. avail mem=")) figure_min("pool_end_bytes", *v * kGiBd, l), ++sglang;
    if (auto v = after_key(l, "max_total_num_tokens=")) figure("kv_tokens", *v, l), ++sglang;
    if (auto v = after_key(l, "max_running_requests=")) figure("max_running_requests", *v, l);
    if (auto v = after_key(l, "context_len=")) set("seq", whole(*v));
    if (auto v = after_key(l, "chunked_prefill_size=")) set("cps", whole(*v));
    // --page-size: a backend's "changing page_size from 1 to 64" names the flag it overrode
    // (from None: the flag was not given, and the profile picks the backend's pages itself);
    // server_args, printed after, holds the resolved page_size.
    if (const size_t ch = l.find("changing page_size from "); ch != std::string_view::npos) {
      if (auto v = leading_number(l.substr(ch + 24))) set("psz", whole(*v));
      else page_defaulted = true;
    } else if (l.find("ServerArgs(") != std::string_view::npos && !page_defaulted) {
      if (auto v = after_key(l, "page_size=")) set("psz", whole(*v));
    }
    // server_args' max_running_requests and max_total_tokens (None: SGLang's default, the profile's).
    if (l.find("ServerArgs(") != std::string_view::npos) {
      if (auto v = after_key(l, "max_running_requests=")) set("mrr", whole(*v));
      if (auto v = after_key(l, "max_total_tokens=")) set("mtt", whole(*v));
    }
    if (auto v = after_key(l, "mem_fraction_static=", &text)) set("mfs", text);
    else if (auto v2 = after(l, "--mem-fraction-static ", &text)) set("mfs", text);
    // A launch command (python -m sglang.launch_server … or sglang serve …) and the lines it
    // continues with a trailing '\' (a shell's wrapped command), 64 at most.
    const bool launch = launch_lines > 0 || l.find("launch_server") != std::string_view::npos || l.find("sglang serve") != std::string_view::npos;
    std::string_view tail = l;
    while (!tail.empty() && (tail.back() == ' ' || tail.back() == '\r' || tail.back() == '\t')) tail.remove_suffix(1);
    launch_lines = launch && !tail.empty() && tail.back() == '\\' && launch_lines < 64 ? launch_lines + 1 : 0;
    if (auto v = after_key(l, "tp_size=")) set("tp", whole(*v));
    else if (launch) {
      for (std::string_view flag : {"--tp ", "--tp-size ", "--tensor-parallel-size "})
        if (auto v2 = after(l, flag)) set("tp", whole(*v2));
    }
    if (l.find("kv_cache_dtype='fp8") != std::string_view::npos) set("kvt", "fp8");
    // server_args' mamba_ssm_dtype (None in later builds: the config's), or the flag on a launch line.
    for (std::string_view dt : {"float32", "bfloat16", "float16"}) {
      const std::string key = "mamba_ssm_dtype='" + std::string(dt) + "'", flag = "--mamba-ssm-dtype " + std::string(dt);
      if (l.find(key) != std::string_view::npos || (launch && l.find(flag) != std::string_view::npos))
        set("msd", std::string(dt));
    }
  }
};

std::string gib_text(double bytes) { return vllm_gib(static_cast<i64>(std::llround(bytes))); }

// A row's text match and relative difference (ours / logged − 1; 0, or 1 against a logged 0), from
// its texts and values.
void settle(LogCheckRow& row) {
  row.same_text = row.logged == row.ours;
  row.rel_diff = row.logged_value != 0 ? row.ours_value / row.logged_value - 1.0 : (row.ours_value == 0 ? 0 : 1);
}

// The log's figure `key` beside llmsize's `ours`, both written by `text` (nothing where the log
// has no such figure).
template <class Text>
void add_figure_row(LogCheck& out, const EngineLog& log, const char* key, Str row, double ours, const Text& text) {
  const LogFigure* f = log.find(key);
  if (!f) return;
  LogCheckRow r;
  r.key = key;
  r.row = row;
  r.logged_value = f->value;
  r.ours_value = ours;
  r.logged = text(f->value);
  r.ours = text(ours);
  r.label = r.label_in(Lang::En);
  settle(r);
  out.rows.push_back(std::move(r));
}

}  // namespace

std::string_view to_string(LogEngine e) {
  switch (e) {
    case LogEngine::Vllm: return "vLLM";
    case LogEngine::LlamaCpp: return "llama.cpp";
    case LogEngine::SGLang: return "SGLang";
    case LogEngine::Megatron: return "Megatron-LM";
    case LogEngine::DeepSpeedChat: return "DeepSpeed-Chat";
    case LogEngine::LitGpt: return "LitGPT";
  }
  return "vLLM";
}

const std::string* EngineLog::argument(std::string_view name) const {
  for (const auto& [k, v] : arguments)
    if (k == name) return &v;
  return nullptr;
}

const LogFigure* EngineLog::find(std::string_view key) const {
  for (const auto& f : figures)
    if (f.key == key) return &f;
  return nullptr;
}

Result<EngineLog> parse_engine_log(std::string_view text) {
  if (text.size() > kMaxLogBytes)
    return issue_row("log", Str::log_too_big, with_commas(static_cast<i64>(text.size())), with_commas(static_cast<i64>(kMaxLogBytes)));
  Reader r;
  r.swa_pool = text.find("SWAKVPool mem usage") != std::string_view::npos ||
               text.find("ing window memory pool.") != std::string_view::npos;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (line.size() <= kMaxLogLine) r.line(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (r.vllm == 0 && r.llamacpp == 0 && r.sglang == 0 && r.megatron == 0 && r.ds_chat == 0 && r.litgpt == 0)
    return issue_row("log", Str::log_no_lines);
  if (r.litgpt > r.vllm && r.litgpt > r.llamacpp && r.litgpt > r.sglang && r.litgpt > r.megatron && r.litgpt > r.ds_chat) {
    r.log.engine = LogEngine::LitGpt;
    // Its settings are the script's prints alone; the inference engines' keys read from it would be noise.
    std::erase_if(r.log.settings, [](const auto& s) { return s.first == "util" || s.first == "mbt" || s.first == "mns"; });
    return std::move(r.log);
  }
  if (r.ds_chat > r.vllm && r.ds_chat > r.llamacpp && r.ds_chat > r.sglang && r.ds_chat > r.megatron) {
    r.log.engine = LogEngine::DeepSpeedChat;
    if (!r.ds_other_step.empty()) return issue_row("log", Str::log_ds_other_step, r.ds_other_step);
    // Its settings are the cmd line's alone; the inference engines' keys read from it would be noise.
    std::erase_if(r.log.settings, [](const auto& s) { return s.first == "util" || s.first == "mbt" || s.first == "mns"; });
    return std::move(r.log);
  }
  if (r.megatron > r.vllm && r.megatron > r.llamacpp && r.megatron > r.sglang) {
    r.log.engine = LogEngine::Megatron;
    r.log.settings.clear();  // the inference engines' keys read from it would be noise
    r.megatron_settings();
    return std::move(r.log);
  }
  if (r.sglang > r.vllm && r.sglang > r.llamacpp) r.log.engine = LogEngine::SGLang;
  else r.log.engine = r.llamacpp > r.vllm ? LogEngine::LlamaCpp : LogEngine::Vllm;
  // vLLM 0.27.1 and 0.28: their profiles (--vllm-version 0.27, 0.28), on Model Runner V2 ("Using V2
  // Model Runner") or, for a MoE or hybrid model, the first runner; 0.28 turns prefix caching on for
  // hybrid models by default (vLLM PR #50991, after 0.27.1).
  if (r.log.engine == LogEngine::Vllm && !r.has_setting("vver")) {
    if (r.log.version.rfind("0.27", 0) == 0) r.set("vver", "0.27");
    else if (r.log.version.rfind("0.28", 0) == 0) r.set("vver", "0.28");
  }
  // 0.27's first runner takes its CUDA graph estimate from the KV cache (--vllm-cuda-graph-mib): the
  // log's own, from "CUDA graph pool memory: … GiB (estimated)", else from the utilization it says the
  // estimate is worth (× the total the summary prints).
  if (r.log.engine == LogEngine::Vllm && r.has_setting("vver") && !r.has_setting("vcg")) {
    double est = 0;
    const LogFigure *cur = r.log.find("cuda_graph_util_current"), *eq = r.log.find("cuda_graph_util_equivalent");
    const LogFigure* total = r.log.find("total_bytes");
    if (const LogFigure* e = r.log.find("cuda_graph_estimate_bytes")) est = e->value;
    else if (cur && eq && total) est = (cur->value - eq->value) * total->value;
    if (est >= 1048576.0 && est < 1048576.0 * (1 << 24)) r.set("vcg", std::to_string(std::llround(est / 1048576.0)));
  }
  if (r.log.engine != LogEngine::Vllm) {  // the vLLM keys read from another engine's log would be noise
    std::erase_if(r.log.settings, [](const auto& s) { return s.first == "util" || s.first == "mbt" || s.first == "mns"; });
  }
  // A llama.cpp build of 2025 (its class names, -ngl's blocks-first order, or compute buffers
  // printed by llama_context rather than sched_reserve) predates PR #23861
  // (May 2026): every caller, llama-server too, reserved the whole ubatch's outputs.
  if (r.log.engine == LogEngine::LlamaCpp && (r.llamacpp_2025 || r.compute_from_context) && !r.has_setting("lcc"))
    r.set("lcc", "library");
  // The graph its compute buffers were reserved for (--llamacpp-graph): by the build number where
  // one is printed (build 5505 gave flash attention the f32 mask, build 5781 cast it and wrote the
  // cache with ggml_cpy), else a 2025 build (its class names, or compute buffers printed by
  // llama_context, which sched_reserve took over in January 2026 with PR #18547) wrote it with
  // set_rows and had no embeddings input (PR #18898). A 2026 build is taken as the current
  // graph (the f16 mask of PR #23764, May 2026), but for the numbered builds known to precede it
  // (below); another earlier 2026 build is --llamacpp-graph 2026-01.
  if (r.log.engine == LogEngine::LlamaCpp && !r.has_setting("lcg")) {
    i64 build = 0;
    if (r.log.version.size() > 1 && r.log.version[0] == 'b')
      if (auto v = leading_number(std::string_view(r.log.version).substr(1)); v && *v > 0 && *v < 1e7) build = static_cast<i64>(*v);
    // A build number is the commits of the tree it was built from: a fork's, a shallow clone's or
    // a packager's (Ollama's "build 1") is not upstream's. Compute buffers printed by
    // sched_reserve (upstream's build 7445 still printed them from llama_context, 7972 from
    // sched_reserve) under a number up to 7445: not dated by it.
    if (r.sched_lines && build > 0 && build <= 7445) build = 0;
    // llama_init_from_model's lines (before the llama_context class, spring 2025): the cache
    // written with ggml_cpy into one stream for every sequence.
    if (r.init_from_model && !r.has_setting("kvu")) r.set("kvu", "1");
    if ((build > 0 && build <= 5505) || (build == 0 && r.init_from_model)) r.set("lcg", "2025-05");
    else if (build > 0 && build <= 5781) r.set("lcg", "2025-07");
    else if (r.ggml_cpy) r.set("lcg", "2025-07");  // a later build told to keep ggml_cpy
    else if (r.llamacpp_2025 || r.compute_from_context) r.set("lcg", "2025-08");
    // A numbered 2026 build up to 8999 reserved the f32 mask beside the embeddings input: builds
    // 7972 and 8211's host compute buffers (142.02 and 88 MiB) hold it, as do 8428's (the CPU's
    // 786.02 MiB: calibration/llamacpp_test.cpp) and 8999's (a Metal start-up of Qwen3.5-9B at
    // n_ctx 262144: 528.29 MiB of CPU compute buffer, the mask's 512 MiB in it), before PR #23764.
    // Later builds up to that PR's are not dated here: taken as the current graph. Of those, a
    // build that rotated its quantized cache (its "attn_rot_k = 1" line, or a build from 8641 on,
    // which carries PR #21038 of 2026-04-01 as a copy vendored at b8641 shows; 8547's has not)
    // reserved the 2026-04 graph: build 8946's Qwen3.5-27B with a q8_0 cache (654.78 / 411.29 MiB).
    else if (build > 0 && build <= 8999) r.set("lcg", r.attn_rot || build >= 8641 ? "2026-04" : "2026-01");
  }
  // No device and only CPU buffers: a build without a GPU backend (or --device none), which still
  // prints "offloaded 27/27 layers to GPU" (every layer on its one device, the CPU): -ngl 0 and
  // --llamacpp-no-gpu here.
  if (r.log.engine == LogEngine::LlamaCpp && r.devices == 0) {
    bool buffers = false, gpu = false;
    for (const LogFigure& f : r.log.figures)
      if (f.key.rfind("model_buffer:", 0) == 0 || f.key.rfind("kv_buffer:", 0) == 0) {
        buffers = true;
        gpu |= f.key.substr(f.key.rfind(':') + 1).rfind("CPU", 0) != 0;
      }
    if (buffers && !gpu) r.set("ngl", "0"), r.set("lcnogpu", "1");
  }
  // Several devices and no -ts: llama.cpp split the layers by the free memory each reported.
  if (r.log.engine == LogEngine::LlamaCpp && r.devices > 1 && static_cast<int>(r.free_mib.size()) == r.devices && !r.has_setting("ts")) {
    std::string ts;
    for (double f : r.free_mib) ts += (ts.empty() ? "" : ",") + whole(f);
    r.set("ts", ts);
  }
  return std::move(r.log);
}

namespace {

// Megatron-LM's log beside the megatron recipe (training_recipe_megatron.cpp): every rank's
// parameters, "max allocated" and "allocated" against its pipeline stage's. Megatron-LM numbers
// ranks tensor-parallel first, then data-parallel, then by pipeline stage
// (parallel_state.initialize_model_parallel): rank r sits on stage r / (world / pp).
Result<LogCheck> check_megatron(const EngineLog& log, const ModelConfig& cfg, Workload w, LogCheck out) {
  w.mode = Mode::Training;
  w.recipe = Recipe::Megatron;
  if (w.tp * w.pp > w.gpus) w.gpus = w.tp * w.pp;
  // The log's model against the one checked: the arguments that set the shape, and the vocabulary
  // padded to make_vocab_size_divisible_by · tp (the recipe pads to 128 · tp, arguments.py's default).
  const struct {
    const char* name;
    i64 ours;
  } shape[] = {{"num_layers", cfg.n_layers}, {"hidden_size", cfg.d_model}, {"num_attention_heads", cfg.n_heads},
               {"ffn_hidden_size", cfg.d_ff}, {"make_vocab_size_divisible_by", 128}};
  for (const auto& [name, ours] : shape)
    if (const std::string* v = log.argument(name))
      if (auto n = leading_number(*v); n && *n != static_cast<double>(ours))
        out.notes.push_back(issue_row("log", Str::log_note_mg_shape, std::string(name), *v, std::to_string(ours)));
  if (const LogFigure* v = log.find("padded_vocab"); v && w.tp >= 1 && w.tp <= 1 << 20) {
    const i64 padded = ceil_div(cfg.vocab, 128 * w.tp) * 128 * w.tp;
    if (v->value != static_cast<double>(padded))
      out.notes.push_back(issue_row("log", Str::log_note_mg_shape, "padded vocab", whole(v->value), std::to_string(padded)));
  }
  if (const LogFigure* n = log.find("iterations"); n && n->value < 2)
    out.notes.push_back(issue_row("log", Str::log_note_mg_first, whole(n->value)));
  out.workload = w;
  auto e = estimate(cfg, w);
  if (!e) return e.issues();
  if (!e->training.recipe || e->training.recipe->stages.empty()) return issue_row("recipe", Str::log_not_available, "Megatron-LM");
  const RecipePeak& p = *e->training.recipe;
  const i64 per_stage = std::max<i64>(1, w.gpus / std::max<i64>(1, w.pp));
  auto mib = [](double v) { return fixed(v / kMiBd, 2) + " MiB"; };
  for (const TrainingStage& st : p.stages) {
    char buf[200];
    std::snprintf(buf, sizeof buf, " > number of parameters on (tensor, pipeline) model parallel rank (0, %lld): %lld",
                  static_cast<long long>(st.stage), static_cast<long long>(st.params_gpu));
    out.lines.emplace_back(buf);
  }
  for (const TrainingStage& st : p.stages) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "[Rank %lld] memory (MB) | allocated: %.2f | max allocated: %.2f", static_cast<long long>(st.stage * per_stage),
                  static_cast<double>(st.after_step_bytes) / kMiBd, static_cast<double>(st.peak_allocated_bytes) / kMiBd);
    out.lines.emplace_back(buf);
  }
  // By stage and tensor rank for the parameters, by rank for the memory lines (ranks print in any order).
  std::vector<std::pair<std::pair<double, double>, LogCheckRow>> rows;
  for (const LogFigure& f : log.figures) {
    const size_t colon = f.key.find(':');
    if (colon == std::string::npos) continue;
    const std::string kind = f.key.substr(0, colon), where = f.key.substr(colon + 1);
    LogCheckRow row;
    row.key = f.key;
    row.logged_value = f.value;
    std::pair<double, double> order;
    if (kind == "params") {
      const size_t comma = where.find(',');
      const auto tensor = leading_number(where), stage = leading_number(std::string_view(where).substr(comma + 1));
      if (!tensor || !stage || *stage >= static_cast<double>(p.stages.size())) continue;
      order = {-1, *stage * 1e7 + *tensor};
      row.row = Str::log_row_mg_params;
      row.row_args = {where.substr(0, comma), where.substr(comma + 1)};
      row.ours_value = static_cast<double>(p.stages[static_cast<size_t>(*stage)].params_gpu);
      row.logged = with_commas(static_cast<i64>(std::llround(f.value)));
      row.ours = with_commas(static_cast<i64>(row.ours_value));
    } else if (kind == "max_allocated" || kind == "allocated") {
      const auto rank = leading_number(where);
      if (!rank || *rank >= static_cast<double>(w.gpus)) continue;
      const size_t stage = static_cast<size_t>(static_cast<i64>(*rank) / per_stage);
      if (stage >= p.stages.size()) continue;  // a world that is no whole number of stages
      const TrainingStage& st = p.stages[stage];
      const bool peak = kind == "max_allocated";
      order = {*rank, peak ? 0 : 1};
      row.row = peak ? Str::log_row_mg_max : Str::log_row_mg_allocated;
      row.row_args = {where, std::to_string(st.stage)};
      row.ours_value = static_cast<double>(peak ? st.peak_allocated_bytes : st.after_step_bytes);
      row.logged = mib(f.value);
      row.ours = mib(row.ours_value);
    } else {
      continue;
    }
    row.label = row.label_in(Lang::En);
    settle(row);
    rows.emplace_back(order, std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, row] : rows) out.rows.push_back(std::move(row));
  return out;
}

// DeepSpeed-Chat's log beside the deepspeed recipe (training_recipe_deepspeed.cpp): rank 0's
// MaxMemAllocated and MemAllocated (after the step), as DeepSpeed's ThroughputTimer prints them
// (GiB to two places). The data-parallel GPUs come from the log where it says: the launcher's
// dist_world_size, else DeepSpeed's config print (train_batch_size /
// (train_micro_batch_size_per_gpu · accumulation)), else the command's --num_gpus × --num_nodes
// (one node without a hostfile); else from the caller, as the note says.
Result<LogCheck> check_ds_chat(const EngineLog& log, const ModelConfig& cfg, Workload w, LogCheck out) {
  w.mode = Mode::Training;
  w.recipe = Recipe::DeepSpeed;
  const LogFigure* world = log.find("ds_world_size");
  const LogFigure* global = log.find("ds_global_batch");
  const LogFigure* micro = log.find("ds_micro_batch");
  const LogFigure* launch_gpus = log.find("ds_launch_gpus");
  const LogFigure* launch_nodes = log.find("ds_launch_nodes");
  const double per_gpu = (micro ? micro->value : static_cast<double>(w.batch)) * static_cast<double>(w.grad_accum);
  if (world) {
    w.gpus = static_cast<i64>(world->value);
  } else if (global && per_gpu >= 1 && std::fmod(global->value, per_gpu) == 0 && global->value / per_gpu <= 1e6) {
    w.gpus = static_cast<i64>(global->value / per_gpu);
  } else if (launch_gpus && (launch_nodes || !log.find("ds_hostfile"))) {
    // Without a hostfile the runner trains on the local node alone (runner.py fetch_hostfile).
    w.gpus = static_cast<i64>(launch_gpus->value) * (launch_nodes ? static_cast<i64>(launch_nodes->value) : 1);
  } else {
    out.notes.push_back(issue_row("gpus", Str::log_note_ds_gpus, std::to_string(w.gpus)));
  }
  out.workload = w;
  auto e = estimate(cfg, w);
  if (!e) return e.issues();
  if (!e->training.recipe || e->training.recipe->stages.empty()) return issue_row("recipe", Str::log_not_available, "DeepSpeed-Chat");
  const TrainingStage& st = e->training.recipe->stages.front();
  auto gb = [](double v) { return fixed(v / kGiBd, 2) + "GB"; };
  out.lines.push_back("MemAllocated=" + gb(static_cast<double>(st.after_step_bytes)) +
                      ", MaxMemAllocated=" + gb(static_cast<double>(st.peak_allocated_bytes)));
  add_figure_row(out, log, "max_mem_allocated", Str::log_row_ds_max, static_cast<double>(st.peak_allocated_bytes), gb);
  add_figure_row(out, log, "mem_allocated", Str::log_row_ds_allocated, static_cast<double>(st.after_step_bytes), gb);
  return out;
}

// LitGPT's finetune/lora.py log beside the litgpt recipe (training_recipe.cpp): "Memory used" (rank
// 0's max_memory_allocated in GB of 10^9 B, two places) and the trainable parameters it counted. The
// script prints neither its precision nor --quantize, nor the GPU: those are the caller's
// (--precision pure --dtype bf16 for bf16-true, --weights nf4 / nf4-dq).
Result<LogCheck> check_litgpt(const EngineLog& log, const ModelConfig& cfg, Workload w, LogCheck out) {
  w.mode = Mode::Training;
  w.recipe = Recipe::LitGpt;
  if (log.find("litgpt_lora_head")) return issue_row("lt", Str::log_litgpt_head);
  out.workload = w;
  auto e = estimate(cfg, w);
  if (!e) return e.issues();
  if (!e->training.recipe) return issue_row("recipe", Str::log_not_available, "LitGPT");
  const RecipePeak& p = *e->training.recipe;
  auto gb = [](double v) { return fixed(v / 1e9, 2) + " GB"; };
  out.lines.push_back("Number of trainable parameters: " + with_commas(p.trainable_params));
  out.lines.push_back("Memory used: " + gb(static_cast<double>(p.peak_allocated_bytes)));
  add_figure_row(out, log, "litgpt_memory_used", Str::log_row_litgpt_memory, static_cast<double>(p.peak_allocated_bytes), gb);
  add_figure_row(out, log, "litgpt_trainable", Str::log_row_litgpt_trainable, static_cast<double>(p.trainable_params),
                 [](double v) { return with_commas(static_cast<i64>(v)); });
  return out;
}

// llama.cpp's log beside its profile (engine_llamacpp.hpp): the model, output, compute and KV
// buffers by device, the exit table, and the cache lines one by one in any build's wording.
Result<LogCheck> check_llamacpp(const EngineLog& log, const Workload& w, const Estimate& e, LogCheck out) {
  if (!e.llamacpp) return e.notes.empty() ? issue_row("rt", Str::log_not_available, "llama.cpp") : e.notes.front();
  // A build before the SWA cache (its "KV self size" line) kept one cache of n_ctx cells for
  // every layer: --swa-full's two caches (read from that line) as one.
  const bool one_cache = std::any_of(log.kv_lines.begin(), log.kv_lines.end(), [](const std::string& l) { return l.rfind("KV self size", 0) == 0; });
  LlamaCppMemory mem = *e.llamacpp;
  if (one_cache && mem.iswa && mem.caches.size() == 2 && mem.caches[0].cells == mem.caches[1].cells) {
    LlamaCppCache all = mem.caches[0];
    all.layers += mem.caches[1].layers, all.k_bytes += mem.caches[1].k_bytes, all.v_bytes += mem.caches[1].v_bytes;
    mem.caches = {all};
    mem.iswa = false;
    for (int& c : mem.layer_cache) c = c >= 0 ? 0 : c;
  }
  out.lines = llamacpp_log(mem, w.kv_dtype, e.llamacpp_devices ? &*e.llamacpp_devices : nullptr);
  if (e.llamacpp_devices) {  // the model buffers: the weights as the file stores them, split by device
    const LlamaCppBuffers& d = *e.llamacpp_devices;
    std::vector<std::tuple<std::string, std::string, i64>> buffers;
    if (!d.cpu_span) buffers.emplace_back("model_buffer:CPU_Mapped", "CPU_Mapped model buffer", d.cpu_mapped_bytes);
    for (const LlamaCppDevice& dv : d.devices) buffers.emplace_back("model_buffer:" + dv.name, dv.name + " model buffer", dv.model_bytes);
    buffers.emplace_back("output_buffer_bytes", "output buffer", d.output_buffer_bytes);
    for (const LlamaCppDevice& dv : d.devices)
      if (d.compute_on(dv))
        buffers.emplace_back("compute_buffer:" + dv.name, dv.name + " compute buffer", d.compute_of(dv));
    if (d.host_compute_bytes > 0)
      buffers.emplace_back("compute_buffer:" + d.host_buffer, d.host_buffer + " compute buffer", d.host_compute_bytes);
    // Each cache's buffer per device, as our lines give them: "kv_buffer:<cache>:<name>", the
    // cache counted as the parser does (0 without an SWA cache, else 1 and 2 as created).
    const bool two = mem.iswa || mem.dsa;
    int cache = two ? 0 : -1;
    for (const std::string& l : out.lines) {
      if (l.find("llama_kv_cache_iswa: creating") == 0 || l.find("llama_kv_cache_dsa: creating") == 0) ++cache;
      const size_t at = l.find(" KV buffer size = ");
      if (at == std::string::npos || l.find("llama_kv_cache:") != 0) continue;
      const std::string name(trim(std::string_view(l).substr(15, at - 15)));
      if (auto v = after(l, "KV buffer size = "))
        buffers.emplace_back("kv_buffer:" + std::to_string(std::max(cache, 0)) + ":" + name,
                             name + " KV buffer" +
                                 (mem.iswa  ? cache == 1 ? " (non-SWA)" : " (SWA)"
                                  : mem.dsa ? cache == 1 ? " (MLA)" : " (indexer keys)"
                                                     : ""),
                             static_cast<i64>(std::llround(*v * kMiBd)));
    }
    // llama.cpp names its Metal device "Metal" (2025) or "MTL0" (2026): the log's name as ours.
    std::vector<LogFigure> figures = log.figures;
    const bool metal = std::any_of(d.devices.begin(), d.devices.end(), [](const LlamaCppDevice& dv) { return dv.name == "Metal"; });
    for (LogFigure& f : figures)
      for (std::string_view mtl : {":MTL0", ":MTL0_Mapped"})
        if (metal && f.key.size() > mtl.size() && f.key.compare(f.key.size() - mtl.size(), mtl.size(), mtl) == 0)
          f.key = f.key.substr(0, f.key.size() - mtl.size()) + ":Metal" + std::string(mtl.substr(5));
    const auto logged = [&](std::string_view key) -> const LogFigure* {
      for (const LogFigure& f : figures)
        if (f.key == key) return &f;
      return nullptr;
    };
    for (const auto& [key, label, ours] : buffers) {
      const LogFigure* f = logged(key);
      if (!f) continue;
      LogCheckRow row{key, label, std::nullopt, {}, "", "", f->value, static_cast<double>(ours), 0, false};  // llama.cpp's words
      row.logged = fixed(f->value / kMiBd, 2) + " MiB";
      row.ours = fixed(static_cast<double>(ours) / kMiBd, 2) + " MiB";
      row.same_text = row.logged == row.ours;
      row.rel_diff = f->value != 0 ? static_cast<double>(ours) / f->value - 1.0 : 0;
      out.rows.push_back(row);
    }
    // The scheduler's split counts, where the layers are followed: the ubatch's graph and one token's.
    if (d.splits_pp > 0)
      for (const auto& [key, label, ours] : {std::tuple{"graph_nodes", "graph nodes (with bs=n_ubatch)", d.graph_nodes},
                                             std::tuple{"graph_splits", "graph splits (with bs=n_ubatch)", d.splits_pp},
                                             std::tuple{"graph_splits_tg", "graph splits (with bs=1)", d.splits_tg}}) {
        const LogFigure* f = logged(key);
        if (!f) continue;
        LogCheckRow row{key, label, std::nullopt, {}, "", "", f->value, static_cast<double>(ours), 0, false};
        row.logged = std::to_string(std::llround(f->value));
        row.ours = std::to_string(ours);
        row.same_text = row.logged == row.ours;
        row.rel_diff = f->value != 0 ? static_cast<double>(ours) / f->value - 1.0 : 0;
        out.rows.push_back(row);
      }
    // The exit table's columns per device, in whole MiB as it truncates them: a device's model
    // buffer, its layers' caches, its compute buffer where modelled; the host's mapped weights
    // (where they are the token embedding alone or every tensor), caches and inputs.
    std::vector<std::tuple<std::string, std::string, i64>> table;
    for (const LlamaCppDevice& dv : d.devices) {
      table.emplace_back("breakdown_model:" + dv.name, dv.name + " model (memory breakdown)", dv.model_bytes);
      table.emplace_back("breakdown_context:" + dv.name, dv.name + " context (memory breakdown)", dv.cache_bytes);
      if (d.compute_on(dv))
        table.emplace_back("breakdown_compute:" + dv.name, dv.name + " compute (memory breakdown)", d.compute_of(dv));
    }
    if (!d.cpu_span) table.emplace_back("breakdown_model:Host", "Host model (memory breakdown)", d.cpu_mapped_bytes);
    table.emplace_back("breakdown_context:Host", "Host context (memory breakdown)", d.cpu_cache_bytes);
    if (d.host_compute_bytes > 0) table.emplace_back("breakdown_compute:Host", "Host compute (memory breakdown)", d.host_compute_bytes);
    // Each row's self (model + context + compute, summed before truncation) where every part is:
    // the host's is the host memory figure's part in that table (LlamaCppBuffers::host_self_bytes).
    for (const LlamaCppDevice& dv : d.devices)
      if (d.compute_on(dv))
        table.emplace_back("breakdown_self:" + dv.name, dv.name + " self (memory breakdown)", dv.model_bytes + dv.cache_bytes + d.compute_of(dv));
    if (!d.cpu_span && d.host_compute_bytes > 0) table.emplace_back("breakdown_self:Host", "Host self (memory breakdown)", d.host_self_bytes());
    for (const auto& [key, label, ours] : table) {
      const LogFigure* f = logged(key);
      if (!f) continue;
      LogCheckRow row{key, label, std::nullopt, {}, "", "", f->value, static_cast<double>(ours), 0, false};
      row.logged = std::to_string(std::llround(f->value / kMiBd)) + " MiB";
      row.ours = std::to_string(ours / (i64{1} << 20)) + " MiB";
      row.same_text = row.logged == row.ours;
      row.rel_diff = f->value != 0 ? static_cast<double>(ours) / f->value - 1.0 : 0;
      out.rows.push_back(row);
    }
    // The log's buffers on devices llmsize does not have (a ROCm or Metal log checked against a
    // CUDA card, more devices than --pp): named, not dropped.
    // The log's compute buffers llmsize does not model (a layer's peak): named.
    std::string unmodelled;
    for (const LogFigure& f : figures)
      if (f.key.rfind("compute_buffer:", 0) == 0 &&
          std::none_of(buffers.begin(), buffers.end(), [&](const auto& b) { return std::get<0>(b) == f.key; }))
        unmodelled += (unmodelled.empty() ? "" : ", ") + log.figures[static_cast<size_t>(&f - figures.data())].key.substr(15);
    if (!unmodelled.empty()) out.notes.push_back(issue_row("log", Str::log_note_compute, unmodelled));
    std::vector<std::string> unmatched;
    std::string mapped;
    for (const LogFigure& f : figures) {
      if (f.key.rfind("model_buffer:", 0) != 0 && f.key.rfind("kv_buffer:", 0) != 0 && f.key.rfind("breakdown_model:", 0) != 0) continue;
      const bool ours = std::any_of(buffers.begin(), buffers.end(), [&](const auto& b) { return std::get<0>(b) == f.key; }) ||
                        std::any_of(table.begin(), table.end(), [&](const auto& b) { return std::get<0>(b) == f.key; });
      const std::string device = f.key.substr(f.key.rfind(':') + 1);
      if (device.rfind("CPU", 0) == 0 || device == "Host") continue;  // host buffers: the CPU span is said in the notes of the estimate
      // Metal's mapped model buffers (one per split file) span the file: named in a note of their own.
      if (metal && device == "Metal_Mapped" && !ours) {
        if (mapped.empty()) mapped = log.figures[static_cast<size_t>(&f - figures.data())].key.substr(13);  // as the log names it
        continue;
      }
      if (!ours && std::find(unmatched.begin(), unmatched.end(), device) == unmatched.end()) unmatched.push_back(device);
    }
    if (!unmatched.empty()) {
      std::string ours;
      for (const LlamaCppDevice& dv : d.devices) ours += (ours.empty() ? "" : ", ") + dv.name;
      std::string theirs;
      for (const std::string& u : unmatched) theirs += (theirs.empty() ? "" : ", ") + u;
      out.notes.push_back(issue_row("log", Str::log_note_devices, theirs, ours));
    }
    if (!mapped.empty()) out.notes.push_back(issue_row("log", Str::log_note_mapped, mapped));
    if (const LogFigure* r = log.find("model_buffer:CPU_REPACK"))
      out.notes.push_back(issue_row("log", Str::log_note_repack, fixed(r->value / kMiBd, 2)));
    const auto load = llamacpp_buffer_log(d);
    out.lines.insert(out.lines.begin(), load.begin(), load.end());
  }
  // Line by line: llama.cpp prints its caches in a fixed order (non-SWA, then SWA, then
  // recurrent); their per-device buffer lines are compared as figures above.
  std::vector<std::string> ours_kv;
  for (const std::string& l : out.lines)
    for (std::string_view marker : {"llama_kv_cache_iswa: creating", "llama_kv_cache_dsa: creating", "llama_kv_cache: size =",
                                    "llama_memory_recurrent: size ="})
      if (l.find(marker) == 0) ours_kv.push_back(l);
  // A build before the SWA cache sums its one cache as "KV self size" (llama_context's
  // LLAMA_LOG_INFO "%s: KV self size  = %7.2f MiB, K (%s): %7.2f MiB, V (%s): %7.2f MiB").
  if (one_cache && !mem.caches.empty()) {
    i64 k = 0, v = 0;
    for (const LlamaCppCache& c : mem.caches) k += c.k_bytes, v += c.v_bytes;
    const char* type = llamacpp_cache_type(w.kv_dtype);
    char buf[160];
    std::snprintf(buf, sizeof buf, "KV self size  = %7.2f MiB, K (%s): %7.2f MiB, V (%s): %7.2f MiB", static_cast<double>(k + v) / kMiBd,
                  type ? type : "?", static_cast<double>(k) / kMiBd, type ? type : "?", static_cast<double>(v) / kMiBd);
    ours_kv = {buf};
  }
  // The same line in another build's wording: the class names of mid-2025
  // (llama_kv_cache_unified[_iswa]), other padding, "1 seqs" without the streams.
  const auto canonical = [](std::string_view s, bool streams) {
    std::string o;
    for (std::string_view from : {"llama_kv_cache_unified_iswa:", "llama_kv_cache_unified:"})
      if (s.rfind(from, 0) == 0) {
        o = from == "llama_kv_cache_unified:" ? "llama_kv_cache:" : "llama_kv_cache_iswa:";
        s.remove_prefix(from.size());
      }
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == ' ' && (o.empty() || o.back() == ' ' || o.back() == '(' || o.back() == '/')) continue;
      if (!streams && c == '/') {  // " 1/1 seqs" → " 1 seqs"
        while (i + 1 < s.size() && (s[i + 1] == ' ' || digit(s[i + 1]))) ++i;
        o += ' ';
        continue;
      }
      o += c;
    }
    return o;
  };
  for (size_t i = 0; i < log.kv_lines.size(); ++i) {
    LogCheckRow row;
    row.key = "kv_line_" + std::to_string(i);
    row.row = Str::log_row_line;
    row.row_args = {std::to_string(i + 1)};
    row.label = row.label_in(Lang::En);
    row.logged = log.kv_lines[i];
    row.ours = i < ours_kv.size() ? ours_kv[i] : std::string("(none)");
    const bool streams = row.logged.find('/') != std::string::npos;
    row.same_text = canonical(row.logged, streams) == canonical(row.ours, streams);
    const auto size = [](const std::string& s) {
      const size_t at = s.find("size ");
      if (at == std::string::npos) return 0.0;
      const size_t eq = s.find('=', at);
      return eq == std::string::npos ? 0.0 : leading_number(std::string_view(s).substr(eq + 1)).value_or(0) * kMiBd;
    };
    row.logged_value = size(row.logged);
    row.ours_value = size(row.ours);
    row.rel_diff = row.logged_value != 0 ? row.ours_value / row.logged_value - 1.0 : 0;
    out.rows.push_back(row);
  }
  return out;
}

}  // namespace

Result<LogCheck> check_log(const EngineLog& log, const ModelConfig& cfg, Workload w) {
  LogCheck out;
  out.log = log;
  for (const auto& [key, value] : log.settings) {
    const WorkloadField* f = find_field(key);
    if (!f) continue;
    // A log's "fp8" names the method (vLLM's quantization=fp8, SGLang's quant=fp8), not how the
    // checkpoint scales its blocks: a caller's fp8-block stands (it moves vLLM's Marlin scales).
    if (key == "w" && value == "fp8" && w.weights == WeightFormat::Fp8Block) continue;
    if (auto bad = f->set(w, value))
      return issue(key, [v = value, inner = *bad](Lang l) { return printf_text(tr(Str::log_from, l), v.c_str(), message_in(inner, l).c_str()); });
  }
  if (log.engine == LogEngine::Megatron) return check_megatron(log, cfg, std::move(w), std::move(out));
  if (log.engine == LogEngine::DeepSpeedChat) return check_ds_chat(log, cfg, std::move(w), std::move(out));
  if (log.engine == LogEngine::LitGpt) return check_litgpt(log, cfg, std::move(w), std::move(out));
  w.mode = Mode::Inference;
  w.runtime = log.engine == LogEngine::Vllm ? Runtime::Vllm : log.engine == LogEngine::SGLang ? Runtime::Sglang : Runtime::LlamaCpp;
  if (log.seq_is_model_max && std::none_of(log.settings.begin(), log.settings.end(), [](const auto& s) { return s.first == "seq"; }))
    w.seq = cfg.max_positions;
  // --cpu-moe (or its -ot pattern): every layer's experts on the CPU, the nextn layers' too.
  if (log.experts_on_cpu) w.n_cpu_moe = std::max(w.n_cpu_moe, cfg.n_layers + cfg.mtp_layers);
  for (const std::string& flag : log.unread) out.notes.push_back(issue_row("log", Str::log_note_unread, flag));
  // A llama.cpp log that names no cache type ran llama.cpp's default, f16 (common/arg.cpp -ctk,
  // -ctv), where the caller left --kv-dtype at llmsize's default: the same bytes, the log's name.
  if (log.engine == LogEngine::LlamaCpp && w.kv_dtype == KvDtype::BF16 &&
      std::none_of(log.settings.begin(), log.settings.end(), [](const auto& s) { return s.first == "kvt"; }))
    w.kv_dtype = KvDtype::F16;
  // A gpt-oss start-up with the hybrid sliding-window pool's lines ran SGLang from March 2026 on
  // (server_args.py leaves the pool on there; late 2025 turned it off): the profile follows that build.
  if (log.engine == LogEngine::SGLang && cfg.family == Family::GptOss && log.find("swa_tokens") &&
      w.sglang_build == SglangBuild::Late2025 && !w.disable_hybrid_swa_memory) {
    w.sglang_build = SglangBuild::Mar2026;
    out.notes.push_back(issue_row("sgb", Str::log_note_sglang_build));
  }
  if (w.tp * w.pp > w.gpus) w.gpus = w.tp * w.pp;
  // vLLM prints the GPU's total: pick the catalog card CUDA reports it for, if the chosen one differs.
  if (const LogFigure* total = log.find("total_bytes"); total && log.engine == LogEngine::Vllm) {
    const Gpu* chosen = find_gpu(w.gpu);
    const std::string printed = gib_text(total->value);
    if (!chosen || chosen->cuda_total_bytes == 0 || vllm_gib(chosen->cuda_total_bytes) != printed) {
      const Gpu* match = nullptr;
      for (const Gpu& g : gpu_catalog())
        if (g.cuda_total_bytes > 0 && vllm_gib(g.cuda_total_bytes) == printed) match = &g;
      // No card CUDA reports that total for (a VM's or another driver's share of a card): the chosen
      // card, else the catalog's nearest, where within 2%, with the log's total in place of its own
      // (--gpu-cuda-total-mib): the budget is the log's, the card's other traits (compute capability,
      // SMs) the nearest's. Printed to 0.01 GiB, the total is known to ±5 MiB.
      const auto near = [&](const Gpu& g) {
        return g.cuda_total_bytes > 0 && static_cast<double>(g.memory_bytes) >= total->value &&
               std::abs(static_cast<double>(g.cuda_total_bytes) / total->value - 1.0) <= 0.02;
      };
      const auto gap = [&](const Gpu& g) { return std::abs(static_cast<double>(g.cuda_total_bytes) - total->value); };
      const Gpu* nearest = nullptr;
      if (!match && chosen && near(*chosen)) {
        nearest = chosen;
      } else if (!match) {
        for (const Gpu& g : gpu_catalog())
          if (near(g) && (!nearest || gap(g) < gap(*nearest))) nearest = &g;
      }
      if (match) {
        out.notes.push_back(issue_row("log", Str::log_note_gpu_match, printed, match->name));
        w.gpu = match->id;
      } else if (nearest && w.gpu_cuda_total_mib == 0) {
        out.notes.push_back(issue_row("log", Str::log_note_gpu_total, printed, nearest->name, vllm_gib(nearest->cuda_total_bytes)));
        w.gpu = nearest->id;
        w.gpu_cuda_total_mib = total->value / 1048576.0;
      } else {
        out.notes.push_back(issue_row("log", Str::log_note_gpu_none, printed, chosen ? chosen->name : w.gpu));
      }
    }
  }
  const bool vver_from_log = std::any_of(log.settings.begin(), log.settings.end(), [](const auto& s) { return s.first == "vver"; });
  auto e = estimate(cfg, w);
  if (!e) return e.issues();
  // A 0.27 or 0.28 log the 0.27 profile refuses (a first-runner model whose log gives no CUDA graph
  // estimate, MoE kernels it does not follow, …): the refusal, and 0.19's profile instead, said.
  if (log.engine == LogEngine::Vllm && vver_from_log && !e->vllm && !e->notes.empty() &&
      (e->notes.front().field == "vcg" || e->notes.front().field == "vver")) {
    out.notes.push_back(e->notes.front());
    out.notes.push_back(issue_row("vver", Str::log_note_vllm27_fallback, log.version));
    w.vllm_line = VllmLine::V019;
    e = estimate(cfg, w);
    if (!e) return e.issues();
  }
  const bool line_027 = w.vllm_line != VllmLine::V019;  // 0.27.1 or 0.28.0
  const auto logged_from = [&](std::string_view v) { return log.version.rfind(v, 0) == 0; };
  if (log.engine == LogEngine::Vllm && !log.version.empty() && !logged_from(to_string(w.vllm_line)))
    out.notes.push_back(issue_row("log", Str::log_note_version, std::string(vllm_version(w.vllm_line)), log.version));
  // A cold start's profile holds torch.compile's and Triton's transients (the compiled model's first run
  // is inside it): its peak activation, and the KV cache with it, differ from the warm start llmsize follows.
  if (log.engine == LogEngine::Vllm && log.compiled_cold) out.notes.push_back(issue_row("log", Str::log_note_vllm_cold));
  out.workload = w;
  if (log.engine == LogEngine::Vllm) {
    if (!e->vllm) return e->notes.empty() ? issue_row("rt", Str::log_not_available, "vLLM") : e->notes.front();
    const VllmMemory& m = *e->vllm;
    out.lines = vllm_log(m);
    // The CUDA graphs vLLM captures after the KV cache is allocated (gpu_worker.py
    // compile_or_warm_up_model): from the memory outside gpu_memory_utilization's share (0.19, Model
    // Runner V2), or from the share the first runner's estimate reserved in it (0.27): said, not modelled.
    if (const auto* g = log.find("cuda_graph_bytes"))
      out.notes.push_back(m.cuda_graph_estimate_bytes > 0
                              ? issue_row("log", Str::log_note_vllm_graphs_est, fixed(g->value / kGiBd, 2), fixed(m.cuda_graph_estimate_bytes / kGiBd, 2))
                              : issue_row("log", Str::log_note_vllm_graphs, fixed(g->value / kGiBd, 2)));
    // 0.27: the runner vLLM builds for this model (config/vllm.py use_v2_model_runner), and on the
    // first runner the log's own CUDA graph estimate, which it took from the KV cache.
    if (line_027 && vver_from_log)
      out.notes.push_back(m.mrv2 ? issue_row("vver", Str::log_note_vllm_mrv2, log.version)
                                 : issue_row("vver", Str::log_note_vllm27_v1, log.version,
                                             m.cuda_graph_estimate_bytes > 0 ? with_commas(m.cuda_graph_estimate_bytes >> 20) + " MiB" : "0"));
    if (line_027 && vver_from_log && (m.mrv2 ? log.model_runner_v1 && !log.model_runner_v2 : log.model_runner_v2))
      out.notes.push_back(issue_row("vver", Str::log_note_vllm27_runner, log.model_runner_v2 ? "v1/worker/gpu/model_runner.py" : "v1/worker/gpu_model_runner.py",
                                    m.mrv2 ? "v1/worker/gpu/model_runner.py" : "v1/worker/gpu_model_runner.py"));
    // vLLM 0.19 subtracts its CUDA graph estimate from the KV cache memory only under
    // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 (gpu_worker.py determine_available_memory:
    // requested_memory − non_kv_cache_memory − cudagraph_memory_estimate_applied); llmsize follows the
    // default and does not. Which the run did: its advice line says it did not; else the log's own
    // figures tell, its KV memory being the budget less the non-KV memory, less the estimate or not
    // (three figures printed to 0.01 GiB: within 0.015 GiB).
    if (const LogFigure* est = line_027 ? nullptr : log.find("cuda_graph_estimate_bytes")) {
      const LogFigure* kv = log.find("kv_available_bytes");
      const LogFigure* non_kv = log.find("non_kv_bytes");
      const LogFigure* budget = log.find("budget_bytes");
      const LogFigure* from = log.find("cuda_graph_util_from");
      const LogFigure* to = log.find("cuda_graph_util_to");
      Str which = Str::log_note_vllm_graph_est;
      if (from && to) {
        which = Str::log_note_vllm_graph_est_unapplied;
      } else if (kv && non_kv && !m.kv_memory_given) {
        const double plain = (budget ? budget->value : static_cast<double>(m.budget_bytes)) - non_kv->value;
        const double off = std::abs(kv->value - plain), on = std::abs(kv->value - (plain - est->value));
        constexpr double kPrinted = 0.015 * kGiBd;
        if (on <= kPrinted && on < off) which = Str::log_note_vllm_graph_est_applied;
        else if (off <= kPrinted && off < on) which = Str::log_note_vllm_graph_est_unapplied;
      }
      out.notes.push_back(issue_row("log", which, fixed(est->value / kGiBd, 2)));
      if (from && to) out.notes.push_back(issue_row("log", Str::log_note_vllm_graph_util, fixed(to->value, 4), fixed(from->value, 4)));
    }
    struct Term {
      const char* key;
      const char* label;  // the log's own words; empty where term_row(key) describes the figure
      double ours;
      int kind;  // 0 GiB, 1 count with commas, 2 "%.2f"
    };
    const Term terms[] = {
        {"total_bytes", "", static_cast<double>(m.total_bytes), 0},
        {"budget_bytes", "", static_cast<double>(m.budget_bytes), 0},
        {"free_at_start_bytes", "", static_cast<double>(m.free_at_start_bytes), 0},
        {"weights_bytes", "Model loading took", static_cast<double>(m.weights_bytes), 0},
        {"activation_peak_bytes", line_027 ? "peak activation" : "torch peak memory increase", static_cast<double>(m.activation_peak_bytes), 0},
        {"non_torch_bytes", "non-torch forward increase", static_cast<double>(m.non_torch_bytes), 0},
        {"non_kv_bytes", "Total non KV cache memory", static_cast<double>(m.non_kv_bytes), 0},
        // 0.27's summary: the weights, the non-torch memory and what the profile left allocated (a
        // 0.27 log checked against 0.19's profile: the first two).
        {"consumed_bytes", "consumed memory (weights + non-torch)",
         static_cast<double>(line_027 ? m.consumed_bytes : m.weights_bytes + m.non_torch_bytes), 0},
        {"kv_available_bytes", "Available KV cache memory", static_cast<double>(m.kv_available_bytes), 0},
        {"attn_block_size", "", static_cast<double>(m.block_size), 1},
        {"max_model_len", "max_model_len (auto-fit)", static_cast<double>(m.max_model_len), 1},
        {"num_blocks", "", static_cast<double>(m.num_blocks), 1},
        {"kv_tokens", "GPU KV cache size (tokens)", static_cast<double>(m.kv_tokens), 1},
        {"max_concurrency", "Maximum concurrency", m.max_concurrency, 2},
    };
    for (const Term& t : terms) {
      const LogFigure* f = log.find(t.key);
      if (!f) continue;
      // The free memory at start is llmsize's on unified memory alone (a discrete card's depends
      // on its CUDA context and what else runs).
      if (std::string_view(t.key) == "free_at_start_bytes" && m.free_at_start_bytes == 0) continue;
      const std::optional<Str> described = term_row(t.key);
      LogCheckRow row{t.key, described ? tr(*described, Lang::En) : t.label, described, {}, "", "", f->value, t.ours, 0, false};
      auto fmt = [&](double v) {
        if (t.kind == 0) return gib_text(v) + " GiB";
        if (t.kind == 1) return with_commas(static_cast<i64>(std::llround(v)));
        return fixed(v, 2) + "x";
      };
      row.logged = fmt(f->value);
      row.ours = fmt(t.ours);
      settle(row);
      out.rows.push_back(row);
    }
  } else if (log.engine == LogEngine::SGLang) {
    if (!e->sglang) return e->notes.empty() ? issue_row("rt", Str::log_not_available, "SGLang") : e->notes.front();
    // The free memory before and after the load as the log prints it: the pool from those inputs.
    SglangMemory m = *e->sglang;
    const LogFigure* pre = log.find("pre_bytes");
    const LogFigure* post = log.find("post_bytes");
    const LogFigure* usage = log.find("weights_bytes");
    if (post && (pre || usage)) {
      const double post_gib = post->value / kGiBd, pre_gib = pre ? pre->value / kGiBd : post_gib + usage->value / kGiBd;
      if (!(post_gib >= 0 && post_gib <= 1e6 && pre_gib >= 0 && pre_gib <= 1e6))
        return issue_row("log", Str::log_free_range, fixed(pre_gib, 2), fixed(post_gib, 2));
      auto measured = sglang_memory(cfg, e->plan, e->inference, w, e->gpu, std::make_pair(pre_gib, post_gib));
      if (!measured) return measured.issues();
      m = *measured;
      out.notes.push_back(issue_row("log", Str::log_note_free, fixed(pre_gib, 2), fixed(post_gib, 2)));
    }
    out.lines = sglang_log(m);
    // label: the log's own words, or a row of the string table that describes the figure.
    auto row_of = [&](const char* key, std::variant<const char*, Str> label, double ours, bool gib) {
      const LogFigure* f = log.find(key);
      if (!f) return;
      const Str* described = std::get_if<Str>(&label);
      LogCheckRow row{key, described ? tr(*described, Lang::En) : std::get<const char*>(label),
                      described ? std::optional<Str>(*described) : std::nullopt, {}, "", "", f->value, ours, 0, false};
      auto fmt = [&](double v) { return gib ? fixed(v / kGiBd, 2) + " GB" : with_commas(static_cast<i64>(std::llround(v))); };
      row.logged = fmt(f->value);
      row.ours = fmt(ours);
      settle(row);
      out.rows.push_back(row);
    };
    if (!m.measured) {
      row_of("pre_bytes", Str::term_pre, m.pre_gib * kGiBd, true);
      row_of("post_bytes", Str::log_row_post, m.post_gib * kGiBd, true);
    }
    row_of("weights_bytes", "Load weight mem usage", static_cast<double>(m.weights_bytes), true);
    row_of("kv_tokens", m.hybrid ? "full_layer_tokens" : "#tokens", static_cast<double>(m.max_total_tokens), false);
    if (m.hybrid) row_of("swa_tokens", "swa_layer_tokens", static_cast<double>(m.swa_tokens), false);
    // The pool's tensors at the log's own #tokens: the cell and padding, exactly.
    const LogFigure* swa = log.find("swa_tokens");
    if (const LogFigure* n = log.find("kv_tokens"); n && n->value >= 0 && n->value <= 1e13) {
      std::optional<i64> swa_tokens;
      if (m.hybrid && swa && swa->value >= 0 && swa->value <= 1e13) swa_tokens = static_cast<i64>(swa->value);
      auto at = sglang_with_tokens(m, static_cast<i64>(n->value), "log", swa_tokens);
      if (!at) return at.issues();
      row_of("k_bytes", m.mla ? Str::log_row_kv_at : Str::log_row_k_at, static_cast<double>(at->k_bytes), true);
      row_of("v_bytes", Str::log_row_v_at, static_cast<double>(at->v_bytes), true);
      if (m.hybrid) {
        row_of("swa_k_bytes", Str::log_row_swa_k, static_cast<double>(at->swa_k_bytes), true);
        row_of("swa_v_bytes", Str::log_row_swa_v, static_cast<double>(at->swa_v_bytes), true);
        row_of("kv_bytes", "SWAKVPool mem usage", static_cast<double>(at->k_bytes + at->v_bytes + at->swa_k_bytes + at->swa_v_bytes), true);
      }
      row_of("max_running_requests", Str::log_row_mrr_at, static_cast<double>(at->max_running_requests), false);
      // init_memory_pool's last line: the free memory after the load less the pools at the log's #tokens.
      if (at->pool_segment_bytes > 0) row_of("pool_end_bytes", "Memory pool end. avail mem", at->pool_end_gib * kGiBd, true);
      else if (const LogFigure* end = log.find("pool_end_bytes"))
        out.notes.push_back(issue_row("log", Str::log_note_pool_end, fixed(end->value / kGiBd, 2)));
    }
    if (m.mamba_layers > 0) {  // the state pool: its slots from the log's free memory, its tensors at the log's own slots
      row_of("mamba_slots", "max_mamba_cache_size", static_cast<double>(m.mamba_slots), false);
      if (const LogFigure* n = log.find("mamba_slots"); n && n->value >= 0 && n->value <= 1e12) {
        const double rows = n->value + 1;
        row_of("mamba_conv_bytes", Str::log_row_conv_at, rows * static_cast<double>(m.mamba_conv_bytes), true);
        row_of("mamba_ssm_bytes", Str::log_row_ssm_at, rows * static_cast<double>(m.mamba_ssm_bytes), true);
      }
    }
    if (swa && !m.hybrid)
      out.notes.push_back(issue_row("log", Str::log_note_hybrid));
  } else {
    return check_llamacpp(log, w, *e, std::move(out));
  }
  return out;
}

std::string check_log_json(const LogCheck& c, std::string_view preset) {
  json_util::json j;
  j["engine"] = std::string(to_string(c.log.engine));
  j["version"] = c.log.version;
  j["model"] = c.log.model;
  if (!preset.empty()) j["preset"] = std::string(preset);
  j["settings"] = json_util::json::object();
  for (const auto& [k, v] : c.log.settings) j["settings"][k] = v;
  j["rows"] = json_util::json::array();
  for (const auto& r : c.rows)
    j["rows"].push_back({{"key", r.key}, {"label", r.label}, {"logged", r.logged}, {"llmsize", r.ours},
                         {"logged_value", r.logged_value}, {"llmsize_value", r.ours_value}, {"rel_diff", r.rel_diff},
                         {"same_text", r.same_text}});
  j["lines"] = c.lines;
  j["notes"] = json_util::json::array();
  for (const Issue& n : c.notes) j["notes"].push_back(n.message);
  return j.dump(2);
}

}  // namespace llmsize::core

// The launch command that matches a configuration (issue 14, "Export"): the engine's own command
// line with the flags the estimate assumed — vllm serve (vLLM 0.19), python -m
// sglang.launch_server (SGLang 0.5 of late 2025) or llama-server (llama.cpp b10573), the versions
// the runtime profiles follow; for training, a DeepSpeed configuration (--zero 0-3: ZeRO stage,
// micro-batch, accumulation, bf16/fp16) or an Accelerate FSDP one (--zero fsdp: FULL_SHARD,
// mixed precision, processes, activation checkpointing) with the command that reads it; with
// --recipe torchtune, tune run full_finetune_single_device with its config's overrides; with
// --recipe megatron, torchrun … pretrain_gpt.py (Megatron-LM 040eac94) with the layout and shape;
// with --recipe litgpt, python finetune/lora.py (or adapter.py, adapter_v2.py) as LitGPT ran it;
// with --recipe hf-peft on one GPU, trl sft (TRL 0.13.0's scripts/sft.py) with its flags, and over
// FSDP the same script under accelerate launch (1.0.1) with the recipe's FSDP configuration.
// Each flag comes from one workload field (its key is kept beside it); a field the engine has no
// flag for is said in a note, and a value the engine cannot take (fp8 KV in llama.cpp, a 16-bit
// KV cache other than vLLM's model dtype, expert parallelism other than vLLM's on/off over dp·tp,
// …) is refused with an Issue naming the field. Flag
// spellings, values and defaults: vLLM vllm/engine/arg_utils.py EngineArgs.add_cli_args and
// vllm/config/cache.py; SGLang python/sglang/srt/server_args.py ServerArgs.add_cli_args;
// llama.cpp common/arg.cpp and tools/server/server.cpp.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "issue.hpp"
#include "model.hpp"
#include "workload.hpp"

namespace llmsize::core {

struct LaunchFlag {
  std::string flag;   // "--max-model-len", "-ngl"
  std::string value;  // empty for a switch ("--swa-full")
  std::string field;  // the workload field it comes from ("seq"), or "model"
  bool words = false; // the value is several words, each its own argument ("q_proj v_proj")
  bool in_config = false;  // a key of the configuration file (config_name), not a word of the command
};

struct LaunchCommand {
  std::string engine;   // "vllm", "sglang", "llama-server"; training: "deepspeed", "accelerate"
  std::string version;  // the version whose flags these are
  std::vector<std::string> program;  // the words before the flags: {"vllm", "serve", MODEL}
  std::vector<LaunchFlag> flags;
  std::vector<Issue> notes;          // fields without a flag, and what MODEL stands for (field: the workload key)
  // Training: the configuration file the command reads (ds_config.json, fsdp_config.yaml), its
  // text, and the workload field of each of its keys (flags holds them as key = value, in_config).
  std::string config_name, config_text;
  // torchtune: the flags are `key=value` overrides of the config the program names, one a line
  // in text() (continued with a backslash).
  bool key_value = false;
  // megatron: one flag a line in text(), continued with a backslash.
  bool one_a_line = false;
  std::string text() const;          // one shell line (words quoted where they need it), the configuration's keys left out
};

// The model as the command names it: a Hugging Face repository id for vLLM and SGLang (the
// preset's source, or what the caller knows), a .gguf path for llama-server; empty: the
// placeholder MODEL (MODEL.gguf), with a note.
Result<LaunchCommand> launch_command(const ModelConfig& cfg, const Workload& w, std::string_view model);

// The model a preset's command names: its repository for vLLM and SGLang (hub_repo_of), nothing for
// llama-server (a GGUF file of one's choosing) or an unknown preset.
std::string preset_model_id(std::string_view preset, Runtime rt);

std::string launch_json(const LaunchCommand& c);

}  // namespace llmsize::core

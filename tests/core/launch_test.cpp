// The launch command of a configuration (issue 14, Export): each engine's flags as its own
// argument parser spells them, each from a workload field the estimate used, and a refusal naming
// the field where the engine has no way to say what the estimate assumed.
#include <algorithm>
#include <string>

#include "core/launch.hpp"
#include "core/presets.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;
using llmsize::test::with;

namespace {

Workload on(Runtime rt, std::initializer_list<std::pair<const char*, const char*>> kv) {
  Workload w = with(kv);
  w.runtime = rt;
  return w;
}
LaunchCommand command(const char* id, const Workload& w, std::string_view model = "") {
  auto c = launch_command(preset(id).config, w, model);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  return std::move(c).value();
}
using Settings = std::initializer_list<std::pair<const char*, const char*>>;
// A recipe's workload (`base`, link keys) with `extra` settings on top, each through its field.
Workload with_extra(Settings base, Settings extra) {
  Workload w = with(base);
  for (auto [k, v] : extra) {
    const WorkloadField* f = find_field(k);
    REQUIRE(f != nullptr);
    REQUIRE_FALSE(f->set(w, v));
  }
  return w;
}
// Every flag of a command names the workload field it comes from (or the model).
void check_flag_fields(const LaunchCommand& c) {
  for (const LaunchFlag& f : c.flags) {
    INFO(f.flag);
    CHECK((f.field == "model" || find_field(f.field) != nullptr));
  }
}
Issue refused(const char* id, const Workload& w) {
  auto c = launch_command(preset(id).config, w, "");
  REQUIRE_FALSE(c.ok());
  return c.issues().front();
}

}  // namespace

TEST_CASE("export: vLLM's, SGLang's and llama-server's command lines for one configuration", "[core][export]") {
  // vllm serve: max_model_len, --dtype and --gpu-memory-utilization always (the estimate's inputs,
  // whatever vLLM's defaults are), the rest where they differ from vLLM's defaults.
  CHECK(command("llama-3.1-8b", on(Runtime::Vllm, {{"seq", "8192"}, {"util", "0.95"}}), "meta-llama/Llama-3.1-8B-Instruct").text() ==
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --dtype bfloat16 --gpu-memory-utilization 0.95");
  CHECK(command("qwen3-30b-a3b", on(Runtime::Vllm, {{"gpus", "8"}, {"tp", "4"}, {"exp", "8"}, {"kvt", "fp8"}, {"mns", "128"},
                                                    {"mbt", "4096"}, {"bs", "32"}, {"kvmem", "21474836480"}, {"ee", "1"}}))
            .text() ==
        "vllm serve MODEL --max-model-len 4096 --dtype bfloat16 --gpu-memory-utilization 0.9 --tensor-parallel-size 4 "
        "--data-parallel-size 2 --enable-expert-parallel --kv-cache-dtype fp8 --kv-cache-memory-bytes 21474836480 "
        "--max-num-batched-tokens 4096 --max-num-seqs 128 --block-size 32 --enforce-eager");
  // --language-model-only and prefix caching as given (auto: no flag, the release's default); llmsize's own inputs
  // (--vllm-version, --vllm-cuda-graph-mib) are no vLLM flags.
  CHECK(command("qwen3.6-27b", on(Runtime::Vllm, {{"seq", "32768"}, {"lmo", "1"}, {"pc", "yes"}, {"vver", "0.27"}, {"vcg", "900"}})).text() ==
        "vllm serve MODEL --max-model-len 32768 --dtype bfloat16 --gpu-memory-utilization 0.92 --language-model-only "
        "--enable-prefix-caching");
  CHECK(command("qwen3.6-27b", on(Runtime::Vllm, {{"seq", "32768"}, {"pc", "no"}})).text() ==
        "vllm serve MODEL --max-model-len 32768 --dtype bfloat16 --gpu-memory-utilization 0.9 --no-enable-prefix-caching");
  // python -m sglang.launch_server: fp8 is fp8_e4m3 there; the hybrid pool's flags as given.
  CHECK(command("llama-4-scout", on(Runtime::Sglang, {{"seq", "65536"}, {"tp", "4"}, {"gpus", "4"}, {"kvt", "fp8"}, {"mfs", "0.85"},
                                                      {"swar", "0.5"}, {"cps", "8192"}}),
                "meta-llama/Llama-4-Scout-17B-16E-Instruct")
            .text() ==
        "python -m sglang.launch_server --model-path meta-llama/Llama-4-Scout-17B-16E-Instruct --context-length 65536 --dtype bfloat16 "
        "--tp-size 4 --kv-cache-dtype fp8_e4m3 --mem-fraction-static 0.85 --chunked-prefill-size 8192 --swa-full-tokens-ratio 0.5");
  CHECK(command("qwen3-8b", on(Runtime::Sglang, {{"psz", "16"}})).text() ==
        "python -m sglang.launch_server --model-path MODEL --context-length 4096 --dtype bfloat16 --page-size 16");
  // A hybrid model's SSM state in bfloat16 (float32, SGLang's default, takes no flag).
  CHECK(command("qwen3.6-27b", on(Runtime::Sglang, {{"msd", "bfloat16"}, {"mfs", "0.9"}})).text() ==
        "python -m sglang.launch_server --model-path MODEL --context-length 4096 --dtype bfloat16 --mem-fraction-static 0.9 "
        "--mamba-ssm-dtype bfloat16");
  CHECK(command("qwen3.6-27b", on(Runtime::Sglang, {{"msd", "float32"}})).text() ==
        "python -m sglang.launch_server --model-path MODEL --context-length 4096 --dtype bfloat16");
  // llama-server: -c is seq · batch (the slots share it), -ngl all (-1 is "auto" in b10573), both cache types
  // always (its default is f16), -fa on|off, the rest where they differ from its defaults.
  CHECK(command("qwen3-30b-a3b", on(Runtime::LlamaCpp, {{"seq", "8192"}, {"batch", "2"}, {"np", "2"}, {"kvt", "q8_0"},
                                                        {"ub", "1024"}, {"ncmoe", "12"}, {"pp", "2"}, {"gpus", "2"}, {"ts", "3,1"}}),
                "Qwen3-30B-A3B-Q4_K_M.gguf")
            .text() ==
        "llama-server -m Qwen3-30B-A3B-Q4_K_M.gguf -c 16384 -np 2 -ngl all -ctk q8_0 -ctv q8_0 -fa on -ub 1024 --n-cpu-moe 12 -ts 3,1");
  const LaunchCommand lc = command("gpt-oss-20b", on(Runtime::LlamaCpp, {{"ngl", "10"}, {"swaf", "1"}, {"kvt", "fp16"}, {"flash", "0"}}));
  CHECK(lc.text() == "llama-server -m MODEL.gguf -c 4096 -ngl 10 -ctk f16 -ctv f16 -fa off --swa-full");
  CHECK(lc.notes.front().message.find("MODEL.gguf stands for the model") == 0);
  // A word the shell would split is quoted.
  CHECK(command("llama-3.1-8b", on(Runtime::LlamaCpp, {}), "my models/llama 8b.gguf").text().rfind("llama-server -m 'my models/llama 8b.gguf' ", 0) == 0);
}

TEST_CASE("export: every flag comes from a workload field the estimate used; nothing else is added", "[core][export]") {
  std::vector<std::string> keys{"model"};
  for (const auto& f : workload_fields()) keys.emplace_back(f.key);
  for (Runtime rt : {Runtime::Vllm, Runtime::Sglang, Runtime::LlamaCpp})
    for (const auto& kv : std::vector<std::vector<std::pair<const char*, const char*>>>{
             {}, {{"seq", "32768"}, {"kvt", "fp8"}}, {{"gpus", "8"}, {"tp", "8"}}, {{"w", "gptq-int4"}}, {{"w", "nf4"}}}) {
      Workload w;
      for (const auto& [k, v] : kv)
        for (const auto& f : workload_fields())
          if (f.key == k) REQUIRE_FALSE(f.set(w, v));
      w.runtime = rt;
      auto c = launch_command(preset("llama-3.1-8b").config, w, "");
      if (!c) continue;  // a refusal, checked below
      for (const LaunchFlag& f : c->flags) {
        INFO(c->text() << " · " << f.flag);
        CHECK(std::find(keys.begin(), keys.end(), f.field) != keys.end());
        // The values the estimate took, as given.
        if (f.field == "seq" && rt != Runtime::LlamaCpp) CHECK(f.value == std::to_string(w.seq));
        if (f.field == "tp") CHECK(f.value == std::to_string(w.tp));
      }
      // A pre-quantized checkpoint gets no flag: the engine reads its quantization_config.
      if (w.weights == WeightFormat::GptqInt4 && rt != Runtime::LlamaCpp)
        CHECK(std::none_of(c->flags.begin(), c->flags.end(), [](const LaunchFlag& f) { return f.flag == "--quantization"; }));
    }
}

TEST_CASE("export: values an engine cannot take are refused by the field", "[core][export][validation]") {
  // vLLM's cache is the model dtype (auto) or fp8; its expert parallelism spans dp · tp.
  CHECK(refused("llama-3.1-8b", on(Runtime::Vllm, {{"kvt", "fp16"}})).field == "kvt");
  CHECK(refused("llama-3.1-8b", on(Runtime::Vllm, {{"kvt", "q8_0"}})).field == "kvt");
  CHECK(refused("qwen3-30b-a3b", on(Runtime::Vllm, {{"gpus", "8"}, {"tp", "8"}, {"exp", "4"}})).field == "exp");
  // Unquantized weights are held in --dtype; GGUF file types are llama.cpp's; nf4 with double quantization has no flag.
  CHECK(refused("llama-3.1-8b", on(Runtime::Vllm, {{"w", "fp32"}})).field == "w");
  CHECK(refused("llama-3.1-8b", on(Runtime::Sglang, {{"w", "q4_k_m"}})).field == "w");
  CHECK(refused("llama-3.1-8b", on(Runtime::Vllm, {{"w", "nf4-dq"}})).field == "w");
  // SGLang: bf16, fp8 or the model's own; pipeline parallelism is not modelled.
  CHECK(refused("llama-3.1-8b", on(Runtime::Sglang, {{"kvt", "fp32"}})).field == "kvt");
  CHECK(refused("llama-3.1-8b", on(Runtime::Sglang, {{"gpus", "2"}, {"pp", "2"}})).field == "pp");
  CHECK(refused("qwen3.6-27b", on(Runtime::Sglang, {{"msd", "float16"}})).field == "msd");
  // llama.cpp: no fp8 cache, no quantized V without flash attention, no row split, no expert parallelism.
  CHECK(refused("llama-3.1-8b", on(Runtime::LlamaCpp, {{"kvt", "fp8"}})).field == "kvt");
  CHECK(refused("llama-3.1-8b", on(Runtime::LlamaCpp, {{"kvt", "q4_0"}, {"flash", "0"}})).field == "flash");
  CHECK(refused("llama-3.1-8b", on(Runtime::LlamaCpp, {{"gpus", "2"}, {"tp", "2"}})).field == "tp");
  // llama-server's command is today's: a library caller's outputs or an older build's -ngl order are not its.
  CHECK(refused("llama-3.1-8b", on(Runtime::LlamaCpp, {{"lcc", "library"}})).field == "lcc");
  CHECK(refused("llama-3.1-8b", on(Runtime::LlamaCpp, {{"lco", "blocks-first"}, {"ngl", "20"}})).field == "lco");
  const Issue graph = refused("llama-3.1-8b", on(Runtime::LlamaCpp, {{"lcg", "2025-08"}}));
  CHECK(graph.field == "lcg");
  CHECK(graph.message.find("--llamacpp-graph 2025-08 is an older build's") != std::string::npos);
  // No engine, training, and a workload that is itself invalid.
  CHECK(refused("llama-3.1-8b", with({})).field == "rt");
  Workload bad = on(Runtime::Vllm, {});
  bad.seq = 0;
  CHECK(refused("llama-3.1-8b", bad).field == "seq");
  // The SGLang and vLLM fields of other engines never appear: llama-server takes none of them.
  const LaunchCommand l = command("llama-3.1-8b", on(Runtime::LlamaCpp, {{"util", "0.5"}, {"mns", "64"}, {"mfs", "0.7"}}));
  CHECK(l.text() == "llama-server -m MODEL.gguf -c 4096 -ngl all -ctk bf16 -ctv bf16 -fa on");
}

TEST_CASE("export: the Hugging Face repository of each preset's source", "[core][export]") {
  CHECK(hub_repo_of("Hugging Face Hub: meta-llama/Llama-3.1-8B, config.json") == "meta-llama/Llama-3.1-8B");
  CHECK(hub_repo_of("Hugging Face Hub: baidu/ERNIE-4.5-21B-A3B-PT (and -Thinking, the same architecture)") == "baidu/ERNIE-4.5-21B-A3B-PT");
  CHECK(hub_repo_of("Brown et al. 2020, 'Language Models are Few-Shot Learners'").empty());
  CHECK(hub_repo_of("Hugging Face Hub: a/b/c, config.json").empty());
  CHECK(hub_repo_of("Hugging Face Hub: a/b:c, config.json").empty());
  CHECK(hub_repo_of("Hugging Face Hub: not-a-repo, config.json").empty());
  auto all = load_presets();
  REQUIRE(all.ok());
  int with_repo = 0;
  for (const Preset& p : *all)
    if (!hub_repo_of(p.source).empty()) ++with_repo;
  CHECK(with_repo >= 60);
}

TEST_CASE("check-log's model: the preset that is the checkpoint a log names", "[core][export]") {
  // The Hub's names compare case aside (vLLM prints a model as it was given).
  for (const char* id : {"Qwen/Qwen3-8B", "qwen/qwen3-8b", "QWEN/QWEN3-8B"}) {
    INFO(id);
    const auto p = find_preset_by_hub(id);
    REQUIRE(p);
    CHECK(p->id == "qwen3-8b");
  }
  CHECK(find_preset_by_hub("meta-llama/Llama-3.1-8B")->id == "llama-3.1-8b");
  CHECK(find_preset_by_hub("google/gemma-3-27b-it")->id == "gemma-3-27b");
  // Another checkpoint of the family (its Instruct model, a longer context), a local path, a bare
  // name, nothing: no preset is it.
  for (const char* id : {"meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B-FP8", "/models/Qwen3-8B", "Qwen3-8B", "", "Qwen/Qwen3-8B/"}) {
    INFO(id);
    CHECK_FALSE(find_preset_by_hub(id));
  }
  // Presets of the same name: the hint when none is the checkpoint.
  const auto near = presets_sharing_name("meta-llama/Llama-3.1-8B-Instruct");
  REQUIRE(near.size() == 1);
  CHECK(near.front().id == "llama-3.1-8b");
  CHECK(presets_sharing_name("Qwen/Qwen3-8B").empty());        // the checkpoint itself
  CHECK(presets_sharing_name("Qwen/Qwen3-8BX").empty());       // not a '-' suffix
  CHECK(presets_sharing_name("other/Qwen3-8B-Instruct").empty());  // another owner
  // A preset whose config is not its repository's checkpoint as served says why, and is not picked:
  // export still names the repository (the checkpoint to serve).
  auto all = load_presets();
  REQUIRE(all.ok());
  int differs = 0;
  for (const Preset& p : *all) {
    if (p.hub_differs.empty()) continue;
    ++differs;
    INFO(p.id);
    const std::string repo = hub_repo_of(p.source);
    REQUIRE_FALSE(repo.empty());
    CHECK_FALSE(find_preset_by_hub(repo));
    const auto hint = presets_sharing_name(repo);  // named as a hint, with its reason
    REQUIRE(hint.size() == 1);
    CHECK(hint.front().id == p.id);
    CHECK(preset_model_id(p.id, Runtime::Vllm) == repo);
  }
  CHECK(differs == 3);  // Gemma 4 E4B and 31B (text models of multimodal checkpoints), MiniMax-M2 (FP8 left out)
  // Two presets never claim one checkpoint.
  std::vector<std::string> repos;
  for (const Preset& p : *all)
    if (p.hub_differs.empty() && !hub_repo_of(p.source).empty()) repos.push_back(hub_repo_of(p.source));
  std::sort(repos.begin(), repos.end());
  CHECK(std::adjacent_find(repos.begin(), repos.end()) == repos.end());
}

TEST_CASE("export: training as a DeepSpeed or an Accelerate FSDP configuration, keys from the workload", "[core][export]") {
  // --zero 0-3: DeepSpeed's ds_config.json (micro-batch, accumulation, bf16 with fp32 master weights, the stage).
  const LaunchCommand ds = command("llama-3.1-8b", with({{"mode", "training"}, {"gpus", "8"}, {"zero", "3"}, {"batch", "2"}, {"accum", "4"}}));
  CHECK(ds.text() == "deepspeed --num_gpus 8 train.py --deepspeed ds_config.json");
  CHECK(ds.config_name == "ds_config.json");
  CHECK(ds.config_text ==
        "{\n  \"bf16\": {\n    \"enabled\": true\n  },\n  \"gradient_accumulation_steps\": 4,\n"
        "  \"train_micro_batch_size_per_gpu\": 2,\n  \"zero_optimization\": {\n    \"stage\": 3\n  }\n}\n");
  CHECK(command("llama-3.1-8b", with({{"mode", "training"}, {"dtype", "fp16"}, {"zero", "1"}})).config_text.find("\"fp16\"") !=
        std::string::npos);
  // --zero fsdp: Accelerate's FSDP configuration (FULL_SHARD), activation checkpointing from --recompute full.
  const LaunchCommand fsdp = command("llama-3.1-8b", with({{"mode", "training"}, {"gpus", "4"}, {"zero", "fsdp"}, {"rc", "full"}}));
  CHECK(fsdp.text() == "accelerate launch --config_file fsdp_config.yaml train.py");
  CHECK(fsdp.config_text.find("distributed_type: FSDP\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 4\n") != std::string::npos);
  CHECK(fsdp.config_text.find("fsdp_sharding_strategy: FULL_SHARD\n") != std::string::npos);
  CHECK(fsdp.config_text.find("fsdp_activation_checkpointing: true\n") != std::string::npos);
  // What their configurations cannot hold is refused by the field.
  CHECK(refused("llama-3.1-8b", with({{"mode", "training"}, {"gpus", "8"}, {"tp", "8"}})).field == "tp");
  CHECK(refused("llama-3.1-8b", with({{"mode", "training"}, {"prec", "pure"}})).field == "prec");
  CHECK(refused("llama-3.1-8b", with({{"mode", "training"}, {"rc", "selective"}})).field == "rc");
}

TEST_CASE("export: --recipe torchtune as tune run full_finetune_single_device with the overrides the recipe assumed", "[core][export]") {
  auto tt = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "torchtune"}, {"gpu", "h100-sxm"}, {"dtype", "bf16"}, {"prec", "pure"},
                      {"ostate", "bf16"}, {"seq", "2048"}, {"batch", "4"}}, extra);
  };
  // The config of the matched builder, the builder as the model, every setting of the estimate.
  const LaunchCommand c = command("llama-3.1-8b", tt({{"rc", "full"}, {"accum", "2"}}));
  CHECK(c.engine == "tune");
  CHECK(c.text() ==
        "tune run full_finetune_single_device --config llama3_1/8B_full_single_device \\\n"
        "  model._component_=torchtune.models.llama3_1.llama3_1_8b \\\n  batch_size=4 \\\n  gradient_accumulation_steps=2 \\\n"
        "  dataset.packed=True \\\n  tokenizer.max_seq_len=2048 \\\n  dtype=bf16 \\\n  optimizer._component_=torch.optim.AdamW \\\n"
        "  optimizer.fused=True \\\n  optimizer_in_bwd=False \\\n  loss._component_=torch.nn.CrossEntropyLoss \\\n  enable_activation_checkpointing=True \\\n"
        "  enable_activation_offloading=False \\\n  compile=False");
  CHECK(c.config_name.empty());
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].message.find("llama3_1/8B_full_single_device's checkpointer") != std::string::npos);
  // optimizer_in_bwd and activation offloading as asked.
  const std::string fused = command("llama-3.1-8b", tt({{"rc", "full"}, {"oib", "1"}, {"aoff", "1"}})).text();
  CHECK(fused.find("  optimizer_in_bwd=True \\\n") != std::string::npos);
  CHECK(fused.find("  enable_activation_offloading=True \\\n") != std::string::npos);
  CHECK(refused("llama-3.1-8b", tt({{"oib", "1"}, {"accum", "4"}})).field == "oib");
  check_flag_fields(c);
  // Mistral 7B's only single-device config is the low-memory one; its overrides undo what differs.
  CHECK(command("mistral-7b", tt({})).text().find("--config mistral/7B_full_low_memory \\\n  model._component_=torchtune.models.mistral.mistral_7b") !=
        std::string::npos);
  // A builder without a single-device config, and what the recipe refuses, are refused by name.
  const Issue none = refused("llama-3.1-70b", tt({}));
  CHECK(none.field == "recipe");
  CHECK(none.message.find("models.llama3_1_70b") != std::string::npos);
  CHECK(refused("gemma-2-9b", tt({})).field == "recipe");
}

TEST_CASE("export: --recipe torchtune with --lora-rank as tune run lora_finetune_single_device with the builder's LoRA arguments", "[core][export]") {
  auto tt = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "torchtune"}, {"gpu", "h100-sxm"}, {"dtype", "bf16"}, {"prec", "pure"},
                      {"ostate", "bf16"}, {"seq", "2048"}, {"batch", "2"}, {"lora", "8"}}, extra);
  };
  // llama3_1/8B_lora_single_device's own settings: q_proj, v_proj and output_proj, the MLP, rank 8.
  const LaunchCommand c = command("llama-3.1-8b", tt({{"rc", "full"}, {"lt", "q,v,o,gate,up,down"}}));
  CHECK(c.text() ==
        "tune run lora_finetune_single_device --config llama3_1/8B_lora_single_device \\\n"
        "  model._component_=torchtune.models.llama3_1.lora_llama3_1_8b \\\n  'model.lora_attn_modules=[q_proj,v_proj,output_proj]' \\\n"
        "  model.apply_lora_to_mlp=True \\\n  model.lora_rank=8 \\\n  model.lora_dropout=0.0 \\\n  batch_size=2 \\\n"
        "  gradient_accumulation_steps=1 \\\n  dataset.packed=True \\\n  tokenizer.max_seq_len=2048 \\\n  dtype=bf16 \\\n"
        "  optimizer._component_=torch.optim.AdamW \\\n  optimizer.fused=True \\\n"
        "  loss._component_=torchtune.modules.loss.CEWithChunkedOutputLoss \\\n  enable_activation_checkpointing=True \\\n"
        "  enable_activation_offloading=False \\\n  compile=False");
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].message.find("llama3_1/8B_lora_single_device's checkpointer") != std::string::npos);
  check_flag_fields(c);
  // Activation offloading, with checkpointing, is the recipe's flag; without checkpointing the
  // recipe raises, and so the export refuses on the field.
  CHECK(command("llama-3.1-8b", tt({{"rc", "full"}, {"aoff", "1"}})).text().find(
            "  enable_activation_checkpointing=True \\\n  enable_activation_offloading=True \\\n") != std::string::npos);
  CHECK(refused("llama-3.1-8b", tt({{"aoff", "1"}})).field == "aoff");
  // --dropout is the adapters' lora_dropout (any p above 0 saves the same).
  CHECK(command("llama-3.1-8b", tt({{"dropout", "1"}})).text().find("  model.lora_dropout=0.05 \\\n") != std::string::npos);
  // Attention only, k_proj among the modules: apply_lora_to_mlp False.
  const std::string attn = command("qwen2.5-7b", tt({{"lt", "q,k,v"}})).text();
  CHECK(attn.find("--config qwen2_5/7B_lora_single_device \\\n  model._component_=torchtune.models.qwen2_5.lora_qwen2_5_7b_base") !=
        std::string::npos);
  CHECK(attn.find("'model.lora_attn_modules=[q_proj,k_proj,v_proj]' \\\n  model.apply_lora_to_mlp=False") != std::string::npos);
  // Llama 2 13B has a QLoRA config but no LoRA one; a part of the MLP is not a builder's argument.
  const Issue none = refused("llama-2-13b", tt({}));
  CHECK(none.field == "recipe");
  CHECK(none.message.find("no single-device LoRA config for models.llama2_13b") != std::string::npos);
  CHECK(refused("llama-3.1-8b", tt({{"lt", "q,v,gate"}})).message.find("apply_lora_to_mlp") != std::string::npos);
  // QLoRA: the qlora_ builder and its config; Qwen2.5 has none (refused by the recipe).
  const LaunchCommand q = command("llama-3.1-8b", tt({{"rc", "full"}, {"lt", "q,v,o,gate,up,down"}, {"qlora", "1"}}));
  CHECK(q.text().find("tune run lora_finetune_single_device --config llama3_1/8B_qlora_single_device \\\n"
                      "  model._component_=torchtune.models.llama3_1.qlora_llama3_1_8b \\\n") == 0);
  check_flag_fields(q);
  CHECK(refused("qwen2.5-7b", tt({{"qlora", "1"}})).message.find("Qwen2.5 have none") != std::string::npos);
}

TEST_CASE("export: --recipe megatron as torchrun pretrain_gpt.py with the layout and shape the recipe assumed", "[core][export]") {
  auto mg = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "megatron"}, {"gpu", "a100-80gb"}, {"gpus", "4"}, {"dtype", "fp16"},
                      {"flash", "0"}, {"dropout", "1"}, {"seq", "1024"}, {"opt", "adamw"}, {"prec", "mixed"}, {"rc", "none"}}, extra);
  };
  // The TP 2 × PP 2 run the megatron recipe is calibrated on (liguodongiot/llm-action,
  // train/megatron/gpt2/model_train.md): its argument block prints tensor_model_parallel_size 2,
  // pipeline_model_parallel_size 2, sequence_parallel True, micro_batch_size 4, global_batch_size 16,
  // fp16 True, num_layers 24, hidden_size 1024, ffn_hidden_size 4096, num_attention_heads 16,
  // seq_length 1024, max_position_embeddings 1024, tokenizer_type GPT2BPETokenizer.
  const LaunchCommand c = command("gpt2-medium", mg({{"tp", "2"}, {"pp", "2"}, {"sp", "1"}, {"batch", "4"}, {"accum", "4"}}));
  CHECK(c.engine == "torchrun");
  CHECK(c.version == "Megatron-LM 040eac94 (July 2023) pretrain_gpt.py");
  CHECK(c.text() ==
        "torchrun --nproc_per_node 4 pretrain_gpt.py \\\n  --tensor-model-parallel-size 2 \\\n  --pipeline-model-parallel-size 2 \\\n"
        "  --sequence-parallel \\\n  --num-layers 24 \\\n  --hidden-size 1024 \\\n  --ffn-hidden-size 4096 \\\n  --num-attention-heads 16 \\\n"
        "  --seq-length 1024 \\\n  --max-position-embeddings 1024 \\\n  --micro-batch-size 4 \\\n  --global-batch-size 16 \\\n  --fp16 \\\n"
        "  --attention-dropout 0.1 \\\n  --hidden-dropout 0.1 \\\n  --tokenizer-type GPT2BPETokenizer \\\n  --vocab-file gpt2-vocab.json \\\n"
        "  --merge-file gpt2-merges.txt");
  check_flag_fields(c);
  REQUIRE(c.notes.size() == 2);
  CHECK(c.notes[0].message.find("GPT-2's BPE files") != std::string::npos);
  CHECK(c.notes[1].message.find("--log-interval") != std::string::npos);
  auto has = [](const LaunchCommand& x, const std::string& flag, const std::string& value = "") {
    for (const LaunchFlag& f : x.flags)
      if (f.flag == flag && f.value == value) return true;
    return false;
  };
  // The distributed optimizer, bf16, fp32 gradients with fp16; DP 4 makes the global batch.
  const LaunchCommand d = command("gpt2-medium", mg({{"zero", "1"}, {"batch", "1"}, {"accum", "2"}, {"dtype", "bf16"}}));
  CHECK(has(d, "--use-distributed-optimizer"));
  CHECK(has(d, "--bf16"));
  CHECK(has(d, "--global-batch-size", "8"));
  CHECK_FALSE(has(d, "--accumulate-allreduce-grads-in-fp32"));
  CHECK(has(command("gpt2-medium", mg({{"gdt", "fp32"}})), "--accumulate-allreduce-grads-in-fp32"));
  // Selective recomputation: --recompute-granularity selective (arguments.py; what
  // --recompute-activations sets); none without it.
  CHECK(has(command("gpt2-medium", mg({{"rc", "selective"}})), "--recompute-granularity", "selective"));
  CHECK_FALSE(has(d, "--recompute-granularity", "selective"));
  // Full recomputation as the recipe models it: one layer a checkpoint.
  const LaunchCommand rf = command("gpt2-medium", mg({{"rc", "full"}}));
  CHECK(has(rf, "--recompute-granularity", "full"));
  CHECK(has(rf, "--recompute-method", "uniform"));
  CHECK(has(rf, "--recompute-num-layers", "1"));
  // Past one node: nodes of 8, or of the largest count up to 8 that divides the GPUs.
  const LaunchCommand n16 = command("gpt2-medium", mg({{"gpus", "16"}, {"tp", "8"}, {"batch", "2"}}));
  CHECK(n16.text().rfind("torchrun --nnodes 2 --nproc_per_node 8 --rdzv_backend c10d --rdzv_endpoint HOST:29500 pretrain_gpt.py", 0) == 0);
  CHECK(n16.notes[0].field == "gpus");
  CHECK(command("gpt2-medium", mg({{"gpus", "12"}, {"tp", "4"}})).text().rfind("torchrun --nnodes 2 --nproc_per_node 6 ", 0) == 0);
  // Another vocabulary: NullTokenizer's --vocab-size + 1 tokens; untied heads and bias-free layers.
  ModelConfig other = preset("gpt2-medium").config;
  other.vocab = 50304;
  other.tie_embeddings = false;
  other.bias_qkv = other.bias_o = other.bias_ffn = false;
  auto o = launch_command(other, mg({}), "");
  INFO(join(o.issues()));
  REQUIRE(o.ok());
  CHECK(has(o.value(), "--tokenizer-type", "NullTokenizer"));
  CHECK(has(o.value(), "--vocab-size", "50303"));
  CHECK(has(o.value(), "--untie-embeddings-and-output-weights"));
  CHECK(has(o.value(), "--disable-bias-linear"));
  // What the recipe refuses is refused, by name: a sequence past the learned positions, biases
  // Megatron-LM cannot drop one by one, ZeRO 2.
  const Issue longer = refused("gpt2-medium", mg({{"seq", "2048"}}));
  CHECK(longer.field == "recipe");
  CHECK(longer.message.find("1024 rows") != std::string::npos);
  ModelConfig mixed = preset("gpt2-medium").config;
  mixed.bias_o = false;
  auto m = launch_command(mixed, mg({}), "");
  REQUIRE_FALSE(m.ok());
  CHECK(m.issues().front().message.find("biases on all four linear layers or on none") != std::string::npos);
  CHECK(refused("gpt2-medium", mg({{"zero", "2"}})).message.find("--zero 2, 3, fsdp") != std::string::npos);
}

TEST_CASE("export: --recipe litgpt as the LitGPT script the recipe follows, with its flags and globals", "[core][export]") {
  auto lg = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "litgpt"}, {"gpu", "a100-40gb"}, {"dtype", "bf16"}, {"prec", "pure"},
                      {"lora", "8"}, {"lt", "q,v"}, {"seq", "1304"}, {"batch", "1"}}, extra);
  };
  // finetune/lora.py at 8641822b: setup(checkpoint_dir, precision, quantize) are its flags.
  const LaunchCommand q = command("llama-2-7b", lg({{"w", "nf4-dq"}}), "meta-llama/Llama-2-7b-hf");
  CHECK(q.engine == "litgpt");
  CHECK(q.version == "LitGPT 8641822b (Oct 2023) finetune/lora.py");
  CHECK(q.text() == "python finetune/lora.py --checkpoint_dir checkpoints/meta-llama/Llama-2-7b-hf --precision bf16-true --quantize bnb.nf4-dq");
  REQUIRE(q.notes.size() == 2);
  CHECK(q.notes[0].message.find("micro_batch_size = 1 and lora_r = 8") != std::string::npos);
  CHECK(q.notes[1].message.find("1,304 tokens") != std::string::npos);
  check_flag_fields(q);
  CHECK(command("llama-2-7b", lg({{"w", "nf4"}}), "x/y").text().find("--quantize bnb.nf4") != std::string::npos);
  CHECK(command("llama-2-7b", lg({}), "x/y").text().find("--quantize") == std::string::npos);
  // LLaMA-Adapter v1 and v2 (0f021f3a): their own scripts; a model without a repository is a placeholder.
  const LaunchCommand a = command("llama-2-7b", lg({{"adapter", "llama-adapter-v2"}, {"lora", "0"}, {"batch", "4"}}));
  CHECK(a.text() == "python finetune/adapter_v2.py --checkpoint_dir checkpoints/ORG/NAME --precision bf16-true");
  REQUIRE(a.notes.size() == 3);
  CHECK(a.notes[0].field == "model");
  CHECK(a.notes[1].message.find("micro_batch_size = 4 at the top of finetune/adapter_v2.py") != std::string::npos);
  CHECK(command("llama-2-7b", lg({{"adapter", "llama-adapter"}, {"lora", "0"}})).program[1] == "finetune/adapter.py");
  // Several GPUs: the script's FSDPStrategy, selected by its devices global, with batch_size for the accumulation.
  const LaunchCommand f = command("llama-2-7b", lg({{"gpus", "2"}, {"zero", "fsdp"}, {"rc", "full"}, {"accum", "128"}}), "x/y");
  CHECK(f.text() == "python finetune/lora.py --checkpoint_dir checkpoints/x/y --precision bf16-true");
  REQUIRE(f.notes.size() == 3);
  CHECK(f.notes[1].field == "gpus");
  CHECK(f.notes[1].message.find("devices = 2 and batch_size = 128") != std::string::npos);
  CHECK(f.notes[1].message.find("128 micro-batches a step") != std::string::npos);
  // What the recipe refuses is refused, by name: several GPUs without FSDP, 4-bit on several GPUs.
  CHECK(refused("llama-2-7b", lg({{"gpus", "2"}})).field == "recipe");
  CHECK(refused("llama-2-7b", lg({{"gpus", "2"}, {"zero", "fsdp"}, {"rc", "full"}, {"w", "nf4"}})).message.find("NotImplementedError") !=
        std::string::npos);
  CHECK(refused("llama-2-7b", lg({{"lt", "q,k,v"}})).message.find("--lora-targets q,v") != std::string::npos);
}

TEST_CASE("export: --recipe hf-peft on one GPU as TRL's trl sft with the settings the recipe assumed", "[core][export]") {
  auto hf = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "hf-peft"}, {"gpu", "a100-80gb"}, {"dtype", "bf16"}, {"prec", "mixed"},
                      {"lora", "16"}, {"lt", "q,k,v,o"}, {"ostate", "fp32"}, {"rc", "full"}, {"seq", "4096"}, {"batch", "2"}}, extra);
  };
  // QLoRA with double quantization: TRL 0.13.0's ModelConfig and SFTConfig flags, one a line; the
  // target modules are one argument each (HfArgumentParser's nargs="+").
  const LaunchCommand q = command("mistral-7b", hf({{"w", "nf4-dq"}, {"accum", "4"}, {"dropout", "1"}}), "mistralai/Mistral-7B-v0.1");
  CHECK(q.engine == "trl");
  CHECK(q.text() ==
        "trl sft \\\n  --model_name_or_path mistralai/Mistral-7B-v0.1 \\\n  --dataset_name DATASET \\\n  --torch_dtype bfloat16 \\\n"
        "  --attn_implementation flash_attention_2 \\\n  --packing \\\n  --max_seq_length 4096 \\\n  --per_device_train_batch_size 2 \\\n"
        "  --gradient_accumulation_steps 4 \\\n  --gradient_checkpointing \\\n  --bf16 \\\n  --optim adamw_torch \\\n  --use_peft \\\n"
        "  --lora_r 16 \\\n  --lora_target_modules q_proj k_proj v_proj o_proj \\\n  --lora_dropout 0.05 \\\n  --load_in_4bit \\\n"
        "  --bnb_4bit_quant_type nf4 \\\n  --use_bnb_nested_quant \\\n  --output_dir out");
  check_flag_fields(q);
  REQUIRE(q.notes.size() == 1);
  CHECK(q.notes[0].message.find("sequences of 4,096 tokens") != std::string::npos);
  // Full fine-tuning without checkpointing or autocast: no PEFT, no 4-bit, no --bf16; the model a placeholder.
  const LaunchCommand f = command("llama-3.1-8b", hf({{"lora", "0"}, {"rc", "none"}, {"prec", "pure"}, {"ostate", "bf16"}}));
  const std::string t = f.text();
  CHECK(t.find("--use_peft") == std::string::npos);
  CHECK(t.find("--gradient_checkpointing") == std::string::npos);
  CHECK(t.find("--bf16") == std::string::npos);
  CHECK(t.find("--load_in_4bit") == std::string::npos);
  CHECK(t.find("--model_name_or_path MODEL") != std::string::npos);
  REQUIRE(f.notes.size() == 2);
  CHECK(f.notes[0].field == "model");
  // What the recipe refuses is refused, by name.
  CHECK(refused("llama-3.1-8b", hf({{"gpus", "2"}})).field == "recipe");
  CHECK(refused("gemma-2-9b", hf({})).field == "recipe");
}

TEST_CASE("export: --recipe hf-peft over FSDP as accelerate launch of TRL's script with the recipe's FSDP file", "[core][export]") {
  auto fsdp = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "hf-peft"}, {"gpu", "a100-80gb"}, {"dtype", "bf16"}, {"prec", "pure"},
                      {"lora", "0"}, {"ostate", "bf16"}, {"rc", "full"}, {"seq", "4096"}, {"batch", "2"}, {"zero", "fsdp"}}, extra);
  };
  // The calibration's two-GPU run: scripts/sft.py as a module under accelerate launch, its flags as
  // on one GPU (no --bf16: the model is bf16 and no autocast), the FSDP settings in the file.
  const LaunchCommand two = command("mistral-7b", fsdp({{"gpus", "2"}}), "mistralai/Mistral-7B-v0.1");
  CHECK(two.engine == "accelerate");
  CHECK(two.text() ==
        "accelerate launch --config_file fsdp_config.yaml -m trl.scripts.sft \\\n  --model_name_or_path mistralai/Mistral-7B-v0.1 \\\n"
        "  --dataset_name DATASET \\\n  --torch_dtype bfloat16 \\\n  --attn_implementation flash_attention_2 \\\n  --packing \\\n"
        "  --max_seq_length 4096 \\\n  --per_device_train_batch_size 2 \\\n  --gradient_accumulation_steps 1 \\\n"
        "  --gradient_checkpointing \\\n  --optim adamw_torch \\\n  --output_dir out");
  CHECK(two.config_name == "fsdp_config.yaml");
  // accelerate 1.0.1's keys (fsdp_backward_prefetch: the older fsdp_backward_prefetch_policy is
  // no longer read) with the values the recipe models.
  for (const char* line : {"distributed_type: FSDP\n", "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n", "  fsdp_backward_prefetch: BACKWARD_PRE\n",
                           "  fsdp_forward_prefetch: false\n", "  fsdp_offload_params: false\n", "  fsdp_sharding_strategy: FULL_SHARD\n",
                           "  fsdp_use_orig_params: true\n", "mixed_precision: 'no'\n", "num_machines: 1\n", "num_processes: 2\n"}) {
    INFO(line);
    CHECK(two.config_text.find(line) != std::string::npos);
  }
  CHECK(two.config_text.find("activation_checkpointing") == std::string::npos);  // the Trainer's, on the command line
  CHECK(two.config_text.find("main_process_ip") == std::string::npos);
  check_flag_fields(two);
  // The file's keys are listed as flags too, with their fields, and kept off the command line.
  int keys = 0;
  for (const LaunchFlag& f : two.flags) {
    if (!f.in_config) continue;
    ++keys;
    INFO(f.flag);
    CHECK(two.config_text.find(f.flag + ": " + f.value + "\n") != std::string::npos);
    CHECK(two.text().find(f.flag) == std::string::npos);
  }
  CHECK(keys == 3);
  REQUIRE(two.notes.size() == 1);
  CHECK(two.notes[0].field == "seq");
  // --precision mixed: the Trainer's --bf16 (autocast), the file's mixed_precision unchanged.
  const LaunchCommand mixed = command("llama-3.1-8b", fsdp({{"gpus", "4"}, {"prec", "mixed"}}));
  CHECK(mixed.text().find("  --bf16 \\\n") != std::string::npos);
  CHECK(mixed.config_text.find("mixed_precision: 'no'\n") != std::string::npos);
  CHECK(mixed.notes.front().field == "model");
  // Sixteen GPUs: two machines of eight, each started with its rank; the file names machine 0.
  const LaunchCommand sixteen = command("llama-3.1-8b", fsdp({{"gpus", "16"}}));
  CHECK(sixteen.text().rfind("accelerate launch --config_file fsdp_config.yaml --machine_rank RANK -m trl.scripts.sft \\\n", 0) == 0);
  CHECK(sixteen.config_text.find("num_machines: 2\nnum_processes: 16\nmain_process_ip: HOST\nmain_process_port: 29500\n") !=
        std::string::npos);
  CHECK(sixteen.notes[0].field == "gpus");
  CHECK(sixteen.notes[0].message.find("2 machines of 8 GPUs") != std::string::npos);
  // What the recipe refuses over FSDP is refused: LoRA, gradient accumulation.
  CHECK(refused("llama-3.1-8b", fsdp({{"gpus", "2"}, {"lora", "16"}, {"ostate", "fp32"}})).field == "recipe");
  CHECK(refused("llama-3.1-8b", fsdp({{"gpus", "2"}, {"accum", "2"}})).field == "recipe");
}

TEST_CASE("export: --recipe deepspeed as DeepSpeed-Chat's step-1 main.py with what the recipe assumed", "[core][export]") {
  auto ds = [](Settings extra) {
    return with_extra({{"mode", "training"}, {"recipe", "deepspeed"}, {"gpu", "a100-80gb"}, {"dtype", "fp16"}, {"prec", "mixed"},
                      {"zero", "2"}, {"flash", "0"}, {"opt", "adamw"}, {"rc", "none"}, {"seq", "512"}, {"batch", "4"}}, extra);
  };
  // One machine: the launcher's --num_gpus; --disable_dropout for dropout off.
  const LaunchCommand one = command("opt-13b", ds({{"gpus", "8"}, {"dropout", "0"}, {"rc", "full"}}), "facebook/opt-13b");
  CHECK(one.engine == "deepspeed");
  CHECK(one.version == "DeepSpeed-Chat 3a77097a (Apr 2023) training/step1_supervised_finetuning/main.py · DeepSpeed 0.9.0");
  CHECK(one.text().find("deepspeed --num_gpus 8 main.py") == 0);
  for (const char* piece : {"--model_name_or_path facebook/opt-13b", "--per_device_train_batch_size 4", "--max_seq_len 512",
                            "--gradient_accumulation_steps 1", "--zero_stage 2", "--disable_dropout", "--gradient_checkpointing",
                            "--deepspeed"})
    CHECK(one.text().find(piece) != std::string::npos);
  check_flag_fields(one);
  CHECK(one.notes.empty());
  // Sixteen GPUs: two machines through a hostfile, named in a note; dropout on: no flag.
  const LaunchCommand two = command("opt-13b", ds({{"gpus", "16"}, {"dropout", "1"}}));
  CHECK(two.text().find("deepspeed --hostfile hostfile --num_nodes 2 --num_gpus 8 main.py") == 0);
  CHECK(two.text().find("--disable_dropout") == std::string::npos);
  CHECK(two.text().find("--gradient_checkpointing") == std::string::npos);
  CHECK(two.text().find("--model_name_or_path MODEL") != std::string::npos);
  REQUIRE(two.notes.size() == 2);
  CHECK(two.notes[1].message.find("2 machines of 8 GPUs") != std::string::npos);
  CHECK(command("opt-13b", ds({{"gpus", "8"}, {"zero", "1"}})).text().find("--zero_stage 1") != std::string::npos);
  // What the recipe refuses, the command refuses: ZeRO-3.
  CHECK_FALSE(launch_command(preset("opt-13b").config, ds({{"gpus", "8"}, {"zero", "3"}}), ""));
}

// Calibration of the hf-peft training recipe (issue 15) against the peaks foundation-model-stack/
// fms-acceleration published for plain Hugging Face Trainer runs: scripts/benchmarks/refs/a100_80gb.csv
// at commit 24bdadb228e2d55bc0c69deec034b86a73da6917 ("fix: cross entropy for transformers>4.45
// (#123)", 2025-02-07; the file is unchanged since), which regenerated every row with the
// environment of scripts/benchmarks/refs/requirements.txt in the same commit:
//   "torch==2.4.1", "transformers==4.48.1", "peft==0.13.2", "trl==0.13.0", "bitsandbytes==0.43.3",
//   "flash-attn==2.7.3", "accelerate==1.0.1", "fms-hf-tuning==2.5.0"
// The column mem_peak_torch_mem_alloc_in_bytes is scripts/benchmarks/benchmark.py
// extract_gpu_memory_metrics: the Trainer's memory tracker (skip_memory_metrics=False), the running
// sum of the stages' allocation deltas plus the train stage's peaked delta, i.e. the train stage's
// torch.cuda.max_memory_allocated(); mem_torch_mem_alloc_in_bytes is the allocation after training.
// The runs (scripts/benchmarks/defaults.yaml, scenarios.yaml, benchmark.py defaults): one A100 80GB
// (num_gpus 1 runs without accelerate launch), use_flash_attn True (attn_implementation
// "flash_attention_2"), gradient_checkpointing True, packing True with max_seq_len 4096 (every
// sequence 4,096 tokens), per_device_train_batch_size 4 or 8, gradient_accumulation_steps 1, the
// default optimizer (adamw_torch), max_steps 100; full fine-tuning "torch_dtype: bfloat16"; LoRA
// "r: 16", "lora_dropout: 0.1", "target_modules: [q_proj, k_proj, v_proj, o_proj]"; the
// baseline-peft-bnb rows also "bf16: True" and the accelerated-peft plugin's loader
// (framework_plugin_bnb.py: BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_use_double_quant=True,
// bnb_4bit_quant_type nf4, bnb_4bit_compute_dtype bfloat16), no_peft_model: TRL prepares the model).
//
// Model: the mistral-7b preset (mistralai/Mistral-7B-v0.1's config.json) with 32,001 tokens: fms-hf-
// tuning 2.5.0 sft_trainer.py adds special_tokens_dict["pad_token"] = "<pad>" for a LlamaTokenizerFast
// and tokenizer_and_embedding_resize resizes the embeddings to len(tokenizer) (multiple_of 1).
// The after-training allocations agree: each is the modelled weights, adapters, AdamW states, the
// two cuBLAS workspaces and the last batch's three int64 tensors plus 2,048 B.
//
// The model was written from the sources named in training_recipe_hf.cpp. The rows then showed two
// things it had left out, both found in the code before being added: the bf16 copies of the LoRA
// weights that autocast caches for the whole forward (27 MB, QLoRA only) and the padding token's
// row. The older rows of the same file (transformers 4.45.2, before 24bdadb) are 2·N·V bytes lower
// for LoRA: 4.45's *ForCausalLM.forward rebound `logits = logits.float()`, freeing the bf16 logits
// before the loss; they are not a second calibration of this version.
#include <cmath>
#include <functional>
#include <set>

#include "core/estimate.hpp"
#include "core/params.hpp"
#include "core/training_recipe.hpp"
#include "recipe_lang.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::preset;

namespace {

struct Row {
  const char* quoted;  // the CSV's row as published
  const char* method;  // full, lora (bf16 base), qlora (nf4-dq base, bf16=True)
  i64 batch;
  i64 peak, after;     // mem_peak_torch_mem_alloc_in_bytes, mem_torch_mem_alloc_in_bytes
  RecipePhase phase;
};

const Row kRows[] = {
    {",0.15,,none,2.00E-05,,,77256,72434837504,43467876352,mistralai/Mistral-7B-v0.1,1,,4,,,bfloat16,0.840260801,534.9538,0.748,0.187,3062.694",
     "full", 4, 72434837504, 43467876352, RecipePhase::OptimizerStep},
    {",0.29,,none,2.00E-05,,,72988,72435230720,43468269568,mistralai/Mistral-7B-v0.1,1,,8,,,bfloat16,0.833927689,1042.5316,0.767,0.096,3143.118",
     "full", 8, 72435230720, 43468269568, RecipePhase::OptimizerStep},
    {",0.15,,none,2.00E-04,16,0.1,29576,26704571904,14664493056,mistralai/Mistral-7B-v0.1,1,lora,4,16,q_proj k_proj v_proj o_proj,bfloat16,0.862205324,492.8771,0.812,0.203,3324.155",
     "lora", 4, 26704571904, 14664493056, RecipePhase::LossForward},
    {",0.29,,none,2.00E-04,16,0.1,43232,38742912512,14664886272,mistralai/Mistral-7B-v0.1,1,lora,8,16,q_proj k_proj v_proj o_proj,bfloat16,0.858190823,977.0384,0.819,0.102,3353.809",
     "lora", 8, 38742912512, 14664886272, RecipePhase::LossForward},
    {"TRUE,0.15,,baseline-peft-bnb,2.00E-04,16,0.1,26056,20669338112,4307028992,mistralai/Mistral-7B-v0.1,1,lora,4,16,q_proj k_proj v_proj o_proj,bfloat16,0.876798363,564.2301,0.709,0.177,2903.78",
     "qlora", 4, 20669338112, 4307028992, RecipePhase::LossForward},
    {"TRUE,0.29,,baseline-peft-bnb,2.00E-04,16,0.1,46050,37002646016,4307422208,mistralai/Mistral-7B-v0.1,1,lora,8,16,q_proj k_proj v_proj o_proj,bfloat16,0.87258399,1096.8531,0.729,0.091,2987.456",
     "qlora", 8, 37002646016, 4307422208, RecipePhase::LossForward},
};

ModelConfig mistral_with_pad() {
  ModelConfig c = preset("mistral-7b").config;
  c.vocab = 32001;
  return c;
}

Workload workload_of(const Row& r) {
  const std::string m = r.method;
  Workload w = llmsize::test::with({{"mode", "training"}, {"recipe", "hf-peft"}, {"gpu", "a100-80gb"}, {"dtype", "bf16"},
                                    {"rc", "full"}, {"opt", "adamw"}, {"seq", "4096"}});
  w.batch = r.batch;
  if (m == "full") {
    w.precision = Precision::Pure;
    w.opt_state = StateDtype::BF16;
  } else {
    w.lora_rank = 16;
    w.lora_targets = kLoraQ | kLoraK | kLoraV | kLoraO;
    w.dropout = true;  // lora_dropout 0.1
    w.opt_state = StateDtype::F32;
    w.precision = m == "qlora" ? Precision::Mixed : Precision::Pure;
    if (m == "qlora") w.weights = WeightFormat::Nf4Dq;
  }
  return w;
}

}  // namespace

TEST_CASE("hf-peft recipe: the six single-GPU Mistral-7B peaks of fms-acceleration's a100_80gb.csv", "[calibration][training]") {
  const ModelConfig mistral = mistral_with_pad();
  double worst = 0;
  for (const Row& r : kRows) {
    INFO(r.quoted);
    const auto e = estimate(mistral, workload_of(r));
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    REQUIRE(e.value().training.recipe.has_value());
    const RecipePeak& p = *e.value().training.recipe;
    std::string parts;
    i64 sum = 0;
    for (const RecipePart& part : p.parts) {
      parts += std::string(tr(part.label, Lang::En)) + " " + std::to_string(part.bytes) + "; ";
      sum += part.bytes;
    }
    const double err = static_cast<double>(p.peak_allocated_bytes - r.peak) / static_cast<double>(r.peak);
    INFO(r.method << " batch " << r.batch << ": predicted " << p.peak_allocated_bytes << " B, measured " << r.peak << " B, error "
                  << 100 * err << "%; " << parts);
    // The issue's tolerance for a single-GPU recipe is 5%; every row is within 0.01% (the model is
    // 0.1 to 1.3 MB under: allocations of a few kilobytes, the loss's scalars, are not modelled).
    CHECK(std::fabs(err) <= 0.0001);
    CHECK(p.peak_allocated_bytes <= r.peak);
    worst = std::max(worst, std::fabs(err));
    CHECK(sum == p.peak_allocated_bytes);
    CHECK(p.phase == r.phase);
    CHECK(e.value().training.peak_allocated_bytes == p.peak_allocated_bytes);
    CHECK(p.weights_bytes + p.adapter_bytes + p.gradient_bytes + p.optimizer_bytes + p.saved_bytes + p.head_bytes + p.fixed_bytes ==
          p.peak_allocated_bytes);
    // After training: the weights, adapters and AdamW's two states, the cuBLAS workspaces and the
    // last batch (input_ids, labels, attention_mask), as modelled, against the CSV's allocation.
    const i64 trained = std::string(r.method) == "full" ? p.weights_bytes : p.adapter_bytes;
    const i64 after = p.weights_bytes + p.adapter_bytes + 2 * trained + 2 * kCublasWorkspace + 3 * (r.batch * 4096 * 8);
    INFO("after training: predicted " << after << " B, measured " << r.after << " B");
    CHECK(r.after - after == 2048);
  }
  CHECK(worst < 0.0001);
}

// The two-GPU full fine-tuning rows of the same file: `accelerate launch` with
// scripts/benchmarks/accelerate.yaml (FSDP FULL_SHARD, TRANSFORMER_BASED_WRAP, BACKWARD_PRE, no
// forward prefetch, mixed_precision 'no'), per_device_train_batch_size 2 and 4 (the effective
// batch over the two GPUs 4 and 8), the rest as above; the Trainer's memory metrics are rank 0's.
struct FsdpRow {
  const char* quoted;
  i64 batch, peak, after;
};
const FsdpRow kFsdpRows[] = {
    {",0.15,,none,2.00E-05,,,44382,36225939968,28984199680,mistralai/Mistral-7B-v0.1,2,,2,,,bfloat16,0.840439606,294.9755,1.356,0.339,2777.18",
     2, 36225939968, 28984199680},
    {",0.29,,none,2.00E-05,,,53587,36226136576,28984396288,mistralai/Mistral-7B-v0.1,2,,4,,,bfloat16,0.833756981,544.5118,1.469,0.184,3008.934",
     4, 36226136576, 28984396288},
};

Workload fsdp_workload(i64 batch) {
  Workload w = workload_of(kRows[0]);
  w.batch = batch;
  w.sharding = Sharding::Fsdp;
  w.gpus = 2;
  return w;
}

TEST_CASE("hf-peft recipe over FSDP: the two-GPU full fine-tuning peaks of the same file", "[calibration][training]") {
  const ModelConfig mistral = mistral_with_pad();
  const auto one = estimate(mistral, workload_of(kRows[0]));
  REQUIRE(one.ok());
  for (const FsdpRow& r : kFsdpRows) {
    INFO(r.quoted);
    const auto e = estimate(mistral, fsdp_workload(r.batch));
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    // Every Mistral parameter has an even number of elements, a multiple of 8: the shards are the
    // halves of the bf16 model, with no padding.
    CHECK(2 * p.weights_bytes == one.value().training.recipe->weights_bytes);
    // The peak is AdamW's step over the shards: weights, gradients, exp_avg, exp_avg_sq and the
    // sqrt copy, 5 × 7,241,740,288 B, with the batch's ids and the two cuBLAS workspaces. The
    // loss's forward (the root's parameter all-gathered beside the shards, the checkpoints and
    // 14 B × 32,001 logits per token) and the layers' and root's backward stay below it.
    CHECK(p.phase == RecipePhase::OptimizerStep);
    CHECK(p.peak_allocated_bytes == 5 * p.weights_bytes + 3 * r.batch * 4096 * 8 + 2 * kCublasWorkspace);
    // Published − llmsize: 2,560 B, for both batches (one GPU's rows: 2,048 B).
    CHECK(r.peak - p.peak_allocated_bytes == 2560);
    i64 sum = 0;
    for (const RecipePart& part : p.parts) sum += part.bytes;
    CHECK(sum == p.peak_allocated_bytes);
    CHECK(p.weights_bytes + p.adapter_bytes + p.gradient_bytes + p.optimizer_bytes + p.saved_bytes + p.head_bytes + p.fixed_bytes +
              p.gathered_bytes ==
          p.peak_allocated_bytes);
    // After training, the gradient shards are still there (FSDP drops them only in the next
    // step's forward, _reset_flat_param_grad_info_if_needed): four shards, where one GPU's
    // after-training allocation holds three copies (zero_grad freed its gradients).
    const i64 after = 4 * p.weights_bytes + 2 * kCublasWorkspace + 3 * (r.batch * 4096 * 8);
    INFO("after training: predicted " << after << " B, measured " << r.after << " B");
    CHECK(r.after - after == 2560);
  }
}

TEST_CASE("hf-peft recipe over FSDP: the moments the two-GPU rows do not reach", "[training]") {
  const ModelConfig mistral = mistral_with_pad();
  // Eight GPUs: the shards shrink to an eighth and the loss's forward, which holds the root's
  // parameter all-gathered (2 B × 262,156,288: embed_tokens, the final norm and lm_head), the
  // checkpoints and the logits, outgrows the step.
  Workload w8 = fsdp_workload(4);
  w8.gpus = 8;
  const auto e8 = estimate(mistral, w8);
  REQUIRE(e8.ok());
  const RecipePeak& p8 = *e8.value().training.recipe;
  CHECK(p8.phase == RecipePhase::LossForward);
  CHECK(p8.gathered_bytes == 2 * 262156288);
  CHECK(p8.weights_bytes == 2 * 7241740288 / 8);
  CHECK(p8.gradient_bytes == 0);  // the forward dropped last step's shards
  i64 sum = 0;
  for (const RecipePart& part : p8.parts) sum += part.bytes;
  CHECK(sum == p8.peak_allocated_bytes);
  CHECK(e8.value().training.gathered_bytes == p8.gathered_bytes);
  // The same run on one GPU: the loss moment there is the bf16 model, its states and the same
  // activations; under FSDP it is a quarter of the states and weights plus the gathered root.
  Workload one = workload_of(kRows[0]);
  one.batch = 4;
  one.opt_state = StateDtype::BF16;
  // A small vocabulary moves the peak into the backward of the layers or the root: every moment
  // adds up, with the layers' gathered parameters named.
  ModelConfig small = mistral;
  small.vocab = 512;
  Workload w = fsdp_workload(1);
  w.gpus = 64;
  const auto es = estimate(small, w);
  REQUIRE(es.ok());
  const RecipePeak& ps = *es.value().training.recipe;
  CHECK(ps.phase != RecipePhase::OptimizerStep);
  CHECK(ps.gathered_bytes >= 2 * 218112000);  // at least one decoder layer all-gathered
  sum = 0;
  for (const RecipePart& part : ps.parts) sum += part.bytes;
  CHECK(sum == ps.peak_allocated_bytes);
  // Refused by name: LoRA over FSDP, gradient accumulation, DeepSpeed ZeRO, one GPU with fsdp.
  auto refusal = [&](Workload x) {
    const auto r = estimate(mistral, x);
    REQUIRE_FALSE(r.ok());
    return r.issues().front().message;
  };
  Workload lora = workload_of(kRows[2]);
  lora.sharding = Sharding::Fsdp;
  lora.gpus = 2;
  CHECK(refusal(lora).find("full fine-tuning") != std::string::npos);
  Workload acc = fsdp_workload(2);
  acc.grad_accum = 2;
  CHECK(refusal(acc).find("--grad-accum 1") != std::string::npos);
  Workload z3 = fsdp_workload(2);
  z3.sharding = Sharding::Zero3;
  CHECK(refusal(z3).find("DeepSpeed") != std::string::npos);
  Workload single = fsdp_workload(2);
  single.gpus = 1;
  CHECK(refusal(single).find("--zero fsdp") != std::string::npos);
}

TEST_CASE("hf-peft recipe: trainable parameters and what each method stores", "[training]") {
  const ModelConfig mistral = mistral_with_pad();
  const Row& lora = kRows[2];
  const auto e = estimate(mistral, workload_of(lora));
  REQUIRE(e.ok());
  const RecipePeak& p = *e.value().training.recipe;
  // PEFT's "trainable params": 32 · 16 · ((4096 + 4096) + 2 · (4096 + 1024) + (4096 + 4096)).
  CHECK(p.trainable_params == 32 * 16 * (8192 + 2 * 5120 + 8192));
  CHECK(p.trainable_params == 13631488);
  CHECK(p.adapter_bytes == 4 * p.trainable_params);  // fp32
  CHECK(p.weights_bytes == 2 * (7241732096 + 2 * 4096));  // bf16, the padding row in embed_tokens and lm_head
  CHECK(p.optimizer_bytes == 2 * p.adapter_bytes);
  CHECK(p.gradient_bytes == 0);  // zero_grad() set them to None after the previous step
  CHECK(e.value().training.optimizer_bytes == p.optimizer_bytes);
  CHECK(e.value().training.gradients_bytes == 0);
  // With gradient accumulation, the forward of the second micro-batch has the gradients too.
  Workload acc = workload_of(lora);
  acc.grad_accum = 2;
  const auto ea = estimate(mistral, acc);
  REQUIRE(ea.ok());
  CHECK(ea.value().training.recipe->gradient_bytes == p.adapter_bytes);
  CHECK(ea.value().training.peak_allocated_bytes == p.peak_allocated_bytes + p.adapter_bytes);
  // bf16=True over the bf16 base: autocast's cache holds a bf16 copy of every adapter while the loss runs.
  Workload ac = workload_of(lora);
  ac.precision = Precision::Mixed;
  const auto eac = estimate(mistral, ac);
  REQUIRE(eac.ok());
  CHECK(eac.value().training.recipe->phase == RecipePhase::LossForward);
  CHECK(eac.value().training.peak_allocated_bytes == p.peak_allocated_bytes + 2 * p.trainable_params);
  // and full fine-tuning of the bf16 model is the same with it or without (autocast casts nothing).
  Workload full = workload_of(kRows[0]), full_ac = full;
  full_ac.precision = Precision::Mixed;
  const auto ef = estimate(mistral, full), efa = estimate(mistral, full_ac);
  REQUIRE(ef.ok());
  REQUIRE(efa.ok());
  CHECK(ef.value().training.peak_allocated_bytes == efa.value().training.peak_allocated_bytes);
}

TEST_CASE("hf-peft recipe: the peak moves to a layer's backward where the logits are small", "[training]") {
  // Mistral's shape with a 512-token vocabulary: the loss's 14·V bytes per token no longer exceed
  // a recomputed layer's tensors and gradients in flight.
  ModelConfig small = mistral_with_pad();
  small.vocab = 512;
  const auto e = estimate(small, workload_of(kRows[2]));
  REQUIRE(e.ok());
  const RecipePeak& p = *e.value().training.recipe;
  CHECK(p.phase == RecipePhase::LayerBackward);
  CHECK(p.head_bytes == 0);
  i64 sum = 0;
  for (const RecipePart& part : p.parts) sum += part.bytes;
  CHECK(sum == p.peak_allocated_bytes);
  // and the loss phase of the full vocabulary is larger than this one's layer phase.
  const auto full_vocab = estimate(mistral_with_pad(), workload_of(kRows[2]));
  REQUIRE(full_vocab.ok());
  CHECK(full_vocab.value().training.peak_allocated_bytes > p.peak_allocated_bytes);
}

TEST_CASE("hf-peft QLoRA: on short sequences down_proj's dequantisation in a layer's backward sets the peak, byte for byte", "[training]") {
  // bitsandbytes 0.43.3 MatMul4Bit.backward: grad_output @ dequantize_4bit(B).t(). Mistral's
  // down_proj has n = 14,336 × 4,096 = 58,720,256 weights: its bf16 dequantisation is 117,440,512 B,
  // and with double quantization the absmax dequantised first is fp32, one a block of 64:
  // 917,504 × 4 = 3,670,016 B, gone before the matmul makes the input's bf16 gradient (N × 14,336).
  // Beside them: the layer's output and its gradient (fp32 under QLoRA, 2 × N × 4,096 × 4) and
  // the output's gradient Linear4bit casts to bf16 (N × 4,096 × 2).
  struct Case {
    i64 seq;
    bool down_adapted;
    i64 inflight;
  };
  const Case cases[] = {
      // N = 64: 2,097,152 + 524,288 + 117,440,512 + max(3,670,016, 1,835,008)
      {64, false, 123731968},
      // N = 256: 8,388,608 + 2,097,152 + 117,440,512 + max(3,670,016, 7,340,032)
      {256, false, 135266304},
      // N = 256 with an adapter on down_proj: lora_A's path left the product's fp32 gradient,
      // 256 × 14,336 × 4 = 14,680,064 B, waiting for the base's to be summed with it
      {256, true, 149946368},
  };
  for (const Case& k : cases) {
    INFO("seq " << k.seq << (k.down_adapted ? ", down_proj adapted" : ""));
    Workload w = workload_of(kRows[4]);
    w.batch = 1;
    w.seq = k.seq;
    if (k.down_adapted) w.lora_targets |= kLoraGate | kLoraUp | kLoraDown;
    const auto e = estimate(mistral_with_pad(), w);
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    CHECK(p.phase == RecipePhase::LayerBackward);
    const RecipePart* inflight = nullptr;
    for (const RecipePart& part : p.parts)
      if (part.label == Str::recipe_part_layer_grads) inflight = &part;
    REQUIRE(inflight != nullptr);
    CHECK(inflight->bytes == k.inflight);
    CHECK(inflight->formula.find("at the backward of down_proj") != std::string::npos);
    CHECK(inflight->formula.find("58,720,256") != std::string::npos);
    CHECK(inflight->source.find("MatMul4Bit.backward") != std::string::npos);
  }
  // The same shapes over a bf16 base (LoRA) dequantise nothing: the MLP's multiply is in flight.
  Workload lora = workload_of(kRows[2]);
  lora.batch = 1;
  lora.seq = 64;
  const auto e = estimate(mistral_with_pad(), lora);
  REQUIRE(e.ok());
  for (const RecipePart& part : e.value().training.recipe->parts)
    if (part.label == Str::recipe_part_layer_grads) CHECK(part.formula.find("down_proj") == std::string::npos);
}

TEST_CASE("hf-peft recipe: what the recipe does not cover is refused, naming the setting", "[training]") {
  const ModelConfig mistral = mistral_with_pad();
  struct Case {
    const char* what;
    std::function<void(Workload&)> change;
    std::string needle;
  };
  const Case cases[] = {
      {"two GPUs", [](Workload& w) { w.gpus = 2; }, "one GPU"},
      {"selective recomputation", [](Workload& w) { w.recompute = Recompute::Selective; }, "--recompute full"},
      {"no checkpointing, adapters on the MLP alone", [](Workload& w) { w.recompute = Recompute::None; w.lora_targets = kLoraGate | kLoraUp; }, "--lora-targets"},
      {"SGD", [](Workload& w) { w.optimizer = Optimizer::Sgd; }, "--optimizer adamw"},
      {"fp16", [](Workload& w) { w.dtype = ComputeDtype::F16; }, "--dtype bf16"},
      {"GPTQ base", [](Workload& w) { w.weights = WeightFormat::GptqInt4; }, "gptq-int4"},
      {"fp32 weights", [](Workload& w) { w.precision = Precision::Fp32; }, "--precision pure"},
      {"bf16 states for fp32 adapters", [](Workload& w) { w.opt_state = StateDtype::BF16; }, "--opt-dtype fp32"},
      {"no flash attention", [](Workload& w) { w.flash_attention = false; }, "flash_attention_2"},
      {"a V100", [](Workload& w) { w.gpu = "v100-32gb"; }, "sm80"},
      {"one token", [](Workload& w) { w.seq = 1; }, "--seq"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Workload w = workload_of(kRows[2]);
    c.change(w);
    const auto e = estimate(mistral, w);
    REQUIRE_FALSE(e.ok());
    INFO(join(e.issues()));
    bool named = false;
    for (const Issue& i : e.issues()) named = named || i.message.find(c.needle) != std::string::npos;
    CHECK(named);
  }
  {  // QLoRA without bf16=True
    Workload w = workload_of(kRows[4]);
    w.precision = Precision::Pure;
    const auto e = estimate(mistral, w);
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().field == "recipe");
    CHECK(e.issues().front().message.find("--precision mixed") != std::string::npos);
    CHECK(message_in(e.issues().front(), Lang::Zh).find("--precision mixed") != std::string::npos);
  }
  {  // Qwen3's q and k norms came with transformers 4.51, after the version followed
    const auto e = estimate(preset("qwen3-8b").config, workload_of(kRows[2]));
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().message.find("qwen3") != std::string::npos);
  }
  // Mixtral: adapters on the attention with checkpointing (LoRA or QLoRA) only.
  for (const auto& [what, change] : std::initializer_list<std::pair<const char*, std::function<void(Workload&)>>>{
           {"full fine-tuning", [](Workload& w) { w.lora_rank = 0; w.precision = Precision::Pure; w.opt_state = StateDtype::BF16; }},
           {"adapters on the experts", [](Workload& w) { w.lora_targets |= kLoraGate; }},
           {"no checkpointing", [](Workload& w) { w.recompute = Recompute::None; }}}) {
    INFO(what);
    Workload w = workload_of(kRows[2]);
    change(w);
    const auto e = estimate(preset("mixtral-8x7b").config, w);
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().field == "recipe");
    CHECK(e.issues().front().message.find("Mixtral") != std::string::npos);
  }
  CHECK(estimate(preset("mixtral-8x7b").config, workload_of(kRows[2])).ok());
}

TEST_CASE("hf-peft recipe: every part's formula and source in each language, the numbers the same", "[training][lang]") {
  // Texts that are code, file and function names only: the same in every language.
  const std::set<std::string> no_words = {
      "transformers from_pretrained(torch_dtype=bfloat16)",
      "transformers BitsAndBytesConfig (bitsandbytes 0.43.3 Params4bit); TRL peft_module_casting_to_bf16",
      "PEFT get_peft_model (autocast_adapter_dtype=True)",
      "torch utils/checkpoint.py CheckpointFunction (use_reentrant=True); transformers gradient_checkpointing_enable",
      "transformers MistralRMSNorm.forward / LlamaRMSNorm.forward",
      "transformers *ForCausalLM.forward; loss/loss_utils.py ForCausalLMLoss",
      "torch cross_entropy: log_softmax, nll_loss; LogSoftmaxBackward0.result",
      "DataCollatorForLanguageModeling; ForCausalLMLoss; MistralModel.forward",
      "DataCollatorForLanguageModeling; MistralModel.forward",
      "DataCollatorForLanguageModeling",
      "torch autocast_mode.cpp cached_cast, clear_autocast_cache",
      "torch autocast_mode.cpp cached_cast; autograd MmBackward0 (mat2)",
      "torch autograd; flash-attn flash_api.cpp mha_bwd",
      "bitsandbytes 0.43.3 autograd/_functions.py MatMul4Bit.backward, functional.py dequantize_4bit; nn/modules.py Linear4bit.forward",
      "torch AccumulateGrad; transformers Trainer._inner_training_loop (model.zero_grad())",
      "torch optim/adamw.py _multi_tensor_adamw (zeros_like(p), foreach)",
      "torch autograd (tools/autograd/derivatives.yaml); flash-attn FlashAttnFunc",
      "torch distributed/fsdp/_runtime_utils.py (_post_forward_reshard, _pre_backward_hook, _prefetch_handle, _post_backward_hook)",
      "torch AccumulateGrad; torch distributed/fsdp/_runtime_utils.py (_post_forward_reshard, _pre_backward_hook, _prefetch_handle, "
      "_post_backward_hook), _reset_flat_param_grad_info_if_needed",
      "torch autograd (SplitBackward); torch distributed/fsdp/_runtime_utils.py (_post_forward_reshard, _pre_backward_hook, "
      "_prefetch_handle, _post_backward_hook)",
  };
  std::set<RecipePhase> phases;
  std::set<std::string> seen;
  for (const Row& r : kRows)
    for (i64 vocab : {32001, 512})  // the published runs, and a vocabulary small enough for a layer's backward to peak
      for (bool autocast : {false, true})  // and LoRA over bf16 with bf16=True
        for (Recompute rc : {Recompute::Full, Recompute::None}) {  // with gradient checkpointing and without
          if (autocast && std::string(r.method) != "lora") continue;
          ModelConfig c = mistral_with_pad();
          c.vocab = vocab;
          INFO(r.method << " vocab " << vocab << (autocast ? " bf16=True" : "") << (rc == Recompute::None ? " no checkpointing" : ""));
          Workload w = workload_of(r);
          w.recompute = rc;
          if (rc == Recompute::None) w.batch = 1;  // full fine-tuning's step stays the peak somewhere
          if (autocast) w.precision = Precision::Mixed;
          const auto e = estimate(c, w);
          REQUIRE(e.ok());
          phases.insert(e.value().training.recipe->phase);
          for (const RecipePart& part : e.value().training.recipe->parts) llmsize::test::check_part_languages(part, no_words, seen);
        }
  {  // QLoRA on a short sequence: down_proj's dequantisation in flight
    Workload w = workload_of(kRows[4]);
    w.batch = 1;
    w.seq = 64;
    const auto e = estimate(mistral_with_pad(), w);
    REQUIRE(e.ok());
    for (const RecipePart& part : e.value().training.recipe->parts) llmsize::test::check_part_languages(part, no_words, seen);
  }
  // Mixtral's MoE block in the rebuilt layer: LoRA on bf16 with and without bf16=True, QLoRA.
  std::set<Str> moe_rows;
  for (const Row* r : {&kRows[2], &kRows[4]})
    for (bool autocast : {false, true}) {
      if (autocast && std::string(r->method) != "lora") continue;
      ModelConfig c = preset("mixtral-8x7b").config;
      c.vocab = 32001;
      Workload w = workload_of(*r);
      if (autocast) w.precision = Precision::Mixed;
      const auto e = estimate(c, w);
      REQUIRE(e.ok());
      phases.insert(e.value().training.recipe->phase);
      for (const RecipePart& part : e.value().training.recipe->parts) {
        llmsize::test::check_part_languages(part, no_words, seen);
        if (part.label == Str::recipe_part_layer) moe_rows.insert(part.label);
        if (part.label == Str::recipe_part_layer) CHECK(part.formula.find("the MoE block, 8 experts, top 2") != std::string::npos);
      }
    }
  CHECK(moe_rows.size() == 1);
  // FSDP full fine-tuning, over 2 to 64 GPUs and two vocabularies: the root's backward and the
  // end of layer 0's join the moments.
  for (i64 gpus : {2, 8, 64})
    for (i64 vocab : {32001, 512, 151936})
      for (i64 seq : {64, 4096}) {
        // 151,936: Qwen2.5-0.5B, whose tied embeddings make the root outweigh its layers
        ModelConfig c = vocab == 151936 ? preset("qwen2.5-0.5b").config : mistral_with_pad();
        c.vocab = vocab;
        Workload w = fsdp_workload(seq == 64 ? 1 : 4);
        w.gpus = gpus;
        w.seq = seq;
        INFO("fsdp " << gpus << " vocab " << vocab << " seq " << seq);
        const auto e = estimate(c, w);
        REQUIRE(e.ok());
        phases.insert(e.value().training.recipe->phase);
        for (const RecipePart& part : e.value().training.recipe->parts) llmsize::test::check_part_languages(part, no_words, seen);
      }
  CHECK(phases.size() == 4);  // the loss's forward, a layer's backward, the root's backward and AdamW's step
  llmsize::test::check_no_words_seen(no_words, seen);
}

TEST_CASE("hf-peft recipe: Qwen2 is LlamaDecoderLayer with biases on q, k and v; in QLoRA they stay fp32", "[training]") {
  const ModelConfig qwen = preset("qwen2.5-7b").config;
  REQUIRE(qwen.bias_qkv);
  const i64 L = qwen.n_layers, qd = qwen.n_heads * qwen.head_dim, kvd = qwen.n_kv_heads * qwen.head_dim;
  const auto lora = estimate(qwen, workload_of(kRows[2]));
  REQUIRE(lora.ok());
  const auto total = count_params(qwen);
  REQUIRE(total);
  CHECK(lora.value().training.recipe->weights_bytes == 2 * total->total);
  const auto q4 = estimate(qwen, workload_of(kRows[4]));
  REQUIRE(q4.ok());
  const RecipePeak& p = *q4.value().training.recipe;
  // the 4-bit Linears, embeddings and lm_head in bf16, the norms and biases fp32
  Checked linear4;
  const i64 C = qwen.d_model, I = qwen.d_ff;
  for (const auto& [in, out] : std::vector<std::pair<i64, i64>>{{C, qd}, {C, kvd}, {C, kvd}, {qd, C}, {C, I}, {C, I}, {I, C}})
    linear4 += recipe_detail::bnb4_linear_bytes(in, out, true) * L;
  const i64 norms = (2 * L + 1) * C, biases = L * (qd + 2 * kvd);
  const i64 linear_params = L * (C * qd + 2 * C * kvd + qd * C + 3 * C * I);
  CHECK(p.weights_bytes == linear4.value() + recipe_detail::kBnbDynamicMap + 2 * (total->total - linear_params - norms - biases) + 4 * (norms + biases));
  CHECK(p.phase == RecipePhase::LossForward);  // a 152,064-token vocabulary
}

TEST_CASE("hf-peft recipe: without gradient checkpointing every layer keeps its tensors until its backward", "[training]") {
  // LoRA r 16 on q, k, v, o with dropout over bf16 Mistral-7B, per token: a layer keeps its two
  // norms' fp32 x and rsqrt 2 · (4·4096 + 4), each adapter's mask, dropout output (fp32) and lora_A
  // output 4 · (4096 + 4·4096 + 4·16), flash attention's q, k, v, output and logsumexp
  // 2·4096 + 2·1024 + 2·1024 + 2·4096 + 4·32, the MLP's gate, silu and up 3 · 2·14336. Layer 0's
  // input needs no gradient (TRL makes the embeddings require one only for checkpointing): no
  // input norm tensors and no masks on q, k, v.
  const i64 layer = 2 * (4 * 4096 + 4) + 4 * (4096 + 4 * 4096 + 4 * 16) + (2 * 4096 + 2 * 1024 + 2 * 1024 + 2 * 4096 + 4 * 32) + 3 * 2 * 14336;
  const i64 layer0 = layer - (4 * 4096 + 4) - 3 * 4096;
  CHECK(layer == 221576);
  const ModelConfig mistral = mistral_with_pad();
  Workload ckpt = workload_of(kRows[2]), none = ckpt;
  none.recompute = Recompute::None;
  const auto a = estimate(mistral, ckpt), b = estimate(mistral, none);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const RecipePeak& with = *a.value().training.recipe;
  const RecipePeak& without = *b.value().training.recipe;
  CHECK(without.phase == RecipePhase::LossForward);
  const i64 N = 4 * 4096;
  // the checkpointed inputs (32 bf16 hidden states) replaced by every layer's tensors
  CHECK(without.peak_allocated_bytes - with.peak_allocated_bytes == N * (layer0 + 31 * layer) - N * 32 * 2 * 4096);
  i64 sum = 0;
  for (const RecipePart& part : without.parts) sum += part.bytes;
  CHECK(sum == without.peak_allocated_bytes);
  // Full fine-tuning without checkpointing: its layers' tensors (every Linear keeps its input) at
  // micro-batch 4 outgrow AdamW's step, and the card.
  Workload full = workload_of(kRows[0]);
  full.recompute = Recompute::None;
  const auto f4 = estimate(mistral, full);
  REQUIRE(f4.ok());
  CHECK(f4.value().training.recipe->phase == RecipePhase::LossForward);
  CHECK(f4.value().training.peak_allocated_bytes > kRows[0].peak);
  CHECK_FALSE(f4.value().training.fits);
  // One sequence of 512 tokens fits, with the step the peak again.
  full.batch = 1;
  full.seq = 512;
  const auto f1 = estimate(mistral, full);
  REQUIRE(f1.ok());
  CHECK(f1.value().training.recipe->phase == RecipePhase::OptimizerStep);
}

TEST_CASE("hf-peft recipe: Mixtral-8x7B's two single-GPU QLoRA peaks, its MoE block in a layer's backward", "[calibration][training]") {
  // The same file's baseline-peft-bnb rows for mistralai/Mixtral-8x7B-Instruct-v0.1 on one A100
  // 80GB (its LoRA rows on a bf16 base ran out of memory and publish no peak), with the Mistral
  // rows' settings: QLoRA nf4 with double quantization, bf16=True, r 16 on q, k, v, o, dropout
  // 0.1, gradient checkpointing, packed 4,096-token sequences, batch 4 and 8; the vocabulary
  // 32,001 (the pad token fms-hf-tuning adds to its LlamaTokenizerFast, as for Mistral).
  const Row rows[] = {
      {"TRUE,0.15,,baseline-peft-bnb,2.00E-04,16,0.1,44924,42794268160,24665033728,mistralai/Mixtral-8x7B-Instruct-v0.1,1,lora,4,16,"
       "q_proj k_proj v_proj o_proj,bfloat16,0.898578081,1072.2023,0.373,0.093,1528.07",
       "qlora", 4, 42794268160, 24665033728, RecipePhase::LayerBackward},
      {"TRUE,0.29,,baseline-peft-bnb,2.00E-04,16,0.1,63932,60545920512,24665426944,mistralai/Mixtral-8x7B-Instruct-v0.1,1,lora,8,16,"
       "q_proj k_proj v_proj o_proj,bfloat16,0.894624872,1938.6247,0.413,0.052,1690.27",
       "qlora", 8, 60545920512, 24665426944, RecipePhase::LayerBackward},
  };
  ModelConfig c = preset("mixtral-8x7b").config;
  c.vocab = 32001;
  i64 peaks[2] = {0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const Row& r = rows[i];
    INFO(r.quoted);
    const auto e = estimate(c, workload_of(r));
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    const RecipePeak& p = *e.value().training.recipe;
    peaks[i] = p.peak_allocated_bytes;
    i64 sum = 0;
    for (const RecipePart& part : p.parts) sum += part.bytes;
    CHECK(sum == p.peak_allocated_bytes);
    // The weights: every Linear of the layers 4-bit (q, k, v, o, the router gate and each of the 8
    // experts' w1, w3, w2), the embeddings and lm_head bf16, the norms fp32. After training the
    // allocation is those, the adapters and AdamW's two states, the cuBLAS workspaces and the
    // last batch, as for Mistral (there 2,048 B over) — here 2,048 + 524,288 B over: the extra
    // 512 KiB, the same at both batches, is not traced.
    const i64 after = p.weights_bytes + 3 * p.adapter_bytes + 2 * kCublasWorkspace + 3 * (r.batch * 4096 * 8);
    CHECK(r.after - after == 2048 + 524288);
    // The peak: in the last layer's backward, its MoE block rebuilt by the checkpoint, at the
    // product's multiply of the first expert autograd reaches, every checkpointed input beside.
    CHECK(p.phase == RecipePhase::LayerBackward);
    const double err = static_cast<double>(p.peak_allocated_bytes - r.peak) / static_cast<double>(r.peak);
    INFO("predicted " << p.peak_allocated_bytes << " B, measured " << r.peak << " B, error " << 100 * err << "%");
    CHECK(std::fabs(err) <= 0.05);  // the issue's tolerance for a single-GPU recipe
    // MISS, -1.8% (batch 4) and -2.1% (batch 8): under the measured peaks by 786.6 MB and
    // 1,251.3 MB, i.e. 28,366 B a token and 322 MB besides. Not traced. The moment's in-flight
    // tensors are three of the first expert's rows × I × 4 B, taken here as k·N/E rows (routing
    // balanced); the rows layer 31's last expert really got are the data's, and 0.41·N of them
    // instead of 0.25·N would account for the per-token part.
    CHECK(err == Approx(i == 0 ? -0.0184 : -0.0207).margin(0.0005));
  }
  // Per token of the batch between the two rows: 1,083,474 B measured, 28,366 B more than modelled.
  const i64 modelled_slope = (peaks[1] - peaks[0]) / (4 * 4096), measured_slope = (rows[1].peak - rows[0].peak) / (4 * 4096);
  CHECK(measured_slope == 1083474);
  CHECK(measured_slope - modelled_slope == 28366);
}

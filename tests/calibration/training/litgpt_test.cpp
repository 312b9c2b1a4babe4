// Calibration of the litgpt training recipe (issue 15) against the peaks LitGPT published for its
// LoRA script: Lightning-AI/litgpt tutorials/resource-tables.md (file at commit e567dbe8, content
// unchanged since January 2024), which states:
//   "- LitGPT version: commit 8641822"
//   "- Hardware: NVIDIA A100-SXM4-40GB"
//   "  - PyTorch 2.1.0+cu121"
//   "  - Bitsandbytes 0.41.1"
//   "All experiments were run using 16-bit brain floating point precision (`--precision bf16-true`)."
// The peak is what finetune/lora.py at 8641822 prints after training,
//   fabric.print(f"Memory used: {torch.cuda.max_memory_allocated() / 1e9:.02f} GB")
// with the script's constants lora_r = 8, lora_alpha = 16, lora_dropout = 0.05, lora_query = True,
// lora_value = True (the others False), and the longest Alpaca sample forced into the first
// micro-batch, whose length the document gives: "- phi1.5: 1044 tokens", "- StableLM Alpha: 1034
// tokens", "- Llama 2: 1304 tokens". Rows are quoted as published (columns: Size | Model |
// Quantization | Microbatch size | Trainable parameters | Max GPU RAM | Time 1k iterations).
//
// Models: the llama-2-7b and llama-2-13b presets; tests/calibration/configs/phi-1_5.json and
// stablelm-base-alpha-3b.json hold the shape fields of microsoft/phi-1_5's and
// stabilityai/stablelm-base-alpha-3b's config.json, which LitGPT's lit_gpt/config.py at 8641822
// cites and matches (phi-1_5: n_embd 2048, n_layer 24, padded_vocab_size 51200, rotary_percentage
// 0.5, shared_attention_norm, lm_head_bias; stablelm-base-alpha-3b: the defaults, n_embd 4096,
// n_layer 16, n_head 32, vocab padded to 50688, rotary_percentage 0.25, parallel residual). The
// table's own trainable-parameter column checks the adapters: 24 · 4 · 8 · 2048 = 1,572,864.
//
// The issue's tolerance for a single-GPU recipe is 5% of the reported peak; every row is within
// 0.5% (the model undershoots by 0.0–0.41%: the caching allocator's unsplit block remainders, up
// to 1 MiB a block, are not modelled), and the test holds them to 1% so a change is seen.
#include <cmath>

#include "core/estimate.hpp"
#include "core/training_recipe.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::import_file;
using llmsize::test::preset;

namespace {

struct Row {
  const char* quoted;  // the table's row as published
  const char* model;   // a preset id or a config under tests/calibration/configs/
  const char* quant;   // the base weights: bf16, nf4 (bnb.nf4), nf4-dq (bnb.nf4-dq)
  i64 micro_batch, seq, trainable;
  double measured_gb;
};

const Row kRows[] = {
    {"| 1.3 B | phi-1.5        | None         | 1               | 1,572,864            | 4.82 GB     | 1.62 min           |", "phi-1_5", "bf16", 1, 1044, 1572864, 4.82},
    {"| 1.3 B | phi-1.5        | bnb.nf4      | 1               | 1,572,864            | 3.78 GB     | 1.77 min           |", "phi-1_5", "nf4", 1, 1044, 1572864, 3.78},
    {"| 1.3 B | phi-1.5        | bnb.nf4-dq   | 1               | 1,572,864            | 3.72 GB     | 1.87 min           |", "phi-1_5", "nf4-dq", 1, 1044, 1572864, 3.72},
    {"| 1.3 B | phi-1.5        | None         | 2               | 1,572,864            | 6.76 GB     | 1.65 min           |", "phi-1_5", "bf16", 2, 1044, 1572864, 6.76},
    {"| 1.3 B | phi-1.5        | None         | 4               | 1,572,864            | 10.68 GB    | 1.70 min           |", "phi-1_5", "bf16", 4, 1044, 1572864, 10.68},
    {"| 3 B   | StableLM Alpha | None         | 1               | 2,097,152            | 9.69 GB     | 1.24 min           |", "stablelm-base-alpha-3b", "bf16", 1, 1034, 2097152, 9.69},
    {"| 3 B   | StableLM Alpha | bnb.nf4      | 1               | 2,097,152            | 6.35 GB     | 1.82 min           |", "stablelm-base-alpha-3b", "nf4", 1, 1034, 2097152, 6.35},
    {"| 3 B   | StableLM Alpha | bnb.nf4-dq   | 1               | 2,097,152            | 6.19 GB     | 1.87 min           |", "stablelm-base-alpha-3b", "nf4-dq", 1, 1034, 2097152, 6.19},
    {"| 3 B   | StableLM Alpha | None         | 2               | 2,097,152            | 12.10 GB    | 1.33 min           |", "stablelm-base-alpha-3b", "bf16", 2, 1034, 2097152, 12.10},
    {"| 3 B   | StableLM Alpha | None         | 4               | 2,097,152            | 16.92 GB    | 1.50 min           |", "stablelm-base-alpha-3b", "bf16", 4, 1034, 2097152, 16.92},
    {"| 7 B   | Llama 2        | None         | 1               | 4,194,304            | 21.30 GB    | 2.36 min           |", "llama-2-7b", "bf16", 1, 1304, 4194304, 21.30},
    {"| 7 B   | Llama 2        | bnb.nf4      | 1               | 4,194,304            | 14.14 GB    | 3.68 min           |", "llama-2-7b", "nf4", 1, 1304, 4194304, 14.14},
    {"| 7 B   | Llama 2        | bnb.nf4-dq   | 1               | 4,194,304            | 13.84 GB    | 3.83 min           |", "llama-2-7b", "nf4-dq", 1, 1304, 4194304, 13.84},
    {"| 7 B   | Llama 2        | None         | 2               | 4,194,304            | 29.07 GB    | 2.52 min           |", "llama-2-7b", "bf16", 2, 1304, 4194304, 29.07},
    {"| 13 B  | Llama 2        | None         | 1               | 6,553,600            | 38.12 GB    | 3.19 min           |", "llama-2-13b", "bf16", 1, 1304, 6553600, 38.12},
    {"| 13 B  | Llama 2        | bnb.nf4      | 1               | 6,553,600            | 23.14 GB    | 6.38 min           |", "llama-2-13b", "nf4", 1, 1304, 6553600, 23.14},
    {"| 13 B  | Llama 2        | bnb.nf4-dq   | 1               | 6,553,600            | 22.55 GB    | 6.55 min           |", "llama-2-13b", "nf4-dq", 1, 1304, 6553600, 22.55},
};

ModelConfig model_of(const Row& r) {
  const std::string id = r.model;
  if (id.rfind("llama", 0) == 0) return preset(id).config;
  return import_file("calibration/configs/" + id + ".json");
}

// The script's run as a workload: one A100 40GB, bf16-true, LoRA r = 8 on q and v.
Workload workload_of(const Row& r) {
  Workload w = llmsize::test::with({{"mode", "training"}, {"recipe", "litgpt"}, {"gpu", "a100-40gb"}, {"prec", "pure"},
                                    {"dtype", "bf16"}, {"lora", "8"}, {"lt", "q,v"}, {"w", r.quant}});
  w.batch = r.micro_batch;
  w.seq = r.seq;
  return w;
}

}  // namespace

TEST_CASE("litgpt recipe: the 17 single-GPU LoRA and QLoRA peaks of resource-tables.md", "[calibration][training]") {
  double worst = 0;
  for (const Row& r : kRows) {
    INFO(r.quoted);
    const ModelConfig c = model_of(r);
    const Workload w = workload_of(r);
    const auto e = estimate(c, w);
    INFO(join(e.issues()));
    REQUIRE(e.ok());
    CHECK(e.value().training.trainable_params == r.trainable);  // LoRA on q and v, r = 8: the table's own column
    REQUIRE(e.value().training.recipe.has_value());
    const RecipePeak& p = *e.value().training.recipe;
    const double gb = static_cast<double>(p.peak_allocated_bytes) / 1e9;
    const double err = (gb - r.measured_gb) / r.measured_gb;
    INFO("predicted " << gb << " GB, measured " << r.measured_gb << " GB, error " << 100 * err << "%");
    CHECK(std::fabs(err) <= 0.01);
    CHECK(e.value().training.peak_allocated_bytes == p.peak_allocated_bytes);
    // The parts are the peak, byte for byte, and the phase is iteration 0's backward of the loss
    // (bf16) or of the 4-bit lm_head (bnb).
    i64 sum = 0;
    for (const RecipePart& part : p.parts) sum += part.bytes;
    CHECK(sum == p.peak_allocated_bytes);
    CHECK(p.phase == (std::string(r.quant) == "bf16" ? RecipePhase::CrossEntropyBackward : RecipePhase::LmHeadBackward));
    worst = std::max(worst, std::fabs(err));
  }
  CHECK(worst < 0.005);
}

TEST_CASE("litgpt recipe: a second sequence costs what the micro-batch slope of the table says", "[calibration][training]") {
  // Measured slopes (GB per extra sequence), ±0.01 / Δmbs from the table's rounding: phi-1.5
  // (6.76 − 4.82) = 1.94 and (10.68 − 6.76) / 2 = 1.96; StableLM (12.10 − 9.69) = 2.41 and (16.92 −
  // 12.10) / 2 = 2.41; Llama 2 7B (29.07 − 21.30) = 7.77. The model's: 1.953, 2.401, 7.739.
  for (const auto& [model, seq, slope] : {std::tuple{"phi-1_5", 1044, 1.95}, std::tuple{"stablelm-base-alpha-3b", 1034, 2.41},
                                          std::tuple{"llama-2-7b", 1304, 7.77}}) {
    Row r{"", model, "bf16", 1, seq, 0, 0};
    const ModelConfig c = model_of(r);
    Workload w1 = workload_of(r), w2 = w1;
    w2.batch = 2;
    const auto a = recipe_peak(c, w1, *gpu_of(w1)), b = recipe_peak(c, w2, *gpu_of(w2));
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    const double per_seq = static_cast<double>(b->peak_allocated_bytes - a->peak_allocated_bytes) / 1e9;
    INFO(model << ": " << per_seq << " GB per sequence, measured " << slope);
    CHECK(std::fabs(per_seq - slope) <= 0.01 * slope + 0.01);  // 1%, and the table's rounding
  }
}

TEST_CASE("litgpt recipe: what the script does not do is refused, named", "[training]") {
  const ModelConfig llama = preset("llama-2-7b").config;
  Row r{"", "llama-2-7b", "bf16", 1, 1304, 0, 0};
  struct Case {
    const char* key;
    const char* value;
    const char* says;
  };
  for (const Case& k : {Case{"lt", "q,k,v", "adapts the query and value"}, Case{"prec", "mixed", "bf16-true"},
                        Case{"rc", "full", "recomputes nothing"}, Case{"w", "int8", "is not one"},
                        Case{"gpu", "v100-32gb", "flash attention"}, Case{"lora", "0", "needs a LoRA rank"}}) {
    Workload w = workload_of(r);
    REQUIRE_FALSE(find_field(k.key)->set(w, k.value));
    const auto e = estimate(llama, w);
    INFO(k.key << "=" << k.value << ": " << join(e.issues()));
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().field == "recipe");
    CHECK(e.issues().front().message.find(k.says) != std::string::npos);
  }
  for (const char* id : {"mixtral-8x7b", "llama-3-8b", "gemma-2-2b"}) {  // MoE, GQA, another family
    const auto e = estimate(preset(id).config, workload_of(r));
    INFO(id << ": " << join(e.issues()));
    REQUIRE_FALSE(e.ok());
    CHECK(e.issues().front().field == "recipe");
  }
  // The formula recipe keeps the papers' breakdown; its allocated peak leaves out the reserve.
  Workload f = workload_of(r);
  f.recipe = Recipe::Formula;
  const auto e = estimate(llama, f);
  REQUIRE(e.ok());
  CHECK_FALSE(e.value().training.recipe.has_value());
  CHECK(e.value().training.peak_allocated_bytes == e.value().training.total_bytes - e.value().training.reserve_bytes);
}

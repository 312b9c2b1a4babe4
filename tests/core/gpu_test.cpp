// The GPU catalog, the workload field table (strict parsing, unique keys) and throughput
// bounds (bandwidth roofline, MoE active experts, Chinchilla).
#include <catch2/catch.hpp>
#include <cmath>

#include "core/estimate.hpp"
#include "core/model_fields.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::plan_of;
using llmsize::test::preset;
using llmsize::test::run;
using llmsize::test::with;

TEST_CASE("The GPU catalog loads and holds every required accelerator with a source", "[core][gpu]") {
  auto all = load_gpus();
  INFO(join(all.issues()));
  REQUIRE(all.ok());
  for (const char* id : {"a10", "l4", "rtx-3090", "rtx-4090", "rtx-5090", "l40s", "a100-40gb", "a100-80gb", "h100-sxm",
                         "h200", "b200", "mi300x", "m2-ultra-192gb"}) {
    INFO(id);
    const Gpu* g = find_gpu(id);
    REQUIRE(g != nullptr);
    CHECK(g->memory_bytes > 0);
    CHECK(g->bandwidth_gbs > 0);
    CHECK_FALSE(g->source.empty());
  }
  bool apple = false;
  for (const auto& g : gpu_catalog())
    if (g.unified) {
      apple = true;
      CHECK(g.usable_fraction < 1.0);
    }
  CHECK(apple);
}

TEST_CASE("Catalog entries carry their data-sheet numbers", "[core][gpu]") {
  struct Row {
    const char* id;
    double gib, gbs, bf16, fp8;
  };
  const Row rows[] = {
      {"h100-sxm", 80, 3350, 989, 1979},   {"h200", 141, 4800, 989, 1979}, {"a100-80gb", 80, 2039, 312, 0},
      {"mi300x", 192, 5300, 1307.4, 2614.9}, {"rtx-4090", 24, 1008, 165.2, 330.3}, {"l40s", 48, 864, 362.05, 733},
      // The RTX Blackwell whitepaper's dense FP32-accumulate figures (Appendix B Table 5: RTX 5070 Ti
      // "BF16 tensor (FP32 accumulate) 87.9 TFLOPS", "FP8 tensor (FP16 / FP32 accumulate) 351.5 / 175.8").
      {"rtx-5070-ti", 16, 896, 87.9, 175.8},
      // GeForce RTX 4070 Ti SUPER: 21 Gbps on 256 bits; 706 AI TOPS / 8 for BF16 with FP32 accumulate.
      {"rtx-4070-ti-super", 16, 672, 88.2, 176.4},
      {"m1-pro-32gb", 32, 200, 0, 0}, {"m2-pro-32gb", 32, 200, 0, 0}, {"m3-pro-36gb", 36, 150, 0, 0},
      // DGX Spark: "128 GB LPDDR5x unified, 273 GB/s"; NVIDIA states no BF16 or FP8 rate for GB10 (0).
      {"dgx-spark", 128, 273, 0, 0},
  };
  for (const auto& r : rows) {
    INFO(r.id);
    const Gpu* g = find_gpu(r.id);
    REQUIRE(g);
    CHECK(g->memory_bytes == static_cast<i64>(r.gib * 1073741824.0));
    CHECK(g->bandwidth_gbs == Approx(r.gbs));
    CHECK(g->bf16_tflops == Approx(r.bf16));
    CHECK(g->fp8_tflops == Approx(r.fp8));
  }
}

TEST_CASE("Workload fields: unique keys and flags, round trips, strict parsing", "[core][workload]") {
  std::vector<std::string_view> keys, flags;
  for (const auto& m : model_fields()) keys.push_back(m.key);
  const Workload def;
  for (const auto& f : workload_fields()) {
    INFO(f.key);
    CHECK(std::find(keys.begin(), keys.end(), f.key) == keys.end());  // one share-link namespace
    CHECK(std::find(flags.begin(), flags.end(), f.flag) == flags.end());
    keys.push_back(f.key);
    flags.push_back(f.flag);
    CHECK(f.flag.substr(0, 2) == "--");
    CHECK_FALSE(f.label.empty());
    CHECK_FALSE(f.help.empty());
    Workload w;
    CHECK_FALSE(f.set(w, f.get(def)));
    CHECK(f.get(w) == f.get(def));
    if (f.kind == FieldKind::Enum)
      for (auto c : f.choices) CHECK_FALSE(f.set(w, c));
  }
  CHECK(find_field("gpu")->choices.size() == gpu_catalog().size() + 1);  // the catalog, and "custom"
  CHECK(find_field("gpu")->choices.back() == kCustomGpu);
  struct Bad {
    const char* key;
    const char* text;
    const char* says;
  };
  const Bad bad[] = {
      {"seq", "0", "[1, 134217728]"},      {"seq", "abc", "integer"},     {"seq", "1e3", "integer"},
      {"seq", "99999999999", "134217728"}, {"batch", "-1", "[1, 1048576]"}, {"util", "-0.5", "(0, 1]"},
      {"util", "1.5", "(0, 1]"},           {"mfu", "nan", "(0, 1]"},       {"w", "q4_k_x", "q4_k_m"},
      {"lt", "q,q", "subset"},             {"lt", "x", "gate"},            {"flash", "2", "0 or 1"},
      {"gpu", "h1000", "h100-sxm"},        {"zero", "4", "fsdp"},
  };
  for (const auto& b : bad) {
    INFO(b.key << " = " << b.text);
    Workload w;
    auto issue = find_field(b.key)->set(w, b.text);
    REQUIRE(issue);
    CHECK(issue->field == b.key);
    CHECK_THAT(issue->message, Catch::Contains(b.says));
    CHECK(find_field(b.key)->get(w) == find_field(b.key)->get(def));  // unchanged
  }
  Workload w;
  CHECK_FALSE(find_field("lt")->set(w, "v,q"));
  CHECK(find_field("lt")->get(w) == "q,v");
}

TEST_CASE("validate(Workload) checks the parallel layout", "[core][workload]") {
  Workload w;
  w.gpus = 6;
  w.tp = 4;
  CHECK(validate(w).front().field == "gpus");
  w.gpus = 8;
  w.tp = 2;
  w.ep = 3;
  CHECK(validate(w).front().field == "exp");
  w.ep = 8;
  CHECK(validate(w).empty());
  w.seq = 0;  // set directly, bypassing the table: still caught
  CHECK(validate(w).front().field == "seq");
}

TEST_CASE("Decode rate is bandwidth over bytes read; MoE reads the chosen experts only", "[core][throughput]") {
  const ModelConfig mx = preset("mixtral-8x7b").config;
  Workload w;
  w.seq = 1;
  auto e = estimate(mx, w);
  REQUIRE(e.ok());
  const auto& t = e->throughput;
  CHECK(t.decode_tokens_per_s * static_cast<double>(t.decode_bytes_per_step) == Approx(3350e9));
  CHECK(t.experts_touched == Approx(2.0));  // one token: top-2 of 8
  // bf16: 2 bytes per active parameter, minus the embedding table of which one row is read.
  const double embed = static_cast<double>(mx.vocab * mx.d_model);
  CHECK(static_cast<double>(t.decode_weight_bytes) == Approx(2 * (static_cast<double>(e->params.active) - embed + static_cast<double>(mx.d_model))));
  w.batch = 64;  // 64 tokens touch nearly every expert
  CHECK(estimate(mx, w)->throughput.experts_touched == Approx(8.0).margin(0.01));
}

TEST_CASE("Chinchilla-optimal tokens are about 20 per parameter", "[core][throughput]") {
  // ref: Hoffmann et al. 2022: Chinchilla, 70B parameters, 1.4T tokens.
  auto e = estimate(preset("llama-3.1-70b").config, Workload{});
  REQUIRE(e.ok());
  CHECK(static_cast<double>(e->throughput.chinchilla_tokens) == Approx(1.4e12).epsilon(0.02));
  CHECK(e->throughput.train_seconds > 0);
  CHECK(e->throughput.prefill_seconds > 0);
  // Attention FLOPs: a causal square of s queries has s(s+1)/2 pairs per layer.
  const ModelConfig c = preset("llama-3-8b").config;
  CHECK(attention_flops(c, plan_of(c), 0, 4) == Approx(32.0 * 10 * 2 * 32 * (128 + 128)));
}

TEST_CASE("A card's usable memory is the total CUDA reports, where the catalog records it", "[core][gpu]") {
  // An "80 GB" H100 gives CUDA 85,029,158,912 bytes (79.19 GiB), not 80 GiB: the generic fit and
  // the training capacity use that, as every engine profile does.
  const Gpu* h = find_gpu("h100-sxm");
  REQUIRE(h);
  CHECK(h->usable_bytes() == 85029158912);
  const Estimate e = run(preset("llama-3.1-8b").config, with({{"gpu", "h100-sxm"}}));
  CHECK(e.inference.capacity_bytes == 85029158912);
  // A card without a recorded driver total keeps its memory as sold.
  const Gpu* m = find_gpu("m3-max-128gb");
  REQUIRE(m);
  CHECK(m->cuda_total_bytes == 0);
  CHECK(m->usable_bytes() == static_cast<i64>(std::floor(static_cast<double>(m->memory_bytes) * m->usable_fraction)));
}

TEST_CASE("Recorded CUDA totals reproduce the totals the engines and PyTorch print", "[core][gpu]") {
  // Each line quoted from a published run on that card (the catalog's cuda_total_source names it).
  struct Row {
    const char* id;
    const char* quoted;
    double gib;       // the total the line prints, GiB
    double decimals;  // to how many places it prints it
  };
  const Row rows[] = {
      {"l20", "total_gpu_memory: 44.52056884765625GiB (vllm-project/vllm#14011)", 44.52056884765625, 14},
      {"b300", "Free memory on device (267.08/267.69 GiB) on startup", 267.69, 2},
      {"mi300x", "Free memory 191.46/191.98 GiB (vLLM on MI300X)", 191.98, 2},
      {"mi355x", "Free memory on device cuda:0 (…/287.98 GiB) (vLLM's MI355 CI)", 287.98, 2},
      {"a10g", "GPU 0 has a total capacity of 22.06 GiB (out-of-memory message on an A10G)", 22.06, 2},
      {"h20", "total capacity of 95.00 GiB (out-of-memory messages on H20)", 95.00, 2},
      {"a100-40gb", "42405855232 bytes of total memory (PyTorch on an A100-SXM4-40GB)", 42405855232.0 / 1073741824.0, 14},
      {"a40", "Total amount of global memory: 45403 MBytes (47608692736 bytes) (deviceQuery)", 47608692736.0 / 1073741824.0, 14},
      {"h100-nvl", "totalGlobalMem | 99960750080 bytes (a device report)", 99960750080.0 / 1073741824.0, 14},
      {"rtx-6000-ada", "total_memory=48622MB (PyTorch, whole MiB)", 48622.0 / 1024.0, 14},
      {"rtx-pro-6000-blackwell-server", "total_memory=97250MB (PyTorch, whole MiB)", 97250.0 / 1024.0, 14},
      // llama.cpp's "VRAM: N MiB" is totalGlobalMem / 2^20, rounded down (native Linux drivers).
      {"rtx-5080", "CUDA0: NVIDIA GeForce RTX 5080 compute capability 12.0, VMM: yes, VRAM: 15877 MiB", 15877.0 / 1024.0, 14},
      {"rtx-5070-ti", "Device 0: NVIDIA GeForce RTX 5070 Ti, compute capability 12.0, VMM: yes, VRAM: 15842 MiB", 15842.0 / 1024.0, 14},
      {"rtx-5060-ti-16gb", "Device 1: NVIDIA GeForce RTX 5060 Ti, compute capability 12.0, VMM: yes, VRAM: 15850 MiB", 15850.0 / 1024.0, 14},
      {"dgx-spark", "Free memory on device (114.54/121.69 GiB) on startup (vLLM on a DGX Spark)", 121.69, 2},
  };
  for (const Row& r : rows) {
    INFO(r.id << ": " << r.quoted);
    const Gpu* g = find_gpu(r.id);
    REQUIRE(g);
    REQUIRE(g->cuda_total_bytes > 0);
    const double scale = std::pow(10.0, r.decimals);
    CHECK(std::round(static_cast<double>(g->cuda_total_bytes) / 1073741824.0 * scale) == std::round(r.gib * scale));
    CHECK(g->cuda_total_bytes < g->memory_bytes);  // the driver keeps some
  }
  // SXM/HGX parts talk over NVLink; PCIe cards (an H100 PCIe too, bridges aside) do not.
  for (const char* id : {"a100-80gb", "h100-sxm", "h200", "b200"}) CHECK(find_gpu(id)->nvlink);
  for (const char* id : {"h100-pcie", "l40s", "rtx-4090", "a10g", "mi300x"}) CHECK_FALSE(find_gpu(id)->nvlink);
}

TEST_CASE("A custom GPU, or a catalog card with its numbers replaced", "[core][gpu]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  // 48 GiB, 960 GB/s, 150 TFLOPS: memory, the decode bound and the prefill time follow the given numbers.
  const Estimate e = run(c, with({{"gpu", "custom"}, {"gmem", "48"}, {"gbw", "960"}, {"gtf", "150"}}));
  CHECK(e.gpu.name == "Custom GPU (48 GiB, 960 GB/s, 150 TFLOPS)");
  CHECK(e.gpu.memory_bytes == 48 * (i64{1} << 30));
  CHECK(e.inference.capacity_bytes == 48 * (i64{1} << 30));
  CHECK(e.gpu.bandwidth_gbs == 960);
  CHECK(e.throughput.peak_tflops == 150);
  const Estimate h = run(c, with({{"gpu", "rtx-4090"}}));
  // Same bandwidth as the card it replaces, so the decode bound scales with it exactly.
  const Estimate same_bw = run(c, with({{"gpu", "custom"}, {"gmem", "24"}, {"gbw", "1008"}}));
  CHECK(same_bw.throughput.decode_tokens_per_s == Approx(h.throughput.decode_tokens_per_s));
  CHECK(same_bw.throughput.peak_tflops == 0);  // no TFLOPS given: times are n/a, not guessed
  // A catalog card with more memory: its name says so, and the driver's totals are dropped
  // (engines that need them refuse by name).
  const Estimate big = run(c, with({{"gpu", "h100-sxm"}, {"gmem", "96"}, {"rt", "vllm"}}));
  CHECK(big.gpu.name == "NVIDIA H100 SXM 80GB (given: 96 GiB)");
  CHECK(big.gpu.cuda_total_bytes == 0);
  CHECK_FALSE(big.vllm.has_value());
  REQUIRE_FALSE(big.notes.empty());
  CHECK(big.notes.front().field == "gpu");
  // A custom GPU needs its memory and bandwidth; values out of range name their field.
  auto issues = validate(with({{"gpu", "custom"}}));
  REQUIRE(issues.size() == 2);
  CHECK(issues[0].field == "gmem");
  CHECK(issues[1].field == "gbw");
  Workload w;
  CHECK(find_field("gmem")->set(w, "-1")->field == "gmem");
  CHECK(find_field("gbw")->set(w, "1e9")->field == "gbw");
  CHECK_FALSE(find_field("gtf")->set(w, "0"));
}

TEST_CASE("What PyTorch reports of a card makes the engine profiles run on any GPU", "[core][gpu]") {
  const ModelConfig c = preset("llama-3.1-8b").config;
  // A custom GPU described as torch.cuda.get_device_properties prints an L40S ("total_memory=45589MB"
  // is 47,803,596,800 B, 142 multiprocessors, 8.9) gets the same vLLM figures as the catalog's L40S.
  const Estimate l40s = run(c, with({{"gpu", "l40s"}, {"rt", "vllm"}, {"seq", "8192"}}));
  const Estimate custom = run(c, with({{"gpu", "custom"}, {"gmem", "48"}, {"gbw", "864"}, {"gtot", "45589.0625"},
                                       {"gsms", "142"}, {"gcc", "8.9"}, {"rt", "vllm"}, {"seq", "8192"}}));
  REQUIRE(l40s.vllm.has_value());
  REQUIRE(custom.vllm.has_value());
  CHECK(custom.gpu.cuda_total_bytes == 47803596800);
  CHECK(custom.vllm->budget_bytes == l40s.vllm->budget_bytes);
  CHECK(custom.vllm->activation_peak_bytes == l40s.vllm->activation_peak_bytes);
  CHECK(custom.vllm->kv_tokens == l40s.vllm->kv_tokens);
  CHECK(custom.gpu.name == "Custom GPU (48 GiB, 864 GB/s, CUDA total 45589.06 MiB, 142 SMs, cc 8.9)");
  // Without them a custom card is refused by the engine profile, naming the GPU.
  const Estimate bare = run(c, with({{"gpu", "custom"}, {"gmem", "48"}, {"gbw", "864"}, {"rt", "vllm"}, {"seq", "8192"}}));
  CHECK_FALSE(bare.vllm.has_value());
  // A catalog card's total replaced (another driver): vLLM's budget follows it.
  const Estimate h = run(c, with({{"gpu", "h100-sxm"}, {"gtot", "81008"}, {"rt", "vllm"}, {"seq", "8192"}}));
  REQUIRE(h.vllm.has_value());
  CHECK(h.vllm->total_bytes == i64{81008} << 20);
  CHECK(h.inference.capacity_bytes == static_cast<i64>(std::ceil(static_cast<double>(i64{81008} << 20) * 0.9)));
  // Out of range or meaningless: refused, naming the field.
  auto field_of = [&](std::initializer_list<std::pair<const char*, const char*>> kv) {
    const auto e = estimate(c, with(kv));
    REQUIRE_FALSE(e.ok());
    return e.issues().front().field;
  };
  CHECK(field_of({{"gpu", "l40s"}, {"gtot", "50000"}}) == "gtot");  // more than the card's 48 GiB
  CHECK(field_of({{"gpu", "mi300x"}, {"gcc", "9.4"}}) == "gcc");    // not a CUDA card
  CHECK(field_of({{"gpu", "l40s"}, {"gcc", "8.95"}}) == "gcc");
  Workload w;
  CHECK(find_field("gsms")->set(w, "-1")->field == "gsms");
  CHECK(find_field("gcc")->set(w, "21")->field == "gcc");
  // B300 is sm_103 (NVIDIA's CUDA GPU Compute Capability table: "10.3 | NVIDIA GB300 NVIDIA B300"),
  // so the recipes that need sm80 or newer (torchtune's flex attention) run on it.
  REQUIRE(find_gpu("b300") != nullptr);
  CHECK(find_gpu("b300")->cuda_cc == Approx(10.3));
  const auto tt = estimate(c, with({{"mode", "training"}, {"recipe", "torchtune"}, {"gpu", "b300"}, {"prec", "pure"}, {"ostate", "bf16"}}));
  INFO(join(tt.issues()));
  REQUIRE(tt.ok());
  CHECK(tt.value().training.recipe.has_value());
}

TEST_CASE("Apple's GPU wired limit is a setting", "[core][gpu]") {
  const ModelConfig c = preset("llama-3.1-70b").config;
  // The default is 75% of 128 GiB (96 GiB); sysctl iogpu.wired_limit_mb=120000 lets the GPU wire 117.2 GiB.
  const Estimate def = run(c, with({{"gpu", "m4-max-128gb"}}));
  CHECK(def.inference.capacity_bytes == 96 * (i64{1} << 30));
  const Estimate raised = run(c, with({{"gpu", "m4-max-128gb"}, {"wired", "117.1875"}}));
  CHECK(raised.inference.capacity_bytes == 120000 * (i64{1} << 20));
  CHECK(raised.gpu.name == "Apple M4 Max 128GB (40-core GPU) (given: wired limit 117.19 GiB)");
  // Not above the memory, and only on unified memory.
  auto over = gpu_of(with({{"gpu", "m4-max-128gb"}, {"wired", "200"}}));
  REQUIRE_FALSE(over.ok());
  CHECK(over.issues().front().field == "wired");
  auto discrete = gpu_of(with({{"gpu", "h100-sxm"}, {"wired", "60"}}));
  REQUIRE_FALSE(discrete.ok());
  CHECK(discrete.issues().front().field == "wired");
  // The default wired limit as llama.cpp's Metal backend prints it (recommendedMaxWorkingSetSize, in 10^6 B): two
  // thirds on 32 GB Macs ("recommendedMaxWorkingSetSize = 22906.50 MB" in logs of 32 GB M1 Max and M2 Pro machines),
  // three quarters from 36 GB ("= 28991.03 MB" on a 36 GB M4 Max; "= 38654.71 MB" on 48 GB).
  const auto mb = [](const char* id) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(find_gpu(id)->usable_bytes()) / 1e6);
    return std::string(buf);
  };
  CHECK(mb("m1-pro-32gb") == "22906.50");
  CHECK(mb("m2-pro-32gb") == "22906.50");
  CHECK(mb("m3-pro-36gb") == "28991.03");
  CHECK(mb("m4-pro-48gb") == "38654.71");
}

// Calibration of the Transformers profile (issue 11): model.generate() as
// torch.cuda.max_memory_allocated() measures it, against the Qwen2.5 speed benchmark.
//
// Source (28 rows): QwenLM/Qwen2.5 docs/source/benchmark/speed_benchmark.rst at a912d23 (2024-11-06),
// "GPU Memory(GB)" of the BF16 rows measured with transformers: "NVIDIA A100 80GB / CUDA 12.1 /
// Pytorch 2.3.1 / Flash Attention 2.5.8 / Transformers 4.46.0", "the batch size of 1", "generating
// 2048 tokens with the input lengths of 1, 6144, 14336, 30720". The script
// (examples/speed-benchmark/speed_benchmark_transformers.py, 8205ba2): from_pretrained(torch_dtype=
// 'auto', device_map='auto', attn_implementation='flash_attention_2'); a prompt of '我' × P that it
// asserts is P tokens; min_length = P + 2048, max_new_tokens = 2048; then the sum of
// torch.cuda.max_memory_allocated(i) / 1024 / 1024 / 1024 (GiB, the load included: the peak
// statistics are not reset after from_pretrained), printed to two decimals.
//
// The profile was written from the code first; the rows then showed that the allocator's whole
// blocks matter: a matrix of 10 MiB or more that leaves at most 1 MiB of its 2 MiB-rounded segment
// keeps the segment (14B: 3 × 48 MLP matrices of 135 MiB, 146 MiB in all), which the load's
// simulation (LoadAllocator) now counts.
#include "core/estimate.hpp"
#include "test_util.hpp"

using namespace llmsize::core;
using llmsize::test::import_file;
using llmsize::test::preset;
using llmsize::test::with;

namespace {

struct Row {
  i64 prompt;
  double gib;                   // the table's "GPU Memory(GB)"
  i64 gpus = 1;                 // its "GPU Num": device_map='auto' over that many
  const char* weights = "bf16";  // its "Quantization": BF16, or the fp16 GPTQ and AWQ checkpoints
  double miss = 0;              // a stated miss: published − llmsize in MiB (0: none)
};

TransformersMemory profile(const ModelConfig& c, i64 prompt, i64 new_tokens = 2048, i64 gpus = 1, std::string_view weights = "bf16") {
  Workload w = with({{"gpu", "a100-80gb"}, {"rt", "transformers"}, {"attn", "flash_attention_2"}});
  if (weights != "bf16")
    for (const auto& [k, v] : {std::pair{"w", std::string(weights)}, {"dtype", "fp16"}, {"kvt", "fp16"}}) REQUIRE_FALSE(find_field(k)->set(w, v));
  w.gpus = w.pp = gpus;
  w.seq = prompt + new_tokens;
  w.max_new_tokens = new_tokens;
  const auto e = estimate(c, w);
  INFO(join(e.issues()));
  REQUIRE(e.ok());
  INFO((e->notes.empty() ? std::string() : e->notes.front().message));
  REQUIRE(e->transformers);
  return *e->transformers;
}

double mib(i64 b) { return static_cast<double>(b) / 1048576.0; }

// Every row within 16 MiB of the published figure (which is rounded to 10 MiB): what is left is
// the allocator's whole blocks among tensors of 1 to 10 MiB (which share 20 MiB segments, in an
// order the checkpoint's shards set) and among the activations; a row's `miss` states one outside.
void check_rows(const ModelConfig& c, const char* name, std::initializer_list<Row> rows) {
  for (const Row& r : rows) {
    const TransformersMemory m = profile(c, r.prompt, 2048, r.gpus, r.weights);
    const double diff = r.gib * 1024 - mib(m.peak_bytes);  // published − llmsize, MiB
    INFO(name << " " << r.weights << " prompt " << r.prompt << ": llmsize " << mib(m.peak_bytes) / 1024 << " GiB, published " << r.gib
              << ", diff " << diff << " MiB");
    // The prompt of one token peaks at the last step (the cache of 2,048 tokens and repeat_kv's
    // copies); the long prompts at the prefill's last MLP.
    CHECK(m.peak_in_prefill == (r.prompt > 1));
    if (r.miss != 0) CHECK(diff == Approx(r.miss).margin(6));
    else CHECK(std::abs(diff) <= 16);
  }
}

}  // namespace

TEST_CASE("Transformers 4.46 generate(): the Qwen2.5 speed benchmark's peaks", "[calibration][transformers]") {
  // | Qwen2.5-0.5B-Instruct   | 1            | BF16         | 1       | 47.40           | 0.97           |
  // |                         | 6144         | BF16         | 1       | 47.45           | 1.23           |
  // |                         | 14336        | BF16         | 1       | 47.11           | 1.60           |
  // |                         | 30720        | BF16         | 1       | 47.16           | 2.34           |
  check_rows(preset("qwen2.5-0.5b").config, "0.5B", {{1, 0.97}, {6144, 1.23}, {14336, 1.60}, {30720, 2.34}});
  // | Qwen2.5-1.5B-Instruct    | 1            | BF16         | 1       | 39.68           | 2.95           |
  // |                          | 6144         | BF16         | 1       | 40.88           | 3.43           |
  // |                          | 14336        | BF16         | 1       | 40.43           | 4.16           |
  // |                          | 30720        | BF16         | 1       | 38.59           | 5.62           |
  check_rows(import_file("calibration/configs/qwen2.5-1.5b-instruct.json"), "1.5B", {{1, 2.95}, {6144, 3.43}, {14336, 4.16}, {30720, 5.62}});
  // | Qwen2.5-3B-Instruct      | 1            | BF16         | 1       | 30.80           | 5.95           |
  // |                          | 6144         | BF16         | 1       | 32.20           | 6.59           |
  // |                          | 14336        | BF16         | 1       | 31.72           | 7.47           |
  // |                          | 30720        | BF16         | 1       | 25.37           | 9.30           |
  // MISS, 6144: 43 MiB (0.6%) under the published 6.59 GiB. Not traced: the same model's other
  // rows are within 10 MiB, so it is no per-token term; an allocator block kept whole at this
  // prompt length is the candidate.
  check_rows(import_file("calibration/configs/qwen2.5-3b-instruct.json"), "3B", {{1, 5.95}, {6144, 6.59, 1, "bf16", 43}, {14336, 7.47}, {30720, 9.30}});
  // | Qwen2.5-7B-Instruct         | 1            | BF16         | 1       | 40.38           | 14.38          |
  // |                             | 6144         | BF16         | 1       | 38.76           | 15.38          |
  // |                             | 14336        | BF16         | 1       | 29.78           | 16.91          |
  // |                             | 30720        | BF16         | 1       | 18.83           | 19.97          |
  check_rows(preset("qwen2.5-7b").config, "7B", {{1, 14.38}, {6144, 15.38}, {14336, 16.91}, {30720, 19.97}});
  // | Qwen2.5-14B-Instruct     | 1            | BF16         | 1       | 24.74           | 28.08          |
  // |                          | 6144         | BF16         | 1       | 20.51           | 29.50          |
  // |                          | 14336        | BF16         | 1       | 13.92           | 31.95          |
  // |                          | 30720        | BF16         | 1       | 8.20            | 36.85          |
  check_rows(import_file("calibration/configs/qwen2.5-14b-instruct.json"), "14B", {{1, 28.08}, {6144, 29.50}, {14336, 31.95}, {30720, 36.85}});
  // | Qwen2.5-32B-Instruct        | 1            | BF16         | 1       | 17.54           | 61.58          |
  // |                             | 6144         | BF16         | 1       | 12.49           | 63.72          |
  // |                             | 14336        | BF16         | 1       | 8.95            | 67.31          |
  // |                             | 30720        | BF16         | 1       | 5.59            | 74.47          |
  check_rows(import_file("calibration/configs/qwen2.5-32b-instruct.json"), "32B", {{1, 61.58}, {6144, 63.72}, {14336, 67.31}, {30720, 74.47}});
  // On several GPUs the script adds max_memory_allocated(i) over them: each GPU's weights, cache and
  // cuBLAS workspace, and its own peak in its last layer.
  // | Qwen2.5-72B-Instruct        | 1            | BF16         | 2       | 8.73            | 136.20         |
  // |                             | 6144         | BF16         | 2       | 6.39            | 140.00         |
  // |                             | 14336        | BF16         | 3       | 4.25            | 149.14         |
  // |                             | 30720        | BF16         | 3       | 2.94            | 164.79         |
  check_rows(import_file("calibration/configs/qwen2.5-72b-instruct.json"), "72B",
             {{1, 136.20, 2}, {6144, 140.00, 2}, {14336, 149.14, 3}, {30720, 164.79, 3}});
}

TEST_CASE("Transformers 4.46 generate(): the benchmark's GPTQ and AWQ checkpoints", "[calibration][transformers]") {
  // The same table's quantized rows (fp16 checkpoints: "AutoGPTQ 0.7.1+cu121 (Compiled from source
  // code)", "AutoAWQ 0.2.6"; the GPTQ-Int8 rows name auto_gptq==0.6.0+cu1210). They rise with the
  // prompt exactly as the BF16 rows do: only the weights as loaded differ, each packed tensor through
  // the allocator, and for GPTQ-Int4 exllama's temp_dq (auto_gptq's post_init).
  // Stated misses, each a row's `miss`:
  //   AWQ with a one-token prompt on the tied-embedding models (0.5B, 1.5B, 3B): +220, +367, +495 MiB,
  //     not traced; the same checkpoints' longer prompts, and 7B to 72B AWQ at one token, are within 12 MiB.
  //   GPTQ-Int8 at 6,144 tokens (0.5B, 14B, 32B, 72B): auto_gptq 0.6.0's kernel dequantizes each weight
  //     in the prefill with int32 unpacking temporaries, not modelled; the MLP's moment covers them from
  //     14,336 tokens on.
  //   72B from 6,144 tokens: 18 to 57 MiB (at most 0.09%), and AWQ at 6,144 122 MiB (0.29%): not traced.
  // Each model's lines in the table's order: input lengths 1, 6144, 14336 and 30720, three rows each.
  // |                         |              | GPTQ-Int8    | 1       | 35.17           | 0.64           | auto_gptq==0.6.0+cu1210   |
  // |                         |              | GPTQ-Int4    | 1       | 50.60           | 0.48           |                           |
  // |                         |              | AWQ          | 1       | 37.09           | 0.68           |                           |
  // |                         |              | GPTQ-Int8    | 1       | 36.47           | 0.90           | auto_gptq==0.6.0+cu1210   |
  // |                         |              | GPTQ-Int4    | 1       | 48.89           | 0.73           |                           |
  // |                         |              | AWQ          | 1       | 37.04           | 0.72           |                           |
  // |                         |              | GPTQ-Int8    | 1       | 35.44           | 1.26           | auto_gptq==0.6.0+cu1210   |
  // |                         |              | GPTQ-Int4    | 1       | 48.26           | 1.10           |                           |
  // |                         |              | AWQ          | 1       | 37.14           | 1.10           |                           |
  // |                         |              | GPTQ-Int8    | 1       | 36.25           | 2.01           | auto_gptq==0.6.0+cu1210   |
  // |                         |              | GPTQ-Int4    | 1       | 49.22           | 1.85           |                           |
  // |                         |              | AWQ          | 1       | 36.90           | 1.84           |                           |
  check_rows(preset("qwen2.5-0.5b").config, "0.5B",
             {
              {1, 0.64, 1, "gptq-int8"}, {1, 0.48, 1, "gptq-int4"}, {1, 0.68, 1, "awq-int4", 220},
              {6144, 0.90, 1, "gptq-int8", 16}, {6144, 0.73, 1, "gptq-int4"}, {6144, 0.72, 1, "awq-int4"},
              {14336, 1.26, 1, "gptq-int8"}, {14336, 1.10, 1, "gptq-int4"}, {14336, 1.10, 1, "awq-int4"},
              {30720, 2.01, 1, "gptq-int8"}, {30720, 1.85, 1, "gptq-int4"}, {30720, 1.84, 1, "awq-int4"}});
  // |                          |              | GPTQ-Int8    | 1       | 32.62           | 1.82           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 43.33           | 1.18           |                         |
  // |                          |              | AWQ          | 1       | 31.70           | 1.51           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 31.46           | 2.30           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 43.96           | 1.66           |                         |
  // |                          |              | AWQ          | 1       | 32.30           | 1.63           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 31.06           | 3.03           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 43.66           | 2.39           |                         |
  // |                          |              | AWQ          | 1       | 32.39           | 2.36           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 31.04           | 4.49           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 35.68           | 3.85           |                         |
  // |                          |              | AWQ          | 1       | 31.95           | 3.82           |                         |
  check_rows(import_file("calibration/configs/qwen2.5-1.5b-instruct.json"), "1.5B",
             {
              {1, 1.82, 1, "gptq-int8"}, {1, 1.18, 1, "gptq-int4"}, {1, 1.51, 1, "awq-int4", 367},
              {6144, 2.30, 1, "gptq-int8"}, {6144, 1.66, 1, "gptq-int4"}, {6144, 1.63, 1, "awq-int4"},
              {14336, 3.03, 1, "gptq-int8"}, {14336, 2.39, 1, "gptq-int4"}, {14336, 2.36, 1, "awq-int4"},
              {30720, 4.49, 1, "gptq-int8"}, {30720, 3.85, 1, "gptq-int4"}, {30720, 3.82, 1, "awq-int4"}});
  // |                          |              | GPTQ-Int8    | 1       | 25.69           | 3.38           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 35.21           | 2.06           |                         |
  // |                          |              | AWQ          | 1       | 25.29           | 2.50           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 24.69           | 3.98           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 34.47           | 2.67           |                         |
  // |                          |              | AWQ          | 1       | 24.86           | 2.62           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 24.70           | 4.89           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 34.36           | 3.58           |                         |
  // |                          |              | AWQ          | 1       | 25.19           | 3.54           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 21.67           | 6.72           | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 23.60           | 5.41           |                         |
  // |                          |              | AWQ          | 1       | 24.56           | 5.37           |                         |
  check_rows(import_file("calibration/configs/qwen2.5-3b-instruct.json"), "3B",
             {
              {1, 3.38, 1, "gptq-int8"}, {1, 2.06, 1, "gptq-int4"}, {1, 2.50, 1, "awq-int4", 495},
              {6144, 3.98, 1, "gptq-int8"}, {6144, 2.67, 1, "gptq-int4"}, {6144, 2.62, 1, "awq-int4"},
              {14336, 4.89, 1, "gptq-int8"}, {14336, 3.58, 1, "gptq-int4"}, {14336, 3.54, 1, "awq-int4"},
              {30720, 6.72, 1, "gptq-int8"}, {30720, 5.41, 1, "gptq-int4"}, {30720, 5.37, 1, "awq-int4"}});
  // |                             |              | GPTQ-Int8    | 1       | 31.55           | 8.42           | auto_gptq==0.6.0+cu1210 |
  // |                             |              | GPTQ-Int4    | 1       | 43.10           | 5.52           |                         |
  // |                             |              | AWQ          | 1       | 32.03           | 5.39           |                         |
  // |                             |              | GPTQ-Int8    | 1       | 31.26           | 9.43           | auto_gptq==0.6.0+cu1210 |
  // |                             |              | GPTQ-Int4    | 1       | 38.27           | 6.52           |                         |
  // |                             |              | AWQ          | 1       | 32.37           | 6.39           |                         |
  // |                             |              | GPTQ-Int8    | 1       | 26.86           | 10.96          | auto_gptq==0.6.0+cu1210 |
  // |                             |              | GPTQ-Int4    | 1       | 28.70           | 8.05           |                         |
  // |                             |              | AWQ          | 1       | 30.23           | 7.92           |                         |
  // |                             |              | GPTQ-Int8    | 1       | 17.59           | 14.01          | auto_gptq==0.6.0+cu1210 |
  // |                             |              | GPTQ-Int4    | 1       | 18.45           | 11.11          |                         |
  // |                             |              | AWQ          | 1       | 19.11           | 10.98          |                         |
  check_rows(preset("qwen2.5-7b").config, "7B",
             {
              {1, 8.42, 1, "gptq-int8"}, {1, 5.52, 1, "gptq-int4"}, {1, 5.39, 1, "awq-int4"},
              {6144, 9.43, 1, "gptq-int8"}, {6144, 6.52, 1, "gptq-int4"}, {6144, 6.39, 1, "awq-int4"},
              {14336, 10.96, 1, "gptq-int8"}, {14336, 8.05, 1, "gptq-int4"}, {14336, 7.92, 1, "awq-int4"},
              {30720, 14.01, 1, "gptq-int8"}, {30720, 11.11, 1, "gptq-int4"}, {30720, 10.98, 1, "awq-int4"}});
  // |                          |              | GPTQ-Int8    | 1       | 18.84           | 16.11          | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 25.89           | 9.94           |                         |
  // |                          |              | AWQ          | 1       | 19.23           | 9.79           |                         |
  // |                          |              | GPTQ-Int8    | 1       | 17.80           | 17.61          | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 20.06           | 11.36          |                         |
  // |                          |              | AWQ          | 1       | 19.21           | 11.22          |                         |
  // |                          |              | GPTQ-Int8    | 1       | 12.66           | 19.98          | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 13.79           | 13.81          |                         |
  // |                          |              | AWQ          | 1       | 14.17           | 13.67          |                         |
  // |                          |              | GPTQ-Int8    | 1       | 7.77            | 24.88          | auto_gptq==0.6.0+cu1210 |
  // |                          |              | GPTQ-Int4    | 1       | 8.14            | 18.71          |                         |
  // |                          |              | AWQ          | 1       | 8.31            | 18.57          |                         |
  check_rows(import_file("calibration/configs/qwen2.5-14b-instruct.json"), "14B",
             {
              {1, 16.11, 1, "gptq-int8"}, {1, 9.94, 1, "gptq-int4"}, {1, 9.79, 1, "awq-int4"},
              {6144, 17.61, 1, "gptq-int8", 90}, {6144, 11.36, 1, "gptq-int4"}, {6144, 11.22, 1, "awq-int4"},
              {14336, 19.98, 1, "gptq-int8"}, {14336, 13.81, 1, "gptq-int4"}, {14336, 13.67, 1, "awq-int4"},
              {30720, 24.88, 1, "gptq-int8"}, {30720, 18.71, 1, "gptq-int4"}, {30720, 18.57, 1, "awq-int4"}});
  // |                             |              | GPTQ-Int8    | 1       | 14.52           | 33.56          | auto_gptq==0.6.0+cu1210                   |
  // |                             |              | GPTQ-Int4    | 1       | 19.20           | 18.94          |                                           |
  // |                             |              | AWQ          | 1       | 14.60           | 18.67          |                                           |
  // |                             |              | GPTQ-Int8    | 1       | 11.61           | 35.86          | auto_gptq==0.6.0+cu1210                   |
  // |                             |              | GPTQ-Int4    | 1       | 13.42           | 21.09          |                                           |
  // |                             |              | AWQ          | 1       | 13.81           | 20.81          |                                           |
  // |                             |              | GPTQ-Int8    | 1       | 8.53            | 39.28          | auto_gptq==0.6.0+cu1210                   |
  // |                             |              | GPTQ-Int4    | 1       | 9.48            | 24.67          |                                           |
  // |                             |              | AWQ          | 1       | 9.71            | 24.39          |                                           |
  // |                             |              | GPTQ-Int8    | 1       | 5.42            | 46.45          | auto_gptq==0.6.0+cu1210                   |
  // |                             |              | GPTQ-Int4    | 1       | 5.79            | 31.84          |                                           |
  // |                             |              | AWQ          | 1       | 5.85            | 31.56          |                                           |
  check_rows(import_file("calibration/configs/qwen2.5-32b-instruct.json"), "32B",
             {
              {1, 33.56, 1, "gptq-int8"}, {1, 18.94, 1, "gptq-int4"}, {1, 18.67, 1, "awq-int4"},
              {6144, 35.86, 1, "gptq-int8", 163}, {6144, 21.09, 1, "gptq-int4"}, {6144, 20.81, 1, "awq-int4"},
              {14336, 39.28, 1, "gptq-int8"}, {14336, 24.67, 1, "gptq-int4"}, {14336, 24.39, 1, "awq-int4"},
              {30720, 46.45, 1, "gptq-int8"}, {30720, 31.84, 1, "gptq-int4"}, {30720, 31.56, 1, "awq-int4"}});
  // |                             |              | GPTQ-Int8    | 2       | 8.66            | 72.61          |           auto_gptq==0.6.0+cu1210         |
  // |                             |              | GPTQ-Int4    | 1       | 11.07           | 39.91          |                                           |
  // |                             |              | AWQ          | 1       | 11.50           | 39.44          |                                           |
  // |                             |              | GPTQ-Int8    | 2       | 6.39            | 77.81          |           auto_gptq==0.6.0+cu1210         |
  // |                             |              | GPTQ-Int4    | 1       | 7.56            | 42.50          |                                           |
  // |                             |              | AWQ          | 1       | 8.17            | 42.13          |                                           |
  // |                             |              | GPTQ-Int8    | 2       | 4.66            | 82.55          |           auto_gptq==0.6.0+cu1210         |
  // |                             |              | GPTQ-Int4    | 1       | 5.27            | 46.86          |                                           |
  // |                             |              | AWQ          | 1       | 5.57            | 46.38          |                                           |
  // |                             |              | GPTQ-Int8    | 2       | 2.94            | 94.75          |           auto_gptq==0.6.0+cu1210         |
  // |                             |              | GPTQ-Int4    | 2       | 3.14            | 62.57          |                                           |
  // |                             |              | AWQ          | 2       | 3.23            | 61.64          |                                           |
  check_rows(import_file("calibration/configs/qwen2.5-72b-instruct.json"), "72B",
             {
              {1, 72.61, 2, "gptq-int8"}, {1, 39.91, 1, "gptq-int4"}, {1, 39.44, 1, "awq-int4"},
              {6144, 77.81, 2, "gptq-int8", 1410}, {6144, 42.50, 1, "gptq-int4"}, {6144, 42.13, 1, "awq-int4", 122},
              {14336, 82.55, 2, "gptq-int8", 27}, {14336, 46.86, 1, "gptq-int4", 18}, {14336, 46.38, 1, "awq-int4"},
              {30720, 94.75, 2, "gptq-int8", 47}, {30720, 62.57, 2, "gptq-int4", 57}, {30720, 61.64, 2, "awq-int4", 53}});
}

TEST_CASE("Transformers profile: the terms of one row, derived", "[calibration][transformers]") {
  // Qwen2.5-7B, prompt 30720: d 3584, I 18944, 28 layers, 4 KV heads of 128, bf16.
  const TransformersMemory m = profile(preset("qwen2.5-7b").config, 30720);
  CHECK(m.weights_raw_bytes == 2 * i64{7615616512});
  // gate, up and down are 129.5 MiB: their 130 MiB segments keep the half MiB (28 × 3), as do the
  // two 1,039.5 MiB embedding tables; q and o (24.5 MiB) leave 1.5 MiB, which is split off.
  CHECK(m.segment_slack_bytes == (28 * 3 + 2) * 524288);
  CHECK(m.kv_prompt_bytes == 2 * 28 * i64{30720} * 512 * 2);
  // 3 · N · I · 2 (silu(gate), up, product) + 4 · N · d · 2 + ids (3 · N · 8 + N · 8) + cos, sin (2 · N · 128 · 2).
  const i64 N = 30720;
  CHECK(m.prefill_at_mlp);
  CHECK(m.prefill_bytes == 3 * N * 18944 * 2 + 4 * N * 3584 * 2 + 4 * N * 8 + 2 * N * 128 * 2);
  CHECK(m.peak_bytes == m.weights_bytes + m.cublas_bytes + m.kv_prompt_bytes + m.prefill_bytes);
  // The last step: 32,767 tokens cached; repeat_kv's K and V at 28 heads, 2 · 32767 · 3584 · 2 (512-rounded).
  CHECK(m.end_tokens == 30720 + 2047);
  CHECK(m.kv_end_bytes == 2 * 28 * ((i64{32767} * 512 * 2 + 511) / 512 * 512));
}

TEST_CASE("Transformers profile on one GPU: the fit is the peak's beside the reserve", "[transformers]") {
  const ModelConfig q = preset("qwen2.5-7b").config;
  auto run = [&](i64 seq, i64 batch) {
    Workload w = with({{"gpu", "l40s"}, {"rt", "transformers"}, {"mnt", "512"}});
    w.seq = seq;
    w.batch = batch;
    const auto e = estimate(q, w);
    REQUIRE(e.ok());
    REQUIRE(e->transformers);
    return std::make_pair(e->inference, *e->transformers);
  };
  const auto [fit, t] = run(8192, 1);
  const i64 room = fit.capacity_bytes - fit.reserve_bytes;
  CHECK(fit.fits == (t.peak_bytes <= room));
  // The largest batch at seq 8192 fits and one more does not; likewise the longest seq at batch 1.
  REQUIRE(fit.max_sequences >= 1);
  CHECK(run(8192, fit.max_sequences).second.peak_bytes <= room);
  CHECK(run(8192, fit.max_sequences + 1).second.peak_bytes > room);
  REQUIRE(fit.max_context > 512);
  CHECK(run(fit.max_context, 1).second.peak_bytes <= room);
  if (!fit.max_context_is_model_limit) CHECK(run(fit.max_context + 1, 1).second.peak_bytes > room);
}

TEST_CASE("Transformers profile: sdpa and eager attention", "[transformers]") {
  const ModelConfig q = preset("qwen2.5-7b").config;
  auto run = [&](const char* impl, i64 prompt, i64 fresh) {
    Workload w = with({{"gpu", "a100-80gb"}, {"rt", "transformers"}, {"attn", impl}});
    w.seq = prompt + fresh;
    w.max_new_tokens = fresh;
    const auto e = estimate(q, w);
    REQUIRE(e.ok());
    INFO((e->notes.empty() ? std::string() : e->notes.front().message));
    REQUIRE(e->transformers);
    return *e->transformers;
  };
  // Where the last MLP sets the prompt's peak, sdpa (transformers' default) is flash_attention_2's:
  // the kernels differ only inside the attention, whose tensors are freed by then.
  const TransformersMemory fa = run("flash_attention_2", 30720, 2048), sdpa = run("sdpa", 30720, 2048);
  CHECK(sdpa.prefill_at_mlp);
  CHECK(sdpa.peak_bytes == fa.peak_bytes);
  // Eager materializes the scores: at a 4,096-token prompt the attention's softmax is the peak,
  // 28 heads × 4096² × (2 + 4 + 2) B beside the 4D mask (4096² × 2 B) that stays for the forward.
  const TransformersMemory eager = run("eager", 4096, 1);
  const i64 P = 4096, N = P, qd = 3584, d = 3584;
  CHECK_FALSE(eager.prefill_at_mlp);
  const i64 ids = 2 * N * 8 + (N * 8 + P * 8 + 2 * P * 128 * 2);
  CHECK(eager.prefill_bytes == 3 * N * d * 2 + N * qd * 2 + 2 * N * qd * 2 + 28 * P * P * (2 + 4 + 2) + N * P * 2 + ids);
}

TEST_CASE("Transformers profile: where it does not reach, a note names the field", "[transformers]") {
  auto note_field = [](const ModelConfig& c, std::initializer_list<std::pair<const char*, const char*>> kv) {
    Workload w = with(kv);
    w.runtime = Runtime::Transformers;
    const auto e = estimate(c, w);
    REQUIRE(e.ok());
    CHECK_FALSE(e->transformers);
    REQUIRE_FALSE(e->notes.empty());
    return e->notes.front().field;
  };
  const ModelConfig q = preset("qwen2.5-7b").config;
  CHECK(note_field(q, {{"attn", "flash_attention_2"}, {"gpu", "v100-32gb"}}) == "gpu");  // flash-attn 2 needs sm80
  CHECK(note_field(q, {{"gpu", "m3-max-128gb"}}) == "gpu");               // max_memory_allocated() is CUDA's
  CHECK(note_field(preset("mistral-7b").config, {{"seq", "8192"}}) == "attn");  // sdpa past Mistral's window: a 4D mask
  CHECK(note_field(q, {{"w", "gptq-int4"}}) == "w");                           // 16-bit checkpoints only
  CHECK(note_field(q, {{"kvt", "fp8"}}) == "kvt");                        // DynamicCache keeps the model's dtype
  CHECK(note_field(q, {{"gpus", "2"}, {"tp", "2"}}) == "gpus");           // device_map splits layers, not tensors
  CHECK(note_field(q, {{"gpus", "2"}}) == "gpus");                        // nor data-parallel replicas
  CHECK(note_field(q, {{"seq", "100"}, {"mnt", "100"}}) == "mnt");        // no prompt left
  CHECK(note_field(q, {{"chunk", "512"}}) == "chunk");                    // generate() has no chunked prefill
  CHECK(note_field(preset("gemma-2-9b").config, {}) == "rt");             // not a LlamaDecoderLayer family
  // Eager scores of 64 × 28 × (2^27)² overflow 64 bits: a named refusal, not a wrapped number.
  CHECK(note_field(q, {{"attn", "eager"}, {"seq", "134217728"}, {"mnt", "1"}, {"batch", "64"}}) == "seq");
  // One new token: the prompt's forward is the only one, and its peak the profile's.
  Workload w = with({{"seq", "4096"}, {"mnt", "1"}});
  w.runtime = Runtime::Transformers;
  const auto e = estimate(q, w);
  REQUIRE(e.ok());
  REQUIRE(e->transformers);
  CHECK(e->transformers->decode_peak_bytes == 0);
  CHECK(e->transformers->peak_bytes == e->transformers->prefill_peak_bytes);
  CHECK(e->transformers->prompt == 4095);
}

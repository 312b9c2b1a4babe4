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
  double gib;    // the table's "GPU Memory(GB)"
  i64 gpus = 1;  // its "GPU Num": device_map='auto' over that many
};

TransformersMemory profile(const ModelConfig& c, i64 prompt, i64 new_tokens = 2048, i64 gpus = 1) {
  Workload w = with({{"gpu", "a100-80gb"}, {"rt", "transformers"}, {"attn", "flash_attention_2"}});
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
// order the checkpoint's shards set) and among the activations; `miss` names a row outside that.
void check_rows(const ModelConfig& c, const char* name, std::initializer_list<Row> rows, i64 miss_prompt = -1, double miss_mib = 0) {
  for (const Row& r : rows) {
    const TransformersMemory m = profile(c, r.prompt, 2048, r.gpus);
    const double diff = r.gib * 1024 - mib(m.peak_bytes);  // published − llmsize, MiB
    INFO(name << " prompt " << r.prompt << ": llmsize " << mib(m.peak_bytes) / 1024 << " GiB, published " << r.gib << ", diff " << diff << " MiB");
    // The prompt of one token peaks at the last step (the cache of 2,048 tokens and repeat_kv's
    // copies); the long prompts at the prefill's last MLP.
    CHECK(m.peak_in_prefill == (r.prompt > 1));
    if (r.prompt == miss_prompt) {
      CHECK(diff == Approx(miss_mib).margin(6));
      continue;
    }
    CHECK(std::abs(diff) <= 16);
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
  check_rows(import_file("calibration/configs/qwen2.5-3b-instruct.json"), "3B", {{1, 5.95}, {6144, 6.59}, {14336, 7.47}, {30720, 9.30}}, 6144, 43);
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

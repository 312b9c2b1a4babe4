// GGUF header reader (issue 12): the key/values of every type, the tensor table, bytes per
// tensor from ggml's blocks, reading more when the header is longer than the bytes given, and
// hostile headers refused by name. The files are written here, byte by byte, as ggml/docs/gguf.md
// lays them out.
#include <cstring>

#include "core/gguf.hpp"
#include "core/params.hpp"
#include "core/quant.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {

using Gguf = llmsize::test::GgufWriter;

// A small llama file: metadata of several types (a string array, an i32 array, a nested array,
// an f32, a bool) and three tensors of three types.
Gguf small_llama() {
  Gguf g;
  g.header(3, 3, 7);
  g.key_str("general.architecture", "llama");
  g.key_str("general.name", "tiny");
  g.key_u32("llama.block_count", 2);
  g.str("tokenizer.ggml.tokens"), g.u32(9), g.u32(8), g.u64(3), g.str("a"), g.str("bb"), g.str("ccc");
  g.str("llama.attention.head_count_kv"), g.u32(9), g.u32(5), g.u64(2), g.u32(4), g.u32(8);
  g.str("nested"), g.u32(9), g.u32(9), g.u64(2), g.u32(0), g.u64(1), g.u8(7), g.u32(6), g.u64(0);
  g.str("llama.rope.freq_base"), g.u32(6);
  {
    const float base = 10000.0f;
    std::uint32_t x = 0;
    std::memcpy(&x, &base, 4);
    g.u32(x);
  }
  // token_embd q4_K 512 × 10; blk.0.attn_q f16 512 × 512; output_norm f32 512.
  g.tensor("token_embd.weight", {512, 10}, 12, 0);
  g.tensor("blk.0.attn_q.weight", {512, 512}, 1, 2880);
  g.tensor("output_norm.weight", {512}, 0, 2880 + 524288);
  return g;
}

}  // namespace

TEST_CASE("GGUF: a header's metadata, tensors and bytes", "[core][gguf]") {
  Gguf g = small_llama();
  const i64 header = static_cast<i64>(g.b.size());
  const i64 file = (header + 31) / 32 * 32 + 2880 + 524288 + 2048;
  auto h = read_gguf_header(g.b, file);
  INFO(join(h.issues()));
  REQUIRE(h.ok());
  CHECK(h->version == 3);
  CHECK(h->string_of("general.architecture") == "llama");
  CHECK(h->find("llama.block_count")->i == 2);
  CHECK(h->find("tokenizer.ggml.tokens")->count == 3);
  CHECK(h->find("llama.attention.head_count_kv")->ints == std::vector<i64>{4, 8});
  CHECK(h->find("nested")->count == 2);
  CHECK(h->find("llama.rope.freq_base")->f == 10000.0);
  CHECK(h->data_offset == (header + 31) / 32 * 32);
  REQUIRE(h->tensors.size() == 3);
  // q4_K: 144 bytes per 256 values; f16 2; f32 4.
  CHECK(h->tensors[0].bytes == 512 * 10 / 256 * 144);
  CHECK(h->tensors[1].bytes == 512 * 512 * 2);
  CHECK(h->tensors[2].bytes == 512 * 4);
  CHECK(h->elements() == 512 * 10 + 512 * 512 + 512);
  CHECK(h->tensor_bytes() == 2880 + 524288 + 2048);
  const auto counts = gguf_type_counts(*h);
  REQUIRE(counts.size() == 3);
  CHECK(counts[0].type->name == "f32");
  CHECK(counts[2].type->name == "q4_K");
  const std::string json = gguf_json(*h);
  CHECK(json.find("\"weights_bytes\":529216") != std::string::npos);
  CHECK(json.find("\"q4_K\":{\"bytes\":2880,\"params\":5120,\"tensors\":1}") != std::string::npos);
  CHECK(gguf_text(*h, "tiny.gguf").find("architecture llama") != std::string::npos);
}

TEST_CASE("GGUF: a header longer than the bytes read asks for more", "[core][gguf]") {
  const Gguf g = small_llama();
  const i64 file = 1 << 20;
  // Every prefix either asks for more (past what it holds) or is refused; the whole header reads.
  for (size_t n = 0; n < g.b.size(); ++n) {
    i64 more = 0;
    auto h = read_gguf_header(std::string_view(g.b).substr(0, n), file, &more);
    REQUIRE_FALSE(h.ok());
    CHECK(h.issues().front().field == "gguf");
    CHECK(more > static_cast<i64>(n));
    CHECK(more <= static_cast<i64>(g.b.size()));
  }
  CHECK(read_gguf_header(g.b, file).ok());
}

TEST_CASE("GGUF: ggml's block table, one home with the quantization table", "[core][gguf]") {
  // ggml-common.h: block_q4_0 18 bytes per 32, block_q6_K 210 per 256, block_mxfp4 17 per 32, …
  const std::pair<std::uint32_t, QType> shared[] = {
      {0, QType::F32},   {1, QType::F16},   {30, QType::BF16}, {2, QType::Q4_0},  {3, QType::Q4_1},  {6, QType::Q5_0},
      {7, QType::Q5_1},  {8, QType::Q8_0},  {10, QType::Q2_K}, {11, QType::Q3_K}, {12, QType::Q4_K}, {13, QType::Q5_K},
      {14, QType::Q6_K}, {20, QType::IQ4_NL}, {23, QType::IQ4_XS}, {39, QType::Mxfp4}};
  for (const auto& [id, q] : shared) {
    INFO(id);
    const GgmlType* t = ggml_type(id);
    REQUIRE(t != nullptr);
    CHECK(t->block == block_shape(q).values);
    CHECK(t->bytes == block_shape(q).bytes);
  }
  // Removed ids are not types any more; every id listed once.
  for (std::uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 43u}) CHECK(ggml_type(removed) == nullptr);
  CHECK(ggml_types().size() == 35);
  CHECK(ggml_type(16)->name == "iq2_xxs");
  CHECK(ggml_type(40)->bytes == 36);  // NVFP4: 4 blocks of 16 with E4M3 scales, 36 bytes per 64
}

TEST_CASE("GGUF: hostile headers are refused by name", "[core][gguf][validation]") {
  auto refused = [](const std::string& bytes, std::string_view says, i64 file = 1 << 20) {
    INFO(says);
    auto h = read_gguf_header(bytes, file);
    REQUIRE_FALSE(h.ok());
    CHECK(h.issues().front().field == "gguf");
    CHECK(h.issues().front().message.find(says) != std::string::npos);
    llmsize::test::check_in_both(h.issues().front());  // the message in each language
  };
  refused("GGML0000", "magic");
  Gguf g;
  g.header(1, 0, 0);
  refused(g.b, "version 1");
  g.header(4, 0, 0);
  refused(g.b, "version 4");
  g.b = "GGUF";
  g.u8(0), g.u8(0), g.u8(0), g.u8(3), g.u64(0), g.u64(0);
  refused(g.b, "big-endian");
  g.header(3, std::uint64_t{1} << 40, 0);
  refused(g.b, "tensor count");
  g.header(3, 1000, 1000);
  refused(g.b, "cannot hold", 4096);
  // A key of an unknown type, a bool of 2, a repeated key.
  g.header(3, 0, 1);
  g.str("k"), g.u32(13), g.u32(0);
  refused(g.b, "not a GGUF type");
  g.header(3, 0, 1);
  g.str("k"), g.u32(7), g.u8(2);
  refused(g.b, "bool");
  g.header(3, 0, 2);
  g.key_u32("k", 1), g.key_u32("k", 2);
  refused(g.b, "appears twice");
  // A string or array longer than the file, arrays nested too deep, a u64 beyond int64.
  g.header(3, 0, 1);
  g.str("k"), g.u32(8), g.u64(std::uint64_t{1} << 20);
  refused(g.b, "past the end", 4096);
  g.header(3, 0, 1);
  g.str("k"), g.u32(9), g.u32(4), g.u64(std::uint64_t{1} << 60);
  refused(g.b, "array length");
  g.header(3, 0, 1);
  g.str("k"), g.u32(9);
  for (int d = 0; d < 10; ++d) g.u32(9), g.u64(1);
  refused(g.b, "nested");
  g.header(3, 0, 1);
  g.str("k"), g.u32(10), g.u64(~std::uint64_t{0});
  refused(g.b, "beyond int64");
  // general.alignment not a power of two.
  g.header(3, 0, 1);
  g.key_u32("general.alignment", 48);
  refused(g.b, "power of two");
  // Tensors: a removed type, an unknown one, 5 dimensions, rows not in whole blocks, a
  // misaligned offset, a repeated name, data past the end of the file.
  auto one_tensor = [](std::uint32_t type, std::initializer_list<std::uint64_t> ne, std::uint64_t offset) {
    Gguf t;
    t.header(3, 1, 0);
    t.tensor("w", ne, type, offset);
    return t.b;
  };
  refused(one_tensor(4, {32}, 0), "ggml type 4");
  refused(one_tensor(99, {32}, 0), "ggml type 99");
  refused(one_tensor(0, {1, 1, 1, 1, 1}, 0), "5 dimensions");
  refused(one_tensor(12, {100, 2}, 0), "whole q4_K blocks");
  refused(one_tensor(0, {8}, 7), "alignment");
  refused(one_tensor(0, {1u << 20}, 0), "beyond the end", 8192);
  refused(one_tensor(0, {std::uint64_t{1} << 40, std::uint64_t{1} << 40}, 0), "int64");
  Gguf two;
  two.header(3, 2, 0);
  two.tensor("w", {8}, 0, 0), two.tensor("w", {8}, 0, 32);
  refused(two.b, "appears twice");
  // A name longer than ggml's 63 characters.
  Gguf long_name;
  long_name.header(3, 1, 0);
  long_name.tensor(std::string(64, 'x'), {8}, 0, 0);
  refused(long_name.b, "name length");
}

namespace {

// The metadata of a GGUF file as convert_hf_to_gguf.py writes it: the <arch>.* keys, the
// tokenizer's token list (its length only matters here), and output.weight unless tied.
struct Meta {
  std::string arch;
  std::vector<std::pair<std::string, std::uint32_t>> ints;  // <arch>.<key> u32
  std::uint64_t tokens = 0;
  bool head = true;
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> arrays = {};  // <arch>.<key> [u32]
  std::vector<std::pair<std::string, std::vector<bool>>> bools = {};             // <arch>.<key> [bool]
  std::vector<std::string> tensors = {};  // more tensors the reading looks for (f32 × 8 each)
  std::vector<std::pair<std::string, float>> floats = {};  // <arch>.<key> f32
};
std::string gguf_of(const Meta& m) {
  Gguf g;
  g.header(3, (m.head ? 1 : 0) + m.tensors.size(), 2 + m.ints.size() + m.arrays.size() + m.bools.size() + m.floats.size());
  g.key_str("general.architecture", m.arch);
  for (const auto& [k, v] : m.ints) g.key_u32(m.arch + "." + k, v);
  for (const auto& [k, v] : m.arrays) {  // GGUF_TYPE_ARRAY of GGUF_TYPE_UINT32
    g.str(m.arch + "." + k), g.u32(9), g.u32(4), g.u64(v.size());
    for (std::uint32_t x : v) g.u32(x);
  }
  for (const auto& [k, v] : m.floats) g.str(m.arch + "." + k), g.u32(6), g.f32(v);  // GGUF_TYPE_FLOAT32
  for (const auto& [k, v] : m.bools) {  // GGUF_TYPE_ARRAY of GGUF_TYPE_BOOL
    g.str(m.arch + "." + k), g.u32(9), g.u32(7), g.u64(v.size());
    for (bool x : v) g.b.push_back(static_cast<char>(x ? 1 : 0));
  }
  g.str("tokenizer.ggml.tokens"), g.u32(9), g.u32(8), g.u64(m.tokens);
  for (std::uint64_t t = 0; t < m.tokens; ++t) g.str("t");
  if (m.head) g.tensor("output.weight", {256, 1}, 0, 0);
  for (size_t i = 0; i < m.tensors.size(); ++i) g.tensor(m.tensors[i], {8}, 0, 1024 + 32 * i);
  return g.b;
}
i64 params_of(const std::string& file) {
  auto h = read_gguf_header(file, 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  auto p = count_params(c->config);
  REQUIRE(p.ok());
  return p->total;
}

}  // namespace

TEST_CASE("GGUF: the metadata read as the model it describes", "[core][gguf]") {
  // Qwen3-30B-A3B Q4_K_M (unsloth), as llama.cpp's loader dumped it (ik_llama.cpp issue thread,
  // comment by mtcl of 2025-06-10):
  //   qwen3moe.block_count u32 = 48 · qwen3moe.context_length u32 = 40960 · qwen3moe.embedding_length u32 = 2048
  //   qwen3moe.feed_forward_length u32 = 6144 · qwen3moe.attention.head_count u32 = 32
  //   qwen3moe.attention.head_count_kv u32 = 4 · qwen3moe.expert_used_count u32 = 8
  //   qwen3moe.attention.key_length u32 = 128 · qwen3moe.attention.value_length u32 = 128
  //   qwen3moe.expert_count u32 = 128 · qwen3moe.expert_feed_forward_length u32 = 768
  //   tokenizer.ggml.tokens arr[str,151936] · print_info: model params = 30.53 B
  const Meta qwen{"qwen3moe",
                  {{"block_count", 48}, {"context_length", 40960}, {"embedding_length", 2048}, {"feed_forward_length", 6144},
                   {"attention.head_count", 32}, {"attention.head_count_kv", 4}, {"expert_used_count", 8},
                   {"attention.key_length", 128}, {"attention.value_length", 128}, {"expert_count", 128},
                   {"expert_feed_forward_length", 768}},
                  151936};
  const i64 q = params_of(gguf_of(qwen));
  CHECK(q == count_params(llmsize::test::preset("qwen3-30b-a3b").config)->total);
  CHECK(q / 10000000 == 3053);  // 30.53 B
  // The same keys of other architectures, from their checkpoints' config.json values: the
  // parameters are those of the Hugging Face model.
  const Meta llama{"llama",
                   {{"block_count", 32}, {"context_length", 131072}, {"embedding_length", 4096}, {"feed_forward_length", 14336},
                    {"attention.head_count", 32}, {"attention.head_count_kv", 8}, {"attention.key_length", 128}},
                   128256};
  CHECK(params_of(gguf_of(llama)) == count_params(llmsize::test::preset("llama-3.1-8b").config)->total);
  Meta mixtral{"llama",
               {{"block_count", 32}, {"context_length", 32768}, {"embedding_length", 4096}, {"feed_forward_length", 14336},
                {"attention.head_count", 32}, {"attention.head_count_kv", 8}, {"expert_count", 8}, {"expert_used_count", 2}},
               32000};
  CHECK(params_of(gguf_of(mixtral)) == count_params(llmsize::test::preset("mixtral-8x7b").config)->total);
  const Meta oss{"gpt-oss",
                 {{"block_count", 24}, {"context_length", 131072}, {"embedding_length", 2880}, {"feed_forward_length", 2880},
                  {"attention.head_count", 64}, {"attention.head_count_kv", 8}, {"attention.key_length", 64},
                  {"attention.value_length", 64}, {"expert_count", 32}, {"expert_used_count", 4}, {"attention.sliding_window", 128}},
                 201088};
  CHECK(params_of(gguf_of(oss)) == count_params(llmsize::test::preset("gpt-oss-20b").config)->total);
  const Meta qwen25{"qwen2",
                    {{"block_count", 28}, {"context_length", 131072}, {"embedding_length", 3584}, {"feed_forward_length", 18944},
                     {"attention.head_count", 28}, {"attention.head_count_kv", 4}},
                    152064};
  CHECK(params_of(gguf_of(qwen25)) == count_params(llmsize::test::preset("qwen2.5-7b").config)->total);
  // Gemma 3 ties its head: no output.weight.
  Meta gemma{"gemma3",
             {{"block_count", 26}, {"context_length", 32768}, {"embedding_length", 1152}, {"feed_forward_length", 6912},
              {"attention.head_count", 4}, {"attention.head_count_kv", 1}, {"attention.key_length", 256},
              {"attention.sliding_window", 512}},
             262144, false};
  CHECK(params_of(gguf_of(gemma)) == count_params(llmsize::test::preset("gemma-3-1b").config)->total);
}

TEST_CASE("GGUF: metadata that cannot be read as a model is refused by its key", "[core][gguf][validation]") {
  auto issue_of = [](const std::string& file) {
    auto h = read_gguf_header(file, 0);
    REQUIRE(h.ok());
    auto c = gguf_config(*h);
    REQUIRE_FALSE(c.ok());
    return c.issues().front();
  };
  Meta m{"mamba", {{"block_count", 2}}, 4};
  CHECK(issue_of(gguf_of(m)).field == "general.architecture");
  CHECK(issue_of(gguf_of(m)).message.find("qwen3moe") != std::string::npos);  // says which are read
  // A head count of 0 reaches the importer and comes back under the GGUF key.
  m = {"qwen3", {{"block_count", 2}, {"embedding_length", 64}, {"attention.head_count", 0}, {"feed_forward_length", 64}}, 4};
  CHECK(issue_of(gguf_of(m)).field == "qwen3.attention.head_count");
  // Per-layer head counts that differ (an i32 array) are named, not averaged.
  Gguf g;
  g.header(3, 0, 3);
  g.key_str("general.architecture", "llama");
  g.key_u32("llama.block_count", 2);
  g.str("llama.attention.head_count_kv"), g.u32(9), g.u32(5), g.u64(2), g.u32(4), g.u32(8);
  CHECK(issue_of(g.b).field == "llama.attention.head_count_kv");
  g.header(3, 0, 0);
  CHECK(issue_of(g.b).field == "general.architecture");
}

TEST_CASE("GGUF: a file's tensors by group match the model its metadata describes", "[core][gguf]") {
  // Qwen2.5-0.5B as convert_hf_to_gguf.py names its tensors (llama.cpp LLM_TENSOR_NAMES for
  // qwen2), all f16: the parameters per group are the Hugging Face model's, the head tied.
  const ModelConfig c = llmsize::test::preset("qwen2.5-0.5b").config;
  const std::uint64_t d = static_cast<std::uint64_t>(c.d_model), kv = static_cast<std::uint64_t>(c.n_kv_heads * c.head_dim),
                      f = static_cast<std::uint64_t>(c.d_ff), v = static_cast<std::uint64_t>(c.vocab);
  Gguf g;
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> tensors{{"token_embd.weight", {d, v}}, {"output_norm.weight", {d}}};
  for (i64 l = 0; l < c.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    for (const auto& [n, shape] : std::vector<std::pair<std::string, std::vector<std::uint64_t>>>{
             {"attn_norm.weight", {d}},     {"attn_q.weight", {d, d}},   {"attn_q.bias", {d}},      {"attn_k.weight", {d, kv}},
             {"attn_k.bias", {kv}},         {"attn_v.weight", {d, kv}},  {"attn_v.bias", {kv}},     {"attn_output.weight", {d, d}},
             {"ffn_norm.weight", {d}},      {"ffn_gate.weight", {d, f}}, {"ffn_up.weight", {d, f}}, {"ffn_down.weight", {f, d}}})
      tensors.emplace_back(b + n, shape);
  }
  g.header(3, tensors.size(), 1);
  g.key_str("general.architecture", "qwen2");
  std::uint64_t offset = 0;
  for (const auto& [n, shape] : tensors) {
    g.str(n);
    g.u32(static_cast<std::uint32_t>(shape.size()));
    std::uint64_t elements = 1;
    for (auto x : shape) g.u64(x), elements *= x;
    g.u32(1), g.u64(offset);
    offset += (elements * 2 + 31) / 32 * 32;
  }
  auto h = read_gguf_header(g.b, 0);
  REQUIRE(h.ok());
  const GgufGroups groups = gguf_groups(*h);
  const auto p = count_params(c);
  REQUIRE(p.ok());
  for (int k = 0; k < kGroupCount; ++k) {
    INFO(to_string(static_cast<Group>(k)));
    CHECK(groups.params[static_cast<size_t>(k)] == p->by_group[static_cast<size_t>(k)]);
  }
  CHECK(groups.unmatched_count == 0);
  CHECK(groups.first[static_cast<size_t>(Group::Ffn)] == "blk.0.ffn_gate.weight");
  CHECK(h->elements() == p->total);
}

TEST_CASE("GGUF: DeepSeek V2/V3, R1 and Kimi K2 (deepseek2) read as the models they are", "[core][gguf]") {
  // DeepSeek-V3 / R1 as llama.cpp's loader dumps them: kv 11–24 of an unsloth R1 file
  // (ikawrakow/ik_llama.cpp PR #239: "deepseek2.block_count u32 = 61" … "deepseek2.attention.kv_lora_rank
  // u32 = 512") and kv 14–27 of a V3 file (ggml-org/llama.cpp issue #11141:
  // "deepseek2.leading_dense_block_count u32 = 3" … "deepseek2.expert_gating_func u32 = 2",
  // "deepseek2.rope.dimension_count u32 = 64").
  auto file = [](std::vector<std::pair<std::string, std::uint32_t>> ints, bool mla_layout) {
    llmsize::test::GgufWriter g;
    if (mla_layout)  // llama.cpp's MLA layout: the latent as key/value, the heads in *_mla
      for (auto& [k, v] : ints) {
        if (k == "attention.key_length") v = 576;
        if (k == "attention.value_length") v = 512;
        if (k == "attention.head_count_kv") v = 1;
      }
    if (mla_layout) ints.push_back({"attention.key_length_mla", 192}), ints.push_back({"attention.value_length_mla", 128});
    g.header(3, 1, ints.size() + 1);
    g.key_str("general.architecture", "deepseek2");
    for (const auto& [k, v] : ints) g.key_u32("deepseek2." + k, v);
    g.tensor("output.weight", {256, 1}, 0, 0);
    return g.b;
  };
  const std::vector<std::pair<std::string, std::uint32_t>> v3{
      {"block_count", 61},           {"context_length", 163840},       {"embedding_length", 7168},
      {"feed_forward_length", 18432}, {"attention.head_count", 128},    {"attention.head_count_kv", 128},
      {"expert_used_count", 8},      {"leading_dense_block_count", 3}, {"vocab_size", 129280},
      {"attention.q_lora_rank", 1536}, {"attention.kv_lora_rank", 512}, {"attention.key_length", 192},
      {"attention.value_length", 128}, {"expert_feed_forward_length", 2048}, {"expert_count", 256},
      {"expert_shared_count", 1},    {"expert_gating_func", 2},        {"rope.dimension_count", 64}};
  const i64 deepseek_v3 = count_params(llmsize::test::preset("deepseek-v3").config)->total;
  CHECK(params_of(file(v3, false)) == deepseek_v3);  // 671,026,419,200: the main model (MTP apart)
  // The MLA layout of files converted since llama.cpp's MLA rework (ggml-org/llama.cpp issue
  // #14201: "deepseek2.attention.key_length u32 = 576", "value_length u32 = 512",
  // "key_length_mla u32 = 192", "value_length_mla u32 = 128").
  CHECK(params_of(file(v3, true)) == deepseek_v3);
  // Kimi K2 (ikawrakow/ik_llama.cpp issue #1916: "deepseek2.expert_gating_func u32 = 2",
  // "leading_dense_block_count u32 = 1", "vocab_size u32 = 163840", "expert_count u32 = 384"; its
  // 64 heads from the checkpoint's config.json): DeepSeek-V3's tensors.
  auto kimi = v3;
  for (auto& [k, v] : kimi) {
    if (k == "leading_dense_block_count") v = 1;
    if (k == "vocab_size") v = 163840;
    if (k == "expert_count") v = 384;
    if (k == "attention.head_count" || k == "attention.head_count_kv") v = 64;
  }
  CHECK(params_of(file(kimi, true)) == count_params(llmsize::test::preset("kimi-k2").config)->total);
  // DeepSeek-V2 (ollama/ollama issue #7548: "deepseek2.expert_count u32 = 160", "expert_shared_count
  // u32 = 2", "expert_feed_forward_length u32 = 1536", no gating function: a softmax router, no
  // correction bias); the other counts from its config.json.
  const ModelConfig v2c = llmsize::test::preset("deepseek-v2").config;
  const std::vector<std::pair<std::string, std::uint32_t>> v2{
      {"block_count", 60},            {"context_length", 163840},       {"embedding_length", 5120},
      {"feed_forward_length", 12288}, {"attention.head_count", 128},    {"attention.head_count_kv", 128},
      {"expert_used_count", 6},       {"leading_dense_block_count", 1}, {"vocab_size", 102400},
      {"attention.q_lora_rank", 1536}, {"attention.kv_lora_rank", 512}, {"attention.key_length", 192},
      {"attention.value_length", 128}, {"expert_feed_forward_length", 1536}, {"expert_count", 160},
      {"expert_shared_count", 2},     {"rope.dimension_count", 64}};
  CHECK(params_of(file(v2, false)) == count_params(v2c)->total);
  // Key widths MLA cannot be read from are named.
  auto broken = v3;
  std::erase_if(broken, [](const auto& kv) { return kv.first == "rope.dimension_count"; });
  auto h = read_gguf_header(file(broken, false), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE_FALSE(c.ok());
  CHECK(c.issues().front().field == "deepseek2.attention.key_length_mla");
}

TEST_CASE("GGUF: GLM-4.5 (glm4moe) with its multi-token-prediction layer", "[core][gguf]") {
  // GLM-4.5-Air's counts as ggml-org/llama.cpp PR #15026 lists them from its config.json ("hidden
  // size: 4096", "intermediate size (FFN): 10944", "moe_intermediate_size (expert size): 1408",
  // "n_routed_experts (conditional experts): 128", "first_k_dense_replace …: 1", "num_hidden_layers
  // …: 46", "num_attention_heads: 96", "num_key_value_heads: 8", "head dim: 128", "partial rotary
  // factor: 0.5"), in the keys a GLM file writes (ikawrakow/ik_llama.cpp issue #1162, GLM-4.7:
  // "glm4moe.rope.dimension_count u32 = 64", "glm4moe.expert_shared_count u32 = 1",
  // "glm4moe.nextn_predict_layers u32 = 1"): block_count counts the MTP layer.
  llmsize::test::GgufWriter g;
  const std::pair<const char*, std::uint32_t> keys[] = {
      {"glm4moe.block_count", 47},           {"glm4moe.context_length", 131072},   {"glm4moe.embedding_length", 4096},
      {"glm4moe.feed_forward_length", 10944}, {"glm4moe.attention.head_count", 96}, {"glm4moe.attention.head_count_kv", 8},
      {"glm4moe.attention.key_length", 128}, {"glm4moe.rope.dimension_count", 64}, {"glm4moe.expert_count", 128},
      {"glm4moe.expert_used_count", 8},      {"glm4moe.expert_feed_forward_length", 1408},
      {"glm4moe.expert_shared_count", 1},    {"glm4moe.leading_dense_block_count", 1},
      {"glm4moe.nextn_predict_layers", 1},   {"glm4moe.vocab_size", 151552},       {"glm4moe.expert_gating_func", 2}};
  g.header(3, 2, std::size(keys) + 1);
  g.key_str("general.architecture", "glm4moe");
  for (const auto& [k, v] : keys) g.key_u32(k, v);
  g.tensor("output.weight", {4096, 151552}, 1, 0);  // not tied
  g.tensor("blk.0.attn_q.bias", {12288}, 0, 4096ull * 151552 * 2);  // biases on q, k, v; no q/k norms
  auto h = read_gguf_header(g.b, 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  INFO(join(c.issues()));
  REQUIRE(c.ok());
  const ModelConfig air = llmsize::test::preset("glm-4.5-air").config;
  CHECK(c->config.n_layers == 46);
  CHECK(c->config.mtp_layers == air.mtp_layers);
  CHECK(count_params(c->config)->total == count_params(air)->total);
}

namespace {
// One shard of a split model as gguf-split writes it: split.no, split.count (u16) and
// split.tensors.count (i32), the first shard with the metadata, each with its own tensors.
std::string shard_of(int no, int count, int total, std::vector<std::string> tensors, bool meta) {
  Gguf g;
  g.header(3, tensors.size(), 3 + (meta ? 1 : 0));
  if (meta) g.key_str("general.architecture", "llama");
  g.str("split.no"), g.u32(2), g.u16(static_cast<std::uint16_t>(no));
  g.str("split.count"), g.u32(2), g.u16(static_cast<std::uint16_t>(count));
  g.str("split.tensors.count"), g.u32(5), g.u32(static_cast<std::uint32_t>(total));
  std::uint64_t offset = 0;
  for (const auto& t : tensors) g.tensor(t, {64}, 0, offset), offset += 256;
  return g.b;
}
GgufHeader header_of(const std::string& b) {
  auto h = read_gguf_header(b, 0);
  REQUIRE(h.ok());
  return std::move(h).value();
}
}  // namespace

TEST_CASE("GGUF: a model split over files is one model once every file is read", "[core][gguf][split]") {
  // llama.cpp's gguf-split names: "<prefix>-%05d-of-%05d.gguf" (llama_split_path).
  CHECK(gguf_shard_paths("/m/DeepSeek-R1-Q4_K_M-00002-of-00003.gguf", 3) ==
        std::vector<std::string>{"/m/DeepSeek-R1-Q4_K_M-00001-of-00003.gguf", "/m/DeepSeek-R1-Q4_K_M-00002-of-00003.gguf",
                                 "/m/DeepSeek-R1-Q4_K_M-00003-of-00003.gguf"});
  CHECK(gguf_shard_paths("/m/model-00001-of-00003.gguf", 4).empty());  // the name says 3
  CHECK(gguf_shard_paths("/m/model.gguf", 3).empty());
  const GgufHeader a = header_of(shard_of(0, 3, 5, {"token_embd.weight", "blk.0.attn_q.weight"}, true)),
                   b = header_of(shard_of(1, 3, 5, {"blk.0.attn_k.weight", "blk.0.attn_v.weight"}, false)),
                   c = header_of(shard_of(2, 3, 5, {"output.weight"}, false));
  REQUIRE(gguf_split(a));
  CHECK(gguf_split(a)->count == 3);
  CHECK(gguf_split(b)->no == 1);
  CHECK_FALSE(gguf_split(header_of(shard_of(0, 1, 1, {"w"}, true))));  // split.count 1: one file
  // In any order: the first file's metadata, every file's tensors.
  auto m = merge_gguf_shards({c, a, b});
  INFO(join(m.issues()));
  REQUIRE(m.ok());
  CHECK(m->shards == 3);
  CHECK(m->tensors.size() == 5);
  CHECK(m->string_of("general.architecture") == "llama");
  CHECK(m->tensor_bytes() == 5 * 256);
  CHECK(m->data_offset == a.data_offset + b.data_offset + c.data_offset);
  CHECK(gguf_json(*m).find("\"shards\":3") != std::string::npos);
  // Files that are not one model's, each once, are refused by what is wrong.
  auto refused = [](std::vector<GgufHeader> v) {
    auto r = merge_gguf_shards(std::move(v));
    REQUIRE_FALSE(r.ok());
    return r.issues().front().message;
  };
  CHECK_THAT(refused({a, b}), Catch::Contains("split.count must be 2"));
  CHECK_THAT(refused({a, b, b}), Catch::Contains("split.no 1 appears in two files"));
  CHECK_THAT(refused({a, b, header_of(shard_of(2, 3, 5, {"blk.0.attn_k.weight"}, false))}), Catch::Contains("appears in two shards"));
  CHECK_THAT(refused({a, b, header_of(shard_of(2, 3, 5, {"output.weight", "x"}, false))}),
             Catch::Contains("split.tensors.count says 5 tensors; the shards hold 6"));
  CHECK_THAT(refused({a, b, header_of(shard_of(2, 4, 5, {"output.weight"}, false))}), Catch::Contains("split.count must be 3"));
}

TEST_CASE("GGUF: Gemma 2 and Phi-3 metadata read as their models", "[core][gguf]") {
  // The keys convert_hf_to_gguf.py writes (Gemma2Model, Phi3MiniModel) with the values of the
  // checkpoints' config.json: Gemma 2 ties its head (no output.weight), Phi-3 does not.
  const Meta gemma2{"gemma2",
                    {{"block_count", 26}, {"context_length", 8192}, {"embedding_length", 2304}, {"feed_forward_length", 9216},
                     {"attention.head_count", 8}, {"attention.head_count_kv", 4}, {"attention.key_length", 256},
                     {"attention.value_length", 256}, {"attention.sliding_window", 4096}},
                    256000, false};
  CHECK(params_of(gguf_of(gemma2)) == count_params(llmsize::test::preset("gemma-2-2b").config)->total);
  const Meta phi3{"phi3",
                  {{"block_count", 32}, {"context_length", 4096}, {"embedding_length", 3072}, {"feed_forward_length", 8192},
                   {"attention.head_count", 32}, {"attention.head_count_kv", 32}, {"rope.dimension_count", 96},
                   {"attention.sliding_window", 2047}},
                  32064};
  CHECK(params_of(gguf_of(phi3)) == count_params(llmsize::test::preset("phi-3-mini").config)->total);
}

TEST_CASE("GGUF: OLMo 2 metadata read as its model", "[core][gguf]") {
  // Olmo2Model's keys (convert_hf_to_gguf.py) with OLMo-2-1124-7B's config.json values.
  const Meta olmo2{"olmo2",
                   {{"block_count", 32}, {"context_length", 4096}, {"embedding_length", 4096}, {"feed_forward_length", 11008},
                    {"attention.head_count", 32}, {"attention.head_count_kv", 32}},
                   100352};
  CHECK(params_of(gguf_of(olmo2)) == count_params(llmsize::test::preset("olmo-2-7b").config)->total);
}

TEST_CASE("GGUF: Qwen3.5 (qwen35, qwen35moe): the Gated DeltaNet from ssm.* keys, the MTP block apart", "[core][gguf]") {
  // Qwen3NextModel.set_gguf_parameters (llama.cpp conversion/qwen.py) with the checkpoints' config.json
  // values; block_count holds the MTP layer (_QwenMtpMixin), nextn_predict_layers names it.
  const std::vector<std::pair<std::string, std::uint32_t>> small{
      {"block_count", 25},           {"nextn_predict_layers", 1},   {"context_length", 262144},
      {"embedding_length", 1024},    {"feed_forward_length", 3584}, {"attention.head_count", 8},
      {"attention.head_count_kv", 2}, {"attention.key_length", 256}, {"attention.value_length", 256},
      {"rope.dimension_count", 64},  {"full_attention_interval", 4}, {"ssm.conv_kernel", 4},
      {"ssm.state_size", 128},       {"ssm.group_count", 16},       {"ssm.time_step_rank", 16},
      {"ssm.inner_size", 2048}};
  const i64 published = 752393024;  // Qwen3.5-0.8B's language model (the preset's quoted count)
  CHECK(count_params(llmsize::test::preset("qwen3.5-0.8b").config)->total == published);
  CHECK(params_of(gguf_of(Meta{"qwen35", small, 248320, false})) == published);
  auto h = read_gguf_header(gguf_of(Meta{"qwen35", small, 248320, false}), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.n_layers == 24);
  CHECK(c->config.mtp_layers == 1);
  CHECK(c->config.linear.full_interval == 4);
  // A file converted without the MTP block (no nextn_predict_layers): the same trunk.
  auto no_mtp = small;
  no_mtp.erase(no_mtp.begin() + 1);
  no_mtp.front().second = 24;
  CHECK(params_of(gguf_of(Meta{"qwen35", no_mtp, 248320, false})) == published);
  // The 397B-A17B: 512 experts of 1,024, 10 used, a shared expert of 1,024, untied.
  const Meta moe{"qwen35moe",
                 {{"block_count", 61}, {"nextn_predict_layers", 1}, {"context_length", 262144}, {"embedding_length", 4096},
                  {"attention.head_count", 32}, {"attention.head_count_kv", 2}, {"attention.key_length", 256},
                  {"attention.value_length", 256}, {"rope.dimension_count", 64}, {"full_attention_interval", 4},
                  {"ssm.conv_kernel", 4}, {"ssm.state_size", 128}, {"ssm.group_count", 16}, {"ssm.time_step_rank", 64},
                  {"ssm.inner_size", 8192}, {"expert_count", 512}, {"expert_used_count", 10},
                  {"expert_feed_forward_length", 1024}, {"expert_shared_feed_forward_length", 1024}},
                 248320};
  CHECK(params_of(gguf_of(moe)) == 396346350336);  // "language_model 396,346,350,336" (the preset's source)
  // ssm.inner_size must be the value heads × their width.
  auto bad = small;
  bad.back().second = 2000;
  auto hb = read_gguf_header(gguf_of(Meta{"qwen35", bad, 248320, false}), 0);
  REQUIRE(hb.ok());
  auto cb = gguf_config(*hb);
  REQUIRE_FALSE(cb.ok());
  CHECK(cb.issues().front().field == "qwen35.ssm.inner_size");
}

TEST_CASE("GGUF: Llama 4's dense and expert widths, chunked attention", "[core][gguf]") {
  // Llama4Model (llama.cpp conversion/llama.py) writes intermediate_size_mlp as feed_forward_length and
  // the experts' intermediate_size as expert_feed_forward_length; Llama-4-Scout's config.json values.
  const Meta scout{"llama4",
                   {{"block_count", 48}, {"context_length", 262144}, {"embedding_length", 5120},
                    {"feed_forward_length", 16384}, {"expert_feed_forward_length", 8192}, {"expert_count", 16},
                    {"expert_used_count", 1}, {"interleave_moe_layer_step", 1}, {"attention.head_count", 40},
                    {"attention.head_count_kv", 8}, {"attention.key_length", 128}, {"rope.dimension_count", 128}},
                   202048};
  // "文本骨干为 107,769,861,120" (the preset's quoted text-backbone count)
  CHECK(params_of(gguf_of(scout)) == 107769861120);
  auto h = read_gguf_header(gguf_of(scout), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.window_chunked);
  CHECK(c->config.sliding_window == 8192);
  CHECK(c->config.sliding_pattern == 4);
  // sliding_window 0 (MobileLLM's full attention) is refused by name.
  Meta mobile = scout;
  mobile.ints.push_back({"attention.sliding_window", 0});
  auto hm = read_gguf_header(gguf_of(mobile), 0);
  REQUIRE(hm.ok());
  auto cm = gguf_config(*hm);
  REQUIRE_FALSE(cm.ok());
  CHECK(cm.issues().front().field == "llama4.attention.sliding_window");
}

TEST_CASE("GGUF: Nemotron-H's block pattern from its per-layer head and feed-forward counts", "[core][gguf]") {
  // NemotronHModel.set_gguf_parameters (llama.cpp conversion/nemotron.py): head_count_kv for the attention
  // layers and feed_forward_length for the MLP ('-') or expert ('E') layers, 0 elsewhere (Mamba-2);
  // the checkpoints' hybrid_override_pattern and sizes.
  auto arrays = [](const std::string& pattern, std::uint32_t kv, std::uint32_t ff, char mlp) {
    std::vector<std::uint32_t> a, f;
    for (char ch : pattern) a.push_back(ch == '*' ? kv : 0), f.push_back(ch == mlp ? ff : 0);
    return std::vector<std::pair<std::string, std::vector<std::uint32_t>>>{{"attention.head_count_kv", a},
                                                                           {"feed_forward_length", f}};
  };
  const std::string nano9 = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
  const Meta dense{"nemotron_h",
                   {{"block_count", 56}, {"context_length", 131072}, {"embedding_length", 4480}, {"attention.head_count", 40},
                    {"attention.key_length", 128}, {"attention.value_length", 128}, {"ssm.conv_kernel", 4},
                    {"ssm.state_size", 128}, {"ssm.group_count", 8}, {"ssm.time_step_rank", 128}, {"ssm.inner_size", 10240}},
                   131072, true, arrays(nano9, 8, 15680, '-')};
  CHECK(params_of(gguf_of(dense)) == count_params(llmsize::test::preset("nemotron-nano-9b-v2").config)->total);
  CHECK(params_of(gguf_of(dense)) == 8888227328);  // the preset's published count
  const std::string nano30 = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  const Meta moe{"nemotron_h_moe",
                 {{"block_count", 52}, {"context_length", 262144}, {"embedding_length", 2688}, {"attention.head_count", 32},
                  {"attention.key_length", 128}, {"attention.value_length", 128}, {"ssm.conv_kernel", 4},
                  {"ssm.state_size", 128}, {"ssm.group_count", 8}, {"ssm.time_step_rank", 64}, {"ssm.inner_size", 4096},
                  {"expert_count", 128}, {"expert_used_count", 6}, {"expert_feed_forward_length", 1856},
                  {"expert_shared_feed_forward_length", 3712}, {"expert_shared_count", 1}},
                 131072, true, arrays(nano30, 2, 1856, 'E')};
  CHECK(params_of(gguf_of(moe)) == count_params(llmsize::test::preset("nemotron-3-nano-30b-a3b").config)->total);
  // A per-layer count that is not one per layer is refused by name.
  Meta short_array = dense;
  short_array.arrays.back().second.pop_back();
  auto hs = read_gguf_header(gguf_of(short_array), 0);
  REQUIRE(hs.ok());
  auto cs = gguf_config(*hs);
  REQUIRE_FALSE(cs.ok());
  CHECK(cs.issues().front().field == "nemotron_h.feed_forward_length");
}

TEST_CASE("GGUF: Granite 4.0-H's Mamba-2 and attention layers from the per-layer head_count_kv", "[core][gguf]") {
  // GraniteHybridModel.set_gguf_parameters (llama.cpp conversion/granite.py) with granite-4.0-h-small's
  // config.json: 72 experts of 768 (feed_forward_length), 10 used, a shared MLP of 1536, tied, no rope.
  std::vector<std::uint32_t> kv;
  for (char ch : std::string("MMMMM*MMMMMMMMM*MMMMMMMMM*MMMMMMMMM*MMMM")) kv.push_back(ch == '*' ? 8 : 0);
  const Meta small{"granitehybrid",
                   {{"block_count", 40}, {"context_length", 131072}, {"embedding_length", 4096}, {"feed_forward_length", 768},
                    {"attention.head_count", 32}, {"expert_count", 72}, {"expert_used_count", 10},
                    {"expert_shared_feed_forward_length", 1536}, {"ssm.conv_kernel", 4}, {"ssm.state_size", 128},
                    {"ssm.group_count", 1}, {"ssm.time_step_rank", 128}, {"ssm.inner_size", 8192}},
                   100352, false, {{"attention.head_count_kv", kv}}};
  CHECK(params_of(gguf_of(small)) == 32207337984);  // the preset's published count
  CHECK(params_of(gguf_of(small)) == count_params(llmsize::test::preset("granite-4.0-h-small").config)->total);
}

TEST_CASE("GGUF: Granite 3.x (granite): LLaMA's keys and the four scales", "[core][gguf]") {
  // GraniteModel.set_gguf_parameters (conversion/granite.py) with ibm-granite/granite-3.3-8b-instruct's
  // config.json (the granite-3.3-8b preset): tied, so no output.weight.
  const Meta g{"granite",
               {{"block_count", 40}, {"context_length", 131072}, {"embedding_length", 4096}, {"feed_forward_length", 12800},
                {"attention.head_count", 32}, {"attention.head_count_kv", 8}, {"rope.dimension_count", 128}},
               49159, false, {}, {}, {},
               {{"embedding_scale", 12.0f}, {"residual_scale", 0.22f}, {"attention.scale", 0.0078125f}, {"logit_scale", 16.0f}}};
  const ModelConfig hf = llmsize::test::preset("granite-3.3-8b").config;
  CHECK(params_of(gguf_of(g)) == 8'170'864'640);
  CHECK(params_of(gguf_of(g)) == count_params(hf)->total);
  auto h = read_gguf_header(gguf_of(g), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.family == Family::Granite);
  CHECK(c->config.embed_mult == 12.0);
  CHECK(c->config.residual_mult == Approx(0.22));
  CHECK(c->config.attn_mult == 0.0078125);
  CHECK(c->config.logits_div == 16.0);
}

TEST_CASE("GGUF: Qwen3-Next (qwen3next), Qwen3.5's keys with experts in every layer", "[core][gguf]") {
  const Meta next{"qwen3next",
                  {{"block_count", 49}, {"nextn_predict_layers", 1}, {"context_length", 262144}, {"embedding_length", 2048},
                   {"feed_forward_length", 5120}, {"attention.head_count", 16}, {"attention.head_count_kv", 2},
                   {"attention.key_length", 256}, {"attention.value_length", 256}, {"rope.dimension_count", 64},
                   {"full_attention_interval", 4}, {"ssm.conv_kernel", 4}, {"ssm.state_size", 128}, {"ssm.group_count", 16},
                   {"ssm.time_step_rank", 32}, {"ssm.inner_size", 4096}, {"expert_count", 512}, {"expert_used_count", 10},
                   {"expert_feed_forward_length", 512}, {"expert_shared_feed_forward_length", 512}},
                  151936};
  // "79,674,391,296 without it [the mtp.* layer], the n_params llama.cpp prints for this architecture"
  CHECK(params_of(gguf_of(next)) == 79674391296);
}

TEST_CASE("GGUF: StarCoder2 metadata read as its model", "[core][gguf]") {
  // StarCoder2Model's keys (convert_hf_to_gguf.py) with bigcode/starcoder2-15b's config.json values:
  // "| Num parameters | 15,957,889,024 parameters (safetensors metadata) |" (the preset's source).
  const Meta sc2{"starcoder2",
                 {{"block_count", 40}, {"context_length", 16384}, {"embedding_length", 6144}, {"feed_forward_length", 24576},
                  {"attention.head_count", 48}, {"attention.head_count_kv", 4}},
                 49152};
  CHECK(params_of(gguf_of(sc2)) == 15957889024);
}

TEST_CASE("GGUF: LFM2's convolution and attention layers from the per-layer head_count_kv", "[core][gguf]") {
  // LFM2-1.2B as llama.cpp reads it (src/models/lfm2.cpp): attention at layers 2, 5, 8, 10, 12, 14 (head_count_kv 8,
  // else 0), feed_forward_length the MLP as built (8192: Lfm2MLP's 2/3 of block_ff_dim 12288), conv_L_cache 3, tied.
  std::vector<std::uint32_t> kv(16, 0);
  for (int i : {2, 5, 8, 10, 12, 14}) kv[static_cast<size_t>(i)] = 8;
  const Meta lfm{"lfm2",
                 {{"block_count", 16}, {"context_length", 128000}, {"embedding_length", 2048}, {"feed_forward_length", 8192},
                  {"attention.head_count", 32}, {"shortconv.l_cache", 3}},
                 65536, false, {{"attention.head_count_kv", kv}}};
  CHECK(params_of(gguf_of(lfm)) == count_params(llmsize::test::preset("lfm2-1.2b").config)->total);
  CHECK(params_of(gguf_of(lfm)) == 1170340608);  // the model card's "| **Parameters** | … | 1,170,340,608 |"
}

TEST_CASE("GGUF: SmolLM3, ERNIE 4.5 MoE, MiniMax-M2 and Mistral Small 3.1 (mistral3 or llama) read as their models", "[core][gguf]") {
  // SmolLM3Model (conversion/llama.py: LlamaModel's keys) with HuggingFaceTB/SmolLM3-3B's config.json: no
  // head_dim (d / H = 128), tied (no output.weight).
  const Meta smol{"smollm3",
                  {{"block_count", 36}, {"context_length", 65536}, {"embedding_length", 2048}, {"feed_forward_length", 11008},
                   {"attention.head_count", 16}, {"attention.head_count_kv", 4}, {"vocab_size", 128256},
                   {"rope.dimension_count", 128}},
                  128256, false};
  CHECK(params_of(gguf_of(smol)) == 3075098624);  // the preset's published count
  CHECK(params_of(gguf_of(smol)) == count_params(llmsize::test::preset("smollm3-3b").config)->total);
  // Ernie4_5MoeModel.set_gguf_parameters (conversion/ernie.py) with ERNIE-4.5-21B-A3B's config.json; the
  // shared width written is intermediate_size / num_key_value_heads = 3,072 (= 2 × 1,536), tied.
  Meta ernie{"ernie4_5-moe",
             {{"block_count", 28}, {"context_length", 131072}, {"embedding_length", 2560}, {"feed_forward_length", 12288},
              {"attention.head_count", 20}, {"attention.head_count_kv", 4}, {"expert_count", 64}, {"expert_used_count", 6},
              {"interleave_moe_layer_step", 1}, {"leading_dense_block_count", 1}, {"expert_feed_forward_length", 1536},
              {"expert_shared_count", 2}, {"expert_shared_feed_forward_length", 3072}},
             103424, false};
  CHECK(params_of(gguf_of(ernie)) == 21825437888);  // "total":21825437888 (the preset's source)
  CHECK(params_of(gguf_of(ernie)) == count_params(llmsize::test::preset("ernie-4.5-21b-a3b").config)->total);
  // The first files (2025-07-17) wrote only the shared width: the count is the width over the expert width.
  Meta first = ernie;
  std::erase_if(first.ints, [](const auto& kv) { return kv.first == "expert_shared_count"; });
  first.tensors = {"blk.1.ffn_up_shexp.weight"};
  CHECK(params_of(gguf_of(first)) == 21825437888);
  // Without expert_shared_count and without ffn_*_shexp tensors: no shared experts (not the class's 2).
  std::erase_if(ernie.ints, [](const auto& kv) { return kv.first.rfind("expert_shared", 0) == 0; });
  CHECK(params_of(gguf_of(ernie)) == 21825437888 - 27LL * 3 * 2560 * 3072);
  // MiniMax-M2 as llama.cpp's loader dumps it (ik_llama.cpp issue #1201: "minimax-m2.expert_count u32 = 256",
  // "expert_used_count u32 = 8", "expert_gating_func u32 = 2", "attention.key_length u32 = 128",
  // "expert_feed_forward_length u32 = 1536", "rope.dimension_count u32 = 64", "tokenizer.ggml.tokens arr[str,200064]");
  // the other counts from its config.json.
  Meta minimax{"minimax-m2",
               {{"block_count", 62}, {"context_length", 196608}, {"embedding_length", 3072}, {"feed_forward_length", 1536},
                {"attention.head_count", 48}, {"attention.head_count_kv", 8}, {"expert_count", 256},
                {"expert_used_count", 8}, {"expert_gating_func", 2}, {"attention.key_length", 128},
                {"attention.value_length", 128}, {"expert_feed_forward_length", 1536}, {"rope.dimension_count", 64}},
               200064};
  CHECK(params_of(gguf_of(minimax)) == 228689764864);  // the preset's published count
  minimax.ints.back().second = 128;  // all of the head rotated: the rotary share is the file's
  auto hm = read_gguf_header(gguf_of(minimax), 0);
  REQUIRE(hm.ok());
  auto cm = gguf_config(*hm);
  REQUIRE(cm.ok());
  CHECK(cm->config.rotary_fraction == 1.0);
  // Mistral-Small-3.1-24B's text_config as Ministral3Model (conversion/mistral3.py) writes it: "mistral3" since
  // llama.cpp of 2026-03-17, "llama" before; head_dim 128 (not 5,120 / 32).
  Meta small{"mistral3",
             {{"block_count", 40}, {"context_length", 131072}, {"embedding_length", 5120}, {"feed_forward_length", 32768},
              {"attention.head_count", 32}, {"attention.head_count_kv", 8}, {"attention.key_length", 128},
              {"attention.value_length", 128}, {"vocab_size", 131072}, {"rope.dimension_count", 128}},
             131072};
  CHECK(params_of(gguf_of(small)) == 23572403200);
  CHECK(params_of(gguf_of(small)) == count_params(llmsize::test::preset("mistral-small-24b").config)->total);
  small.arch = "llama";
  CHECK(params_of(gguf_of(small)) == 23572403200);
}

TEST_CASE("GGUF: Llama-Nemotron NAS (deci): per-layer head counts and FFN widths, layers without either", "[core][gguf]") {
  // DeciModel.set_gguf_parameters (conversion/deci.py) with Llama-3.3-Nemotron-Super-49B's block_configs, as
  // ollama/ollama issue #11471's file has them: "deci.attention.head_count_kv arr[i32,80] = [8, 8, 8, 8, 8, 8, 0,
  // 0, 8, 8, 8, 0, ...", "deci.attention.head_count arr[i32,80] = [64, 64, 64, 64, 64, 64, 0, 0, 64, 64...",
  // "deci.feed_forward_length arr[i32,80] = [14336, 28672, 28672, 28672, 28672, 2..."; key_length 128,
  // vocab_size 128256 (ggml-org/llama.cpp issue #14752). The rest of the arrays from the preset's block_configs.
  const ModelConfig preset = llmsize::test::preset("llama-3.3-nemotron-super-49b").config;
  REQUIRE(preset.layer_kv_heads.size() == 80);
  std::vector<std::uint32_t> heads, kv, ff;
  for (size_t i = 0; i < 80; ++i) {
    heads.push_back(preset.layer_kv_heads[i] > 0 ? 64 : 0);
    kv.push_back(static_cast<std::uint32_t>(preset.layer_kv_heads[i]));
    ff.push_back(static_cast<std::uint32_t>(preset.layer_ffn[i]));
  }
  CHECK(std::vector<std::uint32_t>(kv.begin(), kv.begin() + 12) == std::vector<std::uint32_t>{8, 8, 8, 8, 8, 8, 0, 0, 8, 8, 8, 0});
  CHECK(std::vector<std::uint32_t>(ff.begin(), ff.begin() + 5) == std::vector<std::uint32_t>{14336, 28672, 28672, 28672, 28672});
  const Meta super{"deci",
                   {{"block_count", 80}, {"context_length", 131072}, {"embedding_length", 8192}, {"attention.key_length", 128},
                    {"attention.value_length", 128}, {"vocab_size", 128256}, {"rope.dimension_count", 128}},
                   128256, true, {{"attention.head_count", heads}, {"attention.head_count_kv", kv}, {"feed_forward_length", ff}}};
  CHECK(params_of(gguf_of(super)) == 49867145216);  // the preset's published count
  auto h = read_gguf_header(gguf_of(super), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.layer_kv_heads == preset.layer_kv_heads);
  CHECK(c->config.layer_ffn == preset.layer_ffn);
  // A linear replacement (head_count 64 with head_count_kv 0: Llama-3.1-Nemotron-51B) is refused by name, as
  // are widths no ffn_mult gives and one width for all layers (DeciLM-7B).
  auto refused = [](const Meta& m) {
    auto hr = read_gguf_header(gguf_of(m), 0);
    REQUIRE(hr.ok());
    auto cr = gguf_config(*hr);
    REQUIRE_FALSE(cr.ok());
    return cr.issues().front();
  };
  Meta linear = super;
  linear.arrays[0].second[6] = 64;
  CHECK(refused(linear).field == "deci.attention.head_count_kv");
  Meta odd = super;
  odd.arrays[2].second[1] = 28000;
  CHECK(refused(odd).field == "deci.feed_forward_length");
  Meta scalar = super;
  scalar.arrays.pop_back();
  scalar.ints.push_back({"feed_forward_length", 28672});
  CHECK(refused(scalar).field == "deci.feed_forward_length");
}

TEST_CASE("GGUF: DeepSeek-V3.2 (deepseek32) with its lightning indexer and MTP block", "[core][gguf]") {
  // DeepseekV32Model.set_gguf_parameters (conversion/deepseek.py): deepseek2's keys in the MLA layout, the MTP
  // block in block_count (61 + 1), attention.indexer.* from index_n_heads 64, index_head_dim 128, index_topk 2048.
  Meta v32{"deepseek32",
           {{"block_count", 62}, {"nextn_predict_layers", 1}, {"context_length", 163840}, {"embedding_length", 7168},
            {"feed_forward_length", 18432}, {"attention.head_count", 128}, {"attention.head_count_kv", 1},
            {"expert_used_count", 8}, {"expert_count", 256}, {"expert_shared_count", 1}, {"leading_dense_block_count", 3},
            {"vocab_size", 129280}, {"attention.q_lora_rank", 1536}, {"attention.kv_lora_rank", 512},
            {"attention.key_length", 576}, {"attention.value_length", 512}, {"attention.key_length_mla", 192},
            {"attention.value_length_mla", 128}, {"expert_feed_forward_length", 2048}, {"expert_gating_func", 2},
            {"rope.dimension_count", 64}, {"attention.indexer.head_count", 64}, {"attention.indexer.key_length", 128},
            {"attention.indexer.top_k", 2048}},
           129280};
  CHECK(params_of(gguf_of(v32)) == count_params(llmsize::test::preset("deepseek-v3.2").config)->total);  // 671,877,944,064
  auto h = read_gguf_header(gguf_of(v32), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.family == Family::DeepseekV32);
  CHECK(c->config.mtp_layers == 1);
  CHECK(c->config.mla.index_heads == 64);
  CHECK(c->config.mla.index_dim == 128);
  CHECK(c->config.mla.index_topk == 2048);
  // The indexer's sizes are required (deepseek32.cpp reads them without a default).
  std::erase_if(v32.ints, [](const auto& kv) { return kv.first == "attention.indexer.head_count"; });
  auto hb = read_gguf_header(gguf_of(v32), 0);
  REQUIRE(hb.ok());
  auto cb = gguf_config(*hb);
  REQUIRE_FALSE(cb.ok());
  CHECK(cb.issues().front().field == "deepseek32.attention.indexer.head_count");
}

TEST_CASE("GGUF: GLM-5 (glm-dsa) as DeepSeek-V3.2's layout at GLM's sizes, its nextn layer in block_count", "[core][gguf]") {
  // GlmMoeDsaModel(DeepseekV2Model).set_gguf_parameters (convert_hf_to_gguf.py): block_count = num_hidden_layers +
  // num_nextn_predict_layers (78 + 1), the MLA layout (key_length 576, value_length 512, the _mla widths 256 and
  // 256), attention.indexer.* from index_n_heads 32, index_head_dim 128, index_topk 2048 (a GLM-5.2 file's
  // metadata: "glm-dsa.block_count = 79", "attention.indexer.head_count = 32", "attention.key_length_mla = 256").
  Meta glm{"glm-dsa",
           {{"block_count", 79}, {"nextn_predict_layers", 1}, {"context_length", 202752}, {"embedding_length", 6144},
            {"feed_forward_length", 12288}, {"attention.head_count", 64}, {"attention.head_count_kv", 1},
            {"expert_used_count", 8}, {"expert_count", 256}, {"expert_shared_count", 1}, {"leading_dense_block_count", 3},
            {"vocab_size", 154880}, {"attention.q_lora_rank", 2048}, {"attention.kv_lora_rank", 512},
            {"attention.key_length", 576}, {"attention.value_length", 512}, {"attention.key_length_mla", 256},
            {"attention.value_length_mla", 256}, {"expert_feed_forward_length", 2048}, {"expert_gating_func", 2},
            {"rope.dimension_count", 64}, {"attention.indexer.head_count", 32}, {"attention.indexer.key_length", 128},
            {"attention.indexer.top_k", 2048}},
           154880};
  CHECK(params_of(gguf_of(glm)) == count_params(llmsize::test::preset("glm-5").config)->total);  // 743,911,218,432
  auto h = read_gguf_header(gguf_of(glm), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.family == Family::GlmMoeDsa);
  CHECK(c->config.n_layers == 78);
  CHECK(c->config.mtp_layers == 1);
  CHECK(c->config.mla.qk_nope_dim == 192);
  CHECK(c->config.mla.v_head_dim == 256);
  CHECK(c->config.mla.index_heads == 32);
  CHECK(count_params(c->config)->mtp == count_params(llmsize::test::preset("glm-5").config)->mtp);
  // The indexer's sizes are required, as for deepseek32.
  std::erase_if(glm.ints, [](const auto& kv) { return kv.first == "attention.indexer.top_k"; });
  auto hb = read_gguf_header(gguf_of(glm), 0);
  REQUIRE(hb.ok());
  auto cb = gguf_config(*hb);
  REQUIRE_FALSE(cb.ok());
  CHECK(cb.issues().front().field == "glm-dsa.attention.indexer.top_k");
}

TEST_CASE("GGUF: Jamba's Mamba-1, attention and expert layers from head_count_kv and the ffn_gate_inp tensors", "[core][gguf]") {
  // JambaModel.set_gguf_parameters (llama.cpp conversion/jamba.py) with AI21-Jamba-1.5-Mini's config.json: head_count_kv 8 at
  // i % 8 == 4, else 0; no expert_layer_* key: jamba.cpp gives a layer experts where the file holds its ffn_gate_inp (odd layers).
  std::vector<std::uint32_t> kv(32, 0);
  std::vector<std::string> tensors{"blk.0.ssm_conv1d.bias"};  // mamba_conv_bias
  for (int i = 0; i < 32; ++i) {
    if (i % 8 == 4) kv[static_cast<size_t>(i)] = 8;
    if (i % 2 == 1) tensors.push_back("blk." + std::to_string(i) + ".ffn_gate_inp.weight");
  }
  const Meta jamba{"jamba",
                   {{"block_count", 32}, {"context_length", 262144}, {"embedding_length", 4096}, {"feed_forward_length", 14336},
                    {"attention.head_count", 32}, {"ssm.conv_kernel", 4}, {"ssm.inner_size", 8192}, {"ssm.state_size", 16},
                    {"ssm.time_step_rank", 256}, {"expert_count", 16}, {"expert_used_count", 2}},
                   65536, true, {{"attention.head_count_kv", kv}}, {}, tensors};
  CHECK(params_of(gguf_of(jamba)) == 51570323328);  // the preset's published count
  CHECK(params_of(gguf_of(jamba)) == count_params(llmsize::test::preset("jamba-1.5-mini").config)->total);
  // Attention (or expert) layers that are not every n-th from the first are refused by the key.
  auto refused = [](const Meta& m) {
    auto h = read_gguf_header(gguf_of(m), 0);
    REQUIRE(h.ok());
    auto c = gguf_config(*h);
    REQUIRE_FALSE(c.ok());
    return c.issues().front().field;
  };
  Meta odd = jamba;
  odd.arrays.front().second[13] = 8;
  CHECK(refused(odd) == "jamba.attention.head_count_kv");
  Meta experts = jamba;
  experts.tensors.push_back("blk.2.ffn_gate_inp.weight");
  CHECK(refused(experts) == "jamba.expert_count");
}

TEST_CASE("GGUF: Falcon-H1's Mamba-2 beside attention in every layer", "[core][gguf]") {
  // FalconH1Model over Mamba2Model.set_gguf_parameters (llama.cpp conversion/falcon_h1.py, mamba.py) with
  // Falcon-H1-0.5B's config.json: mamba_d_ssm 1536 = 24 heads × 64, 1 group, state 128, conv 4, conv bias, no gated norm.
  const Meta falcon{"falcon-h1",
                    {{"block_count", 36}, {"context_length", 16384}, {"embedding_length", 1024}, {"feed_forward_length", 2048},
                     {"attention.head_count", 8}, {"attention.head_count_kv", 2}, {"attention.key_length", 64},
                     {"attention.value_length", 64}, {"ssm.conv_kernel", 4}, {"ssm.inner_size", 1536}, {"ssm.state_size", 128},
                     {"ssm.time_step_rank", 24}, {"ssm.group_count", 1}, {"vocab_size", 32784}},
                    32784, true, {}, {}, {"blk.0.ssm_conv1d.bias"}};
  CHECK(params_of(gguf_of(falcon)) == 521411104);  // the preset's published count
  CHECK(params_of(gguf_of(falcon)) == count_params(llmsize::test::preset("falcon-h1-0.5b").config)->total);
}

TEST_CASE("GGUF: Gemma 4's sliding pattern, head widths, KV-shared layers and per-layer embeddings", "[core][gguf]") {
  // Gemma4Model.set_gguf_parameters (llama.cpp conversion/gemma.py): key_length the full layers' head (global_head_dim 512),
  // key_length_swa the sliding layers' (256), sliding_window_pattern per layer (every 6th full), shared_kv_layers,
  // embedding_length_per_layer_input; V is K on full layers where the file has no attn_v (attention_k_eq_v).
  auto pattern = [](int layers) {
    std::vector<bool> swa;
    for (int i = 0; i < layers; ++i) swa.push_back((i + 1) % 6 != 0);
    return swa;
  };
  // gemma-4-E4B: one KV head count (num_global_key_value_heads null), 18 KV-shared layers, 256-wide per-layer embeddings.
  const Meta e4b{"gemma4",
                 {{"block_count", 42}, {"context_length", 131072}, {"embedding_length", 2560}, {"feed_forward_length", 10240},
                  {"attention.head_count", 8}, {"attention.head_count_kv", 2}, {"attention.key_length", 512},
                  {"attention.value_length", 512}, {"attention.key_length_swa", 256}, {"attention.value_length_swa", 256},
                  {"attention.sliding_window", 512}, {"attention.shared_kv_layers", 18}, {"embedding_length_per_layer_input", 256}},
                 262144, false, {}, {{"attention.sliding_window_pattern", pattern(42)}},
                 {"blk.5.attn_k.weight", "blk.5.attn_v.weight"}};
  CHECK(params_of(gguf_of(e4b)) == 7463013376);  // the preset's published count
  CHECK(params_of(gguf_of(e4b)) == count_params(llmsize::test::preset("gemma-4-e4b").config)->total);
  // gemma-4-31B: head_count_kv per layer (16 sliding, 4 full), no attn_v on full layers (V is K), no per-layer embeddings.
  std::vector<std::uint32_t> kv;
  for (bool s : pattern(60)) kv.push_back(s ? 16 : 4);
  const Meta big{"gemma4",
                 {{"block_count", 60}, {"context_length", 262144}, {"embedding_length", 5376}, {"feed_forward_length", 21504},
                  {"attention.head_count", 32}, {"attention.key_length", 512}, {"attention.value_length", 512},
                  {"attention.key_length_swa", 256}, {"attention.value_length_swa", 256}, {"attention.sliding_window", 1024},
                  {"attention.shared_kv_layers", 0}, {"embedding_length_per_layer_input", 0}},
                 262144, false, {{"attention.head_count_kv", kv}}, {{"attention.sliding_window_pattern", pattern(60)}},
                 {"blk.5.attn_k.weight"}};
  CHECK(params_of(gguf_of(big)) == 30697345280);  // the preset's published count
  CHECK(params_of(gguf_of(big)) == count_params(llmsize::test::preset("gemma-4-31b").config)->total);
  // use_double_wide_mlp: feed_forward_length per layer, the KV-shared layers 2×.
  Meta wide = e4b;
  std::erase_if(wide.ints, [](const auto& x) { return x.first == "feed_forward_length"; });
  std::vector<std::uint32_t> ff(42, 10240);
  for (size_t i = 24; i < 42; ++i) ff[i] = 20480;
  wide.arrays.push_back({"feed_forward_length", ff});
  ModelConfig doubled = llmsize::test::preset("gemma-4-e4b").config;
  doubled.double_wide = true;
  CHECK(params_of(gguf_of(wide)) == count_params(doubled)->total);
  // Without the first full layer's attn_k, whether V is K is refused by the tensor's name.
  Meta bare = e4b;
  bare.tensors.clear();
  auto h = read_gguf_header(gguf_of(bare), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE_FALSE(c.ok());
  CHECK(c.issues().front().field == "blk.5.attn_k.weight");
  // gemma-4-26B-A4B: 128 experts of 704 (8 a token) beside each layer's dense FFN of 2112, head_count_kv per
  // layer (8 sliding, 2 full), no attn_v on full layers.
  std::vector<std::uint32_t> kv26;
  for (bool s : pattern(30)) kv26.push_back(s ? 8 : 2);
  const Meta moe{"gemma4",
                 {{"block_count", 30}, {"context_length", 262144}, {"embedding_length", 2816}, {"feed_forward_length", 2112},
                  {"attention.head_count", 16}, {"attention.key_length", 512}, {"attention.value_length", 512},
                  {"attention.key_length_swa", 256}, {"attention.value_length_swa", 256}, {"attention.sliding_window", 1024},
                  {"attention.shared_kv_layers", 0}, {"embedding_length_per_layer_input", 0}, {"expert_count", 128},
                  {"expert_used_count", 8}, {"expert_feed_forward_length", 704}},
                 262144, false, {{"attention.head_count_kv", kv26}}, {{"attention.sliding_window_pattern", pattern(30)}},
                 {"blk.5.attn_k.weight"}};
  CHECK(params_of(gguf_of(moe)) == 25233141760);  // the preset's published count
  // Without expert_used_count, the experts a token uses are unknown: refused by name.
  Meta no_k = moe;
  std::erase_if(no_k.ints, [](const auto& x) { return x.first == "expert_used_count"; });
  auto hm = read_gguf_header(gguf_of(no_k), 0);
  REQUIRE(hm.ok());
  const auto cm = gguf_config(*hm);
  REQUIRE_FALSE(cm.ok());
  CHECK(cm.issues().front().field == "gemma4.expert_used_count");
}

TEST_CASE("GGUF: Gemma, Phi-2, GPT-NeoX, GPT-2, StarCoder and BLOOM metadata read as their models", "[core][gguf]") {
  // The keys each converter writes (llama.cpp conversion/gemma.py GemmaModel, phi.py Phi2Model, gptneox.py,
  // gpt2.py, starcoder.py, bloom.py set_gguf_parameters) with the checkpoints' config.json values.
  auto total = [](const char* preset) { return count_params(llmsize::test::preset(preset).config)->total; };
  const Meta gemma{"gemma",
                   {{"block_count", 28}, {"context_length", 8192}, {"embedding_length", 3072}, {"feed_forward_length", 24576},
                    {"attention.head_count", 16}, {"attention.head_count_kv", 16}, {"attention.key_length", 256},
                    {"attention.value_length", 256}},
                   256000, false};  // GemmaModel drops lm_head: tied
  CHECK(params_of(gguf_of(gemma)) == 8537680896);
  CHECK(params_of(gguf_of(gemma)) == total("gemma-7b"));
  // Phi-2: feed_forward_length 4 × n_embd, rope.dimension_count int(0.4 · 2560) / 32 = 32 of an 80-wide head.
  const Meta phi2{"phi2",
                  {{"block_count", 32}, {"context_length", 2048}, {"embedding_length", 2560}, {"feed_forward_length", 10240},
                   {"attention.head_count", 32}, {"attention.head_count_kv", 32}, {"rope.dimension_count", 32}},
                  51200};
  CHECK(params_of(gguf_of(phi2)) == 2779683840);
  CHECK(params_of(gguf_of(phi2)) == total("phi-2"));
  auto h = read_gguf_header(gguf_of(phi2), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.rotary_fraction == Approx(0.4));
  CHECK(c->config.bias_lm_head);
  // GPT-NeoX: no head_count_kv (K = H), rope.dimension_count int(0.25 · head).
  const Meta pythia{"gptneox",
                    {{"block_count", 12}, {"context_length", 2048}, {"embedding_length", 768}, {"feed_forward_length", 3072},
                     {"rope.dimension_count", 16}, {"attention.head_count", 12}},
                    50304};
  CHECK(params_of(gguf_of(pythia)) == 162322944);
  CHECK(params_of(gguf_of(pythia)) == total("pythia-160m"));
  const Meta neox{"gptneox",
                  {{"block_count", 44}, {"context_length", 2048}, {"embedding_length", 6144}, {"feed_forward_length", 24576},
                   {"rope.dimension_count", 24}, {"attention.head_count", 64}},
                  50432};
  CHECK(params_of(gguf_of(neox)) == 20554567680);
  CHECK(params_of(gguf_of(neox)) == total("gpt-neox-20b"));
  // GPT-2: context_length n_ctx (the learned position rows), feed_forward_length 4 × n_embd, no head_count_kv; tied.
  const Meta gpt2{"gpt2",
                  {{"block_count", 12}, {"context_length", 1024}, {"embedding_length", 768}, {"feed_forward_length", 3072},
                   {"attention.head_count", 12}},
                  50257, false};
  CHECK(params_of(gguf_of(gpt2)) == 124439808);
  CHECK(params_of(gguf_of(gpt2)) == total("gpt2"));
  // StarCoder: head_count_kv 1 (multi_query), context_length n_positions 8192.
  const Meta starcoder{"starcoder",
                       {{"block_count", 40}, {"context_length", 8192}, {"embedding_length", 6144}, {"feed_forward_length", 24576},
                        {"attention.head_count", 48}, {"attention.head_count_kv", 1}},
                       49152, false};
  CHECK(params_of(gguf_of(starcoder)) == 15517456384);
  CHECK(params_of(gguf_of(starcoder)) == total("starcoder-15b"));
  // BLOOM: context_length falls back to hidden_size (1024) without seq_length — not read as a trained length.
  const Meta bloom{"bloom",
                   {{"block_count", 24}, {"context_length", 1024}, {"embedding_length", 1024}, {"feed_forward_length", 4096},
                    {"attention.head_count", 16}, {"attention.head_count_kv", 16}},
                   250880, false};
  CHECK(params_of(gguf_of(bloom)) == 559214592);
  CHECK(params_of(gguf_of(bloom)) == total("bloom-560m"));
  auto hb = read_gguf_header(gguf_of(bloom), 0);
  REQUIRE(hb.ok());
  auto cb = gguf_config(*hb);
  REQUIRE(cb.ok());
  CHECK(cb->config.max_positions == llmsize::test::preset("bloom-560m").config.max_positions);  // 2048
}

TEST_CASE("GGUF: Falcon's layout from its tensors and head_count_kv", "[core][gguf]") {
  // FalconModel.set_gguf_parameters: context_length 2048, feed_forward_length 4 × hidden_size, head_count_kv
  // num_kv_heads (else 1). src/models/falcon.cpp: attn_norm_2 only where ln_attn and ln_mlp both exist.
  const Meta f7{"falcon",
                {{"block_count", 32}, {"context_length", 2048}, {"embedding_length", 4544}, {"feed_forward_length", 18176},
                 {"attention.head_count", 71}, {"attention.head_count_kv", 1}},
                65024, false};
  CHECK(params_of(gguf_of(f7)) == 6921720704);
  CHECK(params_of(gguf_of(f7)) == count_params(llmsize::test::preset("falcon-7b").config)->total);
  Meta f40{"falcon",
           {{"block_count", 60}, {"context_length", 2048}, {"embedding_length", 8192}, {"feed_forward_length", 32768},
            {"attention.head_count", 128}, {"attention.head_count_kv", 8}},
           65024, false, {}, {}, {"blk.0.attn_norm_2.weight"}};
  CHECK(params_of(gguf_of(f40)) == 41303293952);
  CHECK(params_of(gguf_of(f40)) == count_params(llmsize::test::preset("falcon-40b").config)->total);
  auto h = read_gguf_header(gguf_of(f40), 0);
  REQUIRE(h.ok());
  auto c = gguf_config(*h);
  REQUIRE(c.ok());
  CHECK(c->config.n_kv_heads == 8);
  CHECK(c->config.parallel_block);
  CHECK(c->config.norm_ffn_input);  // ln_mlp beside ln_attn
  // Without attn_norm_2 and with 8 K heads: the new architecture with one norm (Falcon2-11B).
  f40.tensors.clear();
  auto h1 = read_gguf_header(gguf_of(f40), 0);
  REQUIRE(h1.ok());
  auto c1 = gguf_config(*h1);
  REQUIRE(c1.ok());
  CHECK(c1->config.n_kv_heads == 8);
  CHECK_FALSE(c1->config.norm_ffn_input);
  // An old file with the tied head stored again (output.weight): untied, the head counted.
  Meta f7_head = f7;
  f7_head.head = true;
  CHECK(params_of(gguf_of(f7_head)) == 6921720704 + 65024LL * 4544);
}

TEST_CASE("GGUF: metadata of the newly read architectures that cannot be read is refused by its key", "[core][gguf][validation]") {
  auto issue_of = [](const Meta& m) {
    auto h = read_gguf_header(gguf_of(m), 0);
    REQUIRE(h.ok());
    auto c = gguf_config(*h);
    REQUIRE_FALSE(c.ok());
    return c.issues().front();
  };
  // llama.cpp neither writes nor loads gptj; LFM2's experts (lfm2moe) are not a family read here.
  CHECK(issue_of(Meta{"gptj", {{"block_count", 28}}, 4}).field == "general.architecture");
  CHECK(issue_of(Meta{"lfm2moe", {{"block_count", 24}}, 4}).field == "general.architecture");
  // GPTBigCode has no grouped K/V.
  CHECK(issue_of(Meta{"starcoder",
                      {{"block_count", 2}, {"embedding_length", 64}, {"feed_forward_length", 256}, {"attention.head_count", 8},
                       {"attention.head_count_kv", 2}},
                      4, false})
            .field == "starcoder.attention.head_count_kv");
  // BLOOM's MLP is 4 × d.
  CHECK(issue_of(Meta{"bloom",
                      {{"block_count", 2}, {"embedding_length", 64}, {"feed_forward_length", 200}, {"attention.head_count", 8}},
                      4, false})
            .field == "bloom.feed_forward_length");
  // MiniMax-M2's experts are feed_forward_length wide.
  CHECK(issue_of(Meta{"minimax-m2",
                      {{"block_count", 2}, {"embedding_length", 64}, {"feed_forward_length", 128}, {"attention.head_count", 8},
                       {"expert_count", 4}, {"expert_feed_forward_length", 96}},
                      4})
            .field == "minimax-m2.expert_feed_forward_length");
  // ERNIE 4.5 MoE without experts.
  CHECK(issue_of(Meta{"ernie4_5-moe", {{"block_count", 2}, {"embedding_length", 64}, {"attention.head_count", 8}}, 4})
            .field == "ernie4_5-moe.expert_count");
}

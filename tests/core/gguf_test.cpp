// GGUF header reader (issue 12): the key/values of every type, the tensor table, bytes per
// tensor from ggml's blocks, reading more when the header is longer than the bytes given, and
// hostile headers refused by name. The files are written here, byte by byte, as ggml/docs/gguf.md
// lays them out.
#include <cstring>

#include "core/gguf.hpp"
#include "core/quant.hpp"
#include "test_util.hpp"

using namespace llmsize::core;

namespace {

// A little-endian GGUF writer for the tests.
struct Gguf {
  std::string b;
  void u8(std::uint8_t v) { b.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k)));
  }
  void u64(std::uint64_t v) {
    for (int k = 0; k < 8; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k)));
  }
  void str(std::string_view s) {
    u64(s.size());
    b.append(s);
  }
  void f32(float f) {
    std::uint32_t x = 0;
    std::memcpy(&x, &f, 4);
    u32(x);
  }
  void header(std::uint32_t version, std::uint64_t tensors, std::uint64_t keys) {
    b = "GGUF";
    u32(version);
    u64(tensors);
    u64(keys);
  }
  void key_u32(std::string_view k, std::uint32_t v) { str(k), u32(4), u32(v); }
  void key_str(std::string_view k, std::string_view v) { str(k), u32(8), str(v); }
  void tensor(std::string_view name, std::initializer_list<std::uint64_t> ne, std::uint32_t type, std::uint64_t offset) {
    str(name);
    u32(static_cast<std::uint32_t>(ne.size()));
    for (auto n : ne) u64(n);
    u32(type);
    u64(offset);
  }
};

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
  g.str("llama.rope.freq_base"), g.u32(6), g.f32(10000.0f);
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

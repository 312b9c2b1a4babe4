// A little-endian GGUF writer (ggml/docs/gguf.md): the suites and the fixture tool write their
// model files byte by byte. No test framework here: gguf_fixtures (a plain program) uses it too.
#pragma once
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace llmsize::test {

struct GgufWriter {
  std::string b;
  void u8(std::uint8_t v) { b.push_back(static_cast<char>(v)); }
  void u16(std::uint16_t v) { u8(static_cast<std::uint8_t>(v)), u8(static_cast<std::uint8_t>(v >> 8)); }
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k)));
  }
  void u64(std::uint64_t v) {
    for (int k = 0; k < 8; ++k) u8(static_cast<std::uint8_t>(v >> (8 * k)));
  }
  void f32(float v) {
    std::uint32_t x = 0;
    std::memcpy(&x, &v, 4);
    u32(x);
  }
  void f64(double v) {
    std::uint64_t x = 0;
    std::memcpy(&x, &v, 8);
    u64(x);
  }
  void str(std::string_view s) {
    u64(s.size());
    b.append(s);
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

}  // namespace llmsize::test

// The reference transformer's counting allocator: every buffer the decoder owns (weights,
// KV cache, activations, scratch) is a Buffer obtained from a MemCounter, which records the
// bytes live per category and the peaks. It does not see memory owned by the kernels library
// (its per-thread GEMM packing scratch) or by the C++ runtime (std::vector, the heap's own
// bookkeeping); measure.hpp states those differences.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace llmsize::ref {

using i64 = std::int64_t;

// State: the recurrent state of linear-attention layers (Gated DeltaNet's convolution window
// and per-head state matrices), fixed per sequence, kept beside the KV cache. Indexer: the keys
// of DeepSeek-V3.2's lightning indexer, one fp8 row and its scales per cached token.
// The training step (train.hpp) adds: Adapters (LoRA A and B), Saved (tensors kept for
// backward), Gradients, Optimizer (AdamW's m and v); its working buffers are Activations.
enum class Mem : std::uint8_t { Weights, KvCache, Activations, Scratch, State, Indexer, Adapters, Saved, Gradients, Optimizer };
inline constexpr int kMemCount = 10;
// "weights", "kv_cache", "activations", "scratch", "recurrent_state", "indexer_cache", "adapters",
// "saved", "gradients", "optimizer_states"
std::string_view to_string(Mem m);

struct MemStats {
  std::array<i64, kMemCount> live{};  // bytes allocated now, per category
  std::array<i64, kMemCount> peak{};  // highest live bytes seen, per category
  i64 live_total = 0;
  i64 peak_total = 0;  // highest sum over categories at any moment (not the sum of the peaks)
  i64 allocations = 0; // buffers handed out so far
  i64 operator[](Mem m) const { return live[static_cast<int>(m)]; }
};

// Buffers are 64-byte aligned (a cache line; every SIMD width the kernels use). The counter
// must outlive its buffers. No threads: plain integers.
class MemCounter {
 public:
  // nullptr when the system refuses (the caller reports an Issue); bytes are not rounded.
  void* allocate(Mem m, i64 bytes);
  void release(Mem m, void* p, i64 bytes);
  const MemStats& stats() const { return stats_; }
  void reset_peaks();  // peaks := live (to measure one phase)

 private:
  MemStats stats_;
};

// An owning, move-only array of 4-byte elements (floats, or int32 indices through ints())
// counted in one category.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer tmp(static_cast<Buffer&&>(o));
    swap(tmp);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  // Empty Buffer on failure (check ok()); n == 0 gives an empty, ok Buffer.
  static Buffer make(MemCounter& c, Mem m, i64 n_floats);

  float* data() { return p_; }
  const float* data() const { return p_; }
  i64 size() const { return n_; }
  i64 bytes() const { return n_ * static_cast<i64>(sizeof(float)); }
  Mem category() const { return m_; }
  bool ok() const { return !failed_; }
  std::int32_t* ints() { return reinterpret_cast<std::int32_t*>(p_); }
  const std::int32_t* ints() const { return reinterpret_cast<const std::int32_t*>(p_); }
  float& operator[](i64 i) { return p_[i]; }
  float operator[](i64 i) const { return p_[i]; }

 private:
  void swap(Buffer& o) noexcept;
  MemCounter* c_ = nullptr;
  float* p_ = nullptr;
  i64 n_ = 0;
  Mem m_ = Mem::Scratch;
  bool failed_ = false;
};

}  // namespace llmsize::ref

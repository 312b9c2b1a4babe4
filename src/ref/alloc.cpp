// Counting allocator (see alloc.hpp): aligned operator new without exceptions, bytes
// recorded per category, the total peak taken at every allocation.
#include "alloc.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <utility>

namespace llmsize::ref {

namespace {
constexpr std::align_val_t kAlign{64};
constexpr i64 kMaxRequest = i64{1} << 40;
}

std::string_view to_string(Mem m) {
  switch (m) {
    case Mem::Weights: return "weights";
    case Mem::KvCache: return "kv_cache";
    case Mem::Activations: return "activations";
    case Mem::Scratch: return "scratch";
    case Mem::State: return "recurrent_state";
    case Mem::Indexer: return "indexer_cache";
    case Mem::Adapters: return "adapters";
    case Mem::Saved: return "saved";
    case Mem::Gradients: return "gradients";
    case Mem::Optimizer: return "optimizer_states";
  }
  return "?";
}

void* MemCounter::allocate(Mem m, i64 bytes) {
  if (bytes <= 0) return nullptr;
  // 32-bit size_t in WASM: a request that does not fit would wrap to a tiny allocation.
  if (static_cast<std::uint64_t>(bytes) > std::numeric_limits<std::size_t>::max()) return nullptr;
  // Above 1 TiB no machine this runs on can answer, and sanitizer runtimes abort on such
  // requests instead of returning null: refuse them here.
  if (bytes > kMaxRequest) return nullptr;
  void* p = ::operator new(static_cast<std::size_t>(bytes), kAlign, std::nothrow);
  if (!p) return nullptr;
  const int i = static_cast<int>(m);
  stats_.live[i] += bytes;
  stats_.peak[i] = std::max(stats_.peak[i], stats_.live[i]);
  stats_.live_total += bytes;
  stats_.peak_total = std::max(stats_.peak_total, stats_.live_total);
  ++stats_.allocations;
  return p;
}

void MemCounter::release(Mem m, void* p, i64 bytes) {
  if (!p) return;
  ::operator delete(p, kAlign);
  stats_.live[static_cast<int>(m)] -= bytes;
  stats_.live_total -= bytes;
}

void MemCounter::reset_peaks() {
  stats_.peak = stats_.live;
  stats_.peak_total = stats_.live_total;
}

Buffer Buffer::make(MemCounter& c, Mem m, i64 n_floats) {
  Buffer b;
  b.m_ = m;
  if (n_floats <= 0) return b;
  b.p_ = static_cast<float*>(c.allocate(m, n_floats * static_cast<i64>(sizeof(float))));
  if (!b.p_) {
    b.failed_ = true;
    return b;
  }
  b.c_ = &c;
  b.n_ = n_floats;
  return b;
}

Buffer::~Buffer() {
  if (c_) c_->release(m_, p_, bytes());
}

void Buffer::swap(Buffer& o) noexcept {
  std::swap(c_, o.c_);
  std::swap(p_, o.p_);
  std::swap(n_, o.n_);
  std::swap(m_, o.m_);
  std::swap(failed_, o.failed_);
}

}  // namespace llmsize::ref

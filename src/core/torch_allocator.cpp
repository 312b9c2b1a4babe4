// PyTorch's CUDA caching allocator, as counted (torch_allocator.hpp).
#include "torch_allocator.hpp"

#include <algorithm>

namespace llmsize::core {

namespace {
constexpr i64 kMiB = i64{1} << 20;
}

i64 allocator_round(i64 bytes) { return bytes <= 0 ? 0 : std::max<i64>(512, ceil_div(bytes, 512) * 512); }

Checked allocator_round(Checked bytes) { return bytes.ok() ? Checked(allocator_round(bytes.value())) : bytes; }

i64 fresh_block_bytes(i64 bytes) {
  const i64 r = allocator_round(bytes);
  if (r <= 10 * kMiB) return r;
  const i64 segment = ceil_div(r, 2 * kMiB) * 2 * kMiB;
  return segment - r > kMiB ? r : segment;
}

i64 LoadAllocator::malloc(i64 bytes) {
  const i64 size = allocator_round(bytes);
  if (size <= kMiB) {  // the small pool: its blocks are split whenever 512 B or more is left
    if (small_free_ < size) {
      reserved_ += 2 * kMiB;
      small_free_ = 2 * kMiB;
    }
    small_free_ -= size;
    allocated_ += size;
    return size;
  }
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (*it >= size && (best == free_.end() || *it < *best)) best = it;
  i64 block = 0;
  if (best != free_.end()) {
    block = *best;
    free_.erase(best);
  } else {
    block = size < 10 * kMiB ? 20 * kMiB : ceil_div(size, 2 * kMiB) * 2 * kMiB;
    reserved_ += block;
  }
  const i64 rest = block - size;
  const i64 counted = rest > kMiB ? size : block;
  if (rest > kMiB) free_.push_back(rest);
  allocated_ += counted;
  return counted;
}

}  // namespace llmsize::core

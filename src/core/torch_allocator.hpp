// PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp) as the engine profiles and
// training recipes count it: what torch.cuda.max_memory_allocated() and vLLM's torch peak read.
// One home for its rounding, its segments and cuBLAS's workspace.
#pragma once
#include <vector>

#include "checked.hpp"

namespace llmsize::core {

// round_size: a request to a multiple of 512 bytes (kMinBlockSize), at least 512; 0 stays 0.
i64 allocator_round(i64 bytes);
// The same on a checked size; an overflow stays one.
Checked allocator_round(Checked bytes);

// A request above 10 MiB (kMinLargeAlloc) served by a fresh segment (get_allocation_size: rounded
// up to kRoundLarge, 2 MiB): the segment is split only when more than kSmallSize (1 MiB) is left
// (should_split), so an unsplit tail counts as allocated. Smaller requests: allocator_round.
i64 fresh_block_bytes(i64 bytes);

// ATen CublasHandlePool.cpp getNewWorkspace: the cuBLAS workspace, taken through the caching
// allocator (counted) once per (handle, stream); the default CUBLAS_WORKSPACE_CONFIG of PyTorch
// 2.1 to 2.4 ":4096:2:16:8" = 4096 KiB · 2 + 16 KiB · 8. (Later releases give Hopper and newer 32 MiB.)
inline constexpr i64 kCublasWorkspace = 4096 * 1024 * 2 + 16 * 1024 * 8;

// The allocator in a run that only allocates (a checkpoint's load): the bytes allocated_bytes
// counts for each request in turn. Requests up to 1 MiB (kSmallSize) are 512-rounded (small blocks
// split down to 512 B); larger ones take the smallest cached free block that fits
// (get_free_block), or a new segment (20 MiB, kLargeBuffer, below 10 MiB; else rounded up to
// 2 MiB), and keep the whole block unless more than 1 MiB is left over.
// reserved() is the segments those requests opened (cudaMalloc'ed, what torch.cuda.mem_get_info
// loses): small requests share 2 MiB segments, so consecutive 5 MiB tensors share 20 MiB ones,
// three each. Requests are sizes the caller bounded (at most 2^50 bytes each).
class LoadAllocator {
 public:
  i64 malloc(i64 bytes);  // the bytes counted for this request
  i64 allocated() const { return allocated_; }
  i64 reserved() const { return reserved_; }

 private:
  std::vector<i64> free_;  // cached free blocks of the large pool (split remainders)
  i64 small_free_ = 0;     // room left in the last small segment
  i64 allocated_ = 0, reserved_ = 0;
};

}  // namespace llmsize::core

// The B packer shared by every kernel: k-major NR-column micro-panels, zero-padded at the
// right edge so micro-kernels load whole vectors. Plain C++ with baseline flags (a
// memory-bound copy); layout only, no ISA code. A is never packed: kernels broadcast from it.
#include <cassert>
#include <cstddef>
#include <cstring>

#include "kernel.hpp"

namespace llmsize::ref::kernels {

// Rows of B are read in order (one sequential stream); each row scatters NR-float chunks
// to the ceil(nc/NR) panels.
// B's rows are short streams (nc floats each, ldb apart) that the hardware prefetcher picks up
// late: fetch the row this many rows ahead (measured +3% on per-call GEMMs that pack B).
constexpr int kPrefetchRows = 8;

template <int NR>
void pack_b(int kc, int nc, const float* B, int ldb, float* Bp) {
  assert(kc >= 1 && nc >= 1 && ldb >= nc);
  const int full = nc / NR, tail = nc % NR;
  const std::ptrdiff_t panel = std::ptrdiff_t(kc) * NR;
  for (int k = 0; k < kc; ++k) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    float* dst = Bp + std::ptrdiff_t(k) * NR;
    if (k + kPrefetchRows < kc) {
      const float* ahead = b + std::ptrdiff_t(kPrefetchRows) * ldb;
      for (int j = 0; j < nc; j += 16) __builtin_prefetch(ahead + j);
    }
    for (int p = 0; p < full; ++p, b += NR, dst += panel) std::memcpy(dst, b, NR * sizeof(float));
    if (tail) {
      std::memcpy(dst, b, std::size_t(tail) * sizeof(float));
      std::memset(dst + tail, 0, std::size_t(NR - tail) * sizeof(float));
    }
  }
}

template void pack_b<4>(int, int, const float*, int, float*);
template void pack_b<8>(int, int, const float*, int, float*);
template void pack_b<12>(int, int, const float*, int, float*);
template void pack_b<16>(int, int, const float*, int, float*);
template void pack_b<48>(int, int, const float*, int, float*);

}  // namespace llmsize::ref::kernels

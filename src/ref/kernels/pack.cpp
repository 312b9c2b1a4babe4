// The B packer shared by every kernel: k-major NR-column micro-panels, zero-padded at the
// right edge so micro-kernels load whole vectors. Plain C++ with baseline flags (a
// memory-bound copy); layout only, no ISA code. A is never packed: kernels broadcast from it.
#include <cassert>
#include <cstddef>
#include <cstring>

#include "kernel.hpp"

namespace llmsize::ref::kernels {

#if !defined(__wasm__)
// B's rows are short streams (nc floats each, ldb apart) that the hardware prefetcher picks up
// late: fetch the row this many rows ahead (measured +3% on per-call GEMMs that pack B).
// WASM has no prefetch instruction.
constexpr int kPrefetchRows = 8;
#endif

template <int NR>
void pack_b(int kc, int nc, const float* B, int ldb, float* Bp) {
  assert(kc >= 1 && nc >= 1 && ldb >= nc);
  const int full = nc / NR, tail = nc % NR;
  const std::ptrdiff_t panel = std::ptrdiff_t(kc) * NR;
  int k = 0;
  // Four rows at a time: four read streams, and each panel receives 4·NR contiguous floats
  // per visit instead of NR (measured 2x faster under V8, same natively).
  for (; k + 4 <= kc; k += 4) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    float* dst = Bp + std::ptrdiff_t(k) * NR;
#if !defined(__wasm__)
    if (k + 4 + kPrefetchRows <= kc) {
      for (int r = 0; r < 4; ++r) {
        const float* ahead = b + std::ptrdiff_t(kPrefetchRows + r) * ldb;
        for (int j = 0; j < nc; j += 16) __builtin_prefetch(ahead + j);
      }
    }
#endif
    for (int p = 0; p < full; ++p, b += NR, dst += panel) {
      for (int r = 0; r < 4; ++r) std::memcpy(dst + r * NR, b + std::ptrdiff_t(r) * ldb, NR * sizeof(float));
    }
    if (tail) {
      for (int r = 0; r < 4; ++r) {
        std::memcpy(dst + r * NR, b + std::ptrdiff_t(r) * ldb, std::size_t(tail) * sizeof(float));
        std::memset(dst + r * NR + tail, 0, std::size_t(NR - tail) * sizeof(float));
      }
    }
  }
  for (; k < kc; ++k) {
    const float* b = B + std::ptrdiff_t(k) * ldb;
    float* dst = Bp + std::ptrdiff_t(k) * NR;
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

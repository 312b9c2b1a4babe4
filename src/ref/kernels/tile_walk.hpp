// The walk of one micro-kernel row panel along n, shared by the kernels whose tiles take the
// live lane count of their last vector (SSE2, AVX2, NEON, WASM SIMD128 and relaxed): the hot
// full MR×NR tile, and a table of tile<M, NV> instantiations for the m and n edges. Each ISA's
// translation unit includes it after defining its tiles, so every instantiation is compiled
// with that TU's ISA flags. No intrinsics here. (AVX-512 masks its edges and walks itself.)
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <utility>

namespace llmsize::ref::kernels::walk {

using TileFn = void (*)(int kc, const float* a, int lda, const float* b, int ldb, float* c, int ldc,
                        int last_count, bool accumulate);

// Tiles: a type with `template <int M, int NV> static void run(<TileFn's arguments>)`.
template <class Tiles, int NV_MAX, int... I>
constexpr std::array<TileFn, sizeof...(I)> make_table(std::integer_sequence<int, I...>) {
  return {&Tiles::template run<I / NV_MAX + 1, I % NV_MAX + 1>...};
}

// C[m × n] (+)= A[m × kc] · B[kc × n], one NR-wide panel of B at a time (b_next floats apart).
template <class Tiles, int MR, int NV_MAX, int LANES>
inline void walk_n(int kc, const float* A, int lda, const float* B, int ldb, std::ptrdiff_t b_next,
                   float* C, int ldc, int m, int n, bool accumulate) {
  static constexpr auto table = make_table<Tiles, NV_MAX>(std::make_integer_sequence<int, MR * NV_MAX>{});
  constexpr int NR = NV_MAX * LANES;
  assert(kc >= 1 && m >= 1 && m <= MR && n >= 1);
  for (; n > 0; n -= NR, B += b_next, C += NR) {
    if (m == MR && n >= NR) {  // the hot case, inlined
      Tiles::template run<MR, NV_MAX>(kc, A, lda, B, ldb, C, ldc, LANES, accumulate);
      continue;
    }
    const int nj = n < NR ? n : NR, nv = (nj + LANES - 1) / LANES;
    table[std::size_t((m - 1) * NV_MAX + nv - 1)](kc, A, lda, B, ldb, C, ldc, nj - LANES * (nv - 1), accumulate);
  }
}

}  // namespace llmsize::ref::kernels::walk

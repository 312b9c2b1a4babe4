// The kernel table (one row per micro-kernel, read by dispatch and by the tests) and the
// run-time choice: CPUID natively, LLMSIZE_ISA to force one; fixed at compile time in WASM.
// Which rows exist is decided by CMake (LLMSIZE_KERNELS_X86/NEON/WASM/RELAXED).
#include <cstdlib>

#include "kernel.hpp"

namespace llmsize::ref::kernels {

namespace {

// Blocking (MC, KC, NC) per row: the A micro-panel (MR rows × kc) in L1, the kc×nc packed B
// block in L2 (≈ 0.5-0.75 MiB of a 1 MiB L2), the mc×kc A block in L2/L3. "In-place B M≤":
// per-call GEMMs up to that M skip packing B (measured: only the 3-cache-line rows of the
// 48-wide AVX-512 panel pay off; narrower panels waste most of each strided row fetch).
constexpr GemmKernel kTable[] = {
    //name                           isa                MR  NR  micro-kernel                pack B      GEMV                     MC   KC   NC  in-place masked    registers
    //                                                                                                                                         B M ≤    B tail
    {"gemm_f32_4x4_scalar",         Isa::scalar,        4,  4, gemm_f32_4x4_scalar,        pack_b<4>,  gemv_f32_scalar,        128, 256, 256,   0,     false },  // 16 acc, plain C++
#if defined(LLMSIZE_KERNELS_X86)
    {"gemm_f32_4x8_sse2",           Isa::sse2,          4,  8, gemm_f32_4x8_sse2,          pack_b<8>,  gemv_f32_sse2,          256, 256, 512,   0,     false },  // 8 acc + 2 B + 1 bcast + 1 tmp = 12/16 xmm
    {"gemm_f32_6x16_avx2",          Isa::avx2,          6, 16, gemm_f32_6x16_avx2,         pack_b<16>, gemv_f32_avx2,          516, 256, 512,   0,     false },  // 12 acc + 2 B + 1 bcast = 15/16 ymm
    {"gemm_f32_8x48_avx512",        Isa::avx512,        8, 48, gemm_f32_8x48_avx512,       pack_b<48>, gemv_f32_avx512,        512, 512, 384,  64,     true  },  // 24 acc + 3 B + 1 bcast = 28/32 zmm
#endif
#if defined(LLMSIZE_KERNELS_NEON)
    {"gemm_f32_8x12_neon",          Isa::neon,          8, 12, gemm_f32_8x12_neon,         pack_b<12>, gemv_f32_neon,          256, 256, 504,   0,     false },  // 24 acc + 3 B + 1 dup = 28/32 v
#endif
#if defined(LLMSIZE_KERNELS_WASM)
    {"gemm_f32_3x12_wasm_simd128",  Isa::wasm_simd128,  3, 12, gemm_f32_3x12_wasm_simd128, pack_b<12>, gemv_f32_wasm_simd128,  510, 256, 504,   0,     false },  // 9 acc + 3 B + 1 splat + 1 tmp = 14/15 xmm (V8)
#endif
#if defined(LLMSIZE_KERNELS_RELAXED)
    {"gemm_f32_6x8_wasm_relaxed",   Isa::wasm_relaxed,  6,  8, gemm_f32_6x8_wasm_relaxed,  pack_b<8>,  gemv_f32_wasm_relaxed,  510, 256, 512,   0,     false },  // 12 acc + 2 B + 1 splat = 15/15 xmm (V8)
#endif
};

// Rank of an ISA: the supported row with the highest rank wins.
int rank(Isa isa) { return static_cast<int>(isa); }

}  // namespace

std::span<const GemmKernel> kernel_table() { return kTable; }

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::sse2: return "sse2";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
    case Isa::neon: return "neon";
    case Isa::wasm_simd128: return "wasm_simd128";
    case Isa::wasm_relaxed: return "wasm_relaxed";
  }
  return "?";
}

std::optional<Isa> parse_isa(std::string_view name) {
  for (Isa isa : {Isa::scalar, Isa::sse2, Isa::avx2, Isa::avx512, Isa::neon, Isa::wasm_simd128,
                  Isa::wasm_relaxed}) {
    if (name == isa_name(isa)) return isa;
  }
  return std::nullopt;
}

bool cpu_supports(Isa isa) {
  switch (isa) {
    case Isa::scalar: return true;
#if defined(LLMSIZE_KERNELS_X86)
    case Isa::sse2: return true;  // x86-64 baseline
    case Isa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::avx512: return __builtin_cpu_supports("avx512f");
#endif
#if defined(LLMSIZE_KERNELS_NEON)
    case Isa::neon: return true;  // AArch64 baseline
#endif
#if defined(LLMSIZE_KERNELS_WASM)
    case Isa::wasm_simd128: return true;  // the module would not have validated otherwise
#endif
#if defined(LLMSIZE_KERNELS_RELAXED)
    case Isa::wasm_relaxed: return true;
#endif
    default: return false;
  }
}

const GemmKernel& select_kernel(const char* forced) {
  const std::optional<Isa> want = forced ? parse_isa(forced) : std::nullopt;
  const GemmKernel* best = &kTable[0];
  for (const GemmKernel& k : kTable) {
    if (!cpu_supports(k.isa)) continue;
    if (want && k.isa == *want) return k;
    if (rank(k.isa) > rank(best->isa)) best = &k;
  }
  return *best;
}

const GemmKernel& active() {
  static const GemmKernel& chosen = select_kernel(std::getenv("LLMSIZE_ISA"));
  return chosen;
}

}  // namespace llmsize::ref::kernels

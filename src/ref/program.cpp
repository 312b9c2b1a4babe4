// Program execution and the tiled GEMM op (see program.hpp).
#include "program.hpp"

#include <algorithm>

#include "ref/kernels/gemm.hpp"

namespace llmsize::ref {

namespace {
// Work per GEMM tile: 8M multiply-adds, about 1 ms at 16 GFLOP/s and a few ms at the
// scalar kernel's speed; for M = 1 it is 32 MB of weights streamed.
constexpr i64 kTileMacs = i64{1} << 23;
constexpr i64 kRowBlock = 256;  // rows per tile at most; blocks are balanced so none has 1 row
const std::string kDone = "done";

using core::ceil_div;
}  // namespace

const std::string& Program::current() const { return done() ? kDone : ops[op].name; }

void add_op(Program& p, Op op) {
  p.cost_total += op.cost_per_unit * static_cast<double>(op.units);
  p.ops.push_back(std::move(op));
}

void run_all(Program& p) {
  for (; p.op < p.ops.size(); ++p.op, p.unit = 0) {
    Op& o = p.ops[p.op];
    if (p.unit < o.units) o.run(p.unit, o.units);
    p.cost_done += o.cost_per_unit * static_cast<double>(o.units - p.unit);
  }
}

bool run_until(Program& p, const std::function<bool()>& should_stop) {
  while (p.op < p.ops.size()) {
    Op& o = p.ops[p.op];
    if (p.unit < o.units) {
      o.run(p.unit, p.unit + 1);
      ++p.unit;
      p.cost_done += o.cost_per_unit;
    }
    if (p.unit >= o.units) ++p.op, p.unit = 0;
    if (p.op < p.ops.size() && should_stop()) return false;
  }
  return true;
}

Op gemm_op(Decoder& dec, std::string name, i64 max_rows, std::function<i64()> rows,
           const float* A, i64 lda, const Lin& W, i64 copy, float* C, i64 ldc) {
  const i64 K = W.din, N = W.dout;
  const i64 nr = std::max(1, active_kernel().nr);
  const i64 row_blocks = std::max<i64>(1, ceil_div(max_rows, kRowBlock));
  const i64 rb = std::max<i64>(1, ceil_div(max_rows, row_blocks));
  i64 cb = ceil_div(kTileMacs, std::max<i64>(1, rb * K));
  cb = std::min(N, ceil_div(cb, nr) * nr);
  const i64 col_blocks = ceil_div(N, cb);
  const float* B = W.w + copy * K * N;
  const float* bias = W.b ? W.b + copy * N : nullptr;
  Op op;
  op.name = std::move(name);
  op.units = row_blocks * col_blocks;
  op.cost_per_unit = 2.0 * static_cast<double>(rb * K * cb);
  DecoderStats* stats = &dec.stats;
  op.run = [=](i64 begin, i64 end) {
    const i64 M = rows();
    auto tile = [&](i64 r0, i64 r1, i64 c0, i64 c1, bool first_rows) {
      if (r1 <= r0 || c1 <= c0) return;
      float* c = C + r0 * ldc + c0;
      sgemm_strided(static_cast<int>(r1 - r0), static_cast<int>(c1 - c0), static_cast<int>(K),
                    A + r0 * lda, static_cast<int>(lda), B + c0, static_cast<int>(N), c,
                    static_cast<int>(ldc));
      if (bias)
        for (i64 r = r0; r < r1; ++r)
          for (i64 j = c0; j < c1; ++j) C[r * ldc + j] += bias[j];
      stats->flops += 2.0 * static_cast<double>((r1 - r0) * K * (c1 - c0));
      if (first_rows) stats->weight_bytes_read += 4.0 * static_cast<double>(K * (c1 - c0));
    };
    if (begin == 0 && end == row_blocks * col_blocks) {  // whole op: one call
      tile(0, M, 0, N, true);
      return;
    }
    for (i64 u = begin; u < end; ++u) {  // column-major over tiles: a B block is reused by every row block
      const i64 cbi = u / row_blocks, rbi = u % row_blocks;
      tile(std::min(M, rbi * rb), std::min(M, (rbi + 1) * rb), cbi * cb, std::min(N, (cbi + 1) * cb),
           rbi == 0);
    }
  };
  return op;
}

Op gemm_op(Decoder& dec, std::string name, i64 rows, const float* A, i64 lda, const Lin& W,
           float* C, i64 ldc) {
  return gemm_op(dec, std::move(name), rows, [rows] { return rows; }, A, lda, W, 0, C, ldc);
}

Op rows_op(std::string name, i64 rows, double cost_per_row, std::function<void(i64 row)> f) {
  Op op;
  op.name = std::move(name);
  op.units = rows;
  op.cost_per_unit = cost_per_row;
  op.run = [f = std::move(f)](i64 begin, i64 end) {
    for (i64 r = begin; r < end; ++r) f(r);
  };
  return op;
}

}  // namespace llmsize::ref

// A forward pass as a Program: a list of Ops, each split into units of roughly bounded work
// (GEMM tiles, token rows, heads). Running every op whole computes the forward pass; running
// it unit by unit with a stop test in between lets the demo slice one forward across UI
// frames. Each unit touches its own outputs only, so the result does not depend on where
// the slices fall. No clocks here: the caller decides when to stop.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "decoder.hpp"

namespace llmsize::ref {

struct Op {
  std::string name;          // "layer 3 · ffn.up" (progress display)
  i64 units = 1;
  double cost_per_unit = 1;  // relative work of one unit (flops, roughly): progress weights
  std::function<void(i64 begin, i64 end)> run;  // runs units [begin, end)
};

struct Program {
  std::vector<Op> ops;
  size_t op = 0;   // cursor: next op and unit to run
  i64 unit = 0;
  double cost_done = 0, cost_total = 0;

  bool done() const { return op >= ops.size(); }
  double fraction() const { return cost_total > 0 ? cost_done / cost_total : (done() ? 1.0 : 0.0); }
  const std::string& current() const;
};

void add_op(Program& p, Op op);

// Runs what is left of every op, each remaining range in one call.
void run_all(Program& p);

// Runs one unit at a time until the program ends or should_stop() says so (asked after
// each unit, so at least one unit runs). True when the program has ended.
bool run_until(Program& p, const std::function<bool()>& should_stop);

// An op computing C(rows × N) = A(rows × K) · W[copy] (+ bias) with the kernels library,
// tiled into row blocks × column blocks. rows() is read when a unit runs (MoE experts learn
// their row count from the router); it never exceeds max_rows, which sizes the tiling.
Op gemm_op(Decoder& dec, std::string name, i64 max_rows, std::function<i64()> rows,
           const float* A, i64 lda, const Lin& W, i64 copy, float* C, i64 ldc);
Op gemm_op(Decoder& dec, std::string name, i64 rows, const float* A, i64 lda, const Lin& W,
           float* C, i64 ldc);

// An op applying f(row) for row in [0, rows), one unit per row.
Op rows_op(std::string name, i64 rows, double cost_per_row, std::function<void(i64 row)> f);

}  // namespace llmsize::ref

// Checked 64-bit size arithmetic for the estimator. Every product or sum of sizes goes
// through these helpers so that an absurd config yields an error, never a wrapped number.
// Not a bignum library: results that do not fit int64 are reported as overflow.
#pragma once
#include <cstdint>
#include <optional>

namespace llmsize::core {

using i64 = std::int64_t;

// a*b, or nullopt when the exact result does not fit in int64.
constexpr std::optional<i64> mul(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
constexpr std::optional<i64> add(i64 a, i64 b) {
  i64 r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b for sizes a, b ≥ 0, saturating at int64's largest: sums of a hostile file's sizes (a
// header read without its file's size bounds nothing) stay visibly absurd, never wrap.
constexpr i64 sat_add(i64 a, i64 b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

// ⌈a / b⌉ for a ≥ 0, b > 0 (sizes: heads per GPU, blocks per row); never overflows.
constexpr i64 ceil_div(i64 a, i64 b) { return a / b + (a % b != 0 ? 1 : 0); }

// Accumulates a running checked product/sum; once overflowed it stays overflowed.
class Checked {
 public:
  constexpr Checked() = default;
  constexpr explicit Checked(i64 v) : v_(v) {}
  constexpr Checked& operator*=(i64 b) {
    if (ok_) ok_ = !__builtin_mul_overflow(v_, b, &v_);
    return *this;
  }
  constexpr Checked& operator+=(i64 b) {
    if (ok_) ok_ = !__builtin_add_overflow(v_, b, &v_);
    return *this;
  }
  constexpr Checked& operator*=(Checked b) {
    ok_ = ok_ && b.ok_;
    return *this *= b.v_;
  }
  constexpr Checked& operator+=(Checked b) {
    ok_ = ok_ && b.ok_;
    return *this += b.v_;
  }
  friend constexpr Checked operator*(Checked a, i64 b) { return a *= b; }
  friend constexpr Checked operator+(Checked a, i64 b) { return a += b; }
  friend constexpr Checked operator*(Checked a, Checked b) { return a *= b; }
  friend constexpr Checked operator+(Checked a, Checked b) { return a += b; }
  constexpr bool ok() const { return ok_; }
  constexpr i64 value() const { return ok_ ? v_ : 0; }

 private:
  i64 v_ = 0;
  bool ok_ = true;
};

}  // namespace llmsize::core

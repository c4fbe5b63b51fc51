#pragma once
// Compensated (Neumaier) float64 summation as a Kokkos reducer: each thread's running sum
// carries the rounding error of its additions, and partial sums are joined the same way, so a
// sum of 10^10 terms keeps about the accuracy of its largest partial sums, not 10^10 roundings.
#include <Kokkos_Core.hpp>

namespace kernwerk::impl {

struct compensated_value {
  double sum = 0.0, carry = 0.0;

  KOKKOS_INLINE_FUNCTION void add(double x) {
    const double total = sum + x;
    const double big = sum < 0 ? -sum : sum, small = x < 0 ? -x : x;
    carry += big >= small ? (sum - total) + x : (x - total) + sum;
    sum = total;
  }
  KOKKOS_INLINE_FUNCTION void add(const compensated_value& other) {
    add(other.sum);
    carry += other.carry;
  }
  // An infinite sum stays infinite (its carry is NaN: inf - inf).
  KOKKOS_INLINE_FUNCTION double value() const { return sum - sum == 0.0 ? sum + carry : sum; }
};

template <class Space>
struct compensated_sum {
  using reducer = compensated_sum;
  using value_type = compensated_value;
  using result_view_type = Kokkos::View<value_type, Space>;

  KOKKOS_INLINE_FUNCTION explicit compensated_sum(value_type& target) : target_(&target) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.add(src); }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest,
                                   const volatile value_type& src) const {
    value_type d{dest.sum, dest.carry};
    d.add(value_type{src.sum, src.carry});
    dest.sum = d.sum;
    dest.carry = d.carry;
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = value_type{}; }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *target_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return target_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  result_view_type target_;
};

}  // namespace kernwerk::impl

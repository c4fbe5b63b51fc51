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

// A Kokkos reducer that joins values by their add(other), into *target in Space's memory (a
// result in device memory stays there: no host round trip). Values are plain doubles inside.
template <class Value, class Space>
struct adding_reducer {
  using reducer = adding_reducer;
  using value_type = Value;
  using result_view_type = Kokkos::View<value_type, Space, Kokkos::MemoryUnmanaged>;

  KOKKOS_INLINE_FUNCTION explicit adding_reducer(value_type* target) : target_(target) {}
  KOKKOS_INLINE_FUNCTION explicit adding_reducer(value_type& target) : target_(&target) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest.add(src); }
#if KOKKOS_VERSION < 40000
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    constexpr int count = int(sizeof(value_type) / sizeof(double));
    value_type d, s;
    for (int i = 0; i < count; ++i) {
      reinterpret_cast<double*>(&d)[i] = reinterpret_cast<const volatile double*>(&dest)[i];
      reinterpret_cast<double*>(&s)[i] = reinterpret_cast<const volatile double*>(&src)[i];
    }
    d.add(s);
    for (int i = 0; i < count; ++i)
      reinterpret_cast<volatile double*>(&dest)[i] = reinterpret_cast<const double*>(&d)[i];
  }
#endif
  KOKKOS_INLINE_FUNCTION void init(value_type& value) const { value = value_type{}; }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return *target_.data(); }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return target_; }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }

 private:
  result_view_type target_;
};

template <class Space>
using compensated_sum = adding_reducer<compensated_value, Space>;

}  // namespace kernwerk::impl

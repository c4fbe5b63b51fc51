#pragma once
// Kokkos moved its math functions from Kokkos::Experimental (3.x) to Kokkos (4.0 and later).
// sincos shares one argument reduction between the two where the device library has it.
#include <Kokkos_Core.hpp>

#include <cfloat>
#include <cmath>

namespace kernwerk::impl {
#if KOKKOS_VERSION >= 40000
namespace math = ::Kokkos;
#else
namespace math = ::Kokkos::Experimental;
#endif

KOKKOS_INLINE_FUNCTION void sincos(double x, double& s, double& c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  ::sincos(x, &s, &c);
#else
  s = math::sin(x);
  c = math::cos(x);
#endif
}

// x^2 + y^2 + z^2 in float64, each product and sum rounded on its own, in this order, on every
// backend: a GPU compiler fuses a multiply and an add wherever it chooses (and differently in each
// kernel), and then the keys of the brute force and the index, and a box's bound and the keys of
// its points, would differ in their last bits (found by tests/mpi_index_test.cpp on an H100).
// nvcc: the _rn intrinsics, which it never fuses; clang (HIP, whose _rn intrinsics are plain
// operators it may fuse, and host builds): the pragma. GCC fuses only for targets with FMA.
KOKKOS_INLINE_FUNCTION double squared_norm(double x, double y, double z) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(__dadd_rn(__dmul_rn(x, x), __dmul_rn(y, y)), __dmul_rn(z, z));
#else
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  return x * x + y * y + z * z;
#endif
}

// v rounded to float, to the nearest; a value past float's range becomes infinite (a plain
// conversion of it is undefined).
KOKKOS_INLINE_FUNCTION float to_float(double v) {
  if (v > double(FLT_MAX)) return INFINITY;
  if (v < -double(FLT_MAX)) return -INFINITY;
  return static_cast<float>(v);
}

// v rounded down to a float (a lower bound kept in half the bytes stays a lower bound).
KOKKOS_INLINE_FUNCTION float float_below(double v) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __double2float_rd(v);
#else
  const float f = to_float(v);
  if (double(f) > v) return std::nextafter(f, -INFINITY);
  return f;
#endif
}

// The number of zero bits above the highest set bit of v > 0.
KOKKOS_INLINE_FUNCTION int leading_zeros(unsigned long long v) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return __clzll(static_cast<long long>(v));
#else
  return __builtin_clzll(v);
#endif
}
}  // namespace kernwerk::impl

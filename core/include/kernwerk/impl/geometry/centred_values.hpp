#pragma once
// The float32 values the tuned brute forces (GPU and host) order references by, and their error.
//
// The nearest reference is the one whose unit vector v has the largest dot product with the
// observation's u (squared chord 2 - 2 u.v). The references are centred first, d = v - c with c
// their mean: u.v = u.c + u.d, and u.c is the same for every reference, so the float32 values
// u.d order them with errors proportional to the spread max |d| (a cluster's radius, where the
// references are clustered; about 1 where they cover the sphere).
#include <Kokkos_Core.hpp>

namespace kernwerk::impl {

// The margin between two values within which their order is in doubt, for spread rho >= max |d|.
// A value fl(u32 . d32) differs from u.d (u, v, c the float64 unit vectors and centre) by at
// most 5.01 e rho + 1e-15 (e = 2^-24): e rho from rounding u to float32, e rho from rounding d
// (and ~1e-15 from v - c in float64), 3 e rho from the multiply and two fused multiply-adds
// (centred_value's order, which every tuned scan keeps). So a value below the best by more than
// twice that, 5.98e-7 rho, is a farther reference; the margin adds the rounding of best - margin
// itself (6e-8 rho) and the float64 rule's own tie scale (the haversine keys of chords 1e-14
// apart may order either way), with room to spare.
KOKKOS_INLINE_FUNCTION float centred_value_margin(float spread) {
  return 7.5e-7f * spread + 1.0e-13f;
}

}  // namespace kernwerk::impl

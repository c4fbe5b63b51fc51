#pragma once
// The QR calls the library compiles for each execution space of the build and float and double
// (their definitions: kernwerk/impl/dense/qr.hpp, included only by the library).
#include "kernwerk/impl/dense/views.hpp"

namespace kernwerk {
struct qr_options;
struct apply_q_options;
}  // namespace kernwerk

namespace kernwerk::impl {

template <class Space, class T>
struct qr_library {
  using matrix = dense_matrix<Space, T>;
  using input = dense_matrix<Space, const T>;
  static void qr(const Space& space, const input& a, const matrix& q, const matrix& r,
                 const qr_options& options);
  // tau arrives as one column (n x 1)
  static void factor(const Space& space, const input& a, const matrix& factors,
                     const matrix& tau, const qr_options& options);
  static void apply_q(const Space& space, const input& factors, const input& tau,
                      const matrix& c, const apply_q_options& options);
  static void solve_least_squares(const Space& space, const input& a, const input& b,
                                  const matrix& x, const qr_options& options);
};

}  // namespace kernwerk::impl

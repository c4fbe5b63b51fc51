#pragma once
/// \file
/// Conjugate gradient for symmetric positive-definite systems, dense or sparse.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "kernwerk/csr_matrix.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/impl/dense/cg.hpp"
#include "kernwerk/impl/profiling.hpp"

namespace kernwerk {

/// Options of kernwerk::conjugate_gradient.
struct cg_options {
  double tolerance = 1e-8;          ///< stop when ||r|| <= tolerance ||b||
  std::int64_t max_iterations = 0;  ///< 0: the system's size (exact arithmetic converges by then)
};

/// What kernwerk::conjugate_gradient did.
struct cg_result {
  std::int64_t iterations = 0;           ///< steps taken
  double residual_norm = 0.0;            ///< ||r|| / ||b|| at the end (0 when b = 0)
  std::vector<double> residual_history;  ///< ||r|| / ||b|| before each step and at the end
};

/// Thrown by kernwerk::conjugate_gradient when the iterations run out.
class not_converged : public error {
 public:
  /// An error with `message`, carrying the result so far.
  not_converged(const std::string& message, cg_result result)
      : error(message), result_(std::move(result)) {}
  /// The iterations and residual history up to the last step.
  const cg_result& result() const noexcept { return result_; }

 private:
  cg_result result_;
};

/// Solves A x = b for symmetric positive-definite A, a dense rank-2 View or a csr_matrix; x
/// holds the initial guess and receives the solution. Stops when ||r|| <= tolerance ||b||
/// (r the recurrence's residual, float64 norms), after at most max_iterations steps. Vectors are
/// float or double; arithmetic and reductions run in float64. The iteration is Chronopoulos and
/// Gear's (one reduction a step); the host checks the residuals every 16 steps, and steps
/// launched after the stopping one change nothing. A dense A is read along its contiguous axis,
/// as rows or (being symmetric) as columns.
///
/// \throws kernwerk::invalid_argument naming the argument, before x is written: shapes,
/// non-finite values in b or x, a CSR matrix whose row starts or column indices are out of order
/// or range, options out of range; naming "a" when a step meets p^T A p <= 0 (A is not positive
/// definite).
/// \throws kernwerk::not_converged when the iterations run out; it carries the result so far and
/// x is left as given.
template <class ExecutionSpace, class Matrix, class B, class X>
cg_result conjugate_gradient(const ExecutionSpace& space, const Matrix& a, const B& b, const X& x,
                             const cg_options& options = {}) {
  impl::scoped_region region("kernwerk::conjugate_gradient");
  const auto op = impl::make_operator(space, a, b, x);  // checks the matrix and the vectors
  impl::check_cg(space, b, x, options);
  impl::cg_outcome outcome = impl::conjugate_gradient_generic(space, op, b, x, options.tolerance,
                                                              options.max_iterations);
  cg_result result{outcome.iterations, outcome.residual, std::move(outcome.history)};
  if (outcome.negative_curvature)
    throw invalid_argument("conjugate_gradient", "a",
                           "is not positive definite: p^T A p = " +
                               std::to_string(outcome.curvature) + " at step " +
                               std::to_string(outcome.iterations + 1));
  if (!outcome.converged)
    throw not_converged("kernwerk::conjugate_gradient: no convergence in " +
                            std::to_string(outcome.iterations) + " steps: ||r|| / ||b|| = " +
                            std::to_string(outcome.residual) + " > tolerance " +
                            std::to_string(options.tolerance),
                        std::move(result));
  return result;
}

}  // namespace kernwerk

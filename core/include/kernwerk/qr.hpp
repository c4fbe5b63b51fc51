#pragma once
/// \file
/// QR factorisation of dense m x n matrices (m >= n), float or double: Q and R (reduced or
/// complete), the factored form (Householder vectors and tau, as LAPACK's geqrf leaves them),
/// products with Q and linear least squares.
///
/// Each call runs the vendor's library where the build has one for the execution space
/// (LAPACK on the host, cuSOLVER on CUDA) or the generic blocked Householder QR written on Kokkos
/// (every space; its trailing updates are kernwerk::gemm calls). Views may have any layout and
/// any strides; they must lie in memory the execution space reaches. The library works on a
/// column-major copy of A, so A is never written (unless it is also the output of qr_factor).
///
/// The library compiles these calls once for each execution space of the build, float and
/// double; a caller compiles only the conversion of its Views.
#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

#include "kernwerk/impl/dense/views.hpp"
#include "kernwerk/impl/profiling.hpp"
#include "kernwerk/impl/dense/qr_library.hpp"

namespace kernwerk {

/// What kernwerk::qr returns.
enum class qr_mode {
  reduced,   ///< Q is m x n, R is n x n (NumPy's mode="reduced")
  complete,  ///< Q is m x m, R is m x n (NumPy's mode="complete")
};

/// The code path of the QR calls.
enum class qr_implementation {
  automatic,  ///< the vendor library where the build has one for the space, else generic
  generic,    ///< the blocked Householder QR written on Kokkos
  vendor,     ///< LAPACK (host) or cuSOLVER (CUDA); kernwerk::unsupported where the build has none
};

/// Options of kernwerk::qr, kernwerk::qr_factor and kernwerk::solve_least_squares.
struct qr_options {
  qr_mode mode = qr_mode::reduced;  ///< the shapes of Q and R (kernwerk::qr only)
  qr_implementation implementation = qr_implementation::automatic;  ///< the code path
};

/// Which product kernwerk::apply_q forms.
enum class qr_product {
  q_transpose_c,  ///< C := Q^T C
  q_c,            ///< C := Q C
};

/// Options of kernwerk::apply_q.
struct apply_q_options {
  qr_product product = qr_product::q_transpose_c;  ///< Q^T C or Q C
  qr_implementation implementation = qr_implementation::automatic;  ///< the code path
};

/// "auto", "generic" or "vendor"; anything else is a kernwerk::invalid_argument naming `argument`.
qr_implementation parse_qr_implementation(const std::string& text, const std::string& argument);
/// "auto", "generic" or "vendor".
const char* to_string(qr_implementation kind);
/// "reduced" or "complete"; anything else is a kernwerk::invalid_argument naming `argument`.
qr_mode parse_qr_mode(const std::string& text, const std::string& argument);
/// "reduced" or "complete".
const char* to_string(qr_mode mode);

/// A = Q R for a rank-2 View A (m x n, m >= n >= 1): Q with orthonormal columns (m x n reduced,
/// m x m complete) and R upper triangular (n x n reduced, m x n complete, zeros below the
/// diagonal written). Signs are normalised so that R's diagonal is non-negative (where A has
/// full rank this makes Q and R unique); NumPy's and LAPACK's R may differ from it in the signs
/// of rows.
///
/// \throws kernwerk::invalid_argument naming the argument, before any output is written: m < n,
/// an empty A, a non-finite value in A, Q or R of the wrong shape, Q or R sharing memory with A
/// or with each other.
/// \throws kernwerk::unsupported for implementation = vendor where the build has none.
template <class ExecutionSpace, class A, class Q, class R>
void qr(const ExecutionSpace& space, const A& a, const Q& q, const R& r,
        const qr_options& options = {}) {
  impl::scoped_region region("kernwerk::qr");
  using T = impl::dense_value_t<R>;
  impl::require_dense_views<ExecutionSpace, T, A, Q, R>();
  static_assert(A::rank == 2 && Q::rank == 2 && R::rank == 2, "kernwerk::qr: A, Q and R are rank 2");
  impl::qr_library<ExecutionSpace, T>::qr(space, impl::as_matrix<ExecutionSpace>(a), impl::as_matrix<ExecutionSpace>(q),
                                          impl::as_matrix<ExecutionSpace>(r), options);
}

/// The factored form of A = Q R, as LAPACK's geqrf gives it: `factors` (m x n) holds R on and
/// above the diagonal and the Householder vectors below it (their leading 1 implied), `tau`
/// (length n) their scalars, Q = H(0) H(1) ... H(n-1) with H(i) = I - tau(i) v_i v_i^T. R's
/// diagonal here has the signs the factorisation gives (no normalisation: the vectors and R
/// must agree). `factors` may be A itself (the same View): A is then overwritten.
///
/// \throws kernwerk::invalid_argument naming the argument, before any output is written: m < n,
/// an empty A, a non-finite value in A, factors or tau of the wrong shape, factors partly
/// overlapping A, tau sharing memory with A or factors.
/// \throws kernwerk::unsupported for implementation = vendor where the build has none.
template <class ExecutionSpace, class A, class Factors, class Tau>
void qr_factor(const ExecutionSpace& space, const A& a, const Factors& factors, const Tau& tau,
               const qr_options& options = {}) {
  impl::scoped_region region("kernwerk::qr_factor");
  using T = impl::dense_value_t<Factors>;
  impl::require_dense_views<ExecutionSpace, T, A, Factors, Tau>();
  static_assert(A::rank == 2 && Factors::rank == 2 && Tau::rank == 1,
                "kernwerk::qr_factor: A and factors are rank 2, tau rank 1");
  impl::qr_library<ExecutionSpace, T>::factor(space, impl::as_matrix<ExecutionSpace>(a),
                                              impl::as_matrix<ExecutionSpace>(factors), impl::as_matrix<ExecutionSpace>(tau),
                                              options);
}

/// C := Q^T C or C := Q C, in place, with Q (m x m) given by the factored form of
/// kernwerk::qr_factor: `factors` m x k, `tau` length k (k <= m), C m x p (rank 2) or length m
/// (rank 1).
///
/// \throws kernwerk::invalid_argument naming the argument, before C is written: shapes that do
/// not match, a non-finite value in factors, tau or C, C sharing memory with factors or tau.
/// \throws kernwerk::unsupported for implementation = vendor where the build has none.
template <class ExecutionSpace, class Factors, class Tau, class C>
void apply_q(const ExecutionSpace& space, const Factors& factors, const Tau& tau, const C& c,
             const apply_q_options& options = {}) {
  impl::scoped_region region("kernwerk::apply_q");
  using T = impl::dense_value_t<C>;
  impl::require_dense_views<ExecutionSpace, T, Factors, Tau, C>();
  static_assert(Factors::rank == 2 && Tau::rank == 1 && (C::rank == 1 || C::rank == 2),
                "kernwerk::apply_q: factors rank 2, tau rank 1, C rank 1 or 2");
  impl::qr_library<ExecutionSpace, T>::apply_q(space, impl::as_matrix<ExecutionSpace>(factors),
                                               impl::as_matrix<ExecutionSpace>(tau), impl::as_matrix<ExecutionSpace>(c), options);
}

/// The least-squares solution X of min ||A X - B|| (Frobenius) for A m x n of full rank
/// (m >= n), through A's QR factorisation: B m x p and X n x p (rank 2), or B length m and X
/// length n (rank 1).
///
/// \throws kernwerk::invalid_argument naming the argument, before X is written: m < n, an empty
/// A, shapes that do not match, a non-finite value in A or B, X sharing memory with A or B;
/// naming "a" when A is rank deficient (a zero on R's diagonal).
/// \throws kernwerk::unsupported for implementation = vendor where the build has none.
template <class ExecutionSpace, class A, class B, class X>
void solve_least_squares(const ExecutionSpace& space, const A& a, const B& b, const X& x,
                         const qr_options& options = {}) {
  impl::scoped_region region("kernwerk::solve_least_squares");
  using T = impl::dense_value_t<X>;
  impl::require_dense_views<ExecutionSpace, T, A, B, X>();
  static_assert(A::rank == 2 && int(B::rank) == int(X::rank) && (X::rank == 1 || X::rank == 2),
                "kernwerk::solve_least_squares: A rank 2; B and X both rank 1 or both rank 2");
  impl::qr_library<ExecutionSpace, T>::solve_least_squares(space, impl::as_matrix<ExecutionSpace>(a),
                                                           impl::as_matrix<ExecutionSpace>(b),
                                                           impl::as_matrix<ExecutionSpace>(x), options);
}

}  // namespace kernwerk

#pragma once
/// \file
/// Fast Fourier transforms through the vendors' libraries (FFTW 3 with threads on the host,
/// cuFFT on CUDA): complex-to-complex and real-to-complex / complex-to-real, 1-D, batched 1-D
/// and 2-D, forward and inverse, float and double, in place (complex) and out of place.
///
/// Conventions, as NumPy's numpy.fft: the forward transform is
/// X(k) = sum_j x(j) exp(-2 pi i j k / N), the inverse has the opposite sign, and with the
/// default normalisation (backward) only the inverse is scaled, by 1/N (N: the points of one
/// transform, rows x columns for a plane).
///
/// Layouts: a plan is made for row-major Views (LayoutRight, NumPy's C order, the default) or
/// column-major ones (LayoutLeft, Fortran's order); the Views must be contiguous in that order
/// (a LayoutStride View qualifies when its strides are those). The contiguous axis is the one
/// a batch of lines runs along and the one a real transform halves: a batch of `count` lines
/// of length n is a (count, n) row-major View or an (n, count) column-major one, and the
/// complex side of a real transform of length n along that axis has n/2 + 1 entries
/// (numpy.fft.rfft's and rfft2's shapes for row-major Views).
///
/// Complex data are Views of Kokkos::complex<Real>; the Views must lie in memory the plan's
/// execution space reaches. The library compiles the transforms once for each execution space
/// of the build; a space without an FFT library in this build (HIP here, or a host build
/// without FFTW) raises kernwerk::unsupported when a plan is made.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "kernwerk/impl/dense/views.hpp"
#include "kernwerk/impl/dense/fft_library.hpp"
#include "kernwerk/impl/profiling.hpp"

namespace kernwerk {

/// What a shape transforms.
enum class fft_form {
  line,   ///< one 1-D transform
  lines,  ///< a batch of 1-D transforms along the contiguous axis
  plane,  ///< one 2-D transform
};

/// The size of the transforms a plan computes, in points of the real or complex signal (the
/// full length, not the halved complex side of a real transform).
struct fft_shape {
  fft_form form = fft_form::line;  ///< line, lines or plane
  std::int64_t count = 1;          ///< lines: transforms in the batch (1 otherwise)
  std::int64_t rows = 1;           ///< plane: rows of the View (1 otherwise)
  std::int64_t length = 0;         ///< line, lines: points of one transform; plane: columns

  /// One transform of n points: rank-1 Views of length n.
  static fft_shape line(std::int64_t n) { return {fft_form::line, 1, 1, n}; }
  /// `count` transforms of n points each: (count, n) row-major or (n, count) column-major.
  static fft_shape lines(std::int64_t count, std::int64_t n) { return {fft_form::lines, count, 1, n}; }
  /// One 2-D transform of a (rows, columns) View, in either layout.
  static fft_shape plane(std::int64_t rows, std::int64_t columns) {
    return {fft_form::plane, 1, rows, columns};
  }
};

/// Which transforms a plan computes.
enum class fft_kind {
  complex,  ///< complex to complex, forward and inverse
  real,     ///< forward: real to complex (the half spectrum); inverse: complex to real
};

/// Which direction is scaled, as NumPy's `norm` argument.
enum class fft_normalization {
  backward,  ///< forward unscaled, inverse by 1/N (NumPy's default)
  ortho,     ///< both by 1/sqrt(N)
  forward,   ///< forward by 1/N, inverse unscaled
};

/// The normalisation named "backward", "ortho" or "forward" (NumPy's `norm`); anything else
/// is kernwerk::invalid_argument naming `argument`.
fft_normalization parse_fft_normalization(const std::string& text, const std::string& argument);
/// The name parse_fft_normalization takes.
const char* to_string(fft_normalization normalization);

/// The memory order of the Views a plan takes.
enum class fft_layout {
  row_major,     ///< LayoutRight: the last index contiguous (C, NumPy)
  column_major,  ///< LayoutLeft: the first index contiguous (Fortran)
};

/// Options of kernwerk::fft_plan and the one-shot calls.
struct fft_options {
  fft_kind kind = fft_kind::complex;                               ///< complex or real
  fft_normalization normalization = fft_normalization::backward;  ///< which direction is scaled
  fft_layout layout = fft_layout::row_major;                       ///< the Views' memory order
  /// Check the input for NaN and infinity before each transform: a non-finite value is then
  /// an error naming "in", at the cost of one more read of the input (on the H200 a fifth of a
  /// transform's time: perf/results/dense-cuda-h200.json). Off by default, as in NumPy, CuPy,
  /// FFTW and cuFFT: a NaN or an infinity in the input then propagates, and the outputs of the
  /// transform that holds it (its line; the whole plane of a 2-D transform) are NaN or infinite
  /// (a complex-to-real transform ignores the imaginary parts of its first bin and, for an even
  /// length, its last, as numpy.fft.irfft does, wherever they are NaN).
  bool check_input = false;
};

/// A plan for repeated transforms of one shape, kind, precision and layout on one execution
/// space: it holds the vendor's plans and their work areas (and, for a real plan, the copy of
/// the complex input that the complex-to-real transform would otherwise overwrite), and may be
/// used for any number of transforms of Views of its shape. Copies of a plan share the vendor's
/// plans; one plan must not run on two threads at once.
///
/// \tparam Real float or double, the precision of the data.
template <class ExecutionSpace, class Real = double>
class fft_plan {
  static_assert(std::is_same_v<Real, float> || std::is_same_v<Real, double>,
                "kernwerk::fft_plan: Real is float or double");

 public:
  /// Makes the vendor's plans.
  /// \throws kernwerk::invalid_argument naming "shape" for a size below 1 (or a form with
  /// count or rows set that it does not use).
  /// \throws kernwerk::unsupported naming "space" where the build has no FFT library for it.
  fft_plan(const ExecutionSpace& space, const fft_shape& shape, const fft_options& options = {})
      : space_(space),
        engine_(impl::fft_library<ExecutionSpace, Real>::plan(space, as_problem(shape, options))) {}

  /// out := the forward transform of in. Complex plans: complex in and out of the shape (the
  /// same View for a transform in place). Real plans: real in of the shape, complex out with
  /// the contiguous axis halved (n/2 + 1).
  /// \throws kernwerk::invalid_argument naming "in" or "out", before out is written: a View of
  /// the wrong shape, one not contiguous in the plan's layout, outputs partly overlapping the
  /// input, a non-finite input value (with check_input).
  template <class In, class Out>
  void forward(const In& in, const Out& out) const {
    transform(true, in, out);
  }

  /// out := the inverse transform of in. Complex plans as forward; real plans: complex in with
  /// the contiguous axis halved, real out of the shape (the input is left as it was: the plan
  /// transforms a copy of it). The input is taken to be the half spectrum of a real signal, as
  /// NumPy's irfft takes it; for one that is not, the result is the library's.
  /// \throws kernwerk::invalid_argument as forward.
  template <class In, class Out>
  void inverse(const In& in, const Out& out) const {
    transform(false, in, out);
  }

  /// The execution space the plan transforms on.
  const ExecutionSpace& space() const { return space_; }

 private:
  static impl::fft_problem as_problem(const fft_shape& shape, const fft_options& options) {
    impl::fft_problem problem;
    problem.form = int(shape.form);
    problem.count = shape.count;
    problem.rows = shape.rows;
    problem.length = shape.length;
    problem.real = options.kind == fft_kind::real;
    problem.normalization = int(options.normalization);
    problem.column_major = options.layout == fft_layout::column_major;
    problem.check_input = options.check_input;
    return problem;
  }

  template <class In, class Out>
  void transform(bool forward, const In& in, const Out& out) const {
    impl::scoped_region region(forward ? "kernwerk::fft_plan::forward" : "kernwerk::fft_plan::inverse");
    static_assert(Kokkos::is_view<In>::value && Kokkos::is_view<Out>::value,
                  "kernwerk::fft_plan: in and out are Kokkos Views");
    static_assert(In::rank <= 2 && Out::rank <= 2, "kernwerk::fft_plan: Views of rank 1 or 2");
    using in_value = typename In::non_const_value_type;
    using out_value = typename Out::value_type;
    using complex = Kokkos::complex<Real>;
    static_assert((std::is_same_v<in_value, complex> || std::is_same_v<in_value, Real>) &&
                      (std::is_same_v<out_value, complex> || std::is_same_v<out_value, Real>),
                  "kernwerk::fft_plan: Views of Kokkos::complex<Real> or Real (writable out)");
    static_assert(!(std::is_same_v<in_value, Real> && std::is_same_v<out_value, Real>),
                  "kernwerk::fft_plan: a transform has a complex side");
    impl::require_dense_views<ExecutionSpace, in_value, In>();
    impl::require_dense_views<ExecutionSpace, out_value, Out>();
    impl::fft_library<ExecutionSpace, Real>::transform(
        space_, *engine_, forward, impl::as_matrix<ExecutionSpace>(in),
        impl::as_matrix<ExecutionSpace>(out), int(In::rank), int(Out::rank));
  }

  ExecutionSpace space_;
  std::shared_ptr<const impl::fft_engine> engine_;
};

/// Deduction guide: a plan made without naming the precision is for double.
template <class ExecutionSpace>
fft_plan(const ExecutionSpace&, const fft_shape&, const fft_options& = {})
    -> fft_plan<ExecutionSpace, double>;

/// One forward transform (a plan made and dropped; keep a kernwerk::fft_plan for repeated
/// transforms). The precision is that of the Views.
template <class ExecutionSpace, class In, class Out>
void fft(const ExecutionSpace& space, const fft_shape& shape, const In& in, const Out& out,
         const fft_options& options = {}) {
  using real = typename impl::fft_real_of<typename Out::non_const_value_type>::type;
  fft_plan<ExecutionSpace, real>(space, shape, options).forward(in, out);
}

/// One inverse transform, as kernwerk::fft.
template <class ExecutionSpace, class In, class Out>
void ifft(const ExecutionSpace& space, const fft_shape& shape, const In& in, const Out& out,
          const fft_options& options = {}) {
  using real = typename impl::fft_real_of<typename Out::non_const_value_type>::type;
  fft_plan<ExecutionSpace, real>(space, shape, options).inverse(in, out);
}

}  // namespace kernwerk

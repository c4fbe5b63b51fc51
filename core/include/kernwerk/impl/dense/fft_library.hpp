#pragma once
// The FFT calls the library compiles for each execution space of the build, float and double
// (their definitions: kernwerk/impl/dense/fft_calls.hpp, included only by the library), and the
// vendor plans behind them.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>

#include "kernwerk/impl/dense/views.hpp"

namespace kernwerk::impl {

// kernwerk::fft_shape and fft_options as the library takes them (the enums as ints).
struct fft_problem {
  int form = 0;  // fft_form: line, lines, plane
  std::int64_t count = 1, rows = 1, length = 0;
  bool real = false;
  int normalization = 0;  // fft_normalization: backward, ortho, forward
  bool column_major = false;
  bool check_input = false;
};

// A plan of the vendor's library for one problem in memory order: `batch` transforms over
// `dims` (rank 1 or 2, the last contiguous), each batch entry following the previous one.
struct fft_vendor_problem {
  bool real = false;    // forward real to complex, inverse complex to real
  bool single = false;  // float, else double
  int rank = 1;
  std::int64_t dims[2] = {1, 1};
  std::int64_t batch = 1;
  int threads = 1;  // host libraries: the threads to use
};
class fft_vendor_plan {
 public:
  virtual ~fft_vendor_plan() = default;
  // out := the unscaled transform of in (in == out: in place, complex transforms only). The
  // complex-to-real transform may overwrite its input.
  virtual void execute(bool forward, void* in, void* out) const = 0;
};

// What a kernwerk::fft_plan holds (dense/fft_calls.hpp derives the space's own).
class fft_engine {
 public:
  virtual ~fft_engine() = default;
};

template <class Space, class Real>
struct fft_library {
  using complex = Kokkos::complex<Real>;
  static std::shared_ptr<const fft_engine> plan(const Space& space, const fft_problem& problem);
  // the View ranks as the caller gave them (a rank-1 View arrives as one column)
  static void transform(const Space& space, const fft_engine& engine, bool forward,
                        const dense_matrix<Space, const complex>& in,
                        const dense_matrix<Space, complex>& out, int in_rank, int out_rank);
  static void transform(const Space& space, const fft_engine& engine, bool forward,
                        const dense_matrix<Space, const Real>& in,
                        const dense_matrix<Space, complex>& out, int in_rank, int out_rank);
  static void transform(const Space& space, const fft_engine& engine, bool forward,
                        const dense_matrix<Space, const complex>& in,
                        const dense_matrix<Space, Real>& out, int in_rank, int out_rank);
};

// The precision of a View's values (Real or Kokkos::complex<Real>).
template <class T>
struct fft_real_of {
  using type = T;
};
template <class T>
struct fft_real_of<Kokkos::complex<T>> {
  using type = T;
};

}  // namespace kernwerk::impl

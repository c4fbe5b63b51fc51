#pragma once
// The definitions of kernwerk/impl/dense/fft_library.hpp, compiled by the library for each execution
// space and float and double: the plan's checks, the copy a complex-to-real transform needs,
// the vendor's transform and the normalisation.
#include <Kokkos_Core.hpp>

#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/impl/dense/fft_library.hpp"
#include "kernwerk/impl/dense/fft_vendor.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace kernwerk::impl {

template <class Space, class Real>
class fft_engine_of : public fft_engine {
 public:
  using complex = Kokkos::complex<Real>;
  fft_problem problem;
  std::unique_ptr<fft_vendor_plan> vendor;
  // The View extents of the signal (the shape) and of the complex side of a real transform.
  std::int64_t signal[2] = {1, 1}, half[2] = {1, 1};
  int rank = 1;         // of the Views
  double points = 1;    // of one transform
  // real plans: the complex input of an inverse, which the vendor's transform overwrites
  Kokkos::View<complex*, typename Space::memory_space> scratch;
};

inline std::string extents_text(int rank, const std::int64_t* e) {
  return rank == 1 ? "(" + std::to_string(e[0]) + ")"
                   : "(" + std::to_string(e[0]) + ", " + std::to_string(e[1]) + ")";
}

template <class Space, class Real>
std::shared_ptr<const fft_engine> fft_library<Space, Real>::plan(const Space& space,
                                                                 const fft_problem& problem) {
  constexpr const char* fn = "fft_plan";
  const auto form = fft_form(problem.form);
  if (problem.length < 1 || problem.count < 1 || problem.rows < 1)
    throw invalid_argument(fn, "shape",
                           "sizes must be at least 1, got count " + std::to_string(problem.count) +
                               ", rows " + std::to_string(problem.rows) + ", length " +
                               std::to_string(problem.length));
  if ((form != fft_form::lines && problem.count != 1) || (form != fft_form::plane && problem.rows != 1))
    throw invalid_argument(fn, "shape",
                           "count is for lines and rows for a plane (make shapes with "
                           "fft_shape::line, lines or plane)");
  using vendor = fft_vendor<Space>;
  if constexpr (!vendor::available) {
    (void)space;
    throw unsupported(fn, "space",
                      std::string("this build has no FFT library for ") + Space::name() +
                          " (FFTW on host spaces, cuFFT on CUDA)");
  } else {
    auto engine = std::make_shared<fft_engine_of<Space, Real>>();
    engine->problem = problem;
    fft_vendor_problem v;
    v.real = problem.real;
    v.single = std::is_same_v<Real, float>;
    v.threads = int(space.concurrency());
    const bool column_major = problem.column_major;
    switch (form) {
      case fft_form::line:
        engine->rank = 1;
        engine->signal[0] = problem.length;
        engine->half[0] = problem.length / 2 + 1;
        v.rank = 1;
        v.dims[0] = problem.length;
        break;
      case fft_form::lines:
        engine->rank = 2;
        v.rank = 1;
        v.dims[0] = problem.length;
        v.batch = problem.count;
        engine->signal[column_major ? 0 : 1] = problem.length;
        engine->signal[column_major ? 1 : 0] = problem.count;
        engine->half[column_major ? 0 : 1] = problem.length / 2 + 1;
        engine->half[column_major ? 1 : 0] = problem.count;
        break;
      case fft_form::plane:
        engine->rank = 2;
        v.rank = 2;
        v.dims[0] = column_major ? problem.length : problem.rows;
        v.dims[1] = column_major ? problem.rows : problem.length;
        engine->signal[0] = problem.rows;
        engine->signal[1] = problem.length;
        engine->half[0] = column_major ? problem.rows / 2 + 1 : problem.rows;
        engine->half[1] = column_major ? problem.length : problem.length / 2 + 1;
        break;
    }
    engine->points = double(v.dims[0]) * double(v.rank == 2 ? v.dims[1] : 1);
    if (!problem.real) {
      engine->half[0] = engine->signal[0];
      engine->half[1] = engine->signal[1];
    } else {
      engine->scratch = Kokkos::View<complex*, typename Space::memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::fft::scratch"),
          engine->half[0] * engine->half[1]);
    }
    engine->vendor = vendor::make(space, v);
    return engine;
  }
}

template <class Space, class Real>
struct fft_steps {
  using engine_type = fft_engine_of<Space, Real>;

  // A View of the expected extents, contiguous in the plan's layout.
  template <class Matrix>
  static void require_view(const engine_type& e, const char* name, const Matrix& v, int rank,
                           const std::int64_t* extents, const char* side) {
    constexpr const char* fn = "fft_plan";
    if (rank != e.rank)
      throw invalid_argument(fn, name,
                             "is a rank-" + std::to_string(rank) + " View; this plan takes rank " +
                                 std::to_string(e.rank));
    const std::int64_t e0 = v.extent(0), e1 = v.extent(1);
    if (e0 != extents[0] || (rank == 2 && e1 != extents[1]))
      throw invalid_argument(fn, name,
                             "has extents " + extents_text(rank, std::array<std::int64_t, 2>{e0, e1}.data()) +
                                 ", not the plan's " + extents_text(rank, extents) + " (" + side + ")");
    bool contiguous;
    if (rank == 1) contiguous = e0 < 2 || v.stride(0) == 1;
    else if (e.problem.column_major)
      contiguous = (e0 < 2 || v.stride(0) == 1) && (e1 < 2 || std::int64_t(v.stride(1)) == e0);
    else
      contiguous = (e1 < 2 || v.stride(1) == 1) && (e0 < 2 || std::int64_t(v.stride(0)) == e1);
    if (!contiguous)
      throw invalid_argument(fn, name,
                             std::string("is not contiguous in the plan's layout (") +
                                 (e.problem.column_major ? "column-major, LayoutLeft" : "row-major, LayoutRight") + ")");
  }

  // The View is contiguous (require_view): its values are read as one flat array of Real.
  template <class Matrix>
  static void require_finite(const Space& space, const char* name, const Matrix& v) {
    using value = typename Matrix::non_const_value_type;
    const std::int64_t count = std::int64_t(v.size()) * std::int64_t(sizeof(value) / sizeof(Real));
    if (holds_non_finite(space, reinterpret_cast<const Real*>(v.data()), count))
      throw invalid_argument("fft_plan", name, "holds a non-finite value");
  }

  template <class Matrix>
  static void scale(const Space& space, const Matrix& v, Real factor) {
    const std::int64_t rows = v.extent(0), cols = v.extent(1);
    Kokkos::parallel_for(
        "kernwerk::fft::normalise",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(space, 0, rows * cols),
        KOKKOS_LAMBDA(std::int64_t k) { v(k % rows, k / rows) *= factor; });
  }

  template <class In, class Out>
  static void run(const Space& space, const fft_engine& base, bool forward, const In& in,
                  const Out& out, int in_rank, int out_rank, bool in_complex, bool out_complex) {
    const auto& e = static_cast<const engine_type&>(base);
    const bool real = e.problem.real;
    if (!real && !(in_complex && out_complex))
      throw invalid_argument("fft_plan", in_complex ? "out" : "in",
                             "is real; a complex plan transforms complex Views (make the plan "
                             "with fft_kind::real for real data)");
    if (real && (forward ? in_complex : !in_complex))
      throw invalid_argument("fft_plan", "in",
                             forward ? "is complex; a real plan's forward transform takes real input"
                                     : "is real; a real plan's inverse transform takes the complex half spectrum");
    if (real && (forward ? !out_complex : out_complex))
      throw invalid_argument("fft_plan", "out",
                             forward ? "is real; a real plan's forward transform gives the complex half spectrum"
                                     : "is complex; a real plan's inverse transform gives the real signal");
    const std::int64_t* in_extents = real && !forward ? e.half : e.signal;
    const std::int64_t* out_extents = real && forward ? e.half : e.signal;
    require_view(e, "in", in, in_rank, in_extents,
                 real && !forward ? "the complex half spectrum" : "the signal");
    require_view(e, "out", out, out_rank, out_extents,
                 real && forward ? "the complex half spectrum" : "the signal");
    const bool in_place = static_cast<const void*>(in.data()) == static_cast<const void*>(out.data()) &&
                          in.stride(0) == out.stride(0) && in.stride(1) == out.stride(1);
    if (!(in_place && !real)) require_disjoint("fft_plan", "out", out, "in", in);
    if (e.problem.check_input) require_finite(space, "in", in);

    void* source = const_cast<void*>(static_cast<const void*>(in.data()));
    if (real && !forward) {
      Kokkos::deep_copy(space, e.scratch,
                        Kokkos::View<const typename engine_type::complex*, typename Space::memory_space,
                                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                            reinterpret_cast<const typename engine_type::complex*>(in.data()),
                            e.scratch.extent(0)));
      source = e.scratch.data();
    }
    if constexpr (!fft_vendor<Space>::stream_ordered) space.fence();
    e.vendor->execute(forward, source, out.data());
    const auto normalization = fft_normalization(e.problem.normalization);
    double factor = 1;
    if (normalization == fft_normalization::ortho) factor = 1 / std::sqrt(e.points);
    else if ((normalization == fft_normalization::backward) != forward) factor = 1 / e.points;
    if (factor != 1) scale(space, out, Real(factor));
    if constexpr (!fft_vendor<Space>::stream_ordered) space.fence();
  }
};

template <class Space, class Real>
void fft_library<Space, Real>::transform(const Space& space, const fft_engine& engine,
                                         bool forward, const dense_matrix<Space, const complex>& in,
                                         const dense_matrix<Space, complex>& out, int in_rank,
                                         int out_rank) {
  fft_steps<Space, Real>::run(space, engine, forward, in, out, in_rank, out_rank, true, true);
}
template <class Space, class Real>
void fft_library<Space, Real>::transform(const Space& space, const fft_engine& engine,
                                         bool forward, const dense_matrix<Space, const Real>& in,
                                         const dense_matrix<Space, complex>& out, int in_rank,
                                         int out_rank) {
  fft_steps<Space, Real>::run(space, engine, forward, in, out, in_rank, out_rank, false, true);
}
template <class Space, class Real>
void fft_library<Space, Real>::transform(const Space& space, const fft_engine& engine,
                                         bool forward, const dense_matrix<Space, const complex>& in,
                                         const dense_matrix<Space, Real>& out, int in_rank,
                                         int out_rank) {
  fft_steps<Space, Real>::run(space, engine, forward, in, out, in_rank, out_rank, true, false);
}

}  // namespace kernwerk::impl

// The library's instances (core/CMakeLists.txt writes one unit per execution space).
#define KERNWERK_FFT_INSTANCES(Space)                          \
  template struct kernwerk::impl::fft_library<Space, double>; \
  template struct kernwerk::impl::fft_library<Space, float>;

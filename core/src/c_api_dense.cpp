// The C interface of QR and the FFT (kernwerk.h): kw_qr, kw_qr_factor, kw_apply_q,
// kw_solve_least_squares over pointers with a layout and leading dimensions, and kw_fft_plan,
// which holds a kernwerk::fft_plan of the plan's type and space.
#include "kernwerk.h"
#include "c_api_support.hpp"

#include <cstdint>
#include <memory>
#include <type_traits>

#include "kernwerk/fft.hpp"
#include "kernwerk/qr.hpp"

using namespace kernwerk::c_api;

// A kernwerk::fft_plan behind the C handle (fft_plan_of below).
struct kw_fft_plan {
  kw_type type;
  kw_memory memory;
  virtual ~kw_fft_plan() = default;
  virtual void transform(const char* fn, bool forward, const void* in, void* out) const = 0;
};

namespace {

kernwerk::qr_implementation implementation_of(const char* fn, kw_qr_implementation implementation) {
  require(implementation >= KW_QR_AUTOMATIC && implementation <= KW_QR_VENDOR, fn, "implementation",
          "is not KW_QR_AUTOMATIC, KW_QR_GENERIC or KW_QR_VENDOR");
  return kernwerk::qr_implementation(implementation);
}

// The sizes, pointers and places of a QR call's matrices.
void require_matrices(const char* fn, kw_memory memory,
                      std::initializer_list<std::pair<const char*, int64_t>> counts,
                      std::initializer_list<std::pair<const char*, const void*>> pointers) {
  for (auto [name, count] : counts) require_count(fn, name, count);
  for (auto [name, pointer] : pointers) require_location(fn, name, pointer, memory);
}

template <class V, class Space>
using array1 = Kokkos::View<V*, typename Space::memory_space, Kokkos::MemoryUnmanaged>;
template <class V, class Layout, class Space>
using array2 = Kokkos::View<V**, Layout, typename Space::memory_space, Kokkos::MemoryUnmanaged>;

template <class Space, class Real>
struct fft_plan_of final : kw_fft_plan {
  using complex = Kokkos::complex<Real>;
  kernwerk::fft_plan<Space, Real> plan;
  bool real, column_major;
  int rank;
  // The array extents of the signal and of the complex side (the half spectrum of a real plan).
  int64_t signal[2], half[2];

  fft_plan_of(const kw_fft_shape& shape, const kernwerk::fft_options& options)
      : plan(Space(), kernwerk::fft_shape{kernwerk::fft_form(shape.form), shape.count, shape.rows, shape.length},
             options),
        real(options.kind == kernwerk::fft_kind::real),
        column_major(options.layout == kernwerk::fft_layout::column_major),
        rank(shape.form == KW_FFT_LINE ? 1 : 2) {
    const int64_t along = shape.form == KW_FFT_LINES ? shape.count : shape.rows;
    signal[0] = column_major && shape.form == KW_FFT_LINES ? shape.length : along;
    signal[1] = column_major && shape.form == KW_FFT_LINES ? shape.count : shape.length;
    if (rank == 1) signal[0] = shape.length;
    half[0] = signal[0];
    half[1] = signal[1];
    if (real) {
      // the contiguous axis is halved
      if (rank == 1) half[0] = signal[0] / 2 + 1;
      else if (column_major) half[0] = signal[0] / 2 + 1;
      else half[1] = signal[1] / 2 + 1;
    }
  }

  template <class In, class Out>
  void run(bool forward, const In* in, const int64_t* in_extents, Out* out,
           const int64_t* out_extents) const {
    const auto go = [&](const auto& i, const auto& o) {
      if (forward) plan.forward(i, o);
      else plan.inverse(i, o);
    };
    if (rank == 1)
      go(array1<const In, Space>(in, in_extents[0]), array1<Out, Space>(out, out_extents[0]));
    else if (column_major)
      go(array2<const In, Kokkos::LayoutLeft, Space>(in, in_extents[0], in_extents[1]),
         array2<Out, Kokkos::LayoutLeft, Space>(out, out_extents[0], out_extents[1]));
    else
      go(array2<const In, Kokkos::LayoutRight, Space>(in, in_extents[0], in_extents[1]),
         array2<Out, Kokkos::LayoutRight, Space>(out, out_extents[0], out_extents[1]));
  }

  void transform(const char* fn, bool forward, const void* in, void* out) const override {
    if (foreign_thread<Space>()) refuse_foreign_thread(fn, "a plan made there is used there");
    require(in != nullptr, fn, "in", "is NULL");
    require(out != nullptr, fn, "out", "is NULL");
    require_location(fn, "in", in, memory);
    require_location(fn, "out", out, memory);
    // Kokkos::complex<Real> is aligned to its size, as C's _Complex types are.
    const auto require_complex = [&](const char* name, const void* p) {
      require(reinterpret_cast<std::uintptr_t>(p) % alignof(complex) == 0, fn, name,
              "is not aligned to " + std::to_string(alignof(complex)) +
                  " bytes, as an array of complex values of this type is");
    };
    if (!real) {
      require_complex("in", in);
      require_complex("out", out);
      run(forward, static_cast<const complex*>(in), signal, static_cast<complex*>(out), signal);
    } else if (forward) {
      require_complex("out", out);
      run(true, static_cast<const Real*>(in), signal, static_cast<complex*>(out), half);
    } else {
      require_complex("in", in);
      run(false, static_cast<const complex*>(in), half, static_cast<Real*>(out), signal);
    }
  }
};

kernwerk::fft_options fft_options_of(const char* fn, const kw_fft_options* options) {
  kernwerk::fft_options cpp;
  if (!options) return cpp;
  require(options->real == 0 || options->real == 1, fn, "options->real", "is not 0 or 1");
  require(options->normalization >= 0 && options->normalization <= 2, fn, "options->normalization",
          "is not 0 (backward), 1 (ortho) or 2 (forward)");
  require(options->layout == KW_ROW_MAJOR || options->layout == KW_COLUMN_MAJOR, fn,
          "options->layout", "is neither KW_ROW_MAJOR nor KW_COLUMN_MAJOR");
  require(options->check_input == 0 || options->check_input == 1, fn, "options->check_input",
          "is not 0 or 1");
  cpp.kind = options->real ? kernwerk::fft_kind::real : kernwerk::fft_kind::complex;
  cpp.normalization = kernwerk::fft_normalization(options->normalization);
  cpp.layout = options->layout == KW_COLUMN_MAJOR ? kernwerk::fft_layout::column_major
                                                  : kernwerk::fft_layout::row_major;
  cpp.check_input = options->check_input == 1;
  return cpp;
}

}  // namespace

extern "C" {

kw_status kw_qr(kw_type type, kw_memory memory, kw_layout layout, kw_qr_mode mode,
                kw_qr_implementation implementation, int64_t m, int64_t n, const void* a,
                int64_t lda, void* q, int64_t ldq, void* r, int64_t ldr) {
  constexpr const char* fn = "kw_qr";
  return guarded(fn, [&] {
    require_matrices(fn, memory, {{"m", m}, {"n", n}}, {{"a", a}, {"q", q}, {"r", r}});
    require(mode == KW_QR_REDUCED || mode == KW_QR_COMPLETE, fn, "mode",
            "is neither KW_QR_REDUCED nor KW_QR_COMPLETE");
    kernwerk::qr_options options;
    options.mode = mode == KW_QR_COMPLETE ? kernwerk::qr_mode::complete : kernwerk::qr_mode::reduced;
    options.implementation = implementation_of(fn, implementation);
    const int64_t q_columns = mode == KW_QR_COMPLETE ? m : n, r_rows = mode == KW_QR_COMPLETE ? m : n;
    with_space_and_type(fn, memory, type, [&](auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      kernwerk::qr(space, matrix_of<const T, Space>(fn, "a", "lda", static_cast<const T*>(a), layout, m, n, lda),
                   matrix_of<T, Space>(fn, "q", "ldq", static_cast<T*>(q), layout, m, q_columns, ldq),
                   matrix_of<T, Space>(fn, "r", "ldr", static_cast<T*>(r), layout, r_rows, n, ldr), options);
    });
  });
}

kw_status kw_qr_factor(kw_type type, kw_memory memory, kw_layout layout,
                       kw_qr_implementation implementation, int64_t m, int64_t n, const void* a,
                       int64_t lda, void* factors, int64_t ldf, void* tau) {
  constexpr const char* fn = "kw_qr_factor";
  return guarded(fn, [&] {
    require_matrices(fn, memory, {{"m", m}, {"n", n}}, {{"a", a}, {"factors", factors}, {"tau", tau}});
    require_pointer(fn, "tau", tau, n);
    kernwerk::qr_options options;
    options.implementation = implementation_of(fn, implementation);
    with_space_and_type(fn, memory, type, [&](auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      kernwerk::qr_factor(space, matrix_of<const T, Space>(fn, "a", "lda", static_cast<const T*>(a), layout, m, n, lda),
                          matrix_of<T, Space>(fn, "factors", "ldf", static_cast<T*>(factors), layout, m, n, ldf),
                          vector_of<T, Space>(static_cast<T*>(tau), n, 1), options);
    });
  });
}

kw_status kw_apply_q(kw_type type, kw_memory memory, kw_layout layout, kw_qr_product product,
                     kw_qr_implementation implementation, int64_t m, int64_t n,
                     const void* factors, int64_t ldf, const void* tau, int64_t columns, void* c,
                     int64_t ldc) {
  constexpr const char* fn = "kw_apply_q";
  return guarded(fn, [&] {
    require_matrices(fn, memory, {{"m", m}, {"n", n}, {"columns", columns}},
                     {{"factors", factors}, {"tau", tau}, {"c", c}});
    require_pointer(fn, "tau", tau, n);
    require(product == KW_QR_Q_TRANSPOSE_C || product == KW_QR_Q_C, fn, "product",
            "is neither KW_QR_Q_TRANSPOSE_C nor KW_QR_Q_C");
    kernwerk::apply_q_options options;
    options.product = product == KW_QR_Q_C ? kernwerk::qr_product::q_c : kernwerk::qr_product::q_transpose_c;
    options.implementation = implementation_of(fn, implementation);
    with_space_and_type(fn, memory, type, [&](auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      kernwerk::apply_q(space,
                        matrix_of<const T, Space>(fn, "factors", "ldf", static_cast<const T*>(factors), layout, m, n, ldf),
                        vector_of<const T, Space>(static_cast<const T*>(tau), n, 1),
                        matrix_of<T, Space>(fn, "c", "ldc", static_cast<T*>(c), layout, m, columns, ldc), options);
    });
  });
}

kw_status kw_solve_least_squares(kw_type type, kw_memory memory, kw_layout layout,
                                 kw_qr_implementation implementation, int64_t m, int64_t n,
                                 const void* a, int64_t lda, int64_t columns, const void* b,
                                 int64_t ldb, void* x, int64_t ldx) {
  constexpr const char* fn = "kw_solve_least_squares";
  return guarded(fn, [&] {
    require_matrices(fn, memory, {{"m", m}, {"n", n}, {"columns", columns}}, {{"a", a}, {"b", b}, {"x", x}});
    kernwerk::qr_options options;
    options.implementation = implementation_of(fn, implementation);
    with_space_and_type(fn, memory, type, [&](auto space, auto tag) {
      using Space = decltype(space);
      using T = typename decltype(tag)::type;
      kernwerk::solve_least_squares(
          space, matrix_of<const T, Space>(fn, "a", "lda", static_cast<const T*>(a), layout, m, n, lda),
          matrix_of<const T, Space>(fn, "b", "ldb", static_cast<const T*>(b), layout, m, columns, ldb),
          matrix_of<T, Space>(fn, "x", "ldx", static_cast<T*>(x), layout, n, columns, ldx), options);
    });
  });
}

void kw_fft_options_default(kw_fft_options* options) {
  if (options) *options = kw_fft_options{0, 0, KW_ROW_MAJOR, 0};
}

kw_status kw_fft_plan_create(kw_type type, kw_memory memory, const kw_fft_shape* shape,
                             const kw_fft_options* options, kw_fft_plan** plan) {
  constexpr const char* fn = "kw_fft_plan_create";
  return guarded(fn, [&] {
    require(plan != nullptr, fn, "plan", "is NULL");
    require(shape != nullptr, fn, "shape", "is NULL");
    require(shape->form >= KW_FFT_LINE && shape->form <= KW_FFT_PLANE, fn, "shape->form",
            "is not KW_FFT_LINE, KW_FFT_LINES or KW_FFT_PLANE");
    const auto cpp = fft_options_of(fn, options);
    with_space_and_type(fn, memory, type, [&](auto space, auto tag) {
      using Space = decltype(space);
      using Real = typename decltype(tag)::type;
      auto made = std::make_unique<fft_plan_of<Space, Real>>(*shape, cpp);
      made->type = type;
      made->memory = memory;
      *plan = made.release();
    });
  });
}

kw_status kw_fft_forward(const kw_fft_plan* plan, const void* in, void* out) {
  constexpr const char* fn = "kw_fft_forward";
  return guarded(fn, [&] {
    require(plan != nullptr, fn, "plan", "is NULL");
    plan->transform(fn, true, in, out);
  });
}

kw_status kw_fft_inverse(const kw_fft_plan* plan, const void* in, void* out) {
  constexpr const char* fn = "kw_fft_inverse";
  return guarded(fn, [&] {
    require(plan != nullptr, fn, "plan", "is NULL");
    plan->transform(fn, false, in, out);
  });
}

kw_status kw_fft_plan_destroy(kw_fft_plan* plan) {
  if (!plan) return KW_SUCCESS;
  // The plan's vendor plan and work area belong to the backend: after kw_finalize they cannot
  // be given back.
  if (!Kokkos::is_initialized())
    return fail(KW_NOT_INITIALIZED,
                "kw_fft_plan_destroy: Kokkos was finalised first; destroy plans before kw_finalize");
  delete plan;
  return KW_SUCCESS;
}

}  // extern "C"

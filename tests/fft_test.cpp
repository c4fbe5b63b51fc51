// FFT plans against a direct float64 DFT (twiddles from exact index products), round trips,
// Parseval, every form and layout, real and complex, the three normalisations, in place, and
// bad input, on every execution space the build has an FFT library for.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "execution_spaces.hpp"
#include "matrix_support.hpp"
#include "kernwerk/config.hpp"
#include "kernwerk/error.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/impl/view_checks.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;
using cd = std::complex<double>;

template <class Space>
constexpr bool has_fft() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) return KERNWERK_ENABLE_CUFFT;
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<Space, Kokkos::Experimental::HIP>) return false;
#endif
  return KERNWERK_ENABLE_FFTW;
}

// One unscaled 1-D DFT of n points at stride `step` from `first` (sign -1 forward).
void dft_line(std::vector<cd>& data, std::int64_t first, std::int64_t step, std::int64_t n,
              int sign) {
  std::vector<cd> out(n);
  const double pi = 3.14159265358979323846;
  for (std::int64_t k = 0; k < n; ++k) {
    cd sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double angle = sign * 2 * pi * double((j * k) % n) / double(n);
      sum += data[first + j * step] * cd(std::cos(angle), std::sin(angle));
    }
    out[k] = sum;
  }
  for (std::int64_t k = 0; k < n; ++k) data[first + k * step] = out[k];
}

// The DFT of `batch` transforms over dims (memory order, the last contiguous).
std::vector<cd> dft(std::vector<cd> data, int rank, const std::int64_t* dims, std::int64_t batch,
                    int sign) {
  const std::int64_t last = dims[rank - 1], lead = rank == 2 ? dims[0] : 1;
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t base = b * lead * last;
    for (std::int64_t r = 0; r < lead; ++r) dft_line(data, base + r * last, 1, last, sign);
    if (rank == 2)
      for (std::int64_t c = 0; c < last; ++c) dft_line(data, base + c, last, lead, sign);
  }
  return data;
}

double relative_error(const std::vector<cd>& got, const std::vector<cd>& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff += std::norm(got[i] - want[i]);
    norm += std::norm(want[i]);
  }
  return std::sqrt(diff / std::max(norm, 1e-300));
}

template <class Real>
double fft_tolerance(std::int64_t points) {
  return 8 * double(std::numeric_limits<Real>::epsilon()) * std::log2(double(points) + 2);
}

// The values of a View in memory order (the host mirror keeps the layout).
template <class View>
std::vector<cd> values(const View& v) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<cd> out(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) out[i] = cd(host.data()[i]);
  return out;
}

template <class View>
void fill(const View& v, std::uint64_t seed, double scale = 1) {
  auto host = Kokkos::create_mirror_view(v);
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  using value = typename View::non_const_value_type;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if constexpr (std::is_floating_point_v<value>) host.data()[i] = value(scale * normal(random));
    else host.data()[i] = value(scale * normal(random), scale * normal(random));
  }
  Kokkos::deep_copy(v, host);
}

template <class Real, class Layout, class Space, int Rank>
struct views {
  using complex = Kokkos::View<std::conditional_t<Rank == 1, Kokkos::complex<Real>*, Kokkos::complex<Real>**>,
                               Layout, typename Space::memory_space>;
  using real = Kokkos::View<std::conditional_t<Rank == 1, Real*, Real**>, Layout, typename Space::memory_space>;
};

template <class V>
V make(std::int64_t e0, std::int64_t e1) {
  if constexpr (V::rank == 1) return V("data", e0);
  else return V("data", e0, e1);
}

// One complex plan: forward against the DFT, inverse back, Parseval, in place.
template <class Space, class Real, class Layout, int Rank>
void check_complex(const fft_shape& shape, std::int64_t e0, std::int64_t e1, int rank,
                   const std::int64_t* dims, std::int64_t batch, fft_normalization normalization) {
  CAPTURE(e0);
  CAPTURE(e1);
  CAPTURE(sizeof(Real));
  CAPTURE(int(normalization));
  using v = typename views<Real, Layout, Space, Rank>::complex;
  const fft_layout layout = std::is_same_v<Layout, Kokkos::LayoutLeft> ? fft_layout::column_major : fft_layout::row_major;
  fft_plan<Space, Real> plan(Space(), shape, {fft_kind::complex, normalization, layout});
  v in = make<v>(e0, e1), out = make<v>(e0, e1), back = make<v>(e0, e1);
  fill(in, 7 + e0 * 31 + e1);
  plan.forward(in, out);
  plan.inverse(out, back);
  const std::vector<cd> x = values(in);
  const double points = double(dims[0]) * (rank == 2 ? double(dims[1]) : 1.0);
  const double forward_scale = normalization == fft_normalization::backward ? 1
                               : normalization == fft_normalization::ortho ? 1 / std::sqrt(points)
                                                                            : 1 / points;
  std::vector<cd> expected = dft(x, rank, dims, batch, -1);
  for (auto& e : expected) e *= forward_scale;
  CHECK(relative_error(values(out), expected) <= fft_tolerance<Real>(std::int64_t(points)));
  CHECK(relative_error(values(back), x) <= 2 * fft_tolerance<Real>(std::int64_t(points)));
  // Parseval: sum |x|^2 = sum |X|^2 / (N forward_scale^2)
  double energy = 0, spectrum = 0;
  for (const cd& value : x) energy += std::norm(value);
  for (const cd& value : values(out)) spectrum += std::norm(value);
  CHECK(std::abs(spectrum / (points * forward_scale * forward_scale) - energy) <=
        fft_tolerance<Real>(std::int64_t(points)) * energy);
  // in place gives the same answer
  Kokkos::deep_copy(back, in);
  plan.forward(back, back);
  CHECK(relative_error(values(back), values(out)) <= fft_tolerance<Real>(std::int64_t(points)));
}

// One real plan: the half spectrum against the complex DFT of the real signal, the inverse
// back to the signal, the input of the inverse untouched.
template <class Space, class Real, class Layout, int Rank>
void check_real(const fft_shape& shape, std::int64_t e0, std::int64_t e1, std::int64_t h0,
                std::int64_t h1, int rank, const std::int64_t* dims, std::int64_t batch) {
  CAPTURE(e0);
  CAPTURE(e1);
  CAPTURE(sizeof(Real));
  using real_view = typename views<Real, Layout, Space, Rank>::real;
  using complex_view = typename views<Real, Layout, Space, Rank>::complex;
  const fft_layout layout = std::is_same_v<Layout, Kokkos::LayoutLeft> ? fft_layout::column_major : fft_layout::row_major;
  fft_plan<Space, Real> plan(Space(), shape, {fft_kind::real, fft_normalization::backward, layout});
  real_view in = make<real_view>(e0, e1), back = make<real_view>(e0, e1);
  complex_view half = make<complex_view>(h0, h1);
  fill(in, 11 + e0 * 17 + e1);
  plan.forward(in, half);
  const std::vector<cd> half_before = values(half);
  plan.inverse(half, back);
  CHECK(relative_error(values(half), half_before) == 0.0);  // the inverse's input is kept
  const std::vector<cd> x = values(in);
  const std::vector<cd> full = dft(x, rank, dims, batch, -1);
  // the half spectrum: the first last/2 + 1 entries of every line along the contiguous axis
  const std::int64_t last = dims[rank - 1], kept = last / 2 + 1;
  std::vector<cd> expected;
  for (std::size_t line = 0; line < full.size() / last; ++line)
    for (std::int64_t k = 0; k < kept; ++k) expected.push_back(full[line * last + k]);
  const double points = double(dims[0]) * (rank == 2 ? double(dims[1]) : 1.0);
  CHECK(relative_error(values(half), expected) <= fft_tolerance<Real>(std::int64_t(points)));
  CHECK(relative_error(values(back), x) <= 2 * fft_tolerance<Real>(std::int64_t(points)));
}

template <class Space, class Real>
void check_forms() {
  for (const std::int64_t n : {1, 2, 3, 5, 16, 17, 100, 128, 1000, 4096}) {
    const std::int64_t dims[1] = {n};
    check_complex<Space, Real, Kokkos::LayoutRight, 1>(fft_shape::line(n), n, 1, 1, dims, 1, fft_normalization::backward);
    check_real<Space, Real, Kokkos::LayoutRight, 1>(fft_shape::line(n), n, 1, n / 2 + 1, 1, 1, dims, 1);
  }
  const std::int64_t n = 24, count = 5;
  const std::int64_t line_dims[1] = {n};
  for (const auto normalization : {fft_normalization::backward, fft_normalization::ortho, fft_normalization::forward}) {
    check_complex<Space, Real, Kokkos::LayoutRight, 2>(fft_shape::lines(count, n), count, n, 1, line_dims, count, normalization);
    check_complex<Space, Real, Kokkos::LayoutLeft, 2>(fft_shape::lines(count, n), n, count, 1, line_dims, count, normalization);
  }
  check_real<Space, Real, Kokkos::LayoutRight, 2>(fft_shape::lines(count, n), count, n, count, n / 2 + 1, 1, line_dims, count);
  check_real<Space, Real, Kokkos::LayoutLeft, 2>(fft_shape::lines(count, 25), 25, count, 13, count, 1, std::array<std::int64_t, 1>{25}.data(), count);
  // planes (rows, cols): memory order (rows, cols) row-major, (cols, rows) column-major
  const std::int64_t rows = 12, cols = 35;
  const std::int64_t row_major[2] = {rows, cols}, column_major[2] = {cols, rows};
  check_complex<Space, Real, Kokkos::LayoutRight, 2>(fft_shape::plane(rows, cols), rows, cols, 2, row_major, 1, fft_normalization::ortho);
  check_complex<Space, Real, Kokkos::LayoutLeft, 2>(fft_shape::plane(rows, cols), rows, cols, 2, column_major, 1, fft_normalization::backward);
  check_real<Space, Real, Kokkos::LayoutRight, 2>(fft_shape::plane(rows, cols), rows, cols, rows, cols / 2 + 1, 2, row_major, 1);
  check_real<Space, Real, Kokkos::LayoutLeft, 2>(fft_shape::plane(rows, cols), rows, cols, rows / 2 + 1, cols, 2, column_major, 1);
  check_real<Space, Real, Kokkos::LayoutRight, 2>(fft_shape::plane(1, 1), 1, 1, 1, 1, 2, std::array<std::int64_t, 2>{1, 1}.data(), 1);
}

TEST_CASE_TEMPLATE_DEFINE("fft: every form, layout and kind against a float64 DFT", Space, fft_forms) {
  if (!has_fft<Space>()) return;
  check_forms<Space, double>();
  check_forms<Space, float>();
}
TEST_CASE_TEMPLATE_APPLY(fft_forms, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("fft: adversarial signals and large lengths", Space, fft_signals) {
  if (!has_fft<Space>()) return;
  using complex = Kokkos::complex<double>;
  using view = Kokkos::View<complex*, typename Space::memory_space>;
  const std::int64_t n = 1 << 16;
  fft_plan plan(Space(), fft_shape::line(n));
  view in("in", n), out("out", n);
  auto host = Kokkos::create_mirror_view(in);
  // an impulse at j0: X(k) = exp(-2 pi i j0 k / n), every |X(k)| = 1
  const std::int64_t j0 = 12345;
  Kokkos::deep_copy(host, complex(0));
  host(j0) = 1;
  Kokkos::deep_copy(in, host);
  plan.forward(in, out);
  const std::vector<cd> spectrum = values(out);
  double worst = 0;
  const double pi = 3.14159265358979323846;
  for (std::int64_t k = 0; k < n; ++k) {
    const double angle = -2 * pi * double((j0 * k) % n) / double(n);
    worst = std::max(worst, std::abs(spectrum[k] - cd(std::cos(angle), std::sin(angle))));
  }
  CHECK(worst <= fft_tolerance<double>(n));
  // a constant: all of it in X(0); magnitudes near the top and the bottom of double's range
  for (const double scale : {1e-300, 1.0, 1e300}) {
    CAPTURE(scale);
    Kokkos::deep_copy(in, complex(scale / n, -scale / n));
    plan.forward(in, out);
    const std::vector<cd> constant = values(out);
    double rest = 0;
    for (std::int64_t k = 1; k < n; ++k) rest = std::max(rest, std::abs(constant[k]));
    CHECK(std::abs(constant[0] - cd(scale, -scale)) <= 1e-12 * scale);
    CHECK(rest <= 1e-12 * scale);
  }
  // a 2^20 line in float: the round trip and Parseval
  const std::int64_t big = 1 << 20;
  Kokkos::View<Kokkos::complex<float>*, typename Space::memory_space> x("x", big), y("y", big);
  fill(x, 99);
  fft_plan<Space, float> float_plan(Space(), fft_shape::line(big));
  float_plan.forward(x, y);
  float_plan.inverse(y, y);
  CHECK(relative_error(values(y), values(x)) <= 2 * fft_tolerance<float>(big));
}
TEST_CASE_TEMPLATE_APPLY(fft_signals, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("fft: bad input is named and outputs are untouched", Space, fft_errors) {
  using memory = typename Space::memory_space;
  using complex = Kokkos::complex<double>;
  if (!has_fft<Space>()) {
    CHECK_THROWS_AS(fft_plan(Space(), fft_shape::line(8)), kernwerk::unsupported);
    return;
  }
  check_names([] { fft_plan(Space(), fft_shape::line(0)); }, "shape");
  check_names([] { fft_plan(Space(), fft_shape::lines(0, 4)); }, "shape");
  check_names([] { fft_plan(Space(), fft_shape::plane(3, -1)); }, "shape");
  check_names([] { fft_plan(Space(), fft_shape{fft_form::line, 2, 1, 8}); }, "shape");
  const fft_plan plan(Space(), fft_shape::plane(6, 8), {fft_kind::complex, fft_normalization::backward, fft_layout::row_major, true});
  Kokkos::View<complex**, Kokkos::LayoutRight, memory> in("in", 6, 8), out("out", 6, 8);
  Kokkos::deep_copy(out, complex(7, 7));
  check_names([&] { plan.forward(Kokkos::View<complex**, Kokkos::LayoutRight, memory>("x", 8, 6), out); }, "in");
  check_names([&] { plan.forward(in, Kokkos::View<complex**, Kokkos::LayoutRight, memory>("x", 6, 5)); }, "out");
  check_names([&] { plan.forward(Kokkos::View<complex*, memory>("x", 48), out); }, "in");
  check_names([&] { plan.forward(in, Kokkos::View<complex**, Kokkos::LayoutLeft, memory>("x", 6, 8)); }, "out");
  Kokkos::View<complex**, Kokkos::LayoutRight, memory> wide("wide", 6, 16);
  auto every_other = Kokkos::subview(wide, Kokkos::ALL(), std::make_pair(0, 8));
  check_names([&] { plan.forward(every_other, out); }, "in");
  Kokkos::View<complex*, memory> flat("flat", 60);
  Kokkos::View<complex**, Kokkos::LayoutRight, memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>> first(flat.data(), 6, 8), shifted(flat.data() + 4, 6, 8);
  check_names([&] { plan.forward(first, shifted); }, "out");
  Kokkos::deep_copy(Kokkos::subview(in, 4, 5), complex(std::numeric_limits<double>::quiet_NaN(), 0));
  check_names([&] { plan.forward(in, out); }, "in");
  Kokkos::deep_copy(Kokkos::subview(in, 4, 5), complex(0, std::numeric_limits<double>::infinity()));
  check_names([&] { plan.inverse(in, out); }, "in");
  const std::vector<cd> untouched = values(out);
  bool all_seven = true;
  for (const cd& value : untouched) all_seven &= value == cd(7, 7);
  CHECK(all_seven);
  // real plans: a complex input forward, a real one inverse, the half spectrum's shape
  const fft_plan<Space, double> real_plan(Space(), fft_shape::line(10), {fft_kind::real});
  Kokkos::View<double*, memory> signal("signal", 10);
  Kokkos::View<complex*, memory> half("half", 6), spectrum("spectrum", 10);
  check_names([&] { real_plan.forward(spectrum, half); }, "in");
  check_names([&] { real_plan.inverse(signal, half); }, "in");
  check_names([&] { real_plan.forward(signal, spectrum); }, "out");
  check_names([&] { plan.forward(signal, half); }, "in");
}
TEST_CASE_TEMPLATE_APPLY(fft_errors, enabled_spaces);

// Unchecked (the default), a NaN or an infinity propagates: every output of the line (or plane)
// that holds one is non-finite, and the other lines are the DFT's.
TEST_CASE_TEMPLATE_DEFINE("fft: NaN and infinity propagate to their transform's outputs", Space, fft_non_finite) {
  if (!has_fft<Space>()) return;
  using memory = typename Space::memory_space;
  using complex = Kokkos::complex<double>;
  const std::int64_t count = 5, length = 12;
  Kokkos::View<complex**, Kokkos::LayoutRight, memory> in("in", count, length), out("out", count, length);
  fill(in, 41);
  Kokkos::deep_copy(Kokkos::subview(in, 1, 4), complex(std::numeric_limits<double>::quiet_NaN(), 0));
  Kokkos::deep_copy(Kokkos::subview(in, 3, 11), complex(1, -std::numeric_limits<double>::infinity()));
  const std::vector<cd> given = values(in);
  const std::int64_t dims[] = {length};
  for (const bool inverse : {false, true}) {
    const fft_plan lines(Space(), fft_shape::lines(count, length));
    inverse ? lines.inverse(in, out) : lines.forward(in, out);
    const std::vector<cd> got = values(out), want = dft(given, 1, dims, count, inverse ? 1 : -1);
    std::int64_t wrong = 0;
    for (std::int64_t line = 0; line < count; ++line) {
      const bool poisoned = line == 1 || line == 3;
      for (std::int64_t k = 0; k < length; ++k) {
        const cd v = got[line * length + k], w = want[line * length + k] / (inverse ? double(length) : 1.0);
        const bool finite = std::isfinite(v.real()) && std::isfinite(v.imag());
        wrong += poisoned ? finite : !(finite && std::abs(v - w) <= 1e-12 * (1 + std::abs(w)));
      }
    }
    CHECK(wrong == 0);
  }
  const fft_plan plane(Space(), fft_shape::plane(count, length));
  plane.forward(in, out);
  std::int64_t finite = 0;
  for (const cd& v : values(out)) finite += std::isfinite(v.real()) && std::isfinite(v.imag());
  CHECK(finite == 0);
}
TEST_CASE_TEMPLATE_APPLY(fft_non_finite, enabled_spaces);

}  // namespace

namespace {

// impl::holds_non_finite against a loop on the host: a NaN or an infinity at every position of
// arrays of every length to 37, from every offset to 3 (16-byte aligned or not).
template <class Space, class Real>
void check_finite_scan() {
  using memory = typename Space::memory_space;
  Kokkos::View<Real*, memory> values("values", 48);
  auto host = Kokkos::create_mirror_view(values);
  std::size_t wrong = 0;
  for (std::int64_t offset = 0; offset < 4; ++offset)
    for (std::int64_t length = 0; length < 38; ++length)
      for (std::int64_t bad = -1; bad < length; ++bad) {
        for (std::size_t i = 0; i < host.extent(0); ++i) host(i) = Real(i % 7) - Real(3);
        host(47) = std::numeric_limits<Real>::quiet_NaN();  // past every array: never read
        if (bad >= 0)
          host(offset + bad) = bad % 2 ? std::numeric_limits<Real>::infinity() : std::numeric_limits<Real>::quiet_NaN();
        Kokkos::deep_copy(values, host);
        wrong += kernwerk::impl::holds_non_finite(Space(), values.data() + offset, length) != (bad >= 0);
      }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("fft: the non-finite scan at every position, length and alignment", Space, finite_scan) {
  check_finite_scan<Space, float>();
  check_finite_scan<Space, double>();
}
TEST_CASE_TEMPLATE_APPLY(finite_scan, enabled_spaces);

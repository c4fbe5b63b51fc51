// Reductions, fused maps and diffusion against plain float64 loops on the host.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "execution_spaces.hpp"
#include "vector_views.hpp"
#include "kernwerk/diffuse.hpp"
#include "kernwerk/impl/math.hpp"
#include "kernwerk/integrate.hpp"
#include "kernwerk/reductions.hpp"
#include "kernwerk/transform.hpp"

namespace arrays_test_functors {

// Functors of the tests. Kernels are templates on them, so they may be neither local types nor
// in an unnamed namespace (nvcc cannot name those in its kernel stubs).
struct inverse_square {
  KOKKOS_INLINE_FUNCTION double operator()(std::int64_t i) const {
    return 1.0 / (double(i + 1) * double(i + 1));
  }
};
struct fma3 {
  KOKKOS_INLINE_FUNCTION float operator()(float a, float b, float c) const { return a * b + c; }
};

struct sine_of_sum {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const { return kernwerk::impl::math::sin(x + y); }
};
struct bilinear {  // the midpoint rule integrates it exactly
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const { return 3 * x * y - x + 2 * y + 1; }
};
struct bumpy {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return kernwerk::impl::math::exp(-x * x - 0.5 * y) * (1 + x * y * y);
  }
};
struct nan_at_corner {
  KOKKOS_INLINE_FUNCTION double operator()(double x, double y) const {
    return x > 0.99 && y > 0.99 ? 0.0 / (x - x) : 1.0;
  }
};

}  // namespace arrays_test_functors

namespace {

using namespace kernwerk;
using namespace kernwerk::test;
using namespace arrays_test_functors;


std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float low = -1, float high = 1) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<float> uniform(low, high);
  std::vector<float> values(n);
  for (auto& v : values) v = uniform(random);
  return values;
}

// Exact-enough float64 reference: long double accumulation over float64 terms.
template <class F>
double reference_sum(std::size_t n, F term) {
  long double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += static_cast<long double>(term(i));
  return double(total);
}

TEST_CASE_TEMPLATE_DEFINE("sum, dot, norm2 against float64 loops", Space, vector_reductions) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(100003)}) {
    CAPTURE(n);
    const auto x = random_floats(n, 1 + n), y = random_floats(n, 2 + n);
    const auto xv = to_space<Space>(x);
    const auto yv = to_space<Space>(y);
    const double s = reference_sum(n, [&](std::size_t i) { return double(x[i]); });
    const double d = reference_sum(n, [&](std::size_t i) { return double(x[i]) * double(y[i]); });
    const double q = std::sqrt(reference_sum(n, [&](std::size_t i) { return double(x[i]) * x[i]; }));
    CHECK(sum(Space(), xv) == doctest::Approx(s).epsilon(1e-14));
    CHECK(dot(Space(), xv, yv) == doctest::Approx(d).epsilon(1e-14));
    CHECK(norm2(Space(), xv) == doctest::Approx(q).epsilon(1e-14));
  }
}
TEST_CASE_TEMPLATE_APPLY(vector_reductions, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("sum is compensated: a large value among many small ones", Space,
                          compensated) {
  // 1 + 2^20 terms of 2^-30: plain float64 summation from the left keeps 1 and loses them all.
  const std::size_t n = (std::size_t(1) << 20) + 1;
  std::vector<double> x(n, std::ldexp(1.0, -30));
  x[0] = 1.0;
  CHECK(sum(Space(), to_space<Space>(x)) == 1.0 + std::ldexp(1.0, -10));
  // Cancellation: +big, many small, -big.
  x.back() = -1.0;
  CHECK(sum(Space(), to_space<Space>(x)) ==
        doctest::Approx(std::ldexp(1.0, -30) * double(n - 2)).epsilon(1e-15));
}
TEST_CASE_TEMPLATE_APPLY(compensated, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("norm2 of large and tiny doubles does not overflow or vanish", Space,
                          norm_scaling) {
  const std::vector<double> big{3e200, 4e200}, tiny{3e-200, 4e-200};
  CHECK(norm2(Space(), to_space<Space>(big)) == doctest::Approx(5e200));
  CHECK(norm2(Space(), to_space<Space>(tiny)) == doctest::Approx(5e-200));
  const std::vector<double> with_inf{1.0, std::numeric_limits<double>::infinity()};
  CHECK(std::isinf(norm2(Space(), to_space<Space>(with_inf))));
  const std::vector<double> with_nan{1.0, std::nan("")};
  CHECK(std::isnan(norm2(Space(), to_space<Space>(with_nan))));
}
TEST_CASE_TEMPLATE_APPLY(norm_scaling, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("min and max location: first index, NaN and empty rejected", Space,
                          locations) {
  auto x = random_floats(50001, 5);
  x[123] = -7.0f;  // the minimum, twice: the first index wins
  x[40000] = -7.0f;
  x[77] = 9.0f;
  x[78] = 9.0f;
  const auto xv = to_space<Space>(x);
  const auto low = min_location(Space(), xv);
  const auto high = max_location(Space(), xv);
  CHECK(low.value == -7.0f);
  CHECK(low.index == 123);
  CHECK(high.value == 9.0f);
  CHECK(high.index == 77);
  const auto single = min_location(Space(), to_space<Space>(std::vector<int>{42}));
  CHECK(single.value == 42);
  CHECK(single.index == 0);

  x[30000] = std::nanf("");
  try {
    min_location(Space(), to_space<Space>(x));
    FAIL("no exception");
  } catch (const invalid_argument& e) {
    CHECK(e.argument() == "x");
    CHECK(std::string(e.what()).find("element 30000 is NaN") != std::string::npos);
  }
  CHECK_THROWS_AS(max_location(Space(), to_space<Space>(std::vector<float>{})), invalid_argument);
}
TEST_CASE_TEMPLATE_APPLY(locations, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("sum_of a user's terms, and its bad count", Space, user_sum) {
  // sum of 1/i^2 for i = 1..10^6, against the host loop.
  const double expected = reference_sum(1000000, [](std::size_t i) {
    return 1.0 / (double(i + 1) * double(i + 1));
  });
  CHECK(sum_of(Space(), 1000000, inverse_square{}) == doctest::Approx(expected).epsilon(1e-15));
  CHECK(sum_of(Space(), 0, inverse_square{}) == 0.0);
  CHECK_THROWS_AS(sum_of(Space(), -1, inverse_square{}), invalid_argument);
}
TEST_CASE_TEMPLATE_APPLY(user_sum, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("transform: shipped maps, fused, in place, bad arguments", Space,
                          transforms) {
  const std::size_t n = 10007;
  const auto x = random_floats(n, 7, 0.5f, 2.0f), y = random_floats(n, 8, 0.5f, 2.0f);
  const auto xv = to_space<Space>(x);
  auto yv = to_space<Space>(y);
  Kokkos::View<float*, typename Space::memory_space> out("out", n);

  transform(Space(), out, maps::rel_diff{}, xv, yv);
  auto got = to_vector<float>(out);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i)
    wrong += std::abs(got[i] - 2.0 * (double(x[i]) - y[i]) / (double(x[i]) + y[i])) > 1e-6;
  CHECK(wrong == 0);

  transform(Space(), out, maps::selu{}, xv);
  got = to_vector<float>(out);
  transform(Space(), out, maps::cos2_plus_sin2{}, xv);
  const auto ones = to_vector<float>(out);
  wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[i] > 0 ? double(x[i]) : 1.67 * std::exp(double(x[i])) - 1.67;
    wrong += std::abs(got[i] - 1.05 * v) > 1e-6 * std::abs(1.05 * v) + 1e-7;
    wrong += std::abs(ones[i] - 1.0) > 1e-6;
  }
  CHECK(wrong == 0);

  // A fused map of three inputs, and saxpy in place (out is y).
  transform(Space(), out, fma3{}, xv, yv, xv);
  got = to_vector<float>(out);
  transform(Space(), yv, maps::saxpy{2.0}, xv, yv);
  const auto in_place = to_vector<float>(yv);
  wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += std::abs(got[i] - (double(x[i]) * y[i] + x[i])) > 1e-5;
    wrong += std::abs(in_place[i] - (2.0 * x[i] + y[i])) > 1e-5;
  }
  CHECK(wrong == 0);

  Kokkos::View<float*, typename Space::memory_space> short_out("short", n - 1);
  CHECK_THROWS_AS(transform(Space(), short_out, maps::selu{}, xv), invalid_argument);
  const auto shifted = Kokkos::subview(yv, std::make_pair(std::size_t(1), n));
  const auto head = Kokkos::subview(yv, std::make_pair(std::size_t(0), n - 1));
  try {
    transform(Space(), shifted, maps::selu{}, head);  // overlapping, not the same View
    FAIL("no exception");
  } catch (const invalid_argument& e) {
    CHECK(e.argument() == "out");
  }
}
TEST_CASE_TEMPLATE_APPLY(transforms, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("integrate2d against exact integrals and the float64 loop", Space,
                          integration) {
  for (auto kind : {implementation_kind::generic, implementation_kind::automatic}) {
    CAPTURE(to_string(kind));
    const integrate_options options{kind};
    // Bilinear: exact for any n, m (here 3 x 7 points, and 1 x 1).
    const double exact = 3 * (4.0 / 2) * (9.0 / 2 - 1.0 / 2) - (4.0 / 2) * 2 + 2 * 2 * (9.0 / 2 - 1.0 / 2) + 2 * 2;
    CHECK(integrate2d(Space(), bilinear{}, 0, 2, 1, 3, 3, 7, options) == doctest::Approx(exact).epsilon(1e-14));
    CHECK(integrate2d(Space(), bilinear{}, 0, 2, 1, 3, 1, 1, options) == doctest::Approx(exact).epsilon(1e-14));
    // The course's integral: 0, with midpoint error O(h^2) (symmetric here: far smaller).
    const double pi = 3.14159265358979323846;
    CHECK(std::abs(integrate2d(Space(), sine_of_sum{}, 0, pi, 0, pi, 2000, 3000, options)) < 1e-6);
    // A non-symmetric function against the same sum on the host, in long double.
    const std::int64_t n = 300, m = 2500;  // m spans several row segments of 1024
    const double hx = 1.5 / n, hy = 2.0 / m;
    long double total = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) total += bumpy{}(-0.5 + (i + 0.5) * hx, (j + 0.5) * hy);
    CHECK(integrate2d(Space(), bumpy{}, -0.5, 1.0, 0.0, 2.0, n, m, options) ==
          doctest::Approx(double(total) * hx * hy).epsilon(1e-13));
  }
  auto expect = [](auto call, const char* argument) {
    try {
      call();
      FAIL("no exception");
    } catch (const invalid_argument& e) {
      CHECK(e.argument() == argument);
    }
  };
  expect([] { integrate2d(Space(), bilinear{}, 0, 1, 0, 1, 0, 5); }, "n");
  expect([] { integrate2d(Space(), bilinear{}, 0, 1, 0, 1, 5, -1); }, "m");
  expect([] { integrate2d(Space(), bilinear{}, std::nan(""), 1, 0, 1, 5, 5); }, "x0");
  expect([] { integrate2d(Space(), bilinear{}, 0, 1, 0, HUGE_VAL, 5, 5); }, "y1");
  expect([] { integrate2d(Space(), nan_at_corner{}, 0, 1, 0, 1, 100, 100); }, "f");
}
TEST_CASE_TEMPLATE_APPLY(integration, enabled_spaces);

// The course's stencil in float64 on the host, double-buffered.
std::vector<double> reference_diffusion(std::vector<double> field, std::size_t rows,
                                        std::size_t columns, int steps, double coeff,
                                        std::vector<double>* laplacian) {
  std::vector<double> next(field.size()), lap(field.size());
  auto at = [&](std::size_t i, std::size_t j) { return field[i * columns + j]; };
  for (int step = 0; step < steps || (steps == 0 && laplacian); ++step) {
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < columns; ++j) {
        double v = 4 * at(i, j);
        if (i > 0) v -= at(i - 1, j);
        if (j > 0) v -= at(i, j - 1);
        if (i + 1 < rows) v -= at(i + 1, j);
        if (j + 1 < columns) v -= at(i, j + 1);
        lap[i * columns + j] = v;
        next[i * columns + j] = at(i, j) - coeff * v;
      }
    if (laplacian) *laplacian = lap;
    if (steps == 0) break;
    field.swap(next);
  }
  return field;
}

template <class Space, class T, class Layout>
void check_diffusion(std::size_t rows, std::size_t columns, int steps, double coeff,
                     implementation_kind kind) {
  CAPTURE(to_string(kind));
  CAPTURE(rows);
  CAPTURE(columns);
  CAPTURE(steps);
  std::mt19937_64 random(rows * 1000 + columns + steps);
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<double> initial(rows * columns);
  for (auto& v : initial) v = uniform(random) > 0.7 ? uniform(random) : 0.0;  // jagged
  Kokkos::View<T**, Layout, typename Space::memory_space> field("field", rows, columns),
      laplacian("laplacian", rows, columns);
  auto host = Kokkos::create_mirror_view(field);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j) host(i, j) = T(initial[i * columns + j]);
  Kokkos::deep_copy(field, host);
  diffuse_options options;
  options.coeff = coeff;
  options.implementation = kind;
  diffuse(Space(), field, steps, laplacian, options);
  std::vector<double> expected_laplacian;
  std::vector<double> rounded(initial.size());
  for (std::size_t k = 0; k < initial.size(); ++k) rounded[k] = double(T(initial[k]));
  const auto expected = reference_diffusion(rounded, rows, columns, steps, coeff, &expected_laplacian);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
  const auto got_laplacian = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), laplacian);
  const double tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j) {
      wrong += std::abs(got(i, j) - expected[i * columns + j]) > tolerance;
      wrong += std::abs(got_laplacian(i, j) - expected_laplacian[i * columns + j]) > 4 * tolerance;
    }
  CHECK(wrong == 0);
}

TEST_CASE_TEMPLATE_DEFINE("diffuse against the float64 stencil", Space, diffusion) {
  // Automatic takes the tuned path where the build has one (several steps per launch on GPUs:
  // step counts below, at and above a launch's, odd and even launch counts).
  for (auto kind : {implementation_kind::generic, implementation_kind::automatic}) {
    check_diffusion<Space, float, Kokkos::LayoutRight>(37, 53, 25, 0.25, kind);
    check_diffusion<Space, double, Kokkos::LayoutLeft>(64, 64, 10, 0.2, kind);
    check_diffusion<Space, double, Kokkos::LayoutRight>(70, 130, 8, 0.2, kind);
    check_diffusion<Space, float, Kokkos::LayoutRight>(1, 1, 3, 0.25, kind);   // one cell
    check_diffusion<Space, float, Kokkos::LayoutRight>(1, 17, 4, 0.25, kind);  // one row
    check_diffusion<Space, double, Kokkos::LayoutRight>(19, 1, 5, 0.1, kind);  // one column
    check_diffusion<Space, float, Kokkos::LayoutRight>(33, 33, 0, 0.25, kind);  // zero steps
    check_diffusion<Space, float, Kokkos::LayoutRight>(130, 70, 7, 0.25, kind);  // not tile multiples
  }
}
TEST_CASE_TEMPLATE_APPLY(diffusion, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("diffuse: bad arguments are named and change nothing", Space,
                          diffusion_errors) {
  using grid = Kokkos::View<float**, typename Space::memory_space>;
  grid field("field", 8, 8), other("other", 8, 9);
  Kokkos::deep_copy(field, 1.0f);
  auto expect = [&](auto call, const char* argument) {
    try {
      call();
      FAIL("no exception");
    } catch (const invalid_argument& e) {
      CHECK(e.argument() == argument);
    }
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field);
    std::size_t changed = 0;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) changed += host(i, j) != 1.0f;
    CHECK(changed == 0);
  };
  expect([&] { diffuse(Space(), field, -1); }, "steps");
  expect([&] { diffuse(Space(), field, 1, diffuse_options{0.3}); }, "options.coeff");
  expect([&] { diffuse(Space(), field, 1, diffuse_options{std::nan("")}); }, "options.coeff");
  expect([&] { diffuse(Space(), field, 1, other); }, "laplacian");
  expect([&] { diffuse(Space(), field, 1, field); }, "laplacian");
  Kokkos::deep_copy(Kokkos::subview(field, 3, 4), std::numeric_limits<float>::infinity());
  try {
    diffuse(Space(), field, 1);
    FAIL("no exception");
  } catch (const invalid_argument& e) {
    CHECK(e.argument() == "field");
    CHECK(std::string(e.what()).find("(3, 4)") != std::string::npos);
  }
  grid empty("empty", 0, 5);
  diffuse(Space(), empty, 10);  // nothing to do, no error
}
TEST_CASE_TEMPLATE_APPLY(diffusion_errors, enabled_spaces);

}  // namespace

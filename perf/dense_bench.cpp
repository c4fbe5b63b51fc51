// Times QR and FFT through Kernwerk on the default execution space and writes JSON records in
// kernwerk_bench_workloads' schema (perf/results_table.py reads them). Every timed variant is
// checked first: QR by ||A - QR|| / ||A|| and ||Q^T Q - I|| in float64, the transforms by the
// round trip through their inverse.
//
//   kernwerk_bench_dense [--scale full|small] [--repeat 5] [--machine NAME] [--json FILE]
//
// full (a GPU): QR 4096 x 4096 float64 reduced (the course's case), vendor and generic; complex
// FFTs of 2^24 points (float32, float64), a 4096 x 4096 plane and 4096 lines of 4096 (float32),
// through a reused plan with and without the input check, and one-shot. small (a 2-core host):
// QR 4096 x 4096 float64 and a 2^22-point float64 FFT.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "kernwerk/error.hpp"
#include "workload_records.hpp"
#include "kernwerk/fft.hpp"
#include "kernwerk/linear_algebra.hpp"
#include "kernwerk/qr.hpp"

namespace bench_dense {

using namespace kernwerk;
using space = Kokkos::DefaultExecutionSpace;
using memory = space::memory_space;

using record = kernwerk_perf::workload_record;

std::pair<double, double> timed(const std::function<void()>& run, int repeat) {
  return kernwerk_perf::timed<space>(run, repeat);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw error("check failed: " + what);
}

template <class View>
double frobenius(const View& v) {
  double sum = 0;
  Kokkos::parallel_reduce(
      "frobenius", Kokkos::MDRangePolicy<space, Kokkos::Rank<2>>({0, 0}, {std::int64_t(v.extent(0)), std::int64_t(v.extent(1))}),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j, double& s) { s += double(v(i, j)) * double(v(i, j)); }, sum);
  return std::sqrt(sum);
}

void qr_case(std::int64_t n, int repeat, std::vector<record>& out) {
  using matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory>;
  matrix a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), n, n), q("q", n, n), r("r", n, n), check("check", n, n);
  Kokkos::Random_XorShift64_Pool<space> pool(5);
  Kokkos::fill_random(a, pool, -1.0, 1.0);
  const double norm_a = frobenius(a);
  for (const auto path : {qr_implementation::vendor, qr_implementation::generic}) {
    try {
      qr(space(), a, q, r, {qr_mode::reduced, path});
    } catch (const unsupported&) {
      continue;
    }
    // ||A - QR|| / ||A|| and ||Q^T Q - I||, in float64
    Kokkos::deep_copy(check, a);
    gemm(space(), -1.0, q, r, 1.0, check);
    const double residual = frobenius(check) / norm_a;
    const auto qt = Kokkos::View<double**, Kokkos::LayoutLeft, memory, Kokkos::MemoryUnmanaged>(q.data(), n, n);
    gemm(space(), 1.0, qt, q, 0.0, check);
    Kokkos::parallel_for("minus_identity", Kokkos::RangePolicy<space>(0, n), KOKKOS_LAMBDA(std::int64_t i) { check(i, i) -= 1; });
    const double orthogonality = frobenius(check);
    require(residual < 1e-12 && orthogonality < 1e-10, "qr residual and orthogonality");
    const auto [median, best] = timed([&] { qr(space(), a, q, r, {qr_mode::reduced, path}); }, repeat);
    char note[96];
    std::snprintf(note, sizeof note, "||A-QR||/||A|| %.1e, ||Q^TQ-I|| %.1e", residual, orthogonality);
    // Householder QR with Q formed: 4/3 n^3 to factor, 4/3 n^3 to form Q (m = n)
    out.push_back({"qr", to_string(path), std::to_string(n) + "^2 float64 reduced", median, best, 0,
                   8.0 / 3.0 * double(n) * n * n, note});
  }
}

template <class Real>
void fft_case(const std::string& name, const fft_shape& shape, std::int64_t rows, std::int64_t cols, int repeat,
              std::vector<record>& out) {
  using complex = Kokkos::complex<Real>;
  using view = Kokkos::View<complex**, Kokkos::LayoutRight, memory>;
  view x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "x"), rows, cols), y("y", rows, cols), back("back", rows, cols);
  const auto flat = Kokkos::View<Real*, memory, Kokkos::MemoryUnmanaged>(reinterpret_cast<Real*>(x.data()), 2 * x.size());
  Kokkos::Random_XorShift64_Pool<space> pool(7);
  Kokkos::fill_random(flat, pool, Real(-1), Real(1));
  const bool line = shape.form == fft_form::line;
  const auto as_line = [&](const view& v) {
    return Kokkos::View<complex*, memory, Kokkos::MemoryUnmanaged>(v.data(), v.size());
  };
  const double points = double(rows) * double(cols);
  const std::string type = sizeof(Real) == 4 ? " complex64" : " complex128";
  const double bytes = 2 * points * sizeof(complex);
  const double flops = 5 * points * std::log2(points / (shape.form == fft_form::lines ? shape.count : 1));
  for (const bool checked : {true, false}) {
    fft_plan<space, Real> plan(space(), shape, {fft_kind::complex, fft_normalization::backward, fft_layout::row_major, checked});
    const auto forward = [&] { line ? plan.forward(as_line(x), as_line(y)) : plan.forward(x, y); };
    forward();
    line ? plan.inverse(as_line(y), as_line(back)) : plan.inverse(y, back);
    double diff = 0, norm = 0;
    Kokkos::parallel_reduce(
        "round_trip", Kokkos::RangePolicy<space>(0, x.size()),
        KOKKOS_LAMBDA(std::int64_t k, double& d, double& s) {
          const complex a = x.data()[k], b = back.data()[k];
          d += double(Kokkos::abs(a - b)) * double(Kokkos::abs(a - b));
          s += double(Kokkos::abs(a)) * double(Kokkos::abs(a));
        },
        diff, norm);
    const double error = std::sqrt(diff / norm);
    require(error < 50 * std::numeric_limits<Real>::epsilon() * std::log2(points), name + " round trip");
    const auto [median, best] = timed(forward, repeat);
    char note[64];
    std::snprintf(note, sizeof note, "round trip %.1e", error);
    out.push_back({"fft", checked ? "plan" : "plan, unchecked", name + type, median, best, bytes, flops, note});
  }
  const auto [median, best] = timed([&] {
    line ? fft(space(), shape, as_line(x), as_line(y)) : fft(space(), shape, x, y);
  }, repeat);
  out.push_back({"fft", "one-shot", name + type, median, best, bytes, flops, "plan made each call"});
}

}  // namespace bench_dense

int main(int argc, char* argv[]) {
  using namespace bench_dense;
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string scale = "full", machine = "unnamed", json;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--scale") scale = value;
    else if (flag == "--repeat") repeat = std::stoi(value);
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else {
      std::fprintf(stderr, "kernwerk_bench_dense: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0 || (scale != "full" && scale != "small") || repeat < 1) {
    std::fprintf(stderr, "usage: kernwerk_bench_dense [--scale full|small] [--repeat N] [--machine NAME] [--json FILE]\n");
    return 2;
  }
  std::vector<record> records;
  try {
    qr_case(4096, repeat, records);
    if (scale == "full") {
      fft_case<float>("2^24", fft_shape::line(1 << 24), 1, 1 << 24, repeat, records);
      fft_case<double>("2^24", fft_shape::line(1 << 24), 1, 1 << 24, repeat, records);
      fft_case<float>("4096x4096 plane", fft_shape::plane(4096, 4096), 4096, 4096, repeat, records);
      fft_case<float>("4096 lines of 4096", fft_shape::lines(4096, 4096), 4096, 4096, repeat, records);
    } else {
      fft_case<double>("2^22", fft_shape::line(1 << 22), 1, 1 << 22, repeat, records);
    }
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "kernwerk_bench_dense: %s\n", failure.what());
    return 1;
  }
  if (!kernwerk_perf::report<space>(records, "dense", machine, repeat, json)) {
    std::fprintf(stderr, "kernwerk_bench_dense: cannot write %s\n", json.c_str());
    return 1;
  }
  return 0;
}

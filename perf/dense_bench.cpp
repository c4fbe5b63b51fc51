// Times QR and FFT through Kernwerk on the default execution space and writes JSON records in
// kernwerk_bench_workloads' schema (perf/results_table.py reads them). Every timed variant is
// checked first: QR by ||A - QR|| / ||A|| and ||Q^T Q - I|| in float64, the transforms by the
// round trip through their inverse.
//
//   kernwerk_bench_dense [--scale full|small] [--qr-size 4096|MxN] [--only qr|fft] [--repeat 5]
//                        [--machine NAME] [--json FILE]
//
// full (a GPU): QR 4096 x 4096 float64 reduced (the course's case), vendor and generic; complex
// FFTs of 2^24 points (float32, float64), a 4096 x 4096 plane and 4096 lines of 4096 (float32),
// through a reused plan (the default, and with check_input), and one-shot. small (a 2-core host):
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
#include "text_lists.hpp"
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

// QR of a random rows x cols float64 matrix (rows >= cols) through each path the build has:
// Q and R (reduced, checked first), then the factored form alone (geqrf's share).
void qr_case(std::int64_t rows, std::int64_t cols, int repeat, std::vector<record>& out) {
  using matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory>;
  matrix a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "a"), rows, cols), q("q", rows, cols), r("r", cols, cols),
      check("check", rows, cols), gram("gram", cols, cols), factors("factors", rows, cols);
  Kokkos::View<double*, memory> tau("tau", cols);
  Kokkos::Random_XorShift64_Pool<space> pool(5);
  Kokkos::fill_random(a, pool, -1.0, 1.0);
  const double norm_a = frobenius(a);
  const std::string size = rows == cols ? std::to_string(rows) + "^2" : std::to_string(rows) + "x" + std::to_string(cols);
  // Householder QR: 2 n^2 (m - n / 3) to factor, as much again to form Q
  const double factor_flops = 2.0 * double(cols) * cols * (double(rows) - double(cols) / 3.0);
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
    const auto qt = Kokkos::View<double**, Kokkos::LayoutLeft, memory, Kokkos::MemoryUnmanaged>(q.data(), cols, rows);
    gemm(space(), 1.0, qt, q, 0.0, gram);
    Kokkos::parallel_for("minus_identity", Kokkos::RangePolicy<space>(0, cols), KOKKOS_LAMBDA(std::int64_t i) { gram(i, i) -= 1; });
    const double orthogonality = frobenius(gram);
    require(residual < 1e-12 && orthogonality < 1e-10, "qr residual and orthogonality");
    const auto [median, best] = timed([&] { qr(space(), a, q, r, {qr_mode::reduced, path}); }, repeat);
    char note[96];
    std::snprintf(note, sizeof note, "||A-QR||/||A|| %.1e, ||Q^TQ-I|| %.1e", residual, orthogonality);
    out.push_back({"qr", to_string(path), size + " float64 reduced", median, best, 0, 2 * factor_flops, note});
    const auto [factor_median, factor_best] =
        timed([&] { qr_factor(space(), a, factors, tau, {qr_mode::reduced, path}); }, repeat);
    out.push_back({"qr", std::string(to_string(path)) + " factor", size + " float64", factor_median, factor_best, 0,
                   factor_flops, "the factored form alone (geqrf)"});
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
  for (const bool checked : {false, true}) {  // the default, then with the input check
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
    out.push_back({"fft", checked ? "plan, checked" : "plan", name + type, median, best, bytes, flops, note});
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
  std::string only;
  std::int64_t qr_rows = 4096, qr_cols = 4096;
  int repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--scale") scale = value;
    else if (flag == "--repeat") repeat = std::stoi(value);
    else if (flag == "--qr-size") {
      const auto sides = kernwerk_perf::split(value, 'x');
      qr_rows = std::stoll(sides.at(0));
      qr_cols = sides.size() > 1 ? std::stoll(sides[1]) : qr_rows;
    }
    else if (flag == "--only") only = value;
    else if (flag == "--machine") machine = value;
    else if (flag == "--json") json = value;
    else {
      std::fprintf(stderr, "kernwerk_bench_dense: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0 || (scale != "full" && scale != "small") || repeat < 1 || qr_cols < 1 || qr_rows < qr_cols ||
      (only != "" && only != "qr" && only != "fft")) {
    std::fprintf(stderr,
                 "usage: kernwerk_bench_dense [--scale full|small] [--qr-size N|MxN] [--only qr|fft] [--repeat N] "
                 "[--machine NAME] [--json FILE]\n");
    return 2;
  }
  std::vector<record> records;
  try {
    if (only != "fft") qr_case(qr_rows, qr_cols, repeat, records);
    if (only == "qr") {
      // QR alone
    } else if (scale == "full") {
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

#pragma once
// What the MPI test programs share: every rank makes the same global sets from a seed and takes
// its share (even, uneven, or empty on some ranks), and reads answers back from a space.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "execution_spaces.hpp"
#include "layouts.hpp"

namespace kernwerk::test::mpi_support {

inline int rank_here() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
inline int ranks_here() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// Row-major host points (dimension columns).
struct rows {
  std::vector<double> values;
  std::size_t dimension = 2;
  std::size_t count() const { return values.size() / dimension; }
  rows slice(std::size_t first, std::size_t last) const {
    return {std::vector<double>(values.begin() + first * dimension, values.begin() + last * dimension),
            dimension};
  }
};

// [first, last) of `count` rows for each rank: `weights` gives each rank's share.
inline std::pair<std::size_t, std::size_t> share(std::size_t count, const std::vector<double>& weights,
                                          int rank) {
  double total = 0, before = 0;
  for (std::size_t r = 0; r < weights.size(); ++r) {
    total += weights[r];
    if (int(r) < rank) before += weights[r];
  }
  const auto at = [&](double w) { return std::size_t(std::llround(double(count) * w / total)); };
  return {at(before), at(before + weights[rank])};
}

template <class Space>
Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> on_space(const rows& points) {
  Kokkos::View<double**, Kokkos::LayoutRight, typename Space::memory_space> view(
      "points", points.count(), points.dimension);
  Kokkos::deep_copy(view, Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                              points.values.data(), points.count(), points.dimension));
  return view;
}

struct answers {
  std::vector<std::int64_t> indices;
  std::vector<double> distances;
};

template <class Space>
answers fetch(const Kokkos::View<std::int64_t**, typename Space::memory_space>& indices,
              const Kokkos::View<double**, typename Space::memory_space>& distances) {
  const auto i = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
  const auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), distances);
  answers a;
  for (std::size_t r = 0; r < i.extent(0); ++r)
    for (std::size_t q = 0; q < i.extent(1); ++q) {
      a.indices.push_back(i(r, q));
      a.distances.push_back(d(r, q));
    }
  return a;
}

inline rows sphere_layout(const std::string& name, std::size_t n, std::size_t m, bool observations) {
  const auto pair = layouts::make(name, n, m, 17);
  return {observations ? pair.observations : pair.references, 2};
}

// Poles, the date line, antipodes and duplicates that fall on different ranks.
inline rows adversarial(std::size_t copies) {
  rows points;
  for (std::size_t c = 0; c < copies; ++c)
    for (double lon : {-M_PI, -M_PI / 2, 0.0, 1e-12, M_PI / 2, M_PI}) {
      points.values.insert(points.values.end(), {M_PI / 2, lon});
      points.values.insert(points.values.end(), {-M_PI / 2, lon});
      points.values.insert(points.values.end(), {0.3, lon});
      points.values.insert(points.values.end(), {-0.3, lon - 1e-9});
    }
  return points;
}

inline std::vector<double> even() { return std::vector<double>(ranks_here(), 1.0); }
inline std::vector<double> uneven() {
  std::vector<double> w;
  for (int r = 0; r < ranks_here(); ++r) w.push_back(r + 1.0);
  return w;
}
// Every other rank empty (rank 0 keeps a share).
inline std::vector<double> gaps() {
  std::vector<double> w;
  for (int r = 0; r < ranks_here(); ++r) w.push_back(r % 2 == 0 ? 1.0 : 0.0);
  return w;
}
// Everything on the last rank.
inline std::vector<double> last_only() {
  std::vector<double> w(ranks_here(), 0.0);
  w.back() = 1.0;
  return w;
}

}  // namespace kernwerk::test::mpi_support

#pragma once
// What the dense tests share: random Eigen matrices, their copies into Views of a space and back
// (float64), and the check that a call names the argument it rejects.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <random>
#include <string>

#include "kernwerk/error.hpp"

namespace kernwerk::test {

inline Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index columns, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  Eigen::MatrixXd m(rows, columns);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < columns; ++j) m(i, j) = uniform(random);
  return m;
}

// The matrix in a View of Space (type T, layout Layout), rounded to T.
template <class Space, class T, class Layout>
Kokkos::View<T**, Layout, typename Space::memory_space> to_space(const Eigen::MatrixXd& m) {
  Kokkos::View<T**, Layout, typename Space::memory_space> view("matrix", m.rows(), m.cols());
  auto host = Kokkos::create_mirror_view(view);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) host(i, j) = T(m(i, j));
  Kokkos::deep_copy(view, host);
  return view;
}

// A rank-1 (one column) or rank-2 View in float64.
template <class View>
Eigen::MatrixXd to_eigen(const View& view) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  if constexpr (View::rank == 1) {
    Eigen::MatrixXd m(host.extent(0), 1);
    for (Eigen::Index i = 0; i < m.rows(); ++i) m(i, 0) = double(host(i));
    return m;
  } else {
    Eigen::MatrixXd m(host.extent(0), host.extent(1));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = double(host(i, j));
    return m;
  }
}

// call() throws kernwerk::invalid_argument naming `argument`.
template <class Call>
void check_names(Call&& call, const std::string& argument) {
  CAPTURE(argument);
  try {
    call();
    FAIL("no error was raised");
  } catch (const kernwerk::invalid_argument& e) {
    CHECK(e.argument() == argument);
  }
}

}  // namespace kernwerk::test

// kernwerk::mpi::nearest against the single-process kernwerk::nearest on the concatenated sets,
// bit for bit, run by ctest under mpiexec with 1 to 4 ranks. Every rank makes the same global
// sets from a seed and takes its share; shares are even, uneven, or empty on some ranks.
#include <doctest/doctest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernwerk/mpi/nearest.hpp"
#include "mpi_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test::mpi_support;

// Runs the distributed call on this rank's shares and the single-process call on the whole
// sets, and compares this rank's rows of both.
template <class Space>
void compare(const rows& observations, const rows& references, const std::vector<double>& observation_weights,
             const std::vector<double>& reference_weights, std::size_t k, mpi::nearest_options options) {
  using memory_space = typename Space::memory_space;
  const int rank = rank_here();
  const auto [o0, o1] = share(observations.count(), observation_weights, rank);
  const auto [r0, r1] = share(references.count(), reference_weights, rank);
  const auto mine = on_space<Space>(observations.slice(o0, o1));
  const auto my_refs = on_space<Space>(references.slice(r0, r1));
  Kokkos::View<std::int64_t**, memory_space> indices("indices", o1 - o0, k);
  Kokkos::View<double**, memory_space> distances("distances", o1 - o0, k);
  // Messages in place (host memory: the path of a GPU-aware MPI) and staged through host buffers.
  for (const auto strategy : {mpi::strategy_kind::replicate, mpi::strategy_kind::ring,
                              mpi::strategy_kind::automatic})
  for (const auto messages : {mpi::message_path::automatic, mpi::message_path::staged}) {
    CAPTURE(std::string(mpi::to_string(strategy)));
    CAPTURE(int(messages));
    options.strategy = strategy;
    options.messages = messages;
    Kokkos::deep_copy(indices, -1);
    const auto ran = mpi::nearest(Space(), MPI_COMM_WORLD, mine, my_refs, indices, distances, options);
    CHECK((strategy == mpi::strategy_kind::automatic || ran == strategy));
    const answers got = fetch<Space>(indices, distances);

    Kokkos::View<std::int64_t**, memory_space> all_indices("all_indices", o1 - o0, k);
    Kokkos::View<double**, memory_space> all_distances("all_distances", o1 - o0, k);
    if (o1 > o0)
      kernwerk::nearest(Space(), mine, on_space<Space>(references), all_indices, all_distances,
                        static_cast<const kernwerk::nearest_options&>(options));
    const answers want = fetch<Space>(all_indices, all_distances);
    CHECK(got.indices == want.indices);
    CHECK(got.distances == want.distances);
  }
}

TEST_CASE_TEMPLATE_DEFINE("mpi::nearest: the single-process answer on every layout and share", Space,
                          layouts_and_shares) {
  for (const std::string layout : {"uniform", "cap-1e-2", "ring", "duplicates", "polar"}) {
    const rows observations = sphere_layout(layout, 1500, 900, true);
    const rows references = sphere_layout(layout, 1500, 900, false);
    for (const std::size_t k : {std::size_t(1), std::size_t(8), std::size_t(40)}) {
      CAPTURE(layout);
      CAPTURE(k);
      compare<Space>(observations, references, even(), even(), k, {});
      compare<Space>(observations, references, uneven(), gaps(), k, {});
      compare<Space>(observations, references, gaps(), last_only(), k, {});
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(layouts_and_shares, kernwerk::test::enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("mpi::nearest: poles, the date line and duplicates across ranks", Space,
                          adversarial_sets) {
  const rows references = adversarial(3);  // each point 3 times, on different ranks
  const rows observations = adversarial(1);
  for (const std::size_t k : {std::size_t(1), std::size_t(8)}) {
    CAPTURE(k);
    compare<Space>(observations, references, even(), even(), k, {});
    compare<Space>(observations, references, last_only(), uneven(), k, {});
  }
  mpi::nearest_options degrees;
  degrees.units = angle_unit::degrees;
  degrees.radius = 6371.0;
  rows in_degrees = references;
  for (auto& v : in_degrees.values) v *= 180.0 / M_PI;
  compare<Space>(in_degrees, in_degrees, uneven(), even(), 8, degrees);
}
TEST_CASE_TEMPLATE_APPLY(adversarial_sets, kernwerk::test::enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("mpi::nearest: euclidean points, brute force by method", Space, euclidean) {
  rows observations{{}, 3}, references{{}, 3};
  std::mt19937_64 random(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int i = 0; i < 700 * 3; ++i) observations.values.push_back(uniform(random));
  for (int i = 0; i < 400 * 3; ++i) references.values.push_back(uniform(random));
  mpi::nearest_options options;
  options.metric = metric_kind::euclidean;
  options.method = method_kind::brute;
  compare<Space>(observations, references, uneven(), gaps(), 8, options);
}
TEST_CASE_TEMPLATE_APPLY(euclidean, kernwerk::test::enabled_spaces);

// References as float32 in LayoutLeft, in the space's memory and in host memory: they travel
// as packed float32 rows (converted where they live), the answer is kernwerk::nearest's on the
// same values.
TEST_CASE_TEMPLATE_DEFINE("mpi::nearest: float32 LayoutLeft references, device and host", Space, float_refs) {
  using memory_space = typename Space::memory_space;
  const auto observations = sphere_layout("uniform", 500, 300, true);
  const auto references = sphere_layout("uniform", 500, 300, false);
  const int rank = rank_here();
  const auto [o0, o1] = share(observations.count(), uneven(), rank);
  const auto [r0, r1] = share(references.count(), gaps(), rank);
  const auto as_float = [&](std::size_t first, std::size_t last) {
    Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::HostSpace> host("float refs", last - first, 2);
    for (std::size_t j = first; j < last; ++j)
      for (int d = 0; d < 2; ++d) host(j - first, d) = float(references.values[2 * j + d]);
    return host;
  };
  const auto mine = on_space<Space>(observations.slice(o0, o1));
  const auto host_refs = as_float(r0, r1);
  const auto device_refs = Kokkos::create_mirror_view_and_copy(memory_space(), host_refs);
  const auto all_refs = Kokkos::create_mirror_view_and_copy(memory_space(), as_float(0, references.count()));
  Kokkos::View<std::int64_t**, memory_space> indices("indices", o1 - o0, 4), want_indices("want", o1 - o0, 4);
  Kokkos::View<double**, memory_space> distances("distances", o1 - o0, 4), want_distances("want", o1 - o0, 4);
  if (o1 > o0) kernwerk::nearest(Space(), mine, all_refs, want_indices, want_distances);
  const answers want = fetch<Space>(want_indices, want_distances);
  for (const auto strategy : {mpi::strategy_kind::replicate, mpi::strategy_kind::ring})
  for (const auto messages : {mpi::message_path::automatic, mpi::message_path::staged}) {
    CAPTURE(std::string(mpi::to_string(strategy)));
    CAPTURE(int(messages));
    mpi::nearest_options options;
    options.strategy = strategy;
    options.messages = messages;
    mpi::nearest(Space(), MPI_COMM_WORLD, mine, device_refs, indices, distances, options);
    answers got = fetch<Space>(indices, distances);
    CHECK(got.indices == want.indices);
    CHECK(got.distances == want.distances);
    mpi::nearest(Space(), MPI_COMM_WORLD, mine, host_refs, indices, distances, options);
    got = fetch<Space>(indices, distances);
    CHECK(got.indices == want.indices);
    CHECK(got.distances == want.distances);
  }
}
TEST_CASE_TEMPLATE_APPLY(float_refs, kernwerk::test::enabled_spaces);

// A bad point on the last rank only: every rank throws the same error naming that rank and the
// point, and no rank writes an output.
TEST_CASE_TEMPLATE_DEFINE("mpi::nearest: bad input on one rank fails on every rank", Space, bad_input) {
  using memory_space = typename Space::memory_space;
  const int rank = rank_here(), last = ranks_here() - 1;
  rows observations = sphere_layout("uniform", 40, 30, true);
  const rows references = sphere_layout("uniform", 40, 30, false);
  if (rank == last) observations.values[2 * 5 + 1] = std::numeric_limits<double>::quiet_NaN();
  const auto obs = on_space<Space>(observations);
  const auto refs = on_space<Space>(references);
  Kokkos::View<std::int64_t**, memory_space> indices("indices", 40, 2);
  Kokkos::View<double**, memory_space> distances("distances", 40, 2);
  const auto expect = [&](const std::function<void()>& call, const std::string& argument,
                          const std::string& text) {
    Kokkos::deep_copy(indices, -3);
    std::string what;
    try {
      call();
    } catch (const invalid_argument& failure) {
      CHECK(failure.argument() == argument);
      what = failure.what();
    }
    CAPTURE(what);
    CHECK(what.find(text) != std::string::npos);
    // Every rank has the same message.
    const int length = int(what.size());
    int longest = 0, shortest = 0;
    MPI_Allreduce(&length, &longest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&length, &shortest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(longest == shortest);
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
    for (std::size_t i = 0; i < host.extent(0); ++i) CHECK(host(i, 0) == -3);
  };
  for (const auto strategy : {mpi::strategy_kind::replicate, mpi::strategy_kind::ring}) {
    mpi::nearest_options options;
    options.strategy = strategy;
    expect([&] { mpi::nearest(Space(), MPI_COMM_WORLD, obs, refs, indices, distances, options); },
           "observations", "kernwerk::mpi::nearest: observations: rank " + std::to_string(last) + ": point 5");
  }
  // k differs between ranks.
  Kokkos::View<std::int64_t**, memory_space> more("more", 40, rank == last ? 3 : 2);
  Kokkos::View<double**, memory_space> more_distances("more", 40, rank == last ? 3 : 2);
  if (ranks_here() > 1)
    expect([&] { mpi::nearest(Space(), MPI_COMM_WORLD, on_space<Space>(references), refs, more, more_distances); },
           "indices", "k differs between ranks");
  // No references on any rank.
  const auto none = on_space<Space>(rows{});
  expect([&] { mpi::nearest(Space(), MPI_COMM_WORLD, refs, none, indices, distances); }, "references",
         "empty on every rank");
}
TEST_CASE_TEMPLATE_APPLY(bad_input, kernwerk::test::enabled_spaces);

}  // namespace

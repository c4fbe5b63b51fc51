// kernwerk::mpi under mpiexec when one rank's memory runs out: the program runs with a preloaded
// allocator (faults/failing_allocation.c) that the last rank arms around one call, failing its
// allocations above a size. Whatever the size, and so wherever the failure falls (the checks,
// a staging buffer, an exchange's receive buffer, the local search, the index's build), every
// rank must end the call alike: all with the answers of the unfaulted call, or all with the same
// error naming the last rank. A rank left waiting hangs the test (ctest's timeout fails it).
// Host spaces only: the preloaded allocator is the host's.
#include <doctest/doctest.h>
#include <dlfcn.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernwerk/mpi/distributed_index.hpp"
#include "kernwerk/mpi/nearest.hpp"
#include "mpi_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test::mpi_support;

// The preloaded allocator's switch.
struct failing_allocator {
  void (*fail_above)(std::size_t) = nullptr;
  failing_allocator() {
    fail_above = reinterpret_cast<void (*)(std::size_t)>(dlsym(RTLD_DEFAULT, "kernwerk_fail_allocations_above"));
  }
};

// Every rank's message, gathered on rank 0 and compared there; the result broadcast.
bool same_everywhere(const std::string& text) {
  const int ranks = ranks_here();
  int length = int(text.size());
  std::vector<int> lengths(ranks), offsets(ranks, 0);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(std::size_t(offsets.back() + lengths.back()), ' ');
  MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                 MPI_COMM_WORLD);
  for (int r = 0; r < ranks; ++r)
    if (all.substr(std::size_t(offsets[r]), std::size_t(lengths[r])) != text) return false;
  return true;
}

// Runs `call` with the last rank's allocations above `limit` failing; returns its error
// message ("" where it succeeded) after checking that every rank ended alike.
std::string run_faulted(const failing_allocator& allocator, std::size_t limit, const std::function<void()>& call) {
  const bool faulted = rank_here() == ranks_here() - 1;
  std::string message;
  MPI_Barrier(MPI_COMM_WORLD);
  if (faulted) allocator.fail_above(limit);
  try {
    call();
  } catch (const std::exception& failure) {
    if (faulted) allocator.fail_above(~std::size_t(0));
    message = failure.what();
  }
  if (faulted) allocator.fail_above(~std::size_t(0));
  CAPTURE(limit);
  CAPTURE(message);
  CHECK(same_everywhere(message));
  if (!message.empty())
    CHECK(message.find("rank " + std::to_string(ranks_here() - 1) + ": ") != std::string::npos);
  return message;
}

template <class Space>
void faults() {
  const failing_allocator allocator;
  if (!allocator.fail_above) {
    MESSAGE("the failing allocator is not preloaded: skipped");
    return;
  }
  if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible) {
    MESSAGE("a device space: its memory is not the preloaded allocator's");
    return;
  }
  const int rank = rank_here(), ranks = ranks_here();
  const std::size_t k = 40;  // above 32: the neighbour lists lie in lent memory, even in a kept index's query
  const auto pair = layouts::make("cap-1e-5", 30000, 20000, 91);
  const rows queries{pair.observations, 2}, points{pair.references, 2};
  const auto [q0, q1] = share(queries.count(), std::vector<double>(ranks, 1.0), rank);
  const auto [p0, p1] = share(points.count(), std::vector<double>(ranks, 1.0), rank);
  const auto mine = on_space<Space>(queries.slice(q0, q1));
  const auto held = on_space<Space>(points.slice(p0, p1));
  using memory_space = typename Space::memory_space;
  const Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space> indices("indices", q1 - q0, k);
  const Kokkos::View<double**, Kokkos::LayoutRight, memory_space> distances("distances", q1 - q0, k);
  const Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space> expected("expected", q1 - q0, k);
  mpi::nearest(Space(), MPI_COMM_WORLD, mine, held, expected, distances);  // unfaulted

  struct operation {
    std::string name;
    std::function<void()> call;
  };
  std::vector<operation> operations;
  for (const auto strategy : {mpi::strategy_kind::replicate, mpi::strategy_kind::ring}) {
    mpi::nearest_options options;
    options.strategy = strategy;
    operations.push_back({std::string("mpi::nearest ") + to_string(strategy), [&, options] {
                            mpi::nearest(Space(), MPI_COMM_WORLD, mine, held, indices, distances, options);
                          }});
  }
  for (const auto layout : {mpi::index_layout::partitioned, mpi::index_layout::replicated}) {
    mpi::distributed_index_options options;
    options.layout = layout;
    operations.push_back({std::string("build and query, ") + mpi::to_string(layout), [&, options] {
                            const mpi::distributed_index<Space> index(Space(), MPI_COMM_WORLD, held, options);
                            index.nearest(Space(), mine, indices, distances);
                          }});
    // The index built unfaulted, the query faulted.
    auto built = std::make_shared<mpi::distributed_index<Space>>(Space(), MPI_COMM_WORLD, held, options);
    operations.push_back({std::string("query, ") + mpi::to_string(layout),
                          [&, built] { built->nearest(Space(), mine, indices, distances); }});
  }
  for (const auto& op : operations) {
    CAPTURE(op.name);
    int failed = 0, succeeded = 0;
    // (Below about 16 KiB, MPI's and OpenMP's own allocations fail, and they crash.)
    for (std::size_t limit = std::size_t(1) << 15; limit <= (std::size_t(1) << 25); limit *= 4) {
      Kokkos::deep_copy(indices, -1);
      const std::string message = run_faulted(allocator, limit, op.call);
      const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
      const auto want = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), expected);
      bool same = true;
      for (std::size_t i = 0; i < got.extent(0); ++i)
        for (std::size_t q = 0; q < k; ++q) same = same && got(i, q) == want(i, q);
      if (message.empty()) {
        ++succeeded;
        CHECK(same);
      } else {
        ++failed;
      }
    }
    // The smallest limit fails the call somewhere (but the replicated index's query: its
    // search falls back to smaller pieces, below the sizes where MPI's and OpenMP's own
    // allocations fail first); the largest lets it through.
    if (op.name != "query, replicated") CHECK(failed > 0);
    CHECK(succeeded > 0);
  }
}

TEST_CASE_TEMPLATE_DEFINE("kernwerk::mpi: one rank out of memory fails every rank alike", Space, out_of_memory) {
  faults<Space>();
}
TEST_CASE_TEMPLATE_APPLY(out_of_memory, kernwerk::test::enabled_spaces);

}  // namespace

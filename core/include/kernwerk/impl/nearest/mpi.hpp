#pragma once
// The workings of kernwerk::mpi::nearest (kernwerk/mpi/nearest.hpp): argument agreement across
// ranks, the cost model, the replicate and ring strategies, and how messages reach MPI.
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // MPIX_Query_cuda_support, MPIX_Query_rocm_support
#define KERNWERK_OPEN_MPI_EXTENSIONS 1
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernwerk/impl/launch.hpp"
#include "kernwerk/mpi/nearest_options.hpp"
#include "kernwerk/nearest.hpp"

namespace kernwerk::mpi::detail {

inline constexpr const char* fn = "mpi::nearest";

// Adds the wall time of each phase to one field of the caller's timings; with no timings, runs
// the phase and nothing else (no fences).
template <class ExecutionSpace>
struct phase_clock {
  const ExecutionSpace& space;
  nearest_timings* timings;
  // A phase on the host alone (no fence): an MPI wait while the space computes.
  template <class Phase>
  void host(double nearest_timings::*field, Phase&& phase) const {
    if (!timings) return void(phase());
    const auto start = std::chrono::steady_clock::now();
    phase();
    timings->*field += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  // A phase and the work it queued on the space.
  template <class Phase>
  void operator()(double nearest_timings::*field, Phase&& phase) const {
    if (!timings) return void(phase());
    host(field, [&] {
      phase();
      space.fence();
    });
  }
  // Waits for the work queued on the space (always), timed as `field`.
  void fence(double nearest_timings::*field) const {
    if (!timings) return space.fence();
    host(field, [&] { space.fence(); });
  }
};

inline void check_mpi(int code, const char* call) {
  if (code != MPI_SUCCESS)
    throw error(std::string("kernwerk::mpi: ") + call + " failed (MPI error " +
                std::to_string(code) + ")");
}

inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  return rank;
}
inline int size_of(MPI_Comm comm) {
  int size = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  return size;
}

// Runs `local` on every rank. Where it throws on any rank, every rank throws the error of the
// lowest such rank, as an error of `function` with that rank named in the problem. Local work
// between two collective steps runs in here, so that a rank that fails (its memory exhausted)
// fails every rank rather than leave them waiting at the next step.
template <class Local>
void agree(MPI_Comm comm, const char* function, Local&& local) {
  int kind = 0;  // 1 invalid_argument, 2 unsupported, 3 out_of_memory, 4 any other error
  std::string argument, problem;
  const auto after = [](const std::string& text, const std::string& marker) {
    const auto at = text.find(marker);
    return at == std::string::npos ? text : text.substr(at + marker.size());
  };
  try {
    local();
  } catch (const invalid_argument& failure) {
    kind = 1;
    argument = failure.argument();
    problem = after(failure.what(), ": " + argument + ": ");
  } catch (const unsupported& failure) {
    kind = 2;
    argument = failure.argument();
    problem = after(failure.what(), ": " + argument + ": ");
  } catch (const out_of_memory& failure) {
    kind = 3;
    problem = after(failure.what(), ": out of memory: ");
  } catch (const std::bad_alloc&) {
    kind = 3;
    problem = "an allocation of host memory failed";
  } catch (const std::exception& failure) {
    kind = 4;
    problem = failure.what();
  }
  const int rank = rank_of(comm);
  int mine = kind ? rank : INT_MAX, first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;
  int header[3] = {kind, int(argument.size()), int(problem.size())};
  check_mpi(MPI_Bcast(header, 3, MPI_INT, first, comm), "MPI_Bcast");
  std::string text = argument + problem;
  text.resize(std::size_t(header[1]) + std::size_t(header[2]));
  check_mpi(MPI_Bcast(text.data(), int(text.size()), MPI_CHAR, first, comm), "MPI_Bcast");
  argument = text.substr(0, header[1]);
  problem = "rank " + std::to_string(first) + ": " + text.substr(header[1]);
  if (header[0] == 1) throw invalid_argument(function, argument, problem);
  if (header[0] == 2) throw unsupported(function, argument, problem);
  if (header[0] == 3) throw out_of_memory(function, problem);
  throw error("kernwerk::" + std::string(function) + ": " + problem);
}

// What must be the same on every rank: k, the point dimension (of the set `points`) and the
// options, checked for the call `function`.
inline void check_same_everywhere(MPI_Comm comm, std::size_t k, std::size_t dimension,
                                  const nearest_options& options, const char* function = fn,
                                  const char* points = "observations",
                                  const char* strategy = "options.strategy") {
  const double mine[] = {double(k),
                         double(dimension),
                         double(options.metric),
                         double(options.units),
                         options.radius,
                         double(options.method),
                         double(options.implementation),
                         double(options.memory_budget),
                         double(options.strategy),
                         double(options.messages)};
  constexpr int fields = sizeof mine / sizeof mine[0];
  const char* names[fields] = {"indices",           points,                   "options.metric",
                               "options.units",     "options.radius",         "options.method",
                               "options.implementation", "options.memory_budget", strategy,
                               "options.messages"};
  const char* what[fields] = {"k", "coordinates per point", "", "", "", "", "", "", "", ""};
  const auto text = [](double value) {
    if (value == std::floor(value) && std::abs(value) < 1e18) return std::to_string(std::int64_t(value));
    char digits[32];
    std::snprintf(digits, sizeof digits, "%.17g", value);
    return std::string(digits);
  };
  std::vector<double> all(std::size_t(fields) * size_of(comm));
  check_mpi(MPI_Allgather(mine, fields, MPI_DOUBLE, all.data(), fields, MPI_DOUBLE, comm),
            "MPI_Allgather");
  for (std::size_t r = 1; r < all.size() / fields; ++r)
    for (int f = 0; f < fields; ++f)
      if (all[r * fields + f] != all[f])
        throw invalid_argument(function, names[f],
                               std::string(*what[f] ? what[f] : "the value") +
                                   " differs between ranks: " + text(all[f]) +
                                   " on rank 0, " + text(all[r * fields + f]) +
                                   " on rank " + std::to_string(r));
}

// References of every rank and their global offsets.
struct shards {
  std::vector<std::int64_t> count, offset;
  std::int64_t total = 0;
  std::int64_t largest() const { return *std::max_element(count.begin(), count.end()); }
};
inline shards gather_counts(MPI_Comm comm, std::int64_t mine) {
  shards s;
  s.count.resize(std::size_t(size_of(comm)));
  check_mpi(MPI_Allgather(&mine, 1, MPI_INT64_T, s.count.data(), 1, MPI_INT64_T, comm),
            "MPI_Allgather");
  for (const auto c : s.count) {
    s.offset.push_back(s.total);
    s.total += c;
  }
  return s;
}

template <class ExecutionSpace>
strategy_kind choose_strategy(const nearest_options& options, const shards& s) {
  if (options.strategy != strategy_kind::automatic) return options.strategy;
  using memory_space = typename ExecutionSpace::memory_space;
  const std::size_t budget = options.memory_budget
                                 ? options.memory_budget
                                 : kernwerk::impl::default_memory_budget<ExecutionSpace>::bytes();
  const double replicated = double(s.total) * (2 * sizeof(double) + 128) +
                            double(kernwerk::impl::point_bvh<memory_space>::footprint(s.total));
  return replicated <= double(budget) / 2 ? strategy_kind::replicate : strategy_kind::ring;
}

// Rows of points as they travel between ranks: in the references' own value type (float32 sets
// then search as float32 sets, through the library's compiled calls), float64 by default.
template <class ExecutionSpace, class T = double>
using point_rows = Kokkos::View<T**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>;
template <class T = double>
using host_rows = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
// The value type references of type T travel in: float32 as they are, any other as float64.
template <class T>
using exchanged = std::conditional_t<std::is_same_v<T, float>, float, double>;

// `references` as rows of out's value type in `out` (any memory): one copy where they are
// contiguous rows of that type already, else converted where they live (on the execution space,
// or on the host where it cannot reach them) and copied.
template <class ExecutionSpace, class References, class Out>
void copy_rows(const ExecutionSpace& space, const References& references, const Out& out) {
  using value = typename References::non_const_value_type;
  using target = typename Out::non_const_value_type;
  using layout = typename References::array_layout;
  if constexpr (std::is_same_v<value, target> && std::is_same_v<layout, Kokkos::LayoutRight>) {
    if (references.span_is_contiguous()) {
      Kokkos::deep_copy(space, out, references);
      space.fence();
      return;
    }
  }
  constexpr bool reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename References::memory_space>::accessible;
  using converter = std::conditional_t<reached, ExecutionSpace, Kokkos::DefaultHostExecutionSpace>;
  const std::size_t m = references.extent(0), dimension = references.extent(1);
  Kokkos::View<target**, Kokkos::LayoutRight, typename converter::memory_space> converted(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::mpi::converted"), m, dimension);
  const converter where = [&] {
    if constexpr (reached) return space;
    else return converter();
  }();
  Kokkos::parallel_for("kernwerk::mpi::convert",
                       Kokkos::RangePolicy<converter, Kokkos::IndexType<std::int64_t>>(where, 0, std::int64_t(m)),
                       KOKKOS_LAMBDA(const std::int64_t j) {
                         for (std::size_t d = 0; d < dimension; ++d) converted(j, d) = target(references(j, d));
                       });
  where.fence();
  Kokkos::deep_copy(space, out, converted);
  space.fence();
}

// Whether MPI can be handed memory of MemorySpace (see message_path).
template <class MemorySpace>
bool mpi_reaches() {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    return true;
  } else {
    if (const char* said = std::getenv("KERNWERK_MPI_GPU_AWARE"); said && *said) return std::string(said) == "1";
#if defined(KERNWERK_OPEN_MPI_EXTENSIONS) && defined(KOKKOS_ENABLE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && \
    MPIX_CUDA_AWARE_SUPPORT
    if (std::is_same_v<MemorySpace, typename Kokkos::DefaultExecutionSpace::memory_space>)
      return MPIX_Query_cuda_support() == 1;
#endif
#if defined(KERNWERK_OPEN_MPI_EXTENSIONS) && defined(KOKKOS_ENABLE_HIP) && defined(MPIX_ROCM_AWARE_SUPPORT) && \
    MPIX_ROCM_AWARE_SUPPORT
    if (std::is_same_v<MemorySpace, typename Kokkos::DefaultExecutionSpace::memory_space>)
      return MPIX_Query_rocm_support() == 1;
#endif
    return false;
  }
}

template <class ExecutionSpace>
bool in_place(const nearest_options& options) {
  if (options.messages != message_path::automatic) return options.messages == message_path::in_place;
  return mpi_reaches<typename ExecutionSpace::memory_space>();
}

struct mpi_staging_purpose;
template <class ExecutionSpace>
using staging = kernwerk::impl::workspace<typename kernwerk::impl::staging_memory<ExecutionSpace>::type,
                                          mpi_staging_purpose>;

// A datatype of one point (dimension values of `element`: doubles by default), so that counts
// stay below 2^31 for any set the index takes.
template <class T>
MPI_Datatype element_type() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "points are float or double");
  return std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
}
struct point_type {
  MPI_Datatype type;
  explicit point_type(int dimension, MPI_Datatype element = MPI_DOUBLE) {
    check_mpi(MPI_Type_contiguous(dimension, element, &type), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  }
  ~point_type() { MPI_Type_free(&type); }
  point_type(const point_type&) = delete;
  point_type& operator=(const point_type&) = delete;
};

// Writes the k best (global index, key) of each of the n = best_index.extent(0) queries into
// the caller's outputs as kernwerk::nearest's answers: distances from the keys on the execution
// space, by the function of a single-process call, so that they agree bit for bit.
template <class ExecutionSpace, class IndexMatrix, class KeyMatrix, class Indices, class Distances>
void write_answers(const ExecutionSpace& space, const phase_clock<ExecutionSpace>& clock, bool haversine,
                   double radius, const IndexMatrix& best_index, const KeyMatrix& best_key,
                   const Indices& indices, const Distances& distances) {
  using namespace kernwerk::impl;
  using memory_space = typename ExecutionSpace::memory_space;
  const std::size_t n = best_index.extent(0);
  const int k = int(best_index.extent(1));
  const auto indices_out = first_rows(indices, n);
  const auto distances_out = first_rows(distances, n);
  const auto indices_here = Kokkos::create_mirror_view(memory_space(), indices_out);
  const auto distances_here = Kokkos::create_mirror_view(memory_space(), distances_out);
  const auto finish = [&](const auto& distance) {
    using out_i = std::decay_t<decltype(indices_here)>;
    using out_d = std::decay_t<decltype(distances_here)>;
    Kokkos::parallel_for("kernwerk::mpi::finish", index_policy<ExecutionSpace>(space, 0, std::int64_t(n)),
                         finish_chunk<IndexMatrix, KeyMatrix, std::decay_t<decltype(distance)>, out_i, out_d>{
                             best_index, best_key, distance, indices_here, distances_here, 0, k});
  };
  clock(&nearest_timings::compute, [&] {
    if (haversine)
      finish(sphere_distance{radius});
    else
      finish(euclidean_distance{});
  });
  clock(&nearest_timings::staging, [&] {
    if (indices_here.data() != indices_out.data()) Kokkos::deep_copy(space, indices_out, indices_here);
    if (distances_here.data() != distances_out.data()) Kokkos::deep_copy(space, distances_out, distances_here);
  });
  space.fence();
}

template <class ExecutionSpace, class Observations, class References, class Indices, class Distances>
void replicate(const ExecutionSpace& space, MPI_Comm comm, const Observations& observations,
               const References& references, const Indices& indices, const Distances& distances,
               const nearest_options& options, const shards& s) {
  using value = exchanged<typename References::non_const_value_type>;
  const int dimension = int(references.extent(1)), ranks = size_of(comm), rank = rank_of(comm);
  const std::size_t total = std::size_t(s.total);
  const phase_clock<ExecutionSpace> clock{space, options.timings};
  std::vector<int> counts(ranks), displacements(ranks);
  for (int r = 0; r < ranks; ++r) counts[r] = int(s.count[r]), displacements[r] = int(s.offset[r]);
  const point_type point(dimension, element_type<value>());
  const auto mine = std::make_pair(std::size_t(s.offset[rank]), std::size_t(s.offset[rank] + s.count[rank]));
  // Every rank's references, gathered in the execution space's memory (in place) or through a
  // page-locked host buffer (staged) and copied there, where this rank has observations.
  point_rows<ExecutionSpace, value> here;
  const auto allocate_here = [&] {
    here = point_rows<ExecutionSpace, value>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::mpi::references"),
                                      total, dimension);
  };
  // Each rank's own work runs within agree: a rank that fails there fails them all.
  const bool direct = in_place<ExecutionSpace>(options);
  std::optional<staging<ExecutionSpace>> memory;
  host_rows<value> all;
  agree(comm, fn, [&] {
    clock(&nearest_timings::staging, [&] {
      if (direct) {
        allocate_here();
        copy_rows(space, references, Kokkos::subview(here, mine, Kokkos::ALL()));
      } else {
        memory.emplace(staging<ExecutionSpace>::template bytes_for<value>(total * dimension));
        all = host_rows<value>(memory->template take<value>(total * dimension), total, dimension);
        copy_rows(space, references, Kokkos::subview(all, mine, Kokkos::ALL()));
      }
    });
  });
  clock.host(&nearest_timings::exchange, [&] {
    check_mpi(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, direct ? here.data() : all.data(), counts.data(),
                             displacements.data(), point.type, comm),
              "MPI_Allgatherv");
  });
  agree(comm, fn, [&] {
    if (observations.extent(0) == 0) return;
    if (!direct)
      clock(&nearest_timings::staging, [&] {
        allocate_here();
        Kokkos::deep_copy(space, here, all);
      });
    clock(&nearest_timings::compute,
          [&] { kernwerk::nearest(space, observations, here, indices, distances, options); });
  });
}

template <class ExecutionSpace, class Observations, class References, class Indices, class Distances>
void ring(const ExecutionSpace& space, MPI_Comm comm, const Observations& observations,
          const References& references, const Indices& indices, const Distances& distances,
          const nearest_options& options, const shards& s, std::size_t k) {
  using namespace kernwerk::impl;
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = index_policy<ExecutionSpace>;
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space>;
  using key_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  using value = exchanged<typename References::non_const_value_type>;
  const int ranks = size_of(comm), rank = rank_of(comm);
  const int dimension = int(observations.extent(1));
  const std::size_t n = observations.extent(0), largest = std::size_t(s.largest());
  const int right = (rank + 1) % ranks, left = (rank + ranks - 1) % ranks;

  // Two shards in the execution space's memory: the one searched and the next, which MPI
  // receives into itself (in place) or which is copied in from a page-locked host buffer
  // (staged: two of those, the shard going right and the one coming from the left).
  const bool direct = in_place<ExecutionSpace>(options);
  const std::size_t shard_values = largest * dimension;
  std::optional<staging<ExecutionSpace>> memory;
  value *outgoing = nullptr, *incoming = nullptr;
  const phase_clock<ExecutionSpace> clock{space, options.timings};
  point_rows<ExecutionSpace, value> shard[2];
  const auto rows = [&](int owner) { return std::make_pair(std::size_t(0), std::size_t(s.count[owner])); };
  decltype(Kokkos::create_mirror_view_and_copy(memory_space(), observations)) observations_here;
  index_matrix best_index, chunk_index;
  key_matrix best_key, chunk_key;
  // Each rank's own work runs within agree (or its failure is agreed on after the step's
  // transfer): a rank that fails there fails them all.
  agree(comm, fn, [&] {
    if (!direct) {
      memory.emplace(2 * staging<ExecutionSpace>::template bytes_for<value>(shard_values));
      outgoing = memory->template take<value>(shard_values);
      incoming = memory->template take<value>(shard_values);
    }
    clock(&nearest_timings::staging, [&] {
      for (auto& view : shard)
        view = point_rows<ExecutionSpace, value>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kernwerk::mpi::shard"),
                                          largest, dimension);
      const auto first = Kokkos::subview(shard[0], rows(rank), Kokkos::ALL());
      if (direct) {
        copy_rows(space, references, first);
      } else {
        copy_rows(space, references, host_rows<value>(outgoing, s.count[rank], dimension));
        Kokkos::deep_copy(space, first, host_rows<value>(outgoing, s.count[rank], dimension));
      }
      observations_here = Kokkos::create_mirror_view_and_copy(memory_space(), observations);
    });
    clock(&nearest_timings::compute, [&] {
      best_index = index_matrix(Kokkos::view_alloc(space, "kernwerk::mpi::best_index"), n, k);
      chunk_index = index_matrix(Kokkos::view_alloc(space, "kernwerk::mpi::chunk_index"), n, k);
      best_key = key_matrix(Kokkos::view_alloc(space, "kernwerk::mpi::best_key"), n, k);
      chunk_key = key_matrix(Kokkos::view_alloc(space, "kernwerk::mpi::chunk_key"), n, k);
    });
  });
  const point_type point(dimension, element_type<value>());
  const bool haversine = options.metric == metric_kind::haversine;
  nearest_report local_report;
  nearest_report& report = options.report ? *options.report : local_report;  // the last shard's
  int kept = 0;
  for (int step = 0; step < ranks; ++step) {
    const int owner = (rank - step + ranks) % ranks, next = (owner + ranks - 1) % ranks;
    MPI_Request requests[2];
    const bool passing = step + 1 < ranks;
    if (passing) {
      value* receive = direct ? shard[(step + 1) % 2].data() : incoming;
      value* send = direct ? shard[step % 2].data() : outgoing;
      check_mpi(MPI_Irecv(receive, int(s.count[next]), point.type, left, step, comm, &requests[0]), "MPI_Irecv");
      check_mpi(MPI_Isend(send, int(s.count[owner]), point.type, right, step, comm, &requests[1]), "MPI_Isend");
    }
    const std::size_t m = std::size_t(s.count[owner]);
    // The search, queued on `space` (where it runs asynchronously: while the next shard travels).
    std::exception_ptr failed;
    if (n > 0 && m > 0) try {
      clock.host(&nearest_timings::compute, [&] {
        const int k_shard = int(std::min(k, m));
        const auto run_rows = std::make_pair(std::size_t(0), n);
        const auto columns = std::make_pair(0, k_shard);
        const auto out_index = Kokkos::subview(chunk_index, run_rows, columns);
        const auto out_key = Kokkos::subview(chunk_key, run_rows, columns);
        const nearest_plan plan = plan_nearest<ExecutionSpace>(options, n, m, k_shard);
        report = {plan.choice.method, plan.choice.reason};
        const nearest_runner<ExecutionSpace> run{space, plan, haversine, radians_per_unit(options.units),
                                                 options.radius, &report, options.tuning};
        run(observations_here, Kokkos::subview(shard[step % 2], rows(owner), Kokkos::ALL()),
            neighbour_output<decltype(out_index), decltype(out_key)>{out_index, out_key, true}, k_shard);
        Kokkos::parallel_for("kernwerk::mpi::shard_merge", policy(space, 0, std::int64_t(n)),
                             merge_chunk<index_matrix, key_matrix>{best_index, chunk_index, best_key,
                                                                   chunk_key, int(k), k_shard, kept,
                                                                   s.offset[owner]});
        kept = std::min(int(k), kept + k_shard);
      });
    } catch (...) {
      failed = std::current_exception();
    }
    if (passing) {
      clock.host(&nearest_timings::exchange,
                 [&] { check_mpi(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall"); });
      // The search of this step is done (it ran during the transfer), and with it every use
      // of the shard to be overwritten and of the buffer the next step receives into.
      clock.fence(&nearest_timings::compute);
      if (!direct) {
        std::swap(outgoing, incoming);
        clock(&nearest_timings::staging, [&] {
          Kokkos::deep_copy(space, Kokkos::subview(shard[(step + 1) % 2], rows(next), Kokkos::ALL()),
                            host_rows<value>(outgoing, s.count[next], dimension));
        });
      }
    }
    agree(comm, fn, [&] {
      if (failed) std::rethrow_exception(failed);
    });
  }
  agree(comm, fn, [&] {
    if (n > 0) write_answers(space, clock, haversine, options.radius, best_index, best_key, indices, distances);
  });
}

}  // namespace kernwerk::mpi::detail

#pragma once
// kernwerk::nearest over sets larger than the memory budget, or in memory the execution space
// cannot reach: observations and references are cut into chunks of rows that are copied into
// the execution space's memory in turn.
//
// Each (observation chunk, reference chunk) pair runs the chosen method and writes its k best
// as (index, key); a merge keeps the k best by (key, index) over the reference chunks seen so
// far, which is exactly what one pass over all references keeps. Distances are computed from
// the final keys on the execution space, by the same function as an unchunked call, so the
// result is identical to it bit for bit.
//
// Where observations or outputs live out of the execution space's reach (host memory and a
// GPU), the chunks form a pipeline: while chunk c computes, chunk c + 1 is converted on the
// host into page-locked memory and copied in on a second queue of the device, and the results
// of chunk c - 1 are copied out and written into the caller's outputs on the host.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/staging/neighbour_output.hpp"
#include "kernwerk/impl/staging/traits.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::impl {

struct staging_purpose;
template <class ExecutionSpace>
using staging_workspace = workspace<typename staging_memory<ExecutionSpace>::type, staging_purpose>;

// A View of the rank and value type of `View` (rank 1: (n), rank 2: (n, columns)) in
// LayoutRight.
template <class View, class MemorySpace, class... Traits>
using rows_like =
    Kokkos::View<typename View::non_const_data_type, Kokkos::LayoutRight, MemorySpace, Traits...>;

template <class Rows>
Rows allocate_rows(const char* label, std::size_t rows, std::size_t columns) {
  const auto alloc = Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label));
  if constexpr (Rows::rank == 1)
    return Rows(alloc, rows);
  else
    return Rows(alloc, rows, columns);
}

template <class Rows>
Rows unmanaged_rows(typename Rows::value_type* data, std::size_t rows, std::size_t columns) {
  if constexpr (Rows::rank == 1)
    return Rows(data, rows);
  else
    return Rows(data, rows, columns);
}

// Rows [first, first + rows) of a rank-1 or rank-2 View.
template <class View>
auto row_window(const View& view, std::size_t first, std::size_t rows) {
  const auto range = std::make_pair(first, first + rows);
  if constexpr (View::rank == 1)
    return Kokkos::subview(view, range);
  else
    return Kokkos::subview(view, range, Kokkos::ALL());
}

// target(i, d) = source(first + i, d). A functor, not a KOKKOS_LAMBDA: it runs in the library's
// compiled instances and in callers' own, and nvcc's wrapper of an extended lambda instantiated
// in two such units called a null function pointer on the host (the chunked test crashed on
// CUDA). At namespace scope: nvcc's kernel stubs name the functor's type.
template <class Target, class Source>
struct chunk_rows_copy {
  Target target;
  Source source;
  int64_t first;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, const int64_t d) const {
    target(i, d) = static_cast<typename Target::value_type>(source(first + i, d));
  }
};

// Brings rows of a point set (any layout, value type, memory space) into LayoutRight chunks in
// the execution space's memory. Sets the execution space reaches are copied by a kernel on the
// computing queue; others are converted on the host into staging memory (stage) and copied on
// the transfer queue (upload).
template <class ExecutionSpace, class Source>
class chunk_reader {
 public:
  using value_type = typename Source::non_const_value_type;
  using chunk_view =
      Kokkos::View<value_type**, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>;
  static constexpr bool reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Source::memory_space>::accessible;
  static_assert(reached || Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace,
                                                      typename Source::memory_space>::accessible,
                "kernwerk::nearest: points must be in memory the execution space or the host "
                "reaches");

  // Staging bytes for chunks of chunk_rows rows.
  static std::size_t staging_bytes(const Source& source, std::size_t chunk_rows) {
    return reached ? 0
                   : staging_workspace<ExecutionSpace>::template bytes_for<value_type>(
                         chunk_rows * source.extent(1));
  }

  chunk_reader(const Source& source, std::size_t chunk_rows,
               std::optional<staging_workspace<ExecutionSpace>>& staging)
      : source_(source) {
    if (!reached)
      staging_ = staging_view(staging->template take<value_type>(chunk_rows * source.extent(1)),
                              chunk_rows, source.extent(1));
  }

  chunk_view allocate(const char* label, std::size_t rows) const {
    return allocate_rows<chunk_view>(label, rows, source_.extent(1));
  }

  // On the host: converts the rows into staging memory (nothing for reached sets). The
  // previous upload must have completed (the transfer queue fenced).
  void stage(std::size_t first, std::size_t rows) const {
    if constexpr (!reached) {
      using host_policy =
          Kokkos::MDRangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Rank<2>>;
      const auto source = source_;
      const auto staging = staging_;
      Kokkos::parallel_for("kernwerk::nearest::chunk_stage",
                           host_policy({0, 0}, {int64_t(rows), int64_t(source.extent(1))}),
                           [=](const int64_t i, const int64_t d) {
                             staging(i, d) = static_cast<value_type>(source(first + i, d));
                           });
    }
  }

  // Into the first rows of `target` (a chunk_view or rows of one): a kernel on `computing`, or
  // a copy of the staged rows on `transfer`. Asynchronous both ways.
  template <class Target>
  void upload(const ExecutionSpace& computing, const ExecutionSpace& transfer,
              const Target& target, std::size_t first, std::size_t rows) const {
    const auto window = row_window(target, 0, rows);
    if constexpr (reached) {
      using policy = Kokkos::MDRangePolicy<ExecutionSpace, Kokkos::Rank<2>>;
      Kokkos::parallel_for("kernwerk::nearest::chunk_in",
                           policy(computing, {0, 0}, {int64_t(rows), int64_t(source_.extent(1))}),
                           chunk_rows_copy<std::remove_const_t<decltype(window)>, Source>{window, source_, int64_t(first)});
    } else {
      Kokkos::deep_copy(transfer, window, row_window(staging_, 0, rows));
    }
  }

 private:
  using staging_view = Kokkos::View<value_type**, Kokkos::LayoutRight,
                                    typename staging_memory<ExecutionSpace>::type,
                                    Kokkos::MemoryUnmanaged>;
  Source source_;
  staging_view staging_;
};

// Where the results of a chunk go: straight into the caller's outputs where the execution
// space reaches them, else into chunk buffers (two, used in turn) copied out on the transfer
// queue into staging memory (download) and written into the outputs on the host (unstage).
template <class ExecutionSpace, class Indices, class Distances>
class chunk_writer {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  static constexpr bool reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Indices::memory_space>::accessible &&
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Distances::memory_space>::accessible;
  using index_buffer = rows_like<Indices, memory_space>;
  using distance_buffer = rows_like<Distances, memory_space>;

  static std::size_t staging_bytes(std::size_t chunk_rows, int k) {
    using scratch = staging_workspace<ExecutionSpace>;
    return reached ? 0
                   : scratch::template bytes_for<index_value>(chunk_rows * k) +
                         scratch::template bytes_for<distance_value>(chunk_rows * k);
  }

  // Staging memory for chunk_rows rows; with chunk_buffers, the two device buffers the chunks'
  // results go into (else the caller downloads from its own, download_rows).
  chunk_writer(const Indices& indices, const Distances& distances, std::size_t chunk_rows, int k,
               std::optional<staging_workspace<ExecutionSpace>>& staging, bool chunk_buffers = true)
      : indices_(indices), distances_(distances) {
    if constexpr (!reached) {
      for (int b = 0; b < 2 && chunk_buffers; ++b) {
        index_chunk_[b] =
            allocate_rows<index_buffer>("kernwerk::nearest::index_chunk", chunk_rows, k);
        distance_chunk_[b] =
            allocate_rows<distance_buffer>("kernwerk::nearest::distance_chunk", chunk_rows, k);
      }
      index_staging_ = unmanaged_rows<index_staging>(
          staging->template take<index_value>(chunk_rows * k), chunk_rows, k);
      distance_staging_ = unmanaged_rows<distance_staging>(
          staging->template take<distance_value>(chunk_rows * k), chunk_rows, k);
    }
  }

  // Runs `write(indices, distances, first_row)` with the Views chunk c's results go into and
  // the row of the chunk's first observation in them.
  template <class Write>
  void target(std::size_t c, std::size_t first, const Write& write) const {
    if constexpr (reached)
      write(indices_, distances_, first);
    else
      write(index_chunk_[c % 2], distance_chunk_[c % 2], std::size_t(0));
  }

  // On `transfer`, after chunk c computed: its results into staging memory (asynchronous).
  void download(const ExecutionSpace& transfer, std::size_t c, std::size_t rows) const {
    download_rows(transfer, index_chunk_[c % 2], distance_chunk_[c % 2], 0, 0, rows);
  }
  // Rows [first, first + rows) of results in the execution space's memory into staging rows
  // from staging_first, on `transfer` (asynchronous).
  void download_rows(const ExecutionSpace& transfer, const index_buffer& index_source,
                     const distance_buffer& distance_source, std::size_t first,
                     std::size_t staging_first, std::size_t rows) const {
    if constexpr (!reached) {
      Kokkos::deep_copy(transfer, row_window(index_staging_, staging_first, rows),
                        row_window(index_source, first, rows));
      Kokkos::deep_copy(transfer, row_window(distance_staging_, staging_first, rows),
                        row_window(distance_source, first, rows));
    }
  }

  // On the host, after the download completed: the staged rows into the caller's outputs.
  void unstage(std::size_t first, std::size_t rows) const { unstage_rows(0, first, rows); }
  // Staging rows from staging_first into the caller's output rows [first, first + rows).
  void unstage_rows(std::size_t staging_first, std::size_t first, std::size_t rows) const {
    if constexpr (!reached) {
      const auto indices = indices_;
      const auto distances = distances_;
      const auto index_rows = index_staging_;
      const auto distance_rows = distance_staging_;
      const int64_t columns = Indices::rank == 2 ? int64_t(indices.extent(1)) : 1;
      using host_policy =
          Kokkos::MDRangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::Rank<2>>;
      Kokkos::parallel_for("kernwerk::nearest::chunk_out",
                           host_policy({0, 0}, {int64_t(rows), columns}),
                           [=](const int64_t i, const int64_t q) {
                             if constexpr (Indices::rank == 1) {
                               indices(first + i) = index_rows(staging_first + i);
                               distances(first + i) = distance_rows(staging_first + i);
                             } else {
                               indices(first + i, q) = index_rows(staging_first + i, q);
                               distances(first + i, q) = distance_rows(staging_first + i, q);
                             }
                           });
    }
  }

 private:
  using index_value = typename Indices::non_const_value_type;
  using distance_value = typename Distances::non_const_value_type;
  using staging_space = typename staging_memory<ExecutionSpace>::type;
  using index_staging = rows_like<Indices, staging_space, Kokkos::MemoryUnmanaged>;
  using distance_staging = rows_like<Distances, staging_space, Kokkos::MemoryUnmanaged>;
  Indices indices_;
  Distances distances_;
  index_buffer index_chunk_[2];
  distance_buffer distance_chunk_[2];
  index_staging index_staging_;
  distance_staging distance_staging_;
};

// Merges the k_chunk best of one reference chunk (indices relative to `offset`) into the
// running k best of each observation, by (key, index).
template <class Indices, class Keys>
struct merge_chunk {
  Indices best_index, chunk_index;
  Keys best_key, chunk_key;
  int k, k_chunk, kept;  // kept: entries already in the running lists
  std::int64_t offset;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    std::int64_t index[32];
    double key[32];
    int a = 0, b = 0;
    for (int q = 0; q < k; ++q) {
      const bool take_chunk =
          a >= kept || (b < k_chunk && (chunk_key(i, b) < best_key(i, a) ||
                                        (chunk_key(i, b) == best_key(i, a) &&
                                         chunk_index(i, b) + offset < best_index(i, a))));
      if (take_chunk && b >= k_chunk) break;  // both exhausted: fewer than k so far
      if (take_chunk) {
        index[q] = chunk_index(i, b) + offset;
        key[q] = chunk_key(i, b++);
      } else {
        index[q] = best_index(i, a);
        key[q] = best_key(i, a++);
      }
    }
    const int filled = a + b;
    for (int q = 0; q < filled; ++q) {
      best_index(i, q) = index[q];
      best_key(i, q) = key[q];
    }
  }
};

// Writes the final k best of each chunk row into the caller's outputs (rows from `first`).
template <class Indices, class Keys, class Metric, class OutIndices, class OutDistances>
struct finish_chunk {
  Indices best_index;
  Keys best_key;
  Metric metric;
  OutIndices indices;
  OutDistances distances;
  std::int64_t first;
  int k;

  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    for (int q = 0; q < k; ++q) {
      const double distance = metric.distance(best_key(i, q));
      if constexpr (OutIndices::rank == 1) {
        indices(first + i) = static_cast<typename OutIndices::value_type>(best_index(i, q));
        distances(first + i) = static_cast<typename OutDistances::value_type>(distance);
      } else {
        indices(first + i, q) = static_cast<typename OutIndices::value_type>(best_index(i, q));
        distances(first + i, q) = static_cast<typename OutDistances::value_type>(distance);
      }
    }
  }
};

// What the distance of a key is, without the rest of a metric (for finish_chunk).
struct sphere_distance {
  double radius;
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return radius * central_angle(key); }
};
struct euclidean_distance {
  KOKKOS_INLINE_FUNCTION double distance(double key) const { return math::sqrt(key); }
};

// Rows per chunk for a budget of `budget` bytes.
struct chunk_plan {
  std::size_t observation_rows, reference_rows;
};

template <class MemorySpace>
std::optional<chunk_plan> chunks_within(std::size_t budget, std::size_t n, std::size_t m,
                                        std::size_t observation_row, std::size_t reference_row,
                                        std::size_t k) {
  // Half the budget for a reference chunk and its index, half for observations and results.
  std::size_t reference_rows = m;
  const auto reference_bytes = [&](std::size_t rows) {
    return rows * (reference_row + 128) + point_bvh<MemorySpace>::footprint(std::int64_t(rows));
  };
  while (reference_rows > 1 && reference_bytes(reference_rows) > budget / 2)
    reference_rows = (reference_rows + 1) / 2;
  // Two observation chunks, running and chunk k best (index, key), two result buffers.
  const std::size_t per_observation = 2 * observation_row + 6 * k * 16;
  const std::size_t observation_rows = std::min(n, (budget / 2) / per_observation);
  if (reference_bytes(reference_rows) > budget / 2 || observation_rows == 0 || reference_rows < k)
    return std::nullopt;
  return chunk_plan{observation_rows, reference_rows};
}

// As chunks_within, or throws naming options.memory_budget.
template <class MemorySpace>
chunk_plan plan_chunks(std::size_t budget, std::size_t n, std::size_t m, std::size_t observation_row,
                       std::size_t reference_row, std::size_t k) {
  if (const auto plan =
          chunks_within<MemorySpace>(budget, n, m, observation_row, reference_row, k))
    return *plan;
  throw invalid_argument("nearest", "options.memory_budget",
                         std::to_string(budget) + " bytes cannot hold a chunk of " +
                             std::to_string(k) + " references and one observation");
}

// Runs `core(observations, references, output, k)` over chunks; core is one of the methods.
// Each allocation it makes is made, at its largest, before the first chunk's results are
// written (the chunk buffers up front, the method's own in the first chunk), and *wrote (where
// given) is set just before they are: an allocation that fails before leaves the outputs
// untouched.
template <class ExecutionSpace, class Observations, class References, class Indices,
          class Distances, class Core, class Distance>
void nearest_chunked(const ExecutionSpace& space, const Observations& observations,
                     const References& references, const Indices& indices,
                     const Distances& distances, int k, const chunk_plan& plan, const Core& core,
                     const Distance& distance, bool* wrote = nullptr) {
  const auto writing = [wrote] {
    if (wrote) *wrote = true;
  };
  using memory_space = typename ExecutionSpace::memory_space;
  using policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::size_t n = observations.extent(0), m = references.extent(0);
  const std::size_t n_c = std::min(plan.observation_rows, n), m_c = std::min(plan.reference_rows, m);
  const std::size_t chunks = (n + n_c - 1) / n_c;
  const auto rows_of = [&](std::size_t c) { return std::min(n_c, n - c * n_c); };

  transfer_queue<ExecutionSpace> queue(space);
  const ExecutionSpace& transfer = queue.space;
  using observation_reader_type = chunk_reader<ExecutionSpace, Observations>;
  using reference_reader_type = chunk_reader<ExecutionSpace, References>;
  using writer_type = chunk_writer<ExecutionSpace, Indices, Distances>;
  const std::size_t staging_bytes = observation_reader_type::staging_bytes(observations, n_c) +
                                    reference_reader_type::staging_bytes(references, m_c) +
                                    writer_type::staging_bytes(n_c, k);
  std::optional<staging_workspace<ExecutionSpace>> staging;
  if (staging_bytes > 0) staging.emplace(staging_bytes);
  const observation_reader_type observation_reader(observations, n_c, staging);
  const reference_reader_type reference_reader(references, m_c, staging);
  const writer_type writer(indices, distances, n_c, k, staging);
  // Two observation chunks when the next one is copied in while the current one computes.
  typename decltype(observation_reader)::chunk_view observation_chunk[2];
  observation_chunk[0] = observation_reader.allocate("kernwerk::nearest::obs_chunk", n_c);
  if (chunks > 1)
    observation_chunk[1] = observation_reader.allocate("kernwerk::nearest::obs_chunk", n_c);
  const auto reference_chunk = reference_reader.allocate("kernwerk::nearest::ref_chunk", m_c);
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space>;
  using key_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  index_matrix best_index(Kokkos::view_alloc(space, "kernwerk::nearest::best_index"), n_c, k),
      chunk_index(Kokkos::view_alloc(space, "kernwerk::nearest::chunk_index"), n_c, k);
  key_matrix best_key(Kokkos::view_alloc(space, "kernwerk::nearest::best_key"), n_c, k),
      chunk_key(Kokkos::view_alloc(space, "kernwerk::nearest::chunk_key"), n_c, k);

  // Chunk c of the observations against all references, queued on `space`.
  const auto compute = [&](std::size_t c) {
    const std::size_t first = c * n_c, rows = rows_of(c);
    const auto row_range = std::make_pair(std::size_t(0), rows);
    const auto obs = row_window(observation_chunk[c % 2], 0, rows);
    int kept = 0;
    for (std::size_t offset = 0; offset < m; offset += m_c) {
      const std::size_t reference_rows = std::min(m_c, m - offset);
      if (m_c < m || c == 0) {
        // The reference chunk is reused: what used it, and its staging, must be done.
        space.fence();
        reference_reader.stage(offset, reference_rows);
        reference_reader.upload(space, space, reference_chunk, offset, reference_rows);
      }
      const int k_chunk = int(std::min<std::size_t>(k, reference_rows));
      const auto columns = std::make_pair(0, k_chunk);
      const auto out_index = Kokkos::subview(chunk_index, row_range, columns);
      const auto out_key = Kokkos::subview(chunk_key, row_range, columns);
      core(obs, row_window(reference_chunk, 0, reference_rows),
           neighbour_output<decltype(out_index), decltype(out_key)>{out_index, out_key, true},
           k_chunk);
      Kokkos::parallel_for("kernwerk::nearest::chunk_merge", policy(space, 0, rows),
                           merge_chunk<index_matrix, key_matrix>{best_index, chunk_index, best_key,
                                                                 chunk_key, k, k_chunk, kept,
                                                                 std::int64_t(offset)});
      kept = std::min(k, kept + k_chunk);
    }
    if constexpr (writer_type::reached) writing();
    writer.target(c, first, [&](const auto& out_indices, const auto& out_distances,
                                std::size_t out_first) {
      using out_i = std::decay_t<decltype(out_indices)>;
      using out_d = std::decay_t<decltype(out_distances)>;
      Kokkos::parallel_for(
          "kernwerk::nearest::chunk_finish", policy(space, 0, rows),
          finish_chunk<index_matrix, key_matrix, Distance, out_i, out_d>{
              best_index, best_key, distance, out_indices, out_distances,
              std::int64_t(out_first), k});
    });
  };

  observation_reader.stage(0, rows_of(0));
  observation_reader.upload(space, transfer, observation_chunk[0], 0, rows_of(0));
  transfer.fence();
  for (std::size_t c = 0; c < chunks; ++c) {
    compute(c);
    // While chunk c computes: chunk c + 1 in, chunk c - 1 out.
    if (c + 1 < chunks) {
      observation_reader.stage((c + 1) * n_c, rows_of(c + 1));
      observation_reader.upload(space, transfer, observation_chunk[(c + 1) % 2], (c + 1) * n_c,
                                rows_of(c + 1));
    }
    transfer.fence();
    if (c > 0) {
      writing();
      writer.unstage((c - 1) * n_c, rows_of(c - 1));
    }
    space.fence();
    writer.download(transfer, c, rows_of(c));
  }
  transfer.fence();
  writing();
  writer.unstage((chunks - 1) * n_c, rows_of(chunks - 1));
}

}  // namespace kernwerk::impl

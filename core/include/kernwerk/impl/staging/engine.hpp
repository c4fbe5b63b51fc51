#pragma once
// The one staged-memory engine of the searches: rows of observations (queries) in any memory
// the execution space or the host reaches are brought into the execution space's memory chunk
// by chunk, each chunk is computed there, and its result rows (k columns of indices and
// distances) are taken out into the caller's outputs. One loop, in two modes:
// - streamed: the results of chunk c - 1 are written into the outputs while chunk c computes
//   and chunk c + 1 comes in (chunks within a memory budget; the inputs' values are checked
//   before, as outputs are written before the last chunk computed);
// - held (the pipeline, double-buffered both ways): the results stay in the execution space's
//   memory until every chunk computed and the caller's check of the values passed; then they
//   go out chunk by chunk, the copy of the next beside the writing of this one. No output is
//   written before every input is known to be valid, and no host pass reads the inputs only to
//   check them.
// Sets that fit and are too small for chunks to pay are copied in one piece
// (staging/copies.hpp); run_staged picks the case and falls back to chunks where an
// allocation fails.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/staging/allocation_failure.hpp"
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
                "kernwerk: points must be in memory the execution space or the host "
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
      Kokkos::parallel_for("kernwerk::staged::stage",
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
      Kokkos::parallel_for("kernwerk::staged::copy_in",
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
            allocate_rows<index_buffer>("kernwerk::staged::index_chunk", chunk_rows, k);
        distance_chunk_[b] =
            allocate_rows<distance_buffer>("kernwerk::staged::distance_chunk", chunk_rows, k);
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

  // On `space`: the results of every row, in the execution space's memory, into outputs it
  // reaches (asynchronous).
  void copy_all(const ExecutionSpace& space, const index_buffer& index_source,
                const distance_buffer& distance_source) const {
    if constexpr (reached) {
      Kokkos::deep_copy(space, indices_, index_source);
      Kokkos::deep_copy(space, distances_, distance_source);
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
      Kokkos::parallel_for("kernwerk::staged::unstage",
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

// Observation sets out of the execution space's reach from this size on are pipelined (below
// it, copied in one piece).
inline constexpr std::size_t pipeline_min_rows = std::size_t(1) << 18;

// two_phase false: large sets go through streamed chunks instead, with the values checked on
// the host first (for comparisons: kernwerk_bench_nearest --pipeline chunked). chunks: how many
// chunks the observations are cut into (more overlap the copies with the computation, fewer
// cost less per chunk: the method runs once a chunk); 2 to 16 took the same within the noise
// (kernwerk_bench_nearest --pipeline-chunks; commit 48a6d2e).
struct pipeline_policy {
  static inline bool two_phase = true;
  static inline std::size_t chunks = 8;
};

// Rows of observations per chunk of the pipeline: pipeline_policy::chunks chunks, none
// shorter than pipeline_min_rows / 8.
inline std::size_t pipeline_chunk_rows(std::size_t n) {
  const std::size_t chunks = std::max<std::size_t>(1, pipeline_policy::chunks);
  return std::max(pipeline_min_rows / 8, (n + chunks - 1) / chunks);
}

// Whether a call's sets are large and out of reach (choose_staging's `pipelined`).
template <class ExecutionSpace, class Observations, class Indices, class Distances>
bool wants_pipeline(std::size_t n) {
  constexpr bool reached =
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Observations::memory_space>::accessible &&
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Indices::memory_space>::accessible &&
      Kokkos::SpaceAccessibility<ExecutionSpace, typename Distances::memory_space>::accessible;
  return !reached && n >= pipeline_min_rows;
}

// The engine over one call's observations and outputs (first rows: outputs may be longer).
// Staging memory for the caller's own sets (a reference set) comes from the same workspace:
// extra_staging bytes of it, through staging().
template <class ExecutionSpace, class Observations, class Indices, class Distances>
class staged_rows {
 public:
  using reader_type = chunk_reader<ExecutionSpace, Observations>;
  using writer_type = chunk_writer<ExecutionSpace, Indices, Distances>;
  using chunk_view = typename reader_type::chunk_view;

  // Chunks of chunk_rows rows; held: the results stay in the execution space's memory until
  // run's `verify` returned. Allocates everything the loop uses.
  staged_rows(const ExecutionSpace& space, const Observations& observations,
              const Indices& indices, const Distances& distances, int k, std::size_t chunk_rows,
              bool held, std::size_t extra_staging = 0)
      : space_(space),
        queue_(space),
        n_(observations.extent(0)),
        rows_(std::max<std::size_t>(1, std::min(capped_rows(chunk_rows, n_), n_))),
        chunks_((n_ + rows_ - 1) / rows_),
        k_(k),
        held_(held),
        reader_(observations, rows_, prepare_staging(observations, extra_staging)),
        writer_(indices, distances, held ? 2 * rows_ : rows_, k, staging_, !held) {
    observation_chunk_[0] = reader_.allocate("kernwerk::staged::observations", rows_);
    if (chunks_ > 1)
      observation_chunk_[1] = reader_.allocate("kernwerk::staged::observations", rows_);
    if (held) {
      held_indices_ = allocate_rows<typename writer_type::index_buffer>(
          "kernwerk::staged::indices", n_, std::size_t(k));
      held_distances_ = allocate_rows<typename writer_type::distance_buffer>(
          "kernwerk::staged::distances", n_, std::size_t(k));
    }
  }

  // Staging memory left for the caller (extra_staging bytes).
  std::optional<staging_workspace<ExecutionSpace>>& staging() { return staging_; }

  // Runs compute(c, first, observations, write) for chunk c of the observations (rows from
  // `first`, in the execution space's memory), queued on the execution space; compute calls
  // write(f) once, f(indices, distances, out_first) writing the chunk's results into the rows
  // from out_first of the Views given. Held: verify() runs once every chunk computed, before
  // any output is written; it throws to leave the outputs untouched. *wrote (where given) is
  // set just before the first output is written.
  template <class Compute, class Verify>
  void run(const Compute& compute, const Verify& verify, bool* wrote = nullptr) {
    const auto writing = [wrote] {
      if (wrote) *wrote = true;
    };
    if (chunks_ == 0) {  // no observations: nothing to write
      if (held_) verify();
      return;
    }
    const ExecutionSpace& transfer = queue_.space;
    reader_.stage(0, rows_of(0));
    reader_.upload(space_, transfer, observation_chunk_[0], 0, rows_of(0));
    transfer.fence();
    for (std::size_t c = 0; c < chunks_; ++c) {
      const std::size_t first = c * rows_, rows = rows_of(c);
      const auto write = [&](const auto& f) {
        if (held_) {
          f(held_indices_, held_distances_, first);
          return;
        }
        if constexpr (writer_type::reached) writing();
        writer_.target(c, first, f);
      };
      // Chunk c + 1 in (into the buffer chunk c - 1 read, done) while chunk c computes, and in
      // the streamed mode chunk c - 1 out. Staged before chunk c is queued: the methods wait
      // for their kernels before they return (their workspaces), so that the copy overlaps
      // the computation only when queued first.
      if (c + 1 < chunks_) {
        reader_.stage(first + rows, rows_of(c + 1));
        reader_.upload(space_, transfer, observation_chunk_[(c + 1) % 2], first + rows,
                       rows_of(c + 1));
      }
      compute(c, first, row_window(observation_chunk_[c % 2], 0, rows), write);
      transfer.fence();
      if (!held_ && c > 0) {
        writing();
        writer_.unstage(first - rows_, rows_of(c - 1));
      }
      space_.fence();
      if (!held_) writer_.download(transfer, c, rows);
    }
    if (!held_) {
      transfer.fence();
      writing();
      writer_.unstage((chunks_ - 1) * rows_, rows_of(chunks_ - 1));
      return;
    }
    verify();
    writing();
    if constexpr (writer_type::reached) {  // outputs in the execution space's memory: one copy
      writer_.copy_all(space_, held_indices_, held_distances_);
      space_.fence();
      return;
    }
    // Out: chunk c + 1 copied into the other half of the staging memory while chunk c is
    // written into the outputs.
    writer_.download_rows(transfer, held_indices_, held_distances_, 0, 0, rows_of(0));
    transfer.fence();
    for (std::size_t c = 0; c < chunks_; ++c) {
      if (c + 1 < chunks_)
        writer_.download_rows(transfer, held_indices_, held_distances_, (c + 1) * rows_,
                              ((c + 1) % 2) * rows_, rows_of(c + 1));
      writer_.unstage_rows((c % 2) * rows_, c * rows_, rows_of(c));
      transfer.fence();
    }
  }

  std::size_t chunk_rows() const { return rows_; }

 private:
  std::size_t rows_of(std::size_t c) const { return std::min(rows_, n_ - c * rows_); }

  // Large sets out of reach are cut into the pipeline's chunks at most, so that their copies
  // overlap the computation (streamed too).
  static std::size_t capped_rows(std::size_t chunk_rows, std::size_t n) {
    return wants_pipeline<ExecutionSpace, Observations, Indices, Distances>(n)
               ? std::min(chunk_rows, pipeline_chunk_rows(n))
               : chunk_rows;
  }

  // The staging memory, locked before the reader and the writer take theirs.
  std::optional<staging_workspace<ExecutionSpace>>& prepare_staging(
      const Observations& observations, std::size_t extra) {
    const std::size_t bytes = reader_type::staging_bytes(observations, rows_) +
                              writer_type::staging_bytes(held_ ? 2 * rows_ : rows_, k_) + extra;
    if (bytes > 0) staging_.emplace(bytes);
    return staging_;
  }

  ExecutionSpace space_;
  transfer_queue<ExecutionSpace> queue_;
  std::size_t n_, rows_, chunks_;
  int k_;
  bool held_;
  std::optional<staging_workspace<ExecutionSpace>> staging_;
  reader_type reader_;
  writer_type writer_;
  chunk_view observation_chunk_[2];
  typename writer_type::index_buffer held_indices_;
  typename writer_type::distance_buffer held_distances_;
};

// How a call's sets go through the engine.
enum class staging_case {
  one_piece,  // fits, and small or in the execution space's reach: copied in whole
  pipeline,   // fits, large and out of reach: held chunks, the values checked where they land
  chunks,     // beyond the budget (or after an allocation failed): streamed chunks
};

// The case of a call needing `needed` bytes in one pass, within `budget`; `pipelined`: its
// observations or outputs are out of the execution space's reach and pipeline_min_rows or more.
inline staging_case choose_staging(double needed, std::size_t budget, bool pipelined,
                                   bool after_failure) {
  const bool fits = !after_failure && needed <= double(budget);
  if (fits && pipelined && pipeline_policy::two_phase) return staging_case::pipeline;
  if (!fits || pipelined) return staging_case::chunks;
  return staging_case::one_piece;
}


// Runs attempt(budget, case) in the case choose_staging picks. Where an allocation fails (the
// device is shared, or the estimate was short), it runs again in chunks within a quarter of the
// memory, while fits(budget) says chunks that small exist; the answer is the same. Where even
// those fail, spoil() fills outputs an attempt wrote into (wrote: set by the attempts) so that
// no partial answer is left, and the error says so. retried(budget) hears of each new budget.
// Calls needing less than this with no budget of their own do not ask the device for its
// free memory: the driver's answer costs a small call a tenth of its time
// (perf/results/issue45-staging-cuda-h200.json); where memory is short all the same, the
// allocation fails and the fallback runs.
inline constexpr double small_call_bytes = double(std::size_t(64) << 20);

// asked_budget: the caller's options.memory_budget (0: default_memory_budget).
template <class ExecutionSpace, class Attempt, class Fits, class Spoil, class Retried>
void run_staged(const char* fn, std::size_t asked_budget, double needed, bool pipelined,
                const bool& wrote, const Attempt& attempt, const Fits& fits, const Spoil& spoil,
                const Retried& retried) {
  std::size_t budget = asked_budget                ? asked_budget
                       : needed < small_call_bytes ? std::numeric_limits<std::size_t>::max()
                                                   : default_memory_budget<ExecutionSpace>::bytes();
  for (bool after_failure = false;; after_failure = true) {
    try {
      attempt(budget, choose_staging(needed, budget, pipelined, after_failure));
      return;
    } catch (const std::exception& failure) {
      if (!allocation_failed(failure) || dynamic_cast<const out_of_memory*>(&failure)) throw;
      const std::size_t smaller = std::size_t(std::min(double(budget), needed) / 4);
      if (!fits(smaller)) {
        if (wrote) spoil();
        throw out_of_memory(
            fn, std::string("an allocation failed in every plan down to chunks within ") +
                    std::to_string(budget) + " bytes (" + failure.what() + "); " +
                    (wrote ? "the outputs hold index -1 and distance NaN"
                           : "the outputs are untouched"));
      }
      budget = smaller;
      retried(budget);
    }
  }
}

// Fills outputs with index -1 and distance NaN (run_staged's spoil).
template <class Indices, class Distances>
void spoil_outputs(const Indices& indices, const Distances& distances) {
  Kokkos::deep_copy(indices, typename Indices::non_const_value_type(-1));
  Kokkos::deep_copy(distances,
                    std::numeric_limits<typename Distances::non_const_value_type>::quiet_NaN());
}

}  // namespace kernwerk::impl

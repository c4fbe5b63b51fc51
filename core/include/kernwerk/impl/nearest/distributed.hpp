#pragma once
// The workings of kernwerk::mpi::distributed_index (kernwerk/mpi/distributed_index.hpp): the
// partition of the points between ranks by a space-filling key, the boxes each rank publishes,
// the bounds that decide which ranks a query visits, and the exchanges of queries and answers.
//
// Keys and boxes live in one "box space": unit vectors (x, y, z) for the haversine metric, the
// coordinates themselves for the Euclidean one. A box's bound is the squared distance from a
// query to the box there: a squared chord on the sphere (4 h for a haversine h), the squared
// distance itself in the plane, below the key of every point in the box.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/metrics.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/nearest/mpi.hpp"
#include "kernwerk/index_options.hpp"

namespace kernwerk::mpi::detail {

using host_space = Kokkos::DefaultHostExecutionSpace;
using host_policy = Kokkos::RangePolicy<host_space, Kokkos::IndexType<std::int64_t>>;

// A point of box space, three coordinates (the third 0 for planar points).
struct box_point {
  double c[3] = {0, 0, 0};
};

// Box space of one index: its metric and the scale of haversine coordinates to radians.
struct box_space {
  metric_kind metric = metric_kind::haversine;
  double scale = 1.0;
  int dimension = 2;

  box_point of(const double* row) const {
    box_point p;
    if (metric == metric_kind::haversine) {
      const kernwerk::impl::sphere_point s = kernwerk::impl::make_sphere_point(scale * row[0], scale * row[1]);
      p.c[0] = s.x, p.c[1] = s.y, p.c[2] = s.z;
    } else {
      for (int d = 0; d < dimension; ++d) p.c[d] = row[d];
    }
    return p;
  }
  // The largest bound of a box that may still hold a point of key `key` (or one tied with it).
  // The sphere's chords are measured from unit vectors and keys from (lat, lon): they agree
  // within kernwerk::impl::chord_tie_margin, as the index's own traversal allows.
  double reach(double key) const {
    if (!(key < std::numeric_limits<double>::infinity())) return key;
    return metric == metric_kind::haversine ? 4 * key + kernwerk::impl::chord_tie_margin
                                            : key * (1 + 1e-12);
  }
};

struct box {
  double lo[3], hi[3];
  // Squared distance from p to the box (0 inside).
  double bound(const box_point& p) const {
    double sum = 0;
    for (int d = 0; d < 3; ++d) {
      const double below = lo[d] - p.c[d], above = p.c[d] - hi[d];
      const double gap = below > 0 ? below : above > 0 ? above : 0.0;
      sum += gap * gap;
    }
    return sum;
  }
};

// The 63-bit Morton key of a box-space point within the box [lo, hi] (21 bits an axis).
struct morton_keys {
  double lo[3], hi[3];

  std::uint64_t operator()(const box_point& p) const {
    std::uint64_t key = 0;
    for (int d = 0; d < 3; ++d) {
      const double width = hi[d] - lo[d];
      const double t = width > 0 ? (p.c[d] - lo[d]) / width : 0.0;
      const double cells = double(1 << 21);
      const std::uint64_t cell = std::uint64_t(std::clamp(t * cells, 0.0, cells - 1));
      key |= kernwerk::impl::morton_frame::spread(cell) << (2 - d);
    }
    return key;
  }
};

// A point's place in the partition: its key, and its global index to make the order total
// (duplicates and crowded cells still split evenly).
struct partition_key {
  std::uint64_t key;
  std::int64_t global;
  bool operator<(const partition_key& other) const {
    return key < other.key || (key == other.key && global < other.global);
  }
};

// RAII for a contiguous MPI datatype of `count` elements of `base`.
struct contiguous_type {
  MPI_Datatype type;
  contiguous_type(int count, MPI_Datatype base) {
    check_mpi(MPI_Type_contiguous(count, base, &type), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  }
  ~contiguous_type() { MPI_Type_free(&type); }
  contiguous_type(const contiguous_type&) = delete;
  contiguous_type& operator=(const contiguous_type&) = delete;
};

// Counts of items going to each rank; the counts coming from each rank and the displacements of
// both, as MPI_Alltoallv takes them (ints: the items of one pair of ranks stay below 2^31).
// Collective. The limits on what a rank sends are agreed on before the counts travel; what it
// receives is checked and allocated by receive_buffer, within the caller's agree (with the
// rest of its local work), before run().
struct exchange_plan {
  std::vector<int> send_counts, send_offsets, receive_counts, receive_offsets;
  std::int64_t received = 0;
  const char* function = nullptr;  // of the errors,
  const char* what = nullptr;      // and the argument they name

  exchange_plan(MPI_Comm comm, const std::vector<std::int64_t>& counts, const char* fn, const char* what_)
      : function(fn), what(what_) {
    const int ranks = int(counts.size());
    send_counts.resize(ranks), send_offsets.resize(ranks), receive_counts.resize(ranks),
        receive_offsets.resize(ranks);
    agree(comm, fn, [&] {
      std::int64_t at = 0;
      for (int r = 0; r < ranks; ++r) {
        if (counts[r] > INT_MAX)
          throw unsupported(fn, what, std::to_string(counts[r]) + " items for one rank: at most 2^31 - 1");
        send_counts[r] = int(counts[r]);
        send_offsets[r] = int(at);
        at += counts[r];
        if (at > INT_MAX) throw unsupported(fn, what, "more than 2^31 - 1 items sent by one rank");
      }
    });
    check_mpi(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm),
              "MPI_Alltoall");
    for (int r = 0; r < ranks; ++r) {
      receive_offsets[r] = int(std::min<std::int64_t>(received, INT_MAX));
      received += receive_counts[r];
    }
  }
  // The buffer of the items received, `per_item` values each. Local: call it within agree.
  template <class T>
  std::vector<T> receive_buffer(std::size_t per_item) const {
    if (received > INT_MAX) throw unsupported(function, what, "more than 2^31 - 1 items received by one rank");
    return std::vector<T>(std::size_t(received) * per_item);
  }
  // Sends items of `type` (send: by destination rank) into `receive` (receive_buffer's), by source.
  template <class T>
  void run(MPI_Comm comm, const T* send, MPI_Datatype type, std::vector<T>& receive) const {
    check_mpi(MPI_Alltoallv(send, send_counts.data(), send_offsets.data(), type, receive.data(),
                            receive_counts.data(), receive_offsets.data(), type, comm),
              "MPI_Alltoallv");
  }
  // The reverse exchange: items answering those received go back to their senders.
  exchange_plan reversed() const {
    exchange_plan back = *this;
    std::swap(back.send_counts, back.receive_counts);
    std::swap(back.send_offsets, back.receive_offsets);
    back.received = 0;
    for (const int count : back.receive_counts) back.received += count;
    return back;
  }
};

// A rank's answers, from the indices of its share to global ones.
template <class Indices, class Global>
struct to_global {
  Indices index;
  Global global;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const {
    for (std::size_t q = 0; q < index.extent(1); ++q) index(i, q) = global(index(i, q));
  }
};

// The k best answers found so far for each query (key, global index), best first; the empty
// places hold an infinite key and the largest index.
struct best_lists {
  std::size_t k = 0;
  std::vector<double> keys;
  std::vector<std::int64_t> indices;

  best_lists(std::size_t n, std::size_t k_)
      : k(k_), keys(n * k_, std::numeric_limits<double>::infinity()),
        indices(n * k_, std::numeric_limits<std::int64_t>::max()) {}

  double worst(std::size_t i) const { return keys[i * k + k - 1]; }

  // Merges one rank's k answers (sorted, padded) into query i's list by (key, index).
  void merge(std::size_t i, const double* key, const std::int64_t* index) {
    double* best_key = &keys[i * k];
    std::int64_t* best_index = &indices[i * k];
    const auto before = [&](std::size_t b, std::size_t a) {  // theirs b before ours a
      return key[b] < best_key[a] || (key[b] == best_key[a] && index[b] < best_index[a]);
    };
    std::size_t a = 0, b = 0;
    while (a + b < k) {
      if (before(b, a)) ++b;
      else ++a;
    }
    for (std::size_t q = a + b; q-- > 0;) {  // from the back, in place
      if (a == 0 || (b > 0 && !before(b - 1, a - 1))) {  // theirs is not the smaller
        --b;
        best_key[q] = key[b];
        best_index[q] = index[b];
      } else {
        --a;
        best_key[q] = best_key[a];
        best_index[q] = best_index[a];
      }
    }
  }
};

}  // namespace kernwerk::mpi::detail

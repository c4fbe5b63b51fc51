#pragma once
// The tuned GPU nearest neighbours on the sphere (haversine, k = 1 to 32), written once for CUDA and
// HIP: backends/cuda and backends/hip describe their runtime (warp width, shuffles, votes,
// streams, errors) in a Runtime struct and specialise impl::nearest_tuned with nearest_gpu_tuned.
//
// The references are centred on their mean and ordered by the float32 values u.d
// (kernwerk/impl/geometry/centred_values.hpp: why, and their error margin).
//
// 1. A float32 scan: the centred references tiled through shared memory, several observations
//    per thread, two fused multiply-adds, a multiply and a max per pair. A warp takes a
//    sub-block of warp-width references at a time (the first one of a split each thread scans on
//    its own). An observation whose sub-block maximum comes within the margin of its best so
//    far (a new best, or a near tie) is an event, which the whole warp handles at once: each
//    lane recomputes one reference's value, and votes list the references within the margin of
//    the best on the observation's short list in shared memory (a best that rises past the
//    margin empties it first). At the end the float64 rule (haversine, ties to the smaller
//    index) picks the winner among the listed. Small observation sets split the references over
//    several blocks (grid.y).
// 2. A merge per observation over the splits: the splits whose best value is within the margin
//    of the overall best hold the winner, and their winners meet in the float64 rule. Any other
//    reference's value is below the best by more than the rounding errors reach.
// 3. Observations whose list overflowed (more near-equal references than it holds: references
//    repeated many times, a ring seen from its axis) are decided by a second scan over them
//    only, its threshold fixed at their best value less the margin, which offers every
//    reference above it to the float64 rule. A grid sized for the device shares those
//    observations and the references out among its blocks by the count it reads on the device.
//    The host waits once for the count: where the pass would cost more than an index of the
//    references (many such observations: a set of tight clusters), they go to the index
//    instead (settle).
// 4. For k = 2 to 32, two scans instead. The first keeps each observation's k largest values in
//    registers, in order (a value past the k-th takes its place in the list), and leaves the
//    k-th (over every reference, or a stride of them: scan_policy). Each of the k nearest has a
//    value within the margin of the k-th over all (else the k references at or above it would
//    all come first), and so of any lower value, so the second scan notes the references at or
//    above the first's value less the margin, and only those go to the generic brute force's
//    float64 rule (impl::neighbour_list), which keeps the k nearest in the generic path's order.
//    An observation with more than 2 k + 32 of them goes to an index of the references.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/geometry/centred_values.hpp"
#include "kernwerk/impl/nearest/checks.hpp"
#include "kernwerk/impl/nearest/brute_force.hpp"
#include "kernwerk/impl/nearest/indexed.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::gpu_impl {

using impl::sphere_point;

constexpr int scan_block = 256;                                // threads per block of the scans
constexpr int per_thread = 4;                                  // observations per thread
constexpr int block_observations = scan_block * per_thread;
constexpr int tile = 1024;           // references per shared-memory tile (16 KiB of float4)
constexpr int list_length = 8;       // candidates an observation keeps (32 KiB a block)
constexpr int centre_block = 256;    // threads per block of the centring kernels
constexpr int centre_sum_blocks = 256;  // at most, for the references' mean
constexpr int decide_blocks_per_multiprocessor = 4;
constexpr float unset = -1.0e30f;        // below every value (|u.d| <= 2)
constexpr float no_threshold = 1.0e30f;  // above every value: a slot without an observation
constexpr int scan_blocks_per_multiprocessor = 4;  // resident at once (launch bounds, 48 KiB each)

// How many waves of resident scan blocks the references are split over when the observations
// alone fill less than one. Each split's scan pays for its first references (an observation's
// best rises often at first: about ln(split length / 32) warp-wide events per observation and
// split), so splits are kept few: half a wave (two blocks a multiprocessor) was the fastest
// of a quarter to two waves (kernwerk_bench_nearest --scan-waves; commit dcab7a9).
//
// For k = 2 to 8, the first scan finds the k-th largest value over every kth_stride-th reference
// only (where that leaves at least kth_sample_per_k k of them): a lower limit, so the second
// scan offers about kth_stride times k references to the float64 rule where it would offer k,
// but the first scans a fraction of the set. Each offer is dear (the rule's list lives in local
// memory, and with 2048 threads a multiprocessor it does not stay in the L1 cache): stride 2
// pays for k up to 8, and lists of 32 keep stride 1 (kernwerk_bench_nearest --kth-stride;
// commit f837917).
struct scan_policy {
  static inline double waves = 0.5;
  static inline int kth_stride = 2;
  static constexpr int kth_sample_per_k = 16;
};

__device__ __forceinline__ float centred_value(float x, float y, float z, const float4& d) {
  return fmaf(z, d.z, fmaf(y, d.y, x * d.x));
}

// Pads a tile's last sub-block: its values are NaN, which fmaxf and every comparison pass over.
__device__ __forceinline__ float4 no_reference() {
  const float nan = __int_as_float(0x7fffffff);
  return make_float4(nan, nan, nan, 0.f);
}

// Per-block sums of the references' unit vectors, in a fixed order (the same centre each call).
template <class Prepared>
__global__ void __launch_bounds__(centre_block)
    centre_sums(Prepared prepared, int count, double* __restrict__ sums) {
  __shared__ double partial[3][centre_block];
  double sum[3] = {0.0, 0.0, 0.0};
  for (int j = blockIdx.x * centre_block + threadIdx.x; j < count; j += gridDim.x * centre_block) {
    sum[0] += prepared(j, impl::column_x);
    sum[1] += prepared(j, impl::column_y);
    sum[2] += prepared(j, impl::column_z);
  }
  for (int c = 0; c < 3; ++c) partial[c][threadIdx.x] = sum[c];
  __syncthreads();
  for (int half = centre_block / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      for (int c = 0; c < 3; ++c) partial[c][threadIdx.x] += partial[c][threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int c = 0; c < 3; ++c) sums[3 * blockIdx.x + c] = partial[c][0];
}

// The centred float32 references d = v - c, and the spread: a float bound on every |d|, as the
// bits of a non-negative float (whose order is the unsigned integers' order).
template <class Prepared>
__global__ void __launch_bounds__(centre_block)
    centre(Prepared prepared, int count, const double* __restrict__ sums, int sum_blocks,
           float4* __restrict__ centred, unsigned* __restrict__ spread_bits) {
  __shared__ double c[3];
  __shared__ float largest[centre_block];
  if (threadIdx.x < 3) {
    double sum = 0.0;
    for (int b = 0; b < sum_blocks; ++b) sum += sums[3 * b + threadIdx.x];
    c[threadIdx.x] = sum / count;
  }
  __syncthreads();
  float spread = 0.f;
  for (int j = blockIdx.x * centre_block + threadIdx.x; j < count; j += gridDim.x * centre_block) {
    const double dx = prepared(j, impl::column_x) - c[0];
    const double dy = prepared(j, impl::column_y) - c[1];
    const double dz = prepared(j, impl::column_z) - c[2];
    centred[j] = make_float4(float(dx), float(dy), float(dz), 0.f);
    spread = fmaxf(spread, float(sqrt(dx * dx + dy * dy + dz * dz) * (1.0 + 1e-6)));
  }
  largest[threadIdx.x] = spread;
  __syncthreads();
  for (int half = centre_block / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      largest[threadIdx.x] = fmaxf(largest[threadIdx.x], largest[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicMax(spread_bits, __float_as_uint(largest[0]));
}

// Loads references t .. t + count of the centred set (of every stride-th reference, counted
// in those) into a tile, padded to whole sub-blocks; returns the padded length.
template <int width>
__device__ __forceinline__ int load_tile(float4* cached, const float4* __restrict__ centred,
                                         int t, int count, int stride = 1) {
  const int padded = (count + width - 1) / width * width;
  __syncthreads();  // the last tile is read by every warp
  for (int k = threadIdx.x; k < padded; k += scan_block)
    cached[k] = k < count ? centred[std::size_t(t + k) * stride] : no_reference();
  __syncthreads();
  return padded;
}

// The largest value in sub-block `cached` for each of a thread's observations.
template <int width>
__device__ __forceinline__ void sub_block_tops(const float4* cached, const float* ox,
                                               const float* oy, const float* oz, float* top) {
#pragma unroll
  for (int p = 0; p < per_thread; ++p) top[p] = unset;
#pragma unroll 8
  for (int j = 0; j < width; ++j) {
    const float4 d = cached[j];
#pragma unroll
    for (int p = 0; p < per_thread; ++p)
      top[p] = fmaxf(top[p], centred_value(ox[p], oy[p], oz[p], d));
  }
}

// A thread's observations' short lists of candidates in shared memory: list entry c of slot q
// (observation p of thread t: q = p * scan_block + t) at c * block_observations + q.
__device__ __forceinline__ int list_entry(int c, int slot) { return c * block_observations + slot; }

// Four blocks a multiprocessor (64 registers a thread): the list's float64 decision at the end
// would otherwise take registers enough for one.
template <class Runtime, class Metric>
__global__ void __launch_bounds__(scan_block, scan_blocks_per_multiprocessor)
    scan(Metric metric, const float4* __restrict__ centred, int reference_count,
         int split_length, int observation_count, const unsigned* __restrict__ spread_bits,
         float* __restrict__ split_best, int* __restrict__ split_index,
         unsigned char* __restrict__ split_overflow) {
  using lane_mask = typename Runtime::lane_mask;
  constexpr int width = Runtime::warp_size;
  __shared__ float4 cached[tile];
  __shared__ int listed[list_length * block_observations];
  const float margin = impl::centred_value_margin(__uint_as_float(*spread_bits));
  const int lane = threadIdx.x % width;
  const int warp_first = threadIdx.x - lane;
  const lane_mask below = (lane_mask(1) << lane) - 1;  // the lanes before this one
  const int begin = blockIdx.y * split_length;
  const int end = min(reference_count, begin + split_length);
  const int first = blockIdx.x * block_observations + threadIdx.x;

  // Per observation: the best value, the threshold of an event, and how many references are
  // listed (more than list_length: the list overflowed).
  float ox[per_thread], oy[per_thread], oz[per_thread], best[per_thread], threshold[per_thread];
  int count[per_thread];
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const int i = first + p * scan_block;
    const auto o = i < observation_count ? metric.observation(i) : sphere_point{};
    ox[p] = float(o.x), oy[p] = float(o.y), oz[p] = float(o.z);
    best[p] = unset;
    count[p] = 0;
  }

  for (int t = begin; t < end; t += tile) {
    const int padded = load_tile<width>(cached, centred, t, min(tile, end - t));
    int s = 0;
    if (t == begin) {  // the split's first sub-block, each thread on its own
#pragma unroll 4
      for (int j = 0; j < width; ++j) {
        const float4 d = cached[j];
#pragma unroll
        for (int p = 0; p < per_thread; ++p)
          best[p] = fmaxf(best[p], centred_value(ox[p], oy[p], oz[p], d));
      }
#pragma unroll
      for (int p = 0; p < per_thread; ++p) {
        const float limit = best[p] - margin;
        for (int j = 0; j < width; ++j) {
          if (centred_value(ox[p], oy[p], oz[p], cached[j]) >= limit) {
            if (count[p] < list_length)
              listed[list_entry(count[p], p * scan_block + threadIdx.x)] = t + j;
            ++count[p];
          }
        }
        threshold[p] = first + p * scan_block >= observation_count ? no_threshold
                       : count[p] > list_length                    ? nextafterf(best[p], no_threshold)
                                                                   : limit;
      }
      s = width;
    }
    for (; s < padded; s += width) {
      float top[per_thread];
      sub_block_tops<width>(cached + s, ox, oy, oz, top);
#pragma unroll
      for (int p = 0; p < per_thread; ++p) {
        // Events are rare after the first sub-blocks: new bests, and near ties (until a list
        // overflows: then its threshold is just above the best).
        for (auto events = Runtime::ballot(top[p] >= threshold[p]); events; events &= events - 1) {
          const int owner = Runtime::lowest_lane(events);
          Runtime::sync_lanes();  // the owner's list as written before, by any lane
          // Each lane recomputes one reference's value as the owner did (bit for bit).
          const float value = centred_value(Runtime::shuffle(ox[p], owner),
                                            Runtime::shuffle(oy[p], owner),
                                            Runtime::shuffle(oz[p], owner), cached[s + lane]);
          const float before = Runtime::shuffle(best[p], owner);
          const float most = fmaxf(before, Runtime::shuffle(top[p], owner));
          const float limit = most - margin;
          // A best that rises past the margin rules out every reference listed before it.
          const int base = before < limit ? 0 : Runtime::shuffle(count[p], owner);
          const lane_mask near = Runtime::ballot(value >= limit);
          const int rank = base + Runtime::lane_count(near & below);
          if (value >= limit && rank < list_length)
            listed[list_entry(rank, p * scan_block + warp_first + owner)] = t + s + lane;
          if (lane == owner) {
            best[p] = most;
            count[p] = base + Runtime::lane_count(near);
            threshold[p] = count[p] > list_length ? nextafterf(most, no_threshold) : limit;
          }
        }
      }
    }
  }

  // Each observation's winner in this split, decided by the float64 rule among the listed.
  __syncthreads();
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const int i = first + p * scan_block;
    if (i >= observation_count) continue;
    const int slot = p * scan_block + threadIdx.x;
    int winner = listed[list_entry(0, slot)];
    if (count[p] > 1 && count[p] <= list_length) {
      const auto o = metric.observation(i);
      double winner_key = metric.key(o, winner);
      for (int c = 1; c < count[p]; ++c) {
        const int j = listed[list_entry(c, slot)];
        const double key = metric.key(o, j);
        if (key < winner_key || (key == winner_key && j < winner)) winner_key = key, winner = j;
      }
    }
    const std::size_t at = std::size_t(blockIdx.y) * observation_count + i;
    split_best[at] = best[p];
    split_index[at] = winner;
    split_overflow[at] = count[p] > list_length;
  }
}

// Per observation, over the splits: the splits whose best lies within the margin of the
// overall best hold the winner; their (exact) winners meet in (haversine, index) order, unless
// one overflowed its list: then the observation goes to the decision pass.
template <class Metric, class Output>
__global__ void merge(Metric metric, int splits, int observation_count,
                      const unsigned* __restrict__ spread_bits,
                      const float* __restrict__ split_best, const int* __restrict__ split_index,
                      const unsigned char* __restrict__ split_overflow, Output output,
                      int* undecided_count, int* undecided_list, float* undecided_threshold) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= observation_count) return;
  const float margin = impl::centred_value_margin(__uint_as_float(*spread_bits));
  float most = unset;
  for (int s = 0; s < splits; ++s)
    most = fmaxf(most, split_best[std::size_t(s) * observation_count + i]);
  const float limit = most - margin;
  bool overflow = false;
  for (int s = 0; s < splits; ++s) {
    const std::size_t at = std::size_t(s) * observation_count + i;
    overflow = overflow || (split_best[at] >= limit && split_overflow[at]);
  }
  if (overflow) {
    const int k = atomicAdd(undecided_count, 1);
    undecided_list[k] = i;
    undecided_threshold[k] = limit;
    return;
  }
  const auto o = metric.observation(i);
  double winner_key = 4.0;  // above every haversine (at most 1)
  int winner = INT_MAX;
  for (int s = 0; s < splits; ++s) {
    const std::size_t at = std::size_t(s) * observation_count + i;
    if (split_best[at] < limit) continue;
    const int j = split_index[at];
    const double key = metric.key(o, j);
    if (key < winner_key || (key == winner_key && j < winner)) winner_key = key, winner = j;
  }
  output.write(i, 0, winner, winner_key, metric);
}

// (haversine, index) pairs ordered lexicographically: the smaller index wins equal distances.
__device__ __forceinline__ bool before(double h1, int j1, double h2, int j2) {
  return h1 < h2 || (h1 == h2 && j1 < j2);
}

// How the decision pass shares `listed` undecided observations and the references out among
// `grid` blocks: blocks of observations times splits of the references, at least 512 a split.
struct decision_plan {
  int observation_blocks, splits, split_length;
};
__device__ __forceinline__ decision_plan plan_decisions(int listed, int grid, int reference_count) {
  const int blocks = (listed + block_observations - 1) / block_observations;
  const int splits = max(1, min(grid / max(blocks, 1), reference_count / 512));
  const int length = (reference_count + splits - 1) / splits;
  return {blocks, (reference_count + length - 1) / length, length};
}

// The decision pass: each listed observation's references above its threshold go to the float64
// rule; each split's winner to split_winner[split * listed + position in the list].
template <class Runtime, class Metric>
__global__ void __launch_bounds__(scan_block)
    decide_splits(Metric metric, const float4* __restrict__ centred, int reference_count,
                  const int* __restrict__ undecided_count, const int* __restrict__ undecided_list,
                  const float* __restrict__ undecided_threshold, int* __restrict__ split_winner) {
  constexpr int width = Runtime::warp_size;
  __shared__ float4 cached[tile];
  const int listed = *undecided_count;
  const decision_plan plan = plan_decisions(listed, gridDim.x, reference_count);
  const int lane = threadIdx.x % width;
  for (int item = blockIdx.x; item < plan.observation_blocks * plan.splits; item += gridDim.x) {
    const int split = item / plan.observation_blocks;
    const int first = (item % plan.observation_blocks) * block_observations + threadIdx.x;
    const int begin = split * plan.split_length;
    const int end = min(reference_count, begin + plan.split_length);
    float ox[per_thread], oy[per_thread], oz[per_thread], threshold[per_thread];
    double lat[per_thread], lon[per_thread], coslat[per_thread], best_key[per_thread];
    int best_index[per_thread];
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
      const int k = first + p * scan_block;
      const auto o = k < listed ? metric.observation(undecided_list[k]) : sphere_point{};
      ox[p] = float(o.x), oy[p] = float(o.y), oz[p] = float(o.z);  // as in the scan
      lat[p] = o.lat, lon[p] = o.lon, coslat[p] = o.coslat;
      threshold[p] = k < listed ? undecided_threshold[k] : no_threshold;
      best_key[p] = 4.0;  // above every haversine (at most 1)
      best_index[p] = INT_MAX;
    }
    for (int t = begin; t < end; t += tile) {
      const int padded = load_tile<width>(cached, centred, t, min(tile, end - t));
      for (int s = 0; s < padded; s += width) {
        float top[per_thread];
        sub_block_tops<width>(cached + s, ox, oy, oz, top);
#pragma unroll
        for (int p = 0; p < per_thread; ++p) {
          for (auto events = Runtime::ballot(top[p] >= threshold[p]); events;
               events &= events - 1) {
            const int owner = Runtime::lowest_lane(events);
            const float value = centred_value(Runtime::shuffle(ox[p], owner),
                                              Runtime::shuffle(oy[p], owner),
                                              Runtime::shuffle(oz[p], owner), cached[s + lane]);
            const sphere_point o{0.0, 0.0, 0.0, Runtime::shuffle(lat[p], owner),
                                 Runtime::shuffle(lon[p], owner),
                                 Runtime::shuffle(coslat[p], owner)};
            double key = 4.0;
            int index = INT_MAX;
            if (value >= Runtime::shuffle(threshold[p], owner)) {  // a candidate
              index = t + s + lane;
              key = metric.key(o, index);
            }
            for (int offset = width / 2; offset > 0; offset /= 2) {
              const double other_key = Runtime::shuffle_xor(key, offset);
              const int other = Runtime::shuffle_xor(index, offset);
              if (before(other_key, other, key, index)) key = other_key, index = other;
            }
            if (lane == owner && before(key, index, best_key[p], best_index[p]))
              best_key[p] = key, best_index[p] = index;
          }
        }
      }
    }
#pragma unroll
    for (int p = 0; p < per_thread; ++p) {
      const int k = first + p * scan_block;
      if (k < listed) split_winner[std::size_t(split) * listed + k] = best_index[p];
    }
  }
}

// Writes the listed observations' answers: the splits' winners in (haversine, index) order.
template <class Metric, class Output>
__global__ void decide(Metric metric, int decide_grid, int reference_count,
                       const int* __restrict__ undecided_count,
                       const int* __restrict__ undecided_list,
                       const int* __restrict__ split_winner, Output output) {
  const int listed = *undecided_count;
  const decision_plan plan = plan_decisions(listed, decide_grid, reference_count);
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < listed; k += gridDim.x * blockDim.x) {
    const int i = undecided_list[k];
    const auto o = metric.observation(i);
    double best_key = 4.0;
    int best = INT_MAX;
    for (int s = 0; s < plan.splits; ++s) {
      const int j = split_winner[std::size_t(s) * listed + k];
      if (j == INT_MAX) continue;
      const double key = metric.key(o, j);
      if (before(key, j, best_key, best)) best_key = key, best = j;
    }
    output.write(i, 0, best, best_key, metric);
  }
}

// The k nearest, k = 2 to 32 (step 4 of the header): lists of Capacity values per observation,
// 8 or 32 (a list of 8 serves k = 2 to 8 for the same cost; what a list of 32 costs in
// registers buys one observation per thread).
template <int Capacity>
constexpr int kth_observations_per_thread = Capacity <= 8 ? 4 : 1;

// Inserts `value` into a list in descending order, dropping its last (smallest) value, which
// `value` exceeds. Each slot takes the larger of its own value and the smaller of the one
// above it and `value`: no slot waits for another. Slots before the k wanted hold no_threshold
// (above every value) and stay.
template <int Capacity>
__device__ __forceinline__ void insert_value(float (&list)[Capacity], float value) {
#pragma unroll
  for (int q = Capacity - 1; q > 0; --q) list[q] = fmaxf(list[q], fminf(list[q - 1], value));
  list[0] = fmaxf(list[0], value);
}

// Scan 1: each observation's k-th largest value over every stride-th reference, kept in
// registers: no more than the k-th largest over all of them, so a limit below which none of
// the k nearest lies (scan_policy::kth_stride says why not over all).
template <int Capacity, int PerThread, class Metric>
__global__ void __launch_bounds__(scan_block)
    kth_values(Metric metric, const float4* __restrict__ centred, int reference_count,
               int stride, int observation_count, int k, float* __restrict__ kth) {
  __shared__ float4 cached[tile];
  const int first = blockIdx.x * scan_block * PerThread + threadIdx.x;
  float ox[PerThread], oy[PerThread], oz[PerThread], list[PerThread][Capacity];
#pragma unroll
  for (int p = 0; p < PerThread; ++p) {
    const int i = first + p * scan_block;
    const auto o = i < observation_count ? metric.observation(i) : sphere_point{};
    ox[p] = float(o.x), oy[p] = float(o.y), oz[p] = float(o.z);
#pragma unroll
    for (int q = 0; q < Capacity; ++q) list[p][q] = q < Capacity - k ? no_threshold : unset;
  }
  const int sampled = (reference_count + stride - 1) / stride;
  for (int t = 0; t < sampled; t += tile) {
    const int count = load_tile<1>(cached, centred, t, min(tile, sampled - t), stride);
#pragma unroll 4
    for (int j = 0; j < count; ++j) {
      const float4 d = cached[j];
#pragma unroll
      for (int p = 0; p < PerThread; ++p) {
        const float value = centred_value(ox[p], oy[p], oz[p], d);
        if (value > list[p][Capacity - 1]) insert_value(list[p], value);
      }
    }
  }
#pragma unroll
  for (int p = 0; p < PerThread; ++p) {
    const int i = first + p * scan_block;
    if (i < observation_count) kth[i] = list[p][Capacity - 1];
  }
}

// Scan 2: the references whose value reaches the k-th largest less the margin go to the
// generic float64 rule, which keeps the k nearest in (haversine, index) order. They are few
// (k, and near ties), so the scan only notes them (a group of `group` values at a time, its
// largest against the limit), and the rule runs on the notes afterwards, all lanes of a warp at
// once; a branch into the rule at each reference cost the warp the rule once per lane's hit.
// An observation with more than 2 k + 32 of them (a cluster tighter than the margin resolves,
// a point repeated many times) is given up and listed in `unsettled`, for an index of the
// references: the rule on each of a cluster's references took every GPU path 20 times the
// uniform set's time (perf/results/layouts-24x14-cuda-h200-kokkos4.6.json, clusters).
template <int Capacity, class Metric, class Output>
__global__ void __launch_bounds__(scan_block)
    nearest_k_scan(Metric metric, const float4* __restrict__ centred, int reference_count,
                   int observation_count, int k, const unsigned* __restrict__ spread_bits,
                   const float* __restrict__ kth, Output output, int* unsettled_count,
                   int* unsettled) {
  constexpr int group = 8;
  constexpr int room = Capacity + 4 * group;  // notes held before they go to the rule
  __shared__ float4 cached[tile];
  const float margin = impl::centred_value_margin(__uint_as_float(*spread_bits));
  const int i = blockIdx.x * scan_block + threadIdx.x;
  const bool active = i < observation_count;
  const auto o = active ? metric.observation(i) : sphere_point{};
  const float ox = float(o.x), oy = float(o.y), oz = float(o.z);  // as in scan 1
  float limit = active ? kth[i] - margin : no_threshold;
  int most = 2 * k + 32;  // notes before it gives up
  const impl::key_evaluator<Metric> keys{metric, o};
  impl::list_for<Capacity, Metric> list(k, Metric::margin);
  int noted[room];
  int held = 0;
  const auto decide = [&] {
    for (int e = 0; e < held; ++e) impl::consider(keys, metric.chord(o, noted[e]), noted[e], list);
    held = 0;
  };
  for (int t = 0; t < reference_count; t += tile) {
    const int padded = load_tile<group>(cached, centred, t, min(tile, reference_count - t));
    for (int s = 0; s < padded; s += group) {
      float value[group], top = unset;
#pragma unroll
      for (int u = 0; u < group; ++u) {
        value[u] = centred_value(ox, oy, oz, cached[s + u]);  // NaN past the references
        top = fmaxf(top, value[u]);
      }
      if (top >= limit) {
#pragma unroll
        for (int u = 0; u < group; ++u)
          if (value[u] >= limit) noted[held++] = t + s + u, --most;
        if (most < 0) {
          unsettled[atomicAdd(unsettled_count, 1)] = i;
          limit = no_threshold, held = 0;
        }
        if (held > room - group) decide();
      }
    }
  }
  if (most < 0) return;
  decide();
  if (active) impl::write_list(keys, output, i, list);
}

// The observations whose scans were given up (`count` of them listed, the count on the device):
// the float64 rule over an index of the references built for them, after one wait for the
// count. Where fewer than `from` (and not zero), decide() runs instead. `metric` holds the
// observations, the scale and the radius; the index is built from `references` themselves.
template <class ExecutionSpace, class Metric, class References, class Output, class Decide>
void settle(const ExecutionSpace& space, const Metric& metric, const References& references,
            const Output& output, int k, const int* listed, const int* count, std::int64_t from,
            const Decide& decide) {
  int unsettled = 0;
  Kokkos::deep_copy(space, Kokkos::View<int, Kokkos::HostSpace>(&unsettled),
                    Kokkos::View<const int, typename ExecutionSpace::memory_space>(count));
  space.fence();
  if (unsettled == 0) return;
  if (unsettled < from) return decide();
  using list = Kokkos::View<const int*, typename ExecutionSpace::memory_space>;
  impl::nearest_listed(space, metric.observations, references, output, k, metric.scale,
                       metric.radius, list(listed, unsettled));
}

// The tuned brute force on a GPU whose runtime (CUDA, HIP) is described by Runtime.
template <class Runtime>
struct nearest_gpu_tuned {
  static constexpr bool available = true;
  static bool covers(metric_kind metric, int k) {
    return metric == metric_kind::haversine && k >= 1 && k <= impl::local_list_capacity;
  }

  template <class Observations, class References, class Output>
  static void run(const typename Runtime::execution_space& space, const Observations& observations,
                  const References& references, const Output& output, int k, double scale,
                  double radius) {
    const std::int64_t n = observations.extent(0), m = references.extent(0);
    if (n == 0) return;
    if (n > INT32_MAX / 2 || m > INT32_MAX / 2)
      throw kernwerk::unsupported("nearest", "observations",
                                  "the tuned GPU path takes fewer than 2^30 points per set per call");
    if (k == 1)
      nearest_one(space, observations, references, output, scale, radius);
    else
      nearest_k(space, observations, references, output, k, scale, radius);
  }

 private:
  using memory_space = typename Runtime::execution_space::memory_space;
  using scratch = impl::workspace<memory_space>;

  // The references' sphere points, and centred in float32 with their spread: what calls of
  // both kinds take from their workspace first.
  template <class References>
  struct centred_set {
    static int sum_blocks(std::int64_t m) {
      return int(std::min<std::int64_t>(centre_sum_blocks,
                                        (m + 4 * centre_block - 1) / (4 * centre_block)));
    }
    static std::size_t bytes(std::int64_t m) {
      return impl::sphere_points_bytes<memory_space>(m) + scratch::template bytes_for<float4>(m) +
             scratch::template bytes_for<double>(3 * sum_blocks(m));
    }

    // Launches the centring on the space's stream; `spread_bits` is cleared there first.
    centred_set(const typename Runtime::execution_space& space, const References& references,
                double scale, scratch& buffers, unsigned* spread_bits)
        : prepared(impl::prepare_sphere_references(space, references, scale, buffers)),
          centred(buffers.template take<float4>(prepared.extent(0))) {
      const std::int64_t m = prepared.extent(0);
      const int blocks = sum_blocks(m);
      double* sums = buffers.template take<double>(3 * blocks);
      const auto stream = Runtime::stream(space);
      Runtime::clear_async(spread_bits, sizeof(unsigned), stream);  // 0.0f
      centre_sums<<<blocks, centre_block, 0, stream>>>(prepared, int(m), sums);
      Runtime::check_launch("centre_sums");
      centre<<<unsigned(std::min<std::int64_t>((m + centre_block - 1) / centre_block,
                                               8 * Runtime::multiprocessors())),
               centre_block, 0, stream>>>(prepared, int(m), sums, blocks, centred, spread_bits);
      Runtime::check_launch("centre");
    }
    impl::sphere_points<memory_space> prepared;
    float4* centred;
  };

  // k = 1: steps 1 to 3 of the header.
  template <class Observations, class References, class Output>
  static void nearest_one(const typename Runtime::execution_space& space,
                          const Observations& observations, const References& references,
                          const Output& output, double scale, double radius) {
    const std::int64_t n = observations.extent(0), m = references.extent(0);
    // Split the references when there are too few observations to fill the GPU (scan_policy).
    const std::int64_t observation_blocks = (n + block_observations - 1) / block_observations;
    const auto resident = std::int64_t(scan_policy::waves * scan_blocks_per_multiprocessor *
                                       Runtime::multiprocessors());
    std::int64_t splits = resident / observation_blocks;
    splits = std::max<std::int64_t>(1, std::min<std::int64_t>(splits, m / 512));
    const int split_length = int((m + splits - 1) / splits);
    splits = (m + split_length - 1) / split_length;
    const int decide_grid = decide_blocks_per_multiprocessor * Runtime::multiprocessors();
    // The decision pass's winners: splits x listed, at most the grid's observations when split.
    const std::int64_t winners = std::max<std::int64_t>(n, std::int64_t(decide_grid) * block_observations);

    scratch buffers(centred_set<References>::bytes(m) +
                    scratch::template bytes_for<float>(splits * n) +
                    scratch::template bytes_for<int>(splits * n) +
                    scratch::template bytes_for<unsigned char>(splits * n) +
                    scratch::template bytes_for<int>(n + 2) +
                    scratch::template bytes_for<float>(n) +
                    scratch::template bytes_for<int>(winners));
    float* split_best = buffers.template take<float>(splits * n);
    int* split_index = buffers.template take<int>(splits * n);
    unsigned char* split_overflow = buffers.template take<unsigned char>(splits * n);
    int* undecided_list = buffers.template take<int>(n + 2);
    int* undecided_count = undecided_list + n;
    unsigned* spread_bits = reinterpret_cast<unsigned*>(undecided_list + n + 1);
    float* undecided_threshold = buffers.template take<float>(n);
    int* split_winner = buffers.template take<int>(winners);
    const auto stream = Runtime::stream(space);
    Runtime::clear_async(undecided_count, sizeof(int), stream);
    const centred_set<References> set(space, references, scale, buffers, spread_bits);
    const impl::sphere_metric<Observations, std::remove_const_t<decltype(set.prepared)>> metric{
        observations, set.prepared, scale, radius};

    const dim3 scan_grid{unsigned(observation_blocks), unsigned(splits)};
    scan<Runtime><<<scan_grid, scan_block, 0, stream>>>(metric, set.centred, int(m), split_length,
                                                        int(n), spread_bits, split_best,
                                                        split_index, split_overflow);
    Runtime::check_launch("scan");
    merge<<<unsigned((n + 255) / 256), 256, 0, stream>>>(
        metric, int(splits), int(n), spread_bits, split_best, split_index, split_overflow, output,
        undecided_count, undecided_list, undecided_threshold);
    Runtime::check_launch("merge");
    // The decision pass costs about 4 ps a pair of an undecided observation's and the index's
    // build 0.1 ms and 0.75 ns a reference on an H200: the index from 256 + 2^25 / m of them
    // (perf/results/layouts-clusters-16x13-cuda-h200.json).
    settle(space, metric, references, output, 1, undecided_list, undecided_count,
           256 + (std::int64_t(1) << 25) / m, [&] {
             decide_splits<Runtime><<<unsigned(decide_grid), scan_block, 0, stream>>>(
                 metric, set.centred, int(m), undecided_count, undecided_list,
                 undecided_threshold, split_winner);
             Runtime::check_launch("decide_splits");
             decide<<<unsigned(std::min<std::int64_t>((n + 255) / 256,
                                                      8 * Runtime::multiprocessors())),
                      256, 0, stream>>>(metric, decide_grid, int(m), undecided_count,
                                        undecided_list, split_winner, output);
             Runtime::check_launch("decide");
           });
    space.fence();  // before the workspace goes
  }

  // k = 2 to 32: step 4 of the header.
  template <class Observations, class References, class Output>
  static void nearest_k(const typename Runtime::execution_space& space,
                        const Observations& observations, const References& references,
                        const Output& output, int k, double scale, double radius) {
    const std::int64_t n = observations.extent(0), m = references.extent(0);
    scratch buffers(centred_set<References>::bytes(m) + scratch::template bytes_for<unsigned>(1) +
                    scratch::template bytes_for<float>(n) +
                    scratch::template bytes_for<int>(n + 1));
    unsigned* spread_bits = buffers.template take<unsigned>(1);
    float* kth = buffers.template take<float>(n);
    int* unsettled = buffers.template take<int>(n + 1);
    int* unsettled_count = unsettled + n;
    const auto stream = Runtime::stream(space);
    Runtime::clear_async(unsettled_count, sizeof(int), stream);
    const centred_set<References> set(space, references, scale, buffers, spread_bits);
    const impl::sphere_metric<Observations, std::remove_const_t<decltype(set.prepared)>> metric{
        observations, set.prepared, scale, radius};
    const auto blocks = [&](int per_thread) {
      return unsigned((n + scan_block * per_thread - 1) / (scan_block * per_thread));
    };
    const auto scans = [&](auto capacity) {
      constexpr int Capacity = decltype(capacity)::value;
      constexpr int per_thread = kth_observations_per_thread<Capacity>;
      const int wanted = Capacity <= 8 ? std::max(1, scan_policy::kth_stride) : 1;
      const int stride = m / wanted >= std::int64_t(scan_policy::kth_sample_per_k) * k ? wanted : 1;
      // Fewer observations than fill the GPU at several a thread: one a thread.
      if (per_thread > 1 && blocks(per_thread) < 2 * unsigned(Runtime::multiprocessors()))
        kth_values<Capacity, 1><<<blocks(1), scan_block, 0, stream>>>(
            metric, set.centred, int(m), stride, int(n), k, kth);
      else
        kth_values<Capacity, per_thread><<<blocks(per_thread), scan_block, 0, stream>>>(
            metric, set.centred, int(m), stride, int(n), k, kth);
      Runtime::check_launch("kth_values");
      nearest_k_scan<Capacity><<<blocks(1), scan_block, 0, stream>>>(
          metric, set.centred, int(m), int(n), k, spread_bits, kth, output, unsettled_count,
          unsettled);
      Runtime::check_launch("nearest_k_scan");
    };
    if (k <= 8)
      scans(std::integral_constant<int, 8>());
    else
      scans(std::integral_constant<int, 32>());
    settle(space, metric, references, output, k, unsettled, unsettled_count, 1, [] {});
    space.fence();  // before the workspace goes
  }
};

}  // namespace kernwerk::gpu_impl


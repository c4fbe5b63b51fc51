#pragma once
// The tuned GPU nearest neighbour on the sphere (haversine, k = 1), written once for CUDA and
// HIP: backends/cuda and backends/hip describe their runtime (warp width, shuffles, streams,
// errors) in a Runtime struct and specialise impl::nearest_tuned with nearest_gpu_tuned.
//
// 1. A float32 scan: reference unit vectors tiled through shared memory, several observations
//    per thread, squared chords from squared differences (no trigonometry, no 1 - dot
//    cancellation). Each observation keeps its best chord and whether any other reference came
//    within the float32 error margin of it ("ambiguous"). Small observation sets split the
//    references over several blocks (grid.y) to fill the GPU.
// 2. A merge per observation over the splits, in reference order, with the same rule. An
//    unambiguous winner is the exact float64 winner: every other chord is farther than the
//    rounding errors can reach. Its float64 haversine gives the distance.
// 3. Ambiguous observations (duplicates, near ties) are resolved exactly: one block per
//    observation scans all references in float64 (the generic path's rule) and a shuffle
//    min-reduce over (haversine, index) across each warp or wavefront picks the winner, ties to
//    the smallest index.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "kernwerk/error.hpp"
#include "kernwerk/impl/nearest_dispatch.hpp"
#include "kernwerk/impl/nearest_generic.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::gpu_impl {

using impl::sphere_point;

constexpr int scan_block = 256;      // threads per block of the float32 scan
constexpr int per_thread = 4;        // observations per thread
constexpr int tile = 2048;           // references per shared-memory tile (32 KiB of float4)
constexpr int group = 4;             // references compared per branch of the scan
constexpr int resolve_block = 256;   // threads per ambiguous observation
constexpr float no_chord = 1.0e30f;  // above every chord (at most 4), with a finite margin
constexpr float far_away = 1.0e18f;  // pads a tile: its squared chord, ~3e36, exceeds no_chord

// Bound on the float32 errors of two squared chords near c, added. Unit-vector components
// are rounded to float32 (|error| <= 2^-24 each), so a difference dx is off by at most
// 1.2e-7 + 2^-24 |dx|, and sum(dx^2) by about 2 sqrt(3) 1.3e-7 chord + 4 ulp(chord^2)
// <= 4.5e-7 sqrt(c) + 2.4e-7 c; twice that is below this margin for every c <= 4.
__device__ __forceinline__ float chord_margin(float c) {
  return 1.0e-6f * sqrtf(c) + 6.0e-7f * c + 1.0e-12f;
}

// Folds candidate (chord, index, ambiguous) into a running best, candidates in index order.
__device__ __forceinline__ void fold(float chord, int index, bool ambiguous, float& best,
                                     int& best_index, bool& best_ambiguous) {
  if (chord < best - chord_margin(best)) {
    best = chord;
    best_index = index;
    best_ambiguous = ambiguous;
  } else if (chord <= best + chord_margin(best)) {
    best_ambiguous = true;
    if (chord < best) {
      best = chord;
      best_index = index;
    }
  }
}

__device__ __forceinline__ float squared_chord(float ox, float oy, float oz, const float4& r) {
  const float dx = ox - r.x, dy = oy - r.y, dz = oz - r.z;
  return fmaf(dz, dz, fmaf(dy, dy, dx * dx));
}

template <class Metric>
__global__ void __launch_bounds__(scan_block)
    scan(Metric metric, const float4* __restrict__ references,
         int reference_count, int split_length, int observation_count,
         float* __restrict__ split_chord, int* __restrict__ split_index,
         unsigned char* __restrict__ split_ambiguous) {
  __shared__ float4 cached[tile];
  const int split = blockIdx.y;
  const int begin = split * split_length;
  const int end = min(reference_count, begin + split_length);
  const int first = blockIdx.x * scan_block * per_thread + threadIdx.x;

  float ox[per_thread], oy[per_thread], oz[per_thread], best[per_thread], limit[per_thread];
  int best_index[per_thread];
  bool ambiguous[per_thread];
#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const int i = first + p * scan_block;
    const auto o = i < observation_count ? metric.observation(i) : impl::sphere_point{};
    ox[p] = float(o.x), oy[p] = float(o.y), oz[p] = float(o.z);
    best[p] = no_chord;
    limit[p] = no_chord;
    best_index[p] = -1;
    ambiguous[p] = false;
  }

  for (int t = begin; t < end; t += tile) {
    const int n = min(tile, end - t);
    const int padded = (n + group - 1) / group * group;
    __syncthreads();
    for (int k = threadIdx.x; k < padded; k += scan_block)
      cached[k] = k < n ? references[t + k] : make_float4(far_away, far_away, far_away, 0.f);
    __syncthreads();
    for (int j = 0; j < padded; j += group) {
      float4 r[group];
#pragma unroll
      for (int g = 0; g < group; ++g) r[g] = cached[j + g];
#pragma unroll
      for (int p = 0; p < per_thread; ++p) {
        // The common case costs one compare per group: the group's smallest chord.
        float smallest = squared_chord(ox[p], oy[p], oz[p], r[0]);
#pragma unroll
        for (int g = 1; g < group; ++g)
          smallest = fminf(smallest, squared_chord(ox[p], oy[p], oz[p], r[g]));
        if (smallest <= limit[p]) {  // rare: a new best or a near tie in this group
#pragma unroll
          for (int g = 0; g < group; ++g) {
            const float chord = squared_chord(ox[p], oy[p], oz[p], r[g]);
            if (chord <= limit[p]) {
              fold(chord, t + j + g, false, best[p], best_index[p], ambiguous[p]);
              limit[p] = best[p] + chord_margin(best[p]);
            }
          }
        }
      }
    }
  }

#pragma unroll
  for (int p = 0; p < per_thread; ++p) {
    const int i = first + p * scan_block;
    if (i < observation_count) {
      const std::size_t slot = std::size_t(split) * observation_count + i;
      split_chord[slot] = best[p];
      split_index[slot] = best_index[p];
      split_ambiguous[slot] = ambiguous[p];
    }
  }
}

template <class Metric, class Output>
__global__ void merge(Metric metric, int splits, int observation_count,
                      const float* __restrict__ split_chord, const int* __restrict__ split_index,
                      const unsigned char* __restrict__ split_ambiguous, Output output,
                      int* ambiguous_count, int* ambiguous_list) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= observation_count) return;
  float best = no_chord;
  int best_index = -1;
  bool ambiguous = false;
  for (int s = 0; s < splits; ++s) {
    const std::size_t slot = std::size_t(s) * observation_count + i;
    if (split_index[slot] >= 0)
      fold(split_chord[slot], split_index[slot], split_ambiguous[slot], best, best_index,
           ambiguous);
  }
  if (ambiguous) {
    ambiguous_list[atomicAdd(ambiguous_count, 1)] = i;
    return;
  }
  const auto o = metric.observation(i);
  output.write(i, 0, best_index, metric.key(o, best_index), metric);
}

// (haversine, index) pairs ordered lexicographically: the smaller index wins equal distances.
__device__ __forceinline__ bool before(double h1, std::int64_t j1, double h2, std::int64_t j2) {
  return h1 < h2 || (h1 == h2 && j1 < j2);
}

template <class Runtime, class Metric, class Output>
__global__ void __launch_bounds__(resolve_block)
    resolve(Metric metric, const int* __restrict__ ambiguous_count,
            const int* __restrict__ ambiguous_list, Output output) {
  constexpr int warp_size = Runtime::warp_size;
  __shared__ double warp_h[resolve_block / warp_size];
  __shared__ std::int64_t warp_best[resolve_block / warp_size];
  const std::int64_t count = metric.references.extent(0);
  const int listed = *ambiguous_count;
  for (int k = blockIdx.x; k < listed; k += gridDim.x) {
    const int i = ambiguous_list[k];
    const auto o = metric.observation(i);
    // Each thread scans references threadIdx.x, +blockDim.x, ... in float64: a chord within
    // the float64 margin of the best one is decided by its haversine, equal ones by index.
    double best_h = 4.0;  // above every haversine (at most 1)
    std::int64_t best = count;
    double best_chord = 8.0;
    for (std::int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      const double chord = metric.chord(o, j);
      if (chord <= best_chord + impl::chord_tie_margin) {
        const double h = metric.key(o, j);
        if (before(h, j, best_h, best)) {
          best_h = h;
          best = j;
          best_chord = chord;
        }
      }
    }
    // Warp-shuffle min-reduce over (haversine, index), then across warps in shared memory.
    for (int offset = warp_size / 2; offset > 0; offset /= 2) {
      const double other_h = Runtime::shuffle_down(best_h, offset);
      const std::int64_t other = Runtime::shuffle_down(best, offset);
      if (before(other_h, other, best_h, best)) best_h = other_h, best = other;
    }
    const int lane = threadIdx.x % warp_size, warp = threadIdx.x / warp_size;
    if (lane == 0) warp_h[warp] = best_h, warp_best[warp] = best;
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < resolve_block / warp_size; ++w)
        if (before(warp_h[w], warp_best[w], best_h, best)) best_h = warp_h[w], best = warp_best[w];
      output.write(i, 0, best, best_h, metric);
    }
    __syncthreads();  // warp_h is reused by the next listed observation
  }
}

template <class Prepared>
struct to_float_unit_vectors {
  Prepared prepared;
  float4* out;
  KOKKOS_FUNCTION void operator()(const std::int64_t j) const {
    out[j] = make_float4(static_cast<float>(prepared(j, impl::column_x)),
                         static_cast<float>(prepared(j, impl::column_y)),
                         static_cast<float>(prepared(j, impl::column_z)), 0.f);
  }
};


// Without options.memory_budget a call may use most of what the device has free now.
template <class Runtime>
struct device_memory_budget {
  static std::size_t bytes() { return Runtime::free_memory() / 10 * 8; }
};

// A second stream of the device for the chunk pipeline's copies (impl::transfer_queue),
// created on first use and kept until Kokkos is finalised (an instance costs allocations).
template <class Runtime>
struct gpu_transfer_queue {
  using execution_space = typename Runtime::execution_space;
  explicit gpu_transfer_queue(const execution_space&) : space(shared()) {}
  execution_space space;

 private:
  static execution_space shared() {
    static std::mutex mutex;
    static typename Runtime::stream_type stream = nullptr;
    static execution_space* instance = nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    if (!instance) {
      stream = Runtime::create_stream();
      instance = new execution_space(stream);
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> lock(mutex);
        instance->fence();
        delete instance;  // the instance before its stream
        instance = nullptr;
        Runtime::destroy_stream(stream);
      });
    }
    return *instance;
  }
};

// The tuned brute force on a GPU whose runtime (CUDA, HIP) is described by Runtime.
template <class Runtime>
struct nearest_gpu_tuned {
  static constexpr bool available = true;
  static bool covers(metric_kind metric, int k) {
    return metric == metric_kind::haversine && k == 1;
  }

  template <class Observations, class References, class Output>
  static void run(const typename Runtime::execution_space& space, const Observations& observations,
                  const References& references, const Output& output, double scale,
                  double radius) {
    using memory_space = typename Runtime::execution_space::memory_space;
    const std::int64_t n = observations.extent(0), m = references.extent(0);
    if (n > INT32_MAX / 2 || m > INT32_MAX / 2)
      throw kernwerk::unsupported("nearest", "observations",
                                  "the tuned GPU path takes fewer than 2^30 points per set per call");
    using policy =
        Kokkos::RangePolicy<typename Runtime::execution_space, Kokkos::IndexType<std::int64_t>>;

    // Split the references when there are too few observations to fill the GPU.
    const std::int64_t thread_count = (n + per_thread - 1) / per_thread;
    std::int64_t splits = (std::int64_t(space.concurrency()) + thread_count - 1) / thread_count;
    splits = std::max<std::int64_t>(1, std::min<std::int64_t>(splits, m / 512));
    const int split_length = int((m + splits - 1) / splits);
    splits = (m + split_length - 1) / split_length;

    using scratch = impl::workspace<memory_space>;
    scratch buffers(impl::sphere_points_bytes<memory_space>(m) +
                    scratch::template bytes_for<float4>(m) +
                    scratch::template bytes_for<float>(splits * n) +
                    scratch::template bytes_for<int>(splits * n) +
                    scratch::template bytes_for<unsigned char>(splits * n) +
                    scratch::template bytes_for<int>(n + 1));
    float4* unit = buffers.template take<float4>(m);
    float* split_chord = buffers.template take<float>(splits * n);
    int* split_index = buffers.template take<int>(splits * n);
    unsigned char* split_ambiguous = buffers.template take<unsigned char>(splits * n);
    int* ambiguous_list = buffers.template take<int>(n + 1);
    int* ambiguous_count = ambiguous_list + n;
    const auto prepared = impl::prepare_sphere_references(space, references, scale, buffers);
    const impl::sphere_metric<Observations, std::remove_const_t<decltype(prepared)>> metric{
        observations, prepared, scale, radius};

    Kokkos::parallel_for("kernwerk::nearest::unit32", policy(space, 0, m),
                         to_float_unit_vectors<decltype(prepared)>{prepared, unit});
    const auto stream = Runtime::stream(space);
    Runtime::clear_async(ambiguous_count, sizeof(int), stream);
    const dim3 scan_grid(unsigned((n + scan_block * per_thread - 1) / (scan_block * per_thread)),
                         unsigned(splits));
    scan<<<scan_grid, scan_block, 0, stream>>>(metric, unit, int(m), split_length,
                                               int(n), split_chord, split_index, split_ambiguous);
    Runtime::check_launch("scan");
    merge<<<unsigned((n + 255) / 256), 256, 0, stream>>>(metric, int(splits), int(n), split_chord,
                                                         split_index, split_ambiguous, output,
                                                         ambiguous_count, ambiguous_list);
    Runtime::check_launch("merge");
    // Enough blocks for the usual handful of ambiguous observations; each loops over the list.
    resolve<Runtime><<<unsigned(std::min<std::int64_t>(n, 1024)), resolve_block, 0, stream>>>(
        metric, ambiguous_count, ambiguous_list, output);
    Runtime::check_launch("resolve");
    space.fence();  // the workspace is free again once the kernels are done
  }
};

}  // namespace kernwerk::gpu_impl


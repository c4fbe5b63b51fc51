#pragma once
// The tuned GPU diffusion, written once for CUDA and HIP: each block loads a tile of the field
// with a halo of `fused_steps` cells into shared memory and advances it several steps there
// (the valid region shrinks by one cell a step; halo cells are computed redundantly), then
// writes the tile's interior. Fewer launches and one read and one write of the field per
// `fused_steps` steps. Cells outside the grid are held at 0, which is the course's rule of
// leaving such neighbours out of the Laplacian. Same arithmetic, in the same order, as the
// generic step.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/grids/diffuse.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::gpu_impl {

// A block of 64 x 4 threads spans the tile's 64 columns (56 written, 4 of halo each side) and
// strides over its rows: no division in the index arithmetic, whole warps on one row.
constexpr int fused_steps = 4, diffuse_threads_x = 64, diffuse_threads_y = 4;
constexpr int diffuse_threads = diffuse_threads_x * diffuse_threads_y;
constexpr int diffuse_tile_x = diffuse_threads_x - 2 * fused_steps;
// Rows per tile: as many as two tiles of T fit in 48 KiB of static shared memory with room.
template <class T>
constexpr int diffuse_tile_y = sizeof(T) == 4 ? 64 : 32;

struct grid_pointers {
  std::int64_t rows, columns;
  std::int64_t in_stride, out_stride, laplacian_stride;  // elements between rows
};

template <class T>
__global__ void __launch_bounds__(diffuse_threads)
    diffusion_steps(const T* __restrict__ in, T* __restrict__ out, T* __restrict__ laplacian,
                    grid_pointers g, T coeff, int steps) {
  constexpr int span_x = diffuse_tile_x + 2 * fused_steps, span_y = diffuse_tile_y<T> + 2 * fused_steps;
  __shared__ T tile[2][span_y][span_x];
  const std::int64_t row0 = std::int64_t(blockIdx.y) * diffuse_tile_y<T> - fused_steps;
  const std::int64_t col0 = std::int64_t(blockIdx.x) * diffuse_tile_x - fused_steps;
  const int x = threadIdx.x;  // span_x == diffuse_threads_x
  const std::int64_t c = col0 + x;
  const bool column_inside = c >= 0 && c < g.columns;
  for (int y = threadIdx.y; y < span_y; y += diffuse_threads_y) {
    const std::int64_t r = row0 + y;
    tile[0][y][x] = column_inside && r >= 0 && r < g.rows ? in[r * g.in_stride + c] : T(0);
  }
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    const int from = s % 2, to = 1 - from;
    // Cells that still have valid neighbours after this step: a band s + 1 inside the span.
    const int lo = s + 1;
    const bool last = s + 1 == steps;
    if (x >= lo && x < span_x - lo) {
      for (int y = lo + int(threadIdx.y); y < span_y - lo; y += diffuse_threads_y) {
        const std::int64_t r = row0 + y;
        if (!column_inside || r < 0 || r >= g.rows) {
          tile[to][y][x] = T(0);
          continue;
        }
        const T centre = tile[from][y][x];
        T value = T(4) * centre;
        value -= tile[from][y - 1][x];
        value -= tile[from][y][x - 1];
        value -= tile[from][y + 1][x];
        value -= tile[from][y][x + 1];
        tile[to][y][x] = centre - value * coeff;
        if (last && laplacian && y >= fused_steps && y < fused_steps + diffuse_tile_y<T> &&
            x >= fused_steps && x < fused_steps + diffuse_tile_x)
          laplacian[r * g.laplacian_stride + c] = value;
      }
    }
    __syncthreads();
  }
  const int final = steps % 2;
  if (x >= fused_steps && x < fused_steps + diffuse_tile_x && column_inside) {
    for (int y = fused_steps + int(threadIdx.y); y < fused_steps + diffuse_tile_y<T>;
         y += diffuse_threads_y) {
      const std::int64_t r = row0 + y;
      if (r >= 0 && r < g.rows) out[r * g.out_stride + c] = tile[final][y][x];
    }
  }
}

// impl::diffuse_tuned on a GPU runtime: float or double fields (and Laplacians) with unit
// column stride.
template <class Runtime>
struct gpu_diffuse {
  static constexpr bool available = true;
  template <class View>
  static bool row_major(const View& v) {
    return v.extent(1) < 2 || v.stride(1) == 1;
  }
  template <class Field>
  static bool covers(const Field& field) {
    return std::is_floating_point_v<typename Field::value_type> && row_major(field);
  }
  template <class View>
  static std::int64_t row_stride(const View& v) {
    return std::int64_t(v.extent(0) < 2 ? v.extent(1) : v.stride(0));
  }

  template <class Field, class Laplacian>
  static void run(const typename Runtime::execution_space& space, const Field& field,
                  std::int64_t steps, const Laplacian& laplacian, double coeff) {
    using T = typename Field::value_type;
    const bool wants_laplacian = laplacian.data() != nullptr;
    const bool laplacian_fits = !wants_laplacian ||
                                (std::is_same_v<typename Laplacian::value_type, T> && row_major(laplacian));
    if (steps == 0 || !laplacian_fits) {  // nothing to fuse, or a Laplacian of another shape
      impl::diffuse_generic(space, field, steps, laplacian, coeff);
      return;
    }
    const std::int64_t rows = field.extent(0), columns = field.extent(1);
    if (rows == 0 || columns == 0) return;
    using memory_space = typename Runtime::execution_space::memory_space;
    using scratch_type = impl::workspace<memory_space>;
    scratch_type scratch(scratch_type::template bytes_for<T>(std::size_t(rows * columns)));
    T* const buffer = scratch.template take<T>(std::size_t(rows * columns));
    const dim3 blocks(unsigned((columns + diffuse_tile_x - 1) / diffuse_tile_x),
                      unsigned((rows + diffuse_tile_y<T> - 1) / diffuse_tile_y<T>));
    const auto stream = Runtime::stream(space);
    // Launches alternate between the field and the buffer; the last one writes the field.
    const std::int64_t launches = (steps + fused_steps - 1) / fused_steps;
    const T* in = field.data();
    std::int64_t in_stride = row_stride(field);
    for (std::int64_t launch = 0; launch < launches; ++launch) {
      const bool to_field = (launches - 1 - launch) % 2 == 0;
      T* out = to_field ? field.data() : buffer;
      const std::int64_t out_stride = to_field ? row_stride(field) : columns;
      const int here = int(std::min<std::int64_t>(fused_steps, steps - launch * fused_steps));
      const bool last = launch + 1 == launches;
      T* lap = last && wants_laplacian ? reinterpret_cast<T*>(laplacian.data()) : nullptr;
      const grid_pointers g{rows, columns, in_stride, out_stride,
                            wants_laplacian ? row_stride(laplacian) : 0};
      if (in == out) {  // one launch, in place: read from the buffer instead
        Runtime::copy_2d_async(buffer, columns, in, in_stride, columns, rows, sizeof(T), stream);
        in = buffer;
        in_stride = columns;
      }
      diffusion_steps<T><<<blocks, dim3(diffuse_threads_x, diffuse_threads_y), 0, stream>>>(
          in, out, lap, g, T(coeff), here);
      Runtime::check_launch("diffusion_steps");
      in = out;
      in_stride = out_stride;
    }
    space.fence();  // before the workspace is released
  }
};

}  // namespace kernwerk::gpu_impl

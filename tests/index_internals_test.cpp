// The index's internals apart from the public queries: Morton codes against a bit-by-bit
// interleave; the pair sort that orders the points by code, generic and CUDA's (CUB's, and
// tiles merged), against std::stable_sort; and the built tree's invariants (its rows a
// permutation of the points, codes ascending along the rows, each leaf's box the box of its
// points, each parent's the union of its children's), on every enabled space; and the build's
// launches (Kokkos', or the backend's plain ones) against a loop on the host.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk/impl/index/point_bvh.hpp"
#include "kernwerk/impl/index/sort_pairs.hpp"
#include "kernwerk/impl/launch.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace {

struct pairs {
  std::vector<std::uint64_t> keys;
  std::vector<int> values;
};

// n keys below 2^key_bits, many repeated (Morton codes of duplicate points), the values their
// positions, so that stability shows.
pairs random_pairs(std::int64_t n, int key_bits, std::uint64_t distinct, unsigned seed) {
  std::mt19937_64 random(seed);
  const std::uint64_t mask = key_bits == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << key_bits) - 1;
  std::vector<std::uint64_t> pool(std::max<std::uint64_t>(distinct, 1));
  for (auto& key : pool) key = random() & mask;
  pool.front() = 0;  // the extremes
  pool.back() = mask;
  pairs p;
  p.keys.resize(n);
  p.values.resize(n);
  for (std::int64_t i = 0; i < n; ++i) {
    p.keys[i] = pool[random() % pool.size()];
    p.values[i] = int(i);
  }
  return p;
}

pairs stable_sorted(const pairs& p) {
  std::vector<std::int64_t> order(p.keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int64_t a, std::int64_t b) { return p.keys[a] < p.keys[b]; });
  pairs sorted;
  for (auto i : order) {
    sorted.keys.push_back(p.keys[i]);
    sorted.values.push_back(p.values[i]);
  }
  return sorted;
}

// The pairs sorted on Space by the generic sort (generic = true; small: as a small build's,
// in the calling thread on a host space) or by sort_pairs.
template <class Space>
pairs sorted_on(const pairs& p, int key_bits, bool generic, bool small = false) {
  using memory = typename Space::memory_space;
  const std::int64_t n = std::int64_t(p.keys.size());
  Kokkos::View<std::uint64_t*, memory> keys("keys", n);
  Kokkos::View<int*, memory> values("values", n);
  Kokkos::deep_copy(keys, Kokkos::View<const std::uint64_t*, Kokkos::HostSpace>(p.keys.data(), n));
  Kokkos::deep_copy(values, Kokkos::View<const int*, Kokkos::HostSpace>(p.values.data(), n));
  Space space;
  const std::size_t bytes =
      generic ? kernwerk::impl::sort_pairs_generic_bytes<Space, int>(n, space.concurrency())
              : kernwerk::impl::sort_pairs_bytes<Space, int>(n, space.concurrency());
  {
    kernwerk::impl::workspace<memory> scratch(std::max<std::size_t>(bytes, 1));
    if (generic)
      kernwerk::impl::sort_pairs_generic(space, keys.data(), values.data(), n, key_bits, scratch, small);
    else
      kernwerk::impl::sort_pairs(space, keys.data(), values.data(), n, key_bits, scratch);
    space.fence();
  }
  pairs result;
  result.keys.resize(n);
  result.values.resize(n);
  Kokkos::deep_copy(Kokkos::View<std::uint64_t*, Kokkos::HostSpace>(result.keys.data(), n), keys);
  Kokkos::deep_copy(Kokkos::View<int*, Kokkos::HostSpace>(result.values.data(), n), values);
  return result;
}

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("index internals: the pair sort, generic, small and vendor, is stable and equal",
                          Space, pair_sort) {
  struct sort_case {
    std::int64_t n;
    int key_bits;
    std::uint64_t distinct;
  };
  // empty, one pair, a tile and its edges, many tiles; all distinct, few keys, one key; the
  // index's 63 bits and fewer (an odd number of digit passes)
  const sort_case cases[] = {{0, 63, 1},      {1, 63, 1},      {2, 63, 2},     {63, 63, 5},
                             {64, 63, 64},    {65, 63, 3},     {1000, 63, 1},  {4097, 63, 4097},
                             {100003, 63, 97}, {100003, 63, 100003}, {250000, 20, 1000},
                             {70001, 12, 4096}, {30000, 64, 30000},
                             // CUDA's tiles of 2048 and their merges up to 2^16: a tile and one
                             // more, many equal keys across tiles, the largest, 64-bit keys
                             {2049, 63, 3},    {50000, 63, 7},  {65536, 63, 65536}, {6000, 64, 2}};
  unsigned seed = 11;
  for (const auto& c : cases) {
    CAPTURE(c.n);
    CAPTURE(c.key_bits);
    CAPTURE(c.distinct);
    const pairs input = random_pairs(c.n, c.key_bits, c.distinct, seed++);
    const pairs expected = stable_sorted(input);
    const pairs generic = sorted_on<Space>(input, c.key_bits, true);
    CHECK(generic.keys == expected.keys);
    CHECK(generic.values == expected.values);
    const pairs small = sorted_on<Space>(input, c.key_bits, true, true);
    CHECK(small.keys == expected.keys);
    CHECK(small.values == expected.values);
    const pairs chosen = sorted_on<Space>(input, c.key_bits, false);  // the vendor's, where one
    CHECK(chosen.keys == expected.keys);
    CHECK(chosen.values == expected.values);
  }
}
TEST_CASE_TEMPLATE_APPLY(pair_sort, kernwerk::test::enabled_spaces);

namespace {

// A value of launch_reduce with every part of a reduction: a sum, a minimum with its index
// (the smallest index on ties), a count, and final() on top.
struct launch_totals {
  std::int64_t sum, low, low_at, count, finished;
};
template <class Out>
struct launch_sample {
  using value_type = launch_totals;
  Out out;
  KOKKOS_INLINE_FUNCTION static std::int64_t value(std::int64_t i) { return (i * 7919) % 1009; }
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const { out(i) = 2 * i + 1; }
  KOKKOS_FUNCTION void operator()(const std::int64_t i, value_type& t) const {
    t.sum += value(i);
    if (value(i) < t.low || (value(i) == t.low && i < t.low_at)) {
      t.low = value(i);
      t.low_at = i;
    }
    ++t.count;
  }
  KOKKOS_FUNCTION void init(value_type& t) const { t = {0, 1 << 20, -1, 0, 0}; }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const {
    into.sum += from.sum;
    into.count += from.count;
    if (from.low < into.low || (from.low == into.low && from.low_at < into.low_at)) {
      into.low = from.low;
      into.low_at = from.low_at;
    }
  }
#if KOKKOS_VERSION < 40000
  KOKKOS_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    into.sum += from.sum;
    into.count += from.count;
    if (from.low < into.low || (from.low == into.low && from.low_at < into.low_at)) {
      into.low = from.low;
      into.low_at = from.low_at;
    }
  }
#endif
  KOKKOS_FUNCTION void final(value_type& t) const { t.finished = 2 * t.count + 1; }
};

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("index internals: the build's launches against a loop on the host",
                          Space, launches) {
  using memory = typename Space::memory_space;
  const Space space;
  // nothing, one, a block and its edges, more blocks than the reduction keeps values for
  for (const std::int64_t n : {0, 1, 127, 128, 129, 256, 257, 100003, 1 << 20}) {
    CAPTURE(n);
    Kokkos::View<std::int64_t*, memory> out("out", n);
    const launch_sample<decltype(out)> sample{out};
    kernwerk::impl::launch_for("test::launch_for", space, n, sample);
    Kokkos::View<launch_totals, memory> totals("totals");
    Kokkos::View<char*, memory> scratch(
        "scratch", kernwerk::impl::launch_reduce_bytes<Space, launch_totals>() + 1);
    kernwerk::impl::launch_reduce("test::launch_reduce", space, n, sample, totals.data(),
                                  scratch.data());
    space.fence();
    launch_totals expected{0, 1 << 20, -1, 0, 0};
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t v = decltype(sample)::value(i);
      expected.sum += v;
      if (v < expected.low) {
        expected.low = v;
        expected.low_at = i;
      }
      ++expected.count;
    }
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), totals)();
    CHECK(got.sum == expected.sum);
    CHECK(got.low == expected.low);
    CHECK(got.low_at == expected.low_at);
    CHECK(got.count == n);
    CHECK(got.finished == 2 * n + 1);
    const auto written = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < n; ++i) wrong += written(i) != 2 * i + 1;
    CHECK(wrong == 0);
  }
}
TEST_CASE_TEMPLATE_APPLY(launches, kernwerk::test::enabled_spaces);

namespace {

// Steps of launch_steps that read what the steps before wrote: an exclusive scan of `in`
// into `out`, and `in` plus a reduction's sum into `out`.
template <class In, class Out>
struct prefix_sample {
  using value_type = std::int64_t;
  In in;
  Out out;
  KOKKOS_FUNCTION void operator()(const std::int64_t i, value_type& before, const bool final) const {
    const std::int64_t here = in(i);
    if (final) out(i) = before;
    before += here;
  }
  KOKKOS_FUNCTION void init(value_type& value) const { value = 0; }
  KOKKOS_FUNCTION void join(value_type& into, const value_type& from) const { into += from; }
#if KOKKOS_VERSION < 40000
  KOKKOS_FUNCTION void join(volatile value_type& into, const volatile value_type& from) const {
    into += from;
  }
#endif
};
template <class In, class Out, class Totals>
struct offset_sample {
  In in;
  Out out;
  Totals totals;
  KOKKOS_FUNCTION void operator()(const std::int64_t i) const { out(i) = in(i) + totals().sum; }
};

}  // namespace

TEST_CASE_TEMPLATE_DEFINE("index internals: launch_steps small (one block or the calling thread) and step by step",
                          Space, steps) {
  using memory = typename Space::memory_space;
  const Space space;
  for (const bool small : {false, true}) {
    for (const std::int64_t n : {0, 1, 511, 512, 513, 4099, 100003}) {
      CAPTURE(small);
      CAPTURE(n);
      Kokkos::View<std::int64_t*, memory> out("out", n), prefix("prefix", n), offset("offset", n);
      Kokkos::View<launch_totals, memory> totals("totals");
      Kokkos::View<char*, memory> scratch(
          "scratch", kernwerk::impl::launch_reduce_bytes<Space, launch_totals>() + 1);
      const launch_sample<decltype(out)> sample{out};
      kernwerk::impl::launch_steps(
          space, small, scratch.data(), kernwerk::impl::step_for("test::for", n, sample),
          kernwerk::impl::step_reduce("test::reduce", n, sample, totals.data()),
          kernwerk::impl::step_scan("test::scan", n, prefix_sample<decltype(out), decltype(prefix)>{out, prefix}),
          kernwerk::impl::step_for("test::offset", n,
                                   offset_sample<decltype(out), decltype(offset), decltype(totals)>{
                                       out, offset, totals}));
      space.fence();
      std::int64_t sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += decltype(sample)::value(i);
      const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), totals)();
      CHECK(got.sum == sum);
      CHECK(got.count == n);
      CHECK(got.finished == 2 * n + 1);
      const auto before = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), prefix);
      const auto shifted = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offset);
      std::int64_t running = 0, wrong_prefix = 0, wrong_offset = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        wrong_prefix += before(i) != running;
        wrong_offset += shifted(i) != 2 * i + 1 + sum;
        running += 2 * i + 1;
      }
      CHECK(wrong_prefix == 0);
      CHECK(wrong_offset == 0);
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(steps, kernwerk::test::enabled_spaces);

namespace {

// The code of cells (x, y, z), bit by bit: bit i of x at 3 i + 2, of y at 3 i + 1, of z at 3 i.
std::uint64_t interleaved(std::uint64_t x, std::uint64_t y, std::uint64_t z, int bits) {
  std::uint64_t code = 0;
  for (int i = 0; i < bits; ++i)
    code |= ((x >> i) & 1) << (3 * i + 2) | ((y >> i) & 1) << (3 * i + 1) | ((z >> i) & 1) << (3 * i);
  return code;
}

}  // namespace

TEST_CASE("index internals: Morton codes interleave the cells' bits, clamped to the cube") {
  using kernwerk::impl::box3;
  using kernwerk::impl::morton_frame;
  std::mt19937_64 random(5);
  for (int t = 0; t < 10000; ++t) {
    const std::uint64_t v = random();
    const std::uint64_t x = v & 0x1fffff, y = (v >> 21) & 0x1fffff, z = (v >> 42) & 0x1fffff;
    CHECK(morton_frame::spread(v) == interleaved(v & 0x1fffff, 0, 0, 21) >> 2);
    CHECK((morton_frame::spread(x) << 2 | morton_frame::spread(y) << 1 | morton_frame::spread(z)) ==
          interleaved(x, y, z, 21));
  }
  // A frame around a box: the box's low corner is cell 0, its high corner the last cell (the
  // scale's rounding clamped), points outside clamp to the faces, NaN to 0.
  box3 box = box3::empty();
  box.add(-1.0, 2.0, 0.5);
  box.add(3.0, 2.5, 0.75);
  for (int bits : {1, 6, 21}) {
    CAPTURE(bits);
    const auto frame = morton_frame::around(box, bits);
    const std::uint64_t top = (std::uint64_t(1) << bits) - 1;
    CHECK(frame.code(-1.0, 2.0, 0.5) == 0);
    CHECK(frame.cell(3.0, 0) == top);
    CHECK(frame.cell(-5.0, 0) == 0);
    CHECK(frame.cell(1e300, 1) == top);
    CHECK(frame.cell(std::nan(""), 2) == 0);
    std::uniform_real_distribution<double> along(0.0, 4.0);
    for (int t = 0; t < 1000; ++t) {  // the cell of a point, by the frame's own arithmetic
      const double px = -1.0 + along(random), py = 2.0 + along(random) / 8, pz = 0.5 + along(random) / 16;
      const auto cell = [&](double p, double origin) {
        const double c = std::floor((p - origin) * frame.scale);
        return std::uint64_t(std::min(std::max(c, 0.0), double(top)));
      };
      CHECK(frame.code(px, py, pz) == interleaved(cell(px, -1.0), cell(py, 2.0), cell(pz, 0.5), bits));
    }
  }
}

namespace {

using host_points = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

// What a built tree holds, copied to the host.
struct tree_copy {
  kernwerk::impl::point_bvh<Kokkos::HostSpace> bvh;  // scalars, and the arrays below
  std::vector<double> boxes, points;
  std::vector<std::uint64_t> leaf_codes;
  std::vector<int> order, rank;
};

template <class Space>
tree_copy built_tree(const host_points& input, bool sphere, int leaf_size) {
  using memory = typename Space::memory_space;
  using bvh_type = kernwerk::impl::point_bvh<memory>;
  const std::int64_t m = std::int64_t(input.extent(0));
  Kokkos::View<double**, Kokkos::LayoutRight, memory> points("points", m, input.extent(1));
  Kokkos::deep_copy(points, input);
  Space space;
  const std::size_t keep_bytes = bvh_type::bytes(m, leaf_size, sphere);
  const std::size_t scratch_bytes = bvh_type::template build_bytes<Space>(m, space.concurrency(), sphere);
  Kokkos::View<char*, memory> keep_memory("keep", keep_bytes), scratch_memory("scratch", scratch_bytes);
  kernwerk::impl::carver keep(keep_memory.data(), keep_bytes), scratch(scratch_memory.data(), scratch_bytes);
  const bvh_type bvh = sphere ? kernwerk::impl::build_sphere_bvh(space, points, 1.0, leaf_size, keep, scratch)
                              : kernwerk::impl::build_euclidean_bvh(space, points, leaf_size, keep, scratch);
  space.fence();
  tree_copy copy;
  copy.bvh.size = bvh.size;
  copy.bvh.leaf_size = bvh.leaf_size;
  copy.bvh.leaf_count = bvh.leaf_count;
  copy.bvh.first_leaf = bvh.first_leaf;
  copy.bvh.frame = bvh.frame;
  const auto take = [](auto& vector, const auto& view) {
    using value = typename std::decay_t<decltype(vector)>::value_type;
    vector.resize(view.size());
    auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    const value* data = mirror.data();
    std::copy(data, data + view.size(), vector.begin());
  };
  take(copy.boxes, bvh.boxes);
  take(copy.points, bvh.points);
  take(copy.leaf_codes, bvh.leaf_codes);
  take(copy.order, bvh.order);
  take(copy.rank, bvh.rank);
  return copy;
}

// The invariants of a tree over `input` (Euclidean: the coordinates as given; sphere: the
// (lat, lon) rows, kept beside the rotated unit vectors).
void check_tree(const tree_copy& t, const host_points& input, bool sphere) {
  using kernwerk::impl::column_lat;
  using kernwerk::impl::column_lon;
  using kernwerk::impl::column_x;
  const std::int64_t m = std::int64_t(input.extent(0)), nodes = 2 * t.bvh.first_leaf;
  REQUIRE(t.bvh.size == m);
  REQUIRE(std::int64_t(t.order.size()) == m);
  REQUIRE(t.bvh.leaf_count == (m + t.bvh.leaf_size - 1) / t.bvh.leaf_size);
  REQUIRE(t.bvh.first_leaf >= t.bvh.leaf_count);
  REQUIRE((t.bvh.first_leaf & (t.bvh.first_leaf - 1)) == 0);
  const auto point = [&](std::int64_t row, int column) { return t.points[column * m + row]; };
  const auto box = [&](std::int64_t node, int a) { return t.boxes[node * 6 + a]; };
  // rows: a permutation of the points, order and rank inverse, each row the point it names
  std::vector<int> seen(m, 0);
  for (std::int64_t r = 0; r < m; ++r) {
    const int j = t.order[r];
    REQUIRE((j >= 0 && j < m));
    ++seen[j];
    CHECK(t.rank[j] == r);
    if (sphere) {
      CHECK(point(r, column_lat) == input(j, 0));
      CHECK(point(r, column_lon) == input(j, 1));
      const double x = point(r, column_x), y = point(r, column_x + 1), z = point(r, column_x + 2);
      CHECK(std::abs(x * x + y * y + z * z - 1) < 1e-14);  // a rotation keeps unit length
    } else {
      for (std::size_t a = 0; a < 3; ++a)
        CHECK(point(r, int(a)) == (a < input.extent(1) ? input(j, a) : 0.0));
    }
  }
  CHECK(std::count(seen.begin(), seen.end(), 1) == m);
  // codes ascending along the rows; each leaf's code its first row's
  std::uint64_t previous = 0;
  for (std::int64_t r = 0; r < m; ++r) {
    const std::uint64_t code = t.bvh.frame.code(point(r, 0), point(r, 1), point(r, 2));
    CHECK(code >= previous);
    previous = code;
    if (r % t.bvh.leaf_size == 0) CHECK(t.leaf_codes[r / t.bvh.leaf_size] == code);
  }
  // leaves: the box of their rows, empty where they hold none
  for (std::int64_t leaf = t.bvh.first_leaf; leaf < nodes; ++leaf) {
    kernwerk::impl::box3 expected = kernwerk::impl::box3::empty();
    const std::int64_t first = std::min(m, (leaf - t.bvh.first_leaf) * t.bvh.leaf_size);
    const std::int64_t last = std::min(m, first + t.bvh.leaf_size);
    for (std::int64_t r = first; r < last; ++r) expected.add(point(r, 0), point(r, 1), point(r, 2));
    for (int a = 0; a < 6; ++a) CHECK(box(leaf, a) == expected.bound[a]);
  }
  // parents: the union of their children
  for (std::int64_t node = 1; node < t.bvh.first_leaf; ++node) {
    for (int a = 0; a < 3; ++a) {
      CHECK(box(node, a) == std::min(box(2 * node, a), box(2 * node + 1, a)));
      CHECK(box(node, a + 3) == std::max(box(2 * node, a + 3), box(2 * node + 1, a + 3)));
    }
  }
}

host_points random_rows(std::int64_t m, int columns, unsigned seed, double low, double high) {
  host_points rows("rows", m, columns);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(low, high);
  for (std::int64_t j = 0; j < m; ++j)
    for (int c = 0; c < columns; ++c) rows(j, c) = value(random);
  return rows;
}

}  // namespace

// The limits of a small build (bvh_policy::small_build) a test tries: none and every build
// where the space has plain launches or runs on the host, else the default (the same launches
// either way).
template <class Space>
std::vector<std::int64_t> small_build_limits() {
  if (kernwerk::impl::launch_tuned<Space>::available || kernwerk::impl::host_execution<Space>)
    return {0, std::int64_t(1) << 40};
  return {kernwerk::impl::bvh_policy::small_build};
}

TEST_CASE_TEMPLATE_DEFINE("index internals: the tree's rows, codes and boxes", Space, tree_invariants) {
  const double pi = 3.14159265358979323846;
  const int default_leaf = kernwerk::impl::bvh_policy::leaf_size_for<Space>();
  auto& small_build = kernwerk::impl::bvh_policy::small_build;
  const std::int64_t default_small_build = small_build;
  for (const std::int64_t limit : small_build_limits<Space>()) {
    small_build = limit;
    CAPTURE(limit);
    for (int leaf : {1, 4, default_leaf}) {
      CAPTURE(leaf);
      for (std::int64_t m : {1, 2, 7, 33, 1000, 4099}) {
        CAPTURE(m);
        // sphere: uniform (lat, lon); a cap 1e-6 rad wide across the date line; the poles
        auto sphere = random_rows(m, 2, unsigned(m), -pi / 2, pi / 2);
        for (std::int64_t j = 0; j < m; ++j) sphere(j, 1) *= 2;
        check_tree(built_tree<Space>(sphere, true, leaf), sphere, true);
        auto cap = random_rows(m, 2, unsigned(m) + 1, -1e-6, 1e-6);
        for (std::int64_t j = 0; j < m; ++j) cap(j, 1) += j % 2 ? pi : -pi;
        check_tree(built_tree<Space>(cap, true, leaf), cap, true);
        auto poles = random_rows(m, 2, unsigned(m) + 2, -pi, pi);
        for (std::int64_t j = 0; j < m; ++j) poles(j, 0) = j % 2 ? pi / 2 : -pi / 2;
        check_tree(built_tree<Space>(poles, true, leaf), poles, true);
        // Euclidean: 2-D and 3-D; duplicates (every point four times); a huge extent
        for (int dimension : {2, 3}) {
          CAPTURE(dimension);
          const auto plane = random_rows(m, dimension, unsigned(m) + 3, -10, 10);
          check_tree(built_tree<Space>(plane, false, leaf), plane, false);
          auto repeated = random_rows(m, dimension, unsigned(m) + 4, 0, 1);
          for (std::int64_t j = 0; j < m; ++j)
            for (int c = 0; c < dimension; ++c) repeated(j, c) = repeated(j / 4, c);
          check_tree(built_tree<Space>(repeated, false, leaf), repeated, false);
          const auto far = random_rows(m, dimension, unsigned(m) + 5, -1e300, 1e300);
          check_tree(built_tree<Space>(far, false, leaf), far, false);
        }
      }
    }
  }
  small_build = default_small_build;
}
TEST_CASE_TEMPLATE_APPLY(tree_invariants, kernwerk::test::enabled_spaces);

// The sphere's grid, on the small grids' one scan and the large grids' scan by blocks: where its
// statistics say it pays (a host count of the rows' cells), each cell's starts are the rows
// before it and its rows are its points; where the points crowd into a few cells it is not used.
TEST_CASE_TEMPLATE_DEFINE("index internals: the sphere grid's cells", Space, grid_cells) {
  using memory = typename Space::memory_space;
  using bvh_type = kernwerk::impl::point_bvh<memory>;
  using kernwerk::impl::column_x;
  const double pi = 3.14159265358979323846;
  auto& small_build = kernwerk::impl::bvh_policy::small_build;
  const std::int64_t default_small_build = small_build;
  for (const std::int64_t limit : small_build_limits<Space>()) {
    small_build = limit;
    for (std::int64_t m : {1000, 4099, 70000}) {
      for (const bool crowded : {false, true}) {
        CAPTURE(limit);
        CAPTURE(m);
        CAPTURE(crowded);
        auto input = random_rows(m, 2, unsigned(m) + 7, -pi / 2, pi / 2);
        for (std::int64_t j = 0; j < m; ++j) {  // area-uniform, or in a cap 1e-4 rad wide
          input(j, 1) *= 2;
          input(j, 0) = std::asin(input(j, 0) / (pi / 2));
          if (crowded) input(j, 0) = 0.3 + 1e-4 * input(j, 0);
          if (crowded) input(j, 1) = 1e-4 * input(j, 1);
        }
        Kokkos::View<double**, Kokkos::LayoutRight, memory> points("points", m, 2);
        Kokkos::deep_copy(points, input);
        Space space;
        const int leaf = kernwerk::impl::bvh_policy::leaf_size_for<Space>();
        const std::size_t keep_bytes = bvh_type::bytes(m, leaf, true);
        const std::size_t scratch_bytes = bvh_type::template build_bytes<Space>(m, space.concurrency(), true);
        Kokkos::View<char*, memory> keep_memory("keep", keep_bytes), scratch_memory("scratch", scratch_bytes);
        kernwerk::impl::carver keep(keep_memory.data(), keep_bytes), scratch(scratch_memory.data(), scratch_bytes);
        const bvh_type bvh = kernwerk::impl::build_sphere_bvh(space, points, 1.0, leaf, keep, scratch, true);
        space.fence();
        const auto& grid = bvh.grid;
        const auto rows = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bvh.points);
        const std::int64_t cells = std::int64_t(grid.cells) * grid.cells * grid.cells;
        std::vector<int> count(cells, 0);
        std::vector<std::vector<int>> members(cells);
        const auto order = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bvh.order);
        for (std::int64_t r = 0; r < m; ++r) {
          const int c = grid.cell(grid.axis_cell(rows(r, column_x)), grid.axis_cell(rows(r, column_x + 1)),
                                  grid.axis_cell(rows(r, column_x + 2)));
          ++count[c];
          members[c].push_back(order(r));
        }
        std::int64_t occupied = 0;
        int most = 0;
        for (const int n : count) {
          occupied += n > 0;
          most = std::max(most, n);
        }
        const bool pays = double(occupied) * kernwerk::impl::grid_policy::min_occupancy >= double(m) &&
                          most <= kernwerk::impl::grid_policy::max_per_cell;
        CHECK(grid.used == pays);
        CHECK(grid.used == !crowded);
        if (!grid.used) continue;
        const auto start = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grid.start);
        const auto placed = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grid.order);
        std::int64_t before = 0, wrong_starts = 0, wrong_members = 0;
        for (std::int64_t c = 0; c < cells; ++c) {
          wrong_starts += start(c) != before;
          std::vector<int> here(placed.data() + start(c), placed.data() + start(c) + count[c]);
          std::sort(here.begin(), here.end());
          std::sort(members[c].begin(), members[c].end());
          wrong_members += here != members[c];
          before += count[c];
        }
        CHECK(start(cells) == m);
        CHECK(wrong_starts == 0);
        CHECK(wrong_members == 0);
      }
    }
  }
  small_build = default_small_build;
}
TEST_CASE_TEMPLATE_APPLY(grid_cells, kernwerk::test::enabled_spaces);

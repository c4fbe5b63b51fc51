// The index's internals apart from the public queries: the pair sort that orders the points by
// Morton code, generic and vendor (CUB on CUDA), against std::stable_sort on the host.
#include <doctest/doctest.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "execution_spaces.hpp"
#include "kernwerk/impl/sort_pairs.hpp"
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

// The pairs sorted on Space by the generic sort (generic = true) or by sort_pairs.
template <class Space>
pairs sorted_on(const pairs& p, int key_bits, bool generic) {
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
      kernwerk::impl::sort_pairs_generic(space, keys.data(), values.data(), n, key_bits, scratch);
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

TEST_CASE_TEMPLATE_DEFINE("index internals: the pair sort, generic and vendor, is stable and equal",
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
                             {70001, 12, 4096}, {30000, 64, 30000}};
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
    const pairs chosen = sorted_on<Space>(input, c.key_bits, false);  // the vendor's, where one
    CHECK(chosen.keys == expected.keys);
    CHECK(chosen.values == expected.values);
  }
}
TEST_CASE_TEMPLATE_APPLY(pair_sort, kernwerk::test::enabled_spaces);

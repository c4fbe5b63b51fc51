// Fuzz target: the C interface's argument checks (kernwerk.h) on nearest neighbours, the sphere
// index, radius search and DBSCAN. The input is read as a call: which function, the type,
// memory, dimension, sizes, k, options, every pointer valid, NULL or aliasing another argument,
// and the coordinates (drawn from a palette of hostile values: NaN, infinities, the poles and
// just past them, the date line, huge and tiny values, duplicates).
// A failed call must be KW_INVALID_ARGUMENT or KW_UNSUPPORTED with a message naming the
// function (the C one, or the C++ one it calls), and leave every output as it was; a call that succeeds must agree with the float64
// brute force of kernwerk/reference.hpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_files.hpp"
#include "kernwerk.h"
#include "kernwerk/reference.hpp"

namespace {

// The input read front to back; zeros once it runs out.
struct reader {
  const std::uint8_t* data;
  std::size_t size, at = 0;
  unsigned byte() { return at < size ? data[at++] : 0u; }
  double coordinate() {
    static const double palette[] = {0.0, -0.0, M_PI / 2, -M_PI / 2, M_PI, -M_PI, std::nextafter(M_PI / 2, 4.0),
                                     90.0, -90.0, 180.0, -180.0, 1e-300, 5e-324, 1e300,
                                     std::numeric_limits<double>::quiet_NaN(),
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(), 1.0, 1.0 + 1e-15};
    const unsigned pick = byte();
    if (pick < sizeof palette / sizeof *palette) return palette[pick];
    return (double(pick) * 256 + byte()) / 65536.0 * 7.0 - 3.5;  // within about [-3.5, 3.5]
  }
  std::int64_t count() {  // a size: mostly small, sometimes negative or absurd
    const unsigned pick = byte();
    if (pick == 255) return -1;
    if (pick == 254) return std::numeric_limits<std::int64_t>::max();
    return pick % 13;
  }
};

// The arrays a call may read or write: five blocks of one capacity (every size the reader gives
// fits), filled with a sentinel; a pointer argument points at its own block, at NULL, or into
// another argument's block.
constexpr std::size_t capacity = 512;
struct arena {
  std::vector<std::uint64_t> blocks[5];
  arena() {
    for (auto& b : blocks) b.assign(capacity, 0xC0FFEEC0FFEEC0FFull);
  }
  void* pick(unsigned mode, unsigned own) {
    if (mode % 8 == 1) return nullptr;
    if (mode % 8 == 2) return blocks[(own + 1 + mode / 8 % 4) % 5].data();
    return blocks[own].data();
  }
  bool operator==(const arena& other) const {
    for (int b = 0; b < 5; ++b)
      if (blocks[b] != other.blocks[b]) return false;
    return true;
  }
};

// A pointer argument's bytes, for telling whether outputs overlap other arguments.
struct span {
  const void* start;
  std::size_t bytes;
  bool meets(const span& other) const {
    if (!start || !other.start || !bytes || !other.bytes) return false;
    const auto a = reinterpret_cast<std::uintptr_t>(start), b = reinterpret_cast<std::uintptr_t>(other.start);
    return a < b + other.bytes && b < a + bytes;
  }
};

// Whether any output overlaps another argument.
bool overlapping(const std::vector<span>& outputs, const std::vector<span>& inputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    for (const auto& i : inputs)
      if (outputs[o].meets(i)) return true;
    for (std::size_t p = 0; p < o; ++p)
      if (outputs[o].meets(outputs[p])) return true;
  }
  return false;
}

void require_failure_named(kw_status status, const char* function) {
  if (status != KW_INVALID_ARGUMENT && status != KW_UNSUPPORTED)
    std::fprintf(stderr, "%s: status %d: %s\n", function, int(status), kw_last_error());
  KERNWERK_FUZZ_REQUIRE(status == KW_INVALID_ARGUMENT || status == KW_UNSUPPORTED);
  // the C function's checks name it; the C++ call's name their function (kernwerk::nearest: ...)
  const std::string message = kw_last_error();
  const bool named = message.find(function) != std::string::npos || message.rfind("kernwerk::", 0) == 0;
  if (!named) std::fprintf(stderr, "%s: %s\n", function, message.c_str());
  KERNWERK_FUZZ_REQUIRE(named);
}

// The fields every options struct of the C interface has: the metric and its units.
template <class Options>
Options options_of(void (*defaults)(Options*), int metric, bool degrees, double radius) {
  Options options;
  defaults(&options);
  options.metric = metric;
  options.degrees = degrees;
  options.radius = radius;
  return options;
}

template <class T>
std::vector<double> read_values(const void* pointer, std::size_t count) {
  const T* values = static_cast<const T*>(pointer);
  return pointer ? std::vector<double>(values, values + count) : std::vector<double>(count, 0.0);
}

template <class T>
void call(reader& in, kw_type type) {
  using namespace kernwerk;
  const unsigned function = in.byte() % 5;
  // mostly host memory; the default space's (the host's in a host build), or no such memory
  const unsigned memory_pick = in.byte() % 8;
  const kw_memory where = memory_pick == 7 ? kw_memory(9) : memory_pick == 6 ? KW_MEMORY_DEVICE : KW_MEMORY_HOST;
  const bool enums_known = (type == KW_FLOAT32 || type == KW_FLOAT64) && memory_pick != 7;
  const bool degrees = in.byte() & 1;
  const unsigned metric_pick = in.byte();
  const int metric = metric_pick % 8 == 7 ? 9 : int(metric_pick & 1);
  const std::int64_t dimension = function == 1 ? 2 : std::int64_t(in.byte() % 6) - 1;  // -1 .. 4 (the index: 2)
  const std::int64_t n = in.count(), m = in.count();
  const std::int64_t k = std::int64_t(in.byte() % 36) - 1;         // -1 .. 34
  // Sizes out of range go with NULL pointers only: the call cannot know the arrays' lengths.
  // (DBSCAN has no second set: its m is left out)
  const bool sane = n >= 0 && n < 13 && (function == 4 || (m >= 0 && m < 13)) && dimension >= 1 && dimension <= 4;
  const std::size_t dim = sane ? std::size_t(dimension) : 0, rows_n = sane ? std::size_t(n) : 0,
                    rows_m = sane && function != 4 ? std::size_t(m) : 0, kk = sane && k > 0 ? std::size_t(k) : 0;

  arena memory;
  T* obs = reinterpret_cast<T*>(memory.blocks[0].data());
  T* ref = reinterpret_cast<T*>(memory.blocks[1].data());
  const bool duplicates = in.byte() % 4 == 0;  // references copied from the observations
  for (std::size_t e = 0; e < rows_n * dim; ++e) obs[e] = T(in.coordinate());
  for (std::size_t e = 0; e < rows_m * dim; ++e)
    ref[e] = duplicates && e < rows_n * dim ? obs[e] : T(in.coordinate());
  const unsigned obs_mode = in.byte(), ref_mode = in.byte(), out_mode = in.byte(), dist_mode = in.byte();
  const void* obs_pointer = sane ? memory.pick(obs_mode, 0) : nullptr;
  const void* ref_pointer = sane ? memory.pick(ref_mode, 1) : nullptr;
  void* out_pointer = sane ? memory.pick(out_mode, 2) : nullptr;  // indices, counts or labels
  void* dist_pointer = sane ? memory.pick(dist_mode, 3) : nullptr;
  const std::vector<double> obs64 = read_values<T>(obs_pointer, rows_n * dim);
  const std::vector<double> ref64 = read_values<T>(ref_pointer, rows_m * dim);
  const span obs_span{obs_pointer, rows_n * dim * sizeof(T)}, ref_span{ref_pointer, rows_m * dim * sizeof(T)};
  const arena before = memory;

  const unsigned radius_pick = in.byte();
  const double sphere_radius =
      radius_pick == 1 ? -1.0 : radius_pick == 2 ? std::nan("") : radius_pick == 3 ? 6371.0 : 1.0;
  kw_nearest_options options = options_of(kw_nearest_options_default, metric, degrees, sphere_radius);
  options.method = int(in.byte() % 4);                 // 3: no such method
  options.implementation = int(in.byte() % 4);         // 3: no such implementation
  options.memory_budget = in.byte() % 3 == 0 ? 1 : 0;  // 1 byte: the smallest chunks
  const bool with_options = in.byte() % 4 != 0;
  const bool metric_known = !with_options || metric != 9;

  // What the brute force computes: the options the call was given, or the defaults.
  nearest_options expected;
  if (with_options) {
    expected.metric = metric == 1 ? metric_kind::euclidean : metric_kind::haversine;
    expected.units = degrees ? angle_unit::degrees : angle_unit::radians;
    expected.radius = options.radius;
  }
  const reference::points obs_points{obs64.data(), rows_n, dim}, ref_points{ref64.data(), rows_m, dim};
  const double precision = sizeof(T) == 4 ? 1e-6 : 1e-12;
  const auto refused = [&](kw_status status, const char* name) {
    if (status == KW_SUCCESS) return false;
    require_failure_named(status, name);
    KERNWERK_FUZZ_REQUIRE(memory == before);
    return true;
  };

  if (function <= 1) {  // kw_nearest, or the sphere index
    const char* name = function == 0 ? "kw_nearest" : "kw_sphere_index";
    kw_status status;
    if (function == 0) {
      status = kw_nearest(type, where, dimension, obs_pointer, n, ref_pointer, m, k,
                          static_cast<std::int64_t*>(out_pointer), dist_pointer, with_options ? &options : nullptr);
    } else {
      kw_sphere_index* index = nullptr;
      status = kw_sphere_index_create(type, where, ref_pointer, m, with_options ? &options : nullptr, &index);
      if (status == KW_SUCCESS) {
        KERNWERK_FUZZ_REQUIRE(index != nullptr && kw_sphere_index_size(index) == m);
        status = kw_sphere_index_nearest(index, obs_pointer, n, k, static_cast<std::int64_t*>(out_pointer),
                                         dist_pointer);
        KERNWERK_FUZZ_REQUIRE(kw_sphere_index_destroy(index) == KW_SUCCESS);
      } else {
        KERNWERK_FUZZ_REQUIRE(index == nullptr);
      }
    }
    if (refused(status, name)) return;
    KERNWERK_FUZZ_REQUIRE(sane && metric_known && enums_known && k >= 1 && k <= m);
    const span idx_span{out_pointer, rows_n * kk * 8}, dist_span{dist_pointer, rows_n * kk * sizeof(T)};
    // (the index keeps its own copy of the references: its query may write over the caller's)
    const std::vector<span> inputs = function == 0 ? std::vector<span>{obs_span, ref_span} : std::vector<span>{obs_span};
    if (overlapping({idx_span, dist_span}, inputs))
      std::fprintf(stderr, "%s took overlapping arguments: n %lld, m %lld, k %lld, dimension %lld, modes %u %u %u %u\n",
                   name, (long long)n, (long long)m, (long long)k, (long long)dimension, obs_mode % 8, ref_mode % 8,
                   out_mode % 8, dist_mode % 8);
    KERNWERK_FUZZ_REQUIRE(!overlapping({idx_span, dist_span}, inputs));
    for (std::size_t i = 0; i < rows_n; ++i) {
      std::vector<double> reported(kk);
      for (std::size_t q = 0; q < kk; ++q) reported[q] = double(static_cast<const T*>(dist_pointer)[i * kk + q]);
      const std::string problem =
          reference::check_k(obs_points, i, ref_points, static_cast<const std::int64_t*>(out_pointer) + i * kk,
                             reported.data(), kk, expected, precision);
      if (!problem.empty()) {
        std::fprintf(stderr, "%s: %s\n", name, problem.c_str());
        std::fprintf(stderr, "  degrees %d, radius %g, with options %d, method %d, implementation %d, budget %lld\n",
                     int(degrees), options.radius, int(with_options), options.method, options.implementation,
                     (long long)options.memory_budget);
        for (std::size_t e = 0; e < obs64.size(); ++e) std::fprintf(stderr, "  observation value %zu: %.17g\n", e, obs64[e]);
        for (std::size_t e = 0; e < ref64.size(); ++e) std::fprintf(stderr, "  reference value %zu: %.17g\n", e, ref64[e]);
      }
      KERNWERK_FUZZ_REQUIRE(problem.empty());
    }
    return;
  }

  const kw_within_options within = options_of(kw_within_options_default, metric, degrees, sphere_radius);
  const double radius = in.byte() % 4 == 0 ? -1.0 : double(in.byte()) / 64.0;
  if (function <= 3) {  // kw_count_within, kw_within, or the same queries of a kw_index
    const bool through_index = in.byte() % 3 == 0;
    const char* name = through_index ? "kw_index" : function == 2 ? "kw_count_within" : "kw_within";
    kw_within_result* result = nullptr;
    std::int64_t* counts = static_cast<std::int64_t*>(out_pointer);
    kw_status status;
    if (through_index) {
      kw_index* index = nullptr;
      status = kw_index_create(type, where, dimension, ref_pointer, m, with_options ? &within : nullptr, &index);
      if (status == KW_SUCCESS) {
        KERNWERK_FUZZ_REQUIRE(index != nullptr && kw_index_size(index) == m && kw_index_dimension(index) == dimension);
        status = function == 2 ? kw_index_count_within(index, obs_pointer, n, radius, counts)
                               : kw_index_within(index, obs_pointer, n, radius, &result);
        KERNWERK_FUZZ_REQUIRE(kw_index_destroy(index) == KW_SUCCESS);
      } else {
        KERNWERK_FUZZ_REQUIRE(index == nullptr);
      }
    } else {
      status = function == 2 ? kw_count_within(type, where, dimension, obs_pointer, n, ref_pointer, m, radius, counts,
                                               with_options ? &within : nullptr)
                             : kw_within(type, where, dimension, obs_pointer, n, ref_pointer, m, radius,
                                         with_options ? &within : nullptr, &result);
    }
    if (refused(status, name)) {
      KERNWERK_FUZZ_REQUIRE(result == nullptr);
      return;
    }
    KERNWERK_FUZZ_REQUIRE(sane && metric_known && enums_known && radius >= 0);
    std::vector<std::int64_t> found(rows_n);
    if (function == 2) {
      // (the index keeps its own copy of the points: its counts may write over the caller's)
      const std::vector<span> inputs = through_index ? std::vector<span>{obs_span} : std::vector<span>{obs_span, ref_span};
      KERNWERK_FUZZ_REQUIRE(!overlapping({{out_pointer, rows_n * 8}}, inputs));
      for (std::size_t i = 0; i < rows_n; ++i) found[i] = static_cast<const std::int64_t*>(out_pointer)[i];
    } else {
      const std::int64_t total = kw_within_result_total(result);
      std::vector<std::int64_t> offsets(rows_n + 1), pairs(std::size_t(total) + 1);
      std::vector<T> pair_distances(std::size_t(total) + 1);
      KERNWERK_FUZZ_REQUIRE(kw_within_result_copy(result, offsets.data(), pairs.data(), pair_distances.data()) ==
                            KW_SUCCESS);
      KERNWERK_FUZZ_REQUIRE(kw_within_result_destroy(result) == KW_SUCCESS);
      KERNWERK_FUZZ_REQUIRE(offsets[0] == 0 && offsets[rows_n] == total);
      for (std::size_t i = 0; i < rows_n; ++i) found[i] = offsets[i + 1] - offsets[i];
    }
    for (std::size_t i = 0; i < rows_n; ++i) {  // between the points surely inside and those possibly
      std::int64_t inside = 0, possibly = 0;
      for (std::size_t j = 0; j < rows_m; ++j) {
        const double d = reference::distance_of(reference::order_key(obs_points, i, ref_points, j, expected), expected);
        inside += d < radius * (1 - precision);
        possibly += d <= radius * (1 + precision) + 1e-300;
      }
      if (found[i] < inside || found[i] > possibly)
        std::fprintf(stderr, "%s: query %zu: %lld found, %lld to %lld expected\n", name, i, (long long)found[i],
                     (long long)inside, (long long)possibly);
      KERNWERK_FUZZ_REQUIRE(found[i] >= inside && found[i] <= possibly);
    }
    return;
  }

  kw_dbscan_options dbscan = options_of(kw_dbscan_options_default, metric, degrees, sphere_radius);
  dbscan.border = int(in.byte() % 3);  // 2: no such rule
  const std::int64_t min_samples = std::int64_t(in.byte() % 6) - 1;
  std::int64_t clusters = -7;
  const kw_status status = kw_dbscan(type, where, dimension, obs_pointer, n, radius, min_samples,
                                     static_cast<std::int64_t*>(out_pointer), &clusters,
                                     with_options ? &dbscan : nullptr);
  if (refused(status, "kw_dbscan")) {
    KERNWERK_FUZZ_REQUIRE(clusters == -7);
    return;
  }
  KERNWERK_FUZZ_REQUIRE(sane && metric_known && enums_known && radius >= 0 && min_samples >= 1);
  KERNWERK_FUZZ_REQUIRE(!overlapping({{out_pointer, rows_n * 8}}, {obs_span}));
  KERNWERK_FUZZ_REQUIRE(clusters >= 0 && clusters <= n);
  for (std::size_t i = 0; i < rows_n; ++i) {
    const std::int64_t label = static_cast<const std::int64_t*>(out_pointer)[i];
    KERNWERK_FUZZ_REQUIRE(label >= -1 && label < clusters);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool started = kw_initialize() == KW_SUCCESS;
  KERNWERK_FUZZ_REQUIRE(started);
  reader in{data, size};
  const unsigned type = in.byte();
  if (type == 255)
    call<double>(in, kw_type(7));  // no such type: refused
  else if (type == 254)
    call<double>(in, kw_type(-1));
  else if (type & 1)
    call<float>(in, KW_FLOAT32);
  else
    call<double>(in, KW_FLOAT64);
  return 0;
}

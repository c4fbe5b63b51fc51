// Every input check of kernwerk::nearest: the right exception, naming the right argument,
// thrown before any output is written.
#include <cmath>
#include <limits>

#include "bad_inputs.hpp"
#include "execution_spaces.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

// A call set up on Space's memory space; each case spoils one thing and expects an error.
template <class Space>
struct bad_call {
  using memory_space = typename Space::memory_space;
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> observations{"obs", 4, 2};
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> references{"ref", 3, 2};
  Kokkos::View<std::int64_t*, memory_space> indices{"indices", 4};
  Kokkos::View<double*, memory_space> distances{"distances", 4};
  nearest_options options;

  bad_call() {
    auto obs = Kokkos::create_mirror_view(observations);
    auto ref = Kokkos::create_mirror_view(references);
    for (int i = 0; i < 4; ++i) obs(i, 0) = 0.1 * i, obs(i, 1) = -0.2 * i;
    for (int j = 0; j < 3; ++j) ref(j, 0) = 0.3 * j, ref(j, 1) = 0.1 * j;
    Kokkos::deep_copy(observations, obs);
    Kokkos::deep_copy(references, ref);
    Kokkos::deep_copy(indices, -5);
    Kokkos::deep_copy(distances, -5.0);
  }

  void set(Kokkos::View<double**, Kokkos::LayoutRight, memory_space> points, int i, int d,
           double value) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), points);
    host(i, d) = value;
    Kokkos::deep_copy(points, host);
  }

  // Outputs still hold what the call found in them.
  void require_untouched() const {
    auto i = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
    auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), distances);
    for (std::size_t k = 0; k < i.extent(0); ++k) CHECK(i(k) == -5);
    for (std::size_t k = 0; k < d.extent(0); ++k) CHECK(d(k) == -5.0);
  }

  template <class Obs, class Ref, class Idx, class Dist>
  void expect_invalid(const std::string& argument, const Obs& obs, const Ref& ref, const Idx& idx,
                      const Dist& dist) const {
    CAPTURE(argument);
    bool thrown = false;
    try {
      kernwerk::nearest(Space(), obs, ref, idx, dist, options);
    } catch (const invalid_argument& failure) {
      thrown = true;
      CHECK(failure.argument() == argument);
      CHECK(std::string(failure.what()).find(argument) != std::string::npos);
      CHECK(std::string(failure.what()).find("kernwerk::nearest") != std::string::npos);
    }
    CHECK(thrown);
    require_untouched();
  }

  void expect_invalid(const std::string& argument) const {
    expect_invalid(argument, observations, references, indices, distances);
  }
};

TEST_CASE_TEMPLATE_DEFINE("nearest rejects bad input, naming the argument", Space, bad_input) {
  using call = bad_call<Space>;
  using memory_space = typename call::memory_space;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();

  SUBCASE("coordinate counts") {
    call c;
    Kokkos::View<double**, memory_space> three("three", 4, 3);
    c.expect_invalid("observations", three, c.references, c.indices, c.distances);
    c.options.metric = metric_kind::euclidean;
    c.expect_invalid("references", c.observations, three, c.indices, c.distances);
    Kokkos::View<double**, memory_space> four("four", 4, 4);
    c.expect_invalid("observations", four, four, c.indices, c.distances);
  }
  SUBCASE("outputs too short") {
    call c;
    Kokkos::View<std::int64_t*, memory_space> short_indices("short", 3);
    Kokkos::View<double*, memory_space> short_distances("short", 3);
    c.expect_invalid("indices", c.observations, c.references, short_indices, c.distances);
    c.expect_invalid("distances", c.observations, c.references, c.indices, short_distances);
  }
  SUBCASE("an index type too small for the reference count") {
    call c;
    Kokkos::View<double**, memory_space> many("many", 200, 2);
    Kokkos::View<std::int8_t*, memory_space> small_indices("small", 4);
    c.expect_invalid("indices", c.observations, many, small_indices, c.distances);
  }
  SUBCASE("latitudes out of range, in degrees") {
    call d;
    d.options.units = angle_unit::degrees;
    d.set(d.references, 0, 0, -90.5);
    d.expect_invalid("references");
    call e;  // in degrees, 45 and 90 are fine but 91 is not
    e.options.units = angle_unit::degrees;
    e.set(e.observations, 0, 0, 91);
    e.expect_invalid("observations");
  }
  SUBCASE("bad points in host Views (on a GPU: found on the copies)") {
    using host = Kokkos::HostSpace;
    Kokkos::View<double**, Kokkos::LayoutRight, host> obs("obs", 4, 2);
    Kokkos::View<double**, Kokkos::LayoutLeft, host> ref("ref", 3, 2);  // staged on a GPU
    Kokkos::View<std::int64_t*, host> indices("indices", 4);
    Kokkos::View<double*, host> distances("distances", 4);
    for (int i = 0; i < 4; ++i) obs(i, 0) = 0.1 * i, obs(i, 1) = -0.2 * i;
    for (int j = 0; j < 3; ++j) ref(j, 0) = 0.3 * j, ref(j, 1) = 0.1 * j;
    Kokkos::deep_copy(indices, -5);
    Kokkos::deep_copy(distances, -5.0);
    const auto expect = [&](const char* argument, const char* point) {
      CAPTURE(argument);
      std::string message;
      try {
        kernwerk::nearest(Space(), obs, ref, indices, distances);
      } catch (const invalid_argument& failure) {
        CHECK(failure.argument() == argument);
        message = failure.what();
      }
      CHECK(message.find(point) != std::string::npos);
      for (int i = 0; i < 4; ++i) CHECK((indices(i) == -5 && distances(i) == -5.0));
    };
    obs(2, 1) = nan;
    expect("observations", "point 2 (");
    obs(2, 1) = 0.5;
    ref(1, 0) = 1.6;
    ref(2, 1) = inf;
    expect("references", "point 1 (1.6");
  }
  SUBCASE("the message names the rule the point breaks") {
    using host = Kokkos::HostSpace;
    Kokkos::View<double**, Kokkos::LayoutRight, host> obs("obs", 3, 2), ref("ref", 3, 2);
    Kokkos::View<std::int64_t*, host> indices("indices", 3);
    Kokkos::View<double*, host> distances("distances", 3);
    const auto message = [&](double latitude, double longitude, angle_unit units) {
      for (int i = 0; i < 3; ++i) obs(i, 0) = ref(i, 0) = 0.1 * i, obs(i, 1) = ref(i, 1) = 0.2;
      obs(1, 0) = latitude;
      obs(1, 1) = longitude;
      kernwerk::nearest_options options;
      options.units = units;
      std::string text;
      try {
        kernwerk::nearest(Space(), obs, ref, indices, distances, options);
      } catch (const invalid_argument& failure) {
        CHECK(failure.argument() == "observations");
        text = failure.what();
      }
      return text;
    };
    const std::string hint = "degrees given as radians?";
    const auto degrees = message(95, 10, angle_unit::degrees);
    CHECK(degrees.find("point 1 (95, 10) has a latitude outside [-90, 90] degrees") != std::string::npos);
    const auto radians = message(45, 0.5, angle_unit::radians);
    CHECK(radians.find("has a latitude outside [-pi/2, pi/2] radians") != std::string::npos);
    CHECK(radians.find(hint) != std::string::npos);
    CHECK(message(-1.6, 0.5, angle_unit::radians).find(hint) != std::string::npos);
    const auto far = message(100, 0.5, angle_unit::radians);  // not a latitude in degrees either
    CHECK(far.find("latitude outside") != std::string::npos);
    CHECK(far.find(hint) == std::string::npos);
    CHECK(message(10, 1000, angle_unit::degrees).find("has a longitude outside [-720, 720] degrees") !=
          std::string::npos);
    CHECK(message(0.1, -13, angle_unit::radians).find("has a longitude outside [-4 pi, 4 pi] radians") !=
          std::string::npos);
    const auto not_finite = message(std::nan(""), 0.5, angle_unit::degrees);
    CHECK(not_finite.find("has a non-finite coordinate") != std::string::npos);
    CHECK(not_finite.find("latitude") == std::string::npos);
  }
  SUBCASE("a bad point in the last chunk of a large host set") {
    // On a GPU such a set is pipelined: every chunk is computed before the checks are read,
    // and still no output may be written.
    using host = Kokkos::HostSpace;
    const std::size_t n = impl::pipeline_min_rows + 100;
    Kokkos::View<double**, Kokkos::LayoutRight, host> obs("obs", n, 2), ref("ref", 50, 2);
    for (std::size_t i = 0; i < n; ++i) obs(i, 0) = 1e-6 * double(i), obs(i, 1) = 0.5;
    for (std::size_t j = 0; j < 50; ++j) ref(j, 0) = 0.02 * double(j), ref(j, 1) = -0.1;
    obs(n - 3, 0) = -1.6;
    Kokkos::View<std::int64_t*, host> indices("indices", n);
    Kokkos::View<double*, host> distances("distances", n);
    Kokkos::deep_copy(indices, -5);
    Kokkos::deep_copy(distances, -5.0);
    std::string message;
    try {
      kernwerk::nearest(Space(), obs, ref, indices, distances);
    } catch (const invalid_argument& failure) {
      CHECK(failure.argument() == "observations");
      message = failure.what();
    }
    CHECK(message.find("point " + std::to_string(n - 3) + " (-1.6") != std::string::npos);
    std::size_t written = 0;
    for (std::size_t i = 0; i < n; ++i) written += indices(i) != -5 || distances(i) != -5.0;
    CHECK(written == 0);
  }
  SUBCASE("options") {
    call c;
    c.options.radius = 0;
    c.expect_invalid("options.radius");
    c.options.radius = nan;
    c.expect_invalid("options.radius");
    call d;
    d.options.metric = metric_kind::euclidean;
    d.options.units = angle_unit::degrees;
    d.expect_invalid("options.units");
  }
  SUBCASE("more than 2^31 - 1 references, refused before a point is read") {
    call c;
    const Kokkos::View<const double**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryUnmanaged>
        past_int32(c.references.data(), std::size_t(1) << 31, 2);
    c.expect_invalid("references", c.observations, past_int32, c.indices, c.distances);
  }
  SUBCASE("a memory budget too small for any chunk") {
    call c;
    c.options.memory_budget = 16;
    c.expect_invalid("options.memory_budget");
  }
  SUBCASE("outputs sharing memory with each other") {
    call c;
    Kokkos::View<double*, memory_space> shared("shared", 8);
    Kokkos::View<std::int64_t*, memory_space, Kokkos::MemoryUnmanaged> indices_in_shared(
        reinterpret_cast<std::int64_t*>(shared.data()), 4);
    Kokkos::View<double*, memory_space, Kokkos::MemoryUnmanaged> distances_in_shared(
        shared.data() + 2, 4);
    c.expect_invalid("indices", c.observations, c.references, indices_in_shared,
                     distances_in_shared);
  }
}
TEST_CASE_TEMPLATE_APPLY(bad_input, enabled_spaces);

// The catalogue of bad_inputs.txt: a good call (4 observations, 3 references, k = 2) spoilt one
// way per case.
TEST_CASE_TEMPLATE_DEFINE("nearest: the bad-input catalogue", Space, catalogue) {
  using memory_space = typename Space::memory_space;
  using points = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  using index_matrix = Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space>;
  using distance_matrix = Kokkos::View<double**, Kokkos::LayoutRight, memory_space>;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& bad : bad_input_catalogue()) {
    const std::string& argument = bad.named_by(interface::cxx);
    if (argument == "-") continue;
    CAPTURE(bad.name);
    bad_call<Space> c;  // its points; outputs of k = 2 columns here
    index_matrix indices("indices", 4, 2);
    distance_matrix distances("distances", 4, 2);
    Kokkos::deep_copy(indices, -5);
    Kokkos::deep_copy(distances, -5.0);
    const auto expect = [&](const auto& obs, const auto& ref, const auto& idx, const auto& dist) {
      bool thrown = false;
      try {
        kernwerk::nearest(Space(), obs, ref, idx, dist, c.options);
      } catch (const invalid_argument& failure) {
        thrown = true;
        INFO(failure.what());
        CHECK(failure.argument() == argument);
        CHECK(std::string(failure.what()).find("kernwerk::nearest: " + argument + ": ") == 0);
      }
      CHECK(thrown);
      auto i = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), indices);
      auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), distances);
      for (std::size_t q = 0; q < 8; ++q) CHECK((i.data()[q] == -5 && d.data()[q] == -5.0));
    };
    const auto spoilt = [&](const points& p, int i, int d, double value) {
      c.set(p, i, d, value);
      expect(c.observations, c.references, indices, distances);
    };
    const std::string& name = bad.name;
    if (name == "nan_observation") spoilt(c.observations, 2, 1, nan);
    else if (name == "infinite_reference") spoilt(c.references, 1, 0, -inf);
    else if (name == "latitude_past_north_pole") spoilt(c.observations, 3, 0, 1.5708);
    else if (name == "latitude_past_south_pole") spoilt(c.references, 0, 0, -1.5708);
    else if (name == "longitude_beyond_limits") spoilt(c.observations, 0, 1, 1e300);
    else if (name == "empty_observations")
      expect(points("none", 0, 2), c.references, index_matrix("i", 0, 2), distance_matrix("d", 0, 2));
    else if (name == "empty_references")
      expect(c.observations, points("none", 0, 2), indices, distances);
    else if (name == "k_zero")
      expect(c.observations, c.references, index_matrix("i", 4, 0), distance_matrix("d", 4, 0));
    else if (name == "k_above_references")
      expect(c.observations, c.references, index_matrix("i", 4, 4), distance_matrix("d", 4, 4));
    else if (name == "reference_dimension")
      expect(c.observations, points("three", 3, 3), indices, distances);
    else if (name == "indices_too_short")
      expect(c.observations, c.references, index_matrix("i", 3, 2), distances);
    else if (name == "distances_other_columns")
      expect(c.observations, c.references, indices, distance_matrix("d", 4, 3));
    else if (name == "distances_alias_observations")
      expect(c.observations, c.references, indices,
             Kokkos::View<double**, Kokkos::LayoutRight, memory_space, unmanaged>(
                 c.observations.data(), 4, 2));
    else if (name == "indices_alias_references")
      expect(c.observations, c.references,
             Kokkos::View<std::int64_t**, Kokkos::LayoutRight, memory_space, unmanaged>(
                 reinterpret_cast<std::int64_t*>(c.references.data()), 4, 2),
             distances);
    else if (name == "null_observations")
      expect(Kokkos::View<const double**, Kokkos::LayoutRight, memory_space, unmanaged>(nullptr, 4, 2),
             c.references, indices, distances);
    else if (name == "null_distances")
      expect(c.observations, c.references, indices,
             Kokkos::View<double**, Kokkos::LayoutRight, memory_space, unmanaged>(nullptr, 4, 2));
    else if (name == "negative_radius") {
      c.options.radius = -1;
      expect(c.observations, c.references, indices, distances);
    } else
      FAIL("bad_inputs.txt names a case this driver does not know: " << name);
  }
}
TEST_CASE_TEMPLATE_APPLY(catalogue, enabled_spaces);

TEST_CASE_TEMPLATE_DEFINE("nearest: tuned where the build has none is an error", Space,
                          tuned_missing) {
  for (auto metric : {metric_kind::haversine, metric_kind::euclidean}) {
    if (impl::nearest_tuned<Space>::available && impl::nearest_tuned<Space>::covers(metric, 1))
      continue;
    CAPTURE(to_string(metric));
    bad_call<Space> c;
    c.options.metric = metric;
    c.options.implementation = implementation_kind::tuned;
    bool thrown = false;
    try {
      kernwerk::nearest(Space(), c.observations, c.references, c.indices, c.distances, c.options);
    } catch (const unsupported& failure) {
      thrown = true;
      CHECK(std::string(failure.what()).find("options.implementation") != std::string::npos);
      CHECK(std::string(failure.what()).find(Space::name()) != std::string::npos);
    }
    CHECK(thrown);
    c.require_untouched();
  }
}
TEST_CASE_TEMPLATE_APPLY(tuned_missing, enabled_spaces);

// An output right after the last element of a strided input, in the same allocation, does not
// overlap it (Kokkos' span() of the input reaches past its last element and once said so);
// one over an element of the input does.
TEST_CASE("nearest: outputs beside a strided input are not taken for overlapping it") {
  using host = Kokkos::DefaultHostExecutionSpace;
  using strided = Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  using vector = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::View<double*, Kokkos::HostSpace> block("block", 24);
  for (std::size_t i = 0; i < block.extent(0); ++i) block(i) = 0.01 * double(i);
  // columns 3 and 4 of the two rows of a 2 x 10 row-major array: elements 3, 4, 13, 14
  const strided observations(block.data() + 3, Kokkos::LayoutStride(2, 10, 2, 1));
  Kokkos::View<double**, Kokkos::HostSpace> references("references", 3, 2);
  Kokkos::deep_copy(references, 0.5);
  references(1, 0) = 0.1;
  Kokkos::View<std::int64_t*, Kokkos::HostSpace> indices("indices", 2);
  const vector beside(block.data() + 15, 2);  // elements 15, 16: after the input's last
  CHECK_NOTHROW(kernwerk::nearest(host(), observations, references, indices, beside));
  CHECK(indices(0) == 1);
  const vector over(block.data() + 13, 2);  // element 13 is the second observation's latitude
  CHECK_THROWS_WITH(kernwerk::nearest(host(), observations, references, indices, over),
                    doctest::Contains("distances: shares memory with observations"));
}

TEST_CASE("option names parse and reject unknown words") {
  CHECK(parse_metric("haversine", "--metric") == metric_kind::haversine);
  CHECK(parse_metric("euclidean", "--metric") == metric_kind::euclidean);
  CHECK(parse_implementation("auto", "x") == implementation_kind::automatic);
  CHECK(parse_implementation("generic", "x") == implementation_kind::generic);
  CHECK(parse_implementation("tuned", "x") == implementation_kind::tuned);
  CHECK_THROWS_AS(parse_metric("manhattan", "--metric"), invalid_argument);
  CHECK_THROWS_WITH(parse_implementation("fast", "--implementation"),
                    doctest::Contains("--implementation"));
}

}  // namespace

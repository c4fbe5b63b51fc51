// kernwerk::nearest on the layouts users bring (perf/layouts.hpp: clustered, banded and
// track-shaped sets, duplicates, a pole), every method, k from 1 to 32, against the float64
// brute force.
#include "execution_spaces.hpp"
#include "layouts.hpp"
#include "nearest_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test;

host_points as_points(const std::vector<double>& values) {
  host_points points;
  points.values = values;
  return points;
}

TEST_CASE_TEMPLATE_DEFINE("nearest: every layout, every method, k up to 32", Space, layouts_all) {
  for (const auto& name : layouts::names()) {
    CAPTURE(name);
    const auto sets = layouts::make(name, 240, 1100, 77);
    const auto observations = as_points(sets.observations);
    auto references = as_points(sets.references);
    if (name == "polar") references.add(M_PI / 2, 0.0);  // the pole itself
    for (const std::size_t k : {1u, 2u, 8u, 32u}) {
      CAPTURE(k);
      auto all = variants<Space>(metric_kind::haversine, int(k));
      all.push_back({"auto", nearest_options{}});
      for (const auto& v : all) {
        CAPTURE(v.name);
        check_all(observations, references, run_nearest<Space>(observations, references, v.options, k),
                  v.options);
      }
    }
  }
}
TEST_CASE_TEMPLATE_APPLY(layouts_all, enabled_spaces);

}  // namespace

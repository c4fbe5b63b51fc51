// kernwerk nearest under mpiexec: the same output file as one process, byte for byte, for every
// point file kind, every strategy, uneven and empty shares; failures on one rank's share fail
// the run once, with the single run's message, and leave no output.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "layouts.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test::cli;

// mpiexec with `ranks` processes, one OpenMP thread each (the CI machine has 2 cores).
std::string launcher(int ranks) {
  std::string flags = KERNWERK_TEST_MPIEXEC_FLAGS;  // comma-separated
  std::replace(flags.begin(), flags.end(), ',', ' ');
  return std::string("OMP_NUM_THREADS=1 OMP_PROC_BIND=false ") + KERNWERK_TEST_MPIEXEC + " -n " +
         std::to_string(ranks) + " " + flags;
}


// Writes the set as the named kind of point file: "csv" (with a header), "f64", "f32" or "npy"
// (float64, column-major: each rank reads its share of every column).
std::string write_points(const scratch& s, const std::string& name, const test::host_points& points,
                         const std::string& kind) {
  if (kind == "f64") return s.write_binary<double>(name + ".f64", points.values);
  if (kind == "f32") return s.write_binary<float>(name + ".f32", points.values);
  if (kind == "npy")
    return s.write(name + ".npy",
                   npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (" + std::to_string(points.count()) + ", 2), }",
                             array_bytes<double>(points.values, 2, true)));
  return s.write(name + ".csv", as_csv(points, "lat,lon"));
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST_CASE("cli under mpiexec: the single run's output, byte for byte") {
  const std::vector<std::string> kinds = {"f64", "csv", "f32", "npy"};  // npy: .npy out too
  const std::vector<std::string> strategies = {"auto", "ring", "replicate", "partitioned"};
  // Ties (duplicates), the poles and the date line (polar), clustered and banded references.
  const std::vector<std::string> layout_names = {"uniform", "duplicates", "polar", "cap-1e-5", "tracks"};
  for (std::size_t l = 0; l < layout_names.size(); ++l) {
    const auto pair = layouts::make(layout_names[l], 601, 203, 40 + l);
    for (std::size_t v = 0; v < 2; ++v) {
      scratch s;
      const std::string kind = kinds[(l + v) % kinds.size()];
      const std::size_t k = (l + v) % 2 ? 8 : 1;
      auto observations = test::as_points(pair.observations), references = test::as_points(pair.references);
      if (kind == "f32") observations = test::rounded<float>(observations), references = test::rounded<float>(references);
      const std::string common = "nearest --k " + std::to_string(k) + " --obs " +
                                 write_points(s, "obs", observations, kind) + " --ref " +
                                 write_points(s, "ref", references, kind) + " --out ";
      const std::string extension = kind == "npy" ? ".npy" : ".csv";
      const auto single = s.run(common + s.path("single" + extension));
      CAPTURE(layout_names[l]);
      CAPTURE(kind);
      CAPTURE(k);
      INFO(single.err);
      REQUIRE(single.status == 0);
      const std::string expected = slurp(s.path("single" + extension));
      test::check_all(observations, references,
                      kind == "npy" ? parse_npy_output(expected, observations.count(), k)
                                    : read_output(s.path("single.csv"), k),
                      nearest_options{});
      for (int ranks = 1; ranks <= 4; ++ranks) {
        const std::string strategy = strategies[(l + v + std::size_t(ranks)) % strategies.size()];
        CAPTURE(ranks);
        CAPTURE(strategy);
        const auto run = s.run(common + s.path("ranks" + extension) + " --strategy " + strategy, launcher(ranks));
        INFO(run.err);
        REQUIRE(run.status == 0);
        CHECK(occurrences(run.err, "kernwerk nearest: 601 x 203 points") == 1);  // rank 0 alone
        CHECK(run.err.find(std::to_string(ranks) + (ranks == 1 ? " rank (" : " ranks (")) != std::string::npos);
        if (strategy != "auto") CHECK(run.err.find(strategy + " strategy") != std::string::npos);
        CHECK(slurp(s.path("ranks" + extension)) == expected);
      }
    }
  }
}

TEST_CASE("cli under mpiexec: empty shares, one reference, more ranks than points") {
  scratch s;
  const auto observations = test::uniform_sphere(3, 61);
  for (std::size_t m : {1, 2, 5}) {
    const auto references = test::uniform_sphere(m, 62 + m);
    const std::string common = "nearest --k " + std::string(m == 1 ? "1" : "2") + " --obs " + write_points(s, "obs", observations, "f64") +
                               " --ref " + write_points(s, "ref", references, m == 2 ? "csv" : "f64") +
                               " --out ";
    CAPTURE(m);
    const auto single = s.run(common + s.path("single.csv"));
    INFO(single.err);
    REQUIRE(single.status == 0);
    for (const std::string strategy : {"ring", "replicate", "partitioned"}) {
      CAPTURE(strategy);
      const auto run = s.run(common + s.path("ranks.csv") + " --strategy " + strategy, launcher(4));
      INFO(run.err);
      REQUIRE(run.status == 0);
      CHECK(slurp(s.path("ranks.csv")) == slurp(s.path("single.csv")));
    }
  }
}

TEST_CASE("cli under mpiexec: a failure on one rank fails the run once, and writes nothing") {
  scratch s;
  auto observations = test::uniform_sphere(40, 71);
  const auto references = test::uniform_sphere(30, 72);
  const std::string ref = write_points(s, "ref", references, "f64");
  const std::string out = s.path("out.csv");
  // A non-finite coordinate in the last rank's share of a binary file; a bad line of a CSV file
  // (read by rank 0); a missing file; an output that is a folder, or a full device.
  observations.values[2 * 39 + 1] = std::nan("");
  struct bad_case {
    std::string arguments, expected;
    int status = 1;  // 2 for a wrong command line
  };
  const std::vector<bad_case> cases = {
      {"--obs " + write_points(s, "bad", observations, "f64") + " --ref " + ref + " --out " + out,
       "bad.f64: point 39 has a non-finite coordinate"},
      {"--obs " + s.write("bad.csv", "lat,lon\n0.1,0.2\n0.3,abc\n") + " --ref " + ref + " --out " + out,
       "bad.csv:3: 'abc' is not a number"},
      {"--obs " + s.path("nowhere.f64") + " --ref " + ref + " --out " + out, "nowhere.f64: cannot open"},
      {"--obs " + ref + " --ref " + ref + " --out " + s.dir, "is a folder"},
      {"--obs " + ref + " --ref " + ref + " --out /dev/full", "/dev/full: write error"},
      {"--obs " + ref + " --ref " + ref + " --out " + out + " --strategy fast", "--strategy: 'fast'", 2},
      {"--obs " + ref + " --ref " + ref + " --out " + out + " --strategy partitioned --method brute",
       "--method: the partitioned strategy searches an index", 2},
  };
  for (const auto& bad : cases) {
    CAPTURE(bad.arguments);
    const auto single = s.run("nearest " + bad.arguments);
    CHECK(single.status == bad.status);
    CHECK(single.err.find(bad.expected) != std::string::npos);
    const auto run = s.run("nearest " + bad.arguments, launcher(3));
    INFO(run.err);
    CHECK(run.status == bad.status);
    CHECK(occurrences(run.err, bad.expected) == 1);
    CHECK_FALSE(exists(out));
  }
  // A latitude out of range on the last rank: checked as its share is read (the file and the
  // point named), agreed on by every rank.
  observations.values[2 * 39 + 1] = 0.5;
  observations.values[2 * 39] = 2.0;
  const auto run = s.run("nearest --obs " + write_points(s, "lat", observations, "f64") + " --ref " + ref +
                             " --out " + out,
                         launcher(3));
  INFO(run.err);
  CHECK(run.status == 1);
  CHECK(occurrences(run.err, "lat.f64: point 39 (2, 0.5) has a latitude outside [-pi/2, pi/2] radians") == 1);
  CHECK_FALSE(exists(out));
  // The other commands run on one process.
  const auto info = s.run("info", launcher(2));
  CHECK(info.status == 1);
  CHECK(occurrences(info.err, "runs on one process") == 1);
}

}  // namespace

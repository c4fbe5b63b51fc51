// The kernwerk command-line tool, run as a user runs it: good files, bad files, no partial output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernwerk/reference.hpp"
#include "bad_inputs.hpp"
#include "cli_support.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test::cli;

TEST_CASE("cli: nearest on CSV files, with and without a header") {
  scratch s;
  const auto observations = test::uniform_sphere(400, 21);
  const auto references = test::uniform_sphere(120, 22);
  const auto obs = s.write("obs.csv", as_csv(observations, "lat,lon"));
  const auto ref = s.write("ref.csv", as_csv(references, ""));
  const auto result = s.run("nearest --obs " + obs + " --ref " + ref + " --out " + s.path("out.csv"));
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK(result.err.find("pairs/s") != std::string::npos);
  const auto answer = read_output(s.path("out.csv"));
  REQUIRE(answer.indices.size() == observations.count());
  test::check_all(observations, references, answer, nearest_options{});
}

TEST_CASE("cli: degrees, a radius and binary files") {
  scratch s;
  const auto observations = test::uniform_sphere(300, 23, true);
  const auto references = test::uniform_sphere(90, 24, true);
  nearest_options options;
  options.units = angle_unit::degrees;
  options.radius = 6371;
  const auto obs = s.write_binary<double>("obs.f64", observations.values);
  const auto ref = s.write_binary<float>("ref.f32", references.values);
  const auto result = s.run("nearest --degrees --radius 6371 --obs " + obs + " --ref " + ref +
                            " --out " + s.path("out.csv"));
  INFO(result.err);
  REQUIRE(result.status == 0);
  test::check_all(observations, test::rounded<float>(references), read_output(s.path("out.csv")),
                  options);
}

TEST_CASE("cli: euclidean in 3-D") {
  scratch s;
  const auto observations = test::uniform_box(200, 3, 25);
  const auto references = test::uniform_box(70, 3, 26);
  nearest_options options;
  options.metric = metric_kind::euclidean;
  const auto obs = s.write_binary<double>("obs.f64", observations.values);
  std::ostringstream csv;
  csv.precision(17);
  for (std::size_t j = 0; j < references.count(); ++j)
    csv << references.values[3 * j] << ", " << references.values[3 * j + 1] << " ,"
        << references.values[3 * j + 2] << "\r\n";
  const auto ref = s.write("ref.csv", csv.str());
  const auto result = s.run("nearest --metric euclidean --dim 3 --obs " + obs + " --ref " + ref +
                            " --out " + s.path("out.csv"));
  INFO(result.err);
  REQUIRE(result.status == 0);
  test::check_all(observations, references, read_output(s.path("out.csv")), options);
}

TEST_CASE("cli: NumPy .npy files in and out, standard input and output") {
  scratch s;
  const auto observations = test::uniform_sphere(257, 41);
  const auto references = test::uniform_sphere(75, 42);
  // float64 row-major observations; float32 column-major references, a version 2 header.
  const auto obs = s.write("obs.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (257, 2), }",
                                                array_bytes<double>(observations.values, 2, false)));
  const auto ref = s.write("ref.npy", npy_bytes("{\"descr\": \"<f4\", \"fortran_order\": True, \"shape\": (75, 2)}",
                                                array_bytes<float>(references.values, 2, true), 2));
  const auto rounded = test::rounded<float>(references);
  for (const std::size_t k : {std::size_t(1), std::size_t(4)}) {
    CAPTURE(k);
    nearest_options options;
    const auto result = s.run("nearest --k " + std::to_string(k) + " --obs " + obs + " --ref " + ref +
                              " --out " + s.path("out.npy"));
    INFO(result.err);
    REQUIRE(result.status == 0);
    test::check_all(observations, rounded, parse_npy_output(slurp(s.path("out.npy")), 257, k), options);
  }
  // The observations from standard input, as .npy bytes and as CSV; .npy to standard output.
  const auto piped = s.run("nearest --obs - --ref " + ref + " --out - --out-format npy < " + obs);
  INFO(piped.err);
  REQUIRE(piped.status == 0);
  test::check_all(observations, rounded, parse_npy_output(piped.out, 257, 1), nearest_options{});
  const auto csv = s.write("obs.csv", as_csv(observations, "lat,lon"));
  const auto text = s.run("nearest --ref " + ref + " --obs - --out " + s.path("out.csv") + " < " + csv);
  INFO(text.err);
  REQUIRE(text.status == 0);
  test::check_all(observations, rounded, read_output(s.path("out.csv")), nearest_options{});
}

TEST_CASE("cli: bad .npy files name the file and the problem") {
  scratch s;
  const auto good = s.write("good.csv", "0.1,0.2\n0.3,0.4\n");
  const std::string values = array_bytes<double>({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, 2, false);
  struct bad_case {
    std::string file, expected;
  };
  const std::vector<bad_case> cases = {
      {s.write("three.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", values)),
       "three.npy: a .npy array of shape (2, 3); points are (n, 2)"},
      {s.write("flat.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", values)),
       "flat.npy: a .npy array of shape (6)"},
      {s.write("int.npy", npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (3, 2), }", values)),
       "int.npy: a .npy array of i8 values; points are float32 or float64"},
      {s.write("big.npy", npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (3, 2), }", values)),
       "big.npy: big-endian .npy data"},
      {s.write("short.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 2), }", values)),
       "short.npy: cut short: 48 bytes of values"},
      {s.write("record.npy", npy_bytes("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (6,), }", values)),
       "record.npy: a structured .npy array"},
      {s.write("magic.npy", "lat,lon\n0.1,0.2\n"), "magic.npy: not a .npy file"},
      {s.write("nan.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }",
                                    array_bytes<double>({0.1, 0.2, std::nan(""), 0.4, 0.5, 0.6}, 2, false))),
       "nan.npy: point 1 has a non-finite coordinate"},
  };
  for (const auto& bad : cases) {
    CAPTURE(bad.file);
    const auto result = s.run("nearest --obs " + bad.file + " --ref " + good + " --out " + s.path("out.npy"));
    CHECK(result.status == 1);
    INFO(result.err);
    CHECK(result.err.find(bad.expected) != std::string::npos);
    CHECK_FALSE(exists(s.path("out.npy")));
  }
  const auto both = s.run("nearest --obs - --ref - --out " + s.path("out.csv") + " < " + good);
  CHECK(both.status == 2);
  CHECK(both.err.find("only one of them can be standard input") != std::string::npos);
  const auto format = s.run("nearest --obs " + good + " --ref " + good + " --out-format xml --out " + s.path("out.csv"));
  CHECK(format.status == 2);
  CHECK(format.err.find("--out-format: 'xml' is not csv or npy") != std::string::npos);
  const auto empty = s.run("nearest --obs - --ref " + good + " --out " + s.path("out.csv") + " < /dev/null");
  CHECK(empty.status == 1);
  CHECK(empty.err.find("standard input: no points") != std::string::npos);
  CHECK_FALSE(exists(s.path("out.csv")));
}

TEST_CASE("cli: k nearest, methods, implementations and backends") {
  scratch s;
  const auto observations = test::uniform_sphere(300, 27);
  const auto references = test::uniform_sphere(500, 28);
  const auto obs = s.write("obs.csv", as_csv(observations, ""));
  const auto ref = s.write("ref.csv", as_csv(references, ""));
  const std::string common = "nearest --obs " + obs + " --ref " + ref + " --out " + s.path("out.csv");
  std::string host_backend = Kokkos::DefaultHostExecutionSpace::name();  // Serial or OpenMP
  for (auto& c : host_backend) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string extra :
       {std::string("--k 3 --method indexed"), std::string("--k 5 --method brute --implementation generic"),
        std::string("--method brute --implementation auto"), "--k 2 --backend " + host_backend,
        std::string("--k 32"), std::string("--k 40 --method indexed"),
        std::string("--k 500 --method brute --implementation generic")}) {
    CAPTURE(extra);
    const auto result = s.run(common + " " + extra);
    INFO(result.err);
    REQUIRE(result.status == 0);
    CHECK(result.err.find("pairs/s") != std::string::npos);
    // The summary names the method that ran and why.
    const bool asked_indexed = extra.find("--method indexed") != std::string::npos;
    const bool asked_brute = extra.find("--method brute") != std::string::npos;
    if (asked_indexed) CHECK(result.err.find("indexed method (asked for)") != std::string::npos);
    if (asked_brute) CHECK(result.err.find("brute method (asked for)") != std::string::npos);
    if (!asked_indexed && !asked_brute)
      CHECK(result.err.find("method (the index predicted at") != std::string::npos);
    const std::size_t k = extra.find("--k") == std::string::npos
                              ? 1
                              : std::stoul(extra.substr(extra.find("--k") + 4));
    test::check_all(observations, references, read_output(s.path("out.csv"), k),
                    nearest_options{});
  }
  for (const std::string bad : {"--k 0", "--k 501", "--method fast", "--implementation best",
                                "--backend abacus"}) {
    CAPTURE(bad);
    const auto result = s.run(common + " " + bad);
    CHECK(result.status != 0);
    CHECK(result.err.find(bad.substr(0, bad.find(' '))) != std::string::npos);
  }
}

TEST_CASE("cli: bad files name the file and line, and leave no output") {
  scratch s;
  const auto good = s.write("good.csv", "lat,lon\n0.1,0.2\n0.3,0.4\n");
  const std::string out = s.path("out.csv");
  struct bad_case {
    const char* name;
    std::string file;
    const char* expected;
  };
  const double binary_rows[4] = {0.5, 0.25, -1.6, 0.0};
  const std::vector<bad_case> cases = {
      {"missing file", s.path("nowhere.csv"), "nowhere.csv: cannot open"},
      {"malformed number", s.write("bad1.csv", "lat,lon\n0.1,0.2\n0.3,abc\n"), "bad1.csv:3: 'abc' is not a number"},
      {"too many columns", s.write("bad2.csv", "0.1,0.2\n0.3,0.4,0.5\n"), "bad2.csv:2: expected 2 columns, found 3"},
      {"too few columns", s.write("bad3.csv", "0.1,0.2\n\n0.3\n"), "bad3.csv:3: expected 2 columns, found 1"},
      {"non-finite value", s.write("bad4.csv", "0.1,inf\n"), "bad4.csv:1: 'inf' is not a finite number"},
      {"empty file", s.write("empty.csv", "lat,lon\n"), "empty.csv: no points"},
      {"binary of a partial point", s.write("bad.f64", std::string(24, '\0')), "bad.f64: size 24 bytes"},
      {"latitude out of range", s.write("bad5.csv", "lat,lon\n0.1,0.2\n\n2.0,0.1\n"),
       "bad5.csv:4: point 1 (2, 0.10000000000000001) has a latitude outside [-pi/2, pi/2] radians"},
      {"degrees given as radians", s.write("bad6.csv", "45.5,10\n"),
       "bad6.csv:1: point 0 (45.5, 10) has a latitude outside [-pi/2, pi/2] radians (the values look "
       "like degrees: add --degrees)"},
      {"longitude beyond two turns", s.write("bad7.csv", "0.1,0.2\n0.1,13\n"),
       "bad7.csv:2: point 1 (0.10000000000000001, 13) has a longitude outside [-4 pi, 4 pi] radians"},
      {"latitude of a binary file", s.write("bad8.f64", std::string(reinterpret_cast<const char*>(binary_rows), 32)),
       "bad8.f64: point 1 (-1.6000000000000001, 0) has a latitude outside [-pi/2, pi/2] radians"},
  };
  for (const auto& bad : cases) {
    CAPTURE(bad.name);
    const auto result = s.run("nearest --obs " + bad.file + " --ref " + good + " --out " + out);
    CHECK(result.status != 0);
    CHECK(result.err.find(bad.expected) != std::string::npos);
    INFO(result.err);
    CHECK_FALSE(exists(out));
  }
  // An existing output file is left as it was when a run fails.
  s.write("out.csv", "previous\n");
  const auto failed = s.run("nearest --obs " + cases[1].file + " --ref " + good + " --out " + out);
  CHECK(failed.status != 0);
  CHECK(slurp(out) == "previous\n");
  // A directory that cannot be written to.
  const auto unwritable = s.run("nearest --obs " + good + " --ref " + good + " --out " +
                                s.path("no/such/dir/out.csv"));
  CHECK(unwritable.status != 0);
  CHECK(unwritable.err.find("no/such/dir/out.csv") != std::string::npos);
}

// The catalogue of bad_inputs.txt through `kernwerk nearest`: a good run (4 observations, 3
// references, --k 2) spoilt one way per case. The message names the option, or the file it
// gave; the output file keeps what it held.
TEST_CASE("cli: the bad-input catalogue") {
  scratch s;
  for (const auto& bad : test::bad_input_catalogue()) {
    const std::string& option = bad.named_by(test::interface::cli);
    if (option == "-") continue;
    CAPTURE(bad.name);
    std::vector<std::string> obs_rows{"0,0", "0.1,-0.2", "0.2,-0.4", "0.3,-0.6"};
    std::vector<std::string> ref_rows{"0,0", "0.3,0.1", "0.6,0.2"};
    std::string extra = " --k 2";
    const std::string& name = bad.name;
    if (name == "nan_observation") obs_rows[2] = "0.2,nan";
    else if (name == "infinite_reference") ref_rows[1] = "-inf,0.1";
    else if (name == "latitude_past_north_pole") obs_rows[3] = "1.5708,-0.6";
    else if (name == "latitude_past_south_pole") ref_rows[0] = "-1.5708,0";
    else if (name == "longitude_beyond_limits") obs_rows[0] = "0,1e300";
    else if (name == "empty_observations") obs_rows.clear();
    else if (name == "empty_references") ref_rows.clear();
    else if (name == "k_zero") extra = " --k 0";
    else if (name == "k_above_references") extra = " --k 4";
    else if (name == "reference_dimension") ref_rows = {"0,0,0", "0.3,0.1,0", "0.6,0.2,0"};
    else if (name == "bad_metric") extra += " --metric l1";
    else if (name == "negative_radius") extra += " --radius -1";
    else FAIL("bad_inputs.txt names a case this driver does not know: " << name);
    const auto csv = [](const std::vector<std::string>& rows) {
      std::string text = "lat,lon\n";
      for (const auto& row : rows) text += row + "\n";
      return text;
    };
    const auto obs = s.write("obs.csv", csv(obs_rows)), ref = s.write("ref.csv", csv(ref_rows));
    const auto out = s.write("out.csv", "previous\n");
    const auto result = s.run("nearest --obs " + obs + " --ref " + ref + " --out " + out + extra);
    INFO(result.err);
    CHECK(result.status != 0);
    const std::string file = option == "--obs" ? obs : option == "--ref" ? ref : "(none)";
    CHECK((result.err.find(option + ": ") != std::string::npos ||
           result.err.find(file + ":") != std::string::npos));
    CHECK(slurp(out) == "previous\n");
  }
}

// Outputs that are not regular files are written in place, never replaced by a renamed file,
// and a write the destination refuses is an error.
TEST_CASE("cli: outputs that are devices, FIFOs, standard output or folders") {
  scratch s;
  const auto points = s.write("points.csv", "0.1,0.2\n0.3,0.4\n-0.5,3.0\n");
  const std::string inputs = "nearest --obs " + points + " --ref " + points + " --out ";
  const auto is_character_device = [](const char* path) {
    struct stat info {};
    return ::lstat(path, &info) == 0 && S_ISCHR(info.st_mode);
  };
  const std::string expected = s.run(inputs + s.path("file.csv")).status == 0 ? slurp(s.path("file.csv")) : "";
  REQUIRE(expected.rfind("index,distance\n0,0\n", 0) == 0);

  const auto null = s.run(inputs + "/dev/null");
  CHECK(null.status == 0);
  CHECK(is_character_device("/dev/null"));

  const auto full = s.run(inputs + "/dev/full");
  CHECK(full.status != 0);
  CHECK(full.err.find("/dev/full: write error") != std::string::npos);
  CHECK(is_character_device("/dev/full"));

  for (const char* name : {"-", "/dev/stdout"}) {
    CAPTURE(name);
    const auto standard = s.run(inputs + name);
    CHECK(standard.status == 0);
    CHECK(standard.out.find(expected) != std::string::npos);
    CHECK(std::system(("ls '" + s.dir + "' | grep -q partial").c_str()) != 0);
  }

  const std::string fifo = s.path("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string drained = s.path("drained.csv");
  const std::string reader = "cat '" + fifo + "' > '" + drained + "' &";
  REQUIRE(std::system(reader.c_str()) == 0);
  CHECK(s.run(inputs + fifo).status == 0);
  std::system("wait");
  for (int tries = 0; tries < 100 && slurp(drained) != expected; ++tries) ::usleep(20000);
  CHECK(slurp(drained) == expected);
  struct stat info {};
  CHECK((::lstat(fifo.c_str(), &info) == 0 && S_ISFIFO(info.st_mode)));

  const auto folder = s.run(inputs + s.dir);
  CHECK(folder.status != 0);
  CHECK(folder.err.find(s.dir + ": is a folder") != std::string::npos);

  // Through a link to a regular file the file is replaced and the link kept.
  REQUIRE(::symlink(s.path("file.csv").c_str(), s.path("link.csv").c_str()) == 0);
  s.write("file.csv", "previous\n");
  CHECK(s.run(inputs + s.path("link.csv")).status == 0);
  CHECK(::lstat(s.path("link.csv").c_str(), &info) == 0);
  CHECK(S_ISLNK(info.st_mode));
  CHECK(slurp(s.path("file.csv")) == expected);
}

TEST_CASE("cli: bad options") {
  scratch s;
  const auto good = s.write("good.csv", "0.1,0.2\n");
  CHECK(s.run("nearest --obs " + good + " --ref " + good).err.find("--out: required") != std::string::npos);
  CHECK(s.run("nearest --obs " + good + " --ref " + good + " --out x --metric l1").err.find("--metric") != std::string::npos);
  CHECK(s.run("nearest --obs " + good + " --ref " + good + " --out x --radius -1").err.find("--radius: must be positive") != std::string::npos);
  CHECK(s.run("nearest --frobnicate").err.find("--frobnicate: unknown option") != std::string::npos);
  CHECK(s.run("teleport").status == 2);
}

// Exit status 2 for a wrong command line, 1 for a run that failed; help and the version
// before anything else, our own help, exit 0; no Kokkos warning about thread binding.
TEST_CASE("cli: help, version and exit codes") {
  scratch s;
  const auto good = s.write("good.csv", "0.1,0.2\n0.3,0.4\n");
  for (const std::string wrong : std::vector<std::string>{"nearest --obs " + good + " --ref " + good, "nearest --frobnicate",
                                  "nearest --obs " + good + " --ref " + good + " --out x --k 0",
                                  "nearest --obs " + good + " --ref " + good + " --out x --metric l1",
                                  "nearest --obs " + good + " --ref " + good + " --out x --radius abc",
                                  "nearest --obs " + good + " --ref " + good + " --out x --radius 0",
                                  "nearest --obs " + good + " --ref " + good + " --out x --k 1 --k 2",
                                  "within --queries " + good + " --points " + good + " --distance 0.1 --radius 0 --out x",
                                  "dbscan --in " + good + " --eps 0.1 --min-samples 2 --out x --border core-only --border none",
                                  "diffuse --size 10by10 --steps 2 --out x", "diffuse --size 4x4 --steps -5 --out x",
                                  "diffuse --size 4x4 --steps 1 --coeff 0.3 --out x", "demo --observations 0", "teleport"}) {
    CAPTURE(wrong);
    const auto result = s.run(wrong);
    CHECK(result.status == 2);
    CHECK(result.err.find("--help tells more") != std::string::npos);
    CHECK(result.err.find("usage:") == std::string::npos);  // the message, not the whole help
  }
  CHECK(s.run("nearest --obs " + good + " --ref " + good + " --out x --k 1 --k 2").err.find("--k: given twice") !=
        std::string::npos);
  const auto unknown = s.run("teleport");
  CHECK(unknown.err.find("unknown command 'teleport'") != std::string::npos);
  CHECK(unknown.err.find("nearest, within, dbscan, demo") != std::string::npos);
  const auto failed = s.run("nearest --obs " + s.path("nowhere.csv") + " --ref " + good + " --out x");
  CHECK(failed.status == 1);
  CHECK(failed.err.find("--help") == std::string::npos);
  for (const std::string asked : std::vector<std::string>{"--help", "-h", "help", "help nearest", "nearest --help", "diffuse -h"}) {
    CAPTURE(asked);
    const auto help = s.run(asked);
    CHECK(help.status == 0);
    CHECK(help.out.rfind("usage: kernwerk COMMAND", 0) == 0);
    CHECK(help.out.find("Exit status") != std::string::npos);
    const bool one = asked.find("nearest") != std::string::npos || asked.find("diffuse") != std::string::npos;
    CHECK((help.out.find("  demo ") == std::string::npos) == one);  // a command's help: its part
  }
  const auto version = s.run("--version");
  CHECK(version.status == 0);
  CHECK(version.out.rfind("kernwerk ", 0) == 0);
  CHECK(version.out.find("Kokkos") != std::string::npos);
  const auto unbound = s.run("nearest --obs " + good + " --ref " + good + " --out " + s.path("out.csv"),
                             "env -u OMP_PROC_BIND -u OMP_PLACES");
  CHECK(unbound.status == 0);
  CHECK(unbound.err.find("OMP_PROC_BIND") == std::string::npos);
}

TEST_CASE("cli: info and demo") {
  scratch s;
  const auto info = s.run("info");
  CHECK(info.status == 0);
  CHECK(info.out.find("Kokkos") != std::string::npos);
  CHECK(info.out.find("execution spaces:") != std::string::npos);
  const auto demo = s.run("demo --observations 2000 --references 300 --check 2000");
  INFO(demo.out);
  CHECK(demo.status == 0);
  CHECK(demo.out.find("all correct") != std::string::npos);
}

}  // namespace

namespace {

// The course's stencil in float64: the field after `steps` steps.
std::vector<double> stencil(std::vector<double> field, std::size_t rows, std::size_t columns,
                            int steps, double coeff) {
  std::vector<double> next(field.size());
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < columns; ++j) {
        const auto at = [&](std::size_t a, std::size_t b) { return field[a * columns + b]; };
        double v = 4 * at(i, j);
        if (i > 0) v -= at(i - 1, j);
        if (j > 0) v -= at(i, j - 1);
        if (i + 1 < rows) v -= at(i + 1, j);
        if (j + 1 < columns) v -= at(i, j + 1);
        next[i * columns + j] = at(i, j) - coeff * v;
      }
    field.swap(next);
  }
  return field;
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t k = 0; k < 4; ++k) value = value << 8 | std::uint8_t(bytes[at + k]);
  return value;
}

}  // namespace

TEST_CASE("cli: diffuse a raw grid into raw float32 and a PNG") {
  const scratch folder;
  const std::size_t rows = 23, columns = 31;
  std::vector<double> grid(rows * columns);
  for (std::size_t k = 0; k < grid.size(); ++k) grid[k] = double((k * 7919) % 101) / 100.0;
  const auto input = folder.write_binary<float>("grid.f32", grid);
  const auto result = folder.run("diffuse --in " + input + " --rows 23 --columns 31 --steps 9 --coeff 0.2 --laplacian --out " +
                                 folder.path("out"));
  REQUIRE(result.status == 0);
  CHECK(result.err.find("23 x 31, 9 steps") != std::string::npos);
  std::vector<double> rounded(grid.size());
  for (std::size_t k = 0; k < grid.size(); ++k) rounded[k] = double(float(grid[k]));
  const auto expected = stencil(rounded, rows, columns, 9, 0.2);
  const std::string raw = slurp(folder.path("out.f32"));
  REQUIRE(raw.size() == rows * columns * sizeof(float));
  std::vector<float> got(rows * columns);
  std::memcpy(got.data(), raw.data(), raw.size());
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) wrong += std::abs(got[k] - expected[k]) > 1e-5;
  CHECK(wrong == 0);
  for (const char* png : {"out.png", "out-laplacian.png"}) {
    const std::string image = slurp(folder.path(png));
    REQUIRE(image.size() > 33);
    CHECK(image.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
    CHECK(big_endian(image, 16) == columns);  // IHDR width, height
    CHECK(big_endian(image, 20) == rows);
  }
  CHECK(exists(folder.path("out-laplacian.f32")));
}

// A .npy grid takes its shape from its header, in either order; the result is the raw grid's.
TEST_CASE("cli: diffuse a .npy grid") {
  const scratch folder;
  const std::size_t rows = 17, columns = 29;
  std::vector<double> grid(rows * columns);
  for (std::size_t k = 0; k < grid.size(); ++k) grid[k] = double((k * 7919) % 97) / 96.0;
  const auto raw = folder.write_binary<double>("grid.f64", grid);
  const auto npy = folder.write("grid.npy", npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (17, 29), }",
                                                      array_bytes<double>(grid, columns, true)));
  const auto from_raw = folder.run("diffuse --in " + raw + " --rows 17 --columns 29 --steps 5 --out " + folder.path("raw"));
  REQUIRE(from_raw.status == 0);
  const auto from_npy = folder.run("diffuse --in " + npy + " --steps 5 --out " + folder.path("npy"));
  INFO(from_npy.err);
  REQUIRE(from_npy.status == 0);
  CHECK(from_npy.err.find("17 x 29, 5 steps") != std::string::npos);
  CHECK(slurp(folder.path("npy.f32")) == slurp(folder.path("raw.f32")));
  const auto mismatch = folder.run("diffuse --in " + npy + " --rows 29 --steps 5 --out " + folder.path("bad"));
  CHECK(mismatch.status == 1);
  CHECK(mismatch.err.find("grid.npy: shape (17, 29) does not match --rows 29") != std::string::npos);
  CHECK(!exists(folder.path("bad.f32")));
}

TEST_CASE("cli: diffuse's bad input names the problem and writes nothing") {
  const scratch folder;
  const auto input = folder.write_binary<float>("grid.f32", std::vector<double>(20, 1.0));
  const auto out = folder.path("out");
  struct bad_case {
    std::string arguments, message;
    int status;  // 2: the command line is wrong; 1: the run failed
  };
  for (const auto& bad : std::vector<bad_case>{
           {"--in " + input + " --rows 4 --columns 4 --steps 2", "80 bytes of values, but float32 of shape (4, 4) needs 64", 1},
           {"--in " + input + " --rows 4 --columns 5 --steps -1", "--steps: must not be negative", 2},
           {"--in " + input + " --rows 4 --columns 5 --steps 2 --coeff 0.5", "--coeff: ", 2},
           {"--size 10by10 --steps 2", "--size", 2},
           {"--in " + input + " --steps 2", "--rows", 2},
           {"--size 10x10", "--steps: required", 2}}) {
    CAPTURE(bad.arguments);
    const auto result = folder.run("diffuse " + bad.arguments + " --out " + out);
    CHECK(result.status == bad.status);
    CHECK(result.err.find(bad.message) != std::string::npos);
    CHECK(!exists(out + ".f32"));
    CHECK(!exists(out + ".png"));
  }
  const auto huge = folder.run("diffuse --size 10000000x10000000 --steps 1 --out " + out);
  CHECK(huge.status == 1);
  CHECK(huge.err.find("--size: 10000000 x 10000000 needs at least") != std::string::npos);
  CHECK(!exists(out + ".f32"));
  const auto nan_grid = folder.write_binary<float>("nan.f32", {1.0, std::nan(""), 2.0, 3.0});
  const auto result = folder.run("diffuse --in " + nan_grid + " --rows 2 --columns 2 --steps 1 --out " + out);
  CHECK(result.status == 1);
  CHECK(result.err.find("value 1 (row 0, column 1) is not finite") != std::string::npos);
}

// A command with several outputs writes all of them or none: here the last one cannot be
// written (a folder where a file goes, a folder that does not exist), and the ones before it
// must not be left behind, nor temporaries.
TEST_CASE("cli: a failed output leaves none of a command's other outputs") {
  const scratch folder;
  const auto grid = folder.write_binary<float>("grid.f32", std::vector<double>(12, 1.0));
  REQUIRE(std::system(("mkdir -p '" + folder.path("y.png") + "' '" + folder.path("z-laplacian.png") + "'").c_str()) == 0);
  for (const std::string out : {"y", "z"}) {
    CAPTURE(out);
    const std::string laplacian = out == "z" ? " --laplacian" : "";
    const auto result = folder.run("diffuse --in " + grid + " --rows 3 --columns 4 --steps 1" + laplacian +
                                   " --out " + folder.path(out));
    CHECK(result.status == 1);
    CHECK(result.err.find(folder.path(out + (out == "z" ? "-laplacian.png" : ".png")) + ": is a folder") !=
          std::string::npos);
    CHECK(!exists(folder.path(out + ".f32")));
    CHECK(!exists(folder.path(out + "-laplacian.f32")));
    if (out == "z") CHECK(!exists(folder.path("z.png")));
  }
  std::vector<double> a(12);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = double(k * k % 7) + 0.5;
  const auto matrix = folder.write_binary<double>("a.f64", a);
  const auto result = folder.run("qr --in " + matrix + " --shape 4x3 --q " + folder.path("q.npy") + " --r " +
                                 folder.path("nodir/r.npy"));
  CHECK(result.status == 1);
  CHECK(result.err.find("nodir/r.npy") != std::string::npos);
  CHECK(!exists(folder.path("q.npy")));
  CHECK(std::system(("ls -a '" + folder.dir + "' | grep -q partial").c_str()) != 0);
}

namespace {

// Doubles from a raw file of T (float or double) values, or interleaved complex parts.
template <class T>
std::vector<double> read_raw(const std::string& path) {
  const std::string bytes = slurp(path);
  std::vector<T> typed(bytes.size() / sizeof(T));
  std::memcpy(typed.data(), bytes.data(), typed.size() * sizeof(T));
  return std::vector<double>(typed.begin(), typed.end());
}

// A direct float64 DFT of interleaved complex values: `lines` transforms of n points each.
std::vector<double> direct_dft(const std::vector<double>& z, std::size_t lines, std::size_t n, bool inverse) {
  std::vector<double> out(2 * lines * n);
  const double pi = std::acos(-1.0), sign = inverse ? 1 : -1;
  for (std::size_t l = 0; l < lines; ++l)
    for (std::size_t k = 0; k < n; ++k) {
      double re = 0, im = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double angle = sign * 2 * pi * double((j * k) % n) / double(n);
        const double a = z[2 * (l * n + j)], b = z[2 * (l * n + j) + 1];
        re += a * std::cos(angle) - b * std::sin(angle);
        im += a * std::sin(angle) + b * std::cos(angle);
      }
      out[2 * (l * n + k)] = re;
      out[2 * (l * n + k) + 1] = im;
    }
  return out;
}

double largest_gap(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

}  // namespace

TEST_CASE("cli: qr of raw and .npy matrices") {
  const scratch folder;
  const std::size_t m = 30, n = 6;
  std::vector<double> a(m * n);
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = std::sin(double(k * k % 101) + 0.5);
  const auto raw = folder.write_binary<double>("a.f64", a);
  const auto result = folder.run("qr --in " + raw + " --shape 30x6 --q " + folder.path("q.f64") + " --r " +
                                 folder.path("r.f64"));
  INFO(result.err);
  REQUIRE(result.status == 0);
  const auto q = read_raw<double>(folder.path("q.f64")), r = read_raw<double>(folder.path("r.f64"));
  REQUIRE(q.size() == m * n);
  REQUIRE(r.size() == n * n);
  double residual = 0, orthogonality = 0, below = 0, negative = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double qr = 0;
      for (std::size_t p = 0; p < n; ++p) qr += q[i * n + p] * r[p * n + j];
      residual = std::max(residual, std::abs(qr - a[i * n + j]));
    }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double dot = 0;
      for (std::size_t p = 0; p < m; ++p) dot += q[p * n + i] * q[p * n + j];
      orthogonality = std::max(orthogonality, std::abs(dot - (i == j)));
      if (i > j) below = std::max(below, std::abs(r[i * n + j]));
    }
  for (std::size_t i = 0; i < n; ++i) negative = std::min(negative, r[i * n + i]);
  CHECK(residual < 1e-13);
  CHECK(orthogonality < 1e-13);
  CHECK(below == 0);
  CHECK(negative == 0);

  // A column-major float32 .npy, complete: .npy outputs of float32, (m, m) and (m, n).
  const auto npy = folder.write("a.npy", npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (30, 6), }",
                                                   array_bytes<float>(a, n, true)));
  const auto complete = folder.run("qr --in " + npy + " --mode complete --implementation generic --q " +
                                   folder.path("q.npy") + " --r " + folder.path("r.npy"));
  INFO(complete.err);
  REQUIRE(complete.status == 0);
  const std::string q_file = slurp(folder.path("q.npy")), r_file = slurp(folder.path("r.npy"));
  CHECK(q_file.find("{'descr': '<f4', 'fortran_order': False, 'shape': (30, 30), }") != std::string::npos);
  CHECK(r_file.find("{'descr': '<f4', 'fortran_order': False, 'shape': (30, 6), }") != std::string::npos);
  CHECK(q_file.size() % 4 == 0);
  CHECK(q_file.size() - 30 * 30 * 4 == r_file.size() - 30 * 6 * 4);  // the same header length
  std::vector<float> complete_r(30 * 6);
  std::memcpy(complete_r.data(), r_file.data() + r_file.size() - complete_r.size() * 4, complete_r.size() * 4);
  double gap = 0;
  for (std::size_t i = 0; i < 30; ++i)
    for (std::size_t j = 0; j < n; ++j)
      gap = std::max(gap, std::abs(double(complete_r[i * n + j]) - (i < n ? r[i * n + j] : 0.0)));
  CHECK(gap < 1e-4);

  // Bad input names the option and writes nothing.
  const auto nan_matrix = folder.write_binary<double>("nan.f64", {1.0, 2.0, std::nan(""), 4.0, 5.0, 6.0});
  const auto complex_npy = folder.write("z.npy", npy_bytes("{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }",
                                                           std::string(32, '\0')));
  struct bad_case {
    std::string arguments, message;
    int status;
  };
  for (const auto& bad : std::vector<bad_case>{
           {"--in " + nan_matrix + " --shape 3x2", "--in: ", 1},
           {"--in " + nan_matrix + " --shape 2x3", "--in: has fewer rows than columns", 1},
           {"--in " + nan_matrix + " --shape 4x2", "48 bytes of values", 1},
           {"--in " + nan_matrix, "needs its shape", 1},
           {"--in " + complex_npy, "complex128 values; QR here is of real matrices", 1},
           {"--in " + npy + " --shape 30x6", "--shape is for raw files", 1},
           {"--in " + raw + " --shape 30by6", "--shape", 2},
           {"--in " + npy + " --mode thin", "--mode", 2}}) {
    CAPTURE(bad.arguments);
    const auto failed = folder.run("qr " + bad.arguments + " --q " + folder.path("bad-q.npy") + " --r " +
                                   folder.path("bad-r.npy"));
    CHECK(failed.status == bad.status);
    CHECK(failed.err.find(bad.message) != std::string::npos);
    CHECK(!exists(folder.path("bad-q.npy")));
    CHECK(!exists(folder.path("bad-r.npy")));
  }
}

TEST_CASE("cli: fft of lines, planes and real data against a direct DFT") {
  const scratch folder;
  const std::size_t lines = 3, n = 10;
  std::vector<double> z(2 * lines * n);
  for (std::size_t k = 0; k < z.size(); ++k) z[k] = std::cos(double(k * 7 % 23));
  // complex128 lines in a .npy file (NumPy's axis -1), out raw
  const auto npy = folder.write("z.npy", npy_bytes("{'descr': '<c16', 'fortran_order': False, 'shape': (3, 10), }",
                                                   array_bytes<double>(z, 2 * n, false)));
  auto result = folder.run("fft --in " + npy + " --out " + folder.path("spectrum.c128"));
  INFO(result.err);
  REQUIRE(result.status == 0);
  CHECK(largest_gap(read_raw<double>(folder.path("spectrum.c128")), direct_dft(z, lines, n, false)) < 1e-13);
  // the inverse of the spectrum, from raw complex128, back to z
  result = folder.run("fft --inverse --in " + folder.path("spectrum.c128") + " --shape 3x10 --out " +
                      folder.path("back.c128"));
  REQUIRE(result.status == 0);
  CHECK(largest_gap(read_raw<double>(folder.path("back.c128")), z) < 1e-14);
  // a plane: the lines' transform, then the columns' (stride n)
  result = folder.run("fft --plane --norm forward --in " + npy + " --out " + folder.path("plane.c128"));
  REQUIRE(result.status == 0);
  const auto by_rows = direct_dft(z, lines, n, false);
  std::vector<double> column(2 * lines), expected(by_rows.size());
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < lines; ++i)
      column[2 * i] = by_rows[2 * (i * n + j)], column[2 * i + 1] = by_rows[2 * (i * n + j) + 1];
    const auto t = direct_dft(column, 1, lines, false);
    for (std::size_t i = 0; i < lines; ++i)
      for (std::size_t part = 0; part < 2; ++part)
        expected[2 * (i * n + j) + part] = t[2 * i + part] / double(lines * n);
  }
  CHECK(largest_gap(read_raw<double>(folder.path("plane.c128")), expected) < 1e-14);
  // real float32 data of 11 points: the half spectrum (6), and back with --length 11
  std::vector<double> x(11), widened(22, 0.0);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::sin(double(3 * k) + 0.25), widened[2 * k] = x[k];
  const auto real = folder.write_binary<float>("x.f32", x);
  result = folder.run("fft --real --in " + real + " --shape 11 --out " + folder.path("half.c64"));
  REQUIRE(result.status == 0);
  const auto full = direct_dft(widened, 1, 11, false);
  CHECK(largest_gap(read_raw<float>(folder.path("half.c64")), std::vector<double>(full.begin(), full.begin() + 12)) <
        1e-5);
  result = folder.run("fft --real --inverse --length 11 --in " + folder.path("half.c64") + " --shape 6 --out " +
                      folder.path("x-back.npy"));
  REQUIRE(result.status == 0);
  const std::string back = slurp(folder.path("x-back.npy"));
  CHECK(back.find("{'descr': '<f4', 'fortran_order': False, 'shape': (11,), }") != std::string::npos);
  std::vector<float> values(11);
  std::memcpy(values.data(), back.data() + back.size() - 44, 44);
  CHECK(largest_gap(std::vector<double>(values.begin(), values.end()), x) < 1e-5);

  // Bad input names the option and writes nothing.
  std::vector<double> broken = z;
  broken[5] = std::numeric_limits<double>::infinity();
  const auto infinite = folder.write_binary<double>("inf.c128", broken);
  struct bad_case {
    std::string arguments, message;
    int status;
  };
  for (const auto& bad : std::vector<bad_case>{
           {"--in " + infinite + " --shape 30", "--in: holds a non-finite value", 1},
           {"--in " + real + " --shape 11", "a complex transform takes complex values", 1},
           {"--real --in " + npy, "--real (forward) takes real values", 1},
           {"--real --inverse --length 9 --in " + npy, "--length: 9", 1},
           {"--length 9 --in " + npy, "--length", 2},
           {"--plane --in " + real + " --shape 11", "is not a plane's", 1},
           {"--in " + npy + " --norm none", "--norm", 2}}) {
    CAPTURE(bad.arguments);
    const auto failed = folder.run("fft " + bad.arguments + " --out " + folder.path("bad.npy"));
    CHECK(failed.status == bad.status);
    CHECK(failed.err.find(bad.message) != std::string::npos);
    CHECK(!exists(folder.path("bad.npy")));
  }
  const auto wrong_suffix = folder.run("fft --in " + npy + " --out " + folder.path("bad.f64"));
  CHECK(wrong_suffix.status == 1);
  CHECK(wrong_suffix.err.find("the output is complex128, which a .f64 file does not hold") != std::string::npos);
  CHECK(!exists(folder.path("bad.f64")));
}

// The command-line tool under faults: an output folder it may not write, an input that vanishes
// while it is read, a binary input that is a pipe, and a signal that ends it mid-run or mid-write.
// Each must be an error naming the file (or the signal's own end), and leave no output, partial
// or whole, and an existing output as it was. (Full disks, devices, FIFOs and folders as outputs:
// cli_test.cpp.)
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "output_file.hpp"

namespace {

using namespace kernwerk;
using namespace kernwerk::test::cli;

// Whether anything in the folder is named like a temporary output (*.partial-*).
bool leftover_partial(const std::string& folder) {
  return std::system(("ls -a '" + folder + "' | grep -q partial").c_str()) == 0;
}

// Runs body() in a forked child, which ends there; returns the child's wait status.
template <class Body>
int run_in_child(Body&& body, const std::function<void(pid_t)>& meanwhile = {}) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    body();
    ::_exit(127);
  }
  if (meanwhile) meanwhile(child);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  return status;
}

std::string numbered_csv(std::size_t lines) { return as_csv(test::uniform_sphere(lines, 5), "lat,lon"); }

TEST_CASE("cli faults: an output folder the tool may not write into") {
  scratch s;
  const auto points = s.write("points.csv", "0.1,0.2\n0.3,0.4\n");
  const std::string locked = s.path("locked");
  REQUIRE(::mkdir(locked.c_str(), 0555) == 0);
  // Root writes anywhere: the tool then runs without the capabilities that let it.
  const std::string as_user = ::geteuid() == 0 ? "setpriv --bounding-set=-dac_override,-dac_read_search" : "";
  for (const std::string output : {locked + "/out.csv", locked + "/out.npy"}) {
    CAPTURE(output);
    const auto result = s.run("nearest --obs " + points + " --ref " + points + " --out " + output, as_user);
    INFO(result.err);
    CHECK(result.status == 1);
    CHECK(result.err.find(output + ": cannot write: Permission denied") != std::string::npos);
  }
  const auto diffuse = s.run("diffuse --steps 1 --size 4x4 --out " + locked + "/field", as_user);
  INFO(diffuse.err);
  CHECK(diffuse.status == 1);
  CHECK(diffuse.err.find("--out: cannot write into '" + locked + "/'") != std::string::npos);
  CHECK(std::system(("[ -z \"$(ls -A '" + locked + "')\" ]").c_str()) == 0);
  REQUIRE(::chmod(locked.c_str(), 0755) == 0);
}

TEST_CASE("cli faults: an input that vanishes while it is read") {
  scratch s;
  const std::string out = s.path("out.csv");
  s.write("out.csv", "previous\n");
  const auto references = s.write("references.csv", "0.1,0.2\n0.3,0.4\n");
  // Larger than the stream's buffer (8 KiB), so that it is read in several pieces.
  const std::string text = numbered_csv(2000);
  REQUIRE(text.size() > 4 * 8192);
  const auto sphere = test::uniform_sphere(2000, 6);
  const std::string npy = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2000, 2), }",
                                    array_bytes<double>(sphere.values, 2, false));
  for (const std::string name : {"vanishing.csv", "vanishing.npy"}) {
    CAPTURE(name);
    const std::string input = s.write(name, name == std::string("vanishing.csv") ? text : npy);
    const auto result = s.run("nearest --obs " + input + " --ref " + references + " --out " + out,
                              "env LD_PRELOAD=" KERNWERK_TEST_VANISHING_INPUT " KERNWERK_VANISH=" + input +
                                  " ASAN_OPTIONS=verify_asan_link_order=0");
    INFO(result.err);
    CHECK(result.status == 1);
    CHECK(result.err.find(input + ": read error: the file changed while it was read") != std::string::npos);
    struct stat info {};
    CHECK((::stat(input.c_str(), &info) == 0 && info.st_size == 0));  // it did vanish
    CHECK(slurp(out) == "previous\n");
    CHECK_FALSE(leftover_partial(s.dir));
  }
}

TEST_CASE("cli faults: a binary input that is a pipe") {
  scratch s;
  const auto references = s.write("references.csv", "0.1,0.2\n0.3,0.4\n");
  for (const std::string name : {"pipe.f64", "pipe.npy"}) {
    CAPTURE(name);
    const std::string fifo = s.path(name);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // a writer that gives up once the tool has refused (the pipe then has no reader)
    REQUIRE(std::system(("(printf '\\223NUMPY' > '" + fifo + "' 2>/dev/null &)").c_str()) == 0);
    const auto result = s.run("nearest --obs " + fifo + " --ref " + references + " --out " + s.path("out.csv"));
    INFO(result.err);
    CHECK(result.status == 1);
    CHECK(result.err.find(fifo + ": is not a regular file (a pipe?)") != std::string::npos);
    CHECK_FALSE(exists(s.path("out.csv")));
  }
}

// A signal that ends the tool while it writes: write_output's temporary is removed, the
// destination is as it was, and the process ends by the signal.
TEST_CASE("cli faults: a signal during the write removes the temporary") {
  scratch s;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    CAPTURE(signal);
    const std::string out = s.path("out.csv");
    s.write("out.csv", "previous\n");
    const int status = run_in_child([&] {
      for (const int s : {SIGINT, SIGTERM, SIGHUP}) std::signal(s, SIG_DFL);  // as the tool starts (not doctest's)
      cli::write_output(out, [&](std::FILE* file) {
        cli::write_bytes(file, "index,distance\n", 15, out);
        std::fflush(file);
        ::raise(signal);
        cli::write_bytes(file, "0,0\n", 4, out);
      });
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == signal);
    CHECK(slurp(out) == "previous\n");
    CHECK_FALSE(leftover_partial(s.dir));
  }
}

// SIGINT or SIGTERM at several moments of a run of about a second: whatever the moment, the
// output is either absent (the existing one as it was) or whole, and no temporary is left.
TEST_CASE("cli faults: SIGINT or SIGTERM during a run leaves no partial output") {
  scratch s;
  const auto observations = test::uniform_sphere(1 << 17, 8), references = test::uniform_sphere(1 << 12, 9);
  const std::string obs = s.write_binary<double>("obs.f64", observations.values);
  const std::string ref = s.write_binary<double>("ref.f64", references.values);
  const std::string arguments = "nearest --obs " + obs + " --ref " + ref + " --k 8 --method brute --out ";
  REQUIRE(s.run(arguments + s.path("whole.csv")).status == 0);
  const std::string whole = slurp(s.path("whole.csv"));
  REQUIRE(whole.size() > 1000000);
  int interrupted = 0;
  for (const int delay_ms : {30, 150, 400, 800, 1500, 3000}) {
    for (const int signal : {SIGINT, SIGTERM}) {
      CAPTURE(delay_ms);
      CAPTURE(signal);
      const std::string out = s.path("out.csv");
      s.write("out.csv", "previous\n");
      const std::string command = "exec " + cli_path() + " " + arguments + out + " 2>/dev/null";
      const int status = run_in_child(
          [&] { ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr)); },
          [&](pid_t child) {
            std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
            ::kill(child, signal);
          });
      // (a signal after the rename, as the tool ends, finds the output whole)
      const std::string left = slurp(out);
      CHECK((left == "previous\n" || left == whole));
      if (WIFSIGNALED(status)) {
        CHECK(WTERMSIG(status) == signal);
        interrupted += left == "previous\n";
      } else {
        CHECK(WEXITSTATUS(status) == 0);
        CHECK(left == whole);
      }
      CHECK_FALSE(leftover_partial(s.dir));
    }
  }
  CHECK(interrupted > 0);
}

}  // namespace

#include "output_file.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <iterator>
#include <memory>
#include <vector>

#include "kernwerk/error.hpp"

namespace kernwerk::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
  throw error(path + ": " + problem);
}

using file_handle = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Flushes and closes; a failure here is where a full disk usually shows.
void finish(file_handle& file, const std::string& path) {
  const bool flushed = std::fflush(file.get()) == 0 && !std::ferror(file.get());
  const int saved = errno;
  const bool closed = std::fclose(file.release()) == 0;
  if (!flushed || !closed) fail(path, std::string("write error: ") + std::strerror(flushed ? errno : saved));
}

// Whether the path names the file this process's standard output already writes to (as
// /dev/stdout does): that file is written through the same stream, so that the two share one
// offset instead of overwriting each other.
bool is_standard_output(const std::string& path) {
  if (path == "-") return true;
  struct stat named {}, standard {};
  return ::stat(path.c_str(), &named) == 0 && ::fstat(STDOUT_FILENO, &standard) == 0 &&
         named.st_dev == standard.st_dev && named.st_ino == standard.st_ino;
}

bool under_proc(const std::string& resolved) { return resolved.rfind("/proc/", 0) == 0; }

// The regular file a path names, following links, or "" when the path is not one (a device,
// a FIFO, standard output through /dev/stdout or /proc/self/fd). Throws for a folder.
std::string regular_target(const std::string& path, bool& exists) {
  struct stat info {};
  exists = ::stat(path.c_str(), &info) == 0;
  if (!exists) {
    // A dangling link or a missing file: the temporary goes beside the name itself.
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0) fail(path, "is a link to nothing");
    return path;
  }
  if (S_ISDIR(info.st_mode)) fail(path, "is a folder, not a file");
  if (!S_ISREG(info.st_mode)) return "";
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved) || under_proc(resolved)) return "";
  // /dev/stdout redirected into a file resolves to that file through /proc: write in place.
  char link_target[PATH_MAX];
  const ssize_t length = ::readlink(path.c_str(), link_target, sizeof link_target - 1);
  if (length > 0 && under_proc(std::string(link_target, std::size_t(length)))) return "";
  return resolved;
}

// The temporary files being written, removed by the handler of a signal that ends the process
// (SIGINT, SIGTERM, SIGHUP), which then lets the signal end it as it would have.
constexpr int most_pending = 8;
char pending_temporaries[most_pending][PATH_MAX + 32];
volatile std::sig_atomic_t pending = 0;  // how many of them
constexpr int ending_signals[] = {SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_pending_temporaries(int signal) {
  for (int t = 0; t < pending; ++t) ::unlink(pending_temporaries[t]);
  ::raise(signal);  // the handler was reset (SA_RESETHAND): the default action, once this returns
}

// While one lives, the temporary files made by make() are removed if a signal ends the process
// (the first most_pending of them); the signals' earlier handlers are kept where a program (or
// nohup) set one.
class signal_cleanup {
 public:
  // mkstemp(temporary) with the signals held off until the file is registered.
  int make(std::string& temporary) {
    sigset_t ending, previous;
    sigemptyset(&ending);
    for (const int s : ending_signals) sigaddset(&ending, s);
    ::pthread_sigmask(SIG_BLOCK, &ending, &previous);
    const int descriptor = ::mkstemp(temporary.data());
    if (descriptor >= 0 && temporary.size() < sizeof pending_temporaries[0] && pending < most_pending) {
      std::memcpy(pending_temporaries[pending], temporary.c_str(), temporary.size() + 1);
      pending = pending + 1;
      if (!installed_) {
        struct sigaction action {};
        action.sa_handler = remove_pending_temporaries;
        action.sa_flags = SA_RESETHAND;
        sigemptyset(&action.sa_mask);
        for (std::size_t k = 0; k < std::size(ending_signals); ++k) {
          ::sigaction(ending_signals[k], nullptr, &saved_[k]);
          replaced_[k] = saved_[k].sa_handler == SIG_DFL;
          if (replaced_[k]) ::sigaction(ending_signals[k], &action, nullptr);
        }
        installed_ = true;
      }
    }
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return descriptor;
  }
  ~signal_cleanup() {
    if (!installed_) return;
    for (std::size_t k = 0; k < std::size(ending_signals); ++k)
      if (replaced_[k]) ::sigaction(ending_signals[k], &saved_[k], nullptr);
    pending = 0;
  }

 private:
  bool installed_ = false;
  struct sigaction saved_[std::size(ending_signals)] {};
  bool replaced_[std::size(ending_signals)] = {};
};

}  // namespace

void write_bytes(std::FILE* file, const void* data, std::size_t bytes, const std::string& path) {
  if (bytes && std::fwrite(data, 1, bytes, file) != bytes)
    fail(path, std::string("write error: ") + std::strerror(errno));
}

struct output_set::state {
  struct staged {
    std::string temporary, target, path;
  };
  std::vector<staged> files;
  signal_cleanup cleanup;
  bool committed = false;
};

output_set::output_set() : state_(std::make_unique<state>()) {}

output_set::~output_set() {
  if (!state_->committed)
    for (const auto& file : state_->files) std::remove(file.temporary.c_str());
}

void output_set::write(const std::string& path, const std::function<void(std::FILE*)>& write) {
  if (path.empty()) throw error("output path is empty");
  if (is_standard_output(path)) {
    std::fflush(stdout);
    write(stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      fail(path == "-" ? "standard output" : path, std::string("write error: ") + std::strerror(errno));
    return;
  }
  bool exists = false;
  const std::string target = regular_target(path, exists);
  if (target.empty()) {
    file_handle file(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!file) fail(path, std::string("cannot write: ") + std::strerror(errno));
    write(file.get());
    finish(file, path);
    return;
  }
  for (const auto& file : state_->files)
    if (file.target == target) fail(path, "is another output of the same command");
  if (exists && ::access(target.c_str(), W_OK) != 0)
    fail(path, std::string("cannot write: ") + std::strerror(errno));
  std::string temporary = target + ".partial-XXXXXX";
  const int descriptor = state_->cleanup.make(temporary);
  if (descriptor < 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
  state_->files.push_back({temporary, target, path});  // removed with the set unless committed
  file_handle file(::fdopen(descriptor, "wb"), &std::fclose);
  if (!file) {
    ::close(descriptor);
    fail(path, std::string("cannot write: ") + std::strerror(errno));
  }
  write(file.get());
  finish(file, path);
  // mkstemp makes the file private (0600); the output gets the usual mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(temporary.c_str(), 0666 & ~mask);
}

void output_set::commit() {
  for (const auto& file : state_->files)
    if (std::rename(file.temporary.c_str(), file.target.c_str()) != 0)
      fail(file.path, std::string("cannot write: ") + std::strerror(errno));
  state_->committed = true;
}

void write_output(const std::string& path, const std::function<void(std::FILE*)>& write) {
  output_set outputs;
  outputs.write(path, write);
  outputs.commit();
}

}  // namespace kernwerk::cli

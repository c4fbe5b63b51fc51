#pragma once
// Where the command-line tool's outputs go.
//
// A regular file (or a path that does not exist yet) is written through a temporary file in
// the same folder and renamed into place, so a failure or an interrupted run leaves no partial
// output and an existing file as it was. Anything else (a device such as /dev/null or /dev/full,
// a FIFO, a terminal, standard output as /dev/stdout or "-") is written in place: renaming onto
// it would replace the device node or the link. Every write is checked: a full disk or a device
// that refuses the bytes (ENOSPC) is an error naming the path.
//
// A command with several outputs writes them through one output_set: each regular file goes to
// its temporary as it is written, and all are renamed into place at the end, so that an output
// that fails leaves none of the others (a device or standard output is written at once).
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace kernwerk::cli {

class output_set {
 public:
  output_set();
  ~output_set();  // removes the temporaries of a set not committed
  output_set(const output_set&) = delete;
  output_set& operator=(const output_set&) = delete;

  // Calls write(file) with a stream open on the destination's temporary (or on the destination
  // itself where it is not a regular file); throws kernwerk::error naming `path` when it cannot
  // be written: a folder, a folder that does not exist or is not writable, a write or flush that
  // failed.
  void write(const std::string& path, const std::function<void(std::FILE*)>& write);
  // Renames every temporary into place.
  void commit();

 private:
  struct state;
  std::unique_ptr<state> state_;
};

// One output: an output_set of one, committed.
void write_output(const std::string& path, const std::function<void(std::FILE*)>& write);

// fwrite that throws kernwerk::error naming `path` when not every byte was taken.
void write_bytes(std::FILE* file, const void* data, std::size_t bytes, const std::string& path);

}  // namespace kernwerk::cli

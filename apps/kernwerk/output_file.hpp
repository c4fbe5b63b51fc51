#pragma once
// Where the command-line tool's outputs go.
//
// A regular file (or a path that does not exist yet) is written through a temporary file in
// the same folder and renamed into place, so a failure or an interrupted run leaves no partial
// output and an existing file as it was. Anything else (a device such as /dev/null or /dev/full,
// a FIFO, a terminal, standard output as /dev/stdout or "-") is written in place: renaming onto
// it would replace the device node or the link. Every write is checked: a full disk or a device
// that refuses the bytes (ENOSPC) is an error naming the path.
#include <cstdio>
#include <functional>
#include <string>

namespace kernwerk::cli {

// Calls write(file) with a stream open on the destination (or its temporary) and makes the
// output final; throws kernwerk::error naming `path` when it cannot be written: a folder, a
// folder that does not exist or is not writable, a write or flush that failed.
void write_output(const std::string& path, const std::function<void(std::FILE*)>& write);

// fwrite that throws kernwerk::error naming `path` when not every byte was taken.
void write_bytes(std::FILE* file, const void* data, std::size_t bytes, const std::string& path);

}  // namespace kernwerk::cli

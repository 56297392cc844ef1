// The standard output, checked once: reports reach stdout from every layer (fmt::print,
// printf, fputs), and a write that fails there (a full disk, /dev/full, a closed pipe)
// must end as a message and exit 1, never as a report silently lost with exit 0, nor as
// fmt's std::system_error ending the process with SIGABRT. So stdout is replaced by a
// stream whose writes never fail to their caller: the first failure is kept, and the
// command line asks for it once, after the subcommand returns (cli::Main).
#pragma once

#include <cstdio>

namespace memstand {

/// A stream writing to descriptor `fd` (never closing it) whose writes always report
/// success to the caller: the errno of the first failed write(2) is stored in *error (0
/// until then) and everything after it is dropped. Line-buffered when `fd` is a
/// terminal, else fully buffered. nullptr if the stream cannot be made.
/// REQUIRES: *error outlives the stream; one stream per `error`.
std::FILE* OpenErrorKeepingStream(int fd, int* error);

/// Points `stdout` at such a stream on descriptor 1 (glibc lets `stdout` be assigned), so
/// no write to stdout throws or is cut short unseen. Call once, before anything is written
/// to stdout; the C++ streams (std::cout) keep the original stream, which StdoutError
/// checks too.
void GuardStdout();

/// Flushes stdout (and the original stream std::cout writes to); 0 when every byte
/// written to either reached descriptor 1, else the errno of the first failure.
int StdoutError();

}  // namespace memstand

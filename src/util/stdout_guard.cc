#include "util/stdout_guard.h"

#include <unistd.h>

#include <cerrno>

namespace memstand {

namespace {

struct GuardedFd {
  int fd;
  int* error;
};

ssize_t WriteKeepingError(void* cookie, const char* data, size_t size) {
  auto* g = static_cast<GuardedFd*>(cookie);
  size_t done = 0;
  while (*g->error == 0 && done < size) {
    const ssize_t n = write(g->fd, data + done, size - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      *g->error = n < 0 ? errno : EIO;
    }
  }
  return static_cast<ssize_t>(size);  // dropped bytes too: the caller never sees a failure
}

int CloseGuardedFd(void* cookie) {
  delete static_cast<GuardedFd*>(cookie);  // the descriptor is not ours to close
  return 0;
}

int g_stdout_error = 0;
GuardedFd g_stdout_fd{STDOUT_FILENO, &g_stdout_error};  // static: the stream is never closed
std::FILE* g_original_stdout = nullptr;

// A stream writing through `cookie`; with `owned`, closing it deletes the cookie.
std::FILE* OpenOn(GuardedFd* cookie, bool owned) {
  cookie_io_functions_t io{};
  io.write = WriteKeepingError;
  io.close = owned ? CloseGuardedFd : nullptr;
  std::FILE* f = fopencookie(cookie, "w", io);
  if (f != nullptr) std::setvbuf(f, nullptr, isatty(cookie->fd) ? _IOLBF : _IOFBF, BUFSIZ);
  return f;
}

}  // namespace

std::FILE* OpenErrorKeepingStream(int fd, int* error) {
  *error = 0;
  auto* cookie = new GuardedFd{fd, error};
  std::FILE* f = OpenOn(cookie, /*owned=*/true);
  if (f == nullptr) delete cookie;
  return f;
}

void GuardStdout() {
  if (g_original_stdout != nullptr) return;
  std::FILE* guarded = OpenOn(&g_stdout_fd, /*owned=*/false);
  if (guarded == nullptr) return;  // stdout stays as it was; StdoutError still checks it
  std::fflush(stdout);
  g_original_stdout = stdout;
  stdout = guarded;
}

int StdoutError() {
  if (g_original_stdout != nullptr) {
    std::fflush(stdout);
    if (g_stdout_error != 0) return g_stdout_error;
  }
  std::FILE* original = g_original_stdout != nullptr ? g_original_stdout : stdout;
  errno = 0;
  if (std::fflush(original) != 0 || std::ferror(original) != 0) return errno != 0 ? errno : EIO;
  return 0;
}

}  // namespace memstand

// TCP and Unix stream sockets behind a narrow interface. Every TCP socket memstand opens
// sets TCP_NODELAY (docs/method.md rule 12: Nagle + delayed ACK once added ~40 ms to every
// write); a Unix socket has no such option and gets none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace memstand {

/// Resolves host (name or IPv4/IPv6 literal) and connects. With blocking == false the
/// socket is non-blocking and the connect may still be in progress (check with
/// FinishConnect once writable); with blocking == true it waits up to timeout_ms.
/// Returns the fd (owned by the caller) with TCP_NODELAY set.
Result<int> ConnectTcp(const std::string& host, int port, int timeout_ms, bool blocking);

/// Resolves host once: its addresses as numeric literals ("127.0.0.1", "::1"), in
/// getaddrinfo's order, for callers that connect often and must not block on DNS each
/// time (the relay). InvalidArgument "cannot resolve host ..." when there is none.
Result<std::vector<std::string>> ResolveNumeric(const std::string& host, int port);

/// The longest path a Unix socket address holds (sun_path less its terminating NUL).
constexpr size_t kMaxUnixPath = 107;

/// Connects to the Unix stream socket at `path` (AF_UNIX, SOCK_STREAM), with the
/// contract of ConnectTcp but no TCP option. A full accept backlog (EAGAIN) is retried
/// until timeout_ms, in both modes. InvalidArgument when the path is empty or longer than
/// kMaxUnixPath; IoError (Timeout) naming the path otherwise (e.g. no such file).
Result<int> ConnectUnix(const std::string& path, int timeout_ms, bool blocking);

/// After a non-blocking connect becomes writable: OK, or the connect error.
Status FinishConnect(int fd);

/// Listens on host:port (port 0: the kernel picks). Returns the fd.
Result<int> ListenTcp(const std::string& host, int port, int backlog = 1024);
/// The local port a socket is bound to.
Result<int> LocalPort(int fd);
/// A loopback port that was free a moment ago (bound once, then closed): drawn below the
/// kernel's ephemeral range, where no outgoing connection takes it meanwhile. Callers
/// that hand it to another process must retry if that process then fails to bind.
Result<int> PickFreePort(const std::string& host = "127.0.0.1");

Status SetNonBlocking(int fd, bool on);
Status SetNoDelay(int fd);
/// Applies SO_RCVTIMEO and SO_SNDTIMEO to a blocking socket.
Status SetIoTimeout(int fd, int timeout_ms);

/// Sends all bytes (blocking socket). Reads into buf; 0 means the peer closed.
Status WriteAll(int fd, const char* data, size_t len);
Result<size_t> ReadSome(int fd, char* buf, size_t cap);

/// The same on a non-blocking socket, each bounded by one deadline (NowNs()'s clock)
/// rather than a fresh timeout per system call, so a peer that dribbles a byte at a
/// time cannot stretch it: Status::Timeout once the deadline passes. Writes raise no
/// SIGPIPE.
Status WriteAllBy(int fd, const char* data, size_t len, int64_t deadline_ns);
Result<size_t> ReadSomeBy(int fd, char* buf, size_t cap, int64_t deadline_ns);
/// Whether bytes are waiting to be read on a socket (not counting a close), without
/// reading them.
bool HasPendingBytes(int fd);
/// Milliseconds from now to deadline_ns, rounded up; at least 1.
int MsUntil(int64_t deadline_ns);

/// "what: strerror(errno)".
std::string ErrnoMessage(const std::string& what, int err);

}  // namespace memstand

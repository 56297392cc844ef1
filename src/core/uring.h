// An io_uring for a load thread's sockets, where the kernel allows it: one multishot
// receive per socket into a ring of buffers the kernel picks from, sends queued as
// submission entries, and one io_uring_enter per wake-up that submits them all and reaps
// every completion (SINGLE_ISSUER | DEFER_TASKRUN where the kernel has them, 6.1+).
// It batches the system calls of many connections into one; it does not remove the
// kernel's per-segment TCP work (bench/README.md, "io_uring", measures what it buys).
// Not thread-safe: created and driven by one thread (SINGLE_ISSUER); only the
// destructor may run on another.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "util/status.h"

struct io_uring;
struct io_uring_buf_ring;
struct io_uring_sqe;

namespace memstand {

class Uring {
 public:
  /// What one completion says.
  struct Completion {
    enum class Kind : uint8_t { kRecv, kSend, kWritable } kind;
    uint32_t token;  // the caller's, from ArmRecv, Send or PollWritable
    /// kRecv: bytes received (data/size), 0 at end of stream; kSend: bytes sent;
    /// kWritable: the poll's events (POLLOUT, POLLERR, POLLHUP). Negative: -errno.
    /// A receive buffer is valid until the next Wait.
    int result;
    const char* data;
    /// kRecv: false when the kernel ended the multishot receive (re-arm with ArmRecv
    /// unless result says the connection is done).
    bool more;
  };

  /// Sets up a ring sized for `sockets` sockets at once (its completion queue and the
  /// most receive buffers it may map); sockets may come and go while it runs, and more
  /// than `sockets` still work (completions past the queue wait in the kernel's
  /// overflow list, receives past the buffers end with -ENOBUFS and are re-armed).
  /// Receive buffers are handed to the kernel on demand: 128 at first, doubled when a
  /// wake-up took half of them or one ran short, so a ring of mostly idle sockets
  /// touches few pages. Fails (with the kernel's reason) where io_uring, multishot
  /// receive or provided buffer rings are missing or disabled
  /// (kernel.io_uring_disabled, seccomp): the caller then uses epoll.
  static Result<std::unique_ptr<Uring>> Create(size_t sockets);
  ~Uring();
  Uring(const Uring&) = delete;
  Uring& operator=(const Uring&) = delete;

  /// Queues a multishot receive on fd; every completion carries `token`.
  void ArmRecv(int fd, uint32_t token);
  /// Queues a send of data[0, len), which must stay valid and unchanged until its
  /// completion. The kernel sends it whole (MSG_WAITALL) unless the connection fails;
  /// len is capped at kMaxSend, the completion says how much went.
  void Send(int fd, const char* data, size_t len, uint32_t token);
  static constexpr size_t kMaxSend = size_t{1} << 30;
  /// Queues a one-shot poll for fd's writability (a non-blocking connect's end): one
  /// kWritable completion with `token`.
  void PollWritable(int fd, uint32_t token);
  /// Submits what is queued and cancels everything in flight on fd, before returning
  /// (one system call): then fd may be closed, and no request of it reads or fills
  /// memory any more. Their completions come with the next Wait (-ECANCELED, or what
  /// they had done).
  void CancelAll(int fd);
  /// Submits what is queued and waits up to timeout_ns (>= 0) for at least one
  /// completion; fills `out` with every completion there is. timeout_ns 0: a poll, no
  /// wait (one io_uring_enter, no timer). Returns an error only when
  /// the ring itself fails (then no request can be queued any more).
  Status Wait(int64_t timeout_ns, std::vector<Completion>* out);
  /// io_uring_enter calls made so far (Wait, CancelAll, a full submission queue).
  uint64_t enter_calls() const { return enter_calls_; }
  /// Receive buffers handed to the kernel so far (grows on demand, see Create).
  unsigned buffers_in_use() const { return fresh_; }

 private:
  explicit Uring(size_t buffers);
  Status SetUp(size_t sockets);
  /// In line: Wait recycles every buffer the last wake-up handed out.
  [[gnu::always_inline]] inline void RecycleBuffer(unsigned id);
  void AddFreshBuffers(unsigned n);  // up to n never-used buffers, to the ring
  /// A free submission entry (submitting the queue when it is full); null once the
  /// ring has failed (failure_ says why).
  io_uring_sqe* Sqe();

  std::unique_ptr<io_uring> ring_;
  bool ring_ready_ = false;
  size_t RingBytes() const;    // the provided-buffer ring's descriptors
  size_t BufferBytes() const;  // the receive buffers

  io_uring_buf_ring* buf_ring_ = nullptr;
  const unsigned buf_count_;
  /// The receive buffers: anonymous memory, so a page costs only once the kernel
  /// first writes into it (a ring for 50 sockets maps 4 MiB); only [0, fresh_) are
  /// ever given to the kernel.
  char* buffers_ = nullptr;
  unsigned fresh_ = 0;  // buffers [0, fresh_) have been given to the kernel
  std::vector<unsigned> to_recycle_;  // buffers handed out by the last Wait
  uint64_t enter_calls_ = 0;
  Status failure_;
};

}  // namespace memstand

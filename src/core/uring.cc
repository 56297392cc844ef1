#include "core/uring.h"

#include <liburing.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/socket.h"

namespace memstand {
namespace {

constexpr unsigned kBufferSize = 16 * 1024;  // one receive completion's most
constexpr unsigned kMinBuffers = 256, kMaxBuffers = 2048;  // at most 32 MiB a ring
constexpr unsigned kFirstBuffers = 128;  // given to the kernel at first; more on demand
constexpr unsigned kSubmissionEntries = 1024;
constexpr int kBufferGroup = 0;
// user_data: the token in the low 32 bits, what the entry is above them.
constexpr uint64_t kRecvTag = 0, kSendTag = 1ULL << 32, kCancelTag = 2ULL << 32,
                   kPollTag = 3ULL << 32;
constexpr uint64_t kTagMask = 0xffffffffULL << 32;

Status KernelError(const std::string& what, int negative_errno) {
  return Status::IoError(ErrnoMessage(what, -negative_errno));
}

// Private anonymous memory: page-aligned (as a buffer ring must be), zero, and costing a
// page only once something writes into it.
Result<void*> MapAnonymous(size_t bytes) {
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mem == MAP_FAILED) return Status::IoError(ErrnoMessage("mmap", errno));
  return mem;
}

}  // namespace

Result<std::unique_ptr<Uring>> Uring::Create(size_t sockets) {
  // Two buffers a socket (its data and the next), a power of two for the ring.
  size_t want = std::clamp<size_t>(std::bit_ceil(std::max<size_t>(sockets, 1) * 2), kMinBuffers,
                                   kMaxBuffers);
  std::unique_ptr<Uring> u(new Uring(static_cast<unsigned>(want)));
  Status s = u->SetUp(sockets);
  if (!s.ok()) return s;
  return u;
}

Uring::Uring(size_t buffers) : ring_(std::make_unique<io_uring>()), buf_count_(buffers) {}

Uring::~Uring() {
  // Closed connections were cancelled synchronously (CancelAll); the exit cancels what
  // is left before the buffers go.
  if (ring_ready_) io_uring_queue_exit(ring_.get());
  if (buf_ring_ != nullptr) munmap(buf_ring_, RingBytes());
  if (buffers_ != nullptr) munmap(buffers_, BufferBytes());
}

size_t Uring::RingBytes() const { return buf_count_ * sizeof(io_uring_buf); }
size_t Uring::BufferBytes() const { return static_cast<size_t>(buf_count_) * kBufferSize; }

Status Uring::SetUp(size_t sockets) {
  io_uring_params params{};
  // Completions: a send or a poll per socket and a receive per buffer at once (the
  // buffers come back only with the next Wait), and room for bursts and cancels.
  const unsigned cq = static_cast<unsigned>(std::clamp<size_t>(
      std::bit_ceil(sockets * 2 + buf_count_ + kSubmissionEntries), 4096, 65536));
  params.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  params.cq_entries = cq;
  int r = io_uring_queue_init_params(kSubmissionEntries, ring_.get(), &params);
  if (r == -EINVAL) {  // before 6.1: completions run at interrupt time instead
    params = {};
    params.flags = IORING_SETUP_CQSIZE;
    params.cq_entries = cq;
    r = io_uring_queue_init_params(kSubmissionEntries, ring_.get(), &params);
  }
  if (r < 0) return KernelError("io_uring_setup", r);
  ring_ready_ = true;
  if (!(params.features & IORING_FEAT_EXT_ARG)) {
    return Status::Failed("io_uring without IORING_FEAT_EXT_ARG (a kernel before 5.11)");
  }

  Result<void*> ring_mem = MapAnonymous(RingBytes());
  if (!ring_mem.ok()) return ring_mem.status();
  buf_ring_ = static_cast<io_uring_buf_ring*>(*ring_mem);
  io_uring_buf_ring_init(buf_ring_);
  io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<uint64_t>(buf_ring_);
  reg.ring_entries = buf_count_;
  reg.bgid = kBufferGroup;
  r = io_uring_register_buf_ring(ring_.get(), &reg, 0);
  if (r < 0) return KernelError("io_uring provided buffer ring (kernel 5.19+)", r);
  Result<void*> buffer_mem = MapAnonymous(BufferBytes());
  if (!buffer_mem.ok()) return buffer_mem.status();
  buffers_ = static_cast<char*>(*buffer_mem);
  AddFreshBuffers(kFirstBuffers);

  // Multishot receive came in 6.0: try it on a socket before relying on it.
  int probe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, probe) != 0) {
    return Status::IoError(ErrnoMessage("socketpair", errno));
  }
  ArmRecv(probe[0], 0);
  CancelAll(probe[0]);
  std::vector<Completion> got;
  bool answered = false, refused = false;
  Status s;
  for (int i = 0; i < 4 && s.ok() && !answered; ++i) {
    s = Wait(100'000'000, &got);
    for (const Completion& c : got) {
      if (c.kind != Completion::Kind::kRecv) continue;
      answered = true;
      refused = c.result == -EINVAL;
    }
  }
  close(probe[0]);
  close(probe[1]);
  if (!s.ok()) return s;
  if (refused) return Status::Failed("io_uring without multishot receive (a kernel before 6.0)");
  return Status::OK();
}

inline void Uring::RecycleBuffer(unsigned id) {
  io_uring_buf_ring_add(buf_ring_, buffers_ + static_cast<size_t>(id) * kBufferSize,
                        kBufferSize, static_cast<unsigned short>(id),
                        io_uring_buf_ring_mask(buf_count_), 0);
  io_uring_buf_ring_advance(buf_ring_, 1);
}

void Uring::AddFreshBuffers(unsigned n) {
  n = std::min(n, buf_count_ - fresh_);
  for (unsigned i = 0; i < n; ++i) RecycleBuffer(fresh_++);
}

io_uring_sqe* Uring::Sqe() {
  if (!failure_.ok()) return nullptr;
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) {  // the submission queue is full: hand it to the kernel now
    ++enter_calls_;
    int r = io_uring_submit(ring_.get());
    if (r < 0) failure_ = KernelError("io_uring_enter", r);
    sqe = r < 0 ? nullptr : io_uring_get_sqe(ring_.get());
  }
  return sqe;
}

void Uring::ArmRecv(int fd, uint32_t token) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;  // Wait reports the failure
  io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, kRecvTag | token);
}

void Uring::Send(int fd, const char* data, size_t len, uint32_t token) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  io_uring_prep_send(sqe, fd, data, std::min(len, kMaxSend), MSG_NOSIGNAL | MSG_WAITALL);
  io_uring_sqe_set_data64(sqe, kSendTag | token);
}

void Uring::PollWritable(int fd, uint32_t token) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  io_uring_prep_poll_add(sqe, fd, POLLOUT);
  io_uring_sqe_set_data64(sqe, kPollTag | token);
}

void Uring::CancelAll(int fd) {
  io_uring_sqe* sqe = Sqe();
  if (sqe == nullptr) return;
  io_uring_prep_cancel_fd(sqe, fd, IORING_ASYNC_CANCEL_ALL);
  io_uring_sqe_set_data64(sqe, kCancelTag);
  // Submitted now, while fd still names the socket: a cancel by fd looks it up when it
  // runs, and the requests it finds (a poll-armed receive or send) end within it. With
  // the deferred task work run too (GETEVENTS), they also let go of the socket.
  ++enter_calls_;
  int r = io_uring_submit_and_get_events(ring_.get());
  if (r < 0) failure_ = KernelError("io_uring_enter", r);
}

Status Uring::Wait(int64_t timeout_ns, std::vector<Completion>* out) {
  out->clear();
  if (!failure_.ok()) return failure_;
  for (unsigned id : to_recycle_) RecycleBuffer(id);
  to_recycle_.clear();
  ++enter_calls_;
  int r;
  if (timeout_ns <= 0) {
    // A poll (an open loop's spin): submits and runs the completions' deferred work
    // without waiting. A zero timeout to the call below would arm a timer and sleep
    // until its interrupt.
    r = io_uring_submit_and_get_events(ring_.get());
  } else {
    __kernel_timespec ts{};
    ts.tv_sec = timeout_ns / 1'000'000'000;
    ts.tv_nsec = timeout_ns % 1'000'000'000;
    io_uring_cqe* first = nullptr;
    r = io_uring_submit_and_wait_timeout(ring_.get(), &first, 1, &ts, nullptr);
  }
  if (r < 0 && r != -ETIME && r != -EINTR && r != -EBUSY) return KernelError("io_uring_enter", r);
  unsigned head, seen = 0;
  bool short_of_buffers = false;
  io_uring_cqe* cqe;
  io_uring_for_each_cqe(ring_.get(), head, cqe) {
    ++seen;
    const uint64_t data = io_uring_cqe_get_data64(cqe);
    const uint64_t tag = data & kTagMask;
    if (tag == kCancelTag) continue;
    Completion c{};
    c.token = static_cast<uint32_t>(data);
    c.result = cqe->res;
    if (tag == kSendTag) {
      c.kind = Completion::Kind::kSend;
    } else if (tag == kPollTag) {
      c.kind = Completion::Kind::kWritable;
    } else {
      c.kind = Completion::Kind::kRecv;
      c.more = (cqe->flags & IORING_CQE_F_MORE) != 0;
      if (cqe->flags & IORING_CQE_F_BUFFER) {
        const unsigned id = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
        c.data = buffers_ + static_cast<size_t>(id) * kBufferSize;
        to_recycle_.push_back(id);
      } else {
        short_of_buffers |= c.result == -ENOBUFS;
      }
    }
    out->push_back(c);
  }
  io_uring_cq_advance(ring_.get(), seen);
  // Half the buffers handed out in one wake-up, or a receive left without: twice as
  // many from now on, up to buf_count_.
  if (short_of_buffers || to_recycle_.size() * 2 > fresh_) AddFreshBuffers(fresh_);
  return Status::OK();
}

}  // namespace memstand

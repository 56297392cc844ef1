// The Worker's transport: socket reads and writes of its connections, over epoll
// (read/write on readiness) or io_uring (a multishot receive from a provided buffer
// ring, one send in flight per connection). It moves bytes only: what they mean is the
// protocol session's (worker.cc), which gets every received byte through Deliver. A
// connection that fails here is failed through the worker's Fail (virtual: the only
// virtual call, off the hot path).
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "core/clock.h"
#include "core/reactor.h"
#include "core/socket.h"
#include "core/uring.h"
#include "load/worker.h"
#include "load/worker_conn.h"

namespace memstand {

void WorkerBase::FailRead(ConnIo& c, int err) {
  // A server that answers an error and closes (maxclients) resets the connection if
  // requests were unread: its error is the reason either way.
  std::string said;
  if (!c.last_error.empty()) said = "; the server's last error reply: '" + c.last_error + "'";
  if (c.received == 0 && !c.tls) said += "; " + std::string(kExpectsTlsHint);
  if (c.tls && !c.tls->handshake_done()) said += " in the TLS handshake (" + Peer(c) + ")";
  if (err != 0) return Fail(c, Status::IoError(ErrnoMessage("read", err) + said));
  Fail(c, Status::IoError("the server closed the connection (" + std::to_string(Pending(c)) +
                          " requests in flight)" + said));
}

bool WorkerBase::Seal(ConnIo& c) {
  if (c.tls->handshake_done() && c.out.Readable() > 0) {
    Status s = c.tls->Write(c.out.ReadPtr(), c.out.Readable());
    if (!s.ok()) {
      Fail(c, s.WithContext(Peer(c)));
      return false;
    }
    c.out.Clear();
  }
  c.tls->TakeOutput(&c.tls_out);
  return true;
}

void WorkerBase::Flush(ConnIo& c) {
  if (c.state == ConnIo::State::kConnecting) return;  // OnConnected flushes
  if (uring_) return SendQueued(c);
  if (c.tls && !Seal(c)) return;
  Buffer& wire = c.tls ? c.tls_out : c.out;  // what goes on the socket
  while (wire.Readable() > 0) {
    ssize_t n = write(c.fd, wire.ReadPtr(), wire.Readable());
    ++stats_.write_calls;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return Fail(c, Status::IoError(ErrnoMessage("write", errno)));
    }
    stats_.socket_bytes_written += static_cast<uint64_t>(n);
    wire.Consume(static_cast<size_t>(n));
  }
  bool pending = wire.Readable() > 0;
  if (pending != c.want_write) {
    c.want_write = pending;
    reactor_->Modify(c.fd, Reactor::kReadable | (pending ? Reactor::kWritable : 0), c.slot);
  }
}

void WorkerBase::FlushQueued() {
  // Writes after every event of a wake-up is handled: the server then finds many
  // requests at once instead of being woken once per connection.
  // Nothing queues meanwhile: a flush only writes (or, with io_uring, starts a send).
  for (size_t i = 0; i < flushes_; ++i) {
    ConnIo* c = flush_queue_[i];
    c->flush_queued = false;
    if (c->state != ConnIo::State::kClosed) Flush(*c);
  }
  flushes_ = 0;
}

void WorkerBase::Close(ConnIo& c) {
  if (c.fd >= 0) {
    if (uring_) {
      // Done before close: then no request of c reads or fills its buffers any more,
      // and their late completions carry the old generation (TokenConn drops them).
      uring_->CancelAll(c.fd);
      ++c.generation;
    } else {
      reactor_->Remove(c.fd);
    }
    close(c.fd);
    c.fd = -1;
    --open_conns_;
  }
  c.state = ConnIo::State::kClosed;
}

void WorkerBase::ReleaseIdleBuffers() {
  for (auto& io : conns_) {
    ConnIo& c = *io;
    const bool quiet = c.received == c.received_at_sweep;
    c.received_at_sweep = c.received;
    if (!quiet || c.state != ConnIo::State::kRunning || c.flush_queued || Pending(c) > 0) continue;
    // A buffer with bytes (to write, or a send's in flight) keeps them: Release refuses.
    c.out.Release();
    c.sending.Release();
    c.tls_out.Release();
    if (c.tls) c.tls->ReleaseBuffers();
  }
}

// A client's keys spread its requests over every master, so refilling its window reply
// by reply sent each master a request or two per write: a TCP segment, a server wake-up
// and the kernel's loopback work for every few requests, which is most of what a
// request costs. Sent a window at a time (--pipeline x masters, spread by key), each
// master's connection gets about --pipeline requests per write, as redis-benchmark's
// -P sends N and waits for the N replies (bench/README.md, "Redis Cluster", has the
// writes per request and the CPU it saves). The open loop sends each request at its
// time instead; --pipeline 1 keeps its sliding window.
bool WorkerBase::WaitsForItsWindow(const Client& cl) const {
  return cl.in_flight > 0 && !open_loop_ && opt_.pipeline > 1;
}

Status WorkerBase::WatchNewConnection(ConnIo& c) {
  if (c.slot > ConnIo::kTokenSlotMask) {
    return Status::Failed("more than " + std::to_string(ConnIo::kTokenSlotMask + 1) +
                          " connections in one load thread");
  }
  if (started_ && cluster_ && !c.reopening) ++stats_.cluster_connections_opened;
  if (!uring_) return reactor_->Add(c.fd, Reactor::kWritable, c.slot);
  // Mid-run under --io uring: the connect's end comes as a completion, then OnConnected
  // arms the receive (WatchConnected) and the set-up goes out as sends. Nothing of c
  // touches epoll, so one wait (the ring's) still sees everything.
  uring_->PollWritable(c.fd, c.token());
  if (completions_.capacity() < 2 * conns_.size()) completions_.reserve(4 * conns_.size());
  return Status::OK();
}

bool WorkerBase::ConnectPolled(ConnIo& c, int result) {
  if (result >= 0) return true;
  Fail(c, Status::IoError(ErrnoMessage("poll", -result)).WithContext(Peer(c)));
  return false;
}

void WorkerBase::WatchConnected(ConnIo& c) {
  if (uring_) return ArmRecv(c);
  reactor_->Modify(c.fd, Reactor::kReadable, c.slot);
}

// ---------------------------------------------------------------------------------
// --io uring: the measured loop's socket I/O through one io_uring (core/uring.h).
// The connections of the start are made and set up over epoll; at the common start
// each one leaves epoll for a multishot receive, and its writes become sends, one in
// flight at a time. A connection opened later is watched through the ring from its
// connect on (WatchNewConnection).

// --cluster: room for as many connections again, to masters a redirect names later.
size_t WorkerBase::RingSockets() const { return conns_.size() * (cluster_ ? 2 : 1); }

void WorkerBase::SwitchToUring(std::unique_ptr<Uring> ring) {
  uring_ = std::move(ring);
  completions_.reserve(RingSockets() * 2);
  for (auto& c : conns_) {
    if (c->fd < 0) continue;
    reactor_->Remove(c->fd);
    c->want_write = false;
    ArmRecv(*c);
    if (c->out.Readable() + c->tls_out.Readable() > 0) QueueFlush(*c);
  }
}

void WorkerBase::ArmRecv(ConnIo& c) { uring_->ArmRecv(c.fd, c.token()); }

void WorkerBase::SendQueued(ConnIo& c) {
  if (c.tls && !Seal(c)) return;
  Buffer& wire = c.tls ? c.tls_out : c.out;
  if (c.sending.Readable() > 0 || wire.Readable() == 0) return;  // one send at a time
  wire.Swap(c.sending);  // wire goes on with the buffer the last send emptied
  SendRest(c);
}

inline void WorkerBase::SendRest(ConnIo& c) {
  uring_->Send(c.fd, c.sending.ReadPtr(), c.sending.Readable(), c.token());
  ++stats_.write_calls;
}

void WorkerBase::OnSent(ConnIo& c, int result) {
  if (result < 0) return Fail(c, Status::IoError(ErrnoMessage("send", -result)));
  if (result == 0) return Fail(c, Status::IoError("send: the connection took no bytes"));
  stats_.socket_bytes_written += static_cast<uint64_t>(result);
  c.sending.Consume(static_cast<size_t>(result));
  // Sends go whole (MSG_WAITALL) but are capped at Uring::kMaxSend: the rest goes first.
  if (c.sending.Readable() > 0) return SendRest(c);
  if (c.out.Readable() + c.tls_out.Readable() > 0) QueueFlush(c);
}

}  // namespace memstand

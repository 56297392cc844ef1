// The Worker's transport: socket reads and writes of its connections, over epoll
// (read/write on readiness) or io_uring (a multishot receive from a provided buffer
// ring, one send in flight per connection), through TLS where a connection has it. It
// moves bytes only: what they mean is the protocol session's (worker.cc), which gets
// every received byte through Deliver. What can fail returns why; the caller fails the
// connection.
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/socket.h"
#include "core/uring.h"
#include "load/worker.h"
#include "load/worker_conn.h"

namespace memstand {

bool WorkerBase::ReadSome(ConnIo& c, size_t* n, int* err) {
  ssize_t got = read(c.fd, read_buf_.data(), read_buf_.size());
  ++stats_.read_calls;
  *n = 0;
  if (got == 0) {
    *err = 0;
    return false;
  }
  if (got < 0) {
    *err = errno;
    return errno == EAGAIN || errno == EINTR;
  }
  stats_.socket_bytes_read += static_cast<uint64_t>(got);
  *n = static_cast<size_t>(got);
  return true;
}

Status WorkerBase::Seal(ConnIo& c) {
  if (c.tls->handshake_done() && c.out.Readable() > 0) {
    Status s = c.tls->Write(c.out.ReadPtr(), c.out.Readable());
    if (!s.ok()) return s.WithContext(Peer(c));
    c.out.Clear();
  }
  c.tls->TakeOutput(&c.tls_out);
  return Status::OK();
}

Status WorkerBase::Flush(ConnIo& c) {
  if (c.state == ConnIo::State::kConnecting) return Status::OK();  // OnConnected flushes
  if (uring_) return SendQueued(c);
  if (c.tls) {
    Status s = Seal(c);
    if (!s.ok()) return s;
  }
  Buffer& wire = c.tls ? c.tls_out : c.out;  // what goes on the socket
  while (wire.Readable() > 0) {
    ssize_t n = write(c.fd, wire.ReadPtr(), wire.Readable());
    ++stats_.write_calls;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      return Status::IoError(ErrnoMessage("write", errno));
    }
    stats_.socket_bytes_written += static_cast<uint64_t>(n);
    wire.Consume(static_cast<size_t>(n));
  }
  bool pending = wire.Readable() > 0;
  if (pending != c.want_write) {
    c.want_write = pending;
    reactor_->Modify(c.fd, Reactor::kReadable | (pending ? Reactor::kWritable : 0), c.slot);
  }
  return Status::OK();
}

void WorkerBase::QueueFlush(ConnIo& c) {
  if (c.flush_queued) return;
  c.flush_queued = true;
  flush_queue_.push_back(&c);
}

void WorkerBase::Close(ConnIo& c) {
  if (c.fd >= 0) {
    if (uring_) {
      uring_->CancelAll(c.fd);  // done before close; late completions find kClosed
    } else {
      reactor_->Remove(c.fd);
    }
    close(c.fd);
    c.fd = -1;
    --open_conns_;
  }
  c.state = ConnIo::State::kClosed;
}

// ---------------------------------------------------------------------------------
// --io uring: the measured loop's socket I/O through one io_uring (core/uring.h).
// Connections are made and set up over epoll; at the common start each one leaves
// epoll for a multishot receive, and its writes become sends, one in flight at a time.

void WorkerBase::SwitchToUring(std::unique_ptr<Uring> ring) {
  uring_ = std::move(ring);
  completions_.reserve(conns_.size() * 2);
  for (auto& c : conns_) {
    if (c->fd < 0) continue;
    reactor_->Remove(c->fd);
    c->want_write = false;
    uring_->ArmRecv(c->fd, c->slot);
    if (c->out.Readable() + c->tls_out.Readable() > 0) QueueFlush(*c);
  }
}

Status WorkerBase::SendQueued(ConnIo& c) {
  if (c.tls) {
    Status s = Seal(c);
    if (!s.ok()) return s;
  }
  Buffer& wire = c.tls ? c.tls_out : c.out;
  if (c.sending.Readable() > 0 || wire.Readable() == 0) return Status::OK();  // one send at a time
  std::swap(wire, c.sending);  // wire goes on with the buffer the last send emptied
  SendRest(c);
  return Status::OK();
}

void WorkerBase::SendRest(ConnIo& c) {
  uring_->Send(c.fd, c.sending.ReadPtr(), c.sending.Readable(), c.slot);
  ++stats_.write_calls;
}

Status WorkerBase::OnSent(ConnIo& c, int result) {
  if (result < 0) return Status::IoError(ErrnoMessage("send", -result));
  if (result == 0) return Status::IoError("send: the connection took no bytes");
  stats_.socket_bytes_written += static_cast<uint64_t>(result);
  c.sending.Consume(static_cast<size_t>(result));
  // Sends go whole (MSG_WAITALL) but are capped at Uring::kMaxSend: the rest goes first.
  if (c.sending.Readable() > 0) {
    SendRest(c);
  } else if (c.out.Readable() + c.tls_out.Readable() > 0) {
    QueueFlush(c);
  }
  return Status::OK();
}

}  // namespace memstand

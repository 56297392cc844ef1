// The Worker's transport: socket reads and writes of its connections, over epoll
// (read/write on readiness) or io_uring (a multishot receive from a provided buffer
// ring, one send in flight per connection). It moves bytes only: what they mean is the
// protocol session's (worker.cc), which gets every received byte through Deliver.
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/clock.h"
#include "core/socket.h"
#include "core/uring.h"
#include "load/worker.h"
#include "load/worker_conn.h"

namespace memstand {

// Reads what the socket has into read_buf_ (both protocol paths): the byte count, or 0
// when there is nothing to parse (it would block, or the connection failed and Fail ran).
size_t Worker::ReadSome(Conn& c) {
  ssize_t n = read(c.fd, read_buf_.data(), read_buf_.size());
  ++stats_.read_calls;
  if (n == 0) {
    FailRead(c, 0);
    return 0;
  }
  if (n < 0) {
    if (errno != EAGAIN && errno != EINTR) FailRead(c, errno);
    return 0;
  }
  stats_.socket_bytes_read += static_cast<uint64_t>(n);
  return static_cast<size_t>(n);
}

void Worker::FailRead(Conn& c, int err) {
  // A server that answers an error and closes (maxclients) resets the connection if
  // requests were unread: its error is the reason either way.
  std::string said;
  if (!c.last_error.empty()) said = "; the server's last error reply: '" + c.last_error + "'";
  if (c.received == 0 && !c.tls) said += "; " + std::string(kExpectsTlsHint);
  if (c.tls && !c.tls->handshake_done()) said += " in the TLS handshake (" + Peer(c) + ")";
  if (err != 0) return Fail(c, Status::IoError(ErrnoMessage("read", err) + said));
  Fail(c, Status::IoError("the server closed the connection (" + std::to_string(c.count) +
                          " requests in flight)" + said));
}

void Worker::OnReadable(Conn& c) {
  const size_t n = ReadSome(c);
  if (n == 0) return;
  Receive(c, read_buf_.data(), n);
}

void Worker::Receive(Conn& c, const char* p, size_t n) {
  c.received += n;
  if (!c.tls) return Deliver(c, p, n);
  ReceiveTls(c, p, n);
}

// Ciphertext in: the handshake's next step (then the protocol's set-up), or plaintext
// decrypted into read_buf_ (p may point there: the session has copied it) and
// delivered. What the session has to send back is queued.
void Worker::ReceiveTls(Conn& c, const char* p, size_t n) {
  TlsSession& tls = *c.tls;
  tls.Feed(p, n);
  if (!tls.handshake_done()) {
    Result<bool> done = tls.Handshake();
    if (!done.ok()) return Fail(c, done.status().WithContext(Peer(c)));
    QueueFlush(c);
    if (!*done) return;
    StartSession(c);
    if (c.state == Conn::State::kClosed) return;
  }
  for (;;) {
    Result<size_t> got = tls.Read(read_buf_.data(), read_buf_.size());
    if (!got.ok()) return Fail(c, got.status().WithContext(Peer(c)));
    if (*got == 0) break;
    Deliver(c, read_buf_.data(), *got);
    if (c.state == Conn::State::kClosed) return;
  }
  if (tls.HasOutput()) QueueFlush(c);
}

bool Worker::Seal(Conn& c) {
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

void Worker::Flush(Conn& c) {
  if (c.state == Conn::State::kConnecting) return;  // OnConnected flushes
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

void Worker::QueueFlush(Conn& c) {
  if (c.flush_queued) return;
  c.flush_queued = true;
  flush_queue_.push_back(&c);
}

void Worker::FlushQueued() {
  // Writes after every event of a wake-up is handled: the server then finds many
  // requests at once instead of being woken once per connection.
  for (Conn* c : flush_queue_) {
    c->flush_queued = false;
    if (c->state != Conn::State::kClosed) Flush(*c);
  }
  flush_queue_.clear();
}

void Worker::Close(Conn& c) {
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
  c.state = Conn::State::kClosed;
}

// ---------------------------------------------------------------------------------
// --io uring: the measured loop's socket I/O through one io_uring (core/uring.h).
// Connections are made and set up over epoll; at the common start each one leaves
// epoll for a multishot receive, and its writes become sends, one in flight at a time.

void Worker::SwitchToUring(std::unique_ptr<Uring> ring) {
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

bool Worker::WaitCompletions(int64_t timeout_ns, int64_t* now_out) {
  Status s = uring_->Wait(timeout_ns, &completions_);
  if (!s.ok()) {
    if (failure_.ok()) failure_ = s;
    shared_->stop = true;
    return false;
  }
  const int64_t now = NowNs();
  *now_out = now;
  if (now >= next_deadline_ns_) CheckTimeouts(now);  // replies after the deadline are late
  for (const Uring::Completion& e : completions_) {
    Conn& c = *conns_[e.token];
    if (c.state == Conn::State::kClosed) continue;  // cancelled or late
    if (e.kind == Uring::Completion::Kind::kSend) {
      OnSent(c, e.result);
    } else {
      OnReceived(c, e, now);
    }
  }
  return true;
}

void Worker::OnReceived(Conn& c, const Uring::Completion& e, int64_t now) {
  if (e.result == -ENOBUFS) {  // every receive buffer was taken: the multishot ended
    ++stats_.receive_buffer_waits;
    return uring_->ArmRecv(c.fd, c.slot);
  }
  if (e.result <= 0) return FailRead(c, -e.result);
  ++stats_.read_calls;
  stats_.socket_bytes_read += static_cast<uint64_t>(e.result);
  Receive(c, e.data, static_cast<size_t>(e.result));
  if (c.state == Conn::State::kClosed) return;
  if (!e.more) uring_->ArmRecv(c.fd, c.slot);
  Fill(*c.client, now);
  if (c.out.Readable() > 0) QueueFlush(c);
}

void Worker::SendQueued(Conn& c) {
  if (c.tls && !Seal(c)) return;
  Buffer& wire = c.tls ? c.tls_out : c.out;
  if (c.sending.Readable() > 0 || wire.Readable() == 0) return;  // one send at a time
  std::swap(wire, c.sending);  // wire goes on with the buffer the last send emptied
  SendRest(c);
}

void Worker::SendRest(Conn& c) {
  uring_->Send(c.fd, c.sending.ReadPtr(), c.sending.Readable(), c.slot);
  ++stats_.write_calls;
}

void Worker::OnSent(Conn& c, int result) {
  if (result < 0) return Fail(c, Status::IoError(ErrnoMessage("send", -result)));
  if (result == 0) return Fail(c, Status::IoError("send: the connection took no bytes"));
  stats_.socket_bytes_written += static_cast<uint64_t>(result);
  c.sending.Consume(static_cast<size_t>(result));
  // Sends go whole (MSG_WAITALL) but are capped at Uring::kMaxSend: the rest goes first.
  if (c.sending.Readable() > 0) return SendRest(c);
  if (c.out.Readable() + c.tls_out.Readable() > 0) QueueFlush(c);
}

}  // namespace memstand

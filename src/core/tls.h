// TLS for client connections over any byte transport (OpenSSL with memory BIOs): the
// caller moves ciphertext between the socket and the session, and plaintext between the
// session and its protocol. The session never touches a file descriptor, so the epoll
// path (read/write), the io_uring path (provided buffers, one send in flight) and a
// blocking control client all drive it the same way:
//   received ciphertext -> Feed(); Handshake() until done; then Read() plaintext;
//   plaintext to send -> Write(); ciphertext to send <- TakeOutput() (after every call).
// A TlsContext is configured once and then shared read-only by every thread; a
// TlsSession belongs to one connection and one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/buffer.h"
#include "util/status.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;
typedef struct bio_st BIO;

namespace memstand {

/// What the client checks and shows (memstand run's --tls-* flags, docs/tls.md).
struct TlsOptions {
  bool enabled = false;    // rediss:// or --tls
  std::string ca_file;     // --tls-ca: trusted CAs (PEM); empty: the system's store
  std::string cert_file;   // --tls-cert: client certificate chain (PEM), for mutual TLS
  std::string key_file;    // --tls-key: its private key (PEM); never read into messages
  bool skip_verify = false;  // --tls-skip-verify: no certificate or name check
  /// --sni: the name sent as SNI and checked in the certificate. Empty: the target's
  /// host when it is a name (an IP literal is sent no SNI and checked as an IP).
  std::string sni;
};

/// One client SSL_CTX. Create checks every file now, so that a wrong path or a key that
/// does not match its certificate is an error before any connection.
class TlsContext {
 public:
  /// InvalidArgument naming the flag and OpenSSL's reason. REQUIRES: options.enabled.
  static Result<std::shared_ptr<const TlsContext>> Create(const TlsOptions& options);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  const TlsOptions& options() const { return options_; }
  SSL_CTX* ctx() const { return ctx_; }

 private:
  TlsContext(const TlsOptions& o, SSL_CTX* ctx) : options_(o), ctx_(ctx) {}
  TlsOptions options_;
  SSL_CTX* ctx_;
};

class TlsSession {
 public:
  /// A client session to `host` (the target's host or IP literal; the SNI and the
  /// name checked come from it unless the context's options.sni is set). Its first
  /// ciphertext (the ClientHello) waits in TakeOutput.
  static Result<std::unique_ptr<TlsSession>> Start(std::shared_ptr<const TlsContext> ctx,
                                                   const std::string& host);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  /// Ciphertext that arrived from the server, in order.
  void Feed(const char* p, size_t n);
  /// Advances the handshake with what was fed: true once it is complete, false while it
  /// needs more from the server; a Failed status with OpenSSL's reason (a certificate
  /// that does not verify says why) when it cannot complete.
  Result<bool> Handshake();
  bool handshake_done() const { return done_; }
  /// Plaintext decrypted from what was fed, up to cap bytes: 0 when it needs more
  /// ciphertext. An IoError when the server closed the TLS session (close_notify) or
  /// sent what does not decrypt. REQUIRES: handshake_done().
  Result<size_t> Read(char* buf, size_t cap);
  /// Encrypts p[0, n) (all of it: the output grows as needed). REQUIRES: handshake_done().
  Status Write(const char* p, size_t n);
  /// Moves every ciphertext byte waiting to be sent to the end of *out.
  void TakeOutput(Buffer* out);
  /// Whether ciphertext waits to be sent.
  bool HasOutput() const;
  /// Ciphertext fed and taken so far (the bytes on the wire, the handshake included).
  uint64_t fed_bytes() const { return fed_; }
  uint64_t taken_bytes() const { return taken_; }
  /// Gives back what an idle session holds beyond its state: OpenSSL's record buffers
  /// and the memory BIOs' (which keep their largest size otherwise). Does nothing while
  /// ciphertext or plaintext is pending either way; the next Feed or Write takes memory
  /// again.
  void ReleaseBuffers();
  /// The protocol and cipher agreed, e.g. "TLSv1.3 TLS_AES_256_GCM_SHA384".
  std::string Describe() const;

 private:
  TlsSession(std::shared_ptr<const TlsContext> ctx, SSL* ssl, BIO* in, BIO* out)
      : ctx_(std::move(ctx)), ssl_(ssl), in_(in), out_(out) {}
  /// The reason of a failed call that returned `ret`, from the error queue.
  std::string Reason(int ret) const;

  std::shared_ptr<const TlsContext> ctx_;
  SSL* ssl_;
  BIO* in_;   // ciphertext from the server (owned by ssl_)
  BIO* out_;  // ciphertext to the server (owned by ssl_)
  bool done_ = false;
  uint64_t fed_ = 0, taken_ = 0;
};

/// The blocking side for control clients on a non-blocking socket, each bounded by one
/// deadline (NowNs()'s clock) as core/socket.h's ReadSomeBy and WriteAllBy.
/// Runs the handshake to its end over fd.
Status TlsHandshakeBy(TlsSession* tls, int fd, int64_t deadline_ns);
/// Encrypts and sends all of data.
Status TlsWriteAllBy(TlsSession* tls, int fd, const char* data, size_t len, int64_t deadline_ns);
/// Reads plaintext: waits until at least one byte decrypts; 0 when the peer closed the
/// connection.
Result<size_t> TlsReadSomeBy(TlsSession* tls, int fd, char* buf, size_t cap, int64_t deadline_ns);
/// Between requests: feeds the ciphertext the socket already holds (no wait for more;
/// TLS 1.3 session tickets arrive so) and appends what decrypts to *plain, so that a
/// caller can tell stray replies from records that carry none.
Status TlsDrainPendingBy(TlsSession* tls, int fd, Buffer* plain, int64_t deadline_ns);

/// Said when a plaintext connection is closed or reset before any reply (what a TLS
/// port does to a plaintext client: Redis resets it).
inline constexpr const char* kExpectsTlsHint =
    "nothing came before: if that port is a TLS port, the server expects TLS (use --tls, "
    "or rediss://, memcache+tls:// or etcd+tls://host:port)";

/// Whether a server's first bytes look like a TLS record (a handshake or an alert, as
/// a TLS port answers a plaintext client): for "the server expects TLS" hints.
bool LooksLikeTls(const char* p, size_t n);

}  // namespace memstand

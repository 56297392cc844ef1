#include "core/tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <climits>

#include "core/socket.h"

namespace memstand {

namespace {

constexpr size_t kChunk = 16 * 1024;

// The reason of the newest error in the thread's queue ("" when empty); empties it.
std::string QueueReason() {
  unsigned long last = 0;
  while (unsigned long e = ERR_get_error()) last = e;
  if (last == 0) return "";
  const char* reason = ERR_reason_error_string(last);
  if (reason != nullptr) return reason;
  char buf[256];
  ERR_error_string_n(last, buf, sizeof buf);
  return buf;
}

Status FileError(const std::string& flag, const std::string& path, const std::string& what) {
  std::string reason = QueueReason();
  return Status::InvalidArgument(flag + " " + path + ": " + what +
                                 (reason.empty() ? "" : " (" + reason + ")"));
}

// An encrypted key would make OpenSSL prompt on the terminal: refused instead.
int NoPassword(char*, int, int, void*) { return 0; }

bool IsIpLiteral(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

Status Configure(const TlsOptions& o, SSL_CTX* ctx) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_default_passwd_cb(ctx, NoPassword);
  SSL_CTX_set_verify(ctx, o.skip_verify ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  if (!o.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, o.ca_file.c_str(), nullptr) != 1) {
      return FileError("--tls-ca", o.ca_file, "cannot load CA certificates (PEM expected)");
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
    return FileError("--tls-ca", "(default)", "cannot load the system's CA store");
  }
  if (o.cert_file.empty() != o.key_file.empty()) {
    return Status::InvalidArgument("--tls-cert and --tls-key: give both (a client certificate and "
                                   "its private key) or neither");
  }
  if (o.cert_file.empty()) return Status::OK();
  if (SSL_CTX_use_certificate_chain_file(ctx, o.cert_file.c_str()) != 1) {
    return FileError("--tls-cert", o.cert_file, "cannot load the certificate (PEM expected)");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, o.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    const bool mismatch = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    return FileError("--tls-key", o.key_file,
                     mismatch ? "does not match the certificate of --tls-cert"
                              : "cannot load the private key (an unencrypted PEM key expected)");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return FileError("--tls-key", o.key_file, "does not match the certificate of --tls-cert");
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const TlsContext>> TlsContext::Create(const TlsOptions& options) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return Status::Failed("TLS: cannot create a context: " + QueueReason());
  std::shared_ptr<const TlsContext> c(new TlsContext(options, ctx));
  Status s = Configure(options, ctx);
  if (!s.ok()) return s;
  return c;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Result<std::unique_ptr<TlsSession>> TlsSession::Start(std::shared_ptr<const TlsContext> ctx,
                                                      const std::string& host) {
  ERR_clear_error();
  SSL* ssl = SSL_new(ctx->ctx());
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  if (ssl == nullptr || in == nullptr || out == nullptr) {
    SSL_free(ssl);
    BIO_free(in);
    BIO_free(out);
    return Status::Failed("TLS: cannot create a session: " + QueueReason());
  }
  BIO_set_mem_eof_return(in, -1);  // no ciphertext yet: "retry", not end of stream
  SSL_set_bio(ssl, in, out);
  std::unique_ptr<TlsSession> t(new TlsSession(std::move(ctx), ssl, in, out));
  const TlsOptions& o = t->ctx_->options();
  const std::string name = o.sni.empty() ? host : o.sni;
  const bool ip = IsIpLiteral(name);
  if (!ip && SSL_set_tlsext_host_name(ssl, name.c_str()) != 1) {
    return Status::InvalidArgument("--sni: '" + name + "' cannot be sent as a server name");
  }
  if (!o.skip_verify) {
    const int set = ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name.c_str())
                       : SSL_set1_host(ssl, name.c_str());
    if (set != 1) return Status::InvalidArgument("TLS: cannot check the name '" + name + "'");
  }
  SSL_set_connect_state(ssl);
  auto first = t->Handshake();  // the ClientHello, into the output
  if (!first.ok()) return first.status();
  return t;
}

TlsSession::~TlsSession() { SSL_free(ssl_); }

void TlsSession::ReleaseBuffers() {
  if (!done_ || BIO_ctrl_pending(in_) != 0 || BIO_ctrl_pending(out_) != 0 ||
      SSL_pending(ssl_) != 0) {
    return;
  }
  SSL_free_buffers(ssl_);  // refuses (0) while a record is partly read or written
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  if (in == nullptr || out == nullptr) {
    BIO_free(in);
    BIO_free(out);
    return;
  }
  BIO_set_mem_eof_return(in, -1);
  SSL_set0_rbio(ssl_, in);  // frees the old ones
  SSL_set0_wbio(ssl_, out);
  in_ = in;
  out_ = out;
}

void TlsSession::Feed(const char* p, size_t n) {
  fed_ += n;
  while (n > 0) {
    const int part = static_cast<int>(std::min<size_t>(n, INT_MAX));
    BIO_write(in_, p, part);  // a memory BIO takes everything
    p += part;
    n -= static_cast<size_t>(part);
  }
}

Result<bool> TlsSession::Handshake() {
  if (done_) return true;
  ERR_clear_error();
  const int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    done_ = true;
    return true;
  }
  const int err = SSL_get_error(ssl_, r);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return false;
  return Status::Failed("TLS handshake failed: " + Reason(r));
}

std::string TlsSession::Reason(int ret) const {
  const long verify = SSL_get_verify_result(ssl_);
  std::string queued = QueueReason();
  if (verify != X509_V_OK) {
    return "certificate verify failed: " + std::string(X509_verify_cert_error_string(verify)) +
           " (--tls-ca names the CA to trust; --tls-skip-verify checks nothing)";
  }
  if (!queued.empty()) return queued;
  const int err = SSL_get_error(ssl_, ret);
  if (err == SSL_ERROR_ZERO_RETURN) return "the server closed the TLS session";
  return "the server closed the connection";
}

Result<size_t> TlsSession::Read(char* buf, size_t cap) {
  ERR_clear_error();
  const int r = SSL_read(ssl_, buf, static_cast<int>(std::min<size_t>(cap, INT_MAX)));
  if (r > 0) return static_cast<size_t>(r);
  const int err = SSL_get_error(ssl_, r);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return size_t{0};
  if (err == SSL_ERROR_ZERO_RETURN) return Status::IoError("the server closed the TLS session");
  return Status::IoError("TLS: " + Reason(r));
}

Status TlsSession::Write(const char* p, size_t n) {
  while (n > 0) {
    ERR_clear_error();
    const int part = static_cast<int>(std::min<size_t>(n, 1 << 30));
    const int r = SSL_write(ssl_, p, part);
    if (r <= 0) return Status::IoError("TLS: " + Reason(r));
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::OK();
}

void TlsSession::TakeOutput(Buffer* out) {
  for (size_t pending = BIO_ctrl_pending(out_); pending > 0; pending = BIO_ctrl_pending(out_)) {
    const size_t part = std::min<size_t>(pending, INT_MAX);
    out->EnsureWritable(part);
    const int got = BIO_read(out_, out->WritePtr(), static_cast<int>(part));
    if (got <= 0) break;
    out->Commit(static_cast<size_t>(got));
    taken_ += static_cast<size_t>(got);
  }
}

bool TlsSession::HasOutput() const { return BIO_ctrl_pending(out_) > 0; }

std::string TlsSession::Describe() const {
  return std::string(SSL_get_version(ssl_)) + " " + SSL_get_cipher_name(ssl_);
}

namespace {

Status SendOutput(TlsSession* tls, int fd, int64_t deadline_ns) {
  Buffer out(0);
  tls->TakeOutput(&out);
  if (out.Readable() == 0) return Status::OK();
  return WriteAllBy(fd, out.ReadPtr(), out.Readable(), deadline_ns);
}

// Reads ciphertext once into the session: false when the peer closed the connection.
Result<bool> FeedOnce(TlsSession* tls, int fd, int64_t deadline_ns) {
  char buf[kChunk];
  auto n = ReadSomeBy(fd, buf, sizeof buf, deadline_ns);
  if (!n.ok()) return n.status();
  if (*n == 0) return false;
  tls->Feed(buf, *n);
  return true;
}

}  // namespace

Status TlsHandshakeBy(TlsSession* tls, int fd, int64_t deadline_ns) {
  for (;;) {
    auto done = tls->Handshake();
    Status s = SendOutput(tls, fd, deadline_ns);  // an alert too, before giving up
    if (!done.ok()) return done.status();
    if (!s.ok()) return s;
    if (*done) return Status::OK();
    auto more = FeedOnce(tls, fd, deadline_ns);
    if (!more.ok()) return more.status().WithContext("TLS handshake");
    if (!*more) {
      return Status::IoError("TLS handshake failed: the server closed the connection (is it a "
                             "TLS port? does it want a client certificate, --tls-cert/--tls-key?)");
    }
  }
}

Status TlsWriteAllBy(TlsSession* tls, int fd, const char* data, size_t len, int64_t deadline_ns) {
  Status s = tls->Write(data, len);
  return s.ok() ? SendOutput(tls, fd, deadline_ns) : s;
}

Result<size_t> TlsReadSomeBy(TlsSession* tls, int fd, char* buf, size_t cap, int64_t deadline_ns) {
  for (;;) {
    auto n = tls->Read(buf, cap);
    Status s = SendOutput(tls, fd, deadline_ns);  // e.g. the answer to a key update
    if (!n.ok()) return n.status();
    if (!s.ok()) return s;
    if (*n > 0) return n;
    auto more = FeedOnce(tls, fd, deadline_ns);
    if (!more.ok()) return more.status();
    if (!*more) return size_t{0};
  }
}

Status TlsDrainPendingBy(TlsSession* tls, int fd, Buffer* plain, int64_t deadline_ns) {
  char raw[kChunk];
  while (HasPendingBytes(fd)) {
    auto n = ReadSomeBy(fd, raw, sizeof raw, deadline_ns);
    if (!n.ok()) return n.status();
    if (*n == 0) break;  // a close: the next read says so
    tls->Feed(raw, *n);
  }
  for (;;) {
    plain->EnsureWritable(kChunk);
    auto got = tls->Read(plain->WritePtr(), plain->Writable());
    if (!got.ok()) return got.status();
    if (*got == 0) return Status::OK();
    plain->Commit(*got);
  }
}

bool LooksLikeTls(const char* p, size_t n) {
  if (n == 0) return false;
  const unsigned char type = static_cast<unsigned char>(p[0]);
  return (type == 0x15 || type == 0x16) && (n < 2 || p[1] == 0x03);
}

}  // namespace memstand

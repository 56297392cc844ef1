// TlsSession against an OpenSSL server session in memory: no socket, the ciphertext
// handed over a byte at a time, as codecs are tested.
#include "core/tls.h"

#include <gtest/gtest.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace memstand {
namespace {

// A self-signed P-256 certificate for 127.0.0.1 and localhost, and its key.
struct ServerIdentity {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  std::string cert_path;  // the certificate as PEM, the client's --tls-ca
  ServerIdentity() {
    key = EVP_EC_gen("P-256");
    cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name,
                                              "DNS:localhost,IP:127.0.0.1");
    X509_add_ext(cert, san, -1);
    X509_EXTENSION_free(san);
    X509_sign(cert, key, EVP_sha256());
    char tmpl[] = "/tmp/memstand-tls-test-XXXXXX";
    const int fd = mkstemp(tmpl);
    cert_path = tmpl;
    FILE* f = fdopen(fd, "w");
    PEM_write_X509(f, cert);
    fclose(f);
  }
  ~ServerIdentity() {
    unlink(cert_path.c_str());
    X509_free(cert);
    EVP_PKEY_free(key);
  }
};

// The server side: an SSL with memory BIOs, fed and drained by the test.
class MemoryServer {
 public:
  explicit MemoryServer(const ServerIdentity& id) {
    ctx_ = SSL_CTX_new(TLS_server_method());
    SSL_CTX_use_certificate(ctx_, id.cert);
    SSL_CTX_use_PrivateKey(ctx_, id.key);
    ssl_ = SSL_new(ctx_);
    in_ = BIO_new(BIO_s_mem());
    out_ = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(in_, -1);
    SSL_set_bio(ssl_, in_, out_);
    SSL_set_accept_state(ssl_);
  }
  ~MemoryServer() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }
  void Feed(const std::string& bytes) { BIO_write(in_, bytes.data(), static_cast<int>(bytes.size())); }
  bool Step() { return SSL_do_handshake(ssl_) == 1; }
  std::string Take() {
    std::string s(BIO_ctrl_pending(out_), '\0');
    if (!s.empty()) BIO_read(out_, s.data(), static_cast<int>(s.size()));
    return s;
  }
  std::string Read() {
    char buf[256];
    const int n = SSL_read(ssl_, buf, sizeof buf);
    return n > 0 ? std::string(buf, n) : "";
  }
  void Write(const std::string& s) { SSL_write(ssl_, s.data(), static_cast<int>(s.size())); }

 private:
  SSL_CTX* ctx_;
  SSL* ssl_;
  BIO* in_;
  BIO* out_;
};

std::string TakeAll(TlsSession& t) {
  Buffer b(0);
  t.TakeOutput(&b);
  return std::string(b.View());
}

// Hands the client's ciphertext to the server whole and the server's to the client a
// byte at a time, until the client's handshake ends one way or the other.
Result<bool> Pump(TlsSession& client, MemoryServer& server) {
  for (int round = 0; round < 20; ++round) {
    server.Feed(TakeAll(client));
    server.Step();
    for (char ch : server.Take()) {
      client.Feed(&ch, 1);
      auto done = client.Handshake();
      if (!done.ok() || *done) {
        server.Feed(TakeAll(client));  // the client's Finished
        server.Step();
        return done;
      }
    }
  }
  return Status::Failed("no progress");
}

TlsOptions Trusting(const ServerIdentity& id) {
  TlsOptions o;
  o.enabled = true;
  o.ca_file = id.cert_path;
  return o;
}

// A client session of a context trusting `id`, its handshake with `server` done.
void HandshakeWith(const ServerIdentity& id, MemoryServer& server,
                   std::unique_ptr<TlsSession>* out) {
  auto ctx = TlsContext::Create(Trusting(id));
  ASSERT_TRUE(ctx.ok()) << ctx.status().message();
  auto client = TlsSession::Start(*ctx, "127.0.0.1");
  ASSERT_TRUE(client.ok()) << client.status().message();
  EXPECT_TRUE((*client)->HasOutput());  // the ClientHello
  auto done = Pump(**client, server);
  ASSERT_TRUE(done.ok()) << done.status().message();
  ASSERT_TRUE(*done);
  *out = std::move(*client);
}

TEST(TlsSessionTest, HandshakeThenRequestAndReplyFedAByteAtATime) {
  ServerIdentity id;
  MemoryServer server(id);
  std::unique_ptr<TlsSession> client_session;
  ASSERT_NO_FATAL_FAILURE(HandshakeWith(id, server, &client_session));
  auto* client = &client_session;
  EXPECT_EQ((*client)->Describe().rfind("TLSv1.3 ", 0), 0u) << (*client)->Describe();
  ASSERT_TRUE((*client)->Write("PING\r\n", 6).ok());
  server.Feed(TakeAll(**client));
  EXPECT_EQ(server.Read(), "PING\r\n");
  server.Write("+PONG\r\n");
  std::string reply;
  for (char ch : server.Take()) {
    (*client)->Feed(&ch, 1);
    char buf[64];
    auto n = (*client)->Read(buf, sizeof buf);
    ASSERT_TRUE(n.ok()) << n.status().message();
    reply.append(buf, *n);
  }
  EXPECT_EQ(reply, "+PONG\r\n");
  EXPECT_GT((*client)->fed_bytes(), 7u);
  EXPECT_GT((*client)->taken_bytes(), 6u);
}

// What an idle connection does (Worker::ReleaseIdleBuffers): the session's buffers given
// back between requests; the next request and reply go through as before.
TEST(TlsSessionTest, ReleasingTheBuffersOfAnIdleSessionKeepsItWorking) {
  ServerIdentity id;
  MemoryServer server(id);
  std::unique_ptr<TlsSession> client_session;
  ASSERT_NO_FATAL_FAILURE(HandshakeWith(id, server, &client_session));
  auto* client = &client_session;
  for (int round = 0; round < 3; ++round) {
    (*client)->ReleaseBuffers();
    ASSERT_TRUE((*client)->Write("PING\r\n", 6).ok());
    (*client)->ReleaseBuffers();  // ciphertext waits to be taken: nothing is given back
    server.Feed(TakeAll(**client));
    EXPECT_EQ(server.Read(), "PING\r\n");
    server.Write("+PONG\r\n");
    const std::string wire = server.Take();
    (*client)->Feed(wire.data(), wire.size());
    char buf[64];
    auto n = (*client)->Read(buf, sizeof buf);
    ASSERT_TRUE(n.ok()) << n.status().message();
    EXPECT_EQ(std::string(buf, *n), "+PONG\r\n");
  }
}

TEST(TlsSessionTest, ANameTheCertificateDoesNotHoldFails) {
  ServerIdentity id;
  MemoryServer server(id);
  TlsOptions o = Trusting(id);
  o.sni = "elsewhere.example";
  auto ctx = TlsContext::Create(o);
  ASSERT_TRUE(ctx.ok());
  auto client = TlsSession::Start(*ctx, "127.0.0.1");
  ASSERT_TRUE(client.ok());
  auto done = Pump(**client, server);
  ASSERT_FALSE(done.ok());
  EXPECT_NE(done.status().message().find("hostname mismatch"), std::string::npos)
      << done.status().message();
  // Skipping verification accepts the same certificate.
  o.skip_verify = true;
  MemoryServer again(id);
  auto lax = TlsContext::Create(o);
  ASSERT_TRUE(lax.ok());
  auto ok = TlsSession::Start(*lax, "127.0.0.1");
  ASSERT_TRUE(ok.ok());
  auto passed = Pump(**ok, again);
  ASSERT_TRUE(passed.ok()) << passed.status().message();
  EXPECT_TRUE(*passed);
}

TEST(TlsContextTest, BadFilesAreUsageErrorsNamingTheFlag) {
  TlsOptions o;
  o.enabled = true;
  o.ca_file = "/nonexistent/ca.pem";
  auto ctx = TlsContext::Create(o);
  ASSERT_FALSE(ctx.ok());
  EXPECT_EQ(ctx.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ctx.status().message().rfind("--tls-ca /nonexistent/ca.pem", 0), 0u)
      << ctx.status().message();
  o.ca_file.clear();
  o.cert_file = "/nonexistent/me.crt";
  ctx = TlsContext::Create(o);
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(ctx.status().message().find("give both"), std::string::npos);
}

TEST(LooksLikeTlsTest, AlertsAndHandshakesButNotResp) {
  EXPECT_TRUE(LooksLikeTls("\x15\x03\x03\x00\x02", 5));
  EXPECT_TRUE(LooksLikeTls("\x16\x03\x01", 3));
  EXPECT_TRUE(LooksLikeTls("\x15", 1));
  EXPECT_FALSE(LooksLikeTls("+PONG\r\n", 7));
  EXPECT_FALSE(LooksLikeTls("\x15+", 2));
  EXPECT_FALSE(LooksLikeTls("", 0));
}

}  // namespace
}  // namespace memstand

// memcached and etcd over TLS end to end, with a CA and certificates the test makes
// (e2e/tls_util.h): Debian's memcached -Z (every listener TLS) and etcd with https
// client URLs (its HTTP/1.1 JSON gateway over TLS). On both I/O loops the request
// counts equal the server's own figures read here over TLS (memcached `stats` cmd_get
// and cmd_set; etcd's revision before and after); a wrong CA fails verification; a
// plaintext run against the TLS port says the server expects TLS.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "codec/server_util.h"
#include "core/tls.h"
#include "core/uring.h"
#include "e2e/e2e_util.h"
#include "e2e/tls_util.h"
#include "load/proto_control.h"

namespace memstand::e2e {
namespace {

using codec_test::TestServer;

int64_t OpsOrZero(const nlohmann::json& j, const std::string& label) {
  for (const auto& c : j["commands"]) {
    if (c["command"] == label) return c["ops"].get<int64_t>();
  }
  return 0;
}

int64_t Hits(const nlohmann::json& j, const std::string& label) {
  for (const auto& c : j["commands"]) {
    if (c["command"] == label) return c["hits"].get<int64_t>();
  }
  return 0;
}

// The test's own control connection over TLS (trusting the test CA).
Result<std::unique_ptr<ProtoControl>> ControlTls(Protocol p, int port, const Certs& certs,
                                                 bool with_cert = false) {
  auto ctx = TlsContext::Create(ClientTls(certs, with_cert));
  if (!ctx.ok()) return ctx.status();
  RedisTarget t;
  t.scheme = p == Protocol::kMemcache ? "memcache" : "etcd";
  t.host = "127.0.0.1";
  t.port = port;
  t.tls = true;
  return ProtoControl::Connect(p, t, 2000, *ctx);
}

// A server started by TestServer, ready once the test's TLS control connection works.
std::unique_ptr<TestServer> StartReady(std::vector<std::string> argv, Protocol p,
                                       const Certs& certs, bool with_cert = false) {
  auto server = TestServer::Start(std::move(argv));
  EXPECT_TRUE(server.ok()) << server.status().message();
  if (!server.ok()) return nullptr;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    auto c = ControlTls(p, (*server)->port(), certs, with_cert);
    if (c.ok()) return std::move(*server);
    last = c.status().message();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "no TLS answer on port " << (*server)->port() << ": " << last << "\n"
                << (*server)->LogTail();
  return nullptr;
}

// memcached -Z: TLS on its one TCP listener, the test's certificate; require_cert:
// ssl_verify_mode=2, a client without a certificate the CA signed is refused.
std::unique_ptr<TestServer> StartTlsMemcached(const Certs& c, bool require_cert = false) {
  return StartReady({"memcached", "-p", "{PORT}", "-l", "127.0.0.1", "-U", "0", "-m", "64", "-u",
                     "root", "-Z", "-o",
                     "ssl_chain_cert=" + c.server_cert + ",ssl_key=" + c.server_key +
                         ",ssl_ca_cert=" + c.ca + (require_cert ? ",ssl_verify_mode=2" : "")},
                    Protocol::kMemcache, c, require_cert);
}

// etcd with https client URLs (the peer URL stays plaintext: one member, loopback);
// require_cert: --client-cert-auth against the test CA.
std::unique_ptr<TestServer> StartTlsEtcd(const Certs& c, bool require_cert = false) {
  std::vector<std::string> argv = {"etcd", "--name", "tls-test", "--data-dir", "{DIR}/data",
                                   "--listen-client-urls", "https://127.0.0.1:{PORT}",
                                   "--advertise-client-urls", "https://127.0.0.1:{PORT}",
                                   "--listen-peer-urls", "http://127.0.0.1:{PORT2}",
                                   "--initial-advertise-peer-urls", "http://127.0.0.1:{PORT2}",
                                   "--initial-cluster", "tls-test=http://127.0.0.1:{PORT2}",
                                   "--cert-file", c.server_cert, "--key-file", c.server_key};
  if (require_cert) argv.insert(argv.end(), {"--client-cert-auth", "--trusted-ca-file", c.ca});
  return StartReady(argv, Protocol::kEtcd, c, require_cert);
}

std::string ProtoUrl(const char* scheme, const TestServer& s) {
  return std::string(scheme) + "://127.0.0.1:" + std::to_string(s.port());
}

class TlsProtoE2E : public IoModeTest {
 protected:
  void SetUp() override {
    if (Io() == "uring" && !Uring::Create(1).ok()) GTEST_SKIP() << "no io_uring here";
  }
};

TEST_P(TlsProtoE2E, MemcacheCountsEqualStatsReadOverTls) {
  Certs certs = MakeCerts();
  auto mc = StartTlsMemcached(certs);
  ASSERT_NE(mc, nullptr);
  const std::string url = ProtoUrl("memcache+tls", *mc);
  nlohmann::json j = RunOk({"--target", url, "--tls-ca", certs.ca, "--io", Io(), "--exclusive",
                            "-n", "2000", "-c", "4", "--pipeline", "8", "--threads", "2",
                            "--key-maximum", "200"});
  EXPECT_EQ(j["options"]["io"], Io());
  EXPECT_EQ(j["server"]["protocol"], "memcache");
  EXPECT_EQ(j["server"]["url"], url);
  EXPECT_EQ(j["server"]["tls"], true);
  EXPECT_EQ(j["server"]["tls_session"].get<std::string>().rfind("TLSv1.", 0), 0u)
      << j["server"].dump();
  EXPECT_EQ(j["totals"]["ops"], 2000);
  EXPECT_EQ(j["totals"]["errors"], 0);
  EXPECT_EQ(j["cross_check"]["available"], true) << j["cross_check"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  auto control = ControlTls(Protocol::kMemcache, mc->port(), certs);
  ASSERT_TRUE(control.ok()) << control.status().message();
  auto stats = (*control)->MemcacheStats();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  const int64_t gets = OpsOrZero(j, "GET"), sets = OpsOrZero(j, "SET");
  EXPECT_GT(gets, 0);
  EXPECT_GT(sets, 0);
  EXPECT_EQ(std::stoll((*stats)["cmd_get"]), gets);
  EXPECT_EQ(std::stoll((*stats)["cmd_set"]), sets);
  EXPECT_EQ(gets + sets, 2000);
  // --tls with a memcache:// URL and localhost (the name checked by name) works alike.
  j = RunOk({"--target", "memcache://localhost:" + std::to_string(mc->port()), "--tls",
             "--tls-ca", certs.ca, "--io", Io(), "-n", "300", "-c", "2"});
  EXPECT_EQ(j["totals"]["ops"], 300);
  EXPECT_EQ(j["server"]["url"], "memcache+tls://localhost:" + std::to_string(mc->port()));
}

TEST_P(TlsProtoE2E, EtcdRevisionsEqualPutsAndDeletesOverHttps) {
  Certs certs = MakeCerts();
  auto etcd = StartTlsEtcd(certs);
  ASSERT_NE(etcd, nullptr);
  auto control = ControlTls(Protocol::kEtcd, etcd->port(), certs);
  ASSERT_TRUE(control.ok()) << control.status().message();
  auto before = (*control)->Counters();
  ASSERT_TRUE(before.ok()) << before.status().message();
  const std::string url = ProtoUrl("etcd+tls", *etcd);
  nlohmann::json j = RunOk({"--target", url, "--tls-ca", certs.ca, "--io", Io(), "--exclusive",
                            "-n", "600", "-c", "4", "--key-maximum", "50",
                            "--command", "put __key__ __data__", "--command", "range __key__",
                            "--command", "delete __key__"});
  EXPECT_EQ(j["server"]["protocol"], "etcd");
  EXPECT_EQ(j["server"]["url"], url);
  EXPECT_EQ(j["server"]["tls"], true);
  EXPECT_EQ(j["totals"]["ops"], 600);
  EXPECT_EQ(j["totals"]["errors"], 0);
  EXPECT_EQ(j["cross_check"]["available"], true) << j["cross_check"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  auto after = (*control)->Counters();
  ASSERT_TRUE(after.ok()) << after.status().message();
  // Each put and each delete that deleted a key is one revision (docs/protocols.md).
  const int64_t puts = OpsOrZero(j, "PUT");
  EXPECT_GT(puts, 0);
  EXPECT_EQ((*after)["revision"] - (*before)["revision"], puts + Hits(j, "DELETE"));
  EXPECT_EQ(puts + OpsOrZero(j, "RANGE") + OpsOrZero(j, "DELETE"), 600);
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, TlsProtoE2E, ::testing::Values("epoll", "uring"));

TEST(TlsProtoRefusalsE2E, WrongCaAndPlaintextToTheTlsPort) {
  Certs certs = MakeCerts();
  auto mc = StartTlsMemcached(certs);
  ASSERT_NE(mc, nullptr);
  auto etcd = StartTlsEtcd(certs);
  ASSERT_NE(etcd, nullptr);
  for (const std::string& url : {ProtoUrl("memcache+tls", *mc), ProtoUrl("etcd+tls", *etcd)}) {
    Outcome bad = RunMemstand({"run", "--target", url, "--tls-ca", certs.other_ca, "-n", "50",
                               "-q", "--connect-timeout", "2s"});
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    EXPECT_NE(bad.output.find("certificate verify failed"), std::string::npos) << bad.output;
    EXPECT_NE(bad.output.find(url), std::string::npos) << bad.output;
  }
  // memcached -Z drops a plaintext client without a byte.
  Outcome plain = RunMemstand({"run", "--target", ProtoUrl("memcache", *mc), "-n", "50", "-q",
                               "--connect-timeout", "2s"});
  EXPECT_EQ(plain.exit_code, 1) << plain.output;
  EXPECT_NE(plain.output.find("the server expects TLS"), std::string::npos) << plain.output;
}

// Servers that require a client certificate: memstand's --tls-cert/--tls-key are sent
// and every request is answered; without them the handshake (memcached) or the first
// request (etcd) fails, exit 1, naming the target.
TEST(TlsProtoClientCertE2E, ClientCertificatesWhereTheServerRequiresThem) {
  Certs certs = MakeCerts();
  auto mc = StartTlsMemcached(certs, /*require_cert=*/true);
  ASSERT_NE(mc, nullptr);
  auto etcd = StartTlsEtcd(certs, /*require_cert=*/true);
  ASSERT_NE(etcd, nullptr);
  const std::string dir = TempDir();
  for (const std::string& url : {ProtoUrl("memcache+tls", *mc), ProtoUrl("etcd+tls", *etcd)}) {
    Outcome ok = RunMemstand({"run", "--target", url, "--tls-ca", certs.ca, "--tls-cert", certs.client_cert,
                              "--tls-key", certs.client_key, "-n", "300", "-c", "2", "-q", "--connect-timeout",
                              "5s", "--json", dir + "/r.json"});
    ASSERT_EQ(ok.exit_code, 0) << url << "\n" << ok.output;
    const nlohmann::json j = ReadJson(dir + "/r.json");
    EXPECT_EQ(j["totals"]["ops"], 300) << url;
    EXPECT_EQ(j["totals"]["errors"], 0) << url;
    Outcome without = RunMemstand({"run", "--target", url, "--tls-ca", certs.ca, "-n", "50", "-q",
                                   "--connect-timeout", "2s"});
    EXPECT_EQ(without.exit_code, 1) << url << "\n" << without.output;
    EXPECT_NE(without.output.find(url), std::string::npos) << without.output;
  }
}

}  // namespace
}  // namespace memstand::e2e

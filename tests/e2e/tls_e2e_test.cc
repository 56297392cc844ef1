// TLS targets end to end: Debian's redis-server with a tls-port only (`--port 0`) and a
// CA and certificates the test makes with the openssl CLI. rediss:// runs on both I/O
// loops with counts equal to the server's INFO commandstats (read here over TLS); a
// wrong CA fails verification (and --tls-skip-verify accepts it); a server that wants a
// client certificate takes --tls-cert/--tls-key and refuses a client without one; a
// plaintext run against the TLS port says the server expects TLS.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/socket.h"
#include "core/tls.h"
#include "core/uring.h"
#include "e2e/e2e_util.h"
#include "e2e/tls_util.h"
#include "npm_util.h"
#include "stand/process.h"

namespace memstand::e2e {
namespace {

// A control client to the TLS port (the test's own reading of the server's counters).
Result<std::unique_ptr<RedisClient>> ConnectTls(int port, const TlsOptions& tls) {
  auto ctx = TlsContext::Create(tls);
  if (!ctx.ok()) return ctx.status();
  RedisClientOptions o;
  o.port = port;
  o.timeout_ms = 2000;
  o.tls = *ctx;
  return RedisClient::Connect(o);
}

struct TlsRedis {
  int port = 0;
  std::unique_ptr<Process> process;
};

// redis-server with only a TLS port on loopback; ready once a TLS client gets PONG.
TlsRedis StartTlsRedis(const Certs& c, bool auth_clients, const std::vector<std::string>& extra = {}) {
  TlsRedis r;
  auto port = PickFreePort();
  EXPECT_TRUE(port.ok()) << port.status().message();
  if (!port.ok()) return r;
  r.port = *port;
  const std::string dir = TempDir();
  SpawnOptions so;
  so.argv = {"redis-server", "--port", "0", "--tls-port", std::to_string(r.port), "--bind",
             "127.0.0.1", "--tls-cert-file", c.server_cert, "--tls-key-file", c.server_key,
             "--tls-ca-cert-file", c.ca, "--tls-auth-clients", auth_clients ? "yes" : "no",
             "--save", "", "--appendonly", "no", "--dir", dir};
  so.argv.insert(so.argv.end(), extra.begin(), extra.end());
  so.work_dir = dir;
  so.log_path = dir + "/redis.log";
  auto p = Process::Spawn(so);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline && (*p)->Alive()) {
    if (ConnectTls(r.port, ClientTls(c, true)).ok()) {
      r.process = std::move(*p);
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "redis-server did not answer on TLS port " << r.port << ": "
                << testutil::ReadFile(so.log_path);
  return r;
}

std::string TlsUrl(const TlsRedis& r) { return "rediss://127.0.0.1:" + std::to_string(r.port); }

class TlsE2E : public IoModeTest {
 protected:
  void SetUp() override {
    if (Io() == "uring" && !Uring::Create(1).ok()) GTEST_SKIP() << "no io_uring here";
  }
};

TEST_P(TlsE2E, CountsEqualInfoCommandstatsReadOverTls) {
  Certs certs = MakeCerts();
  TlsRedis redis = StartTlsRedis(certs, /*auth_clients=*/false);
  ASSERT_NE(redis.process, nullptr);
  nlohmann::json j = RunOk({"--target", TlsUrl(redis), "--tls-ca", certs.ca, "--io", Io(),
                            "--exclusive", "-n", "2000", "-c", "4", "--pipeline", "8",
                            "--threads", "2", "--ratio", "1:3"});
  EXPECT_EQ(j["options"]["io"], Io());
  EXPECT_EQ(j["server"]["url"], TlsUrl(redis));
  EXPECT_EQ(j["server"]["tls"], true);
  EXPECT_EQ(j["server"]["tls_session"].get<std::string>().rfind("TLSv1.", 0), 0u)
      << j["server"].dump();
  EXPECT_EQ(j["totals"]["ops"], 2000);
  EXPECT_EQ(j["totals"]["errors"], 0);
  EXPECT_EQ(j["cross_check"]["available"], true) << j["cross_check"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  auto client = ConnectTls(redis.port, ClientTls(certs, false));
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto info = (*client)->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok()) << info.status().message();
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls, CommandOps(j, "SET"));
  EXPECT_EQ(stats["get"].calls, CommandOps(j, "GET"));
  EXPECT_EQ(stats["set"].calls + stats["get"].calls, 2000);
}

// memtier's TLS flags (--tls, --cacert, --cert, --key) under `memstand memtier`, against
// a server that wants a client certificate: -n 25 per client, 2 x 2 clients.
TEST(TlsMemtierE2E, MemtierTlsFlagsReachTheServer) {
  Certs certs = MakeCerts();
  TlsRedis redis = StartTlsRedis(certs, /*auth_clients=*/true);
  ASSERT_NE(redis.process, nullptr);
  Outcome out = RunMemstand({"memtier", "--tls", "--cacert", certs.ca, "--cert", certs.client_cert, "--key",
                             certs.client_key, "-s", "127.0.0.1", "-p", std::to_string(redis.port), "-n", "25",
                             "-c", "2", "-t", "2", "--hide-histogram"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("\nTotals "), std::string::npos) << out.output;
  auto client = ConnectTls(redis.port, ClientTls(certs, true));
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto info = (*client)->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok()) << info.status().message();
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls + stats["get"].calls, 2 * 2 * 25);
}

TEST_P(TlsE2E, ClientCertificateWhenTheServerWantsOne) {
  Certs certs = MakeCerts();
  TlsRedis redis = StartTlsRedis(certs, /*auth_clients=*/true);
  ASSERT_NE(redis.process, nullptr);
  nlohmann::json j = RunOk({"--target", TlsUrl(redis), "--tls-ca", certs.ca, "--tls-cert",
                            certs.client_cert, "--tls-key", certs.client_key, "--io", Io(),
                            "--exclusive", "-n", "500", "-c", "2"});
  EXPECT_EQ(j["totals"]["ops"], 500);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  Outcome without = RunMemstand({"run", "--target", TlsUrl(redis), "--tls-ca", certs.ca, "--io",
                                 Io(), "-n", "100", "-q"});
  EXPECT_EQ(without.exit_code, 1) << without.output;
  EXPECT_NE(without.output.find("certificate required"), std::string::npos) << without.output;
  EXPECT_NE(without.output.find("127.0.0.1:" + std::to_string(redis.port)), std::string::npos)
      << without.output;
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, TlsE2E, ::testing::Values("epoll", "uring"));

// --cluster over TLS: three masters with only TLS ports and a TLS cluster bus
// (tls-cluster yes), joined by redis-cli --tls --cluster create; memstand discovers
// the masters from CLUSTER SLOTS (which then names their TLS ports), connects to each
// over TLS, and its counts equal the three masters' commandstats read over TLS.
TEST(TlsClusterE2E, ClusterOverTlsCountsEqualTheMastersCommandstats) {
  Certs certs = MakeCerts();
  std::vector<TlsRedis> nodes;
  for (int i = 0; i < 3; ++i) {
    // The bus on a free port of its own: by default it is the port + 10000, which
    // another test's server may hold (a start failed so: "Address already in use").
    auto bus = PickFreePort();
    ASSERT_TRUE(bus.ok()) << bus.status().message();
    TlsRedis r = StartTlsRedis(certs, false,
                               {"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                "--cluster-node-timeout", "5000", "--tls-cluster", "yes", "--cluster-port",
                                std::to_string(*bus)});
    ASSERT_NE(r.process, nullptr);
    nodes.push_back(std::move(r));
  }
  const std::string tls_cli = "redis-cli --tls --cacert " + certs.ca;
  std::string create = tls_cli + " --cluster create";
  for (const TlsRedis& n : nodes) create += " 127.0.0.1:" + std::to_string(n.port);
  auto created = testutil::RunShell(create + " --cluster-replicas 0 --cluster-yes 2>&1");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  auto all_ok = [&] {
    for (const TlsRedis& n : nodes) {
      auto c = ConnectTls(n.port, ClientTls(certs, false));
      if (!c.ok()) return false;
      auto info = (*c)->Command({"CLUSTER", "INFO"});
      if (!info.ok() || info->str.find("cluster_state:ok") == std::string::npos) return false;
    }
    return true;
  };
  for (int i = 0; i < 300 && !all_ok(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(all_ok()) << "cluster_state:ok not reached within 30 s";
  nlohmann::json j = RunOk({"--target", TlsUrl(nodes[0]), "--tls-ca", certs.ca, "--cluster", "--exclusive", "-n",
                            "3000", "-c", "6", "--pipeline", "4", "--ratio", "1:1", "--key-max", "9999"});
  EXPECT_EQ(j["totals"]["ops"], 3000);
  EXPECT_EQ(j["totals"]["errors"], 0);
  EXPECT_EQ(j["server"]["tls"], true);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  int64_t sets = 0, gets = 0, with_calls = 0;
  for (const TlsRedis& n : nodes) {
    auto c = ConnectTls(n.port, ClientTls(certs, false));
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto info = (*c)->Command({"INFO", "commandstats"});
    ASSERT_TRUE(info.ok()) << info.status().message();
    auto stats = ParseCommandStats(info->str);
    sets += stats["set"].calls;
    gets += stats["get"].calls;
    with_calls += stats["set"].calls > 0 ? 1 : 0;
  }
  EXPECT_EQ(sets, CommandOps(j, "SET"));
  EXPECT_EQ(gets, CommandOps(j, "GET"));
  EXPECT_EQ(sets + gets, 3000);
  EXPECT_EQ(with_calls, 3);  // every master got its keys' writes
}

TEST(TlsRefusalsE2E, WrongCaFailsUnlessVerificationIsSkipped) {
  Certs certs = MakeCerts();
  TlsRedis redis = StartTlsRedis(certs, /*auth_clients=*/false);
  ASSERT_NE(redis.process, nullptr);
  Outcome bad = RunMemstand({"run", "--target", TlsUrl(redis), "--tls-ca", certs.other_ca, "-n",
                             "100", "-q"});
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("certificate verify failed"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find(TlsUrl(redis)), std::string::npos) << bad.output;
  // The name is checked too: the certificate is for localhost and 127.0.0.1 only.
  Outcome name = RunMemstand({"run", "--target", TlsUrl(redis), "--tls-ca", certs.ca, "--sni",
                              "elsewhere.example", "-n", "100", "-q"});
  EXPECT_EQ(name.exit_code, 1) << name.output;
  EXPECT_NE(name.output.find("hostname mismatch"), std::string::npos) << name.output;
  nlohmann::json j = RunOk({"--target", TlsUrl(redis), "--tls-ca", certs.other_ca,
                            "--tls-skip-verify", "--exclusive", "-n", "300", "-c", "3"});
  EXPECT_EQ(j["totals"]["ops"], 300);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  // --tls with a redis:// URL and localhost (SNI and name check by name) works alike.
  j = RunOk({"--target", "redis://localhost:" + std::to_string(redis.port), "--tls", "--tls-ca",
             certs.ca, "-n", "200", "-c", "2"});
  EXPECT_EQ(j["totals"]["ops"], 200);
  EXPECT_EQ(j["server"]["url"], "rediss://localhost:" + std::to_string(redis.port));
}

TEST(TlsRefusalsE2E, PlaintextToATlsPortSaysTheServerExpectsTls) {
  Certs certs = MakeCerts();
  TlsRedis redis = StartTlsRedis(certs, /*auth_clients=*/false);
  ASSERT_NE(redis.process, nullptr);
  Outcome out = RunMemstand(
      {"run", "--target", "redis://127.0.0.1:" + std::to_string(redis.port), "-n", "100", "-q"});
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("the server expects TLS"), std::string::npos) << out.output;
}

TEST(TlsRefusalsE2E, BadTlsFlagsAreUsageErrors) {
  Certs certs = MakeCerts();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"--target", "redis://127.0.0.1:1", "--tls-ca", certs.ca}, "--tls-ca: needs --tls"},
      {{"--target", "rediss://127.0.0.1:1", "--tls-ca", certs.dir + "/missing.crt"},
       "--tls-ca " + certs.dir + "/missing.crt"},
      {{"--target", "rediss://127.0.0.1:1", "--tls-cert", certs.client_cert}, "give both"},
      {{"--target", "rediss://127.0.0.1:1", "--tls-cert", certs.client_cert, "--tls-key",
        certs.server_key},
       "does not match"},
      {{"--target", "rediss://127.0.0.1:1", "--protocol", "iproto"},
       "TLS is for RESP, memcached and etcd"},
      {{"--target", "tarantool://127.0.0.1:1", "--tls"}, "TLS is for RESP, memcached and etcd"},
      {{"--target", "memcache://127.0.0.1:1", "--tls-ca", certs.ca}, "--tls-ca: needs --tls"},
      {{"-S", "/tmp/x.sock", "--protocol", "memcache", "--tls"}, "not the Unix socket"},
      {{"--target", "rediss+unix:///tmp/x.sock"}, "not Unix sockets"},
      {{"--tls"}, "needs a target"},
      {{"--target", "rediss://127.0.0.1:1", "--target", "redis://127.0.0.1:2"},
       "all TLS or all plaintext"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"-n", "10", "-q"});
    Outcome out = RunMemstand(args, 20);
    EXPECT_EQ(out.exit_code, 2) << c.says << ": " << out.output;
    EXPECT_NE(out.output.find(c.says), std::string::npos) << out.output;
  }
}

}  // namespace
}  // namespace memstand::e2e

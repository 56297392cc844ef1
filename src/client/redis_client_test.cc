#include "client/redis_client.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <thread>

#include "client/redis_info.h"
#include "core/socket.h"
#include "stand/local_redis.h"

namespace memstand {
namespace {

using resp::Reply;
using resp::Type;

class RedisClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = LocalRedis::Start(LocalRedisOptions{});
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(server.value());
  }
  void TearDown() override { server_.reset(); }

  RedisClientOptions Options() const {
    RedisClientOptions o;
    o.host = server_->host();
    o.port = server_->port();
    return o;
  }

  std::unique_ptr<RedisClient> MustConnect(const RedisClientOptions& options) {
    auto client = RedisClient::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status().message();
    return client.ok() ? std::move(client.value()) : nullptr;
  }

  // Runs a command that must not fail at the transport level.
  static Reply Run(RedisClient* c, const std::vector<std::string>& args) {
    auto reply = c->Command(args);
    EXPECT_TRUE(reply.ok()) << args[0] << ": " << reply.status().message();
    return reply.ok() ? std::move(reply.value()) : Reply();
  }

  void AddAclUser() {
    auto admin = MustConnect(Options());
    ASSERT_NE(admin, nullptr);
    Reply r = Run(admin.get(), {"ACL", "SETUSER", "bench", "on", ">secret", "~*", "+@all"});
    ASSERT_EQ(r.str, "OK");
  }

  std::unique_ptr<LocalRedis> server_;
};

TEST_F(RedisClientTest, PingSetGet) {
  auto c = MustConnect(Options());
  ASSERT_NE(c, nullptr);
  Reply pong = Run(c.get(), {"PING"});
  EXPECT_EQ(pong.type, Type::kSimpleString);
  EXPECT_EQ(pong.str, "PONG");
  EXPECT_EQ(Run(c.get(), {"SET", "k", std::string("v\r\n\0", 4)}).str, "OK");
  Reply got = Run(c.get(), {"GET", "k"});
  EXPECT_EQ(got.type, Type::kBulkString);
  EXPECT_EQ(got.str, std::string("v\r\n\0", 4));
  EXPECT_TRUE(Run(c.get(), {"GET", "missing"}).is_null);
}

TEST_F(RedisClientTest, ErrorRepliesAreReplies) {
  auto c = MustConnect(Options());
  ASSERT_NE(c, nullptr);
  Reply r = Run(c.get(), {"NOSUCHCOMMAND", "x"});
  EXPECT_TRUE(r.is_error());
  EXPECT_EQ(r.str.rfind("ERR unknown command", 0), 0u) << r.str;
  EXPECT_EQ(Run(c.get(), {"PING"}).str, "PONG");  // the connection is still usable
}

TEST_F(RedisClientTest, Resp3HelloGivesAMap) {
  RedisClientOptions options = Options();
  options.resp = 3;
  auto c = MustConnect(options);
  ASSERT_NE(c, nullptr);
  Reply hello = Run(c.get(), {"HELLO", "3"});
  ASSERT_EQ(hello.type, Type::kMap);
  ASSERT_NE(hello.Find("proto"), nullptr);
  EXPECT_EQ(hello.Find("proto")->integer, 3);
  EXPECT_EQ(hello.Find("server")->str, "redis");
  Run(c.get(), {"HSET", "h", "f", "v"});
  EXPECT_EQ(Run(c.get(), {"HGETALL", "h"}).type, Type::kMap);
  EXPECT_EQ(Run(c.get(), {"GET", "missing"}).type, Type::kNull);
}

TEST_F(RedisClientTest, AuthWithAnAclUser) {
  AddAclUser();
  for (int resp : {2, 3}) {
    RedisClientOptions options = Options();
    options.resp = resp;
    options.user = "bench";
    options.password = "secret";
    auto c = MustConnect(options);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(Run(c.get(), {"ACL", "WHOAMI"}).str, "bench") << "RESP" << resp;
  }
}

TEST_F(RedisClientTest, WrongPasswordGivesTheServersText) {
  AddAclUser();
  for (int resp : {2, 3}) {
    RedisClientOptions options = Options();
    options.resp = resp;
    options.user = "bench";
    options.password = "wrong";
    auto c = RedisClient::Connect(options);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), Status::Code::kServer);
    EXPECT_EQ(c.status().message(),
              "WRONGPASS invalid username-password pair or user is disabled.");
  }
}

TEST_F(RedisClientTest, SelectIsolatesDatabases) {
  RedisClientOptions options = Options();
  options.db = 3;
  auto db3 = MustConnect(options);
  auto db0 = MustConnect(Options());
  ASSERT_TRUE(db3 && db0);
  Run(db3.get(), {"SET", "a", "1"});
  Run(db3.get(), {"SET", "b", "2"});
  EXPECT_EQ(Run(db3.get(), {"DBSIZE"}).integer, 2);
  EXPECT_EQ(Run(db0.get(), {"DBSIZE"}).integer, 0);
  options.db = 99;
  auto bad = RedisClient::Connect(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kServer);
  EXPECT_NE(bad.status().message().find("out of range"), std::string::npos);
}

TEST_F(RedisClientTest, SentByCommandMatchesTheServersCommandStats) {
  RedisClientOptions options = Options();
  options.resp = 3;
  options.db = 2;
  auto c = MustConnect(options);
  ASSERT_NE(c, nullptr);
  for (int i = 0; i < 3; ++i) Run(c.get(), {"Set", "k" + std::to_string(i), "v"});
  Run(c.get(), {"GET", "k1"});
  Run(c.get(), {"GET"});  // rejected: wrong number of arguments, still sent
  const std::map<std::string, int64_t> expected = {
      {"hello", 1}, {"select", 1}, {"set", 3}, {"get", 2}};
  EXPECT_EQ(c->sent_by_command(), expected);

  // The only other client so far was the fixture's readiness PING.
  Reply info = Run(c.get(), {"INFO", "commandstats"});
  ASSERT_EQ(info.type, Type::kVerbatim);
  auto stats = ParseCommandStats(info.str);
  for (const auto& [name, sent] : expected) {
    EXPECT_EQ(stats[name].calls + stats[name].rejected_calls, sent) << name;
  }
  EXPECT_EQ(stats["get"].rejected_calls, 1);
}

// A loopback listener that serves one connection with `serve`, on its own thread.
class OneShotListener {
 public:
  explicit OneShotListener(std::function<void(int)> serve) {
    auto fd = ListenTcp("127.0.0.1", 0);
    EXPECT_TRUE(fd.ok()) << fd.status().message();
    listen_fd_ = fd.ok() ? *fd : -1;
    auto port = LocalPort(listen_fd_);
    port_ = port.ok() ? *port : 0;
    thread_ = std::thread([this, serve] {
      int conn = accept(listen_fd_, nullptr, nullptr);
      if (conn < 0) return;
      serve(conn);
      close(conn);
    });
  }
  ~OneShotListener() {
    shutdown(listen_fd_, SHUT_RDWR);  // wakes accept() if no one connected
    thread_.join();
    close(listen_fd_);
  }
  int port() const { return port_; }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// Reads until the peer closes its side.
void Drain(int fd) {
  char buf[256];
  while (read(fd, buf, sizeof(buf)) > 0) {
  }
}

TEST(RedisClientPeerTest, ClosedPortFailsWithAClearError) {
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  RedisClientOptions options;
  options.port = *port;
  auto c = RedisClient::Connect(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kIoError);
  EXPECT_NE(c.status().message().find("Connection refused"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find(std::to_string(*port)), std::string::npos);
}

TEST(RedisClientPeerTest, HttpServerIsAProtocolError) {
  OneShotListener http([](int fd) {
    char buf[64];
    [[maybe_unused]] ssize_t n = read(fd, buf, sizeof(buf));  // the PING
    const std::string answer = "HTTP/1.1 400 Bad Request\r\n";
    [[maybe_unused]] ssize_t w = write(fd, answer.data(), answer.size());
    shutdown(fd, SHUT_WR);
    Drain(fd);
  });
  RedisClientOptions options;
  options.port = http.port();
  auto c = RedisClient::Connect(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kProtocol);
  EXPECT_NE(c.status().message().find("received \"HTTP/1.1 400 Bad Request\\r\\n\""),
            std::string::npos)
      << c.status().message();
}

TEST(RedisClientPeerTest, PeerThatClosesIsAnIoError) {
  OneShotListener closer([](int fd) {
    char buf[64];
    [[maybe_unused]] ssize_t n = read(fd, buf, sizeof(buf));
  });
  RedisClientOptions options;
  options.port = closer.port();
  auto c = RedisClient::Connect(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kIoError);
  EXPECT_NE(c.status().message().find("closed"), std::string::npos) << c.status().message();
}

TEST(RedisClientPeerTest, SilentPeerTimesOut) {
  OneShotListener silent([](int fd) { Drain(fd); });
  RedisClientOptions options;
  options.port = silent.port();
  options.timeout_ms = 100;
  auto c = RedisClient::Connect(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kTimeout) << c.status().message();
  EXPECT_NE(c.status().message().find("no reply within 100 ms"), std::string::npos);
}

TEST(RedisClientPeerTest, BadOptionsAreInvalidArguments) {
  RedisClientOptions options;
  options.resp = 4;
  EXPECT_EQ(RedisClient::Connect(options).status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace memstand

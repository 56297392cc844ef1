#include "report/metrics_server.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/socket.h"
#include "report/prometheus.h"
#include "stand/process.h"

namespace memstand {
namespace {

constexpr int kHangGuardMs = 30'000;  // a broken server fails the test instead of hanging it

// Sends `request` (in pieces of `chunk` bytes) and reads until the server closes.
Result<std::string> Exchange(int port, const std::string& request, size_t chunk = 1 << 20) {
  auto fd = ConnectTcp("127.0.0.1", port, kHangGuardMs, true);
  if (!fd.ok()) return fd.status();
  Status s = SetIoTimeout(*fd, kHangGuardMs);
  for (size_t off = 0; s.ok() && off < request.size(); off += chunk) {
    s = WriteAll(*fd, request.data() + off, std::min(chunk, request.size() - off));
  }
  std::string response;
  char buf[4096];
  while (s.ok()) {
    auto n = ReadSome(*fd, buf, sizeof(buf));
    if (!n.ok()) s = n.status();
    if (!n.ok() || *n == 0) break;
    response.append(buf, *n);
  }
  close(*fd);
  if (!s.ok()) return s;
  return response;
}

struct HttpResponse {
  std::string status_line;
  std::string headers;  // every header line, each ending in \r\n
  std::string body;
};

HttpResponse Split(const std::string& raw) {
  HttpResponse r;
  size_t line_end = raw.find("\r\n");
  size_t head_end = raw.find("\r\n\r\n");
  if (line_end == std::string::npos || head_end == std::string::npos) return r;
  r.status_line = raw.substr(0, line_end);
  r.headers = raw.substr(line_end + 2, head_end - line_end);
  r.body = raw.substr(head_end + 4);
  return r;
}

std::unique_ptr<MetricsServer> StartOrDie(std::function<std::string()> render) {
  auto server = MetricsServer::Start("127.0.0.1", 0, std::move(render));
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(server).value() : nullptr;
}

const char kGetMetrics[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n";

TEST(ParseListenAddressTest, Accepts) {
  auto a = ParseListenAddress("127.0.0.1:2112");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->first, "127.0.0.1");
  EXPECT_EQ(a->second, 2112);
  auto b = ParseListenAddress("[::1]:65535");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->first, "::1");
  EXPECT_EQ(b->second, 65535);
  auto c = ParseListenAddress("localhost:1");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->first, "localhost");
  EXPECT_EQ(c->second, 1);
}

TEST(ParseListenAddressTest, RejectsAndNamesTheText) {
  for (const char* text : {"", "2112", ":2112", "::1:2112", "[::1]2112", "[::1", "[]:80", "h:0",
                           "h:65536", "h:99999999999", "h:12a", "h:", "h:-1"}) {
    auto r = ParseListenAddress(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find(std::string("'") + text + "'"), std::string::npos)
        << r.status().message();
    EXPECT_EQ(r.status().message().rfind("--metrics-addr: ", 0), 0u) << r.status().message();
  }
}

TEST(MetricsServerTest, ServesMetrics) {
  std::atomic<int> renders{0};
  auto server = StartOrDie([&] { return "memstand_scrapes " + std::to_string(++renders) + "\n"; });
  ASSERT_NE(server, nullptr);
  EXPECT_GT(server->port(), 0);
  for (int i = 1; i <= 2; ++i) {
    auto raw = Exchange(server->port(), kGetMetrics);
    ASSERT_TRUE(raw.ok()) << raw.status().message();
    HttpResponse r = Split(*raw);
    EXPECT_EQ(r.status_line, "HTTP/1.1 200 OK") << *raw;
    EXPECT_NE(r.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
              std::string::npos)
        << *raw;
    std::string body = "memstand_scrapes " + std::to_string(i) + "\n";
    EXPECT_NE(r.headers.find("Content-Length: " + std::to_string(body.size()) + "\r\n"),
              std::string::npos)
        << *raw;
    EXPECT_NE(r.headers.find("Connection: close\r\n"), std::string::npos);
    EXPECT_EQ(r.body, body);
  }
  EXPECT_EQ(renders.load(), 2);
}

TEST(MetricsServerTest, RequestArrivingByteByByte) {
  auto server = StartOrDie([] { return std::string("x 1\n"); });
  ASSERT_NE(server, nullptr);
  auto raw = Exchange(server->port(), "GET /metrics?x=1 HTTP/1.0\r\n\r\n", 1);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  EXPECT_EQ(Split(*raw).status_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(Split(*raw).body, "x 1\n");
}

TEST(MetricsServerTest, OtherRequests) {
  std::atomic<int> renders{0};
  auto server = StartOrDie([&] { return std::to_string(++renders) + "\n"; });
  ASSERT_NE(server, nullptr);
  struct Case {
    const char* request;
    const char* status_line;
  } cases[] = {
      {"GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found"},
      {"GET /metricsx HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found"},
      {"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
      {"hello\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /metrics SMTP/1.0\r\n\r\n", "HTTP/1.1 400 Bad Request"},
  };
  for (const Case& c : cases) {
    auto raw = Exchange(server->port(), c.request);
    ASSERT_TRUE(raw.ok()) << raw.status().message();
    EXPECT_EQ(Split(*raw).status_line, c.status_line) << c.request;
  }
  auto head = Exchange(server->port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.status().message();
  EXPECT_EQ(Split(*head).status_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(Split(*head).body, "");
  EXPECT_NE(Split(*head).headers.find("Content-Length: 2\r\n"), std::string::npos) << *head;
  auto huge = Exchange(server->port(), "GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a'));
  ASSERT_TRUE(huge.ok()) << huge.status().message();
  EXPECT_EQ(Split(*huge).status_line, "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(renders.load(), 1);  // only the HEAD rendered
}

TEST(MetricsServerTest, PortInUseIsAClearError) {
  auto first = StartOrDie([] { return std::string(); });
  ASSERT_NE(first, nullptr);
  auto second = MetricsServer::Start("127.0.0.1", first->port(), [] { return std::string(); });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(second.status().message(),
            "--metrics-addr: cannot listen on 127.0.0.1:" + std::to_string(first->port()) +
                ": Address already in use");
}

TEST(MetricsServerTest, StopEndsWithAnIdleClientConnected) {
  auto server = StartOrDie([] { return std::string(); });
  ASSERT_NE(server, nullptr);
  auto idle = ConnectTcp("127.0.0.1", server->port(), kHangGuardMs, true);
  ASSERT_TRUE(idle.ok()) << idle.status().message();
  server->Stop();
  server->Stop();  // idempotent
  char c;
  ASSERT_TRUE(SetIoTimeout(*idle, kHangGuardMs).ok());
  auto n = ReadSome(*idle, &c, 1);  // the server closed it
  EXPECT_TRUE(!n.ok() || *n == 0);
  close(*idle);
  auto refused = ConnectTcp("127.0.0.1", server->port(), kHangGuardMs, true);
  EXPECT_FALSE(refused.ok());
  if (refused.ok()) close(*refused);
}

// Runs `promtool check metrics` on `text`; returns its exit status and output.
std::pair<int, std::string> PromtoolCheck(const std::string& text) {
  char path[] = "/tmp/memstand_promtool_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return {-1, "mkstemp failed"};
  Status s = WriteAll(fd, text.data(), text.size());
  close(fd);
  std::string output;
  int status = -1;
  if (s.ok()) {
    std::string cmd = std::string("promtool check metrics < ") + path + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    char buf[512];
    while (p != nullptr && std::fgets(buf, sizeof(buf), p) != nullptr) output += buf;
    if (p != nullptr) status = pclose(p);
  }
  unlink(path);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(MetricsServerTest, ScrapePassesPromtool) {
  if (!FindExecutable("promtool").ok()) {
    FAIL() << "promtool not found in PATH: install the Debian package 'prometheus' "
              "(apt-get install prometheus; scripts/deps.sh lists it)";
  }
  HdrHistogram get_h, set_h;
  for (int64_t v = 1'000; v < 50'000'000; v = v * 3 / 2) get_h.Record(v);
  set_h.RecordN(120'000, 5);
  MetricsSnapshot snap;
  snap.version = "0.1.0-dev \"x\"\\";
  snap.commands["GET"] = {100, {{"timeout", 2}}, 60, 40, 2000, 9000, &get_h};
  snap.commands["SET"] = {50, {{"OOM command not allowed", 3}}, 0, 0, 8000, 250, &set_h};
  snap.commands["we\"ird\nname"] = {1, {}, 0, 0, 10, 5, nullptr};
  snap.send_lag_seconds = 0.002;
  snap.client_cpu_seconds_total = 3.25;
  snap.connections_open = 16;
  snap.run_elapsed_seconds = 61.5;
  auto server = StartOrDie([&] { return FormatPrometheus(snap); });
  ASSERT_NE(server, nullptr);
  auto raw = Exchange(server->port(), kGetMetrics);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  HttpResponse r = Split(*raw);
  ASSERT_EQ(r.status_line, "HTTP/1.1 200 OK");
  ASSERT_EQ(r.body, FormatPrometheus(snap));
  auto [exit_code, output] = PromtoolCheck(r.body);
  EXPECT_EQ(exit_code, 0) << output;
  EXPECT_EQ(output, "") << r.body;
  // The checker can fail: a counter without _total is a lint problem.
  auto [bad_code, bad_output] =
      PromtoolCheck("# HELP x_seconds X.\n# TYPE x_seconds counter\nx_seconds 1\n");
  EXPECT_NE(bad_code, 0);
  EXPECT_NE(bad_output, "");
}

}  // namespace
}  // namespace memstand

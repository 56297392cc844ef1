#include "report/metrics_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "core/socket.h"
#include "report/prometheus.h"
#include "stand/process.h"

namespace memstand {
namespace {

constexpr int kHangGuardMs = 30'000;  // a broken server fails the test instead of hanging it

// Sends `request` (in pieces of `chunk` bytes) and reads until the server closes, each
// step bounded by guard_ms.
Result<std::string> Exchange(int port, const std::string& request, size_t chunk = 1 << 20,
                             int guard_ms = kHangGuardMs) {
  auto fd = ConnectTcp("127.0.0.1", port, guard_ms, true);
  if (!fd.ok()) return fd.status();
  Status s = SetIoTimeout(*fd, guard_ms);
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

std::unique_ptr<MetricsServer> StartOrDie(std::function<std::string()> render,
                                          MetricsServerOptions options = {}) {
  auto server = MetricsServer::Start("127.0.0.1", 0, std::move(render), options);
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

TEST(MetricsServerTest, BareLineFeeds) {
  auto server = StartOrDie([] { return std::string("x 1\n"); });
  ASSERT_NE(server, nullptr);
  for (const char* request :
       {"GET /metrics HTTP/1.0\n\n", "GET /metrics HTTP/1.1\nHost: a\n\n",
        "GET /metrics HTTP/1.1\r\nHost: a\n\n", "GET /metrics HTTP/1.1\nHost: a\r\n\r\n"}) {
    for (size_t chunk : {size_t{1} << 20, size_t{1}}) {
      auto raw = Exchange(server->port(), request, chunk);
      ASSERT_TRUE(raw.ok()) << raw.status().message();
      EXPECT_EQ(Split(*raw).status_line, "HTTP/1.1 200 OK") << request;
      EXPECT_EQ(Split(*raw).body, "x 1\n") << request;
    }
  }
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

constexpr char kBody[] = "memstand_up 1\n";
constexpr int kScrapeGuardMs = 10'000;  // a starved scrape fails instead of waiting on

// GET /metrics `count` times, one after another; returns how many got a 200 with kBody
// (stops at the first that did not).
int SuccessfulScrapes(int port, int count) {
  int ok = 0;
  for (int i = 0; i < count; ++i) {
    auto raw = Exchange(port, kGetMetrics, 1 << 20, kScrapeGuardMs);
    if (!raw.ok() || Split(*raw).status_line != "HTTP/1.1 200 OK" || Split(*raw).body != kBody) {
      ADD_FAILURE() << "scrape " << i << ": " << (raw.ok() ? *raw : raw.status().message());
      break;
    }
    ++ok;
  }
  return ok;
}

// A server answering /metrics with kBody, with these options.
std::unique_ptr<MetricsServer> StartBodyServer(std::chrono::milliseconds request_deadline,
                                               size_t max_connections = 1024) {
  MetricsServerOptions options;
  options.request_deadline = request_deadline;
  options.max_connections = max_connections;
  return StartOrDie([] { return std::string(kBody); }, options);
}

// Opens `count` connections to port; appends their descriptors to fds.
Status OpenIdle(int port, int count, std::vector<int>* fds) {
  for (int i = 0; i < count; ++i) {
    auto fd = ConnectTcp("127.0.0.1", port, kHangGuardMs, true);
    if (!fd.ok()) return fd.status();
    fds->push_back(*fd);
  }
  return Status::OK();
}

// Whether the server has closed fd: it never sends to a connection that has not
// finished its request, so anything readable (EOF or a reset) means closed.
bool ClosedByServer(int fd, int wait_ms = 0) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, wait_ms) > 0;
}

int CountClosed(const std::vector<int>& fds) {
  int n = 0;
  for (int fd : fds) n += ClosedByServer(fd) ? 1 : 0;
  return n;
}

void CloseAll(std::vector<int>* fds) {
  for (int fd : *fds) close(fd);
  fds->clear();
}

// Raises the soft RLIMIT_NOFILE to at least `want` (the hard limit too, as root) for
// the life of the object.
class FileLimitAtLeast {
 public:
  explicit FileLimitAtLeast(rlim_t want) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit raised = saved_;
    if (raised.rlim_cur < want) raised.rlim_cur = want;
    if (raised.rlim_max < want) raised.rlim_max = want;
    ok_ = setrlimit(RLIMIT_NOFILE, &raised) == 0;
  }
  ~FileLimitAtLeast() { setrlimit(RLIMIT_NOFILE, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

// 40 clients (more than the old table of 32) each send a request head one byte every
// 500 ms while 6 scrapes run; the slow ones are still connected afterwards, so the
// scrapes succeeded beside them rather than after they were dropped.
TEST(MetricsServerTest, ScrapesSucceedBesideSlowlorisClients) {
  auto server = StartBodyServer(std::chrono::seconds(60));  // outlives the test on a slow machine
  ASSERT_NE(server, nullptr);
  std::vector<int> slow;
  Status s = OpenIdle(server->port(), 40, &slow);
  ASSERT_TRUE(s.ok()) << s.message();
  std::atomic<bool> done{false};
  std::thread dribbler([&] {
    const std::string head = "GET /metrics HTTP/1.1\r\nX-Slow: " + std::string(64, 'a');
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (size_t i = 0; i < head.size() && !done && std::chrono::steady_clock::now() < until; ++i) {
      for (int fd : slow) send(fd, &head[i], 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      for (int step = 0; step < 10 && !done; ++step) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });
  int ok = 0;
  for (int round = 0; round < 6 && ok == round; ++round) {
    ok += SuccessfulScrapes(server->port(), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  done = true;
  dribbler.join();
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(CountClosed(slow), 0);
  CloseAll(&slow);
}

TEST(MetricsServerTest, ScrapesSucceedBeside500IdleConnections) {
  FileLimitAtLeast limit(4096);  // 500 here, 500 in the server; its table takes a quarter
  ASSERT_TRUE(limit.ok()) << "cannot raise RLIMIT_NOFILE to 4096";
  auto server = StartBodyServer(std::chrono::seconds(60));
  ASSERT_NE(server, nullptr);
  std::vector<int> idle;
  Status s = OpenIdle(server->port(), 500, &idle);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(SuccessfulScrapes(server->port(), 5), 5);
  EXPECT_EQ(CountClosed(idle), 0);
  CloseAll(&idle);
}

TEST(MetricsServerTest, FullTableClosesTheOldestConnection) {
  auto server = StartBodyServer(std::chrono::seconds(5), 4);
  ASSERT_NE(server, nullptr);
  std::vector<int> idle;
  Status s = OpenIdle(server->port(), 4, &idle);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(SuccessfulScrapes(server->port(), 1), 1);
  EXPECT_TRUE(ClosedByServer(idle[0], kHangGuardMs));  // made room for the scrape
  for (size_t i = 1; i < idle.size(); ++i) EXPECT_FALSE(ClosedByServer(idle[i])) << i;
  CloseAll(&idle);
}

// A client that sends a byte every 50 ms never goes idle, but its request head never
// ends: the server closes it at the 300 ms deadline (the loop gives up after 10 s).
TEST(MetricsServerTest, DeadlineClosesAClientThatKeepsSending) {
  auto server = StartBodyServer(std::chrono::milliseconds(300));
  ASSERT_NE(server, nullptr);
  auto fd = ConnectTcp("127.0.0.1", server->port(), kHangGuardMs, true);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  const std::string head = "GET /metrics HTTP/1.1\r\nX-Slow: " + std::string(200, 'a');
  int sent = 0;
  bool closed = false;
  for (size_t i = 0; i < head.size() && !closed; ++i) {
    closed = send(*fd, &head[i], 1, MSG_NOSIGNAL) != 1 || ClosedByServer(*fd, 50);
    if (!closed) ++sent;
  }
  EXPECT_TRUE(closed) << "still open after " << sent << " bytes";
  EXPECT_GE(sent, 1);
  close(*fd);
  EXPECT_EQ(SuccessfulScrapes(server->port(), 1), 1);
}

// After its response a client keeps the connection open and goes on sending: the
// answered stage has a deadline of its own, so the server closes it all the same (the
// client's send fails once the server has closed and reset it).
TEST(MetricsServerTest, DeadlineClosesAnAnsweredClientThatNeverCloses) {
  auto server = StartBodyServer(std::chrono::milliseconds(300));
  ASSERT_NE(server, nullptr);
  auto fd = ConnectTcp("127.0.0.1", server->port(), kHangGuardMs, true);
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  ASSERT_TRUE(SetIoTimeout(*fd, kHangGuardMs).ok());
  ASSERT_TRUE(WriteAll(*fd, kGetMetrics, sizeof(kGetMetrics) - 1).ok());
  std::string response;
  char buf[4096];
  for (auto n = ReadSome(*fd, buf, sizeof(buf)); n.ok() && *n > 0;
       n = ReadSome(*fd, buf, sizeof(buf))) {
    response.append(buf, *n);
  }
  EXPECT_EQ(Split(response).body, kBody) << response;
  int sent = 0;
  while (sent < 200 && send(*fd, "x", 1, MSG_NOSIGNAL) == 1) {
    ++sent;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LT(sent, 200) << "the server never closed the connection";
  close(*fd);
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
  snap.commands["GET"] = {100, 2, {{"timeout", 2}}, true, 60, 40, 2000, 9000, &get_h};
  snap.commands["SET"] = {50, 3, {{"OOM command not allowed", 3}}, false, 0, 0, 8000, 250, &set_h};
  snap.commands["we\"ird\nname"] = {1, 0, {}, false, 0, 0, 10, 5, nullptr};
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

// A minimal HTTP/1.1 server for Prometheus scrapes (--metrics-addr): GET /metrics
// answers with render()'s text, anything else with 404 (405 for methods other than
// GET/HEAD, 400 for requests it cannot read). One response per connection
// (Connection: close); request lines end in CRLF or a bare LF. Runs one epoll loop on
// its own thread, so slow or idle clients cost a descriptor each, never a thread.
//
// Slow clients cannot starve a scrape: each connection has a whole-request deadline
// (not an idle timer that bytes restart), and a full table makes room for a new
// connection by closing the oldest one.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "util/status.h"

namespace memstand {

/// "host:port" with host a name or IPv4 literal, or "[v6]:port". port is 1..65535.
/// Errors are InvalidArgument quoting the text ("--metrics-addr: ...").
Result<std::pair<std::string, int>> ParseListenAddress(std::string_view text);

struct MetricsServerOptions {
  /// From accept to the end of the request head, and again from the response being
  /// ready to the client's close; bytes do not restart it. On expiry the connection is
  /// closed. 5 s: a scrape's request head arrives in one packet at once, and
  /// Prometheus's default scrape_timeout is 10 s.
  std::chrono::milliseconds request_deadline{5000};
  /// Open connections at most, and at most a quarter of RLIMIT_NOFILE's soft limit at
  /// Start (scrapers never take the descriptors the load's connections need). A new
  /// connection beyond it closes the one nearest its deadline. 1024: far more than a
  /// handful of slow clients can hold, where Prometheus scrapes over one connection.
  size_t max_connections = 1024;
};

class MetricsServer {
 public:
  /// Listens on host:port (port 0: the kernel picks; see port()) and starts the
  /// server thread. render() is called on that thread once per GET /metrics; the
  /// caller makes it thread-safe. A port that cannot be bound gives
  /// InvalidArgument("--metrics-addr: cannot listen on 127.0.0.1:2112: Address
  /// already in use").
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& host, int port,
                                                      std::function<std::string()> render,
                                                      MetricsServerOptions options = {});

  /// Calls Stop().
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// Wakes the server thread, joins it and closes every socket. A render() in
  /// progress finishes first. Idempotent. REQUIRES: not called from render().
  void Stop();

  /// The port actually bound.
  int port() const { return port_; }

 private:
  class Loop;  // the server thread's sockets and connections (metrics_server.cc)

  MetricsServer(std::unique_ptr<Loop> loop, int wake_write_fd, int port);

  std::unique_ptr<Loop> loop_;
  int wake_write_fd_;
  int port_;
  std::thread thread_;
};

}  // namespace memstand

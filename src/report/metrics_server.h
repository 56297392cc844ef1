// A minimal HTTP/1.1 server for Prometheus scrapes (--metrics-addr): GET /metrics
// answers with render()'s text, anything else with 404 (405 for methods other than
// GET/HEAD, 400 for requests it cannot read). One response per connection
// (Connection: close). Runs one poll() loop on its own thread.
#pragma once

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

class MetricsServer {
 public:
  /// Listens on host:port (port 0: the kernel picks; see port()) and starts the
  /// server thread. render() is called on that thread once per GET /metrics; the
  /// caller makes it thread-safe. A port that cannot be bound gives
  /// InvalidArgument("--metrics-addr: cannot listen on 127.0.0.1:2112: Address
  /// already in use").
  static Result<std::unique_ptr<MetricsServer>> Start(const std::string& host, int port,
                                                      std::function<std::string()> render);

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
  MetricsServer(int listen_fd, int wake_read_fd, int wake_write_fd, int port,
                std::function<std::string()> render);
  void Loop();

  int listen_fd_;
  int wake_read_fd_;
  int wake_write_fd_;
  int port_;
  std::function<std::string()> render_;
  std::thread thread_;
};

}  // namespace memstand

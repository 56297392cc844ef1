// A small measurement of etcd's v3 JSON gateway as memstand's codec drives it: C
// keep-alive connections, each a closed loop (or paced to a total --rate), of PUT or
// RANGE for --seconds. Prints requests/s, errors, client CPU-µs per request
// (getrusage) and, with --server-pid, the server's CPU-µs per request (/proc).
// Start etcd yourself; see docs/protocols.md for the runs and their figures.
//
//   etcd_gateway_loop --port 2379 [--connections 8] [--seconds 10] [--op put|range]
//                     [--value-size 256] [--rate 0] [--prefix /v3] [--server-pid PID]
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/buffer.h"
#include "core/socket.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"

namespace {

using namespace memstand;
using Clock = std::chrono::steady_clock;

struct Options {
  int port = 2379;
  int connections = 8;
  double seconds = 10;
  std::string op = "put";
  size_t value_size = 256;
  double rate = 0;  // total requests/s; 0: closed loop
  std::string prefix = "/v3";
  int server_pid = 0;
};

struct Counts {
  uint64_t requests = 0;
  uint64_t errors = 0;
  std::string first_error;
};

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// utime + stime of a process, in seconds; -1 if unreadable.
double ProcessCpuSeconds(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// One connection's loop. Returns its counts; a broken connection ends it early.
Counts RunConnection(const Options& o, int index, Clock::time_point start) {
  Counts c;
  Result<int> fd = ConnectTcp("127.0.0.1", o.port, 5000, true);
  if (!fd.ok() || !SetIoTimeout(*fd, 10000).ok()) {
    c.first_error = fd.ok() ? "timeout setup" : fd.status().message();
    return c;
  }
  etcd::Target target{.host = "127.0.0.1:" + std::to_string(o.port), .prefix = o.prefix};
  const std::string value(o.value_size, 'v');
  Buffer out;
  http::ResponseReader reader;
  char buf[64 * 1024];
  std::string pending;
  const auto end = start + std::chrono::duration<double>(o.seconds);
  const double interval = o.rate > 0 ? o.connections / o.rate : 0;
  for (uint64_t i = 0;; ++i) {
    const auto intended = start + std::chrono::duration<double>(interval * static_cast<double>(i));
    if (intended >= end || Clock::now() >= end) break;
    if (interval > 0) std::this_thread::sleep_until(intended);
    const std::string key = "bench/" + std::to_string(index) + "/" + std::to_string(i % 1000);
    if (o.op == "put") {
      etcd::AppendPut(&out, target, key, value);
    } else {
      etcd::AppendRange(&out, target, key);
    }
    if (!WriteAll(*fd, out.ReadPtr(), out.Readable()).ok()) break;
    out.Clear();
    http::ResponseReader::Event ev = http::ResponseReader::Event::kNeedMore;
    while (ev == http::ResponseReader::Event::kNeedMore) {
      if (pending.empty()) {
        Result<size_t> n = ReadSome(*fd, buf, sizeof(buf));
        if (!n.ok() || *n == 0) {
          close(*fd);
          return c;
        }
        pending.assign(buf, *n);
      }
      size_t used = 0;
      ev = reader.Feed(pending.data(), pending.size(), &used);
      pending.erase(0, used);
    }
    if (ev == http::ResponseReader::Event::kProtocolError) {
      c.first_error = reader.error();
      break;
    }
    ++c.requests;
    Result<etcd::Summary> s = etcd::DecodeReply(reader.response().status, reader.response().body);
    if (!s.ok() || !s->ok) {
      ++c.errors;
      if (c.first_error.empty()) c.first_error = s.ok() ? s->error : s.status().message();
    }
  }
  close(*fd);
  return c;
}

bool Parse(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string v = argv[i + 1];
    if (flag == "--port") o->port = std::atoi(v.c_str());
    else if (flag == "--connections") o->connections = std::atoi(v.c_str());
    else if (flag == "--seconds") o->seconds = std::atof(v.c_str());
    else if (flag == "--op") o->op = v;
    else if (flag == "--value-size") o->value_size = static_cast<size_t>(std::atol(v.c_str()));
    else if (flag == "--rate") o->rate = std::atof(v.c_str());
    else if (flag == "--prefix") o->prefix = v;
    else if (flag == "--server-pid") o->server_pid = std::atoi(v.c_str());
    else return false;
  }
  return argc % 2 == 1 && o->connections > 0 && o->seconds > 0 && (o->op == "put" || o->op == "range");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!Parse(argc, argv, &o)) {
    std::fprintf(stderr, "usage: %s --port P [--connections C] [--seconds S] [--op put|range] "
                 "[--value-size N] [--rate R] [--prefix /v3] [--server-pid PID]\n", argv[0]);
    return 2;
  }
  const double cpu0 = CpuSeconds();
  const double server0 = o.server_pid > 0 ? ProcessCpuSeconds(o.server_pid) : -1;
  const auto start = Clock::now();
  std::vector<Counts> counts(static_cast<size_t>(o.connections));
  std::vector<std::thread> threads;
  for (int i = 0; i < o.connections; ++i) {
    threads.emplace_back([&, i] { counts[static_cast<size_t>(i)] = RunConnection(o, i, start); });
  }
  for (std::thread& t : threads) t.join();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  const double cpu = CpuSeconds() - cpu0;
  const double server = o.server_pid > 0 ? ProcessCpuSeconds(o.server_pid) - server0 : -1;
  Counts total;
  for (const Counts& c : counts) {
    total.requests += c.requests;
    total.errors += c.errors;
    if (total.first_error.empty()) total.first_error = c.first_error;
  }
  const double n = static_cast<double>(total.requests);
  std::printf("op=%s connections=%d rate=%s seconds=%.1f requests=%llu errors=%llu\n", o.op.c_str(),
              o.connections, o.rate > 0 ? std::to_string(static_cast<long>(o.rate)).c_str() : "closed",
              wall, static_cast<unsigned long long>(total.requests),
              static_cast<unsigned long long>(total.errors));
  std::printf("requests/s=%.0f client_cpu_us_per_request=%.1f client_cores=%.2f", n / wall,
              n > 0 ? cpu * 1e6 / n : 0.0, cpu / wall);
  if (server >= 0) {
    std::printf(" server_cpu_us_per_request=%.1f server_cores=%.2f", n > 0 ? server * 1e6 / n : 0.0,
                server / wall);
  }
  std::printf("\n");
  if (!total.first_error.empty()) std::printf("first error: %s\n", total.first_error.c_str());
  return total.requests > 0 ? 0 : 1;
}

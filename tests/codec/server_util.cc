#include "codec/server_util.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/socket.h"
#include "proto/etcd/http.h"

namespace memstand::codec_test {

namespace {

namespace fs = std::filesystem;

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

std::string MakeTempDir() {
  std::string pattern = "/tmp/memstand-codec-XXXXXX";
  char* dir = mkdtemp(pattern.data());
  return dir == nullptr ? std::string() : std::string(dir);
}

bool CanConnect(int port) {
  Result<int> fd = ConnectTcp("127.0.0.1", port, 200, true);
  if (!fd.ok()) return false;
  close(*fd);
  return true;
}

}  // namespace

Result<std::unique_ptr<TestServer>> TestServer::Start(
    std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> files) {
  Status last = Status::Failed("no attempt");
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto server = std::unique_ptr<TestServer>(new TestServer());
    server->dir_ = MakeTempDir();
    Result<int> port = PickFreePort();
    Result<int> port2 = PickFreePort();
    if (server->dir_.empty() || !port.ok() || !port2.ok()) return Status::IoError("no temp dir or port");
    server->port_ = *port;
    auto expand = [&](const std::string& s) {
      return Replace(Replace(Replace(s, "{PORT}", std::to_string(*port)), "{PORT2}",
                             std::to_string(*port2)),
                     "{DIR}", server->dir_);
    };
    for (const auto& [name, content] : files) std::ofstream(server->dir_ + "/" + name) << expand(content);
    SpawnOptions so;
    for (const std::string& a : argv) so.argv.push_back(expand(a));
    so.work_dir = server->dir_;
    so.log_path = server->dir_ + "/server.log";
    Result<std::unique_ptr<Process>> p = Process::Spawn(so);
    if (!p.ok()) return p.status();
    server->process_ = std::move(*p);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < deadline && server->process_->Alive()) {
      if (CanConnect(server->port_)) return server;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    last = Status::Failed(so.argv[0] + " did not listen on port " + std::to_string(server->port_) +
                          " (" + server->process_->DescribeExit() + "): " + server->LogTail());
  }
  return last;
}

TestServer::~TestServer() {
  if (process_ != nullptr) (void)process_->Terminate(5000);
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

std::string TestServer::LogTail() const {
  std::ifstream in(dir_ + "/server.log");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

Result<std::unique_ptr<TestServer>> StartMemcached() {
  return TestServer::Start({"memcached", "-p", "{PORT}", "-l", "127.0.0.1", "-U", "0", "-m", "64",
                            "-u", "root"});
}

Result<std::unique_ptr<TestServer>> StartTarantool(const std::string& init_lua) {
  return TestServer::Start({"tarantool", "init.lua"}, {{"init.lua", init_lua}});
}

Result<std::unique_ptr<TestServer>> StartEtcd(const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {
      "etcd", "--name", "codec-test", "--data-dir", "{DIR}/data",
      "--listen-client-urls", "http://127.0.0.1:{PORT}",
      "--advertise-client-urls", "http://127.0.0.1:{PORT}",
      "--listen-peer-urls", "http://127.0.0.1:{PORT2}",
      "--initial-advertise-peer-urls", "http://127.0.0.1:{PORT2}",
      "--initial-cluster", "codec-test=http://127.0.0.1:{PORT2}"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Result<std::unique_ptr<TestServer>> server = TestServer::Start(argv);
  if (!server.ok()) return server;
  // The client port opens before the member has elected itself; wait for a 200.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    Result<std::unique_ptr<BlockingConn>> c = BlockingConn::Connect((*server)->port());
    Buffer req;
    http::AppendPost(&req, "127.0.0.1", "/v3/maintenance/status", "{}");
    http::ResponseReader reader;
    if (c.ok() && (*c)->Send(req).ok() && (*c)->ReadReply(&reader).ok() &&
        reader.response().status == 200) {
      return server;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::Timeout("etcd did not answer status: " + (*server)->LogTail());
}

Result<std::unique_ptr<BlockingConn>> BlockingConn::Connect(int port) {
  Result<int> fd = ConnectTcp("127.0.0.1", port, 10000, true);
  if (!fd.ok()) return fd.status();
  if (Status s = SetIoTimeout(*fd, 10000); !s.ok()) {
    close(*fd);
    return s;
  }
  return std::unique_ptr<BlockingConn>(new BlockingConn(*fd));
}

BlockingConn::~BlockingConn() { close(fd_); }

Status BlockingConn::Send(std::string_view bytes) { return WriteAll(fd_, bytes.data(), bytes.size()); }

Status BlockingConn::Fill() {
  char buf[64 * 1024];
  Result<size_t> n = ReadSome(fd_, buf, sizeof(buf));
  if (!n.ok()) return n.status();
  if (*n == 0) return Status::IoError("peer closed the connection");
  pending_.append(buf, *n);
  bytes_read_ += *n;
  return Status::OK();
}

Result<std::string> BlockingConn::ReadExactly(size_t n) {
  while (pending_.size() < n) {
    if (Status s = Fill(); !s.ok()) return s;
  }
  std::string out = pending_.substr(0, n);
  pending_.erase(0, n);
  return out;
}

}  // namespace memstand::codec_test

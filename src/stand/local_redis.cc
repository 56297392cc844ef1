#include "stand/local_redis.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/socket.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

constexpr int kStartAttempts = 3;
constexpr int kProbeTimeoutMs = 1000;
constexpr int kStopTimeoutMs = 5000;
constexpr int kErrorTailLines = 10;
constexpr char kInstallHint[] = "install it with: apt-get install redis-server";

// Total length of the reply "+PONG\r\n$N\r\n<N bytes>\r\n" once `got` holds its
// header; 0 while incomplete; -1 if it is not that reply.
int64_t PongInfoReplyLength(const std::string& got) {
  static constexpr std::string_view kPong = "+PONG\r\n";
  if (got.size() < kPong.size()) return kPong.starts_with(got) ? 0 : -1;
  if (!got.starts_with(kPong)) return -1;
  size_t crlf = got.find("\r\n", kPong.size());
  if (got.size() == kPong.size() || crlf == std::string::npos) return 0;
  if (got[kPong.size()] != '$') return -1;
  int64_t n = std::strtoll(got.c_str() + kPong.size() + 1, nullptr, 10);
  return n < 0 ? -1 : static_cast<int64_t>(crlf) + 2 + n + 2;
}

// Sends PING and INFO server on a fresh connection; returns the INFO text.
Result<std::string> PingAndInfo(const std::string& host, int port) {
  auto fd = ConnectTcp(host, port, kProbeTimeoutMs, /*blocking=*/true);
  if (!fd.ok()) return fd.status();
  Status s = SetIoTimeout(*fd, kProbeTimeoutMs);
  static constexpr std::string_view kRequest = "PING\r\nINFO server\r\n";
  if (s.ok()) s = WriteAll(*fd, kRequest.data(), kRequest.size());
  std::string got;
  char buf[4096];
  int64_t want = 0;
  auto read_more = [&] {
    auto n = ReadSome(*fd, buf, sizeof(buf));
    if (!n.ok()) return n.status();
    if (*n == 0) return Status::IoError("connection closed");
    got.append(buf, *n);
    return Status::OK();
  };
  while (s.ok() && (want = PongInfoReplyLength(got)) == 0) s = read_more();
  while (s.ok() && static_cast<int64_t>(got.size()) < want) s = read_more();
  close(*fd);
  if (!s.ok()) return s;
  if (want < 0) return Status::Protocol("unexpected reply: " + got.substr(0, 80));
  return got;
}

// The value of `key:` in INFO text, "" if absent.
std::string InfoField(const std::string& info, const std::string& key) {
  std::string needle = "\n" + key + ":";
  size_t at = info.find(needle);
  if (at == std::string::npos) return "";
  at += needle.size();
  return info.substr(at, info.find_first_of("\r\n", at) - at);
}

std::string TempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

std::vector<std::string> CommandLine(const std::string& binary, int port, const std::string& dir,
                                     const LocalRedisOptions& options) {
  std::vector<std::string> argv = {binary,
                                   "--port",
                                   std::to_string(port),
                                   "--bind",
                                   "127.0.0.1",
                                   "--save",
                                   "",
                                   "--appendonly",
                                   "no",
                                   "--dir",
                                   dir,
                                   "--logfile",
                                   "",
                                   "--daemonize",
                                   "no"};
  for (const auto& [key, value] : options.config) {
    argv.push_back("--" + key);
    argv.push_back(value);
  }
  return argv;
}

}  // namespace

Result<std::unique_ptr<LocalRedis>> LocalRedis::Start(const LocalRedisOptions& options) {
  auto binary = FindExecutable(options.binary);
  if (!binary.ok()) {
    return Status::NotFound(options.binary + " not found in PATH; " + kInstallHint);
  }
  std::unique_ptr<LocalRedis> redis(new LocalRedis());
  redis->options_ = options;
  if (Status s = redis->MakeDir(); !s.ok()) return s;
  Status last;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    auto port = PickFreePort(redis->host_);
    if (!port.ok()) return port.status();
    bool port_taken = false;
    last = redis->TryStart(*binary, *port, &port_taken);
    if (last.ok()) return redis;
    if (!port_taken) break;
  }
  return last;  // ~LocalRedis stops the process and removes the directory
}

LocalRedis::~LocalRedis() { Stop(); }

Status LocalRedis::MakeDir() {
  std::error_code ec;
  if (options_.base_dir.empty()) {
    std::string tmpl = TempRoot() + "/memstand-redis-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) {
      return Status::IoError(ErrnoMessage("mkdtemp " + tmpl, errno));
    }
    dir_ = fs::absolute(tmpl, ec).string();
    owns_dir_ = true;
    return Status::OK();
  }
  fs::create_directories(options_.base_dir, ec);
  if (ec) return Status::IoError("cannot create " + options_.base_dir + ": " + ec.message());
  dir_ = fs::absolute(options_.base_dir, ec).string();
  return Status::OK();
}

Status LocalRedis::TryStart(const std::string& binary_path, int port, bool* port_taken) {
  port_ = port;
  process_.reset();  // a failed earlier attempt: terminate and reap it first
  auto process =
      Process::Spawn(SpawnOptions{CommandLine(binary_path, port, dir_, options_), dir_, LogPath()});
  if (!process.ok()) return process.status();
  process_ = std::move(process).value();
  return WaitReady(port_taken);
}

Status LocalRedis::WaitReady(bool* port_taken) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.ready_timeout_ms);
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    Status probe = Probe(port_taken);
    if (probe.ok() || *port_taken) return probe;
    if (!process_->Alive()) {
      *port_taken = LogTail(kErrorTailLines).find("Address already in use") != std::string::npos;
      return StartupFailure(process_->DescribeExit() + " during startup", Status::Failed);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      process_->Terminate(kStopTimeoutMs);
      return StartupFailure("did not answer PING within " +
                                std::to_string(options_.ready_timeout_ms) + " ms (" +
                                probe.message() + ")",
                            Status::Timeout);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

Status LocalRedis::Probe(bool* port_taken) {
  auto info = PingAndInfo(host_, port_);
  if (!info.ok()) return info.status();
  std::string owner = InfoField(*info, "process_id");
  if (owner != std::to_string(process_->pid())) {
    *port_taken = true;
    return Status::IoError(host_ + ":" + std::to_string(port_) +
                           " is served by another process (pid " + owner + ")");
  }
  version_ = InfoField(*info, "redis_version");
  return Status::OK();
}

Status LocalRedis::StartupFailure(const std::string& what, Status (*make)(std::string)) const {
  std::string tail = LogTail(kErrorTailLines);
  std::string msg = options_.binary + " on " + host_ + ":" + std::to_string(port_) + " " + what +
                    "; last lines of " + LogPath() + ":\n" + tail;
  if (tail.find("FATAL CONFIG FILE ERROR") != std::string::npos) {
    return Status::InvalidArgument(msg);
  }
  return make(msg);
}

Status LocalRedis::Stop() {
  Status result;
  if (process_ != nullptr && !stopped_) {
    stopped_ = true;
    bool was_alive = process_->Alive();
    process_->Terminate(kStopTimeoutMs);
    if (!was_alive) {
      result = Status::Failed(options_.binary + " (pid " + std::to_string(pid()) +
                              ") ended before Stop: " + process_->DescribeExit() +
                              "; last lines of log:\n" + LogTail(kErrorTailLines));
    }
  }
  if (owns_dir_) {
    owns_dir_ = false;
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec && result.ok()) result = Status::IoError("cannot remove " + dir_ + ": " + ec.message());
  }
  return result;
}

std::string LocalRedis::LogTail(int lines) const {
  constexpr std::streamoff kMaxTail = 64 * 1024;
  std::ifstream in(LogPath(), std::ios::binary | std::ios::ate);
  if (!in || lines <= 0) return "";
  std::streamoff size = in.tellg();
  in.seekg(std::max<std::streamoff>(0, size - kMaxTail));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t end = text.size();  // the next line to keep ends here
  for (int i = 1;; ++i) {
    size_t nl = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    if (nl == std::string::npos) return text;
    if (i == lines) return text.substr(nl + 1);
    end = nl;
  }
}

std::string LocalRedis::Describe() const {
  std::string s = fs::path(options_.binary).filename().string() + " " + version_ + " on " + host_ +
                  ":" + std::to_string(port_) + " (pid " + std::to_string(pid()) +
                  "), started by memstand, persistence off, dir " + dir_;
  if (!options_.config.empty()) {
    s += ", config:";
    for (const auto& [key, value] : options_.config) s += " " + key + "=" + value;
  }
  return s;
}

}  // namespace memstand

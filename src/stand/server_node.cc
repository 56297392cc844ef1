#include "stand/server_node.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/socket.h"

namespace memstand {
namespace {

namespace fs = std::filesystem;

constexpr int kStartAttempts = 3;
constexpr int kStopTimeoutMs = 5000;
constexpr int kErrorTailLines = 10;  // shown in errors
constexpr int kScanTailLines = 200;  // searched for the reason of an early exit

bool Cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

// OK if host:port can be bound now (nobody listens there).
Status CheckPortFree(const std::string& host, int port) {
  auto fd = ListenTcp(host, port, 1);
  if (!fd.ok()) {
    return Status::InvalidArgument("port " + std::to_string(port) + " on " + host +
                                   " is already in use (" + fd.status().message() + ")");
  }
  close(*fd);
  return Status::OK();
}

}  // namespace

Status MissingBinary(const std::string& binary, const std::string& package) {
  bool path = binary.find('/') != std::string::npos;
  return Status::NotFound(binary + (path ? " not found or not executable" : " not found in PATH") +
                          "; install it with: apt-get install " + package);
}

std::string FileTail(const std::string& path, int lines) {
  constexpr std::streamoff kMaxTail = 64 * 1024;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
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

Result<std::unique_ptr<ServerNode>> ServerNode::Start(std::shared_ptr<const ServerDriver> driver,
                                                      ServerNodeOptions options) {
  if (options.binary.empty()) options.binary = driver->DefaultBinary();
  auto binary = FindExecutable(options.binary);
  if (!binary.ok()) {
    return MissingBinary(options.binary, driver->Package());
  }
  std::error_code ec;
  fs::create_directories(options.dir, ec);
  if (ec) return Status::IoError("cannot create " + options.dir + ": " + ec.message());
  std::unique_ptr<ServerNode> node(new ServerNode());
  node->driver_ = std::move(driver);
  node->launch_.binary_path = *binary;
  node->launch_.dir = fs::absolute(options.dir, ec).string();
  node->launch_.log_path = node->launch_.dir + "/" + options.log_name;
  node->launch_.role_args = options.role_args;
  node->options_ = std::move(options);
  Status last;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    auto ports = node->PickPorts();
    if (!ports.ok()) return ports.status();
    node->launch_.ports = *ports;
    bool port_taken = false;
    last = node->TryStart(&port_taken);
    if (last.ok()) return node;
    if (!port_taken) break;
  }
  return last;  // ~ServerNode stops the process
}

Result<std::vector<int>> ServerNode::PickPorts() const {
  const int count = driver_->PortCount();
  std::vector<int> ports = options_.fixed_ports;
  ports.resize(count, 0);
  for (int i = 0; i < count; ++i) {
    if (ports[i] != 0) {
      if (Status s = CheckPortFree(launch_.host, ports[i]); !s.ok()) return s;
      continue;
    }
    for (;;) {  // distinct from the node's other ports
      auto port = PickFreePort(launch_.host);
      if (!port.ok()) return port.status();
      if (std::count(ports.begin(), ports.end(), *port) == 0) {
        ports[i] = *port;
        break;
      }
    }
  }
  return ports;
}

Status ServerNode::TryStart(bool* port_taken) {
  process_.reset();  // a failed earlier attempt: terminate and reap it first
  auto argv = driver_->Prepare(launch_);
  if (!argv.ok()) return argv.status();
  SpawnOptions spawn{*argv, launch_.dir, launch_.log_path};
  spawn.detach = options_.detach;
  spawn.hold_open = options_.hold_open;
  spawn.cpus = options_.cpus;
  auto process = Process::Spawn(spawn);
  if (!process.ok()) return process.status();
  process_ = std::move(process).value();
  if (Status s = ReportSpawn(); !s.ok()) return s;
  Status ready = WaitReady(port_taken);
  if (!ready.ok()) return ready;
  auto id = ReadProcessIdentity(process_->pid());
  if (!id.ok()) return StartupFailure("vanished right after it was ready", Status::Failed);
  identity_ = *id;
  return Status::OK();
}

Status ServerNode::ReportSpawn() const {
  if (!options_.on_spawn) return Status::OK();
  auto id = ReadProcessIdentity(process_->pid());
  ProcessIdentity early = id.ok() ? *id : ProcessIdentity{};
  early.pid = process_->pid();  // already gone: a record `down` reports as gone
  early.cmdline.clear();        // not final yet (redis-server and tarantool set a title)
  return options_.on_spawn(early, launch_);
}

Status ServerNode::WaitReady(bool* port_taken) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.ready_timeout_ms);
  auto pause = std::chrono::milliseconds(2);
  for (;;) {
    Status probe = driver_->Probe(launch_, process_->pid(), &version_, port_taken);
    if (probe.ok()) return probe;
    if (probe.code() == Status::Code::kServer) {  // an answer waiting cannot change
      process_->Terminate(kStopTimeoutMs);
      return StartupFailure(probe.message(), Status::InvalidArgument);
    }
    bool all_fixed = std::count(options_.fixed_ports.begin(), options_.fixed_ports.end(), 0) == 0 &&
                     static_cast<int>(options_.fixed_ports.size()) == driver_->PortCount();
    if (*port_taken || !process_->Alive()) {
      if (!*port_taken) {
        *port_taken = LogTail(kErrorTailLines).find("ddress already in use") != std::string::npos;
      }
      if (*port_taken && all_fixed) {
        process_->Terminate(kStopTimeoutMs);
        return StartupFailure("could not bind: a given port is in use", Status::InvalidArgument);
      }
      if (*port_taken) process_->Terminate(kStopTimeoutMs);
      if (*port_taken) return StartupFailure("lost its port to another process", Status::IoError);
      std::string log = LogTail(kScanTailLines);
      Status (*make)(std::string) =
          driver_->ConfigRejected(log) ? Status::InvalidArgument : Status::Failed;
      std::string complaint = driver_->Complaint(log);
      return StartupFailure(
          process_->DescribeExit() + " during startup" + (complaint.empty() ? "" : ": " + complaint),
          make);
    }
    if (Cancelled(options_.cancel)) {
      process_->Terminate(kStopTimeoutMs);
      return Status::Failed(options_.binary + ": interrupted while waiting for it to start");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      process_->Terminate(kStopTimeoutMs);
      return StartupFailure("did not " + driver_->ProbeDescription() + " within " +
                                std::to_string(options_.ready_timeout_ms) + " ms (" +
                                probe.message() + ")",
                            Status::Timeout);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

Status ServerNode::StartupFailure(const std::string& what, Status (*make)(std::string)) const {
  std::string msg = options_.binary + " on " + launch_.host + ":" + std::to_string(port()) + " " +
                    what + "; last lines of " + launch_.log_path + ":\n" +
                    LogTail(kErrorTailLines);
  return make(msg);
}

ServerNode::~ServerNode() { Stop(); }

Status ServerNode::Stop() {
  if (process_ == nullptr || stopped_ || process_->released()) return Status::OK();
  stopped_ = true;
  bool was_alive = process_->Alive();
  process_->Terminate(kStopTimeoutMs);
  if (was_alive || stopped_on_purpose_) return Status::OK();
  return Status::Failed(options_.binary + " (pid " + std::to_string(pid()) +
                        ") ended before Stop: " + process_->DescribeExit() +
                        "; last lines of log:\n" + LogTail(kErrorTailLines));
}

void ServerNode::Release() {
  if (process_ != nullptr) process_->Release();
}

Status ServerNode::Kill() {
  if (process_ == nullptr || stopped_ || process_->released()) {
    return Status::Failed(options_.binary + ": cannot kill a node that is stopped or released");
  }
  stopped_on_purpose_ = true;
  return process_->Kill();
}

Status ServerNode::Pause() {
  if (process_ == nullptr || stopped_) return Status::Failed(options_.binary + ": cannot pause a stopped node");
  return process_->Pause();
}

Status ServerNode::Resume() {
  if (process_ == nullptr || stopped_) return Status::Failed(options_.binary + ": cannot resume a stopped node");
  return process_->Resume();
}

Status ServerNode::Restart(std::function<Status(const ProcessIdentity&, const NodeLaunch&)> on_spawn) {
  if (process_ == nullptr || stopped_ || process_->released()) {
    return Status::Failed(options_.binary + ": cannot restart a node that is stopped or released");
  }
  if (process_->Alive()) {
    return Status::Failed(options_.binary + " (pid " + std::to_string(pid()) +
                          ") still runs: kill it before a restart");
  }
  options_.fixed_ports = launch_.ports;  // the same ports, or an error: never elsewhere
  options_.on_spawn = std::move(on_spawn);
  bool port_taken = false;
  Status s = TryStart(&port_taken);
  if (s.ok()) stopped_on_purpose_ = false;
  return s;
}

bool ServerNode::Alive() { return process_ != nullptr && process_->Alive(); }

std::string ServerNode::Ended() {
  if (stopped_on_purpose_) return "";
  if (process_ == nullptr || process_->released() || process_->Alive()) return "";
  return process_->DescribeExit();
}

std::string ServerNode::LogTail(int lines) const { return FileTail(launch_.log_path, lines); }

}  // namespace memstand

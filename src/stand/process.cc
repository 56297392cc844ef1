#include "stand/process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace memstand {
namespace {

std::string ErrnoText(const std::string& what, int err) { return what + ": " + std::strerror(err); }

// kill(2) for a child of ours: its group (-pid) or itself. pid > 1 is checked here, at
// the call, so that no state can turn it into kill(-1) (every process) or kill(0).
int SignalChild(pid_t pid, int sig, bool group) {
  if (pid <= 1) {
    errno = ESRCH;
    return -1;
  }
  return kill(group ? -pid : pid, sig);
}

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// What the child writes to the error pipe when it cannot exec.
enum class ChildStage : int { kSetup = 1, kChdir = 2, kExec = 3, kAffinity = 4 };
struct ChildError {
  ChildStage stage;
  int err;
};

// The fds and strings the child needs, all prepared before fork() so that the child
// only makes async-signal-safe calls.
struct ChildPlan {
  std::vector<char*> argv;  // null-terminated
  const char* path = nullptr;
  const char* work_dir = nullptr;  // null: stay
  int stdin_fd = -1;
  int log_fd = -1;
  int err_fd = -1;
  int hold_fd = -1;  // SpawnOptions::hold_open; -1: none
  pid_t parent = 0;
  bool detach = false;
  bool pin = false;  // SpawnOptions::cpus given: `cpus` is the child's affinity
  cpu_set_t cpus;
};

// Moves fd to a number >= 3 (keeping O_CLOEXEC) so dup2 onto 0..2 cannot clobber it.
int MoveAboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

[[noreturn]] void ChildFail(const ChildPlan& plan, ChildStage stage, int err) {
  ChildError e{stage, err};
  ssize_t ignored = write(plan.err_fd, &e, sizeof(e));
  (void)ignored;
  _exit(127);
}

void ResetSignals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // fails for KILL/STOP
}

// Marks every fd >= 3 close-on-exec.
void CloexecAboveStdio() {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0) return;
#endif
  long max_fd = sysconf(_SC_OPEN_MAX);
  if (max_fd < 0 || max_fd > (1 << 20)) max_fd = 1 << 20;
  for (int fd = 3; fd < max_fd; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

[[noreturn]] void RunChild(const ChildPlan& plan) {
  if (plan.detach) {
    if (setsid() < 0) ChildFail(plan, ChildStage::kSetup, errno);
  } else {
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) ChildFail(plan, ChildStage::kSetup, errno);
    if (getppid() != plan.parent) _exit(127);  // the parent died before prctl took effect
  }
  ResetSignals();
  if (dup2(plan.stdin_fd, 0) < 0 || dup2(plan.log_fd, 1) < 0 || dup2(plan.log_fd, 2) < 0) {
    ChildFail(plan, ChildStage::kSetup, errno);
  }
  if (plan.work_dir != nullptr && chdir(plan.work_dir) < 0) {
    ChildFail(plan, ChildStage::kChdir, errno);
  }
  if (plan.pin && sched_setaffinity(0, sizeof(plan.cpus), &plan.cpus) < 0) {
    ChildFail(plan, ChildStage::kAffinity, errno);
  }
  CloexecAboveStdio();  // err_fd is close-on-exec already: it closes on success
  if (plan.hold_fd >= 0 && fcntl(plan.hold_fd, F_SETFD, 0) < 0) {
    ChildFail(plan, ChildStage::kSetup, errno);
  }
  execv(plan.path, plan.argv.data());
  ChildFail(plan, ChildStage::kExec, errno);
}

// Opens the file the child holds (SpawnOptions::hold_open), if any.
Status OpenHeldFile(const SpawnOptions& options, ChildPlan* plan) {
  if (options.hold_open.empty()) return Status::OK();
  plan->hold_fd = MoveAboveStdio(open(options.hold_open.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (plan->hold_fd >= 0) return Status::OK();
  return Status::IoError(ErrnoText("cannot open " + options.hold_open, errno));
}

// Opens the child's stdin, log and error pipe. On error closes what it opened.
Status OpenChildFds(const SpawnOptions& options, ChildPlan* plan, int* err_read) {
  if (Status s = OpenHeldFile(options, plan); !s.ok()) return s;
  const std::string log = options.log_path.empty() ? "/dev/null" : options.log_path;
  plan->stdin_fd = MoveAboveStdio(open("/dev/null", O_RDONLY | O_CLOEXEC));
  plan->log_fd = MoveAboveStdio(open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  int log_errno = errno;
  int pipe_fds[2] = {-1, -1};
  if (plan->stdin_fd >= 0 && plan->log_fd >= 0 && pipe2(pipe_fds, O_CLOEXEC) == 0) {
    *err_read = MoveAboveStdio(pipe_fds[0]);
    plan->err_fd = MoveAboveStdio(pipe_fds[1]);
    if (*err_read >= 0 && plan->err_fd >= 0) return Status::OK();
  }
  Status s = plan->log_fd < 0 ? Status::IoError(ErrnoText("cannot open log " + log, log_errno))
                              : Status::IoError(ErrnoText("cannot set up child fds", errno));
  for (int fd : {plan->stdin_fd, plan->log_fd, plan->err_fd, *err_read, plan->hold_fd}) {
    if (fd >= 0) close(fd);
  }
  return s;
}

// Reads the child's exec report: OK if the pipe closed empty (exec succeeded).
Status ReadExecReport(int err_read, const std::string& prog, const SpawnOptions& options) {
  ChildError e{};
  ssize_t n;
  do {
    n = read(err_read, &e, sizeof(e));
  } while (n < 0 && errno == EINTR);
  if (n == 0) return Status::OK();
  if (n != static_cast<ssize_t>(sizeof(e))) return Status::IoError(prog + ": child setup failed");
  switch (e.stage) {
    case ChildStage::kChdir:
      return Status::IoError(ErrnoText("cannot chdir to " + options.work_dir, e.err));
    case ChildStage::kAffinity:
      return Status::IoError(ErrnoText("cannot pin " + prog + " to CPUs " + CpuListText(options.cpus), e.err));
    case ChildStage::kExec:
      if (e.err == ENOENT) return Status::NotFound(prog + " not found in PATH (exec failed)");
      return Status::IoError(ErrnoText("cannot exec " + prog, e.err));
    default:
      return Status::IoError(ErrnoText(prog + ": child setup failed", e.err));
  }
}

}  // namespace

Result<std::string> FindExecutable(const std::string& name) {
  if (name.empty()) return Status::InvalidArgument("empty program name");
  if (name.find('/') != std::string::npos) {
    if (IsExecutableFile(name)) return name;
    return Status::NotFound(name + " not found or not executable");
  }
  const char* env = std::getenv("PATH");
  std::string path = env != nullptr ? env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return Status::NotFound(name + " not found in PATH");
}

Result<std::unique_ptr<Process>> Process::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return Status::InvalidArgument("Spawn: empty argv");
  auto path = FindExecutable(options.argv[0]);
  if (!path.ok()) return path.status();
  ChildPlan plan;
  for (const std::string& arg : options.argv) plan.argv.push_back(const_cast<char*>(arg.c_str()));
  plan.argv.push_back(nullptr);
  plan.path = path->c_str();
  if (!options.work_dir.empty()) plan.work_dir = options.work_dir.c_str();
  plan.parent = getpid();
  plan.detach = options.detach;
  CPU_ZERO(&plan.cpus);
  plan.pin = !options.cpus.empty();
  for (int cpu : options.cpus) {
    if (cpu < 0 || cpu > kMaxCpu) return Status::InvalidArgument("Spawn: CPU " + std::to_string(cpu) + " out of range");
    CPU_SET(cpu, &plan.cpus);
  }
  int err_read = -1;
  if (Status s = OpenChildFds(options, &plan, &err_read); !s.ok()) return s;

  pid_t pid = fork();
  if (pid == 0) RunChild(plan);
  int fork_errno = errno;
  for (int fd : {plan.stdin_fd, plan.log_fd, plan.err_fd}) close(fd);
  if (plan.hold_fd >= 0) close(plan.hold_fd);
  if (pid < 0) {
    close(err_read);
    return Status::IoError(ErrnoText("fork", fork_errno));
  }
  // Also done by the child; whichever runs first wins the race. A detached child makes
  // its own session (setsid), which fails if it is already a group leader: leave it.
  if (!options.detach) setpgid(pid, pid);
  std::unique_ptr<Process> child(new Process(pid));
  Status report = ReadExecReport(err_read, options.argv[0], options);
  close(err_read);
  if (!report.ok()) {
    child->Reap(true);
    return report;
  }
  return child;
}

Process::~Process() { Terminate(kDefaultTerminateMs); }

bool Process::Reap(bool block) {
  if (released_) return true;
  if (wait_status_) return true;
  siginfo_t info{};
  int flags = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
  int rc;
  do {
    rc = waitid(P_PID, static_cast<id_t>(pid_), &info, flags);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {  // ECHILD: reaped elsewhere (e.g. SIGCHLD ignored); status unknown
    wait_status_ = -1;
    return true;
  }
  if (info.si_pid == 0) return false;
  // The zombie leader still holds the group id, so this cannot hit a reused group.
  SignalChild(pid_, SIGKILL, /*group=*/true);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  wait_status_ = status;
  return true;
}

bool Process::Alive() { return !Reap(false); }

Status Process::Terminate(int timeout_ms) {
  if (Reap(false)) return Status::OK();
  if (SignalChild(pid_, SIGTERM, true) < 0 && SignalChild(pid_, SIGTERM, false) < 0 &&
      errno != ESRCH) {
    return Status::IoError(ErrnoText("kill " + std::to_string(pid_), errno));
  }
  if (paused_) {  // a stopped process takes its SIGTERM once continued
    SignalChild(pid_, SIGCONT, true);
    paused_ = false;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  auto step = std::chrono::milliseconds(1);
  while (!Reap(false) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(step);
    step = std::min(step * 2, std::chrono::milliseconds(20));
  }
  if (!wait_status_) return Kill();
  return Status::OK();
}

void Process::Release() {
  if (paused_ && !released_) Resume();
  released_ = true;
}

Status Process::Kill() {
  if (Reap(false)) return Status::OK();
  SignalChild(pid_, SIGKILL, true);
  SignalChild(pid_, SIGKILL, false);
  paused_ = false;
  Reap(true);
  return Status::OK();
}

// SIGSTOP or SIGCONT to the group of a child that still runs.
Status Process::SignalGroup(int sig, const char* what) {
  if (Reap(false)) {
    return Status::Failed("cannot " + std::string(what) + " pid " + std::to_string(pid_) + ": it " +
                          (released_ ? "was released" : DescribeExit()));
  }
  if (SignalChild(pid_, sig, true) < 0 && SignalChild(pid_, sig, false) < 0) {
    return Status::IoError(ErrnoText(std::string(what) + " pid " + std::to_string(pid_), errno));
  }
  return Status::OK();
}

namespace {

// Waits until the child reports `state` (WSTOPPED or WCONTINUED; WNOWAIT leaves the
// event, and its exit, for Reap), at most kStateChangeMs. False if it ended or took longer.
bool AwaitStateChange(pid_t pid, int state) {
  constexpr int kStateChangeMs = 10000;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStateChangeMs);
  auto step = std::chrono::microseconds(100);
  for (;;) {
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, state | WEXITED | WNOWAIT | WNOHANG) < 0 &&
        errno != EINTR) {
      return false;
    }
    if (info.si_pid != 0) {
      return info.si_code == (state == WSTOPPED ? CLD_STOPPED : CLD_CONTINUED);
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(step);
    step = std::min(step * 2, std::chrono::microseconds(20000));
  }
}

}  // namespace

// The stop (or continue) reaches the leader soon after the signal; these return once it
// has, so a paused server is known to answer nothing.
Status Process::Pause() {
  if (Status s = SignalGroup(SIGSTOP, "pause"); !s.ok()) return s;
  paused_ = true;
  if (!AwaitStateChange(pid_, WSTOPPED)) {
    return Status::Failed("pid " + std::to_string(pid_) + " did not stop after SIGSTOP");
  }
  return Status::OK();
}

Status Process::Resume() {
  if (Status s = SignalGroup(SIGCONT, "resume"); !s.ok()) return s;
  paused_ = false;
  if (!AwaitStateChange(pid_, WCONTINUED)) {
    return Status::Failed("pid " + std::to_string(pid_) + " did not continue after SIGCONT");
  }
  return Status::OK();
}

std::string Process::DescribeExit() const {
  if (!wait_status_) return "running";
  int st = *wait_status_;
  if (st == -1) return "exit status unknown (reaped elsewhere)";
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(st));
    return "killed by signal " + std::to_string(WTERMSIG(st)) +
           (abbrev != nullptr ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "ended with wait status " + std::to_string(st);
}

}  // namespace memstand

"""Shared helpers of the bench/ scripts (compare_peers.py, cluster_compare.py,
proto_compare.py): servers pinned to a core, child processes measured by their
rusage, platform facts and Markdown tables. No measurement policy lives here."""

import os
import platform
import re
import signal
import socket
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SERVER_START_TIMEOUT_S = 10.0


class BenchError(Exception):
    """A failure that ends the benchmark with a message and exit status 1."""


def read_file(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def tool_version(cmd):
    """The first line a tool prints for its version flag, or "unknown"."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "unknown"


def loadavg():
    return read_file("/proc/loadavg").split()[:3]


def base_platform_facts():
    """Machine facts every report prints beside absolute figures (METHOD.md rule 1)."""
    cpuinfo = read_file("/proc/cpuinfo")
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    flags = re.search(r"^flags\s*:\s*(.*)$", cpuinfo, re.M)
    return {
        "uname": " ".join(platform.uname()),
        "nproc": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)),
        "cpu_model": model.group(1).strip() if model else "unknown",
        "hypervisor": bool(flags and "hypervisor" in flags.group(1).split()),
        "loadavg_start": loadavg(),
        "python": platform.python_version(),
    }


def tail(text, lines=20):
    """The last non-blank lines of a tool's output (carriage returns count as breaks)."""
    kept = [line for line in text.replace("\r", "\n").splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process pinned to one core; stop() ends it and its process group."""

    def __init__(self, kind, argv, log_path, cwd=None):
        self.kind = kind
        self.port = None
        self.log_path = log_path
        self.log = open(log_path, "w+b")
        # Own session: Ctrl-C reaches only this script, which then stops the server.
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     cwd=cwd)

    def log_tail(self, lines=20):
        self.log.flush()
        return tail(read_file(self.log_path), lines)

    def check_alive(self):
        if self.proc.poll() is not None:
            raise BenchError(f"{self.kind} server exited with status {self.proc.returncode}:\n"
                             + self.log_tail())

    def cpu_s(self):
        """User + sys CPU seconds of the server process so far (clock-tick resolution)."""
        fields = read_file(f"/proc/{self.proc.pid}/stat").rsplit(")", 1)[-1].split()
        if len(fields) < 13:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        self.log.close()


def wait_until(predicate, what, server, timeout_s=SERVER_START_TIMEOUT_S):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        server.check_alive()
        if predicate():
            return
        time.sleep(0.05)
    raise BenchError(f"{what} did not come up within {timeout_s:.0f} s:\n"
                     + server.log_tail())


def run_child(argv, out_path, cwd=None):
    """Runs argv to completion; returns (exit code, user+sys s, wall s) of that child.

    The CPU is the kernel's rusage of the child and of everything it waited for
    (taskset execs the tool, so it is the tool's own)."""
    with open(out_path, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=cwd)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return proc.returncode, usage.ru_utime + usage.ru_stime, wall


def print_table(header, rows):
    """A Markdown table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        out = []
        for i, cell in enumerate(cells):
            out.append(str(cell).ljust(widths[i]) if i == 0 else str(cell).rjust(widths[i]))
        return "| " + " | ".join(out) + " |"

    print(line(header))
    print("|" + "|".join("-" * (w + 2) if i == 0 else "-" * (w + 1) + ":"
                         for i, w in enumerate(widths)) + "|")
    for r in rows:
        print(line(r))


def interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def install_signal_handlers():
    """Ctrl-C, kill and hang-up raise KeyboardInterrupt so servers get stopped, even
    when the script was started with SIGINT ignored (a background job)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGHUP, interrupt)


def warn_setup(name, args):
    """The warnings every peer comparison prints about its options."""
    if args.server_core == args.client_core:
        print(f"{name}: warning: server and client share a CPU; CPU per request "
              "still ranks clients, requests/s does not", file=sys.stderr)
    if args.runs < 3:
        print(f"{name}: warning: --runs {args.runs} < 3: no median claim", file=sys.stderr)


def run_cases(name, bench, cases):
    """Runs the cases and always stops the servers. None on success, else the exit
    status (1 a run failed, 130 interrupted), its reason printed."""
    try:
        bench.run(cases)
    except BenchError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{name}: interrupted; servers stopped, nothing reported", file=sys.stderr)
        return 130
    finally:
        bench.stop()
    return None

"""Shared helpers of the bench/ scripts (compare_peers.py, cluster_compare.py,
proto_compare.py): servers pinned to a core, child processes measured by their
rusage, platform facts and Markdown tables; for the two peer comparisons also their
common options, main flow (run_comparison), sample fields and medians. Which cases
run, against what, and what is checked stays in each script."""

import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SERVER_START_TIMEOUT_S = 10.0

# The per-tool medians every peer comparison's summary row holds.
SUMMARY_KEYS = ("requests_per_sec", "client_cpu_us_per_request", "client_core_share",
                "server_cpu_us_per_request")


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


def find_programs(needed, tools, missing):
    """Adds the PATH of every (name, install hint) in needed to tools, the rest to
    missing; raises BenchError naming everything missing (missing may already hold the
    caller's own finds)."""
    for name, hint in needed:
        path = shutil.which(name)
        if path:
            tools[name] = path
        else:
            missing.append(f"{name} not installed: {hint}")
    if missing:
        raise BenchError("missing tools:\n  " + "\n  ".join(missing))
    return tools


def loadavg():
    return read_file("/proc/loadavg").split()[:3]


def base_platform_facts():
    """Machine facts every report prints beside absolute figures (docs/method.md rule 1)."""
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


def start_checked(server, predicate, what):
    """Waits until predicate() holds (see wait_until); stops the server if it does not."""
    try:
        wait_until(predicate, what, server)
    except BaseException:
        server.stop()
        raise
    return server


def run_child(argv, out_path, cwd=None):
    """Runs argv to completion; returns (exit code, user+sys s, wall s) of that child.

    The CPU is the kernel's rusage of the child and of everything it waited for
    (taskset execs the tool, so it is the tool's own)."""
    start = time.monotonic()
    code, usage = run_child_rusage(argv, out_path, cwd)
    return code, usage.ru_utime + usage.ru_stime, time.monotonic() - start


def run_child_rusage(argv, out_path, cwd=None):
    """Runs argv to completion, its output to out_path; returns (exit code, rusage) of
    that child (os.wait4: its CPU, its peak RSS in ru_maxrss KiB)."""
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=cwd)
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return proc.returncode, usage


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


# ----------------------------------------------------------------------------- options

def add_core_args(p):
    p.add_argument("--server-core", type=int, default=0,
                   help="CPU the servers are pinned to (default: 0)")
    p.add_argument("--client-core", type=int, default=1,
                   help="CPU every client run is pinned to (default: 1)")


def add_output_args(p):
    p.add_argument("--raw-json", metavar="FILE",
                   help="write the platform facts, options and every raw sample here")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print every raw sample as it is measured")


def check_cores(p, args):
    """p.error() unless --server-core and --client-core name CPUs of this machine."""
    ncpu = os.cpu_count() or 1
    for name in ("server_core", "client_core"):
        core = getattr(args, name)
        if not 0 <= core < ncpu:
            p.error(f"--{name.replace('_', '-')} {core}: this machine has CPUs 0..{ncpu - 1}")


# ----------------------------------------------------------------------------- runs

class BenchBase:
    """What every peer comparison's Bench keeps: options, tool paths, a temporary
    directory, the servers it started (stop() stops them) and every sample."""

    def __init__(self, args, tools, tmpdir):
        self.args = args
        self.tools = tools
        self.tmpdir = tmpdir
        self.servers = {}
        self.samples = []

    def stop(self):
        for server in self.servers.values():
            server.stop()


def run_comparison(name, script, args):
    """The main flow of a peer comparison after its options are parsed; returns the
    exit status. `script` (the comparison's module) provides build_cases(args),
    find_tools(args, cases) (raises BenchError), platform_facts(tools), Bench(args,
    tools, tmpdir) (a BenchBase with run(cases)), summarize(cases, samples),
    print_report(args, facts, cases, rows, samples) and write_raw(path, args, facts,
    rows, samples)."""
    cases = script.build_cases(args)
    try:
        tools = script.find_tools(args, cases)
    except BenchError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    warn_setup(name, args)
    facts = script.platform_facts(tools)
    with tempfile.TemporaryDirectory(prefix=f"{name}.") as tmpdir:
        bench = script.Bench(args, tools, tmpdir)
        status = run_cases(name, bench, cases)
        if status is not None:
            return status
    facts["loadavg_end"] = loadavg()
    rows = script.summarize(cases, bench.samples)
    script.print_report(args, facts, cases, rows, bench.samples)
    if args.raw_json:
        script.write_raw(args.raw_json, args, facts, rows, bench.samples)
    return 0


def read_memstand_json(json_path, what, requests, output):
    """memstand's --json report of a run that must have answered all `requests`
    without errors; BenchError (with the run's output) otherwise."""
    try:
        with open(json_path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise BenchError(f"memstand wrote no readable JSON ({e}):\n{tail(output)}")
    totals = doc["totals"]
    if totals["ops"] != requests or totals["errors"] or doc.get("unanswered"):
        raise BenchError(f"memstand {what}: ops {totals['ops']} of {requests}, errors "
                         f"{totals['errors']} {totals.get('errors_by_kind')}, unanswered "
                         f"{doc.get('unanswered')}:\n" + tail(output))
    return doc


def client_cpu_fields(cpu_s, wall_s, requests):
    """The client's CPU figures of one run, as a sample holds them."""
    return {
        "client_cpu_s": cpu_s, "client_wall_s": wall_s,
        "client_cpu_us_per_request": cpu_s * 1e6 / requests,
        "client_core_share": cpu_s / wall_s if wall_s > 0 else None,
    }


def print_sample(s, case_width, tool_width, rps_width):
    """One raw sample on one line (--verbose)."""
    print(f"  run {s['run']} {s['case']:<{case_width}} {s['tool']:<{tool_width}} "
          f"{s['requests_per_sec']:>{rps_width},.0f} req/s  "
          f"{s['client_cpu_us_per_request']:6.2f} CPU-us/req  "
          f"core {s['client_core_share']:.2f}  "
          f"server {s['server_cpu_us_per_request']:6.2f} CPU-us/req", flush=True)


# ----------------------------------------------------------------------------- report

def values_of(samples, case_name, tool, key):
    return [s[key] for s in samples if s["case"] == case_name and s["tool"] == tool]


def median_of(samples, case_name, tool, key):
    values = values_of(samples, case_name, tool, key)
    return statistics.median(values) if values else float("nan")


def add_medians(row, samples, case_name, tool):
    for key in SUMMARY_KEYS:
        row[f"{tool}:{key}"] = median_of(samples, case_name, tool, key)


def per_run_ratios(samples, case_name, peer):
    """memstand / peer client CPU per request of each run (the pair ran back to back)."""
    by_run = {}
    for s in samples:
        if s["case"] == case_name:
            by_run.setdefault(s["run"], {})[s["tool"]] = s["client_cpu_us_per_request"]
    return [pair["memstand"] / pair[peer]
            for _, pair in sorted(by_run.items()) if len(pair) == 2]


def median_word(runs):
    return "median" if runs >= 3 else "middle (N < 3: not a median claim)"


def print_platform(facts):
    print(f"platform: {facts['uname']}")
    print(f"          nproc {facts['nproc']}, cpu {facts['cpu_model']}, hypervisor flag: "
          f"{'yes' if facts['hypervisor'] else 'no'}, load average at start "
          f"{' '.join(facts['loadavg_start'])}, at end {' '.join(facts['loadavg_end'])}")


def write_raw_json(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(f"\nraw samples: {path}")

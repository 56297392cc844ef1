#!/usr/bin/env python3
"""Peer comparison: memstand's load generator against redis-benchmark.

Both clients run single-threaded, pinned to one core, against servers this script
starts on loopback and pins to another core: a real redis-server and the in-repo
null_resp_server (answers every command at once, so the client is the limit).

The quantity that ranks clients is the client's own CPU per request (user + sys of
the client process, from the kernel's rusage of that child, divided by the requests
it sent). Requests/s against a saturated server does not rank clients; it is shown
for context. Each case is repeated --runs times with the order of the two clients
alternated per run (docs/method.md rule 10); the table shows medians and every raw sample
is kept (--verbose prints them, --raw-json writes them).

Exit status: 0 when every run finished (targets are reported, not enforced);
1 when a tool is missing, a server does not start, or a client run fails;
2 on bad options; 130 on Ctrl-C. Servers are always stopped.
"""

import argparse
import os
import re
import shlex
import shutil  # noqa: F401  (cluster_compare.py reaches it as cp.shutil)
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Shared helpers; re-exported here too, as cluster_compare.py reaches them as cp.<name>.
from benchlib import (REPO, BenchBase, BenchError, Server,  # noqa: E402,F401
                      add_core_args, add_medians, add_output_args, base_platform_facts,
                      check_cores, client_cpu_fields, find_programs, free_port,
                      install_signal_handlers, median_word, per_run_ratios,
                      print_platform, print_sample, print_table, read_file,
                      read_memstand_json, run_child, run_comparison, start_checked, tail,
                      tool_version, wait_until, write_raw_json)

CONNECTIONS = 50
VALUE_SIZE = 100
KEY_COUNT = 100_000  # memstand: memtier-0..99999; redis-benchmark: key:000000000000..
MEMSTAND_KEY_PREFIX = "memtier-"  # memstand's default --key-prefix
QUICK_REQUESTS_P1 = 20_000
QUICK_REQUESTS_PIPELINED = 200_000
SATURATED_NOTE = ("requests/s against a saturated server does not rank clients; "
                  "CPU per request does")

TOOLS = ("memstand", "redis-benchmark")


# ----------------------------------------------------------------------------- options

def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                   help="directory holding memstand and null_resp_server "
                        "(default: %(default)s)")
    p.add_argument("--runs", type=int, default=3,
                   help="repetitions of every case; >= 3 for a median (default: 3)")
    p.add_argument("--requests-p1", type=int, default=100_000,
                   help="requests per client run at pipeline 1 (default: 100000)")
    p.add_argument("--requests-pipelined", type=int, default=1_000_000,
                   help="requests per client run at pipeline 16 and 128 "
                        "(default: 1000000)")
    add_core_args(p)
    p.add_argument("--quick", action="store_true",
                   help=f"smoke run: {QUICK_REQUESTS_P1} requests at pipeline 1, "
                        f"{QUICK_REQUESTS_PIPELINED} pipelined")
    p.add_argument("--only", choices=("redis", "null"),
                   help="run only the cases against this server")
    p.add_argument("--io", choices=("auto", "uring", "epoll"), default="auto",
                   help="memstand's --io (default: auto, memstand's own default)")
    add_output_args(p)
    args = p.parse_args(argv)
    if args.quick:
        args.requests_p1 = QUICK_REQUESTS_P1
        args.requests_pipelined = QUICK_REQUESTS_PIPELINED
    if args.runs < 1:
        p.error("--runs must be >= 1")
    if args.requests_p1 < 1 or args.requests_pipelined < 1:
        p.error("request counts must be >= 1")
    check_cores(p, args)
    return args


# ----------------------------------------------------------------------------- cases

class Case:
    """One benchmark case: a server, a command and a pipeline depth."""

    def __init__(self, server, command, pipeline, requests, target):
        self.server = server      # "redis" or "null"
        self.command = command    # "set" or "get"
        self.pipeline = pipeline
        self.requests = requests
        self.target = target      # max memstand/redis-benchmark CPU ratio, or None

    @property
    def name(self):
        return f"{self.server} {self.command.upper()} {VALUE_SIZE}B P{self.pipeline}"


def build_cases(args):
    def n(pipeline):
        return args.requests_p1 if pipeline == 1 else args.requests_pipelined

    cases = []
    if args.only in (None, "redis"):
        for pipeline in (1, 16):
            for command in ("set", "get"):
                cases.append(Case("redis", command, pipeline, n(pipeline), None))
    if args.only in (None, "null"):
        for pipeline, target in ((1, 0.8), (16, 0.6), (128, 0.6)):
            cases.append(Case("null", "set", pipeline, n(pipeline), target))
    return cases


# ----------------------------------------------------------------------------- platform

def platform_facts(tools):
    facts = base_platform_facts()
    facts.update({
        "memstand_version": tool_version([tools["memstand"], "--version"]),
        "redis_benchmark_version": tool_version([tools["redis-benchmark"], "--version"]),
        "redis_server_version": tool_version([tools["redis-server"], "--version"]),
    })
    return facts


def find_tools(args, cases):  # every case needs the same tools
    """Paths of every external program, or BenchError naming what is missing."""
    tools = {}
    missing = []
    for name in ("memstand", "null_resp_server"):
        path = os.path.join(args.build_dir, name)
        if os.access(path, os.X_OK):
            tools[name] = path
        else:
            missing.append(f"{path} not found: build it with "
                           f"`cmake --build {args.build_dir} -j2`")
    return find_programs((("redis-benchmark", "apt-get install redis-tools"),
                          ("redis-server", "apt-get install redis-server"),
                          ("taskset", "apt-get install util-linux")), tools, missing)


# ----------------------------------------------------------------------------- RESP

class RespConnection:
    """A minimal blocking RESP2 client for set-up and server counters."""

    def __init__(self, port, timeout=10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def close(self):
        self.sock.close()

    @staticmethod
    def encode(*args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(parts)

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise BenchError("server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n + 2:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise BenchError("server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind in (b"+", b":"):
            return rest.decode() if kind == b"+" else int(rest)
        if kind == b"-":
            raise BenchError(f"server error: {rest.decode(errors='replace')}")
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise BenchError(f"malformed RESP reply: {line[:60]!r}")

    def call(self, *args):
        self.sock.sendall(self.encode(*args))
        return self.reply()

    def pipeline(self, commands):
        self.sock.sendall(b"".join(self.encode(*c) for c in commands))
        return [self.reply() for _ in commands]


def redis_info(port, section):
    conn = RespConnection(port)
    try:
        text = conn.call("INFO", section).decode()
    finally:
        conn.close()
    info = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            k, v = line.split(":", 1)
            info[k] = v
    return info


def populate_redis(port):
    """SETs every key both clients' GET cases read; checks DBSIZE afterwards."""
    value = b"v" * VALUE_SIZE
    conn = RespConnection(port)
    try:
        batch = []
        for i in range(KEY_COUNT):
            batch.append((b"SET", f"{MEMSTAND_KEY_PREFIX}{i}".encode(), value))
            batch.append((b"SET", b"key:%012d" % i, value))
            if len(batch) >= 2000:
                conn.pipeline(batch)
                batch = []
        if batch:
            conn.pipeline(batch)
        size = conn.call("DBSIZE")
    finally:
        conn.close()
    if size != 2 * KEY_COUNT:
        raise BenchError(f"redis DBSIZE is {size} after populating, expected {2 * KEY_COUNT}")


# ----------------------------------------------------------------------------- servers

def start_redis(tools, core, tmpdir):
    port = free_port()
    argv = [tools["taskset"], "-c", str(core), tools["redis-server"],
            "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--dir", tmpdir]
    server = Server("redis", argv, os.path.join(tmpdir, "redis-server.log"))
    server.port = port

    def pong():
        try:
            conn = RespConnection(port, timeout=1.0)
            try:
                return conn.call("PING") == "PONG"
            finally:
                conn.close()
        except (OSError, BenchError):
            return False

    return start_checked(server, pong, f"redis-server on port {port}")


def start_null(tools, core, tmpdir):
    argv = [tools["taskset"], "-c", str(core), tools["null_resp_server"], "--port", "0"]
    server = Server("null", argv, os.path.join(tmpdir, "null_resp_server.log"))

    def listening():
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", read_file(server.log_path))
        if m:
            server.port = int(m.group(1))
        return server.port is not None

    return start_checked(server, listening, "null_resp_server")


# ----------------------------------------------------------------------------- clients

def memstand_argv(tools, case, port, json_path, io="auto"):
    command = "set __key__ __data__" if case.command == "set" else "get __key__"
    return [tools["memstand"], "run", "--target", f"redis://127.0.0.1:{port}", "--io", io,
            "-t", "1", "-c", str(CONNECTIONS), "--pipeline", str(case.pipeline),
            "-n", str(case.requests), "--command", command, "-d", str(VALUE_SIZE),
            "--key-maximum", str(KEY_COUNT - 1), "-q", "--json", json_path]


def redis_benchmark_argv(tools, case, port):
    return [tools["redis-benchmark"], "-h", "127.0.0.1", "-p", str(port),
            "-c", str(CONNECTIONS), "-n", str(case.requests), "-P", str(case.pipeline),
            "-t", case.command, "-d", str(VALUE_SIZE), "-r", str(KEY_COUNT), "-q"]


def parse_memstand(json_path, case, output):
    doc = read_memstand_json(json_path, case.name, case.requests, output)
    totals = doc["totals"]
    extra = {"memstand_thread_cpu_us_per_request": doc["client"]["cpu_us_per_request"],
             "memstand_io": doc["options"].get("io"),
             "warnings": doc.get("warnings", [])}
    if case.command == "get":
        extra["hits"], extra["misses"] = totals.get("hits"), totals.get("misses")
    return totals["ops_per_sec"], extra


RB_LINE = re.compile(r"^([A-Z_]+): ([0-9.]+) requests per second", re.M)


def parse_redis_benchmark(output, case):
    lines = [ln for ln in output.replace("\r", "\n").splitlines() if ln.strip()]
    m = RB_LINE.search(lines[-1]) if lines else None
    if not m or m.group(1) != case.command.upper():
        raise BenchError(f"redis-benchmark {case.name}: no final "
                         f"'{case.command.upper()}: N requests per second' line:\n"
                         + tail(output))
    return float(m.group(2)), {}


class Bench(BenchBase):
    """Runs the clients against the servers and keeps every sample."""

    def server_counters(self, server):
        """Server CPU seconds and keyspace misses (redis) right now."""
        if server.kind == "redis":
            info = redis_info(server.port, "all")
            cpu = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
            return cpu, int(info["keyspace_misses"])
        return server.cpu_s(), 0

    def run_one(self, case, tool, run_index):
        server = self.servers[case.server]
        server.check_alive()
        base = os.path.join(self.tmpdir, f"{case.server}-{case.command}-p{case.pipeline}"
                                         f"-{run_index}-{tool}")
        if tool == "memstand":
            client = memstand_argv(self.tools, case, server.port, base + ".json", self.args.io)
        else:
            client = redis_benchmark_argv(self.tools, case, server.port)
        argv = [self.tools["taskset"], "-c", str(self.args.client_core)] + client
        cpu0, miss0 = self.server_counters(server)
        code, cpu_s, wall_s = run_child(argv, base + ".out")
        cpu1, miss1 = self.server_counters(server)
        output = read_file(base + ".out")
        if code != 0:
            raise BenchError(f"{tool} {case.name} run {run_index + 1} exited with {code}:\n"
                             f"$ {shlex.join(argv)}\n{tail(output)}")
        if tool == "memstand":
            rps, extra = parse_memstand(base + ".json", case, output)
        else:
            rps, extra = parse_redis_benchmark(output, case)
        sample = {
            "case": case.name, "server": case.server, "command": case.command,
            "pipeline": case.pipeline, "connections": CONNECTIONS,
            "value_size": VALUE_SIZE, "requests": case.requests, "run": run_index + 1,
            "tool": tool, "requests_per_sec": rps,
            **client_cpu_fields(cpu_s, wall_s, case.requests),
            "server_cpu_us_per_request": (cpu1 - cpu0) * 1e6 / case.requests,
            "argv": argv,
        }
        if case.server == "redis" and case.command == "get":
            sample["server_keyspace_misses"] = miss1 - miss0
        sample.update(extra)
        self.samples.append(sample)
        if self.args.verbose:
            print_sample(sample, 22, 15, 12)
        return sample

    def run(self, cases):
        kinds = sorted({c.server for c in cases})
        for kind in kinds:
            start = start_redis if kind == "redis" else start_null
            self.servers[kind] = start(self.tools, self.args.server_core, self.tmpdir)
        if "redis" in self.servers and any(c.command == "get" for c in cases):
            populate_redis(self.servers["redis"].port)
        for run_index in range(self.args.runs):
            order = TOOLS if run_index % 2 == 0 else TOOLS[::-1]
            if not self.args.verbose:
                print(f"run {run_index + 1}/{self.args.runs} ({' then '.join(order)}) ...",
                      flush=True)
            for case in cases:
                for tool in order:
                    self.run_one(case, tool, run_index)


# ----------------------------------------------------------------------------- report

def summarize(cases, samples):
    rows = []
    for case in cases:
        row = {"case": case.name, "target": case.target}
        for tool in TOOLS:
            add_medians(row, samples, case.name, tool)
        row["ratio"] = (row["memstand:client_cpu_us_per_request"]
                        / row["redis-benchmark:client_cpu_us_per_request"])
        row["met"] = None if case.target is None else row["ratio"] <= case.target
        row["per_run_ratios"] = per_run_ratios(samples, case.name, "redis-benchmark")
        rows.append(row)
    return rows


def print_report(args, facts, cases, rows, samples):
    median = median_word(args.runs)
    print()
    print("memstand vs redis-benchmark: client CPU per request")
    print_platform(facts)
    used = sorted({s.get("memstand_io") for s in samples if s.get("memstand_io")})
    print(f"tools:    memstand {facts['memstand_version']} (--io {args.io}: "
          f"{', '.join(used) or '?'}), "
          f"{facts['redis_benchmark_version']}, {facts['redis_server_version'].split(' sha')[0]}")
    print(f"setup:    servers pinned to CPU {args.server_core}, each client pinned to CPU "
          f"{args.client_core}; both clients single-threaded, {CONNECTIONS} connections, "
          f"{VALUE_SIZE}-byte values, {KEY_COUNT} keys (uniform random)")
    print(f"runs:     N = {args.runs} per case and client, order alternated per run; "
          f"table shows the {median} of the N runs")
    print(f"requests: {args.requests_p1} per run at pipeline 1, "
          f"{args.requests_pipelined} at pipeline 16 and 128"
          + (" (--quick)" if args.quick else ""))
    print("CPU-us/req: (user + sys CPU of the client process, from its rusage) * 1e6 "
          "/ requests; ratio = memstand / redis-benchmark")
    print(f"note:     {SATURATED_NOTE}")
    print()
    header = ["case", "memstand req/s", "redis-benchmark req/s", "memstand CPU-us/req",
              "redis-benchmark CPU-us/req", "ratio", "target", "met?"]
    table = []
    for r in rows:
        table.append([
            r["case"],
            f"{r['memstand:requests_per_sec']:,.0f}",
            f"{r['redis-benchmark:requests_per_sec']:,.0f}",
            f"{r['memstand:client_cpu_us_per_request']:.2f}",
            f"{r['redis-benchmark:client_cpu_us_per_request']:.2f}",
            f"{r['ratio']:.2f}",
            "-" if r["target"] is None else f"<= {r['target']:.1f}",
            "-" if r["met"] is None else ("yes" if r["met"] else "NO"),
        ])
    print_table(header, table)
    print()
    print(f"Per-run ratios (N = {args.runs}, each pair run back to back), for the spread:")
    for r in rows:
        ratios = ", ".join(f"{x:.2f}" for x in r["per_run_ratios"])
        print(f"  {r['case']:<20} {ratios}")
    print()
    print(f"Bottleneck ({median}): client core share = client CPU s / client wall s "
          "(1.00: the client is the limit); server CPU-us/req from INFO (redis) or "
          "/proc (null, 10 ms ticks)")
    header2 = ["case", "memstand core share", "redis-benchmark core share",
               "server CPU-us/req (memstand runs)", "server CPU-us/req (redis-benchmark runs)"]
    table2 = [[r["case"],
               f"{r['memstand:client_core_share']:.2f}",
               f"{r['redis-benchmark:client_core_share']:.2f}",
               f"{r['memstand:server_cpu_us_per_request']:.2f}",
               f"{r['redis-benchmark:server_cpu_us_per_request']:.2f}"] for r in rows]
    print_table(header2, table2)
    print_get_hit_check(samples)


def print_get_hit_check(samples):
    misses = [s for s in samples if s.get("server_keyspace_misses")
              or s.get("misses")]
    gets = [s for s in samples if s["command"] == "get"]
    if not gets:
        return
    if misses:
        print(f"\nWARNING: {len(misses)} GET runs had misses (keyspace not populated?)")
    else:
        print(f"\nGET check: 0 misses in all {len(gets)} GET runs "
              "(redis keyspace_misses and memstand's own count)")


def write_raw(path, args, facts, rows, samples):
    doc = {"schema": "memstand.compare_peers", "version": 1, "platform": facts,
           "options": {k: v for k, v in vars(args).items()},
           "connections": CONNECTIONS, "value_size": VALUE_SIZE, "keys": KEY_COUNT,
           "note": SATURATED_NOTE, "summary": rows, "samples": samples}
    write_raw_json(path, doc)


# ----------------------------------------------------------------------------- main

def main(argv):
    args = parse_args(argv)
    # Stop the servers on Ctrl-C, kill and hang-up too, even when started with SIGINT
    # ignored (a background job).
    install_signal_handlers()
    return run_comparison("compare_peers", sys.modules[__name__], args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

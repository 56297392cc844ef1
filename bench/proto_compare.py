#!/usr/bin/env python3
"""Protocol benchmark: memstand against real memcached, Tarantool and etcd servers,
beside a packaged peer client where one exists.

Each server is started here on loopback and pinned to one core (memcached -t 1;
tarantool with a memtx space 'memstand'; etcd with a temporary data directory); every
client run is pinned to another core, single-threaded where the client allows it. The
same method as compare_peers.py: the figure that ranks clients is the client's own CPU
per request (user + sys of the client process from the kernel's rusage, divided by the
requests it sent); server CPU per request comes from /proc/<pid>/stat (utime + stime,
10 ms ticks) around each client run. Each case runs --runs times with memstand and the
peer alternated per run (docs/method.md rule 10); tables show medians, every raw sample is
kept (--verbose prints them, --raw-json writes them).

Cases (50 connections; keys uniform over a populated key space, so reads hit):
  memcache  SET:GET 1:1, 100 B values, pipeline 1 and 16       memstand only
  memcache  SET and GET in memcslap's own shape, pipeline 1     memstand vs memcslap
  iproto    REPLACE:SELECT 1:1 by primary key, 100 B, P1, P16   memstand vs net.box
  etcd      PUT:RANGE 1:1, 100 B, pipeline 1                    memstand only
memcslap (libmemcached-tools) has a fixed workload shape: one blocking thread per
connection, random 20-59 character keys, random 55-4998 byte values, and its GET test
first loads its keys through one connection inside the measured process. memstand is
run in that shape for the comparison, and the load is subtracted (a same-run
`memcslap --test=set --concurrency=1` of the same key count measures it). The Tarantool
peer is bench/netbox_client.lua (net.box, one fiber per connection, is_async futures),
run by the tarantool binary. etcd has no comparable packaged client: `etcdctl check
perf` runs its own fixed 60 s workload over gRPC (see etcd_gateway_vs_grpc.sh). The
etcd JSON gateway is HTTP/1.1: memstand can pipeline over it, but etcd's Go server
answers a connection's requests one at a time, so only pipeline 1 is measured.

Exit status: 0 when every run finished and every check held; 1 when a tool is
missing, a server does not start, a client run fails or a check fails (requests
counted, errors, the server's own counters); 2 on bad options; 130 on Ctrl-C.
Servers are always stopped.
"""

import argparse
import http.client
import json
import os
import re
import shlex
import socket
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (BenchBase, BenchError, Server, add_core_args,  # noqa: E402
                      add_medians, add_output_args, base_platform_facts, check_cores,
                      client_cpu_fields, find_programs, free_port,
                      install_signal_handlers, median_word, per_run_ratios,
                      print_platform, print_sample, print_table, read_file,
                      read_memstand_json, run_child, run_comparison, start_checked, tail,
                      tool_version, values_of, write_raw_json)

CONNECTIONS = 50
VALUE_SIZE = 100
KEYS = {"memcache": 100_000, "iproto": 100_000, "etcd": 10_000}
REQUESTS_P1 = 100_000       # per memcache / iproto run at pipeline 1 (as compare_peers.py)
REQUESTS_PIPELINED = 200_000
ETCD_REQUESTS = 20_000      # per run: etcd fsyncs every put, ~1,000-2,500 requests/s here
QUICK_REQUESTS = 20_000
QUICK_ETCD_REQUESTS = 2_000
# memcslap 1.1.4's values, measured on its stored items: 55..4998 bytes, mean ~2,530.
MEMCSLAP_VALUE_RANGE = "55-4998"
SLAP_PREFIX = "slap-"       # memstand's keys in the memcslap-shaped cases
PROTOCOLS = ("memcache", "iproto", "etcd")
PEER_OF = {"memcache": "memcslap", "iproto": "net.box"}
NETBOX_CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netbox_client.lua")
MEMCSLAP_LINE = re.compile(r"Time to (get|set)\s+(\d+) keys by\s+(\d+) threads")
NETBOX_LINE = re.compile(r"requests (\d+) errors (\d+) selects (\d+) hits (\d+)")


# ----------------------------------------------------------------------------- options

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default="/work/main/build",
                   help="directory holding a Release build of memstand (default: %(default)s)")
    p.add_argument("--runs", type=int, default=3,
                   help="repetitions of every case; >= 3 for a median (default: 3)")
    p.add_argument("--requests-p1", type=int, default=REQUESTS_P1,
                   help=f"requests per memcache and iproto run at pipeline 1 "
                        f"(default: {REQUESTS_P1})")
    p.add_argument("--requests-pipelined", type=int, default=REQUESTS_PIPELINED,
                   help=f"requests per memcache and iproto run at pipeline 16 "
                        f"(default: {REQUESTS_PIPELINED})")
    p.add_argument("--etcd-requests", type=int, default=ETCD_REQUESTS,
                   help=f"requests per etcd run (default: {ETCD_REQUESTS})")
    add_core_args(p)
    p.add_argument("--quick", action="store_true",
                   help=f"smoke run: {QUICK_REQUESTS} requests per run "
                        f"({QUICK_ETCD_REQUESTS} for etcd)")
    p.add_argument("--only", choices=PROTOCOLS, help="run only this protocol's cases")
    add_output_args(p)
    args = p.parse_args(argv)
    if args.quick:
        args.requests_p1 = args.requests_pipelined = QUICK_REQUESTS
        args.etcd_requests = QUICK_ETCD_REQUESTS
    if args.runs < 1:
        p.error("--runs must be >= 1")
    for name in ("requests_p1", "requests_pipelined", "etcd_requests"):
        if getattr(args, name) < CONNECTIONS:
            p.error(f"--{name.replace('_', '-')} must be >= {CONNECTIONS} (the connections)")
    check_cores(p, args)
    return args


# ----------------------------------------------------------------------------- cases

class Case:
    """One case: a protocol, a workload, a pipeline depth, and the peer run beside it."""

    def __init__(self, proto, workload, pipeline, requests, peer=None, slap_test=None):
        self.proto = proto
        self.workload = workload    # e.g. "SET:GET 1:1 100B"
        self.pipeline = pipeline
        self.requests = requests
        self.peer = peer            # "memcslap", "net.box" or None
        self.slap_test = slap_test  # memcslap-shaped cases: "get" or "set"

    @property
    def name(self):
        return f"{self.proto} {self.workload} P{self.pipeline}"

    @property
    def tools(self):
        return ("memstand", self.peer) if self.peer else ("memstand",)


def slap_keys(args):
    """Keys of the memcslap-shaped cases: memcslap's N per thread at pipeline 1."""
    return args.requests_p1 // CONNECTIONS


def build_cases(args):
    def n(pipeline):
        return args.requests_p1 if pipeline == 1 else args.requests_pipelined

    slap_n = slap_keys(args) * CONNECTIONS  # memcslap: N per thread
    cases = []
    if args.only in (None, "memcache"):
        for pipeline in (1, 16):
            cases.append(Case("memcache", "SET:GET 1:1 100B", pipeline, n(pipeline)))
        for test in ("set", "get"):
            cases.append(Case("memcache", f"{test.upper()} {MEMCSLAP_VALUE_RANGE}B", 1, slap_n,
                              "memcslap", test))
    if args.only in (None, "iproto"):
        for pipeline in (1, 16):
            cases.append(Case("iproto", "REPLACE:SELECT 1:1 100B", pipeline, n(pipeline),
                              "net.box"))
    if args.only in (None, "etcd"):
        cases.append(Case("etcd", "PUT:RANGE 1:1 100B", 1, args.etcd_requests))
    return cases


# ----------------------------------------------------------------------------- tools

def find_tools(args, cases):
    """Paths of every program the cases' protocols need, or BenchError naming what is missing."""
    protos = {c.proto for c in cases}
    tools, missing = {}, []
    path = os.path.join(args.build_dir, "memstand")
    if os.access(path, os.X_OK):
        tools["memstand"] = path
    else:
        missing.append(f"{path} not found: build a Release memstand there, or pass --build-dir")
    needed = [("taskset", "apt-get install util-linux")]
    if "memcache" in protos:
        needed += [("memcached", "apt-get install memcached"),
                   ("memcslap", "apt-get install libmemcached-tools")]
    if "iproto" in protos:
        needed.append(("tarantool", "apt-get install tarantool"))
    if "etcd" in protos:
        needed.append(("etcd", "apt-get install etcd-server"))
    return find_programs(needed, tools, missing)


def platform_facts(tools):
    facts = base_platform_facts()
    versions = {"memstand": ["--version"], "memcached": ["-V"], "memcslap": ["--version"],
                "tarantool": ["--version"], "etcd": ["--version"]}
    for name, flag in versions.items():
        if name in tools:
            facts[f"{name}_version"] = tool_version([tools[name]] + flag)
    return facts


# ----------------------------------------------------------------------------- servers

def memcache_stats(port):
    """memcached's `stats` as a name -> text map."""
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as s:
        s.sendall(b"stats\r\n")
        buf = b""
        while not buf.endswith(b"END\r\n"):
            chunk = s.recv(1 << 16)
            if not chunk:
                raise BenchError("memcached closed the stats connection")
            buf += chunk
    return {f[1]: f[2] for f in (line.split(" ", 2) for line in buf.decode().splitlines())
            if len(f) == 3 and f[0] == "STAT"}


def start_memcached(tools, core, tmpdir):
    port = free_port()
    argv = [tools["taskset"], "-c", str(core), tools["memcached"], "-p", str(port),
            "-l", "127.0.0.1", "-U", "0", "-t", "1", "-m", "1024"]
    if os.geteuid() == 0:
        argv += ["-u", "root"]
    server = Server("memcached", argv, os.path.join(tmpdir, "memcached.log"))
    server.port = port

    def up():
        try:
            return "pid" in memcache_stats(port)
        except (OSError, BenchError):
            return False

    return start_checked(server, up, f"memcached on port {port}")


TARANTOOL_INIT = """\
box.cfg{{listen = '127.0.0.1:{port}', work_dir = '{dir}', memtx_memory = 512 * 1024 * 1024}}
box.schema.user.grant('guest', 'read,write,execute', 'universe', nil, {{if_not_exists = true}})
local s = box.schema.space.create('memstand', {{if_not_exists = true}})
s:create_index('primary', {{type = 'hash', parts = {{1, 'string'}}, if_not_exists = true}})
require('log').info('proto_compare: space memstand ready')
"""


def start_tarantool(tools, core, tmpdir):
    port = free_port()
    work = os.path.join(tmpdir, "tarantool")
    os.makedirs(work)
    init = os.path.join(tmpdir, "tarantool_init.lua")
    with open(init, "w", encoding="utf-8") as f:
        f.write(TARANTOOL_INIT.format(port=port, dir=work))
    argv = [tools["taskset"], "-c", str(core), tools["tarantool"], init]
    server = Server("tarantool", argv, os.path.join(tmpdir, "tarantool.log"))
    server.port = port
    return start_checked(server, lambda: "space memstand ready" in read_file(server.log_path),
                         f"tarantool on port {port}")


def etcd_status(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5.0)
    try:
        conn.request("POST", "/v3/maintenance/status", body="{}")
        reply = conn.getresponse()
        body = reply.read()
        if reply.status != 200:
            raise BenchError(f"etcd status: HTTP {reply.status}: {body[:200]!r}")
        return json.loads(body)
    finally:
        conn.close()


def start_etcd(tools, core, tmpdir):
    port, peer = free_port(), free_port()
    client_url, peer_url = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{peer}"
    argv = [tools["taskset"], "-c", str(core), tools["etcd"], "--name=bench",
            f"--data-dir={os.path.join(tmpdir, 'etcd')}",
            f"--listen-client-urls={client_url}", f"--advertise-client-urls={client_url}",
            f"--listen-peer-urls={peer_url}", f"--initial-advertise-peer-urls={peer_url}",
            f"--initial-cluster=bench={peer_url}"]
    server = Server("etcd", argv, os.path.join(tmpdir, "etcd.log"))
    server.port = port

    def up():
        try:
            return "header" in etcd_status(port)
        except (OSError, ValueError, BenchError):
            return False

    return start_checked(server, up, f"etcd on port {port}")


STARTERS = {"memcache": start_memcached, "iproto": start_tarantool, "etcd": start_etcd}
SCHEMES = {"memcache": "memcache", "iproto": "tarantool", "etcd": "etcd"}
WRITE_COMMAND = {"memcache": "set __key__ __data__",
                 "iproto": "replace memstand [__key__, __data__]",
                 "etcd": "put __key__ __data__"}


# ----------------------------------------------------------------------------- clients

def memstand_base(tools, proto, port, requests, pipeline, json_path):
    return [tools["memstand"], "run", "--target", f"{SCHEMES[proto]}://127.0.0.1:{port}",
            "-t", "1", "-c", str(CONNECTIONS), "--pipeline", str(pipeline),
            "-n", str(requests), "-q", "--json", json_path]


def memstand_argv(tools, case, port, json_path):
    argv = memstand_base(tools, case.proto, port, case.requests, case.pipeline, json_path)
    if case.slap_test:
        command = "get __key__" if case.slap_test == "get" else WRITE_COMMAND["memcache"]
        return argv + ["--command", command, "--data-size-range", MEMCSLAP_VALUE_RANGE,
                       "--key-prefix", SLAP_PREFIX,
                       "--key-maximum", str(case.requests // CONNECTIONS - 1)]
    return argv + ["--ratio", "1:1", "-d", str(VALUE_SIZE),
                   "--key-maximum", str(KEYS[case.proto] - 1)]


def memcslap_argv(tools, port, test, threads, per_thread):
    return [tools["memcslap"], f"--servers=127.0.0.1:{port}", f"--test={test}",
            f"--concurrency={threads}", f"--execute-number={per_thread}", "--tcp-nodelay"]


def netbox_argv(tools, case, port):
    return [tools["tarantool"], NETBOX_CLIENT, f"127.0.0.1:{port}", str(CONNECTIONS),
            str(case.requests), str(case.pipeline), str(KEYS["iproto"]), str(VALUE_SIZE)]


def read_checked_json(json_path, what, requests, output):
    """read_memstand_json, and memstand's counts must equal the server's."""
    doc = read_memstand_json(json_path, what, requests, output)
    if doc.get("cross_check", {}).get("mismatch"):
        raise BenchError(f"memstand {what}: its counts differ from the server's: "
                         f"{doc['cross_check']}")
    return doc


def parse_memstand(json_path, case, output):
    doc = read_checked_json(json_path, case.name, case.requests, output)
    totals = doc["totals"]
    return totals["ops_per_sec"], {"hits": totals.get("hits"), "misses": totals.get("misses"),
                                   "warnings": doc.get("warnings", [])}


def parse_memcslap(output, case, wall_s):
    m = MEMCSLAP_LINE.search(output)
    if not m or m.group(1) != case.slap_test or int(m.group(2)) != case.requests:
        raise BenchError(f"memcslap {case.name}: no 'Time to {case.slap_test} "
                         f"{case.requests} keys by {CONNECTIONS} threads' line:\n" + tail(output))
    # Its own timer covers only the threads' phase; requests/s from the process's wall
    # time would include the GET test's load and key generation.
    t = re.search(rf"Time to {case.slap_test}\s+\d+ keys by\s+\d+ threads:\s+([0-9.]+) seconds",
                  output)
    seconds = float(t.group(1)) if t else wall_s
    return case.requests / seconds if seconds > 0 else float("nan"), {}


def parse_netbox(output, case):
    m = NETBOX_LINE.search(output)
    if not m or int(m.group(1)) != case.requests or int(m.group(2)):
        raise BenchError(f"net.box client {case.name}: expected 'requests {case.requests} "
                         f"errors 0 ...':\n" + tail(output))
    selects, hits = int(m.group(3)), int(m.group(4))
    return None, {"hits": hits, "misses": selects - hits}


class Bench(BenchBase):
    """Starts the servers, runs the clients against them and keeps every sample."""

    def pinned(self, argv):
        return [self.tools["taskset"], "-c", str(self.args.client_core)] + argv

    def run_client(self, argv, base):
        """(exit code, client CPU s, wall s, server CPU s, output) of one pinned run."""
        server = self.current
        server.check_alive()
        cpu0 = server.cpu_s()
        code, cpu_s, wall_s = run_child(argv, base + ".out")
        server_cpu = server.cpu_s() - cpu0
        output = read_file(base + ".out")
        if code != 0:
            raise BenchError(f"exit status {code}:\n$ {shlex.join(argv)}\n{tail(output)}")
        return cpu_s, wall_s, server_cpu, output

    def populate(self, proto):
        """Writes every key of the key space once (sequential keys), so reads hit."""
        port = self.current.port
        jobs = [(KEYS[proto], ["--command", WRITE_COMMAND[proto], "-d", str(VALUE_SIZE)])]
        if proto == "memcache":
            jobs.append((slap_keys(self.args), ["--command", WRITE_COMMAND[proto], "--key-prefix",
                                     SLAP_PREFIX, "--data-size-range", MEMCSLAP_VALUE_RANGE]))
        for i, (keys, extra) in enumerate(jobs):
            base = os.path.join(self.tmpdir, f"populate-{proto}-{i}")
            pipeline = 1 if proto == "etcd" else 16
            argv = (memstand_base(self.tools, proto, port, keys, pipeline, base + ".json")
                    + extra + ["--key-pattern", "S", "--key-maximum", str(keys - 1)])
            try:
                _, _, _, output = self.run_client(self.pinned(argv), base)
            except BenchError as e:
                raise BenchError(f"populating {proto}: {e}")
            read_checked_json(base + ".json", f"populate {proto}", keys, output)

    def run_tool(self, case, tool, run_index):
        base = os.path.join(self.tmpdir, f"{case.proto}-{case.workload.split()[0]}"
                                         f"-p{case.pipeline}-{run_index}-{tool}")
        port = self.current.port
        if tool == "memstand":
            argv = memstand_argv(self.tools, case, port, base + ".json")
        elif tool == "memcslap":
            argv = memcslap_argv(self.tools, port, case.slap_test, CONNECTIONS,
                                 case.requests // CONNECTIONS)
        else:
            argv = netbox_argv(self.tools, case, port)
        argv = self.pinned(argv)
        counters0 = memcache_stats(port) if case.proto == "memcache" else None
        try:
            cpu_s, wall_s, server_cpu, output = self.run_client(argv, base)
        except BenchError as e:
            raise BenchError(f"{tool} {case.name} run {run_index + 1}: {e}")
        if tool == "memstand":
            rps, extra = parse_memstand(base + ".json", case, output)
        elif tool == "memcslap":
            rps, extra = parse_memcslap(output, case, wall_s)
        else:
            rps, extra = parse_netbox(output, case)
        if rps is None:
            rps = case.requests / wall_s if wall_s > 0 else float("nan")
        if counters0 is not None:
            extra.update(self.memcache_check(case, tool, counters0))
        sample = self.record(case, tool, run_index, rps, cpu_s, wall_s, server_cpu, argv)
        sample.update(extra)
        if tool == "memcslap" and case.slap_test == "get":
            self.measure_slap_load(case, run_index, sample)
        self.report_sample(sample)
        return sample

    def memcache_check(self, case, tool, before):
        """memcached's own counters over the run: the commands the client sent."""
        after = memcache_stats(self.current.port)
        delta = {k: int(after[k]) - int(before[k]) for k in ("cmd_get", "cmd_set", "get_misses")}
        if case.slap_test is None:
            ok = delta["cmd_get"] + delta["cmd_set"] == case.requests
            want = f"{case.requests} gets + sets"
        else:
            # memcslap's GET test first sets its N keys (one connection, in its process).
            load = case.requests // CONNECTIONS if tool == "memcslap" else 0
            gets, sets = ((case.requests, load) if case.slap_test == "get"
                          else (0, case.requests))
            ok = (delta["cmd_get"], delta["cmd_set"]) == (gets, sets)
            want = f"cmd_get {gets}, cmd_set {sets}"
        if not ok:
            raise BenchError(f"{tool} {case.name}: memcached counted cmd_get "
                             f"{delta['cmd_get']}, cmd_set {delta['cmd_set']}; expected {want}")
        return {"server_cmd_get": delta["cmd_get"], "server_cmd_set": delta["cmd_set"],
                "server_get_misses": delta["get_misses"]}

    def measure_slap_load(self, case, run_index, sample):
        """CPU of memcslap's GET-test load phase (N keys generated and set through one
        connection), measured as `--test=set --concurrency=1` of the same N, then taken
        out of the GET run's CPU per request."""
        n = case.requests // CONNECTIONS
        base = os.path.join(self.tmpdir, f"memcslap-load-{run_index}")
        argv = self.pinned(memcslap_argv(self.tools, self.current.port, "set", 1, n))
        cpu_s, _, _, _ = self.run_client(argv, base)
        sample["load_cpu_s"] = cpu_s
        sample["client_cpu_us_per_request_raw"] = sample["client_cpu_us_per_request"]
        sample["client_cpu_us_per_request"] = (sample["client_cpu_s"] - cpu_s) * 1e6 / case.requests

    def record(self, case, tool, run_index, rps, cpu_s, wall_s, server_cpu, argv):
        sample = {
            "case": case.name, "protocol": case.proto, "workload": case.workload,
            "pipeline": case.pipeline, "connections": CONNECTIONS, "requests": case.requests,
            "run": run_index + 1, "tool": tool, "requests_per_sec": rps,
            **client_cpu_fields(cpu_s, wall_s, case.requests),
            "server_cpu_s": server_cpu,
            "server_cpu_us_per_request": server_cpu * 1e6 / case.requests,
            "argv": argv,
        }
        self.samples.append(sample)
        return sample

    def report_sample(self, s):
        if self.args.verbose:
            print_sample(s, 34, 9, 10)

    def run(self, cases):
        for proto in PROTOCOLS:
            proto_cases = [c for c in cases if c.proto == proto]
            if not proto_cases:
                continue
            print(f"{proto}: starting the server, populating {KEYS[proto]:,} keys ...",
                  flush=True)
            self.current = STARTERS[proto](self.tools, self.args.server_core, self.tmpdir)
            self.servers[proto] = self.current
            self.populate(proto)
            for run_index in range(self.args.runs):
                if not self.args.verbose:
                    print(f"  run {run_index + 1}/{self.args.runs} ...", flush=True)
                for case in proto_cases:
                    order = case.tools if run_index % 2 == 0 else case.tools[::-1]
                    for tool in order:
                        self.run_tool(case, tool, run_index)
            self.current.stop()


# ----------------------------------------------------------------------------- report

def summarize(cases, samples):
    rows = []
    for case in cases:
        row = {"case": case.name, "peer": case.peer}
        for tool in case.tools:
            add_medians(row, samples, case.name, tool)
            row[f"{tool}:cpu_per_run"] = values_of(samples, case.name, tool,
                                                   "client_cpu_us_per_request")
        if case.peer:
            row["ratio"] = (row["memstand:client_cpu_us_per_request"]
                            / row[f"{case.peer}:client_cpu_us_per_request"])
            row["per_run_ratios"] = per_run_ratios(samples, case.name, case.peer)
        rows.append(row)
    return rows


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def print_header(args, facts):
    versions = ", ".join(f"{facts[k]}" for k in ("memstand_version", "memcached_version",
                                                  "memcslap_version", "tarantool_version",
                                                  "etcd_version") if k in facts)
    print()
    print("memstand against memcached, Tarantool (IPROTO) and etcd (v3 JSON gateway)")
    print_platform(facts)
    print(f"tools:    memstand {versions}")
    print(f"setup:    servers pinned to CPU {args.server_core} (memcached -t 1 -m 1024; "
          f"tarantool memtx, WAL default 'write'; etcd, data in a temp dir, fsync per commit), "
          f"clients pinned to CPU {args.client_core}; memstand 1 thread, {CONNECTIONS} "
          f"connections")
    print(f"runs:     N = {args.runs} per case and client, order alternated per run; "
          f"tables show the {median_word(args.runs)}")
    print(f"requests: {args.requests_p1} per memcache/iproto run at pipeline 1, "
          f"{args.requests_pipelined} at 16, {args.etcd_requests} per etcd run"
          + (" (--quick)" if args.quick else ""))
    print("CPU-us/req: (user + sys CPU of the client process, from its rusage) * 1e6 / "
          "requests; server: /proc/<pid>/stat utime + stime over the run (10 ms ticks)")
    print()


def print_report(args, facts, cases, rows, samples):
    print_header(args, facts)
    header = ["case", "memstand req/s", "memstand CPU-us/req", "server CPU-us/req",
              "peer", "peer req/s", "peer CPU-us/req", "server CPU-us/req (peer runs)",
              "CPU ratio memstand/peer"]
    table = []
    for r in rows:
        peer = r["peer"]
        table.append([
            r["case"],
            f"{r['memstand:requests_per_sec']:,.0f}",
            f"{r['memstand:client_cpu_us_per_request']:.2f}",
            f"{r['memstand:server_cpu_us_per_request']:.2f}",
            peer or "none",
            fmt(r.get(f"{peer}:requests_per_sec"), ",.0f"),
            fmt(r.get(f"{peer}:client_cpu_us_per_request"), ".2f"),
            fmt(r.get(f"{peer}:server_cpu_us_per_request"), ".2f"),
            fmt(r.get("ratio"), ".2f"),
        ])
    print_table(header, table)
    print()
    print(f"Client CPU-us/req per run (N = {args.runs}), for the spread:")
    for r in rows:
        parts = [f"memstand {', '.join(f'{x:.2f}' for x in r['memstand:cpu_per_run'])}"]
        if r["peer"]:
            parts.append(f"{r['peer']} "
                         f"{', '.join(f'{x:.2f}' for x in r[r['peer'] + ':cpu_per_run'])}")
            parts.append(f"ratios {', '.join(f'{x:.2f}' for x in r['per_run_ratios'])}")
        print(f"  {r['case']:<34} {'; '.join(parts)}")
    print()
    print("Client core share (client CPU s / wall s; 1.00: the client is the limit):")
    for r in rows:
        shares = [f"memstand {r['memstand:client_core_share']:.2f}"]
        if r["peer"]:
            shares.append(f"{r['peer']} {r[r['peer'] + ':client_core_share']:.2f}")
        print(f"  {r['case']:<34} {', '.join(shares)}")
    print_notes(cases, samples)


def print_notes(cases, samples):
    print()
    print("Notes:")
    protos = {c.proto for c in cases}
    if "memcache" in protos:
        loads = [s for s in samples if "load_cpu_s" in s]
        raw = [s["client_cpu_us_per_request_raw"] for s in loads]
        load_s = [s["load_cpu_s"] for s in loads]
        print("  memcache SET:GET rows: no packaged peer runs a mix (memcslap runs one "
              "command per test).")
        print(f"  memcslap rows: its own shape (one blocking thread per connection, random "
              f"20-59 char keys, {MEMCSLAP_VALUE_RANGE} B values); memstand runs that shape "
              "(50 connections at pipeline 1, uniform value sizes, 'slap-' keys).")
        if loads:
            print(f"  memcslap GET: its load phase is taken out of its CPU: raw "
                  f"{statistics.median(raw):.2f} CPU-us/req, load phase "
                  f"{statistics.median(load_s) * 1e3:.0f} ms CPU (median); its req/s is "
                  f"its own timer over the threads' phase; its server CPU includes the load.")
    if "iproto" in protos:
        print("  net.box rows: bench/netbox_client.lua in the tarantool binary (LuaJIT, "
              "one fiber per connection, is_async futures, a batch of P then wait).")
    if "etcd" in protos:
        print("  etcd: no packaged peer (etcdctl check perf runs its own fixed 60 s gRPC "
              "workload); pipeline 1 only (etcd answers a connection's HTTP/1.1 requests "
              "one at a time).")
    reads = [s for s in samples if re.search(r"GET|SELECT|RANGE", s["workload"])]
    misses = [s for s in reads if s.get("misses") or s.get("server_get_misses")]
    if misses:
        print(f"  WARNING: {len(misses)} runs had read misses (key space not populated?): "
              + ", ".join(f"{s['case']} {s['tool']} run {s['run']}" for s in misses))
    else:
        print(f"  read check: 0 misses in all {len(reads)} runs with reads "
              "(the client's count, and memcached's get_misses)")


def write_raw(path, args, facts, rows, samples):
    doc = {"schema": "memstand.proto_compare", "version": 1, "platform": facts,
           "options": dict(vars(args)), "connections": CONNECTIONS, "value_size": VALUE_SIZE,
           "keys": KEYS, "summary": rows, "samples": samples}
    write_raw_json(path, doc)


# ----------------------------------------------------------------------------- main

def main(argv):
    args = parse_args(argv)
    install_signal_handlers()
    return run_comparison("proto_compare", sys.modules[__name__], args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

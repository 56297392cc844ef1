#!/usr/bin/env python3
"""Cluster peer comparison: `memstand run --cluster` against `redis-benchmark --cluster`.

Stands up an N-master Redis Cluster (default 8) from redis-server processes pinned to
one core, joined by `redis-cli --cluster create`, and runs both clients pinned to the
other core, single-threaded, SET of 100 B values, alternating their order per run
(docs/method.md rule 10). Prints requests/s and client CPU-us per request (user + sys of
the client process from the kernel's rusage) side by side, medians of --runs; every
raw sample is kept with --raw-json.

The two clients spread connections differently: memstand gives each of its -c clients
a connection to every master and routes each key by its slot; redis-benchmark's
cluster mode attaches each client to one master and draws keys with that master's
hash tags. CPU per request is comparable; requests/s against saturated servers on one
shared core is context, not a ranking.

Exit status: 0 when every run finished, 1 on a failure, 2 on bad options.
"""

import argparse
import json
import os
import random
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_peers as cp  # noqa: E402  (shared helpers: servers, child rusage)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(cp.REPO, "build"))
    p.add_argument("--masters", type=int, default=8)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--requests", type=int, default=300_000)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--pipeline", type=int, default=1)
    p.add_argument("--server-core", type=int, default=0)
    p.add_argument("--client-core", type=int, default=1)
    p.add_argument("--io", default="auto", choices=("auto", "uring", "epoll"),
                   help="memstand's --io")
    p.add_argument("--raw-json", metavar="FILE")
    args = p.parse_args(argv)
    if args.masters < 3:
        p.error("--masters: a cluster needs at least 3")
    if args.runs < 1 or args.requests < 1 or args.clients < 1 or args.pipeline < 1:
        p.error("--runs, --requests, --clients and --pipeline must be >= 1")
    return args


def cluster_port(taken):
    """A free port p <= 55535 whose cluster bus port p + 10000 is free too."""
    for _ in range(1000):
        p = random.randint(20000, 45000)
        if p in taken or p + 10000 in taken:
            continue
        try:
            for q in (p, p + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", q))
        except OSError:
            continue
        taken.update((p, p + 10000))
        return p
    raise cp.BenchError("no free port pair for a cluster node")


def start_cluster(tools, args, tmpdir):
    """Started servers are stopped here if the cluster does not form."""
    servers = []
    try:
        return form_cluster(tools, args, tmpdir, servers)
    except BaseException:
        for s in servers:
            s.stop()
        raise


def form_cluster(tools, args, tmpdir, servers):
    taken = set()
    for i in range(args.masters):
        port = cluster_port(taken)
        d = os.path.join(tmpdir, f"node-{port}")
        os.makedirs(d)
        argv = [tools["taskset"], "-c", str(args.server_core), tools["redis-server"],
                "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--daemonize", "no", "--dir", d]
        s = cp.Server("redis", argv, os.path.join(d, "redis.log"))
        s.port = port
        servers.append(s)
    for s in servers:
        def pong(s=s):
            try:
                c = cp.RespConnection(s.port, timeout=1.0)
                try:
                    return c.call("PING") == "PONG"
                finally:
                    c.close()
            except (OSError, cp.BenchError):
                return False
        cp.wait_until(pong, f"redis-server on port {s.port}", s)
    create = ["redis-cli", "--cluster", "create"] + [f"127.0.0.1:{s.port}" for s in servers]
    out = subprocess.run(create + ["--cluster-yes"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise cp.BenchError("redis-cli --cluster create failed:\n" + cp.tail(out.stdout + out.stderr))

    def all_ok():
        return all(cp.redis_info(s.port, "cluster").get("cluster_enabled") == "1" and
                   "cluster_state:ok" in cluster_info(s.port) for s in servers)
    cp.wait_until(all_ok, "cluster_state:ok on every node", servers[0])
    return servers


def cluster_info(port):
    c = cp.RespConnection(port)
    try:
        info = c.call("CLUSTER", "INFO")
        return info.decode() if isinstance(info, bytes) else info
    finally:
        c.close()


def server_cpu(servers):
    return sum(float(cp.redis_info(s.port, "cpu")["used_cpu_user"]) +
               float(cp.redis_info(s.port, "cpu")["used_cpu_sys"]) for s in servers)


def run_once(tools, args, servers, tool, run_index, tmpdir):
    port = servers[0].port
    base = os.path.join(tmpdir, f"{tool}-{run_index}")
    if tool == "memstand":
        client = [tools["memstand"], "run", "--target", f"redis://127.0.0.1:{port}", "--cluster",
                  "-t", "1", "-c", str(args.clients), "--pipeline", str(args.pipeline),
                  "-n", str(args.requests), "--command", "set __key__ __data__", "-d", "100",
                  "--key-maximum", "99999", "--io", args.io, "-q", "--json", base + ".json"]
    else:
        client = [tools["redis-benchmark"], "--cluster", "-h", "127.0.0.1", "-p", str(port),
                  "-c", str(args.clients), "-n", str(args.requests), "-P", str(args.pipeline),
                  "-t", "set", "-d", "100", "-r", "100000", "-q"]
    argv = [tools["taskset"], "-c", str(args.client_core)] + client
    cpu0 = server_cpu(servers)
    code, cpu_s, wall_s = cp.run_child(argv, base + ".out")
    cpu1 = server_cpu(servers)
    output = cp.read_file(base + ".out")
    if code != 0:
        raise cp.BenchError(f"{tool} run {run_index + 1} exited {code}:\n$ {shlex.join(argv)}\n"
                            + cp.tail(output))
    if tool == "memstand":
        with open(base + ".json", encoding="utf-8") as f:
            doc = json.load(f)
        t = doc["totals"]
        if t["ops"] != args.requests or t["errors"]:
            raise cp.BenchError(f"memstand: ops {t['ops']}, errors {t['errors']}:\n" + cp.tail(output))
        rps = t["ops_per_sec"]
        c = doc["client"]
        extra = {"moved": doc["cluster"]["moved"], "io": doc["options"]["io"],
                 "writes_per_request": c["write_calls"] / args.requests,
                 "reads_per_request": c["read_calls"] / args.requests}
    else:
        lines = [ln for ln in output.replace("\r", "\n").splitlines() if "requests per second" in ln]
        if not lines:
            raise cp.BenchError("redis-benchmark: no 'requests per second' line:\n" + cp.tail(output))
        rps = float(lines[-1].split(":")[1].split()[0])
        extra = {}
    sample = {"tool": tool, "run": run_index + 1, "requests": args.requests,
              "requests_per_sec": rps, "client_cpu_s": cpu_s, "client_wall_s": wall_s,
              "client_cpu_us_per_request": cpu_s * 1e6 / args.requests,
              "server_cpu_us_per_request": (cpu1 - cpu0) * 1e6 / args.requests, "argv": argv}
    sample.update(extra)
    print(f"  run {run_index + 1} {tool:<15} {rps:>10,.0f} req/s  "
          f"{sample['client_cpu_us_per_request']:6.2f} client CPU-us/req  "
          f"{sample['server_cpu_us_per_request']:6.2f} server CPU-us/req", flush=True)
    return sample


def main(argv):
    args = parse_args(argv)
    tools = {"memstand": os.path.join(args.build_dir, "memstand")}
    for name in ("redis-server", "redis-benchmark", "redis-cli", "taskset"):
        tools[name] = cp.shutil.which(name)
    missing = [n for n, p in tools.items() if not p or not os.access(p, os.X_OK)]
    if missing:
        print(f"cluster_compare: missing {', '.join(missing)}", file=sys.stderr)
        return 1
    samples, servers = [], []
    with tempfile.TemporaryDirectory(prefix="memstand-cluster-bench-") as tmpdir:
        try:
            servers = start_cluster(tools, args, tmpdir)
            print(f"{args.masters}-master cluster on core {args.server_core}, clients on core "
                  f"{args.client_core}: SET 100 B, {args.clients} clients, pipeline "
                  f"{args.pipeline}, {args.requests} requests per run, memstand --io {args.io}",
                  flush=True)
            for run_index in range(args.runs):
                order = ("memstand", "redis-benchmark")
                if run_index % 2:
                    order = order[::-1]
                for tool in order:
                    samples.append(run_once(tools, args, servers, tool, run_index, tmpdir))
        except cp.BenchError as e:
            print(f"cluster_compare: {e}", file=sys.stderr)
            return 1
        finally:
            for s in servers:
                s.stop()
    med = {t: {k: statistics.median(s[k] for s in samples if s["tool"] == t)
               for k in ("requests_per_sec", "client_cpu_us_per_request")}
           for t in ("memstand", "redis-benchmark")}
    print(f"\nmedians of {args.runs} runs   {'req/s':>12} {'client CPU-us/req':>18}")
    for t in ("memstand", "redis-benchmark"):
        print(f"  {t:<16} {med[t]['requests_per_sec']:>12,.0f} "
              f"{med[t]['client_cpu_us_per_request']:>18.2f}")
    ratio = med["memstand"]["client_cpu_us_per_request"] / med["redis-benchmark"]["client_cpu_us_per_request"]
    print(f"  memstand / redis-benchmark client CPU per request: {ratio:.2f}")
    ms = [s for s in samples if s["tool"] == "memstand"]
    print(f"  memstand --io {ms[0]['io']}: writes per request "
          f"{statistics.median(s['writes_per_request'] for s in ms):.4f}, reads per request "
          f"{statistics.median(s['reads_per_request'] for s in ms):.4f}")
    if args.raw_json:
        with open(args.raw_json, "w", encoding="utf-8") as f:
            json.dump({"options": vars(args), "samples": samples, "ts": time.time()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

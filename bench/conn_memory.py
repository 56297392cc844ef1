#!/usr/bin/env python3
"""Memory per connection: memstand against redis-benchmark, same server, same run.

Starts one redis-server (a free loopback port, a temporary folder, maxclients raised,
stopped at the end) and runs, one after the other:
  * memstand run -t 2 -c 4000 (8,000 connections), GET, a low open-loop --rate so the
    connections are mostly idle, once per --io mode asked for;
  * the same with -t 2 -c 1 (2 connections): the tool's own memory without connections;
  * redis-benchmark -c 8000 (GET, closed loop: it has no rate limit) and -c 2.
Each client's peak RSS is the kernel's ru_maxrss of that child (os.wait4). Printed per
tool: peak RSS with 8,000 and with 2 connections, and KiB per connection two ways: the
difference over the 7,998 extra connections (what a connection costs) and the whole
peak over 8,000. memtier_benchmark is not a Debian package and is not measured.

Exit status: 0 when every run finished, 1 on a failure, 2 on bad options.
"""

import argparse
import os
import resource
import shlex
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib as bl  # noqa: E402
import compare_peers as cp  # noqa: E402  (RespConnection)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(bl.REPO, "build"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--clients", type=int, default=4000, help="memstand connections per thread")
    p.add_argument("--rate", default="2000", help="memstand --rate (requests/s in total)")
    p.add_argument("--duration", default="10s", help="memstand --duration")
    p.add_argument("--bench-requests", type=int, default=400_000,
                   help="redis-benchmark -n with -c threads x clients")
    p.add_argument("--io", default="uring,epoll", help="memstand --io modes, comma-separated")
    p.add_argument("--runs", type=int, default=1)
    args = p.parse_args(argv)
    if min(args.threads, args.clients, args.runs, args.bench_requests) < 1:
        p.error("--threads, --clients, --runs and --bench-requests must be >= 1")
    return args


def raise_file_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need if hard == resource.RLIM_INFINITY else min(max(soft, need), hard)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < need:
        raise bl.BenchError(f"the open-file limit is {hard}; {need} are needed (ulimit -Hn)")


def start_redis(tmpdir, maxclients):
    port = bl.free_port()
    argv = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--dir", tmpdir,
            "--maxclients", str(maxclients)]
    server = bl.Server("redis", argv, os.path.join(tmpdir, "redis-server.log"))
    server.port = port

    def pong():
        try:
            c = cp.RespConnection(port, timeout=1.0)
            try:
                return c.call("PING") == "PONG"
            finally:
                c.close()
        except (OSError, bl.BenchError):
            return False
    return bl.start_checked(server, pong, f"redis-server on port {port}")


def memstand_argv(args, port, threads, clients, io):
    return [os.path.join(args.build_dir, "memstand"), "run", "--target",
            f"redis://127.0.0.1:{port}", "--io", io, "-t", str(threads), "-c", str(clients),
            "--command", "get __key__", "--key-maximum", "9999", "--rate", args.rate,
            "--duration", args.duration, "--connect-timeout", "30000", "-q"]


def bench_argv(port, clients, requests):
    return ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(clients),
            "-n", str(requests), "-t", "get", "-r", "10000", "-q"]


def measure(argv, tmpdir, name):
    out = os.path.join(tmpdir, name + ".out")
    code, usage = bl.run_child_rusage(argv, out)
    kb = usage.ru_maxrss
    if code != 0:
        raise bl.BenchError(f"{name} exited {code}:\n$ {shlex.join(argv)}\n"
                            + bl.tail(bl.read_file(out)))
    print(f"  {name:<28} peak RSS {kb / 1024:8.1f} MiB", flush=True)
    return kb


def main(argv):
    args = parse_args(argv)
    conns = args.threads * args.clients
    modes = [m for m in args.io.split(",") if m]
    rows = {}
    try:
        raise_file_limit(conns + 1000)
        with tempfile.TemporaryDirectory(prefix="memstand-conn-memory-") as tmpdir:
            server = start_redis(tmpdir, conns + 100)
            try:
                for run in range(args.runs):
                    for io in modes:
                        many = measure(memstand_argv(args, server.port, args.threads,
                                                     args.clients, io), tmpdir,
                                       f"memstand-{io}-{conns}-{run}")
                        few = measure(memstand_argv(args, server.port, args.threads, 1, io),
                                      tmpdir, f"memstand-{io}-{args.threads}-{run}")
                        rows.setdefault(f"memstand --io {io}", []).append((many, few))
                    many = measure(bench_argv(server.port, conns, args.bench_requests), tmpdir,
                                   f"redis-benchmark-{conns}-{run}")
                    few = measure(bench_argv(server.port, args.threads, args.bench_requests // 20),
                                  tmpdir, f"redis-benchmark-{args.threads}-{run}")
                    rows.setdefault("redis-benchmark", []).append((many, few))
            finally:
                server.stop()
    except bl.BenchError as e:
        print(f"conn_memory: {e}", file=sys.stderr)
        return 1
    few_n = args.threads
    print(f"\n{conns} connections (memstand -t {args.threads} -c {args.clients}, --rate "
          f"{args.rate}; redis-benchmark -c {conns}), medians of {args.runs}; "
          f"load average {' '.join(bl.loadavg())}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    header = ["client", f"peak RSS, {conns} conns (MiB)", f"peak RSS, {few_n} conns (MiB)",
              "KiB per extra connection", f"KiB per connection (whole / {conns})"]
    table = []
    for name, pairs in rows.items():
        many = statistics.median(m for m, _ in pairs)
        few = statistics.median(f for _, f in pairs)
        table.append([name, f"{many / 1024:.1f}", f"{few / 1024:.1f}",
                      f"{(many - few) / (conns - few_n):.2f}",
                      f"{many / conns:.2f}"])
    table.append(["memtier_benchmark", "not measured: not a Debian package", "", "", ""])
    bl.print_table(header, table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Client CPU per request over TLS: memstand `rediss://` against redis-benchmark --tls
(memtier_benchmark is not packaged in Debian), and memstand plaintext on the same
server for the cost of TLS itself. One redis-server with a TLS port and a plain port,
pinned to --server-core; each client pinned to --client-core, its CPU the kernel's
rusage of the whole process (set-up and handshakes included, for both tools). SET of
--data-size bytes, 50 connections, one client thread; N runs per case, the tools'
order alternating run by run (docs/method.md rule 10); medians, every run's ratio listed.

    python3 bench/tls_cost.py [--runs 3] [--memstand build/memstand]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

CERTS = """set -e
k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes'
openssl req -x509 $k -keyout ca.key -out ca.crt -days 2 -subj /CN=bench-ca
openssl req $k -keyout server.key -out server.csr -subj /CN=localhost
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > server.ext
openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
  -extfile server.ext -out server.crt
"""


def make_certs(d):
    r = subprocess.run(["sh", "-c", CERTS], cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        raise benchlib.BenchError("openssl failed:\n" + r.stderr)


def start_redis(d, core, tls_port, plain_port):
    argv = ["taskset", "-c", str(core), "redis-server", "--port", str(plain_port),
            "--tls-port", str(tls_port), "--bind", "127.0.0.1", "--tls-cert-file",
            "server.crt", "--tls-key-file", "server.key", "--tls-ca-cert-file", "ca.crt",
            "--tls-auth-clients", "no", "--save", "", "--appendonly", "no"]
    server = benchlib.Server("redis", argv, os.path.join(d, "redis.log"), cwd=d)

    def up():
        r = subprocess.run(["redis-cli", "-p", str(tls_port), "--tls", "--cacert",
                            os.path.join(d, "ca.crt"), "ping"], capture_output=True, text=True)
        return r.stdout.strip() == "PONG"
    return benchlib.start_checked(server, up, "redis-server with a TLS port")


def argv_of(tool, a, d, tls_port, plain_port, pipeline, requests):
    pin = ["taskset", "-c", str(a.client_core)]
    if tool == "redis-benchmark --tls":
        return pin + ["redis-benchmark", "-h", "127.0.0.1", "-p", str(tls_port), "--tls",
                      "--cacert", os.path.join(d, "ca.crt"), "-c", "50", "-n", str(requests),
                      "-t", "set", "-d", str(a.data_size), "-P", str(pipeline), "-r", "100000",
                      "-q"]
    url = (f"rediss://127.0.0.1:{tls_port}" if tool == "memstand rediss://"
           else f"redis://127.0.0.1:{plain_port}")
    cmd = pin + [a.memstand, "run", "--target", url, "--io", a.io, "-t", "1", "-c", "50",
                 "--pipeline", str(pipeline), "-n", str(requests), "--ratio", "1:0", "-d",
                 str(a.data_size), "--key-max", "99999", "-q"]
    if tool == "memstand rediss://":
        cmd += ["--tls-ca", os.path.join(d, "ca.crt")]
    return cmd


TOOLS = ("memstand rediss://", "redis-benchmark --tls", "memstand redis://")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--memstand", default=os.path.join(benchlib.REPO, "build", "memstand"))
    p.add_argument("--io", default="epoll", choices=["epoll", "uring"])
    p.add_argument("--data-size", type=int, default=100)
    p.add_argument("--server-core", type=int, default=1)
    p.add_argument("--client-core", type=int, default=0)
    a = p.parse_args()
    cases = [(1, 100_000), (16, 500_000)]
    with tempfile.TemporaryDirectory(prefix="memstand-tls-bench-") as d:
        make_certs(d)
        tls_port, plain_port = benchlib.free_port(), benchlib.free_port()
        server = start_redis(d, a.server_core, tls_port, plain_port)
        try:
            rows = []
            for pipeline, requests in cases:
                cpu = {t: [] for t in TOOLS}
                for run in range(a.runs):
                    order = TOOLS if run % 2 == 0 else tuple(reversed(TOOLS))
                    for tool in order:
                        out = os.path.join(d, "out.txt")
                        code, cpu_s, wall = benchlib.run_child(
                            argv_of(tool, a, d, tls_port, plain_port, pipeline, requests), out)
                        if code != 0:
                            raise benchlib.BenchError(f"{tool} exited {code}:\n"
                                                      + benchlib.read_file(out)[-2000:])
                        cpu[tool].append(cpu_s * 1e6 / requests)
                        print(f"P{pipeline} run {run + 1} {tool}: {cpu[tool][-1]:.2f} CPU-us/req, "
                              f"{requests / wall:,.0f} req/s (wall, set-up included)", flush=True)
                ratios = [m / r for m, r in zip(cpu[TOOLS[0]], cpu[TOOLS[1]])]
                rows.append([f"SET {a.data_size}B P{pipeline}"]
                            + [f"{statistics.median(cpu[t]):.2f}" for t in TOOLS]
                            + [f"{statistics.median(ratios):.2f} ("
                               + ", ".join(f"{x:.2f}" for x in ratios) + ")"])
            print()
            benchlib.print_table(["case"] + [f"{t} CPU-us/req" for t in TOOLS]
                                 + ["memstand TLS / redis-benchmark TLS (per run)"], rows)
        finally:
            server.stop()


if __name__ == "__main__":
    try:
        main()
    except benchlib.BenchError as e:
        print(f"tls_cost.py: {e}", file=sys.stderr)
        sys.exit(1)

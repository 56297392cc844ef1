#!/usr/bin/env python3
"""What `memstand relay` costs (issue #15, docs/method.md rule 12): the instrument at zero.

Three paths to one redis-server, measured alike:
  direct   the client talks to redis-server
  relay    through `memstand relay --delay 0` (a fresh relay per run, its --json read)
  socat    through socat (TCP-LISTEN,fork,nodelay -> TCP,nodelay; -b 65536, the relay's read size)

Per path and run:
  ping-pong  `memstand run -t 1 -c 1 --command PING -n N`: p50 / p99 per request (one
             chunk each way); added = path - direct of the same run
  bulk       BULK MiB one way, a sender and a sink (this script, --send / --sink), bytes/s
             from the sink's first byte to its EOF
And once per run the relay alone at --delay 1ms (ping-pong), four times: as it runs by
default, with --realtime 1 (SCHED_FIFO), with --realtime 1 --spin 100us, and by default
without its segment tap (--segment-tap off; it is on by default as root): its timer
overshoot (added per chunk) p50 / p99 / max from its own --json and its CPU per chunk,
beside its --delay 0 figures, and the
machine's own floor under it: bench/timer_floor (a thread that sleeps to an absolute time
with nothing else to do, clock_nanosleep and timerfd + epoll) on the relay's core.

Placement (bench/README.md): redis-server, the relay and socat on --server-core; the
client, sender and sink on --client-core. The order of the three paths rotates per run
(docs/method.md rule 10). Timed figures are printed, never asserted: the machine is shared.

Exit status: 0 every run finished; 1 a tool is missing or a run failed; 2 bad options;
130 interrupted. Servers are always stopped.
"""

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (REPO, BenchError, Server, add_core_args, base_platform_facts,  # noqa: E402
                      check_cores, find_programs, free_port, install_signal_handlers,
                      loadavg, print_platform, print_table, read_memstand_json, run_child,
                      start_checked, tail, write_raw_json)

PATHS = ("direct", "relay", "socat")
# The timer probes at --probe-delay-us: the relay as it runs by default, on SCHED_FIFO, and
# on SCHED_FIFO polling the last 100 us before each chunk is due (docs/relay.md).
# And as it runs by default but without its segment tap (on by default as root): the tap's
# CPU per chunk is the difference of the two.
PROBES = {"default": (), "realtime": ("--realtime", "1"),
          "realtime+spin": ("--realtime", "1", "--spin", "100us"),
          "segment tap off": ("--segment-tap", "off")}
CHUNK = 1 << 20  # the bulk sender's write and the sink's read


# ----------------------------------------------------------------------------- bulk peers

def sink(port_file):
    """Accepts one connection, reads to EOF, prints {"bytes", "seconds"} (first byte to EOF)."""
    with socket.socket() as ls:
        ls.bind(("127.0.0.1", 0))
        ls.listen(1)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(ls.getsockname()[1]))
        os.rename(port_file + ".tmp", port_file)
        conn, _ = ls.accept()
    buf = bytearray(CHUNK)
    total, first = 0, None
    with conn:
        while True:
            n = conn.recv_into(buf)
            if n == 0:
                break
            if first is None:
                first = time.monotonic()
            total += n
    print(json.dumps({"bytes": total, "seconds": time.monotonic() - (first or time.monotonic())}))


def send(port, mib):
    block = os.urandom(CHUNK)
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(mib):
            s.sendall(block)
        s.shutdown(socket.SHUT_WR)
        s.recv(1)  # the sink's close


# ----------------------------------------------------------------------------- the bench

def cpu_with_children_s(proc):
    """User + sys CPU of proc and of its reaped children (socat forks one per connection;
    its CPU reaches the parent's cutime/cstime when the parent reaps it), in seconds."""
    fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[-1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def listening(port):
    """Whether a socket listens on 127.0.0.1:port (/proc/net/tcp, state 0A), found
    without connecting: a probe connection through a relay or socat would reach the sink."""
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        fields = line.split()
        if fields[1] == f"0100007F:{port:04X}" and fields[3] == "0A":
            return True
    return False


class Bench:
    def __init__(self, args, tools, tmpdir):
        self.args, self.tools, self.tmpdir = args, tools, tmpdir
        self.servers = []
        self.samples = []

    def pinned(self, core, argv):
        return [self.tools["taskset"], "-c", str(core)] + argv

    def start(self, kind, argv, port):
        log = os.path.join(self.tmpdir, f"{kind}-{len(self.servers)}.log")
        server = Server(kind, self.pinned(self.args.server_core, argv), log)
        server.port = port
        self.servers.append(server)

        return start_checked(server, lambda: listening(port), f"{kind} on port {port}")

    def stop_server(self, server):
        server.stop()
        self.servers.remove(server)

    def stop(self):
        for server in list(self.servers):
            server.stop()

    # A relay (fresh, its JSON read at the end) or socat in front of target_port.
    def front(self, path, target_port, delay="0", extra=()):
        port = free_port()
        if path == "relay":
            json_path = os.path.join(self.tmpdir, f"relay-{time.monotonic_ns()}.json")
            link = f"127.0.0.1:{port}=127.0.0.1:{target_port}"
            server = self.start("relay", [self.tools["memstand"], "relay", "--link", link,
                                          "--delay", delay, "--json", json_path, *extra], port)
            server.json_path = json_path
            return server
        return self.start("socat", [self.tools["socat"], "-b", "65536",
                                    f"TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork,nodelay",
                                    f"TCP:127.0.0.1:{target_port},nodelay"], port)

    def relay_doc(self, server):
        """Stops a relay and returns its --json."""
        os.killpg(server.proc.pid, signal.SIGINT)
        server.proc.wait(timeout=10)
        self.stop_server(server)
        with open(server.json_path, encoding="utf-8") as f:
            return json.load(f)

    def ping_pong(self, port, requests, tag):
        out = os.path.join(self.tmpdir, f"run-{tag}.json")
        log = os.path.join(self.tmpdir, f"run-{tag}.log")
        argv = self.pinned(self.args.client_core, [
            self.tools["memstand"], "run", "--target", f"redis://127.0.0.1:{port}", "-t", "1",
            "-c", "1", "-n", str(requests), "--command", "PING", "--json", out, "-q"])
        code, cpu_s, wall_s = run_child(argv, log)
        if code != 0:
            raise BenchError(f"memstand run via port {port} exited {code}:\n{tail(open(log).read())}")
        lat = read_memstand_json(out, "PING", requests, open(log).read())["totals"]["latency"]
        return {"p50_us": lat["percentiles_us"]["50"], "p99_us": lat["percentiles_us"]["99"]}

    def bulk(self, front_port, sink_port_file, sink_proc):
        """Bytes/s from the sender through front_port (the sink's own port when direct)."""
        sender = subprocess.run(self.pinned(self.args.client_core, [
            sys.executable, os.path.abspath(__file__), "--send", str(front_port),
            str(self.args.bulk_mib)]), capture_output=True, text=True, timeout=300)
        out, _ = sink_proc.communicate(timeout=300)
        if sender.returncode != 0 or sink_proc.returncode != 0:
            raise BenchError(f"bulk transfer failed: {sender.stderr}{out}")
        r = json.loads(out)
        if r["bytes"] != self.args.bulk_mib * CHUNK:
            raise BenchError(f"bulk: the sink got {r['bytes']} bytes of {self.args.bulk_mib} MiB")
        return r["bytes"] / r["seconds"]

    def start_sink(self):
        port_file = os.path.join(self.tmpdir, f"sink-{time.monotonic_ns()}.port")
        proc = subprocess.Popen(self.pinned(self.args.client_core, [
            sys.executable, os.path.abspath(__file__), "--sink", port_file]),
            stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while not os.path.exists(port_file):
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise BenchError("the bulk sink did not start")
            time.sleep(0.02)
        return int(open(port_file).read()), port_file, proc

    def one_path(self, run, path, redis_port):
        sample = {"run": run, "path": path}
        front = None if path == "direct" else self.front(path, redis_port)
        port = redis_port if front is None else front.port
        cpu_before = cpu_with_children_s(front.proc) if front else 0
        sample.update(self.ping_pong(port, self.args.requests, f"{run}-{path}"))
        if front is not None:  # /proc ticks over the ping-pong alone: no start-up, no exit
            time.sleep(0.3)  # socat's child has exited and is reaped
            cpu = cpu_with_children_s(front.proc) - cpu_before
            sample["front_cpu_us_per_request"] = cpu * 1e6 / self.args.requests
        if path == "relay":
            link = self.relay_doc(front)["links"][0]
            added = link["client_to_target"]["added"]
            sample.update({"relay_added_p50_us": added["percentiles_us"]["50"],
                           "relay_added_p99_us": added["percentiles_us"]["99"],
                           "relay_chunks": link["client_to_target"]["chunks"]
                           + link["target_to_client"]["chunks"]})
        elif front is not None:
            self.stop_server(front)
        sink_port, port_file, sink_proc = self.start_sink()
        front = None if path == "direct" else self.front(path, sink_port)
        sample["bulk_bytes_per_s"] = self.bulk(sink_port if front is None else front.port,
                                               port_file, sink_proc)
        if front is not None:
            self.stop_server(front)
        return sample

    def overshoot(self, run, redis_port, probe):
        front = self.front("relay", redis_port, f"{self.args.probe_delay_us}us", PROBES[probe])
        self.ping_pong(front.port, self.args.probe_requests, f"{run}-probe")
        doc = self.relay_doc(front)
        link = doc["links"][0]
        s = {"run": run, "path": f"relay --delay {self.args.probe_delay_us}us", "probe": probe}
        chunks = 0
        for d in ("client_to_target", "target_to_client"):
            a = link[d]["added"]
            chunks += link[d]["chunks"]
            s[d] = {"chunks": link[d]["chunks"], "applied_min_us": link[d]["applied"]["min_us"],
                    "added_p50_us": a["percentiles_us"]["50"],
                    "added_p99_us": a["percentiles_us"]["99"], "added_max_us": a["max_us"]}
        # The relay's whole CPU over its life (start-up included) per chunk it relayed.
        s["cpu_us_per_chunk"] = doc["cpu_s"] * 1e6 / max(chunks, 1)
        if probe == "default":
            s["floor"] = self.timer_floor()
        return s

    def timer_floor(self):
        """bench/timer_floor on the relay's core: {"sleep": {...}, "timerfd": {...}} in us."""
        out = subprocess.run(self.pinned(self.args.server_core, [
            self.tools["timer_floor"], "--delay-us", str(self.args.probe_delay_us), "--count",
            str(self.args.probe_requests)]), capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise BenchError(f"timer_floor exited {out.returncode}: {out.stderr}")
        floor = {}
        for line in out.stdout.splitlines():
            f = line.split()  # how N=n overshoot_us min X p50 X p99 X max X
            floor[f[0]] = {"min_us": float(f[4]), "p50_us": float(f[6]), "p99_us": float(f[8]),
                           "max_us": float(f[10])}
        return floor

    def run(self):
        redis_port = free_port()
        self.start("redis", [self.tools["redis-server"], "--port", str(redis_port), "--save", "",
                             "--appendonly", "no", "--bind", "127.0.0.1"], redis_port)
        for run in range(1, self.args.runs + 1):
            order = PATHS if run % 2 else tuple(reversed(PATHS))
            for path in order:
                s = self.one_path(run, path, redis_port)
                self.samples.append(s)
                if self.args.verbose:
                    print(f"  {s}", flush=True)
            for probe in PROBES:
                self.samples.append(self.overshoot(run, redis_port, probe))


# ----------------------------------------------------------------------------- report

def med(values):
    return statistics.median(values) if values else float("nan")


def report(args, facts, samples):
    print_platform(facts)
    print(f"{args.runs} runs, paths rotated per run; ping-pong {args.requests:,} PINGs at "
          f"1 connection; bulk {args.bulk_mib} MiB; cores: servers/relay/socat "
          f"{args.server_core}, clients {args.client_core}\n")
    by = {p: [s for s in samples if s["path"] == p] for p in PATHS}
    direct = {s["run"]: s for s in by["direct"]}
    rows = []
    for p in PATHS:
        add50 = [s["p50_us"] - direct[s["run"]]["p50_us"] for s in by[p]]
        add99 = [s["p99_us"] - direct[s["run"]]["p99_us"] for s in by[p]]
        rows.append([p, f"{med([s['p50_us'] for s in by[p]]):.1f}",
                     f"{med([s['p99_us'] for s in by[p]]):.1f}",
                     "-" if p == "direct" else f"{med(add50):+.1f}",
                     "-" if p == "direct" else f"{med(add99):+.1f}",
                     "-" if p == "direct"
                     else f"{med([s['front_cpu_us_per_request'] for s in by[p]]):.1f}",
                     f"{med([s['bulk_bytes_per_s'] for s in by[p]]) / 1e6:,.0f}"])
    print_table(["path", "p50 us", "p99 us", "added p50 us", "added p99 us", "CPU us/req",
                 "bulk MB/s"], rows)
    print(f"\nmedians of N = {args.runs}; added = path - direct within a run (one chunk each "
          "way per request); per-run samples in --raw-json")
    relay = by["relay"]
    print(f"relay at --delay 0, its own record: added per chunk (client->target) p50 "
          f"{med([s['relay_added_p50_us'] for s in relay]):.1f} us, p99 "
          f"{med([s['relay_added_p99_us'] for s in relay]):.1f} us; "
          f"{relay[0]['relay_chunks']:,} chunks a run (both directions)")
    print("CPU us/req: the relay's or socat's own user+sys CPU (/proc, 10 ms ticks) over the "
          "ping-pong, per request (two chunks)")
    for probe, flags in PROBES.items():
        probes = [s for s in samples if s.get("probe") == probe]
        print(f"relay at --delay {args.probe_delay_us}us {' '.join(flags) or '(default scheduler, no spin)'}: "
              f"CPU {med([p['cpu_us_per_chunk'] for p in probes]):.1f} us per chunk")
        for d in ("client_to_target", "target_to_client"):
            print(f"  {d}: applied min "
                  f"{med([p[d]['applied_min_us'] for p in probes]):.1f} us, added p50 "
                  f"{med([p[d]['added_p50_us'] for p in probes]):.1f} us, p99 "
                  f"{med([p[d]['added_p99_us'] for p in probes]):.1f} us (runs: "
                  + ", ".join(f"{p[d]['added_p99_us']:.1f}" for p in probes)
                  + f"), max {max(p[d]['added_max_us'] for p in probes):.1f} us; "
                  f"{probes[0][d]['chunks']} chunks a run")
    probes = [s for s in samples if s.get("probe") == "default"]
    for how in ("sleep", "timerfd"):
        f = [p["floor"][how] for p in probes]
        print(f"machine floor, timer_floor {how} {args.probe_delay_us} us on core "
              f"{args.server_core}: overshoot min {med([x['min_us'] for x in f]):.1f} us, p50 "
              f"{med([x['p50_us'] for x in f]):.1f} us, p99 {med([x['p99_us'] for x in f]):.1f} us "
              "(runs: " + ", ".join(f"{x['p99_us']:.1f}" for x in f) + f"), N={args.probe_requests} a run")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                   help="directory holding memstand (default: %(default)s)")
    p.add_argument("--runs", type=int, default=5, help="repetitions (default: 5)")
    p.add_argument("--requests", type=int, default=20_000, help="PINGs per ping-pong")
    p.add_argument("--bulk-mib", type=int, default=512, help="MiB per bulk transfer")
    p.add_argument("--probe-delay-us", type=int, default=1000,
                   help="the overshoot probe's --delay, in us (default: 1000)")
    p.add_argument("--probe-requests", type=int, default=2_000, help="PINGs of the probe")
    p.add_argument("--raw-json", metavar="FILE", help="write every raw sample here")
    p.add_argument("-v", "--verbose", action="store_true", help="print samples as measured")
    add_core_args(p)
    args = p.parse_args(argv)
    check_cores(p, args)
    if min(args.runs, args.requests, args.bulk_mib, args.probe_requests, args.probe_delay_us) < 1:
        p.error("--runs, --requests, --bulk-mib, --probe-requests, --probe-delay-us must be >= 1")
    return args


def main(argv):
    if argv[:1] == ["--sink"]:
        return sink(argv[1])
    if argv[:1] == ["--send"]:
        return send(int(argv[1]), int(argv[2]))
    args = parse_args(argv)
    install_signal_handlers()
    try:
        tools = find_programs((("redis-server", "apt-get install redis-server"),
                               ("socat", "apt-get install socat (bench only)"),
                               ("taskset", "apt-get install util-linux")),
                              {name: os.path.join(args.build_dir, name)
                               for name in ("memstand", "timer_floor")},
                              [f"{args.build_dir}/{name} missing: scripts/build.sh"
                               for name in ("memstand", "timer_floor")
                               if not os.access(os.path.join(args.build_dir, name), os.X_OK)])
    except BenchError as e:
        print(f"relay_cost: {e}", file=sys.stderr)
        return 1
    facts = base_platform_facts()
    facts["socat"] = next((line.strip() for line in subprocess.run(
        [tools["socat"], "-V"], capture_output=True, text=True).stdout.splitlines()
        if line.startswith("socat version")), "unknown")
    with tempfile.TemporaryDirectory(prefix="relay_cost.") as tmpdir:
        bench = Bench(args, tools, tmpdir)
        try:
            bench.run()
        except BenchError as e:
            print(f"relay_cost: {e}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print("relay_cost: interrupted; servers stopped, nothing reported", file=sys.stderr)
            return 130
        finally:
            bench.stop()
    facts["loadavg_end"] = loadavg()
    report(args, facts, bench.samples)
    if args.raw_json:
        write_raw_json(args.raw_json, {"facts": facts, "args": vars(args),
                                       "samples": bench.samples})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

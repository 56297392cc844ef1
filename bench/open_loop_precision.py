#!/usr/bin/env python3
"""Open loop precision (issue #31): how far behind its schedule memstand's open loop
sends, and what --spin and --realtime buy and cost.

null_resp_server (answers every command at once) pinned to --server-core; memstand
`run -t 1 -c 50 --pipeline 64 --rate R --cpus CLIENT_CORE` (its load thread pinned to
--client-core, its other threads not), at each rate of --rates
and in each configuration of --configs:
  today      the build given with --baseline (memstand before --spin), if any
  sleep      --spin 0: the loop sleeps until each send time
  spin       --spin SPIN: it polls the last SPIN before each send time
  rt         --realtime 1: SCHED_FIFO, sleeping until each send time
  spin+rt    --spin SPIN --realtime 1
  thread     --schedule per-thread: one schedule for the thread, the requests due at a
             wake-up together on one connection
  thread+spin  --schedule per-thread --spin SPIN
Per run: the achieved rate, the send lag (actual minus intended send time) p50 / p99 /
max from memstand's --json, the load thread's CPU as a share of a core and per request,
the part of it --spin spent polling, and the requests a socket write carried (the
warm-up's included, its requests counted at the rate). Configurations rotate per round (docs/method.md
rule 10); every run is printed, then the medians over the rounds.

Timed figures are printed, never asserted: the machine may be shared (the load average
is printed at the start and the end, and --gauge seconds of a loop that only reads the
clock on the client core, before and after the runs, say how much of that core's time
the machine itself took in pauses: a request due in one is late by it). Exit status: 0 every run finished; 1 a run failed
or a tool is missing; 2 bad options; 130 interrupted. The server is always stopped.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import (REPO, BenchError, Server, base_platform_facts, find_programs,  # noqa: E402
                      install_signal_handlers, loadavg, print_table, read_file, start_checked,
                      tail, write_raw_json)

CONFIGS = ("today", "sleep", "spin", "rt", "spin+rt", "thread", "thread+spin")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                   help="directory holding memstand and null_resp_server (default build/)")
    p.add_argument("--baseline", help="a memstand binary from before --spin: the 'today' rows")
    p.add_argument("--rates", default="100k,500k,1M")
    p.add_argument("--configs", default=",".join(CONFIGS))
    p.add_argument("--spin", default="100us", help="the spin of the spin rows (default 100us)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--duration", default="5s")
    p.add_argument("--warmup", default="1s")
    p.add_argument("--connections", type=int, default=50,
                   help="memstand's -c (default 50, the issue's setup)")
    p.add_argument("--server-core", type=int, default=0)
    p.add_argument("--client-core", type=int, default=1)
    p.add_argument("--io", default="auto", help="memstand's --io (default auto: io_uring here)")
    p.add_argument("--server-realtime", action="store_true",
                   help="run the null server on SCHED_FIFO 1 (chrt), so that other work on its core "
                        "does not hold replies back: what is left is the client's own lag")
    p.add_argument("--server-busy-poll", action="store_true",
                   help="the null server polls without sleeping (its core at 100%%): a request "
                        "then wakes nothing on the server's core")
    p.add_argument("--unix", action="store_true",
                   help="the null server on a Unix socket instead of TCP on loopback")
    p.add_argument("--gauge", type=float, default=3.0,
                   help="seconds of a clock-reading loop on the client core before and after the runs, "
                        "whose share of time lost to pauses is printed (the machine's own; 0: none)")
    p.add_argument("--raw-json", help="write every run's figures here")
    args = p.parse_args()
    args.rates = args.rates.split(",")
    args.configs = args.configs.split(",")
    for c in args.configs:
        if c not in CONFIGS:
            p.error(f"--configs: unknown {c!r}; known: {', '.join(CONFIGS)}")
    if "today" in args.configs and not args.baseline:
        args.configs.remove("today")
    if args.rounds < 1:
        p.error("--rounds: at least 1")
    if not 0 <= args.gauge <= 60:
        p.error("--gauge: from 0 to 60 seconds")
    return args


def core_pauses(core, seconds):
    """A loop that only reads the clock, on `core` for `seconds`: the share of its time
    (percent) lost to pauses of 10-50 µs, 50-100 µs and 100 µs or more. Nothing of
    memstand runs then: they are the machine's (its other work, the host), and a request
    due in one is late by it whatever the client does. A turn of the loop takes well
    under a microsecond, so a gap of 10 µs is a pause, not the loop."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    lost = [0, 0, 0]
    try:
        now = time.monotonic_ns
        prev = now()
        end = prev + int(seconds * 1e9)
        while prev < end:
            t = now()
            gap = t - prev
            prev = t
            if gap >= 10_000:
                lost[0 if gap < 50_000 else 1 if gap < 100_000 else 2] += gap
    finally:
        os.sched_setaffinity(0, before)
    return [100.0 * x / (seconds * 1e9) for x in lost]


def pauses_line(when, core, seconds, shares):
    return (f"# {when}: a clock loop alone on core {core} for {seconds:g} s lost {shares[0]:.2f}% of its time "
            f"to pauses of 10-50 µs, {shares[1]:.2f}% to 50-100 µs, {shares[2]:.2f}% to 100 µs or more")


def config_flags(config, spin):
    return {"today": [], "sleep": ["--spin", "0"], "spin": ["--spin", spin],
            "rt": ["--realtime", "1"], "spin+rt": ["--spin", spin, "--realtime", "1"],
            "thread": ["--schedule", "per-thread"],
            "thread+spin": ["--schedule", "per-thread", "--spin", spin]}[config]


def start_null(tools, core, tmpdir, realtime, busy_poll, unix):
    """null_resp_server on `core` (on SCHED_FIFO 1 with `realtime`, polling without sleep
    with `busy_poll`, on a Unix socket in tmpdir with `unix`); its port (or the socket's
    path) is in server.port once it listens."""
    argv = [tools["taskset"], "-c", str(core)]
    if realtime:
        argv += [tools["chrt"], "-f", "1"]
    listen = ["--unix", os.path.join(tmpdir, "null.sock")] if unix else ["--port", "0"]
    argv += [tools["null_resp_server"]] + listen + (["--busy-poll"] if busy_poll else [])
    server = Server("null", argv, os.path.join(tmpdir, "null_resp_server.log"))

    def listening():
        log = read_file(server.log_path)
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", log)
        if m:
            server.port = int(m.group(1))
        m = re.search(r"listening on unix:(\S+)", log)
        if m:
            server.port = m.group(1)
        return server.port is not None

    return start_checked(server, listening, "null_resp_server")


def one_run(tools, args, port, config, rate, tmpdir):
    binary = args.baseline if config == "today" else tools["memstand"]
    json_path = os.path.join(tmpdir, "run.json")
    # The load thread pinned to the client core (--cpus), memstand's other threads (the
    # per-second collector, the resource sampler, the main thread) left to the scheduler:
    # pinned with it (taskset on the process) their work each second came out of the load
    # thread's core, in its send lag. The "today" binary predates --cpus: taskset.
    pin = ([tools["taskset"], "-c", str(args.client_core), binary] if config == "today"
           else [binary])
    argv = pin + ["run",
            "--target", f"unix://{port}" if args.unix else f"redis://127.0.0.1:{port}", "--io", args.io, "-t", "1", "-c", str(args.connections),
            "--pipeline", "64", "--rate", rate, "--duration", args.duration,
            "--warmup", args.warmup, "-q", "--json", json_path] + config_flags(config, args.spin)
    if config != "today":
        argv += ["--cpus", str(args.client_core)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise BenchError(f"{' '.join(argv)} exited {out.returncode}:\n{tail(out.stdout + out.stderr)}")
    with open(json_path, encoding="utf-8") as f:
        j = json.load(f)
    lag = j["totals"]["send_lag"]
    thread = j["client"]["threads"][0]
    ops = j["totals"]["ops"]
    cpu = j["client"]["cpu_user_s"] + j["client"]["cpu_sys_s"]
    return {
        "config": config, "rate": rate,
        "achieved_per_s": j["schedule"]["achieved_per_s"],
        "lag_p50_us": lag["percentiles_us"]["50"], "lag_p99_us": lag["percentiles_us"]["99"],
        "lag_max_us": lag["max_us"],
        "core_share": thread["core_share"], "spin_share": thread.get("spin_share", 0.0),
        "cpu_us_per_request": cpu * 1e6 / ops if ops else float("nan"),
        # write_calls counts the warm-up's writes too: its requests, sent at the rate, are added
        "requests_per_write": (ops + j["options"]["rate_per_s"] * j["options"]["warmup_s"]) / j["client"]["write_calls"]
        if j["client"]["write_calls"] else float("nan"),
        "realtime_priority": thread.get("realtime_priority", 0),
        "io": j["options"]["io"],
        # Each second's own send lag p99 (a memstand older than the field: none), so that a
        # run's p99 reads as spread over the run or made by one second's stall.
        "second_p99s_us": [p["send_lag_p99_us"] for p in j["series"]["Total"] if "send_lag_p99_us" in p],
    }


def seconds_text(p99s, bound=50.0):
    """A run's seconds' send lag p99: their range and how many were above `bound` µs."""
    if not p99s:
        return "seconds' p99 -"
    above = sum(1 for v in p99s if v > bound)
    return f"seconds' p99 {min(p99s):.1f}-{max(p99s):.1f} µs ({above} of {len(p99s)} above {bound:g})"


def main():
    install_signal_handlers()
    args = parse_args()
    tools = find_programs([("taskset", "apt-get install util-linux"), ("chrt", "apt-get install util-linux")],
                          {}, [])
    for name in ("memstand", "null_resp_server"):
        path = os.path.join(args.build_dir, name)
        if not os.access(path, os.X_OK):
            raise BenchError(f"{path} not built: bash scripts/build.sh release memstand null_resp_server")
        tools[name] = path
    facts = base_platform_facts()
    print(f"# {facts['uname']}; {facts['cpu_model']}; load average at the start "
          f"{' '.join(facts['loadavg_start'])}; server{' on SCHED_FIFO 1' if args.server_realtime else ''} "
          f"on core {args.server_core}, memstand on core {args.client_core}")
    pauses = {}
    if args.gauge > 0:
        pauses["start"] = core_pauses(args.client_core, args.gauge)
        print(pauses_line("before the runs", args.client_core, args.gauge, pauses["start"]), flush=True)
    runs = []
    with tempfile.TemporaryDirectory(prefix="open_loop_precision.") as tmpdir:
        server = start_null(tools, args.server_core, tmpdir, args.server_realtime, args.server_busy_poll,
                            args.unix)
        try:
            for r in range(args.rounds):
                configs = args.configs[r % len(args.configs):] + args.configs[:r % len(args.configs)]
                for rate in args.rates:
                    for config in configs:
                        s = one_run(tools, args, server.port, config, rate, tmpdir)
                        s["round"] = r + 1
                        runs.append(s)
                        print(f"round {r + 1} {rate:>5} {config:<8} achieved {s['achieved_per_s']:>11,.0f}/s "
                              f"lag p50 {s['lag_p50_us']:>8.1f} p99 {s['lag_p99_us']:>9.1f} "
                              f"max {s['lag_max_us']:>9.1f} µs  core {s['core_share'] * 100:5.1f}% "
                              f"(spin {s['spin_share'] * 100:4.1f}%) {s['cpu_us_per_request']:.2f} µs/req "
                              f"{s['requests_per_write']:.1f} req/write "
                              f"io {s['io']}; {seconds_text(s['second_p99s_us'])}", flush=True)
        finally:
            server.stop()
    end_load = loadavg()
    print(f"# load average at the end {' '.join(end_load)}")
    if args.gauge > 0:
        pauses["end"] = core_pauses(args.client_core, args.gauge)
        print(pauses_line("after the runs", args.client_core, args.gauge, pauses["end"]), flush=True)
    rows = []
    for rate in args.rates:
        for config in args.configs:
            got = [s for s in runs if s["rate"] == rate and s["config"] == config]

            def med(key, got=got):
                return statistics.median(s[key] for s in got)

            p99s = ", ".join(f"{s['lag_p99_us']:,.1f}" for s in got)
            rows.append([rate, config, f"{med('achieved_per_s'):,.0f}", f"{med('lag_p50_us'):,.1f}",
                         f"{med('lag_p99_us'):,.1f} ({p99s})", f"{med('lag_max_us'):,.0f}",
                         f"{med('core_share') * 100:.0f}%", f"{med('spin_share') * 100:.0f}%",
                         f"{med('cpu_us_per_request'):.2f}", f"{med('requests_per_write'):.1f}"])
    print_table(["rate", "config", "achieved/s", "lag p50 µs", "lag p99 µs (per run)", "lag max µs",
                 "thread CPU", "of it spin", "CPU µs/req", "requests/write"], rows)
    if args.raw_json:
        write_raw_json(args.raw_json, {"platform": facts, "loadavg_end": end_load, "core_pauses_percent": pauses,
                                       "runs": runs})
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        print(f"open_loop_precision: {e}", file=sys.stderr)
        sys.exit(1)

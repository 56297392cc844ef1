#!/usr/bin/env bash
# A history's kill test by hand (docs/history.md): a redis-server of the script's own on
# a free loopback port, `memstand run --reconnect --history` writing each key once, the
# server killed (SIGKILL) 1 s after it holds 1,000 keys and restarted 1.5 s later from its
# own files,
# then `memstand check` and `memstand history export`. It prints the acknowledged
# writes lost, where each lies against the kill, and the export's operation count.
#
# Usage: scripts/history-kill-demo.sh [off|always] [MEMSTAND]
#   off     persistence off (the default): the restarted server is empty, so every write
#           acknowledged before the kill is lost, and none made after the restart
#   always  appendonly yes, appendfsync always: no acknowledged write is lost
#   MEMSTAND: the binary (default build/memstand)
# Exit: memstand check's (4: acknowledged writes lost, 0: none), or 1 when the run failed
# or the history disagrees with the kill (a write lost that was sent after the restart,
# a write acknowledged before the kill kept without persistence, an export whose count
# is not the history's). Needs redis-server, redis-cli, python3. Leaves nothing running.
set -euo pipefail
mode="${1:-off}"
memstand="${2:-build/memstand}"
case "$mode" in off|always) ;; *) echo "usage: $0 [off|always] [MEMSTAND]" >&2; exit 2 ;; esac
[ -x "$memstand" ] || { echo "$memstand: not an executable (scripts/build.sh release memstand)" >&2; exit 2; }
for tool in redis-server redis-cli python3; do
  command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/history-kill.XXXXXX")
server=""
run=""
cleanup() {
  for p in $run $server; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
persistence=(--save "" --appendonly no)
[ "$mode" = always ] && persistence=(--save "" --appendonly yes --appendfsync always)
start_server() {
  redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" "${persistence[@]}" --daemonize no \
    > "$dir/redis.log" 2>&1 &
  server=$!
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "redis-server did not start: $(tail -3 "$dir/redis.log")" >&2
  exit 1
}
now_ns() { date +%s%N; }

start_server
target="redis://127.0.0.1:$port"
hist="$dir/run.hist"
"$memstand" run --target "$target" --reconnect --reconnect-min 20ms --reconnect-max 200ms --duration 6s -c 4 \
  --ratio 1:0 --key-pattern S:S --key-minimum 1 --key-maximum 50000000 --history "$hist" -q > "$dir/run.log" 2>&1 &
run=$!
# Load first: the kill comes 1 s after the server holds 1,000 keys (30 s at most).
for _ in $(seq 300); do
  keys=$(redis-cli -h 127.0.0.1 -p "$port" dbsize 2>/dev/null || echo 0)
  [ "${keys:-0}" -ge 1000 ] 2>/dev/null && break
  sleep 0.1
done
sleep 1
kill_from=$(now_ns)
kill -9 "$server"
wait "$server" 2>/dev/null || true
kill_to=$(now_ns)
sleep 1.5
start_server
restarted=$(now_ns)
if ! wait "$run"; then
  run=""
  echo "memstand run failed:" >&2
  tail -5 "$dir/run.log" >&2
  exit 1
fi
run=""

set +e
"$memstand" check "$hist" --target "$target" --json "$dir/check.json" > "$dir/check.txt" 2>&1
check=$?
"$memstand" history export "$hist" --format jepsen-json --out "$dir/export.jsonl"
export_rc=$?
set -e
grep -E "^(lost-writes|verdict)" "$dir/check.txt" || true
[ "$check" -eq 0 ] || [ "$check" -eq 4 ] || { cat "$dir/check.txt" >&2; exit 1; }
[ "$export_rc" -eq 0 ] || exit 1

python3 - "$hist" "$dir/check.json" "$dir/export.jsonl" "$mode" "$kill_from" "$kill_to" "$restarted" <<'PY'
import json, struct, sys
hist, check, export, mode = sys.argv[1:5]
kill_from, kill_to, restarted = (int(x) for x in sys.argv[5:8])
with open(hist, 'rb') as f:
    head = f.read(24 + 9 + 16)
start_unix = struct.unpack_from('<q', head, 24 + 9 + 8)[0]  # the run header's start_unix_ns
rel = lambda t: t - start_unix
result = json.load(open(check))
lost_check = next(c for c in result['checks'] if c['check'] == 'lost-writes')
lost = lost_check['violations']  # one write a key: a violation is a lost write
shown = [op for f in lost_check['findings'] if f['kind'] == 'lost' for op in f['ops']]
operations = result['history']['operations']
# The export's operations, an invoke and a completion each, one at a time a process.
invoked, acked_before, acked_sent_by_kill, acked_after, exported = {}, 0, 0, 0, 0
for line in open(export):
    e = json.loads(line)
    if e['process'] == 'nemesis':
        continue
    if e['type'] == 'invoke':
        invoked[e['process']] = e['time']
        exported += 1
    elif e['type'] == 'ok' and e['f'] == 'write':
        acked_before += e['time'] < rel(kill_from)
        acked_sent_by_kill += invoked[e['process']] <= rel(kill_to)
        acked_after += invoked[e['process']] > rel(restarted)
print(f"killed at {rel(kill_from) / 1e9:.3f} s of the run (gone by {rel(kill_to) / 1e9:.3f} s), "
      f"answering again at {rel(restarted) / 1e9:.3f} s")
print(f"acknowledged writes: {acked_before} before the kill, {acked_sent_by_kill} sent by its end, "
      f"{acked_after} sent after the restart")
print(f"lost: {lost} acknowledged write(s)", end='')
if shown:
    print(f"; of the {len(shown)} the check shows, {sum(op['invoke_ns'] <= rel(kill_to) for op in shown)} sent "
          f"before the kill, {sum(op['invoke_ns'] > rel(restarted) for op in shown)} after the restart")
else:
    print()
print(f"history export: {exported} operation(s); the history holds {operations}")
bad = []
if any(op['invoke_ns'] > rel(kill_to) for op in shown):
    bad.append('a write sent after the kill is reported lost')
if mode == 'off' and lost == 0:
    bad.append('nothing lost without persistence (the kill came before any write was acknowledged?)')
if mode == 'off' and not acked_before <= lost <= acked_sent_by_kill:
    bad.append('the writes lost are not those acknowledged by the kill')
if mode == 'always' and lost:
    bad.append('acknowledged writes lost with appendfsync always')
if exported != operations:
    bad.append('the export does not hold every operation')
for b in bad:
    print('MISMATCH: ' + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit "$check"

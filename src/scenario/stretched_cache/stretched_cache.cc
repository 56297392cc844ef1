#include "scenario/stretched_cache/stretched_cache.h"

#include <memory>

#include <fmt/format.h>

#include "client/redis_client.h"
#include "core/clock.h"
#include "relay/relay.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/load_handle.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/runs.h"
#include "scenario/stretched_cache/pair.h"
#include "scenario/stretched_cache/report.h"
#include "util/rng.h"

namespace memstand {
namespace {

constexpr char kScenario[] = "stretched-cache";
constexpr char kGetKey[] = "stretched:get";
// WAIT answers other than 1 in a row that end a series: the link is gone, and each
// further one would cost the whole WAIT timeout.
constexpr int kMaxMissesInARow = 3;
constexpr int64_t kTrafficPollNs = 2'000'000;

// The clients of one run: one connection to the primary, and one through the current
// relay's client link when a block needs it.
struct Clients {
  std::unique_ptr<RedisClient> direct;
  std::unique_ptr<RedisClient> relayed;
};

// What a run needs besides its record: options, context, servers, payload.
struct RunState {
  const StretchedCacheOptions& o;
  const ScenarioContext& ctx;
  ReplicatedPair& pair;
  Clients clients;
  std::string value;
  std::string wait_timeout;
  uint64_t next_key = 0;
  StretchedRun* record;
};

Result<std::unique_ptr<RedisClient>> Connect(const std::string& host, int port, const StretchedCacheOptions& o) {
  RedisClientOptions c;
  c.host = host;
  c.port = port;
  c.timeout_ms = o.wait_timeout_ms + 10000;  // WAIT's own bound answers first
  return RedisClient::Connect(c);
}

std::string RandomValue(uint64_t seed, int size) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  Rng rng(DeriveSeed(seed, 15));
  std::string v(static_cast<size_t>(size), 'x');
  for (char& c : v) c = kAlphabet[rng.Uniform(sizeof(kAlphabet) - 1)];
  return v;
}

Status ExpectOk(const char* what, const resp::Reply& r) {
  if (r.type == resp::Type::kSimpleString && r.str == "OK") return Status::OK();
  return Status::Server(fmt::format("{} answered {} '{}', not OK", what, resp::TypeName(r.type), r.str.substr(0, 80)));
}

void TakeWait(const resp::Reply& r, OpSample* s) {
  if (r.type == resp::Type::kInteger) {
    s->wait = r.integer;
  } else {
    s->wait = -2;
    s->other = fmt::format("{} '{}'", resp::TypeName(r.type), r.str.substr(0, 80));
  }
}

// One timed operation on `c`; a Status for I/O failures and replies that are not the
// command's (the run cannot go on on that connection).
Result<OpSample> TimeOp(RunState& st, RedisClient* c, ClientMode mode) {
  const std::string key = fmt::format("stretched:{}", st.next_key++ % 10000);
  OpSample s;
  const std::vector<std::string> set = {"SET", key, st.value};
  const std::vector<std::string> wait = {"WAIT", "1", st.wait_timeout};
  const int64_t t0 = NowNs();
  switch (mode) {
    case ClientMode::kSet:
    case ClientMode::kSequential: {
      auto r = c->Command(set);
      if (!r.ok()) return r.status();
      if (Status ok = ExpectOk("SET", *r); !ok.ok()) return ok;
      if (mode == ClientMode::kSet) break;
      auto w = c->Command(wait);
      if (!w.ok()) return w.status();
      TakeWait(*w, &s);
      break;
    }
    case ClientMode::kPipelined: {
      auto r = c->Pipeline({set, wait});
      if (!r.ok()) return r.status();
      if (Status ok = ExpectOk("SET", (*r)[0]); !ok.ok()) return ok;
      TakeWait((*r)[1], &s);
      break;
    }
    case ClientMode::kGet: {
      auto r = c->Command({"GET", kGetKey});
      if (!r.ok()) return r.status();
      if (r->type != resp::Type::kBulkString || r->str != st.value) {
        return Status::Server(fmt::format("GET {} answered {} of {} bytes, not the value set", kGetKey,
                                          resp::TypeName(r->type), r->str.size()));
      }
      break;
    }
  }
  s.ns = NowNs() - t0;
  return s;
}

// A member of a measured group: its series and the connection it uses.
struct Member {
  Series* series;
  RedisClient* client;
  int misses_in_a_row = 0;
};

// One operation of `m`, with the relay's counts around it.
void OneOp(RunState& st, Member& m, int index, int position) {
  Relay* relay = st.pair.relay();
  RelayStats before;
  if (relay != nullptr) before = relay->Snapshot();
  auto op = TimeOp(st, m.client, m.series->mode);
  if (!op.ok()) {
    m.series->failure = op.status().message();
    return;
  }
  if (relay != nullptr) {
    const RelayStats after = relay->Snapshot();
    op->repl = DeltaOf(after.links.at(0), before.links.at(0));
    op->client = DeltaOf(after.links.at(1), before.links.at(1));
  }
  op->index = index;
  op->position = position;
  m.misses_in_a_row = op->wait == -1 || op->wait == 1 ? 0 : m.misses_in_a_row + 1;
  m.series->samples.push_back(std::move(*op));
  if (m.misses_in_a_row >= kMaxMissesInARow) {
    m.series->failure = fmt::format("WAIT did not answer 1 {} times in a row (the replication link is down?)",
                                    kMaxMissesInARow);
  }
}

// --ops rounds over the group, the order alternating (A B C, C B A, ...); a series
// that failed is left out from then on. Returns false if the run must stop.
bool MeasureGroup(RunState& st, std::vector<Member> group) {
  for (int round = 0; round < st.o.ops && !st.ctx.interrupted(); ++round) {
    int position = 0;
    for (int k : RoundOrder(round, static_cast<int>(group.size()))) {
      Member& m = group[static_cast<size_t>(k)];
      if (m.series->failure.empty()) OneOp(st, m, round + 1, ++position);
    }
  }
  for (const Member& m : group) {
    if (!m.series->failure.empty()) {
      st.record->failure = m.series->Name() + ": " + m.series->failure;
      return false;
    }
  }
  return !st.ctx.interrupted();
}

Series MakeSeries(const std::string& block, const std::string& condition, ClientMode mode, const RelayOptions* relay) {
  Series s;
  s.block = block;
  s.condition = condition;
  s.mode = mode;
  if (relay != nullptr) {
    s.one_way_ns = relay->delay_ns;
    s.relay_mode = RelayModeName(relay->mode);
    s.nodelay = relay->nodelay;
  }
  return s;
}

RelayOptions RelayAt(const StretchedCacheOptions& so, int64_t delay_ns, RelayMode mode, bool nodelay) {
  RelayOptions o;
  o.realtime_priority = so.relay_realtime_priority;
  o.spin_ns = so.relay_spin_ns;
  o.segment_tap = so.relay_segment_tap;
  o.links = {RelayLink{"127.0.0.1", 0, "", 0}, RelayLink{"127.0.0.1", 0, "", 0}};  // targets: the pair's
  o.delay_ns = delay_ns;
  o.mode = mode;
  o.nodelay = nodelay;
  return o;
}

std::string SettingsText(const RelayOptions& o) {
  return fmt::format("delay {} each way, {}, TCP_NODELAY {}, segment tap {}", DistanceText(o.delay_ns),
                     RelayModeName(o.mode), o.nodelay ? "on" : "off", o.segment_tap ? "on" : "off");
}

// Routes the replica for a block and records the check; false if the link failed.
bool RouteFor(RunState& st, const RelayOptions* relay, const std::string& label) {
  st.ctx.Progress(kScenario, fmt::format("run {}: {}: re-pointing the replica", st.record->run, label));
  auto check = st.pair.Route(relay, label);
  if (!check.ok()) {
    if (!st.ctx.interrupted()) st.record->failure = check.status().message();
    return false;
  }
  st.ctx.Progress(kScenario, fmt::format("run {}: {}: {}", st.record->run, label, check->Describe()));
  st.record->checks.push_back(*check);
  return true;
}

// Measures `series` (appended to the record) with their clients, and the relay's counts
// over the whole group as one RelayRun. false if the run must stop.
bool MeasureBlock(RunState& st, std::vector<std::pair<Series, RedisClient*>> members, const RelayOptions* relay) {
  const size_t first = st.record->series.size();
  for (auto& [s, c] : members) st.record->series.push_back(std::move(s));
  std::vector<Member> group;
  for (size_t i = 0; i < members.size(); ++i) group.push_back({&st.record->series[first + i], members[i].second});
  const Series& head = st.record->series[first];
  st.ctx.Progress(kScenario, fmt::format("run {}: ({}) {}: {} series x {} operations", st.record->run, head.block,
                                         head.condition, group.size(), st.o.ops));
  Relay* r = st.pair.relay();
  const RelayStats before = r != nullptr ? r->Snapshot() : RelayStats{};
  const bool go_on = MeasureGroup(st, std::move(group));
  if (r != nullptr && relay != nullptr) {
    st.record->relays.push_back({head.block, head.condition, SettingsText(*relay), StatsDifference(r->Snapshot(), before)});
  }
  return go_on;
}

std::vector<std::pair<Series, RedisClient*>> WriteSeries(RunState& st, const std::string& block,
                                                         const std::string& condition, const RelayOptions* relay,
                                                         bool with_set) {
  std::vector<std::pair<Series, RedisClient*>> out;
  RedisClient* c = st.clients.direct.get();
  if (with_set) out.emplace_back(MakeSeries(block, condition, ClientMode::kSet, relay), c);
  out.emplace_back(MakeSeries(block, condition, ClientMode::kSequential, relay), c);
  out.emplace_back(MakeSeries(block, condition, ClientMode::kPipelined, relay), c);
  return out;
}

bool BlockA(RunState& st) {
  if (!RouteFor(st, nullptr, "(a) no relay")) return false;
  return MeasureBlock(st, WriteSeries(st, "a", "no relay", nullptr, true), nullptr);
}

bool BlockB(RunState& st) {
  // docs/method.md rule 10: off then on in odd runs, on then off in even ones.
  for (int i = 0; i < 2; ++i) {
    const bool nodelay = (i == 0) == (st.record->run % 2 == 0);
    const RelayOptions relay = RelayAt(st.o, 0, RelayMode::kPipelined, nodelay);
    const std::string condition = nodelay ? "nodelay on" : "nodelay off";
    if (!RouteFor(st, &relay, "(b) relay at 0 ms, TCP_NODELAY " + std::string(nodelay ? "on" : "off"))) return false;
    if (!MeasureBlock(st, WriteSeries(st, "b", condition, &relay, true), &relay)) return false;
  }
  return true;
}

// Block (c) under load: SETs at --load-rate on a connection of the engine's own, until
// stopped; a signal interrupts it too.
LoadStepOptions BackgroundWrites(const StretchedCacheOptions& o, const ScenarioContext& ctx) {
  LoadStepOptions s;
  s.key_prefix = "background:";
  s.first_key = 0;
  s.last_key = 9999;
  s.requests = static_cast<uint64_t>(o.load_rate * 600);  // ten minutes at most
  s.value.min_size = s.value.max_size = static_cast<size_t>(o.value_size);
  s.value.content = ValueSpec::Content::kRandom;
  s.pipeline = 1;
  s.rate = o.load_rate;
  s.seed = ctx.seed + 1;
  s.interrupt = ctx.interrupt;
  return s;
}

// Waits (2 s at most) until the replication link carries the writer's traffic.
void WaitForTraffic(Relay* relay) {
  const int64_t start = relay->Snapshot().links.at(0).back.chunks;
  PollUntil(DeadlineInMs(2000), kTrafficPollNs,
            [&]() -> Result<bool> { return relay->Snapshot().links.at(0).back.chunks >= start + 10; });
}

// Block (c) under one relay mode: idle, then under the background writer.
bool BlockCIn(RunState& st, RelayMode mode) {
  const RelayOptions relay = RelayAt(st.o, st.o.distances_ns.front(), mode, true);
  if (!RouteFor(st, &relay, "(c) relay at " + DistanceText(relay.delay_ns) + " " + RelayModeName(mode))) return false;
  if (!MeasureBlock(st, WriteSeries(st, "c", "idle", &relay, false), &relay)) return false;
  LoadHandle writer;
  writer.Start(st.pair.primary(), BackgroundWrites(st.o, st.ctx));
  WaitForTraffic(st.pair.relay());
  const bool go_on = MeasureBlock(st, WriteSeries(st, "c", "under load", &relay, false), &relay);
  const Result<LoadStepResult>& done = writer.Stop();
  if (!done.ok()) {
    st.record->failure = "the background writer: " + done.status().message();
    return false;
  }
  st.record->background[RelayModeName(mode)] = {static_cast<int64_t>(done->successful),
                                               static_cast<int64_t>(done->rejected)};
  if (!done->failure.ok()) {
    st.record->failure = "the background writer: " + done->failure.message();
    return false;
  }
  return go_on;
}

// Both relay modes, pipelined first in odd runs (docs/method.md rule 10).
bool BlockC(RunState& st) {
  const bool pipelined_first = st.record->run % 2 == 1;
  for (int k = 0; k < 2; ++k) {
    if (!BlockCIn(st, (k == 0) == pipelined_first ? RelayMode::kPipelined : RelayMode::kSerializing)) return false;
  }
  return true;
}

// Block (e) in each cell of a distance: GET direct and through link 1.
bool BlockE(RunState& st, const RelayOptions& relay) {
  Relay* r = st.pair.relay();
  auto relayed = Connect("127.0.0.1", r->listen_port(1), st.o);
  if (!relayed.ok()) {
    st.record->failure = "a client through the relay's client link: " + relayed.status().message();
    return false;
  }
  st.clients.relayed = std::move(*relayed);
  const std::string condition = DistanceText(relay.delay_ns);
  std::vector<std::pair<Series, RedisClient*>> members;
  members.emplace_back(MakeSeries("e", condition, ClientMode::kGet, &relay), st.clients.direct.get());
  members.emplace_back(MakeSeries("e", condition, ClientMode::kGet, &relay), st.clients.relayed.get());
  members.back().first.path = "relay";
  const bool go_on = MeasureBlock(st, std::move(members), &relay);
  st.clients.relayed.reset();
  return go_on;
}

bool BlocksDE(RunState& st) {
  for (size_t i = 0; i < st.o.distances_ns.size(); ++i) {
    const bool pipelined_first = (i + static_cast<size_t>(st.record->run)) % 2 == 1;
    for (int k = 0; k < 2; ++k) {
      const RelayMode mode = (k == 0) == pipelined_first ? RelayMode::kPipelined : RelayMode::kSerializing;
      const RelayOptions relay = RelayAt(st.o, st.o.distances_ns[i], mode, true);
      const std::string condition = DistanceText(relay.delay_ns) + " " + RelayModeName(mode);
      if (!RouteFor(st, &relay, "(d) relay at " + condition)) return false;
      if (!MeasureBlock(st, WriteSeries(st, "d", condition, &relay, false), &relay)) return false;
      if (!BlockE(st, relay)) return false;
    }
  }
  return true;
}

void Blocks(RunState& st) {
  auto c = Connect("127.0.0.1", st.pair.primary().target().port, st.o);
  if (!c.ok()) {
    st.record->failure = "the client's connection to the primary: " + c.status().message();
    return;
  }
  st.clients.direct = std::move(*c);
  auto set = st.clients.direct->Command({"SET", kGetKey, st.value});
  const Status stored = set.ok() ? ExpectOk("SET", *set) : set.status();
  if (!stored.ok()) {
    st.record->failure = "SET of the GET key: " + stored.message();
    return;
  }
  BlockA(st) && BlockB(st) && BlockC(st) && BlocksDE(st);
}

StretchedRun RunOnce(const StretchedCacheOptions& o, const ScenarioContext& ctx, int run, ScenarioReport* report) {
  StretchedRun record;
  record.run = run;
  const int64_t t0 = NowNs();
  ctx.Progress(kScenario, fmt::format("run {}: starting the primary and the replica", run));
  auto pair = ReplicatedPair::Start(ctx.interrupt);
  if (!pair.ok()) {
    if (ctx.interrupted()) {  // a start cut short by the signal: interrupted, not failed (FillVerdict)
      ctx.Progress(kScenario, fmt::format("run {}: the start was interrupted: {}", run, pair.status().message()));
    } else {
      record.failure = "servers did not start: " + pair.status().message();
    }
    return record;
  }
  if (run == 1) {
    report->configuration_lines.push_back("primary: " + (*pair)->primary().Describe());
    report->configuration_lines.push_back("replica: " + (*pair)->replica().Describe() + ", REPLICAOF the primary or "
                                          "the relay per block");
    report->files["servers/primary.conf"] = (*pair)->primary().ConfigText();
    report->files["servers/replica.conf"] = (*pair)->replica().ConfigText();
  }
  RunState st{o, ctx, **pair, {}, RandomValue(ctx.seed, o.value_size), std::to_string(o.wait_timeout_ms), 0, &record};
  Blocks(st);
  st.clients = {};
  for (ServerUnderTest* s : {&(*pair)->primary(), &(*pair)->replica()}) {
    if (!record.failure.empty()) record.failure = s->ExplainFailure(record.failure);  // names a dead server
    KeepLogTail(s->config().name, run, s->log_path(), &report->files);
  }
  Status stopped = (*pair)->Stop();
  if (!stopped.ok() && record.failure.empty()) record.failure = "stopping the servers: " + stopped.message();
  record.seconds = static_cast<double>(NowNs() - t0) / 1e9;
  return record;
}

}  // namespace

Status ValidateStretchedCache(const StretchedCacheOptions& o) {
  if (o.ops < 1 || o.ops > 100000) return Status::InvalidArgument(fmt::format("--ops must be 1..100000, got {}", o.ops));
  if (o.distances_ns.empty()) return Status::InvalidArgument("--distances: at least one distance");
  for (int64_t d : o.distances_ns) {
    if (d <= 0 || d > 1'000'000'000) return Status::InvalidArgument("--distances: each above 0 and at most 1s");
  }
  if (o.value_size < 1 || o.value_size > 1 << 20) {
    return Status::InvalidArgument(fmt::format("value size must be 1..1048576, got {}", o.value_size));
  }
  if (!(o.load_rate >= 1 && o.load_rate <= 100000)) {
    return Status::InvalidArgument(fmt::format("--load-rate must be 1..100000 writes/s, got {}", o.load_rate));
  }
  if (o.wait_timeout_ms < 1 || o.wait_timeout_ms > 60000) {
    return Status::InvalidArgument(fmt::format("WAIT timeout must be 1..60000 ms, got {}", o.wait_timeout_ms));
  }
  if (o.relay_realtime_priority < 0 || o.relay_realtime_priority > 99) {
    return Status::InvalidArgument(
        fmt::format("--relay-realtime must be 0..99, got {}", o.relay_realtime_priority));
  }
  if (o.relay_spin_ns < 0 || o.relay_spin_ns > 10'000'000) {
    return Status::InvalidArgument("--relay-spin must be 0..10ms");
  }
  return Status::OK();
}

// Whether the kernel lets a relay's loop run on SCHED_FIFO: a relay on one unused link,
// started and stopped at once. Empty: it does; else the refusal.
std::string RealtimeRefusal(int priority) {
  RelayOptions o;
  o.links = {RelayLink{"127.0.0.1", 0, "127.0.0.1", 1}};
  o.realtime_priority = priority;
  auto relay = Relay::Start(o);
  return relay.ok() ? std::string() : relay.status().message();
}

// Whether a relay's segment tap opens (a relay on one unused link, started and stopped at
// once). Empty: it does; else why not.
std::string SegmentTapRefusal() {
  RelayOptions o;
  o.links = {RelayLink{"127.0.0.1", 0, "127.0.0.1", 1}};
  o.segment_tap = true;
  auto relay = Relay::Start(o);
  if (!relay.ok()) return relay.status().message();
  return (*relay)->Snapshot().tap_error;
}

Result<ScenarioReport> RunStretchedCache(const StretchedCacheOptions& given, const ScenarioContext& ctx) {
  Status valid = ValidateStretchedCache(given);
  if (!valid.ok()) return valid;
  StretchedCacheOptions o = given;
  std::string refused;
  if (o.relay_realtime_priority > 0) refused = RealtimeRefusal(o.relay_realtime_priority);
  if (!refused.empty()) {
    o.relay_realtime_priority = 0;
    ctx.Progress(kScenario, "the relay runs on the default scheduler: " + refused);
  }
  std::string no_tap;
  if (o.relay_segment_tap) no_tap = SegmentTapRefusal();
  if (!no_tap.empty()) {
    o.relay_segment_tap = false;
    ctx.Progress(kScenario, "the relay runs without its segment tap: " + no_tap);
  }
  ScenarioReport report;
  report.scenario = kScenario;
  report.runs_requested = ctx.runs;
  ctx.Progress(kScenario, fmt::format("{} operations per series; the delays alone add up to about {} s per run",
                                      o.ops, ApproxSeconds(EstimateSeconds(o.ops, o.distances_ns))));
  std::vector<StretchedRun> runs;
  if (std::string missing = NotInstalledLine(SystemKind::kRedis); !missing.empty()) {
    report.Mark(ScenarioVerdict::kPartial, missing);
  } else {
    ForEachRun(ctx, &report, [&](int run) { runs.push_back(RunOnce(o, ctx, run, &report)); });
  }
  FillStretchedReport(o, runs, ctx.interrupted(), &report);
  if (!refused.empty()) {
    report.limits.push_back("the relay ran on the default scheduler, not SCHED_FIFO (" + refused +
                            "): on a busy machine its overshoot in (f) is the scheduler's wake-up latency, and it may "
                            "read two messages as one chunk");
  }
  if (!no_tap.empty()) {
    report.limits.push_back("the relay ran without its segment tap (" + no_tap +
                            "): two writes that waited in its socket together were one chunk, and in serializing "
                            "mode one operation (counted as merged in (c))");
  }
  return report;
}

}  // namespace memstand

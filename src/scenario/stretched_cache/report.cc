#include "scenario/stretched_cache/report.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/repeat.h"
#include "scenario/kit/ranges.h"
#include "scenario/stretched_cache/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = stretched_cache_json;

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }
std::string SignedMs(double ns) { return fmt::format("{:+.3f}", ns / 1e6); }
std::string Us(double ns) { return fmt::format("{:.1f}", ns / 1e3); }

const char* ModeLabel(ClientMode m) {
  switch (m) {
    case ClientMode::kSet: return "SET";
    case ClientMode::kSequential: return "SET, then WAIT 1 after its reply (sequential)";
    case ClientMode::kPipelined: return "SET + WAIT 1 in one write (pipelined client)";
    case ClientMode::kGet: return "GET";
  }
  return "?";
}

std::vector<double> Values(const Series& s, double (*of)(const OpSample&)) {
  std::vector<double> out;
  for (const OpSample& o : s.samples) out.push_back(of(o));
  return out;
}

double TimeOf(const OpSample& o) { return static_cast<double>(o.ns); }

// min / median / max of `of` over the series; all zero without samples.
Range RangeBy(const Series& s, double (*of)(const OpSample&)) {
  return s.samples.empty() ? Range{} : RangeOf(Values(s, of));
}

Range Times(const Series& s) { return RangeBy(s, TimeOf); }

const Series* Find(const StretchedRun& r, const std::string& block, const std::string& condition, ClientMode mode,
                   const std::string& path = "direct") {
  for (const Series& s : r.series) {
    if (s.block == block && s.condition == condition && s.mode == mode && s.path == path) return &s;
  }
  return nullptr;
}

// Medians of a and b, both present and measured: b - a; else nothing.
bool Difference(const Series* a, const Series* b, double* out) {
  if (a == nullptr || b == nullptr || a->samples.empty() || b->samples.empty()) return false;
  *out = Times(*b).median - Times(*a).median;
  return true;
}

constexpr int kLabelWidth = 64;

std::string SeriesHeader(const char* first) {
  return fmt::format("    {:<{}} {:>5} {:>9} {:>9} {:>9} {:>9}\n", first, kLabelWidth, "N", "median", "min", "max",
                     "WAIT!=1");
}

std::string SeriesRow(const Series& s, const std::string& label) {
  if (s.samples.empty()) {
    return fmt::format("    {:<{}} not measured{}\n", label, kLabelWidth, s.failure.empty() ? "" : ": " + s.failure);
  }
  const Range r = Times(s);
  const std::string misses = s.waits() > 0 ? std::to_string(s.waits() - s.ones()) : "-";
  std::string out = fmt::format("    {:<{}} {:>5} {:>9} {:>9} {:>9} {:>9}\n", label, kLabelWidth, r.n, Ms(r.median),
                                Ms(r.min), Ms(r.max), misses);
  if (!s.failure.empty()) out += "      FAILED: " + s.failure + "\n";
  return out;
}

std::string RunPrefix(const std::vector<StretchedRun>& runs, const StretchedRun& r) {
  return runs.size() > 1 ? fmt::format("    run {}:\n", r.run) : "";
}

const std::vector<ClientMode> kWriteModes = {ClientMode::kSet, ClientMode::kSequential, ClientMode::kPipelined};
const std::vector<ClientMode> kWaitModes = {ClientMode::kSequential, ClientMode::kPipelined};

std::string BlockA(const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r) + SeriesHeader("client (ms)");
    for (ClientMode m : kWriteModes) {
      if (const Series* s = Find(r, "a", "no relay", m)) out += SeriesRow(*s, ModeLabel(m));
    }
  }
  return out + "    does not prove: anything about distance. Loopback on one machine, both servers idle: the floor "
               "the other blocks are read against\n";
}

std::string BlockB(const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r) + SeriesHeader("relay at 0 ms (ms)");
    for (const char* onoff : {"off", "on"}) {
      for (ClientMode m : kWriteModes) {
        const Series* s = Find(r, "b", std::string("nodelay ") + onoff, m);
        if (s != nullptr) out += SeriesRow(*s, fmt::format("TCP_NODELAY {}: {}", onoff, ModeLabel(m)));
      }
    }
    for (ClientMode m : kWriteModes) {
      double off = 0, base = 0;
      const bool has_off = Difference(Find(r, "b", "nodelay on", m), Find(r, "b", "nodelay off", m), &off);
      const bool has_base = Difference(Find(r, "a", "no relay", m), Find(r, "b", "nodelay on", m), &base);
      out += fmt::format("    {}: without TCP_NODELAY minus with it {} ms; with it minus no relay {} ms\n", ModeLabel(m),
                         has_off ? SignedMs(off) : "-", has_base ? SignedMs(base) : "-");
    }
  }
  return out + "    does not prove: that a network stalls. The stall fits this kernel's Nagle algorithm holding the "
               "relay's second small write until the peer's delayed ACK when TCP_NODELAY is off on its sockets "
               "(inferred from (c): two chunks to the replica per sequential operation, one per pipelined one); "
               "its size is the delayed-ACK timer, not Redis and not distance\n";
}

double BackChunks(const OpSample& o) { return static_cast<double>(o.repl.back.chunks); }
double ForwardChunks(const OpSample& o) { return static_cast<double>(o.repl.forward.chunks); }
double BackBytes(const OpSample& o) { return static_cast<double>(o.repl.back.bytes); }
double ForwardBytes(const OpSample& o) { return static_cast<double>(o.repl.forward.bytes); }
double BackApplied(const OpSample& o) { return o.repl.back.applied_sum_ns; }
double ForwardApplied(const OpSample& o) { return o.repl.forward.applied_sum_ns; }
double MaxAppliedBothWays(const OpSample& o) {
  return static_cast<double>(o.repl.back.applied_max_ns + o.repl.forward.applied_max_ns);
}

std::string Span(const Range& r, const char* fmt_one = "{:g}") {
  return fmt::format(fmt::runtime(std::string(fmt_one) + " [" + fmt_one + ".." + fmt_one + "]"), r.median, r.min, r.max);
}

std::string BlockC(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    out += fmt::format("    {:<28} {:>5} {:>9} {:>14} {:>14} {:>10} {:>10} {:>11} {:>11}\n", "condition, client", "N",
                       "time ms", "chunks p->r", "chunks r->p", "bytes p->r", "bytes r->p", "applied p->r",
                       "applied r->p");
    for (const char* cond : {"idle", "under load"}) {
      for (ClientMode m : kWaitModes) {
        const Series* s = Find(r, "c", cond, m);
        if (s == nullptr || s->samples.empty()) continue;
        out += fmt::format("    {:<28} {:>5} {:>9} {:>14} {:>14} {:>10} {:>10} {:>11} {:>11}\n",
                           fmt::format("{}, {}", cond, ClientModeName(m)), s->samples.size(), Ms(Times(*s).median),
                           Span(RangeBy(*s, BackChunks)), Span(RangeBy(*s, ForwardChunks)),
                           fmt::format("{:g}", RangeBy(*s, BackBytes).median),
                           fmt::format("{:g}", RangeBy(*s, ForwardBytes).median), Ms(RangeBy(*s, BackApplied).median),
                           Ms(RangeBy(*s, ForwardApplied).median));
        out += fmt::format("      largest applied delay each way, summed: median {} ms, against the time measured "
                           "{} ms\n",
                           Ms(RangeBy(*s, MaxAppliedBothWays).median), Ms(Times(*s).median));
      }
    }
    out += fmt::format("    under load: {} background SETs answered ({} errors) at {:g}/s on a connection of their "
                       "own to the primary\n",
                       r.background_writes, r.background_errors, o.load_rate);
  }
  return out + "    p->r: primary -> replica (the relay's target -> client), r->p: replica -> primary; medians "
               "[min..max] per operation; applied: the relay's applied delay summed over the operation's chunks "
               "(ms)\n"
               "    does not prove: how a network frames traffic. A chunk is what one read returned at the relay, "
               "so the counts show how the kernel and Redis coalesced writes here; delays of overlapping chunks "
               "add up in the sums, which is why those can exceed the time measured\n";
}

std::string BlockD(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    for (int64_t d : o.distances_ns) {
      const CellFigures head = FiguresOf(0, d);
      out += fmt::format("    one-way {}, round trip {} ms (2 x one-way, as configured)\n", DistanceText(d),
                         Ms(head.round_trip_ns));
      out += fmt::format("      {:<12} {:<11} {:>5} {:>9} {:>11} {:>9} {:>9} {:>8}\n", "relay", "client", "N", "cost ms",
                         "cost - RTT", "min", "max", "WAIT!=1");
      for (const char* mode : {"pipelined", "serializing"}) {
        for (ClientMode m : kWaitModes) {
          const Series* s = Find(r, "d", DistanceText(d) + " " + mode, m);
          if (s == nullptr || s->samples.empty()) continue;
          const Range t = Times(*s);
          const CellFigures f = FiguresOf(t.median, d);
          out += fmt::format("      {:<12} {:<11} {:>5} {:>9} {:>11} {:>9} {:>9} {:>8}\n", mode, ClientModeName(m), t.n,
                             Ms(f.cost_ns), SignedMs(f.over_round_trip_ns), Ms(t.min), Ms(t.max),
                             s->waits() - s->ones());
        }
      }
      for (ClientMode m : kWaitModes) {
        double diff = 0;
        if (!Difference(Find(r, "d", DistanceText(d) + " pipelined", m), Find(r, "d", DistanceText(d) + " serializing", m),
                        &diff)) {
          continue;
        }
        const ModeDifference md = DifferenceOf(diff, 0, d);
        out += fmt::format("      serializing - pipelined, {} client: {} ms = {:.2f} one-way delays\n",
                           ClientModeName(m), SignedMs(md.difference_ns), md.in_one_way);
      }
      // The mechanism needs two chunks: SET's propagation and the GETACK after it. When the
      // relay read both in one (it woke later than the ~0.1 ms between them), the serializing
      // relay sends them together and adds nothing: counted, so a small difference says why.
      if (const Series* s = Find(r, "d", DistanceText(d) + " serializing", ClientMode::kSequential);
          s != nullptr && !s->samples.empty()) {
        const auto one = std::count_if(s->samples.begin(), s->samples.end(),
                                       [](const OpSample& o) { return o.repl.back.chunks == 1; });
        out += fmt::format("      serializing relay, sequential client: {} of {} operations had SET's propagation "
                           "and its GETACK read as one chunk (no second one-way delay for those)\n",
                           one, s->samples.size());
      }
    }
  }
  return out + "    does not prove: what a network between datacenters does. The relay delays each chunk by a "
               "fixed time, in order: no queues, loss, jitter or bandwidth limit (it is not netem); the round trip "
               "is the configured one, the cost is measured\n";
}

std::string BlockE(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    out += fmt::format("    {:<9} {:>5} {:>11} {:>11} {:>15} {:>9} {:>15}\n", "one-way", "N", "direct ms",
                       "relay ms", "relay - direct", "RTT ms", "relay - RTT");
    for (int64_t d : o.distances_ns) {
      const Series* direct = Find(r, "e", DistanceText(d), ClientMode::kGet, "direct");
      const Series* relayed = Find(r, "e", DistanceText(d), ClientMode::kGet, "relay");
      double diff = 0;
      if (!Difference(direct, relayed, &diff)) continue;
      const CellFigures f = FiguresOf(Times(*relayed).median, d);
      out += fmt::format("    {:<9} {:>5} {:>11} {:>11} {:>15} {:>9} {:>15}\n", DistanceText(d), relayed->samples.size(),
                         Ms(Times(*direct).median), Ms(f.cost_ns), SignedMs(diff), Ms(f.round_trip_ns),
                         SignedMs(f.over_round_trip_ns));
    }
  }
  return out + "    does not prove: how a remote client's pipelines or large replies fare. A GET is one request "
               "chunk and one reply chunk: this checks that the relay adds its round trip and little else\n";
}

std::string DirectionRow(const char* link, const char* direction, const RelayDirectionStats& d) {
  if (d.chunks == 0) return "";
  const HdrHistogram& a = d.applied_ns;
  const HdrHistogram& x = d.extra_ns;
  return fmt::format("      {:<12} {:<17} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}\n", link, direction, d.chunks,
                     Us(static_cast<double>(a.min())), Us(static_cast<double>(a.ValueAtPercentile(50))),
                     Us(static_cast<double>(a.max())), Us(static_cast<double>(x.ValueAtPercentile(50))),
                     Us(static_cast<double>(x.ValueAtPercentile(99))), Us(static_cast<double>(x.max())));
}

std::string BlockF(const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    for (const RelayRun& rr : r.relays) {
      out += fmt::format("    ({}) {}: {}\n", rr.block, rr.condition, rr.settings);
      out += fmt::format("      {:<12} {:<17} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}\n", "link", "direction",
                         "chunks", "applied min", "p50", "max", "added p50", "p99", "max");
      if (rr.during.links.size() < 2) continue;
      out += DirectionRow("replication", "primary->replica", rr.during.links[0].back);
      out += DirectionRow("replication", "replica->primary", rr.during.links[0].forward);
      out += DirectionRow("client", "client->primary", rr.during.links[1].forward);
      out += DirectionRow("client", "primary->client", rr.during.links[1].back);
    }
  }
  return out + "    microseconds per chunk, over each measured stretch only (the link's re-sync left out); applied: "
               "the delay the chunk got (leave - read); added: leave - intended leave, the timer's overshoot and "
               "the loop's own work\n"
               "    does not prove: the time after the relay's send. The kernel's loopback and the receiver's "
               "wake-up come after the moment measured\n";
}

std::string ChecksBlock(const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    for (const LinkCheck& c : r.checks) out += fmt::format("    {}: {}\n", c.label, c.Describe());
    out += fmt::format("    the run took {:.1f} s\n", r.seconds);
  }
  return out.empty() ? "    nothing ran\n" : out;
}

// The WAIT invariant of one run: operations that answered 1 == WAIT operations.
Invariant WaitInvariant(const StretchedRun& r) {
  int64_t waits = 0, ones = 0;
  for (const Series& s : r.series) {
    waits += s.waits();
    ones += s.ones();
  }
  Invariant i = MakeInvariant("WAIT answers of 1", ones, "WAIT operations", waits);
  i.name = fmt::format("run {}: every WAIT 1 answers 1", r.run);
  return i;
}

std::map<std::string, int64_t> OtherAnswers(const StretchedRun& r) {
  std::map<std::string, int64_t> out;
  for (const Series& s : r.series) {
    for (const auto& [k, n] : s.other_answers()) out[k] += n;
  }
  return out;
}

std::string InvariantBlock(const std::vector<StretchedRun>& runs, const std::vector<Invariant>& inv) {
  std::string out;
  for (size_t i = 0; i < runs.size(); ++i) {
    out += "    " + inv[i].Describe() + "\n";
    const auto other = OtherAnswers(runs[i]);
    if (other.empty()) out += "    other answers: none\n";
    for (const auto& [k, n] : other) out += fmt::format("    other answer {}: {} times\n", k, n);
  }
  return out.empty() ? "    nothing ran\n" : out;
}

// Key figures over the runs (docs/method.md rule 8).
std::string RangesBlock(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs) {
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  auto add = [&](const std::string& name, const Series* a, const Series* b) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& p) { return p.first == name; });
    if (it == rows.end()) it = rows.insert(rows.end(), {name, {}});
    double d = 0;
    if (Difference(a, b, &d)) it->second.push_back(d);
  };
  for (const StretchedRun& r : runs) {
    for (ClientMode m : kWaitModes) {
      add(fmt::format("(b) without - with TCP_NODELAY, {}", ClientModeName(m)), Find(r, "b", "nodelay on", m),
          Find(r, "b", "nodelay off", m));
    }
    for (int64_t d : o.distances_ns) {
      for (ClientMode m : kWaitModes) {
        add(fmt::format("(d) {} serializing - pipelined, {}", DistanceText(d), ClientModeName(m)),
            Find(r, "d", DistanceText(d) + " pipelined", m), Find(r, "d", DistanceText(d) + " serializing", m));
      }
      add(fmt::format("(e) {} GET relay - direct", DistanceText(d)), Find(r, "e", DistanceText(d), ClientMode::kGet),
          Find(r, "e", DistanceText(d), ClientMode::kGet, "relay"));
    }
  }
  std::string out;
  for (const auto& [name, values] : rows) {
    if (values.empty()) continue;
    const Range g = RangeOf(values);
    out += fmt::format("    {:<52} {}\n", name, RangeText(g, SignedMs, "ms"));
  }
  return out;
}

json SeriesJson(const StretchedRun& r, const Series& s) {
  json j{{"run", r.run},        {"block", s.block},          {"condition", s.condition},
         {"client", ClientModeName(s.mode)}, {"path", s.path}, {"one_way_ns", s.one_way_ns},
         {"relay_mode", s.relay_mode}, {"nodelay", s.nodelay}, {"n", s.samples.size()},
         {"waits", s.waits()},  {"wait_ones", s.ones()},      {"other_answers", s.other_answers()}};
  if (!s.samples.empty()) {
    const Range t = Times(s);
    j["median_ns"] = t.median;
    j["min_ns"] = t.min;
    j["max_ns"] = t.max;
    if (s.one_way_ns >= 0) {
      j["replication_chunks_back"] = RangeJson(RangeBy(s, BackChunks));
      j["replication_chunks_forward"] = RangeJson(RangeBy(s, ForwardChunks));
      j["replication_bytes_back"] = RangeJson(RangeBy(s, BackBytes));
      j["replication_bytes_forward"] = RangeJson(RangeBy(s, ForwardBytes));
      j["replication_applied_back_ns"] = RangeJson(RangeBy(s, BackApplied));
      j["replication_applied_forward_ns"] = RangeJson(RangeBy(s, ForwardApplied));
    }
  }
  if (!s.failure.empty()) j["failure"] = s.failure;
  return j;
}

json DirectionJson(const char* link, const char* direction, const RelayDirectionStats& d) {
  return {{"link", link},
          {"direction", direction},
          {"chunks", d.chunks},
          {"bytes", d.bytes},
          {"applied_min_ns", d.applied_ns.min()},
          {"applied_p50_ns", d.applied_ns.ValueAtPercentile(50)},
          {"applied_max_ns", d.applied_ns.max()},
          {"extra_p50_ns", d.extra_ns.ValueAtPercentile(50)},
          {"extra_p99_ns", d.extra_ns.ValueAtPercentile(99)},
          {"extra_max_ns", d.extra_ns.max()}};
}

json RelayJson(const StretchedRun& r, const RelayRun& rr) {
  json dirs = json::array();
  if (rr.during.links.size() >= 2) {
    dirs.push_back(DirectionJson("replication", "primary->replica", rr.during.links[0].back));
    dirs.push_back(DirectionJson("replication", "replica->primary", rr.during.links[0].forward));
    dirs.push_back(DirectionJson("client", "client->primary", rr.during.links[1].forward));
    dirs.push_back(DirectionJson("client", "primary->client", rr.during.links[1].back));
  }
  return {{"run", r.run}, {"block", rr.block}, {"condition", rr.condition}, {"settings", rr.settings}, {"directions", dirs}};
}

json CheckJson(const StretchedRun& r, const LinkCheck& c) {
  return {{"run", r.run},
          {"label", c.label},
          {"via", c.via},
          {"master_link_status", c.master_link_status},
          {"connected_slaves", c.connected_replicas},
          {"primary_offset", c.primary_offset},
          {"replica_offset", c.replica_offset},
          {"waited_ms", c.waited_ms},
          {"full_syncs", c.full_syncs},
          {"partial_syncs", c.partial_syncs}};
}

// The derived figures of (b), (d) and (e), each from two measured medians.
void DerivedJson(const StretchedCacheOptions& o, const StretchedRun& r, json* nodelay, json* cells, json* modes,
                 json* calibration) {
  for (ClientMode m : kWriteModes) {
    const Series* off = Find(r, "b", "nodelay off", m);
    const Series* on = Find(r, "b", "nodelay on", m);
    double d = 0, base = 0;
    if (!Difference(on, off, &d)) continue;
    json j{{"run", r.run}, {"client", ClientModeName(m)}, {"off_median_ns", Times(*off).median},
           {"on_median_ns", Times(*on).median}, {"off_minus_on_ns", d}};
    if (Difference(Find(r, "a", "no relay", m), on, &base)) j["on_minus_no_relay_ns"] = base;
    nodelay->push_back(j);
  }
  for (int64_t dist : o.distances_ns) {
    for (ClientMode m : kWaitModes) {
      for (const char* mode : {"pipelined", "serializing"}) {
        const Series* s = Find(r, "d", DistanceText(dist) + " " + mode, m);
        if (s == nullptr || s->samples.empty()) continue;
        const CellFigures f = FiguresOf(Times(*s).median, dist);
        cells->push_back({{key::kRun, r.run}, {key::kOneWayNs, dist}, {key::kRelayMode, mode},
                          {key::kClient, ClientModeName(m)}, {key::kMedianNs, f.cost_ns},
                          {key::kRoundTripNs, f.round_trip_ns},
                          {"over_round_trip_ns", f.over_round_trip_ns}});
      }
      double diff = 0;
      if (Difference(Find(r, "d", DistanceText(dist) + " pipelined", m),
                     Find(r, "d", DistanceText(dist) + " serializing", m), &diff)) {
        const ModeDifference md = DifferenceOf(diff, 0, dist);
        const Series* serializing = Find(r, "d", DistanceText(dist) + " serializing", m);
        const auto one_chunk = std::count_if(serializing->samples.begin(), serializing->samples.end(),
                                             [](const OpSample& o) { return o.repl.back.chunks == 1; });
        modes->push_back({{"run", r.run}, {"one_way_ns", dist}, {"client", ClientModeName(m)},
                          {"serializing_minus_pipelined_ns", md.difference_ns}, {"in_one_way", md.in_one_way},
                          {"serializing_one_chunk_ops", one_chunk},
                          {"serializing_ops", serializing->samples.size()}});
      }
    }
    const Series* direct = Find(r, "e", DistanceText(dist), ClientMode::kGet, "direct");
    const Series* relayed = Find(r, "e", DistanceText(dist), ClientMode::kGet, "relay");
    double diff = 0;
    if (Difference(direct, relayed, &diff)) {
      const CellFigures f = FiguresOf(Times(*relayed).median, dist);
      calibration->push_back({{key::kRun, r.run}, {key::kOneWayNs, dist},
                              {"get_direct_median_ns", Times(*direct).median}, {key::kGetRelayMedianNs, f.cost_ns},
                              {"relay_minus_direct_ns", diff}, {key::kRoundTripNs, f.round_trip_ns},
                              {"relay_minus_round_trip_ns", f.over_round_trip_ns}});
    }
  }
}

void FillJson(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs, const std::vector<Invariant>& inv,
              ScenarioReport* report) {
  json series = json::array(), relays = json::array(), checks = json::array(), nodelay = json::array(),
       cells = json::array(), modes = json::array(), calibration = json::array(), run_list = json::array();
  int64_t waits = 0, ones = 0;
  std::map<std::string, int64_t> other;
  for (const StretchedRun& r : runs) {
    for (const Series& s : r.series) series.push_back(SeriesJson(r, s));
    for (const RelayRun& rr : r.relays) relays.push_back(RelayJson(r, rr));
    for (const LinkCheck& c : r.checks) checks.push_back(CheckJson(r, c));
    DerivedJson(o, r, &nodelay, &cells, &modes, &calibration);
    json rj{{"run", r.run}, {"seconds", r.seconds}, {"background_writes", r.background_writes},
            {"background_errors", r.background_errors}};
    if (!r.failure.empty()) rj["failure"] = r.failure;
    run_list.push_back(rj);
    const Invariant i = WaitInvariant(r);
    waits += i.rhs_value;
    ones += i.lhs_value;
    for (const auto& [k, n] : OtherAnswers(r)) other[k] += n;
  }
  std::vector<std::string> distances;
  for (int64_t d : o.distances_ns) distances.push_back(DistanceText(d));
  json& j = report->json;
  j["ops"] = o.ops;
  j["distances"] = distances;
  j["distances_ns"] = o.distances_ns;
  j["value_size"] = o.value_size;
  j["load_rate"] = o.load_rate;
  j["wait_timeout_ms"] = o.wait_timeout_ms;
  j["relay_realtime_priority"] = o.relay_realtime_priority;  // 0: the default scheduler (or SCHED_FIFO refused)
  j["relay_spin_ns"] = o.relay_spin_ns;
  j["estimate_seconds"] = EstimateSeconds(o.ops, o.distances_ns);
  j["run_list"] = run_list;
  j["series"] = series;
  j["nodelay"] = nodelay;
  j[key::kCells] = cells;
  j["mode_differences"] = modes;
  j[key::kCalibration] = calibration;
  j["relays"] = relays;
  j["link_checks"] = checks;
  j["wait"] = {{"operations", waits}, {"ones", ones}, {"other_answers", other}};
  json ij = json::array();
  for (const Invariant& i : inv) ij.push_back(i.ToJson());
  j["invariants"] = ij;
}

std::string Num(double v) { return fmt::format("{:.0f}", v); }

void FillTables(const std::vector<StretchedRun>& runs, const std::vector<Invariant>& inv, ScenarioReport* report) {
  Table samples{"samples",
                {"run", "block", "condition", "client", "path", "index", "position", "ns", "wait_reply",
                 "repl_chunks_primary_to_replica", "repl_chunks_replica_to_primary", "repl_bytes_primary_to_replica",
                 "repl_bytes_replica_to_primary", "repl_applied_ns_primary_to_replica",
                 "repl_applied_ns_replica_to_primary", "client_link_chunks_to_primary",
                 "client_link_chunks_from_primary"},
                {}};
  Table series{"series",
               {"run", "block", "condition", "client", "path", "one_way_ns", "relay_mode", "nodelay", "n", "median_ns",
                "min_ns", "max_ns", "waits", "wait_ones", "failure"},
               {}};
  Table relays{"relays",
               {"run", "block", "condition", "settings", "link", "direction", "chunks", "bytes", "applied_min_ns",
                "applied_p50_ns", "applied_max_ns", "extra_p50_ns", "extra_p99_ns", "extra_max_ns"},
               {}};
  Table checks{"link_checks",
               {"run", "label", "via", "master_link_status", "connected_slaves", "primary_offset", "replica_offset",
                "waited_ms", "full_syncs", "partial_syncs"},
               {}};
  for (const StretchedRun& r : runs) {
    const std::string run = std::to_string(r.run);
    for (const Series& s : r.series) {
      const Range t = Times(s);
      series.rows.push_back({run, s.block, s.condition, ClientModeName(s.mode), s.path, std::to_string(s.one_way_ns),
                             s.relay_mode, s.nodelay ? "true" : "false", std::to_string(s.samples.size()),
                             Num(t.median), Num(t.min), Num(t.max), std::to_string(s.waits()), std::to_string(s.ones()),
                             s.failure});
      for (const OpSample& o : s.samples) {
        samples.rows.push_back({run, s.block, s.condition, ClientModeName(s.mode), s.path, std::to_string(o.index),
                                std::to_string(o.position), std::to_string(o.ns),
                                o.wait == -1 ? "" : o.wait == -2 ? o.other : std::to_string(o.wait),
                                std::to_string(o.repl.back.chunks), std::to_string(o.repl.forward.chunks),
                                std::to_string(o.repl.back.bytes), std::to_string(o.repl.forward.bytes),
                                Num(o.repl.back.applied_sum_ns), Num(o.repl.forward.applied_sum_ns),
                                std::to_string(o.client.forward.chunks), std::to_string(o.client.back.chunks)});
      }
    }
    for (const RelayRun& rr : r.relays) {
      const json relay = RelayJson(r, rr);  // a named value: a range-for over a member of a temporary dangles
      for (const json& d : relay["directions"]) {
        std::vector<std::string> row = {run, rr.block, rr.condition, rr.settings, d["link"], d["direction"]};
        for (const char* k : {"chunks", "bytes", "applied_min_ns", "applied_p50_ns", "applied_max_ns", "extra_p50_ns",
                              "extra_p99_ns", "extra_max_ns"}) {
          row.push_back(std::to_string(d[k].get<int64_t>()));
        }
        relays.rows.push_back(row);
      }
    }
    for (const LinkCheck& c : r.checks) {
      checks.rows.push_back({run, c.label, c.via, c.master_link_status, std::to_string(c.connected_replicas),
                             std::to_string(c.primary_offset), std::to_string(c.replica_offset),
                             fmt::format("{:.1f}", c.waited_ms), std::to_string(c.full_syncs),
                             std::to_string(c.partial_syncs)});
    }
  }
  Table it{"invariants", {"invariant", "lhs_value", "rhs_value", "ok"}, {}};
  for (const Invariant& i : inv) {
    it.rows.push_back({i.name, std::to_string(i.lhs_value), std::to_string(i.rhs_value), i.ok() ? "true" : "false"});
  }
  report->tables = {series, samples, relays, checks, it};
}

void Describe(const StretchedCacheOptions& o, ScenarioReport* report) {
  std::vector<std::string> distances;
  for (int64_t d : o.distances_ns) distances.push_back(DistanceText(d));
  report->procedure = {
      "a fresh Redis primary and replica on loopback (the stand's single nodes); the replica does REPLICAOF the "
      "primary (block a) or the replication link (link 0) of a relay (memstand's own, src/relay) whose two links "
      "both lead to the primary (link 1: a client's, block e); "
      "each block starts a new relay with its settings, re-points the replica and checks INFO replication "
      "(master_link_status:up, the primary's master_repl_offset reached by the replica's slave_repl_offset) "
      "before it measures",
      fmt::format("memstand's own client (one connection to the primary, TCP_NODELAY) times each operation: SET "
                  "of {} random bytes; SET, then WAIT 1 {} after its reply (sequential); SET and WAIT 1 {} in one "
                  "write (pipelined client); {} operations per series, the series of a block interleaved, the "
                  "order reversed every round (A B C, C B A)",
                  o.value_size, o.wait_timeout_ms, o.wait_timeout_ms, o.ops),
      "(a) no relay; (b) relay at 0 ms with TCP_NODELAY off and on (the order swapped in even runs); "
      "(c) relay pipelined at the first distance, idle and under a background writer, with the relay's counts "
      "taken around every operation (Relay::Snapshot before and after)",
      fmt::format("(d) relay serializing and pipelined at one-way {} (the modes' order alternating by distance "
                  "and run), (e) in each pipelined cell: GET direct against GET through the relay's client link; "
                  "(f) the relay's per-chunk applied delay and overshoot over each measured stretch",
                  fmt::join(distances, ", ")),
      o.relay_realtime_priority > 0
          ? fmt::format("the relay's loop on SCHED_FIFO {}{}: it wakes as soon as a chunk arrives or is due, ahead of "
                        "the servers and the client (--relay-realtime, --relay-spin)",
                        o.relay_realtime_priority,
                        o.relay_spin_ns > 0 ? fmt::format(", polling the last {} before each chunk is due",
                                                          DistanceText(o.relay_spin_ns))
                                            : std::string())
          : std::string("the relay's loop on the default scheduler (--relay-realtime 0)")};
  report->limits = {
      "one machine, loopback: the relay is not a network (no queues, loss, reordering, jitter or bandwidth "
      "limit); the distance is a configured delay per chunk",
      "absolute times describe this platform (docs/method.md rule 1); differences of two medians measured "
      "in the same run are what survives",
      "one client connection, one operation at a time: nothing about throughput or many clients across distance",
      "Redis 'WAIT 1' says the replica received the write, not that it is durable there (no fsync, no AOF)",
      "the round trip is 2 x the configured one-way delay, never measured; the relay's own error is in (f)"};
}

void FillVerdict(const std::vector<StretchedRun>& runs, const std::vector<Invariant>& inv, bool interrupted,
                 ScenarioReport* report) {
  for (const StretchedRun& r : runs) {
    if (!r.failure.empty()) report->Mark(ScenarioVerdict::kFailed, fmt::format("run {}: {}", r.run, r.failure));
  }
  for (const Invariant& i : inv) {
    if (!i.ok()) report->Mark(ScenarioVerdict::kFailed, "invariant broken: " + i.Describe());
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the figures so far, marked partial");
}

}  // namespace

const char* ClientModeName(ClientMode mode) {
  switch (mode) {
    case ClientMode::kSet: return "set";
    case ClientMode::kSequential: return "sequential";
    case ClientMode::kPipelined: return "pipelined";
    case ClientMode::kGet: return "get";
  }
  return "?";
}

std::string Series::Name() const {
  return fmt::format("({}) {} {}{}", block, condition, ClientModeName(mode), path == "relay" ? " through the relay" : "");
}

int64_t Series::waits() const {
  return std::count_if(samples.begin(), samples.end(), [](const OpSample& o) { return o.wait != -1; });
}

int64_t Series::ones() const {
  return std::count_if(samples.begin(), samples.end(), [](const OpSample& o) { return o.wait == 1; });
}

std::map<std::string, int64_t> Series::other_answers() const {
  std::map<std::string, int64_t> out;
  for (const OpSample& o : samples) {
    if (o.wait == -1 || o.wait == 1) continue;
    ++out[o.wait == -2 ? o.other : "integer " + std::to_string(o.wait)];
  }
  return out;
}

void FillStretchedReport(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs, bool interrupted,
                         ScenarioReport* report) {
  std::vector<Invariant> inv;
  for (const StretchedRun& r : runs) inv.push_back(WaitInvariant(r));
  Describe(o, report);
  const std::string n = fmt::format("medians of {} operations per row", o.ops);
  report->blocks.push_back({"(a) No relay: the client and the replica on the primary directly (ms, " + n + ")", BlockA(runs)});
  report->blocks.push_back({"(b) Relay at 0 ms on the replication link, TCP_NODELAY off and on (ms, " + n + ")", BlockB(runs)});
  report->blocks.push_back({fmt::format("(c) Chunks per operation on the replication link, relay pipelined at {}: "
                                        "idle and under load",
                                        DistanceText(o.distances_ns.front())),
                            BlockC(o, runs)});
  report->blocks.push_back({"(d) Serializing against pipelined relay: write + WAIT 1 at each distance (" + n + ")",
                            BlockD(o, runs)});
  report->blocks.push_back({"(e) Calibration: GET through the relay's client link against direct (" + n + ")",
                            BlockE(o, runs)});
  report->blocks.push_back({"(f) The instrument measured: the relay's applied delay and overshoot per chunk (us)",
                            BlockF(runs)});
  report->blocks.push_back({"Invariant: WAIT 1 answers 1 on every operation (a broken one fails the run)",
                            InvariantBlock(runs, inv)});
  report->blocks.push_back({"Replication link before each block (INFO replication)", ChecksBlock(runs)});
  if (runs.size() > 1) report->blocks.push_back({"Ranges over the runs", RangesBlock(o, runs)});
  FillJson(o, runs, inv, report);
  FillTables(runs, inv, report);
  FillVerdict(runs, inv, interrupted, report);
}

}  // namespace memstand

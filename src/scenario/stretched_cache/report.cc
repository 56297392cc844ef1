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

// The series of `block`, `condition`, client `mode` and `path` through a relay in
// `relay_mode`: "" takes any (the conditions of (a), (b) and (d) name theirs), (c) and (e)
// run in both modes under the same condition and pass it.
const Series* Find(const StretchedRun& r, const std::string& block, const std::string& condition, ClientMode mode,
                   const std::string& path = "direct", const std::string& relay_mode = "") {
  for (const Series& s : r.series) {
    if (s.block == block && s.condition == condition && s.mode == mode && s.path == path &&
        (relay_mode.empty() || s.relay_mode == relay_mode)) {
      return &s;
    }
  }
  return nullptr;
}

const char* const kRelayModes[] = {"pipelined", "serializing"};

// Medians of a and b, both present and measured: b - a; else nothing.
bool Difference(const Series* a, const Series* b, double* out) {
  if (a == nullptr || b == nullptr || a->samples.empty() || b->samples.empty()) return false;
  *out = Times(*b).median - Times(*a).median;
  return true;
}

// The operations of a serializing relay's series whose primary -> replica traffic the
// relay read as one chunk: for the sequential client, SET's propagation and its GETACK
// together, so the relay added no second one-way delay (kMaxOneChunkPercent).
struct OneChunkCount {
  int64_t one_chunk = 0;
  int64_t ops = 0;
  bool within_limit() const { return OneChunkWithinLimit(one_chunk, ops); }
};

OneChunkCount OneChunkOf(const Series& s) {
  const auto one = std::count_if(s.samples.begin(), s.samples.end(),
                                 [](const OpSample& o) { return o.repl.back.chunks == 1; });
  return {static_cast<int64_t>(one), static_cast<int64_t>(s.samples.size())};
}

std::string OneChunkReason(const OneChunkCount& c) {
  return fmt::format("{} of {} operations ({:.1f}%) had SET's propagation and its GETACK read as one chunk, above "
                     "{}%: the relay could not keep them apart",
                     c.one_chunk, c.ops, 100.0 * static_cast<double>(c.one_chunk) / static_cast<double>(c.ops),
                     kMaxOneChunkPercent);
}

// Serializing - pipelined of one client at one distance of one run. Not valid: the
// sequential client's serializing series had more operations read as one chunk than
// kMaxOneChunkPercent allows (an instrument check: no figure, the run fails). The
// pipelined client's SET and WAIT leave in one write, so one chunk is its normal case
// (block (c)) and the check does not concern it.
struct ModeCell {
  double difference_ns = 0;
  OneChunkCount one_chunk;  // of the serializing series
  bool valid = true;
};

// false: either series is missing or has no operation.
bool ModeCellOf(const StretchedRun& r, int64_t one_way_ns, ClientMode m, ModeCell* out) {
  const Series* serializing = Find(r, "d", DistanceText(one_way_ns) + " serializing", m);
  if (!Difference(Find(r, "d", DistanceText(one_way_ns) + " pipelined", m), serializing, &out->difference_ns)) {
    return false;
  }
  out->one_chunk = OneChunkOf(*serializing);
  out->valid = m != ClientMode::kSequential || out->one_chunk.within_limit();
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

// One series of block (c): its chunks, bytes and applied delays each way per operation.
std::string ChunksRow(const Series& s, const char* relay, const std::string& label) {
  return fmt::format("    {:<12} {:<24} {:>5} {:>9} {:>14} {:>14} {:>10} {:>10} {:>11} {:>11}\n", relay, label,
                     s.samples.size(), Ms(Times(s).median), Span(RangeBy(s, BackChunks)),
                     Span(RangeBy(s, ForwardChunks)), fmt::format("{:g}", RangeBy(s, BackBytes).median),
                     fmt::format("{:g}", RangeBy(s, ForwardBytes).median), Ms(RangeBy(s, BackApplied).median),
                     Ms(RangeBy(s, ForwardApplied).median)) +
         fmt::format("      largest applied delay each way, summed: median {} ms, against the time measured {} ms\n",
                     Ms(RangeBy(s, MaxAppliedBothWays).median), Ms(Times(s).median));
}

std::string BlockC(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    out += fmt::format("    {:<12} {:<24} {:>5} {:>9} {:>14} {:>14} {:>10} {:>10} {:>11} {:>11}\n", "relay",
                       "condition, client", "N", "time ms", "chunks p->r", "chunks r->p", "bytes p->r", "bytes r->p",
                       "applied p->r", "applied r->p");
    for (const char* relay : kRelayModes) {
      for (const char* cond : {"idle", "under load"}) {
        for (ClientMode m : kWaitModes) {
          if (const Series* s = Find(r, "c", cond, m, "direct", relay); s != nullptr && !s->samples.empty()) {
            out += ChunksRow(*s, relay, fmt::format("{}, {}", cond, ClientModeName(m)));
          }
        }
      }
    }
    for (const auto& [relay, b] : r.background) {
      out += fmt::format("    under load, {} relay: {} background SETs answered ({} errors) at {:g}/s on a "
                         "connection of their own to the primary\n",
                         relay, b.writes, b.errors, o.load_rate);
    }
  }
  return out + "    p->r: primary -> replica (the relay's target -> client), r->p: replica -> primary; medians "
               "[min..max] per operation; applied: the relay's applied delay summed over the operation's chunks "
               "(ms)\n"
               "    does not prove: how a network frames traffic. A chunk is what one read returned at the relay, "
               "so the counts show how the kernel and Redis coalesced writes here; delays of overlapping chunks "
               "add up in the sums, which is why those can exceed the time measured\n";
}

// Block (d)'s serializing - pipelined lines of one distance. The mechanism needs two
// chunks: SET's propagation and the GETACK after it. When the relay read both in one (it
// woke later than the ~0.1 ms between them), the serializing relay sends them together
// and adds nothing: counted, so a small difference says why, and a cell where that
// happened beyond kMaxOneChunkPercent prints no figure.
std::string DifferenceLines(const StretchedRun& r, int64_t d) {
  std::string out;
  for (ClientMode m : kWaitModes) {
    ModeCell c;
    if (!ModeCellOf(r, d, m, &c)) continue;
    if (!c.valid) {
      out += fmt::format("      serializing - pipelined, {} client: not valid: {}; no figure\n", ClientModeName(m),
                         OneChunkReason(c.one_chunk));
      continue;
    }
    const ModeDifference md = DifferenceOf(c.difference_ns, 0, d);
    out += fmt::format("      serializing - pipelined, {} client: {} ms = {:.2f} one-way delays\n", ClientModeName(m),
                       SignedMs(md.difference_ns), md.in_one_way);
    if (m == ClientMode::kSequential) {
      out += fmt::format("      serializing relay, sequential client: {} of {} operations had SET's propagation "
                         "and its GETACK read as one chunk (no second one-way delay for those; at most {}% keep "
                         "the figure valid)\n",
                         c.one_chunk.one_chunk, c.one_chunk.ops, kMaxOneChunkPercent);
    }
  }
  return out;
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
      out += DifferenceLines(r, d);
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
    out += fmt::format("    {:<9} {:<12} {:>5} {:>11} {:>11} {:>15} {:>9} {:>15}\n", "one-way", "relay", "N",
                       "direct ms", "relay ms", "relay - direct", "RTT ms", "relay - RTT");
    for (int64_t d : o.distances_ns) {
      for (const char* relay : kRelayModes) {
        const Series* direct = Find(r, "e", DistanceText(d), ClientMode::kGet, "direct", relay);
        const Series* relayed = Find(r, "e", DistanceText(d), ClientMode::kGet, "relay", relay);
        double diff = 0;
        if (!Difference(direct, relayed, &diff)) continue;
        const CellFigures f = FiguresOf(Times(*relayed).median, d);
        out += fmt::format("    {:<9} {:<12} {:>5} {:>11} {:>11} {:>15} {:>9} {:>15}\n", DistanceText(d), relay,
                           relayed->samples.size(), Ms(Times(*direct).median), Ms(f.cost_ns), SignedMs(diff),
                           Ms(f.round_trip_ns), SignedMs(f.over_round_trip_ns));
      }
    }
  }
  return out + "    does not prove: how a remote client's pipelines or large replies fare. A GET is one request "
               "chunk and one reply chunk: this checks that the relay adds its round trip and little else\n";
}

// Block (f)'s columns, for its header and its rows alike.
constexpr char kBlockFColumns[] =
    "      {:<12} {:<17} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>7} {:>9} {:>9} {:>9} {:>7} {:>7} {:>7}\n";

std::string DirectionRow(const char* link, const char* direction, const RelayDirectionStats& d) {
  if (d.chunks == 0) return "";
  const HdrHistogram& a = d.applied_ns;
  const HdrHistogram& x = d.extra_ns;
  const HdrHistogram& l = d.read_late_ns;
  return fmt::format(
      kBlockFColumns, link,
      direction, d.chunks, Us(static_cast<double>(a.min())), Us(static_cast<double>(a.ValueAtPercentile(50))),
      Us(static_cast<double>(a.max())), Us(static_cast<double>(x.ValueAtPercentile(50))),
      Us(static_cast<double>(x.ValueAtPercentile(99))), Us(static_cast<double>(x.max())), d.stamped_reads,
      Us(static_cast<double>(l.ValueAtPercentile(50))), Us(static_cast<double>(l.ValueAtPercentile(99))),
      Us(static_cast<double>(l.max())), d.tap_reads, d.tap_splits, d.tap_fallbacks);
}

std::string BlockF(const std::vector<StretchedRun>& runs) {
  std::string out;
  for (const StretchedRun& r : runs) {
    out += RunPrefix(runs, r);
    for (const RelayRun& rr : r.relays) {
      out += fmt::format("    ({}) {}: {}\n", rr.block, rr.condition, rr.settings);
      out += fmt::format(
          kBlockFColumns,
          "link", "direction", "chunks", "applied min", "p50", "max", "added p50", "p99", "max", "stamped", "late p50",
          "p99", "max", "tap rd", "splits", "fallbk");
      if (rr.during.links.size() < 2) continue;
      out += DirectionRow("replication", "primary->replica", rr.during.links[0].back);
      out += DirectionRow("replication", "replica->primary", rr.during.links[0].forward);
      out += DirectionRow("client", "client->primary", rr.during.links[1].forward);
      out += DirectionRow("client", "primary->client", rr.during.links[1].back);
    }
  }
  return out + "    microseconds per chunk, over each measured stretch only (the link's re-sync left out); applied: "
               "the delay the chunk got (leave - arrival); added: leave - intended leave, the timer's overshoot and "
               "the loop's own work; stamped: reads that carried the kernel's receive stamp, late: read - "
               "arrival of the last byte read, the relay's wake-up, which no longer adds to the delay; tap rd: reads the "
               "segment tap covered (split at the TCP segments that arrived), splits: chunks made beyond one per read, "
               "fallbk: reads with bytes the tap did not cover (due from the read's stamp)\n"
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

// One row of the ranges block: a difference per run, and the runs whose cell was not
// valid (left out).
struct RangeRow {
  std::string name;
  std::vector<double> values;
  int not_valid = 0;
};

RangeRow& RowNamed(std::vector<RangeRow>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const RangeRow& p) { return p.name == name; });
  return it != rows.end() ? *it : rows.emplace_back(RangeRow{name, {}, 0});
}

// Key figures over the runs (docs/method.md rule 8); a (d) cell that is not valid is left
// out and counted.
std::string RangesBlock(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs) {
  std::vector<RangeRow> rows;
  auto add = [&](const std::string& name, const Series* a, const Series* b) {
    RangeRow& row = RowNamed(rows, name);
    double d = 0;
    if (Difference(a, b, &d)) row.values.push_back(d);
  };
  for (const StretchedRun& r : runs) {
    for (ClientMode m : kWaitModes) {
      add(fmt::format("(b) without - with TCP_NODELAY, {}", ClientModeName(m)), Find(r, "b", "nodelay on", m),
          Find(r, "b", "nodelay off", m));
    }
    for (int64_t d : o.distances_ns) {
      for (ClientMode m : kWaitModes) {
        RangeRow& row = RowNamed(rows, fmt::format("(d) {} serializing - pipelined, {}", DistanceText(d),
                                                   ClientModeName(m)));
        ModeCell c;
        if (!ModeCellOf(r, d, m, &c)) continue;
        if (c.valid) {
          row.values.push_back(c.difference_ns);
        } else {
          ++row.not_valid;
        }
      }
      for (const char* relay : kRelayModes) {
        add(fmt::format("(e) {} GET relay - direct, {} relay", DistanceText(d), relay),
            Find(r, "e", DistanceText(d), ClientMode::kGet, "direct", relay),
            Find(r, "e", DistanceText(d), ClientMode::kGet, "relay", relay));
      }
    }
  }
  std::string out;
  for (const RangeRow& row : rows) {
    const std::string left_out =
        row.not_valid > 0 ? fmt::format("{} run(s) not valid, left out", row.not_valid) : std::string();
    if (row.values.empty()) {
      if (!left_out.empty()) out += fmt::format("    {:<52} no figure: {}\n", row.name, left_out);
      continue;
    }
    const Range g = RangeOf(row.values);
    out += fmt::format("    {:<52} {}{}\n", row.name, RangeText(g, SignedMs, "ms"),
                       left_out.empty() ? "" : "; " + left_out);
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
          {"extra_max_ns", d.extra_ns.max()},
          {"stamped_reads", d.stamped_reads},
          {"read_late_p50_ns", d.read_late_ns.ValueAtPercentile(50)},
          {"read_late_p99_ns", d.read_late_ns.ValueAtPercentile(99)},
          {"read_late_max_ns", d.read_late_ns.max()},
          {"reads", d.reads},
          {"tap_reads", d.tap_reads},
          {"tap_splits", d.tap_splits},
          {"tap_fallbacks", d.tap_fallbacks}};
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

// One mode_differences[] entry: a not-valid cell has null figures and its reason.
json ModeDifferenceJson(const StretchedRun& r, int64_t one_way_ns, ClientMode m, const ModeCell& c) {
  json j{{"run", r.run}, {"one_way_ns", one_way_ns}, {"client", ClientModeName(m)}, {"valid", c.valid},
         {"serializing_minus_pipelined_ns", nullptr}, {"in_one_way", nullptr},
         {"serializing_one_chunk_ops", c.one_chunk.one_chunk}, {"serializing_ops", c.one_chunk.ops}};
  if (c.valid) {
    const ModeDifference md = DifferenceOf(c.difference_ns, 0, one_way_ns);
    j["serializing_minus_pipelined_ns"] = md.difference_ns;
    j["in_one_way"] = md.in_one_way;
  } else {
    j["not_valid"] = OneChunkReason(c.one_chunk);
  }
  return j;
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
        ModeCell c;
        const bool valid = std::string(mode) == "pipelined" || !ModeCellOf(r, dist, m, &c) || c.valid;
        const CellFigures f = FiguresOf(Times(*s).median, dist);
        // A serializing cell whose difference is not valid: its median is not the
        // serializing relay's either (the charts leave it out).
        cells->push_back({{key::kRun, r.run}, {key::kOneWayNs, dist}, {key::kRelayMode, mode},
                          {key::kClient, ClientModeName(m)}, {key::kMedianNs, f.cost_ns},
                          {key::kRoundTripNs, f.round_trip_ns}, {"over_round_trip_ns", f.over_round_trip_ns},
                          {key::kValid, valid}});
      }
      ModeCell c;
      if (ModeCellOf(r, dist, m, &c)) modes->push_back(ModeDifferenceJson(r, dist, m, c));
    }
    for (const char* relay : kRelayModes) {
      const Series* direct = Find(r, "e", DistanceText(dist), ClientMode::kGet, "direct", relay);
      const Series* relayed = Find(r, "e", DistanceText(dist), ClientMode::kGet, "relay", relay);
      double diff = 0;
      if (!Difference(direct, relayed, &diff)) continue;
      const CellFigures f = FiguresOf(Times(*relayed).median, dist);
      calibration->push_back({{key::kRun, r.run}, {key::kOneWayNs, dist}, {key::kRelayMode, relay},
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
    json rj{{"run", r.run}, {"seconds", r.seconds}};
    int64_t writes = 0, errors = 0;
    for (const auto& [relay, b] : r.background) {
      writes += b.writes;
      errors += b.errors;
      rj["background"][relay] = {{"writes", b.writes}, {"errors", b.errors}};
    }
    rj["background_writes"] = writes;  // both relay modes'
    rj["background_errors"] = errors;
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
  j["relay_segment_tap"] = o.relay_segment_tap;  // asked for; each relay's settings say whether it ran
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
                 "client_link_chunks_from_primary", "relay_mode"},
                {}};
  Table series{"series",
               {"run", "block", "condition", "client", "path", "one_way_ns", "relay_mode", "nodelay", "n", "median_ns",
                "min_ns", "max_ns", "waits", "wait_ones", "failure"},
               {}};
  Table relays{"relays",
               {"run", "block", "condition", "settings", "link", "direction", "chunks", "bytes", "applied_min_ns",
                "applied_p50_ns", "applied_max_ns", "extra_p50_ns", "extra_p99_ns", "extra_max_ns", "stamped_reads",
                "read_late_p50_ns", "read_late_p99_ns", "read_late_max_ns", "reads", "tap_reads", "tap_splits",
                "tap_fallbacks"},
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
                                std::to_string(o.client.forward.chunks), std::to_string(o.client.back.chunks),
                                s.relay_mode});
      }
    }
    for (const RelayRun& rr : r.relays) {
      const json relay = RelayJson(r, rr);  // a named value: a range-for over a member of a temporary dangles
      for (const json& d : relay["directions"]) {
        std::vector<std::string> row = {run, rr.block, rr.condition, rr.settings, d["link"], d["direction"]};
        for (const char* k : {"chunks", "bytes", "applied_min_ns", "applied_p50_ns", "applied_max_ns", "extra_p50_ns",
                              "extra_p99_ns", "extra_max_ns", "stamped_reads", "read_late_p50_ns", "read_late_p99_ns",
                              "read_late_max_ns", "reads", "tap_reads", "tap_splits", "tap_fallbacks"}) {
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
      "(c) relay pipelined and serializing at the first distance (the modes' order swapped in even runs), each "
      "idle and under a background writer, with the relay's counts taken around every operation "
      "(Relay::Snapshot before and after)",
      fmt::format("(d) relay serializing and pipelined at one-way {} (the modes' order alternating by distance "
                  "and run), (e) in each of those cells: GET direct against GET through the relay's client link; "
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

void FillVerdict(const StretchedCacheOptions& o, const std::vector<StretchedRun>& runs,
                 const std::vector<Invariant>& inv, bool interrupted, ScenarioReport* report) {
  for (const StretchedRun& r : runs) {
    if (!r.failure.empty()) report->Mark(ScenarioVerdict::kFailed, fmt::format("run {}: {}", r.run, r.failure));
  }
  // An instrument check (docs/method.md rule 20): a cell the relay could not measure.
  for (const StretchedRun& r : runs) {
    for (int64_t d : o.distances_ns) {
      ModeCell c;
      if (!ModeCellOf(r, d, ClientMode::kSequential, &c) || c.valid) continue;
      report->Mark(ScenarioVerdict::kFailed,
                   fmt::format("run {}, one-way {}: serializing - pipelined, sequential client not valid: the "
                               "serializing relay's {}",
                               r.run, DistanceText(d), OneChunkReason(c.one_chunk)));
    }
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
  report->blocks.push_back({fmt::format("(c) Chunks per operation on the replication link, relay pipelined and "
                                        "serializing at {}: idle and under load",
                                        DistanceText(o.distances_ns.front())),
                            BlockC(o, runs)});
  report->blocks.push_back({"(d) Serializing against pipelined relay: write + WAIT 1 at each distance (" + n + ")",
                            BlockD(o, runs)});
  report->blocks.push_back({"(e) Calibration: GET through the relay's client link against direct, both relay modes (" +
                                n + ")",
                            BlockE(o, runs)});
  report->blocks.push_back({"(f) The instrument measured: the relay's applied delay and overshoot per chunk (us)",
                            BlockF(runs)});
  report->blocks.push_back({"Invariant: WAIT 1 answers 1 on every operation (a broken one fails the run)",
                            InvariantBlock(runs, inv)});
  report->blocks.push_back({"Replication link before each block (INFO replication)", ChecksBlock(runs)});
  if (runs.size() > 1) report->blocks.push_back({"Ranges over the runs", RangesBlock(o, runs)});
  FillJson(o, runs, inv, report);
  FillTables(runs, inv, report);
  FillVerdict(o, runs, inv, interrupted, report);
}

}  // namespace memstand

#include "scenario/compute_locality/report.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/repeat.h"
#include "scenario/compute_locality/json.h"
#include "scenario/kit/ranges.h"
#include "stats/modality.h"
#include "workload/products.h"

namespace memstand {

using nlohmann::json;

namespace {

namespace key = compute_locality_json;

// min and max of one byte count over the timed calls.
std::pair<uint64_t, uint64_t> SpanOf(const PathRun& pr, uint64_t SocketBytes::*field) {
  std::pair<uint64_t, uint64_t> out{pr.first_bytes.app.*field, pr.first_bytes.app.*field};
  for (const PathSample& s : pr.samples) {
    out.first = std::min(out.first, s.app.*field);
    out.second = std::max(out.second, s.app.*field);
  }
  return out;
}

// Whether the app and kernel counts of every timed call agree.
bool CountsAgree(const PathRun& pr) {
  return std::all_of(pr.samples.begin(), pr.samples.end(), [](const PathSample& s) {
    return s.app.read == s.kernel.received && s.app.written == s.kernel.acked;
  });
}

// A line when the byte counts differ between calls (framing that widens), else "".
std::string BytesSpanNote(const PathRun& pr) {
  const auto in = SpanOf(pr, &SocketBytes::read), out = SpanOf(pr, &SocketBytes::written);
  if (in.first == in.second && out.first == out.second) return "";
  return fmt::format("bytes in {}..{}, out {}..{} over the calls{}", in.first, in.second, out.first, out.second,
                     pr.path.system == "tarantool" ? " (IPROTO's sync grows by one a request; its MessagePack "
                                                     "encoding widens at 128, 256 and 65,536)"
                                                   : "");
}

std::vector<double> Times(const PathRun& pr, int pass) {
  std::vector<double> out;
  for (const PathSample& s : pr.samples) {
    if (pass == 0 || s.pass == pass) out.push_back(static_cast<double>(s.ns));
  }
  return out;
}

std::string Ms(double ns) { return fmt::format("{:.3f}", ns / 1e6); }

// Per path: its figures, and its ratios against `base` (the system's naive path).
struct PathFigures {
  const PathRun* pr = nullptr;
  Range all, pass1, pass2;
  bool timed = false;
  double bytes_per_object = 0;
};

PathFigures FiguresOf(const PathRun& pr) {
  PathFigures f;
  f.pr = &pr;
  if (!pr.samples.empty()) {
    f.timed = true;
    f.all = RangeOf(Times(pr, 0));
    auto p1 = Times(pr, 1), p2 = Times(pr, 2);
    if (!p1.empty()) f.pass1 = RangeOf(p1);
    if (!p2.empty()) f.pass2 = RangeOf(p2);
  }
  if (pr.first.objects > 0) f.bytes_per_object = double(pr.first_bytes.app.read) / double(pr.first.objects);
  return f;
}

struct Ratios {
  double objects = 0, bytes_in = 0, bytes_per_object = 0, time = 0;
};

Ratios RatiosOf(const PathFigures& base, const PathFigures& p) {
  Ratios r;
  if (p.pr->first.objects > 0) r.objects = double(base.pr->first.objects) / double(p.pr->first.objects);
  if (p.pr->first_bytes.app.read > 0) {
    r.bytes_in = double(base.pr->first_bytes.app.read) / double(p.pr->first_bytes.app.read);
  }
  if (p.bytes_per_object > 0) r.bytes_per_object = base.bytes_per_object / p.bytes_per_object;
  if (base.timed && p.timed && p.all.median > 0) r.time = base.all.median / p.all.median;
  return r;
}

// "bytes in 5012.3x = objects 3327.6x x bytes per object 1.5x"
std::string Identity(const Ratios& r) {
  return fmt::format("bytes in {:.1f}x = objects {:.1f}x * bytes per object {:.3f}x", r.bytes_in, r.objects,
                     r.bytes_per_object);
}

const PathRun* Find(const SystemRun& sr, const std::string& name) {
  for (const PathRun& pr : sr.paths) {
    if (pr.path.name == name) return &pr;
  }
  return nullptr;
}

// The comparisons that answer the question, per system: each a (naive-side, local-side) pair.
struct Pair {
  const char* label;
  const char* a;
  const char* b;
  const char* reading;
};

std::vector<Pair> PairsOf(const std::string& system) {
  if (system == "tarantool") {
    return {{"as published", "naive", "local",
             "five things differ at once: where, algorithm, cardinality, shape, serialization"},
            {"control 1a, aligned shape (id, title, views)", "naive-short", "local",
             "bytes per object about 1: what remains is cardinality"},
            {"control 1b, aligned shape (full records)", "naive", "local-full",
             "bytes per object about 1: what remains is cardinality"},
            {"control 2, aligned algorithm", "local-scan", "local",
             "both on the server, same output: index walk vs scan and sort, the time of the algorithm"}};
  }
  if (system == "postgresql") {
    return {{"control 3, no colocated compute (ORDER BY ... LIMIT, full records)", "naive", "local",
             "the cardinality effect of a classic DBMS's own query, without stored code"},
            {"control 3 with the short shape (id, title, views)", "naive-short", "local-short",
             "the same on a smaller record"}};
  }
  return {{"as published (records in full on both sides)", "naive", "local",
           "the shape is already aligned: the bytes ratio is cardinality"},
          {"control 1, aligned shape (id, title, views)", "naive-short", "local-short",
           "bytes per object about 1 again, on a smaller record"}};
}

std::string PathTable(const SystemRun& sr) {
  std::string out = fmt::format("      {:<12} {:>7} {:>22} {:>18} {:>10} {:>10} {:>19} {:>30}\n", "path", "objects",
                                "bytes in (app/kernel)", "bytes out (app/k)", "median ms", "A-B / B-A",
                                "min / max ms", "vs naive: obj  bytes  b/obj  time");
  const PathRun* naive = Find(sr, "naive");
  const PathFigures base = naive != nullptr ? FiguresOf(*naive) : PathFigures{};
  for (const PathRun& pr : sr.paths) {
    if (!pr.failure.empty()) {
      out += fmt::format("      {:<12} FAILED: {}\n", pr.path.name, pr.failure);
      continue;
    }
    const PathFigures f = FiguresOf(pr);
    const Ratios r = naive != nullptr ? RatiosOf(base, f) : Ratios{};
    out += fmt::format("      {:<12} {:>7} {:>22} {:>18} {:>10} {:>10} {:>19} {:>11.1f}x {:>6.1f}x {:>5.2f}x {:>5.2f}x\n",
                       pr.path.name, pr.first.objects,
                       fmt::format("{}/{}", pr.first_bytes.app.read, pr.first_bytes.kernel.received),
                       fmt::format("{}/{}", pr.first_bytes.app.written, pr.first_bytes.kernel.acked),
                       f.timed ? Ms(f.all.median) : "-",
                       f.timed ? Ms(f.pass1.median) + "/" + (f.pass2.n > 0 ? Ms(f.pass2.median) : "-") : "-",
                       f.timed ? Ms(f.all.min) + " / " + Ms(f.all.max) : "-", r.objects, r.bytes_in,
                       r.bytes_per_object, r.time);
  }
  return out;
}

std::string PathLegend(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    out += fmt::format("      {:<12} {}; {}; top computed by the {}; {} round trip{}\n", pr.path.name,
                       pr.path.request, pr.path.shape, pr.path.where, pr.path.round_trips,
                       pr.path.round_trips == 1 ? "" : "s");
    for (const std::string& n : pr.id_notes) out += "        FAILED: " + n + "\n";
    const std::string span = BytesSpanNote(pr);
    if (!span.empty()) out += "        note: " + span + "\n";
  }
  return out;
}

std::string PairsText(const SystemRun& sr) {
  std::string out;
  for (const Pair& p : PairsOf(sr.name)) {
    const PathRun* a = Find(sr, p.a);
    const PathRun* b = Find(sr, p.b);
    if (a == nullptr || b == nullptr || !a->failure.empty() || !b->failure.empty()) continue;
    const PathFigures fa = FiguresOf(*a), fb = FiguresOf(*b);
    const Ratios r = RatiosOf(fa, fb);
    out += fmt::format("      {} ({} / {}): {}; time {:.2f}x\n        {}\n", p.label, p.a, p.b, Identity(r), r.time,
                       p.reading);
  }
  return out;
}

std::string BytesAgreement(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    if (!pr.failure.empty()) continue;
    const PathSample& s = pr.first_bytes;
    const int64_t in = int64_t(s.kernel.received) - int64_t(s.app.read);
    const int64_t o = int64_t(s.kernel.acked) - int64_t(s.app.written);
    if (in != 0 || o != 0 || !CountsAgree(pr)) {
      out += fmt::format("      {}: kernel - app = {} bytes in, {} bytes out on the first call{} (the kernel "
                         "counts TCP payload; a difference means bytes outside the call's window)\n",
                         pr.path.name, in, o, CountsAgree(pr) ? "" : "; some timed calls differ too (samples.csv)");
    }
  }
  return out.empty() ? "      both counts agree to the byte on every path (TCP payload == what memstand read "
                       "and wrote; the protocols' framing is in both)\n"
                     : out;
}

// The paths' requests through the standard client library: its answer and the kernel's
// bytes of its socket beside memstand's (libpq sends the same simple Query message, so
// the two match unless a reader or a framing differs).
std::string ReferenceText(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    if (!pr.reference_failure.empty()) {
      out += fmt::format("      {}: FAILED through {}: {}\n", pr.path.name, pr.path.reference_library,
                         pr.reference_failure);
    }
    if (!pr.referenced) continue;
    const ReferenceCall& r = pr.reference;
    const bool same = r.call.ids == pr.first.ids && r.call.objects == pr.first.objects;
    out += fmt::format("      {:<12} {} objects, {}; kernel bytes received {} acked {} (memstand's client: {} / {})\n",
                       pr.path.name, r.call.objects, same ? "the same ids" : "OTHER ids or objects than memstand's",
                       r.kernel.received, r.kernel.acked, pr.first_bytes.kernel.received, pr.first_bytes.kernel.acked);
  }
  return out;
}

std::string ModalityText(const SystemRun& sr) {
  std::string out;
  for (const PathRun& pr : sr.paths) {
    const ModalityResult m = DetectModes(Times(pr, 0));
    if (m.modes == 0) continue;
    if (m.multimodal) {
      std::string modes;
      for (double v : m.mode_values) modes += (modes.empty() ? "" : ", ") + Ms(v) + " ms";
      out += fmt::format("      {}: {} modes ({}): the median lands in one of them\n", pr.path.name, m.modes, modes);
    }
  }
  return out;
}

json PathJson(const PathRun& pr, const PathFigures& base, bool has_base) {
  const PathFigures f = FiguresOf(pr);
  json j{{key::kName, pr.path.name},      {"request", pr.path.request}, {"shape", pr.path.shape},
         {"top_computed_by", pr.path.where}, {key::kRoundTrips, pr.path.round_trips}};
  if (!pr.failure.empty()) j[key::kFailure] = pr.failure;
  j[key::kObjects] = pr.first.objects;
  j["ids"] = pr.first.ids;
  j[key::kBytesIn] = pr.first_bytes.app.read;
  j[key::kBytesOut] = pr.first_bytes.app.written;
  j["kernel_bytes_received"] = pr.first_bytes.kernel.received;
  j["kernel_bytes_acked"] = pr.first_bytes.kernel.acked;
  j[key::kSamples] = pr.samples.size();
  if (f.timed) {
    j[key::kMedianNs] = f.all.median;
    j[key::kMinNs] = f.all.min;
    j[key::kMaxNs] = f.all.max;
    j["median_ns_pass1"] = f.pass1.median;
    j["median_ns_pass2"] = f.pass2.n > 0 ? json(f.pass2.median) : json(nullptr);
  }
  if (has_base) {
    const Ratios r = RatiosOf(base, f);
    j[key::kVsNaive] = {{key::kObjects, r.objects},
                        {key::kBytesIn, r.bytes_in},
                        {key::kBytesPerObject, r.bytes_per_object},
                        {key::kTime, r.time}};
  }
  const auto in = SpanOf(pr, &SocketBytes::read), out = SpanOf(pr, &SocketBytes::written);
  j["bytes_in_span"] = {in.first, in.second};
  j["bytes_out_span"] = {out.first, out.second};
  j["counts_agree_every_call"] = CountsAgree(pr);
  j["differing_calls"] = pr.id_notes;
  if (pr.referenced) {
    j["reference"] = {{"library", pr.path.reference_library},
                      {"objects", pr.reference.call.objects},
                      {"ids", pr.reference.call.ids},
                      {"kernel_bytes_received", pr.reference.kernel.received},
                      {"kernel_bytes_acked", pr.reference.kernel.acked}};
  } else if (!pr.reference_failure.empty()) {
    j["reference"] = {{"library", pr.path.reference_library}, {"failure", pr.reference_failure}};
  }
  return j;
}

std::vector<Invariant> CheckIds(const std::vector<std::vector<SystemRun>>& runs, const std::vector<uint32_t>& ref,
                                ScenarioReport* report) {
  std::vector<Invariant> out;
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const SystemRun& sr : runs[k]) {
      for (const PathRun& pr : sr.paths) {
        if (!pr.failure.empty()) continue;
        const std::string name = fmt::format("run {} {} {}", k + 1, sr.name, pr.path.name);
        out.push_back(SameIdsInvariant(name, pr.first.ids, "the dataset's", ref));
        if (pr.referenced) {
          const std::string via = name + " via " + pr.path.reference_library;
          out.push_back(SameIdsInvariant(via, pr.reference.call.ids, "the dataset's", ref));
          Invariant objects = MakeInvariant("objects via " + pr.path.reference_library, pr.reference.call.objects,
                                            "objects via memstand's reader", pr.first.objects);
          objects.name = via + " objects == memstand's";
          out.push_back(objects);
        }
        if (!pr.reference_failure.empty()) {
          report->Mark(ScenarioVerdict::kFailed,
                       fmt::format("{} via {}: {}", name, pr.path.reference_library, pr.reference_failure));
        }
        for (const std::string& n : pr.id_notes) {
          report->Mark(ScenarioVerdict::kFailed, name + ": " + n);
        }
      }
    }
  }
  return out;
}

void FillVerdict(const std::vector<std::vector<SystemRun>>& runs, const std::vector<Invariant>& invariants,
                 bool interrupted, ScenarioReport* report) {
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const SystemRun& sr : runs[k]) {
      if (!sr.not_run.empty()) {
        if (k == 0) report->Mark(ScenarioVerdict::kPartial, sr.name + ": " + sr.not_run);
        continue;
      }
      if (!sr.failure.empty() && sr.failure != "interrupted") {  // a start the signal cut short
        report->Mark(ScenarioVerdict::kFailed, fmt::format("{} run {}: {}", sr.name, k + 1, sr.failure));
      }
      for (const PathRun& pr : sr.paths) {
        if (!pr.failure.empty()) {
          report->Mark(ScenarioVerdict::kFailed,
                       fmt::format("{} run {} {}: {}", sr.name, k + 1, pr.path.name, pr.failure));
        }
      }
    }
  }
  for (const Invariant& i : invariants) {
    if (!i.ok()) report->Mark(ScenarioVerdict::kFailed, "invariant broken: " + i.Describe());
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the figures so far, marked partial");
}

void Describe(const ComputeLocalityOptions& o, const ScenarioContext& ctx, ScenarioReport* report) {
  report->procedure = {
      fmt::format("one system at a time, a fresh server each: load products 1..{} (seed {}), {} records per "
                  "request (Tarantool: one EVAL of a msgpack array of field-wise tuples; Redis: MSET of the "
                  "records, MSET of their (id, title, views) form, ZADD per category)",
                  kProductCount, ctx.seed, o.load_batch),
      fmt::format("every path is called once untimed (its ids, objects and bytes), then {} times per pass, "
                  "paths interleaved (A B C ... A B C ...){}, all on the one control connection",
                  o.reps, o.swap_order ? ", then a second pass in reverse order (--swap-order)" : ""),
      "bytes per call: what memstand read and wrote on its own socket, and TCP_INFO tcpi_bytes_received / "
      "tcpi_bytes_acked of the same socket, before and after the call; time: the call and the client's "
      "part (decoding the reply, sorting on the naive paths)",
      fmt::format("ties: views descending, then id ascending, on every path; the reference is the top {} "
                  "computed from the dataset itself",
                  o.top)};
  report->limits = {
      "one client on loopback on this machine: nothing about a network with a real round-trip time, where "
      "the naive paths' bytes would cost far more",
      "absolute times describe this platform (docs/method.md rule 1); the ratios of two paths on one "
      "connection in one run are what survives",
      "the bytes ratio factors exactly into objects x bytes per object; neither factor is the price of "
      "locality: the controls show what each one is",
      "Redis's local path is two round trips (ZREVRANGE, MGET); on loopback a round trip is microseconds",
      "PostgreSQL runs with fsync=off in a throwaway cluster: nothing here is about its durability"};
}

}  // namespace

std::string SystemBlock(const SystemRun& sr, const std::string& tag) {
  std::string out = fmt::format("    {}{} — {}\n", tag, sr.name,
                                sr.not_run.empty() ? sr.description : sr.not_run);
  if (!sr.not_run.empty()) return out;
  if (!sr.failure.empty()) return out + "      FAILED: " + sr.failure + "\n";
  out += fmt::format("      loaded {} records in {:.1f} s\n", kProductCount, sr.load_s);
  out += PathTable(sr) + PathLegend(sr) + "    bytes, both counts:\n" + BytesAgreement(sr) +
         "    the ratios, and the identity (each factor measured, the product exact):\n" + PairsText(sr);
  const std::string reference = ReferenceText(sr);
  if (!reference.empty()) {
    out += fmt::format("    the same requests through {}, once each, untimed (a check of memstand's reader and "
                       "byte count):\n",
                       sr.paths.empty() ? "the standard client" : sr.paths[0].path.reference_library) +
           reference;
  }
  const std::string modes = ModalityText(sr);
  if (!modes.empty()) out += "    multimodal timings (docs/method.md rule 9):\n" + modes;
  return out;
}

std::string IdsText(const std::vector<uint32_t>& ids) {
  std::string out;
  for (uint32_t id : ids) {
    if (!out.empty()) out += ", ";
    out += std::to_string(id);
  }
  return out;
}

json SystemJson(const SystemRun& sr, int run) {
  json j{{key::kName, sr.name}, {key::kRun, run}, {"server", sr.description}};
  if (!sr.not_run.empty()) j[key::kNotRun] = sr.not_run;
  if (!sr.failure.empty()) j[key::kFailure] = sr.failure;
  j["load_seconds"] = sr.load_s;
  const PathRun* naive = Find(sr, "naive");
  const PathFigures base = naive != nullptr ? FiguresOf(*naive) : PathFigures{};
  json paths = json::array();
  for (const PathRun& pr : sr.paths) paths.push_back(PathJson(pr, base, naive != nullptr));
  j[key::kPaths] = paths;
  json pairs = json::array();
  for (const Pair& p : PairsOf(sr.name)) {
    const PathRun* a = Find(sr, p.a);
    const PathRun* b = Find(sr, p.b);
    if (a == nullptr || b == nullptr) continue;
    const Ratios r = RatiosOf(FiguresOf(*a), FiguresOf(*b));
    pairs.push_back({{key::kLabel, p.label}, {key::kA, p.a}, {key::kB, p.b}, {key::kObjects, r.objects},
                     {key::kBytesIn, r.bytes_in}, {key::kBytesPerObject, r.bytes_per_object}, {key::kTime, r.time},
                     {"reading", p.reading}});
  }
  j[key::kPairs] = pairs;
  return j;
}

void FillTables(const std::vector<std::vector<SystemRun>>& runs, const std::vector<Invariant>& invariants,
                ScenarioReport* report) {
  Table samples{key::kSamplesTable,
                {key::kColumnRun, key::kColumnSystem, key::kColumnPath, "pass", "rep", "position", key::kColumnNs,
                 "objects", "bytes_in", "bytes_out", "kernel_bytes_received", "kernel_bytes_acked"},
                {}};
  Table paths{"paths",
              {"run", "system", "path", "objects", "bytes_in", "bytes_out", "kernel_bytes_received",
               "kernel_bytes_acked", "median_ns", "min_ns", "max_ns", "round_trips", "ids", "status"},
              {}};
  for (size_t k = 0; k < runs.size(); ++k) {
    const std::string run = std::to_string(k + 1);
    for (const SystemRun& sr : runs[k]) {
      if (!sr.not_run.empty() || !sr.failure.empty()) {
        paths.rows.push_back({run, sr.name, "", "", "", "", "", "", "", "", "", "", "",
                              sr.not_run.empty() ? "failed: " + sr.failure : sr.not_run});
      }
      for (const PathRun& pr : sr.paths) {
        const PathFigures f = FiguresOf(pr);
        const PathSample& b = pr.first_bytes;
        paths.rows.push_back({run, sr.name, pr.path.name, std::to_string(pr.first.objects),
                              std::to_string(b.app.read), std::to_string(b.app.written),
                              std::to_string(b.kernel.received), std::to_string(b.kernel.acked),
                              f.timed ? fmt::format("{:.0f}", f.all.median) : "",
                              f.timed ? fmt::format("{:.0f}", f.all.min) : "",
                              f.timed ? fmt::format("{:.0f}", f.all.max) : "", std::to_string(pr.path.round_trips),
                              IdsText(pr.first.ids), pr.failure.empty() ? "ok" : "failed: " + pr.failure});
        for (const PathSample& s : pr.samples) {
          samples.rows.push_back({run, sr.name, pr.path.name, std::to_string(s.pass), std::to_string(s.rep),
                                  std::to_string(s.position), std::to_string(s.ns), std::to_string(s.objects),
                                  std::to_string(s.app.read), std::to_string(s.app.written),
                                  std::to_string(s.kernel.received), std::to_string(s.kernel.acked)});
        }
      }
    }
  }
  Table inv{"invariants", {"invariant", "lhs_value", "rhs_value", "ok"}, {}};
  for (const Invariant& i : invariants) {
    inv.rows.push_back({i.name, std::to_string(i.lhs_value), std::to_string(i.rhs_value), i.ok() ? "true" : "false"});
  }
  report->tables = {paths, samples, inv};
}

// Time ratios against naive over the runs (docs/method.md rule 8: the range carries its N).
std::string RangesText(const std::vector<std::vector<SystemRun>>& runs) {
  std::map<std::string, std::vector<double>> by_path;
  std::map<std::string, std::vector<int64_t>> objects;
  std::vector<std::string> order;
  for (const auto& run : runs) {
    for (const SystemRun& sr : run) {
      const PathRun* naive = Find(sr, "naive");
      if (naive == nullptr || !sr.failure.empty()) continue;
      const PathFigures base = FiguresOf(*naive);
      for (const PathRun& pr : sr.paths) {
        const Ratios r = RatiosOf(base, FiguresOf(pr));
        if (r.time <= 0) continue;
        const std::string key = sr.name + " " + pr.path.name;
        objects[key].push_back(pr.first.objects);
        if (by_path[key].empty()) order.push_back(key);
        by_path[key].push_back(r.time);
      }
    }
  }
  std::string out;
  for (const std::string& key : order) {
    const Range r = RangeOf(by_path[key]);
    const std::vector<int64_t>& o = objects[key];
    const bool same = std::all_of(o.begin(), o.end(), [&](int64_t v) { return v == o[0]; });
    out += fmt::format("    {}: time vs naive {}; objects {}\n", key, RangeText(r, "{:.2f}x"),
                       same ? fmt::format("{} in every run", o[0]) : "DIFFER between runs (samples.csv)");
  }
  return out;
}

void FillComputeLocalityReport(const ComputeLocalityOptions& o, const ScenarioContext& ctx,
                               const std::vector<uint32_t>& ref, const std::vector<std::vector<SystemRun>>& runs,
                               ScenarioReport* report) {
  const std::vector<Invariant> invariants = CheckIds(runs, ref, report);
  Describe(o, ctx, report);
  if (!runs.empty()) {
    for (const SystemRun& sr : runs[0]) {
      report->configuration_lines.push_back(sr.name + ": " + (sr.not_run.empty() ? sr.description : sr.not_run));
      if (!sr.config_text.empty()) report->files["servers/" + sr.name + ".conf"] = sr.config_text;
    }
  }
  std::string results;
  json systems = json::array();
  for (size_t k = 0; k < runs.size(); ++k) {
    for (const SystemRun& sr : runs[k]) {
      results += SystemBlock(sr, runs.size() > 1 ? fmt::format("run {}: ", k + 1) : "");
      systems.push_back(SystemJson(sr, static_cast<int>(k + 1)));
    }
  }
  report->blocks.push_back({fmt::format("Per system: {} reps per pass; ratios are naive / path", o.reps),
                            results.empty() ? "    nothing ran\n" : results});
  if (runs.size() > 1) report->blocks.push_back({"Ranges over the runs", RangesText(runs)});
  std::string inv_text = fmt::format("    the top {} of '{}' (views descending, then id ascending): {}\n", o.top,
                                     o.category, IdsText(ref));
  for (const Invariant& i : invariants) inv_text += "    " + i.Describe() + "\n";
  report->blocks.push_back({"Invariant: every path returns the same ids in the same order (a broken one fails "
                            "the run)",
                            inv_text});
  json inv = json::array();
  for (const Invariant& i : invariants) inv.push_back(i.ToJson());
  report->json["category"] = o.category;
  report->json["category_records"] = ProductCategoryCount(o.category);
  report->json["top"] = o.top;
  report->json["reps"] = o.reps;
  report->json["swap_order"] = o.swap_order;
  report->json["reference_ids"] = ref;
  report->json[key::kSystems] = systems;
  report->json["invariants"] = inv;
  FillTables(runs, invariants, report);
  FillVerdict(runs, invariants, ctx.interrupted(), report);
}

}  // namespace memstand

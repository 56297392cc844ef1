#include "scenario/working_set/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/repeat.h"
#include "scenario/kit/ranges.h"
#include "scenario/working_set/json.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = working_set_json;

std::string Num(int64_t v) { return std::to_string(v); }

// Writes a second of each portion: its writes over the time from its first send to its
// last reply (0 when the portion took no measurable time).
std::vector<double> PortionRates(const WorkingSetConfigRun& r) {
  std::vector<double> out;
  int64_t before = 0;
  for (const WorkingSetPortion& p : r.portions) {
    out.push_back(p.seconds > 0 ? double(p.written - before) / p.seconds : 0.0);
    before = p.written;
  }
  return out;
}

// The first event of either kind (eviction or rejection): its portion, or none.
std::optional<Interval> FirstEvent(const WorkingSetConfigRun& r) {
  std::optional<Interval> first = r.eviction_in;
  if (r.rejection_in && (!first || r.rejection_in->low < first->low)) first = r.rejection_in;
  return first;
}

// The index in r.portions of the portion that ends at `high` writes, or -1.
int PortionEndingAt(const WorkingSetConfigRun& r, int64_t high) {
  for (size_t i = 0; i < r.portions.size(); ++i) {
    if (r.portions[i].written == high) return static_cast<int>(i);
  }
  return -1;
}

json RunJson(const WorkingSetConfigRun& r, int run, int writers) {
  json j{{key::kRun, run}, {"ok", r.failure.empty() && r.invariants_ok()}};
  if (!r.failure.empty()) j["failure"] = r.failure;
  j[key::kAttempted] = r.attempted;
  j[key::kSuccessful] = r.successful;
  j[key::kRejected] = r.rejected;
  j[key::kEvicted] = r.final.evicted;
  j[key::kPresent] = r.final.present;
  j[key::kMemoryUsed] = r.final.memory;
  j[key::kOutcome] = r.outcome;
  j[key::kFirstError] = r.first_error.empty() ? json(nullptr) : json(r.first_error);
  j[key::kFirstRejectedWrite] = r.first_rejected_write == 0 ? json(nullptr) : json(r.first_rejected_write);
  auto interval = [](const std::optional<Interval>& i) {
    return i ? json::array({i->low, i->high}) : json(nullptr);
  };
  j["eviction_detected_in"] = interval(r.eviction_in);
  j["rejection_detected_in"] = interval(r.rejection_in);
  // The first event of either kind, and its exact write.
  const std::optional<Interval> first = FirstEvent(r);
  int64_t exact = r.exact_eviction;
  if (r.rejection_in && (!r.eviction_in || r.rejection_in->low < r.eviction_in->low)) {
    exact = writers == 1 ? r.first_rejected_write : 0;  // several writers: the replies' order, not exact
  }
  j[key::kDetectedIn] = interval(first);
  j[key::kExactPoint] = exact == 0 ? json(nullptr) : json(exact);
  j[key::kExactEviction] = r.exact_eviction == 0 ? json(nullptr) : json(r.exact_eviction);
  j["exact_note"] = r.exact_note;
  j["settle_ms"] = r.settle_ms;
  j["final_counters_steady"] = r.final_steady;
  j["unsteady_portions"] = r.unsteady_portions;
  j[key::kServerCounters] = r.final.raw;
  json inv = json::array();
  for (const Invariant& i : r.invariants) inv.push_back(i.ToJson());
  j["invariants"] = inv;
  json portions = json::array();
  const std::vector<double> rates = PortionRates(r);
  for (size_t i = 0; i < r.portions.size(); ++i) {
    const WorkingSetPortion& p = r.portions[i];
    portions.push_back({{key::kWritten, p.written}, {key::kSuccessful, p.successful}, {key::kRejected, p.rejected},
                        {key::kEvicted, p.counters.evicted}, {key::kPresent, p.counters.present},
                        {key::kMemoryUsed, p.counters.memory}, {key::kSeconds, p.seconds},
                        {key::kWritesPerS, rates[i]}});
  }
  j[key::kPortions] = portions;
  j[key::kReads] = r.reads ? WorkingSetReadsJson(*r.reads) : json(nullptr);
  return j;
}

// The figures of one configuration's runs as ranges (docs/method.md rule 8).
RepeatSummary SummaryOf(const WorkingSetConfiguration& st) {
  std::vector<RunFigures> runs;
  for (const WorkingSetConfigRun& r : st.runs) {
    RunFigures f;
    if (!r.failure.empty() || !r.invariants_ok()) {
      f.outcome = r.failure == "interrupted" ? RunOutcome::kInterrupted : RunOutcome::kFailed;
      f.reason = r.failure.empty() ? "an invariant broke" : r.failure;
    }
    auto add = [&](const char* key, int64_t v) { f.figures.push_back({st.config.name, key, key, double(v)}); };
    add("attempted", r.attempted);
    add("successful", r.successful);
    add("rejected", r.rejected);
    add("evicted", r.final.evicted);
    add("present", r.final.present);
    add("memory_used", r.final.memory);
    if (r.exact_eviction > 0) add("exact_eviction", r.exact_eviction);
    if (r.first_rejected_write > 0) add("first_rejected_write", r.first_rejected_write);
    if (r.reads) {
      add("read_hits", r.reads->hits);
      add("read_misses", r.reads->misses);
    }
    runs.push_back(std::move(f));
  }
  return Summarize(runs, static_cast<int>(runs.size()));
}

// Whether every completed run found the same exact point (eviction or rejection).
std::string SameEveryTime(const WorkingSetConfiguration& st, const char* what, int64_t WorkingSetConfigRun::*field) {
  std::vector<int64_t> points;
  for (const WorkingSetConfigRun& r : st.runs) {
    if (r.failure.empty() && r.*field > 0) points.push_back(r.*field);
  }
  if (points.size() < 2) return "";
  const bool same = std::all_of(points.begin(), points.end(), [&](int64_t p) { return p == points[0]; });
  return fmt::format("{} the same in all {} runs: {}", what, points.size(), same ? "yes" : "no");
}

std::string ResultsBlock(const std::vector<WorkingSetConfiguration>& states, int runs) {
  std::string out;
  for (const WorkingSetConfiguration& st : states) {
    out += fmt::format("    {} — {}\n", st.config.name, st.config.Describe());
    if (!st.not_run.empty()) {
      out += "      " + st.not_run + "\n";
      continue;
    }
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const WorkingSetConfigRun& r = st.runs[k];
      const std::string tag = runs > 1 ? fmt::format("run {}: ", k + 1) : "";
      if (!r.failure.empty()) {
        out += fmt::format("      {}FAILED: {}\n", tag, r.failure);
        continue;
      }
      out += fmt::format("      {}outcome {}: attempted {}, successful {}, rejected {}, evicted {}, "
                         "present {}, memory used {} bytes (final counters {} after {} ms)\n",
                         tag, r.outcome, r.attempted, r.successful, r.rejected, r.final.evicted,
                         r.final.present, r.final.memory, r.final_steady ? "steady" : "STILL MOVING",
                         r.settle_ms);
      if (r.unsteady_portions > 0) {
        out += fmt::format("        {} portion(s) read while the counters still moved after {} ms\n",
                           r.unsteady_portions, kWorkingSetPortionSettleTimeoutMs);
      }
      if (r.eviction_in) {
        out += fmt::format("        first eviction detected in {}; exact: {}\n", r.eviction_in->Describe(),
                           r.exact_note.empty() ? "not looked for (--no-exact)" : r.exact_note);
      }
      if (r.rejection_in) {
        out += fmt::format("        first rejection detected in {}; {}; error: {}\n", r.rejection_in->Describe(),
                           st.writers == 1
                               ? fmt::format("exact: write {} (one connection, replies in order)",
                                             r.first_rejected_write)
                               : fmt::format("around write {} (the order of the replies of {} writers, not "
                                             "exact)", r.first_rejected_write, st.writers),
                           r.first_error);
      }
      if (st.config.system == SystemKind::kTarantool && st.config.engine == "vinyl") {
        out += fmt::format("        on disk: {} bytes of data, {} of index (vinyl)\n",
                           r.final.raw.count(key::kVinylDiskData) ? r.final.raw.at(key::kVinylDiskData) : 0,
                           r.final.raw.count("vinyl_disk_index") ? r.final.raw.at("vinyl_disk_index") : 0);
      }
    }
    if (runs > 1) {
      RepeatSummary sum = SummaryOf(st);
      for (const FigureRange& f : sum.ranges) out += fmt::format("      {}: {}\n", f.key, RangeText(f.range, "{:.0f}"));
      out += fmt::format("      runs: {} ok, {} failed, {} interrupted (of {})\n", sum.ok, sum.failed,
                         sum.interrupted, sum.runs);
      for (const std::string& f : sum.failures) out += "        " + f + "\n";
      for (const std::string& line : {SameEveryTime(st, "exact eviction point", &WorkingSetConfigRun::exact_eviction),
                                      SameEveryTime(st, "first rejected write", &WorkingSetConfigRun::first_rejected_write)}) {
        if (!line.empty()) out += "      " + line + "\n";
      }
    }
  }
  return out;
}

// Each setting's failure point and the throughput around it: the portion of the first
// eviction or rejection, the writes a second of the portion before it and of its own,
// and of the whole load (the published study saw 10.4k to 29.3k/s and did not relate them).
std::string FailurePointBlock(const std::vector<WorkingSetConfiguration>& states, double rate) {
  std::string out = fmt::format("    {:<28} {:>7} {:>9} {:>22} {:>14} {:>14} {:>14}\n", "configuration", "writers",
                                "rate", "first event in", "before it /s", "its own /s", "whole load /s");
  for (const WorkingSetConfiguration& st : states) {
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const WorkingSetConfigRun& r = st.runs[k];
      if (!r.failure.empty() || r.portions.empty()) continue;
      const std::vector<double> rates = PortionRates(r);
      double seconds = 0;
      for (const WorkingSetPortion& p : r.portions) seconds += p.seconds;
      const std::string whole = seconds > 0 ? fmt::format("{:.0f}", double(r.attempted) / seconds) : "-";
      const std::optional<Interval> first = FirstEvent(r);
      std::string at = "none", before = "-", own = "-";
      if (first) {
        at = first->Describe();
        const int i = PortionEndingAt(r, first->high);
        if (i >= 0) own = fmt::format("{:.0f}", rates[static_cast<size_t>(i)]);
        if (i >= 1) before = fmt::format("{:.0f}", rates[static_cast<size_t>(i - 1)]);
      }
      const std::string name = st.runs.size() > 1 ? fmt::format("{} run {}", st.config.name, k + 1) : st.config.name;
      out += fmt::format("    {:<28} {:>7} {:>9} {:>22} {:>14} {:>14} {:>14}\n", name, st.writers,
                         rate > 0 ? fmt::format("{:g}/s", rate) : "as answered", at, before, own, whole);
    }
  }
  return out;
}

std::string InvariantsBlock(const std::vector<WorkingSetConfiguration>& states) {
  std::string out;
  for (const WorkingSetConfiguration& st : states) {
    for (size_t k = 0; k < st.runs.size(); ++k) {
      for (const Invariant& i : st.runs[k].invariants) {
        out += fmt::format("    {} run {}: {}\n", st.config.name, k + 1, i.Describe());
      }
      if (st.runs[k].invariants.empty() && st.runs[k].ran) {
        out += fmt::format("    {} run {}: not checked: the run did not complete\n", st.config.name, k + 1);
      }
    }
  }
  return out.empty() ? "    none checked: no configuration ran\n" : out;
}

void FillTables(const std::vector<WorkingSetConfiguration>& states, bool reads, ScenarioReport* report) {
  Table configs{"configurations",
                {"configuration", "system", "settings", "run", "status", "outcome", "attempted",
                 "successful", "rejected", "evicted", "present", "memory_used", "first_error",
                 "first_rejected_write", "eviction_detected_low", "eviction_detected_high",
                 "exact_eviction", "settle_ms"},
                {}};
  Table portions{"portions",
                 {"configuration", "run", "written", "successful", "rejected", "evicted", "present",
                  "memory_used", "seconds", "writes_per_s"},
                 {}};
  Table invariants{"invariants", {"configuration", "run", "invariant", "lhs_value", "rhs_value", "ok"}, {}};
  for (const WorkingSetConfiguration& st : states) {
    if (!st.not_run.empty()) {
      configs.rows.push_back({st.config.name, SystemName(st.config.system), st.config.Describe(), "",
                              st.not_run, "", "", "", "", "", "", "", "", "", "", "", "", ""});
    }
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const WorkingSetConfigRun& r = st.runs[k];
      const std::string run = Num(static_cast<int64_t>(k + 1));
      configs.rows.push_back(
          {st.config.name, SystemName(st.config.system), st.config.Describe(), run,
           r.failure.empty() ? (r.invariants_ok() ? "ok" : "invariant broken") : "failed: " + r.failure,
           r.outcome, Num(r.attempted), Num(r.successful), Num(r.rejected), Num(r.final.evicted),
           Num(r.final.present), Num(r.final.memory), r.first_error,
           r.first_rejected_write ? Num(r.first_rejected_write) : "",
           r.eviction_in ? Num(r.eviction_in->low) : "", r.eviction_in ? Num(r.eviction_in->high) : "",
           r.exact_eviction ? Num(r.exact_eviction) : "", Num(r.settle_ms)});
      const std::vector<double> rates = PortionRates(r);
      for (size_t i = 0; i < r.portions.size(); ++i) {
        const WorkingSetPortion& p = r.portions[i];
        portions.rows.push_back({st.config.name, run, Num(p.written), Num(p.successful), Num(p.rejected),
                                 Num(p.counters.evicted), Num(p.counters.present), Num(p.counters.memory),
                                 fmt::format("{:.6f}", p.seconds), fmt::format("{:.1f}", rates[i])});
      }
      for (const Invariant& i : r.invariants) {
        invariants.rows.push_back({st.config.name, run, i.name, Num(i.lhs_value), Num(i.rhs_value),
                                   i.ok() ? "true" : "false"});
      }
    }
  }
  report->tables = {configs, portions, invariants};
  if (reads) report->tables.push_back(WorkingSetReadsTable(states));
}

void FillVerdict(const std::vector<WorkingSetConfiguration>& states, bool interrupted, ScenarioReport* report) {
  for (const WorkingSetConfiguration& st : states) {
    if (!st.not_run.empty()) report->Mark(ScenarioVerdict::kPartial, st.config.name + ": " + st.not_run);
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const WorkingSetConfigRun& r = st.runs[k];
      if (r.failure == "interrupted") continue;
      if (!r.failure.empty()) {
        report->Mark(ScenarioVerdict::kFailed, fmt::format("{} run {}: {}", st.config.name, k + 1, r.failure));
      }
      for (const Invariant& i : r.invariants) {
        if (!i.ok()) {
          report->Mark(ScenarioVerdict::kFailed,
                       fmt::format("{} run {}: invariant broken: {}", st.config.name, k + 1, i.Describe()));
        }
      }
    }
  }
  if (interrupted) report->Mark(ScenarioVerdict::kInterrupted, "interrupted: the figures so far, marked partial");
}

}  // namespace

void FillWorkingSetReport(const WorkingSetOptions& o, uint64_t seed, const std::vector<WorkingSetConfiguration>& states,
                          bool interrupted, ScenarioReport* report) {
  for (const WorkingSetConfiguration& st : states) {
    report->configuration_lines.push_back(st.config.name + ": " +
                                         (st.not_run.empty() ? st.description : st.not_run));
    if (!st.config_text.empty()) report->files["servers/" + st.config.name + ".conf"] = st.config_text;
  }
  report->procedure = {
      fmt::format("load products records 1..{} (seed {}) in order, key product:<id>, value its JSON "
                  "line (Tarantool: tuple [id, JSON line]), in portions of {} writes, {}, pipeline {} each, {}",
                  o.records, seed, o.portion,
                  o.writers.size() == 1 && o.writers[0] == 1
                      ? std::string("one connection")
                      : fmt::format("{} writer(s) (connections taking the next record in turn), one fresh server "
                                    "per setting", fmt::join(o.writers, " and ")),
                  o.pipeline, o.rate > 0 ? fmt::format("{:g} writes a second in all (open loop)", o.rate)
                                         : std::string("as fast as the server answers")),
      "after every portion, poll the server's exact counters until two reads 20 ms apart agree "
      "(Redis INFO evicted_keys/used_memory + DBSIZE; memcached stats evictions/curr_items/bytes; "
      "Tarantool space:len() or vinyl count(), box.slab.info, box.stat.vinyl); no key is read back during the load",
      "first rejection: its portion, and the exact write from the order of the replies on one connection "
      "(with several writers the order of the replies, not exact)",
      "each portion's time from its first send to its last reply, and its writes a second",
      std::string("first eviction: its portion, then ") +
          (o.exact ? "a fresh server loaded to the portion's start and one write + one counter read at a "
                     "time through the portion"
                   : "no exact search (--no-exact)"),
      "every run starts fresh servers (nothing to settle between runs); the final counters are read "
      "after they stop moving (the wait is printed per run in the JSON as settle_ms)"};
  if (o.reads.distribution != ReadDistribution::kNone) {
    report->procedure.push_back(fmt::format(
        "after each configuration's load, before its server stops: {} reads by key of ids 1..attempted, {}, "
        "{:g} a second from fixed intended times, one at a time on the control connection (GET; get; "
        "Tarantool SELECT by the primary key); each reply a hit or a miss, timed from its send to its reply "
        "into the hit or the miss histogram; the server's own hit and miss counters read before and after; "
        "Tarantool vinyl: the primary index's counters read after every read, the read attributed to disk "
        "when disk.iterator.lookup rose, else to memory",
        o.reads.count,
        o.reads.distribution == ReadDistribution::kZipf
            ? fmt::format("zipf (exponent {:g}; the ranks scattered over the ids by a permutation of the seed)",
                          o.reads.zipf_exponent)
            : o.reads.distribution == ReadDistribution::kGaussian
                  ? std::string("gaussian (around the middle id, stddev a sixth of the range)")
                  : std::string("uniform"),
        o.reads.rate));
  }
  report->blocks.push_back({"Results per configuration (counts; no percentages of the dataset)",
                           ResultsBlock(states, report->runs_requested)});
  report->blocks.push_back({"Failure point per setting, and the throughput before it (writes a second)",
                            FailurePointBlock(states, o.rate)});
  if (o.reads.distribution != ReadDistribution::kNone) {
    report->blocks.push_back({"Reads after the load (hit ratio from the replies and from the server's counters; "
                              "latency of hits and of misses)",
                              WorkingSetReadsBlock(states, report->runs_requested)});
  }
  report->blocks.push_back({"Invariants (a broken one fails the run)", InvariantsBlock(states)});
  report->limits = {
      "outcomes belong to these exact configurations and this record size and order "
      "(docs/method.md rule 15)",
      "memory figures are each server's own accounting, not comparable across systems byte for byte",
      std::string(o.writers.size() == 1 && o.writers[0] == 1
                      ? "one load connection: no concurrency effects (--writers 1,16 compares)"
                      : "several writers: the first rejected write is the replies' order") +
          (o.reads.distribution == ReadDistribution::kNone
               ? "; no reads (--reads), so nothing about hit ratios under LRU"
               : "; reads one at a time after the load, with no writes: a read-through cache would write "
                 "back its misses, these reads do not"),
      "the exact eviction point comes from a repeat on a fresh server, which may differ from the first "
      "pass where a server's eviction sampling is random (Redis samples keys)"};
  json configs = json::array();
  for (const WorkingSetConfiguration& st : states) {
    json settings = json::object();
    for (const auto& [k, v] : st.config.settings) settings[k] = v;
    if (st.config.system == SystemKind::kTarantool) settings["engine"] = st.config.engine;
    json c{{key::kName, st.config.name}, {"system", SystemName(st.config.system)}, {"settings", settings},
           {key::kServer, st.description}, {key::kWriters, st.writers}};
    if (!st.not_run.empty()) c[key::kNotRun] = st.not_run;
    std::string outcome;
    for (const WorkingSetConfigRun& r : st.runs) {
      if (r.outcome.empty()) continue;
      outcome = outcome.empty() || outcome == r.outcome ? r.outcome : "differs between runs";
    }
    c[key::kOutcome] = outcome.empty() ? json(nullptr) : json(outcome);
    json runs = json::array();
    for (size_t k = 0; k < st.runs.size(); ++k) runs.push_back(RunJson(st.runs[k], static_cast<int>(k + 1), st.writers));
    c[key::kRuns] = runs;
    json summary = json::object();
    RepeatSummary sum = SummaryOf(st);
    for (const FigureRange& f : sum.ranges) {
      summary[f.key] = RangeJson(f.range);
    }
    c["summary"] = summary;
    c["failed_runs"] = sum.failed;
    configs.push_back(c);
  }
  report->json["records"] = o.records;
  report->json[key::kPortion] = o.portion;
  report->json["pipeline"] = o.pipeline;
  report->json["writers"] = o.writers;
  report->json["rate"] = o.rate > 0 ? json(o.rate) : json(nullptr);
  report->json[key::kReads] =
      o.reads.distribution == ReadDistribution::kNone
          ? json(nullptr)
          : json{{key::kDistribution, ReadDistributionName(o.reads.distribution)},
                 {"rate", o.reads.rate},
                 {"count", o.reads.count},
                 {"zipf_exponent", o.reads.zipf_exponent}};
  report->json[key::kConfigurations] = configs;
  FillTables(states, o.reads.distribution != ReadDistribution::kNone, report);
  FillVerdict(states, interrupted, report);
}

}  // namespace memstand

#include "scenario/working_set/working_set.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "report/repeat.h"
#include "scenario/kit/load_step.h"
#include "workload/products.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr int kSettlePollMs = 20;
constexpr int kSettleTimeoutMs = 5000;
constexpr int kPortionSettleTimeoutMs = 1000;

// One portion's state after its counters settled.
struct PortionRow {
  int64_t written = 0;  // writes attempted so far
  int64_t successful = 0, rejected = 0;
  ServerCounters counters;
};

// One configuration in one run.
struct ConfigRun {
  bool ran = false;
  std::string failure;  // why the row ended early ("" when it completed)
  int64_t attempted = 0, successful = 0, rejected = 0;
  ServerCounters final;
  std::string first_error;
  int64_t first_rejected_write = 0;  // 0: none
  std::optional<Interval> eviction_in, rejection_in;
  int64_t exact_eviction = 0;        // 0: not found (or not looked for)
  std::string exact_note;
  std::vector<PortionRow> portions;
  std::vector<Invariant> invariants;
  int64_t settle_ms = 0;
  bool final_steady = true;    // the final counters stopped moving within kSettleTimeoutMs
  int unsteady_portions = 0;   // portions whose counters still moved after kPortionSettleTimeoutMs
  std::string outcome;  // evicts / rejects / evicts and rejects / keeps all
  bool invariants_ok() const {
    return std::all_of(invariants.begin(), invariants.end(), [](const Invariant& i) { return i.ok(); });
  }
};

struct ConfigState {
  ServerConfig config;
  std::string not_run;  // "not run: tarantool is not installed (apt-get install tarantool)"
  std::string description, config_text;
  std::vector<ConfigRun> runs;
};

// Polls the counters until two reads `kSettlePollMs` apart agree (docs/method.md rule 5), at
// most timeout_ms; then the last read, with *steady false if they were still moving.
Result<ServerCounters> Settle(ServerUnderTest& server, int timeout_ms, int64_t* waited_ms, bool* steady) {
  const auto start = std::chrono::steady_clock::now();
  auto last = server.Read();
  if (!last.ok()) return last;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kSettlePollMs));
    auto now = server.Read();
    if (!now.ok()) return now;
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start).count();
    *steady = *now == *last;
    if (*steady || waited >= timeout_ms) {
      if (waited_ms != nullptr) *waited_ms = waited;
      return now;
    }
    last = now;
  }
}

class WorkingSetRun {
 public:
  WorkingSetRun(const WorkingSetOptions& o, const ScenarioContext& ctx,
                std::shared_ptr<const KeyedValues> records)
      : o_(o), ctx_(ctx), records_(std::move(records)) {}

  // Loads every record into `server`, portion by portion, reading counters after each.
  void Load(ServerUnderTest& server, ConfigRun* r) {
    const int64_t total = o_.records;
    for (int64_t low = 0; low < total && r->failure.empty(); low += o_.portion) {
      if (ctx_.interrupted()) {
        r->failure = "interrupted";
        return;
      }
      const int64_t high = std::min<int64_t>(low + o_.portion, total);
      auto step = Step(server, low + 1, high);
      if (!step.ok()) {
        r->failure = step.status().message();
        return;
      }
      r->attempted += step->attempted;
      r->successful += step->successful;
      r->rejected += step->rejected;
      if (step->rejected > 0 && !r->rejection_in) {
        r->rejection_in = Interval{low, high};
        r->first_error = step->first_error;
        r->first_rejected_write = low + static_cast<int64_t>(step->first_rejected);
      }
      if (!step->failure.ok()) {
        r->failure = step->failure.message();
        return;
      }
      bool steady = true;
      auto counters = Settle(server, kPortionSettleTimeoutMs, nullptr, &steady);
      if (!steady) ++r->unsteady_portions;
      if (!counters.ok()) {
        r->failure = "reading counters: " + counters.status().message();
        return;
      }
      if (counters->evicted > 0 && !r->eviction_in) r->eviction_in = Interval{low, high};
      r->portions.push_back({r->attempted, r->successful, r->rejected, *counters});
    }
  }

  // The exact write of the first eviction: a fresh server loaded to the start of the
  // portion, then one write and one counter read at a time through the portion.
  void FindExactEviction(const ServerConfig& config, ConfigRun* r) {
    if (!r->eviction_in || !o_.exact || ctx_.interrupted()) return;
    const Interval in = *r->eviction_in;
    auto server = ServerUnderTest::Start(config, ctx_.interrupt);
    if (!server.ok()) {
      r->exact_note = "not found: a fresh server did not start: " + server.status().message();
      return;
    }
    if (in.low > 0) {
      auto step = Step(**server, 1, in.low);
      if (!step.ok() || !step->failure.ok()) {
        r->exact_note = "not found: reloading to write " + std::to_string(in.low) + " failed";
        return;
      }
    }
    auto before = (*server)->Read();
    if (before.ok() && before->evicted > 0) {
      r->exact_note = fmt::format("the repeat evicted earlier, by write {}", in.low);
      return;
    }
    for (int64_t id = in.low + 1; id <= in.high && !ctx_.interrupted(); ++id) {
      std::string error;
      Status w = (*server)->Write(static_cast<uint64_t>(id), ProductKey(static_cast<uint32_t>(id)),
                                  records_->At(static_cast<uint64_t>(id)), &error);
      auto c = w.ok() ? (*server)->Read() : Result<ServerCounters>(w);
      if (!c.ok()) {
        r->exact_note = "not found: " + c.status().message();
        return;
      }
      if (c->evicted > 0) {
        r->exact_eviction = id;
        r->exact_note = fmt::format("the repeat's first eviction came with write {}", id);
        return;
      }
    }
    r->exact_note = fmt::format("the repeat did not evict within {}", in.Describe());
  }

 private:
  Result<LoadStepResult> Step(ServerUnderTest& server, int64_t first, int64_t last) {
    LoadStepOptions s;
    s.key_prefix = "product:";
    s.first_key = static_cast<uint64_t>(first);
    s.last_key = static_cast<uint64_t>(last);
    s.requests = static_cast<uint64_t>(last - first + 1);
    s.value.keyed = records_;
    s.pipeline = o_.pipeline;
    s.seed = ctx_.seed;
    s.interrupt = ctx_.interrupt;
    return RunLoadStep(server, s);
  }

  const WorkingSetOptions& o_;
  const ScenarioContext& ctx_;
  std::shared_ptr<const KeyedValues> records_;
};

std::shared_ptr<const KeyedValues> BuildRecords(uint64_t seed, uint32_t count) {
  auto table = std::make_shared<KeyedValues>(1);
  for (uint32_t id = 1; id <= count; ++id) table->Add(ProductJson(MakeProduct(seed, id)));
  return table;
}

// One run: every configuration's server up at the same time, then each loaded in turn.
void RunOnce(const WorkingSetOptions& o, const ScenarioContext& ctx, int run,
             const std::shared_ptr<const KeyedValues>& records, std::vector<ConfigState>* states,
             ScenarioReport* report) {
  std::vector<std::unique_ptr<ServerUnderTest>> servers(states->size());
  for (size_t i = 0; i < states->size(); ++i) {
    ConfigState& st = (*states)[i];
    if (!st.not_run.empty()) continue;
    auto server = ServerUnderTest::Start(st.config, ctx.interrupt);
    if (!server.ok()) {
      ConfigRun r;
      r.failure = "server did not start: " + server.status().message();
      st.runs.push_back(r);
      continue;
    }
    servers[i] = std::move(*server);
    if (st.description.empty()) {
      st.description = servers[i]->Describe();
      st.config_text = servers[i]->ConfigText();
    }
  }
  WorkingSetRun procedure(o, ctx, records);
  for (size_t i = 0; i < states->size(); ++i) {
    ConfigState& st = (*states)[i];
    if (servers[i] == nullptr) continue;
    ctx.Progress("working-set", fmt::format("run {}: {} ({})", run, st.config.name, st.config.Describe()));
    ConfigRun r;
    r.ran = true;
    procedure.Load(*servers[i], &r);
    if (r.failure.empty()) {
      auto settled = Settle(*servers[i], kSettleTimeoutMs, &r.settle_ms, &r.final_steady);
      if (settled.ok()) {
        r.final = *settled;
      } else {
        r.failure = "final counters: " + settled.status().message();
      }
    }
    if (!r.failure.empty()) r.failure = servers[i]->ExplainFailure(r.failure);
    report->files[fmt::format("logs/{}-run{}.log", st.config.name, run)] = servers[i]->LogTail(kLogTailLines);
    servers[i]->Stop();
    servers[i].reset();
    if (r.failure.empty()) {
      r.outcome = WorkingSetOutcome(r.final.evicted, r.rejected);
      r.invariants = WorkingSetInvariants(r.attempted, r.successful, r.rejected, r.final.evicted, r.final.present);
      procedure.FindExactEviction(st.config, &r);
    }
    st.runs.push_back(std::move(r));
  }
}

std::string Num(int64_t v) { return std::to_string(v); }

json RunJson(const ConfigRun& r, int run) {
  json j{{"run", run}, {"ok", r.failure.empty() && r.invariants_ok()}};
  if (!r.failure.empty()) j["failure"] = r.failure;
  j["attempted"] = r.attempted;
  j["successful"] = r.successful;
  j["rejected"] = r.rejected;
  j["evicted"] = r.final.evicted;
  j["present"] = r.final.present;
  j["memory_used"] = r.final.memory;
  j["outcome"] = r.outcome;
  j["first_error"] = r.first_error.empty() ? json(nullptr) : json(r.first_error);
  j["first_rejected_write"] = r.first_rejected_write == 0 ? json(nullptr) : json(r.first_rejected_write);
  auto interval = [](const std::optional<Interval>& i) {
    return i ? json::array({i->low, i->high}) : json(nullptr);
  };
  j["eviction_detected_in"] = interval(r.eviction_in);
  j["rejection_detected_in"] = interval(r.rejection_in);
  // The first event of either kind, and its exact write.
  std::optional<Interval> first = r.eviction_in;
  int64_t exact = r.exact_eviction;
  if (r.rejection_in && (!first || r.rejection_in->low < first->low)) {
    first = r.rejection_in;
    exact = r.first_rejected_write;
  }
  j["detected_in"] = interval(first);
  j["exact_point"] = exact == 0 ? json(nullptr) : json(exact);
  j["exact_eviction"] = r.exact_eviction == 0 ? json(nullptr) : json(r.exact_eviction);
  j["exact_note"] = r.exact_note;
  j["settle_ms"] = r.settle_ms;
  j["final_counters_steady"] = r.final_steady;
  j["unsteady_portions"] = r.unsteady_portions;
  j["server_counters"] = r.final.raw;
  json inv = json::array();
  for (const Invariant& i : r.invariants) inv.push_back(i.ToJson());
  j["invariants"] = inv;
  json portions = json::array();
  for (const PortionRow& p : r.portions) {
    portions.push_back({{"written", p.written}, {"successful", p.successful}, {"rejected", p.rejected},
                        {"evicted", p.counters.evicted}, {"present", p.counters.present},
                        {"memory_used", p.counters.memory}});
  }
  j["portions"] = portions;
  return j;
}

// The figures of one configuration's runs as ranges (docs/method.md rule 8).
RepeatSummary SummaryOf(const ConfigState& st) {
  std::vector<RunFigures> runs;
  for (const ConfigRun& r : st.runs) {
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
    runs.push_back(std::move(f));
  }
  return Summarize(runs, static_cast<int>(runs.size()));
}

std::string RangeText(const Range& r) {
  if (r.n == 1 || r.min == r.max) return fmt::format("{:.0f} (N={})", r.median, r.n);
  return fmt::format("{:.0f} {:.0f} {:.0f} (min median max, N={})", r.min, r.median, r.max, r.n);
}

// Whether every completed run found the same exact point (eviction or rejection).
std::string SameEveryTime(const ConfigState& st, const char* what, int64_t ConfigRun::*field) {
  std::vector<int64_t> points;
  for (const ConfigRun& r : st.runs) {
    if (r.failure.empty() && r.*field > 0) points.push_back(r.*field);
  }
  if (points.size() < 2) return "";
  const bool same = std::all_of(points.begin(), points.end(), [&](int64_t p) { return p == points[0]; });
  return fmt::format("{} the same in all {} runs: {}", what, points.size(), same ? "yes" : "no");
}

std::string ResultsBlock(const std::vector<ConfigState>& states, int runs) {
  std::string out;
  for (const ConfigState& st : states) {
    out += fmt::format("    {} — {}\n", st.config.name, st.config.Describe());
    if (!st.not_run.empty()) {
      out += "      " + st.not_run + "\n";
      continue;
    }
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const ConfigRun& r = st.runs[k];
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
                           r.unsteady_portions, kPortionSettleTimeoutMs);
      }
      if (r.eviction_in) {
        out += fmt::format("        first eviction detected in {}; exact: {}\n", r.eviction_in->Describe(),
                           r.exact_note.empty() ? "not looked for (--no-exact)" : r.exact_note);
      }
      if (r.rejection_in) {
        out += fmt::format("        first rejection detected in {}; exact: write {} (one connection, "
                           "replies in order); error: {}\n",
                           r.rejection_in->Describe(), r.first_rejected_write, r.first_error);
      }
      if (st.config.system == SystemKind::kTarantool && st.config.engine == "vinyl") {
        out += fmt::format("        on disk: {} bytes of data, {} of index (vinyl)\n",
                           r.final.raw.count("vinyl_disk_data") ? r.final.raw.at("vinyl_disk_data") : 0,
                           r.final.raw.count("vinyl_disk_index") ? r.final.raw.at("vinyl_disk_index") : 0);
      }
    }
    if (runs > 1) {
      RepeatSummary sum = SummaryOf(st);
      for (const FigureRange& f : sum.ranges) out += fmt::format("      {}: {}\n", f.key, RangeText(f.range));
      out += fmt::format("      runs: {} ok, {} failed, {} interrupted (of {})\n", sum.ok, sum.failed,
                         sum.interrupted, sum.runs);
      for (const std::string& f : sum.failures) out += "        " + f + "\n";
      for (const std::string& line : {SameEveryTime(st, "exact eviction point", &ConfigRun::exact_eviction),
                                      SameEveryTime(st, "first rejected write", &ConfigRun::first_rejected_write)}) {
        if (!line.empty()) out += "      " + line + "\n";
      }
    }
  }
  return out;
}

std::string InvariantsBlock(const std::vector<ConfigState>& states) {
  std::string out;
  for (const ConfigState& st : states) {
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

void FillTables(const std::vector<ConfigState>& states, ScenarioReport* report) {
  Table configs{"configurations",
                {"configuration", "system", "settings", "run", "status", "outcome", "attempted",
                 "successful", "rejected", "evicted", "present", "memory_used", "first_error",
                 "first_rejected_write", "eviction_detected_low", "eviction_detected_high",
                 "exact_eviction", "settle_ms"},
                {}};
  Table portions{"portions",
                 {"configuration", "run", "written", "successful", "rejected", "evicted", "present",
                  "memory_used"},
                 {}};
  Table invariants{"invariants", {"configuration", "run", "invariant", "lhs_value", "rhs_value", "ok"}, {}};
  for (const ConfigState& st : states) {
    if (!st.not_run.empty()) {
      configs.rows.push_back({st.config.name, SystemName(st.config.system), st.config.Describe(), "",
                              st.not_run, "", "", "", "", "", "", "", "", "", "", "", "", ""});
    }
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const ConfigRun& r = st.runs[k];
      const std::string run = Num(static_cast<int64_t>(k + 1));
      configs.rows.push_back(
          {st.config.name, SystemName(st.config.system), st.config.Describe(), run,
           r.failure.empty() ? (r.invariants_ok() ? "ok" : "invariant broken") : "failed: " + r.failure,
           r.outcome, Num(r.attempted), Num(r.successful), Num(r.rejected), Num(r.final.evicted),
           Num(r.final.present), Num(r.final.memory), r.first_error,
           r.first_rejected_write ? Num(r.first_rejected_write) : "",
           r.eviction_in ? Num(r.eviction_in->low) : "", r.eviction_in ? Num(r.eviction_in->high) : "",
           r.exact_eviction ? Num(r.exact_eviction) : "", Num(r.settle_ms)});
      for (const PortionRow& p : r.portions) {
        portions.rows.push_back({st.config.name, run, Num(p.written), Num(p.successful), Num(p.rejected),
                                 Num(p.counters.evicted), Num(p.counters.present), Num(p.counters.memory)});
      }
      for (const Invariant& i : r.invariants) {
        invariants.rows.push_back({st.config.name, run, i.name, Num(i.lhs_value), Num(i.rhs_value),
                                   i.ok() ? "true" : "false"});
      }
    }
  }
  report->tables = {configs, portions, invariants};
}

void FillVerdict(const std::vector<ConfigState>& states, bool interrupted, ScenarioReport* report) {
  for (const ConfigState& st : states) {
    if (!st.not_run.empty()) report->Mark(ScenarioVerdict::kPartial, st.config.name + ": " + st.not_run);
    for (size_t k = 0; k < st.runs.size(); ++k) {
      const ConfigRun& r = st.runs[k];
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

std::string WorkingSetOutcome(int64_t evicted, int64_t rejected) {
  if (evicted > 0 && rejected > 0) return "evicts and rejects";
  if (evicted > 0) return "evicts";
  if (rejected > 0) return "rejects";
  return "keeps all";
}

std::vector<Invariant> WorkingSetInvariants(int64_t attempted, int64_t successful, int64_t rejected,
                                            int64_t evicted, int64_t present) {
  std::vector<Invariant> out = {
      MakeInvariant("present", present, "successful - evicted", successful - evicted),
      MakeInvariant("successful + rejected", successful + rejected, "attempted", attempted)};
  if (WorkingSetOutcome(evicted, rejected) == "keeps all") {
    out.push_back(MakeInvariant("present", present, "attempted", attempted));
  }
  return out;
}

std::vector<ServerConfig> DefaultWorkingSetConfigs() {
  std::vector<ServerConfig> c(5);
  c[0] = {"redis-allkeys-lru", SystemKind::kRedis, {{"maxmemory", "8mb"}, {"maxmemory-policy", "allkeys-lru"}}, "memtx"};
  c[1] = {"redis-noeviction", SystemKind::kRedis, {{"maxmemory", "8mb"}, {"maxmemory-policy", "noeviction"}}, "memtx"};
  c[2] = {"memcached-8m", SystemKind::kMemcached, {{"memory-limit", "8"}}, "memtx"};
  c[3] = {"tarantool-memtx", SystemKind::kTarantool, {{"memtx_memory", "32M"}}, "memtx"};
  c[4] = {"tarantool-vinyl", SystemKind::kTarantool, {{"memtx_memory", "32M"}, {"vinyl_memory", "8M"}}, "vinyl"};
  return c;
}

Status ValidateWorkingSet(const WorkingSetOptions& o) {
  if (o.records < 1 || o.records > kProductCount) {
    return Status::InvalidArgument(fmt::format("--records must be 1..{}, got {}", kProductCount, o.records));
  }
  if (o.portion < 1 || o.portion > o.records) {
    return Status::InvalidArgument(fmt::format("--portion must be 1..--records ({}), got {}", o.records, o.portion));
  }
  if (o.pipeline < 1 || o.pipeline > 1024) {
    return Status::InvalidArgument(fmt::format("--pipeline must be 1..1024, got {}", o.pipeline));
  }
  for (size_t i = 0; i < o.configs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (o.configs[i].name == o.configs[j].name) {
        return Status::InvalidArgument("two configurations are named '" + o.configs[i].name +
                                       "': give one a name= in --config");
      }
    }
  }
  return Status::OK();
}

Result<ScenarioReport> RunWorkingSet(const WorkingSetOptions& options, const ScenarioContext& ctx) {
  WorkingSetOptions o = options;
  if (o.configs.empty()) o.configs = DefaultWorkingSetConfigs();
  Status valid = ValidateWorkingSet(o);
  if (!valid.ok()) return valid;
  std::vector<ConfigState> states;
  for (const ServerConfig& c : o.configs) {
    ConfigState st;
    st.config = c;
    if (!SystemInstalled(c.system)) {
      st.not_run = fmt::format("not run: {} is not installed (apt-get install {})", SystemBinary(c.system),
                               SystemPackage(c.system));
    }
    states.push_back(st);
  }
  ctx.Progress("working-set", fmt::format("{} records of products (seed {}), portions of {}", o.records, ctx.seed, o.portion));
  auto records = BuildRecords(ctx.seed, o.records);
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = ctx.runs;
  for (int run = 1; run <= ctx.runs && !ctx.interrupted(); ++run) {
    RunOnce(o, ctx, run, records, &states, &report);
    report.runs_made = run;
  }
  for (const ConfigState& st : states) {
    report.configuration_lines.push_back(st.config.name + ": " +
                                         (st.not_run.empty() ? st.description : st.not_run));
    if (!st.config_text.empty()) report.files["servers/" + st.config.name + ".conf"] = st.config_text;
  }
  report.procedure = {
      fmt::format("load products records 1..{} (seed {}) in order, key product:<id>, value its JSON "
                  "line (Tarantool: tuple [id, JSON line]), in portions of {} writes, one connection, "
                  "pipeline {}", o.records, ctx.seed, o.portion, o.pipeline),
      "after every portion, poll the server's exact counters until two reads 20 ms apart agree "
      "(Redis INFO evicted_keys/used_memory + DBSIZE; memcached stats evictions/curr_items/bytes; "
      "Tarantool space:len() or vinyl count(), box.slab.info, box.stat.vinyl); no key is read back",
      "first rejection: its portion, and the exact write from the order of the replies on the one connection",
      std::string("first eviction: its portion, then ") +
          (o.exact ? "a fresh server loaded to the portion's start and one write + one counter read at a "
                     "time through the portion"
                   : "no exact search (--no-exact)"),
      "every run starts fresh servers (nothing to settle between runs); the final counters are read "
      "after they stop moving (the wait is printed per run in the JSON as settle_ms)"};
  report.blocks.push_back({"Results per configuration (counts; no percentages of the dataset)",
                           ResultsBlock(states, ctx.runs)});
  report.blocks.push_back({"Invariants (a broken one fails the run)", InvariantsBlock(states)});
  report.limits = {
      "outcomes belong to these exact configurations and this record size and order "
      "(docs/method.md rule 15)",
      "memory figures are each server's own accounting, not comparable across systems byte for byte",
      "one load connection: no concurrency effects; no reads, so nothing about hit ratios under LRU",
      "the exact eviction point comes from a repeat on a fresh server, which may differ from the first "
      "pass where a server's eviction sampling is random (Redis samples keys)"};
  json configs = json::array();
  for (const ConfigState& st : states) {
    json settings = json::object();
    for (const auto& [k, v] : st.config.settings) settings[k] = v;
    if (st.config.system == SystemKind::kTarantool) settings["engine"] = st.config.engine;
    json c{{"name", st.config.name}, {"system", SystemName(st.config.system)}, {"settings", settings},
           {"server", st.description}};
    if (!st.not_run.empty()) c["not_run"] = st.not_run;
    std::string outcome;
    for (const ConfigRun& r : st.runs) {
      if (r.outcome.empty()) continue;
      outcome = outcome.empty() || outcome == r.outcome ? r.outcome : "differs between runs";
    }
    c["outcome"] = outcome.empty() ? json(nullptr) : json(outcome);
    json runs = json::array();
    for (size_t k = 0; k < st.runs.size(); ++k) runs.push_back(RunJson(st.runs[k], static_cast<int>(k + 1)));
    c["runs"] = runs;
    json summary = json::object();
    RepeatSummary sum = SummaryOf(st);
    for (const FigureRange& f : sum.ranges) {
      summary[f.key] = {{"min", f.range.min}, {"median", f.range.median}, {"max", f.range.max}, {"n", f.range.n}};
    }
    c["summary"] = summary;
    c["failed_runs"] = sum.failed;
    configs.push_back(c);
  }
  report.json["records"] = o.records;
  report.json["portion"] = o.portion;
  report.json["pipeline"] = o.pipeline;
  report.json["configurations"] = configs;
  FillTables(states, &report);
  FillVerdict(states, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand

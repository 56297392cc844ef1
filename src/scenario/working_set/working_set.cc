#include "scenario/working_set/working_set.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/pacer.h"
#include "scenario/kit/evidence.h"
#include "scenario/kit/load_step.h"
#include "scenario/kit/poll.h"
#include "scenario/kit/runs.h"
#include "scenario/working_set/report.h"
#include "workload/products.h"

namespace memstand {
namespace {

using nlohmann::json;

constexpr int64_t kSettlePollNs = 20'000'000;
constexpr int kSettleTimeoutMs = 5000;

// Polls the counters until two reads `kSettlePollNs` apart agree (docs/method.md rule 5), at
// most timeout_ms; then the last read, with *steady false if they were still moving.
Result<ServerCounters> Settle(ServerUnderTest& server, int timeout_ms, int64_t* waited_ms, bool* steady) {
  Result<ServerCounters> last = Status::Failed("not read");
  bool first = true;
  const PollResult poll = PollUntil(DeadlineInMs(timeout_ms), kSettlePollNs, [&]() -> Result<bool> {
    auto now = server.Read();
    if (!now.ok()) return now.status();
    const bool same = !std::exchange(first, false) && *now == *last;
    last = std::move(now);
    return same;
  });
  if (!poll.failure.ok()) return poll.failure;
  *steady = poll.met;
  if (waited_ms != nullptr) *waited_ms = poll.waited_ms();
  return last;
}

class WorkingSetRun {
 public:
  WorkingSetRun(const WorkingSetOptions& o, const ScenarioContext& ctx,
                std::shared_ptr<const KeyedValues> records, int writers)
      : o_(o), ctx_(ctx), records_(std::move(records)), writers_(writers) {}

  // Loads every record into `server`, portion by portion, reading counters after each.
  void Load(ServerUnderTest& server, WorkingSetConfigRun* r) {
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
      auto counters = Settle(server, kWorkingSetPortionSettleTimeoutMs, nullptr, &steady);
      if (!steady) ++r->unsteady_portions;
      if (!counters.ok()) {
        r->failure = "reading counters: " + counters.status().message();
        return;
      }
      if (counters->evicted > 0 && !r->eviction_in) r->eviction_in = Interval{low, high};
      r->portions.push_back({r->attempted, r->successful, r->rejected, step->elapsed_s, *counters});
    }
  }

  // The exact write of the first eviction: a fresh server loaded to the start of the
  // portion, then one write and one counter read at a time through the portion.
  void FindExactEviction(const ServerConfig& config, WorkingSetConfigRun* r) {
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
    s.connections = writers_;
    s.rate = o_.rate;
    s.seed = ctx_.seed;
    s.interrupt = ctx_.interrupt;
    return RunLoadStep(server, s);
  }

  const WorkingSetOptions& o_;
  const ScenarioContext& ctx_;
  std::shared_ptr<const KeyedValues> records_;
  const int writers_;
};

std::shared_ptr<const KeyedValues> BuildRecords(uint64_t seed, uint32_t count) {
  auto table = std::make_shared<KeyedValues>(1);
  for (uint32_t id = 1; id <= count; ++id) table->Add(ProductJson(MakeProduct(seed, id)));
  return table;
}

// One run: every configuration's server up at the same time, then each loaded in turn.
void RunOnce(const WorkingSetOptions& o, const ScenarioContext& ctx, int run,
             const std::shared_ptr<const KeyedValues>& records, std::vector<WorkingSetConfiguration>* states,
             ScenarioReport* report) {
  std::vector<std::unique_ptr<ServerUnderTest>> servers(states->size());
  for (size_t i = 0; i < states->size(); ++i) {
    WorkingSetConfiguration& st = (*states)[i];
    if (!st.not_run.empty()) continue;
    auto server = ServerUnderTest::Start(st.config, ctx.interrupt);
    if (!server.ok()) {
      WorkingSetConfigRun r;
      r.failure = StartFailure(ctx, "working-set", fmt::format("run {}: {}", run, st.config.name),
                               "server did not start: ", server.status());  // "interrupted": not failed
      st.runs.push_back(r);
      continue;
    }
    servers[i] = std::move(*server);
    if (st.description.empty()) {
      st.description = servers[i]->Describe();
      st.config_text = servers[i]->ConfigText();
    }
  }
  for (size_t i = 0; i < states->size(); ++i) {
    WorkingSetConfiguration& st = (*states)[i];
    if (servers[i] == nullptr) continue;
    WorkingSetRun procedure(o, ctx, records, st.writers);
    ctx.Progress("working-set", fmt::format("run {}: {} ({})", run, st.config.name, st.config.Describe()));
    WorkingSetConfigRun r;
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
    if (r.failure.empty() && o.reads.distribution != ReadDistribution::kNone && r.attempted > 0) {
      ctx.Progress("working-set", fmt::format("run {}: {}: {} {} reads of ids 1..{} at {:g}/s", run, st.config.name,
                                              o.reads.count, ReadDistributionName(o.reads.distribution),
                                              r.attempted, o.reads.rate));
      r.reads = RunWorkingSetReads(*servers[i], o.reads, static_cast<uint64_t>(r.attempted), ctx.seed,
                                   ctx.interrupt);
      r.failure = r.reads->failure;
    }
    if (!r.failure.empty()) r.failure = servers[i]->ExplainFailure(r.failure);
    KeepLogTail(st.config.name, run, servers[i]->log_path(), &report->files);
    servers[i]->Stop();
    servers[i].reset();
    if (r.failure.empty()) {
      r.outcome = WorkingSetOutcome(r.final.evicted, r.rejected);
      r.invariants = WorkingSetInvariants(r.attempted, r.successful, r.rejected, r.final.evicted, r.final.present);
      if (r.reads) {
        for (Invariant& i : WorkingSetReadInvariants(*r.reads)) r.invariants.push_back(std::move(i));
      }
      procedure.FindExactEviction(st.config, &r);
    }
    st.runs.push_back(std::move(r));
  }
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
  c[4] = {"tarantool-vinyl", SystemKind::kTarantool,
          {{"memtx_memory", "32M"}, {"vinyl_memory", "8M"}, {"vinyl_cache", "8M"}}, "vinyl"};
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
  if (o.writers.empty()) return Status::InvalidArgument("--writers: at least one setting");
  for (int w : o.writers) {
    if (w < 1 || w > 1024) return Status::InvalidArgument(fmt::format("--writers must be 1..1024, got {}", w));
  }
  if (o.rate != 0) {
    for (int w : o.writers) {
      if (Status s = ValidateRate(o.rate, w); !s.ok()) return s;
    }
  }
  if (Status s = ValidateReadOptions(o.reads); !s.ok()) return s;
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
  std::vector<WorkingSetConfiguration> states;
  const bool named_by_writers = o.writers.size() > 1 || o.writers[0] != 1;
  for (const ServerConfig& c : o.configs) {
    for (int w : o.writers) {
      WorkingSetConfiguration st;
      st.config = c;
      if (named_by_writers) st.config.name += fmt::format("-w{}", w);
      st.writers = w;
      st.not_run = NotInstalledLine(c.system);
      states.push_back(st);
    }
  }
  ctx.Progress("working-set", fmt::format("{} records of products (seed {}), portions of {}", o.records, ctx.seed, o.portion));
  auto records = BuildRecords(ctx.seed, o.records);
  ScenarioReport report;
  report.scenario = "working-set";
  report.runs_requested = ctx.runs;
  ForEachRun(ctx, &report, [&](int run) { RunOnce(o, ctx, run, records, &states, &report); });
  FillWorkingSetReport(o, ctx.seed, states, ctx.interrupted(), &report);
  return report;
}

}  // namespace memstand

// working-set's reads in the report: the JSON of a run's reads, the text block and the
// CSV table (docs/scenarios/working-set.md, "Reads").
#include <fmt/format.h>

#include "scenario/working_set/json.h"
#include "scenario/working_set/report.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = working_set_json;

json LatencyJson(const HdrHistogram& h) {
  const LatencySummary s = LatencyOf(h);
  return {{key::kN, s.n},
          {key::kP50Us, s.n > 0 ? json(s.p50_us) : json(nullptr)},
          {key::kP99Us, s.n > 0 ? json(s.p99_us) : json(nullptr)}};
}

std::string LatencyText(const HdrHistogram& h) {
  const LatencySummary s = LatencyOf(h);
  if (s.n == 0) return "none (N=0)";
  return fmt::format("p50 {:.1f} µs, p99 {:.1f} µs (N={})", s.p50_us, s.p99_us, s.n);
}

double Ratio(int64_t part, int64_t whole) { return whole > 0 ? double(part) / double(whole) : 0; }

int64_t Counter(const WorkingSetReads& r, const char* name) {
  auto it = r.server.find(name);
  return it == r.server.end() ? 0 : it->second;
}

// "agree", "MISMATCH" or "" (the server counts no hits).
std::string Agreement(const WorkingSetReads& r) {
  if (!r.server_hits || !r.server_misses) return "";
  return *r.server_hits == r.hits && *r.server_misses == r.misses ? "agree" : "MISMATCH";
}

std::string ServerLine(const WorkingSetReads& r) {
  if (r.server_hits && r.server_misses) {
    return fmt::format("server ({}): hit ratio {:.4f} ({} hits, {} misses): {}", r.server_source,
                       Ratio(*r.server_hits, *r.server_hits + *r.server_misses), *r.server_hits,
                       *r.server_misses, Agreement(r));
  }
  if (r.server.count("select") == 0)
    return "server: its counters were not read (" + r.server_source + ")";
  const int64_t selects = Counter(r, "select");
  return fmt::format("server: {}; its SELECT requests {} for {} reads: {}", r.server_source,
                     selects, r.reads, selects == r.reads ? "agree" : "MISMATCH");
}

std::string VinylLines(const WorkingSetReads& r) {
  return fmt::format(
      "        vinyl, each read by the index's counters around it: from memory (tuple cache, "
      "in-memory level, "
      "or absent by the bloom filters) {}; from disk (searched the runs) {}\n"
      "        tuple cache hits {} of {} reads; pages read from run files {} (the OS page cache "
      "may have served "
      "them); the server: disk lookups {}, tuple cache hit ratio {:.4f} ({} of {} lookups)\n",
      LatencyText(r.memory_ns), LatencyText(r.disk_ns), r.cache_hits, r.reads, r.pages_read,
      Counter(r, "disk_lookup"), Ratio(Counter(r, "cache_get"), Counter(r, "cache_lookup")),
      Counter(r, "cache_get"), Counter(r, "cache_lookup"));
}

std::string RunLines(const WorkingSetReads& r) {
  std::string out = fmt::format(
      "{} {} reads of ids {}..{} in {:.2f} s ({:.0f}/s for {:g}/s asked; {} sent more than a gap "
      "late){}\n",
      r.reads, ReadDistributionName(r.distribution), r.low, r.high, r.seconds,
      r.seconds > 0 ? double(r.reads) / r.seconds : 0.0, r.rate, r.late,
      r.failure.empty() ? "" : "; ended early: " + r.failure);
  out += fmt::format("        hit ratio {:.4f} from the replies ({} hits, {} misses); {}\n",
                     r.hit_ratio(), r.hits, r.misses, ServerLine(r));
  out += fmt::format("        latency of hits: {}; of misses: {}\n", LatencyText(r.hit_ns),
                     LatencyText(r.miss_ns));
  if (r.vinyl) out += VinylLines(r);
  return out;
}

std::string CountCell(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : ""; }
std::string Us(const HdrHistogram& h, double p) {
  return h.total_count() > 0 ? fmt::format("{:.1f}", double(h.ValueAtPercentile(p)) / 1000.0) : "";
}

}  // namespace

json WorkingSetReadsJson(const WorkingSetReads& r) {
  json j{{key::kDistribution, ReadDistributionName(r.distribution)},
         {"ids", json::array({r.low, r.high})},
         {"rate", r.rate},
         {key::kReadCount, r.reads},
         {key::kHits, r.hits},
         {key::kMisses, r.misses},
         {key::kHitRatio, r.hit_ratio()},
         {key::kSeconds, r.seconds},
         {"late", r.late}};
  if (!r.failure.empty()) j["failure"] = r.failure;
  json server{{"source", r.server_source}, {"counters", r.server}};
  server[key::kHits] = r.server_hits ? json(*r.server_hits) : json(nullptr);
  server[key::kMisses] = r.server_misses ? json(*r.server_misses) : json(nullptr);
  server[key::kHitRatio] = r.server_hits && r.server_misses
                               ? json(Ratio(*r.server_hits, *r.server_hits + *r.server_misses))
                               : json(nullptr);
  j[key::kServerCounted] = server;
  j[key::kAgree] = Agreement(r).empty() ? json(nullptr) : json(Agreement(r) == "agree");
  j[key::kLatency] = {{key::kHit, LatencyJson(r.hit_ns)}, {key::kMiss, LatencyJson(r.miss_ns)}};
  if (r.vinyl) {
    j[key::kVinyl] = {
        {"attribution",
         "per read: the primary index's counters read after every read; disk when "
         "disk.iterator.lookup rose, else memory"},
        {key::kMemory, LatencyJson(r.memory_ns)},
        {key::kDisk, LatencyJson(r.disk_ns)},
        {key::kDiskShare, Ratio(r.disk_ns.total_count(), r.reads)},
        {"cache_hits", r.cache_hits},
        {"pages_read", r.pages_read},
        {"server_disk_lookups", Counter(r, "disk_lookup")},
        {key::kCacheHitRatio, Ratio(Counter(r, "cache_get"), Counter(r, "cache_lookup"))}};
  } else {
    j[key::kVinyl] = nullptr;
  }
  return j;
}

std::string WorkingSetReadsBlock(const std::vector<WorkingSetConfiguration>& states, int runs) {
  std::string out;
  for (const WorkingSetConfiguration& st : states) {
    for (size_t k = 0; k < st.runs.size(); ++k) {
      if (!st.runs[k].reads) continue;
      out +=
          fmt::format("    {}{}: ", st.config.name, runs > 1 ? fmt::format(" run {}", k + 1) : "");
      out += RunLines(*st.runs[k].reads);
    }
  }
  return out.empty() ? "    none made: no configuration's load completed\n" : out;
}

Table WorkingSetReadsTable(const std::vector<WorkingSetConfiguration>& states) {
  Table t{
      "reads",
      {"configuration", "run",         "distribution",  "reads",       "hits",     "misses",
       "hit_ratio",     "server_hits", "server_misses", "agree",       "hit_n",    "hit_p50_us",
       "hit_p99_us",    "miss_n",      "miss_p50_us",   "miss_p99_us", "memory_n", "memory_p50_us",
       "memory_p99_us", "disk_n",      "disk_p50_us",   "disk_p99_us", "seconds",  "late"},
      {}};
  for (const WorkingSetConfiguration& st : states) {
    for (size_t k = 0; k < st.runs.size(); ++k) {
      if (!st.runs[k].reads) continue;
      const WorkingSetReads& r = *st.runs[k].reads;
      auto n = [&](const HdrHistogram& h) {
        return r.vinyl || &h == &r.hit_ns || &h == &r.miss_ns ? std::to_string(h.total_count())
                                                              : std::string();
      };
      t.rows.push_back({st.config.name,
                        std::to_string(k + 1),
                        ReadDistributionName(r.distribution),
                        std::to_string(r.reads),
                        std::to_string(r.hits),
                        std::to_string(r.misses),
                        fmt::format("{:.6f}", r.hit_ratio()),
                        CountCell(r.server_hits),
                        CountCell(r.server_misses),
                        Agreement(r),
                        n(r.hit_ns),
                        Us(r.hit_ns, 50),
                        Us(r.hit_ns, 99),
                        n(r.miss_ns),
                        Us(r.miss_ns, 50),
                        Us(r.miss_ns, 99),
                        n(r.memory_ns),
                        Us(r.memory_ns, 50),
                        Us(r.memory_ns, 99),
                        n(r.disk_ns),
                        Us(r.disk_ns, 50),
                        Us(r.disk_ns, 99),
                        fmt::format("{:.3f}", r.seconds),
                        std::to_string(r.late)});
    }
  }
  return t;
}

}  // namespace memstand

#include "scenario/working_set/reads.h"

#include <fmt/format.h>
#include <time.h>

#include <numeric>
#include <utility>
#include <vector>

#include "client/redis_info.h"
#include "core/clock.h"
#include "core/pacer.h"
#include "util/rng.h"
#include "workload/key_pattern.h"
#include "workload/products.h"

namespace memstand {
namespace {

// The counters of space products that the reads move: box.stat() SELECT (memtx has no
// hit counter), and for vinyl its primary index's (index:stat(): lookups, rows returned,
// the tuple cache's, the disk level's lookups and pages read).
constexpr char kTarantoolReadCounters[] =
    "local s = box.space.products\n"
    "local c = {select = box.stat().SELECT.total}\n"
    "if s.engine == 'vinyl' then\n"
    "  local x = s.index[0]:stat()\n"
    "  c.lookup = x.lookup; c.get = x.get.rows\n"
    "  c.cache_lookup = x.cache.lookup; c.cache_get = x.cache.get.rows\n"
    "  c.memory_get = x.memory.iterator.get.rows\n"
    "  c.disk_lookup = x.disk.iterator.lookup; c.disk_get = x.disk.iterator.get.rows\n"
    "  c.disk_pages_read = x.disk.iterator.read.pages\n"
    "end\n"
    "return c";

constexpr uint64_t kSeedStream = 0x7265616473;  // "reads": the draws' own stream of --seed

int64_t Get(const std::map<std::string, int64_t>& m, const char* name) {
  auto it = m.find(name);
  return it == m.end() ? 0 : it->second;
}

std::map<std::string, int64_t> Delta(const std::map<std::string, int64_t>& after,
                                     const std::map<std::string, int64_t>& before) {
  std::map<std::string, int64_t> out;
  for (const auto& [k, v] : after) out[k] = v - Get(before, k.c_str());
  return out;
}

Result<std::map<std::string, int64_t>> ReadCounters(ServerUnderTest& server) {
  std::map<std::string, int64_t> c;
  switch (server.config().system) {
    case SystemKind::kRedis: {
      auto info = server.redis()->Command({"INFO", "stats"});
      if (!info.ok()) return info.status();
      if (info->is_error()) return Status::Server("INFO stats: " + info->str);
      auto fields = ParseInfo(info->str);
      for (const char* name : {"keyspace_hits", "keyspace_misses"}) {
        c[name] = std::strtoll(fields[name].c_str(), nullptr, 10);
      }
      return c;
    }
    case SystemKind::kMemcached: {
      auto stats = server.control()->MemcacheStats();
      if (!stats.ok()) return stats.status();
      for (const char* name : {"cmd_get", "get_hits", "get_misses"}) {
        c[name] = std::strtoll((*stats)[name].c_str(), nullptr, 10);
      }
      return c;
    }
    case SystemKind::kTarantool:
      return server.control()->EvalCounters(kTarantoolReadCounters,
                                            "the read counters of space products");
    case SystemKind::kEtcd:
      break;
  }
  return Status::InvalidArgument("reads: not for this system");
}

std::string SourceOf(const ServerConfig& c) {
  switch (c.system) {
    case SystemKind::kRedis:
      return "INFO stats keyspace_hits / keyspace_misses";
    case SystemKind::kMemcached:
      return "stats get_hits / get_misses";
    case SystemKind::kTarantool:
      return c.engine == "vinyl"
                 ? "box.space.products.index[0]:stat(): get.rows (hits) of lookup (reads)"
                 : "none: memtx counts no hits (box.stat().SELECT counts the requests)";
    case SystemKind::kEtcd:
      break;
  }
  return "";
}

// One read of key product:<id>; true for a hit.
Result<bool> ReadOne(ServerUnderTest& server, uint32_t space_id, uint64_t id) {
  switch (server.config().system) {
    case SystemKind::kRedis: {
      auto r = server.redis()->Command({"GET", ProductKey(static_cast<uint32_t>(id))});
      if (!r.ok()) return r.status();
      if (r->is_error()) return Status::Server("GET: " + r->str);
      return !r->is_null;
    }
    case SystemKind::kMemcached: {
      auto r = server.control()->MemcacheGet(ProductKey(static_cast<uint32_t>(id)));
      if (!r.ok()) return r.status();
      if (r->kind != memcache::Kind::kValues) return Status::Server("get: " + r->text);
      return !r->values.empty();
    }
    case SystemKind::kTarantool: {
      auto r =
          server.control()->Select(space_id, 0, iproto::Value::Array({iproto::Value::Uint(id)}));
      if (!r.ok()) return r.status();
      return r->size() > 0;
    }
    case SystemKind::kEtcd:
      break;
  }
  return Status::InvalidArgument("reads: not for this system");
}

void SleepUntil(int64_t due_ns) {
  if (NowNs() >= due_ns) return;
  timespec t{static_cast<time_t>(due_ns / 1'000'000'000),
             static_cast<long>(due_ns % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nullptr) != 0) {
  }
}

KeyPatternSpec SpecOf(const ReadOptions& opt) {
  KeyPatternSpec spec;
  spec.kind = opt.distribution == ReadDistribution::kZipf       ? KeyPatternSpec::Kind::kZipf
              : opt.distribution == ReadDistribution::kGaussian ? KeyPatternSpec::Kind::kGaussian
                                                                : KeyPatternSpec::Kind::kUniform;
  spec.zipf_exponent = opt.zipf_exponent;
  return spec;
}

// Vinyl: attributes one read from the index's counters before and after it.
void Attribute(const std::map<std::string, int64_t>& d, int64_t ns, WorkingSetReads* out) {
  (Get(d, "disk_lookup") > 0 ? out->disk_ns : out->memory_ns).Record(ns);
  if (Get(d, "cache_get") > 0) ++out->cache_hits;
  out->pages_read += Get(d, "disk_pages_read");
}

void SetServerFigures(const ServerConfig& c, WorkingSetReads* r) {
  const auto& d = r->server;
  if (c.system == SystemKind::kRedis) {
    r->server_hits = Get(d, "keyspace_hits");
    r->server_misses = Get(d, "keyspace_misses");
  } else if (c.system == SystemKind::kMemcached) {
    r->server_hits = Get(d, "get_hits");
    r->server_misses = Get(d, "get_misses");
  } else if (r->vinyl) {
    r->server_hits = Get(d, "get");
    r->server_misses = Get(d, "lookup") - Get(d, "get");
  }
}

}  // namespace

const char* ReadDistributionName(ReadDistribution d) {
  switch (d) {
    case ReadDistribution::kNone:
      return "none";
    case ReadDistribution::kUniform:
      return "uniform";
    case ReadDistribution::kZipf:
      return "zipf";
    case ReadDistribution::kGaussian:
      return "gaussian";
  }
  return "none";
}

Result<ReadDistribution> ParseReadDistribution(std::string_view text) {
  for (ReadDistribution d :
       {ReadDistribution::kUniform, ReadDistribution::kZipf, ReadDistribution::kGaussian}) {
    if (text == ReadDistributionName(d)) return d;
  }
  return Status::InvalidArgument(
      fmt::format("--reads must be uniform, zipf or gaussian, got '{}'", text.substr(0, 40)));
}

std::vector<Invariant> WorkingSetReadInvariants(const WorkingSetReads& r) {
  std::vector<Invariant> out = {
      MakeInvariant("read hits + read misses", r.hits + r.misses, "reads", r.reads),
      MakeInvariant("hit N + miss N", r.hit_ns.total_count() + r.miss_ns.total_count(), "reads",
                    r.reads)};
  if (r.server_hits && r.server_misses) {
    out.push_back(MakeInvariant("server hits", *r.server_hits, "read hits", r.hits));
    out.push_back(MakeInvariant("server misses", *r.server_misses, "read misses", r.misses));
  } else if (r.server.count("select") > 0) {
    out.push_back(MakeInvariant("server SELECT requests", r.server.at("select"), "reads", r.reads));
  }
  if (r.vinyl) {
    out.push_back(MakeInvariant("memory N + disk N",
                                r.memory_ns.total_count() + r.disk_ns.total_count(), "reads",
                                r.reads));
  }
  return out;
}

Status ValidateReadOptions(const ReadOptions& o) {
  if (o.distribution == ReadDistribution::kNone) return Status::OK();
  if (!(o.rate >= 1 && o.rate <= kMaxReadRate)) {
    return Status::InvalidArgument(
        fmt::format("--read-rate must be 1..{} reads a second, got {}", kMaxReadRate, o.rate));
  }
  if (o.count < 1 || o.count > kMaxReadCount) {
    return Status::InvalidArgument(
        fmt::format("--read-count must be 1..{}, got {}", kMaxReadCount, o.count));
  }
  return Status::OK();
}

LatencySummary LatencyOf(const HdrHistogram& h) {
  LatencySummary s;
  s.n = h.total_count();
  if (s.n > 0) {
    s.p50_us = double(h.ValueAtPercentile(50)) / 1000.0;
    s.p99_us = double(h.ValueAtPercentile(99)) / 1000.0;
  }
  return s;
}

std::vector<uint32_t> ReadKeyOrder(ReadDistribution d, uint64_t high, uint64_t seed) {
  if (d != ReadDistribution::kZipf) return {};
  std::vector<uint32_t> order(high);
  std::iota(order.begin(), order.end(), 1u);
  Rng rng(DeriveSeed(seed, kSeedStream + 1));
  for (uint64_t i = high; i > 1; --i)
    std::swap(order[i - 1], order[rng.Uniform(i)]);  // Fisher-Yates
  return order;
}

WorkingSetReads RunWorkingSetReads(ServerUnderTest& server, const ReadOptions& opt, uint64_t high,
                                   uint64_t seed, const std::atomic<bool>* interrupt) {
  WorkingSetReads out;
  out.high = high;
  out.distribution = opt.distribution;
  out.rate = opt.rate;
  out.vinyl = server.config().system == SystemKind::kTarantool && server.config().engine == "vinyl";
  out.server_source = SourceOf(server.config());
  uint32_t space_id = 0;
  if (server.config().system == SystemKind::kTarantool) {
    auto id = server.control()->SpaceId("products");
    if (!id.ok()) {
      out.failure = "reads: " + id.status().message();
      return out;
    }
    space_id = *id;
  }
  auto before = ReadCounters(server);
  if (!before.ok()) {
    out.failure = "reads: the server's counters before: " + before.status().message();
    return out;
  }
  const std::vector<uint32_t> order = ReadKeyOrder(opt.distribution, high, seed);
  KeySequence keys(SpecOf(opt), 1, high, DeriveSeed(seed, kSeedStream), 0, 1);
  const int64_t gap_ns = static_cast<int64_t>(1e9 / opt.rate);
  const int64_t start_ns = NowNs();
  Pacer pacer(PacerOptions{opt.rate, PacerOptions::Arrival::kConstant, seed}, start_ns);
  std::map<std::string, int64_t> last = *before;
  int64_t end_ns = start_ns;
  for (uint64_t k = 0; k < opt.count; ++k) {
    if (interrupt != nullptr && interrupt->load()) {
      out.failure = "interrupted";
      break;
    }
    const uint64_t rank = keys.Next();
    const uint64_t id = order.empty() ? rank : order[rank - 1];
    const int64_t due = pacer.Next();
    SleepUntil(due);
    const int64_t sent = NowNs();
    if (sent - due > gap_ns) ++out.late;
    auto hit = ReadOne(server, space_id, id);
    end_ns = NowNs();
    if (!hit.ok()) {
      out.failure = fmt::format("read {} (key product:{}): {}", k + 1, id, hit.status().message());
      break;
    }
    ++out.reads;
    ++(*hit ? out.hits : out.misses);
    (*hit ? out.hit_ns : out.miss_ns).Record(end_ns - sent);
    if (out.vinyl) {
      auto now = ReadCounters(server);
      if (!now.ok()) {
        out.failure = "reads: the index's counters after read " + std::to_string(k + 1) + ": " +
                      now.status().message();
        break;
      }
      Attribute(Delta(*now, last), end_ns - sent, &out);
      last = std::move(*now);
    }
  }
  out.seconds = double(end_ns - start_ns) / 1e9;
  if (!out.vinyl) {  // also after reads that ended early (interrupted): the figures so far
    auto after = ReadCounters(server);
    if (!after.ok()) {
      if (out.failure.empty())
        out.failure = "reads: the server's counters after: " + after.status().message();
      return out;
    }
    last = std::move(*after);
  }
  out.server = Delta(last, *before);
  SetServerFigures(server.config(), &out);
  return out;
}

}  // namespace memstand

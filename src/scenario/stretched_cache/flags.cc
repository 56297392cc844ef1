// stretched-cache's flags (docs/scenarios/stretched-cache.md), turned into StretchedCacheOptions.
#include <cmath>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "scenario/stretched_cache/figures.h"
#include "scenario/stretched_cache/stretched_cache.h"
#include "relay/relay_options.h"
#include "util/parse.h"
#include "util/redact.h"

namespace memstand {
namespace {

struct StretchedCacheFlags {
  std::string distances = "5ms,20ms,40ms";
  std::string relay_spin = "100us";
  std::string relay_segment_tap = "on";
  StretchedCacheOptions options;
};

Result<StretchedCacheOptions> BuildStretchedCache(const StretchedCacheFlags& f) {
  StretchedCacheOptions o = f.options;
  if (auto spin = ParseDurationSeconds(f.relay_spin); spin.ok() && *spin >= 0 && *spin <= 0.01) {
    o.relay_spin_ns = std::llround(*spin * 1e9);
  } else {
    return Status::InvalidArgument(
        fmt::format("--relay-spin: expected a duration of 0..10ms, got '{}'", f.relay_spin));
  }
  auto tap = ParseOnOff(f.relay_segment_tap);
  if (!tap.ok()) return tap.status().WithContext("--relay-segment-tap");
  o.relay_segment_tap = *tap;
  auto distances = ParseDistances(f.distances);
  Status s = distances.ok() ? Status::OK() : distances.status();
  if (s.ok()) {
    o.distances_ns = *distances;
    s = ValidateStretchedCache(o);
  }
  if (!s.ok()) return Status::InvalidArgument(RedactSecrets(s.message()));
  return o;
}

}  // namespace

ScenarioPrepare SetupStretchedCache(CLI::App* app) {
  auto f = std::make_shared<StretchedCacheFlags>();
  app->add_option("--ops", f->options.ops, "Operations per series (the median of these; all kept in samples.csv)")
      ->capture_default_str();
  app->add_option("--distances", f->distances, "One-way delays of blocks (d) and (e), comma-separated; (c) runs "
                                               "at the first")
      ->capture_default_str();
  app->add_option("--load-rate", f->options.load_rate, "Block (c) under load: background SETs per second")
      ->capture_default_str();
  app->add_option("--relay-realtime", f->options.relay_realtime_priority,
                  "The relay's loop on SCHED_FIFO at this priority (0: the default scheduler; refused by the "
                  "kernel: the run says so and goes on without)")
      ->capture_default_str();
  app->add_option("--relay-spin", f->relay_spin,
                  "The relay polls this long before each chunk is due instead of sleeping (0: sleeps)")
      ->capture_default_str();
  app->add_option("--relay-segment-tap", f->relay_segment_tap,
                  "on: the relays split reads at the TCP segments that arrived, so writes that waited in a "
                  "socket together stay apart (needs CAP_NET_RAW, else the run says so and goes on without); "
                  "off: a chunk is a read")
      ->capture_default_str();
  return [f]() -> Result<ScenarioRun> {
    auto o = BuildStretchedCache(*f);
    if (!o.ok()) return o.status();
    return ScenarioRun([o = *o](const ScenarioContext& ctx) { return RunStretchedCache(o, ctx); });
  };
}

}  // namespace memstand

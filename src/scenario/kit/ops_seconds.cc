#include "scenario/kit/ops_seconds.h"

#include "report/json_fields.h"

namespace memstand {
namespace {

using nlohmann::json;

json MsJson(int64_t ns) { return ns < 0 ? json(nullptr) : json(static_cast<double>(ns) / 1e6); }

}  // namespace

json OpsSecondsJson(const std::vector<OpsSecond>& seconds) {
  json out = json::array();
  for (size_t i = 0; i < seconds.size(); ++i) {
    const OpsSecond& s = seconds[i];
    out.push_back({{"second", i}, {"ok", s.ok}, {"fail", s.fail}, {"unknown", s.unknown}, {"writes_ok", s.writes_ok},
                   {"p50_ms", MsJson(s.p50_ns)}, {"p99_ms", MsJson(s.p99_ns)}, {"max_ms", MsJson(s.max_ns)}});
  }
  return out;
}

void AddOpsSecondsCharts(const std::string& title, const json& seconds, const std::vector<ChartBand>& bands,
                         const std::vector<ChartLine>& lines, const std::string& what, ReportSection* s) {
  Chart ops;
  ops.title = title + ": operations per second by outcome";
  ops.x = Axis("time since the load's start", "s");
  ops.y = Axis("operations that ended in that second", "ops/s");
  ops.series = {"ok", "fail", "unknown"};
  Chart latency;
  latency.title = title + ": latency per second";
  latency.x = Axis("time since the load's start", "s");
  latency.y = Axis("latency of the acknowledged operations", "ms", /*log=*/true);
  latency.series = {"median", "99th percentile", "max"};
  ops.data.assign(4, {});
  latency.data.assign(4, {});
  for (const json& p : seconds) {
    ops.data[0].push_back(Number(p, "second"));
    ops.data[1].push_back(Number(p, "ok"));
    ops.data[2].push_back(Number(p, "fail"));
    ops.data[3].push_back(Number(p, "unknown"));
    latency.data[0].push_back(Number(p, "second"));
    latency.data[1].push_back(Number(p, "p50_ms"));
    latency.data[2].push_back(Number(p, "p99_ms"));
    latency.data[3].push_back(Number(p, "max_ms"));
  }
  ops.bands = latency.bands = bands;
  ops.x_lines = latency.x_lines = lines;
  ops.caption =
      "Operations (writes and reads) by the second they ended in, by outcome: ok (acknowledged), fail (certainly not "
      "done: refused, or never sent while the connection was down), unknown (sent, no answer: may have happened). " +
      what;
  latency.caption =
      "The latency of the operations acknowledged in each second, from when each was due (open loop: a stalled "
      "client's wait counts), by nearest rank; a second with none acknowledged is a gap. Band and lines as above "
      "(JSON cells[].seconds[].p50_ms, p99_ms, max_ms).";
  s->charts.push_back(std::move(ops));
  s->charts.push_back(std::move(latency));
}

}  // namespace memstand

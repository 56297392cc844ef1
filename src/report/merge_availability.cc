#include "report/merge_availability.h"

#include <algorithm>
#include <string>

#include "load/availability.h"

namespace memstand::merge_internal {

namespace {

using Json = nlohmann::ordered_json;

// One command's outages from every input, on the fleet's time axis, and those the
// inputs counted but did not list.
struct Gathered {
  std::vector<CommandOutage> listed;
  uint64_t unlisted = 0;
  double unlisted_s = 0;
  bool exact = true;
};

// `c`: an input's availability.commands entry; `offset`: its measured start in seconds
// after the fleet's.
void Gather(const Json& c, double offset, Gathered* g) {
  const Json longest = c.value("longest", Json::array());
  double listed_s = 0;
  for (const Json& x : longest) {
    CommandOutage o;
    o.start_s = offset + x.value("start_s", 0.0);
    o.length_s = x.value("length_s", 0.0);
    o.recovered = x.value("recovered", true);
    o.failed = x.value("fail", uint64_t{0});
    o.unknown = x.value("unknown", uint64_t{0});
    listed_s += o.length_s;
    g->listed.push_back(o);
  }
  const uint64_t outages = c.value("outages", uint64_t{longest.size()});  // >= listed (checked)
  g->unlisted += outages - longest.size();
  g->unlisted_s += std::max(0.0, c.value("unavailable_s", listed_s) - listed_s);
  if (outages > longest.size() || !c.value("exact", true)) g->exact = false;
}

size_t IndexOf(const LoadOptions& o, const std::string& label) {
  size_t i = 0;
  while (i < o.commands.size() && o.commands[i].label != label) ++i;
  return i;  // found: CheckMergeable refused a label the mix does not have
}

}  // namespace

void MergeAvailability(const std::vector<MergeInput>& inputs, const LoadOptions& o, RunResult* r) {
  Availability& a = r->availability;
  std::vector<Gathered> gathered(o.commands.size());
  bool any = false;
  for (const MergeInput& in : inputs) {
    if (!in.doc.contains("availability")) continue;
    any = true;
    const Json& av = in.doc["availability"];
    a.connections_lost += av.value("connections_lost", uint64_t{0});
    a.reconnects += av.value("reconnects", uint64_t{0});
    a.reconnect_failures += av.value("reconnect_failures", uint64_t{0});
    const std::string first_loss = av.value("first_loss", "");
    if (a.first_loss.empty() && !first_loss.empty()) a.first_loss = in.path + ": " + first_loss;
    const double offset = MeasuredStart(in.doc) - r->measured_start_unix_s;
    const Json commands = av.value("commands", Json::object());
    for (const auto& [label, c] : commands.items()) {
      const size_t i = IndexOf(o, label);
      if (i < gathered.size()) Gather(c, offset, &gathered[i]);
    }
  }
  if (!any) return;
  for (Gathered& g : gathered) {
    CommandAvailability c = JoinOutages(std::move(g.listed));
    c.exact = g.exact;
    c.outages += g.unlisted;
    c.unavailable_s += g.unlisted_s;
    a.commands.push_back(std::move(c));
  }
  if (!r->series.empty()) a.seconds = SecondsWithoutOk(r->series.back());
}

}  // namespace memstand::merge_internal

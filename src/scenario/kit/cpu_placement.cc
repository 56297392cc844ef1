#include "scenario/kit/cpu_placement.h"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <utility>

namespace memstand {
namespace {

std::mutex& NotesMutex() {
  static std::mutex m;
  return m;
}

std::vector<ServerCpus>& Notes() {
  static std::vector<ServerCpus> notes;
  return notes;
}

CpuPlan& Plan() {
  static CpuPlan plan;
  return plan;
}

CpuList Without(const CpuList& cpus, const CpuList& taken) {
  CpuList out;
  std::set_difference(cpus.begin(), cpus.end(), taken.begin(), taken.end(), std::back_inserter(out));
  return out;
}

// "0 (pinned)" or "0-1 (not pinned)".
std::string PinnedText(const CpuList& cpus, bool pinned) {
  return (cpus.empty() ? std::string("unknown") : CpuListText(cpus)) + (pinned ? " (pinned)" : " (not pinned)");
}

}  // namespace

Result<CpuChoice> ParseCpuChoice(std::string_view text, std::string_view flag) {
  if (text == "auto") return CpuChoice{CpuChoice::Kind::kAuto, {}};
  if (text == "none") return CpuChoice{CpuChoice::Kind::kNone, {}};
  auto cpus = ParseOnlineCpuList(text, flag);
  if (!cpus.ok()) {
    return Status::InvalidArgument(cpus.status().message() + "; or auto (the default), or none (not pinned)");
  }
  return CpuChoice{CpuChoice::Kind::kList, *cpus};
}

CpuPlan PlanCpus(const CpuChoice& client, const CpuChoice& servers, const CpuList& usable) {
  using Kind = CpuChoice::Kind;
  CpuPlan plan;
  plan.usable = usable;
  plan.client = client.list;
  plan.servers = servers.list;
  const bool several = usable.size() > 1;
  if (client.kind == Kind::kAuto && several) {
    const CpuList left = Without(usable, plan.servers);
    if (!left.empty()) plan.client = {left.back()};
  }
  if (servers.kind == Kind::kAuto && several && !plan.client.empty()) plan.servers = Without(usable, plan.client);
  return plan;
}

void SetScenarioCpuPlan(const CpuPlan& plan) { Plan() = plan; }

const CpuPlan& ScenarioCpuPlan() { return Plan(); }

CpuList ScenarioServerCpus() {
  const CpuPlan& plan = Plan();
  if (!plan.servers.empty()) return plan.servers;
  return plan.client.empty() ? CpuList{} : plan.usable;
}

void NoteServerCpus(const std::string& name, pid_t pid) {
  auto cpus = ProcessCpus(pid);
  if (!cpus.ok()) return;  // gone already: nothing to say of it
  std::lock_guard<std::mutex> lock(NotesMutex());
  for (ServerCpus& s : Notes()) {
    if (s.name != name) continue;
    s.cpus = CpuUnion(s.cpus, *cpus);
    return;
  }
  Notes().push_back({name, *cpus});
}

std::vector<ServerCpus> NotedServerCpus() {
  std::lock_guard<std::mutex> lock(NotesMutex());
  return Notes();
}

std::string CpuReport::Describe() const {
  std::string out = "CPUs (read back from the kernel): client " + PinnedText(client, client_pinned) + "; servers ";
  if (servers.empty()) return out + "none started";
  // Servers on the same CPUs share one group: "0 (pinned): a, b".
  std::vector<std::pair<CpuList, std::string>> groups;
  for (const ServerCpus& s : servers) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == s.cpus; });
    if (g == groups.end()) {
      groups.push_back({s.cpus, s.name});
    } else {
      g->second += ", " + s.name;
    }
  }
  for (size_t i = 0; i < groups.size(); ++i) {
    out += (i > 0 ? "; " : "") + PinnedText(groups[i].first, servers_pinned) + ": " + groups[i].second;
  }
  return out;
}

nlohmann::json CpuReport::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const ServerCpus& s : servers) list.push_back({{"name", s.name}, {"cpus", s.cpus}});
  return {{"client", client}, {"client_pinned", client_pinned}, {"servers", list}, {"servers_pinned", servers_pinned}};
}

CpuReport CollectCpuReport() {
  CpuReport r;
  auto client = ThisThreadCpus();
  if (client.ok()) r.client = *client;
  r.client_pinned = !ScenarioCpuPlan().client.empty();
  r.servers_pinned = !ScenarioCpuPlan().servers.empty();
  r.servers = NotedServerCpus();
  return r;
}

}  // namespace memstand

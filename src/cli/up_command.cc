// `memstand up`: a TopologySpec from a TOML file and flags -> a detached Topology ->
// the node table and a state file -> exit 0, leaving the servers running.
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "cli/cli.h"
#include "cli/interrupt.h"
#include "cli/stand_common.h"
#include "cli/subcommands.h"
#include "core/cpu_set.h"
#include "stand/topology.h"
#include "stand/topology_toml.h"
#include "util/parse.h"

namespace memstand::cli {
namespace {

struct UpFlags {
  std::string topology;
  std::string file;
  std::string name;
  int masters = 0;
  int replicas = 0;
  int sentinels = 0;
  int members = 0;
  int storages = 0;
  int routers = 0;
  int port = 0;
  int peer_port = 0;
  std::vector<std::string> settings;
  std::string binary;
  std::string init_lua;
  std::string ready_timeout;
  std::string run_dir;
  std::string server_cpus;
  // Which of them were given (a file's values are kept unless a flag overrides).
  CLI::Option* name_opt = nullptr;
  CLI::Option* masters_opt = nullptr;
  CLI::Option* replicas_opt = nullptr;
  CLI::Option* sentinels_opt = nullptr;
  CLI::Option* members_opt = nullptr;
  CLI::Option* storages_opt = nullptr;
  CLI::Option* routers_opt = nullptr;
  CLI::Option* port_opt = nullptr;
  CLI::Option* peer_port_opt = nullptr;
  CLI::Option* server_cpus_opt = nullptr;
};

// The kind: the positional TOPOLOGY, the file's `kind`, or both when they agree.
Status ApplyKind(const UpFlags& f, bool from_file, TopologySpec* spec) {
  if (f.topology.empty()) {
    if (from_file) return Status::OK();
    return Status::InvalidArgument("name a TOPOLOGY (" + KnownTopologyKinds() + ") or give --file");
  }
  auto kind = ParseTopologyKind(f.topology);
  if (!kind.ok()) return kind.status();
  if (from_file && *kind != spec->kind) {
    return Status::InvalidArgument("TOPOLOGY '" + f.topology + "' differs from kind '" +
                                   TopologyKindName(spec->kind) + "' in " + f.file);
  }
  spec->kind = *kind;
  return Status::OK();
}

Result<TopologySpec> BuildSpec(const UpFlags& f) {
  TopologySpec spec;
  if (!f.file.empty()) {
    auto loaded = LoadTopologyFile(f.file);
    if (!loaded.ok()) return loaded.status();
    spec = *loaded;
  }
  if (Status s = ApplyKind(f, !f.file.empty(), &spec); !s.ok()) return s;
  if (f.name_opt->count() > 0 && f.name.empty()) {
    return Status::InvalidArgument("--name: an empty name; give one (letters, digits, '.', '-', '_'), or "
                                   "leave --name out for the kind's name");
  }
  if (!f.name.empty()) spec.name = f.name;
  if (f.masters_opt->count() > 0) spec.masters = f.masters;
  if (f.replicas_opt->count() > 0) spec.replicas = f.replicas;
  if (f.sentinels_opt->count() > 0) spec.sentinels = f.sentinels;
  if (f.members_opt->count() > 0) spec.members = f.members;
  if (f.storages_opt->count() > 0) spec.storages = f.storages;
  if (f.routers_opt->count() > 0) spec.routers = f.routers;
  if (f.port_opt->count() > 0) spec.port = f.port;
  if (f.peer_port_opt->count() > 0) spec.peer_port = f.peer_port;
  if (!f.binary.empty()) spec.binary = f.binary;
  if (!f.init_lua.empty()) spec.init_lua = f.init_lua;
  for (const std::string& text : f.settings) {
    auto kv = ParseSetting(text);
    if (!kv.ok()) return kv.status();
    spec.settings.push_back(*kv);
  }
  if (!f.ready_timeout.empty()) {
    auto d = ParseDurationSeconds(f.ready_timeout);
    if (!d.ok()) return d.status().WithContext("--ready-timeout");
    spec.ready_timeout_ms = static_cast<int>(*d * 1000);
  }
  // A --masters 0 or --replicas 0 on the command line is a value to check, not "unset".
  if (f.masters_opt->count() > 0 && f.masters == 0) {
    return Status::InvalidArgument("--masters 0: a cluster needs at least 1 master");
  }
  if (f.replicas_opt->count() > 0 && f.replicas < 0) {  // -1 is the spec's "default"
    return Status::InvalidArgument("--replicas " + std::to_string(f.replicas) + ": must be 0 or more");
  }
  if (f.sentinels_opt->count() > 0 && f.sentinels < 1) {
    return Status::InvalidArgument("--sentinels " + std::to_string(f.sentinels) + ": at least 1");
  }
  for (const auto& [flag, opt, value] : {std::tuple{"--storages", f.storages_opt, f.storages},
                                         std::tuple{"--routers", f.routers_opt, f.routers}}) {
    if (opt->count() > 0 && value < 1) {  // -1 is the spec's "default"
      return Status::InvalidArgument(std::string(flag) + " " + std::to_string(value) + ": at least 1");
    }
  }
  if (f.members_opt->count() > 0 && f.members < 1) {
    return Status::InvalidArgument("--members " + std::to_string(f.members) + ": at least 1");
  }
  return spec;
}

void PrintUp(const Topology& t, const std::string& root) {
  const TopologyRecord& r = t.record();
  fmt::print("memstand up: {} '{}' is up: {} process(es), run folder {}\n", r.kind, r.name,
             r.nodes.size(), r.dir);
  PrintNodeTable(r, /*with_state=*/false);
  if (t.spec().kind == TopologyKind::kTarantoolSharded) {  // how to load it (docs/stand.md, Tarantool sharded)
    std::string targets;
    for (const NodeRecord& n : r.nodes) {
      if (n.role == "router") targets += fmt::format("--target tarantool://{}:{} ", n.host, n.port);
    }
    fmt::print("load it through its routers: memstand run {}--command \"call shard.replace 'test' [__seq__, nil, "
               "__rand:128__]\"\n",
               targets);
  }
  fmt::print("state file: {}\n", t.state_path());
  fmt::print("stop it with: {}\n", DownCommand(r.name, root));
}

int UpBody(const UpFlags& f) {
  auto spec = BuildSpec(f);
  if (!spec.ok()) return FailStand("up", spec.status());
  TopologyOptions options;
  if (f.server_cpus_opt->count() > 0) {
    auto cpus = ParseOnlineCpuList(f.server_cpus, "--server-cpus");
    if (!cpus.ok()) return FailStand("up", cpus.status());
    options.cpus = *cpus;
  }
  InstallInterruptHandlers();
  options.run_root = RunRoot(f.run_dir);
  options.detach = true;
  options.cancel = InterruptFlag();
  auto topology = Topology::Start(*spec, options);
  if (!topology.ok()) {
    if (InterruptFlag()->load()) {
      fmt::print(stderr, "memstand up: interrupted; everything started was stopped\n");
      return kExitInterrupted;
    }
    return FailStand("up", topology.status());
  }
  PrintUp(**topology, options.run_root);
  (*topology)->Detach();
  return kExitOk;
}

}  // namespace

SubcommandBody SetupUp(CLI::App* app) {
  auto f = std::make_shared<UpFlags>();
  app->add_option("topology", f->topology, "redis, redis-replica, redis-cluster, redis-sentinel, memcached, "
                  "tarantool, tarantool-replicaset, tarantool-sharded, etcd or etcd-cluster");
  app->add_option("--file", f->file, "A topology file (TOML, docs/stand.md); flags override it");
  f->name_opt = app->add_option("--name", f->name, "Names the topology and its run folder (default: the kind)");
  f->masters_opt = app->add_option("--masters", f->masters, "redis-cluster: masters (default 8)")
                       ->default_str("");
  f->replicas_opt =
      app->add_option(
             "--replicas", f->replicas,
             "redis-replica: replicas (default 1); redis-cluster: replicas per master (default 0); "
             "tarantool-replicaset: replicas of the master (default 3); tarantool-sharded: replicas of each "
             "storage's master (default 1); redis-sentinel: replicas of the primary (default 2)")
          ->default_str("");
  f->sentinels_opt =
      app->add_option("--sentinels", f->sentinels, "redis-sentinel: Sentinels watching the primary (default 3)")
          ->default_str("");
  f->members_opt =
      app->add_option("--members", f->members, "etcd-cluster: members (default 3)")->default_str("");
  f->storages_opt =
      app->add_option("--storages", f->storages, "tarantool-sharded: storage replica sets (default 2)")
          ->default_str("");
  f->routers_opt = app->add_option("--routers", f->routers, "tarantool-sharded: routers (default 2)")->default_str("");
  f->port_opt =
      app->add_option("--port", f->port,
                      "First client port; nodes take port, port+1, ... (default: free ports)")
          ->default_str("");
  f->peer_port_opt = app->add_option("--peer-port", f->peer_port,
                                     "etcd: peer port; etcd-cluster: the first member's (default: free)")
                         ->default_str("");
  app->add_option("--set", f->settings,
                  "KEY=VALUE server option in the server's own name (repeatable): redis "
                  "directive, memcached long option, tarantool box.cfg key, etcd flag");
  app->add_option("--binary", f->binary, "Server program (default: the Debian package's)");
  app->add_option("--init-lua", f->init_lua, "tarantool: a Lua file run after box.cfg (tarantool-replicaset: on the master; "
                  "tarantool-sharded: on every storage master)");
  app->add_option("--ready-timeout", f->ready_timeout,
                  "Bound for each wait: a server's start, replication, the cluster (default 20s)");
  f->server_cpus_opt = app->add_option("--server-cpus", f->server_cpus,
                  "CPU list (e.g. 0, 0-3, 0,2-3) every process of the topology runs on (its affinity, set "
                  "before exec; `memstand ps` shows it). Default: not pinned");
  AddRunDirFlag(app, &f->run_dir);
  return [f] { return UpBody(*f); };
}

}  // namespace memstand::cli

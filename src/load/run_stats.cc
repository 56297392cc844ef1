#include "load/run_stats.h"

#include <algorithm>

namespace memstand {

void CommandStats::Add(const CommandStats& o) {
  ops += o.ops;
  errors += o.errors;
  hits += o.hits;
  misses += o.misses;
  bytes_out += o.bytes_out;
  bytes_in += o.bytes_in;
  zero_latency += o.zero_latency;
  failed += o.failed;
  unknown += o.unknown;
  lost += o.lost;
  latency_ns.Add(o.latency_ns);
  service_ns.Add(o.service_ns);
  send_lag_ns.Add(o.send_lag_ns);
  for (const auto& [prefix, kind] : o.errors_by_prefix) {
    ErrorKind& mine = errors_by_prefix[prefix];
    if (mine.count == 0) {
      mine.example = kind.example;
      mine.first_reply = kind.first_reply;
    }
    mine.count += kind.count;
  }
}

void CommandStats::Reset() {
  ops = errors = hits = misses = bytes_out = bytes_in = zero_latency = failed = unknown = lost = 0;
  latency_ns.Reset();
  service_ns.Reset();
  send_lag_ns.Reset();
  errors_by_prefix.clear();
}

void ThreadStats::Add(const ThreadStats& o) {
  if (commands.size() < o.commands.size()) {
    commands.resize(o.commands.size());
    sent_by_command.resize(o.commands.size());
  }
  if (error_replies_all.size() < o.error_replies_all.size()) {
    error_replies_all.resize(o.error_replies_all.size());
  }
  for (size_t i = 0; i < o.error_replies_all.size(); ++i) error_replies_all[i] += o.error_replies_all[i];
  for (size_t i = 0; i < o.commands.size(); ++i) {
    commands[i].Add(o.commands[i]);
    sent_by_command[i] += o.sent_by_command[i];
  }
  sent_total += o.sent_total;
  measured_sent += o.measured_sent;
  for (const auto& [name, n] : o.setup_commands) setup_commands[name] += n;
  socket_bytes_read += o.socket_bytes_read;
  socket_bytes_written += o.socket_bytes_written;
  read_calls += o.read_calls;
  write_calls += o.write_calls;
  wait_calls += o.wait_calls;
  receive_buffer_waits += o.receive_buffer_waits;
  cpu_user_s += o.cpu_user_s;
  cpu_sys_s += o.cpu_sys_s;
  spin_s += o.spin_s;
  spin_polls += o.spin_polls;
  realtime_priority = std::max(realtime_priority, o.realtime_priority);
  cpus = CpuUnion(cpus, o.cpus);
  protocol_errors += o.protocol_errors;
  connection_errors += o.connection_errors;
  unsent_intended += o.unsent_intended;
  sent_early += o.sent_early;
  cluster_moved += o.cluster_moved;
  cluster_connections_opened += o.cluster_connections_opened;
  cluster_ask += o.cluster_ask;
  cluster_tryagain += o.cluster_tryagain;
  cluster_map_updates += o.cluster_map_updates;
  get_hits_all += o.get_hits_all;
  get_misses_all += o.get_misses_all;
  writes_applied += o.writes_applied;
  faults.Add(o.faults);
}

namespace {

void AddEach(std::vector<uint64_t>* to, const std::vector<uint64_t>& from) {
  if (to->size() < from.size()) to->resize(from.size());
  for (size_t i = 0; i < from.size(); ++i) (*to)[i] += from[i];
}

}  // namespace

void FaultStats::Add(const FaultStats& o) {
  connections_lost += o.connections_lost;
  reconnects += o.reconnects;
  reconnect_failures += o.reconnect_failures;
  if (first_loss.empty()) first_loss = o.first_loss;
  AddEach(&lost_in_flight, o.lost_in_flight);
  AddEach(&sent_at_last_loss, o.sent_at_last_loss);
  for (const auto& [name, n] : o.setup_at_last_loss) setup_at_last_loss[name] += n;
  if (outages.size() < o.outages.size()) outages.resize(o.outages.size());
  for (size_t i = 0; i < o.outages.size(); ++i) {
    outages[i].insert(outages[i].end(), o.outages[i].begin(), o.outages[i].end());
  }
}

}  // namespace memstand

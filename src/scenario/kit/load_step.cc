#include "scenario/kit/load_step.h"

#include "load/command_spec.h"
#include "load/engine.h"

namespace memstand {

Result<LoadStepResult> RunLoadStep(const ServerUnderTest& server, const LoadStepOptions& o) {
  LoadOptions load;
  load.target = server.target();
  load.protocol = server.protocol();
  load.threads = 1;
  load.clients = o.connections;
  load.pipeline = o.pipeline;
  load.rate = o.rate;
  load.requests = o.requests;
  load.key_prefix = o.key_prefix;
  load.key_min = o.first_key;
  load.key_max = o.last_key;
  load.value = o.value;
  load.seed = o.seed;
  load.stop_request = o.stop;
  KeyPatternSpec sequential;
  sequential.kind = KeyPatternSpec::Kind::kSequential;
  CommandLimits limits;
  limits.key_max = o.last_key;
  limits.value_max = o.value.keyed != nullptr ? o.value.keyed->max_size() : o.value.max_size;
  auto spec = MakeCommandSpec(load.protocol, server.WriteTemplate(), o.key_prefix, sequential, 1, limits);
  if (!spec.ok()) return spec.status();
  load.commands.push_back(*spec);
  auto run = RunLoad(load, o.interrupt);
  if (!run.ok()) return run.status();
  LoadStepResult r;
  const CommandStats& s = run->totals.commands.at(0);
  r.successful = s.ops - s.errors;
  r.rejected = s.errors;
  r.unanswered = run->unanswered;
  r.attempted = s.ops + run->unanswered;
  for (const auto& [prefix, kind] : s.errors_by_prefix) {
    if (r.first_rejected == 0 || kind.first_reply < r.first_rejected) {
      r.first_rejected = kind.first_reply;
      r.first_error = kind.example;
    }
  }
  r.failure = run->failure;
  r.interrupted = run->interrupted;
  r.client_cpu_s = run->client_cpu_s();
  r.bytes_out = s.bytes_out;
  r.bytes_in = s.bytes_in;
  r.elapsed_s = run->measured_s;
  return r;
}

}  // namespace memstand

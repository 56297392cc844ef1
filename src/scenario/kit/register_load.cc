#include "scenario/kit/register_load.h"

#include "load/command_spec.h"

namespace memstand {

Status MakeRegisterLoad(const RegisterLoad& spec, LoadOptions* load) {
  load->threads = 1;
  load->clients = spec.clients;
  load->pipeline = 1;
  load->rate = spec.rate;
  load->duration_s = spec.duration_s;
  load->key_prefix = spec.key_prefix;
  load->key_min = 0;
  load->key_max = spec.keys - 1;
  load->value.min_size = load->value.max_size = kRegisterValueSize;
  load->value.content = ValueSpec::Content::kRandom;
  load->seed = spec.seed;
  load->request_timeout_ms = 1000;
  load->connect_timeout_ms = 1000;
  load->reconnect.enabled = true;
  load->reconnect.backoff_min_ms = spec.backoff_min_ms;
  load->reconnect.backoff_max_ms = spec.backoff_max_ms;
  load->history_path = spec.history_path;
  CommandLimits limits;
  limits.key_max = load->key_max;
  limits.value_max = kRegisterValueSize;
  load->commands.clear();
  for (const std::string& text : spec.commands) {
    auto command = MakeCommandSpec(load->protocol, text, spec.key_prefix, KeyPatternSpec{}, 1, limits);
    if (!command.ok()) return command.status();
    load->commands.push_back(*command);
  }
  return Status::OK();
}

}  // namespace memstand

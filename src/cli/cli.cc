#include "cli/cli.h"

#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "cli/subcommands.h"
#include "cli/version.h"
#include "util/redact.h"
#include "util/stdout_guard.h"
#include "util/terminal_text.h"

namespace memstand::cli {

namespace {

const Subcommand kSubcommands[] = {
    {"run", "Generate load against a Redis-protocol server (none given: start one)", SetupRun},
    {"memtier", "memtier_benchmark's command line with memtier's meanings (-h HOST, -n per client), "
                "run by memstand and printed in memtier's shape; 'memstand memtier --help' lists its flags",
     SetupMemtier},
    {"sweep", "Runs over increasing clients, pipeline or rate; a row per step and the knee",
     SetupSweep},
    {"up", "Start a local topology (redis, redis-replica, redis-cluster, redis-sentinel, memcached, tarantool, "
           "tarantool-replicaset, etcd, etcd-cluster) and leave it running", SetupUp},
    {"ps", "List the topologies memstand started, with each process alive or gone", SetupPs},
    {"down", "Stop topologies memstand started (all, or the one named) and remove their folders",
     SetupDown},
    {"dataset", "The scenarios' products dataset: stats, or export as JSONL or CSV", SetupDataset},
    {"scenario", "Experiments: list them, or run one with its invariants checked", SetupScenario},
    {"relay", "A TCP relay that delays each chunk, in order, and measures its own error", SetupRelay},
    {"compare", "Two runs or --runs series side by side: ratios B/A, and whether B lies outside A's spread",
     SetupCompare},
    {"report", "One self-contained HTML page with charts of run, sweep and scenario JSON files",
     SetupReport},
    {"merge", "The run JSONs of a fleet's shards (--shard K/N) as one exact result: histograms "
              "added, counts summed, series aligned", SetupMerge},
    {"check", "A history's checks: lost writes (reading every written key), per-key linearizability, "
              "monotonic reads, read-your-writes, etcd revisions; the evidence of each violation", SetupCheck},
    {"history", "A history file: export it as Jepsen's EDN or JSON for Knossos or Elle", SetupHistory},
};

// Thousands of connections need more descriptors than the usual soft limit of 1024.
void RaiseFileLimit() {
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

std::string g_command_line;

// An argument as a shell would need it: bare when it is plain, else single-quoted.
std::string ShellWord(std::string_view a) {
  const bool plain = !a.empty() && a.find_first_not_of(
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/@+%") == std::string_view::npos;
  if (plain) return std::string(a);
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool IsSubcommand(const std::string& name) {
  for (const Subcommand& s : kSubcommands) {
    if (name == s.name) return true;
  }
  return false;
}

// A list option's captured default is "[]": in --help (and so the man page) that reads as
// a value, where the default is "none given". Every option of every subcommand, recursively.
void HideEmptyListDefaults(CLI::App* app) {
  for (CLI::Option* opt : app->get_options([](const CLI::Option*) { return true; })) {
    if (opt->get_default_str() == "[]") opt->default_str("");
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; }))
    HideEmptyListDefaults(sub);
}

// The subcommand as far as parsing got: "scenario run working-set" (empty: none).
std::string ParsedPath(const CLI::App& app) {
  std::string path;
  for (const CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += (path.empty() ? "" : " ") + at->get_name();
  }
  return path;
}

// What stdout received decides too: a report lost to a full disk, /dev/full or a closed
// pipe is a message and exit 1 where the code would be 0, 1 or 3 (2 and 130 say more).
int CheckStdout(const std::string& command, int code) {
  const int err = StdoutError();
  if (err == 0) return code;
  fmt::print(stderr, "memstand{}{}: cannot write the standard output: {}; what it shows is incomplete\n",
             command.empty() ? "" : " ", command, std::strerror(err));
  return code == kExitUsage || code == kExitInterrupted ? code : kExitFailed;
}

}  // namespace

const std::string& CommandLine() { return g_command_line; }

Status RefuseEmptyPaths(const CLI::App& app,
                        std::initializer_list<std::pair<const char*, const std::string*>> outputs) {
  for (const auto& [flag, path] : outputs) {
    if (app.count(flag) > 0 && path->empty()) {
      return Status::InvalidArgument(std::string(flag) + ": needs a file path, got ''");
    }
  }
  return Status::OK();
}

const CLI::Validator& WholeNumberU64() {
  static const CLI::Validator kWholeNumber(
      [](std::string& text) -> std::string {
        static const std::string kMax = "18446744073709551615";
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (digits && (text.size() < kMax.size() || (text.size() == kMax.size() && text <= kMax))) {
          return "";
        }
        return "'" + text + "' is not a whole number from 0 to " + kMax;
      },
      "UINT64");
  return kWholeNumber;
}

int FailWith(const char* command, const std::string& message, int code) {
  // A message may quote an input file's text (a key, a verdict): no control characters.
  fmt::print(stderr, "memstand {}: {}\n", command, TerminalSafe(RedactSecrets(message)));
  return code;
}

namespace {

int ParseAndRun(int argc, char** argv, std::string* command) {
  std::signal(SIGPIPE, SIG_IGN);  // a peer closing a socket is an error value, not a signal
  RaiseFileLimit();
  RegisterArgvSecrets(argc, argv);  // before any message can quote the command line
  g_command_line = "memstand";
  for (int i = 1; i < argc; ++i) g_command_line += " " + ShellWord(argv[i]);
  g_command_line = RedactSecrets(g_command_line);
  CLI::App app{"memstand: a test stand for in-memory data systems"};
  app.set_version_flag("--version", VersionText());
  // Every option's help shows its default (subcommands inherit this from the app).
  app.option_defaults()->always_capture_default();
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, SubcommandBody>> bodies;
  for (const Subcommand& s : kSubcommands) {
    CLI::App* sub = app.add_subcommand(s.name, s.help);
    bodies.emplace_back(sub, s.setup(sub));
  }
  // memtier's and redis-benchmark's host flag is -h; here -h is help, and help would exit
  // 0 with nothing sent: a host after it is refused instead.
  for (int i = 2; i + 1 < argc; ++i) {
    if (std::string_view(argv[i]) == "-h" && argv[i + 1][0] != '-' &&
        (std::string_view(argv[1]) == "run" || std::string_view(argv[1]) == "sweep")) {
      const std::string host = Abbreviate(RedactSecrets(argv[i + 1]));
      fmt::print(stderr,
                 "memstand {}: '-h {}': -h is help here; did you mean -s/--server (or `memstand memtier`, "
                 "which takes memtier_benchmark's flags with -h as the host)? The host is -s/--server "
                 "(or --target URL), e.g. -s {} -p 6379\n",
                 argv[1], host, host);
      return kExitUsage;
    }
  }
  if (argc > 1 && argv[1][0] != '-' && !IsSubcommand(argv[1])) {
    std::string known;
    for (const Subcommand& s : kSubcommands) known += (known.empty() ? "" : ", ") + std::string(s.name);
    fmt::print(stderr, "memstand: unknown subcommand '{}'; known: {}\n",
               Abbreviate(RedactSecrets(argv[1])), known);
    return kExitUsage;
  }
  HideEmptyListDefaults(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The subcommand the error is in, as far as parsing got ("memstand scenario run
    // working-set"), for its --help.
    const std::string parsed = ParsedPath(app);
    const std::string path = parsed.empty() ? "memstand" : "memstand " + parsed;
    // CLI11 quotes arguments it did not expect: a URL with a password among them.
    fmt::print(stderr, "memstand: {}\nRun '{} --help' for the flags.\n", Abbreviate(RedactSecrets(e.what()), 400),
               path);
    return kExitUsage;
  }
  MaskArgvSecrets(argc, argv);  // CLI11 holds copies; /proc/PID/cmdline shows argv
  *command = ParsedPath(app);
  for (auto& [sub, body] : bodies) {
    if (!sub->parsed()) continue;
    try {
      return body();
    } catch (const std::system_error& e) {  // fmt::print to a stream other than stdout that failed
      return FailWith(command->c_str(), e.what(), kExitFailed);
    }
  }
  return kExitUsage;
}

}  // namespace

int Main(int argc, char** argv) {
  GuardStdout();  // before anything is printed: stdout's failures are kept, checked below
  std::string command;
  const int code = ParseAndRun(argc, argv, &command);
  return CheckStdout(command, code);
}

}  // namespace memstand::cli

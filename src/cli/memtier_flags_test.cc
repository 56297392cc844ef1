#include "cli/memtier_flags.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/run_flags.h"

namespace memstand::cli {
namespace {

std::vector<std::string> Args(const std::vector<std::string>& a) { return a; }

// The value following `flag` in the run args, or "" when absent.
std::string After(const MemtierPlan& p, const std::string& flag) {
  auto it = std::find(p.run_args.begin(), p.run_args.end(), flag);
  return it == p.run_args.end() || it + 1 == p.run_args.end() ? "" : *(it + 1);
}

TEST(MemtierFlags, PublishedLineMaps) {
  auto p = MapMemtierArgs(Args({"--cluster-mode", "-s", "10.0.0.1", "-p", "7000", "--ratio=1:10",
                                "--key-pattern=R:R", "--key-maximum=100000", "-d", "100", "-c", "50",
                                "-t", "4", "--test-time=60", "--print-percentiles", "50,99,99.9",
                                "--hide-histogram"}),
                          1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->cluster_mode);
  EXPECT_TRUE(p->hide_histogram);
  EXPECT_NE(std::find(p->run_args.begin(), p->run_args.end(), "--cluster"), p->run_args.end());
  EXPECT_EQ(After(*p, "-s"), "10.0.0.1");
  EXPECT_EQ(After(*p, "-p"), "7000");
  EXPECT_EQ(After(*p, "--duration"), "60s");
  EXPECT_EQ(After(*p, "--ratio"), "1:10");
  EXPECT_EQ(After(*p, "--key-pattern"), "R:R");
  EXPECT_EQ(After(*p, "--key-maximum"), "100000");
  EXPECT_EQ(After(*p, "-d"), "100");
  EXPECT_EQ(After(*p, "--percentiles"), "50,99,99.9");
  EXPECT_EQ(After(*p, "--requests"), "");
}

TEST(MemtierFlags, ReconnectOnErrorIsReconnect) {
  auto p = MapMemtierArgs(Args({"--reconnect-on-error", "--max-reconnect-attempts=7",
                                "--reconnect-backoff-factor=2"}),
                          1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NE(std::find(p->run_args.begin(), p->run_args.end(), "--reconnect"), p->run_args.end());
  EXPECT_EQ(After(*p, "--reconnect-attempts"), "7");
  auto alone = MapMemtierArgs(Args({"--max-reconnect-attempts=7"}), 1);
  ASSERT_FALSE(alone.ok());
  EXPECT_NE(alone.status().message().find("needs --reconnect-on-error"), std::string::npos);
  auto factor = MapMemtierArgs(Args({"--reconnect-on-error", "--reconnect-backoff-factor=1.5"}), 1);
  ASSERT_FALSE(factor.ok());
  EXPECT_NE(factor.status().message().find("--reconnect-backoff-factor"), std::string::npos);
  auto bad = MapMemtierArgs(Args({"--reconnect-on-error", "--max-reconnect-attempts=x"}), 1);
  ASSERT_FALSE(bad.ok());
}

TEST(MemtierFlags, RequestsArePerClientAndHIsHost) {
  auto p = MapMemtierArgs(Args({"-h", "127.0.0.1", "-n", "7", "-c", "3", "-t", "2"}), 1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(After(*p, "-s"), "127.0.0.1");
  EXPECT_EQ(After(*p, "--requests"), "42");  // 7 x 3 x 2
  auto d = MapMemtierArgs({}, 1);  // memtier's defaults: 10000 per client, 50 x 4, localhost:6379
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(After(*d, "--requests"), "2000000");
  EXPECT_EQ(After(*d, "-s"), "localhost");
  EXPECT_EQ(After(*d, "-p"), "6379");
  EXPECT_EQ(After(*d, "--key-maximum"), "10000000");
}

// -n allkeys counts as memtier's config_init_defaults does: key_maximum - key_minimum
// requests per client, and with --key-pattern P:P that over the clients plus one.
TEST(MemtierFlags, AllkeysCountsAsMemtier) {
  const auto requests = [](std::vector<std::string> args) {
    auto p = MapMemtierArgs(Args(args), 1);
    EXPECT_TRUE(p.ok()) << p.status().message();
    return p.ok() ? After(*p, "--requests") : std::string();
  };
  // P:P over 3 x 4 clients, keys 5..104: 99 / 12 + 1 = 9 per client, 108 in all (>= the 100 keys).
  EXPECT_EQ(requests({"-n", "allkeys", "--key-pattern=P:P", "--key-minimum=5", "--key-maximum=104", "-c", "3",
                      "-t", "4"}),
            "108");
  // 997 keys over 10 clients: 996 / 10 + 1 = 100 per client.
  EXPECT_EQ(requests({"-n", "allkeys", "--key-pattern=P:P", "--key-minimum=1", "--key-maximum=997", "-c", "5",
                      "-t", "2"}),
            "1000");
  // Any other pattern: the whole span per client.
  EXPECT_EQ(requests({"-n", "allkeys", "--key-minimum=5", "--key-maximum=104", "-c", "3", "-t", "1"}), "297");
  EXPECT_EQ(requests({"-n", "allkeys", "--key-pattern=S:S", "--key-maximum=10", "-c", "2", "-t", "1"}), "20");
  EXPECT_EQ(requests({"-n", "allkeys", "-c", "1", "-t", "1"}), "10000000");  // memtier's 0..10000000
  // One key: P:P sends 1 per client; otherwise the span is 0 and memtier falls back to 10000.
  EXPECT_EQ(requests({"-n", "allkeys", "--key-pattern=P:P", "--key-minimum=7", "--key-maximum=7", "-c", "2",
                      "-t", "1"}),
            "2");
  EXPECT_EQ(requests({"-n", "allkeys", "--key-minimum=7", "--key-maximum=7", "-c", "2", "-t", "1"}), "20000");
  auto upside_down = MapMemtierArgs(Args({"-n", "allkeys", "--key-minimum=9", "--key-maximum=3"}), 1);
  ASSERT_FALSE(upside_down.ok());
  EXPECT_EQ(upside_down.status().message(), "memtier flag --requests allkeys: --key-maximum is below --key-minimum");
}

// What --json-out-file's "configuration" takes from the line itself.
TEST(MemtierFlags, JsonLineHoldsWhatTheOptionsDoNot) {
  auto plain = MapMemtierArgs(Args({"-s", "127.0.0.1", "-p", "7000"}), 1);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->json_line.uri_given);
  EXPECT_EQ(plain->json_line.connection_timeout_s, 0u);
  EXPECT_EQ(plain->json_line.expiry_range, "0:0");
  auto p = MapMemtierArgs(Args({"-u", "redis://127.0.0.1:7000", "-P", "resp2", "--connection-timeout=4", "-o",
                                "r.txt", "--data-size-list=64:1", "--expiry-range=30-30", "--print-all-runs"}),
                          1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(p->json_line.uri_given);
  EXPECT_TRUE(p->json_line.resp2);
  EXPECT_EQ(p->json_line.connection_timeout_s, 4u);
  EXPECT_EQ(p->json_line.out_file, "r.txt");
  EXPECT_EQ(p->json_line.data_size_list, "64:1");
  EXPECT_EQ(p->json_line.expiry_range, "30:30");
  EXPECT_TRUE(p->json_line.print_all_runs);
}

TEST(MemtierFlags, RateLimitingIsPerConnection) {
  auto p = MapMemtierArgs(Args({"--rate-limiting=100", "-c", "5", "-t", "2", "--test-time", "2"}), 1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(After(*p, "--rate"), "1000");
}

TEST(MemtierFlags, ProtocolsDbAndSeed) {
  auto p = MapMemtierArgs(Args({"-P", "memcache_text", "--select-db=3", "--randomize"}), 1234);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(After(*p, "--protocol"), "memcache");
  EXPECT_EQ(After(*p, "--db"), "3");
  EXPECT_EQ(After(*p, "--seed"), "1234");
  auto r3 = MapMemtierArgs(Args({"-Presp3"}), 1);
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(After(*r3, "--resp"), "3");
}

TEST(MemtierFlags, TlsFlagsMapOntoRuns) {
  auto p = MapMemtierArgs(Args({"--tls", "--cert=c.pem", "--key=k.pem", "--cacert=ca.pem", "--tls-skip-verify",
                                "--sni", "example.test"}),
                          1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NE(std::find(p->run_args.begin(), p->run_args.end(), "--tls"), p->run_args.end());
  EXPECT_NE(std::find(p->run_args.begin(), p->run_args.end(), "--tls-skip-verify"), p->run_args.end());
  EXPECT_EQ(After(*p, "--tls-cert"), "c.pem");
  EXPECT_EQ(After(*p, "--tls-key"), "k.pem");
  EXPECT_EQ(After(*p, "--tls-ca"), "ca.pem");
  EXPECT_EQ(After(*p, "--sni"), "example.test");
  auto u = MapMemtierArgs(Args({"-u", "rediss://127.0.0.1:6380"}), 1);
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(After(*u, "--target"), "rediss://127.0.0.1:6380");
}

TEST(MemtierFlags, FixedExpiryBecomesSetEx) {
  auto p = MapMemtierArgs(Args({"--expiry-range=30-30", "--ratio", "2:5", "--key-pattern", "S:R"}), 1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<std::string> want = {"--command", "SET __key__ __data__ EX 30",
                                         "--command-key-pattern", "S", "--command-ratio", "2", "--command", "GET __key__",
                                         "--command-key-pattern", "R", "--command-ratio", "5"};
  auto it = std::search(p->run_args.begin(), p->run_args.end(), want.begin(), want.end());
  EXPECT_NE(it, p->run_args.end());
  // 1:0 is SETs only: no GET template with a weight of 0 (which run refuses).
  auto sets = MapMemtierArgs(Args({"--expiry-range=30-30", "--ratio=1:0"}), 1);
  ASSERT_TRUE(sets.ok()) << sets.status().message();
  EXPECT_EQ(std::find(sets->run_args.begin(), sets->run_args.end(), "GET __key__"), sets->run_args.end());
  EXPECT_EQ(After(*sets, "--command"), "SET __key__ __data__ EX 30");
}

TEST(MemtierFlags, RefusedByNameWithReason) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--tls-protocols", "TLSv1.2"}, "--tls-protocols"},
      {{"--reconnect-interval=5"}, "--reconnect-interval"},
      {{"-D"}, "--debug"},
      {{"--multi-key-get", "3"}, "--multi-key-get"},
      {{"--key-pattern=P:R"}, "P:P"},
      {{"--key-pattern=X:R"}, "--key-pattern"},
      {{"-n", "5", "--test-time", "2"}, "mutually exclusive"},
      {{"--no-such-flag"}, "not a memtier_benchmark flag"},
      {{"--expiry-range=1-9"}, "--expiry-range"},
      {{"-P", "memcache_binary"}, "memcache_binary"},
      // Issue #25 rows 16 and 22: the memtier flag the user gave is the one named.
      {{"--test-time", "0"}, "memtier flag --test-time: must be above 0"},
      {{"--test-time=0"}, "memtier flag --test-time: must be above 0"},
      {{"--select-db=-1"}, "memtier flag --select-db: '-1' is not a whole number"},
      {{"--hdr-file-prefix", ""}, "memtier flag --hdr-file-prefix: needs a file path, got ''"},
      {{"--json-out-file="}, "memtier flag --json-out-file: needs a file path, got ''"},
      {{"-o", ""}, "memtier flag --out-file: needs a file path, got ''"},
  };
  for (const auto& [args, needle] : cases) {
    auto p = MapMemtierArgs(args, 1);
    ASSERT_FALSE(p.ok()) << args[0];
    EXPECT_NE(p.status().message().find(needle), std::string::npos) << p.status().message();
  }
}

TEST(MemtierFlags, RunMessagesInMemtierTerms) {
  auto p = MapMemtierArgs({"--select-db", "9999999", "--pipeline", "0", "--test-time", "5"}, 1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(MemtierTerms(*p, "--db: Value 9999999 not in range"),
            "memtier flag --select-db (memstand run --db): Value 9999999 not in range");
  EXPECT_EQ(MemtierTerms(*p, "as memstand run flags: --pipeline: must be 1 or more"),
            "memtier flag --pipeline (memstand run --pipeline): must be 1 or more");
  EXPECT_EQ(MemtierTerms(*p, "--duration: at most 24h"),
            "memtier flag --test-time (memstand run --duration): at most 24h");
  EXPECT_EQ(MemtierTerms(*p, "--dbx: other"), "--dbx: other");  // not a mapped flag
  EXPECT_EQ(MemtierTerms(*p, "--cluster: drop --db or /db"), "--cluster: drop --db or /db");  // not first
}

TEST(MemtierFlags, EveryRefusedFlagHasAReasonAndNamesAreUnique) {
  for (size_t i = 0; i < MemtierFlags().size(); ++i) {
    const MemtierFlag& f = MemtierFlags()[i];
    for (size_t j = i + 1; j < MemtierFlags().size(); ++j) {
      EXPECT_STRNE(f.long_name, MemtierFlags()[j].long_name);
      if (f.short_name != 0) {
        EXPECT_NE(f.short_name, MemtierFlags()[j].short_name) << f.long_name;
      }
    }
    if (f.refused == nullptr) continue;
    std::vector<std::string> args = {std::string("--") + f.long_name};
    if (f.takes_value) args.push_back("1");
    auto p = MapMemtierArgs(args, 1);
    ASSERT_FALSE(p.ok()) << f.long_name;
    EXPECT_NE(p.status().message().find(f.long_name), std::string::npos) << p.status().message();
  }
}

}  // namespace
}  // namespace memstand::cli

namespace memstand::cli {
namespace {

// The mapped flags are ones `memstand run` accepts, and build the options memtier means.
Result<RunConfig> RunConfigOf(const MemtierPlan& p) {
  CLI::App app;
  RunFlags flags;
  AddRunFlags(&app, &flags);
  std::vector<std::string> argv(p.run_args.rbegin(), p.run_args.rend());  // CLI11 takes it reversed
  app.parse(argv);
  return BuildRunConfig(app, flags);
}

TEST(MemtierFlags, RunBuildsWhatMemtierMeans) {
  auto p = MapMemtierArgs({"--cluster-mode", "-s", "127.0.0.1", "-p", "7000", "--ratio=1:10",
                           "--key-pattern=R:R", "--key-maximum=999", "-d", "100", "-c", "3", "-t",
                           "2", "-n", "5", "--print-percentiles", "50,99,99.9", "--hide-histogram"},
                          1);
  ASSERT_TRUE(p.ok()) << p.status().message();
  auto cfg = RunConfigOf(*p);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  const LoadOptions& o = cfg->load;
  EXPECT_EQ(o.requests, 30u);  // 5 per client x 3 clients x 2 threads
  EXPECT_EQ(o.clients, 3);
  EXPECT_EQ(o.threads, 2);
  EXPECT_TRUE(o.cluster);
  EXPECT_EQ(o.key_max, 999u);
  EXPECT_EQ(o.value.min_size, 100u);
  EXPECT_EQ(o.percentiles, (std::vector<double>{50, 99, 99.9}));
  ASSERT_EQ(o.commands.size(), 2u);
  EXPECT_EQ(o.commands[0].weight, 1u);
  EXPECT_EQ(o.commands[1].weight, 10u);
  auto e = MapMemtierArgs({"-s", "127.0.0.1", "--expiry-range=30-30", "-n", "1", "-c", "1", "-t", "1"}, 1);
  ASSERT_TRUE(e.ok());
  auto ecfg = RunConfigOf(*e);
  ASSERT_TRUE(ecfg.ok()) << ecfg.status().message();
  ASSERT_EQ(ecfg->load.commands.size(), 2u);
  EXPECT_EQ(ecfg->load.commands[0].weight, 1u);
  EXPECT_EQ(ecfg->load.commands[1].weight, 10u);
  EXPECT_EQ(ecfg->load.commands[0].text, "SET __key__ __data__ EX 30");
}

}  // namespace
}  // namespace memstand::cli

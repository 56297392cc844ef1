// The keys every scenario's JSON holds (docs/scenarios.md "JSON"), spelt once: the writer
// (scenario/output.cc, ScenarioJson) and the readers (report_input.cc, scenario_sections.cc,
// choice_map.cc, html_report.cc, and a scenario's own charts) use these. They live in
// report/ because report/ may not include scenario/ and scenario/ includes report/.
#pragma once

namespace memstand::scenario_json {

/// The format version of the document (an integer); report/ reads kFormatVersion.
inline constexpr char kFormat[] = "format";
inline constexpr int kFormatVersion = 1;
/// The scenario's name, as its registry row spells it: what tells a scenario's document apart.
inline constexpr char kScenario[] = "scenario";
inline constexpr char kMemstandVersion[] = "memstand_version";
inline constexpr char kQuestion[] = "question";
inline constexpr char kCommandLine[] = "command_line";
inline constexpr char kStartedAt[] = "started_at";
inline constexpr char kPlatform[] = "platform";
/// Where the client and each server ran, read back from the kernel: {client: [CPU...],
/// client_pinned, servers: [{name, cpus: [CPU...]}], servers_pinned}.
inline constexpr char kCpus[] = "cpus";
/// Runs made (an integer); kRunsRequested: the --runs asked for.
inline constexpr char kRunsMade[] = "runs";
inline constexpr char kRunsRequested[] = "runs_requested";
inline constexpr char kVerdict[] = "verdict";  // "ok", "partial", "failed", "interrupted", "finding"
/// The system's broken contracts: [{configuration, kind, count, examples[]}].
inline constexpr char kAnomalies[] = "anomalies";
inline constexpr char kVerdictReasons[] = "verdict_reasons";
inline constexpr char kPartial[] = "partial";
inline constexpr char kProcedure[] = "procedure";
inline constexpr char kLimits[] = "limits";
/// Each load run's statistics judged (docs/scenarios.md "Validity"): {verdict: "valid" |
/// "suspect" | null (no load run judged), valid, suspect, runs: [{label, verdict, reasons,
/// confidence, checks, intervals}]} (a run's fields as in a run's JSON `validity`).
inline constexpr char kValidity[] = "validity";

}  // namespace memstand::scenario_json

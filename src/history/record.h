// One operation of a run as the history keeps it, the run's header, and a whole history
// as read back (docs/history.md). A record is fixed-size: the engine appends one per
// operation from per-thread buffers, and every string it would carry (a node's address,
// an error kind) is an id into the history's string table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace memstand::history {

/// What an operation asked for. A write puts the value tagged (client, seq) of its own
/// record; a cas puts it only if the key holds the expected value.
enum class Op : uint8_t { kRead = 1, kWrite = 2, kCas = 3 };

/// How it ended (Jepsen's ok / fail / info): ok happened; fail certainly did not;
/// unknown may have happened at any time after its invoke, or never.
enum class Outcome : uint8_t { kOk = 1, kFail = 2, kUnknown = 3 };

/// What a read saw, or what a cas expected: no value (a write, or a read that did not
/// end ok), the key absent, a value of this run (`Record::value`), or bytes this run did
/// not write (value_tag.h says "not ours").
enum class Seen : uint8_t { kNone = 0, kAbsent = 1, kOurs = 2, kForeign = 3 };

/// The kind of system the run loaded (the target URL's scheme).
enum class TargetKind : uint8_t { kResp = 1, kMemcache = 2, kIproto = 3, kEtcd = 4 };

/// No intended time: a closed-loop run.
inline constexpr int64_t kNoIntendedTime = -1;

/// The value a write by `client` as its operation `seq` puts, as one number.
constexpr uint64_t ValueId(uint32_t client, uint32_t seq) { return (uint64_t{client} << 32) | seq; }
constexpr uint32_t ValueClient(uint64_t id) { return static_cast<uint32_t>(id >> 32); }
constexpr uint32_t ValueSeq(uint64_t id) { return static_cast<uint32_t>(id); }

/// One operation as the checks see it (history_format.h lays out its bytes on disk:
/// 72 in version 1; 40 and what it needs in version 2). Times are nanoseconds since the
/// run's start (RunHeader::start_unix_ns) on a monotonic clock. A client has one
/// operation in flight at a time and ends at an unknown outcome:
/// its next operation would take a new client id, as Jepsen's processes do.
struct Record {
  uint64_t op_id = 0;     // unique in the history (version 2: its place in the file, from 0)
  uint32_t client = 0;    // the client (a connection's session) that ran it
  uint32_t seq = 0;       // the client's own count of its operations; (client, seq) is unique
  int64_t invoke_ns = 0;  // sent
  int64_t complete_ns = 0;  // its reply came, or (unknown) the client gave up on it
  int64_t intended_ns = kNoIntendedTime;  // open loop: when it was due; else kNoIntendedTime
  uint64_t key = 0;       // the key's index: the key is RunHeader::key_prefix + decimal key
  /// seen == kOurs: the ValueId a read saw or a cas expected; else 0.
  uint64_t value = 0;
  int64_t revision = 0;   // etcd: the revision its reply carried; 0: none
  uint16_t node = 0;      // string id of the node that answered (0: not recorded)
  uint16_t error = 0;     // string id of the error kind; 0 exactly when outcome is ok
  Op f = Op::kRead;
  Outcome outcome = Outcome::kOk;
  Seen seen = Seen::kNone;
  /// Version 1's last byte, 0 (CheckRecord refuses another value); 0 in version 2.
  uint8_t reserved = 0;

  /// The ValueId this operation writes (write or cas).
  uint64_t written() const { return ValueId(client, seq); }
  bool writes() const { return f == Op::kWrite || f == Op::kCas; }
  bool operator==(const Record&) const = default;
};

/// What a checker needs to know about the run besides its records.
struct RunHeader {
  TargetKind target_kind = TargetKind::kResp;
  bool open_loop = false;    // records carry intended times
  bool keys_fresh = false;   // every key was absent when the run began
  uint32_t run_tag = 0;      // mixed into every value tag: values of another run are not ours
  int64_t start_unix_ns = 0; // the wall clock at time 0 of the records
  /// The monotonic clock at time 0 (version 2: the file's records carry that clock's
  /// readings, and the reader takes this off; version 1: 0, its records are relative).
  int64_t start_mono_ns = 0;
  /// Tarantool: the keys are unsigned numbers (__keynum__: the key is Record::key, and
  /// key_prefix is empty), the space written and read (its id), and the tuple field
  /// (0-based; field 0 is the key) a write's value is in. 0 / false elsewhere.
  bool key_numbers = false;
  uint32_t space = 0;
  uint16_t value_field = 0;
  std::string key_prefix;    // a key is key_prefix + decimal Record::key
  std::string target;        // the target as shown (no password)
  std::string writer;        // what wrote the file ("memstand 0.1.0")
  bool operator==(const RunHeader&) const = default;
};

/// One action of a scenario's nemesis during the run (docs/history.md, "The event"): a
/// fault carried out on a node or a link (kill, pause, resume, restart; cut, blackhole,
/// heal), or tried and refused. Times are nanoseconds since the run's start, on the
/// records' clock. Jepsen's histories carry the same as the :nemesis process's operations.
struct Event {
  int64_t start_ns = 0;  // the action began
  int64_t end_ns = 0;    // it returned (a restart: once the node was ready again)
  std::string action{};  // "kill", "blackhole": 1..32 of a-z, 0-9 and '-', from a letter
  std::string target{};  // the node's or link's name ("primary", "peers"); may be empty
  std::string detail{};  // "pid 1234", or why it was not carried out; may be empty
  bool operator==(const Event&) const = default;
};

/// A history read back whole.
struct History {
  /// The file's format version (docs/history.md): 2, or 1 for a file written before
  /// 2026-12-05. The encoder writes a history in its own version.
  uint32_t version = 2;
  RunHeader header;
  /// The string table: strings[0] is "" (id 0, "none"); id i is strings[i].
  std::vector<std::string> strings = {""};
  std::vector<Record> records;  // in file order
  std::vector<Event> events;    // the nemesis's actions, in file order
  const std::string& String(uint16_t id) const {
    return id < strings.size() ? strings[id] : strings[0];
  }
  std::string KeyName(uint64_t key) const { return header.key_prefix + std::to_string(key); }
  bool operator==(const History&) const = default;
};

const char* OpName(Op f);              // "read", "write", "cas"
const char* OutcomeName(Outcome o);    // "ok", "fail", "unknown"
const char* TargetKindName(TargetKind k);  // "redis", "memcache", "tarantool", "etcd"
/// A value as the checks print it: "3:7" (client:seq).
std::string ValueName(uint64_t value_id);

/// The run header's fields that depend on each other: keys as numbers, a space and a
/// value field in a tarantool history only (its value field above 0), and no key prefix
/// with keys as numbers. InvalidArgument saying which.
Status CheckRunHeader(const RunHeader& header);

/// The checks of one record alone that the reader applies (and the encoder's Add, so
/// that it never writes what the reader refuses; AddEngineRecords leaves them to the
/// records' maker, the engine): field ranges, times in order, an error kind
/// exactly when not ok, what a read saw or a cas expected, string ids below
/// `strings` (the table's size so far). InvalidArgument saying which field and why.
Status CheckRecord(const Record& r, const RunHeader& header, size_t strings);

/// The checks of an event that the reader applies (and the encoder's AddEvent): times
/// not negative and in order, the action a word of a-z, 0-9 and '-' (1 to 32 bytes,
/// from a letter), the target at most 256 bytes, the detail at most 1024.
/// InvalidArgument saying which.
Status CheckEvent(const Event& e);

}  // namespace memstand::history

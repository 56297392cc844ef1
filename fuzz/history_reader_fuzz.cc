// libFuzzer target: the history reader (src/history/history_reader.h), then the checks
// and the export over whatever it accepts. The input is [seed][file bytes]: the file
// is read whole and again in pieces whose sizes come from the seed (1..16 bytes), and
// the two outcomes must be equal. With the seed's top bit set, every entry's CRC is
// made right first, so that mutations reach the payloads' checks and the checkers
// rather than stopping at a checksum. Beyond crashes, sanitizer reports and hangs: an error
// names the file; a history read back encodes to bytes that read back equal; every
// check and the export run on it (the search bounded small), the export with an invoke
// and a completion per operation and per nemesis event.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "history/check_report.h"
#include "history/history_format.h"
#include "history/history_reader.h"
#include "history/history_writer.h"
#include "history/jepsen_export.h"
#include "history/linearizable.h"
#include "history/lost_writes.h"
#include "history/revisions.h"
#include "history/sessions.h"

namespace {

using namespace memstand::history;  // NOLINT: a fuzz target's one translation unit

constexpr uint64_t kFuzzMaxRecords = 20000;

// The file with each entry's CRC recomputed, as far as its entries are whole.
std::string RepairCrcs(std::string_view in) {
  std::string out(in);
  size_t at = format::kFileHeaderSize;
  while (at + format::kEntryHeaderSize <= out.size()) {
    const auto type = static_cast<uint8_t>(out[at]);
    const uint32_t length = format::GetU32(out.data() + at + 1);
    if (length > out.size() - at - format::kEntryHeaderSize) break;
    const uint32_t crc =
        format::EntryCrc(type, length, std::string_view(out).substr(at + format::kEntryHeaderSize, length));
    for (int i = 0; i < 4; ++i) out[at + 5 + i] = static_cast<char>(crc >> (8 * i));
    at += format::kEntryHeaderSize + length;
  }
  return out;
}

std::string OutcomeText(const memstand::Result<History>& h) {
  if (!h.ok()) return "error " + h.status().message();
  return "ok " + std::to_string(h->records.size());
}

memstand::Result<History> ReadInPieces(std::string_view in, unsigned seed) {
  HistoryReader reader("f.hist", kFuzzMaxRecords);
  unsigned state = seed | 1;
  for (size_t pos = 0; pos < in.size();) {
    state = state * 1103515245u + 12345u;
    const size_t n = 1 + (state >> 16) % 16;
    if (!reader.Feed(in.substr(pos, n)).ok()) break;
    pos += n;
  }
  return reader.Finish();
}

// The history encoded again, in its own version: the same bytes' meaning, read back
// equal (version 2's invokes moved by the reader stay where they were moved).
void CheckRoundTrip(const History& h) {
  auto bytes = EncodeHistory(h);
  if (!bytes.ok()) __builtin_trap();
  auto again = ParseHistory("again", *bytes, kFuzzMaxRecords);
  if (!again.ok() || !(*again == h)) __builtin_trap();
}

void RunChecks(const History& h) {
  LinearizabilityLimits limits;
  limits.max_steps_per_key = 20000;
  limits.max_memory_per_key = uint64_t{16} << 20;
  std::map<uint64_t, FinalValue> finals;
  for (uint64_t key : WrittenKeys(h)) finals[key] = FinalValue{};
  const std::vector<CheckResult> results = {CheckLostWrites(h, finals), CheckLinearizable(h, limits),
                                            CheckMonotonicReads(h), CheckReadYourWrites(h), CheckRevisions(h)};
  for (const CheckResult& r : results) {
    if (r.violations > r.findings_total || (r.verdict == Verdict::kViolated) != (r.violations > 0)) __builtin_trap();
  }
  (void)CheckReportText(h, results);
  (void)CheckReportJson(h, results).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  size_t lines = 0;
  memstand::Status s = ExportJepsen(h, JepsenSyntax::kEdn, JepsenModel::kCasRegister, [&](std::string_view piece) {
    for (char c : piece) lines += c == '\n' ? 1 : 0;
    return memstand::Status::OK();
  });
  if (!s.ok() || lines != 2 * (h.records.size() + h.events.size())) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view raw(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string repaired = (data[0] & 0x80) != 0 ? RepairCrcs(raw) : std::string();
  const std::string_view in = (data[0] & 0x80) != 0 ? std::string_view(repaired) : raw;
  const auto whole = ParseHistory("f.hist", in, kFuzzMaxRecords);
  const auto pieces = ReadInPieces(in, data[0]);
  if (OutcomeText(whole) != OutcomeText(pieces)) __builtin_trap();
  if (!whole.ok()) {
    if (whole.status().message().rfind("f.hist: ", 0) != 0) __builtin_trap();
    return 0;
  }
  if (!(*whole == *pieces)) __builtin_trap();
  CheckRoundTrip(*whole);
  RunChecks(*whole);
  return 0;
}

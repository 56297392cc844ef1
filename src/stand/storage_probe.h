// The storage under a folder, probed before a scenario's disk-bound cells: the same
// number of bytes written as random bytes and as one repeated byte, each chunk followed
// by fdatasync, in the order random, repeated, repeated, random (docs/method.md rule 10),
// after a warm-up pass of random bytes that is kept and printed but not counted: the
// first pass into a cold folder was measured at a third of the later ones' speed, which
// made a storage look as if it compressed.
// Storage that compresses or deduplicates (a hypervisor's, a filesystem's) writes the
// repeated bytes much faster: compressible-payload results then measure the storage
// (docs/method.md rule 17).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace memstand {

struct StorageProbeOptions {
  /// Where the probe file goes (the servers' folder). It is created (O_EXCL, 0600) and
  /// removed by the probe; nothing else in the folder is touched.
  std::string dir;
  /// Bytes per content, split over its two passes. 64 MiB: large enough to pass any
  /// write cache of a few MiB, small enough for seconds on a slow disk.
  uint64_t bytes = uint64_t{64} << 20;
  /// Random bytes written first and not counted (0: none). 16 MiB: a quarter of `bytes`.
  uint64_t warmup_bytes = uint64_t{16} << 20;
  /// One write() and one fdatasync() per chunk: 1 MiB gives 32 fsync latencies a pass.
  uint64_t chunk = uint64_t{1} << 20;
  uint64_t seed = 1;  // the random bytes' seed: a new draw for every chunk
  /// Polled between chunks; true: the probe stops, removes its file, Failed("interrupted").
  const std::atomic<bool>* cancel = nullptr;
};

/// One pass: `bytes` written in chunks, each chunk's write and fdatasync timed.
struct StoragePass {
  std::string content;  // "random" or "repeated"
  bool warmup = false;  // the warm-up pass: in `passes`, not in the figures below
  uint64_t bytes = 0;
  double seconds = 0;                // sum of the writes' and fdatasyncs' times
  std::vector<int64_t> fsync_ns;     // one per chunk
  std::vector<int64_t> write_ns;     // one per chunk
};

struct StorageProbeResult {
  std::string path;  // the probe file (removed)
  std::vector<StoragePass> passes;
  /// Over both counted passes of a content: bytes / seconds (0 if none).
  double BytesPerSecond(const std::string& content) const;
  /// The fsync latencies of both counted passes of a content, in ns (unsorted).
  std::vector<int64_t> FsyncNs(const std::string& content) const;
};

/// Runs the probe. IoError naming the path and errno when the file cannot be created,
/// written or synced (the file is removed on every path).
Result<StorageProbeResult> RunStorageProbe(const StorageProbeOptions& options);

}  // namespace memstand

#include "stand/storage_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

#include "core/clock.h"
#include "core/socket.h"
#include "util/rng.h"

namespace memstand {
namespace {

void FillRandom(std::string* chunk, Rng& rng) {
  for (size_t at = 0; at < chunk->size(); at += sizeof(uint64_t)) {
    const uint64_t word = rng.Next();
    std::memcpy(chunk->data() + at, &word, std::min(sizeof(word), chunk->size() - at));
  }
}

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(ErrnoMessage("write " + path, errno));
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

// One pass into a new file at path, removed at the end.
Status RunPass(const StorageProbeOptions& o, const std::string& path, bool random, uint64_t bytes,
               Rng& rng, StoragePass* pass) {
  int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return Status::IoError(ErrnoMessage("create " + path, errno));
  pass->content = random ? "random" : "repeated";
  std::string chunk(o.chunk, 'x');
  Status s;
  for (uint64_t written = 0; written < bytes && s.ok(); written += chunk.size()) {
    if (o.cancel != nullptr && o.cancel->load()) {
      s = Status::Failed("interrupted");
      break;
    }
    chunk.resize(std::min<uint64_t>(o.chunk, bytes - written));
    if (random) FillRandom(&chunk, rng);
    const int64_t t0 = NowNs();
    s = WriteAll(fd, chunk, path);
    const int64_t t1 = NowNs();
    if (s.ok() && fdatasync(fd) != 0) s = Status::IoError(ErrnoMessage("fdatasync " + path, errno));
    const int64_t t2 = NowNs();
    if (!s.ok()) break;
    pass->write_ns.push_back(t1 - t0);
    pass->fsync_ns.push_back(t2 - t1);
    pass->seconds += static_cast<double>(t2 - t0) / 1e9;
    pass->bytes += chunk.size();
  }
  close(fd);
  unlink(path.c_str());
  return s;
}

}  // namespace

double StorageProbeResult::BytesPerSecond(const std::string& content) const {
  double bytes = 0, seconds = 0;
  for (const StoragePass& p : passes) {
    if (p.warmup || p.content != content) continue;
    bytes += static_cast<double>(p.bytes);
    seconds += p.seconds;
  }
  return seconds > 0 ? bytes / seconds : 0;
}

std::vector<int64_t> StorageProbeResult::FsyncNs(const std::string& content) const {
  std::vector<int64_t> out;
  for (const StoragePass& p : passes) {
    if (!p.warmup && p.content == content)
      out.insert(out.end(), p.fsync_ns.begin(), p.fsync_ns.end());
  }
  return out;
}

Result<StorageProbeResult> RunStorageProbe(const StorageProbeOptions& o) {
  if (o.dir.empty() || o.chunk == 0 || o.bytes < 2) {
    return Status::InvalidArgument("storage probe: a folder, a chunk size and at least 2 bytes");
  }
  StorageProbeResult r;
  r.path = o.dir + "/memstand-storage-probe-" + std::to_string(getpid()) + ".tmp";
  Rng rng(DeriveSeed(o.seed, 0x5707a9e));
  if (o.warmup_bytes > 0) {
    StoragePass pass;
    pass.warmup = true;
    Status s = RunPass(o, r.path, /*random=*/true, o.warmup_bytes, rng, &pass);
    if (!s.ok()) return s;
    r.passes.push_back(std::move(pass));
  }
  const uint64_t half = o.bytes / 2;
  for (bool random : {true, false, false, true}) {
    StoragePass pass;
    Status s = RunPass(o, r.path, random, half, rng, &pass);
    if (!s.ok()) return s;
    r.passes.push_back(std::move(pass));
  }
  return r;
}

}  // namespace memstand

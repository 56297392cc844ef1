// A growable byte buffer with a read and a write position, for socket I/O and codecs.
// Not thread-safe: one owner (a connection on one reactor thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

namespace memstand {

class Buffer {
 public:
  explicit Buffer(size_t initial_capacity = 16 * 1024) : data_(initial_capacity) {}

  /// Bytes written and not yet consumed.
  const char* ReadPtr() const { return data_.data() + r_; }
  size_t Readable() const { return w_ - r_; }
  std::string_view View() const { return {ReadPtr(), Readable()}; }
  /// Drops n readable bytes. REQUIRES: n <= Readable().
  void Consume(size_t n) {
    r_ += n;
    if (r_ == w_) r_ = w_ = 0;
  }

  /// Space after the write position; EnsureWritable(n) guarantees Writable() >= n.
  char* WritePtr() { return data_.data() + w_; }
  size_t Writable() const { return data_.size() - w_; }
  void EnsureWritable(size_t n) {
    if (Writable() < n) [[unlikely]] MakeWritable(n);
  }
  /// Marks n bytes after WritePtr() as written. REQUIRES: n <= Writable().
  void Commit(size_t n) { w_ += n; }

  void Append(const char* p, size_t n) {
    EnsureWritable(n);
    std::memcpy(WritePtr(), p, n);
    w_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Clear() { r_ = w_ = 0; }
  size_t Capacity() const { return data_.size(); }

 private:
  // The slow half of EnsureWritable, kept out of line so the check inlines.
  [[gnu::noinline]] void MakeWritable(size_t n) {
    if (r_ > 0) {  // Compact first: move unread bytes to the front.
      std::memmove(data_.data(), data_.data() + r_, w_ - r_);
      w_ -= r_;
      r_ = 0;
      if (Writable() >= n) return;
    }
    data_.resize(std::max(data_.size() * 2, w_ + n));
  }

  std::vector<char> data_;
  size_t r_ = 0;
  size_t w_ = 0;
};

}  // namespace memstand

// A growable byte buffer with a read and a write position, for socket I/O and codecs.
// Memory is taken on demand (nothing until the first write, unless asked for) and never
// filled beforehand, so pages the buffer never writes cost nothing; Release gives it
// back when the buffer is empty. Not thread-safe: one owner (a connection on one
// reactor thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace memstand {

class Buffer {
 public:
  /// The first growth takes at least this much, so that a connection's small requests
  /// do not reallocate once per byte count.
  static constexpr size_t kMinGrowth = 512;

  explicit Buffer(size_t initial_capacity = 0)
      : data_(initial_capacity > 0 ? new char[initial_capacity] : nullptr),
        cap_(initial_capacity) {}
  Buffer(Buffer&& o) noexcept
      : data_(std::move(o.data_)),
        cap_(std::exchange(o.cap_, 0)),
        r_(std::exchange(o.r_, 0)),
        w_(std::exchange(o.w_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer(std::move(o)).Swap(*this);
    return *this;
  }
  Buffer(const Buffer& o) : Buffer(o.Readable()) { Append(o.View()); }
  Buffer& operator=(const Buffer& o) {
    if (this != &o) Buffer(o).Swap(*this);
    return *this;
  }
  void Swap(Buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(cap_, o.cap_);
    std::swap(r_, o.r_);
    std::swap(w_, o.w_);
  }
  friend void swap(Buffer& a, Buffer& b) noexcept { a.Swap(b); }

  /// Bytes written and not yet consumed.
  const char* ReadPtr() const { return data_.get() + r_; }
  size_t Readable() const { return w_ - r_; }
  std::string_view View() const { return {ReadPtr(), Readable()}; }
  /// Drops n readable bytes. REQUIRES: n <= Readable().
  void Consume(size_t n) {
    r_ += n;
    if (r_ == w_) r_ = w_ = 0;
  }

  /// Space after the write position; EnsureWritable(n) guarantees Writable() >= n.
  char* WritePtr() { return data_.get() + w_; }
  size_t Writable() const { return cap_ - w_; }
  void EnsureWritable(size_t n) {
    if (Writable() < n) [[unlikely]] MakeWritable(n);
  }
  /// Marks n bytes after WritePtr() as written. REQUIRES: n <= Writable().
  void Commit(size_t n) { w_ += n; }

  void Append(const char* p, size_t n) {
    EnsureWritable(n);
    if (n > 0) std::memcpy(WritePtr(), p, n);
    w_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  void Clear() { r_ = w_ = 0; }
  size_t Capacity() const { return cap_; }
  /// Gives the memory back when nothing is readable (an idle connection's buffer);
  /// the next write takes it again. Returns the bytes given back.
  size_t Release() {
    if (Readable() > 0 || cap_ == 0) return 0;
    const size_t had = cap_;
    data_.reset();
    cap_ = r_ = w_ = 0;
    return had;
  }

 private:
  // The slow half of EnsureWritable, kept out of line so the check inlines.
  [[gnu::noinline]] void MakeWritable(size_t n) {
    if (r_ > 0) {  // Compact first: move unread bytes to the front.
      std::memmove(data_.get(), data_.get() + r_, w_ - r_);
      w_ -= r_;
      r_ = 0;
      if (Writable() >= n) return;
    }
    const size_t cap = std::max({cap_ * 2, w_ + n, kMinGrowth});
    std::unique_ptr<char[]> bigger(new char[cap]);  // not filled: untouched pages stay free
    if (w_ > 0) std::memcpy(bigger.get(), data_.get(), w_);
    data_ = std::move(bigger);
    cap_ = cap;
  }

  std::unique_ptr<char[]> data_;
  size_t cap_ = 0;
  size_t r_ = 0;
  size_t w_ = 0;
};

}  // namespace memstand

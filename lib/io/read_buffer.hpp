// SPDX-License-Identifier: MIT
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>

namespace shaderbake::io {

// A read buffer of anonymous memory: reserved at its full size, but a page is resident only once written,
// so an ordinary trace touches a chunk's worth, and only a long line makes it grow (up to the limit).
// Mapped directly rather than allocated, so that it is returned whole on release under any allocator.
class ReadBuffer {
 public:
  explicit ReadBuffer(size_t size) : size_(size) {
    void* p = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
  ~ReadBuffer() {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;

  char* data() const { return data_; }  // nullptr when the memory could not be reserved
  size_t size() const { return size_; }
  // Gives back the pages from `offset` (rounded up to a page) to the end; they read as zero afterwards.
  void release_from(size_t offset) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const size_t start = (offset + page - 1) / page * page;
    if (data_ != nullptr && start < size_) (void)::madvise(data_ + start, size_ - start, MADV_DONTNEED);
  }

 private:
  char* data_ = nullptr;
  size_t size_;
};

}  // namespace shaderbake::io

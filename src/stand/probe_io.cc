#include "stand/probe_io.h"

#include <unistd.h>

#include "core/socket.h"

namespace memstand {

Result<std::string> Exchange(const std::string& host, int port, std::string_view request,
                             const std::function<bool(const std::string&)>& done,
                             int timeout_ms) {
  auto fd = ConnectTcp(host, port, timeout_ms, /*blocking=*/true);
  if (!fd.ok()) return fd.status();
  Status s = SetIoTimeout(*fd, timeout_ms);
  if (s.ok() && !request.empty()) s = WriteAll(*fd, request.data(), request.size());
  std::string got;
  char buf[4096];
  while (s.ok() && !done(got)) {
    auto n = ReadSome(*fd, buf, sizeof(buf));
    if (!n.ok()) {
      s = n.status();
    } else if (*n == 0) {
      s = Status::IoError("connection closed");
    } else {
      got.append(buf, *n);
    }
  }
  close(*fd);
  if (s.ok()) return got;
  if (got.empty()) return s;
  return Status(s).WithContext("after '" + got.substr(0, 80) + "'");
}

}  // namespace memstand

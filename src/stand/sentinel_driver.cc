#include "stand/sentinel_driver.h"

#include <sys/stat.h>

#include "stand/run_root.h"

namespace memstand {

Result<std::vector<std::string>> SentinelDriver::Prepare(const NodeLaunch& launch) const {
  const std::string path = launch.dir + "/sentinel.conf";
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    std::string conf = "port " + std::to_string(launch.ports.at(0)) + "\nbind " + launch.host + "\ndir " +
                       launch.dir + "\ndaemonize no\nlogfile \"\"\n";
    const std::string m = kSentinelMasterName;
    conf += "sentinel monitor " + m + " " + watch_.primary_host + " " + std::to_string(watch_.primary_port) +
            " " + std::to_string(watch_.quorum) + "\n";
    conf += "sentinel down-after-milliseconds " + m + " 1000\n";
    conf += "sentinel failover-timeout " + m + " 10000\n";
    conf += "sentinel parallel-syncs " + m + " 1\n";
    for (const auto& [directive, value] : watch_.directives) {
      conf += "sentinel " + directive + " " + m + " " + value + "\n";
    }
    if (Status s = WritePrivateFile(path, conf); !s.ok()) return s;
  } else if (!S_ISREG(st.st_mode)) {
    return Status::IoError(path + " is not a regular file");
  }
  return std::vector<std::string>{launch.binary_path, path};
}

}  // namespace memstand

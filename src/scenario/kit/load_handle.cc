#include "scenario/kit/load_handle.h"

#include <utility>

namespace memstand {

LoadHandle::~LoadHandle() { Stop(); }

void LoadHandle::Start(const ServerUnderTest& server, LoadStepOptions options) {
  options.stop = &stop_;
  thread_ = std::thread([this, &server, o = std::move(options)] { result_ = RunLoadStep(server, o); });
}

const Result<LoadStepResult>& LoadHandle::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return result_;
}

}  // namespace memstand

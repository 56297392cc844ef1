#include "load/history_events.h"

#include <utility>

namespace memstand {

void HistoryEvents::Add(NemesisEvent event) {
  std::lock_guard lock(mu_);
  events_.push_back(std::move(event));
}

std::vector<NemesisEvent> HistoryEvents::Take() {
  std::vector<NemesisEvent> taken;
  std::lock_guard lock(mu_);
  taken.swap(events_);
  return taken;
}

}  // namespace memstand

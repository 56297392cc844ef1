#include "cli/interrupt.h"

#include <signal.h>

namespace memstand::cli {
namespace {

std::atomic<bool> g_interrupt{false};

void OnSignal(int) { g_interrupt.store(true); }

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

const std::atomic<bool>* InterruptFlag() { return &g_interrupt; }

}  // namespace memstand::cli

// A test helper, not a test: one connection to a run's event relay as a peer that knows the
// run's key (the same user, who can read the run folder), sending the given lines, then ending.
// e2e_tst_train_two_hosts runs it inside a network namespace to send lines that node 0 must
// drop (an overflowing number, a lifecycle event) while the run goes on.
//   stave_relay_probe HOST PORT KIND ID RUN_DIR LINE...
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "core/distributed/event_relay.h"
#include "core/distributed/relay_key.h"

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: stave_relay_probe HOST PORT KIND ID RUN_DIR LINE...\n");
    return 2;
  }
  const std::string runDir = argv[5];
  stave::dist::RelayClient client(argv[1], std::stoi(argv[2]), argv[3], std::stoi(argv[4]),
                                  [runDir] { return stave::dist::clientRelaySecret(runDir); });
  for (int i = 6; i < argc; ++i) client.send(argv[i]);
  client.flush(std::chrono::seconds(20));
  if (!client.connected()) {
    std::fprintf(stderr, "stave_relay_probe: not let in: %s\n", client.lastError().c_str());
    return 1;
  }
  // Let node 0 read the lines before the connection closes.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  return 0;
}

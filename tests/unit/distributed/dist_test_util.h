#pragma once
// Runs N Gloo ranks as threads of the test process. Each rank's body returns "" on success or
// a failure text; exceptions become failure texts too (QVERIFY works on the main thread only).

#include <exception>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/distributed/launcher.h"
#include "core/distributed/process_group.h"

namespace stave::dist::testing {

/// Options with short timeouts for in-process tests.
inline ProcessGroupOptions shortOptions() {
  ProcessGroupOptions o;
  o.backend = "gloo";
  o.rendezvousTimeoutS = 20;
  o.timeoutS = 30;
  return o;
}

/// Creates a group per rank (threads) on a free port and runs `body` on each; returns the
/// failures, "rank r: ..." each.
inline std::vector<std::string> runRanks(int worldSize,
                                         const std::function<std::string(ProcessGroup&)>& body,
                                         ProcessGroupOptions options = shortOptions()) {
  const int port = findFreePort().value();
  std::vector<std::string> failures(worldSize);
  std::vector<std::thread> threads;
  for (int r = 0; r < worldSize; ++r) {
    threads.emplace_back([&, r] {
      try {
        DistEnv env;
        env.rank = r;
        env.localRank = r;
        env.worldSize = worldSize;
        env.localWorldSize = worldSize;
        env.masterAddr = "127.0.0.1";
        env.masterPort = port;
        auto pg = ProcessGroup::create(env, options);
        if (!pg) {
          failures[r] = pg.errorText();
          return;
        }
        failures[r] = body(*pg.value());
      } catch (const std::exception& e) {
        failures[r] = std::string("exception: ") + e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::string> out;
  for (int r = 0; r < worldSize; ++r)
    if (!failures[r].empty()) out.push_back("rank " + std::to_string(r) + ": " + failures[r]);
  return out;
}

/// All failures in one string, for QVERIFY2.
inline std::string joined(const std::vector<std::string>& failures) {
  std::string s;
  for (const auto& f : failures) s += f + "\n";
  return s;
}

}  // namespace stave::dist::testing

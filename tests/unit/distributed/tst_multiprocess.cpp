// The launcher with real c10d ranks (dist_worker): rendezvous on the launcher's free port,
// identical weights after every step, kill -9 of a rank while the other is in a collective,
// and a graceful stop that all ranks agree on.
#include <QtTest>

#include <signal.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/distributed/launcher.h"
#include "launch_test_util.h"

using namespace stave::dist;
using stave::dist::testing::Captured;
using stave::dist::testing::since;
using stave::dist::testing::testLaunchOptions;

namespace {

LaunchOptions options(const QTemporaryDir& dir, Captured* cap, std::vector<std::string> args) {
  std::vector<std::string> argv = {STAVE_DIST_WORKER};
  argv.insert(argv.end(), args.begin(), args.end());
  return testLaunchOptions(dir.path().toStdString(), cap, argv, 2, 3);
}

}  // namespace

class TstMultiprocess : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void trainsInStep() {
    QTemporaryDir dir;
    Captured cap;
    auto r = launch(options(dir, &cap, {"--steps", "5", "run"}));
    QVERIFY2(r.exitCode == 0, r.message.c_str());
    auto steps = cap.ofType("step");
    QCOMPARE(static_cast<int>(steps.size()), 10);
    // Same checksum on both ranks at each step, and the weights change over steps.
    std::map<int, std::set<double>> byIter;
    for (const auto& s : steps)
      byIter[s["data"]["iter"].get<int>()].insert(s["data"]["checksum"].get<double>());
    for (const auto& kv : byIter) QCOMPARE(static_cast<int>(kv.second.size()), 1);
    QVERIFY(*byIter[0].begin() != *byIter[4].begin());
    QCOMPARE(static_cast<int>(cap.ofType("finished").size()), 2);
  }

  void killNineDuringCollective() {
    QTemporaryDir dir;
    Captured cap;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = launch(options(dir, &cap, {"forever", "die"}));
    const double elapsed = since(t0);
    QCOMPARE(outcomeName(r.outcome), "crashed");
    QCOMPARE(r.failedRank, 1);
    QVERIFY2(elapsed < 60, std::to_string(elapsed).c_str());
    auto errors = cap.ofType("error");
    bool named = false;
    for (const auto& e : errors) {
      const std::string msg = e["data"].value("message", "");
      if (e.value("data", nlohmann::json{}).value("source", "") == "launcher" &&
          msg.find("rank 1") != std::string::npos && msg.find("SIGKILL") != std::string::npos)
        named = true;
    }
    QVERIFY2(named, nlohmann::json(errors).dump().c_str());
  }

  void sigtermStopsAllRanksAtOneStep() {
    QTemporaryDir dir;
    Captured cap;
    auto o = options(dir, &cap, {"forever"});
    o.handleSignals = true;
    LaunchResult r;
    std::thread runner([&] { r = launch(o); });
    const auto t0 = std::chrono::steady_clock::now();
    while (cap.ofType("step").size() < 6 && since(t0) < 30)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kill(getpid(), SIGTERM);
    runner.join();
    QCOMPARE(outcomeName(r.outcome), "stopped");
    QCOMPARE(r.exitCode, 0);
    auto finished = cap.ofType("finished");
    QCOMPARE(static_cast<int>(finished.size()), 2);
    QCOMPARE(finished[0]["data"]["iter"], finished[1]["data"]["iter"]);
  }
};

QTEST_GUILESS_MAIN(TstMultiprocess)
#include "tst_multiprocess.moc"

// stave-bench-studio: the studio on a project holding a generated H-hour, R-rank run (default
// 24 h, 8 ranks), measured inside the studio's process:
//   - start → the Run page's charts hold the whole run (the last epoch's mAP and the last
//     iteration): first (--cold) as a first look, then complete; with the process's peak RSS;
//   - the event loop's longest stall meanwhile (a 10 ms probe timer);
//   - switching to History until the run is listed, and selecting it;
//   - then following the run, which goes on appending in real time (8 ranks): the studio's CPU
//     time in % of one core and its longest stall, with the Run page shown, then with History
//     shown instead;
// next to a reference taken in the same run: a plain read of events.jsonl. Before the studio
// starts, the project's history store is brought up to date in a child process (as it is for a
// run the studio followed or listed in History); --cold leaves it empty, so the studio reads the
// run in full first. Prints JSON; the targets (docs/benchmarks.md) are checked by the caller.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <cmath>
#include <cstdio>
#include <functional>
#include <filesystem>
#include <fstream>

#include "core/config/project.h"
#include "core/store/store.h"
#include "core/studio/models/history_model.h"
#include "long_run.h"
#include "core/studio/models/stored_run.h"
#include "stall_probe.h"
#include "widgets/history_page.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

namespace fs = std::filesystem;

namespace {

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

/// Waits (running the event loop) until `done` or `limitMs`; the milliseconds it took, -1 on
/// time-out.
qint64 waitFor(const std::function<bool()>& done, qint64 limitMs) {
  // An event loop that sleeps between checks (processEvents() in a loop would spin a core and
  // be measured as the studio's).
  QElapsedTimer t;
  t.start();
  QEventLoop loop;
  QTimer check;
  check.setInterval(20);
  qint64 took = -1;
  QObject::connect(&check, &QTimer::timeout, [&] {
    if (done()) took = t.elapsed();
    if (took >= 0 || t.elapsed() > limitMs) loop.quit();
  });
  check.start();
  if (done()) return 0;
  loop.exec();
  return took;
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
  stave::bench::LongRunOptions o;
  o.hours = 24;
  std::string dir;
  int liveSeconds = 20;
  bool cold = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--hours" && i + 1 < argc) o.hours = std::atof(argv[++i]);
    else if (a == "--ranks" && i + 1 < argc) o.ranks = std::atoi(argv[++i]);
    else if (a == "--live-seconds" && i + 1 < argc) liveSeconds = std::atoi(argv[++i]);
    else if (a == "--cold") cold = true;
    else {
      std::fprintf(stderr, "usage: stave-bench-studio --dir DIR [--hours H] [--ranks R] [--live-seconds S] [--cold]\n");
      return 2;
    }
  }
  if (dir.empty()) return 2;
  // The project and its run, written by the generator in a child process (its memory is not
  // this process's).
  fs::create_directories(fs::path(dir) / "runs" / "long");
  const std::string data = (fs::path(dir) / "data.yaml").string();
  std::ofstream(data) << "path: .\ntrain: images\nval: images\nnames: [a]\n";
  const std::string projectFile = (fs::path(dir) / "bench.stave").string();
  if (!fs::exists(projectFile)) {
    auto p = stave::config::createProject(dir, "bench", data);
    if (!p) {
      std::fprintf(stderr, "stave-bench-studio: %s\n", p.errorText().c_str());
      return 1;
    }
  }
  // The generator writes the H hours, prints a line, then goes on appending in real time (a
  // live run) until it is stopped: the studio is measured while it follows that.
  const std::string genExe = (fs::path(argv[0]).parent_path() / "stave-bench-gen-run").string();
  const std::string runDir = (fs::path(dir) / "runs" / "long").string();
  const std::string hours = std::to_string(o.hours), ranks = std::to_string(o.ranks);
  int out[2];
  if (pipe(out) != 0) return 1;
  const pid_t generator = fork();
  if (generator == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execl(genExe.c_str(), genExe.c_str(), "--out", runDir.c_str(), "--hours", hours.c_str(), "--ranks",
          ranks.c_str(), "--live", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  {
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n') {
    }
  }
  const std::string log = (fs::path(dir) / "runs" / "long" / "events.jsonl").string();
  const auto plainMs = static_cast<qint64>(stave::bench::plainReadSeconds(log) * 1000);
  // The history store: current (filled in a child, whose memory is not the studio's) or none.
  const std::string dbPath = stave::store::Store::defaultPath(dir);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(dbPath + suffix);
  qint64 ingestMs = 0;
  if (!cold) {
    QElapsedTimer it;
    it.start();
    const pid_t child = fork();
    if (child == 0) {
      bool ok = false;
      {
        auto db = stave::store::Store::open(dbPath);  // closed before _exit: its WAL checkpointed
        ok = db && db.value()->ingestRun(runDir);
      }
      _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ingestMs = it.elapsed();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "stave-bench-studio: the history store could not be filled\n");
      return 1;
    }
  }

  QApplication app(argc, argv);
  stave::bench::StallProbe probe;
  QElapsedTimer t;
  t.start();
  stave::widgets::MainWindow w;
  w.resize(1600, 1000);
  w.show();
  if (!w.openProject(QString::fromStdString(projectFile))) {
    std::fprintf(stderr, "stave-bench-studio: the project did not open\n");
    return 1;
  }
  w.showPage(3);
  const int epochs = static_cast<int>(std::ceil(o.hours * 60 / o.epochMinutes));
  auto* page = w.runPage();
  const qint64 openMs = t.elapsed();  // the window built and the project opened
  const qint64 waited = waitFor(
      [&] {
        auto* m = page->chart(QStringLiteral("metrics"));
        return m->seriesCount() >= 3 && m->pointCount(2) >= epochs;
      },
      30LL * 60 * 1000);
  // From the start (the window created) to the whole run on the charts: first as a first look
  // (every N-th step and sample, while the store reads the log for the first time: --cold),
  // then at full resolution.
  const qint64 firstLook = waited < 0 ? -1 : t.elapsed();
  const qint64 complete = waitFor(
      [&] {
        const auto stored = page->controller()->stored();
        return !page->controller()->loadingStored() && !(stored && stored->preview);
      },
      30LL * 60 * 1000);
  const qint64 whole = waited < 0 || complete < 0 ? -1 : t.elapsed();
  const double rss = peakRssMb();
  const qint64 wholeWorst = probe.worst();
  // History: listed, then selected.
  QElapsedTimer h;
  h.start();
  w.showPage(4);
  const qint64 listed = waitFor([&] { return w.historyPage()->model()->rowCount() >= 1; }, 30LL * 60 * 1000);
  // The first listing selects the newest run by itself: cleared first (and that read let end),
  // so that selecting it is a change.
  w.historyPage()->selectRows({});
  waitFor([&] { return !w.historyPage()->curvesPending() && w.historyPage()->selectedRows().isEmpty(); },
          60 * 1000);
  // Selecting: until the run's curves are drawn. They are read on a job of their own
  // (HistoryModel::readCurves) and drawn when the page emits curvesShown(); the loop quits on
  // that signal, not at the next check of a timer. -1: no read began, or none ended in 60 s.
  QElapsedTimer sel;
  sel.start();
  qint64 selectMs = -1;
  {
    auto* history = w.historyPage();
    QEventLoop loop;
    const auto shown = QObject::connect(history, &stave::widgets::HistoryPage::curvesShown, &loop, &QEventLoop::quit);
    // A result the page drops (read for another selection) ends the read without the signal.
    QTimer check;
    check.setInterval(20);
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
      if (!history->curvesPending() || sel.elapsed() > 60 * 1000) loop.quit();
    });
    history->selectRows({0});
    if (history->curvesPending()) {
      check.start();
      loop.exec();
      if (!history->curvesPending()) selectMs = sel.elapsed();
    }
    QObject::disconnect(shown);
  }
  // Following the live run (8 ranks appending in real time) for `liveSeconds`: the studio's
  // CPU time over that window, in % of one core, and its longest stall.
  w.showPage(3);
  QCoreApplication::processEvents();
  const auto cpuSeconds = [] {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
  };
  const int pointsBefore = page->chart(QStringLiteral("losses"))->pointCount(0);
  const double cpu0 = cpuSeconds();
  probe.reset();
  QElapsedTimer liveT;
  liveT.start();
  waitFor([&] { return liveT.elapsed() >= liveSeconds * 1000; }, liveSeconds * 1000 + 1000);
  const double livePercent = 100.0 * (cpuSeconds() - cpu0) / (liveT.elapsed() / 1000.0);
  const int livePoints = page->chart(QStringLiteral("losses"))->pointCount(0) - pointsBefore;
  const qint64 liveWorst = probe.worst();  // before this process waits for the generator
  // The same, with another page shown (History): the Run page's charts are not drawn.
  w.showPage(4);
  QCoreApplication::processEvents();
  const double hidden0 = cpuSeconds();
  QElapsedTimer hiddenT;
  hiddenT.start();
  waitFor([&] { return hiddenT.elapsed() >= liveSeconds * 1000; }, liveSeconds * 1000 + 1000);
  const double hiddenPercent = 100.0 * (cpuSeconds() - hidden0) / (hiddenT.elapsed() / 1000.0);
  kill(generator, SIGTERM);
  waitpid(generator, nullptr, 0);
  w.showPage(3);
  QCoreApplication::processEvents();
  // The reference: the same studio on the same run with nothing new coming (its timers, the
  // probe's and this loop's own wake-ups), over as long.
  const double idle0 = cpuSeconds();
  QElapsedTimer idleT;
  idleT.start();
  waitFor([&] { return idleT.elapsed() >= liveSeconds * 1000; }, liveSeconds * 1000 + 1000);
  const double idlePercent = 100.0 * (cpuSeconds() - idle0) / (idleT.elapsed() / 1000.0);
  std::printf(
      "{\"hours\": %g, \"ranks\": %d, \"log_mb\": %.1f, \"plain_read_ms\": %lld,\n"
      " \"history\": \"%s\", \"history_ingest_ms_before\": %lld,\n"
      " \"live_s\": %d, \"live_cpu_percent_of_a_core\": %.1f, \"live_other_page_cpu_percent_of_a_core\": %.1f,\n"
      " \"idle_cpu_percent_of_a_core\": %.1f,\n"
      " \"live_worst_stall_ms\": %lld, \"live_new_steps\": %d,\n"
      " \"open_project_ms\": %lld, \"run_page_first_look_ms\": %lld, \"run_page_whole_ms\": %lld, \"whole_vs_plain_read\": %.1f, \"peak_rss_mb\": %.1f,\n"
      " \"worst_stall_ms_while_loading\": %lld, \"history_listed_ms\": %lld, \"history_select_ms\": %lld,\n"
      " \"worst_stall_ms\": %lld, \"loss_points\": %d}\n",
      o.hours, o.ranks, static_cast<double>(fs::file_size(log)) / 1e6, static_cast<long long>(plainMs),
      cold ? "cold" : "current", static_cast<long long>(ingestMs),
      liveSeconds, livePercent, hiddenPercent, idlePercent, static_cast<long long>(liveWorst), livePoints,
      static_cast<long long>(openMs), static_cast<long long>(firstLook), static_cast<long long>(whole), plainMs > 0 ? double(whole) / double(plainMs) : 0.0, rss,
      static_cast<long long>(wholeWorst), static_cast<long long>(listed), static_cast<long long>(selectMs),
      static_cast<long long>(std::max(wholeWorst, liveWorst)), page->chart(QStringLiteral("losses"))->pointCount(0));
  return whole >= 0 && listed >= 0 ? 0 : 1;
}

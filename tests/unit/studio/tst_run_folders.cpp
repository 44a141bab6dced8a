// listRunFolders' runs started elsewhere that look like they are training (what the queue calls
// "CPU busy"): a run whose log has a `finished` event after its last `run_start` has ended, even
// when the launcher's last samples and the doctor's report come after it; a run still writing,
// or resumed after it finished, is training — while a process of this host holds its folder's
// run lock; a run whose trainer was killed (no final event, nobody holds it) is not.
#include <QtTest/QtTest>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <thread>

#include "core/studio/gui_thread_reads.h"
#include "core/studio/run/run_folders.h"
#include "core/studio/run/slurm_job.h"
#include "core/telemetry/events.h"

using namespace stave::studio;
namespace tel = stave::telemetry;

namespace {

std::string line(const std::string& type, const nlohmann::json& data = nlohmann::json::object()) {
  tel::Event e;
  e.type = type;
  e.time = tel::unixTimeNow();
  e.data = data;
  return tel::encodeEvent(e) + "\n";
}

std::string finished() {
  tel::FinishedEvent f;
  f.epochs = 1;
  f.epochsCompleted = 1;
  auto e = tel::toEvent(f, 0);
  e.time = tel::unixTimeNow();
  return tel::encodeEvent(e) + "\n";
}

void writeRun(const QString& project, const QString& name, const std::string& events) {
  QVERIFY(QDir().mkpath(project + "/runs/" + name));
  QFile f(project + "/runs/" + name + "/events.jsonl");
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(events.data(), qint64(events.size()));
}

/// Holds a run folder's lock as its trainer does (flock on the folder); released on destruction.
struct Held {
  int fd = -1;
  explicit Held(const QString& dir)
      : fd(::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd >= 0) ::flock(fd, LOCK_EX | LOCK_NB);
  }
  ~Held() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

class TstRunFolders : public QObject {
  Q_OBJECT
 private slots:
  void finishedRunsAreNotBusy() {
    QTemporaryDir dir;
    const QString project = dir.path();
    // What a finished run's log ends with: finished, then the launcher's last system sample and
    // the doctor's final report (and a validation table longer than 4 KiB before them).
    const std::string big(6000, 'x');
    writeRun(project, "done",
             line("run_start") + line("step") + line("validation", {{"t", big}}) + finished() +
                 line("system_sample") + line("doctor", {{"final", true}}));
    writeRun(project, "training", line("run_start") + line("step") + line("step"));
    writeRun(project, "resumed", line("run_start") + finished() + line("run_start") + line("step"));
    writeRun(project, "killed", line("run_start") + line("step") + line("step"));
    // A Slurm job whose ranks train on this machine (its rank 0 holds the folder's lock).
    writeRun(project, "slurm", line("run_start") + line("step"));
    {
      QFile record(project + "/runs/slurm/" + clusterJobFileName());
      QVERIFY(record.open(QIODevice::WriteOnly));
      record.write("{\"job_id\": \"7\"}");
    }
    Held training(project + "/runs/training"), resumed(project + "/runs/resumed"),
        slurm(project + "/runs/slurm");
    QVERIFY(training.fd >= 0 && resumed.fd >= 0 && slurm.fd >= 0);
    const RunFolders runs = listRunFolders(project);
    QCOMPARE(runs.runs.size(), qsizetype(5));
    QStringList recent;
    for (const QString& r : runs.recent) recent << QFileInfo(r).fileName();
    recent.sort();
    // Not "killed": nobody trains it.
    QCOMPARE(recent, (QStringList{"resumed", "slurm", "training"}));
  }

  // The count the GUI tests check (no listing on the GUI thread): a listing on the application's
  // main thread is counted there, one on another thread only in the total.
  void readsCountTheirThread() {
    QTemporaryDir dir;
    for (OffGuiRead kind : {OffGuiRead::RunFolders, OffGuiRead::RunSummaries}) {
      const auto list = [&] {
        if (kind == OffGuiRead::RunFolders)
          listRunFolders(dir.path());
        else
          listRunSummaries(dir.path());
      };
      const OffGuiReadCount before = readCount(kind);
      list();
      const OffGuiReadCount onMain = readCount(kind);
      QCOMPARE(onMain.total, before.total + 1);
      QCOMPARE(onMain.onMainThread, before.onMainThread + 1);
      std::thread(list).join();
      const OffGuiReadCount off = readCount(kind);
      QCOMPARE(off.total, onMain.total + 1);
      QCOMPARE(off.onMainThread, onMain.onMainThread);
    }
  }
};

QTEST_GUILESS_MAIN(TstRunFolders)
#include "tst_run_folders.moc"

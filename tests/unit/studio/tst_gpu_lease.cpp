#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

#include "core/studio/run/gpu_lease.h"

using stave::studio::GpuLeases;

// GPU leases: all or none, shared by every studio on the machine, stale ones free again.
class TestGpuLease : public QObject {
  Q_OBJECT
  // A lease file as a studio that has exited would have left it (its pid is gone).
  static void writeStale(const QString& folder, const QString& resource, const QString& runDir,
                         qint64 taken = QDateTime::currentSecsSinceEpoch()) {
    QProcess p;
    p.start("true", {});
    p.waitForFinished();
    const qint64 deadPid = p.processId() > 0 ? p.processId() : 999999;
    QJsonObject o{{"run_dir", runDir},
                  {"studio_pid", deadPid},
                  {"host", QSysInfo::machineHostName()},
                  {"taken", taken}};
    QFile f(QDir(folder).filePath(resource + ".lease"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(o).toJson());
  }

 private slots:
  void allOrNone() {
    QTemporaryDir dir;
    GpuLeases a(dir.path()), b(dir.path());  // two studios
    QVERIFY(a.acquire({"gpu0", "gpu1"}, "/runs/a"));
    QCOMPARE(b.holder("gpu1"), QString("/runs/a"));
    QString why;
    QVERIFY(!b.acquire({"gpu2", "gpu1"}, "/runs/b", &why));
    QVERIFY2(why.contains("gpu1") && why.contains("/runs/a"), qPrintable(why));
    QVERIFY(b.holder("gpu2").isEmpty());      // none taken
    QVERIFY(a.acquire({"gpu0"}, "/runs/a"));  // the holder may take again
    b.release({"gpu0", "gpu1"}, "/runs/b");   // not b's: nothing changes
    QCOMPARE(a.holder("gpu0"), QString("/runs/a"));
    a.release({"gpu0", "gpu1"}, "/runs/a");
    QVERIFY(b.acquire({"gpu2", "gpu1"}, "/runs/b"));
  }

  void staleLeasesAreFree() {
    QTemporaryDir dir;
    GpuLeases leases(dir.path());
    // Its studio exited before the run wrote launcher.json: free.
    writeStale(dir.path(), "gpu0", dir.filePath("runs/never-started"));
    QVERIFY(leases.holder("gpu0").isEmpty());
    QVERIFY(leases.acquire({"gpu0"}, "/runs/new"));
    // A run that started and ended (launcher.json of a dead process): free.
    QVERIFY(QDir(dir.path()).mkpath("runs/ended"));
    QFile rec(dir.filePath("runs/ended/launcher.json"));
    QVERIFY(rec.open(QIODevice::WriteOnly));
    rec.write(QJsonDocument(QJsonObject{{"pid", 999999},
                                        {"start_ticks", 1},
                                        {"host", QSysInfo::machineHostName()},
                                        {"boot_id", "x"}})
                  .toJson());
    rec.close();
    QVERIFY(leases.acquire({"cpu"}, dir.filePath("runs/ended")));
    QVERIFY(leases.holder("cpu").isEmpty());
    // A garbage lease file counts as free, not as a crash.
    QFile junk(dir.filePath("gpu3.lease"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("{not json");
    junk.close();
    QVERIFY(leases.holder("gpu3").isEmpty());
  }

  void aLiveRunHoldsItsLeaseUntilItEnds() {
    // A run that outlived the studio that started it: its lease is old and its studio gone, but
    // launcher.json names a live process, so the GPU stays taken until that process ends.
    QTemporaryDir dir;
    QProcess run;
    run.start("sleep", {"60"});
    QVERIFY(run.waitForStarted());
    const QString runDir = dir.filePath("runs/live");
    QVERIFY(QDir().mkpath(runDir));
    QFile stat(QString("/proc/%1/stat").arg(run.processId()));
    QVERIFY(stat.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(stat.readAll());
    const QStringList fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    QFile bootId("/proc/sys/kernel/random/boot_id");
    QVERIFY(bootId.open(QIODevice::ReadOnly));
    QFile rec(runDir + "/launcher.json");
    QVERIFY(rec.open(QIODevice::WriteOnly));
    rec.write(QJsonDocument(QJsonObject{{"pid", run.processId()},
                                        {"start_ticks", fields.value(19).toLongLong()},
                                        {"host", QSysInfo::machineHostName()},
                                        {"boot_id", QString(bootId.readAll()).trimmed()}})
                  .toJson());
    rec.close();
    writeStale(dir.path(), "gpu0", runDir, /*taken=*/1000);
    GpuLeases a(dir.path()), b(dir.path());
    QCOMPARE(a.holder("gpu0"), runDir);
    QString why;
    QVERIFY(!b.acquire({"gpu0"}, dir.filePath("runs/other"), &why));
    QVERIFY2(why.contains("runs/live"), qPrintable(why));
    run.kill();
    QVERIFY(run.waitForFinished());
    QVERIFY(a.holder("gpu0").isEmpty());  // the killed run's lease is stale: taken over
    QVERIFY(b.acquire({"gpu0"}, dir.filePath("runs/other")));
    QCOMPARE(a.holder("gpu0"), dir.filePath("runs/other"));
  }

  void twoStudiosRaceForOneGpu() {
    // Two studios (two lease objects, two threads) asking at once for overlapping GPUs: exactly
    // one gets each set, never both.
    QTemporaryDir dir;
    for (int round = 0; round < 50; ++round) {
      const QString suffix = QString::number(round);
      GpuLeases a(dir.path()), b(dir.path());
      bool gotA = false, gotB = false;
      std::thread ta([&] { gotA = a.acquire({"gpu0", "gpu1"}, "/runs/a" + suffix); });
      std::thread tb([&] { gotB = b.acquire({"gpu1", "gpu2"}, "/runs/b" + suffix); });
      ta.join();
      tb.join();
      QVERIFY2(gotA != gotB, qPrintable(QString("round %1: %2 %3").arg(round).arg(gotA).arg(gotB)));
      a.release({"gpu0", "gpu1"}, "/runs/a" + suffix);
      b.release({"gpu1", "gpu2"}, "/runs/b" + suffix);
      QVERIFY(a.holder("gpu1").isEmpty());
    }
  }

  void aStartingRunHoldsItsLease() {
    QTemporaryDir dir;
    GpuLeases leases(dir.path());
    // Taken by this (live) process for a run that has not written launcher.json yet.
    QVERIFY(leases.acquire({"cpu"}, dir.filePath("runs/starting")));
    QCOMPARE(GpuLeases(dir.path()).holder("cpu"), dir.filePath("runs/starting"));
    QVERIFY(!GpuLeases(dir.path()).acquire({"cpu"}, dir.filePath("runs/other")));
  }

  void defaultFolderFollowsTheEnvironment() {
    qputenv("STAVE_RUNTIME_DIR", "/tmp/stave-rt-test");
    QCOMPARE(GpuLeases::defaultFolder(), QString("/tmp/stave-rt-test/gpus"));
    qunsetenv("STAVE_RUNTIME_DIR");
    QVERIFY(GpuLeases::defaultFolder().endsWith("stave/gpus"));
  }
};

QTEST_GUILESS_MAIN(TestGpuLease)
#include "tst_gpu_lease.moc"

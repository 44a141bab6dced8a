// What happens to run folders and checkpoints when a user makes ordinary mistakes: a finished
// run's folder given again, a run name with "..", the same name twice, a resume that would
// change the model or is refused, and broken checkpoint files. Each case failed before the
// rules in docs (README "What is kept where") existed.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QtTest/QtTest>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

namespace {
QByteArray bytesOf(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}
/// `zip` with one bit changed in the middle of its largest record (between the two local file
/// headers furthest apart): the archive's structure stays intact, a tensor's bytes do not.
QByteArray bitFlipped(QByteArray zip) {
  const QByteArray sig("PK\x03\x04", 4);
  qsizetype best = 0, bestGap = 0;
  for (qsizetype at = zip.indexOf(sig), next; at >= 0; at = next) {
    next = zip.indexOf(sig, at + 4);
    const qsizetype end = next >= 0 ? next : zip.lastIndexOf(QByteArray("PK\x01\x02", 4));
    if (end - at > bestGap) bestGap = end - at, best = at;
  }
  zip[best + bestGap / 2] = static_cast<char>(zip[best + bestGap / 2] ^ 0x40);
  return zip;
}
int countOf(const QString& text, const QString& type) {
  return eventsOf(parseEvents(text), type).size();
}
}  // namespace

class TstRunFolders : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_data = makeDemoDataset(m_dir.filePath("demo"), 8, 4, 64, 5);
    QVERIFY(!m_data.isEmpty());
    m_cfg = m_dir.filePath("run.yaml");
    QVERIFY(writeTinyConfig(m_cfg, m_data, 64, 1, 8, {"threads: 1", "warmup_epochs: 0"}));
    m_run = m_dir.filePath("runs/first");
    auto r = runStaveTrain({"train", m_cfg, "--run-dir", m_run}, {}, 300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
    QVERIFY(QFile::exists(m_run + "/weights/last.pt"));
  }

  // 1. A folder that holds a run is not trained into again by accident.
  void finishedRunFolderIsRefused() {
    const QByteArray events = bytesOf(m_run + "/events.jsonl");
    const QByteArray last = bytesOf(m_run + "/weights/last.pt");
    const QByteArray config = bytesOf(m_run + "/config.yaml");
    auto r = runStaveTrain({"train", m_cfg, "--run-dir", m_run}, {}, 120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("already holds a run") && r.err.contains("resume=true") &&
                 r.err.contains("exist_ok=true"),
             qPrintable(r.err));
    QCOMPARE(bytesOf(m_run + "/events.jsonl"), events);
    QCOMPARE(bytesOf(m_run + "/weights/last.pt"), last);
    QCOMPARE(bytesOf(m_run + "/config.yaml"), config);
  }

  // ... unless asked: exist_ok=true moves the old run aside, whole, and starts afresh.
  void existOkMovesTheOldRunAside() {
    const QString dir = m_dir.filePath("runs/again");
    auto a = runStaveTrain({"train", m_cfg, "--run-dir", dir}, {}, 300000);
    QVERIFY2(a.exitCode == 0, qPrintable(a.err.right(2000)));
    const QByteArray oldEvents = bytesOf(dir + "/events.jsonl");
    auto b = runStaveTrain({"train", m_cfg, "--run-dir", dir, "exist_ok=true"}, {}, 300000);
    QVERIFY2(b.exitCode == 0, qPrintable(b.err.right(2000)));
    QVERIFY2(b.err.contains("was moved to"), qPrintable(b.err));
    const QStringList aside =
        QDir(m_dir.filePath("runs")).entryList({"again-replaced-*"}, QDir::Dirs);
    QCOMPARE(aside.size(), 1);
    const QString old = m_dir.filePath("runs/" + aside[0]);
    QCOMPARE(bytesOf(old + "/events.jsonl"), oldEvents);
    QVERIFY(QFile::exists(old + "/weights/last.pt"));
    // The new folder holds one run's events only, and no weights of the old run.
    QCOMPARE(countOf(readText(dir + "/events.jsonl"), "run_start"), 1);
    QVERIFY(QFile::exists(dir + "/weights/last.pt"));
  }

  // 2. A name is one folder name; the same name twice gets the next free number.
  void runNamesStayInside_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("parent") << "../../x";
    QTest::newRow("slash") << "a/b";
    QTest::newRow("dotdot") << "..";
    QTest::newRow("newline") << "a\nb";
  }
  void runNamesStayInside() {
    QFETCH(QString, name);
    // "../../x" from runs/ is a sibling of the temporary project: a folder of that name may be
    // there before the test (another program's), so it is compared, not required absent.
    const QString outside = QDir(m_dir.path()).absoluteFilePath("../x");
    const auto listing = [&] {
      return QFileInfo::exists(outside)
                 ? QDir(outside).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot)
                 : QStringList{"(absent)"};
    };
    const QStringList before = listing();
    auto r = runStaveTrain({"train", m_cfg, "name=" + name}, {}, 120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("name:") && r.err.contains("one folder name"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(m_dir.filePath("x")));
    QCOMPARE(listing(), before);
  }
  void sameNameIsNumbered() {
    for (int i = 0; i < 2; ++i) {
      auto r = runStaveTrain({"train", m_cfg, "name=exp", "--stop-after-batches", "1"}, {},
                             300000);
      QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
    }
    QVERIFY(QFile::exists(m_dir.filePath("runs/exp/weights/last.pt")));
    QVERIFY(QFile::exists(m_dir.filePath("runs/exp2/weights/last.pt")));
  }

  // 3 and 4. A resume that would change the model (or any key that cannot change mid-run) is
  // refused with the keys named, and a refused resume leaves config.yaml as it was.
  void resumeRefusesAnotherModel() {
    const QByteArray config = bytesOf(m_run + "/config.yaml");
    auto r = runStaveTrain(
        {"train", "--run-dir", m_run, "resume=true", "epochs=3", "model=yolov8s", "lr0=0.02"}, {},
        120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("cannot change") && r.err.contains("model (yolov8n -> yolov8s)") &&
                 r.err.contains("lr0 (0.01 -> 0.02)"),
             qPrintable(r.err));
    QCOMPARE(bytesOf(m_run + "/config.yaml"), config);
    QCOMPARE(countOf(readText(m_run + "/events.jsonl"), "run_start"), 1);
  }
  void refusedResumeChangesNothing() {
    const QByteArray config = bytesOf(m_run + "/config.yaml");
    const QByteArray events = bytesOf(m_run + "/events.jsonl");
    auto r = runStaveTrain({"train", "--run-dir", m_run, "resume=true", "patience=5"}, {}, 120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("already trained 1 of 1 epochs"), qPrintable(r.err));
    QCOMPARE(bytesOf(m_run + "/config.yaml"), config);
    QCOMPARE(bytesOf(m_run + "/events.jsonl"), events);
  }

  // A resume on another shape that cannot continue the stopped epoch (2 images trained, 2 ranks
  // take 4 a batch) is refused before anything is written: config.yaml keeps its bytes, no
  // event is appended (the run is not marked failed), and no rank is started.
  void resumeOnAnotherShapeIsRefusedFirst() {
    const QString cfg = m_dir.filePath("shape.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 2, 2, {"threads: 1", "warmup_epochs: 0"}));
    const QString dir = m_dir.filePath("runs/shape");
    auto first =
        runStaveTrain({"train", cfg, "--run-dir", dir, "--stop-after-batches", "1"}, {}, 300000);
    QVERIFY2(first.exitCode == 0, qPrintable(first.err.right(2000)));
    const QByteArray config = bytesOf(dir + "/config.yaml");
    const QByteArray events = bytesOf(dir + "/events.jsonl");
    QVERIFY(!config.isEmpty() && !events.isEmpty());
    auto r = runStaveTrain({"train", "--run-dir", dir, "resume=true", "--nproc", "2"}, {}, 120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("after 1 batches of 1 ranks (2 images), which is no whole number of "
                            "batches of 2 ranks") &&
                 r.err.contains("resume with 1 ranks to finish that epoch"),
             qPrintable(r.err));
    QCOMPARE(bytesOf(dir + "/config.yaml"), config);
    QCOMPARE(bytesOf(dir + "/events.jsonl"), events);
    QVERIFY(!QFileInfo::exists(dir + "/logs/rank1.log"));
  }

  // A resume whose last.pt is damaged is refused (never a silent fallback) and names the
  // run's intact checkpoint.
  void resumeFromDamagedCheckpointIsRefused() {
    const QString last = m_run + "/weights/last.pt";
    const QByteArray good = bytesOf(last);
    {
      QFile f(last);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(bitFlipped(good));
    }
    auto r = runStaveTrain({"train", "--run-dir", m_run, "resume=true", "epochs=3"}, {}, 120000);
    {
      QFile f(last);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(good);
    }
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("last.pt") && r.err.contains("CRC error") &&
                 r.err.contains("best.pt (epoch 1)"),
             qPrintable(r.err));
    QCOMPARE(countOf(readText(m_run + "/events.jsonl"), "run_start"), 1);
  }

  // The dataset's classes changed since the run started: named, no LibTorch backtrace.
  void resumeAfterClassCountChangeIsRefused() {
    const QByteArray yaml = bytesOf(m_data);
    {
      QFile f(m_data);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(QString::fromUtf8(yaml)
                  .replace("nc: 5", "nc: 6")
                  .replace("names:\n", "names:\n  - extra\n")
                  .toUtf8());
    }
    auto r = runStaveTrain({"train", "--run-dir", m_run, "resume=true", "epochs=3"}, {}, 120000);
    {
      QFile f(m_data);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(yaml);
    }
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("the dataset now has 6 classes, the run was trained with 5"),
             qPrintable(r.err));
    QVERIFY2(!r.err.contains("Exception raised from"), qPrintable(r.err));
  }

  // 5. A broken checkpoint is named in a line or two, without LibTorch's C++ backtrace.
  void badCheckpoints_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("folder");
    QTest::addColumn<QString>("message");
    QTest::newRow("garbage") << QByteArray("this is not a checkpoint\n") << false
                             << "not a readable Stave checkpoint";
    QTest::newRow("empty") << QByteArray() << false << "is empty";
    QTest::newRow("folder") << QByteArray() << true << "is a folder";
    QTest::newRow("truncated") << QByteArray("truncate") << false << "not a complete checkpoint";
    // Zip structure intact, one tensor's bytes changed: LibTorch alone loads it (val loss 2e23).
    QTest::newRow("bit flipped") << QByteArray("flip") << false
                                 << "damaged checkpoint: CRC error";
  }
  void badCheckpoints() {
    QFETCH(QByteArray, content);
    QFETCH(bool, folder);
    QFETCH(QString, message);
    const QString path = m_dir.filePath("bad.pt");
    QDir(path).removeRecursively();
    QFile::remove(path);
    if (folder) {
      QVERIFY(QDir().mkpath(path));
    } else {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      if (content == "truncate") {
        const QByteArray whole = bytesOf(m_run + "/weights/last.pt");
        f.write(whole.left(whole.size() / 2));
      } else if (content == "flip") {
        f.write(bitFlipped(bytesOf(m_run + "/weights/last.pt")));
      } else {
        f.write(content);
      }
    }
    auto r = runStaveTrain({"val", "--weights", path, "--data", m_data}, {}, 120000);
    QVERIFY(r.exitCode != 0);
    QVERIFY(!r.crashed);
    QVERIFY2(r.err.contains(path) && r.err.contains(message), qPrintable(r.err));
    QVERIFY2(!r.err.contains("Exception raised from") && !r.err.contains("frame #"),
             qPrintable(r.err));
    QVERIFY2(r.err.count('\n') <= 3, qPrintable(r.err));
  }

  // The data changed between the stop and the resume: the resumed run says so (the hash was
  // recorded, nothing was said).
  void resumeOnChangedDataWarns() {
    const QString dir = m_dir.filePath("runs/changed");
    auto first = runStaveTrain({"train", m_cfg, "--run-dir", dir}, {}, 300000);
    QVERIFY2(first.exitCode == 0, qPrintable(first.err.right(2000)));
    const QString label = QFileInfo(m_data).absolutePath() + "/labels/train/000000.txt";
    const QByteArray before = bytesOf(label);
    QVERIFY(!before.isEmpty());
    {
      QFile f(label);
      QVERIFY(f.open(QIODevice::Append));
      f.write("0 0.5 0.5 0.1 0.1\n");
    }
    auto r = runStaveTrain({"train", "--run-dir", dir, "resume=true", "epochs=2"}, {}, 300000);
    {
      QFile f(label);
      QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
      f.write(before);
    }
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
    bool said = false;
    for (const auto& w : eventsOf(parseEvents(readText(dir + "/events.jsonl")), "warning"))
      said = said || w["data"].toObject()["message"].toString().contains(
                         "the dataset changed since");
    QVERIFY(said);
  }

  // 6. A run folder belongs to one live run: resume, exist_ok and a second fresh run into the
  // same --run-dir are refused while it trains, naming its process; after it ends (even by
  // SIGKILL, so no stale lock) the folder can be resumed.
  void liveRunFolderIsRefused() {
    const QString dir = m_dir.filePath("runs/live");
    const QString cfg = m_dir.filePath("live.yaml");
    QVERIFY(writeTinyConfig(cfg, m_data, 64, 50, 8, {"threads: 1", "warmup_epochs: 0"}));
    QProcess live;
    live.start(QStringLiteral(STAVE_TRAIN_EXE), {"train", cfg, "--run-dir", dir});
    QVERIFY(live.waitForStarted(20000));
    // Live once its events show a step (the folder holds a run then).
    QTRY_VERIFY_WITH_TIMEOUT(readText(dir + "/events.jsonl").contains("\"type\":\"step\""),
                             120000);
    const QString pid = QString::number(live.processId());
    for (const QStringList& args :
         {QStringList{"train", "--run-dir", dir, "resume=true", "epochs=60"},
          QStringList{"train", cfg, "--run-dir", dir, "exist_ok=true"}}) {
      const QByteArray before = bytesOf(dir + "/config.yaml");
      auto r = runStaveTrain(args, {}, 120000);
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains("in use by a live run") && r.err.contains("pid " + pid),
               qPrintable(r.err));
      QCOMPARE(bytesOf(dir + "/config.yaml"), before);
      QVERIFY(QDir(m_dir.filePath("runs")).entryList({"live-replaced-*"}, QDir::Dirs).isEmpty());
    }
    QCOMPARE(live.state(), QProcess::Running);
    // Killed at once: the kernel drops the lock with the process.
    live.kill();
    QVERIFY(live.waitForFinished(20000));
    QVERIFY(QFile::exists(dir + "/run.lock"));
    auto r = runStaveTrain({"train", cfg, "--run-dir", dir, "exist_ok=true",
                            "--stop-after-batches", "1"},
                           {}, 300000);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
  }

 private:
  QTemporaryDir m_dir;
  QString m_data, m_cfg, m_run;
};

QTEST_GUILESS_MAIN(TstRunFolders)
#include "tst_run_folders.moc"

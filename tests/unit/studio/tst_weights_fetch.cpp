// WeightsFetch without a cluster (the fetch itself over a real sshd: gui_tst_cluster_ssh_run):
// which checkpoints may be fetched (a run's weights/best.pt or last.pt that is not here, in a
// folder with a cluster record), and the refusals said before anything is sent — a record that
// cannot be read (naming the file), a run of the local Slurm (its weights are in its folder), a
// profile this studio does not have.
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/studio/run/slurm_job.h"
#include "core/studio/run/weights_fetch.h"

using stave::studio::ClusterJobRecord;
using stave::studio::WeightsFetch;

namespace {

QString makeRun(const QTemporaryDir& dir, const QString& name, bool overSsh,
                const QString& profile = "login") {
  const QString run = dir.filePath("runs/" + name);
  QDir().mkpath(run);
  ClusterJobRecord r;
  r.profile = profile;
  r.jobId = "12";
  r.jobIds = {"12"};
  r.project = dir.filePath("p.stave");
  r.configName = "default";
  r.sharedDir = "/scratch/alice/runs/p/" + name;
  r.jobName = "stave-" + name;
  r.overSsh = overSsh;
  QString error;
  if (!stave::studio::writeClusterJob(run, r, &error)) qFatal("%s", qPrintable(error));
  return run;
}

QString fetchError(const QString& run, const QStringList& files) {
  WeightsFetch f;
  QSignalSpy done(&f, &WeightsFetch::finished);
  if (!f.start(run, files)) return "not started";
  if (!done.wait(30000)) return "no answer";
  return done.last().at(1).toString();
}

}  // namespace

class TestWeightsFetch : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // preferences of its own: no cluster profiles
    QSettings().clear();
    QFile::remove(QFileInfo(QSettings().fileName()).absolutePath() + "/clusters.json");
  }

  void remoteRunOf() {
    const QString remote = makeRun(m_dir, "remote", true);
    const QString local = m_dir.filePath("runs/local");
    QDir().mkpath(local + "/weights");
    QCOMPARE(WeightsFetch::remoteRunOf(remote + "/weights/best.pt"),
             QFileInfo(remote).absoluteFilePath());
    QCOMPARE(WeightsFetch::remoteRunOf(remote + "/weights/last.pt"),
             QFileInfo(remote).absoluteFilePath());
    QVERIFY(WeightsFetch::remoteRunOf(remote + "/weights/epoch3.pt")
                .isEmpty());                                            // not a run's checkpoint
    QVERIFY(WeightsFetch::remoteRunOf(remote + "/best.pt").isEmpty());  // not under weights/
    QVERIFY(WeightsFetch::remoteRunOf(local + "/weights/best.pt").isEmpty());  // no cluster record
    // Once here, it is not fetched again.
    QDir().mkpath(remote + "/weights");
    QFile f(remote + "/weights/best.pt");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QVERIFY(WeightsFetch::remoteRunOf(remote + "/weights/best.pt").isEmpty());
    QVERIFY(!WeightsFetch::remoteRunOf(remote + "/weights/last.pt").isEmpty());
    QVERIFY(WeightsFetch::mayBeRemote(remote));
    QVERIFY(!WeightsFetch::mayBeRemote(local));
    QVERIFY(!WeightsFetch::mayBeRemote(QString()));
  }

  void refusals() {
    // A run of the local Slurm: its checkpoints are on the shared storage already.
    const QString slurm = makeRun(m_dir, "slurm", false);
    QString why = fetchError(slurm, {"weights/best.pt"});
    QVERIFY2(why.contains("is not a run on a cluster behind SSH"), qPrintable(why));
    // A profile this studio does not have: nothing is sent anywhere.
    const QString orphan = makeRun(m_dir, "orphan", true, "gone");
    why = fetchError(orphan, {"weights/best.pt"});
    QVERIFY2(why.contains("'gone'") && why.contains("Settings"), qPrintable(why));
    // A record that cannot be read names its file.
    const QString bad = m_dir.filePath("runs/bad");
    QDir().mkpath(bad);
    QFile f(bad + "/" + stave::studio::clusterJobFileName());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{not json");
    f.close();
    why = fetchError(bad, {"weights/best.pt"});
    QVERIFY2(why.contains(stave::studio::clusterJobFileName()), qPrintable(why));
    // One fetch at a time.
    WeightsFetch fetch;
    QVERIFY(fetch.start(slurm, {"weights/best.pt"}));
    QVERIFY(fetch.busy());
    QVERIFY(!fetch.start(slurm, {"weights/best.pt"}));
    QSignalSpy done(&fetch, &WeightsFetch::finished);
    QVERIFY(done.wait(30000));
    QVERIFY(!fetch.busy());
  }
};

QTEST_GUILESS_MAIN(TestWeightsFetch)
#include "tst_weights_fetch.moc"

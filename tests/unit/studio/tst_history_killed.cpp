// The History's status of a run whose rank 0 was killed (its events stop without a final event,
// no process holds its folder): "crashed", with the reason in the tooltip, never "running
// 2/2"; a run whose folder a live process holds stays running.
#include <QtTest/QtTest>

#include <QProcess>
#include <QSignalSpy>

#include "core/studio/models/history_model.h"

using namespace stave::studio;

namespace {
QByteArray withoutFinished() {
  QFile f(STAVE_SOURCE_DIR "/tests/unit/store/data/v1/runs/run-lr0.01/events.jsonl");
  if (!f.open(QIODevice::ReadOnly)) return {};
  QByteArray cut;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (!line.isEmpty() && !line.contains("\"type\":\"finished\"")) cut += line + "\n";
  return cut;
}
void writeRun(const QString& project, const QString& name, const QByteArray& events) {
  QVERIFY(QDir().mkpath(project + "/runs/" + name));
  QFile f(project + "/runs/" + name + "/events.jsonl");
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(events);
}
}  // namespace

class TstHistoryKilled : public QObject {
  Q_OBJECT
 private slots:
  void killedRunIsNotRunning() {
    QTemporaryDir dir;
    const QByteArray events = withoutFinished();
    QVERIFY(events.size() > 1000);
    writeRun(dir.path(), "killed", events);
    writeRun(dir.path(), "held", events);
    QProcess holder;  // holds the folder's lock as a live run does, until its input closes
    holder.start("flock", {"-o", "-x", dir.filePath("runs/held"), "cat"});
    QVERIFY(holder.waitForStarted(10000));
    QTest::qWait(300);
    HistoryModel model;
    QSignalSpy refreshed(&model, &HistoryModel::refreshed);
    QString error;
    QVERIFY2(model.open(dir.path(), &error), qPrintable(error));
    QVERIFY(refreshed.wait(20000));  // the background reading, off the GUI thread
    holder.closeWriteChannel();
    QVERIFY(holder.waitForFinished(10000));
    QCOMPARE(model.rowCount(), 2);
    QMap<QString, int> rows;
    for (int r = 0; r < model.rowCount(); ++r)
      rows[model.index(r, HistoryModel::Name).data().toString()] = r;
    const QModelIndex killed = model.index(rows.value("killed"), HistoryModel::Status);
    QCOMPARE(killed.data().toString(), QString("crashed"));
    QVERIFY2(killed.data(Qt::ToolTipRole).toString().contains("ended without a final event"),
             qPrintable(killed.data(Qt::ToolTipRole).toString()));
    QCOMPARE(model.index(rows.value("held"), HistoryModel::Status).data().toString(),
             QString("running"));
  }
};

QTEST_GUILESS_MAIN(TstHistoryKilled)
#include "tst_history_killed.moc"

// The run-folder mirror, with a local shell in place of ssh (the same quoted command lines go to
// `sh -c`, as the login node's shell gets them): the remote run folder's name has spaces,
// quotes and '$'. Only whole lines reach the mirror (a half line is waited for); a link that
// drops between polls loses and repeats nothing (the mirror equals the log byte for byte);
// small files and val/ come along, weights/ only when fetched; listed names that would leave
// the mirror are refused.
#include <QtTest/QtTest>

#include "core/cluster/mirror.h"

using namespace stave::cluster;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void append(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::Append));
  f.write(bytes);
}

/// Runs lines with the local sh; `down` makes it answer as ssh does when the link is gone.
struct LocalRunner {
  bool down = false;
  int calls = 0;
  RemoteResult operator()(const std::string& line, const ProcessOptions& o) {
    ++calls;
    RemoteResult r;
    if (down) {
      r.process.end = ProcessEnd::Finished;
      r.process.exitCode = 255;
      r.process.err = "ssh: connect to host login port 22: Connection refused\r\n";
      r.failure = classifySsh(r.process);
      r.message = "down";
      return r;
    }
    r.process = runProcess({"sh", "-c", line}, o);
    return r;
  }
};

}  // namespace

class TstMirror : public QObject {
  Q_OBJECT
 private slots:
  void init() {
    QVERIFY(m_tmp.isValid());
    // A folder per test function.
    const QString base = m_tmp.filePath(QString::fromLatin1(QTest::currentTestFunction()));
    m_remote = base + "/scratch/it's a \"run\" $HOME; x";
    m_local = base + "/mirror/run-1";
    QVERIFY(QDir().mkpath(m_remote));
  }

  void wholeLinesOnly() {
    auto runner = std::make_shared<LocalRunner>();
    Mirror m([runner](const std::string& l, const ProcessOptions& o) { return (*runner)(l, o); }, m_remote.toStdString(),
             m_local.toStdString());
    const QString log = m_remote + "/events.jsonl";
    MirrorPoll p = m.poll();  // no log yet
    QVERIFY2(p.reached, p.error.c_str());
    QCOMPARE(m.offset(), int64_t{0});
    append(log, "{\"a\":1}\n{\"b\":");
    p = m.poll();
    QVERIFY(p.reached);
    QCOMPARE(readAll(m_local + "/events.jsonl"), QByteArray("{\"a\":1}\n"));
    QCOMPARE(p.remoteEventsSize, int64_t{13});
    append(log, "2}\n");
    p = m.poll();
    QCOMPARE(readAll(m_local + "/events.jsonl"), readAll(log));
    QCOMPARE(p.eventBytes, int64_t{8});
  }

  // Polls interleaved with appends and dropped links, in chunks smaller than a line: the mirror
  // ends equal to the log, every line once.
  void droppedLinkContinues() {
    auto runner = std::make_shared<LocalRunner>();
    Mirror m([runner](const std::string& l, const ProcessOptions& o) { return (*runner)(l, o); }, m_remote.toStdString(),
             m_local.toStdString());
    m.setChunkBytes(37);
    const QString log = m_remote + "/events.jsonl";
    QByteArray all;
    for (int i = 0; i < 200; ++i) {
      QByteArray line = "{\"seq\":" + QByteArray::number(i) + ",\"pad\":\"" + QByteArray(i % 23, 'x') + "\"}\n";
      // Written in two halves: a poll may see the first alone.
      append(log, line.left(line.size() / 2));
      if (i % 7 == 0) {
        runner->down = (i % 3 == 0);
        const MirrorPoll p = m.poll();
        QCOMPARE(p.reached, !runner->down);
        if (!p.reached) QVERIFY(p.failure.retryable());
        runner->down = false;
      }
      append(log, line.mid(line.size() / 2));
      all += line;
    }
    for (int k = 0; k < 3; ++k) m.poll();
    QCOMPARE(readAll(m_local + "/events.jsonl"), all);
    // A fresh mirror object (a restarted follower) starts from the file's size: nothing twice.
    Mirror again([runner](const std::string& l, const ProcessOptions& o) { return (*runner)(l, o); }, m_remote.toStdString(),
                 m_local.toStdString());
    append(log, "{\"last\":1}\n");
    all += "{\"last\":1}\n";
    QVERIFY(again.poll().reached);
    QCOMPARE(readAll(m_local + "/events.jsonl"), all);
  }

  void smallFilesAndWeights() {
    auto runner = std::make_shared<LocalRunner>();
    Mirror m([runner](const std::string& l, const ProcessOptions& o) { return (*runner)(l, o); }, m_remote.toStdString(),
             m_local.toStdString());
    QVERIFY(QDir().mkpath(m_remote + "/val/epoch 1"));
    QVERIFY(QDir().mkpath(m_remote + "/weights"));
    QVERIFY(QDir().mkpath(m_remote + "/tb"));
    append(m_remote + "/results.csv", "epoch,map\n1,0.1\n");
    append(m_remote + "/val/epoch 1/it's $x.json", "{}");
    append(m_remote + "/weights/best.pt", QByteArray(100000, '\x01'));
    append(m_remote + "/tb/events.out", "tb");
    append(m_remote + "/cluster_job.json", "{\"job_id\":\"1; rm -rf ~\"}");
    MirrorPoll p = m.poll();
    QVERIFY2(p.reached, p.error.c_str());
    QCOMPARE(readAll(m_local + "/results.csv"), QByteArray("epoch,map\n1,0.1\n"));
    QCOMPARE(readAll(m_local + "/val/epoch 1/it's $x.json"), QByteArray("{}"));
    QVERIFY(!QFile::exists(m_local + "/weights/best.pt"));  // only on demand
    QVERIFY(!QFile::exists(m_local + "/tb/events.out"));
    QVERIFY(!QFile::exists(m_local + "/cluster_job.json"));  // the local record is never the cluster's
    const int copied = p.filesCopied;
    QCOMPARE(copied, 2);
    p = m.poll();
    QCOMPARE(p.filesCopied, 0);  // unchanged: not copied again
    QTest::qWait(1100);          // a later mtime
    append(m_remote + "/results.csv", "2,0.2\n");
    p = m.poll();
    QCOMPARE(p.filesCopied, 1);
    QCOMPARE(readAll(m_local + "/results.csv"), QByteArray("epoch,map\n1,0.1\n2,0.2\n"));
    QCOMPARE(QString::fromStdString(m.fetchFile("weights/best.pt")), QString());
    QCOMPARE(readAll(m_local + "/weights/best.pt"), QByteArray(100000, '\x01'));
    QVERIFY(!QFile::exists(m_local + "/weights/best.pt.part"));
    QVERIFY(!m.fetchFile("weights/none.pt").empty());
    QVERIFY(!m.fetchFile("../../etc/passwd").empty());
  }

  void names() {
    QVERIFY(mirroredName("results.csv"));
    QVERIFY(mirroredName("val/a b/c.json"));
    QVERIFY(!mirroredName("../x"));
    QVERIFY(!mirroredName("val/../../x"));
    QVERIFY(!mirroredName("/etc/passwd"));
    QVERIFY(!mirroredName("events.jsonl"));
    QVERIFY(!mirroredName("weights/best.pt"));
    QVERIFY(!mirroredName("cluster_job.json"));
    QVERIFY(!mirroredName("a\nb"));
  }

  // followMirror: a link down for a while is waited for (with backoff), then the run's end.
  void followWithBackoff() {
    auto runner = std::make_shared<LocalRunner>();
    Mirror m([runner](const std::string& l, const ProcessOptions& o) { return (*runner)(l, o); }, m_remote.toStdString(),
             m_local.toStdString());
    append(m_remote + "/events.jsonl", "{\"x\":1}\n");
    int polls = 0, failed = 0;
    runner->down = true;
    const std::string error = followMirror(
        m, 50, [&] { return polls >= 4; },
        [&](const MirrorPoll& p) {
          ++polls;
          if (!p.reached) ++failed;
          if (failed == 2) runner->down = false;
        },
        nullptr);
    QCOMPARE(QString::fromStdString(error), QString());
    QCOMPARE(failed, 2);
    QCOMPARE(readAll(m_local + "/events.jsonl"), QByteArray("{\"x\":1}\n"));
  }

 private:
  QTemporaryDir m_tmp;
  QString m_remote, m_local;
};

QTEST_GUILESS_MAIN(TstMirror)
#include "tst_mirror.moc"

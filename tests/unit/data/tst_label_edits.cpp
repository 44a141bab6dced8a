// The label edit log (core/data/label_edits.h): rows kept verbatim, a write keeps the original
// and logs old and new lines, a file changed on disk is refused, reverting one edit and a whole
// session (refused when changed since), a corrupt log line named by number, a read-only folder,
// a failed write leaving the file and the log as they were.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest/QtTest>
#include <fstream>

#include "core/base/atomic_file.h"
#include "core/data/label_edits.h"

using namespace stave::data;

namespace {

std::string slurp(const std::string& path) {
  auto r = stave::readFile(path);
  return r ? r.value() : std::string("<missing>");
}

void put(const std::string& path, const std::string& text) {
  QVERIFY(stave::writeFileAtomic(path, text).ok());
}

int logLines(const LabelStore& store) {
  std::ifstream in(store.logPath());
  int n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}

// A dataset root with two label files.
struct Dataset {
  QTemporaryDir dir;
  std::string root, a, b;
  Dataset() {
    root = dir.path().toStdString();
    a = root + "/labels/train/a.txt";
    b = root + "/labels/train/b.txt";
    stave::writeFileAtomic(a, "0 0.5 0.5 0.2 0.2\n1 0.25 0.25 0.1 0.1\n");
    stave::writeFileAtomic(b, "2 0.5 0.5 0.5 0.5\n");
  }
};

LabelFileState readOk(const std::string& path) {
  auto r = readLabelFile(path);
  if (!r) qFatal("%s", r.errorText().c_str());
  return r.value();
}

}  // namespace

class TstLabelEdits : public QObject {
  Q_OBJECT
 private slots:
  void rowsKeepWhatIsNotABox() {
    const auto rows = parseLabelRows("0 0.5 0.5 0.2 0.2\n3 0.1 0.1 0.2 0.1 0.2 0.2\n# note\n\n");
    QCOMPARE(rows.size(), size_t(4));
    QVERIFY(rows[0].isBox);
    QCOMPARE(rows[0].box.cls, 0);
    QCOMPARE(rows[0].box.w, 0.2f);
    QVERIFY(!rows[1].isBox);  // a polygon row
    QCOMPARE(rows[1].text, std::string("3 0.1 0.1 0.2 0.1 0.2 0.2"));
    QVERIFY(!rows[2].isBox);
    QVERIFY(!rows[3].isBox);
    QCOMPARE(formatBoxRow(Box{7, 0.5f, 0.25f, 0.125f, 1.0f}),
             std::string("7 0.500000 0.250000 0.125000 1.000000"));
    QCOMPARE(splitLines("a\nb"), (std::vector<std::string>{"a", "b"}));
    QCOMPARE(joinRows({"a", "b"}), std::string("a\nb\n"));
  }

  void writeKeepsOriginalAndLogs() {
    Dataset d;
    LabelStore store(d.root, "stave-test", "S1");
    auto st = readOk(d.a);
    const std::string original = st.text;
    auto e = store.write(st, "0 0.5 0.5 0.3 0.3\n");
    QVERIFY2(e.ok(), e.errorText().c_str());
    QCOMPARE(e->id, std::string("S1:1"));
    QCOMPARE(slurp(d.a), std::string("0 0.5 0.5 0.3 0.3\n"));
    QCOMPARE(slurp(store.originalsDir() + "/labels/train/a.txt"), original);
    QCOMPARE(st.text, std::string("0 0.5 0.5 0.3 0.3\n"));  // base now the file as written
    // A second change keeps the first original.
    QVERIFY(store.write(st, "").ok());
    QCOMPARE(slurp(store.originalsDir() + "/labels/train/a.txt"), original);
    // Writing what the file holds records nothing.
    auto same = store.write(st, "");
    QVERIFY(same.ok());
    QVERIFY(same->id.empty());
    QCOMPARE(logLines(store), 2);

    const auto log = store.log();
    QVERIFY(log.problems.empty());
    QCOMPARE(log.edits.size(), size_t(2));
    const auto& first = log.edits[0];
    QCOMPARE(first.file, std::string("labels/train/a.txt"));
    QCOMPARE(first.oldLines,
             (std::vector<std::string>{"0 0.5 0.5 0.2 0.2", "1 0.25 0.25 0.1 0.1"}));
    QCOMPARE(first.newLines, (std::vector<std::string>{"0 0.5 0.5 0.3 0.3"}));
    QCOMPARE(first.session, std::string("S1"));
    QVERIFY(first.process.rfind("stave-test ", 0) == 0);
    QVERIFY(first.time > 1.7e9);
    QVERIFY(log.edits[1].newLines.empty());
  }

  void newFileRevertRemovesIt() {
    Dataset d;
    const std::string c = d.root + "/labels/train/c.txt";
    LabelStore store(d.root, "stave-test");
    auto st = readOk(c);
    QVERIFY(!st.exists);
    auto e = store.write(st, "4 0.5 0.5 0.1 0.1\n");
    QVERIFY2(e.ok(), e.errorText().c_str());
    QVERIFY(!e->oldExisted);
    QVERIFY(QFileInfo::exists(
        QString::fromStdString(store.originalsDir() + "/labels/train/c.txt.absent")));
    auto r = store.revertEdit(e->id);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QVERIFY(!QFileInfo::exists(QString::fromStdString(c)));
    QCOMPARE(r->front().revertOf, e->id);
  }

  void changedOnDiskIsRefused() {
    Dataset d;
    LabelStore studio1(d.root, "stave-test", "one"), studio2(d.root, "stave-test", "two");
    auto s1 = readOk(d.a);
    auto s2 = readOk(d.a);
    QVERIFY(studio1.write(s1, "0 0.1 0.1 0.1 0.1\n").ok());
    // The second studio read the file before the first wrote it: refused, file and log kept.
    auto refused = studio2.write(s2, "5 0.9 0.9 0.1 0.1\n");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.errorText().find("changed on disk since it was read") != std::string::npos,
             refused.errorText().c_str());
    QVERIFY(refused.errorText().find(d.a) != std::string::npos);
    QCOMPARE(slurp(d.a), std::string("0 0.1 0.1 0.1 0.1\n"));
    QCOMPARE(logLines(studio1), 1);
    // Another tool changes the file (same size: the content hash still tells).
    put(d.a, "0 0.2 0.1 0.1 0.1\n");
    auto again = studio1.write(s1, "1 0.1 0.1 0.1 0.1\n");
    QVERIFY(!again.ok());
    QCOMPARE(slurp(d.a), std::string("0 0.2 0.1 0.1 0.1\n"));
    // After a reload the write goes through.
    s1 = readOk(d.a);
    QVERIFY(studio1.write(s1, "1 0.1 0.1 0.1 0.1\n").ok());
  }

  void revertOneEdit() {
    Dataset d;
    LabelStore store(d.root, "stave-test", "S");
    const std::string v0 = slurp(d.a);
    auto st = readOk(d.a);
    auto e1 = store.write(st, "0 0.5 0.5 0.3 0.3\n");
    auto e2 = store.write(st, "0 0.5 0.5 0.4 0.4\n");
    QVERIFY(e1.ok() && e2.ok());
    // The first edit is no longer what the file holds: refused, naming the later edit.
    auto refused = store.revertEdit(e1->id);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.errorText().find("edit S:2") != std::string::npos,
             refused.errorText().c_str());
    QCOMPARE(slurp(d.a), std::string("0 0.5 0.5 0.4 0.4\n"));
    LabelStore cli(d.root, "stave-train");
    QVERIFY(cli.revertEdit(e2->id).ok());
    QCOMPARE(slurp(d.a), std::string("0 0.5 0.5 0.3 0.3\n"));
    QVERIFY(cli.revertEdit(e1->id).ok());
    QCOMPARE(slurp(d.a), v0);
    QVERIFY(!cli.revertEdit("no-such:9").ok());
    const auto log = cli.log();
    QCOMPARE(log.edits.size(), size_t(4));
    QCOMPARE(log.edits[3].revertOf, e1->id);
    QCOMPARE(log.edits[3].session, cli.session());
  }

  void revertSession() {
    Dataset d;
    const std::string a0 = slurp(d.a), b0 = slurp(d.b);
    LabelStore s1(d.root, "stave-test", "S1");
    auto a = readOk(d.a);
    auto b = readOk(d.b);
    QVERIFY(s1.write(a, "0 0.1 0.1 0.1 0.1\n").ok());
    QVERIFY(s1.write(b, "").ok());
    QVERIFY(s1.write(a, "0 0.2 0.2 0.1 0.1\n").ok());
    // A later session changes b: reverting S1 is refused as a whole, naming b.
    LabelStore s2(d.root, "stave-test", "S2");
    auto b2 = readOk(d.b);
    QVERIFY(s2.write(b2, "3 0.5 0.5 0.1 0.1\n").ok());
    auto refused = s1.revertSession("S1");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.errorText().find(d.b) != std::string::npos, refused.errorText().c_str());
    QVERIFY(refused.errorText().find("S2:1") != std::string::npos);
    QVERIFY(refused.errorText().find(d.a) == std::string::npos);
    QCOMPARE(slurp(d.a), std::string("0 0.2 0.2 0.1 0.1\n"));  // nothing written
    QVERIFY(s1.revertSession("S2").ok());
    auto done = s1.revertSession("S1");
    QVERIFY2(done.ok(), done.errorText().c_str());
    QCOMPARE(done->size(), size_t(2));
    QCOMPARE(slurp(d.a), a0);
    QCOMPARE(slurp(d.b), b0);
    QVERIFY(!s1.revertSession("nobody").ok());
  }

  void corruptLogLineIsNamed() {
    Dataset d;
    LabelStore store(d.root, "stave-test", "S");
    auto a = readOk(d.a);
    QVERIFY(store.write(a, "").ok());
    QVERIFY(store.write(a, "1 0.5 0.5 0.1 0.1\n").ok());
    QVERIFY(store.write(a, "2 0.5 0.5 0.1 0.1\n").ok());
    // Break line 2 (half a line, as a crash mid-append of a foreign tool would leave), add a
    // line that is JSON but no edit, and one longer than the reader's cap.
    auto text = slurp(store.logPath());
    auto lines = splitLines(text);
    QCOMPARE(lines.size(), size_t(3));
    lines[1] = lines[1].substr(0, lines[1].size() / 2);
    lines.push_back("{\"id\": 3}");
    lines.push_back(std::string(5000, 'x'));
    put(store.logPath(), joinRows(lines));
    const auto log = readEditLog(store.logPath(), 4096);
    QCOMPARE(log.edits.size(), size_t(2));
    QCOMPARE(log.edits[0].id, std::string("S:1"));
    QCOMPARE(log.edits[1].id, std::string("S:3"));
    QCOMPARE(log.problems.size(), size_t(3));
    QCOMPARE(log.problems[0].line, 2);
    QCOMPARE(log.problems[0].file, store.logPath());
    QCOMPARE(log.problems[1].line, 4);
    QCOMPARE(log.problems[2].line, 5);
    // A missing log is an empty history, not a problem.
    const auto none = readEditLog(d.root + "/nothing.jsonl");
    QVERIFY(none.edits.empty() && none.problems.empty());
  }

  void readOnlyFolderIsNamed() {
    Dataset d;
    const std::string labels = d.root + "/labels/train";
    QVERIFY(::chmod(d.root.c_str(), 0555) == 0);
    QVERIFY(::chmod(labels.c_str(), 0555) == 0);
    QVERIFY(::chmod(d.a.c_str(), 0444) == 0);
    QVERIFY(::chmod(d.dir.path().toUtf8().constData(), 0555) == 0);
    // Root writes anywhere: the write is tried as an unprivileged user in a child process.
    int pipeFd[2];
    QVERIFY(::pipe(pipeFd) == 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(pipeFd[0]);
      if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
      LabelStore store(d.root, "stave-test", "S");
      auto st = readLabelFile(d.a);
      std::string msg = "<read failed>";
      if (st) {
        auto e = store.write(st.value(), "");
        msg = e.ok() ? "<written>" : e.errorText();
      }
      (void)!::write(pipeFd[1], msg.data(), msg.size());
      ::_exit(0);
    }
    ::close(pipeFd[1]);
    std::string msg;
    char buf[512];
    for (ssize_t n; (n = ::read(pipeFd[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
    ::close(pipeFd[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::chmod(d.root.c_str(), 0755);
    ::chmod(labels.c_str(), 0755);
    QCOMPARE(WEXITSTATUS(status), 0);
    QVERIFY2(msg.find(labels) != std::string::npos, msg.c_str());
    QVERIFY2(msg.find("cannot be written") != std::string::npos, msg.c_str());
    QCOMPARE(slurp(d.a), std::string("0 0.5 0.5 0.2 0.2\n1 0.25 0.25 0.1 0.1\n"));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(d.root + "/.stave/label-edits.jsonl")));
  }

  void failedWriteLeavesAll() {
    Dataset d;
    LabelStore store(d.root, "stave-test", "S");
    auto a = readOk(d.a);
    const std::string before = a.text;
    stave::testing::setFailBeforeRename(true);
    auto e = store.write(a, "");
    stave::testing::setFailBeforeRename(false);
    QVERIFY(!e.ok());
    QCOMPARE(slurp(d.a), before);
    QCOMPARE(logLines(store), 0);
  }
};

QTEST_APPLESS_MAIN(TstLabelEdits)
#include "tst_label_edits.moc"

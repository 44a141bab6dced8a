// stave-train labels log / labels revert on a dataset whose edit log holds a studio's edits (the
// lines written here as docs/labels.md documents them): the listing (filtered by session and
// file, --diff, --json), a corrupt line named and skipped, reverting one edit and a whole
// session, a revert refused when the file changed since (exit 1, nothing written), bad command
// lines (exit 2), and --help.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "e2e/e2e_util.h"

using stave::e2e::runStaveTrain;

namespace {

void write(const QString& path, const QByteArray& bytes) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(bytes);
}

QByteArray read(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

QByteArray edit(const char* id, const char* file, const QStringList& oldLines,
                const QStringList& newLines, const char* session, bool oldExisted = true) {
  QJsonObject o{{"id", id},
                {"file", file},
                {"old_exists", oldExisted},
                {"old", QJsonArray::fromStringList(oldLines)},
                {"new_exists", true},
                {"new", QJsonArray::fromStringList(newLines)},
                {"time", 1796655600.5},
                {"host", "labeller-1"},
                {"process", "stave 4711"},
                {"session", session}};
  return QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
}

// A dataset where session S1 edited a.txt twice and created c.txt, then S2 edited b.txt.
struct Dataset {
  QTemporaryDir dir;
  QString root;
  Dataset() {
    root = dir.path();
    write(root + "/labels/train/a.txt", "0 0.3 0.3 0.1 0.1\n");
    write(root + "/labels/train/b.txt", "2 0.5 0.5 0.2 0.2\n");
    write(root + "/labels/train/c.txt", "1 0.5 0.5 0.5 0.5\n");
    write(
        root + "/.stave/label-edits.jsonl",
        edit("S1:1", "labels/train/a.txt", {"0 0.1 0.1 0.1 0.1", "1 0.9 0.9 0.1 0.1"},
             {"0 0.2 0.2 0.1 0.1"}, "S1") +
            edit("S1:2", "labels/train/a.txt", {"0 0.2 0.2 0.1 0.1"}, {"0 0.3 0.3 0.1 0.1"}, "S1") +
            edit("S1:3", "labels/train/c.txt", {}, {"1 0.5 0.5 0.5 0.5"}, "S1", false) +
            edit("S2:1", "labels/train/b.txt", {"2 0.5 0.5 0.4 0.4"}, {"2 0.5 0.5 0.2 0.2"}, "S2"));
  }
};

}  // namespace

class TstLabelsCli : public QObject {
  Q_OBJECT
 private slots:
  void logLists();
  void corruptLineIsNamed();
  void revertEditAndSession();
  void changedSinceIsRefused();
  void badCommandLines();
  void fixBadInputIsNamed();
};

void TstLabelsCli::logLists() {
  Dataset d;
  auto r = runStaveTrain({"labels", "log", d.root}, {}, 60000);
  QCOMPARE(r.exitCode, 0);
  QVERIFY2(r.out.contains("S1:1") && r.out.contains("S2:1"), qPrintable(r.out));
  QVERIFY(r.out.contains("labels/train/a.txt  -2 +1"));
  QVERIFY(r.out.contains("labels/train/c.txt  -0 +1 (created)"));
  QVERIFY(r.out.contains("labeller-1  stave 4711"));
  QVERIFY(r.out.contains("2026-12-07 15:00:00Z"));
  QVERIFY(r.out.contains("4 edit(s) in 2 session(s)"));
  auto s = runStaveTrain({"labels", "log", d.root, "--session", "S2", "--diff"}, {}, 60000);
  QCOMPARE(s.exitCode, 0);
  QVERIFY(!s.out.contains("S1:"));
  QVERIFY(s.out.contains("    - 2 0.5 0.5 0.4 0.4"));
  QVERIFY(s.out.contains("    + 2 0.5 0.5 0.2 0.2"));
  auto j =
      runStaveTrain({"labels", "log", d.root, "--file", "labels/train/a.txt", "--json"}, {}, 60000);
  QCOMPARE(j.exitCode, 0);
  const auto lines = j.out.trimmed().split('\n');
  QCOMPARE(lines.size(), 2);
  QCOMPARE(QJsonDocument::fromJson(lines[1].toUtf8()).object()["id"].toString(), QString("S1:2"));
  auto none = runStaveTrain({"labels", "log", d.root, "--session", "nobody"}, {}, 60000);
  QCOMPARE(none.exitCode, 1);
  QVERIFY(none.err.contains("no edits of session nobody"));
}

void TstLabelsCli::corruptLineIsNamed() {
  Dataset d;
  QByteArray log = read(d.root + "/.stave/label-edits.jsonl");
  const int second = log.indexOf('\n') + 1;
  log.insert(second, "{\"id\": \"half a line\n");
  write(d.root + "/.stave/label-edits.jsonl", log);
  auto r = runStaveTrain({"labels", "log", d.root}, {}, 60000);
  QCOMPARE(r.exitCode, 0);
  QVERIFY2(r.err.contains("label-edits.jsonl:2:"), qPrintable(r.err));
  QVERIFY(r.out.contains("4 edit(s) in 2 session(s)"));
}

void TstLabelsCli::revertEditAndSession() {
  Dataset d;
  // The last edit of a.txt (S1:2) goes back; S1:1 cannot (the file holds S1:1's result only
  // after that).
  auto r = runStaveTrain({"labels", "revert", d.root, "--edit", "S1:2"}, {}, 60000);
  QCOMPARE(r.exitCode, 0);
  QCOMPARE(read(d.root + "/labels/train/a.txt"), QByteArray("0 0.2 0.2 0.1 0.1\n"));
  QVERIFY(r.out.contains("reverts S1:2"));
  // The original was kept before the first change made here.
  QCOMPARE(read(d.root + "/.stave/labels-original/labels/train/a.txt"),
           QByteArray("0 0.3 0.3 0.1 0.1\n"));
  // Now the file holds what S1:1 wrote: it can go back too.
  auto r1 = runStaveTrain({"labels", "revert", d.root, "--edit", "S1:1"}, {}, 60000);
  QVERIFY2(r1.exitCode == 0, qPrintable(r1.err));
  QCOMPARE(read(d.root + "/labels/train/a.txt"),
           QByteArray("0 0.1 0.1 0.1 0.1\n1 0.9 0.9 0.1 0.1\n"));

  // The whole session S1 on a fresh copy: a.txt back to before S1:1, c.txt (created by S1)
  // removed, b.txt (S2) untouched.
  Dataset e;
  auto s = runStaveTrain({"labels", "revert", e.root + "/", "--session", "S1"}, {}, 60000);
  QVERIFY2(s.exitCode == 0, qPrintable(s.err));
  QCOMPARE(read(e.root + "/labels/train/a.txt"),
           QByteArray("0 0.1 0.1 0.1 0.1\n1 0.9 0.9 0.1 0.1\n"));
  QVERIFY(!QFile::exists(e.root + "/labels/train/c.txt"));
  QCOMPARE(read(e.root + "/labels/train/b.txt"), QByteArray("2 0.5 0.5 0.2 0.2\n"));
  auto log = runStaveTrain({"labels", "log", e.root}, {}, 60000);
  QVERIFY2(log.out.contains("6 edit(s) in 3 session(s)"), qPrintable(log.out));
  QVERIFY(log.out.contains("(removed)  reverts S1"));
}

void TstLabelsCli::changedSinceIsRefused() {
  Dataset d;
  write(d.root + "/labels/train/b.txt", "2 0.5 0.5 0.3 0.3\n");  // another tool
  auto r = runStaveTrain({"labels", "revert", d.root, "--session", "S2"}, {}, 60000);
  QCOMPARE(r.exitCode, 1);
  QVERIFY2(r.err.contains(d.root + "/labels/train/b.txt") && r.err.contains("changed on disk"),
           qPrintable(r.err));
  QVERIFY(r.err.contains("nothing was written"));
  QCOMPARE(read(d.root + "/labels/train/b.txt"), QByteArray("2 0.5 0.5 0.3 0.3\n"));
  // S1:1 is followed by S1:2 on the same file: refused, naming it.
  auto e = runStaveTrain({"labels", "revert", d.root, "--edit", "S1:1"}, {}, 60000);
  QCOMPARE(e.exitCode, 1);
  QVERIFY2(e.err.contains("edit S1:2"), qPrintable(e.err));
}

void TstLabelsCli::badCommandLines() {
  Dataset d;
  auto both =
      runStaveTrain({"labels", "revert", d.root, "--edit", "S1:1", "--session", "S1"}, {}, 60000);
  QCOMPARE(both.exitCode, 2);
  auto none = runStaveTrain({"labels", "revert", d.root}, {}, 60000);
  QCOMPARE(none.exitCode, 2);
  auto missing = runStaveTrain({"labels", "log", d.root + "/nothing"}, {}, 60000);
  QCOMPARE(missing.exitCode, 2);
  QVERIFY(missing.err.contains(d.root + "/nothing"));
  auto help = runStaveTrain({"--help"}, {}, 60000);
  QVERIFY(help.out.contains("labels log") && help.out.contains("labels revert"));
  auto h = runStaveTrain({"labels", "revert", "--help"}, {}, 60000);
  QCOMPARE(h.exitCode, 0);
  QVERIFY(h.out.contains("--session"));
}

void TstLabelsCli::fixBadInputIsNamed() {
  // labels fix: no dataset, both, an unknown kind — usage errors; a missing or foreign CSV is
  // named; nothing is written.
  Dataset d;
  const QString csv = d.root + "/issues.csv";
  write(csv, "image,kind,label_class,predicted_class,score,x1,y1,x2,y2\n");
  const QByteArray logBefore = read(d.root + "/.stave/label-edits.jsonl");
  auto none = runStaveTrain({"labels", "fix", csv}, {}, 60000);
  QCOMPARE(none.exitCode, 2);
  QVERIFY2(none.err.contains("data=D.yaml or --dataset DIR"), qPrintable(none.err));
  auto kind =
      runStaveTrain({"labels", "fix", csv, "--dataset", d.root, "--kinds", "wrong"}, {}, 60000);
  QCOMPARE(kind.exitCode, 2);
  QVERIFY2(kind.err.contains("'wrong'"), qPrintable(kind.err));
  auto missing =
      runStaveTrain({"labels", "fix", d.root + "/none.csv", "--dataset", d.root}, {}, 60000);
  QCOMPARE(missing.exitCode, 2);
  QVERIFY2(missing.err.contains(d.root + "/none.csv"), qPrintable(missing.err));
  write(d.root + "/other.csv", "a,b\n");
  auto foreign =
      runStaveTrain({"labels", "fix", d.root + "/other.csv", "--dataset", d.root}, {}, 60000);
  QCOMPARE(foreign.exitCode, 2);
  QVERIFY2(foreign.err.contains("other.csv:1") && foreign.err.contains("not an issues CSV"),
           qPrintable(foreign.err));
  // An empty CSV: nothing to fix, nothing written.
  auto empty = runStaveTrain({"labels", "fix", csv, "--dataset", d.root}, {}, 60000);
  QCOMPARE(empty.exitCode, 0);
  QVERIFY2(empty.out.contains("0 issue(s) fixed"), qPrintable(empty.out));
  QCOMPARE(read(d.root + "/.stave/label-edits.jsonl"), logBefore);
  auto help = runStaveTrain({"labels", "fix", "--help"}, {}, 60000);
  QCOMPARE(help.exitCode, 0);
  QVERIFY(help.out.contains("--top") && help.out.contains("--dry-run") &&
          help.out.contains("labels revert DATASET --session S"));
}

QTEST_GUILESS_MAIN(TstLabelsCli)
#include "tst_labels_cli.moc"

// The data commands of the real stave-train: make-demo (same seed, same bytes), check-dataset
// (exit codes 0/1/2, --json, --verify) and bench loader (JSON with the target ratios).
#include <QCryptographicHash>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "e2e/e2e_util.h"

using stave::e2e::runStaveTrain;

namespace {
// Hash of every file under `dir` (relative name and bytes), in name order.
QByteArray treeHash(const QString& dir) {
  QStringList files;
  QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) {
    const QString f = it.next();
    if (!f.contains("/.stave-cache/")) files << f;
  }
  files.sort();
  QCryptographicHash h(QCryptographicHash::Sha256);
  for (const auto& f : files) {
    QFile file(f);
    if (!file.open(QIODevice::ReadOnly)) return {};
    h.addData(QDir(dir).relativeFilePath(f).toUtf8());
    h.addData(file.readAll());
  }
  return h.result().toHex();
}
}  // namespace

class TestDataCli : public QObject {
  Q_OBJECT
 private slots:
  void makeDemoIsDeterministic();
  void checkDatasetExitCodes_data();
  void checkDatasetExitCodes();
  void benchLoaderPrintsJson();
  void danglingSymlinkIsAProblem();
};

void TestDataCli::danglingSymlinkIsAProblem() {
  QTemporaryDir dir;
  auto demo = runStaveTrain(
      {"make-demo", "--out", dir.filePath("d"), "--train", "3", "--val", "2", "--imgsz", "64"}, {},
      60000);
  QCOMPARE(demo.exitCode, 0);
  // An image replaced by a link to a file that was moved away.
  QVERIFY(QFile::link(dir.filePath("gone/000009.jpg"), dir.filePath("d/images/train/000009.jpg")));
  auto r = runStaveTrain({"check-dataset", dir.filePath("d/data.yaml"), "--json"}, {}, 60000);
  QCOMPARE(r.exitCode, 1);
  const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
  const QJsonArray problems = j["splits"]["train"]["problems"].toArray();
  QCOMPARE(problems.size(), 1);
  QCOMPARE(problems[0]["kind"].toString(), QString("image-dangling-link"));
  QVERIFY(problems[0]["file"].toString().endsWith("images/train/000009.jpg"));
  QVERIFY(problems[0]["message"].toString().contains("gone/000009.jpg"));
}

void TestDataCli::makeDemoIsDeterministic() {
  QTemporaryDir dir;
  const QStringList common{"--train", "12", "--val", "4", "--imgsz", "96"};
  auto a = runStaveTrain(
      QStringList{"make-demo", "--out", dir.filePath("a"), "--seed", "7"} + common, {}, 60000);
  auto b = runStaveTrain(
      QStringList{"make-demo", "--out", dir.filePath("b"), "--seed", "7", "--threads", "1"} +
          common,
      {}, 60000);
  auto c = runStaveTrain(
      QStringList{"make-demo", "--out", dir.filePath("c"), "--seed", "8"} + common, {}, 60000);
  QCOMPARE(a.exitCode, 0);
  QCOMPARE(b.exitCode, 0);
  QCOMPARE(c.exitCode, 0);
  QVERIFY(QFile::exists(dir.filePath("a/images/train/000011.jpg")));
  QVERIFY(QFile::exists(dir.filePath("a/labels/val/000003.txt")));
  QCOMPARE(treeHash(dir.filePath("a")), treeHash(dir.filePath("b")));
  QVERIFY(treeHash(dir.filePath("a")) != treeHash(dir.filePath("c")));
  // The demo set is clean.
  auto check = runStaveTrain({"check-dataset", dir.filePath("a/data.yaml"), "--verify"}, {}, 60000);
  QCOMPARE(check.exitCode, 0);
  QVERIFY(check.out.contains("[train] 12 images"));
  // Bad option values are usage errors naming the option.
  auto bad = runStaveTrain({"make-demo", "--out", dir.filePath("d"), "--imgsz", "5"}, {}, 60000);
  QCOMPARE(bad.exitCode, 2);
  QVERIFY(bad.err.contains("imgsz"));
  // A new demo is never mixed into an existing dataset (a user's edits would be half kept).
  const QByteArray before = treeHash(dir.filePath("a"));
  auto mixed = runStaveTrain(QStringList{"make-demo", "--out", dir.filePath("a"), "--seed", "9"} +
                                 common,
                             {}, 60000);
  QCOMPARE(mixed.exitCode, 2);
  QVERIFY2(mixed.err.contains("not empty; pass --force"), qPrintable(mixed.err));
  QCOMPARE(treeHash(dir.filePath("a")), before);
}

void TestDataCli::checkDatasetExitCodes_data() {
  QTest::addColumn<QString>("label");  // text of train/a.txt
  QTest::addColumn<QString>("yaml");
  QTest::addColumn<int>("exitCode");
  const QString good = "path: .\ntrain: images/train\nval: images/train\nnames: [a, b]\n";
  QTest::newRow("clean") << "0 0.5 0.5 0.2 0.2\n" << good << 0;
  QTest::newRow("class out of range") << "0 0.5 0.5 0.2 0.2\n9 0.5 0.5 0.2 0.2\n" << good << 1;
  QTest::newRow("missing val") << "0 0.5 0.5 0.2 0.2\n"
                               << "train: images/train\nnames: [a, b]\n"
                               << 2;
  QTest::newRow("names wrong type") << ""
                                    << "train: images/train\nval: images/train\nnames: 3\n"
                                    << 2;
  QTest::newRow("path does not exist") << ""
                                       << "train: images/nowhere\nval: images/train\nnames: [a]\n"
                                       << 2;
}

void TestDataCli::checkDatasetExitCodes() {
  QFETCH(QString, label);
  QFETCH(QString, yaml);
  QFETCH(int, exitCode);
  QTemporaryDir dir;
  auto demo = runStaveTrain(
      {"make-demo", "--out", dir.filePath("d"), "--train", "1", "--val", "1", "--imgsz", "64"}, {},
      60000);
  QCOMPARE(demo.exitCode, 0);
  // Reuse one demo image as images/train/a.jpg of a hand-made dataset.
  QDir().mkpath(dir.filePath("images/train"));
  QDir().mkpath(dir.filePath("labels/train"));
  QVERIFY(
      QFile::copy(dir.filePath("d/images/train/000000.jpg"), dir.filePath("images/train/a.jpg")));
  QFile l(dir.filePath("labels/train/a.txt"));
  QVERIFY(l.open(QIODevice::WriteOnly));
  l.write(label.toUtf8());
  l.close();
  QFile y(dir.filePath("data.yaml"));
  QVERIFY(y.open(QIODevice::WriteOnly));
  y.write(yaml.toUtf8());
  y.close();
  auto r = runStaveTrain({"check-dataset", dir.filePath("data.yaml"), "--json"}, {}, 60000);
  QVERIFY(!r.crashed);
  QCOMPARE(r.exitCode, exitCode);
  const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
  QCOMPARE(j["exit_code"].toInt(), exitCode);
  if (exitCode == 1) {
    const QJsonArray problems = j["splits"]["train"]["problems"].toArray();
    QVERIFY(!problems.isEmpty());
    QCOMPARE(problems[0]["kind"].toString(), QString("label-class"));
    QCOMPARE(problems[0]["line"].toInt(), 2);
    QVERIFY(problems[0]["file"].toString().endsWith("labels/train/a.txt"));
  }
  if (exitCode == 2) QVERIFY(!j["errors"].toArray().isEmpty() || j["splits"].toObject().isEmpty());
  // Without --json the same problems are printed as file:line: kind: message.
  auto text = runStaveTrain({"check-dataset", dir.filePath("data.yaml")}, {}, 60000);
  QCOMPARE(text.exitCode, exitCode);
  if (exitCode == 1) QVERIFY(text.out.contains("a.txt:2: label-class"));
}

void TestDataCli::benchLoaderPrintsJson() {
  QTemporaryDir dir;
  QCOMPARE(runStaveTrain({"make-demo", "--out", dir.filePath("d"), "--train", "24", "--val", "2",
                          "--imgsz", "96"},
                         {}, 60000)
               .exitCode,
           0);
  auto r = runStaveTrain({"bench", "loader", "--data", dir.filePath("d/data.yaml"), "--imgsz", "96",
                          "--batch", "4", "--workers", "2", "--batches", "2"},
                         {}, 120000);
  QCOMPARE(r.exitCode, 0);
  const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
  QVERIFY2(!j.isEmpty(), qPrintable(r.out + r.err));
  QVERIFY(j["decode_images_per_s"].toDouble() > 0);
  for (const char* k :
       {"mosaic_cache_none", "no_mosaic_cache_none", "mosaic_cache_ram", "no_mosaic_cache_ram"})
    QVERIFY2(j[k]["samples_per_s"].toDouble() > 0, k);
  QVERIFY(j["targets"]["mosaic_vs_decode"]["ratio"].toDouble() > 0);
  QVERIFY(j["targets"]["ram_vs_uncached"]["target"].toDouble() == 3.0);
  // The default warm-up fills the mosaic buffer (about 100 images at batch 4) even on 24
  // images, by running on into the next epochs; the timed batches too cross epoch boundaries.
  QCOMPARE(j["steady_state"].toBool(), true);
  QVERIFY(j["mosaic_cache_none"]["warmup_batches"].toInt() > 6);
  QCOMPARE(j["mosaic_cache_none"]["timed_batches"].toInt(), 2);
  auto many =
      runStaveTrain({"bench", "loader", "--data", dir.filePath("d/data.yaml"), "--imgsz", "96",
                     "--batch", "4", "--workers", "2", "--batches", "15", "--warmup", "2"},
                    {}, 120000);
  QCOMPARE(many.exitCode, 0);
  const QJsonObject m = QJsonDocument::fromJson(many.out.toUtf8()).object();
  QCOMPARE(m["batches_requested"].toInt(), 15);
  for (const char* k :
       {"mosaic_cache_none", "no_mosaic_cache_none", "mosaic_cache_ram", "no_mosaic_cache_ram"}) {
    QCOMPARE(m[k]["timed_batches"].toInt(), 15);
    QCOMPARE(m[k]["batches_per_epoch"].toInt(), 6);
    QVERIFY2(m[k]["epochs_spanned"].toInt() >= 3, k);
    QCOMPARE(m[k]["samples"].toInt(), 60);
  }
  // An explicit warm-up is taken as asked (one batch does not fill the buffer either).
  auto warm =
      runStaveTrain({"bench", "loader", "--data", dir.filePath("d/data.yaml"), "--imgsz", "96",
                     "--batch", "4", "--workers", "1", "--batches", "2", "--warmup", "1"},
                    {}, 120000);
  QCOMPARE(warm.exitCode, 0);
  const QJsonObject w = QJsonDocument::fromJson(warm.out.toUtf8()).object();
  QCOMPARE(w["mosaic_cache_none"]["warmup_batches"].toInt(), 1);
  QCOMPARE(w["mosaic_cache_none"]["timed_batches"].toInt(), 2);
  QCOMPARE(w["steady_state"].toBool(), false);
  QVERIFY(w["note"].toString().contains("--warmup"));
  auto bad = runStaveTrain({"bench", "loader"}, {}, 60000);
  QCOMPARE(bad.exitCode, 2);
  auto badWarmup = runStaveTrain(
      {"bench", "loader", "--data", dir.filePath("d/data.yaml"), "--warmup", "-1"}, {}, 60000);
  QCOMPARE(badWarmup.exitCode, 2);
  QVERIFY(badWarmup.err.contains("--warmup"));
}

QTEST_GUILESS_MAIN(TestDataCli)
#include "tst_data_cli.moc"
